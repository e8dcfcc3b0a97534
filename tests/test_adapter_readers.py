"""The receipt adapters as readers onto the evidence model (issue 10, item 2): `verifier/adapters/readers.py`.

The model holds typed quantities (units of `verifier.units`), stated claims
with their location and what could not be mapped; the adapters' checks read
their samples and counts from it (a model that says otherwise than the
document is what they judge).
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from conftest import CORPUS, ROOT, SHARED

from verifier.adapters import readers, serving_record, vllm_bench
from verifier.evidence import Quantity
from verifier.jsonio import loads_strict
from verifier.pipeline import Context, run_pipeline
from verifier.trust import assets
from verifier.trustroot import TrustSet

ASCEND = sorted((CORPUS / "vllm-save-result-ascend").glob("*.json"))[0]  # aggregates only
H01 = ROOT / "tests" / "fixtures" / "vllm" / "h01-half-failed.json"  # per-request arrays, half the requests failed
SEED = SHARED / "seeds" / "serving-performance-record.json"
BUCKET = ["input_lens", "output_lens", "ttfts", "itls", "errors", "latencies", "start_times"]


def _run(module, path, evidence=None):
    """Run `module.PIPELINE` on the file at `path`; with `evidence`, the checks find that model already read."""
    ctx = Context(subject=path, assets=TrustSet(assets(None)), options={"document": loads_strict(path.read_bytes()), "name": path.name})
    if evidence is not None:
        ctx.data["evidence"] = evidence
    findings, _ = run_pipeline(module.PIPELINE, ctx)
    return findings


def test_a_vllm_result_reads_onto_typed_receipts_claims_and_plan():
    doc = loads_strict(H01.read_bytes())
    ev = readers.vllm_result(doc, H01.name, BUCKET)
    requests = [r for r in ev.receipts if r.dims["kind"] == "request"]
    assert len(requests) == doc["num_prompts"] and not ev.unmapped
    ok = [r for r in requests if r.ok]
    assert len(ok) == doc["completed"] < len(requests)
    assert sum(r.quantities["input"].value for r in ok) == doc["total_input_tokens"]
    assert requests[0].quantities["ttft"] == Quantity(Decimal(doc["ttfts"][0]), "s")
    assert requests[0].location.pointer == "/errors/0"
    claims = {c.id: c for c in ev.claims}
    assert (claims["request_throughput"].quantity.unit, claims["duration"].quantity.unit, claims["mean_ttft_ms"].quantity.unit,
            claims["total_output_tokens"].quantity.unit) == ("requests/s", "s", "ms", "tokens")
    assert claims["mean_ttft_ms"].location.pointer == "/mean_ttft_ms"
    assert claims["mean_ttft_ms"].quantity.to("s") == claims["mean_ttft_ms"].quantity.value / 1000
    assert ev.plan.per_server == {"measured": doc["num_prompts"]}
    itls = [r for r in ev.receipts if r.dims["kind"] == "itl"]
    assert len(itls) == sum(len(x) for x in doc["itls"])
    on_file = readers.vllm_result(loads_strict(ASCEND.read_bytes()), ASCEND.name, BUCKET)  # aggregates only: no receipts, said so
    assert not on_file.receipts and [u.what for u in on_file.unmapped] == ["per-request arrays"] and on_file.claims


def test_a_result_without_arrays_or_with_a_short_one_says_what_was_not_mapped():
    doc = loads_strict(H01.read_bytes())
    aggregates = {k: v for k, v in doc.items() if not isinstance(v, list)}
    ev = readers.vllm_result(aggregates, "r.json", BUCKET)
    assert not ev.receipts and [u.what for u in ev.unmapped] == ["per-request arrays"]
    short = dict(doc, ttfts=doc["ttfts"][:-1])
    ev = readers.vllm_result(short, "r.json", BUCKET)
    n = len(doc["ttfts"]) - 1
    assert sorted(u.what for u in ev.unmapped) == sorted(f"{k}[{n}:]" for k in BUCKET if k != "ttfts")
    assert len([r for r in ev.receipts if r.dims["kind"] == "request"]) == n


def test_a_serving_record_reads_cases_counts_and_metrics_in_their_units():
    doc = json.loads(SEED.read_text())
    ev = readers.serving_record(loads_strict(SEED.read_bytes()), SEED.name)
    assert len(ev.receipts) == len(doc["cases"])
    assert ev.receipts[0].quantities["duration"] == Quantity(Decimal(str(doc["cases"][0]["duration_ms"])), "ms")
    claims = {c.id: c for c in ev.claims}
    assert claims["counts/declared"].quantity.value == doc["counts"]["declared"]
    assert claims["completion_throughput_tps"].quantity.unit == "tok/s"
    assert claims["batch_duration_seconds"].quantity.to("ms") == Decimal(str(doc["metrics"][-1]["value"])) * 1000
    odd = loads_strict(SEED.read_bytes())
    odd["metrics"][0]["unit"] = "furlongs"
    odd["cases"][0]["duration_ms"] = None
    ev = readers.serving_record(odd, SEED.name)
    assert {c.id: c for c in ev.claims}[odd["metrics"][0]["id"]].quantity is None
    assert [u.where.pointer for u in ev.unmapped] == ["/metrics/0/value"]
    assert ev.receipts[0].quantities["duration"] is None


def test_the_vllm_checks_judge_the_model():
    """A model whose first successful request holds one more input token than the document: the token total FAILs."""
    doc = loads_strict(H01.read_bytes())
    ev = readers.vllm_result(doc, H01.name, BUCKET)
    first = next(i for i, r in enumerate(ev.receipts) if r.ok and r.dims["kind"] == "request")
    receipt = ev.receipts[first]
    bumped = dataclasses.replace(receipt, quantities={**receipt.quantities, "input": Quantity(receipt.quantities["input"].value + 1, "tokens")})
    tampered = dataclasses.replace(ev, receipts=ev.receipts[:first] + (bumped,) + ev.receipts[first + 1:])
    assert not [f for f in _run(vllm_bench, H01) if f.status == "FAIL"]
    fails = [(f.check, f.pointer) for f in _run(vllm_bench, H01, tampered) if f.status == "FAIL"]
    assert fails == [("vllm.requests", "/total_input_tokens")]


def test_the_serving_checks_judge_the_model():
    """A model with one case more, and one duration changed: the declared count and the median FAIL."""
    doc = loads_strict(SEED.read_bytes())
    ev = readers.serving_record(doc, SEED.name)
    longer = dataclasses.replace(ev.receipts[0], quantities={"duration": Quantity(Decimal("99999"), "ms")})
    tampered = dataclasses.replace(ev, receipts=(longer, *ev.receipts))
    fails = {(f.check, f.code, f.pointer) for f in _run(serving_record, SEED, tampered) if f.status == "FAIL"}
    assert ("serving.counts", "count-mismatch", "/counts/declared") in fails
    assert any(check == "serving.metrics" for check, _, _ in fails)
    assert not [f for f in _run(serving_record, SEED) if f.status == "FAIL"]
