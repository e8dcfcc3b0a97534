"""Receipt sets read as a profile maps them: the evidence model's `Receipt`s (`verifier.model.evidence`), and the `Problem`s met while reading."""

from __future__ import annotations

import dataclasses
import functools
import re
from decimal import Decimal
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.model.evidence import Location, Quantity, Receipt
from verifier.readers.grammars import GrammarError, parse
from verifier.formats.textnumbers import quantity
from verifier.formats.linear_regex import compile_linear
from verifier.formats.jsonio import JSONProblem, in_binary64, shown_literal
from verifier.readers.pointers import PLACEHOLDER, dim_text, resolve, to_decimal
from verifier.readers.problems import Problem
from verifier.readers.tree import Tree
from verifier.readers.unnest import unnest_elements

__all__ = ["CLOCKS", "NEVER_STATED", "PHASES", "STANDARD_DIMENSIONS", "UNITS", "Problem", "members_near", "read_receipts", "stated_nowhere", "receipt_dims", "unit_scale", "value_units"]



@functools.lru_cache(maxsize=1024)
def unit_scale(symbol: str) -> Decimal:
    """
    Return the exact factor from unit `symbol` to the base unit of its dimension (`verifier.model.units`): "ms" -> 0.001, "MiB" -> 1048576.

    Receipt values are stored in base units (seconds, bytes, tokens/s, ...),
    so a claim in any unit of the same dimension converts exactly. Raises
    `verifier.model.units.UnitError` for a unit the registry does not know (profiles
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


@functools.lru_cache(maxsize=256)
def _name_regex(template: str, spans: frozenset[str] = frozenset(), patterns: tuple[tuple[str, str], ...] = ()) -> Any:
    """
    Return the compiled regex of a file-name template, built once per template: `{arm}` -> a named group within one
    path component, or across directories for a placeholder in `spans` (a dimension mapped `"spans_directories": true`:
    criterion's `{bench}/new/sample.json`, where a benchmark id `group/function/param` is three directories), or
    the receipt set's `name_patterns` regex for that placeholder (`patterns`: sorted `(placeholder, regex)` pairs;
    lm-eval's `samples_{task}_{ts}.jsonl` with `ts` a timestamp pattern, so `{task}` keeps its `_`s).
    Matched by RE2 (`verifier.formats.linear_regex`), in time linear in the path. Raises `RegexError` for a pattern RE2 refuses
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
    """Return the `(location, record)` pairs of `rel` read with its grammar (`verifier.readers.grammars`); raises `GrammarError` or `OSError`."""
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
    dim_getters = [(name, mapping, functools.partial(_map, mapping)) for name, mapping in dims_spec.items()]
    # per value, read once per set (every unit was parsed above): whether it may be absent, its scale to the base unit, whether it is a time
    value_getters = [(name, mapping, functools.partial(_map, mapping), bool(mapping.get("optional")), unit_scale(mapping["unit"]),
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
            unnested = list(unnest_elements(spec, record, rel, pointer, problems)) if nested else [("", None, {})]  # without an `unnest`: the record itself
            if nested and not unnested and len(problems) > before:
                records.append(_stand_in(rid, spec, rel, f"{pointer}: {problems[-1].message}", "incomplete-denominator", pointer=pointer, record=record))
            for element_pointer, element, parallel in unnested:
                where = pointer + element_pointer
                dims, values, unknown, ok = {"file": rel}, {}, set(), True
                for name, mapping, get in dim_getters:
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
    return (*_never_stated(rid, spec, records, problems), files)


#: The code of the one finding of a mapped field missing on every record of its set: the profile's fault (a misspelled
#: pointer), UNVERIFIED, instead of one FAIL `missing-field` per record.
NEVER_STATED = "mapping-matches-nothing"
#: The per-record arithmetic a value mapping may declare, each reading a second member of the record at its `pointer`.
COMPUTED = ("divide_by", "subtract", "unit_from")


def members_near(record: Any, pointer: str, limit: int = 12) -> str:
    """
    Return the members `record` does have where `pointer` leads ("/timeStamp, /elapsed, ..."): those of the deepest
    object or array on its path, as pointers, at most `limit` (a reader of "pointer '/elapsd' matches no record" sees
    the member meant). "" when `record` has none there.
    """
    tokens = pointer[1:].split("/") if pointer else []
    node, prefix = record, ""
    for token in tokens[:-1]:
        try:
            node = resolve(node, "/" + token)
        except KeyError:
            break
        prefix += "/" + token
    if isinstance(node, dict):
        names = [prefix + "/" + str(k).replace("~", "~0").replace("/", "~1") for k in node]
    elif isinstance(node, list):
        names = [f"{prefix}/{i}" for i in range(len(node))]
    else:
        return ""
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def stated_nowhere(spec: dict[str, Any], read: list[Receipt]) -> list[tuple[str, str, str]]:
    """
    Return `(where, name, pointer)` for each pointer of receipt set `spec` (a field, dimension or value `pointer`, an
    `unnest.parallel` array, the `pointer` of a value's `divide_by`, `subtract` or `unit_from`: `values/per_op/divide_by`,
    read from the record an unnested element came from) that no record of `read` has (the member absent, not null): a misspelled member (`/elapsd`,
    `/metadata/packge_name`). `where` is the mapping's place in the set (`fields/latency`, `unnest/parallel/loop`),
    `name` the mapped field (for a parallel array, each value read from it). An `optional` or `absent` mapping may be
    missing everywhere and is left out. [] when `read` is empty. `verify profile check` names each; `read_receipts`
    folds their FAIL `missing-field` findings into one `mapping-matches-nothing`.
    """
    if not read:
        return []
    places = [(f"{section}/{name}", name, m["pointer"]) for section in ("fields", "dimensions", "values") for name, m in spec.get(section, {}).items()
              if "pointer" in m and not m.get("optional") and "absent" not in m]
    parallel = spec.get("unnest", {}).get("parallel", {})
    places += [(f"unnest/parallel/{array}", name, parallel[m["parallel"]]) for name, m in spec.get("values", {}).items()
               if m.get("parallel") in parallel and not m.get("optional") for array in [m["parallel"]]]
    places += [(f"{section}/{name}/{computed}", name, m[computed]["pointer"]) for section in ("fields", "values") for name, m in spec.get(section, {}).items()
               for computed in COMPUTED if isinstance(m.get(computed), dict) and "pointer" in m[computed] and not m.get("optional") and "absent" not in m]
    raws = list({id(r.raw): r.raw for r in read}.values())  # an unnested record's elements share one raw record
    out = []
    for where, name, pointer in places:
        for raw in raws:
            try:
                resolve(raw, pointer)
                break
            except KeyError:
                continue
        else:
            out.append((where, name, pointer))
    return out


def _never_stated(rid: str, spec: dict[str, Any], records: list[Receipt], problems: list[Problem]) -> tuple[list[Receipt], list[Problem]]:
    """
    Return `(records, problems)` with each mapped field whose member no record of the set has (`stated_nowhere`), in a
    set of two records or more, folded into one UNVERIFIED `mapping-matches-nothing` problem naming its pointer and
    the members the records have there.

    A field missing on some records is evidence (FAIL `missing-field` each, kept); one no record states is a profile
    that maps a member this set never has (`/elapsd` for `/elapsed`, a parallel array misspelled): not evidence against
    any claim. (A set of one record cannot tell the two apart: its FAIL stays.) Its value is then left out of every
    receipt's `quantities` (as an `optional` value not stated), so a statistic over it is UNVERIFIED `value-absent`,
    never FAIL; for a dimension, what any selection takes is unknown, so every receipt of the set becomes a stand-in
    (`Receipt.unread`, its `raw` kept) and every statistic over them is UNVERIFIED `incomplete-denominator`.
    """
    read = [r for r in records if r.unread is None]
    nowhere = stated_nowhere(spec, read) if len(read) > 1 else []
    never = {name: pointer for _where, name, pointer in nowhere}
    reads = {name: where.rpartition("/")[2] for where, name, _pointer in nowhere if where.rpartition("/")[2] in COMPUTED}  # a divisor, ... misspelled
    if not never:
        return records, problems
    mappings = {**spec["fields"], **spec.get("dimensions", {}), **spec.get("values", {})}
    kept = [p for p in problems if not (p.field in never and (p.code == "missing-field" or (p.code == "parallel-mismatch" and "is missing" in p.message)))]
    files = sorted({r.path for r in read})
    for name, pointer in never.items():
        mapping = mappings[name]
        seen = members_near(read[0].raw, pointer)
        kept.append(Problem("UNVERIFIED", NEVER_STATED,
                            f"receipts.{rid}: {f'the {reads[name]} pointer {pointer!r} of ' if name in reads else ''}mapped field {name} "
                            f"({_describe(mapping)}{f', {pointer!r}' if 'parallel' in mapping else ''}) is missing on every one of "
                            f"its {len(read)} records ({len(files)} file{'s' if len(files) != 1 else ''}): the profile maps a member no record of the set states "
                            f"(a misspelled pointer?), so it is not evidence against any claim" + (f"; members seen there: {seen}" if seen else ""),
                            files[0], pointer, name))
    values = set(never) & set(value_units(spec))
    if values:
        records = [dataclasses.replace(r, quantities={k: v for k, v in r.quantities.items() if k not in values}) if r.unread is None else r for r in records]
    dims = [name for name in never if name not in values and name not in ("outcome", "request_id")]
    if dims:  # what any selection of the set takes is unknown: every statistic over it UNVERIFIED, never FAIL (the record is kept, `raw` with it)
        why = f"its {dims[0]} ({_describe(mappings[dims[0]])}) matches no record of receipts.{rid}, so what a selection takes is unknown"
        records = [dataclasses.replace(r, unread=why, unread_code="incomplete-denominator") if r.unread is None else r for r in records]
    return records, kept


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
