"""
Tests that kill surviving mutants of `verifier/stats.py` (issue 14): every statistic of `derive` by its definition.

Each statistic the vocabulary names is derived on a small sample whose value
is worked out by hand from the definition in `stats.derive`'s docstring
(sample SD with n - 1, nearest rank ceil(q/100*n), linear interpolation at
(n-1)*q/100, arm statistics over each arm's mean of its server means), so a
statistic that returns another one's value, or none, turns a test red.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier import stats
from verifier.stats import Underivable, derive

D = Decimal
XS = [D("4"), D("1"), D("3"), D("2"), D("10")]  # file order matters for first/last


@pytest.mark.parametrize("statistic,kw,value", [
    ("count", {}, D(5)),
    ("sum", {}, D(20)),
    ("mean", {}, D(4)),
    ("median", {}, D(3)),
    ("min", {}, D(1)),
    ("max", {}, D(10)),
    ("first", {}, D(4)),
    ("last", {}, D(10)),
    ("sd", {}, (D(50) / D(4)).sqrt(stats.CONTEXT)),  # squared deviations from the mean 4: 0+9+1+4+36 = 50; n - 1 = 4
    ("population_sd", {}, (D(50) / D(5)).sqrt(stats.CONTEXT)),  # n = 5
    ("percentile", {"q": 40, "method": "nearest-rank"}, D(2)),  # rank ceil(0.4 * 5) = 2 of 1,2,3,4,10
    ("percentile", {"q": 90, "method": "linear"}, D("7.6")),  # (5-1)*0.9 = 3.6: 4 + 0.6 * (10 - 4)
])
def test_each_sample_statistic_is_its_definition(statistic, kw, value):
    got = derive(statistic, XS, of="values", **kw)
    assert got.statistic == statistic and got.value == value, (statistic, got.value, value)
    assert "5 values" in got.text
    assert got.inputs == (() if statistic == "count" else tuple(XS))


@pytest.mark.parametrize("statistic,values,kw,code,fail", [
    ("mean", [], {}, "empty-selection", True),
    ("sd", [D(1)], {}, "empty-selection", False),  # an SD of one value is UNVERIFIED, not FAIL
    ("percentile", XS, {"q": 50}, "unknown-statistic", True),
    ("percentile", XS, {"method": "linear"}, "unknown-statistic", True),
    ("percentile", XS, {"q": 50, "method": "midpoint"}, "unknown-statistic", True),
    ("geomean", XS, {}, "unknown-statistic", True),
    ("mean_of_server_means", {}, {}, "empty-selection", True),
    ("mean_of_server_means", {"s1": []}, {}, "empty-selection", True),
    ("sd_of_server_means", {"s1": [D(1), D(3)]}, {}, "empty-selection", False),
    ("speedup", {"a": {"s": [D(1)]}, "b": {"s": [D(1)]}}, {"baseline": "a"}, "unknown-statistic", True),
    ("speedup", {"a": {"s": [D(1)]}, "b": {"s": [D(1)]}}, {"candidate": "b"}, "unknown-statistic", True),
    ("speedup", {"a": {"s": [D(2)]}, "b": {"s": [D(0)]}}, {"baseline": "a", "candidate": "b"}, "empty-selection", True),
    ("relative_reduction_pct", {"a": {"s": [D(0)]}, "b": {"s": [D(1)]}}, {"baseline": "a", "candidate": "b"},
     "empty-selection", True),
    ("ratio", (D(1), D(0)), {}, "empty-selection", True),
    ("relative_change_pct", (D(0), D(1)), {}, "empty-selection", True),
])
def test_what_cannot_be_derived_names_why(statistic, values, kw, code, fail):
    with pytest.raises(Underivable) as caught:
        derive(statistic, values, **kw)
    assert caught.value.code == code and caught.value.fail is fail


def test_group_statistics_are_over_the_server_means():
    groups = {"s1": [D(1), D(3)], "s2": [D(10)], "s3": [D(6), D(6), D(6)]}  # server means 2, 10, 6
    mean = derive("mean_of_server_means", groups, of="arm=a")
    assert mean.value == D(6) and mean.inputs == (D(1), D(3), D(10), D(6), D(6), D(6))
    assert "server s1 mean 2 over 2" in mean.text and "server s2 mean 10 over 1" in mean.text
    sd = derive("sd_of_server_means", groups)
    assert sd.value == (D(32) / D(2)).sqrt(stats.CONTEXT)  # deviations -4, 4, 0 from 6; n - 1 = 2


def test_arm_statistics_compare_each_arm_mean_of_server_means():
    arms = {"base": {"s1": [D(10), D(30)], "s2": [D(40)]},  # server means 20, 40: arm mean 30
            "cand": {"s3": [D(12)], "s4": [D(6), D(6)]}}  # server means 12, 6: arm mean 9
    kw = {"baseline": "base", "candidate": "cand"}
    assert derive("difference", arms, **kw).value == D(21)
    assert derive("speedup", arms, **kw).value == stats.CONTEXT.divide(D(30), D(9))
    assert derive("relative_reduction_pct", arms, **kw).value == D(70)  # (1 - 9/30) * 100
    text = derive("speedup", arms, **kw).text
    assert text.startswith("baseline / candidate: baseline 30 (") and "candidate 9 (" in text
    assert derive("difference", arms, **kw).inputs == (D(10), D(30), D(40), D(12), D(6), D(6))


def test_pair_statistics():
    assert derive("ratio", (D(3), D(4))).value == D("0.75")
    assert derive("relative_change_pct", (D(8), D(6))).value == D(-25)  # (6 - 8) / 8 * 100
    assert derive("relative_change_pct", (D(8), D(6))).inputs == (D(8), D(6))


# --- tolerance: the float error model of docs/tolerances.md ------------------------------------------------------------

def test_the_sd_cancellation_term_divides_by_n_minus_1_for_the_sample_sd_and_n_for_the_population_sd():
    # docs/tolerances.md: n eps sum x^2 / (2 d SD), d = n - 1 (n for population); every other term is the same for both
    xs = [D("1000"), D("1001"), D("1002")]
    squares = 3 * stats.EPS * sum(x * x for x in xs)
    sample = stats.tolerance(D(1), statistic="sd", values=xs)
    population = stats.tolerance(D(1), statistic="population_sd", values=xs)
    expected = squares / (2 * 2) - squares / (2 * 3)
    assert abs((sample - population) - expected) <= expected * D("1e-15")


# --- stats.tolerance: the documented bounds, exactly (docs/tolerances.md) ------------------------------------------------

def test_a_difference_of_zero_clocks_is_judged_at_the_print_bound_alone():
    # 2 ulps of binary64 at the operands' magnitude: at 0 that is 0, so only half a unit of the stated place remains
    assert stats.tolerance(D("0.000"), statistic="difference", values=[D(0), D(0)]) == D("0.0005")
    import math

    at_one = stats.tolerance(D("0.000"), statistic="difference", values=[D(1), D(0)])
    assert at_one == D("0.0005") + 2 * D(math.ulp(1.0))


@pytest.mark.parametrize("statistic", ["ratio", "speedup", "ratio_of_sums"])
def test_a_quotient_bound_is_twice_each_means_relative_error_plus_the_inputs_own(statistic):
    eps, u = stats.EPS, stats.U
    xs = [D(2), D(4)]
    stated = D("0.5")
    rel = 2 * 2 * eps + 4 * u  # n = 2 inputs
    assert stats.tolerance(stated, statistic=statistic, values=xs) == D("0.05") + stated * rel
    # an upstream error e on each input adds 2 e / min|x| (the smallest nonzero input) to the relative error
    assert stats.tolerance(stated, statistic=statistic, values=xs, input_error="0.001") == \
        D("0.05") + stated * (rel + 2 * D("0.001") / D(2))
    assert stats.tolerance(stated, statistic=statistic, values=[D(0), D(4)], input_error="0.001") == \
        D("0.05") + stated * (rel + 2 * D("0.001") / D(4))
    # all inputs zero: no quotient to widen, and no error raised (there is no smallest nonzero input)
    assert stats.tolerance(stated, statistic=statistic, values=[D(0), D(0)], input_error="0.001") == D("0.05") + stated * rel
