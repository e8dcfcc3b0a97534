"""
Statistics used by derivations, in exact `Decimal` arithmetic.

Inputs are sequences of `Decimal` (as read by `verifier.formats.jsonio`); results are
`Decimal` computed in a 50-digit context, so the only rounding is far below
any stated precision. Definitions and their sources:

- `mean`: arithmetic mean, sum / n; `olympic_mean`: the mean after dropping one smallest and one largest value (n >= 3;
  MLPerf Training's score over a benchmark's runs, `mlperf_logging/result_summarizer` `_compute_olympic_average`).
- `median`: the middle value, or the mean of the two middle values (`percentile_linear(q=50)`).
- `percentile_nearest_rank`: the value at rank ceil(q/100 * n) of the sorted
  sample, 1-based (Hyndman & Fan 1996 definition 1; "nearest-rank" in NIST
  e-Handbook 7.2.6.2). The p95 of fewer than 20 values is the maximum.
  `weibull` (`estimators.percentile_weibull`): Hyndman & Fan definition 6, commons-math's default.
- `percentile_linear`: linear interpolation between closest ranks at
  position (n - 1) * q / 100, 0-based (Hyndman & Fan definition 7; numpy's
  default `method="linear"`).
- `sample_sd`, `sem`, `population_sd`: `verifier.engine.estimators` (its docstring gives their definitions).
- `mad`: the median absolute deviation, median(|x - median(x)|), unscaled;
  `mad_scaled`: the same times 1 / Phi^-1(3/4) = 1.482602218505602, so it
  estimates the SD of normal data (Rousseeuw & Croux 1993; scipy
  `median_abs_deviation(scale="normal")`), or times the `scale` a rule
  names (R `mad()`'s `constant` 1.4826; criterion.rs multiplies by the f32
  literal 1.4826, i.e. 1.4825999736785888671875).
- `geometric_mean`: exp(mean(ln x)) of values > 0 (e.g. of speedup
  ratios; scipy `gmean`); `harmonic_mean`: n / sum(1/x) of values > 0
  (e.g. of rates over equal work; scipy `hmean`, Python `statistics.harmonic_mean`).
- `slope` and `r_squared`: the ordinary least-squares line of y on x over
  pairs (x, y): slope Sxy / Sxx, coefficient of determination
  Sxy^2 / (Sxx Syy) (NIST e-Handbook 4.1.4.1; scipy `linregress` `slope`
  and `rvalue**2`), Sxy = sum((x - mean x)(y - mean y));
  `slope_through_origin`: the least-squares line through (0, 0),
  sum(x y) / sum(x^2) (NIST e-Handbook 4.1.4.1; criterion.rs `Slope::fit`,
  the `slope` of its `estimates.json`).
- `ratio_of_sums`: sum(a) / sum(b) over one selection (e.g. samples / total
  seconds), not a mean of per-receipt ratios.
- `ci_low`, `ci_high`, `ci_half_width`: the two-sided confidence interval of
  the mean, mean -/+ c * SD / sqrt(n) (SD the sample SD), where the method is
  always named: `normal-z` takes c = the standard normal quantile at
  1 - (1 - confidence) / 2 (`statistics.NormalDist.inv_cdf`); `student-t`
  takes the Student t quantile with n - 1 degrees of freedom
  (`scipy.stats.t.ppf`) (NIST e-Handbook 7.2.2.1; Student 1908).

`derive` is the one derivation entry point of the package: every reader
(native bundles, profiles, the receipt adapters) hands it a statistic name and
the values it selected, and every claim is compared through the one
`compare`/`tolerance` pair (also record identities, `identity`; printings,
`agree`): `tests/engine/test_engine_arithmetic.py` lists what stays elsewhere.
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from verifier.model.numtext import fmt  # re-exported: a derived number for a message (display only)
from verifier.engine.sweep import peak_in_flight, peak_overlap, sweep_peak  # re-exported: the peak overlap of intervals, counted exactly (no arithmetic to round)

__all__ = [
    "STATISTICS", "RUN_CONTEXT", "Comparison", "Derived", "Underivable", "Undefined", "agree", "clock_span_error", "compare", "compare_spans", "compare_spread", "critical_value", "derive", "fmt", "half_unit",
    "identity", "mean", "median", "peak_in_flight", "peak_overlap", "per_output_token", "percentile_linear", "median_abs_deviation", "percentile_nearest_rank", "population_sd", "sample_sd", "seconds_of", "spread", "sweep_peak", "tolerance",
]

from verifier.engine.estimators import (  # noqa: E402  the elementary estimators, re-exported: stats.mean, stats.CONTEXT, ...
    CONTEXT,
    MAD_NORMAL,
    PERCENTILE_METHODS,
    RUN_CONTEXT,
    exact,
    mean,
    median,
    median_abs_deviation,
    percentile_linear,
    percentile_nearest_rank,
    population_sd,
    sample_sd,
    sem,
)


# ---------------------------------------------------------------- the one derivation function


class Underivable(Exception):
    """
    Raised when a statistic cannot be derived honestly.

    `code` is the finding code (`empty-selection`, `incomplete-denominator`,
    `unknown-statistic`, ...), `fail` whether the finding is FAIL (the
    evidence contradicts the claim's premise) rather than UNVERIFIED.
    """

    def __init__(self, message: str, code: str, *, fail: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.fail = fail


@dataclass(frozen=True)
class Derived:
    """
    Represents one derived number: the `statistic`, its exact `value`, how it was computed (`text`)
    and the flat `inputs` it was computed from (what a forward-error bound needs); `arms` the
    `(baseline, candidate)` means a comparison of two arms (`ARM_STATISTICS`) compared, else None.
    """

    statistic: str
    value: Decimal
    text: str
    inputs: tuple[Decimal, ...] = ()
    arms: tuple[Decimal, Decimal] | None = None


#: Statistics over one sample (`values`: a sequence of Decimal).
SAMPLE_STATISTICS = ("count", "sum", "mean", "median", "min", "max", "first", "last", "sd", "population_sd", "percentile", "sem", "olympic_mean")
#: Robust spreads and the geometric and harmonic means over one sample (`values`: a sequence of Decimal; the two means' all > 0).
ROBUST_STATISTICS = ("mad", "mad_scaled", "geometric_mean", "harmonic_mean")
#: Least-squares line of y on x (`values`: `(xs, ys)`, two sequences of one length).
REGRESSION_STATISTICS = ("slope", "r_squared", "slope_through_origin")
#: Statistics over outcomes (`values`: a sequence of bool, one per receipt: whether it succeeded): `count_ok` counts the successes.
OUTCOME_STATISTICS = ("count_ok",)
#: Statistics over groups (`values`: a mapping group -> sample), e.g. one sample per server.
GROUP_STATISTICS = ("mean_of_server_means", "sd_of_server_means")
#: Comparisons of two arms (`values`: a mapping arm -> group -> sample; `baseline` and `candidate` name the arms).
ARM_STATISTICS = ("relative_reduction_pct", "speedup", "difference")
#: Statistics of a pair (`values`: `(a, b)`): `ratio` is a / b; `relative_change_pct` is (b - a) / a * 100.
PAIR_STATISTICS = ("ratio", "relative_change_pct")
#: Confidence interval of the mean (`values`: a sample; `method` `normal-z` or `student-t` and `confidence` in percent, both required).
CI_STATISTICS = ("ci_low", "ci_high", "ci_half_width")
#: A ratio of two sums over one selection (`values`: `(numerators, denominators)`), e.g. samples / total seconds.
SUM_RATIO_STATISTICS = ("ratio_of_sums",)
#: The methods a confidence interval names (never a default).
CI_METHODS = ("normal-z", "student-t")
#: Statistics whose result is a ratio, a pure number (stated in `1`, `x`, or `%` with the factor 100 applied).
RATIO_RESULTS = ("speedup", "ratio", "r_squared")
#: Statistics whose result is a percentage (stated in `%`, or in `1` with the factor 1/100 applied).
PERCENT_RESULTS = ("relative_reduction_pct", "relative_change_pct")
#: Statistics whose result is a number of receipts (stated in a count unit, `1`, or none).
COUNT_RESULTS = ("count", "count_ok")
#: The whole vocabulary `derive` understands.
STATISTICS = SAMPLE_STATISTICS + ROBUST_STATISTICS + REGRESSION_STATISTICS + OUTCOME_STATISTICS + GROUP_STATISTICS + ARM_STATISTICS + PAIR_STATISTICS + CI_STATISTICS + SUM_RATIO_STATISTICS
#: Statistics computed over one value of the receipts, in that value's unit (a profile rule states its `unit`); the others are counts or ratios.
VALUE_STATISTICS = ("mean", "median", "percentile", "min", "max", "sd", "mean_of_server_means", "difference", "first", "last",
                    "ci_low", "ci_high", "ci_half_width", "sum", "population_sd", "sd_of_server_means", "mad", "mad_scaled", "geometric_mean", "harmonic_mean", "sem",
                    "olympic_mean")
#: Regression slopes: value per x, in a unit of the dimension value / x.
SLOPE_STATISTICS = ("slope", "slope_through_origin")
#: Statistics comparing two arms (`baseline`, `candidate`): the arm statistics, and the pair ones taking the arms' means as their pair.
TWO_ARM_STATISTICS = ARM_STATISTICS + PAIR_STATISTICS
#: Statistics a profile rule must state the `unit` of (the confidence-interval ones require it with their `method`).
UNIT_STATISTICS = tuple(s for s in VALUE_STATISTICS if s not in CI_STATISTICS) + SLOPE_STATISTICS
#: Statistics a native gate rule must give a `selection` for: the sample ones but `count` (which counts `of`), and the group ones.
SELECTION_STATISTICS = tuple(s for s in SAMPLE_STATISTICS if s != "count") + GROUP_STATISTICS
#: The word prose states a value of each statistic with (`binding.Evidence.statistic`, `checks/statements.statistic_word`;
#: a percentile is `p<q>`); a statistic not here is named by no word, so a stated value of it is not bound in prose.
STATED_WORDS = {"mean": "mean", "median": "median", "mean_of_server_means": "mean", "sd": "sd", "sd_of_server_means": "sd", "min": "min", "max": "max"}
#: The lists the gate and profile schemas take their statistic enums from: a schema file's `{"x-verify-enum": NAME}` is
#: read as `{"enum": list(SCHEMA_ENUMS[NAME])}` (`verifier.schema.validation.filled`), so adding a statistic edits no pinned schema.
SCHEMA_ENUMS = {"STATISTICS": STATISTICS, "ARM_STATISTICS": ARM_STATISTICS, "TWO_ARM_STATISTICS": TWO_ARM_STATISTICS,
                "CI_STATISTICS": CI_STATISTICS, "REGRESSION_STATISTICS": REGRESSION_STATISTICS, "UNIT_STATISTICS": UNIT_STATISTICS,
                "SELECTION_STATISTICS": SELECTION_STATISTICS}


def _sample(statistic: str, xs: Sequence[Decimal], q: Any, method: str | None, of: str) -> Derived:
    n = len(xs)
    text = f"{n} {of}"
    if statistic == "count":
        return Derived(statistic, Decimal(n), f"count of {text}")
    values = [Decimal(x) for x in xs]
    if not values:
        raise Underivable(f"no values ({of})", "empty-selection")
    inputs = tuple(values)
    if statistic == "sum":
        return Derived(statistic, sum(values, Decimal(0)), f"sum of {text}", inputs)
    if statistic == "mean":
        return Derived(statistic, mean(values), f"mean of {text}", inputs)
    if statistic == "olympic_mean":  # MLPerf Training's score: the fastest and the slowest run dropped (mlperf_logging result_summarizer)
        if n < 3:
            raise Underivable(f"an olympic mean drops two values and needs at least three, {of} has {n}", "empty-selection", fail=False)
        kept = sorted(values)[1:-1]
        return Derived(statistic, mean(kept), f"olympic mean (smallest and largest dropped) of {text}", tuple(kept))
    if statistic == "median":
        return Derived(statistic, median(values), f"median of {text}", inputs)
    if statistic == "min":
        return Derived(statistic, min(values), f"minimum of {text}", inputs)
    if statistic == "max":
        return Derived(statistic, max(values), f"maximum of {text}", inputs)
    if statistic == "first":
        return Derived(statistic, values[0], f"first (in file order) of {text}", inputs)
    if statistic == "last":
        return Derived(statistic, values[-1], f"last (in file order) of {text}", inputs)
    if statistic in ("sd", "sem"):
        if n < 2:
            raise Underivable(f"a sample SD needs at least two values, {of} has {n}", "empty-selection", fail=False)
        sd_or_sem, words = (sem, "standard error of the mean (sample SD (n-1) / sqrt(n))") if statistic == "sem" else (sample_sd, "sample SD (n-1)")
        return Derived(statistic, sd_or_sem(values), f"{words} of {text}", inputs)
    if statistic == "population_sd":
        return Derived(statistic, population_sd(values), f"population SD (n, numpy ddof=0) of {text}", inputs)
    if q is None or method not in PERCENTILE_METHODS:
        raise Underivable(f"percentile needs q and a method ({', '.join(PERCENTILE_METHODS)}), got q={q}, method={method}", "unknown-statistic")
    function, how = PERCENTILE_METHODS[method]
    return Derived(statistic, function(values, Decimal(str(q))), f"p{Decimal(str(q))} {how} of {text}", inputs)


def _group_means(groups: Mapping[str, Sequence[Decimal]], of: str) -> tuple[list[Decimal], list[str], tuple[Decimal, ...]]:
    if not groups:
        raise Underivable(f"no groups ({of})", "empty-selection")
    means, lines, inputs = [], [], []
    for name, sample in groups.items():
        xs = [Decimal(x) for x in sample]
        if not xs:
            raise Underivable(f"group {name} has no values ({of})", "empty-selection")
        means.append(mean(xs))
        inputs.extend(xs)
        lines.append(f"{f'server {name} ' if name else ''}mean {fmt(means[-1])} over {len(xs)}")
    return means, lines, tuple(inputs)


def _robust(statistic: str, xs: list[Decimal], of: str, scale: Any = None) -> Derived:
    """Return `mad`, `mad_scaled` (times `scale`, default `MAD_NORMAL`), `geometric_mean` or `harmonic_mean` of `xs` (see the module docstring); raises `Underivable` for no values or a value <= 0 in a geometric or harmonic mean (`empty-selection`, FAIL)."""
    if not xs:
        raise Underivable(f"no values ({of})", "empty-selection")
    text = f"{len(xs)} {of}"
    if statistic == "geometric_mean":
        if any(x <= 0 for x in xs):
            raise Underivable(f"a geometric mean needs values > 0, {of} has {min(xs)}", "empty-selection")
        logs = [CONTEXT.ln(x) for x in xs]
        return Derived(statistic, CONTEXT.exp(CONTEXT.divide(sum(logs, Decimal(0)), Decimal(len(xs)))), f"geometric mean exp(mean(ln x)) of {text}", tuple(xs))
    if statistic == "harmonic_mean":
        if any(x <= 0 for x in xs):
            raise Underivable(f"a harmonic mean needs values > 0, {of} has {min(xs)}", "empty-selection")
        reciprocals = functools.reduce(CONTEXT.add, (CONTEXT.divide(Decimal(1), x) for x in xs), Decimal(0))  # in CONTEXT: `sum` would round at the run's 28 digits
        return Derived(statistic, CONTEXT.divide(Decimal(len(xs)), reciprocals), f"harmonic mean n / sum(1/x) of {text}", tuple(xs))
    mad = median_abs_deviation(xs)
    if statistic == "mad":
        return Derived(statistic, mad, f"median absolute deviation median(|x - median|) (unscaled) of {text}", tuple(xs))
    if scale is not None:
        factor = Decimal(str(scale))
        return Derived(statistic, CONTEXT.multiply(mad, factor), f"median absolute deviation x {factor} (the scale the rule names) of {text}", tuple(xs))
    return Derived(statistic, CONTEXT.multiply(mad, MAD_NORMAL), f"median absolute deviation x 1.482602218505602 (1/Phi^-1(3/4), normal scale) of {text}", tuple(xs))


def _regression(statistic: str, values: Any, of: str) -> Derived:
    """Return the least-squares `slope`, `r_squared` or `slope_through_origin` of `values` = `(xs, ys)`; raises `Underivable` for fewer than two pairs (one through the origin) or no spread."""
    xs, ys = ([Decimal(v) for v in part] for part in values)
    if statistic == "slope_through_origin":
        if len(xs) != len(ys) or not xs:
            raise Underivable(f"a regression through the origin needs at least one (x, y) pair, {of} has {min(len(xs), len(ys))}", "empty-selection", fail=False)
        sxx0, sxy0 = (sum((CONTEXT.multiply(x, v) for x, v in zip(xs, vs, strict=True)), Decimal(0)) for vs in (xs, ys))
        if sxx0 == 0:
            raise Underivable(f"every x of {of} is 0, so the slope through the origin is undefined", "empty-selection")
        return Derived(statistic, CONTEXT.divide(sxy0, sxx0), f"least-squares slope through the origin sum(xy)/sum(x^2) ({fmt(sxy0)} / {fmt(sxx0)}) over {len(xs)} pairs of {of}",
                       tuple(xs) + tuple(ys))
    if len(xs) != len(ys) or len(xs) < 2:
        raise Underivable(f"a regression needs at least two (x, y) pairs, {of} has {min(len(xs), len(ys))}", "empty-selection", fail=False)
    mx, my = mean(xs), mean(ys)
    sxx = sum((CONTEXT.multiply(x - mx, x - mx) for x in xs), Decimal(0))
    sxy = sum((CONTEXT.multiply(x - mx, y - my) for x, y in zip(xs, ys, strict=True)), Decimal(0))
    syy = sum((CONTEXT.multiply(y - my, y - my) for y in ys), Decimal(0))
    if sxx == 0 or (statistic == "r_squared" and syy == 0):
        raise Underivable(f"every {'x' if sxx == 0 else 'y'} of {of} is the same, so the {statistic} is undefined", "empty-selection")
    if statistic == "slope":
        return Derived(statistic, CONTEXT.divide(sxy, sxx), f"least-squares slope Sxy/Sxx ({fmt(sxy)} / {fmt(sxx)}) over {len(xs)} pairs of {of}", tuple(xs) + tuple(ys))
    return Derived(statistic, CONTEXT.divide(CONTEXT.multiply(sxy, sxy), CONTEXT.multiply(sxx, syy)),
                   f"R^2 = Sxy^2/(Sxx Syy) of the least-squares line over {len(xs)} pairs of {of}", tuple(xs) + tuple(ys))


def critical_value(method: str, confidence: Decimal, n: int) -> Decimal:
    """
    Return the two-sided critical value c of a `confidence` % interval of the mean of `n` values.

    `normal-z`: the standard normal quantile at 1 - (1 - confidence/100) / 2
    (`statistics.NormalDist`, 1.959963984540054 at 95 %); `student-t`: the
    Student t quantile with n - 1 degrees of freedom (`scipy.stats.t.ppf`,
    2.093024054408263 at 95 % for n = 20). Raises `Underivable` for another
    method, a confidence outside (0, 100), fewer than two values, or
    `student-t` without scipy installed (UNVERIFIED: the check could not run).
    """
    if method not in CI_METHODS:
        raise Underivable(f"a confidence interval names its method ({' or '.join(CI_METHODS)}), got {method!r}", "unknown-statistic")
    if not 0 < confidence < 100:
        raise Underivable(f"confidence must be a percentage in (0, 100), got {confidence}", "unknown-statistic")
    if n < 2:
        raise Underivable(f"a confidence interval needs at least two values, got {n}", "empty-selection", fail=False)
    p = 0.5 + float(confidence) / 200  # 1 - (1 - confidence/100) / 2: the upper quantile of a two-sided interval
    if method == "normal-z":
        from statistics import NormalDist

        return Decimal(repr(NormalDist().inv_cdf(p)))
    try:
        from scipy.stats import t as student_t  # the well-kept implementation of the t quantile (the `stats` extra)
    except ImportError:
        raise Underivable("the student-t interval needs scipy (pip install 'verify-evidence[stats]')", "dependency-missing", fail=False) from None
    return Decimal(repr(float(student_t.ppf(p, n - 1))))


@exact
def derive(statistic: str, values: Any, *, q: Any = None, method: str | None = None,
           baseline: str | None = None, candidate: str | None = None, of: str = "values",
           confidence: Any = None, scale: Any = None) -> Derived:
    """
    Return the `Derived` value of `statistic` over `values`, computed exactly in `CONTEXT`.

    The one derivation function of the package. The shape of `values` depends
    on the statistic (see `STATISTICS`):

    - `count`, `sum`, `mean`, `median`, `min`, `max`, `first`, `last` (in
      the order given, e.g. file order), `sd` (sample, n-1),
      `population_sd` (n), `percentile` (`q` in (0, 100], `method`
      `nearest-rank` or `linear`, both required): a sequence of Decimal;
    - `mad`, `mad_scaled` (times `scale` when given), `geometric_mean`, `harmonic_mean` (values > 0): a sequence of Decimal;
    - `slope`, `r_squared`, `slope_through_origin`: a pair `(xs, ys)` of sequences of one length (y regressed on x);
    - `count_ok`: a sequence of bool (each receipt's success): the number of successes;
    - `mean_of_server_means`, `sd_of_server_means` (sample SD, n-1, of the
      group means): a mapping group -> sequence (one group per server);
    - `relative_reduction_pct` ((1 - c/b) * 100), `speedup` (b / c) and
      `difference` (b - c),
      where b and c are each arm's mean of its group means: a mapping
      arm -> group -> sequence, with `baseline` and `candidate` naming arms;
    - `ratio` (a / b) and `relative_change_pct` ((b - a) / a * 100): a pair;
    - `ratio_of_sums`: a pair of sequences (numerators, denominators);
    - `ci_low`, `ci_high`, `ci_half_width`: a sequence, with `method`
      (`normal-z` or `student-t`) and `confidence` (percent), see `critical_value`.

    `of` describes the values for the derivation text ("measured values
    (arm=baseline)"). Raises `Underivable`: `empty-selection` for an empty
    sample or group or a zero denominator (FAIL: the evidence gives no value
    to state), or for fewer values than an estimator needs, e.g. an SD of
    one value (UNVERIFIED, `fail=False`); `unknown-statistic` for a name
    outside the vocabulary.
    Sources of the definitions: the module docstring.
    """
    if statistic in SAMPLE_STATISTICS:
        return _sample(statistic, values, q, method, of)
    if statistic in ROBUST_STATISTICS:
        return _robust(statistic, [Decimal(x) for x in values], of, scale)
    if statistic in REGRESSION_STATISTICS:
        return _regression(statistic, values, of)
    if statistic in OUTCOME_STATISTICS:
        outcomes = [bool(v) for v in values]
        return Derived(statistic, Decimal(sum(outcomes)), f"count of the {sum(outcomes)} successes among {len(outcomes)} {of} ({len(outcomes) - sum(outcomes)} failed, not counted)")
    if statistic in GROUP_STATISTICS:
        means, lines, inputs = _group_means(values, of)
        if statistic == "mean_of_server_means":
            return Derived(statistic, mean(means), f"mean of server means ({of}): " + "; ".join(lines), inputs)
        if len(means) < 2:
            raise Underivable(f"a sample SD needs at least two server means, {of} has {len(means)}", "empty-selection", fail=False)
        return Derived(statistic, sample_sd(means), f"sample SD (n-1) of server means ({of}): " + "; ".join(lines), inputs)
    if statistic in ARM_STATISTICS:
        if baseline is None or candidate is None:
            raise Underivable(f"{statistic} needs the baseline and candidate arms named", "unknown-statistic")
        b_means, b_lines, b_in = _group_means(values.get(baseline, {}), f"arm {baseline}, {of}")
        c_means, c_lines, c_in = _group_means(values.get(candidate, {}), f"arm {candidate}, {of}")
        b, c = mean(b_means), mean(c_means)
        detail = f"baseline {fmt(b)} ({'; '.join(b_lines)}), candidate {fmt(c)} ({'; '.join(c_lines)})"
        if statistic == "difference":
            return Derived(statistic, b - c, f"baseline - candidate: {detail}", b_in + c_in, (b, c))
        if b == 0 or (statistic == "speedup" and c == 0):
            raise Underivable(f"an arm mean is zero ({of}), so the {statistic} is undefined", "empty-selection")
        if statistic == "speedup":
            return Derived(statistic, CONTEXT.divide(b, c), f"baseline / candidate: {detail}", b_in + c_in, (b, c))
        return Derived(statistic, CONTEXT.multiply(Decimal(1) - CONTEXT.divide(c, b), Decimal(100)),
                       f"(1 - candidate/baseline) * 100: {detail}", b_in + c_in, (b, c))
    if statistic in CI_STATISTICS:
        xs = [Decimal(x) for x in values]
        c = critical_value(method or "", Decimal(str(confidence)) if confidence is not None else Decimal(0), len(xs))
        centre, half = mean(xs), CONTEXT.multiply(c, CONTEXT.divide(sample_sd(xs), CONTEXT.sqrt(Decimal(len(xs)))))
        value = {"ci_low": centre - half, "ci_high": centre + half, "ci_half_width": half}[statistic]
        return Derived(statistic, value, f"{statistic} of the {confidence} % interval ({method}, c = {c}): mean {fmt(centre)} -/+ c * SD {fmt(sample_sd(xs))} / sqrt({len(xs)}) "
                       f"= {fmt(half)}, over {len(xs)} {of}", tuple(xs))
    if statistic in SUM_RATIO_STATISTICS:
        nums, dens = ([Decimal(x) for x in part] for part in values)
        if not nums or not dens:
            raise Underivable(f"no values ({of})", "empty-selection")
        top, bottom = sum(nums, Decimal(0)), sum(dens, Decimal(0))
        if bottom == 0:
            raise Underivable(f"the denominator sums to zero ({of})", "empty-selection")
        return Derived(statistic, CONTEXT.divide(top, bottom), f"sum {fmt(top)} of {len(nums)} / sum {fmt(bottom)} of {len(dens)} ({of})", tuple(nums) + tuple(dens))
    if statistic in PAIR_STATISTICS:
        a, b = (Decimal(x) for x in values)
        if statistic == "ratio":
            if b == 0:
                raise Underivable(f"the denominator is zero ({of})", "empty-selection")
            return Derived(statistic, CONTEXT.divide(a, b), f"{fmt(a)} / {fmt(b)} ({of})", (a, b))
        if a == 0:
            raise Underivable(f"the reference value is zero ({of})", "empty-selection")
        return Derived(statistic, CONTEXT.multiply(CONTEXT.divide(b - a, a), Decimal(100)), f"({fmt(b)} - {fmt(a)}) / {fmt(a)} * 100 ({of})", (a, b))
    raise Underivable(f"unknown statistic {statistic!r} (known: {', '.join(STATISTICS)})", "unknown-statistic")


# ---------------------------------------------------------------- the one tolerance and comparison


def half_unit(stated: Decimal | int) -> Decimal:
    """
    Return half a unit of the last stated place of `stated` (`Decimal('73.45')` -> 0.005; `20` and `2E1` -> 0.5).

    An `int` (a JSON integer such as `0`) states its units place. Raises
    `ValueError` for a non-finite `Decimal`.
    """
    exponent = (stated if isinstance(stated, Decimal) else Decimal(stated)).as_tuple().exponent
    if not isinstance(exponent, int):
        raise ValueError(f"{stated} is not finite")
    # `7E1` states no more than `70` does: a positive exponent never widens the tolerance past half a unit
    return _half_unit_at(min(exponent, 0) - 1)


@functools.lru_cache(maxsize=256)
def _half_unit_at(exponent: int) -> Decimal:
    """Return 5E`exponent` (a `Decimal` is immutable: built once per exponent, as most stated numbers share a few)."""
    return Decimal(5).scaleb(exponent)


#: Significant digits from which a stated number is taken as a full-precision
#: binary float printed by `repr` (17 digits round-trip an IEEE 754 double).
FULL_PRECISION_DIGITS = 15
#: A percentage change is 100 * (1 - c/b): its float rounding error scales with
#: 100 (the operands' magnitude), not with the small result (cancellation).
PERCENT_SCALE = Decimal(100)
#: Machine epsilon of IEEE 754 binary64 (2**-52) and its unit roundoff u = eps / 2.
EPS = Decimal(2) ** -52
U = EPS / 2
QUANTILE_ERROR = Decimal("1e-9")  # a critical value found by a root solver (commons-math `TDistribution`, JMH): its absolute accuracy, <= relative at c >= 1
#: Statistics whose float computation (mean subtraction, squares, summation) carries a cancellation term.
_SPREAD = ("sd", "population_sd", "sd_of_server_means", "sem")  # sem: the SD's bound with SD taken as |sem| (looser by sqrt(n))
#: Statistics that pick one input (or interpolate between two neighbours) rather than accumulate.
_PICK = ("median", "percentile", "min", "max", "first", "last")


def _ulp(x: Decimal) -> Decimal:
    """Return the spacing of binary64 at |x| (`math.ulp`), exactly."""
    return Decimal(math.ulp(float(abs(x)))) if x else Decimal(0)


def clock_span_error(readings: Sequence[Decimal], scale: Any = 1) -> Decimal:
    """
    Return how far a span a producer computed in binary64 as the difference of clock `readings` may lie from the exact
    difference of the decimals we read: 2 ulps of binary64 at the readings' largest magnitude (times `scale`, in the
    readings' unit; 0 for no readings).

    Each reading is a printed double, within half an ulp of its decimal, and the subtraction rounds once (at most half
    an ulp at that magnitude; exact when the readings are within a factor 2 of each other, Sterbenz): at epoch seconds
    (1.8e9 s) 4.8e-7 s. The `difference` statistic's bound (`tolerance`), and the `input_error` of a span a quotient
    then divides by (a throughput over a wave: docs/tolerances.md, "difference of clocks").
    """
    if not readings:
        return Decimal(0)
    k = scale if isinstance(scale, Decimal) else Decimal(str(scale))
    return 2 * _ulp(max(abs(Decimal(x)) for x in readings) * k) / k


def tolerance(stated: Any, *, statistic: str | None = None, values: Sequence[Decimal] = (), scale: Any = 1,
              declared: Any = None, exact: bool = False, source: Any = None, input_error: Any = None, written: str | None = None,
              steps: int = 0) -> Decimal:
    """
    Return how far a derived value may lie from the number a bundle states, in the stated number's unit.

    The one tolerance function of the package (`docs/tolerances.md` gives
    each bound with its source). The derivation is exact (`Decimal`); the
    producer computed the stated number in IEEE 754 binary64 from inputs
    that are within half an ulp of the decimals we read (each is a printed
    double), then printed it. The tolerance is the forward error bound of
    that computation plus half a unit of the stated last place:

    - print: `half_unit(stated)`, always (a 17-digit `repr` gets ~1/2 ulp);
    - inputs: each within u |x| of its decimal (u = 2**-53), plus
      `input_error` (an absolute bound on each input's own upstream float
      error, e.g. TPOT = (latency - ttft) / (n - 1) computed in float),
      plus u |x| for each of the `steps` binary64 operations the producer
      applied to each input before the statistic (a division by a count, a
      subtraction, a unit conversion: each rounds once, IEEE 754 round to
      nearest; `docs/tolerances.md`, "inputs");
    - `sum`: n eps sum|x|; `mean`, `olympic_mean` (over the values kept) and `mean_of_server_means`: eps sum|x|
      (recursive summation, (n-1) u sum|x|, Higham 2002 eq. 4.4, divided by n);
    - `median`/`percentile`/`min`/`max`/`first`/`last`: the inputs' error, plus for
      interpolation eps (2 max|x| + n range) (the position (n-1) q/100 and
      the lerp a + t (b - a) each rounded; numpy `_lerp`);
    - `sd`, `population_sd`, `sd_of_server_means`, `sem` (SD taken as |sem|): the cancellation term
      n eps sum x^2 / (2 d SD) (the textbook one-pass formula's bound,
      Chan, Golub & LeVeque 1983; relative to SD it grows with
      (mean/SD)^2), SD taken as |stated|, d = n - 1 (n for the population
      SD), or sqrt(n eps sum x^2 / d) when SD is ~0; plus the inputs' error;
    - `difference` (of clocks): 2 ulps of binary64 at the operands'
      magnitude (each operand rounded once, the subtraction once);
    - `relative_reduction_pct`, `speedup`, `ratio`, `relative_change_pct`,
      `ratio_of_sums`: each mean's (sum's) relative error (n eps) twice, through the quotient;
    - `mad`, `mad_scaled`: twice the inputs' error (x and the median) plus
      the interpolation term of a median, times the scale; `geometric_mean`:
      n eps (1 + max |ln x|) relative (n logarithms summed, one exp);
      `harmonic_mean`: n eps + (4 + steps) u relative, plus `input_error`
      over the smallest input, relative (n reciprocals summed, one
      division, no cancellation for x > 0; Higham 2002 eq. 4.4);
      `slope`, `r_squared`: 8 n eps relative (the cancellation in the centred
      sums is not modelled); `slope_through_origin`: 8 n eps + 4 u relative
      (no cancellation for x, y > 0, e.g. iterations and times);
    - `ci_low`, `ci_high`, `ci_half_width`: the mean's bound plus the stated
      value times 2 n eps + 4 u + 1e-9 (the half-width as a quotient; 1e-9: a
      numerically inverted quantile, commons-math's default solver accuracy);
    - a 15+-digit stated number without `values` (a printed double whose
      inputs we do not have): 16 ulps of it.

    `values` are the derivation's inputs in their unit; `scale` converts that
    unit to the stated one (1000 for s -> ms). `declared` (a tolerance the
    gate or profile states) wins; `exact` (an integer count) is 0; `source`
    (the derived value as its own source printed it) widens by its half unit.
    `written` is the number as a sentence writes it (claim text): an integer
    written without a decimal point whose digits end in zeros states its
    precision at its last non-zero digit ("4110 ns": +/- 5 ns, "4100": +/- 50;
    `docs/tolerances.md`, "Trailing zeros"); a number a tool writes into a
    data file states its units place (`half_unit`).
    """
    if declared is not None:
        return declared if type(declared) is Decimal else Decimal(str(declared))
    if exact:
        return Decimal(0)
    stated = Decimal(stated) if not isinstance(stated, Decimal) else stated
    bound = half_unit(stated)
    digits = (written or "").replace(",", "").lstrip("+-")
    if digits.isdigit() and digits.rstrip("0") and digits.endswith("0"):  # "4110": its trailing zeros are not significant
        bound = _half_unit_at(len(digits) - len(digits.rstrip("0")) - 1)
    if source is not None:
        bound = max(bound, half_unit(Decimal(source)))
    xs = [x if type(x) is Decimal and not x.is_signed() else abs(Decimal(x)) for x in values]  # |x|: an input >= 0 itself, not a copy
    k = scale if isinstance(scale, Decimal) else Decimal(str(scale))  # str() of a Decimal round-trips it exactly
    if not xs:
        if len(stated.as_tuple().digits) >= FULL_PRECISION_DIGITS:
            bound = max(bound, abs(stated) * EPS * 16)
            if statistic == "relative_reduction_pct":
                bound = max(bound, PERCENT_SCALE * EPS * 16)
        return bound
    n = Decimal(len(xs))
    biggest, total = max(xs), (None if statistic in _PICK else sum(xs, Decimal(0)))  # a pick's bound does not use the sum
    upstream = Decimal(str(input_error)) if input_error is not None else Decimal(0)
    per_input = (1 + steps) * U * biggest + upstream  # how far one input may be from the decimal we read, after `steps` roundings
    if statistic == "sum":
        work = n * EPS * total + n * per_input
    elif statistic in ("mean", "mean_of_server_means", "olympic_mean"):
        work = EPS * total + per_input
    elif statistic in _PICK:
        spread = biggest - min(xs)
        work = per_input + (EPS * (2 * biggest + n * spread) if statistic in ("median", "percentile") else 0)
    elif statistic in ("mad", "mad_scaled"):  # a median of |x - median|: each deviation carries two inputs' error, the medians an interpolation's
        spread = biggest - min(xs)
        work = (2 * per_input + EPS * (2 * biggest + n * spread)) * (MAD_NORMAL if statistic == "mad_scaled" else 1) + abs(stated) / k * EPS
    elif statistic == "geometric_mean":  # n logarithms summed, one exp: relative error n eps (1 + max |ln x|), plus each input's relative u
        logs = max(abs(CONTEXT.ln(x)) for x in xs) if min(xs) > 0 else Decimal(0)
        work = abs(stated) / k * (n * EPS * (1 + logs) + 4 * U) + per_input
    elif statistic == "harmonic_mean":  # n reciprocals of x > 0 summed (no cancellation), one division: relative (n + 2) u <= n eps, each input's (and step's) relative u
        work = abs(stated) / k * (n * EPS + (4 + steps) * U + (upstream / min(xs) if upstream and min(xs) > 0 else 0))
    elif statistic == "slope_through_origin":  # relative only: x and y are of two units, so an absolute input error of one is no bound in the other
        work = abs(stated) / k * (8 * n * EPS + 4 * U) + 2 * upstream
    elif statistic in ("slope", "r_squared"):  # centred sums of products: 8 n eps relative (the cancellation in Sxx, Sxy is not modelled)
        work = abs(stated) / k * (8 * n * EPS) + 2 * per_input
    elif statistic in _SPREAD:
        d = n if statistic == "population_sd" else max(n - 1, Decimal(1))
        squares = n * EPS * sum((x * x for x in xs), Decimal(0))
        sd = abs(stated) / k
        cancel = CONTEXT.sqrt(CONTEXT.divide(squares, d))
        if sd > 0:
            cancel = min(cancel, CONTEXT.divide(squares, 2 * d * sd))
        work = cancel + 2 * per_input + EPS * sd
    elif statistic == "difference":
        work = clock_span_error(xs, k) + 2 * upstream
    elif statistic in CI_STATISTICS:  # the mean's bound plus the half-width's relative error as a quotient (cancellation in the SD not modelled)
        work = EPS * total + per_input + (abs(stated) / k) * (2 * n * EPS + 4 * U + QUANTILE_ERROR)
    elif statistic in ("relative_reduction_pct", "speedup", "ratio", "relative_change_pct", "ratio_of_sums"):
        rel = 2 * n * EPS + 4 * U + (2 * upstream / min(x for x in xs if x) if any(xs) and upstream else 0)
        if statistic == "relative_reduction_pct":
            work = PERCENT_SCALE * abs(1 - stated / PERCENT_SCALE) * rel + PERCENT_SCALE * EPS
        elif statistic == "relative_change_pct":
            work = PERCENT_SCALE * abs(1 + stated / PERCENT_SCALE) * rel + PERCENT_SCALE * EPS
        else:
            work = abs(stated) / k * rel
    else:  # count, or a statistic without a float model: the inputs' error only
        work = per_input
    return bound + work * k


class Comparison(NamedTuple):
    """Represents a stated number against its derivation: whether it `holds`, the `delta` (stated - derived) and the `tolerance` used."""

    holds: bool
    delta: Decimal
    tolerance: Decimal

    def detail(self, stated: Decimal, derived: Decimal) -> dict[str, str]:
        """Return the `{claimed, derived, delta, tolerance}` strings findings record as `observed`."""
        return {"claimed": str(stated), "derived": str(derived), "delta": str(self.delta), "tolerance": str(self.tolerance)}


def compare(stated: Any, derived: Decimal, **bound: Any) -> Comparison:
    """
    Return whether |stated - derived| <= `tolerance(stated, **bound)` (inclusive), with the delta and the tolerance.

    The one comparison of a stated claim with its derivation; `bound` takes
    the keywords of `tolerance`. Never exact `==` unless `exact=True`.
    """
    stated = Decimal(stated) if not isinstance(stated, Decimal) else stated
    tol = tolerance(stated, **bound)
    delta = CONTEXT.subtract(stated, derived)
    return Comparison(delta.copy_abs() <= tol, delta, tol)  # copy_abs: exact (abs() rounds to the context's precision)


#: Nanoseconds in a second: `compare_spans` reads spans counted in integer nanoseconds.
_NS = 10**9


def per_output_token(requests: Iterable[tuple[Decimal, Decimal, Decimal]]) -> tuple[list[Decimal], Decimal]:
    """
    Return vLLM's time per output token of each request `(latency, ttft, output_len)` with output_len > 1, and a bound on each one's own float error.

    TPOT = (latency - ttft) / (output_len - 1) (vLLM `calculate_metrics`),
    exact, in the unit of latency and ttft, in the order given. The bound, the
    largest eps (|latency| + |ttft|) / (output_len - 1), is what `tolerance`
    takes as `input_error`: vLLM computes the TPOT in binary64 from values
    that differ from the printed decimals by up to half an ulp each; when TTFT
    is close to the latency the difference is tiny and that half ulp of the
    operands dominates (cancellation). 0 when no request has output_len > 1.
    """
    rows = [(latency, ttft, n) for latency, ttft, n in requests if n > 1]
    values = [CONTEXT.divide(latency - ttft, n - 1) for latency, ttft, n in rows]
    return values, max((EPS * (abs(latency) + abs(ttft)) / (n - 1) for latency, ttft, n in rows), default=Decimal(0))


def seconds_of(nanoseconds: int) -> Decimal:
    """Return integer `nanoseconds` as exact seconds (`Decimal`: 1500000000 -> 1.5)."""
    whole, part = divmod(int(nanoseconds), _NS)
    return Decimal(whole) + Decimal(part) / Decimal(_NS)


def compare_spans(stated: Sequence[Any], spans: Any, *, declared: Any) -> list[tuple[int, Decimal, Comparison]]:
    """
    Return `(position, span in s, comparison)` for each position whose stated seconds are not within `declared` s of its span.

    `stated` are numbers of seconds (`Decimal` or `int`, e.g. receipts'
    `elapsed_s`), `spans` integer nanoseconds (a sequence or numpy array of
    the same length, e.g. `ended_at - started_at`), `declared` the tolerance
    in seconds. The judgement is `compare(stated[k], seconds_of(spans[k]),
    declared=declared)`, exact; a float pre-screen skips it where it cannot
    fail: |s - d| <= t - m in binary64 (s, d, t in ns), with the margin
    m = 1e-12 (|s| + |d| + t) + 1 ns far above the rounding of the screen
    (float of a decimal, of an integer, one product by 1e9 and one
    difference: each within 2**-53 of the result, IEEE 754 round to
    nearest). A number the screen cannot take (a huge integer, no number)
    is judged exactly, and raises as `compare` raises.
    """
    import numpy as np  # noqa: PLC0415 - numpy only where many receipts are judged at once

    n = len(stated)
    limit = float(Decimal(str(declared)) if type(declared) is not Decimal else declared) * _NS
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # a number past binary64 is inf here, and not sure
            s = np.fromiter(map(float, stated), dtype=np.float64, count=n) * _NS  # twice as fast as np.array of Decimals
            d = np.asarray(spans).astype(np.float64)
            sure = np.abs(s - d) <= limit - (1e-12 * (np.abs(s) + np.abs(d) + limit) + 1.0)
    except (TypeError, ValueError, OverflowError, decimal.InvalidOperation):
        sure = np.zeros(n, dtype=bool)
    out: list[tuple[int, Decimal, Comparison]] = []
    for k in np.flatnonzero(~sure).tolist():
        span = seconds_of(spans[k])
        comparison = compare(stated[k], span, declared=declared)
        if not comparison.holds:
            out.append((k, span, comparison))
    return out


def agree(a: Decimal, b: Decimal) -> bool:
    """Return whether two printings of one value agree: |a - b| at most half a unit of the coarser last place (637.54 and 637.535)."""
    return abs(a - b) <= max(half_unit(a), half_unit(b))


def spread(values: Sequence[Decimal]) -> tuple[Decimal, Decimal, Decimal, Decimal | None]:
    """Return `(min, median, max, (max - min) / median)` of a non-empty sample; the quotient is None when the median is 0 and max != min."""
    low, mid, high = min(values), median(values), max(values)
    return low, mid, high, CONTEXT.divide(high - low, mid) if mid else (Decimal(0) if high == low else None)


#: The members of an HTTP matrix spread block (`compare_spread`), in the order the runner writes them.
SPREAD_FIELDS = ("rounds", "min", "median", "max", "relative_spread")


def compare_spread(stated: Mapping[str, Any], values: Sequence[Decimal]) -> tuple[dict[str, Any], list[str]]:
    """
    Return the spread block re-derived from `values` (non-empty) and the members of block `stated` that do not hold.

    The block (`SPREAD_FIELDS`): rounds (n), min, median, max and
    relative_spread = (max - min) / median (`spread`: None when the median is
    0 and max != min). rounds is compared exactly; min, median and max at
    their stated precision with the float bound of their statistic over
    `values`; relative_spread as a binary64 difference at the operands'
    magnitude relative to the median, exactly when the median is 0. A member
    stated or derived as None holds only when both are. Raises `KeyError`
    for a member `stated` lacks.
    """
    low, mid, high, rel = spread(values)
    derived = {"rounds": len(values), "min": low, "median": mid, "max": high, "relative_spread": rel}

    def holds(key: str) -> bool:
        said, got = stated[key], derived[key]
        if said is None or got is None:
            return said is None and got is None
        if key == "rounds" or (key == "relative_spread" and not mid):
            return compare(said, Decimal(got), exact=True).holds
        if key == "relative_spread":
            return compare(Decimal(said), got, statistic="difference", values=(high, low), scale=1 / mid).holds
        return compare(Decimal(said), got, statistic=key, values=values).holds
    return derived, [key for key in SPREAD_FIELDS if not holds(key)]


class Undefined(ArithmeticError):
    """Raised by `identity` when its operation has no value for a record: a zero divisor, counts that are no counts."""



@exact
def identity(op: str, left: Decimal, terms: Sequence[Decimal], stated: Sequence[tuple[Decimal | None, bool, Decimal | None]],
             *, scale: Decimal = Decimal(1), declared: Any = None, one_over: Any = None) -> tuple[Decimal, Decimal, Decimal]:
    """
    Return `(left, op(terms), tolerance)` of a record identity, both sides divided by `scale` (base units of left's unit).

    `op`: value, sum, difference, ratio, percentage (100 part / whole, whole counts); `terms` in base units. Tolerance: `declared`,
    else 1 / `one_over()` (one frame = 1/fps, read only then), else the largest `tolerance` of the `stated` `(number, exact, base
    units of its unit or None)`, left first (a percentage's and a ratio's: left's alone, its terms being of other units), a difference's at least its clocks' binary64
    spacing. Raises `Undefined` (a zero divisor, counts that are no counts)."""
    if op == "percentage" and (any(t < 0 or t != t.to_integral_value() for t in terms) or terms[1] == 0):
        raise Undefined(f"a percentage needs whole counts >= 0 and a whole above 0, not {fmt(terms[0])} of {fmt(terms[1])}")
    if op == "ratio" and terms[1] == 0:
        raise Undefined("its divisor is 0")
    right = {"value": lambda: terms[0], "sum": lambda: sum(terms, Decimal(0)), "difference": lambda: terms[0] - terms[1],
             "percentage": lambda: CONTEXT.divide(100 * terms[0], terms[1])}.get(op, lambda: CONTEXT.divide(terms[0], terms[1]))()
    left, right = CONTEXT.divide(left, scale), CONTEXT.divide(right, scale)
    if declared is not None:
        return left, right, Decimal(declared)
    if one_over is not None:
        return left, right, CONTEXT.divide(Decimal(1), one_over())
    # a percentage's or a ratio's terms are of other units than the result, so their half units are no bound on it: the result's own
    # stated precision is (docs/tolerances.md, "Identities"); `exact`: a rational string such as "24/1" states no precision
    involved = stated[:1] if op in ("percentage", "ratio") else stated
    bound = max((tolerance(s) * (unit / scale if unit is not None else 1) for s, exact, unit in involved if s is not None and not exact), default=Decimal(0))
    if op == "difference" and stated[0][0] is not None:  # a difference of clocks: binary64 spacing at their magnitude (epoch s: ~2.4e-7 s), docs/tolerances.md
        bound = max(bound, tolerance(stated[0][0], statistic="difference", values=terms, scale=CONTEXT.divide(Decimal(1), scale)))
    return left, right, bound
