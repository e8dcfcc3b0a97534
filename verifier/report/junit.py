"""
JUnit XML reporter: one `<testcase>` per check of the roster.

A check's worst finding decides its element, with the verdict's precedence:
any FAIL -> `<failure type="FAIL">`, else any ERROR -> `<error type="ERROR">`,
else any UNVERIFIED -> `<failure type="UNVERIFIED">` (never counted as a
pass, never as skipped), else the testcase passes. Testcases come worst first (FAIL, ERROR,
UNVERIFIED, then passing, roster order within each), and the element's text
lists the check's groups of findings that are not PASS (`_common.groups`:
code and rule, the count, the first `FEW` findings; every one with
`verbose`); PASS findings go to `<system-out>` when `verbose`. The suite's
`<system-out>` holds the claims table (claimed, derived, delta, where),
non-PASS rows first, PASS rows with `verbose`. No timestamps or absolute paths (a bundle given
absolutely is named by its last component, `_common.relative_subject`, as in SARIF): output is
deterministic. Every string from the report passes through `visible`, so
control characters (which XML 1.0 forbids even as character references),
lone surrogates and U+FFFE/U+FFFF are written as printable escapes and the
document is always well-formed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from verifier.model.findings import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, groups, location, message, relative_subject, trust_warning, visible

__all__ = ["NAME", "render"]

NAME = "junit"


def _line(f) -> str:  # type: ignore[no-untyped-def]
    return visible(f"{f.status.value} [{f.code}] {location(f)}: {message(f)}")


def _group_text(g, verbose: bool) -> str:  # type: ignore[no-untyped-def]
    shown = g.findings if verbose else g.first()
    lines = [visible(f"{g.status.value} [{g.code}]{' ' + g.rule if g.rule else ''}: {g.count} finding(s)")]
    lines += ["  " + _line(f) for f in shown]
    if len(shown) < g.count:
        lines.append(f"  ... and {g.count - len(shown)} more (-v lists every one)")
    return "\n".join(lines)


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return a `<testsuites>` document with one `<testsuite>` for the report (`color` is ignored)."""
    by_check: dict[str, list] = {c.check: [] for c in report.roster}  # type: ignore[type-arg]
    for f in report.findings:
        by_check.setdefault(f.check, []).append(f)
    suites = ET.Element("testsuites", name="verify")
    suite = ET.SubElement(suites, "testsuite", name=visible(relative_subject(report.subject)))  # no absolute path (as SARIF)
    props = ET.SubElement(suite, "properties")
    for key, value in (("verdict", report.verdict), ("exit_code", str(int(report.exit_code))), ("kind", report.kind),
                       ("gate", report.gate or ""), ("gate_sha256", report.gate_sha256 or ""),
                       ("verifier_version", report.verifier_version),
                       *((("trust_warning", trust_warning(report) or ""),) if trust_warning(report) else ())):
        ET.SubElement(props, "property", name=key, value=visible(value))
    failures = errors = 0
    grouped: dict[str, list] = {}  # type: ignore[type-arg]
    for g in groups(report):
        grouped.setdefault(g.check, []).append(g)
    worst = {check: min((STATUS_ORDER[f.status] for f in found), default=STATUS_ORDER[Status.PASS]) for check, found in by_check.items()}
    for check, found in sorted(by_check.items(), key=lambda item: worst[item[0]]):
        case = ET.SubElement(suite, "testcase", classname=visible(f"verify.{report.kind}"), name=visible(check), time="0")
        statuses = {f.status for f in found}
        text = "\n".join(_group_text(g, verbose) for g in grouped.get(check, []))
        summary = "; ".join(f"{sum(1 for f in found if f.status is s)} {s.value}" for s in Status if s in statuses)
        if Status.FAIL in statuses:
            element = ET.SubElement(case, "failure", type="FAIL", message=visible(f"{check}: {summary}"))
            failures += 1
        elif Status.ERROR in statuses:
            element = ET.SubElement(case, "error", type="ERROR", message=visible(f"{check}: {summary}"))
            errors += 1
        elif Status.UNVERIFIED in statuses:
            element = ET.SubElement(case, "failure", type="UNVERIFIED", message=visible(f"{check}: {summary}"))
            failures += 1
        else:
            element = None
        if element is not None:
            element.text = text
        passed = [f for f in found if f.status is Status.PASS]
        if verbose and passed:
            ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in passed)
    rows = claim_rows(report)
    if rows:
        ET.SubElement(suite, "system-out").text = visible("\n".join(
            [f"claims: {len(rows)} (claimed, derived, delta, where)"]
            + [f"{r.status.value} {r.claim}: claimed {r.claimed}, derived {r.derived}, delta {r.delta} at {r.where}"
               for r in rows if verbose or r.status is not Status.PASS]))
    for element, value in ((suites, None), (suite, None)):
        del value
        element.set("tests", str(len(by_check)))
        element.set("failures", str(failures))
        element.set("errors", str(errors))
        element.set("skipped", "0")
        element.set("time", "0")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
