"""
Tests that kill mutants of `verifier/readers/native.py` (issue 42, cosmic-ray): the survivors of its session, each by an input.

`tools/cosmic-ray/readers_native.toml` runs this file first. Each test names
the mutant(s) it kills (line numbers of the run of record, `abb1147`); each
was applied by hand and seen red. What the session's other test files already
pin (the typed fast paths against the reference reading, by property) is not
repeated here.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest

from bundlekit import edit_json, rehash
from test_plan_shard import _shard
from verifier.core import BUNDLE_PIPELINE
from verifier.engine.pipeline import Context, RunData, run_pipeline
from verifier.formats.bundle import Bundle
from verifier.model.evidence import Evidence, Location, Quantity, Unmapped
from verifier.readers.native import evidence_of, from_documents, plan_of, vouch_plan
from verifier.trust.assets import assets


def test_a_claims_quantity_is_in_its_stated_unit_or_1_and_an_unknown_unit_is_unmapped():
    """Kills `:97` the `if` negated and `value is None` -> `is not None`, `:99` `unit or "1"` -> `and`, `:100` `not units.known` -> `units.known`."""
    claims = {"claims": [{"id": "a", "value": Decimal("1.50"), "unit": "ms"}, {"id": "b", "value": 3},
                         {"id": "c", "value": Decimal("2.0"), "unit": "furlongs"}]}
    model = from_documents({"claims": claims}, manifest=None, names={})
    assert [c.quantity for c in model.claims] == [Quantity(Decimal("1.50"), "ms", written="1.50"), Quantity(Decimal(3), "1", written="3"), None]
    assert [(c.id, c.value, c.unit, c.location) for c in model.claims] == [
        ("a", Decimal("1.50"), "ms", Location("claims.json", "/claims/0/value")), ("b", Decimal(3), None, Location("claims.json", "/claims/1/value")),
        ("c", Decimal("2.0"), "furlongs", Location("claims.json", "/claims/2/value"))]
    assert model.unmapped == (Unmapped("unit 'furlongs'", Location("claims.json", "/claims/2/value"),
                                       "not in the unit registry (verifier/model/units.py)"),)


def test_a_claim_value_that_is_no_number_has_no_quantity():
    """Kills `:97` `value is None or isinstance(value, bool)` -> `and` (a null value then raises, a boolean becomes 1 s)."""
    claims = {"claims": [{"id": "n", "value": None, "unit": "s"}, {"id": "t", "value": True, "unit": "s"}]}
    model = from_documents({"claims": claims}, manifest=None, names={})
    assert [(c.id, c.quantity) for c in model.claims] == [("n", None), ("t", None)]
    assert model.unmapped == ()


def test_a_plan_that_states_no_counts_plans_none_of_either_phase():
    """Kills `:140` the default 0 of `warmups_per_server` -> -1 and of `measured_per_server` -> 1 (`plan_of` reads the partial plans model tests build)."""
    plan = plan_of({"arms": [], "servers": [], "requests": []}, "plan.json")
    assert plan.per_server == {"warmup": 0, "measured": 0}
    stated = plan_of({"warmups_per_server": 2, "measured_per_server": 5, "requests": []}, "plan.json")
    assert stated.per_server == {"warmup": 2, "measured": 5}


def _evidence_after_the_schema_check(bundle: Path) -> Evidence:
    """The model `evidence_of` builds of `bundle` once `schema.documents` (and what runs before it) has judged its documents."""
    steps = BUNDLE_PIPELINE[: [c.id for c in BUNDLE_PIPELINE].index("schema.documents") + 1]
    ctx = Context(subject=bundle, assets=assets(None), bundle=Bundle(root=bundle))
    run_pipeline(steps, ctx)
    return evidence_of(ctx)


@pytest.mark.parametrize("broken,unusable", [("receipts", ["processes", "receipts"]), ("plan", ["plan"])])
def test_a_document_that_fails_its_schema_leaves_exactly_its_own_parts_unusable(example_copy, broken, unusable):
    """Kills `:698` `kind == "receipts"` -> `!=` and the condition negated: a bad receipts file leaves the workers (`processes`) unusable too, a bad plan only the plan."""
    if broken == "receipts":
        receipts = example_copy / "receipts.jsonl"
        receipts.write_text(receipts.read_text().replace('"elapsed_s": 396.3', '"elapsed_s": "396.3"', 1))
    else:
        edit_json(example_copy / "plan.json", lambda doc: doc.update(measured_per_server=0))  # the schema's minimum is 1
    rehash(example_copy)
    model = _evidence_after_the_schema_check(example_copy)
    assert sorted(u.part for u in model.unmapped if u.code) == unusable
    assert {u.code for u in model.unmapped if u.code} == {"blocked-by-schema"}
    for part in ("plan", "receipts", "processes", "claims", "quality"):
        assert model.usable(part) is (part not in unusable), part
    assert bool(model.processes) is ("processes" not in unusable) and (model.plan is None) is (broken == "plan")


def test_a_receipts_dimension_that_is_no_text_is_kept_as_its_text_and_null_as_none():
    """Kills `:356` `v is None` -> `is not None` and that condition negated: lines given as parsed (`from_documents`, `extend`) are read whatever their values."""
    line = {"kind": "request", "request_id": "r1", "server": None, "arm": 7, "phase": True, "outcome": "ok", "elapsed_s": 1}
    table = from_documents({"receipts": [line]}, manifest=None, names={}).receipts
    assert (list(table.server), list(table.arm), list(table.phase)) == ([None], ["7"], ["True"])


@pytest.mark.parametrize("data", [b"\xff", b'{"campaign": "caf\xe9"}', b'{"requests": [{"id": "r\x80", "server": "s", "phase": "measured"}]}'])
def test_plan_bytes_that_are_not_utf8_are_not_vouched_for(data):
    """Kills `:645` the `except UnicodeDecodeError` replaced: such bytes send the plan to the reference reading (which names the problem), never raise."""
    assert vouch_plan(data, lambda document: True, "plan.json") is None


def test_a_plan_whose_shard_cannot_be_used_names_the_shard_in_the_model(example_copy):
    """Kills `:712` `bundle.kinds["plan_requests"][0]` -> `[-1]`: the plan part is unmapped under the shard's own file name."""
    _shard(example_copy)
    names = ("plan.json", "receipts.jsonl", "claims.json")  # the shard did not pass integrity: not verified
    bundle = Bundle(example_copy, verified={n: n for n in names},
                    digests={n: hashlib.sha256((example_copy / n).read_bytes()).hexdigest() for n in names})
    evidence = evidence_of(SimpleNamespace(bundle=bundle, run=RunData(), options={}, gate_id=None))
    assert evidence.plan is None
    assert [(u.what, u.where, u.part, u.code) for u in evidence.unmapped if u.part == "plan"] == [
        ("document plan-requests.jsonl", Location("plan-requests.jsonl"), "plan", "blocked-by-integrity")]
