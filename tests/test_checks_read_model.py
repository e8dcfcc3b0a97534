"""Check families read the evidence model (`verifier.evidence`), not the v1 documents (issue 10, item 1): one section at a time."""

from __future__ import annotations

from conftest import EXAMPLE

from verifier.bundle import Bundle
from verifier.core import BUNDLE_PIPELINE
from verifier.evidence import Evidence, Location, ProcessReceipt
from verifier.pipeline import Context, run_pipeline
from verifier.readers.native import evidence_of
from verifier.trust import assets


def _run_until(check_id: str, data: dict) -> list:
    steps = BUNDLE_PIPELINE[: [c.id for c in BUNDLE_PIPELINE].index(check_id) + 1]
    ctx = Context(subject=EXAMPLE, assets=assets(None), bundle=Bundle(root=EXAMPLE), data=data)
    findings, _roster = run_pipeline(steps, ctx)
    return [f for f in findings if f.check == check_id]


def test_worker_exits_are_judged_from_the_model_not_the_receipts_file():
    # the example's workers all exited 0; a model saying otherwise must be what the check judges
    model = Evidence(reader="test", processes=(
        ProcessReceipt("A1-worker0", 137, "SIGKILL", None, None, Location("receipts.jsonl", "/7"), {"server": "A1", "arm": "baseline"}),))
    found = _run_until("plan.conformance", {"evidence": model})
    bad = [f for f in found if f.code == "worker-exit"]
    assert len(bad) == 1 and bad[0].pointer == "/7" and "on A1 exited with code 137, signal SIGKILL" in bad[0].message
    assert not any(f.code == "workers" for f in found)


def test_the_native_reader_gives_workers_their_server_and_report_pointer():
    data: dict = {}
    found = _run_until("plan.conformance", data)
    assert ("PASS", "workers") in {(f.status, f.code) for f in found}
    ctx = Context(subject=EXAMPLE, assets=assets(None), bundle=Bundle(root=EXAMPLE), data=data)
    workers = evidence_of(ctx).processes
    assert workers and all(w.dims.get("server") and w.location.pointer.startswith("/") for w in workers)
