"""
Issue 10: a profile's receipt sets are read onto the evidence model (`verifier.evidence`), the one every later check reads.

`profile.receipts` builds `ctx.data["evidence"]`: reader `profile:<id>`, the
receipts of every set tagged with their set, quantities in their base unit
(ms becomes s exactly), a stand-in for a file that was read but held no
records, the output media the receipts name, and an `Unmapped` entry for what
gave no receipts. The per-set views the other profile checks read come from
that model, not from a store of their own.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from verifier import units
from verifier.checks.profile import receipts
from verifier.checks.profile_base import _all_records, _records, evidence
from verifier.evidence import Evidence, Location, Quantity, Receipt
from verifier.pipeline import Context
from verifier.readers.tree import Tree

D = Decimal


def test_base_symbol_names_the_base_unit_of_the_dimension():
    assert units.base_symbol("ms") == "s"
    assert units.base_symbol("ns") == "s"
    assert units.base_symbol("MiB/s") == "B/s"
    assert units.base_symbol("tokens/s") == "tokens/s"
    assert units.base_symbol("%") == "%"
    with pytest.raises(units.UnitError):
        units.base_symbol("fortnights")


def test_to_base_scales_exactly_as_convert_does():
    assert units.to_base(D("1500"), "ms") == D("1.5")
    assert units.to_base(D("2"), "KiB") == D("2048")
    assert units.to_base(D("7"), "s") == D("7")
    assert units.to_base(D("1"), "ns") == units.convert(D("1"), "ns", "s")
    with pytest.raises(units.UnitError):
        units.to_base(D("1"), "fortnights")


def test_receipt_value_is_in_the_base_unit_and_none_when_absent():
    r = Receipt(dims={}, quantities={"latency": Quantity(D("250"), "ms"), "gap": None}, location=Location("a.jsonl", "/0"))  # type: ignore[dict-item]
    assert r.value("latency") == D("0.25")
    assert r.value("gap") is None and r.value("absent") is None
    assert (r.path, r.pointer) == ("a.jsonl", "/0")
    assert Receipt(dims={}, quantities={}, location=Location("a.jsonl")).pointer == ""


def _profile() -> dict:
    latency = {"pointer": "/wall_ms", "unit": "ms"}
    return {"id": "toy", "receipts": {
        "runs": {"glob": "runs/*.jsonl", "encoding": "jsonl", "media": {"pointer": "/output"},
                 "fields": {"latency": latency, "arm": {"pointer": "/arm"}, "phase": {"value": "measured"}}},
        "absent": {"glob": "nothing/*.jsonl", "encoding": "jsonl", "fields": {"latency": latency, "phase": {"value": "measured"}}},
    }}


def _bundle(root: Path) -> Path:
    (root / "runs").mkdir(parents=True)
    rows = [{"arm": "A", "wall_ms": 1500, "output": "out/a.mp4"}, {"arm": "B", "wall_ms": 250, "output": "out/b.mp4"},
            {"arm": "B", "wall_ms": 260, "output": "out/b.mp4"}]
    (root / "runs" / "one.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "runs" / "two.jsonl").write_text("")
    return root


def _run(root: Path) -> tuple[Context, list]:
    ctx = Context(subject=root, assets=None, bundle=Tree(root), options={"profile": _profile()})
    return ctx, list(receipts(ctx))


def test_profile_receipts_builds_the_evidence_model(tmp_path):
    ctx, findings = _run(_bundle(tmp_path))
    model = ctx.data["evidence"]
    assert isinstance(model, Evidence) and evidence(ctx) is model
    assert (model.reader, model.gate) == ("profile:toy", "toy")
    read = [r for r in model.receipts if r.unread is None]
    assert [(r.receipt_set, r.path, r.dims["arm"], r.value("latency")) for r in read] == [
        ("runs", "runs/one.jsonl", "A", D("1.5")), ("runs", "runs/one.jsonl", "B", D("0.25")), ("runs", "runs/one.jsonl", "B", D("0.26"))]
    assert {r.quantities["latency"].unit for r in read} == {"s"}  # stored in the base unit, not the receipt's ms
    assert [r.raw["output"] for r in read] == ["out/a.mp4", "out/b.mp4", "out/b.mp4"]
    assert [(m.path, m.role) for m in model.media] == [("out/a.mp4", "output"), ("out/b.mp4", "output")]
    assert [(u.what, u.where.file if u.where else None, u.code) for u in model.unmapped] == [
        ("receipts.runs", "runs/two.jsonl", "no-records"), ("receipts.absent", "nothing/*.jsonl", "no-receipts")]
    assert sorted((f.status.value, f.code, f.path) for f in findings) == [
        ("PASS", "mapped", "runs/one.jsonl"), ("UNVERIFIED", "no-receipts", "nothing/*.jsonl"), ("UNVERIFIED", "no-records", "runs/two.jsonl")]


def test_a_file_without_records_stays_in_the_model_as_a_stand_in(tmp_path):
    ctx, _ = _run(_bundle(tmp_path))
    stand_ins = [r for r in evidence(ctx).receipts if r.unread is not None]
    assert [(r.receipt_set, r.path) for r in stand_ins] == [("runs", "runs/two.jsonl")]
    assert stand_ins[0].quantities == {} and stand_ins[0].unread
    assert len(_all_records(ctx, "runs")) == 4 and len(_records(ctx, "runs")) == 3  # derivations see the stand-in, per-record checks not


def test_the_per_set_views_come_from_the_model(tmp_path):
    ctx, _ = _run(_bundle(tmp_path))
    assert _all_records(ctx, "runs") is _all_records(ctx, "runs")  # built once per model: select indexes these lists
    assert _all_records(ctx, "absent") == []
    moved = [Receipt(dims={"arm": "C"}, quantities={}, location=Location("x.jsonl"), receipt_set="other")]
    ctx.data["evidence"] = Evidence(reader="profile:toy", receipts=tuple(moved))
    assert _all_records(ctx, "runs") == [] and _all_records(ctx, "other") == moved  # a new model is a new view


def test_before_profile_receipts_ran_the_model_holds_no_receipts():
    ctx = Context(subject=Path("."), assets=None, options={"profile": _profile()})
    assert evidence(ctx).receipts == () and _all_records(ctx, "runs") == []
