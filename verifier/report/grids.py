"""
Results-table grids shared by the HTML and Markdown reporters: the claims of one table of the bundle, drawn as that table.

Pure functions of a `Report`; no I/O. A claim comes from a table when its
finding's location is a cell of one: `/tables/HEADING/ROW/COLUMN` of a
Markdown, HTML or reStructuredText document (the tables `verifier.readers`
read, `verifier.profiles.profile_lint._TABLE_DOCUMENTS`), or `/ROW/COLUMN` of a CSV
file; a `#fragment` after the cell (`#acc`, `#numbers/1`: one of several
values in the cell) becomes part of the column (`Accuracy#acc`). Each such
table gives one `Grid`: its rows by its columns, one `Cell` per judged
place holding the claim rows there (`_common.claim_rows`) and every other
finding located at it (`_located`: its own `path#pointer` is the cell, or a
gate rule not met by the quantity the cell's claim is derived from), coloured
by their worst status. A grid holds at most `MAX_ROWS` rows and `MAX_COLUMNS`
columns (rows and columns with a claim that is not PASS are kept first, in
table order) and the report at most `MAX_GRIDS` grids; what is left out is
counted (`more_rows`, `more_columns`, `grids`' second value) for the marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from verifier.model.findings import Finding, Report, Status
from verifier.model.numtext import number
from verifier.report._common import CLAIM_CHECKS, STATUS_ORDER, ClaimRow, claim_rows, message

__all__ = ["MAX_COLUMNS", "MAX_GRIDS", "MAX_ROWS", "Cell", "Grid", "cell_of", "grids"]

#: Bounds of what one report draws: rows and columns of a grid, grids of a report.
MAX_ROWS, MAX_COLUMNS, MAX_GRIDS = 40, 12, 8
#: Documents whose `/tables/HEADING/ROW/COLUMN` are table cells (`verifier.profiles.profile_lint._TABLE_DOCUMENTS`).
TABLE_DOCUMENTS = (".md", ".markdown", ".html", ".htm", ".rst")
#: A dimension of a claim's name: `[arm=bf16]`.
_DIMENSION = re.compile(r"\[([^\]=]+)=([^\]]*)\]")


@dataclass(frozen=True, slots=True)
class Cell:
    """
    Represents one judged place of a results table: its claim rows (one or more values stated there), the other findings
    located at it (`others`: a gate rule its quantity does not meet, a finding whose place is the cell) and their worst status.
    """

    claims: tuple[ClaimRow, ...]
    others: tuple[Finding, ...] = ()

    @property
    def status(self) -> Status:
        """The worst status of the cell's claims and other findings (FAIL > ERROR > UNVERIFIED > PASS)."""
        return min([r.status for r in self.claims] + [f.status for f in self.others], key=STATUS_ORDER.__getitem__)

    def values(self, unit: str | None = None) -> list[tuple[str, str]]:
        """Return `(stated, derived)` per claim, plain text; `unit` (the column's shared one) is left out of both, a number past 12 significant digits rounded (`numtext.number`)."""
        cut = (lambda v: v[: -len(unit) - 1] if unit and v.endswith(" " + unit) else v)
        return [(_short(cut(r.claimed)), _short(cut(r.derived))) for r in self.claims]

    def detail(self) -> str:
        """Return one plain line per claim, `NAME: stated X, derived Y, delta D, tolerance T (STATUS)`, then per other finding `CHECK: MESSAGE (STATUS)` (a tooltip; not escaped)."""
        lines = [f"{r.claim}: stated {r.claimed}, derived {r.derived}, delta {r.delta}" + (f", tolerance {r.tolerance}" if r.tolerance != "-" else "")
                 + f" ({r.status.value})" for r in self.claims]
        return "\n".join(lines + [f"{f.check}: {message(f)} ({f.status.value})" for f in self.others])


@dataclass(frozen=True, slots=True)
class Grid:
    """
    Represents one results table of the bundle: `file`, `table` (its heading, `""` for a CSV file), `columns`
    (labels) with the `units` their cells share (or None), and `rows` of `(label, cells)` with one `Cell` or None
    per column; `more_rows` and `more_columns` count what the bounds left out, `counts` the claims and the other findings
    at its cells per status (`claims` and `others` how many of each; a finding at several cells counts once).
    """

    file: str
    table: str
    columns: tuple[str, ...]
    units: tuple[str | None, ...]
    rows: tuple[tuple[str, tuple[Cell | None, ...]], ...]
    more_rows: int
    more_columns: int
    counts: dict[str, int]
    claims: int = 0
    others: int = 0

    @property
    def title(self) -> str:
        """`FILE` or `FILE: HEADING`, plain text."""
        return f"{self.file}: {self.table}" if self.table else self.file

    def heading(self, j: int) -> str:
        """
        Return column `j`'s header, plain text: its label, a `#numbers/N` fragment as `Nth number`, and the unit its cells
        share unless the label names it already (`Saved vs. original#numbers/1` with `%` -> `Saved vs. original (2nd number, %)`,
        `Max peak GPU MiB` with `MiB` -> itself).
        """
        label, _, fragment = self.columns[j].partition("#numbers/")
        notes = [f"{_ordinal(int(fragment) + 1)} number"] if fragment.isdigit() else []
        if not fragment.isdigit():
            label = self.columns[j]
        unit = self.units[j]
        if unit and unit not in re.findall(r"[^\s()\[\]]+", label):
            notes.append(unit)
        return label + (f" ({', '.join(notes)})" if notes else "")

    @property
    def counted(self) -> str:
        """`N claim(s)[ and M other finding(s) at its cells]: 2 FAIL, 80 PASS`, plain text: what the grid's caption counts."""
        counts = ", ".join(f"{n} {s}" for s, n in self.counts.items())
        return f"{self.claims} claim(s)" + (f" and {self.others} other finding(s) at its cells" if self.others else "") + f": {counts}"


def _short(text: str) -> str:
    """Return `text` with its number at most 12 significant digits (`numtext.number`: `1.0752762466386638` -> `1.07527624664`); other text as it is."""
    value, _, unit = text.partition(" ")
    try:
        digits = len(Decimal(value).as_tuple().digits)
    except InvalidOperation:
        return text
    return text if digits <= 12 else number(value) + (f" {unit}" if unit else "")


def _ordinal(n: int) -> str:
    """`1` -> `1st`, `2` -> `2nd`, `11` -> `11th`, `23` -> `23rd`."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def cell_of(path: str | None, pointer: str | None) -> tuple[str, int, str] | None:
    """
    Return `(table heading, row index, column label)` when `path#pointer` is a cell of a results table, else None.

    `README.md` with `/tables/(top)/3/Result#acc` -> `("(top)", 3, "Result#acc")`; `summary.csv` with `/3/Result`
    -> `("", 3, "Result")`. Row indexes are the pointer's (0 = the first row under the header).
    """
    if not path or not pointer or not pointer.startswith("/"):
        return None
    main, _, fragment = pointer.partition("#")
    tokens = [_unescape(t) for t in main.split("/")[1:]]
    name = path.lower()
    if name.endswith(TABLE_DOCUMENTS) and len(tokens) == 4 and tokens[0] == "tables" and tokens[2].isdigit():
        heading, row, column = tokens[1], int(tokens[2]), tokens[3]
    elif name.endswith(".csv") and len(tokens) == 2 and tokens[0].isdigit():
        heading, row, column = "", int(tokens[0]), tokens[1]
    else:
        return None
    return heading, row, column + (f"#{fragment}" if fragment else "")


def _kept(order: list, bad: set, limit: int) -> list:  # type: ignore[type-arg]
    """Return at most `limit` of `order`: those in `bad` first, then the rest, each kept in `order`'s order."""
    if len(order) <= limit:
        return order
    chosen = set([k for k in order if k in bad][:limit])
    chosen.update([k for k in order if k not in chosen][: limit - len(chosen)])
    return [k for k in order if k in chosen]


def _dimensions(claim: str) -> dict[str, str]:
    return dict(_DIMENSION.findall(claim))


def _row_labels(rows: dict[int, dict[str, list[ClaimRow]]], first: list[str] | None = None) -> dict[int, str]:
    """
    Return each row's label: the text of the table's first column in that row (`first`, `verifier.checks.figures.table_labels`)
    when it differs from row to row and from the index; else its index, then the `[dim=value]` its claims share and
    that vary between rows (`3: arm=bf16, task=i2va`).
    """
    if first and len(set(first)) == len(first) and all(t.strip() and t.strip() != str(i) for i, t in enumerate(first)) and max(rows) < len(first):
        return {i: first[i].strip() for i in rows}
    shared: dict[int, dict[str, str]] = {}
    for index, cells in rows.items():
        dims = [_dimensions(r.claim) for claims in cells.values() for r in claims]
        shared[index] = {k: v for k, v in dims[0].items() if all(d.get(k) == v for d in dims[1:])} if dims else {}
    keys = dict.fromkeys(k for d in shared.values() for k in d)
    varying = [k for k in keys if len({d.get(k) for d in shared.values()}) > 1]
    return {i: str(i) + (": " + ", ".join(f"{k}={d[k]}" for k in varying if k in d) if any(k in d for k in varying) else "")
            for i, d in shared.items()}


#: A not-met instance of a gate rule in its `derivation` (`verifier.checks.profile_gate`): `(does not meet >= 45.1 stated in F) [HOW]`,
#: where HOW is the derivation text of the quantity judged, the same text a claim derived from that quantity records.
_NOT_MET = re.compile(r"\(does not meet [^\[]*?\) \[(.+?)\](?=; | \(\d+ judged|$)")


def _located(report: Report) -> tuple[dict[str, list[Finding]], dict[tuple[str, str], list[Finding]]]:
    """
    Return the findings (not of a claim check, not PASS) that can sit at a table cell: `(by derivation, by place)`.

    `by derivation` maps the derivation text of a quantity to the gate rules not met by it (a FAIL rule's instance
    line `... (does not meet BOUND) [HOW]`); `by place` maps `(path, pointer)` to the findings recorded at that place.
    """
    by_how: dict[str, list[Finding]] = {}
    by_place: dict[tuple[str, str], list[Finding]] = {}
    for f in report.findings:
        if f.status is Status.PASS or f.check in CLAIM_CHECKS:
            continue
        if f.path and f.pointer:
            by_place.setdefault((f.path, f.pointer), []).append(f)
        for how in _NOT_MET.findall(f.derivation or "") if f.check == "gate.rules" else ():
            by_how.setdefault(how, []).append(f)
    return by_how, by_place


def _others(claims: list[ClaimRow], by_how: dict[str, list[Finding]], by_place: dict[tuple[str, str], list[Finding]]) -> tuple[Finding, ...]:
    """Return the findings located at the cell of `claims` (`_located`), each once, in report order."""
    out: dict[int, Finding] = {}
    for r in claims:
        f = r.finding
        if f is None:
            continue
        for o in by_place.get((f.path or "", f.pointer or ""), []) + by_how.get(f.derivation or "", []):
            out.setdefault(id(o), o)
    return tuple(out.values())


def _unit(cells: list[Cell]) -> str | None:
    """Return the unit every stated and derived value of `cells` names after a space, when they share one, else None."""
    units = {v.partition(" ")[2] for c in cells for r in c.claims for v in (r.claimed, r.derived) if v != "-"}
    return units.pop() if len(units) == 1 and "" not in units else None


def grids(report: Report) -> tuple[list[Grid], int]:
    """
    Return `(grids, left out)`: one `Grid` per results table that holds a judged claim, failures first, at most `MAX_GRIDS`.

    Tables come in the order of their first claim row (`claim_rows` lists failures first, so a table with a FAIL
    comes before one without); `left out` counts the tables past `MAX_GRIDS`. A report with no claim read from a table cell gives `([], 0)`.
    """
    tables: dict[tuple[str, str], dict[int, dict[str, list[ClaimRow]]]] = {}
    for r in claim_rows(report):
        f = r.finding
        where = cell_of(f.path, f.pointer) if f is not None else None
        if where is None or f is None or f.path is None:
            continue
        heading, row, column = where
        tables.setdefault((f.path, heading), {}).setdefault(row, {}).setdefault(column, []).append(r)
    order = {id(f): i for i, f in enumerate(report.findings)}
    by_how, by_place = _located(report)
    out = []
    for (path, heading), rows in tables.items():
        rows = dict(sorted(rows.items()))
        for cells in rows.values():  # claim_rows gives failures first; a cell lists its values in report order
            for claims in cells.values():
                claims.sort(key=lambda r: order.get(id(r.finding), 0))
        columns = list(dict.fromkeys(c for cells in rows.values() for c in cells))
        every = {i: {c: Cell(tuple(cl), _others(cl, by_how, by_place)) for c, cl in cells.items()} for i, cells in rows.items()}
        bad_rows = {i for i, cells in every.items() if any(cell.status is not Status.PASS for cell in cells.values())}
        bad_columns = {c for cells in every.values() for c, cell in cells.items() if cell.status is not Status.PASS}
        kept_rows, kept_columns = _kept(list(rows), bad_rows, MAX_ROWS), _kept(columns, bad_columns, MAX_COLUMNS)
        labels = _row_labels(rows, ((report.figures or {}).get("table_rows") or {}).get(path, {}).get(heading))
        body = tuple((labels[i], tuple(every[i].get(c) for c in kept_columns)) for i in kept_rows)
        units = tuple(_unit([cells[j] for _l, cells in body if cells[j] is not None]) for j in range(len(kept_columns)))
        claims = [r.status for cells in every.values() for cell in cells.values() for r in cell.claims]
        others = list({id(f): f.status for cells in every.values() for cell in cells.values() for f in cell.others}.values())
        counts = {s.value: n for s in sorted(Status, key=STATUS_ORDER.__getitem__) if (n := (claims + others).count(s))}
        out.append(Grid(path, heading, tuple(kept_columns), units, body, len(rows) - len(kept_rows), len(columns) - len(kept_columns), counts,
                        len(claims), len(others)))
    return out[:MAX_GRIDS], max(0, len(out) - MAX_GRIDS)
