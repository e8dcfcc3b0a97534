"""JSON reporter: the document of `schemas/report.schema.json`, keys sorted, no timestamps or absolute paths added."""

from __future__ import annotations

import json

from verifier.model import Report
from verifier.report._common import json_text, visible_json

__all__ = ["NAME", "render"]

NAME = "json"


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the report as indented JSON text ending in a newline, UTF-8-encodable (`json_text`), control and bidi characters as visible escapes (`visible_json`); `verbose`, `color` are ignored."""
    return json_text(json.dumps(visible_json(report.to_json()), indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
