"""
Tests that kill mutants of `verifier/readers/native.py` (issue 42, cosmic-ray): the survivors of its session, each by an input.

`tools/cosmic-ray/readers_native.toml` runs this file first. Each test names
the mutant(s) it kills (line numbers of the run of record, `abb1147`); each
was applied by hand and seen red. What the session's other test files already
pin (the typed fast paths against the reference reading, by property) is not
repeated here.
"""

from __future__ import annotations

import copy
import hashlib
import json
from decimal import Decimal
from pathlib import Path

import pytest

from bundlekit import edit_json, rehash
from conftest import EXAMPLE
from verifier.core import BUNDLE_PIPELINE
from verifier.engine.pipeline import Context, run_pipeline
from verifier.formats.bundle import Bundle
from verifier.readers.mapped import MappedBundle, mapped_pipeline
from verifier.readers.tree import Tree
from verifier.model.evidence import Evidence, Location, Quantity, Unmapped
from verifier.readers.native import V1_PROFILE, PlannedLines, ReceiptLines, evidence_of, from_documents, plan_of, schema_sha256, vouch_plan
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


def _evidence_after_the_schema_check(bundle: Path, profile: dict | None = None) -> Evidence:
    """The model `evidence_of` builds of `bundle` (read natively, or through `profile`'s `bundle` section) once `schema.documents` and what runs before it have judged its documents."""
    if profile is None:
        pipeline, ctx = BUNDLE_PIPELINE, Context(subject=bundle, assets=assets(None), bundle=Bundle(root=bundle))
    else:
        pipeline = mapped_pipeline(BUNDLE_PIPELINE)
        ctx = Context(subject=bundle, assets=assets(None), bundle=MappedBundle.of(Tree(root=bundle), profile["bundle"]), options={"profile": profile})
    run_pipeline(pipeline[: [c.id for c in pipeline].index("schema.documents") + 1], ctx)
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


@pytest.mark.parametrize("outputs", [5, True, Decimal("1.5"), "ab", {"path": "p", "sha256": "ab" * 32}, [], None, ["x", 5]])
def test_a_receipts_outputs_that_are_no_list_of_objects_are_left_out_without_failing(outputs):
    """Kills `:335` `type(outs) is list and outs` -> `or` (a number or `true` is then iterated: TypeError): `extend` is total over JSON values."""
    line = {"kind": "request", "request_id": "r1", "server": "s", "arm": "a", "phase": "measured", "outcome": "ok", "elapsed_s": 1,
            "outputs": outputs}
    table = from_documents({"receipts": [line]}, manifest=None, names={}).receipts
    assert len(table) == 1 and table.outputs == {} and table[0].outputs == ()


@pytest.mark.parametrize("builder,texts", [
    (ReceiptLines, (EXAMPLE / "receipts.jsonl").read_text().splitlines()),
    (PlannedLines, [json.dumps(r) for r in json.loads((EXAMPLE / "plan.json").read_text())["requests"]])])
def test_lines_only_judged_are_vouched_for_and_not_modelled(builder, texts):
    """Kills `:400` `return True` -> `False` after `if not keep`: valid lines are vouched for when only judged (`keep` False), and nothing is modelled."""
    judged = builder("lines.jsonl")
    assert judged.vouch(0, texts, False) is True
    kept = builder("lines.jsonl")
    assert kept.vouch(0, texts) is True
    if builder is ReceiptLines:
        assert (len(judged.table), judged.processes) == (0, []) and len(kept.table) > 0 and kept.processes
    else:
        assert len(judged.requests) == 0 and len(kept.requests) == len(texts)
    assert builder("lines.jsonl").vouch(0, [*texts, texts[0].replace('"', "'", 2)], False) is False  # a line that is no JSON


def test_a_schema_with_text_beyond_ascii_has_a_fingerprint_and_is_read_the_reference_way():
    """Kills `:423` `ensure_ascii=True` -> `False` (then `encode("ascii")` raises): an asset root may pin a schema whose text is not ASCII."""
    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "receipt.schema.json").read_text())
    schema["title"] = "Une ligne de reçu"
    assert schema_sha256(schema) == hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode("ascii")).hexdigest()
    assert ReceiptLines("receipts.jsonl").vouch_for(schema) is None and PlannedLines("plan-requests.jsonl").vouch_for(schema) is None


def test_a_profile_that_maps_no_plan_still_models_the_other_documents(example_copy):
    """Kills `:702` `continue` -> `break`: a kind the reader maps no document for is unmapped, and the kinds after it are still read."""
    profile = copy.deepcopy(V1_PROFILE)
    del profile["bundle"]["documents"]["plan"]
    model = _evidence_after_the_schema_check(example_copy, profile)
    assert model.plan is None and not model.present("plan")
    assert [(u.what, u.part, u.code) for u in model.unmapped if u.code] == [("plan document", "plan", "not-in-evidence")]
    assert len(model.receipts) > 0 and model.processes and model.claims and model.quality
