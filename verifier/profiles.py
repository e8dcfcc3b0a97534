"""
Profiles: data files that map a foreign evidence bundle onto verify's checks.

A profile (`profiles/<id>.json`, validated by `schemas/profile.schema.json`
and pinned in `inventory.json` like a gate) says where a bundle keeps its
manifest, receipts, claims and gate, and how its fields map onto the
derivations the core already has. The vocabulary is closed: JSON Pointers,
globs, `{dimension}` placeholders and the statistics of the gate vocabulary;
nothing is evaluated. See `docs/profiles.md`.

This module loads and cross-checks profiles (`load_profile`, raising
`ConfigError` for a broken one, exit 2), detects which profile a directory
matches (`detect`), reads receipts into `Record`s (`read_receipts`) and
derives statistics (`derive`). The checks that turn these into findings are
in `verifier.checks.profile`.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from jsonschema.exceptions import best_match

from verifier import stats
from verifier.bundle import unsafe_reason
from verifier.errors import ConfigError
from verifier.jsonio import JSONProblem, loads_strict, loads_strict_lines
from verifier.trust import schema_validator

__all__ = [
    "PHASES",
    "STANDARD_DIMENSIONS",
    "UNITS",
    "Problem",
    "Record",
    "Tree",
    "Underivable",
    "candidates",
    "check_complete",
    "derive",
    "dim_text",
    "fmt",
    "instances",
    "key_values",
    "load_profile",
    "locate",
    "matches",
    "read_receipts",
    "resolve",
    "select",
    "stated",
    "to_decimal",
]

#: Known time units and their length in seconds. Anything else is refused when the profile loads.
UNITS: dict[str, Decimal] = {"ns": Decimal("1e-9"), "us": Decimal("1e-6"), "ms": Decimal("1e-3"), "s": Decimal(1)}

#: Dimensions every receipt set has: `file` (bundle-relative path of the receipt file) plus the mapped ones.
STANDARD_DIMENSIONS = ("arm", "server", "phase")
PHASES = ("warmup", "measured")
#: Timed fields that are clock readings, not durations: any finite value is possible. Every other timed field must be > 0.
CLOCKS = ("start", "end")
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


class Underivable(Exception):
    """Raised when a statistic cannot be derived honestly; `code` is the finding code, `fail` whether it is a FAIL."""

    def __init__(self, message: str, code: str, *, fail: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.fail = fail


# ---------------------------------------------------------------- loading


def _receipt_dims(spec: dict[str, Any]) -> set[str]:
    fields = spec["fields"]
    dims = {"file"} | {d for d in STANDARD_DIMENSIONS if d in fields} | set(spec.get("dimensions", {}))
    if "request_id" in fields:
        dims.add("request_id")
    return dims


def _refuse(profile_id: str, where: str, message: str) -> ConfigError:
    return ConfigError(f"profile {profile_id}: {where}: {message}")


def load_profile(document: Any, schema: dict[str, Any], *, origin: str = "<profile>") -> dict[str, Any]:
    """
    Return `document` as a usable profile after its schema and cross-references hold.

    Beyond the schema: every claim, identity and gate rule names a receipt set
    the profile defines; every `selection` and `per` key is a dimension of that
    set; every `{placeholder}` in a claim location is one of the claim's `per`
    dimensions (optionally `.index`); every `{name}` in a receipt file-name
    template is a field mapped `from_name`; `value` names a declared value.
    Raises `ConfigError` naming `origin` and the offending place otherwise
    (exit 2: a broken profile is a configuration error, never a finding).
    """
    errors = list(schema_validator(schema).iter_errors(document))
    # When a `$ref`'d part fails, `unevaluatedProperties` also complains about
    # every property that part would have evaluated: report the root cause.
    first = best_match([e for e in errors if e.validator != "unevaluatedProperties"] or errors)
    if first is not None:
        where = "/" + "/".join(str(p) for p in first.absolute_path)
        raise ConfigError(f"{origin}: invalid profile at {where}: {first.message}")
    pid = document["id"]
    receipts = document["receipts"]
    for rid, spec in receipts.items():
        names = set(_PLACEHOLDER.findall(spec.get("name", "")))
        from_name = {v["from_name"] for v in [*spec["fields"].values(), *spec.get("dimensions", {}).values()] if "from_name" in v}
        if from_name - names:
            raise _refuse(pid, f"receipts.{rid}", f"fields taken from the file name {sorted(from_name - names)} are not in its name template {spec.get('name')!r}")
        parallel = set(spec.get("unnest", {}).get("parallel", {}))
        for name, mapping in [*spec["fields"].items(), *spec.get("dimensions", {}).items()]:
            if "element" in mapping and "unnest" not in spec:
                raise _refuse(pid, f"receipts.{rid}.{name}", "`element` needs an `unnest`")
            if "parallel" in mapping and mapping["parallel"] not in parallel:
                raise _refuse(pid, f"receipts.{rid}.{name}", f"parallel array {mapping['parallel']!r} is not declared in `unnest.parallel`")
        if "outcome" in spec["fields"] and "ok_outcomes" not in spec:
            raise _refuse(pid, f"receipts.{rid}", "`outcome` is mapped but `ok_outcomes` does not say which outcomes are successes")
        for dim in spec.get("no_overlap", []):
            if dim not in _receipt_dims(spec):
                raise _refuse(pid, f"receipts.{rid}.no_overlap", f"{dim!r} is not a dimension of this receipt set")
        if "no_overlap" in spec and "start" not in spec["fields"]:
            raise _refuse(pid, f"receipts.{rid}.no_overlap", "needs `start` and `end` clock fields")
    for kind in ("claims", "gate"):
        items = document.get("claims", []) if kind == "claims" else document.get("gate", {}).get("rules", [])
        for index, item in enumerate(items):
            where = f"{kind}[{index}] ({item['id']})"
            _check_derivation(pid, where, item, receipts)
            if kind == "claims":
                allowed = set(item.get("per", []))
                at = item["at"]
                text = " ".join([at["file"], at["pointer"], at.get("then", ""), *at.get("where", {}).values()])
                for name in _PLACEHOLDER.findall(text):
                    base = name.removesuffix(".index")
                    if base not in allowed:
                        raise _refuse(pid, where, f"location placeholder {{{name}}} is not one of its `per` dimensions {sorted(allowed)}")
            elif "below_baseline" in item:
                if "arm" not in _receipt_dims(receipts[item["receipts"]]):
                    raise _refuse(pid, where, "`below_baseline` compares arms, but the receipt set maps no `arm`")
                if "arm" in item.get("per", []) or "arm" in item["selection"]:
                    raise _refuse(pid, where, "`below_baseline` compares arms; `arm` cannot also be in `per` or `selection`")
    for index, identity in enumerate(document.get("identities", [])):
        sets = identity["receipts"] if isinstance(identity["receipts"], list) else [identity["receipts"]]
        for rid in sets:
            if rid not in receipts:
                raise _refuse(pid, f"identities[{index}] ({identity['id']})", f"unknown receipt set {rid!r}")
    return document  # type: ignore[no-any-return]


def _check_derivation(pid: str, where: str, item: dict[str, Any], receipts: dict[str, Any]) -> None:
    rid = item["receipts"]
    if rid not in receipts:
        raise _refuse(pid, where, f"unknown receipt set {rid!r}; defined: {sorted(receipts)}")
    dims = _receipt_dims(receipts[rid])
    # A rule that is evaluated on a subset it never declared is the fault this
    # prevents: every selection and per key must be a dimension we can read.
    for key in [*item["selection"], *item.get("per", [])]:
        if key not in dims:
            raise _refuse(pid, where, f"{key!r} is not a dimension of receipt set {rid!r} (dimensions: {sorted(dims)})")
    if "value" in item and item["value"] not in receipts[rid].get("values", {}):
        raise _refuse(pid, where, f"value {item['value']!r} is not declared in receipts.{rid}.values")
    if item["statistic"] in ("relative_reduction_pct", "speedup") and "arm" not in dims:
        raise _refuse(pid, where, f"{item['statistic']} compares arms, but receipt set {rid!r} maps no `arm`")
    if item["statistic"] == "mean_of_server_means" and "server" not in dims:
        raise _refuse(pid, where, f"mean_of_server_means needs a `server` field in receipt set {rid!r}")


# ---------------------------------------------------------------- the bundle tree


@dataclass
class Tree:
    """
    Represents the directory a profile reads: root-confined, read-only, never following symlinks.

    `only`, when set, restricts the tree to those bundle-relative files (a
    single receipt file given on the command line). `blocked` maps a file to
    the reason it must not be parsed (set by the integrity check when its
    bytes do not match the manifest).
    """

    root: Path
    only: frozenset[str] | None = None
    blocked: dict[str, str] = field(default_factory=dict)
    _cache: dict[str, Any] = field(default_factory=dict)

    def files(self) -> list[str]:
        """Return every regular, non-symlink file under the root (bundle-relative POSIX), sorted."""
        if self.only is not None:
            return sorted(self.only)
        if "files" in self._cache:
            return list(self._cache["files"])
        out = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            here = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink())
            for name in filenames:
                p = here / name
                if p.is_file() and not p.is_symlink():
                    out.append(p.relative_to(self.root).as_posix())
        self._cache["files"] = sorted(out)
        return list(self._cache["files"])

    def glob(self, pattern: str) -> list[str]:
        """Return the files matching `pattern` (`*` within one path component, `**` across them), sorted."""
        regex = _glob_regex(pattern)
        return [f for f in self.files() if regex.fullmatch(f)]

    def exists(self, rel: str) -> bool:
        """Return whether `rel` is a regular file of the tree."""
        if "file-set" not in self._cache:
            self._cache["file-set"] = frozenset(self.files())
        return unsafe_reason(rel) is None and rel in self._cache["file-set"]

    def read_bytes(self, rel: str) -> bytes:
        """
        Return the bytes of `rel`, opened with `O_NOFOLLOW`.

        Raises `OSError` when it is absent, unsafe, a symlink or unreadable.
        """
        if unsafe_reason(rel) or not self.exists(rel):
            raise FileNotFoundError(rel)
        fd = os.open(self.root / rel, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def json(self, rel: str) -> Any:
        """Return `rel` parsed as strict JSON (cached); raises `OSError` or `JSONProblem`."""
        key = "json:" + rel
        if key not in self._cache:
            self._cache[key] = loads_strict(self.read_bytes(rel))
        return self._cache[key]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


# ---------------------------------------------------------------- pointers and numbers


def resolve(document: Any, pointer: str) -> Any:
    """
    Return the value at RFC 6901 `pointer` in `document`.

    Raises `KeyError` when a step does not exist (a missing member, an index
    out of range or not a number, a step into a scalar).
    """
    if pointer == "":
        return document
    current = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")  # RFC 6901 section 4
        if isinstance(current, dict):
            if token not in current:
                raise KeyError(pointer)
            current = current[token]
        elif isinstance(current, list):
            if not token.isdigit() or int(token) >= len(current):
                raise KeyError(pointer)
            current = current[int(token)]
        else:
            raise KeyError(pointer)
    return current


def to_decimal(value: Any) -> Decimal | None:
    """
    Return `value` as a `Decimal`, or None when it is not a number.

    Accepts JSON numbers (int, `Decimal`), numeric strings, and rational
    strings such as ffprobe's `"24/1"` or `"30000/1001"`. Booleans are not numbers.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            if re.fullmatch(r"-?\d+/\d+", text):
                num, den = text.split("/")
                if int(den) == 0:
                    return None
                return stats.CONTEXT.divide(Decimal(num), Decimal(den))
            number = Decimal(text)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def dim_text(value: Any) -> str | None:
    """Return the canonical string of a dimension value (`1`, `"baseline"`, `Decimal('5')` -> `"5"`), or None."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    return str(value)


# ---------------------------------------------------------------- receipts


@dataclass
class Record:
    """
    Represents one receipt (one request or one timed run) as mapped by a profile.

    `dims` holds the selection dimensions (`file`, `arm`, `server`, `phase`,
    `request_id`, profile-declared ones) as strings; `values` the numbers
    converted to seconds (`latency`, `start`, `end`, declared `values`), None
    when the field is missing; `raw` the record document (for identities);
    `where` the file and JSON Pointer (or line) it came from; `ok` whether its
    outcome is a success.

    `unread`, when set, makes the record a stand-in for receipts that could
    not be read (a file blocked by integrity, unreadable, or an entry whose
    unnested array is missing): it says why. Its `dims` hold only what is known
    without parsing (the file, file-name placeholders, constants); a
    dimension it lacks matches every selection, so every statistic whose
    selection may cover it is underivable rather than computed over the
    survivors (`derive` raises `Underivable`). Such stand-ins are never
    checked as receipts (identities, clocks, digests, media skip them).
    """

    dims: dict[str, str]
    values: dict[str, Decimal | None]
    raw: Any
    path: str
    pointer: str
    ok: bool = True
    unread: str | None = None
    unread_code: str = "incomplete-denominator"
    unknown: set[str] = field(default_factory=set)


@dataclass
class Problem:
    """Represents a bundle problem met while reading receipts: status, code, message, file and pointer."""

    status: str
    code: str
    message: str
    path: str
    pointer: str | None = None
    field: str | None = None


def _name_values(template: str, rel: str) -> dict[str, str] | None:
    if not template:
        return {}
    parts = _PLACEHOLDER.split(template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p.replace('.', '_')}>[^/]+?)" for i, p in enumerate(parts))
    m = re.fullmatch(regex, rel)
    return m.groupdict() if m else None


def _documents(tree: Tree, rel: str, spec: dict[str, Any]) -> list[tuple[str, Any]]:
    data = tree.read_bytes(rel)
    encoding = spec["encoding"]
    if encoding == "jsonl":
        return [(f"#line={n}", doc) for n, doc in enumerate(loads_strict_lines(data), start=1)]
    if encoding == "csv":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONProblem("not-utf8", f"not UTF-8 at offset {exc.start}") from None
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        return [(f"#row={n}", row) for n, row in enumerate(rows, start=1)]
    document = loads_strict(data)
    pointer = spec.get("records", "")
    try:
        records = resolve(document, pointer)
    except KeyError:
        raise JSONProblem("missing-records", f"no records at {pointer!r}") from None
    if not isinstance(records, list):
        raise JSONProblem("missing-records", f"{pointer!r} is not an array of records")
    return [(f"{pointer}/{i}", r) for i, r in enumerate(records)]


def _map(mapping: dict[str, Any], record: Any, element: Any, parallel: dict[str, Any], from_name: dict[str, str]) -> tuple[bool, Any]:
    """Return `(found, value)` for one field mapping."""
    if "value" in mapping:
        return True, mapping["value"]
    if "from_name" in mapping:
        key = mapping["from_name"].replace(".", "_")
        return (key in from_name), from_name.get(key)
    if "element" in mapping:
        return True, element
    if "parallel" in mapping:
        name = mapping["parallel"]
        return (name in parallel), parallel.get(name)
    try:
        return True, resolve(record, mapping["pointer"])
    except KeyError:
        return False, None


def _known_dims(spec: dict[str, Any], rel: str, from_name: dict[str, str] | None, record: Any = None) -> dict[str, str]:
    """Return the dimensions of a receipt knowable without its contents: file, file-name placeholders, constants (and pointers into `record`)."""
    dims = {"file": rel}
    mappings = {**{k: v for k, v in spec["fields"].items() if k in (*STANDARD_DIMENSIONS, "request_id")}, **spec.get("dimensions", {})}
    for name, mapping in mappings.items():
        if "value" in mapping:
            dims[name] = mapping["value"]
        elif "from_name" in mapping and from_name is not None:
            found, value = _map(mapping, None, None, {}, from_name)
            if found and dim_text(value) is not None:
                dims[name] = dim_text(value)  # type: ignore[assignment]
        elif "pointer" in mapping and record is not None:
            text = _safe(record, mapping["pointer"])
            if text is not None:
                dims[name] = text
    return dims


def _stand_in(spec: dict[str, Any], rel: str, reason: str, code: str, *, pointer: str = "", record: Any = None) -> Record:
    """Return the stand-in `Record` for receipts of `rel` that could not be read (see `Record.unread`)."""
    dims = _known_dims(spec, rel, _name_values(spec.get("name", ""), rel), record)
    return Record(dims=dims, values={}, raw=None, path=rel, pointer=pointer, ok=False, unread=reason, unread_code=code)


def read_receipts(tree: Tree, rid: str, spec: dict[str, Any]) -> tuple[list[Record], list[Problem], list[str]]:
    """
    Read receipt set `rid` from `tree` as the profile `spec` maps it.

    Returns `(records, problems, files)`. Problems name the file and field:
    FAIL `missing-field` for a mapped field a receipt lacks, FAIL
    `not-a-number`, FAIL `impossible-value` for a latency or duration <= 0
    (kept out of every statistic, which are then `incomplete-denominator`), FAIL `bad-phase`, FAIL `record-count`, FAIL
    `name-mismatch`, UNVERIFIED `no-receipts` for a glob matching nothing,
    UNVERIFIED `blocked-by-integrity` for a file whose bytes failed the
    manifest, FAIL `unreadable-receipt` for a file that is not strict JSON.
    A record with a missing field is kept (absence is not zero): statistics
    over a selection containing it cannot be derived. A file that is not
    read (blocked by integrity, unreadable, not matching its name template)
    is kept as a stand-in record (`Record.unread`), so statistics whose
    selection may cover it are underivable, never computed over the rest.
    Side effects: reads the matched files.
    """
    records: list[Record] = []
    problems: list[Problem] = []
    files = tree.glob(spec["glob"])
    if not files:
        problems.append(Problem("UNVERIFIED", "no-receipts", f"receipts.{rid}: glob {spec['glob']!r} matches no file, so nothing mapped to it can be derived", spec["glob"]))
        return records, problems, files
    if "files" in spec and len(files) != spec["files"]:
        problems.append(Problem("FAIL", "file-count", f"receipts.{rid}: glob {spec['glob']!r} matches {len(files)} file(s), the profile expects {spec['files']}: {files}", spec["glob"]))
    fields = spec["fields"]
    dims_spec = {**{k: v for k, v in fields.items() if k in (*STANDARD_DIMENSIONS, "request_id", "outcome")}, **spec.get("dimensions", {})}
    values_spec = {"latency": fields["latency"], **{k: fields[k] for k in ("start", "end") if k in fields}, **spec.get("values", {})}
    ok_outcomes = set(spec.get("ok_outcomes", []))
    for rel in files:
        if rel in tree.blocked:
            problems.append(Problem("UNVERIFIED", "blocked-by-integrity", f"{rel}: {tree.blocked[rel]}; its receipts are not read", rel))
            records.append(_stand_in(spec, rel, f"blocked by integrity: {tree.blocked[rel]}", "blocked-by-integrity"))
            continue
        from_name = _name_values(spec.get("name", ""), rel)
        if from_name is None:
            problems.append(Problem("FAIL", "name-mismatch", f"{rel} does not match the file-name template {spec['name']!r}, so its arm/server/phase are unknown", rel))
            records.append(_stand_in(spec, rel, "its name does not match the file-name template", "incomplete-denominator"))
            continue
        try:
            documents = _documents(tree, rel, spec)
        except JSONProblem as exc:
            problems.append(Problem("FAIL", "unreadable-receipt", f"{rel}: {exc}", rel))
            records.append(_stand_in(spec, rel, f"unreadable: {exc}", "incomplete-denominator"))
            continue
        except OSError as exc:
            problems.append(Problem("FAIL", "unreadable-receipt", f"{rel}: cannot be read: {exc}", rel))
            records.append(_stand_in(spec, rel, f"cannot be read: {exc}", "incomplete-denominator"))
            continue
        count = 0
        for pointer, record in documents:
            if "where" in spec and any(_safe(record, p) != v for p, v in spec["where"].items()):
                continue
            count += 1
            before = len(problems)
            unnested = list(_unnest(spec, record, rel, pointer, problems))
            if "unnest" in spec and not unnested and len(problems) > before:
                records.append(_stand_in(spec, rel, f"{pointer}: {problems[-1].message}", "incomplete-denominator", pointer=pointer, record=record))
            for element_pointer, element, parallel in unnested:
                where = pointer + element_pointer
                rec = Record(dims={"file": rel}, values={}, raw=record, path=rel, pointer=where)
                for name, mapping in dims_spec.items():
                    found, value = _map(mapping, record, element, parallel, from_name)
                    text = dim_text(value) if found else None
                    if text is None:
                        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is missing", rel, where, name))
                        if name == "outcome":
                            rec.ok = False  # an unknown outcome is not a success
                        elif name != "request_id":
                            rec.unknown.add(name)  # matches every selection on it: a statistic over the survivors is not one over all
                        continue
                    if name == "outcome":
                        rec.ok = text in ok_outcomes
                    else:
                        rec.dims[name] = text
                if "phase" in rec.dims and rec.dims["phase"] not in PHASES:
                    problems.append(Problem("FAIL", "bad-phase", f"{rel} {where}: phase {rec.dims['phase']!r} is neither warmup nor measured", rel, where, "phase"))
                for name, mapping in values_spec.items():
                    found, value = _map(mapping, record, element, parallel, from_name)
                    number = to_decimal(value) if found else None
                    if not found or value is None:
                        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is missing", rel, where, name))
                    elif number is None:
                        problems.append(Problem("FAIL", "not-a-number", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is {value!r}, not a number", rel, where, name))
                    elif name not in CLOCKS and number <= 0:
                        problems.append(Problem("FAIL", "impossible-value", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is {value}, "
                                                f"but a latency or duration must be > 0", rel, where, name))
                        number = None  # never a term of any statistic
                    rec.values[name] = None if number is None else stats.CONTEXT.multiply(number, UNITS[mapping["unit"]])
                records.append(rec)
        expected = spec.get("records_per_file")
        if expected is not None and count != expected:
            problems.append(Problem("FAIL", "record-count", f"{rel}: {count} records, the profile says {expected} per file", rel))
    return records, problems, files


def _safe(record: Any, pointer: str) -> str | None:
    try:
        return dim_text(resolve(record, pointer))
    except KeyError:
        return None


def _describe(mapping: dict[str, Any]) -> str:
    for key in ("pointer", "from_name", "parallel"):
        if key in mapping:
            return f"{key} {mapping[key]!r}"
    return "element" if "element" in mapping else "constant"


def _unnest(spec: dict[str, Any], record: Any, rel: str, pointer: str, problems: list[Problem]) -> Iterable[tuple[str, Any, dict[str, Any]]]:
    unnest = spec.get("unnest")
    if not unnest:
        yield "", None, {}
        return
    try:
        array = resolve(record, unnest["array"])
    except KeyError:
        array = None
    if not isinstance(array, list):
        problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: array {unnest['array']} is missing", rel, pointer, unnest["array"]))
        return
    columns: dict[str, list[Any] | None] = {}
    for name, p in unnest.get("parallel", {}).items():
        try:
            column = resolve(record, p)
        except KeyError:
            column = None
        if not isinstance(column, list) or len(column) != len(array):
            have = len(column) if isinstance(column, list) else "none"
            problems.append(Problem("FAIL", "parallel-mismatch", f"{rel} {pointer}: {p} has {have} entries, {unnest['array']} has {len(array)}", rel, pointer + p, name))
            column = None
        columns[name] = column
    for i, element in enumerate(array):
        parallel = {name: col[i] for name, col in columns.items() if col is not None}
        yield f"{unnest['array']}/{i}", element, parallel


# ---------------------------------------------------------------- derivation


def _may_match(r: Record, key: str, value: str) -> bool:
    if key in r.dims:
        return r.dims[key] == value
    return r.unread is not None or key in r.unknown  # unknown: it may be in this selection


def select(records: list[Record], selection: dict[str, str]) -> list[Record]:
    """
    Return the records whose dimensions equal every key of `selection`.

    A stand-in for unread receipts, or a record whose dimension could not be
    mapped, is returned whenever it may belong to the selection (a dimension
    it lacks matches), so derivations see that their denominator is incomplete.
    """
    return [r for r in records if all(_may_match(r, k, v) for k, v in selection.items())]


def check_complete(records: list[Record], label: str) -> None:
    """Raise `Underivable` (UNVERIFIED) when `records` include stand-ins for receipts that were not read."""
    unread = [r for r in records if r.unread is not None]
    if unread:
        files = sorted({r.path for r in unread})
        code = "blocked-by-integrity" if all(r.unread_code == "blocked-by-integrity" for r in unread) else "incomplete-denominator"
        raise Underivable(
            f"{label} covers receipts that were not read: " + "; ".join(f"{r.path}{' ' + r.pointer if r.pointer else ''} ({r.unread})" for r in unread[:3])
            + (f" and {len(unread) - 3} more ({', '.join(files)})" if len(unread) > 3 else "") + "; a statistic over the others is not one over all",
            code, fail=False,
        )


def _values(records: list[Record], name: str, label: str) -> list[Decimal]:
    check_complete(records, label)
    if not records:
        raise Underivable(f"no receipts match {label}", "empty-selection")
    missing = [r.pointer for r in records if r.values.get(name) is None or r.unknown]
    failed = [r.pointer for r in records if not r.ok]
    if missing or failed:
        raise Underivable(
            f"{len(records) - len(set(missing) | set(failed))}/{len(records)} receipts of {label} have a usable {name} "
            f"(missing: {missing[:3] or 'none'}; not ok: {failed[:3] or 'none'}); a statistic over the survivors is not one over all",
            "incomplete-denominator",
        )
    return [r.values[name] for r in records]  # type: ignore[misc]


def _label(selection: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(selection.items())) or "all receipts"


def key_values(records: list[Record], dim: str) -> list[str]:
    """Return the distinct values of `dim` in `records`, numerically sorted when all are numbers."""
    found = {r.dims[dim] for r in records if dim in r.dims}
    if all(re.fullmatch(r"-?\d+(\.\d+)?", v) for v in found):
        return sorted(found, key=Decimal)
    return sorted(found)


def _mean_of_server_means(records: list[Record], selection: dict[str, str], name: str) -> tuple[Decimal, list[str]]:
    chosen = select(records, selection)
    check_complete(chosen, _label(selection))
    servers = key_values(chosen, "server") if any("server" in r.dims for r in chosen) else []
    if not servers:
        values = _values(chosen, name, _label(selection))
        return stats.mean(values), [f"mean {fmt(stats.mean(values))} over {len(values)}"]
    means, lines = [], []
    for sid in servers:
        values = _values(select(chosen, {"server": sid}), name, _label({**selection, "server": sid}))
        means.append(stats.mean(values))
        lines.append(f"server {sid} mean {fmt(means[-1])} over {len(values)}")
    return stats.mean(means), lines


def fmt(value: Decimal) -> str:
    """Return `value` as a short plain-decimal string for derivation texts."""
    return format(value.normalize() if value == value.to_integral_value() else value, "f")[:24]


def derive(rule: dict[str, Any], records: list[Record], key: dict[str, str]) -> tuple[Decimal, str]:
    """
    Return `(value, derivation_text)` of one claim or gate rule over `records`.

    `key` holds the `per` dimension values of this instance. Time statistics
    are in seconds (callers convert to the claim's unit). Raises
    `Underivable` when the selection is empty or holds a receipt with a
    missing or failed value.
    """
    statistic = rule["statistic"]
    selection = {**rule["selection"], **key}
    name = rule.get("value", "latency")
    label = _label(selection)
    if statistic == "count":
        chosen = select(records, selection)
        check_complete(chosen, label)
        if not chosen:
            raise Underivable(f"no receipts match {label}", "empty-selection")
        unknown = [r.pointer for r in chosen if r.unknown]
        if unknown:
            raise Underivable(f"{len(unknown)} receipts of {label} lack a mapped dimension ({unknown[:3]}), so the count is not known", "incomplete-denominator")
        return Decimal(len(chosen)), f"count of receipts with {label}"
    if statistic in ("relative_reduction_pct", "speedup"):
        base_sel = {k: v for k, v in selection.items() if k != "arm"}
        b, b_lines = _mean_of_server_means(records, {**base_sel, "arm": rule["baseline"]}, name)
        c, c_lines = _mean_of_server_means(records, {**base_sel, "arm": rule["candidate"]}, name)
        detail = f"baseline {fmt(b)} s ({'; '.join(b_lines)}), candidate {fmt(c)} s ({'; '.join(c_lines)})"
        if b == 0:
            raise Underivable(f"baseline mean is zero ({label})", "empty-selection")
        if statistic == "speedup":
            return stats.CONTEXT.divide(b, c), f"baseline / candidate: {detail}"
        value = stats.CONTEXT.multiply(Decimal(1) - stats.CONTEXT.divide(c, b), Decimal(100))
        return value, f"(1 - candidate/baseline) * 100: {detail}"
    if statistic == "mean_of_server_means":
        value, lines = _mean_of_server_means(records, selection, name)
        return value, f"mean of server means ({label}): " + "; ".join(lines)
    values = _values(select(records, selection), name, label)
    text = f"{len(values)} values of {name} ({label})"
    if statistic == "mean":
        return stats.mean(values), f"mean of {text}"
    if statistic == "median":
        return stats.median(values), f"median of {text}"
    if statistic == "min":
        return min(values), f"minimum of {text}"
    if statistic == "max":
        return max(values), f"maximum of {text}"
    if statistic == "sd":
        if len(values) < 2:
            raise Underivable(f"a sample SD needs at least two values, {label} has {len(values)}", "empty-selection", fail=False)
        return stats.sample_sd(values), f"sample SD (n-1) of {text}"
    q = Decimal(str(rule["q"]))
    if rule["method"] == "nearest-rank":
        return stats.percentile_nearest_rank(values, q), f"p{q} nearest-rank (rank ceil(q/100*n)) of {text}"
    return stats.percentile_linear(values, q), f"p{q} linear interpolation ((n-1)*q/100) of {text}"


def instances(rule: dict[str, Any], records: list[Record]) -> list[dict[str, str]]:
    """Return one `per`-key mapping per instance of `rule` (the cartesian keys present in the selected records)."""
    per = rule.get("per", [])
    if not per:
        return [{}]
    chosen = select(records, rule["selection"])
    keys = {tuple(r.dims.get(d) for d in per) for r in chosen}
    out = [dict(zip(per, k, strict=True)) for k in keys if None not in k]
    return sorted(out, key=lambda m: [(_sort_key(m[d])) for d in per])


def _sort_key(value: str) -> tuple[int, Any]:
    return (0, Decimal(value)) if re.fullmatch(r"-?\d+(\.\d+)?", value) else (1, value)


def locate(tree: Tree, at: dict[str, Any], key: dict[str, str], indexes: dict[str, int]) -> tuple[str, str, Any]:
    """
    Return `(file, pointer, value)` of a claim location for one instance.

    `{dim}` placeholders take the instance's key value, `{dim.index}` its
    0-based rank among the receipts' values of `dim`. With `where`, `pointer`
    names an array and the element whose members equal every `where` value
    is taken (exactly one must match), then `then` is resolved inside it.
    Raises `KeyError` (pointer not found), `LookupError` (no or several
    elements match), `OSError` or `JSONProblem` (file unreadable).
    """

    def fill(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            name = m.group(1)
            if name.endswith(".index"):
                return str(indexes[name.removesuffix(".index")])
            return key[name].replace("~", "~0").replace("/", "~1")

        return _PLACEHOLDER.sub(one, text)

    rel = _PLACEHOLDER.sub(lambda m: key[m.group(1)], at["file"])
    document = tree.json(rel)
    pointer = fill(at["pointer"])
    value = resolve(document, pointer)
    if "where" in at:
        want = {k: _PLACEHOLDER.sub(lambda m: key[m.group(1)], v) for k, v in at["where"].items()}
        if not isinstance(value, list):
            raise KeyError(pointer)
        hits = [i for i, e in enumerate(value) if isinstance(e, dict) and all(dim_text(e.get(k)) == v for k, v in want.items())]
        if len(hits) != 1:
            raise LookupError(f"{len(hits)} elements of {pointer} match {want}")
        pointer = f"{pointer}/{hits[0]}"
        then = fill(at.get("then", ""))
        value = resolve(value[hits[0]], then)
        pointer += then
    return rel, pointer, value


def _template(text: str, value: str) -> re.Pattern[str]:
    """Return a regex matching `text` with each `{name}` as a named group (`.index` ones digits only); `value` is the group pattern."""
    parts = _PLACEHOLDER.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part))
        else:
            group = f"g{i}_" + re.sub(r"[^A-Za-z0-9_]", "_", part)
            out.append(f"(?P<{group}>{r'[0-9]+' if part.endswith('.index') else value})")
    return re.compile("".join(out))


def _bind(pattern: re.Pattern[str], text: str, names: list[str], bound: dict[str, str]) -> dict[str, str] | None:
    """Return `bound` extended with the placeholders `pattern` captures from `text`, or None when it does not match or contradicts `bound`."""
    m = pattern.fullmatch(text)
    if not m:
        return None
    out = dict(bound)
    for name, value in zip(names, m.groups(), strict=True):
        if out.setdefault(name, value) != value:
            return None
    return out


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _walk(node: Any, pointer: str, base: str, bound: dict[str, str]) -> Iterable[tuple[dict[str, str], str, Any]]:
    """Yield `(bindings, concrete_pointer, value)` for every place in `node` the templated `pointer` reaches."""
    if pointer == "":
        yield bound, base, node
        return
    head, _, rest = pointer[1:].partition("/")
    rest = "/" + rest if _ else ""
    names = _PLACEHOLDER.findall(head)
    if not names:
        token = head.replace("~1", "/").replace("~0", "~")
        try:
            child = resolve(node, "/" + head)
        except KeyError:
            return
        yield from _walk(child, rest, f"{base}/{_escape(token)}", bound)
        return
    pattern = _template(head, ".+")
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for k, child in children:
        extended = _bind(pattern, _escape(str(k)), names, bound)
        if extended is not None:
            yield from _walk(child, rest, f"{base}/{_escape(str(k))}", extended)


def stated(tree: Tree, at: dict[str, Any], files: list[str]) -> Iterable[tuple[dict[str, str], str, str, Any]]:
    """
    Yield `(bindings, file, pointer, value)` for every value the bundle states at the templated location `at`.

    The inverse of `locate`: each `{dim}` (or `{dim.index}`) placeholder is
    bound from what the bundle actually holds (file names among `files` when
    the file is templated, object members, array indexes, the members a
    `where` compares), so a stated value nothing derives is still found.
    Null and non-scalar values are not stated values. Files that are blocked
    or unreadable are skipped (the caller reports them).
    """
    file_names = _PLACEHOLDER.findall(at["file"])
    if file_names:
        pattern = _template(at["file"], ".+")
        targets = [(b, rel) for rel in files if (b := _bind(pattern, rel, file_names, {})) is not None]
    else:
        targets = [({}, at["file"])] if tree.exists(at["file"]) else []
    for bound, rel in targets:
        if rel in tree.blocked:
            continue
        try:
            document = tree.json(rel)
        except (OSError, JSONProblem):
            continue
        for b1, pointer, node in _walk(document, at["pointer"], "", bound):
            if "where" not in at:
                if node is not None and not isinstance(node, (dict, list)):
                    yield b1, rel, pointer, node
                continue
            if not isinstance(node, list):
                continue
            for i, element in enumerate(node):
                if not isinstance(element, dict):
                    continue
                b2: dict[str, str] | None = b1
                for member, template in at["where"].items():
                    text = dim_text(element.get(member))
                    if b2 is None or text is None:
                        b2 = None
                        break
                    b2 = _bind(_template(template, ".+"), text, _PLACEHOLDER.findall(template), b2)
                if b2 is None:
                    continue
                for b3, then, value in _walk(element, at.get("then", ""), f"{pointer}/{i}", b2):
                    if value is not None and not isinstance(value, (dict, list)):
                        yield b3, rel, then, value


# ---------------------------------------------------------------- detection


def matches(profile: dict[str, Any], tree: Tree) -> bool:
    """Return whether `tree` satisfies every detection rule of `profile` (files exist, pointers resolve)."""
    detect = profile["detect"]
    for rel in detect.get("files", []):
        if not tree.exists(rel):
            return False
    globbed = tree.glob(detect["glob"]) if "glob" in detect else []
    if "glob" in detect and not globbed:
        return False
    for item in detect.get("pointers", []):
        targets = [item["file"]] if "file" in item else globbed
        if not any(_resolves(tree, rel, item["pointer"]) for rel in targets):
            return False
    return True


def _resolves(tree: Tree, rel: str, pointer: str) -> bool:
    try:
        resolve(tree.json(rel), pointer)
    except (KeyError, OSError, JSONProblem):
        return False
    return True


def candidates(profiles: dict[str, dict[str, Any]], tree: Tree) -> list[str]:
    """Return the ids of the profiles whose detection rules `tree` matches, sorted."""
    return sorted(pid for pid, p in profiles.items() if matches(p, tree))
