"""Receipt sets read as a profile maps them: the evidence model's `Receipt`s (`verifier.evidence`), and the `Problem`s met while reading."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from verifier import stats, units
from verifier.evidence import Location, Quantity, Receipt
from verifier.grammars import GrammarError, parse, quantity
from verifier.linear_regex import compile_linear
from verifier.jsonio import JSONProblem, in_binary64, shown_literal
from verifier.readers.pointers import PLACEHOLDER, dim_text, resolve, to_decimal
from verifier.readers.tree import Tree

__all__ = ["CLOCKS", "PHASES", "STANDARD_DIMENSIONS", "UNITS", "Problem", "read_receipts", "receipt_dims", "unit_scale", "value_units"]



@functools.lru_cache(maxsize=1024)
def unit_scale(symbol: str) -> Decimal:
    """
    Return the exact factor from unit `symbol` to the base unit of its dimension (`verifier.units`): "ms" -> 0.001, "MiB" -> 1048576.

    Receipt values are stored in base units (seconds, bytes, tokens/s, ...),
    so a claim in any unit of the same dimension converts exactly. Raises
    `verifier.units.UnitError` for a unit the registry does not know (profiles
    are refused at load before that can happen). Cached per symbol (a `Decimal` is immutable; errors are not cached).
    """
    scale = units.parse(symbol).scale
    return stats.CONTEXT.divide(Decimal(scale.numerator), Decimal(scale.denominator))


class _Scales(dict[str, Decimal]):
    """`UNITS[symbol]`: the scale of any registry unit (kept for callers of the former ns/us/ms/s table)."""

    def __missing__(self, key: str) -> Decimal:
        return unit_scale(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and units.known(key)


#: Scale of any unit of the registry to its dimension's base unit (see `unit_scale`).
UNITS: dict[str, Decimal] = _Scales()

#: Dimensions every receipt set has: `file` (bundle-relative path of the receipt file) plus the mapped ones.
STANDARD_DIMENSIONS = ("arm", "server", "phase")
PHASES = ("warmup", "measured")
#: Timed fields that are clock readings, not durations: any finite value is possible. Every other timed field must be > 0
#: (>= 0 for a value mapped `may_be_zero`: a configured duration whose 0 means none, LoadGen's `effective_min_duration_ms`).
CLOCKS = ("start", "end")


def value_units(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the numeric fields of receipt set `spec` (name -> mapping with its `unit`): `latency`, `start`/`end` and the declared `values`."""
    fields = spec["fields"]
    return {**{k: fields[k] for k in ("latency", "start", "end") if k in fields}, **spec.get("values", {})}


def receipt_dims(spec: dict[str, Any]) -> set[str]:
    """Return the dimensions of receipt set `spec`: `file`, the mapped standard ones, `request_id`, declared ones."""
    fields = spec["fields"]
    dims = {"file"} | {d for d in STANDARD_DIMENSIONS if d in fields} | set(spec.get("dimensions", {}))
    if "request_id" in fields:
        dims.add("request_id")
    return dims


@dataclass
class Problem:
    """Represents a bundle problem met while reading receipts: status, code, message, file and pointer."""

    status: str
    code: str
    message: str
    path: str
    pointer: str | None = None
    field: str | None = None


@functools.lru_cache(maxsize=256)
def _name_regex(template: str, spans: frozenset[str] = frozenset(), patterns: tuple[tuple[str, str], ...] = ()) -> Any:
    """
    Return the compiled regex of a file-name template, built once per template: `{arm}` -> a named group within one
    path component, or across directories for a placeholder in `spans` (a dimension mapped `"spans_directories": true`:
    criterion's `{bench}/new/sample.json`, where a benchmark id `group/function/param` is three directories), or
    the receipt set's `name_patterns` regex for that placeholder (`patterns`: sorted `(placeholder, regex)` pairs;
    lm-eval's `samples_{task}_{ts}.jsonl` with `ts` a timestamp pattern, so `{task}` keeps its `_`s).
    Matched by RE2 (`verifier.linear_regex`), in time linear in the path. Raises `RegexError` for a pattern RE2 refuses
    (the profile loader refuses such a profile first).
    """
    given = dict(patterns)

    def group(p: str) -> str:
        return f"(?:{given[p]})" if p in given else "[^/].*?" if p in spans else "[^/]+?"
    parts = PLACEHOLDER.split(template)
    return compile_linear("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p.replace('.', '_')}>{group(p)})" for i, p in enumerate(parts)))


def _spans(spec: dict[str, Any]) -> frozenset[str]:
    """Return the file-name placeholders a receipt set's dimensions or fields map with `"spans_directories": true`."""
    mappings = [*spec["fields"].values(), *spec.get("dimensions", {}).values()]
    return frozenset(m["from_name"] for m in mappings if m.get("spans_directories") and "from_name" in m)


def _name_values(template: str, rel: str, spans: frozenset[str] = frozenset(), patterns: tuple[tuple[str, str], ...] = ()) -> dict[str, str] | None:
    if not template:
        return {}
    m = _name_regex(template, spans, patterns).fullmatch(rel)
    return m.groupdict() if m else None


def _patterns(spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Return a receipt set's `name_patterns` as sorted `(placeholder, regex)` pairs (hashable, for `_name_regex`'s cache)."""
    return tuple(sorted(spec.get("name_patterns", {}).items()))


def _documents(tree: Tree, rel: str, spec: dict[str, Any]) -> list[tuple[str, Any]]:
    """Return the `(location, record)` pairs of `rel` read with its grammar (`verifier.grammars`); raises `GrammarError` or `OSError`."""
    data = tree.read_bytes(rel)
    return parse(tree.text_constants(data) if spec["encoding"] in ("json", "jsonl") else data, spec)


def _map(mapping: dict[str, Any], record: Any, element: Any, parallel: dict[str, Any], from_name: dict[str, str]) -> tuple[bool, Any]:
    """Return `(found, value)` for one field mapping."""
    if "value" in mapping:
        return True, mapping["value"]
    if "from_name" in mapping:
        key = mapping["from_name"].replace(".", "_")
        return (key in from_name), from_name.get(key)
    if "element" in mapping:
        if "join" in mapping and isinstance(element, list):  # a combination (`unnest.product_of`): its entries' texts joined, [] -> ""
            texts = [dim_text(entry) for entry in element]
            return (None not in texts), (mapping["join"].join(texts) if None not in texts else None)  # type: ignore[arg-type]
        return True, element
    if "record" in mapping:  # the record's index in its file, which `read_receipts` passes as `from_name["#record"]`
        return ("#record" in from_name), from_name.get("#record")
    if "parallel" in mapping:
        name = mapping["parallel"]
        return (name in parallel), parallel.get(name)
    try:
        return True, resolve(record, mapping["pointer"])
    except KeyError:
        return False, None


#: `(found, value)` of a mapping that finds nothing.
_NOT_FOUND = (False, None)


def _getter(mapping: dict[str, Any]) -> Any:
    """
    Return `_map` for one field `mapping`, its kind decided once: `getter(record, element, parallel, from_name)` -> `(found, value)`.

    A constant and a file-name placeholder (`from_name`) are looked up as
    `_map` looks them up, without its dispatch per call; a one-member pointer
    (`/Samples per second`, no `~` escape) reads a dict record by its member
    directly, as `resolve` would; any other record or mapping goes through `_map`.
    """
    if "value" in mapping:
        constant = (True, mapping["value"])
        return lambda record, element, parallel, from_name: constant
    if "from_name" in mapping:
        key = mapping["from_name"].replace(".", "_")
        return lambda record, element, parallel, from_name: ((key in from_name), from_name.get(key))
    if "element" in mapping or "parallel" in mapping or "record" in mapping:
        return functools.partial(_map, mapping)
    pointer = mapping["pointer"]
    token = pointer[1:]
    if pointer[:1] == "/" and "/" not in token and "~" not in token:
        def member(record: Any, element: Any, parallel: Any, from_name: Any) -> tuple[bool, Any]:
            if type(record) is dict:
                return (True, record[token]) if token in record else _NOT_FOUND
            return _map(mapping, record, element, parallel, from_name)
        return member
    return functools.partial(_map, mapping)


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
                text = dim_text(value)
                dims[name] = mapping.get("labels", {}).get(text, text)  # type: ignore[union-attr]
        elif "pointer" in mapping and record is not None:
            text = _safe(record, mapping["pointer"])
            if text is not None:
                dims[name] = mapping.get("labels", {}).get(text, text)
    return dims


def _stand_in(rid: str, spec: dict[str, Any], rel: str, reason: str, code: str, *, pointer: str = "", record: Any = None) -> Receipt:
    """Return the stand-in `Receipt` for receipts of `rel` that could not be read (see `Receipt.unread`)."""
    dims = _known_dims(spec, rel, _name_values(spec.get("name", ""), rel, _spans(spec), _patterns(spec)), record)
    return Receipt(dims=dims, quantities={}, location=Location(rel, pointer or None), ok=False, receipt_set=rid, unread=reason, unread_code=code)


def read_receipts(tree: Tree, rid: str, spec: dict[str, Any]) -> tuple[list[Receipt], list[Problem], list[str]]:
    """
    Read receipt set `rid` from `tree` as the profile `spec` maps it.

    Returns `(records, problems, files)`. Problems name the file and field:
    FAIL `missing-field` for a mapped field a receipt lacks, FAIL
    `not-a-number`, FAIL `impossible-value` for a latency or duration (a
    time value other than a clock) <= 0
    (kept out of every statistic, which are then `incomplete-denominator`), FAIL `bad-phase`, FAIL `record-count`, FAIL
    `name-mismatch`, UNVERIFIED `no-receipts` for a glob matching nothing,
    UNVERIFIED `blocked-by-integrity` for a file whose bytes failed the
    manifest, UNVERIFIED `unreadable-receipt` for a file that breaks the
    grammar of its `encoding` (we could not read it: not evidence against a
    claim), UNVERIFIED `no-records` for a file holding no records (a file
    whose every record the set's `where` leaves out holds records: it was
    read and contributes none, with no finding). Values
    are stored in the base unit of their dimension (`unit_scale`).
    A record with a missing field is kept (absence is not zero): statistics
    over a selection containing it cannot be derived. A file that is not
    read (blocked by integrity, unreadable, not matching its name template)
    is kept as a stand-in receipt (`Receipt.unread`), so statistics whose
    selection may cover it are underivable, never computed over the rest.
    Side effects: reads the matched files.
    """
    records: list[Receipt] = []
    problems: list[Problem] = []
    files = tree.glob(spec["glob"])
    for link in tree.links(spec["glob"]):  # never read: said, not silently left out
        problems.append(Problem("UNVERIFIED", "symlink-not-followed", f"receipts.{rid}: {link} is a symbolic link, which is never followed, so it is not read", link))
    if not files:
        problems.append(Problem("UNVERIFIED", "no-receipts", f"receipts.{rid}: glob {spec['glob']!r} matches no file, so nothing mapped to it can be derived", spec["glob"]))
        return records, problems, files
    if "files" in spec and len(files) != spec["files"]:
        problems.append(Problem("FAIL", "file-count", f"receipts.{rid}: glob {spec['glob']!r} matches {len(files)} file(s), the profile expects {spec['files']}: {files}", spec["glob"]))
    fields = spec["fields"]
    dims_spec = {**{k: v for k, v in fields.items() if k in (*STANDARD_DIMENSIONS, "request_id", "outcome")}, **spec.get("dimensions", {})}
    values_spec = value_units(spec)
    base = {name: units.base_symbol(mapping["unit"]) for name, mapping in values_spec.items()}  # values are stored in these units
    ok_outcomes = set(spec.get("ok_outcomes", []))
    labels = {name: mapping["labels"] for name, mapping in dims_spec.items() if "labels" in mapping}
    filtered, where_spec, nested = "where" in spec, spec.get("where"), "unnest" in spec
    indexed = any("record" in mapping for mapping in dims_spec.values())
    # a file-name placeholder's dimension is read here as its `_getter` reads it (its group name kept), without a call per record
    dim_getters = [(name, mapping, _getter(mapping), mapping["from_name"].replace(".", "_") if "from_name" in mapping and "value" not in mapping else None)
                   for name, mapping in dims_spec.items()]
    # per value, read once per set (every unit was parsed above): whether it may be absent, its scale to the base unit, whether it is a time
    value_getters = [(name, mapping, _getter(mapping), bool(mapping.get("optional")), unit_scale(mapping["unit"]),
                      units.parse(mapping["unit"]).dimension == "time") for name, mapping in values_spec.items()]
    spans, patterns = _spans(spec), _patterns(spec)
    for rel in files:
        if rel in tree.blocked:
            problems.append(Problem("UNVERIFIED", "blocked-by-integrity", f"{rel}: {tree.blocked[rel]}; its receipts are not read", rel))
            records.append(_stand_in(rid, spec, rel, f"blocked by integrity: {tree.blocked[rel]}", "blocked-by-integrity"))
            continue
        from_name = _name_values(spec.get("name", ""), rel, spans, patterns)
        if from_name is None:
            problems.append(Problem("FAIL", "name-mismatch", f"{rel} does not match the file-name template {spec['name']!r}, so its arm/server/phase are unknown", rel))
            records.append(_stand_in(rid, spec, rel, "its name does not match the file-name template", "incomplete-denominator"))
            continue
        try:
            documents = _documents(tree, rel, spec)
        except (GrammarError, JSONProblem) as exc:
            # we could not read it: that is not evidence against any claim (UNVERIFIED,
            # never FAIL), and it stays in every denominator it may belong to (stand-in)
            problems.append(Problem("UNVERIFIED", "unreadable-receipt", f"{rel} does not follow the {spec['encoding']} grammar the profile declares: {exc}", rel))
            records.append(_stand_in(rid, spec, rel, f"unreadable: {exc}", "incomplete-denominator"))
            continue
        except OSError as exc:
            problems.append(Problem("UNVERIFIED", "unreadable-receipt", f"{rel}: cannot be read: {exc}", rel))
            records.append(_stand_in(rid, spec, rel, f"cannot be read: {exc}", "incomplete-denominator"))
            continue
        count = stated = 0
        named = from_name
        for pointer, record in documents:
            stated += 1
            if indexed:
                from_name = {**named, "#record": str(stated - 1)}  # a dimension mapped `"record": true`: the record's index in its file
            if filtered and not _kept(record, where_spec):
                continue
            count += 1
            before = len(problems)
            unnested = list(_unnest(spec, record, rel, pointer, problems)) if nested else [("", None, {})]  # `_unnest` without an `unnest`: the record itself
            if nested and not unnested and len(problems) > before:
                records.append(_stand_in(rid, spec, rel, f"{pointer}: {problems[-1].message}", "incomplete-denominator", pointer=pointer, record=record))
            for element_pointer, element, parallel in unnested:
                where = pointer + element_pointer
                dims, values, unknown, ok = {"file": rel}, {}, set(), True
                for name, mapping, get, group in dim_getters:
                    if group is not None:
                        found, value = group in from_name, from_name.get(group)
                    else:
                        found, value = get(record, element, parallel, from_name)
                    text = (value if type(value) is str else dim_text(value)) if found else None  # `dim_text`, its common case first
                    if (not found or value is None) and "absent" in mapping:
                        text = mapping["absent"]  # a member the record does not state, as the text the profile gives it (JMH's `params`: "")
                    if text is None and mapping.get("optional") and not (found and value is not None):
                        continue  # an optional dimension this record does not state: the record is read without it (a selection on it leaves it out)
                    if text is None:
                        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is missing", rel, where, name))
                        if name == "outcome":
                            ok = False  # an unknown outcome is not a success
                        elif name != "request_id":
                            unknown.add(name)  # matches every selection on it: a statistic over the survivors is not one over all
                        continue
                    if name == "outcome":
                        ok = text in ok_outcomes
                    else:
                        dims[name] = labels[name].get(text, text) if name in labels else text  # `labels`: one spelling per value ("N=1k" -> "1000")
                if "phase" in dims and dims["phase"] not in PHASES:
                    problems.append(Problem("FAIL", "bad-phase", f"{rel} {where}: phase {dims['phase']!r} is neither warmup nor measured", rel, where, "phase"))
                for name, mapping, get, optional, scale, timed in value_getters:
                    found, value = get(record, element, parallel, from_name)
                    if not found or value is None:
                        if optional:
                            continue  # left out of `quantities` (not None): an optional value not stated is no problem, but a statistic over it is underivable (`select.ABSENT`)
                        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is missing", rel, where, name))
                        values[name] = None  # absence is not zero
                        continue
                    number = to_decimal(value)
                    if number is None and isinstance(value, str) and (q := quantity(value)) is not None:
                        number, written = q  # "76.000%", "244.6s": the unit written must be of the mapped unit's dimension
                        if written is not None:
                            try:
                                number = units.convert(number, written, mapping["unit"])
                            except (units.UnitError, units.UnitMismatch):
                                problems.append(Problem("FAIL", "unit-mismatch", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is {value!r}, "
                                                        f"not in a unit of {mapping['unit']}'s dimension", rel, where, name))
                                values[name] = None
                                continue
                    if number is not None and "unit_from" in mapping and (number := _in_record_unit(number, record, mapping, rel, where, name, problems)) is None:
                        values[name] = None  # its unit is not stated, or not one the profile admits: a problem was recorded
                        continue
                    if number is None:
                        problems.append(Problem("FAIL", "not-a-number", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is {value!r}, not a number", rel, where, name))
                    elif not in_binary64(number):  # a CSV or text cell of 5000 digits: the range a JSON receipt's numbers are held to
                        problems.append(Problem("UNVERIFIED", "number-out-of-range", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is "
                                                f"{shown_literal(str(value))}, beyond the binary64 range, so it is not used", rel, where, name))
                        number = None
                    elif "divide_by" in mapping and (number := _divided(number, record, parallel, mapping, rel, where, name, problems)) is None:
                        pass  # the divisor is missing, not a number or not > 0: a problem was recorded, and the value is not used
                    elif "subtract" in mapping and (number := _less(number, record, mapping, rel, where, name, problems)) is None:
                        pass  # the subtrahend is missing or not a number: a problem was recorded, and the value is not used
                    elif name not in CLOCKS and timed and (number < 0 or (number == 0 and not mapping.get("may_be_zero"))):  # `may_be_zero`: a setting, 0 = none
                        problems.append(Problem("FAIL", "impossible-value", f"{rel} {where}: mapped field {name} ({_describe(mapping)}) is {value}, "
                                                f"but a latency or duration must be > 0", rel, where, name))
                        number = None  # never a term of any statistic
                    values[name] = None if number is None else Quantity(stats.CONTEXT.multiply(number, scale), base[name])
                records.append(Receipt(dims=dims, quantities=values, location=Location(rel, where or None), ok=ok, receipt_set=rid, raw=record,
                                       unknown=frozenset(unknown)))
        if stated == 0:
            # a receipt file with no records proves nothing: never a PASS, and whatever
            # its selection may cover is underivable rather than computed without it.
            # (A file whose every record the set's own `where` leaves out was read: it contributes no receipt, and nothing is missing.)
            problems.append(Problem("UNVERIFIED", "no-records", f"receipts.{rid}: {rel} holds no records", rel))
            records.append(_stand_in(rid, spec, rel, "it holds no records", "incomplete-denominator"))
        expected = spec.get("records_per_file")
        if expected is not None and count != expected:
            problems.append(Problem("FAIL", "record-count", f"{rel}: {count} records, the profile says {expected} per file", rel))
    return records, problems, files


def _in_record_unit(number: Decimal, record: Any, mapping: dict[str, Any], rel: str, where: str, name: str, problems: list[Problem]) -> Decimal | None:
    """
    Return `number`, written in the unit the record states at `mapping["unit_from"]["pointer"]`, in the value's `unit` (exact).

    The unit stated must be one of `unit_from.one_of` (checked at load to be
    registry units of `unit`'s dimension): Google Benchmark's rows state
    `real_time` in their own `time_unit` (ns, us, ms or s). None after
    recording FAIL `missing-field` (no unit stated) or `unit-mismatch` (a
    unit the profile does not admit: never guessed).
    """
    spec = mapping["unit_from"]
    try:
        written = resolve(record, spec["pointer"])
    except KeyError:
        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: the unit {spec['pointer']} of mapped field {name} is missing", rel, where, name))
        return None
    if not isinstance(written, str) or written not in spec["one_of"]:
        problems.append(Problem("FAIL", "unit-mismatch", f"{rel} {where}: the unit {spec['pointer']} of mapped field {name} is {written!r}, "
                                f"not one of {spec['one_of']} the profile admits", rel, where, name))
        return None
    return units.convert(number, written, mapping["unit"])


def _divided(number: Decimal, record: Any, parallel: dict[str, Any], mapping: dict[str, Any], rel: str, where: str, name: str,
             problems: list[Problem]) -> Decimal | None:
    """
    Return `number` divided by the count at `mapping["divide_by"]["pointer"]` of `record`, or by the unnested record's
    entry of the `parallel` array `mapping["divide_by"]["parallel"]` (criterion's `times[i] / iters[i]`) (time /
    iterations), exactly as `stats.CONTEXT` divides; None after recording FAIL `missing-field` (no divisor),
    `not-a-number` (one that is no finite number > 0: a per-record value over 0 iterations is no value) or UNVERIFIED
    `number-out-of-range` (a quotient beyond binary64).
    """
    divide_by = mapping["divide_by"]
    pointer = divide_by.get("pointer") or f"the parallel entry {divide_by['parallel']!r}"
    try:
        if "parallel" in divide_by:
            if divide_by["parallel"] not in parallel:
                raise KeyError(divide_by["parallel"])
            raw = parallel[divide_by["parallel"]]
        else:
            raw = resolve(record, pointer)
    except KeyError:
        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: the divisor {pointer} of mapped field {name} is missing", rel, where, name))
        return None
    divisor = to_decimal(raw)
    if divisor is None or not divisor.is_finite() or divisor <= 0:
        problems.append(Problem("FAIL", "not-a-number", f"{rel} {where}: the divisor {pointer} of mapped field {name} is {raw!r}, not a number > 0", rel, where, name))
        return None
    quotient = stats.CONTEXT.divide(number, divisor)
    if not in_binary64(quotient):  # 1e300 / 1e-300: beyond the range every receipt number is held to
        problems.append(Problem("UNVERIFIED", "number-out-of-range", f"{rel} {where}: mapped field {name} divided by {pointer} is beyond the binary64 range, "
                                "so it is not used", rel, where, name))
        return None
    return quotient


def _less(number: Decimal, record: Any, mapping: dict[str, Any], rel: str, where: str, name: str, problems: list[Problem]) -> Decimal | None:
    """
    Return `number` less the number at `mapping["subtract"]["pointer"]` of `record`, in the value's unit (an interval
    from two clocks: MLPerf's run_stop - run_start); None after recording FAIL `missing-field` or `not-a-number`.
    """
    pointer = mapping["subtract"]["pointer"]
    try:
        raw = resolve(record, pointer)
    except KeyError:
        raw = None
    if raw is None:
        problems.append(Problem("FAIL", "missing-field", f"{rel} {where}: {pointer}, subtracted from mapped field {name}, is missing", rel, where, name))
        return None
    other = to_decimal(raw)
    if other is None or not other.is_finite():
        problems.append(Problem("FAIL", "not-a-number", f"{rel} {where}: {pointer}, subtracted from mapped field {name}, is {raw!r}, not a number", rel, where, name))
        return None
    return stats.CONTEXT.subtract(number, other)


def _kept(record: Any, where: dict[str, Any]) -> bool:
    """
    Return whether `record` passes a receipt set's `where`: each pointer's text equals its string, for
    `{"present": true}` / `{"present": false}` the member is stated (not null) / not stated (calibration runs without it),
    for `{"matches": REGEX}` its text matches the regex whole (asv's `time_` benchmarks by their name).
    """
    for pointer, wanted in where.items():
        if type(wanted) is str:
            if _safe(record, pointer) != wanted:
                return False
        elif "matches" in wanted:
            text = _safe(record, pointer)
            if text is None or _where_regex(wanted["matches"]).fullmatch(text) is None:
                return False
        else:
            try:
                stated = resolve(record, pointer) is not None
            except KeyError:
                stated = False
            if stated != wanted["present"]:
                return False
    return True


@functools.lru_cache(maxsize=64)
def _where_regex(pattern: str) -> Any:
    """Return `where`'s `{"matches": pattern}` compiled once by RE2 (linear time; the loader refused a pattern RE2 does not take)."""
    return compile_linear(pattern)


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
    if "product_of" in unnest:
        yield from _product(unnest, record, rel, pointer, problems)
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
            have = (f"has {len(column)} entries" if isinstance(column, list)
                    else "is missing" if column is None else f"is a {type(column).__name__}, not an array")
            problems.append(Problem("FAIL", "parallel-mismatch", f"{rel} {pointer}: {p} {have}, {unnest['array']} has {len(array)} entries", rel, pointer + p, name))
            column = None
        columns[name] = column
    inner = unnest.get("then")
    for i, element in enumerate(array):
        if inner is not None:  # an array inside each element, flattened: runs -> values, forks -> samples
            try:
                values = resolve(element, inner)
            except KeyError:
                values = None
            if values is None and unnest.get("then_optional"):
                continue  # an element stating no inner array holds no records (pyperf's calibration runs write only `warmups`)
            if not isinstance(values, list):
                problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: array {unnest['array']}/{i}{inner} is missing", rel, f"{pointer}{unnest['array']}/{i}", inner))
                continue
            for j, value in enumerate(values):
                yield f"{unnest['array']}/{i}{inner}/{j}", value, {}
            continue
        parallel = {name: col[i] for name, col in columns.items() if col is not None}
        yield f"{unnest['array']}/{i}", element, parallel


def _product(unnest: dict[str, Any], record: Any, rel: str, pointer: str, problems: list[Problem]) -> Iterable[tuple[str, Any, dict[str, Any]]]:
    """
    Yield `(element pointer, combination, parallel entries)` per combination of `unnest["product_of"]` (an array of
    arrays: asv's `params`), in `itertools.product` order (the last array varies fastest), the combination an array
    of its entries ([] for an empty `product_of`: one combination); each `parallel` array must hold one entry per
    combination. Records FAIL `missing-field` (no array of arrays) or `parallel-mismatch` (another length) and yields nothing.
    With `each` (a `parallel` name: asv's `samples`), each entry of that array's entry for a combination is one record,
    that parallel name then holding the entry; a combination whose entry is null or unstated holds no records, one that
    is no array is FAIL `missing-field`.
    """
    where = unnest["product_of"]
    try:
        axes = resolve(record, where)
    except KeyError:
        axes = None
    if not isinstance(axes, list) or not all(isinstance(axis, list) for axis in axes):
        problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: {where} is not an array of arrays", rel, pointer, where))
        return
    combinations = list(itertools.product(*axes))
    columns: dict[str, list[Any]] = {}
    for name, p in unnest.get("parallel", {}).items():
        try:
            column = resolve(record, p)
        except KeyError:
            continue  # an array this record does not state (asv leaves trailing columns out): a value mapped to it is missing
        if not isinstance(column, list) or len(column) != len(combinations):
            have = f"has {len(column)} entries" if isinstance(column, list) else f"is a {type(column).__name__}, not an array"
            problems.append(Problem("FAIL", "parallel-mismatch", f"{rel} {pointer}: {p} {have}, {where} has {len(combinations)} combinations", rel, pointer + p, name))
            return
        columns[name] = column
    each = unnest.get("each")
    for i, combination in enumerate(combinations):
        entries = {name: column[i] for name, column in columns.items()}
        if each is None:
            yield f"#combination={i}", list(combination), entries
            continue
        inner = entries.get(each)
        if inner is None:
            continue  # a combination stating no samples (null, or an array the record leaves out) holds no records
        if not isinstance(inner, list):
            problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: {unnest['parallel'][each]}/{i} is not an array", rel, pointer, each))
            continue
        for j, value in enumerate(inner):
            yield f"#combination={i}&{each}={j}", list(combination), {**entries, each: value}
