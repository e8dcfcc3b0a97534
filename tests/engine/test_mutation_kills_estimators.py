"""
Kill tests for `verifier/engine/estimators.py` (cosmic-ray session `tools/cosmic-ray/estimators.toml`, docs/testing.md).

Each estimator is pinned two ways: exact examples worked by hand (values chosen so the answer is a short decimal),
and agreement with an established implementation (numpy's percentile methods, Python's `statistics`) on many
small samples, including ties, negative values, n = 1 and 2 and the q boundaries 0 and 100 where a method allows
them. The bounds (`ValueError` on too few values, q outside the method's range) are pinned with their messages.
"""

from __future__ import annotations

import random
import statistics
from decimal import Decimal

import numpy as np
import pytest

from verifier.engine import estimators as est

D = Decimal


def _ds(*xs):
    return [D(str(x)) for x in xs]


def _samples(seed: int = 7, count: int = 120):
    """Small samples: n from 1 to 9, integers and one-decimal values, ties and negatives, in random order."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = 1 + i % 9
        pool = [rng.randint(-20, 40) for _ in range(n)] if i % 3 else [rng.randint(-200, 400) / 10 for _ in range(n)]
        if i % 5 == 0 and n > 2:
            pool[1] = pool[0]  # a tie
        out.append(pool)
    return out


QS = [0, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100]


# --- mean ------------------------------------------------------------------------------------------------------------

def test_mean_examples():
    assert est.mean(_ds(1, 2, 3, 4)) == D("2.5")
    assert est.mean(_ds(-3, 3, 6)) == D(2)
    assert est.mean(_ds(7)) == D(7)
    assert est.mean([1, 2]) == D("1.5")  # ints are converted, not concatenated


def test_mean_of_empty_raises():
    with pytest.raises(ValueError, match=r"needs at least 1 value\(s\), got 0"):
        est.mean([])


# --- percentiles -----------------------------------------------------------------------------------------------------

def test_median_examples():
    assert est.median(_ds(5, 1, 3)) == D(3)
    assert est.median(_ds(4, 1, 3, 2)) == D("2.5")
    assert est.median(_ds(9)) == D(9)


def test_percentile_linear_examples():
    xs = _ds(10, 20, 30, 40, 50)
    assert est.percentile_linear(xs, D(0)) == D(10)
    assert est.percentile_linear(xs, D(100)) == D(50)
    assert est.percentile_linear(xs, D(90)) == D(46)        # position 3.6: 40 + 0.6 * 10
    assert est.percentile_linear(xs, D(30)) == D(22)        # position 1.2: 20 + 0.2 * 10
    assert est.percentile_linear(_ds(3, 1), D(25)) == D("1.5")
    assert est.percentile_linear(_ds(8), D(77)) == D(8)


@pytest.mark.parametrize("q", [-1, D("-0.001"), D("100.001"), 101])
def test_percentile_linear_refuses_q_outside(q):
    with pytest.raises(ValueError, match=r"percentile q must be in \[0, 100\]"):
        est.percentile_linear(_ds(1, 2), q)


def test_percentile_nearest_rank_examples():
    xs = _ds(15, 20, 35, 40, 50)                            # Wikipedia's worked example
    assert est.percentile_nearest_rank(xs, D(5)) == D(15)   # rank ceil(0.25) = 1
    assert est.percentile_nearest_rank(xs, D(30)) == D(20)  # rank ceil(1.5) = 2
    assert est.percentile_nearest_rank(xs, D(40)) == D(20)  # rank 2 exactly, not 3
    assert est.percentile_nearest_rank(xs, D(50)) == D(35)  # rank ceil(2.5) = 3
    assert est.percentile_nearest_rank(xs, D(100)) == D(50)
    assert est.percentile_nearest_rank(_ds(3, 1, 2), D("0.001")) == D(1)


@pytest.mark.parametrize("q", [0, -5, D("100.5")])
def test_percentile_nearest_rank_refuses_q_outside(q):
    with pytest.raises(ValueError, match=r"percentile q must be in \(0, 100\]"):
        est.percentile_nearest_rank(_ds(1, 2), q)


def test_percentile_weibull_examples():
    xs = _ds(10, 20, 30, 40)                                # position q/100 * 5
    assert est.percentile_weibull(xs, D(10)) == D(10)       # position 0.5 < 1: the minimum
    assert est.percentile_weibull(xs, D(20)) == D(10)       # position 1 exactly
    assert est.percentile_weibull(xs, D(30)) == D(15)       # position 1.5
    assert est.percentile_weibull(xs, D(50)) == D(25)       # position 2.5
    assert est.percentile_weibull(xs, D(80)) == D(40)       # position 4 = n: the maximum
    assert est.percentile_weibull(xs, D(90)) == D(40)       # position 4.5 > n: clamped
    assert est.percentile_weibull(xs, D(0)) == D(10)
    assert est.percentile_weibull(xs, D(100)) == D(40)


@pytest.mark.parametrize("q", [D("-0.5"), D("100.5")])
def test_percentile_weibull_refuses_q_outside(q):
    with pytest.raises(ValueError, match=r"percentile q must be in \[0, 100\]"):
        est.percentile_weibull(_ds(1, 2), q)


@pytest.mark.parametrize("fn", [est.percentile_linear, est.percentile_nearest_rank, est.percentile_weibull])
def test_percentiles_of_empty_raise(fn):
    with pytest.raises(ValueError, match="needs at least 1"):
        fn([], D(50))


@pytest.mark.parametrize(("fn", "method", "qs"), [
    (est.percentile_linear, "linear", QS),
    (est.percentile_weibull, "weibull", QS),
    (est.percentile_nearest_rank, "inverted_cdf", QS[1:]),
])
def test_percentiles_agree_with_numpy(fn, method, qs):
    for sample in _samples():
        for q in qs:
            got = fn(_ds(*sample), D(str(q)))
            want = np.percentile(np.array(sample, dtype=float), q, method=method)
            assert float(got) == pytest.approx(float(want), abs=1e-9), (method, sample, q)


# --- spread ----------------------------------------------------------------------------------------------------------

def test_sample_and_population_sd_examples():
    xs = _ds(2, 4, 4, 4, 5, 5, 7, 9)                        # mean 5, sum of squares 32
    assert est.population_sd(xs) == D(2)                    # sqrt(32 / 8)
    assert abs(est.sample_sd(xs) - D("2.138089935299395")) < D("1e-15")
    assert est.sample_sd(_ds(1, 3)) == D(2).sqrt(est.CONTEXT)
    assert est.population_sd(_ds(5)) == D(0)


def test_sds_need_enough_values():
    with pytest.raises(ValueError, match=r"needs at least 2 value\(s\), got 1"):
        est.sample_sd(_ds(1))
    with pytest.raises(ValueError, match=r"needs at least 2 value\(s\), got 1"):
        est.sem(_ds(1))
    with pytest.raises(ValueError, match=r"needs at least 1 value\(s\), got 0"):
        est.population_sd([])
    with pytest.raises(ValueError, match=r"needs at least 1 value\(s\), got 0"):
        est.median_abs_deviation([])


def test_sem_example():
    xs = _ds(2, 4, 4, 4, 5, 5, 7, 9)
    assert abs(est.sem(xs) - D("0.7559289460184544")) < D("1e-15")   # sample SD / sqrt(8)
    assert est.sem(_ds(1, 3)) == D(1)                                   # sqrt(2) / sqrt(2)


def test_spreads_agree_with_statistics():
    for sample in _samples(seed=11):
        xs = _ds(*sample)
        assert float(est.population_sd(xs)) == pytest.approx(statistics.pstdev(sample), abs=1e-9)
        assert float(est.mean(xs)) == pytest.approx(statistics.fmean(sample), abs=1e-9)
        if len(sample) >= 2:
            assert float(est.sample_sd(xs)) == pytest.approx(statistics.stdev(sample), abs=1e-9)
            assert float(est.sem(xs)) == pytest.approx(statistics.stdev(sample) / len(sample) ** 0.5, abs=1e-9)


def test_median_abs_deviation_examples():
    assert est.median_abs_deviation(_ds(1, 1, 2, 2, 4, 6, 9)) == D(1)  # median 2, deviations 1 1 0 0 2 4 7
    assert est.median_abs_deviation(_ds(1, 2, 3, 4)) == D(1)            # median 2.5, deviations 1.5 .5 .5 1.5
    assert est.median_abs_deviation(_ds(-5, 5)) == D(5)
    assert est.median_abs_deviation(_ds(3)) == D(0)


def test_median_abs_deviation_agrees_with_numpy():
    for sample in _samples(seed=13):
        a = np.array(sample, dtype=float)
        want = np.median(np.abs(a - np.median(a)))
        assert float(est.median_abs_deviation(_ds(*sample))) == pytest.approx(float(want), abs=1e-9)


def test_mad_normal_constant():
    assert abs(est.MAD_NORMAL - D("1.482602218505602")) < D("1e-14")


# --- contexts and the method table -----------------------------------------------------------------------------------

def test_context_is_fifty_digits_half_even():
    assert est.CONTEXT.prec == 50
    assert est.mean(_ds(1, 1, 1)) == D(1)
    third = est.mean(_ds(1, 0, 0))
    assert len(third.as_tuple().digits) == 50
    assert est.CONTEXT.create_decimal("0.125").quantize(D("0.01"), context=est.CONTEXT) == D("0.12")


def test_run_context_traps_and_precision():
    ctx = est.RUN_CONTEXT
    assert ctx.prec == 28 and ctx.Emax == 999999 and ctx.Emin == -999999
    import decimal
    assert ctx.traps[decimal.InvalidOperation] and ctx.traps[decimal.DivisionByZero] and ctx.traps[decimal.Overflow]
    assert not ctx.traps[decimal.Inexact]


def test_percentile_methods_table():
    assert set(est.PERCENTILE_METHODS) == {"nearest-rank", "linear", "weibull"}
    xs = _ds(10, 20, 30, 40)
    assert est.PERCENTILE_METHODS["nearest-rank"][0](xs, D(30)) == D(20)
    assert est.PERCENTILE_METHODS["linear"][0](xs, D(30)) == D(19)
    assert est.PERCENTILE_METHODS["weibull"][0](xs, D(30)) == D(15)


def test_run_context_exponent_limits():
    import decimal
    ctx = est.RUN_CONTEXT.copy()
    ctx.clear_flags()
    assert ctx.create_decimal("9E+999999") == Decimal("9E+999999")
    with pytest.raises(decimal.Overflow):
        ctx.create_decimal("1E+1000000")
    ctx.clear_flags()
    assert ctx.create_decimal("1E-999999") == Decimal("1E-999999")
    assert not ctx.flags[decimal.Subnormal]                  # Emin itself is normal
    ctx.create_decimal("1E-1000000")                          # below Emin: subnormal, flagged
    assert ctx.flags[decimal.Subnormal]


def test_run_context_spelling_and_clamp():
    import decimal
    with decimal.localcontext(est.RUN_CONTEXT):
        assert str(Decimal("1E+30")) == "1E+30"                # capitals=1: an upper-case exponent
    ctx = est.RUN_CONTEXT.copy()
    assert ctx.create_decimal("1E+999999").as_tuple().exponent == 999999  # clamp=0: the exponent is kept
