"""
The checks of vLLM serving-benchmark results (`vllm bench serve --save-result`): the producer's own, under their own ids.

Run after `schema.documents` (the version chosen by the signatures of the
reader's `VERSIONS`, `verifier/adapters/vllm_bench.py`, then its pinned
schema), so each field read has the type that schema gives it. They read the
reader's model (`verifier.adapters.vllm_bench.model`: one receipt per prompt
with its quantities in s and tokens) and its validated document. In the plan
family: `vllm.requests` (the per-request ledger against the aggregates:
one entry per prompt, success counts, token totals, TTFT measured, H-03)
and `vllm.arrival` (the send times against the declared arrival process);
in the derivation family: `vllm.peak` (`max_concurrent_requests` as this
client's whole-second bucket peak, never engine concurrency; a declared
`max_concurrency` held by the exact overlap, H-05). No gate states rules for
a result, so this pack has no `gate.rules` (its family stands in).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from verifier.adapters.vllm_bench import _arrays, _doc, _requests, _unmeasured, _v
from verifier.engine import stats
from verifier.engine.derive import claim_finding
from verifier.model.findings import Finding, Status, finding
from verifier.engine.pipeline import Context, check

__all__ = ["ARRIVAL_ALPHA", "CHECKS", "arrival", "bucket_peak", "exact_peak", "peak", "requests"]


@check("vllm.requests", title="Per-request ledger: one entry per prompt, success counts, token totals, TTFT measured",
       requires=("schema.documents",))
def requests(ctx: Context) -> Iterator[Finding]:
    """
    Check the per-request arrays against the aggregates.

    UNVERIFIED `no-per-request-arrays` when the result kept aggregates only.
    FAIL `denominator-dropped` when an array has fewer entries than
    num_prompts (failed requests dropped), `count-mismatch` for completed or
    failed versus the errors, FAIL `claim-mismatch` for token totals, and FAIL
    `ttft-not-measured` per successful request with TTFT <= 0 or above its
    latency (H-03). PASS `derived` otherwise.
    """
    d, name = _doc(ctx)
    arrays = _arrays(ctx)
    if arrays is None:
        yield finding("vllm.requests", Status.UNVERIFIED, "no-per-request-arrays",
                f"{name}: the result keeps aggregates only (no {', '.join(ctx.run.profile['per_request_arrays'])}); "
                f"{d['completed']}/{d['num_prompts']} successful as stated, not re-derived", path=name)
        return
    n = d["num_prompts"]
    short = {k: len(v) for k, v in arrays.items() if len(v) != n}
    if short:
        yield finding("vllm.requests", Status.FAIL, "denominator-dropped",
                f"{name}: per-request arrays must hold one entry per prompt ({n}); got {short}: failed requests may have been dropped",
                path=name, pointer="/" + sorted(short)[0], expected=n, observed=short)
        return
    ok = _requests(ctx, ok=True)
    failed = n - len(ok)
    yield finding("vllm.requests", Status.PASS if d["completed"] == len(ok) else Status.FAIL,
            "derived" if d["completed"] == len(ok) else "count-mismatch",
            f"completed = {d['completed']}; the errors array gives {len(ok)}/{n} successful (success: error == '')",
            path=name, pointer="/completed", expected=len(ok), observed=d["completed"])
    if "failed" in d:
        yield finding("vllm.requests", Status.PASS if d["failed"] == failed else Status.FAIL,
                "derived" if d["failed"] == failed else "count-mismatch",
                f"failed = {d['failed']}; the errors array gives {failed}/{n} failed", path=name, pointer="/failed",
                expected=failed, observed=d["failed"])
    tin = sum((_v(r, "input") for r in ok), Decimal(0))
    tout = sum((_v(r, "output") for r in ok), Decimal(0))
    yield claim_finding("vllm.requests", d["total_input_tokens"], tin, name=name, pointer="/total_input_tokens",
                        label="total_input_tokens", how=f"sum of input_lens over {len(ok)}/{n} successful requests", exact=True)
    yield claim_finding("vllm.requests", d["total_output_tokens"], tout, name=name, pointer="/total_output_tokens",
                        label="total_output_tokens", how=f"sum of output_lens over {len(ok)}/{n} successful requests", exact=True)
    lat = "latencies" in arrays
    bad, every = _unmeasured(ctx, arrays), _requests(ctx)
    for i in bad:
        r = every[i]
        yield finding("vllm.requests", Status.FAIL, "ttft-not-measured",
                f"{name}: request {i} succeeded with TTFT {_v(r, 'ttft')} s" + (f" (latency {_v(r, 'latency')} s)" if lat else "")
                + ": TTFT must be > 0 and <= latency; 0.0 is the producer's 'not measured' default, not a measurement",
                path=name, pointer=f"/ttfts/{i}", observed=str(_v(r, "ttft")))
    if not bad:
        yield finding("vllm.requests", Status.PASS, "derived", f"every successful request ({len(ok)}/{n}) has 0 < TTFT" +
                (" <= latency" if lat else ""), path=name, pointer="/ttfts")


def bucket_peak(intervals: list[tuple[Decimal, Decimal]]) -> int:
    """
    Return vLLM's whole-second bucket peak of `intervals` ((start, end) seconds).

    Each interval is counted in every bucket int(start - min_start) ..
    int(end - min_start) inclusive; the maximum bucket count is returned
    (vLLM `calculate_metrics`, bucket era). 0 for no intervals. Computed as a
    sweep line over the 2n bucket boundaries (a count opens at the first
    bucket and closes after the last), so the cost is O(n log n) in the
    number of intervals, never in the number of seconds they span: a latency
    of 2**64 s costs what a latency of 1 s does.
    """
    if not intervals:
        return 0
    t0 = min(s for s, _ in intervals)
    events: list[tuple[int, int]] = []
    for s, e in intervals:
        first, last = int(s - t0), int(e - t0)
        if last >= first:  # an interval ending before it starts lies in no bucket (vLLM's empty range)
            events += [(first, 1), (last + 1, -1)]
    return stats.sweep_peak(events)


def exact_peak(intervals: list[tuple[Decimal, Decimal]]) -> int:
    """Return the exact peak overlap of half-open intervals [start, end) (`verifier.engine.stats.peak_in_flight`)."""
    return stats.peak_in_flight(intervals)


@check("vllm.peak", title="max_concurrent_requests is this client's whole-second bucket peak, not engine concurrency",
       requires=("schema.documents",))
def peak(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive `max_concurrent_requests` per the profile's `peak_concurrency`.

    With a declared `max_concurrency`, the exact sweep-line overlap of the
    successful requests (a lower bound on in-flight requests) must not exceed
    it: PASS `cap-held` / FAIL `cap-exceeded` (field-failures H-05).
    PASS `derived` (observed: the claimed and derived peaks, which make it a
    row of the claims table, scope `client-own-successful-requests`,
    `engine_observation: false`, the exact client peak beside the bucket
    peak) / FAIL `claim-mismatch`; UNVERIFIED `not-retained` without
    start_times and latencies. Nothing here is engine concurrency or foreign
    traffic; a bucket peak above the exact client peak is bucketing.
    """
    d, name = _doc(ctx)
    definition = ctx.run.profile.get("peak_concurrency")
    if "max_concurrent_requests" not in d or definition is None:
        yield finding("vllm.peak", Status.PASS, "not-claimed", f"{name}: this version reports no peak concurrency", path=name)
        return
    claimed = d["max_concurrent_requests"]
    arrays = _arrays(ctx)
    scope = {"scope": "client-own-successful-requests", "engine_observation": False, "foreign_traffic_evidence": False}
    if arrays is None or any(len(v) != d["num_prompts"] for v in arrays.values()):  # a short array is vllm.requests' FAIL
        yield finding("vllm.peak", Status.UNVERIFIED, "not-retained",
                f"max_concurrent_requests = {claimed}: not re-derived (no per-request start_times/latencies); "
                "it counts only this client's own successful requests in whole-second buckets: not engine concurrency",
                path=name, pointer="/max_concurrent_requests", observed={"claimed": claimed, **scope})
        return
    ok = _requests(ctx, ok=True)
    iv = [(_v(r, "start"), _v(r, "start") + _v(r, "latency")) for r in ok]
    bp, xp = bucket_peak(iv), exact_peak(iv)
    cap = d.get("max_concurrency")
    if isinstance(cap, int) and not isinstance(cap, bool):
        held = xp <= cap
        yield finding("vllm.peak", Status.PASS if held else Status.FAIL, "cap-held" if held else "cap-exceeded",
                f"declared max_concurrency = {cap}; the exact overlap of {len(ok)} successful client requests peaks at {xp}"
                + ("" if held else ": the executed run exceeded its declared cap (H-05)"),
                path=name, pointer="/max_concurrency", expected=cap, observed={"exact_client_peak": xp},
                derivation="sweep line over [start, start + latency) of successful requests (a lower bound on in-flight requests)")
    obs = {"claimed": claimed, "derived": bp, "bucket_peak": bp, "exact_client_peak": xp, "declared_max_concurrency": d.get("max_concurrency"), **scope}
    how = (f"whole-second bucket peak (inclusive int buckets) of {len(ok)}/{len(arrays['errors'])} successful client requests "
           f"(exact client peak {xp})")
    if claimed == bp:
        yield finding("vllm.peak", Status.PASS, "derived",
                f"max_concurrent_requests = {claimed} re-derives as the {how}; it is the client's own second-bucket count, "
                "not engine concurrency and not evidence of foreign traffic", path=name, pointer="/max_concurrent_requests",
                expected=bp, observed=obs, derivation=how)
    else:
        yield finding("vllm.peak", Status.FAIL, "claim-mismatch", f"max_concurrent_requests = {claimed}, but the {how} gives {bp}",
                path=name, pointer="/max_concurrent_requests", expected=bp, observed=obs, derivation=how)


#: A declared arrival process is contradicted when sends this fast have at most this probability under it.
ARRIVAL_ALPHA = Decimal("1e-6")


@check("vllm.arrival", title="The observed send times are not faster than the declared arrival process (request_rate, burstiness)",
       requires=("schema.documents",))
def arrival(ctx: Context) -> Iterator[Finding]:
    """
    Test the declared arrival process against the retained `start_times`.

    vLLM draws inter-send gaps from a gamma distribution with shape
    `burstiness` and mean 1/`request_rate` (`vllm/benchmarks/serve.py`,
    `get_request`), so the span S from first to last of n sends is
    Gamma(k = (n-1) b, scale 1/(r b)), mean (n-1)/r. A concurrency cap can only
    slow sends down, so only "too fast" is a contradiction. With x = S r /
    (n-1) < 1 the Chernoff bound P(S <= s) <= exp(-k (x - 1 - ln x)) (e.g.
    Boucheron, Lugosi & Massart 2013, section 2.4, gamma tail) below
    `ARRIVAL_ALPHA` FAILs `sends-faster-than-declared`; otherwise PASS.
    `request_rate: "inf"` declares no pacing (PASS `not-paced`); without
    start times, UNVERIFIED `not-retained`.
    """
    import math

    d, name = _doc(ctx)
    rate, burst = d.get("request_rate"), d.get("burstiness")
    if rate is None or rate == "inf":
        yield finding("vllm.arrival", Status.PASS, "not-paced", f"{name}: request_rate {rate!r} declares no pacing; no send is too early",
                path=name, pointer="/request_rate")
        return
    starts = (_arrays(ctx) or {}).get("start_times")  # only arrays the profile names, so typed by its schema
    if not isinstance(starts, list) or len(starts) < 2:
        yield finding("vllm.arrival", Status.UNVERIFIED, "not-retained",
                f"{name}: request_rate {rate} declared, but fewer than two send times are retained: the arrival process is not observed",
                path=name, pointer="/request_rate")
        return
    r, b = Decimal(rate), Decimal(burst if burst is not None else 1)
    gaps = len(starts) - 1
    span = Decimal(max(starts)) - Decimal(min(starts))
    x = span * r / gaps
    k = gaps * b
    bound = Decimal(1) if x >= 1 else (Decimal(0) if x <= 0 else Decimal(math.exp(-float(k) * (float(x) - 1 - math.log(float(x))))))
    how = (f"{gaps + 1} sends over {span} s: observed rate {(gaps / span) if span else 'unbounded'} /s against the declared "
           f"{r} /s (burstiness {b}); P(span <= observed) <= {bound:.3g} under Gamma(k={k}, scale=1/(r b)) (Chernoff)")
    detail = {"sends": gaps + 1, "span_s": str(span), "declared_rate": str(r), "burstiness": str(b), "probability_bound": f"{bound:.3g}",
              "alpha": str(ARRIVAL_ALPHA)}
    if bound < ARRIVAL_ALPHA:
        yield finding("vllm.arrival", Status.FAIL, "sends-faster-than-declared",
                f"{name}: requests were sent faster than the declared arrival process: {how}", path=name, pointer="/start_times",
                expected=f"rate <= {r} /s", observed=detail, derivation=how)
    else:
        yield finding("vllm.arrival", Status.PASS, "arrival-consistent", f"{name}: send times are consistent with the declared rate: {how}",
                path=name, pointer="/start_times", observed=detail, derivation=how)


#: The producer's checks in the order `verifier.core.receipt_pipeline` hands them to `roster.in_families`: plan (the
#: per-prompt ledger, the declared arrival process), derivation (the peak); it adds the reader's `schema.documents` (the
#: version chosen by `VERSIONS`, then its schema) and `derivation.claims` (`stated`) and the stand-ins, in roster order.
CHECKS = (requests, arrival, peak)
