"""
Profiles: data files that map a foreign evidence bundle onto verify's checks.

A profile (`profiles/<id>.json`, validated by `schemas/profile.schema.json`
and pinned in `inventory.json` like a gate) says where a bundle keeps its
manifest, receipts, claims and gate, and how its fields map onto the
derivations the core already has. The vocabulary is closed: JSON Pointers,
globs, `{dimension}` placeholders and the statistics of `verifier.engine.stats.STATISTICS`;
nothing is evaluated. See `docs/profiles.md`.

This module loads and cross-checks profiles (`load_profile`, raising
`ConfigError` for a broken one, exit 2) and detects which profiles a
directory matches (`matches`, `candidates`). Reading receipts onto the evidence
model's `Receipt`s (`read_receipts`), selections and statistics (`derive`) and claim locations
live in `verifier.readers` (`read_receipts`, `RecordSource`, `derive_rule` and `Tree` are re-exported here). The
checks that turn these into findings are in `verifier.checks.profile`.
"""

from __future__ import annotations

import re
from typing import Any


from verifier.profiles import profile_lint


from verifier.engine import stats


from verifier.model import units
from verifier.schema.compiled_schema import checked_validator
from verifier.errors import ConfigError
from verifier.formats.jsonio import JSONProblem, schema_message
from verifier.formats.linear_regex import RegexError, compile_linear
from verifier.readers.pointers import PLACEHOLDER as _PLACEHOLDER
from verifier.readers.pointers import resolve
from verifier.readers.records import read_receipts
from verifier.readers.records import receipt_dims as _receipt_dims
from verifier.readers.records import value_units
from verifier.engine.derive import RECORD_STATISTICS, derive_rule, not_derivable
from verifier.readers.select import RecordSource, is_join
from verifier.readers.tree import Tree
from verifier.schema.validation import schema_validator

__all__ = ["DETECTION", "RecordSource", "Tree", "candidates", "derive_rule", "load_detection", "load_profile", "matches", "read_receipts"]


# ---------------------------------------------------------------- loading


def _paths(document: Any, origin: str) -> None:
    """Refuse a file name or glob of the profile (`file`, `glob`, `files`, `ignore`) with a `..` segment or an absolute start (`/`, `\\`, `C:`): it would name a file outside the folder read."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, list):
            stack += [(f"{where}/{i}", v) for i, v in enumerate(node)]
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            here = f"{where}/{key}"
            names = [(here, value)] if key in ("file", "glob") and isinstance(value, str) else \
                [(f"{here}/{i}", v) for i, v in enumerate(value) if isinstance(v, str)] if key in ("files", "ignore") and isinstance(value, list) else []
            for pointer, name in names:
                if ".." in name.replace("\\", "/").split("/"):
                    raise _refuse(origin, pointer, f"{name!r} has a '..' segment: a profile names files inside the folder it reads, never outside it")
                if name.startswith(("/", "\\")) or name[1:2] == ":":
                    raise _refuse(origin, pointer, f"{name!r} is an absolute path: a profile names files relative to the folder it reads, never outside it")
            stack.append((here, value))


def _schema_problem(first: Any, errors: list[Any]) -> str:
    """
    Return what is wrong at a schema error in words: for "one of these forms" (`oneOf` whose forms each lack a member) the
    members it could state and the unexpected member beside them (a misspelled `mni`), else the error's message with
    numbers as the profile wrote them (`jsonio.schema_message`), never a dump of the whole object.
    """
    if first.validator in ("oneOf", "anyOf") and first.context and all(c.validator == "required" for c in first.context):
        wanted = sorted({name for c in first.context for name in c.validator_value if isinstance(c.instance, dict) and name not in c.instance})
        said = f"it states none of {', '.join(f'`{n}`' for n in wanted)} (one of them is required)"
        stray = [e.message for e in errors if e.validator == "unevaluatedProperties" and list(e.absolute_path) == list(first.absolute_path)]
        return said + (f"; {stray[0]}" if stray else "")
    if first.validator == "pattern" and first.validator_value in PATTERN_SENTENCES and isinstance(first.instance, str):
        return PATTERN_SENTENCES[first.validator_value](first.instance)
    return schema_message(first)


def _relpath(text: str) -> str:
    if text.startswith("/"):
        return (f"{text!r} is an absolute path: a profile names files relative to the folder it reads, whatever its place "
                f"(write the part inside that folder, e.g. {'/'.join(text.split('/')[-2:])!r})")
    return f"{text!r} uses '\\' (a backslash): a profile writes every path separator as '/' (write {text.replace(chr(92), '/')!r})"


def _id(text: str) -> str:
    fixed = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("._-") or "id"
    return f"{text!r} is not an id: an id is letters, digits, '.', '_' and '-', starting with a letter or digit (write {fixed!r})"


def _decimal(text: str) -> str:
    fixed = re.sub(r"[^0-9.eE-]", "", text.replace(",", ".").strip().lstrip("+")) or "0.5"
    return f"{text!r} is not a decimal string: digits, an optional '.' and fraction, an optional exponent, no sign or separator (write \"{fixed}\")"


def _summed(text: str) -> str:
    return f"{text!r} is neither the name of a declared value nor #receipts (write a name under the set's `values`, or \"#receipts\" to count receipts)"


#: Each `pattern` of `schemas/profile.schema.json`, said in a sentence naming what to write instead (never the raw regex a
#: new author cannot read: `'/tmp/x/*.csv' does not match '^[^/\\\\][^\\\\]*$'`). A test keeps every pattern of the schema here.
PATTERN_SENTENCES = {
    "^(/[^/]*)*$": lambda text: f"{text!r} is not a JSON Pointer: it must start with '/' (write {'/' + text!r})",
    "^[^/\\\\][^\\\\]*$": _relpath,
    "^[A-Za-z0-9][A-Za-z0-9._-]*$": _id,
    "^[0-9]+(\\.[0-9]+)?([eE]-?[0-9]+)?$": _decimal,
    "^(#receipts|[A-Za-z0-9][A-Za-z0-9._-]*)$": _summed,
}


def _refuse(origin: str, pointer: str, message: str) -> ConfigError:
    """Return the one-line `ConfigError` for a broken profile: its file, the JSON Pointer of the offending place, what is wrong."""
    return ConfigError(f"{origin}: invalid profile at {pointer}: {message}")


def _units(document: dict[str, Any], origin: str) -> None:
    """Refuse every unit the registry (`verifier.model.units`) does not know, naming its JSON Pointer."""
    places: list[tuple[str, Any]] = []
    for rid, spec in document.get("receipts", {}).items():
        for section in ("fields", "values"):
            for name, mapping in spec.get(section, {}).items():
                places.append((f"/receipts/{rid}/{section}/{name}/unit", mapping.get("unit")))
                places += [(f"/receipts/{rid}/{section}/{name}/unit_from/one_of/{i}", u) for i, u in enumerate(mapping.get("unit_from", {}).get("one_of", []))]
    sources = document.get("bundle", {}).get("documents", {}).get("receipts", {}).get("sources", [])
    stack = [(f"/bundle/documents/receipts/sources/{i}/record/{k}", v) for i, s in enumerate(sources) if isinstance(s["record"], dict)
             for k, v in s["record"].items()]
    while stack:
        where, mapping = stack.pop()
        places += [(f"{where}/{key}", mapping[key]) for key in ("unit", "to") if key in mapping]
        stack += [(f"{where}/object/{k}", v) for k, v in mapping.get("object", {}).items()]
        stack += [(f"{where}/list/{i}", v) for i, v in enumerate(mapping.get("list", []))]
    for kind, items in (("claims", document.get("claims", [])), ("gate/rules", document.get("gate", {}).get("rules", []))):
        for index, item in enumerate(items):
            places.append((f"/{kind}/{index}/unit", item.get("unit")))
            places.extend((f"/{kind}/{index}/value_by_unit/{j}/unit", alt["unit"]) for j, alt in enumerate(item.get("value_by_unit", [])))
    for index, identity in enumerate(document.get("identities", [])):
        places.append((f"/identities/{index}/left/unit", identity["left"].get("unit")))
        places.extend((f"/identities/{index}/terms/{j}/unit", t.get("unit")) for j, t in enumerate(identity["terms"]))
    for pointer, unit in places:
        if unit is not None and not units.known(unit):
            raise _refuse(origin, pointer, f"unknown unit {units.shown(unit)} (see verifier/model/units.py: ms, s, MiB, tokens/s, %, x, ...)")


def _valid(document: Any, schema: dict[str, Any], origin: str) -> None:
    """Raise `ConfigError` naming `origin` and the JSON Pointer of the first schema error of profile `document` (or part of one)."""
    errors = list(checked_validator(schema, schema_validator(schema)).iter_errors(document))  # compiled speed on a valid profile
    # When a `$ref`'d part fails, `unevaluatedProperties` also complains about
    # every property that part would have evaluated: report the root cause.
    from jsonschema.exceptions import best_match

    first = best_match([e for e in errors if e.validator != "unevaluatedProperties"] or errors)
    if first is not None:
        where = "/" + "/".join(str(p) for p in first.absolute_path)
        raise ConfigError(f"{origin}: invalid profile at {where}: {_schema_problem(first, errors)}")


#: The members of a profile that detection reads (`matches`, `verifier.profiles.folders.not_one_bundle`, discovery's look-alikes).
DETECTION = ("id", "detect", "non_finite")


def load_detection(document: dict[str, Any], schema: dict[str, Any], *, origin: str = "<profile>") -> dict[str, Any]:
    """
    Return the members `DETECTION` of profile `document` (a new dict), after they hold under the profile `schema`.

    What detection runs on: choosing a profile asks every pinned profile's
    `detect`, and validating all 15 shipped profiles whole took 1.0 s of a
    2.1 s MLPerf run (`benchmarks/README.md`, "Profile detection").
    The members are validated against the profile schema's own definitions
    of them (`properties` and `$defs`, so one schema says what a profile is),
    and their file names as `load_profile` refuses them (no `..` segment, no
    absolute path: detection reads the files they name). The whole profile is
    validated by `load_profile` when a run uses it. Raises `ConfigError`
    naming `origin` and the JSON Pointer of the offending place.
    """
    part = {k: document[k] for k in DETECTION if k in document}
    only = {"$schema": schema.get("$schema"), "type": "object", "required": ["id", "detect"],
            "properties": {k: schema["properties"][k] for k in DETECTION}, "$defs": schema.get("$defs", {})}
    _valid(part, only, origin)
    _paths(part, origin)
    return part


def load_profile(document: Any, schema: dict[str, Any], *, origin: str = "<profile>") -> dict[str, Any]:
    """
    Return `document` as a usable profile after its schema and cross-references hold.

    Beyond the schema: every unit is one of the unit registry's; every claim,
    identity and gate rule names a receipt set the profile defines; every
    `selection` and `per` key is a dimension of that set; the value a
    statistic runs over exists and a claim's unit is of that value's
    dimension; every `{placeholder}` in a claim location is one of the
    claim's `per` dimensions (optionally `.index`); every `{name}` in a
    receipt file-name template is a field mapped `from_name`; `text`
    receipts name their line grammars; a statistic's unit is of the dimension
    of its result (`_check_result_unit`); and the authoring checks of
    `verifier.profiles.profile_lint` hold (pointer syntax, escapes, `where` keys,
    templates), after it wrote each `where` key in the form its reader reads
    (`profile_lint.normalise`, in place). Raises `ConfigError` naming `origin`
    and the JSON Pointer of the offending place otherwise (exit 2: a broken
    profile is a configuration error, never a finding).
    """
    _valid(document, schema, origin)
    profile_lint.normalise(document, origin)
    _units(document, origin)
    _paths(document, origin)
    profile_lint.lint(document, origin)
    receipts = document.get("receipts", {})  # a profile with a `bundle` section may map no receipt sets of its own
    for rid, spec in receipts.items():
        here = f"/receipts/{rid}"
        names = set(_PLACEHOLDER.findall(spec.get("name", "")))
        from_name = {v["from_name"] for v in [*spec["fields"].values(), *spec.get("dimensions", {}).values()] if "from_name" in v}
        if from_name - names:
            raise _refuse(origin, f"{here}/name", f"fields taken from the file name {sorted(from_name - names)} are not in its name template {spec.get('name')!r}")
        for name, pattern in spec.get("name_patterns", {}).items():
            if name not in names:
                raise _refuse(origin, f"{here}/name_patterns/{name}", f"{name!r} is not a placeholder of the name template {spec.get('name')!r}")
            try:
                compile_linear(pattern)  # RE2, as the reader matches it: linear time, so no backreferences or lookarounds
            except RegexError as exc:
                raise _refuse(origin, f"{here}/name_patterns/{name}", f"{pattern!r} is not a regular expression RE2 accepts ({exc}; no backreferences or lookarounds)") from None
        for ptr, wanted in (spec.get("where") or {}).items():
            if isinstance(wanted, dict) and "matches" in wanted:
                try:
                    compile_linear(wanted["matches"])
                except RegexError as exc:
                    raise _refuse(origin, f"{here}/where/{ptr.replace('~', '~0').replace('/', '~1')}/matches",
                                  f"{wanted['matches']!r} is not a regular expression RE2 accepts ({exc}; no backreferences or lookarounds)") from None
        if isinstance(spec.get("records"), dict) and spec["encoding"] not in ("json", "text"):  # text: the one record's members (bench lines)
            raise _refuse(origin, f"{here}/records", f"`members_of` takes the members of a JSON object (or of a text file's record) as records; "
                          f"encoding {spec['encoding']!r} has none")
        parallel = set(spec.get("unnest", {}).get("parallel", {}))
        if "each" in spec.get("unnest", {}) and spec["unnest"]["each"] not in parallel:
            raise _refuse(origin, f"{here}/unnest/each", f"{spec['unnest']['each']!r} is not declared in `unnest.parallel`")
        for name, mapping in spec.get("values", {}).items():
            if "record" in mapping:
                raise _refuse(origin, f"{here}/values/{name}", "`record` (the record's index in its file) is a dimension, not a value: map it under `dimensions`")
        for section in ("fields", "dimensions"):
            for name, mapping in spec.get(section, {}).items():
                if "element" in mapping and "unnest" not in spec:
                    raise _refuse(origin, f"{here}/{section}/{name}", "`element` needs an `unnest`")
                if "parallel" in mapping and mapping["parallel"] not in parallel:
                    raise _refuse(origin, f"{here}/{section}/{name}", f"parallel array {mapping['parallel']!r} is not declared in `unnest.parallel`")
        if "outcome" in spec["fields"] and "ok_outcomes" not in spec:
            raise _refuse(origin, f"{here}/fields/outcome", "`outcome` is mapped but `ok_outcomes` does not say which outcomes are successes")
        for dim in spec.get("no_overlap", []):
            if dim not in _receipt_dims(spec):
                raise _refuse(origin, f"{here}/no_overlap", f"{dim!r} is not a dimension of this receipt set")
        if "no_overlap" in spec and "start" not in spec["fields"]:
            raise _refuse(origin, f"{here}/no_overlap", "needs `start` and `end` clock fields")
        if spec["encoding"] == "text" and "lines" not in spec:
            raise _refuse(origin, here, "a `text` receipt set must name its line grammars in `lines`")
        if "prefixed-json" in spec.get("lines", []) and "prefix" not in spec:
            raise _refuse(origin, f"{here}/lines", "`prefixed-json` lines need a `prefix`")
    for kind in ("claims", "gate/rules"):
        items = document.get("claims", []) if kind == "claims" else document.get("gate", {}).get("rules", [])
        if refused := not_derivable(items, RECORD_STATISTICS, "a profile's receipts"):
            raise _refuse(origin, f"/{kind}/{refused[0]}/statistic", refused[1])
        for index, item in enumerate(items):
            where = f"/{kind}/{index}"
            _check_derivation(origin, where, item, receipts)
            if kind == "claims" and "pick" in item and len(item.get("per", [])) != 1:
                raise _refuse(origin, f"{where}/per", "a `pick` claim ranks the instances of exactly one `per` dimension")
            if kind == "claims":
                if "value_by_unit" in item:
                    _check_value_by_unit(origin, where, item, value_units(receipts[item["receipts"]]))
                allowed = set(item.get("per", [])) if "pick" not in item else set()
                for part in ("minus", "times"):
                    if part in item and ("pick" in item or item["statistic"] not in VALUE_STATISTICS):
                        raise _refuse(origin, f"{where}/{part}", f"`{part}` (a stated target or factor) needs a statistic of a value in its unit "
                                      f"({', '.join(VALUE_STATISTICS)}), not {'a pick' if 'pick' in item else item['statistic']}")
                for part in ("at", "minus", "times"):
                    at = item.get(part, {}).get("at") if part == "times" else item.get(part)
                    if at is None:
                        continue
                    text = " ".join([at["file"], at["pointer"], at.get("then", ""), *[v for v in at.get("where", {}).values() if isinstance(v, str)]])
                    for name in _PLACEHOLDER.findall(text):
                        base = name.removesuffix(".index")
                        if base not in allowed:
                            raise _refuse(origin, f"{where}/{part}", f"location placeholder {{{name}}} is not one of its `per` dimensions {sorted(allowed)}")
            elif any(is_join(v) for v in item["selection"].values()):
                raise _refuse(origin, f"{where}/selection", "a gate rule cannot select through a join; judge the joined statistic as a claim")
            elif "recorded" in item and (bad := _foreign_placeholder(item["recorded"], set(item.get("per", [])))):
                raise _refuse(origin, f"{where}/recorded", f"location placeholder {{{bad}}} is not one of its `per` dimensions {sorted(item.get('per', []))}")
            elif "bounds_at" in item:
                for dim in item["bounds_at"].get("required_for", {}):
                    if dim not in item.get("per", []):
                        raise _refuse(origin, f"{where}/bounds_at/required_for/{dim}", f"{dim!r} is not one of the rule's `per` dimensions {item.get('per', [])}")
            elif "below_baseline" in item:
                if "arm" not in _receipt_dims(receipts[item["receipts"]]):
                    raise _refuse(origin, f"{where}/below_baseline", "`below_baseline` compares arms, but the receipt set maps no `arm`")
                if "arm" in item.get("per", []) or "arm" in item["selection"]:
                    raise _refuse(origin, f"{where}/below_baseline", "`below_baseline` compares arms; `arm` cannot also be in `per` or `selection`")
    for index, entry in enumerate(document.get("matches", [])):
        _check_match(origin, f"/matches/{index}", entry, receipts)
    for pointer, at in _locations(document):
        for member, value in at.get("where", {}).items():
            if isinstance(value, list) and (text := next((t for t in value if _PLACEHOLDER.search(t)), None)):
                raise _refuse(origin, f"{pointer}/where/{member.replace('~', '~0').replace('/', '~1')}",
                              f"{text!r}: a list of alternatives is literal text, matched as written; a placeholder is written as the member's one value")
        for member in at.get("fold_case", []):
            if member not in at.get("where", {}):
                raise _refuse(origin, f"{pointer}/fold_case", f"{member!r} is not a member its `where` compares ({sorted(at.get('where', {}))})")
    for index, claim in enumerate(document.get("claims", [])):
        if "outcomes" in claim["at"]:
            raise _refuse(origin, f"/claims/{index}/at/outcomes", "`outcomes` words belong to gate.recorded (and matches); a claim states a number")
    for index, identity in enumerate(document.get("identities", [])):
        sets = identity["receipts"] if isinstance(identity["receipts"], list) else [identity["receipts"]]
        for rid in sets:
            if rid not in receipts:
                raise _refuse(origin, f"/identities/{index}/receipts", f"unknown receipt set {rid!r}")
        if identity["op"] == "percentage":  # 100 x part / whole: the left side is a percentage, the part and whole are counts
            if identity["left"].get("unit") != "%":
                raise _refuse(origin, f"/identities/{index}/left/unit", "a percentage identity states its left side in %")
            for j, term in enumerate(identity["terms"]):
                if term.get("unit", "1") != "1":
                    raise _refuse(origin, f"/identities/{index}/terms/{j}/unit", "the part and whole of a percentage are counts (unit 1)")
    return document  # type: ignore[no-any-return]


def _locations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Return `(profile pointer, location)` of every place the profile says a bundle states something (claims' `at` and `minus`, gate `recorded`)."""
    found = [(f"/claims/{i}/{part}", c[part]) for i, c in enumerate(document.get("claims", [])) for part in ("at", "minus") if part in c]
    gate = document.get("gate") or {}
    found += [(f"/gate/rules/{i}/recorded", r["recorded"]) for i, r in enumerate(gate.get("rules", [])) if "recorded" in r]
    if "recorded" in gate:
        found.append(("/gate/recorded", gate["recorded"]))
    return found


def _foreign_placeholder(at: dict[str, Any], allowed: set[str]) -> str | None:
    """Return the first `{dim}` / `{dim.index}` placeholder of location `at` whose dimension is not in `allowed`, or None."""
    text = " ".join([at["file"], at["pointer"], at.get("then", ""), *[v for v in at.get("where", {}).values() if isinstance(v, str)]])
    return next((name for name in _PLACEHOLDER.findall(text) if name.removesuffix(".index") not in allowed), None)


#: Statistics in their values' unit, regression slopes, statistics comparing two arms: `verifier.engine.stats`'s lists.
VALUE_STATISTICS, SLOPE_STATISTICS, ARM_STATISTICS = stats.VALUE_STATISTICS, stats.SLOPE_STATISTICS, stats.TWO_ARM_STATISTICS


def _check_derivation(origin: str, where: str, item: dict[str, Any], receipts: dict[str, Any]) -> None:
    rid = item["receipts"]
    if rid not in receipts:
        raise _refuse(origin, f"{where}/receipts", f"unknown receipt set {rid!r}; defined: {sorted(receipts)}")
    spec = receipts[rid]
    dims = _receipt_dims(spec)
    # A rule that is evaluated on a subset it never declared is the fault this
    # prevents: every selection and per key must be a dimension we can read.
    for section in ("selection", "per"):
        for key in item.get(section, []):
            if key not in dims:
                raise _refuse(origin, f"{where}/{section}", f"{key!r} is not a dimension of receipt set {rid!r} (dimensions: {sorted(dims)})")
    for key, value in item["selection"].items():
        if is_join(value):
            if value["receipts"] not in receipts:
                raise _refuse(origin, f"{where}/selection/{key}/receipts", f"unknown receipt set {value['receipts']!r}")
            for dim in value["on"]:
                if dim not in item.get("per", []):
                    raise _refuse(origin, f"{where}/selection/{key}/on", f"joins on {dim!r}, which is not one of the rule's `per` dimensions")
    numeric = value_units(spec)
    if item["statistic"] == "ratio_of_sums":
        _check_ratio_of_sums(origin, where, item, rid, numeric)
        return
    if item["statistic"] in SLOPE_STATISTICS:  # y per x: the unit is of the dimension value / x
        _check_ratio_of_sums(origin, where, {**item, "numerator": item["value"], "denominator": item["x"]}, rid, numeric, slope=True)
    if "x" in item and item["x"] not in numeric:
        raise _refuse(origin, f"{where}/x", f"x {item['x']!r} is not a value of receipt set {rid!r} (values: {sorted(numeric)})")
    name = item.get("value", "latency")
    if "value" in item and item["value"] not in spec.get("values", {}):
        raise _refuse(origin, f"{where}/value", f"value {item['value']!r} is not declared in receipts.{rid}.values")
    if item["statistic"] == "count_ok" and "outcome" not in spec["fields"]:
        raise _refuse(origin, f"{where}/statistic", f"count_ok counts the receipts whose `outcome` is in `ok_outcomes`, but receipt set {rid!r} maps no `outcome`; "
                      "map `fields.outcome` and `ok_outcomes`, or count every receipt with `count`")
    if item["statistic"] not in stats.COUNT_RESULTS and name not in numeric:
        raise _refuse(origin, where, f"{item['statistic']} needs a `value` (receipt set {rid!r} maps no latency); declared values: {sorted(numeric)}")
    if item["statistic"] in VALUE_STATISTICS and "unit" in item and name in numeric:
        stated, have = units.parse(item["unit"]), units.parse(numeric[name]["unit"])
        if not stated.compatible(have):
            raise _refuse(origin, f"{where}/unit", f"unit {item['unit']!r} ({stated.dimension}) is not of the dimension of {name} ({numeric[name]['unit']}, {have.dimension})")
    if "unit" in item:
        _check_result_unit(origin, where, item["statistic"], item["unit"])
    if item["statistic"] in ARM_STATISTICS and "arm" not in dims:
        raise _refuse(origin, where, f"{item['statistic']} compares arms, but receipt set {rid!r} maps no `arm`")
    if item["statistic"] == "mean_of_server_means" and "server" not in dims:
        raise _refuse(origin, where, f"mean_of_server_means needs a `server` field in receipt set {rid!r}")


def _check_value_by_unit(origin: str, where: str, item: dict[str, Any], numeric: dict[str, dict[str, Any]]) -> None:
    """
    Refuse a claim's `value_by_unit` that cannot choose one value by the stated unit's dimension.

    It needs a statistic of a value (`VALUE_STATISTICS`) with its own `unit`,
    no `pick`; each alternative a declared value, its `unit` of that value's
    dimension, and a dimension neither the claim's own unit nor another
    alternative has (else two values would answer the same stated unit).
    """
    if "pick" in item or item["statistic"] not in VALUE_STATISTICS or "unit" not in item:
        raise _refuse(origin, f"{where}/value_by_unit", f"`value_by_unit` chooses the value of a statistic in its unit ({', '.join(VALUE_STATISTICS)}) "
                      "with the claim's own `unit`, not a pick, a count or a ratio")
    taken = {units.parse(item["unit"]).dimension: "the claim's own unit"}
    for k, alt in enumerate(item["value_by_unit"]):
        here = f"{where}/value_by_unit/{k}"
        if alt["value"] not in numeric:
            raise _refuse(origin, f"{here}/value", f"{alt['value']!r} is not a declared value of receipt set {item['receipts']!r} (values: {sorted(numeric)})")
        stated, have = units.parse(alt["unit"]), units.parse(numeric[alt["value"]]["unit"])
        if not stated.compatible(have):
            raise _refuse(origin, f"{here}/unit", f"unit {alt['unit']!r} ({stated.dimension}) is not of the dimension of {alt['value']} ({have.dimension})")
        if stated.dimension in taken:
            raise _refuse(origin, f"{here}/unit", f"unit {alt['unit']!r} ({stated.dimension}) is of the dimension of {taken[stated.dimension]}: "
                          "a stated unit must name one value; give each alternative a unit of its own dimension")
        taken[stated.dimension] = f"alternative {k}"


def _check_result_unit(origin: str, where: str, statistic: str, unit: str) -> None:
    """
    Refuse a unit of another dimension than the result of `statistic`: a ratio (`stats.RATIO_RESULTS`) or a percentage
    (`stats.PERCENT_RESULTS`) is a pure number, written `1`, `x` or `%` with the factor applied (`units.pure_scale`: a
    speedup of 1.2 in `%` is 120); a count is a number of receipts (`COUNT_DIMENSIONS`). A value's statistic is checked
    against the value's unit by `_check_derivation`.
    """
    have = units.parse(unit).dimension
    if statistic in stats.RATIO_RESULTS and have not in units.PURE:
        instead = "`1`, `x` or `%` (a ratio of 1.2 is stated 1.2 in `1` or `x`, 120 in `%`)"
    elif statistic in stats.PERCENT_RESULTS and have not in units.PURE:
        instead = "`%` (or `1` for the fraction: 20 % is 0.2 in `1`)"
    elif statistic in stats.COUNT_RESULTS and have not in COUNT_DIMENSIONS:
        instead = "`1` or a unit of counts (`count`, `requests`, `samples`, `frames`), or no unit"
    else:
        return
    raise _refuse(origin, f"{where}/unit", f"unit {unit!r} ({have}) is not a unit of what {statistic} gives; write {instead}")


#: Dimensions a count of receipts (`#receipts` in a `ratio_of_sums`) may be stated in: decisions/s, requests/s, samples/s, tokens per request.
COUNT_DIMENSIONS = ("count", "requests", "samples", "frames", "dimensionless")


def _check_ratio_of_sums(origin: str, where: str, item: dict[str, Any], rid: str, numeric: dict[str, dict[str, Any]], slope: bool = False) -> None:
    """Refuse a `ratio_of_sums` (or with `slope`, a regression slope: value per x) whose parts are not declared values (or `#receipts`), or whose unit is not of the dimension numerator / denominator."""
    if "value" in item and not slope:
        raise _refuse(origin, f"{where}/value", "a ratio_of_sums names `numerator` and `denominator`, not `value`")
    stated = units.parse(item["unit"])
    s_num, _, s_den = stated.dimension.partition("/")
    for part, have in (("numerator", s_num), ("denominator", s_den)):
        name = item[part]
        if name == "#receipts":
            ok = have in COUNT_DIMENSIONS or (part == "denominator" and not have)  # tokens per receipt may be stated in tokens
        elif name not in numeric:
            raise _refuse(origin, f"{where}/{part}", f"{name!r} is not a value of receipt set {rid!r} (values: {sorted(numeric)}, or #receipts)")
        else:
            ok = units.parse(numeric[name]["unit"]).dimension == have
        if not ok:
            raise _refuse(origin, f"{where}/unit", f"unit {item['unit']!r} ({stated.dimension}) is not of the dimension of {item['numerator']} / {item['denominator']}")


def _check_match(origin: str, where: str, entry: dict[str, Any], receipts: dict[str, Any]) -> None:
    """Refuse a `matches` entry naming an unknown receipt set, selecting or joining on a dimension its sets lack."""
    if entry["receipts"] not in receipts:
        raise _refuse(origin, f"{where}/receipts", f"unknown receipt set {entry['receipts']!r}; defined: {sorted(receipts)}")
    for dim in entry.get("selection", {}):
        if dim not in _receipt_dims(receipts[entry["receipts"]]):
            raise _refuse(origin, f"{where}/selection/{dim}",
                          f"{dim!r} is not a dimension of receipt set {entry['receipts']!r} (dimensions: {sorted(_receipt_dims(receipts[entry['receipts']]))})")
    other = entry["equals"].get("receipts")
    if other is None:
        return
    if other not in receipts:
        raise _refuse(origin, f"{where}/equals/receipts", f"unknown receipt set {other!r}; defined: {sorted(receipts)}")
    for dim in entry["equals"]["on"]:
        for rid in (entry["receipts"], other):
            if dim not in _receipt_dims(receipts[rid]):
                raise _refuse(origin, f"{where}/equals/on", f"{dim!r} is not a dimension of receipt set {rid!r} (dimensions: {sorted(_receipt_dims(receipts[rid]))})")


# ---------------------------------------------------------------- detection


def matches(profile: dict[str, Any], tree: Tree) -> bool:
    """Return whether `tree` satisfies every detection rule of `profile` (files exist, pointers resolve)."""
    detect = profile["detect"]
    if profile.get("non_finite") == "text" and not tree.non_finite:  # its files read with bare NaN/Infinity as text, as its run will
        tree = Tree(root=tree.root, only=tree.only, blocked=tree.blocked, non_finite=True, _cache=tree._cache)  # one walk of the folder for both
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
