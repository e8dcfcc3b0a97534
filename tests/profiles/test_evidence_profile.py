"""
Issue 10: a profile's receipt sets are read onto the evidence model (`verifier.model.evidence`), the one every later check reads.

`schema.documents` builds `ctx.run.evidence`: reader `profile:<id>`, the
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

from verifier.model import units
from verifier.checks.schema import documents
from verifier.checks.profile_base import _all_records, _records, evidence
from verifier.model.evidence import Evidence, FileEntry, Location, Quantity, Receipt
from verifier.engine.pipeline import Context, RunData
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
    return ctx, list(documents(ctx))


def test_profile_receipts_builds_the_evidence_model(tmp_path):
    ctx, findings = _run(_bundle(tmp_path))
    model = ctx.run.evidence
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
    ctx.run.evidence = Evidence(reader="profile:toy", receipts=tuple(moved))
    assert _all_records(ctx, "runs") == [] and _all_records(ctx, "other") == moved  # a new model is a new view


def test_before_profile_receipts_ran_the_model_holds_no_receipts():
    ctx = Context(subject=Path("."), assets=None, options={"profile": _profile()})
    assert evidence(ctx).receipts == () and _all_records(ctx, "runs") == []


# ---------------------------------------------------------------- claim documents: stated numbers and outcomes in the model

H3 = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus" / "vllm-omni-rankings-h3-online-fp8"


def _study_documents() -> list[dict]:
    from conftest import ROOT

    return json.loads((ROOT / "profiles" / "vllm-omni-rankings-study.json").read_text())["claim_documents"]


def test_a_table_cell_states_each_number_inside_it_with_its_unit_and_the_cell_as_its_words():
    from verifier.readers.claimdocs import read_claim_documents

    stated = read_claim_documents(Tree(H3), _study_documents())
    base = "/tables/DLO cold-start memory/1/Saved vs. original"
    cell = {c.id: c for c in stated.claims if c.location.file == "RESULTS.md" and c.id.startswith(base + "#")}
    assert [(c.quantity.value, c.quantity.unit, c.written, c.words) for c in cell.values()] == [  # type: ignore[union-attr]
        (D("18812"), "MiB", "18,812 MiB", "18,812 MiB (32.1%)"), (D("32.1"), "%", "32.1%", "18,812 MiB (32.1%)")]
    assert all(c.location.pointer == c.id for c in stated.claims)
    assert [(o.gate, o.passed, o.location.file) for o in stated.outcomes] == [("dlo_use_allgather", False, "dlo_streaming_memory/memory_summary.json")]
    assert stated.unmapped == ()


def test_numbers_units_outcomes_and_unreadable_documents(tmp_path):
    from verifier.readers.claimdocs import read_claim_documents

    (tmp_path / "s.json").write_text(json.dumps({"wall": 1.50, "gain": "3 dB", "rate": "12 tokens/s", "ok": True, "note": "v2 of 7 runs"}))
    (tmp_path / "bad.json").write_text('{"a": 1, "a": 2}')
    stated = read_claim_documents(Tree(tmp_path), [{"file": "s.json"}, {"file": "*.json"}, {"file": "none/*.json"}])
    rows = [(c.id, c.value, c.unit, None if c.quantity is None else (c.quantity.value, c.quantity.unit), c.written, c.words) for c in stated.claims]
    assert rows == [("/wall", D("1.5"), None, (D("1.5"), "1"), "1.5", "wall"),
                    ("/gain", D("3"), "dB", None, "3 dB", "3 dB"),  # a unit outside the registry: kept as stated, no quantity
                    ("/rate", D("12"), "tokens/s", (D("12"), "tokens/s"), "12 tokens/s", "12 tokens/s"),
                    ("/note#numbers/0", D("7"), None, (D("7"), "1"), "7", "v2 of 7 runs")]  # "v2" is a name, not a number
    assert [(o.gate, o.passed, o.location.pointer) for o in stated.outcomes] == [("ok", True, "/ok")]
    assert {c.location.file for c in stated.claims} == {"s.json"}  # read once though two globs match it; bad.json gave none
    assert [(u.what, u.where.file, u.code) for u in stated.unmapped] == [  # type: ignore[union-attr]
        ("claim_documents", "bad.json", "claim-unreadable"), ("claim_documents", "none/*.json", "no-claim-document")]
    blocked = Tree(tmp_path, blocked={"s.json": "its sha256 differs from the manifest"})
    (gap,) = read_claim_documents(blocked, [{"file": "s.json"}]).unmapped
    assert (gap.code, gap.where.file) == ("blocked-by-integrity", "s.json") and "sha256 differs" in gap.why  # type: ignore[union-attr]


def test_profile_coverage_judges_the_stated_claims_of_the_model_not_the_documents(tmp_path):
    from verifier.checks.profile_coverage import coverage
    from verifier.model.evidence import RecordedOutcome, StatedClaim

    (tmp_path / "s.json").write_text(json.dumps({"a": 1}))  # the document states /a; the model says it states /z and /ok
    claim = StatedClaim("/z", Quantity(D(5), "1", "5"), "z", Location("s.json", "/z"), D(5), None, "5")
    model = Evidence(reader="profile:toy", files=(FileEntry("s.json", None, None),), claims=(claim,),
                     outcomes=(RecordedOutcome("ok", False, None, Location("s.json", "/ok")),))
    ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), options={"profile": {"id": "toy", "claim_documents": [{"file": "s.json"}]}},
                  run=RunData(evidence=model))
    assert [(f.status.value, f.code, f.pointer, f.observed) for f in coverage(ctx)] == [
        ("UNVERIFIED", "unchecked-claim", "/z", "5"), ("UNVERIFIED", "unchecked-claim", "/ok", "false")]
    ctx.run.examined = {("s.json", "/z"), ("s.json", "/ok")}
    assert [(f.status.value, f.code, f.observed) for f in coverage(ctx)] == [("PASS", "covered", {"compared": 2, "informational": 0})]


def test_profile_receipts_puts_the_claim_documents_into_the_model(tmp_path):
    root = _bundle(tmp_path)
    (root / "summary.json").write_text(json.dumps({"mean_ms": "636.7 ms", "passed": True}))
    (root / "broken.json").write_text("{")
    profile = {**_profile(), "claim_documents": [{"file": "summary.json"}, {"file": "broken.json"}]}
    ctx = Context(subject=root, assets=None, bundle=Tree(root), options={"profile": profile})
    list(documents(ctx))
    model = evidence(ctx)
    assert [(c.id, c.quantity) for c in model.claims] == [("/mean_ms", Quantity(D("636.7"), "ms", "636.7 ms"))]
    assert [(o.gate, o.passed) for o in model.outcomes] == [("passed", True)]
    assert [(u.where.file, u.code) for u in model.unmapped if u.what == "claim_documents"] == [("broken.json", "claim-unreadable")]  # type: ignore[union-attr]


def test_a_member_number_the_words_do_not_hold_is_unchecked_not_a_crash(tmp_path):
    from verifier.checks.profile_coverage import coverage
    from verifier.model.evidence import StatedClaim

    (tmp_path / "s.json").write_text("{}")
    claim = StatedClaim("/r#numbers/5", Quantity(D(1), "1", "1"), "ROUGE1: 31.4", Location("s.json", "/r#numbers/5"), D(1), None, "1")
    ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), options={"profile": {"id": "toy", "claim_documents": [{"file": "s.json"}]}},
                  run=RunData(evidence=Evidence(reader="profile:toy", files=(FileEntry("s.json", None, None),), claims=(claim,)), examined={("s.json", "/r#ROUGE1")}))
    assert [(f.status.value, f.code, f.pointer) for f in coverage(ctx)] == [("UNVERIFIED", "unchecked-claim", "/r#numbers/5")]


def test_a_quantity_in_the_asked_unit_is_returned_without_a_conversion(monkeypatch):
    """Issue 40: `Quantity.to` in its own unit (every receipt's `elapsed` to s) skips `units.convert`; other units still convert."""
    q = Quantity(Decimal("0.0050"), "s")
    assert q.to("ms") == Decimal(5)
    monkeypatch.setattr(units, "convert", lambda *a: (_ for _ in ()).throw(AssertionError("converted")))
    assert q.to("s") == Decimal("0.0050") and str(q.to("s")) == "0.0050"
