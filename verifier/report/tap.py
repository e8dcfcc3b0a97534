"""
TAP reporter: the Test Anything Protocol, version 13 (testanything.org, "TAP 13 specification").

The document is `TAP version 13`, the plan `1..N` (N the checks of the
roster), then one test line per check, numbered from 1, worst first as in
every format (FAIL, ERROR, UNVERIFIED, then passing; roster order within
each), each carrying its check's worst status:

- PASS: `ok N - CHECK`;
- FAIL, ERROR: `not ok N - CHECK`;
- UNVERIFIED: `not ok N - CHECK # TODO unverified` (a TAP harness counts a
  TODO test as not failing: the run's exit code, 3 for INCOMPLETE, is what
  says the evidence was not all checked; the test line never reads `ok`).

A check that is not PASS is followed by a YAML diagnostic block (indented
two spaces, between `---` and `...`): its `status`, the `findings` tally by
status, and its `groups` of findings to act on (`_common.groups`: status,
code, rule, count, the first `FEW` findings, every one with `verbose`, and
how many more). With `verbose`, a check's PASS findings are listed in the
block too (`passed`), and a passing check gets a block for them. After the
test lines, `#` diagnostic lines give the claims (claimed, derived, delta,
tolerance, where; non-PASS rows, every row with `verbose`), the trust
warning if any, and the verdict with its exit code.

Evidence text is written with `_common.visible` (control and bidi characters
as visible escapes, so it can forge no line) and, inside the YAML block, as
a JSON string (a YAML double-quoted scalar); in a test line's description a
`#` is written `\\#` and a `\\` as `\\\\`, as the specification says, so no
check id can start a directive. No timestamps or absolute paths: output is
deterministic. `color` is ignored.
"""

from __future__ import annotations

import json

from verifier.model.findings import Finding, Report, Status
from verifier.report._common import STATUS_ORDER, Group, claim_rows, groups, json_text, location, message, trust_warning, visible

__all__ = ["NAME", "render"]

NAME = "tap"

#: The directive of a check whose worst status is UNVERIFIED (TAP 13 "Directives": TODO).
UNVERIFIED_DIRECTIVE = "# TODO unverified"


def _scalar(text: str) -> str:
    """Return `text` as a YAML double-quoted scalar (a JSON string), evidence made visible first."""
    return json_text(json.dumps(visible(text), ensure_ascii=False))


def _description(check: str) -> str:
    """Return a check id as a TAP description: visible, `\\` and `#` escaped (TAP 13: a `#` outside a directive is written `\\#`)."""
    return visible(check).replace("\\", "\\\\").replace("#", "\\#")


def _line(f: Finding) -> str:
    return f"{f.status.value} [{f.code}] {location(f)}: {message(f)}"


def _group_yaml(g: Group, verbose: bool) -> list[str]:
    shown = g.findings if verbose else g.first()
    lines = [f"    - status: {g.status.value}", f"      code: {_scalar(g.code)}", f"      rule: {_scalar(g.rule)}", f"      count: {g.count}",
             "      findings:"]
    lines += [f"        - {_scalar(_line(f))}" for f in shown]
    if len(shown) < g.count:
        lines.append(f"      more: {g.count - len(shown)}")
    return lines


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return `report` as a TAP version 13 document (one test line per check of the roster; `color` is ignored)."""
    by_check: dict[str, list[Finding]] = {c.check: [] for c in report.roster}
    for f in report.findings:
        by_check.setdefault(f.check, []).append(f)
    grouped: dict[str, list[Group]] = {}
    for g in groups(report):
        grouped.setdefault(g.check, []).append(g)
    worst = {check: min((f.status for f in found), key=STATUS_ORDER.__getitem__, default=Status.PASS) for check, found in by_check.items()}
    out = ["TAP version 13", f"1..{len(by_check)}"]
    for number, check in enumerate(sorted(by_check, key=lambda c: STATUS_ORDER[worst[c]]), start=1):
        status, found = worst[check], by_check[check]
        head = f"{'ok' if status is Status.PASS else 'not ok'} {number} - {_description(check)}"
        out.append(f"{head} {UNVERIFIED_DIRECTIVE}" if status is Status.UNVERIFIED else head)
        passed = [f for f in found if f.status is Status.PASS]
        if status is Status.PASS and not (verbose and passed):
            continue
        tally = {s.value: n for s in sorted(Status, key=STATUS_ORDER.__getitem__) if (n := sum(1 for f in found if f.status is s))}  # worst first
        block = ["  ---", f"  status: {status.value}", "  findings: {" + ", ".join(f"{k}: {n}" for k, n in tally.items()) + "}"]
        if grouped.get(check):
            block.append("  groups:")
            for g in grouped[check]:
                block += _group_yaml(g, verbose)
        if verbose and passed:
            block.append("  passed:")
            block += [f"    - {_scalar(_line(f))}" for f in passed]
        out += [*block, "  ..."]
    rows = claim_rows(report)
    if rows:
        out.append(f"# claims: {len(rows)} (claimed, derived, delta, tolerance, where)")
        out += [visible(f"# {r.status.value} {r.claim}: claimed {r.claimed}, derived {r.derived}, delta {r.delta}, tolerance {r.tolerance} at {r.where}")
                for r in rows if verbose or r.status is not Status.PASS]
    warning = trust_warning(report)
    if warning:
        out.append(visible(f"# trust: {warning}"))
    out.append(f"# verdict: {report.verdict} (exit {int(report.exit_code)})")
    return "\n".join(out) + "\n"
