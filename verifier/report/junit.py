"""
JUnit XML reporter: one `<testcase>` per check of the roster.

A check's worst finding decides its element, with the verdict's precedence:
any FAIL -> `<failure type="FAIL">`, else any ERROR -> `<error type="ERROR">`,
else any UNVERIFIED -> `<failure type="UNVERIFIED">` (never counted as a
pass, never as skipped), else the testcase passes. The element's text lists
every finding of the check that is not PASS; PASS findings go to
`<system-out>` when `verbose`. No timestamps or absolute paths: output is
deterministic. Every string from the report passes through `visible`, so
control characters (which XML 1.0 forbids even as character references),
lone surrogates and U+FFFE/U+FFFF are written as printable escapes and the
document is always well-formed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from verifier.model import Report, Status
from verifier.report._common import location, visible

__all__ = ["NAME", "render"]

NAME = "junit"


def _line(f) -> str:  # type: ignore[no-untyped-def]
    return visible(f"{f.status.value} [{f.code}] {location(f)}: {f.message}")


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return a `<testsuites>` document with one `<testsuite>` for the report (`color` is ignored)."""
    by_check: dict[str, list] = {c.check: [] for c in report.roster}  # type: ignore[type-arg]
    for f in report.findings:
        by_check.setdefault(f.check, []).append(f)
    suites = ET.Element("testsuites", name="verify")
    suite = ET.SubElement(suites, "testsuite", name=visible(report.subject))
    props = ET.SubElement(suite, "properties")
    for key, value in (("verdict", report.verdict), ("exit_code", str(int(report.exit_code))), ("kind", report.kind),
                       ("gate", report.gate or ""), ("gate_sha256", report.gate_sha256 or ""),
                       ("verifier_version", report.verifier_version)):
        ET.SubElement(props, "property", name=key, value=visible(value))
    failures = errors = 0
    for check, found in by_check.items():
        case = ET.SubElement(suite, "testcase", classname=visible(f"verify.{report.kind}"), name=visible(check), time="0")
        statuses = {f.status for f in found}
        bad = [f for f in found if f.status is not Status.PASS]
        text = "\n".join(_line(f) for f in bad)
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
    for element, value in ((suites, None), (suite, None)):
        del value
        element.set("tests", str(len(by_check)))
        element.set("failures", str(failures))
        element.set("errors", str(errors))
        element.set("skipped", "0")
        element.set("time", "0")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
