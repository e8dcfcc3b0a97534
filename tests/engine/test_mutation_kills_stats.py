"""
Tests that kill surviving mutants of `verifier/engine/stats.py` (issue 14): every statistic of `derive` by its definition.

Each statistic the vocabulary names is derived on a small sample whose value
is worked out by hand from the definition in `stats.derive`'s docstring
(sample SD with n - 1, nearest rank ceil(q/100*n), linear interpolation at
(n-1)*q/100, arm statistics over each arm's mean of its server means), so a
statistic that returns another one's value, or none, turns a test red.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from verifier.engine import stats
from verifier.engine.stats import Underivable, derive

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


# --- issue 42, the cosmic-ray session of record: each test names the mutants it kills (line of verifier/engine/stats.py at 5af9ba5, operator) ---

EPS = stats.EPS  # 2**-52, binary64's machine epsilon (IEEE 754); u = eps / 2


def _in_eps(tol: Decimal, half: str) -> Decimal:
    """Return the float-error part of a tolerance (tolerance - half a unit of the stated place) in units of eps."""
    return (tol - D(half)) / EPS


def _close(got: Decimal, want: Any, rel: str = "1e-9") -> bool:
    """Return whether `got` is `want` to `rel` (a tolerance of 0.5 + c eps keeps about 12 digits of c in a 28-digit context)."""
    want = D(str(want)) if not isinstance(want, Decimal) else want
    return abs(got - want) <= abs(want) * D(rel)


def test_the_olympic_mean_of_three_values_keeps_the_middle_one_and_of_two_says_why_not():
    """Kills `:160` `n < 3` -> `n < 4` (NumberReplacer)."""
    got = derive("olympic_mean", [D(10), D(1), D(2)])
    assert got.value == D(2) and got.inputs == (D(2),) and got.text == "olympic mean (smallest and largest dropped) of 3 values"
    with pytest.raises(Underivable) as caught:
        derive("olympic_mean", [D(1), D(2)])
    assert str(caught.value) == "an olympic mean drops two values and needs at least three, values has 2"
    assert (caught.value.code, caught.value.fail) == ("empty-selection", False)


def test_the_sd_and_sem_of_two_values():
    """Kills `:175` `n < 2` -> `n <= 2` (ReplaceComparisonOperator_Lt_LtE)."""
    assert derive("sd", [D(1), D(3)]).value == D(2).sqrt(stats.CONTEXT)  # deviations -1, 1: sqrt(2 / 1)
    assert derive("sem", [D(1), D(3)]).value == D(1)  # sqrt(2) / sqrt(2)
    assert derive("sd", [D(1), D(3)]).text == "sample SD (n-1) of 2 values"
    with pytest.raises(Underivable) as caught:
        derive("sem", [D(1)])
    assert str(caught.value) == "a sample SD needs at least two values, values has 1"


def test_slope_through_origin_of_pairs_and_what_it_cannot_fit():
    """Kills `:224` `len(xs) != len(ys)` -> `==` (ReplaceComparisonOperator_NotEq_Eq) and the `not xs` guard."""
    got = derive("slope_through_origin", ([D(1), D(2)], [D(2), D(5)]))  # sum(xy) = 12, sum(x^2) = 5
    assert got.value == D("2.4") and got.inputs == (D(1), D(2), D(2), D(5))
    assert got.text == "least-squares slope through the origin sum(xy)/sum(x^2) (12 / 5) over 2 pairs of values"
    for values, message, fail in [
        (([D(1), D(2)], [D(2)]), "a regression through the origin needs at least one (x, y) pair, values has 1", False),
        (([], []), "a regression through the origin needs at least one (x, y) pair, values has 0", False),
        (([D(0), D(0)], [D(2), D(5)]), "every x of values is 0, so the slope through the origin is undefined", True),
    ]:
        with pytest.raises(Underivable) as caught:
            derive("slope_through_origin", values)
        assert (str(caught.value), caught.value.code, caught.value.fail) == (message, "empty-selection", fail)


def test_slope_and_r_squared_by_hand_and_what_they_cannot_fit():
    """
    Kills `:231` `len(xs) < 2` -> `< 1` (NumberReplacer), `:237` `not sxx == 0` (AddNot) and `sxx == -1`
    (NumberReplacer), `:238` `'x' if not sxx == 0` (AddNot), `:239` `not statistic == "slope"` (AddNot).
    """
    pairs = ([D(1), D(2), D(3)], [D(2), D(4), D(7)])  # means 2 and 13/3: Sxx = 2, Sxy = 7/3 + 8/3 = 5, Syy = 38/3
    slope = derive("slope", pairs)
    assert slope.value == D("2.5") and slope.text == "least-squares slope Sxy/Sxx (5 / 2) over 3 pairs of values"
    r2 = derive("r_squared", pairs)
    assert _close(r2.value, stats.CONTEXT.divide(D(75), D(76)), "1e-25")  # 25 / (2 * 38/3)
    assert r2.text == "R^2 = Sxy^2/(Sxx Syy) of the least-squares line over 3 pairs of values"
    assert slope.inputs == r2.inputs == (D(1), D(2), D(3), D(2), D(4), D(7))
    for statistic, values, message, fail in [
        ("slope", ([D(1)], [D(2)]), "a regression needs at least two (x, y) pairs, values has 1", False),
        ("slope", ([D(1), D(2)], [D(2)]), "a regression needs at least two (x, y) pairs, values has 1", False),
        ("slope", ([D(3), D(3)], [D(1), D(2)]), "every x of values is the same, so the slope is undefined", True),
        ("r_squared", ([D(1), D(2)], [D(4), D(4)]), "every y of values is the same, so the r_squared is undefined", True),
    ]:
        with pytest.raises(Underivable) as caught:
            derive(statistic, values)
        assert (str(caught.value), caught.value.code, caught.value.fail) == (message, "empty-selection", fail)
    assert derive("slope", ([D(1), D(2)], [D(4), D(4)])).value == 0  # a flat line has slope 0 (only R^2 needs spread in y)


@pytest.mark.parametrize("xs", [[D(0), D(0), D(1)], [D(1), D(2), D(4)], [D("0.1"), D("0.7"), D("0.3"), D("5")]])
def test_y_equal_to_x_has_slope_one_and_r_squared_one_exactly(xs):
    """
    Kills `:234`, `:235`, `:236` `x - mx` -> `x + mx` in one factor of Sxx, Sxy or Syy (ReplaceBinaryOperator_Sub_Add): for y = x
    the three centred sums are one sum, so slope and R^2 are exactly 1 (and -1, 1 for y = -x); a mixed factor is equal only
    in exact arithmetic (sum(x - m) = 0) and rounds differently where the mean does not terminate (1/3, 7/3).
    """
    assert derive("slope", (xs, xs)).value == 1 and derive("r_squared", (xs, xs)).value == 1
    ys = [-x for x in xs]
    assert derive("slope", (xs, ys)).value == -1 and derive("r_squared", (xs, ys)).value == 1


def test_the_critical_values_of_the_normal_and_student_t_intervals():
    """
    Kills `:260` `n < 2` -> `n < 3` (NumberReplacer), `:262` `0.5 + c / 200` -> `1.5 +`, `-0.5 +`, `0.5 -`
    (NumberReplacer, ReplaceBinaryOperator_Add_Sub), `:263` `not method == "normal-z"` (AddNot).
    """
    # standard tables: z at 0.975 = 1.959963984540054, at 0.95 = 1.644853626951472; t(1) at 0.975 = 12.70620473617471, t(19) 2.093024054408263
    assert _close(stats.critical_value("normal-z", D(95), 2), "1.959963984540054", "1e-15")
    assert _close(stats.critical_value("normal-z", D(90), 30), "1.644853626951472", "1e-15")
    assert _close(stats.critical_value("student-t", D(95), 2), "12.70620473617471", "1e-13")
    assert _close(stats.critical_value("student-t", D(95), 20), "2.093024054408263", "1e-13")
    with pytest.raises(Underivable) as caught:
        stats.critical_value("normal-z", D(95), 1)
    assert (str(caught.value), caught.value.code, caught.value.fail) == ("a confidence interval needs at least two values, got 1", "empty-selection", False)


def test_derive_takes_its_statistic_and_values_by_name_and_the_rest_only_by_name():
    """Kills `:274` the `*` of `derive`'s signature -> `/` (ReplaceBinaryOperator_Mul_Div): q, method, ... are keyword-only."""
    assert derive(statistic="mean", values=[D(1), D(3)]).value == D(2)
    with pytest.raises(TypeError):
        derive("percentile", XS, 50, "linear")  # type: ignore[misc]


def test_the_confidence_interval_of_one_two_three():
    """Kills `:342` `centre - half` -> `centre + half` (ReplaceBinaryOperator_Sub_Add) and any swap of low, high and half-width."""
    xs = [D(1), D(2), D(3)]  # mean 2, sample SD 1: half-width z / sqrt(3) = 1.959963984540054 / 1.7320508075688772 = 1.1315857340761714
    got = {s: derive(s, xs, method="normal-z", confidence=95) for s in stats.CI_STATISTICS}
    half = got["ci_half_width"].value
    assert _close(half, "1.131585734076171", "1e-15")
    assert got["ci_low"].value == stats.CONTEXT.subtract(2, half) and got["ci_high"].value == stats.CONTEXT.add(2, half)  # in the engine's 50 digits
    assert got["ci_low"].text == ("ci_low of the 95 % interval (normal-z, c = 1.9599639845400536): mean 2 -/+ c * SD 1 / sqrt(3) = 1.13158573408,"
                                  " over 3 values")
    assert got["ci_high"].inputs == tuple(xs)


def test_a_ratio_of_sums_whose_denominators_sum_to_zero_is_underivable():
    """Kills `:350` `bottom == 0` -> `bottom == -1` (NumberReplacer)."""
    got = derive("ratio_of_sums", ([D(1), D(2)], [D(3), D(5)]))
    assert got.value == D("0.375") and got.text == "sum 3 of 2 / sum 8 of 2 (values)"
    with pytest.raises(Underivable) as caught:
        derive("ratio_of_sums", ([D(1)], [D(2), D(-2)]))
    assert (str(caught.value), caught.value.code) == ("the denominator sums to zero (values)", "empty-selection")
    assert derive("ratio_of_sums", ([D(1)], [D(-1)])).value == -1  # a sum of -1 is a quotient, not an undefined one


def test_half_a_unit_of_the_stated_place():
    """Kills `:379` `min(exponent, 0)` -> `min(exponent, 1)` (NumberReplacer): `2E1` states its units place, as `20` does."""
    assert stats.half_unit(D("73.45")) == D("0.005") and stats.half_unit(20) == D("0.5")
    assert stats.half_unit(D("2E1")) == D("0.5") and stats.half_unit(D("7E3")) == D("0.5") and stats.half_unit(D("3")) == D("0.5")
    with pytest.raises(ValueError, match="^NaN is not finite$"):
        stats.half_unit(D("NaN"))


def test_an_integer_written_with_trailing_zeros_states_its_last_nonzero_digit():
    """Kills `:474` `... - 1` -> `... - 0` (NumberReplacer) in the trailing-zeros place."""
    assert stats.tolerance(D(4110), written="4110") == D(5)
    assert stats.tolerance(D(4100), written="4,100") == D(50)
    assert stats.tolerance(D(-4000), written="-4000") == D(500)
    assert stats.tolerance(D(4111), written="4111") == D("0.5") and stats.tolerance(D(0), written="0") == D("0.5")
    assert stats.tolerance(D(4100)) == D("0.5")  # a number a tool writes into a data file states its units place


def test_a_full_precision_number_without_inputs_gets_sixteen_ulps():
    """Kills `:483` `PERCENT_SCALE * EPS * 16` -> `* 17` (NumberReplacer) and the 15-digit threshold."""
    pct = stats.tolerance(D("0.100000000000000"), statistic="relative_reduction_pct")  # 15 digits, a change of 0.1 %
    assert _in_eps(pct, "0") == 1600  # 16 ulps at the operands' magnitude 100, not at the small result
    assert _in_eps(stats.tolerance(D("0.100000000000000")), "0") == D("0.5E-15") / EPS  # half a unit of the 15th digit wins
    assert _in_eps(stats.tolerance(D("987654321098765")), "0") == 16 * 987654321098765  # 15 digits: 16 ulps of it (3.5 > 0.5)
    assert stats.tolerance(D("9.8765432109876E+14")) == D("0.5")  # 14 digits: a printed number's half unit only


# tolerance(stated, statistic, values): each bound of the docstring on a hand-checked sample, as `half unit + c eps`
# (values 1, 2, 3: n = 3, sum|x| = 6, max|x| = 3, range 2, sum x^2 = 14; per input u max|x| = 1.5 eps)
ONE_TWO_THREE = [D(1), D(2), D(3)]


@pytest.mark.parametrize("statistic,stated,half,kw,eps", [
    ("sum", "6", "0.5", {}, D("22.5")),  # n eps sum|x| + n per input = 18 + 4.5
    ("sum", "6", "0.5", {"steps": 1}, D(27)),  # two roundings per input: per input 3 eps
    ("mean", "2.0", "0.05", {}, D("7.5")),  # eps sum|x| + per input = 6 + 1.5
    ("mean_of_server_means", "2.0", "0.05", {}, D("7.5")),
    ("olympic_mean", "2.0", "0.05", {}, D("7.5")),
    ("mean", "2.0", "0.05", {"steps": 2}, D("10.5")),  # 6 + 3 * 1.5
    ("min", "1", "0.5", {}, D("1.5")),  # a pick: the inputs' error alone
    ("first", "1", "0.5", {}, D("1.5")),
    ("median", "2", "0.5", {}, D("13.5")),  # 1.5 + (2 * 3 + 3 * 2) for the interpolation
    ("percentile", "2", "0.5", {}, D("13.5")),
    ("mad", "1", "0.5", {}, D(16)),  # (2 * 1.5 + 12) + |stated| = 15 + 1
    ("sd", "1", "0.5", {}, D("14.5")),  # cancellation n eps sum x^2 / (2 (n-1) SD) = 42/4, + 2 * 1.5 + SD
    ("sem", "1", "0.5", {}, D("14.5")),
    ("sd_of_server_means", "1", "0.5", {}, D("14.5")),
    ("population_sd", "1", "0.5", {}, D(11)),  # 42 / (2 * 3) + 3 + 1
    ("sd", "2", "0.5", {}, D("10.25")),  # an SD of 2: 42 / (2 * 2 * 2) + 3 + 2
    ("population_sd", "2", "0.5", {}, D("8.5")),  # 42 / (2 * 3 * 2) + 3 + 2
    ("slope", "2", "0.5", {}, D(51)),  # 8 n eps relative: 2 * 24, + 2 per input
    ("r_squared", "2", "0.5", {}, D(51)),
    ("slope_through_origin", "2", "0.5", {}, D(52)),  # 2 * (24 + 2): relative only, no per-input term
    ("ci_low", "2", "0.5", {}, D("23.5") + 2 * stats.QUANTILE_ERROR / EPS),  # 6 + 1.5 + 2 * (6 + 2 + 1e-9 / eps)
    ("ci_high", "2", "0.5", {}, D("23.5") + 2 * stats.QUANTILE_ERROR / EPS),
    ("ci_half_width", "2", "0.5", {}, D("23.5") + 2 * stats.QUANTILE_ERROR / EPS),
    ("relative_reduction_pct", "50", "0.5", {}, D(500)),  # 100 |1 - 50/100| (2 n eps + 4 u) + 100 eps = 50 * 8 + 100
    ("relative_reduction_pct", "25", "0.5", {}, D(700)),  # 100 * 0.75 * 8 + 100 (kills `:521` `abs(1 - ...)` -> `abs(0 - ...)`)
    ("relative_change_pct", "-50", "0.5", {}, D(500)),  # 100 |1 + (-50)/100| 8 + 100
    ("relative_change_pct", "50", "0.5", {}, D(1300)),  # 150 * 8 + 100
    ("speedup", "2", "0.5", {}, D(12)),  # 2 * (2 n eps + 4 u) = 2 * 6 (n = 2 in the quotient: values 1, 2 below)
    ("count", "3", "0.5", {}, D("1.5")),  # no float model: the inputs' error alone
    (None, "3", "0.5", {}, D("1.5")),
])
def test_each_statistic_has_its_documented_float_error_bound(statistic, stated, half, kw, eps):
    """
    Kills `:396` `U = EPS / 2` -> `/ 1`, `:488` `(1 + steps)` -> `(1 - steps)`, `:490` `+ n * per_input` -> `-`, `:492`
    `+ per_input` -> `-`, `:495` `2 * biggest` -> `2 / biggest`, `:498` `2 * biggest` -> `3 *`, `:503` `4 * U` -> `4 / U`, `:513`
    `2 * per_input` -> `1 *`, `:512` `2 * d * sd` -> `2 * d / sd`, `:517` `4 * U` -> `4 / U` and `* (2 n eps ...)` -> `/`, `:521` `stated / PERCENT_SCALE` -> `*`,
    and every other constant and operator of the per-statistic bounds (docs/tolerances.md).
    """
    values = [D(1), D(2)] if statistic == "speedup" else ONE_TWO_THREE
    got = stats.tolerance(D(stated), statistic=statistic, values=values, **kw)
    assert _close(_in_eps(got, half), eps), (statistic, _in_eps(got, half), eps)


@pytest.mark.parametrize("statistic,eps", [("mad", 16), ("mad_scaled", 15 * stats.MAD_NORMAL + 1)])
def test_only_the_scaled_mad_is_widened_by_the_normal_scale(statistic, eps):
    """Kills `:498` `statistic == "mad_scaled"` -> `!=` (ReplaceComparisonOperator_Eq_NotEq) and `not statistic == ...` (AddNot)."""
    assert _close(_in_eps(stats.tolerance(D(1), statistic=statistic, values=ONE_TWO_THREE), "0.5"), eps)


def test_the_geometric_mean_bound_grows_with_the_largest_logarithm():
    """
    Kills `:500` `min(xs) > 0` -> `> 1` (NumberReplacer) and `:501` `n * EPS` -> `n / EPS` (ReplaceBinaryOperator_Mul_Div):
    n eps (1 + max|ln x|) + 4 u relative, plus u max|x| (values 1 and 4: max|ln x| = ln 4).
    """
    got = stats.tolerance(D(2), statistic="geometric_mean", values=[D(1), D(4)])  # 2 * (2 (1 + ln 4) + 2) + 2 = 10 + 4 ln 4
    assert _close(_in_eps(got, "0.5"), 10 + 4 * D(4).ln(stats.CONTEXT))
    assert _close(_in_eps(stats.tolerance(D(0), statistic="geometric_mean", values=[D(0), D(4)]), "0.5"), 2)  # a 0 input: no logarithm
    # kills `:500` `else Decimal(0)` -> `Decimal(1)`, `Decimal(-1)` (NumberReplacer): with a 0 input the log term is 0: 2 * (2 * 1 + 2) + 2
    assert _close(_in_eps(stats.tolerance(D(2), statistic="geometric_mean", values=[D(0), D(4)]), "0.5"), 10)


def test_the_slope_bounds_are_relative_to_the_stated_value_in_its_own_unit():
    """Kills `:503` `abs(stated) / k` -> `* k` (ReplaceBinaryOperator_Div_Mul) and `2 * upstream` -> `1 *` (NumberReplacer)."""
    scaled = stats.tolerance(D(2), statistic="slope_through_origin", values=ONE_TWO_THREE, scale=2)
    assert _close(_in_eps(scaled, "0.5"), 52)  # 2 / 2 * (24 + 2) * 2: the scale cancels
    upstream = stats.tolerance(D(2), statistic="slope_through_origin", values=ONE_TWO_THREE, input_error="0.001")
    assert _close(upstream - D("0.5"), 52 * EPS + D("0.002"))


def test_an_sd_of_zero_takes_the_square_root_bound():
    """The `sd > 0` guard of the cancellation term: at SD 0 the bound is sqrt(n eps sum x^2 / d)."""
    got = stats.tolerance(D(0), statistic="sd", values=ONE_TWO_THREE)
    assert _close(got - D("0.5"), (21 * EPS).sqrt(stats.CONTEXT) + 3 * EPS)


def test_compare_reads_a_stated_number_given_as_text_or_an_integer():
    """Kills `:551` `if not isinstance(stated, Decimal)` -> `if not not ...` (AddNot)."""
    held = stats.compare("1.5", D("1.52"))
    assert held == stats.Comparison(True, D("-0.02"), D("0.05"))
    assert stats.compare(3, D("3.6")) == stats.Comparison(False, D("-0.6"), D("0.5"))


def test_a_percentage_identity_needs_whole_counts():
    """
    Kills `:582` `t < 0` -> `t < 1`, `terms[1]` -> `terms[2]` (NumberReplacer), `or` -> `and` (ReplaceOrWithAnd), and `:587`
    `100 * terms[0]` -> `100 / terms[0]` (ReplaceBinaryOperator_Mul_Div).
    """
    ok = [(None, True, None)] * 3
    assert stats.identity("percentage", D("12.5"), [D(25), D(200)], ok) == (D("12.5"), D("12.5"), D(0))
    assert stats.identity("percentage", D(0), [D(0), D(200)], ok)[1] == 0  # 0 of 200 is 0 %
    for terms, message in [([D("2.5"), D(10)], "a percentage needs whole counts >= 0 and a whole above 0, not 2.5 of 10"),
                           ([D(-1), D(10)], "a percentage needs whole counts >= 0 and a whole above 0, not -1 of 10"),
                           ([D(1), D(0)], "a percentage needs whole counts >= 0 and a whole above 0, not 1 of 0")]:
        with pytest.raises(stats.Undefined, match=f"^{message}$"):
            stats.identity("percentage", D(1), terms, ok)


def test_a_difference_identity_of_epoch_clocks_is_judged_at_their_binary64_spacing():
    """
    Kills `:586` `terms[0] - terms[1]` -> `terms[1] - terms[1]`, `terms[0] - terms[2]` (NumberReplacer), `:597` `stated[0][0]`
    -> `stated[1][0]`, `:598` `stated[0][0]` -> `stated[-1][0]`, `Decimal(1)` -> `Decimal(2)`, `Decimal(0)` (NumberReplacer).
    """
    clocks = [D("1700000000.5"), D("1700000000.0")]  # epoch seconds: binary64 spacing there is 2**-22 s
    stated = [(D("0.5"), False, None), (None, True, None), (None, True, None)]
    left, right, bound = stats.identity("difference", D("0.5"), clocks, stated)
    assert (left, right) == (D("0.5"), D("0.5"))
    assert bound == D("0.05") + 2 * D(2) ** -22  # half a unit of 0.5, plus 2 ulps at 1.7e9
    assert stats.identity("difference", D(1), [D(10), D(3)], [(None, True, None)] * 3)[1] == 7


def test_an_underivable_reason_is_fail_unless_said_otherwise_and_said_by_name():
    """Kills `:95` `*` -> `/` in `Underivable.__init__` (fail keyword-only) and its default `fail=True` -> `False`."""
    assert Underivable("m", "empty-selection").fail is True
    assert Underivable("m", "empty-selection", fail=False).fail is False
    with pytest.raises(TypeError):
        Underivable("m", "empty-selection", False)  # type: ignore[misc]


def test_a_derived_value_and_a_comparison_are_frozen():
    """Kills `frozen=True` -> `False` of `Derived` and its decorator removed; a `Comparison` is a named tuple, immutable too."""
    import dataclasses

    got, held = derive("mean", XS), stats.compare(D(4), D(4))
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.value = None
    with pytest.raises(AttributeError):
        held.holds = None  # type: ignore[misc]
    assert isinstance(held, tuple) and held == (True, D(0), D("0.5"))
    assert got.arms is None and derive("speedup", {"a": {"s": [D(2)]}, "b": {"s": [D(1)]}}, baseline="a", candidate="b").arms == (D(2), D(1))
    assert held.detail(D(4), D(4)) == {"claimed": "4", "derived": "4", "delta": "0", "tolerance": "0.5"}


@pytest.mark.parametrize("statistic,kw,text", [
    ("count", {}, "count of 5 values"),
    ("sum", {}, "sum of 5 values"),
    ("mean", {}, "mean of 5 values"),
    ("median", {}, "median of 5 values"),
    ("min", {}, "minimum of 5 values"),
    ("max", {}, "maximum of 5 values"),
    ("first", {}, "first (in file order) of 5 values"),
    ("last", {}, "last (in file order) of 5 values"),
    ("sd", {}, "sample SD (n-1) of 5 values"),
    ("sem", {}, "standard error of the mean (sample SD (n-1) / sqrt(n)) of 5 values"),
    ("population_sd", {}, "population SD (n, numpy ddof=0) of 5 values"),
    ("percentile", {"q": 40, "method": "nearest-rank"}, "p40 nearest-rank (rank ceil(q/100*n)) of 5 values"),
    ("percentile", {"q": 90, "method": "linear"}, "p90 linear interpolation ((n-1)*q/100) of 5 values"),
    ("mad", {}, "median absolute deviation median(|x - median|) (unscaled) of 5 values"),
    ("mad_scaled", {}, "median absolute deviation x 1.482602218505602 (1/Phi^-1(3/4), normal scale) of 5 values"),
    ("mad_scaled", {"scale": "1.4826"}, "median absolute deviation x 1.4826 (the scale the rule names) of 5 values"),
    ("geometric_mean", {}, "geometric mean exp(mean(ln x)) of 5 values"),
])
def test_each_derivation_says_how_it_was_computed(statistic, kw, text):
    """Kills each branch of `_sample` and `_robust` returning another statistic's derivation text."""
    assert derive(statistic, XS, **kw).text == text


def test_the_robust_statistics_by_hand():
    """`_robust`: mad, mad_scaled (default and a named scale) and the geometric mean; values <= 0 and none at all are underivable."""
    # XS = 4, 1, 3, 2, 10: median 3, |x - 3| = 1, 2, 0, 1, 7, whose median is 1
    assert derive("mad", XS).value == 1 and derive("mad", XS).inputs == tuple(XS)
    assert derive("mad_scaled", XS).value == stats.MAD_NORMAL and _close(stats.MAD_NORMAL, "1.482602218505602", "1e-15")
    assert derive("mad_scaled", XS, scale="1.4826").value == D("1.4826") and derive("mad_scaled", XS, scale=2).value == 2
    assert _close(derive("geometric_mean", [D(1), D(4), D(16)]).value, 4, "1e-25")  # (1 * 4 * 16)^(1/3)
    assert derive("geometric_mean", [D(9)]).inputs == (D(9),)
    for statistic, values, message in [("geometric_mean", [D(0), D(4)], "a geometric mean needs values > 0, values has 0"),
                                       ("geometric_mean", [D(4), D(-1)], "a geometric mean needs values > 0, values has -1"),
                                       ("mad", [], "no values (values)"), ("geometric_mean", [], "no values (values)")]:
        with pytest.raises(Underivable) as caught:
            derive(statistic, values)
        assert (str(caught.value), caught.value.code, caught.value.fail) == (message, "empty-selection", True)


def test_the_empty_sample_and_the_percentile_without_a_method_say_why():
    assert derive("count", []).value == 0 and derive("count", []).text == "count of 0 values"
    for statistic, kw, message, code in [
        ("mean", {}, "no values (values)", "empty-selection"),
        ("percentile", {"q": 50}, "percentile needs q and a method (nearest-rank, linear, weibull), got q=50, method=None", "unknown-statistic"),
        ("percentile", {"method": "linear"}, "percentile needs q and a method (nearest-rank, linear, weibull), got q=None, method=linear",
         "unknown-statistic"),
    ]:
        with pytest.raises(Underivable) as caught:
            derive(statistic, [] if statistic == "mean" else XS, **kw)
        assert (str(caught.value), caught.value.code) == (message, code)
    with pytest.raises(Underivable) as caught:
        derive("geomean", XS)
    assert str(caught.value).startswith("unknown statistic 'geomean' (known: count, sum, mean, median, ")
    assert str(caught.value).endswith(", ci_low, ci_high, ci_half_width, ratio_of_sums)")


def test_count_ok_counts_the_successes_and_says_how_many_failed():
    got = derive("count_ok", [True, False, True, 1, 0])
    assert got.value == 3 and got.text == "count of the 3 successes among 5 values (2 failed, not counted)"


def test_group_statistics_name_each_server_and_need_two_for_an_sd():
    groups = {"s1": [D(1), D(3)], "": [D(5)]}  # an unnamed group is a mean without a server name
    assert derive("mean_of_server_means", groups).text == "mean of server means (values): server s1 mean 2 over 2; mean 5 over 1"
    sd = derive("sd_of_server_means", groups)
    assert sd.value == D("4.5").sqrt(stats.CONTEXT) and sd.text  # means 2 and 5: deviations 1.5, sqrt(4.5 / 1) == "sample SD (n-1) of server means (values): server s1 mean 2 over 2; mean 5 over 1"
    assert sd.inputs == (D(1), D(3), D(5))
    for values, message, fail in [({}, "no groups (values)", True), ({"s1": []}, "group s1 has no values (values)", True),
                                  ({"s1": [D(1), D(2)]}, "a sample SD needs at least two server means, values has 1", False)]:
        with pytest.raises(Underivable) as caught:
            derive("sd_of_server_means", values)
        assert (str(caught.value), caught.value.code, caught.value.fail) == (message, "empty-selection", fail)


def test_arm_comparisons_say_how_and_when_they_are_undefined():
    arms = {"base": {"s1": [D(10), D(30)], "s2": [D(40)]}, "cand": {"s3": [D(12)], "s4": [D(6), D(6)]}}
    detail = "baseline 30 (server s1 mean 20 over 2; server s2 mean 40 over 1), candidate 9 (server s3 mean 12 over 1; server s4 mean 6 over 2)"
    kw = {"baseline": "base", "candidate": "cand"}
    assert derive("difference", arms, **kw).text == f"baseline - candidate: {detail}"
    assert derive("relative_reduction_pct", arms, **kw).text == f"(1 - candidate/baseline) * 100: {detail}"
    assert derive("speedup", arms, **kw).arms == (D(30), D(9))
    zero = {"a": {"s": [D(2)]}, "b": {"s": [D(0)]}}
    assert derive("difference", zero, baseline="a", candidate="b").value == 2  # a zero candidate mean is a difference
    assert derive("relative_reduction_pct", zero, baseline="a", candidate="b").value == 100  # and a reduction of 100 %
    assert derive("difference", {"a": {"s": [D(0)]}, "b": {"s": [D(2)]}}, baseline="a", candidate="b").value == -2
    for values, statistic, kw2, message, code in [
        (zero, "speedup", {"baseline": "a", "candidate": "b"}, "an arm mean is zero (values), so the speedup is undefined", "empty-selection"),
        ({"a": {"s": [D(0)]}, "b": {"s": [D(2)]}}, "relative_reduction_pct", {"baseline": "a", "candidate": "b"},
         "an arm mean is zero (values), so the relative_reduction_pct is undefined", "empty-selection"),
        (zero, "speedup", {"baseline": "a"}, "speedup needs the baseline and candidate arms named", "unknown-statistic"),
        (zero, "difference", {"candidate": "b"}, "difference needs the baseline and candidate arms named", "unknown-statistic"),
        (zero, "speedup", {"baseline": "a", "candidate": "c"}, "no groups (arm c, values)", "empty-selection"),
    ]:
        with pytest.raises(Underivable) as caught:
            derive(statistic, values, **kw2)
        assert (str(caught.value), caught.value.code) == (message, code)


def test_a_confidence_interval_names_its_method_and_a_confidence_inside_zero_to_one_hundred():
    """The guards of `critical_value`: the method, 0 < confidence < 100 (both ends open)."""
    xs = [D(1), D(2), D(3)]
    for kw, message in [({"confidence": 95}, "a confidence interval names its method (normal-z or student-t), got ''"),
                        ({"method": "normal-z"}, "confidence must be a percentage in (0, 100), got 0"),
                        ({"method": "normal-z", "confidence": 0}, "confidence must be a percentage in (0, 100), got 0"),
                        ({"method": "normal-z", "confidence": 100}, "confidence must be a percentage in (0, 100), got 100"),
                        ({"method": "wald", "confidence": 95}, "a confidence interval names its method (normal-z or student-t), got 'wald'")]:
        with pytest.raises(Underivable) as caught:
            derive("ci_half_width", xs, **kw)
        assert (str(caught.value), caught.value.code) == (message, "unknown-statistic")
    assert _close(derive("ci_half_width", xs, method="normal-z", confidence="99.9").value, D("3.290526731491926") / D(3).sqrt(), "1e-14")
    assert _close(derive("ci_half_width", xs, method="student-t", confidence=95).value, D("4.302652729749464") / D(3).sqrt(), "1e-13")


def test_ratio_of_sums_and_pairs_say_why_they_are_undefined():
    for statistic, values, message in [("ratio_of_sums", ([], [D(1)]), "no values (values)"),
                                       ("ratio_of_sums", ([D(1)], []), "no values (values)"),
                                       ("ratio", (D(1), D(0)), "the denominator is zero (values)"),
                                       ("relative_change_pct", (D(0), D(1)), "the reference value is zero (values)")]:
        with pytest.raises(Underivable) as caught:
            derive(statistic, values)
        assert (str(caught.value), caught.value.code) == (message, "empty-selection")
    ratio, change = derive("ratio", (D(3), D(4))), derive("relative_change_pct", (D(8), D(6)))
    assert (ratio.text, ratio.inputs) == ("3 / 4 (values)", (D(3), D(4)))
    assert change.text == "(6 - 8) / 8 * 100 (values)"
    assert derive("ratio", (D(0), D(4))).value == 0 and derive("relative_change_pct", (D(-8), D(-6))).value == -25


def test_tolerance_of_what_is_declared_exact_or_printed_elsewhere():
    """`declared` wins, `exact` is 0, `source` widens to its own half unit only when coarser; a stated number may be an int or text."""
    assert stats.tolerance(D("1.5"), declared="0.25", statistic="mean", values=XS) == D("0.25")
    assert stats.tolerance(D("1.5"), exact=True, statistic="mean", values=XS) == 0
    assert stats.tolerance(D("1.55"), source=D("1.5")) == D("0.05") and stats.tolerance(D("1.5"), source=D("1.55")) == D("0.05")
    assert stats.tolerance(3) == D("0.5") and stats.tolerance("1.25") == D("0.005")
    assert stats.tolerance(D("4110"), written="+4110") == 5 and stats.tolerance(D("4110.0"), written="4110.0") == D("0.05")


def test_the_one_value_sd_bound_divides_by_one():
    """`_SPREAD`: d = max(n - 1, 1): one value (an SD a producer printed for one run) divides by 1, not by 0 or 2."""
    got = stats.tolerance(D(1), statistic="sd", values=[D(2)])  # squares eps * 4; min(sqrt(4 eps), 4 eps / 2) + 2 * u * 2 + eps
    assert _close(_in_eps(got, "0.5"), 5)


def test_a_bound_is_in_the_stated_unit_times_the_scale():
    """`scale` converts the inputs' unit to the stated one: a mean of seconds stated in ms gets 1000 times the seconds' bound."""
    assert _close(_in_eps(stats.tolerance(D("2000.0"), statistic="mean", values=ONE_TWO_THREE, scale=1000), "0.05"), 7500)
    assert _close(_in_eps(stats.tolerance(D("1.0"), statistic="mad", values=ONE_TWO_THREE, scale=D(2)), "0.05"), 30 + 1)  # 15 * 2 + 1/2 * 2
    diff = stats.tolerance(D("1.000"), statistic="difference", values=[D(1), D(0)], input_error="0.001")
    assert diff == D("0.0005") + 2 * D(2) ** -52 + D("0.002")


def test_two_printings_agree_within_half_a_unit_of_the_coarser_place():
    assert stats.agree(D("637.54"), D("637.535")) and stats.agree(D("637.535"), D("637.54"))
    assert stats.agree(D("1.0"), D("1.05")) and not stats.agree(D("1.0"), D("1.051")) and not stats.agree(D("637.54"), D("637.5349"))


def test_spread_is_min_median_max_and_the_range_over_the_median():
    assert stats.spread([D(3), D(1), D(2)]) == (D(1), D(2), D(3), D(1))
    assert stats.spread([D(-1), D(0), D(1)]) == (D(-1), D(0), D(1), None)
    assert stats.spread([D(0), D(0)]) == (D(0), D(0), D(0), D(0))
    assert stats.spread([D(4), D(5)])[3] == stats.CONTEXT.divide(D(1), D("4.5"))


def test_identity_value_sum_ratio_and_its_tolerance_sources():
    """`identity`: the operations, `declared`, `one_over` (read only then), and the stated numbers' bounds (left alone for a ratio)."""
    none = [(None, True, None)] * 3
    assert stats.identity("value", D(5), [D(5)], none) == (D(5), D(5), D(0))
    assert stats.identity("sum", D(5), [D(2), D(3)], none)[1] == 5
    assert stats.identity("ratio", D("0.5"), [D(1), D(4)], none)[1] == D("0.25")
    with pytest.raises(stats.Undefined, match="^its divisor is 0$"):
        stats.identity("ratio", D(1), [D(1), D(0)], none)
    assert stats.identity("sum", D(5), [D(2), D(3)], none, declared="0.2")[2] == D("0.2")
    assert stats.identity("sum", D(5), [D(2), D(3)], none, one_over=lambda: D(25))[2] == D("0.04")  # one frame at 25 fps
    stated = [(D("0.5"), False, None), (D("1.25"), False, None), (D(4), True, None)]
    assert stats.identity("sum", D("1.75"), [D("1.25"), D("0.5")], stated)[2] == D("0.05")  # the coarsest stated, exact ones skipped
    assert stats.identity("ratio", D("0.31"), [D("1.25"), D(4)], [(D("0.31"), False, None), (D("1.2"), False, None), (D(4), False, None)])[2] == D("0.005")
    ms = [(D("1.5"), False, D("0.001")), (None, True, None), (None, True, None)]  # 1.5 ms, both sides in s
    assert stats.identity("sum", D("0.0015"), [D("0.0015")], ms)[2] == D("0.00005")
    sec = stats.identity("sum", D("1500"), [D("1.5")], [(D("1500"), False, D("0.001")), (None, True, None)], scale=D("0.001"))
    assert sec == (D("1.5E+6"), D("1.5E+3"), D("0.5"))


def test_a_confidence_just_above_zero_is_a_confidence():
    """Kills `:258` `0 < confidence` -> `1 < confidence` (NumberReplacer): a 0.5 % interval is narrow, not refused."""
    assert _close(stats.critical_value("normal-z", D("0.5"), 3), "0.006266611701750", "1e-12")  # z at 0.50250 (scipy norm.ppf)


def test_a_student_t_interval_without_scipy_is_unverified_and_says_what_to_install(monkeypatch):
    """Kills `:269` `except ImportError` replaced (ExceptionReplacer): no scipy is UNVERIFIED with the install hint, not a traceback."""
    import sys

    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # `from scipy.stats import t` raises ImportError
    with pytest.raises(Underivable) as caught:
        stats.critical_value("student-t", D(95), 5)
    assert (str(caught.value), caught.value.code, caught.value.fail) == (
        "the student-t interval needs scipy (pip install 'verify-evidence[stats]')", "dependency-missing", False)
    assert _close(stats.critical_value("normal-z", D(95), 5), "1.959963984540054", "1e-15")  # the normal one needs no scipy


def test_tolerance_takes_only_the_stated_number_by_position():
    """Kills `:409` the `*` of `tolerance`'s signature -> `/` (ReplaceBinaryOperator_Mul_Div): the bound's keywords are keyword-only."""
    assert stats.tolerance(stated=D("1.5")) == D("0.05")
    with pytest.raises(TypeError):
        stats.tolerance(D("1.5"), "mean")  # type: ignore[misc]


def test_inputs_given_as_binary_floats_are_read_exactly():
    """Kills `:477` `x if isinstance(x, Decimal) else Decimal(x)` -> `if not isinstance` (AddNot): 0.5, 1.5, 2.5 are exact doubles."""
    floats = stats.tolerance(D("1.5"), statistic="mean", values=[0.5, 1.5, 2.5])
    assert floats == stats.tolerance(D("1.5"), statistic="mean", values=[D("0.5"), D("1.5"), D("2.5")])
    assert _close(_in_eps(floats, "0.05"), D("5.75"))  # eps * 4.5 + u * 2.5


def test_a_difference_bound_is_two_ulps_at_the_operands_in_their_unit_whatever_the_stated_unit():
    """Kills `:515` `2 * _ulp(biggest * k) / k` -> `* k` (ReplaceBinaryOperator_Div_Mul): s -> ms is 2 ulps at 1000, 2**-42."""
    assert stats.tolerance(D("1000.000"), statistic="difference", values=[D(1), D(0)], scale=1000) == D("0.0005") + D(2) ** -42


@pytest.mark.parametrize("statistic", ["sum", "mean", "median", "min", "mad", "mad_scaled", "geometric_mean", "slope", "r_squared",
                                       "slope_through_origin", "sd", "population_sd", "sem", "difference", "ci_low", "ci_half_width",
                                       "speedup", "ratio", "ratio_of_sums", "count"])
def test_a_bound_stated_in_another_unit_is_the_same_bound_times_the_scale(statistic):
    """
    Kills `abs(stated) / k` -> `* k` in every per-statistic bound (`:498`, `:501`, `:503`, `:505`, `:509`, `:517`, `:525`; ReplaceBinaryOperator_Div_Mul):
    a number stated in a unit 2 times smaller (scale 2) is 2 times the number, and its float bound is 2 times the bound.
    """
    values, stated = ([D(1), D(4)], D(2))
    one = stats.tolerance(stated, statistic=statistic, values=values) - D("0.5")
    two = stats.tolerance(2 * stated, statistic=statistic, values=values, scale=2) - D("0.5")
    assert one > 0 and _close(two, 2 * one), (statistic, one, two)


def test_identity_takes_its_record_by_name_and_its_bound_only_by_name():
    """Kills `:574` the `*` of `identity`'s signature -> `/` (ReplaceBinaryOperator_Mul_Div)."""
    assert stats.identity(op="sum", left=D(5), terms=[D(2), D(3)], stated=[])[1] == 5
    with pytest.raises(TypeError):
        stats.identity("sum", D(5), [D(2), D(3)], [], D(1))  # type: ignore[misc]


@pytest.mark.parametrize("scale", ["1000", 1000, 1000.0, D(1000)])
def test_a_scale_given_as_text_a_number_or_a_decimal_is_the_same_scale(scale):
    """Kills `:478` `scale if isinstance(scale, Decimal) else Decimal(str(scale))` -> `if not isinstance` (AddNot)."""
    got = stats.tolerance(D("2000.0"), statistic="mean", values=ONE_TWO_THREE, scale=scale)
    assert _close(_in_eps(got, "0.05"), 7500)


def test_an_inputs_upstream_error_widens_each_inputs_bound():
    """Kills `:488` `... * biggest + upstream` -> `- upstream` (ReplaceBinaryOperator_Add_Sub): TPOT-like inputs carry their own error."""
    got = stats.tolerance(D("2.0"), statistic="mean", values=ONE_TWO_THREE, input_error="0.001")
    assert _close(got - D("0.051"), D("7.5") * EPS)  # half unit 0.05 + eps sum|x| + u max|x| + the upstream 0.001
    assert _close(stats.tolerance(D(6), statistic="sum", values=ONE_TWO_THREE, input_error="0.001") - D("0.503"), D("22.5") * EPS)


@pytest.mark.parametrize("statistic", ["mean", "sum", "median", "min", "sd"])
def test_a_tolerance_reads_each_input_by_its_magnitude(statistic):
    """Kills `:477` `not x.is_signed()` -> `x.is_signed()`: a negative input counts as its magnitude (|-3| = 3), as an int or text one does."""
    negative = stats.tolerance(D("2.5"), statistic=statistic, values=[D(-3), D("1.5"), D(-4)])
    assert negative == stats.tolerance(D("2.5"), statistic=statistic, values=[D(3), D("1.5"), D(4)])
    assert negative == stats.tolerance(D("2.5"), statistic=statistic, values=[-3, "1.5", D(-4)])
    assert negative > stats.tolerance(D("2.5"), statistic=statistic, values=[D(1), D("1.5"), D(1)])  # the magnitudes count, not the signed values
