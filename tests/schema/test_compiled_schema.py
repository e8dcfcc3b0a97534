"""
The compiled schema pre-filter (`verifier.schema.compiled_schema`) decides exactly as the reference `jsonschema` does (issue 40).

A differential test over every shipped schema the pre-filter admits and
hundreds of variants of the example's documents (each leaf replaced by a
hostile value: `Decimal` integers, a trailing newline, a leap second, year
0, wrong types, missing and extra members), plus one test per place where the
two validators differ by themselves (formats, `integer`, `$` in patterns),
each red without its adjustment in `compiled_copy`/`_compile`.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE

from verifier.formats.bundle import DOCUMENTS
from verifier.schema.compiled_schema import checked_validator, compiled_copy, rust_pattern
from verifier.formats.jsonio import loads_strict, loads_strict_lines
from verifier.schema.validation import DRAFT_2020_12, filled, schema_validator

SCHEMAS = Path(__file__).resolve().parent.parent.parent / "schemas"
GOOD = {kind: (loads_strict_lines if lines else loads_strict)((EXAMPLE / name).read_bytes())
        for kind, (name, _schema, lines, _required) in DOCUMENTS.items() if (EXAMPLE / name).exists()}
GOOD["plan_requests"] = GOOD["plan"]["requests"]  # the lines of a plan's shard: the example plan's own requests
HOSTILE = [Decimal("1.0"), Decimal("1E+2"), Decimal("0.5"), Decimal("-1"), 0, -1, 10**300, True, None, "", "abc\n", "a b",
           "2026-01-01T23:59:60Z", "0000-01-01T00:00:00Z", "2026-01-01t00:00:00z", "http://a b", "A1\n", [], {}]


def _shipped(name: str) -> Any:
    """Return shipped schema `name` as the verifier reads it (its `x-verify-enum` lists filled)."""
    return filled(json.loads((SCHEMAS / f"{name}.schema.json").read_text()))


def _checked(name: str) -> Any:
    schema = _shipped(name)
    return checked_validator(schema, schema_validator(schema))


def _variants(value: Any) -> list[Any]:
    """Return `value` with, in turn, each leaf replaced by each hostile value, and each member removed or doubled."""
    out: list[Any] = []

    def walk(node: Any, path: list[Any]) -> None:
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for key, child in items:
            here = [*path, key]
            if isinstance(child, (dict, list)):
                walk(child, here)
            for bad in HOSTILE:
                out.append(_replace(value, here, bad))
            if isinstance(node, dict):
                out.append(_replace(value, here, _DELETE))
        if isinstance(node, dict):
            out.append(_replace(value, [*path, "x-extra"], 1))

    walk(value, [])
    return out


_DELETE = object()


def _replace(value: Any, path: list[Any], new: Any) -> Any:
    result = copy.deepcopy(value)
    node = result
    for key in path[:-1]:
        node = node[key]
    if new is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return result


@pytest.mark.parametrize("kind", sorted(DOCUMENTS))
def test_compiled_and_reference_agree_on_every_variant_of_the_example(kind: str) -> None:
    checked = _checked(DOCUMENTS[kind][1])
    assert checked.compiled is not None, f"{kind}: the shipped schema should run compiled"
    samples = GOOD[kind][:3] + [r for r in GOOD[kind] if r.get("kind") == "worker"][:1] if DOCUMENTS[kind][2] else [GOOD[kind]]
    instances = [v for s in samples for v in [s, *_variants(s)]]
    assert len(instances) > 100
    differ = [i for i in instances if checked.compiled.is_valid(i) != checked.reference.is_valid(i)]
    assert not differ, f"{len(differ)} of {len(instances)} differ, first: {differ[0]!r}"
    assert sum(not checked.reference.is_valid(i) for i in instances) > 50  # the variants do reach the invalid side


def _one(schema: dict[str, Any]) -> Any:
    schema = {"$schema": DRAFT_2020_12, **schema}
    return checked_validator(schema, schema_validator(schema))


def test_a_leap_second_is_judged_by_the_reference_date_time_checker() -> None:
    """jsonschema-rs's own `date-time` accepts 23:59:60 and year 0; the reference's checker does not."""
    receipt = dict(GOOD["receipts"][0], started_at="2026-01-01T23:59:60Z")
    checked = _checked("receipt")
    assert [e.message for e in checked.iter_errors(receipt)] == [e.message for e in checked.reference.iter_errors(receipt)]
    assert list(checked.iter_errors(receipt)), "the leap second must be a schema violation, as before"
    assert not _one({"format": "date-time"}).compiled.is_valid("0000-01-01T00:00:00Z")


def test_a_decimal_is_no_integer_as_in_the_reference() -> None:
    worker = next(r for r in GOOD["receipts"] if r.get("kind") == "worker") if any(
        r.get("kind") == "worker" for r in GOOD["receipts"]) else None
    checked = _one({"type": "object", "properties": {"pid": {"type": ["integer", "null"]}}})
    assert not checked.compiled.is_valid({"pid": Decimal("1.0")})
    assert [e.message for e in checked.iter_errors({"pid": Decimal("1.0")})] == ["Decimal('1.0') is not of type 'integer', 'null'"]
    assert checked.compiled.is_valid({"pid": 3}) and checked.compiled.is_valid({"pid": None})
    assert _one({"type": ["integer", "number"]}).compiled.is_valid(Decimal("1.5"))
    inside_not = _one({"not": {"type": "integer"}})
    assert inside_not.compiled.is_valid(Decimal("2.0")) == inside_not.reference.is_valid(Decimal("2.0")) is True
    if worker is not None:
        assert list(_checked("receipt").iter_errors(dict(worker, pid=Decimal("1.0"))))


def test_a_trailing_newline_matches_dollar_as_in_python_also_inside_not() -> None:
    """Python's `$` matches before a final newline; under `not` a stricter compiled match would accept what the reference rejects."""
    checked = _one({"not": {"pattern": "^[a-z]+$"}})
    assert not checked.reference.is_valid("abc\n")
    assert not checked.compiled.is_valid("abc\n")
    assert [e.message for e in checked.iter_errors("abc\n")] == [e.message for e in checked.reference.iter_errors("abc\n")]
    assert checked.compiled.is_valid("abc\n\n") and checked.reference.is_valid("abc\n\n")
    keyed = _one({"patternProperties": {"^x$": {"type": "integer"}}})
    assert not keyed.compiled.is_valid({"x\n": "s"}) and not keyed.reference.is_valid({"x\n": "s"})


@pytest.mark.parametrize("pattern", [r"^\d+$", "^a.b$", r"^\w$", "^a$b", "[a&&b]", "[a--b]", "(?=a)", "(?i)a", "a**", "|*",
                                     r"\bx", "é", "^[[:alpha:]]$", "a]", r"(a)\1"])
def test_a_pattern_outside_the_common_syntax_is_not_compiled(pattern: str) -> None:
    assert rust_pattern(pattern) is None
    assert compiled_copy({"pattern": pattern}) is None


def test_the_common_syntax_is_rewritten_only_at_the_final_dollar() -> None:
    assert rust_pattern("^[A-Za-z0-9][A-Za-z0-9._-]*$") == r"^[A-Za-z0-9][A-Za-z0-9._-]*\n?\z"
    assert rust_pattern(r"^[^/\\][^\\]*$") == r"^[^/\\][^\\]*\n?\z"
    assert rust_pattern(r"^a\$") == r"^a\$"
    assert rust_pattern("^(0|[1-9][0-9]*)(/[1-9][0-9]*)?$") == r"^(0|[1-9][0-9]*)(/[1-9][0-9]*)?\n?\z"


@pytest.mark.parametrize("schema", [{"multipleOf": 2}, {"unevaluatedItems": False}, {"minimum": 0.5},
                                    {"const": 1.5}, {"enum": [Decimal("1.0")]}, {"$ref": "other.json"},
                                    {"prefixItems": [True]}, {"properties": {"a": {"pattern": r"\d"}}}])
def test_a_keyword_outside_what_both_share_leaves_the_schema_to_the_reference(schema: dict[str, Any]) -> None:
    assert compiled_copy(schema) is None


def test_without_a_compiled_validator_every_instance_goes_to_the_reference() -> None:
    checked = _one({"multipleOf": 2})
    assert checked.compiled is None
    assert [e.message for e in checked.iter_errors(3)] == ["3 is not a multiple of 2"]
    assert list(checked.iter_errors(4)) == []


def test_a_value_the_compiled_side_cannot_take_goes_to_the_reference() -> None:
    checked = _one({"type": "object"})
    assert [e.message for e in checked.iter_errors(object())][0].endswith("is not of type 'object'")


def test_a_panic_of_the_compiled_side_goes_to_the_reference() -> None:
    """pyo3 turns a Rust panic into `PanicException`, a BaseException: it must not escape the check as a traceback."""
    class PanicException(BaseException):
        pass

    class Panicking:
        def is_valid(self, instance: Any) -> bool:
            raise PanicException("boom")

    checked = _one({"type": "integer"})
    checked.compiled = Panicking()
    assert [e.message for e in checked.iter_errors("x")] == ["'x' is not of type 'integer'"]
    checked.compiled = type("Interrupted", (), {"is_valid": lambda self, i: (_ for _ in ()).throw(KeyboardInterrupt())})()
    with pytest.raises(KeyboardInterrupt):
        list(checked.iter_errors("x"))


def test_a_batch_is_all_valid_only_when_the_compiled_side_accepts_each_of_its_instances() -> None:
    """`all_valid` answers for a batch of receipt lines at once; any doubt (an invalid one, no compiled validator, a value it cannot take) is False."""
    checked = _one({"type": "integer"})
    assert checked.compiled is not None
    assert checked.all_valid([1, 2, 3]) and checked.all_valid([])
    assert not checked.all_valid([1, "x", 3]) and not checked.all_valid(["x", 1])
    assert not checked.all_valid([1, object()])
    assert not _one({"multipleOf": 2}).all_valid([2, 4])  # no compiled validator: each goes to `iter_errors`


def test_schema_documents_runs_the_reference_only_on_invalid_receipt_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check pays for the pure-Python walk only where the compiled validator rejects, and reports the reference's errors."""
    import verifier.checks.schema as schema_check
    from test_mutation_kills_schema import GOOD as DOCS
    from test_mutation_kills_schema import _run

    seen: list[Any] = []

    class Spy:
        def __init__(self, reference: Any) -> None:
            self.reference, self.format_checker = reference, reference.format_checker

        def iter_errors(self, instance: Any) -> Any:
            seen.append(instance)
            return self.reference.iter_errors(instance)

    monkeypatch.setattr(schema_check, "schema_validator", lambda schema: Spy(schema_validator(schema)))
    assert all(status == "PASS" for status, *_ in _run(DOCS))
    assert seen == []
    receipts = [dict(r) for r in DOCS["receipts"]]
    receipts[1]["elapsed_s"] = Decimal("-1")
    receipts[4]["started_at"] = "2026-01-01T23:59:60Z"
    found = [f for f in _run({**DOCS, "receipts": receipts}) if f[1] == "schema-violation"]
    assert [f[3] for f in found] == ["/1/elapsed_s", "/4/started_at"]
    assert seen == [receipts[1], receipts[4]]


PROFILES = Path(__file__).resolve().parent.parent.parent / "profiles"
FEW = [Decimal("1.0"), 0, True, None, "", "a\n", [], {}]


def _items_of_every_shape() -> dict[str, list[dict[str, Any]]]:
    """Return one claim and one gate rule of each member set found in the shipped profiles, by section."""
    found: dict[str, dict[tuple[str, ...], dict[str, Any]]] = {"claims": {}, "rules": {}}
    for path in sorted(PROFILES.glob("*.json")):
        document = loads_strict(path.read_bytes())
        for section, items in (("claims", document.get("claims", [])), ("rules", document.get("gate", {}).get("rules", []))):
            for item in items:
                found[section].setdefault(tuple(sorted(item)), item)
    return {section: list(shapes.values()) for section, shapes in found.items()}


def _item_variants(item: dict[str, Any], members: dict[str, Any]) -> list[dict[str, Any]]:
    """`item` with each leaf replaced by each of `FEW`, each member removed, each member another item has added, and one no item has."""
    out: list[dict[str, Any]] = []

    def walk(node: Any, path: list[Any]) -> None:
        for key, child in (list(node.items()) if isinstance(node, dict) else list(enumerate(node))):
            if isinstance(child, (dict, list)):
                walk(child, [*path, key])
            out.extend(_replace(item, [*path, key], bad) for bad in FEW)
            if isinstance(node, dict):
                out.append(_replace(item, [*path, key], _DELETE))

    walk(item, [])
    out.extend({**item, name: value} for name, value in members.items() if name not in item)
    out.append({**item, "x-extra": 1})
    return out


def test_compiled_and_reference_agree_on_the_profile_schemas_unevaluated_properties() -> None:
    """Claims and gate rules: `allOf` + `oneOf` + `unevaluatedProperties: false`, where compiled validators have differed."""
    schema = _shipped("profile")
    assert compiled_copy(schema) is not None, "the profile schema should run compiled"
    items = {"claims": schema["properties"]["claims"]["items"], "rules": schema["properties"]["gate"]["properties"]["rules"]["items"]}
    count = invalid = 0
    for section, shapes in _items_of_every_shape().items():
        item_schema = {"$schema": DRAFT_2020_12, "$defs": schema["$defs"], **items[section]}  # the item's own schema, its `$ref`s kept
        checked = checked_validator(item_schema, schema_validator(item_schema))
        members = {name: value for item in shapes for name, value in item.items()}
        instances = [v for item in shapes for v in [item, *_item_variants(item, members)]]
        reference = [checked.reference.is_valid(i) for i in instances]
        differ = [i for i, valid in zip(instances, reference) if checked.compiled.is_valid(i) != valid]
        assert not differ, f"{section}: {len(differ)} of {len(instances)} differ, first: {differ[0]!r}"
        count += len(instances)
        invalid += reference.count(False)
    assert count > 1000 and invalid > 500 and count - invalid > 100, (count, invalid)  # both sides are reached


@pytest.mark.parametrize("path", sorted(PROFILES.glob("*.json")), ids=lambda p: p.stem)
def test_every_shipped_profile_is_valid_on_both_sides(path: Path) -> None:
    schema = _shipped("profile")
    checked = checked_validator(schema, schema_validator(schema))
    document = loads_strict(path.read_bytes())
    assert checked.compiled.is_valid(document) and checked.reference.is_valid(document)


META_HOSTILE = [Decimal("1.0"), -1, 0, True, None, "", "(", "\\p{L}", "not a uri", "#/$defs/x y", "strin", [], {}, [1, 1]]


def _schema_variants(schema: dict[str, Any]) -> list[Any]:
    """`schema` with each leaf replaced by each of `META_HOSTILE`, each member removed, and an unknown keyword added at each object."""
    out: list[Any] = []

    def walk(node: Any, path: list[Any]) -> None:
        for key, child in (list(node.items()) if isinstance(node, dict) else list(enumerate(node))):
            if isinstance(child, (dict, list)):
                walk(child, [*path, key])
            else:
                out.extend(_replace(schema, [*path, key], bad) for bad in META_HOSTILE)
            if isinstance(node, dict):
                out.append(_replace(schema, [*path, key], _DELETE))

    walk(schema, [])
    return out


@pytest.mark.parametrize("name", ["plan-request", "claims", "manifest", "quality-index"])
def test_the_compiled_metaschema_check_agrees_with_the_reference_check_schema(name: str) -> None:
    """`compiled_schema.meta_valid` answers `Draft202012Validator.check_schema`'s question: same verdict on every hostile variant."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from verifier.schema.compiled_schema import meta_valid

    def reference(candidate: Any) -> bool:
        try:
            Draft202012Validator.check_schema(candidate)
        except SchemaError:
            return False
        return True

    checkers = Draft202012Validator.FORMAT_CHECKER.checkers
    schema = _shipped(name)
    instances = [schema, *_schema_variants(schema)]
    verdicts = [reference(i) for i in instances]
    compiled = [meta_valid(i, checkers) for i in instances]
    unsound = [i for i, ok, fast in zip(instances, verdicts, compiled) if fast and not ok]
    assert not unsound, f"{len(unsound)} of {len(instances)} accepted that the reference refuses: {json.dumps(unsound[0], default=str)[:400]}"
    differ = [i for i, ok, fast in zip(instances, verdicts, compiled) if fast != ok and "Decimal" not in repr(i)]  # a Decimal: the reference decides
    assert not differ, f"{len(differ)} of {len(instances)} differ, first: {json.dumps(differ[0], default=str)[:400]}"
    assert verdicts.count(False) > 20 and verdicts.count(True) > 20  # both sides are reached


def test_a_schema_the_compiled_metaschema_check_refuses_is_worded_by_the_reference() -> None:
    from verifier.errors import ConfigError

    with pytest.raises(ConfigError, match=r"not a valid schema: '\(' is not a 'regex'"):
        schema_validator({"$schema": DRAFT_2020_12, "$id": "bad", "pattern": "("})


@pytest.mark.parametrize("schema,instance", [({"exclusiveMaximum": 2**53 + 1}, Decimal("9007199254740993.0")),
                                             ({"maximum": -(2**53) - 2}, -(2**53) - 1), ({"const": 2**53 + 1}, 2**53),
                                             ({"enum": [2**53 + 1]}, 2**53)])
def test_an_integer_past_2_to_the_53_in_a_bound_or_const_leaves_the_schema_to_the_reference(schema, instance):
    """Found by this stop's trial: jsonschema-rs compared `exclusiveMaximum: 9007199254740993` as a float and accepted the bound itself."""
    checked = _one(schema)
    assert checked.compiled is None and len(list(checked.iter_errors(instance))) == 1
    assert compiled_copy({"$schema": DRAFT_2020_12, **{k: 2**53 if k != "enum" else [2**53] for k in schema}}) is not None  # 2^53 is exact
