"""
Frozen HTTP matrix outputs whose runner wrote raw binary64 clock readings (`time.perf_counter`: seconds since boot,
1e5..1e7 s; or epoch seconds, 1.76e9 s) with Python's `repr`: each wave, window and throughput the runner computed in
binary64 from those clocks carries their rounding error, which `stats.tolerance` bounds (docs/tolerances.md,
"difference of clocks"). An honest output PASSes at every magnitude; a number off by more than the bound FAILs.

The runner model (`_output`) is independent of the verifier: plain floats, `math.ceil`, `statistics.median`, `round(x, 6)`.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import statistics
from decimal import Decimal
from pathlib import Path

import pytest

from verifier.engine import stats
from verifier.core import verify_path

CLAIMS = "derivation.claims"
METADATA = {k: "x" for k in ("gpu", "gpu_ids", "driver", "cuda", "precision", "model_revision", "runtime_revision", "cache_policy",
                             "cuda_evidence", "reservation", "host")}
RAW_OK = "eyJhbnN3ZXIiOiAib2sifQ=="  # base64 of {"answer": "ok"}
#: seconds since boot of a long-running host, and epoch seconds (time.time, or perf_counter on some platforms)
MAGNITUDES = (1e5, 1e6, 1e7, 1.764e9)


def _nearest_rank(xs: list[float], q: int) -> float:
    s = sorted(xs)
    return s[max(1, math.ceil(q * len(s) / 100)) - 1]


def _spread(values: list[float]) -> dict | None:
    if not values:
        return None
    low, mid, high = min(values), statistics.median(values), max(values)
    return {"rounds": len(values), "min": low, "median": mid, "max": high, "relative_spread": (high - low) / mid}


def _output(d: Path, clock: float, seed: int, *, repetitions: int = 2, n: int = 5, levels: tuple[int, ...] = (1, 2),
            latency: tuple[float, float] = (0.01, 0.05)) -> Path:
    """Write a complete matrix output as the runner would: raw float clocks (repr), its numbers rounded to 6 places."""
    rnd = random.Random(seed)
    clock += rnd.random()
    plan = {"name": "clocks", "base_url": "http://127.0.0.1:8000", "metadata": METADATA,
            "cases": [{"id": "short", "path": "/v1/infer", "body": {"prompt": "hi"}, "oracle": {"exact_json": {"answer": "ok"}}}],
            "concurrency": list(levels), "requests_per_case": n, "repetitions": repetitions, "warmup_per_case": 2, "timeout_seconds": 30}
    lines, rounds = [], []
    for c in levels:
        for w in range(2):
            lat = rnd.uniform(0.01, 0.05)
            lines.append({"phase": "warmup", "case": "short", "concurrency": c, "round": 0, "index": w, "outcome": "ok", "http_status": 200,
                          "latency_seconds": (clock + lat) - clock, "dispatched_at_monotonic_seconds": clock,
                          "completed_at_monotonic_seconds": clock + lat, "connect_seconds": 0.0004, "raw_response_base64": RAW_OK})
            clock += lat
        for r in range(1, repetitions + 1):
            free, mine = [clock] * c, []
            for i in range(n):
                w = min(range(c), key=lambda k: free[k])
                start, lat = free[w], rnd.uniform(*latency)
                mine.append({"phase": "measured", "case": "short", "concurrency": c, "round": r, "index": i, "outcome": "ok", "http_status": 200,
                             "latency_seconds": (start + lat) - start, "dispatched_at_monotonic_seconds": start,
                             "completed_at_monotonic_seconds": start + lat, "connect_seconds": 0.0004, "raw_response_base64": RAW_OK})
                free[w] = start + lat
            lines += mine
            first = min(x["dispatched_at_monotonic_seconds"] for x in mine)
            last = max(x["completed_at_monotonic_seconds"] for x in mine)
            clock = last + 0.01
            ms = [x["latency_seconds"] * 1000 for x in mine]
            wave = last - first
            t = sorted(x["completed_at_monotonic_seconds"] for x in mine)
            row = {"case": "short", "concurrency": c, "round": r, "planned": n, "attempted": n, "successful": n, "status": "complete",
                   "throughput_scope": "complete_wave_including_ramp_and_drain", "p50_ms": round(_nearest_rank(ms, 50), 6),
                   "p95_ms": round(_nearest_rank(ms, 95), 6), "wave_seconds": round(wave, 6), "throughput_rps": round(n / wave, 6)}
            if n > 2 * c:
                secs = t[n - c - 1] - t[c - 1]
                row["steady_state"] = {"available": True, "excluded_each_end": c, "requests": n - 2 * c, "seconds": round(secs, 6),
                                       "throughput_rps": round((n - 2 * c) / secs, 6)}
            else:
                row["steady_state"] = {"available": False, "excluded_each_end": c, "reason": f"n = {n} <= 2c = {2 * c}: no interior window"}
            rounds.append(row)
    aggregates = []
    for c in levels:
        done = [x for x in rounds if x["concurrency"] == c]
        metrics = {k: _spread([x[k] for x in done]) for k in ("throughput_rps", "p50_ms", "p95_ms")}
        metrics["steady_state_throughput_rps"] = _spread([x["steady_state"]["throughput_rps"] for x in done if x["steady_state"]["available"]])
        aggregates.append({"case": "short", "concurrency": c, "complete_rounds": len(done), "metrics": metrics})
    total = len(levels) * repetitions * n
    summary = {"complete": True, "stopped_after_failure": False, "failures": {},
               "denominators": {"planned": total, "attempted": total, "successful": total},
               "excluded_phases": ["health", "readiness", "warmup", "feasibility"], "rounds": rounds, "round_aggregates": aggregates}
    d.mkdir(parents=True)
    plan_bytes = (json.dumps(plan, indent=2) + "\n").encode()
    (d / "plan.json").write_bytes(plan_bytes)
    config = {"runner": "benchmarks/serving_matrix.py", "output_version": 1, "plan_sha256": hashlib.sha256(plan_bytes).hexdigest(),
              "runner_sha256": "0" * 64, "started_at": "2026-10-13T08:00:00Z", "finished_at": "2026-10-13T08:00:05Z",
              "client": {"hostname": "client-1", "platform": "Linux-6.8-x86_64", "python_version": "3.12.8", "cpu_count": 16},
              "effective_budget": {"repetitions": repetitions, "warmup_per_case": 2}}
    (d / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (d / "responses.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))  # json writes a float as repr does
    (d / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return d


def _claims(report) -> dict[str, object]:
    return {f.pointer: f for f in report.findings if f.check == CLAIMS}


@pytest.mark.parametrize("magnitude", MAGNITUDES)
def test_an_honest_runner_writing_raw_float_clocks_passes_at_every_magnitude(tmp_path, magnitude):
    """Ten seeded runs per magnitude (the trial: 2/10 FAIL at 1e6, 8/10 at 1e7, 10/10 at epoch seconds before the clock term)."""
    for seed in range(10):
        report = verify_path(str(_output(tmp_path / f"s{seed}", magnitude, seed)))
        bad = [(f.check, f.code, f.message) for f in report.findings if f.status.value in ("FAIL", "ERROR")]
        assert not bad, (seed, bad)
        assert report.verdict == "INCOMPLETE"  # runner_sha256 is recorded, not checked


WAVE_CLAIMS = ("wave_seconds", "throughput_rps", "steady_state/seconds", "steady_state/throughput_rps")


@pytest.mark.parametrize("magnitude", MAGNITUDES)
@pytest.mark.parametrize("member", WAVE_CLAIMS)
def test_a_wave_number_off_by_more_than_its_bound_fails_at_every_magnitude(tmp_path, magnitude, member):
    """The bound carries the clocks' error and no more: the derived value moved by 1.01 bounds either way (6 places, rounded away) FAILs."""
    honest = _claims(verify_path(str(_output(tmp_path / "honest", magnitude, 3))))
    pointer = f"/rounds/1/{member}"
    assert honest[pointer].status.value == "PASS"
    shown = re.search(r" re-derives \((\S+)\) from ", honest[pointer].message).group(1)  # the stated places plus two, not 50 digits
    assert len(shown.split(".")[1]) <= len(honest[pointer].observed["claimed"].split(".")[1]) + 2, honest[pointer].message
    derived, tol = Decimal(honest[pointer].expected), Decimal(honest[pointer].observed["tolerance"])
    for factor in (Decimal("1.01"), Decimal("-1.01")):
        d = _output(tmp_path / f"{factor}", magnitude, 3)
        summary = json.loads((d / "summary.json").read_text())
        node = summary["rounds"][1]
        *parents, leaf = member.split("/")
        for p in parents:
            node = node[p]
        wrong = (derived + factor * tol).quantize(Decimal("0.000001"), rounding="ROUND_UP" if factor > 0 else "ROUND_DOWN")  # away from the derived value (> 0)
        if wrong % Decimal("0.00001") == 0:  # a sixth place of 0 would print with five (a coarser half unit)
            wrong += Decimal("0.000001") if factor > 0 else Decimal("-0.000001")
        node[leaf] = float(wrong)
        (d / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        found = _claims(verify_path(str(d)))[pointer]
        assert (found.status.value, found.code) == ("FAIL", "claim-mismatch"), (factor, found.message)
        # the message writes the derived value and the delta at the stated places plus two (the exact ones stay in the finding)
        said = re.search(r" gives (\S+) \(delta (\S+), tolerance (\S+): docs/tolerances.md\)$", found.message)
        assert said and all(len(x.split(".")[1]) <= 8 for x in said.groups()[:2]), found.message
        assert Decimal(found.expected) == derived and Decimal(said.group(1)) == derived.quantize(Decimal(10) ** -len(said.group(1).split(".")[1]))


@pytest.mark.parametrize("magnitude", MAGNITUDES)
def test_the_clock_bound_is_the_float_model_and_does_not_grow_with_rounds_or_requests(tmp_path, magnitude):
    """
    A wave or window carries 2 ulps at its clocks' magnitude (each reading half an ulp, the subtraction one rounding), a
    throughput over it that error relative to the span, twice (numerator and denominator of the quotient), plus a few u:
    a bound of one round's numbers does not depend on how many rounds or requests the output has.
    """
    ulp = Decimal(math.ulp(magnitude * 1.01))  # the clocks lie in [magnitude, magnitude + a few s]
    eps = Decimal(2) ** -52
    small = _claims(verify_path(str(_output(tmp_path / "small", magnitude, 5))))
    big = _claims(verify_path(str(_output(tmp_path / "big", magnitude, 5, repetitions=12))))
    for pointer in ("/rounds/0/wave_seconds", "/rounds/0/throughput_rps", "/rounds/0/steady_state/seconds", "/rounds/0/steady_state/throughput_rps"):
        assert small[pointer].observed["tolerance"] == big[pointer].observed["tolerance"], pointer  # round 0: the same clocks in both
    for i in range(4):
        for seconds, rps in (("wave_seconds", "throughput_rps"), ("steady_state/seconds", "steady_state/throughput_rps")):
            span, rate = small.get(f"/rounds/{i}/{seconds}"), small.get(f"/rounds/{i}/{rps}")
            if span is None:  # no window when n <= 2c
                continue
            assert Decimal(span.observed["tolerance"]) <= stats.half_unit(Decimal(span.observed["claimed"])) + 2 * ulp, span.pointer
            bound = stats.half_unit(Decimal(rate.observed["claimed"])) + Decimal(rate.observed["claimed"]) * (4 * ulp / Decimal(span.expected) + 8 * eps)
            assert Decimal(rate.observed["tolerance"]) <= bound, rate.pointer
    for name, kw in (("many", {"n": 40}), ("slow", {"latency": (1.0, 3.0)})):  # 40 requests; a wave of several seconds
        found = _claims(verify_path(str(_output(tmp_path / name, magnitude, 5, **kw))))
        span, rate = found["/rounds/0/wave_seconds"], found["/rounds/0/throughput_rps"]
        bound = stats.half_unit(Decimal(rate.observed["claimed"])) + Decimal(rate.observed["claimed"]) * (4 * ulp / Decimal(span.expected) + 8 * eps)
        assert Decimal(rate.observed["tolerance"]) <= bound, name


def test_the_clock_span_error_is_two_ulps_at_the_clocks_magnitude():
    assert stats.clock_span_error([Decimal("1764000000.25"), Decimal("1764000000.125")]) == 2 * Decimal(math.ulp(1764000000.25))
    assert stats.clock_span_error([Decimal("100.5"), Decimal("-100.25")]) == 2 * Decimal(math.ulp(100.5))
    assert stats.clock_span_error([]) == 0
    # the `difference` statistic's bound is that error plus the print term
    assert stats.tolerance(Decimal("0.125"), statistic="difference", values=[Decimal(1e7), Decimal(1e7 - 0.125)]) == (
        Decimal("0.0005") + stats.clock_span_error([Decimal(1e7)]))
