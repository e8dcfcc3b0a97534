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
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from typing import Any
from decimal import Decimal

__all__ = ["claim_tolerance", "half_unit", "mean", "peak_in_flight", "median", "percentile_linear", "percentile_nearest_rank", "sample_sd", "sweep_peak", "within"]

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


def within(claimed: Decimal, derived: Decimal, tolerance: Decimal) -> bool:
    """Return whether |claimed - derived| <= tolerance (inclusive)."""
    return abs(CONTEXT.subtract(claimed, derived)) <= tolerance


#: Significant digits from which a stated number is taken as a full-precision
#: binary float printed by `repr` (17 digits round-trip an IEEE 754 double).
FULL_PRECISION_DIGITS = 15


def claim_tolerance(stated: Decimal | int) -> Decimal:
    """
    Return the default tolerance for comparing a stated claim with its derivation.

    Half a unit of the last stated place (`73.45` -> 0.005). A number stated
    with 15 or more significant digits is a printed binary double, whose last
    digits carry summation-order noise, so it gets at least 16 ulps
    (|stated| * 2**-48) instead.
    """
    stated = Decimal(stated)
    half = half_unit(stated)
    if len(stated.as_tuple().digits) >= FULL_PRECISION_DIGITS:
        return max(half, abs(stated) * Decimal(2) ** -48)
    return half


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
