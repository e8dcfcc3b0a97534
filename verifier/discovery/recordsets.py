"""
Record sets discovery finds in what `verifier.discovery.sources` read.

A record set is a list of records, each with numeric members (`values`:
member -> Decimal) and dimensions (`dims`: member -> text), and where each
value was read (`where`: member -> (file, JSON Pointer)), so a stated number
is never derived from itself. Four shapes are found:

- `rows`: an array of objects, or an object whose members are all objects
  (the member name is dimension `#key`), inside one document (a CSV file is
  one array of rows); rank 1;
- `values`: the numeric arrays at one place of a document's objects
  (`/results/*/times`), one record per element, the enclosing object's
  text members as dimensions; rank 0;
- `files`: one object per file: files at the same depth with the same name
  pattern (what follows the first dot of the name), their varying path
  components as dimensions `path<i>` and `name` (and `name<j>` for the
  `-`/`_` parts of names that split alike); rank 0; whole CSV files and
  JSON Lines files of one pattern are merged the same way;
- `lines`: the objects of a JSON Lines file; rank 0.

A text member of one value in every record is a constant of the set
(`consts`: JMeter's `label` column when one sampler ran): a context that
names it names the whole set. Members nested one object deep are flattened as `a/b`. Integer members
with at most `MAX_INT_DIM` distinct values are also dimensions (a server
number, a requested duration). Rank orders the sources from raw (0) to
derived (1): `verifier.discovery.search` prefers the rawest fit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from verifier.discovery.sources import Source
from verifier.formats.textnumbers import quantity

__all__ = ["MAX_DIM_VALUES", "MAX_INT_DIM", "MAX_SETS", "Record", "RecordSet", "find_record_sets"]

#: An integer member with at most this many distinct values is also a dimension.
MAX_INT_DIM = 12
#: A text member with more distinct values than this (a timestamp, an id) is no dimension: no context selects by it.
MAX_DIM_VALUES = 64
#: At most this many record sets are kept (the largest first), a bound of the search.
MAX_SETS = 400


@dataclass
class Record:
    """One record: `rel` its file, `pointer` where it is, `dims` (name -> text), `values` (name -> Decimal), `where` (name -> pointer)."""

    rel: str
    pointer: str
    dims: dict[str, str]
    values: dict[str, Decimal]
    where: dict[str, str]


@dataclass
class RecordSet:
    """A set of records of one shape (`kind`: rows, values, files, lines), with `rank` (0 raw, 1 derived) and a human `origin`."""

    sid: str
    kind: str
    rank: int
    origin: str
    records: list[Record]
    members: tuple[str, ...] = ()
    dims: dict[str, tuple[str, ...]] = field(default_factory=dict)
    consts: dict[str, str] = field(default_factory=dict)  # text members of one value in every record (JMeter's `label`): a context naming it names the whole set
    rel: str = ""  # the one file of a `rows`, `values` or `lines` set
    pointer: str = ""  # the array's pointer (with `*` for the varying index of a `values` set)


def _esc(token: Any) -> str:
    """Return a JSON Pointer token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def _number(value: Any) -> Decimal | None:
    """Return a JSON number, or a string that is wholly a number (a CSV cell), as Decimal; else None (booleans too)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, str):
        q = quantity(value)
        return q[0] if q is not None else None
    return None


def _flatten(obj: dict[str, Any], base: str) -> tuple[dict[str, str], dict[str, Decimal], dict[str, str]]:
    """Return `(dims, values, where)` of one object: its scalar members and those of objects nested one deep (`a/b`)."""
    dims: dict[str, str] = {}
    values: dict[str, Decimal] = {}
    where: dict[str, str] = {}
    items = [(str(k), v, f"{base}/{_esc(k)}") for k, v in obj.items()]
    for key, value, at in list(items):
        if isinstance(value, dict):
            items.extend((f"{key}/{k}", v, f"{at}/{_esc(k)}") for k, v in value.items() if not isinstance(v, (dict, list)))
    for key, value, at in items:
        number = _number(value)
        if number is not None:
            values[key], where[key] = number, at
            if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
                dims[key] = str(int(number))
        elif isinstance(value, str) and len(value) <= 200:
            dims[key] = value
    return dims, values, where


def _finish(rs: RecordSet) -> RecordSet | None:
    """Return `rs` with its members and dimensions (a dimension has 2+ distinct values), or None when it has no numeric member."""
    members: dict[str, None] = {}
    dims: dict[str, set[str]] = defaultdict(set)
    for r in rs.records:
        members.update(dict.fromkeys(r.values))
        for k, v in r.dims.items():
            dims[k].add(v)
    if not members:
        return None
    rs.members = tuple(members)
    rs.dims = {k: tuple(sorted(v)) for k, v in dims.items() if 2 <= len(v) <= MAX_DIM_VALUES and (k not in members or len(v) <= MAX_INT_DIM)}
    rs.consts = {k: next(iter(v)) for k, v in dims.items() if len(v) == 1 and k not in members and k != "#at"
                 and all(k in r.dims for r in rs.records)}
    for r in rs.records:  # an integer member with many values is a member only
        for k in [k for k in r.dims if k in members and k not in rs.dims]:
            del r.dims[k]
    return rs


def _walk(src: Source, node: Any, base: str, out: list[RecordSet], arrays: dict[str, list[tuple[str, str, list[Any], dict[str, str]]]],
          depth: int = 0) -> None:
    """Collect the `rows` sets of one document into `out` and its numeric arrays into `arrays` (pattern -> occurrences)."""
    if depth > 32:
        return
    if isinstance(node, list):
        objs = [(i, x) for i, x in enumerate(node) if isinstance(x, dict)]
        if objs and len(objs) * 2 >= len(node):
            rows = [Record(src.rel, f"{base}/{i}", *_flatten(x, f"{base}/{i}")) for i, x in objs]
            done = _finish(RecordSet("", "rows", 1, f"{src.rel}#{base or '/'}", rows, rel=src.rel, pointer=base))
            if done:
                out.append(done)
        for i, x in enumerate(node):
            if isinstance(x, (dict, list)):
                _walk(src, x, f"{base}/{i}", out, arrays, depth + 1)
        return
    if not isinstance(node, dict):
        return
    subs = [(k, v) for k, v in node.items() if isinstance(v, dict)]
    if len(subs) >= 2 and len(subs) * 2 >= len(node) and not {"tables", "prose"} <= set(node):
        rows = []
        for k, v in subs:
            dims, values, where = _flatten(v, f"{base}/{_esc(k)}")
            dims["#key"] = str(k)
            rows.append(Record(src.rel, f"{base}/{_esc(k)}", dims, values, where))
        done = _finish(RecordSet("", "rows", 1, f"{src.rel}#{base or '/'}", rows, rel=src.rel, pointer=base))
        if done:
            out.append(done)
    own = {str(k): v for k, v in node.items() if isinstance(v, str) and len(v) <= 200}
    own.update({str(k): str(v) for k, v in node.items() if isinstance(v, int) and not isinstance(v, bool)})
    for k, v in node.items():
        at = f"{base}/{_esc(k)}"
        if isinstance(v, list) and len(v) >= 2 and all(_number(x) is not None and not isinstance(x, str) for x in v):
            pattern = "/".join("*" if t.isdigit() else t for t in at.split("/"))
            arrays[pattern].append((at, str(k), v, own))
        elif isinstance(v, (dict, list)):
            _walk(src, v, at, out, arrays, depth + 1)


def _value_sets(src: Source, arrays: dict[str, list[tuple[str, str, list[Any], dict[str, str]]]]) -> list[RecordSet]:
    """Return one `values` set per array pattern of a document: one record per element, the enclosing object's text as dimensions."""
    out = []
    for pattern, found in arrays.items():
        records = []
        for at, key, items, own in found:
            parent = at.rsplit("/", 1)[0]
            for i, x in enumerate(items):
                records.append(Record(src.rel, parent, {**own, "#at": parent}, {key: Decimal(x)}, {key: f"{at}/{i}"}))
        done = _finish(RecordSet("", "values", 0, f"{src.rel}#{pattern}", records, rel=src.rel, pointer=pattern))
        if done:
            out.append(done)
    return out


_NAME_PARTS = re.compile(r"[-_]")


def _path_dims(dims: dict[str, str], parts: list[str], varying: list[int], depth: int, alike: bool) -> None:
    """Add a file's varying path components to `dims`: `path<i>` per directory, `name` for the file's stem, and `name<j>` per `-`/`_` part of stems that split alike (`alike`, from `_split_alike`)."""
    for i in varying:
        if i < depth - 1:
            dims[f"path{i}"] = parts[i]
            continue
        stem = parts[i].split(".", 1)[0]
        dims["name"] = stem
        if alike:
            for j, piece in enumerate(_NAME_PARTS.split(stem)):
                dims[f"name{j}"] = piece


def _split_alike(split: list[list[str]], depth: int) -> bool:
    """Return whether the file stems of a group (its `split` paths, `depth` parts each) split at `-`/`_` into one same number (> 1) of parts (once per group: linear in its files)."""
    counts = {len(_NAME_PARTS.split(p[depth - 1].split(".", 1)[0])) for p in split}
    return len(counts) == 1 and counts.pop() > 1


def _by_name_pattern(items: list[Any], shape: Any) -> list[tuple[int, str, list[Any], list[list[str]], list[int]]]:
    """
    Group `items` (each with a bundle-relative `rel`) by path depth, file-name extension and `shape(item)`; for each group
    of 2 or more return `(depth, extension, items, their split paths, the path positions that vary)`.
    """
    groups: dict[tuple[Any, ...], list[Any]] = defaultdict(list)
    for item in items:
        parts = item.rel.split("/")
        name = parts[-1].split(".", 1)
        groups[(len(parts), name[1] if len(name) > 1 else "", shape(item))].append(item)
    out = []
    for (depth, tail, _), members in groups.items():
        if len(members) < 2:
            continue
        split = [m.rel.split("/") for m in members]
        out.append((depth, tail, members, split, [i for i in range(depth) if len({p[i] for p in split}) > 1]))
    return out


def _file_sets(sources: list[Source]) -> list[RecordSet]:
    """Return the `files` sets: one object per file, grouped by depth and name pattern (2+ files)."""
    out = []
    for depth, tail, members, split, varying in _by_name_pattern(
            [src for src in sources if isinstance(src.doc, dict) and not {"tables", "prose"} <= set(src.doc)], lambda src: src.kind):
        records = []
        alike = _split_alike(split, depth)
        for m, parts in zip(members, split):
            dims, values, where = _flatten(m.doc, "")
            _path_dims(dims, parts, varying, depth, alike)
            records.append(Record(m.rel, "", dims, values, {k: v for k, v in where.items()}))
        pattern = "/".join("*" if i in varying else p for i, p in enumerate(split[0]))
        if tail and depth - 1 in varying:
            pattern = pattern[:-1] + "*." + tail
        done = _finish(RecordSet("", "files", 0, pattern, records))
        if done:
            out.append(done)
    return out


def _headerless(src: Source) -> Source:
    """Return a CSV source whose first row is data (every header cell a number or a timestamp) with columns named `column1`..."""
    rows = src.doc
    if not (src.rel.lower().endswith(".csv") and isinstance(rows, list) and rows and isinstance(rows[0], dict)):
        return src
    header = [k for k in rows[0] if k != "#line"]
    if not header or not all(_number(k) is not None or k.strip()[:1].isdigit() for k in header):
        return src
    names = [f"column{i}" for i in range(1, len(header) + 1)]
    body = [dict(zip(names, header))] + [dict(zip(names, (r.get(k) for k in header))) for r in rows]
    return Source(src.rel, src.kind, body)


def _json_array(rs: RecordSet) -> bool:
    """Return whether `rs` is the rows of a JSON document that is one array of objects (not an object of objects keyed by name)."""
    return rs.rel.lower().endswith(".json") and all("#key" not in r.dims for r in rs.records)


def _merged_tables(sets: list[RecordSet]) -> list[RecordSet]:
    """Merge the `rows` sets of whole CSV files (and JSON files that are one array of objects) at the same depth, with the same name pattern and columns, into one set with path dimensions."""
    out = []
    for depth, tail, members, split, varying in _by_name_pattern(
            [rs for rs in sets if (rs.kind == "rows" and rs.pointer == "" and (rs.rel.lower().endswith(".csv") or _json_array(rs))) or rs.kind == "lines"],
            lambda rs: rs.members):
        records = []
        alike = _split_alike(split, depth)
        for m, parts in zip(members, split):
            for r in m.records:
                dims = dict(r.dims)
                _path_dims(dims, parts, varying, depth, alike)
                records.append(Record(r.rel, r.pointer, dims, r.values, r.where))
        pattern = "/".join("*" if i in varying else p for i, p in enumerate(split[0]))
        if tail and depth - 1 in varying:
            pattern = pattern[:-1] + "*." + tail  # `individual/*.json`: a glob a receipt set reads
        done = _finish(RecordSet("", "files", 0, pattern, records))
        if done:
            out.append(done)
    return out


def find_record_sets(sources: list[Source]) -> list[RecordSet]:
    """
    Return every record set of `sources` (see the module docstring), at most `MAX_SETS`, each with a stable id `s<N>`.

    A set's `where` pointers are relative to its record's file; ids follow file order, then shape.
    """
    out: list[RecordSet] = []
    sources = [_headerless(src) for src in sources]
    for src in sources:
        if src.kind == "lines":
            records = [Record(src.rel, f"#line={n}", *_flatten(x, "")) for n, x in enumerate(src.doc, 1) if isinstance(x, dict)]
            for r, n in zip(records, range(1, len(records) + 1)):
                r.where = {k: f"#line={n}{v}" for k, v in r.where.items()}
            done = _finish(RecordSet("", "lines", 0, src.rel, records, rel=src.rel))
            if done:
                out.append(done)
            continue
        if src.kind != "document" or (isinstance(src.doc, dict) and {"tables", "prose"} <= set(src.doc)):
            continue  # Markdown and HTML pages state numbers; their tables are read as statements, not record sets
        arrays: dict[str, list[tuple[str, str, list[Any], dict[str, str]]]] = defaultdict(list)
        _walk(src, src.doc, "", out, arrays)
        out.extend(_value_sets(src, arrays))
    out.extend(_file_sets(sources))
    out.extend(_merged_tables(out))
    out.sort(key=lambda s: -len(s.records))
    out = out[:MAX_SETS]
    for n, rs in enumerate(sorted(out, key=lambda s: (s.origin, s.kind)), 1):
        rs.sid = f"s{n}"
    return out
