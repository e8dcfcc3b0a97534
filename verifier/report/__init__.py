"""
Reporters: pure functions from a `Report` to text.

Each reporter module defines `NAME` and `render(report, *, verbose=False,
color=False) -> str`. They never read the bundle, re-run checks, or choose the
exit code. `REPORTERS` is the registry the CLI's `--format` chooses from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verifier.model.findings import Report
from verifier.report import csv_report, github, html, json_report, junit, markdown, sarif, tap, text

__all__ = ["REPORTERS", "Renderer"]

Renderer = Callable[..., str]

REPORTERS: dict[str, Renderer] = {
    text.NAME: text.render,
    json_report.NAME: json_report.render,
    junit.NAME: junit.render,
    sarif.NAME: sarif.render,
    github.NAME: github.render,
    markdown.NAME: markdown.render,
    html.NAME: html.render,
    csv_report.NAME: csv_report.render,
    tap.NAME: tap.render,
}


def render(report: Report, fmt: str, **options: Any) -> str:
    """Return `report` rendered in format `fmt` (`options`: `verbose`, `color`, and `at` for `html`); raises `KeyError` for an unknown format."""
    return REPORTERS[fmt](report, **options)
