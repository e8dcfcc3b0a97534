"""
Issue 13: the one tolerance follows the arithmetic (docs/tolerances.md).

Honest float evidence, computed here with the producers' own float code
(statistics.stdev, numpy.std(ddof=1), numpy.percentile of TPOT, float epoch
clocks), PASSes; the same numbers moved by ten times the bound FAIL.
"""

from __future__ import annotations

import statistics
from decimal import Decimal

import numpy as np
import pytest

from verifier.engine import stats


def _d(x: float) -> Decimal:
    return Decimal(repr(float(x)))  # what a JSON producer writes and `jsonio` reads


def _judge(stated: float, derived: Decimal, **bound):
    stated_d = _d(stated)
    honest = stats.compare(stated_d, derived, **bound)
    off = derived + 10 * honest.tolerance if stated_d >= derived else derived - 10 * honest.tolerance
    broken = stats.compare(off, derived, **bound)
    return honest, broken


def _clustered(ratio: float, n: int = 12, seed: int = 7) -> list[float]:
    rng = np.random.default_rng(seed)
    return [float(x) for x in 400.0 + 400.0 / ratio * rng.standard_normal(n)]


@pytest.mark.parametrize("ratio", [1e3, 1e4])
@pytest.mark.parametrize("producer", ["statistics.stdev", "numpy.std(ddof=1)"])
def test_sample_sd_of_clustered_data_passes_and_ten_bounds_off_fails(ratio, producer):
    xs = _clustered(ratio)
    stated = statistics.stdev(xs) if producer == "statistics.stdev" else float(np.std(np.array(xs), ddof=1))
    values = [_d(x) for x in xs]
    derived = stats.derive("sd", values).value
    honest, broken = _judge(stated, derived, statistic="sd", values=values)
    assert honest.holds, (producer, ratio, honest)
    assert not broken.holds
    # the bound is a small fraction of the SD itself: a real mistake is far outside it
    assert honest.tolerance < derived * Decimal("1e-4")


def _one_pass_sd(xs: list[float], ddof: int) -> float:
    """The textbook one-pass SD in binary64: sqrt((sum x^2 - (sum x)^2 / n) / (n - ddof)), as C/JS harnesses and spreadsheets compute it."""
    import math

    n, s, ss = len(xs), 0.0, 0.0
    for x in xs:
        s += x
        ss += x * x
    return math.sqrt((ss - s * s / n) / (n - ddof))


@pytest.mark.parametrize("ratio", [1e3, 1e4])
@pytest.mark.parametrize("seed", [7, 11, 19])
@pytest.mark.parametrize("statistic,ddof", [("sd", 1), ("population_sd", 0)])
def test_one_pass_sd_of_clustered_data_passes_only_with_the_cancellation_term(ratio, seed, statistic, ddof):
    """
    Honest evidence that needs the cancellation term: the one-pass formula loses n eps sum x^2 to cancellation.

    statistics.stdev (exact rationals) and numpy's two-pass std stay within
    a few ulps and pass on the print and input terms alone; a one-pass
    producer at mean/SD 10^3..10^4 is off by ~10^-9..10^-7 of the SD, far
    beyond those terms, and passes only because the bound carries
    n eps sum x^2 / (2 d SD). Ten bounds off still FAILs.
    """
    xs = _clustered(ratio, seed=seed)
    stated = _one_pass_sd(xs, ddof)
    values = [_d(x) for x in xs]
    derived = stats.derive(statistic, values).value
    honest, broken = _judge(stated, derived, statistic=statistic, values=values)
    assert honest.holds, (statistic, ratio, seed, honest)
    assert not broken.holds
    # the one-pass error is real and larger than every term but the cancellation one
    without = stats.half_unit(_d(stated)) + 2 * (stats.U * max(abs(v) for v in values)) + stats.EPS * derived
    assert abs(_d(stated) - derived) > without


def test_tpot_percentiles_by_numpy_pass_when_ttft_is_within_10_ms_of_latency():
    rng = np.random.default_rng(3)
    lat = [float(x) for x in 2.0 + rng.random(40)]
    ttft = [lx - 0.001 - 0.009 * float(r) for lx, r in zip(lat, rng.random(40), strict=True)]
    out = [int(x) for x in rng.integers(2, 9, 40)]
    tpot_f = [(lx - tx) / (o - 1) for lx, tx, o in zip(lat, ttft, out, strict=True)]  # vLLM's float computation
    tpot_d = [stats.CONTEXT.divide(_d(lx) - _d(tx), Decimal(o - 1)) for lx, tx, o in zip(lat, ttft, out, strict=True)]
    upstream = max(stats.EPS * (abs(_d(lx)) + abs(_d(tx))) / (o - 1) for lx, tx, o in zip(lat, ttft, out, strict=True))
    for q in (50, 90, 99):
        stated = float(np.percentile(tpot_f, q) * 1000)
        derived = stats.derive("percentile", tpot_d, q=q, method="linear").value * 1000
        honest, broken = _judge(stated, derived, statistic="percentile", values=tpot_d, scale=1000, input_error=upstream)
        assert honest.holds, (q, honest)
        assert not broken.holds
    mean = float(np.mean(tpot_f) * 1000)
    honest, broken = _judge(mean, stats.derive("mean", tpot_d).value * 1000, statistic="mean", values=tpot_d, scale=1000,
                            input_error=upstream)
    assert honest.holds and not broken.holds


@pytest.mark.parametrize("epoch_ns", [1_790_000_000_123_456_789, 1_700_000_000_000_000_001])
def test_wall_time_from_float_epoch_clocks_passes_against_ns_clocks(epoch_ns):
    start_ns, end_ns = epoch_ns, epoch_ns + 12_345_678_901
    wall = end_ns / 1e9 - start_ns / 1e9  # time.time()-style float seconds: ~250 ns of spacing at 1.8e9 s
    derived = Decimal(end_ns - start_ns) / Decimal(10**9)
    values = (Decimal(end_ns), Decimal(start_ns))
    honest, broken = _judge(wall, derived, statistic="difference", values=values, scale=Decimal("1e-9"))
    assert abs(_d(wall) - derived) > Decimal("1e-8")  # the old 16-ulp rule failed this honest number
    assert honest.holds and not broken.holds
    assert honest.tolerance < Decimal("1e-6")


def test_printed_value_keeps_half_a_unit_of_its_last_place():
    assert stats.tolerance(Decimal("73.45")) == Decimal("0.005")
    assert stats.tolerance(Decimal("73.45"), statistic="mean", values=[Decimal(1)] * 3) > Decimal("0.005")
    assert stats.tolerance(Decimal("73.45"), statistic="mean", values=[Decimal(1)] * 3) < Decimal("0.0050001")


def test_bound_grows_with_the_square_of_mean_over_sd():
    small = stats.tolerance(Decimal("0.40000000000000002"), statistic="sd", values=[_d(x) for x in _clustered(1e3)])
    large = stats.tolerance(Decimal("0.040000000000000001"), statistic="sd", values=[_d(x) for x in _clustered(1e4)])
    assert (large / Decimal("0.04")) / (small / Decimal("0.4")) > 50  # relative to the SD: (mean/SD)^2, x 100


def test_there_is_one_tolerance_function():
    import pathlib
    import re

    root = pathlib.Path(stats.__file__).parent
    own = []
    for path in root.rglob("*.py"):
        if path == pathlib.Path(stats.__file__):
            continue
        for body in re.findall(r"^def \w*tolerance\(.*?(?=^def |\Z)", path.read_text(), re.MULTILINE | re.DOTALL):
            if "stats.tolerance(" not in body:  # a wrapper that converts units of stats.tolerance is fine
                own.append(path.name)
    assert not own, own


def test_vllm_result_with_tpot_close_to_latency_passes_end_to_end(tmp_path):
    """A --save-result file whose TPOT statistics numpy computed (TTFT within 10 ms of latency) re-derives; a TPOT p99 off by 10 bounds FAILs."""
    import importlib.util
    import json

    from conftest import ROOT

    from verifier.core import verify_path

    spec = importlib.util.spec_from_file_location("make_vllm", ROOT / "tests" / "fixtures" / "make_vllm.py")
    make_vllm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_vllm)
    rng = np.random.default_rng(11)
    n = 30
    starts = [float(i) * 0.01 for i in range(n)]
    lat = [float(x) for x in 2.0 + rng.random(n)]
    ttft = [lx - 0.001 - 0.009 * float(r) for lx, r in zip(lat, rng.random(n), strict=True)]
    out = [int(x) for x in rng.integers(2, 9, n)]
    doc = make_vllm.result(starts, lat, ttft, [[0.001] * (o - 1) for o in out], [10] * n, out, [""] * n, None,
                           percentiles=(50, 90, 99))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    tpot = [f for f in verify_path(str(path)).findings if f.check == "derivation.claims" and "_tpot_" in (f.pointer or "")]
    assert len(tpot) == 6 and all(f.status == "PASS" for f in tpot), [f.message for f in tpot if f.status != "PASS"]
    p99 = next(f for f in tpot if f.pointer == "/p99_tpot_ms")
    doc["p99_tpot_ms"] = float(Decimal(p99.expected) + 10 * Decimal(p99.observed["tolerance"]))
    path.write_text(json.dumps(doc))
    again = [f for f in verify_path(str(path)).findings if f.pointer == "/p99_tpot_ms"]
    assert again[0].status == "FAIL" and "tolerance" in again[0].message
