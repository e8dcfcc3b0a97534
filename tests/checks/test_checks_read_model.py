"""Check families read the evidence model (`verifier.model.evidence`), not the v1 documents (issue 10, item 1): one section at a time."""

from __future__ import annotations

import pytest

from conftest import EXAMPLE

from verifier.formats.bundle import Bundle
from verifier.core import BUNDLE_PIPELINE
from verifier.model.evidence import Evidence, Location, ProcessReceipt
from verifier.engine.pipeline import Context, RunData, run_pipeline
from verifier.readers.native import evidence_of
from verifier.trust.assets import assets


def _run_until(check_id: str, run: RunData) -> list:
    steps = BUNDLE_PIPELINE[: [c.id for c in BUNDLE_PIPELINE].index(check_id) + 1]
    ctx = Context(subject=EXAMPLE, assets=assets(None), bundle=Bundle(root=EXAMPLE), run=run)
    findings, _roster = run_pipeline(steps, ctx)
    return [f for f in findings if f.check == check_id]


def test_worker_exits_are_judged_from_the_model_not_the_receipts_file():
    # the example's workers all exited 0; a model saying otherwise must be what the check judges
    model = Evidence(reader="test", processes=(
        ProcessReceipt("A1-worker0", 137, "SIGKILL", None, None, Location("receipts.jsonl", "/7"), {"server": "A1", "arm": "baseline"}),))
    found = _run_until("plan.conformance", RunData(evidence=model))
    bad = [f for f in found if f.code == "worker-exit"]
    assert len(bad) == 1 and bad[0].pointer == "/7" and "on A1 exited with code 137, signal SIGKILL" in bad[0].message
    assert not any(f.code == "workers" for f in found)


def test_the_native_reader_gives_workers_their_server_and_report_pointer():
    run = RunData()
    found = _run_until("plan.conformance", run)
    assert ("PASS", "workers") in {(f.status, f.code) for f in found}
    ctx = Context(subject=EXAMPLE, assets=assets(None), bundle=Bundle(root=EXAMPLE), run=run)
    workers = evidence_of(ctx).processes
    assert workers and all(w.dims.get("server") and w.location.pointer.startswith("/") for w in workers)


# Every native family reads the model the reader built (issue 10, item 3): a model that says otherwise than the
# bundle's documents is what each check judges. Each model below is the example's own documents, read by the native
# reader (`from_documents`) after one edit, and put in place of the run's model.

import copy  # noqa: E402
from decimal import Decimal  # noqa: E402

from verifier.formats.jsonio import loads_strict, loads_strict_lines  # noqa: E402
from verifier.readers.native import from_documents  # noqa: E402


def _documents() -> tuple[dict, dict]:
    docs = {kind: loads_strict((EXAMPLE / name).read_bytes())
            for kind, name in (("plan", "plan.json"), ("claims", "claims.json"), ("quality", "quality-index.json"))}
    docs["receipts"] = loads_strict_lines((EXAMPLE / "receipts.jsonl").read_bytes())
    return docs, loads_strict((EXAMPLE / "manifest.json").read_bytes())


def _edited(edit) -> Evidence:
    docs, manifest = _documents()
    docs = copy.deepcopy(docs)
    edit(docs, manifest)
    return from_documents(docs, manifest=manifest, names={}, gate=manifest["gate"])


def _codes(found: list) -> set:
    return {(f.status, f.code) for f in found}


def test_the_native_model_of_the_example_is_judged_as_the_bundle():
    assert _codes(_run_until("derivation.claims", RunData(evidence=_edited(lambda d, m: None)))) == {("PASS", "derived")}


def test_derivation_judges_the_models_claims():
    def edit(docs, _m):
        docs["claims"]["claims"][0]["value"] += Decimal(1)
    found = _run_until("derivation.claims", RunData(evidence=_edited(edit)))
    assert ("FAIL", "claim-mismatch") in _codes(found)


def test_plan_conformance_judges_the_models_receipts():
    def edit(docs, _m):
        next(r for r in docs["receipts"] if r.get("request_id") == "A1-w2")["phase"] = "measured"
    found = _run_until("plan.conformance", RunData(evidence=_edited(edit)))
    assert ("FAIL", "receipt-disagrees") in _codes(found) and ("PASS", "requests") not in _codes(found)


@pytest.mark.parametrize("key,value", [("server", "B1"), ("arm", "candidate"), ("phase", "measured")])
def test_a_receipt_disagreeing_with_its_plan_in_one_dimension_alone_fails(key, value):
    """Each of server, arm and phase is compared (plan.conformance compares the three at once before building messages)."""
    def edit(docs, _m):
        receipt = next(r for r in docs["receipts"] if r.get("request_id") == "A1-w2")
        assert receipt[key] != value
        receipt[key] = value
    found = _run_until("plan.conformance", RunData(evidence=_edited(edit)))
    disagree = [f for f in found if f.code == "receipt-disagrees"]
    assert len(disagree) == 1 and disagree[0].observed[key] == value and ("PASS", "requests") not in _codes(found)


def test_receipt_consistency_judges_the_models_status_and_timeouts():
    def edit(docs, _m):
        first = next(r for r in docs["receipts"] if r["kind"] == "request")
        first["http_status"] = 500
        docs["plan"]["timeouts"] = {"request_s": Decimal("0.5")}
    found = _run_until("receipts.consistency", RunData(evidence=_edited(edit)))
    assert {("FAIL", "outcome-contradicts-status"), ("FAIL", "ok-after-timeout")} <= _codes(found)


def test_attempts_are_the_models_declared_attempts():
    def edit(_d, manifest):
        next(e for e in manifest["files"] if e["path"] == "README.md")["role"] = "rejected-attempt"
    found = _run_until("attempts.retained", RunData(evidence=_edited(edit)))
    assert ("FAIL", "attempt-not-receipts") in _codes(found)


def test_recorded_quality_judges_the_models_scores_and_scorers():
    def edit(docs, _m):
        docs["quality"]["comparisons"][0]["scores"]["ssim"] = Decimal("0.5")
        docs["quality"]["scorers"]["audio_cosine"] = {"id": "another"}  # another metric: a differing scorer's scores are refused (issue 39)
    found = _run_until("quality.recorded", RunData(evidence=_edited(edit)))
    assert {("FAIL", "threshold-missed"), ("FAIL", "scorer-identity-differs")} <= _codes(found)


def test_coverage_lists_the_media_the_model_names():
    def edit(docs, _m):
        docs["quality"]["comparisons"][0]["candidate"] = "media/elsewhere.mp4"
    found = _run_until("coverage.streams", RunData(evidence=_edited(edit)))
    assert [f.path for f in found if f.code == "media-not-verified"] == ["media/elsewhere.mp4"]


def test_rescoring_scores_the_models_comparisons():
    def edit(docs, _m):
        for comparison in docs["quality"]["comparisons"]:
            comparison["reference"] = "media/elsewhere.mp4"
    found = _run_until("quality.rescore", RunData(evidence=_edited(edit)))
    skipped = [f for f in found if f.code == "scoring-media-not-verified"]
    assert len(skipped) == 14 and {f.observed for f in skipped} == {"media/elsewhere.mp4"}


def test_stated_claims_bind_the_models_prose_and_outcomes():
    def edit(docs, _m):
        docs["claims"]["headline"] = "HTTP E2E went 407.27 s -> 108.12 s, 70.00 % lower."
        docs["claims"]["outcomes"] = [{"gate": "quality", "passed": False, "covers": "all"}]
    found = _run_until("claims.stated", RunData(evidence=_edited(edit)))
    codes = _codes(found)
    assert ("FAIL", "outcome-contradicted") in codes
    assert any(f.code == "claim-mismatch" and f.observed["source"] == "claims.json#/headline" and f.observed["stated"].startswith("70.00")
               for f in found)


def _model_only_run(bundle) -> list:
    """Run the pipeline up to `claims.stated` (no media) on `bundle`; return its findings."""
    steps = BUNDLE_PIPELINE[: [c.id for c in BUNDLE_PIPELINE].index("claims.stated") + 1]
    steps = tuple(c for c in steps if c.id != "coverage.streams")
    ctx = Context(subject=bundle, assets=assets(None), bundle=Bundle(root=bundle))
    return run_pipeline(steps, ctx)[0]


def test_a_part_the_reader_could_not_use_is_one_unverified_finding_per_check(example_copy):
    from bundlekit import rehash

    receipts = example_copy / "receipts.jsonl"
    receipts.write_text(receipts.read_text().replace('"elapsed_s": 396.3', '"elapsed_s": "396.3"', 1))
    rehash(example_copy)
    found = _model_only_run(example_copy)
    assert any(f.check == "schema.documents" and f.status == "FAIL" for f in found)
    for check_id in ("plan.conformance", "receipts.consistency", "derivation.claims"):
        mine = [(f.status, f.code, f.path) for f in found if f.check == check_id]
        assert mine == [("UNVERIFIED", "blocked-by-schema", "receipts.jsonl")], (check_id, mine)


def test_an_absent_claims_document_is_not_in_evidence(example_copy):
    from bundlekit import rehash

    (example_copy / "claims.json").unlink()
    rehash(example_copy)
    found = _model_only_run(example_copy)
    for check_id in ("derivation.claims",):
        assert [(f.status, f.code) for f in found if f.check == check_id] == [("UNVERIFIED", "not-in-evidence")], check_id
