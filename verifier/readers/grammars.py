"""
Grammars: how a profile reads receipt and claim files that are not one JSON array of records.

Every grammar turns the bytes of one file into a list of `(location, record)`
pairs, where `location` is a fragment naming where the record sits in the
file (`#line=12`, `#table=2&row=3`, a JSON Pointer) and `record` a JSON-like
object (dicts, lists, strings, `Decimal` numbers). A file that breaks the
grammar raises `GrammarError` (the caller reports it as UNVERIFIED
`unreadable-receipt`: we could not read it, which is not evidence against a
claim). Nothing is evaluated: Python literals are read with
`ast.literal_eval`, which accepts literals only.

Grammars (the `encoding` of a receipt set, see `docs/profiles.md`):

- `json`: one strict JSON document; `records` points at an array of records,
  or is `{"members_of": POINTER}` to take each member of an object as one record
  (`verifier.readers.members`: an object keyed by benchmark name, asv's `results`), or is omitted to take the whole document as one record ("one JSON object
  per file as one receipt");
- `jsonl`: strict JSON Lines, one record per line; with `prefix`, only the
  lines starting with it, each the strict JSON after it (MLPerf's `:::MLLOG`
  lines, one record per event), other lines being no records;
- `csv`: RFC 4180 rows; with `columns` the file has no header row and the
  columns are named in order (`nvidia-smi --format=csv,noheader`); cells are
  stripped of surrounding blanks;
- `text`: a line-oriented text file read into ONE record whose members come
  from every line that matches one of the `lines` grammars, in order:
  `key-value` (`Samples per second: 0.000195653`, the separator is the first
  `:`), `assignments` (`accuracy=76.000%, good=380, total=500`, also after a
  label such as `Accuracy: mean = 0.86236, kidney = 0.9350`, also
  `hash=...`), `json-object` (a line holding a JSON object, e.g.
  `{"exact_match": 80.0}`), `python-dict` (a line holding a Python dict
  literal such as `{'rouge1': 31.4286}`, optionally after a label:
  `Accuracy Results: {'FID_SCORE': '23.52'}`) and `prefixed-json` (`PREFIX {json}`
  lines such as LoadGen's `:::MLLOG {...}`; with `fold` each line contributes
  the member `fold.key` -> `fold.value`), and the bench lines of
  `verifier.formats.bench_lines`: `libtest-bench` (`test NAME ... bench: 1,234
  ns/iter (+/- 56)`) and `go-bench` (`BenchmarkX-8 1000000 1234 ns/op`), each
  the member NAME holding an object of numbers; with `"records":
  {"members_of": ""}` each member of the record is one record (a member
  stated twice with different values is then `GrammarError`
  `conflicting-members`). A member stated twice with
  different values is left out of the record and listed under
  `#conflicts` (member -> line numbers), so a field mapped to it is missing;
- `markdown-table`: the rows of the pipe tables of a Markdown file (parsed
  with pyromark, `verifier.readers.markdown`), one record per row mapping header text -> cell text,
  plus `#table` (1-based table number) and `#heading` (the nearest heading
  above the table).

`unpivot` (for `csv` and `markdown-table`) turns one wide row into several
records: each listed column becomes a record holding the row's `keep`
columns plus `{dimension: column label, value: cell}`.

Numbers written inside a string (`quantity`, `numbers_in`) are
`verifier.formats.textnumbers`.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from decimal import Decimal
from typing import Any

from verifier.formats.bench_lines import BENCH_GRAMMARS
from verifier.formats.jsonio import JSONProblem, array_index, loads_strict, loads_strict_each, loads_strict_lines, loads_strict_text
from verifier.readers.mdtables import markdown_tables
from verifier.readers.members import MembersError, members
from verifier.readers.pointers import resolve

__all__ = ["ENCODINGS", "LINE_GRAMMARS", "GrammarError", "parse", "unpivot", "utf8_text"]

#: Receipt encodings a profile may name.
ENCODINGS = ("json", "jsonl", "csv", "text", "markdown-table")
#: Line grammars of the `text` encoding.
LINE_GRAMMARS = ("key-value", "assignments", "json-object", "python-dict", "prefixed-json", *BENCH_GRAMMARS)  # the bench lines: `verifier.formats.bench_lines`


class GrammarError(ValueError):
    """Raised when a file does not follow the grammar its profile declares; `code` is a short slug, the message names the place."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def utf8_text(data: bytes) -> str:
    """Return `data` decoded as UTF-8; raises `GrammarError` `not-utf8` naming the byte offset where it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GrammarError("not-utf8", f"not UTF-8 at byte offset {exc.start}") from None


def parse(data: bytes, spec: dict[str, Any]) -> list[tuple[str, Any]]:
    """
    Return the `(location, record)` pairs of one file read with the grammar `spec` declares.

    `spec` is a receipt-set (or claim-document) specification: `encoding` and
    its options (`records`, `columns`, `lines`, `prefix`, `fold`, `unpivot`).
    Raises `GrammarError` when the bytes break the grammar (not UTF-8, not
    strict JSON, a `PREFIX {json}` line that is not strict JSON, a CSV row
    whose cell count differs from its header or that the `csv` module
    refuses, such as a field over its 131072-character limit, no array at `records`).
    """
    encoding = spec["encoding"]
    try:
        if encoding == "jsonl" and "prefix" in spec:  # only the lines starting with the prefix, each the JSON after it (MLPerf's `:::MLLOG {...}`)
            pairs = _prefixed_lines(utf8_text(data), spec["prefix"])
        elif encoding == "jsonl":
            pairs = [(f"#line={n}", doc) for n, doc in enumerate(loads_strict_lines(data), start=1)]
        elif encoding == "json":
            document = loads_strict(data)
            if "records" not in spec:
                pairs = [("", document)]
            elif isinstance(spec["records"], dict):  # {"members_of": ...}: each member of an object is one record (asv's `results`)
                try:
                    pairs = members(document, spec["records"])
                except MembersError as exc:
                    raise GrammarError("missing-records", str(exc)) from None
            else:
                try:
                    records = resolve(document, spec["records"])
                except KeyError:
                    raise GrammarError("missing-records", f"no records at {spec['records']!r}") from None
                if not isinstance(records, list):
                    raise GrammarError("missing-records", f"{spec['records']!r} is not an array of records")
                pairs = [(f"{spec['records']}/{i}", r) for i, r in enumerate(records)]
        elif encoding == "csv":
            pairs = _csv(utf8_text(data).removeprefix("\ufeff"), spec.get("columns"))  # the byte-order mark spreadsheets write is no header text
        elif encoding == "text" and isinstance(spec.get("records"), dict):  # {"members_of": ""}: each member one record (a bench line per benchmark)
            record = _text_record(utf8_text(data), spec)
            if "#conflicts" in record:
                raise GrammarError("conflicting-members", f"members stated twice with different values: {record['#conflicts']} (member -> line numbers)")
            try:
                pairs = members(record, spec["records"])
            except MembersError as exc:
                raise GrammarError("missing-records", str(exc)) from None
        elif encoding == "text":
            pairs = [("", _text_record(utf8_text(data), spec))]
        elif encoding == "markdown-table":
            pairs = [(f"#table={t['#table']}&row={t['#row']}", t) for t in markdown_tables(utf8_text(data))]
        else:
            raise GrammarError("unknown-encoding", f"unknown encoding {encoding!r}")
    except JSONProblem as exc:
        raise GrammarError(getattr(exc, "code", "not-json"), str(exc)) from None
    if "unpivot" in spec:
        pairs = unpivot(pairs, spec["unpivot"])
    return pairs


def _prefixed_lines(text: str, prefix: str) -> list[tuple[str, Any]]:
    """Return `(#line=N, document)` for each line of `text` that starts with `prefix` (the strict JSON after it); other lines are not records."""
    numbered = [(n, line[len(prefix):]) for n, line in enumerate(text.split("\n"), start=1) if line.startswith(prefix)]
    out = []
    for (n, _), document in zip(numbered, loads_strict_each([rest.rstrip("\r") for _, rest in numbered]), strict=True):
        if type(document) is JSONProblem:
            raise GrammarError("bad-line", f"line {n}: a {prefix.strip()!r} line is not strict JSON: {document}")
        out.append((f"#line={n}", document))
    return out


def _csv(text: str, columns: list[str] | None) -> list[tuple[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = [r for r in reader if r and any(cell.strip() for cell in r)]
    except csv.Error as exc:  # e.g. a field beyond the csv module's limit (131072 characters), a NUL byte
        raise GrammarError("bad-csv", f"not CSV the reader can read: {exc} (line {reader.line_num})") from None
    if columns is None:
        if not rows:
            return []
        header, rows = [h.strip() for h in rows[0]], rows[1:]
        offset = 2
    else:
        header, offset = list(columns), 1
    out = []
    for n, row in enumerate(rows, start=offset):
        if len(row) != len(header):
            raise GrammarError("csv-shape", f"row {n} has {len(row)} cells, the header names {len(header)}")
        out.append((f"#row={n - offset + 1}", {h: cell.strip() for h, cell in zip(header, row, strict=True)}))
    return out


_KEY_VALUE = re.compile(r"^\s*(?P<key>[^:=\s{\[][^:]*?)\s*:\s*(?P<value>\S.*?)\s*$")
_ASSIGNMENT = re.compile(r"(?P<key>[A-Za-z_][A-Za-z0-9_.\- ]*?)\s*=\s*(?P<value>[^,=]*[^,=\s]|)\s*(?:,|$)")


def _assignments(line: str) -> dict[str, str] | None:
    """
    Return the `k=v, k2=v2` members of `line`, or None when the line is not wholly assignments.

    A label may come first (`Accuracy: mean = 0.86236, kidney = 0.9350`, MLPerf 3d-unet's accuracy script): its members are the assignments after it.
    A label may state a value of its own before them (`Word Error Rate: 2.0671%, accuracy=97.9329%`, MLPerf whisper's
    `speech2text/accuracy_eval.py`): that value is the member named by the label (`Word Error Rate`).
    """
    stripped = line.strip()
    found = _assignment_members(stripped)
    if found is None and (label := _LABEL.match(stripped)) is not None:
        rest = stripped[label.end():]
        found = _assignment_members(rest)
        head, comma, tail = rest.partition(",")
        if found is None and comma and head.strip() and "=" not in head and (more := _assignment_members(tail.strip())) is not None:
            found = {label.group().strip().rstrip(":").strip(): head.strip(), **more}
    return found


#: A label before a line's members: words, then a colon.
_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*:\s*")


def _assignment_members(stripped: str) -> dict[str, str] | None:
    """Return the members of `stripped` when it is wholly `k=v` assignments, else None."""
    pos, out = 0, {}
    while pos < len(stripped):
        m = _ASSIGNMENT.match(stripped, pos)
        if not m or m.end() == pos:
            return None
        out[m["key"].strip()] = m["value"].strip()
        pos = m.end()
        while pos < len(stripped) and stripped[pos] == " ":
            pos += 1
    return out or None


def _pointer_tokens(pointer: str) -> list[str]:
    """Return the unescaped reference tokens of a JSON Pointer (RFC 6901), for `_walk`."""
    return [raw.replace("~1", "/").replace("~0", "~") for raw in pointer[1:].split("/")] if pointer else []


def _walk(document: Any, tokens: list[str]) -> Any:
    """Resolve pre-split pointer `tokens` in `document` like `_resolve`; raises `KeyError` when a token does not resolve."""
    current = document
    for token in tokens:
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list) and (index := array_index(token)) is not None and index < len(current):
            current = current[index]
        else:
            raise KeyError(token)
    return current


def _prefixed_json(spec: dict[str, Any]) -> Any:
    """Return the reader of `PREFIX {json}` lines (`None` for other lines); the prefix and `fold` pointers are read once per file."""
    prefix = spec.get("prefix", "")
    start = len(prefix)
    fold = spec.get("fold")
    key_tokens, value_tokens = (_pointer_tokens(fold["key"]), _pointer_tokens(fold["value"])) if fold else ([], [])

    def read(line: str) -> dict[str, Any] | None:
        """Return the members one `PREFIX {json}` line contributes (None for another line); raises `GrammarError` for a bad line."""
        if not prefix or not line.startswith(prefix):
            return None
        try:
            document = loads_strict_text(line[start:])
        except JSONProblem as exc:
            raise GrammarError("bad-line", f"a {prefix.strip()!r} line is not strict JSON: {exc}") from None
        if fold:
            try:
                return {str(_walk(document, key_tokens)): _walk(document, value_tokens)}
            except KeyError:
                raise GrammarError("bad-line", f"a {prefix.strip()!r} line lacks {fold}") from None
        return document if isinstance(document, dict) else None

    return read


def _line_members(line: str, grammar: str, spec: dict[str, Any]) -> dict[str, Any] | None:
    """Return the members one line states under `grammar` (a `LINE_GRAMMARS` name), or None when the line is not of it."""
    if grammar == "prefixed-json":
        return _prefixed_json(spec)(line)  # type: ignore[no-any-return]
    stripped = line.strip()
    if grammar == "json-object":
        if not (stripped.startswith("{") and stripped.endswith("}")):
            return None
        try:
            document = loads_strict(stripped.encode("utf-8"))
        except JSONProblem:
            return None
        return document if isinstance(document, dict) else None
    if grammar == "python-dict":
        if not stripped.startswith("{"):  # a label before the literal ("Accuracy Results: {'FID_SCORE': '23.5'}") is allowed
            label = _LABEL.match(stripped)
            stripped = stripped[label.end():] if label else ""
        if not (stripped.startswith("{") and stripped.endswith("}")):
            return None
        try:
            value = ast.literal_eval(stripped)  # literals only: nothing is evaluated
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # TypeError: `{{}}`, a set of dicts
            return None
        if not isinstance(value, dict):
            return None
        return {str(k): (Decimal(repr(v)) if isinstance(v, float) else v) for k, v in value.items()}
    if grammar in BENCH_GRAMMARS:
        return BENCH_GRAMMARS[grammar](line)  # type: ignore[no-any-return]
    if grammar == "assignments":
        return _assignments(stripped)
    if grammar == "key-value":
        return _key_value(line)
    raise GrammarError("unknown-grammar", f"unknown line grammar {grammar!r}")


def _key_value(line: str) -> dict[str, str] | None:
    """Return the one member a `key : value` line states (`key-value` grammar: `_KEY_VALUE`), or None when the line is not of it."""
    m = _KEY_VALUE.match(line)
    return {m["key"]: m["value"]} if m else None


def _line_readers(spec: dict[str, Any]) -> list[Any]:
    """Return one reader per line grammar of `spec`, in order: each maps a line to its members or None."""
    readers = []
    for grammar in spec.get("lines", ["key-value"]):
        if grammar == "prefixed-json":
            readers.append(_prefixed_json(spec))
        elif grammar == "key-value":
            readers.append(_key_value)  # what `_line_members(line, "key-value", spec)` returns, without its dispatch per line
        elif grammar == "assignments":  # every assignment has its "=": a line without one is none (no strip, no regex)
            readers.append(lambda line: _assignments(line) if "=" in line else None)
        elif grammar in ("json-object", "python-dict"):  # an object or dict literal opens with "{": a line without one is neither
            readers.append(lambda line, g=grammar: _line_members(line, g, spec) if "{" in line else None)
        else:
            readers.append(lambda line, g=grammar: _line_members(line, g, spec))
    return readers


def _at_line(read: Any, line: str, number: int) -> Any:
    """Return `read(line)`; a `GrammarError` it raises is raised again with the line's 1-based `number` in front of its message."""
    try:
        return read(line)
    except GrammarError as exc:
        raise GrammarError(exc.code, f"line {number}: {exc}") from None


def _members(lines: list[str], spec: dict[str, Any]) -> Any:
    """Yield `(line number, member, value)` for every member one of `lines` states, in order: each line's members from the first of its readers (`_line_readers`) that reads it."""
    readers = _line_readers(spec)
    for number, line in enumerate(lines, start=1):
        for read in readers:
            members = _at_line(read, line, number)
            if members is not None:
                for key, value in members.items():
                    yield number, key, value
                break


def _text_record(text: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Return the one record of a `text` file: the members `_members` yields, a member stated twice with different values left out and named under `#conflicts`."""
    lines = text.splitlines()
    record: dict[str, Any] = {}
    lines_of: dict[str, int] = {}
    conflicts: dict[str, list[int]] = {}
    for number, key, value in _members(lines, spec):
        if key in conflicts:
            conflicts[key].append(number)
        elif key in record and record[key] != value:
            # the file states this member twice with different values: it is
            # not a value, so it is left out and named (a field mapped to it is missing)
            conflicts[key] = [lines_of[key], number]
            del record[key]
        else:
            record[key] = value
            lines_of.setdefault(key, number)
    if conflicts:
        record["#conflicts"] = {key: lines for key, lines in conflicts.items()}
    return record


def unpivot(pairs: list[tuple[str, Any]], spec: dict[str, Any]) -> list[tuple[str, Any]]:
    """
    Return one record per (row, listed column): the row's `keep` members plus `{dimension: label, "value": cell}`.

    `spec`: `columns` maps a column name to its label (e.g. `"baseline_pass1_s":
    "baseline/1"`), `dimension` names the member that receives the label,
    `keep` lists the members copied from the row. A row lacking a listed
    column keeps a record whose `value` is missing (absence is not zero).
    """
    out = []
    for location, row in pairs:
        if not isinstance(row, dict):
            continue
        for column, label in spec["columns"].items():
            record = {k: row[k] for k in spec.get("keep", []) if k in row}
            record[spec["dimension"]] = label
            if column in row and row[column] not in ("", None):
                record["value"] = row[column]
            out.append((f"{location}&column={column}", record))
    return out
