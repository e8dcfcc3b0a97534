"""
The typed reading of `plan.json` (`native.vouch_plan`, issue 40) is a pre-filter of the reference reading.

The reference: the strict reader (`verifier.formats.jsonio.loads_strict`), the plan
schema (`schemas/plan.schema.json`, `checked_validator`) and `native.plan_of`.
`vouch_plan` may give a model only for a document the reference accepts, and
must then give the very same model. Its planned requests are read into msgspec
types written by hand after the schema's `requests` items; every other member
(and the requests cut to their first item) is judged by the schema's own
validator. The tests below fail when the types and the schema differ (the
schema's fingerprint, the members, the items' fields, enum and patterns) and
over near-valid plans: valid ones mutated, often in a request past the first.
"""

from __future__ import annotations

import json
import typing
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jsontext import Raw as _Raw, damaged, stated_twice
from jsontext import dumps as _dumps
from verifier.formats.bundle import Bundle
from verifier.schema.compiled_schema import checked_validator
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.readers import native
from verifier.readers.mapped import MappedBundle
from verifier.readers.native import PLAN_SCHEMA_SHA256, plan_of, schema_sha256, vouch_plan
from verifier.trust.assets import schema_validator

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
VALIDATOR = checked_validator(SCHEMA, schema_validator(SCHEMA))


def _valid(document: object) -> bool:
    return not list(VALIDATOR.iter_errors(document))


def _model(plan: object) -> tuple:
    """Everything the plan model holds, values with their types and the order of its mappings (`repr`), requests as rows."""
    return repr(replace(plan, requests=())), tuple(plan.requests), type(plan.requests).__name__


def reference(data: bytes):
    """The model the reference reading builds of `data`, or None when it refuses the document."""
    try:
        document = loads_strict(data)
    except JSONProblem:
        return None
    return plan_of(document, "plan.json") if _valid(document) else None


def vouched(data: bytes):
    return vouch_plan(data, _valid, "plan.json")


def test_the_types_mirror_the_shipped_plan_schema():
    assert schema_sha256(SCHEMA) == PLAN_SCHEMA_SHA256, (
        "schemas/plan.schema.json changed: bring verifier/readers/native.py's typed plan (_PlanDocument, _PlanRequest, _Shard) "
        "in line with it, then its PLAN_SCHEMA_SHA256")
    info = msgspec.inspect.type_info(native._PlanDocument)
    assert info.forbid_unknown_fields and SCHEMA["additionalProperties"] is False
    assert {f.name for f in info.fields} == set(SCHEMA["properties"])
    assert not any(f.required for f in info.fields)  # required members are the validator's to judge
    item = SCHEMA["properties"]["requests"]["then"]["items"]
    info = msgspec.inspect.type_info(native._PlanRequest)
    assert info.forbid_unknown_fields and item["additionalProperties"] is False
    assert {f.name for f in info.fields} == set(item["properties"])
    assert {f.name for f in info.fields if f.required} == set(item["required"])
    hints = typing.get_type_hints(native._PlanRequest)
    assert set(typing.get_args(hints["phase"])) == set(item["properties"]["phase"]["enum"])
    assert item["properties"]["id"]["pattern"] == item["properties"]["server"]["pattern"] == f"^{native.NAME_PATTERN}$"
    assert {"type": "string"} == item["properties"]["prompt"]
    for struct in (native._PlanDocument, native._PlanRequest, native._Shard):
        assert all(default is msgspec.UNSET for default in struct.__struct_defaults__) and struct.__struct_config__.omit_defaults


def test_the_example_plan_is_vouched_for_and_modelled_as_the_reference_models_it():
    data = (ROOT / "examples" / "ref2va-5s" / "plan.json").read_bytes()
    fast, slow = vouched(data), reference(data)
    assert fast is not None and slow is not None
    assert _model(fast) == _model(slow)


NAMES = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,8}\Z")
TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=6)  # no control character: JSON writes it as a `\\u` escape


@st.composite
def valid_request(draw: st.DrawFn) -> dict:
    request = {"id": draw(NAMES), "server": draw(NAMES), "phase": draw(st.sampled_from(["warmup", "measured"]))}
    if draw(st.booleans()) and draw(st.booleans()):
        request["prompt"] = draw(TEXT)
    return dict(draw(st.permutations(list(request.items()))))


@st.composite
def valid_plan(draw: st.DrawFn) -> dict:
    """A valid plan: its requests listed (mostly) or named as the shard; optional members and number literals (`_Raw`)."""
    plan = {"format": "verify-plan", "format_version": 1, "campaign": draw(NAMES),
            "frozen_at": draw(st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01t00:00:00.5+05:30"])),
            "arms": [{"id": "base", "label": "A", "role": "baseline", "revision": draw(TEXT.filter(bool))},
                     {"id": "cand", "label": "B", "role": "candidate", "revision": "r1"}],
            "servers": [{"id": "s1", "arm": "base"}, {"id": "s2", "arm": "cand", **({"host": "h:1"} if draw(st.booleans()) else {})}],
            "arm_order": ["A", "B"], "warmups_per_server": draw(st.integers(0, 3)), "measured_per_server": draw(st.integers(1, 3)),
            "requests": draw(st.lists(valid_request(), min_size=1, max_size=5)) if draw(st.integers(0, 4)) else {"file": "plan-requests.jsonl"},
            "expected_output": dict(draw(st.permutations([("frames", 24), ("fps", draw(st.sampled_from(["24", "30000/1001"]))),
                                                          ("sample_rate", 32000), ("channels", 2)]))) }
    if draw(st.booleans()):
        plan["timeouts"] = {"request_s": _Raw(draw(st.sampled_from(["30", "2.50", "1e1", "0.001"]))), "total_min": _Raw("5")}
    if draw(st.booleans()):
        plan["max_concurrency"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        plan["notes"] = draw(TEXT)
    return dict(draw(st.permutations(list(plan.items()))))


ODD = st.sampled_from([
    None, True, False, 0, -1, 1, 10**400, "", " ", "x\n", ".x", "a/b", "\u00e9", [], {}, [{}], _Raw("1.0"), _Raw("1e400"), _Raw("0.0"),
    _Raw("-0.5"), _Raw("1" * 320), "warmup", "measured", "plan-requests.jsonl", _Raw('"\\u0041"'), _Raw('"a\\u003ab"'),
    _Raw('"\\ud800"'), _Raw("[" * 70 + "]" * 70), {"file": "plan-requests.jsonl", "x": 1}, {"file": "other.jsonl"}])
#: Near misses of a planned request's members: values the schema refuses, next to ones it accepts.
NEAR_REQUEST = {
    "id": ["a b", "-a", "_", "a_", "A.-", "é", "a\n", "\na", "a\x00b", "", 1, None, ["a"]],
    "phase": ["Measured", "warmup ", "run", None, 1],
    "prompt": [None, 1, "", "x\ny", ["p"]],
}
NEAR_REQUEST["server"] = NEAR_REQUEST["id"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid plan's text, mutated: in one planned request or at the top (a value replaced, a member dropped, added or stated twice), or the text cut or spaced."""
    plan = draw(valid_plan())
    how = draw(st.sampled_from(["none", "request", "request", "request", "value", "drop", "extra", "duplicate", "text"]))
    requests = plan["requests"]
    if how == "request" and type(requests) is list:
        at = draw(st.integers(0, len(requests) - 1))
        item = requests[at]
        change = draw(st.sampled_from(["near", "near", "drop", "extra", "odd", "duplicate", "no object"]))
        key = draw(st.sampled_from(sorted(item)))
        if change == "near":
            key = draw(st.sampled_from(sorted(NEAR_REQUEST)))
            item[key] = draw(st.sampled_from(NEAR_REQUEST[key]))
        elif change == "drop":
            del item[key]
        elif change == "extra":
            item[draw(st.sampled_from(["x", "Id", "id ", "file"]))] = draw(ODD)
        elif change == "odd":
            item[key] = draw(ODD)
        elif change == "duplicate":
            requests[at] = _Raw(stated_twice(_dumps(item), key, draw(st.one_of(ODD, st.just(item[key])))))
        else:
            requests[at] = draw(ODD)
        if draw(st.booleans()):
            del requests[draw(st.integers(0, len(requests) - 1)):]  # also no request at all
    key = draw(st.sampled_from(sorted(plan)))
    if how == "value":
        plan[key] = draw(ODD)
    elif how == "drop":
        del plan[key]
    elif how == "extra":
        plan[draw(st.sampled_from(["x", "Format", "requests ", "host"]))] = draw(ODD)
    text = _dumps(plan)
    if how == "duplicate":
        text = stated_twice(text, key, draw(st.one_of(ODD, st.just(plan[key]))))
    elif how == "text":
        text = draw(damaged(text))
    return text


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_what_vouch_plan_accepts_the_reference_accepts_and_models_alike(text):
    data = text.encode("utf-8", "surrogatepass")
    fast = vouched(data)
    if fast is None:
        return
    slow = reference(data)
    assert slow is not None, text
    assert _model(fast) == _model(slow)


@settings(max_examples=150, deadline=None)
@given(valid_plan().map(_dumps))
def test_valid_plans_are_vouched_for(text):
    """The pre-filter is worth having: valid plans as producers write them pass it."""
    data = text.encode("utf-8")
    slow = reference(data)
    assert slow is not None
    fast = vouched(data)
    assert fast is not None, text
    assert _model(fast) == _model(slow)


def _plan_text(**change: object) -> str:
    plan = json.loads((ROOT / "examples" / "ref2va-5s" / "plan.json").read_text())
    plan.update(change)
    return json.dumps(plan)


@pytest.mark.parametrize("text", [
    _plan_text()[:-1] + ', "format": "verify-plan"}',  # a member stated twice
    _plan_text(requests=[{"id": "a", "server": "s", "phase": "warmup"}, {"id": "b", "server": "s", "phase": "warmup"}]).replace(
        '"id": "b"', '"id": "b", "id": "c"'),  # a planned request's member stated twice, past the first request
    _plan_text(requests=[{"id": "a", "server": "s", "phase": "warmup"}, {"id": "b\\u0041", "server": "s", "phase": "warmup"}]),
    _plan_text(requests=[{"id": "a", "server": "s", "phase": "warmup"}, {"id": "b\n", "server": "s", "phase": "warmup"}]),
    _plan_text(requests=[{"id": "a", "server": "s", "phase": "warmup"}, {"id": "b", "server": "s\n", "phase": "warmup"}]),
    _plan_text(requests=[{"id": "a", "server": "s", "phase": "warmup"}, {"id": "b", "server": "s", "phase": "warmup", "x": 1}]),
    _plan_text(requests=[]),
    _plan_text(campaign="x" * 400)[:-1] + ', "notes": ' + "9" * 320 + "}",
    "\ufeff" + _plan_text(),
])
def test_what_vouch_plan_cannot_vouch_for_goes_to_the_reference(text):
    """A duplicate key (at the top, in a later request), a `\\u` escape, names with a final newline (valid: Python's `$`), an extra member, no request, a long integer, a byte order mark."""
    assert vouched(text.encode("utf-8")) is None


def test_a_plan_judged_by_another_schema_is_read_the_reference_way(tmp_path):
    from types import SimpleNamespace

    from verifier.checks.schema import _voucher

    data = (ROOT / "examples" / "ref2va-5s" / "plan.json").read_bytes()
    stricter = json.loads(json.dumps(SCHEMA))
    stricter["properties"]["requests"]["then"]["items"]["properties"]["phase"]["enum"] = ["warmup"]  # the first request is one
    assert json.loads(data)["requests"][0]["phase"] == "warmup" and reference(data) is not None
    for schema, read in ((SCHEMA, True), (stricter, False)):
        ctx = SimpleNamespace(assets=SimpleNamespace(schema=lambda name, schema=schema: schema), bundle=Bundle(tmp_path))
        vouch = _voucher(ctx, "plan", "plan", "plan.json")
        assert (vouch(data) is not None) is read
    assert _voucher(ctx, "claims", "claims", "claims.json") is None
    ctx.bundle = MappedBundle(root=tmp_path)  # its plan is mapped from a foreign file: not the bytes of a v1 plan
    assert _voucher(ctx, "plan", "plan", "plan.json") is None


def test_a_plan_with_a_decimal_timeout_is_modelled_with_it_as_written():
    text = _plan_text(timeouts={"request_s": 1})[:-1].replace('"request_s": 1', '"request_s": 2.50, "total_min": 1e1') + "}"
    fast, slow = vouched(text.encode()), reference(text.encode())
    assert fast is not None and _model(fast) == _model(slow)
    assert [(q.value, q.written) for q in fast.timeouts.values()] == [(Decimal("2.50"), "2.50"), (Decimal("1E+1"), "1E+1")]


# The shard a large plan names (`plan-requests.jsonl`): its lines are the plan schema's `requests` items, read by
# `PlannedLines.vouch` into the same `_PlanRequest`s; the reference is the strict reader, the line schema and `extend`.
LINE_SCHEMA = json.loads((ROOT / "schemas" / "plan-request.schema.json").read_text())
LINE_VALIDATOR = checked_validator(LINE_SCHEMA, schema_validator(LINE_SCHEMA))


def test_a_shard_line_is_the_plans_request_item_and_its_schema_is_pinned():
    assert schema_sha256(LINE_SCHEMA) == native.PLAN_REQUEST_SCHEMA_SHA256, (
        "schemas/plan-request.schema.json changed: bring _PlanRequest in line with it, then PLAN_REQUEST_SCHEMA_SHA256")
    assert {k: v for k, v in LINE_SCHEMA.items() if not k.startswith("$") and k != "title"} == SCHEMA["properties"]["requests"]["then"]["items"]
    stricter = json.loads(json.dumps(LINE_SCHEMA))
    stricter["properties"]["id"]["maxLength"] = 3
    assert native.PlannedLines("plan-requests.jsonl").vouch_for(LINE_SCHEMA) is not None
    assert native.PlannedLines("plan-requests.jsonl").vouch_for(stricter) is None


def _shard_reference(texts: list[str]):
    from verifier.formats.jsonio import iter_strict_batches

    builder = native.PlannedLines("plan-requests.jsonl")
    data = "".join(text + "\n" for text in texts).encode("utf-8", "surrogatepass")
    for batch in iter_strict_batches(iter([data])):
        documents = [item for _, item in batch]
        if any(type(item) is JSONProblem for item in documents) or not LINE_VALIDATOR.all_valid(documents):
            return None
        builder.extend(batch[0][0] - 1, documents)
    return builder


def _shard_vouched(texts: list[str]):
    builder = native.PlannedLines("plan-requests.jsonl")
    return builder if builder.vouch(0, texts) else None


@st.composite
def mutated_line(draw: st.DrawFn) -> str:
    """A valid shard line's text, mutated as `mutated` mutates a planned request, or the text cut or spaced."""
    item = draw(valid_request())
    how = draw(st.sampled_from(["none", "near", "near", "drop", "extra", "odd", "duplicate", "text", "no object"]))
    key = draw(st.sampled_from(sorted(item)))
    if how == "near":
        key = draw(st.sampled_from(sorted(NEAR_REQUEST)))
        item[key] = draw(st.sampled_from(NEAR_REQUEST[key]))
    elif how == "drop":
        del item[key]
    elif how == "extra":
        item[draw(st.sampled_from(["x", "Id", "id ", "file"]))] = draw(ODD)
    elif how == "odd":
        item[key] = draw(ODD)
    text = _dumps(draw(ODD)) if how == "no object" else _dumps(item)
    if how == "duplicate":
        text = stated_twice(text, key, draw(st.one_of(ODD, st.just(item[key]))))
    elif how == "text":
        text = draw(damaged(text))
    return text


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(valid_request().map(_dumps), max_size=3), mutated_line(), st.integers(0, 3))
def test_what_the_shard_vouch_accepts_the_reference_accepts_and_models_alike(texts, text, at):
    texts = texts[:at] + [text] + texts[at:]
    fast = _shard_vouched(texts)
    if fast is None:
        return
    slow = _shard_reference(texts)
    assert slow is not None, texts
    assert tuple(fast.requests) == tuple(slow.requests) and fast.requests.repeated == slow.requests.repeated


@settings(max_examples=100, deadline=None)
@given(st.lists(valid_request().map(_dumps), min_size=1, max_size=6))
def test_valid_shard_lines_are_vouched_for(texts):
    slow = _shard_reference(texts)
    assert slow is not None
    fast = _shard_vouched(texts)
    assert fast is not None, texts
    assert tuple(fast.requests) == tuple(slow.requests)
