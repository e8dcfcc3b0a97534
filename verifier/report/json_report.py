"""
JSON reporter: the document of `schemas/report.schema.json`, keys sorted, no timestamps or absolute paths added.

Besides `findings` (in pipeline order) it carries what the human formats lead
with: `to_act_on`, the groups of FAIL, ERROR and UNVERIFIED findings
(`_common.groups`: status, check, code, rule, count and the indexes of the
group's findings in `findings`), and `claims`, the claims table of whatever
reader read the bundle (`_common.claim_rows`: claim, status, claimed,
derived, delta, where).
"""

from __future__ import annotations

import json

from verifier.model.findings import Report
from verifier.report._common import claim_rows, groups, json_text, visible_json

__all__ = ["NAME", "render"]

NAME = "json"


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the report as indented JSON text ending in a newline, UTF-8-encodable (`json_text`), control and bidi characters as visible escapes (`visible_json`); `verbose`, `color` are ignored."""
    document = report.to_json()
    index = {id(f): i for i, f in enumerate(report.findings)}
    document["to_act_on"] = [{"status": g.status.value, "check": g.check, "code": g.code, "rule": g.rule, "count": g.count,
                              "findings": [index[id(f)] for f in g.findings]} for g in groups(report)]
    document["claims"] = [{"claim": r.claim, "status": r.status.value, "claimed": r.claimed, "derived": r.derived, "delta": r.delta,
                           "tolerance": r.tolerance, "where": r.where} for r in claim_rows(report)]
    return json_text(json.dumps(visible_json(document), indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
