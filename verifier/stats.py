"""
Statistics used by derivations, in exact `Decimal` arithmetic.

Inputs are sequences of `Decimal` (as read by `verifier.jsonio`); results are
`Decimal` computed in a 50-digit context, so the only rounding is far below
any stated precision. Definitions and their sources:

- `mean`: arithmetic mean, sum / n.
- `median`: the middle value, or the mean of the two middle values (equals
  `percentile_linear(q=50)`).
- `percentile_nearest_rank`: the value at rank ceil(q/100 * n) of the sorted
  sample, 1-based (Hyndman & Fan 1996 definition 1; "nearest-rank" in NIST
  e-Handbook 7.2.6.2). The p95 of fewer than 20 values is the maximum.
- `percentile_linear`: linear interpolation between closest ranks at
  position (n - 1) * q / 100, 0-based (Hyndman & Fan definition 7; numpy's
  default `method="linear"`).
- `sample_sd`: square root of sum((x - mean)^2) / (n - 1) (Bessel's correction).
- `population_sd`: square root of sum((x - mean)^2) / n (numpy `std` with
  `ddof=0`, the default of `numpy.std`).
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
`compare`/`tolerance` pair. No other module computes a statistic or a
tolerance of its own.
"""

from __future__ import annotations

import decimal
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from verifier.numtext import number

__all__ = [
    "STATISTICS",
    "Comparison",
    "Derived",
    "Underivable",
    "compare",
    "critical_value",
    "derive",
    "fmt",
    "half_unit",
    "mean",
    "median",
    "peak_in_flight",
    "percentile_linear",
    "percentile_nearest_rank",
    "population_sd",
    "sample_sd",
    "sweep_peak",
    "tolerance",
]

CONTEXT = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN)
#: The thread context every check runs in (`verifier.pipeline.run_pipeline`): Python's default context, spelled out, so that
#: a caller who changed its own (`decimal.getcontext().prec = 3`) cannot change a derived number, a tolerance or a verdict.
RUN_CONTEXT = decimal.Context(prec=28, rounding=decimal.ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0,
                              flags=[], traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])


def _need(values: Sequence[Decimal], n: int = 1) -> list[Decimal]:
    if len(values) < n:
        raise ValueError(f"needs at least {n} value(s), got {len(values)}")
    return [Decimal(v) for v in values]


def mean(values: Sequence[Decimal]) -> Decimal:
    """Return the arithmetic mean; raises `ValueError` on an empty sequence."""
    xs = _need(values)
    return CONTEXT.divide(sum(xs, Decimal(0)), Decimal(len(xs)))


def median(values: Sequence[Decimal]) -> Decimal:
    """Return the median (mean of the two middle values for even n); raises `ValueError` on empty input."""
    return percentile_linear(values, Decimal(50))


def percentile_nearest_rank(values: Sequence[Decimal], q: Decimal) -> Decimal:
    """Return the nearest-rank q-th percentile (0 < q <= 100); raises `ValueError` on empty input."""
    xs = sorted(_need(values))
    q = Decimal(q)
    if not 0 < q <= 100:
        raise ValueError(f"percentile q must be in (0, 100], got {q}")
    position = CONTEXT.divide(CONTEXT.multiply(q, Decimal(len(xs))), Decimal(100))
    rank = int(position.to_integral_value(rounding=decimal.ROUND_CEILING))
    return xs[max(rank, 1) - 1]


def percentile_linear(values: Sequence[Decimal], q: Decimal) -> Decimal:
    """Return the linearly interpolated q-th percentile (0 <= q <= 100, numpy `linear`); raises `ValueError` on empty input."""
    xs = sorted(_need(values))
    q = Decimal(q)
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")
    position = CONTEXT.divide(CONTEXT.multiply(Decimal(len(xs) - 1), q), Decimal(100))
    lower = int(position.to_integral_value(rounding=decimal.ROUND_FLOOR))
    fraction = position - lower
    if lower + 1 >= len(xs):
        return xs[-1]
    return CONTEXT.add(xs[lower], CONTEXT.multiply(fraction, xs[lower + 1] - xs[lower]))


def sample_sd(values: Sequence[Decimal]) -> Decimal:
    """Return the sample standard deviation (n - 1); raises `ValueError` for fewer than 2 values."""
    xs = _need(values, 2)
    m = mean(xs)
    ss = sum((CONTEXT.multiply(x - m, x - m) for x in xs), Decimal(0))
    return CONTEXT.sqrt(CONTEXT.divide(ss, Decimal(len(xs) - 1)))


def peak_in_flight(intervals: Sequence[tuple[Any, Any]]) -> int:
    """
    Return the largest number of half-open intervals [start, end) open at one instant.

    `intervals` are `(start, end)` pairs of mutually comparable values
    (seconds, datetimes); an interval ending exactly when another starts does
    not overlap it (a sweep line that processes ends before starts on ties).
    O(n log n) in the number of intervals.
    """
    return sweep_peak([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])


def sweep_peak(events: Sequence[tuple[Any, int]]) -> int:
    """
    Return the highest running sum of `events`, `(position, +1 or -1)` pairs, swept in position order.

    On ties a closing `-1` is processed before an opening `+1`, so a count
    that closes where another opens never overlaps it. 0 for no events.
    """
    peak = current = 0
    for _, delta in sorted(events, key=lambda x: (x[0], x[1])):
        current += delta
        peak = max(peak, current)
    return peak


def population_sd(values: Sequence[Decimal]) -> Decimal:
    """Return the population standard deviation (divides by n, numpy `std` default); raises `ValueError` on empty input."""
    xs = _need(values)
    m = mean(xs)
    ss = sum((CONTEXT.multiply(x - m, x - m) for x in xs), Decimal(0))
    return CONTEXT.sqrt(CONTEXT.divide(ss, Decimal(len(xs))))


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
    and the flat `inputs` it was computed from (what a forward-error bound needs).
    """

    statistic: str
    value: Decimal
    text: str
    inputs: tuple[Decimal, ...] = ()


#: Statistics over one sample (`values`: a sequence of Decimal).
SAMPLE_STATISTICS = ("count", "sum", "mean", "median", "min", "max", "first", "last", "sd", "population_sd", "percentile")
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
#: The whole vocabulary `derive` understands.
STATISTICS = SAMPLE_STATISTICS + GROUP_STATISTICS + ARM_STATISTICS + PAIR_STATISTICS + CI_STATISTICS + SUM_RATIO_STATISTICS




def fmt(value: Decimal, digits: int = 12) -> str:
    """
    Return `value` for a message: rounded half-even to `digits` significant digits, trailing zeros dropped.

    Plain decimal (`0.613333333333`, `1200`) for magnitudes from 1e-9 to below 1e21, scientific (`1.5E+30`)
    outside; NaN and infinities as `str` gives them. Display only: findings keep exact values in `expected`
    and `observed`, and comparisons never use this text. (It used to cut the string at 24 characters,
    which could change a large number's magnitude.)
    """
    if value.is_zero():
        return "0"
    if not value.is_finite():
        return str(value)
    return number(value.normalize(), digits=digits)  # the one way a number is written (`verifier.numtext`)


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
    if statistic == "sd":
        if n < 2:
            raise Underivable(f"a sample SD needs at least two values, {of} has {n}", "empty-selection", fail=False)
        return Derived(statistic, sample_sd(values), f"sample SD (n-1) of {text}", inputs)
    if statistic == "population_sd":
        return Derived(statistic, population_sd(values), f"population SD (n, numpy ddof=0) of {text}", inputs)
    if q is None or method not in ("nearest-rank", "linear"):
        raise Underivable(f"percentile needs q and a method (nearest-rank or linear), got q={q}, method={method}", "unknown-statistic")
    qd = Decimal(str(q))
    if method == "nearest-rank":
        return Derived(statistic, percentile_nearest_rank(values, qd), f"p{qd} nearest-rank (rank ceil(q/100*n)) of {text}", inputs)
    return Derived(statistic, percentile_linear(values, qd), f"p{qd} linear interpolation ((n-1)*q/100) of {text}", inputs)


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


def derive(statistic: str, values: Any, *, q: Any = None, method: str | None = None,
           baseline: str | None = None, candidate: str | None = None, of: str = "values",
           confidence: Any = None) -> Derived:
    """
    Return the `Derived` value of `statistic` over `values`, computed exactly in `CONTEXT`.

    The one derivation function of the package. The shape of `values` depends
    on the statistic (see `STATISTICS`):

    - `count`, `sum`, `mean`, `median`, `min`, `max`, `first`, `last` (in
      the order given, e.g. file order), `sd` (sample, n-1),
      `population_sd` (n), `percentile` (`q` in (0, 100], `method`
      `nearest-rank` or `linear`, both required): a sequence of Decimal;
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
    sample or group, a zero denominator, or an SD of fewer than two values
    (UNVERIFIED); `unknown-statistic` for a name outside the vocabulary.
    Sources of the definitions: the module docstring.
    """
    if statistic in SAMPLE_STATISTICS:
        return _sample(statistic, values, q, method, of)
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
            return Derived(statistic, b - c, f"baseline - candidate: {detail}", b_in + c_in)
        if b == 0 or (statistic == "speedup" and c == 0):
            raise Underivable(f"an arm mean is zero ({of}), so the {statistic} is undefined", "empty-selection")
        if statistic == "speedup":
            return Derived(statistic, CONTEXT.divide(b, c), f"baseline / candidate: {detail}", b_in + c_in)
        return Derived(statistic, CONTEXT.multiply(Decimal(1) - CONTEXT.divide(c, b), Decimal(100)),
                       f"(1 - candidate/baseline) * 100: {detail}", b_in + c_in)
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
#: Statistics whose float computation (mean subtraction, squares, summation) carries a cancellation term.
_SPREAD = ("sd", "population_sd", "sd_of_server_means")
#: Statistics that pick one input (or interpolate between two neighbours) rather than accumulate.
_PICK = ("median", "percentile", "min", "max", "first", "last")


def _ulp(x: Decimal) -> Decimal:
    """Return the spacing of binary64 at |x| (`math.ulp`), exactly."""
    import math

    return Decimal(math.ulp(float(abs(x)))) if x else Decimal(0)


def tolerance(stated: Any, *, statistic: str | None = None, values: Sequence[Decimal] = (), scale: Any = 1,
              declared: Any = None, exact: bool = False, source: Any = None, input_error: Any = None) -> Decimal:
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
      error, e.g. TPOT = (latency - ttft) / (n - 1) computed in float);
    - `sum`: n eps sum|x|; `mean` and `mean_of_server_means`: eps sum|x|
      (recursive summation, (n-1) u sum|x|, Higham 2002 eq. 4.4, divided by n);
    - `median`/`percentile`/`min`/`max`/`first`/`last`: the inputs' error, plus for
      interpolation eps (2 max|x| + n range) (the position (n-1) q/100 and
      the lerp a + t (b - a) each rounded; numpy `_lerp`);
    - `sd`, `population_sd`, `sd_of_server_means`: the cancellation term
      n eps sum x^2 / (2 d SD) (the textbook one-pass formula's bound,
      Chan, Golub & LeVeque 1983; relative to SD it grows with
      (mean/SD)^2), SD taken as |stated|, d = n - 1 (n for the population
      SD), or sqrt(n eps sum x^2 / d) when SD is ~0; plus the inputs' error;
    - `difference` (of clocks): 2 ulps of binary64 at the operands'
      magnitude (each operand rounded once, the subtraction once);
    - `relative_reduction_pct`, `speedup`, `ratio`, `relative_change_pct`,
      `ratio_of_sums`: each mean's (sum's) relative error (n eps) twice, through the quotient;
    - `ci_low`, `ci_high`, `ci_half_width`: the mean's bound plus the
      stated value times 2 n eps + 4 u (the half-width as a quotient; the
      SD's cancellation term is not modelled);
    - a 15+-digit stated number without `values` (a printed double whose
      inputs we do not have): 16 ulps of it.

    `values` are the derivation's inputs in their unit; `scale` converts that
    unit to the stated one (1000 for s -> ms). `declared` (a tolerance the
    gate or profile states) wins; `exact` (an integer count) is 0; `source`
    (the derived value as its own source printed it) widens by its half unit.
    """
    if declared is not None:
        return Decimal(str(declared))
    if exact:
        return Decimal(0)
    stated = Decimal(stated) if not isinstance(stated, Decimal) else stated
    bound = half_unit(stated)
    if source is not None:
        bound = max(bound, half_unit(Decimal(source)))
    xs = [abs(x if isinstance(x, Decimal) else Decimal(x)) for x in values]
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
    per_input = U * biggest + upstream  # how far one input may be from the decimal we read
    if statistic == "sum":
        work = n * EPS * total + n * per_input
    elif statistic in ("mean", "mean_of_server_means"):
        work = EPS * total + per_input
    elif statistic in _PICK:
        spread = biggest - min(xs)
        work = per_input + (EPS * (2 * biggest + n * spread) if statistic in ("median", "percentile") else 0)
    elif statistic in _SPREAD:
        d = n if statistic == "population_sd" else max(n - 1, Decimal(1))
        squares = n * EPS * sum((x * x for x in xs), Decimal(0))
        sd = abs(stated) / k
        cancel = CONTEXT.sqrt(CONTEXT.divide(squares, d))
        if sd > 0:
            cancel = min(cancel, CONTEXT.divide(squares, 2 * d * sd))
        work = cancel + 2 * per_input + EPS * sd
    elif statistic == "difference":
        work = 2 * _ulp(biggest * k) / k + 2 * upstream
    elif statistic in CI_STATISTICS:  # the mean's bound plus the half-width's relative error as a quotient (cancellation in the SD not modelled)
        work = EPS * total + per_input + (abs(stated) / k) * (2 * n * EPS + 4 * U)
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


@dataclass(frozen=True)
class Comparison:
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
    return Comparison(abs(delta) <= tol, delta, tol)
