"""
The elementary estimators of the statistics engine over exact Decimals: mean, median, percentiles, SDs, the MAD.

Each takes a sequence of Decimal and returns a Decimal computed in
`CONTEXT` (50 significant digits, half-even), so that no float enters a
derived number. `verifier.engine.stats` (the one engine: `derive`, `tolerance`,
`compare`) re-exports every name here; callers use `stats.mean` etc.
Each raises `ValueError` on fewer values than it needs.

- `sample_sd`: square root of sum((x - mean)^2) / (n - 1) (Bessel's correction); `sem`: it / sqrt(n) (lm-eval's `mean_stderr`).
- `population_sd`: square root of sum((x - mean)^2) / n (numpy `std` with `ddof=0`, the default of `numpy.std`).
"""

from __future__ import annotations

import decimal
import functools
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["CONTEXT", "MAD_NORMAL", "PERCENTILE_METHODS", "RUN_CONTEXT", "mean", "median", "median_abs_deviation", "percentile_linear",
           "percentile_nearest_rank", "percentile_weibull", "population_sd", "sample_sd"]

CONTEXT = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN)


def exact(function: Callable[P, R]) -> Callable[P, R]:
    """
    Return `function` run in `CONTEXT` (50 digits, half-even), whatever the caller's `decimal` context.

    Every operator of the engine (`sum`, `x - m`, `*`) then rounds at 50
    digits, not at the thread's default 28 (`sum` of `1E+20` and `1E-10`
    kept the `1E-10` only then), and a caller's own context (a lower
    precision, traps) cannot change a derivation.
    """
    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with decimal.localcontext(CONTEXT):
            return function(*args, **kwargs)

    return run


#: The thread context every check runs in (`verifier.engine.pipeline.run_pipeline`): Python's default context, spelled out, so that
#: a caller who changed its own (`decimal.getcontext().prec = 3`) cannot change a derived number, a tolerance or a verdict.
RUN_CONTEXT = decimal.Context(prec=28, rounding=decimal.ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0,
                              flags=[], traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])


def _need(values: Sequence[Decimal], n: int = 1) -> list[Decimal]:
    if len(values) < n:
        raise ValueError(f"needs at least {n} value(s), got {len(values)}")
    return [Decimal(v) for v in values]


@exact
def mean(values: Sequence[Decimal]) -> Decimal:
    """Return the arithmetic mean; raises `ValueError` on an empty sequence."""
    xs = _need(values)
    return CONTEXT.divide(sum(xs, Decimal(0)), Decimal(len(xs)))


@exact
def median(values: Sequence[Decimal]) -> Decimal:
    """Return the median (mean of the two middle values for even n); raises `ValueError` on empty input."""
    return percentile_linear(values, Decimal(50))


@exact
def percentile_nearest_rank(values: Sequence[Decimal], q: Decimal) -> Decimal:
    """Return the nearest-rank q-th percentile (0 < q <= 100); raises `ValueError` on empty input."""
    xs = sorted(_need(values))
    q = Decimal(q)
    if not 0 < q <= 100:
        raise ValueError(f"percentile q must be in (0, 100], got {q}")
    position = CONTEXT.divide(CONTEXT.multiply(q, Decimal(len(xs))), Decimal(100))
    rank = int(position.to_integral_value(rounding=decimal.ROUND_CEILING))
    return xs[max(rank, 1) - 1]


@exact
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


@exact
def percentile_weibull(values: Sequence[Decimal], q: Decimal) -> Decimal:
    """
    Return the q-th percentile at position q/100 * (n + 1), 1-based, interpolated, clamped to the minimum and maximum
    (Hyndman & Fan 1996 definition 6; numpy `method="weibull"`; Apache commons-math `Percentile`'s default estimation,
    which JMH's `scorePercentiles` use); raises `ValueError` on empty input or q outside [0, 100].
    """
    xs = sorted(_need(values))
    q = Decimal(q)
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")
    position = CONTEXT.divide(CONTEXT.multiply(q, Decimal(len(xs) + 1)), Decimal(100))
    if position < 1:
        return xs[0]
    if position >= len(xs):
        return xs[-1]
    lower = int(position.to_integral_value(rounding=decimal.ROUND_FLOOR))
    return CONTEXT.add(xs[lower - 1], CONTEXT.multiply(position - lower, xs[lower] - xs[lower - 1]))


@exact
def sample_sd(values: Sequence[Decimal]) -> Decimal:
    """Return the sample standard deviation (n - 1); raises `ValueError` for fewer than 2 values."""
    xs = _need(values, 2)
    m = mean(xs)
    ss = sum((CONTEXT.multiply(x - m, x - m) for x in xs), Decimal(0))
    return CONTEXT.sqrt(CONTEXT.divide(ss, Decimal(len(xs) - 1)))


@exact
def sem(values: Sequence[Decimal]) -> Decimal:
    """
    Return the standard error of the mean, sample SD (n - 1) / sqrt(n); raises `ValueError` for fewer than 2 values.

    lm-evaluation-harness's `mean_stderr` (`lm_eval/api/metrics.py`: `sample_stddev(arr) / math.sqrt(len(arr))`,
    `sample_stddev` dividing by n - 1), the `<metric>_stderr` it writes for every metric aggregated by `mean`.
    """
    xs = _need(values, 2)
    return CONTEXT.divide(sample_sd(xs), CONTEXT.sqrt(Decimal(len(xs))))


@exact
def median_abs_deviation(values: Sequence[Decimal]) -> Decimal:
    """Return median(|x - median(x)|), unscaled (scipy `median_abs_deviation` with `scale=1.0`); raises `ValueError` on empty input."""
    xs = _need(values)
    centre = median(xs)
    return median([abs(x - centre) for x in xs])


#: 1 / Phi^-1(3/4): the factor that makes the MAD of normal data estimate its SD (scipy `scale="normal"`, R `mad`'s `constant`).
MAD_NORMAL = CONTEXT.divide(Decimal(1), Decimal("0.6744897501960817"))


@exact
def population_sd(values: Sequence[Decimal]) -> Decimal:
    """Return the population standard deviation (divides by n, numpy `std` default); raises `ValueError` on empty input."""
    xs = _need(values)
    m = mean(xs)
    ss = sum((CONTEXT.multiply(x - m, x - m) for x in xs), Decimal(0))
    return CONTEXT.sqrt(CONTEXT.divide(ss, Decimal(len(xs))))


#: The named percentile methods (`percentile`'s `method`, never a default): the function and how a derivation text says it.
PERCENTILE_METHODS = {"nearest-rank": (percentile_nearest_rank, "nearest-rank (rank ceil(q/100*n))"),
                      "linear": (percentile_linear, "linear interpolation ((n-1)*q/100)"),
                      "weibull": (percentile_weibull, "weibull interpolation (q/100*(n+1), clamped; commons-math)")}
