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

`derive` is the one derivation entry point of the package: every reader
(native bundles, profiles, the receipt adapters) hands it a statistic name and
the values it selected, and every claim is compared through the one
`compare`/`tolerance` pair. No other module computes a statistic or a
tolerance of its own.
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "STATISTICS",
    "Comparison",
    "Derived",
    "Underivable",
    "compare",
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
#: The whole vocabulary `derive` understands.
STATISTICS = SAMPLE_STATISTICS + GROUP_STATISTICS + ARM_STATISTICS + PAIR_STATISTICS


def fmt(value: Decimal) -> str:
    """Return `value` as a short plain-decimal string for derivation texts (at most 24 characters)."""
    return format(value.normalize() if value == value.to_integral_value() else value, "f")[:24]


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


def derive(statistic: str, values: Any, *, q: Any = None, method: str | None = None,
           baseline: str | None = None, candidate: str | None = None, of: str = "values") -> Derived:
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
    - `ratio` (a / b) and `relative_change_pct` ((b - a) / a * 100): a pair.

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
    exponent = Decimal(stated).as_tuple().exponent
    if not isinstance(exponent, int):
        raise ValueError(f"{stated} is not finite")
    # `7E1` states no more than `70` does: a positive exponent never widens the tolerance past half a unit
    return Decimal(5).scaleb(min(exponent, 0) - 1)


#: Significant digits from which a stated number is taken as a full-precision
#: binary float printed by `repr` (17 digits round-trip an IEEE 754 double).
FULL_PRECISION_DIGITS = 15
#: A percentage change is 100 * (1 - c/b): its float rounding error scales with
#: 100 (the operands' magnitude), not with the small result (cancellation).
PERCENT_SCALE = Decimal(100)
#: Statistics whose float computation (mean subtraction, squares, summation) carries about n * eps * max|x| of error.
_SPREAD = ("sd", "population_sd", "sd_of_server_means")


def tolerance(stated: Any, *, statistic: str | None = None, values: Sequence[Decimal] = (), scale: Any = 1,
              declared: Any = None, exact: bool = False, source: Any = None) -> Decimal:
    """
    Return how far a derived value may lie from the number a bundle states, in the stated number's unit.

    The one tolerance function of the package. `stated` is the value as
    written (a `Decimal` read with its trailing zeros, so `396.30` states
    two places; an int states whole units). What a bound may need:
    `statistic` (a name of `STATISTICS`), `values` (the inputs of the
    derivation, in the unit before `scale`), `scale` (the factor from the
    inputs' unit to the stated unit, e.g. 1000 for s -> ms), `declared` (a
    tolerance the gate or profile states: it wins), `exact` (an integer
    count or sum: 0), `source` (the derived value as its own source printed
    it, e.g. a stdout table: its half unit widens the bound).

    Default: half a unit of the last stated place (`73.45` -> 0.005). A
    number stated with 15 or more significant digits is a printed binary
    double, whose last digits carry summation-order noise: at least 16 ulps
    (|stated| * 2**-48). A full-precision `relative_reduction_pct` gets at
    least 16 ulps of 100 (its noise comes from `1 - c/b`). A spread statistic
    (`sd`, `population_sd`, `sd_of_server_means`) gets at least
    4 * n * 2**-52 * max|x| * scale (float64 rounding of mean subtraction,
    squares and summation; Higham, Accuracy and Stability of Numerical
    Algorithms, 2nd ed., ch. 4).
    """
    if declared is not None:
        return Decimal(str(declared))
    if exact:
        return Decimal(0)
    stated = Decimal(stated) if not isinstance(stated, Decimal) else stated
    bound = half_unit(stated)
    full = len(stated.as_tuple().digits) >= FULL_PRECISION_DIGITS
    if full:
        bound = max(bound, abs(stated) * Decimal(2) ** -48)
    if full and statistic == "relative_reduction_pct":
        bound = max(bound, PERCENT_SCALE * Decimal(2) ** -48)
    if statistic in _SPREAD and values:
        bound = max(bound, Decimal(len(values)) * Decimal(2) ** -52 * max(abs(Decimal(x)) for x in values) * Decimal(str(scale)) * 4)
    if source is not None:
        bound = max(bound, half_unit(Decimal(source)))
    return bound


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
