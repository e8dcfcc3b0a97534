"""
Markdown reporter: a summary for a pull-request comment or `GITHUB_STEP_SUMMARY`.

Verdict first, then the claims table (claimed / derived / delta, failures
first), then every finding that is not PASS (worst first), then the roster
with counts per status. PASS findings are counted, not listed, unless `verbose`.
"""

from __future__ import annotations

from verifier.model import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, location

__all__ = ["NAME", "render"]

NAME = "markdown"

ICONS = {Status.PASS: "✅", Status.FAIL: "❌", Status.UNVERIFIED: "⚠️", Status.ERROR: "💥"}
VERDICT_ICONS = {"PASS": "✅", "FAIL": "❌", "INCOMPLETE": "⚠️", "ERROR": "💥"}


def cell(value: object) -> str:
    """Return `value` safe for one Markdown table cell: pipes escaped, line breaks as `<br>`, backticks kept."""
    text = str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the Markdown summary of `report` (`color` is ignored)."""
    counts = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    gate = f" · gate `{report.gate}` (sha256 `{report.gate_sha256[:12]}…`)" if report.gate and report.gate_sha256 else ""
    lines = [
        f"### {VERDICT_ICONS[report.verdict]} verify: {report.verdict} — `{cell(report.subject)}`",
        "",
        f"**Verdict: {report.verdict}** (exit {int(report.exit_code)}) · {report.kind}{gate} · "
        + ", ".join(f"{n} {s.value}" for s, n in counts.items()),
        "",
    ]
    rows = claim_rows(report)
    if rows:
        lines += ["#### Claims", "", "| Status | Claim | Claimed | Derived | Delta |", "|---|---|---:|---:|---:|"]
        lines += [f"| {ICONS[r.status]} {r.status.value} | `{cell(r.claim)}` | {cell(r.claimed)} | {cell(r.derived)} | {cell(r.delta)} |"
                  for r in rows]
        lines.append("")
    shown = [f for f in report.findings if verbose or f.status is not Status.PASS]
    shown.sort(key=lambda f: STATUS_ORDER[f.status])
    if shown:
        lines += ["#### Findings" if verbose else "#### Findings that are not PASS", "",
                  "| Status | Check | Code | Location | Message |", "|---|---|---|---|---|"]
        lines += [f"| {ICONS[f.status]} {f.status.value} | `{f.check}` | `{f.code}` | `{cell(location(f))}` | {cell(f.message)} |"
                  for f in shown]
        lines.append("")
    lines += ["<details><summary>Checks run</summary>", "", "| Check | " + " | ".join(s.value for s in Status) + " | Title |",
              "|---|" + "---:|" * len(Status) + "---|"]
    lines += [f"| `{c.check}` | " + " | ".join(str(c.counts.get(s.value, 0)) for s in Status) + f" | {cell(c.title)} |"
              for c in report.roster]
    lines += ["", "</details>", ""]
    return "\n".join(lines)
