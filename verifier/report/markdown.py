"""
Markdown reporter: a summary for a pull-request comment or `GITHUB_STEP_SUMMARY`.

Verdict first, then the claims table (claimed / derived / delta, failures
first), then the stated claims (every number of the prose: where, stated,
bound value, derived value, sentence; identifiers are left out), then every finding that is not PASS (worst first), then the roster
with counts per status. PASS findings are counted, not listed, unless `verbose`.

Every value that can come from evidence (messages, paths, claim names and
numbers, the subject, titles) renders as literal text: control and bidi
characters become visible escapes, and the characters that start Markdown or
HTML inline syntax (`& < > \\ ` * _ [ ] | ~ ! $`) become numeric character
references, which CommonMark and GFM never read as syntax (or as a table's
cell delimiter). Values made only of harmless characters are shown as code spans.
"""

from __future__ import annotations

import re

from verifier.model import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, judged_by, location, trust_lines, visible
from verifier.report.statements import statement_rows

__all__ = ["NAME", "cell", "code", "render"]

NAME = "markdown"

ICONS = {Status.PASS: "✅", Status.FAIL: "❌", Status.UNVERIFIED: "⚠️", Status.ERROR: "💥"}
VERDICT_ICONS = {"PASS": "✅", "FAIL": "❌", "INCOMPLETE": "⚠️", "ERROR": "💥"}


#: Characters that can start inline Markdown/HTML syntax (images, links, tags, entities, emphasis, code, strikethrough,
#: math) or split a table cell; each is written as a numeric character reference.
_REFERENCES = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\\`*_[]|~!$"})
#: What a code span may hold verbatim: no backtick, pipe, backslash or markup.
_PLAIN = re.compile(r"[A-Za-z0-9 ._/:#@+=,()-]+\Z")


def cell(value: object) -> str:
    """Return `value` as literal Markdown text, safe in a table cell and in running text (escapes, no markup)."""
    return visible(str(value)).translate(_REFERENCES)


def code(value: object) -> str:
    """Return `value` as a code span when it holds only plain characters, else as `cell` text."""
    text = visible(str(value))
    return f"`{text}`" if _PLAIN.match(text) else text.translate(_REFERENCES)


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the Markdown summary of `report` (`color` is ignored)."""
    counts = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    judge = judged_by(report)
    gate = f" · {judge[0]} {code(judge[1])} (sha256 {code(report.gate_sha256[:12])}…)" if judge and report.gate_sha256 else ""
    lines = [
        f"### {VERDICT_ICONS[report.verdict]} verify: {report.verdict} — {code(report.subject)}",
        "",
        f"**Verdict: {report.verdict}** (exit {int(report.exit_code)}) · {cell(report.kind)}{gate} · "
        + ", ".join(f"{n} {s.value}" for s, n in counts.items()),
        "",
    ]
    trust = trust_lines(report)
    if trust:
        lines += [f"- trust: {cell(line)}" for line in trust] + [""]
    rows = claim_rows(report)
    if rows:
        lines += ["#### Claims", "", "| Status | Claim | Claimed | Derived | Delta |", "|---|---|---:|---:|---:|"]
        lines += [f"| {ICONS[r.status]} {r.status.value} | {code(r.claim)} | {cell(r.claimed)} | {cell(r.derived)} | {cell(r.delta)} |"
                  for r in rows]
        lines.append("")
    stated = [r for r in statement_rows(report) if r.code != "informational"]
    if stated:
        lines += ["#### Stated claims", "", "| Status | Where | Stated | Bound to | Derived | Sentence |", "|---|---|---:|---|---:|---|"]
        lines += [f"| {ICONS[r.status]} {r.status.value} | {code(r.where)} | {cell(r.stated)} | {code(r.bound)} | {cell(r.derived)} | {cell(r.sentence)} |"
                  for r in stated]
        lines.append("")
    shown = [f for f in report.findings if verbose or f.status is not Status.PASS]
    shown.sort(key=lambda f: STATUS_ORDER[f.status])
    if shown:
        lines += ["#### Findings" if verbose else "#### Findings that are not PASS", "",
                  "| Status | Check | Code | Location | Message |", "|---|---|---|---|---|"]
        lines += [f"| {ICONS[f.status]} {f.status.value} | {code(f.check)} | {code(f.code)} | {code(location(f))} | {cell(f.message)} |"
                  for f in shown]
        lines.append("")
    lines += ["<details><summary>Checks run</summary>", "", "| Check | " + " | ".join(s.value for s in Status) + " | Title |",
              "|---|" + "---:|" * len(Status) + "---|"]
    lines += [f"| {code(c.check)} | " + " | ".join(str(c.counts.get(s.value, 0)) for s in Status) + f" | {cell(c.title)} |"
              for c in report.roster]
    lines += ["", "</details>", ""]
    return "\n".join(lines)
