"""JSON reporter: the document of `schemas/report.schema.json`, keys sorted, no timestamps or absolute paths added."""

from __future__ import annotations

import json

from verifier.model import Report

__all__ = ["NAME", "render"]

NAME = "json"


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return the report as indented JSON text ending in a newline (`verbose`, `color` are ignored)."""
    return json.dumps(report.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
