"""The receipt adapters as readers onto the evidence model (issue 10, item 2): `verifier/adapters/readers.py`.

The model holds typed quantities (units of `verifier.model.units`), stated claims
with their location and what could not be mapped; the producers' checks (their rule packs, verifier/checks/packs/) read
their samples and counts from it (a model that says otherwise than the
document is what they judge).
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from conftest import CORPUS, ROOT, SHARED

from verifier.adapters import http_matrix, readers, serving_record, telemetry, vllm_bench
from verifier.core import receipt_pipeline
from verifier.model.evidence import Quantity
from verifier.formats.jsonio import loads_strict
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets
from verifier.trust.trustroot import TrustSet

ASCEND = sorted((CORPUS / "vllm-save-result-ascend").glob("*.json"))[0]  # aggregates only
H01 = ROOT / "tests" / "fixtures" / "vllm" / "h01-half-failed.json"  # per-request arrays, half the requests failed
SEED = SHARED / "seeds" / "serving-performance-record.json"
TELEMETRY = ROOT / "tests" / "fixtures" / "telemetry" / "good"
MATRIX = ROOT / "tests" / "fixtures" / "matrix" / "good"
BUCKET = ["input_lens", "output_lens", "ttfts", "itls", "errors", "latencies", "start_times"]


def _run(module, path, evidence=None):
    """Run the reader's pipeline (`core.receipt_pipeline`) on the file or directory at `path`; with `evidence`, the checks find that model already read."""
    options = {"directory": path, "name": path.name} if path.is_dir() else {"document": loads_strict(path.read_bytes()), "name": path.name}
    ctx = Context(subject=path, assets=TrustSet(assets(None)), options={"reader": module, **options})
    if evidence is not None:
        ctx.run.evidence = evidence
    findings, _ = run_pipeline(receipt_pipeline(module), ctx)
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
    assert ("derivation.claims", "count-mismatch", "/counts/declared") in fails
    assert ("derivation.claims", "samples-mismatch", "/metrics/3/samples") in fails  # the median's sample: a case more
    assert not [f for f in _run(serving_record, SEED) if f.status == "FAIL"]


def test_a_telemetry_receipt_reads_onto_a_process_receipt_carriers_claims_and_plan():
    receipt = loads_strict((TELEMETRY / "telemetry-receipt.json").read_bytes())
    ev = readers.telemetry_receipt(receipt, "telemetry-receipt.json")
    (bench,) = ev.processes
    assert (bench.exit_code, bench.stdout, bench.stderr, bench.dims["outcome"]) == (0, "bench.stdout", "bench.stderr", "exited")
    assert {f.path for f in ev.files} == {item["path"] for item in receipt["evidence"].values()}
    assert all(f.listed_in[0].startswith("telemetry-receipt.json#/evidence/") and len(f.sha256) == 64 for f in ev.files)
    claims = {c.id: c for c in ev.claims}
    assert claims["latency_ms/p99_itl"].quantity == Quantity(Decimal("140.0"), "ms", "140.0")
    assert claims["rate/output_tokens_per_s"].quantity.unit == "tokens/s" and claims["output_tokens"].quantity.unit == "tokens"
    assert claims["latency_ms/p99_itl"].location.pointer == "/facts/latency_ms/p99_itl"
    assert (ev.plan.concurrency, ev.plan.arrival, ev.plan.per_server) == (2, "send-all", {"measured": 4}) and not ev.unmapped
    receipt["execution"] = {"outcome": "unreachable", "cause": "ssh: timed out"}
    receipt["facts"] = {"output_tokens": None, "new_fact": 3}
    ev = readers.telemetry_receipt(receipt, "telemetry-receipt.json")
    assert (ev.processes[0].exit_code, ev.processes[0].dims["cause"]) == (None, "ssh: timed out")
    assert [c.id for c in ev.claims] == ["new_fact"] and ev.claims[0].quantity is None  # a null is not stated
    assert [u.what for u in ev.unmapped] == ["facts/new_fact"]


def test_the_telemetry_checks_judge_the_model():
    """A model whose process exited 1 and whose output_tokens differs from the document: the process and replay checks FAIL."""
    ev = readers.telemetry_receipt(loads_strict((TELEMETRY / "telemetry-receipt.json").read_bytes()), "telemetry-receipt.json")
    assert not [f for f in _run(telemetry, TELEMETRY) if f.status == "FAIL"]
    failed = dataclasses.replace(ev, processes=(dataclasses.replace(ev.processes[0], exit_code=1),))
    assert ("telemetry.process", "facts-from-failed-process") in {(f.check, f.code) for f in _run(telemetry, TELEMETRY, failed)}
    claims = tuple(dataclasses.replace(c, quantity=Quantity(c.quantity.value + 1, "tokens")) if c.id == "output_tokens" else c
                   for c in ev.claims)
    fails = {(f.check, f.pointer) for f in _run(telemetry, TELEMETRY, dataclasses.replace(ev, claims=claims)) if f.status == "FAIL"}
    assert ("derivation.claims", "/facts/output_tokens") in fails


def _matrix_docs():
    lines = [loads_strict(x.encode()) for x in (MATRIX / "responses.jsonl").read_text().splitlines()]
    return {"responses.jsonl": lines, **{n: loads_strict((MATRIX / n).read_bytes()) for n in ("plan.json", "config.json", "summary.json")}}


def test_an_http_matrix_reads_onto_line_receipts_round_claims_and_the_pinned_plan():
    docs = _matrix_docs()
    ev = readers.http_matrix(docs, "ok")
    assert len(ev.receipts) == len(docs["responses.jsonl"])
    first = ev.receipts[0]
    assert first.dims == {"phase": "warmup", "case": "short", "concurrency": "1", "round": "0", "index": "0", "outcome": "ok"}
    assert first.quantities["latency"] == Quantity(Decimal("0.05"), "s") and first.location.pointer == "/0" and first.ok
    claims = {c.id: c for c in ev.claims}
    assert claims["rounds/0/p50_ms"].quantity.unit == "ms" and claims["rounds/0/throughput_rps"].quantity.unit == "requests/s"
    assert claims["rounds/0/steady_state/seconds"].location.pointer == "/rounds/0/steady_state/seconds"
    assert claims["denominators/planned"].quantity.value == docs["summary.json"]["denominators"]["planned"]
    assert [(f.path, f.sha256, f.listed_in) for f in ev.files] == [("plan.json", docs["config.json"]["plan_sha256"].lower(),
                                                                    ("config.json#/plan_sha256",))]
    assert (ev.plan.per_server, ev.plan.concurrency, ev.plan.timeouts["request"].to("ms")) == ({"measured": 4, "warmup": 2}, 2, 30000)


def test_the_matrix_checks_judge_the_model():
    """A model whose first measured line took 1 s longer, and whose first p95 says 1 ms more: percentiles and throughput FAIL."""
    docs = _matrix_docs()
    ev = readers.http_matrix(docs, "ok")
    assert not [f for f in _run(http_matrix, MATRIX) if f.status == "FAIL"]
    i = next(i for i, r in enumerate(ev.receipts) if r.dims["phase"] == "measured")
    slow = dataclasses.replace(ev.receipts[i], quantities={**ev.receipts[i].quantities, "latency": Quantity(Decimal(1), "s"),
                                                           "completed": Quantity(Decimal(10**6), "s")})
    tampered = dataclasses.replace(ev, receipts=ev.receipts[:i] + (slow,) + ev.receipts[i + 1:])
    fails = {(f.check, f.pointer) for f in _run(http_matrix, MATRIX, tampered) if f.status == "FAIL"}
    assert {("derivation.claims", "/rounds/0/p95_ms"), ("derivation.claims", "/rounds/0/wave_seconds")} <= fails
    claims = tuple(dataclasses.replace(c, quantity=Quantity(c.quantity.value + 1, "ms")) if c.id == "rounds/0/p95_ms" else c
                   for c in ev.claims)
    fails = {(f.check, f.pointer) for f in _run(http_matrix, MATRIX, dataclasses.replace(ev, claims=claims)) if f.status == "FAIL"}
    assert fails == {("derivation.claims", "/rounds/0/p95_ms")}
