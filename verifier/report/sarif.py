"""
SARIF 2.1.0 reporter, for GitHub code scanning and other SARIF viewers.

One run, tool `verify`. Each finding is a result whose `ruleId` is
`<check>/<code>` (SARIF §3.27.5 hierarchical rule ids) with one rule
descriptor per distinct `ruleId`, named after the check's title from the
roster. Status mapping: FAIL -> kind `fail`, level `error`; ERROR -> kind
`fail`, level `error` plus a tool execution notification (the verifier
failed, `executionSuccessful` false); UNVERIFIED -> kind `open` (SARIF:
"the tool could not determine whether the result is a pass or a failure"),
level `none`; PASS -> kind `pass`, level `none` (§3.27.10: a kind other than
`fail` has level `none`). `artifactLocation.uri` is bundle-relative with
`uriBaseId` `BUNDLE`, which `originalUriBaseIds` resolves to the bundle path
as given, relative to `SRCROOT` (the directory `verify` ran in, left without
a `uri` so no absolute path is recorded); a bundle given by an absolute path
is recorded by its last component only (`BUNDLE` is then `NAME/`), so no
absolute path is recorded either way. The JSON Pointer and status are in
`properties`; a stated number's line and column (`README.md:3:55`) are also its
`region` (`startLine`, `startColumn`). Results come worst first (FAIL, ERROR, UNVERIFIED, PASS, report
order within each); the run's `properties` add `groups` (status, check, code,
rule and count of each group to act on, `_common.groups`) and `claims`
(claim, status, claimed, derived, delta, where).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from verifier.model.findings import Finding, Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, groups, json_text, relative_subject, split_path, titles, trust_warning, visible_json

__all__ = ["NAME", "SARIF_SCHEMA", "render"]

NAME = "sarif"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
KIND = {Status.FAIL: "fail", Status.ERROR: "fail", Status.UNVERIFIED: "open", Status.PASS: "pass"}
LEVEL = {Status.FAIL: "error", Status.ERROR: "error", Status.UNVERIFIED: "none", Status.PASS: "none"}


def _uri(path: str) -> str:
    """Return a relative URI reference for a POSIX path (percent-encoded, `/` kept; a non-UTF-8 name by its bytes)."""
    return quote(path, safe="/", errors="surrogateescape")


#: `path` as given, or its last component when it is absolute (`/a/b/` -> `b`): SARIF records no absolute path.
_relative = relative_subject


def _base(report: Report) -> str:
    """Return the bundle's URI relative to SRCROOT, ending in `/` (`_relative`)."""
    return _uri(_relative(report.subject)) + "/"


def _result(report: Report, f: Finding, rule_index: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f"{f.check}/{f.code}",
        "ruleIndex": rule_index,
        "kind": KIND[f.status],
        "level": LEVEL[f.status],
        "message": {"text": f"{f.status.value}: {f.message}"},
        "properties": {"status": f.status.value, "check": f.check, "code": f.code},
    }
    if f.pointer is not None:
        result["properties"]["pointer"] = f.pointer
    for key in ("expected", "observed"):
        value = f.to_json()[key]
        if value is not None:
            result["properties"][key] = value
    listed_in = f.expected.get("listed_in") if isinstance(f.expected, dict) else None
    placed = Finding(check=f.check, status=f.status, code=f.code, message=f.message, path=listed_in) if f.code == "missing-file" and isinstance(listed_in, str) else f
    where = split_path(report, placed)  # a file the bundle lacks is placed on the manifest that lists it, as github and HTML place it
    if where is not None:
        base, rel = where
        location = {"uri": _uri(_relative(rel))} if base is None else {"uri": _uri(rel), "uriBaseId": "BUNDLE"}
        physical: dict[str, Any] = {"artifactLocation": location}
        detail = f.observed if isinstance(f.observed, dict) else {}
        line, column = detail.get("line"), detail.get("column")
        if type(line) is int and line >= 1:  # a stated number's place (`README.md:3:55`): SARIF §3.30 region, 1-based
            physical["region"] = {"startLine": line, **({"startColumn": column} if type(column) is int and column >= 1 else {})}
        result["locations"] = [{"physicalLocation": physical}]
    return result


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the SARIF log as indented JSON (`verbose`, `color` are ignored; PASS results are always included)."""
    names = titles(report)
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results = []
    for f in sorted(report.findings, key=lambda f: STATUS_ORDER[f.status]):
        rule_id = f"{f.check}/{f.code}"
        if rule_id not in index:
            index[rule_id] = len(rules)
            title = names.get(f.check, f.check)
            rules.append({
                "id": rule_id,
                "name": "".join(p.capitalize() for p in rule_id.replace("/", ".").replace("-", ".").split(".")),
                "shortDescription": {"text": f"{f.check} [{f.code}]"},
                "fullDescription": {"text": title},
                "properties": {"check": f.check, "code": f.code},
            })
        results.append(_result(report, f, index[rule_id]))
    errors = [f for f in report.findings if f.status is Status.ERROR]
    invocation: dict[str, Any] = {
        "executionSuccessful": not errors,
        "exitCode": int(report.exit_code),
        "properties": {"verdict": report.verdict, **({"trust_warning": trust_warning(report)} if trust_warning(report) else {})},
    }
    if errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": f"{f.check} [{f.code}]: {f.message}"},
             "descriptor": {"id": f"{f.check}/{f.code}"}}
            for f in errors
        ]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "verify",
            "version": report.verifier_version,
            "informationUri": "https://verify.invalid/docs/ci.md",
            "rules": rules,
        }},
        "invocations": [invocation],
        "results": results,
        "properties": {"verdict": report.verdict, "kind": report.kind, "subject": _relative(report.subject),
                       "gate": report.gate, "gate_sha256": report.gate_sha256,
                       "roster": [{"check": c.check, "title": c.title, "counts": dict(sorted(c.counts.items()))}
                                  for c in report.roster],
                       "groups": [{"status": g.status.value, "check": g.check, "code": g.code, "rule": g.rule, "count": g.count}
                                  for g in groups(report)],
                       "claims": [{"claim": r.claim, "status": r.status.value, "claimed": r.claimed, "derived": r.derived,
                                   "delta": r.delta, "tolerance": r.tolerance, "where": r.where}
                                  for r in claim_rows(report)]},
    }
    if any(loc["physicalLocation"]["artifactLocation"].get("uriBaseId") == "BUNDLE"
           for r in results for loc in r.get("locations", [])):
        run["originalUriBaseIds"] = {
            "BUNDLE": {"uri": _base(report), "uriBaseId": "SRCROOT",
                       "description": {"text": "the bundle directory as given to verify"}},
            "SRCROOT": {"description": {"text": "the directory that holds the bundle (verify was given its absolute path, which is not recorded)"
                                            if report.subject.startswith("/") else "the directory verify ran in (no absolute paths are recorded)"}},
        }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json_text(json.dumps(visible_json(log), indent=2, sort_keys=False, ensure_ascii=False)) + "\n"
