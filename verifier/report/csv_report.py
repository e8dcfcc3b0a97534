"""
CSV reporter: one row per finding, for a spreadsheet or a script.

Columns (a header row first): `check`, `status`, `code`, `file`, `pointer`,
`message`. Rows lead with what a reviewer must act on, as every format does:
FAIL, then ERROR, then UNVERIFIED, then PASS findings, each status in the
report's pipeline order. `file` and `pointer` are the finding's own (a
bundle-relative path and a JSON Pointer or `#line=`/`#row=` fragment; empty
when it names none); `message` is the message without a location it repeats
(`_common.message`). The claims, roster and verdict are not rows: a finding
is the one shape this file holds (`-f json` has the rest). `verbose` changes
nothing: every finding is always a row.

Quoting is RFC 4180 (Python's `csv` module, `QUOTE_MINIMAL`, CRLF line
ends): a cell holding a comma, a double quote or a line break is quoted,
its quotes doubled. Evidence text is written visible first
(`_common.visible`: control and bidi characters, newlines included, as
escapes, so no cell starts with a tab or a carriage return), and a cell
that would start with `=`, `+`, `-` or `@` is prefixed with `'`, so a
spreadsheet shows it as text and never evaluates it as a formula (OWASP,
"CSV Injection").
"""

from __future__ import annotations

import csv
import io

from verifier.model.findings import Report, Status
from verifier.report._common import message, visible

__all__ = ["COLUMNS", "NAME", "cell", "render"]

NAME = "csv"

#: The header row, in column order.
COLUMNS = ("check", "status", "code", "file", "pointer", "message")
#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@")
#: Row order: what to act on first.
ORDER = (Status.FAIL, Status.ERROR, Status.UNVERIFIED, Status.PASS)


def cell(text: str | None) -> str:
    """Return `text` as one safe cell: visible escapes for control and bidi characters, `'` before a formula's first character; None is empty."""
    shown = visible(text or "")
    return "'" + shown if shown.startswith(FORMULA_START) else shown


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return `report` as CSV text (header, then one row per finding, worst status first; `verbose` and `color` ignored)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for status in ORDER:
        for f in report.findings:
            if f.status is status:
                writer.writerow([cell(f.check), status.value, cell(f.code), cell(f.path), cell(f.pointer), cell(message(f))])
    return out.getvalue()
