"""
One registry of units and dimensions for every quantity the evidence model holds.

A unit is a base dimension times an exact scale (`fractions.Fraction`), or a
rate: one unit per another (`tokens/s`, `samples/s`, `requests/min`). Base
dimensions: time, tokens, bytes, samples, frames, requests, count,
dimensionless and percent. Conversions are exact within a dimension and
refused across dimensions (`UnitMismatch`); `dimensionless` and `percent`
are distinct dimensions on purpose, because "0.73" and "73 %" written for
the same number is a claim question, not a unit question.

Sources for the scales: SI prefixes (BIPM, The International System of Units,
9th ed., 2019, table 7) for ns/us/ms and kB/MB/GB; IEC 80000-13:2008 for the
binary prefixes KiB/MiB/GiB.

Examples::

    >>> parse("ms").convert(Decimal("1500"), parse("s"))
    Decimal('1.5')
    >>> parse("tokens/s").dimension
    'tokens/time'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = ["BASE_SYMBOLS", "DIMENSIONS", "PURE", "Unit", "UnitError", "UnitMismatch", "base_symbol", "convert", "known", "parse", "pure_scale", "shown", "to_base"]

#: The base dimensions. A rate's dimension is written "numerator/denominator".
DIMENSIONS = ("time", "tokens", "bytes", "samples", "frames", "requests", "count", "dimensionless", "percent")


class UnitError(ValueError):
    """Raised by `parse` for a unit string the registry does not know (the message names it)."""


class UnitMismatch(ValueError):
    """Raised by `Unit.convert` when the two units have different dimensions (the message names both)."""


# name -> (dimension, scale relative to the dimension's base unit)
_BASE: dict[str, tuple[str, Fraction]] = {}


def _add(dimension: str, scale: Fraction | int, *names: str) -> None:
    for name in names:
        _BASE[name] = (dimension, Fraction(scale))


_add("time", Fraction(1, 10**9), "ns", "nanosecond", "nanoseconds")
_add("time", Fraction(1, 10**6), "us", "µs", "μs", "microsecond", "microseconds")
_add("time", Fraction(1, 10**3), "ms", "millisecond", "milliseconds", "msec")
_add("time", 1, "s", "sec", "secs", "second", "seconds")
_add("time", 60, "min", "mins", "minute", "minutes")
_add("time", 3600, "h", "hr", "hour", "hours")
_add("tokens", 1, "token", "tokens", "tok", "toks")
_add("bytes", 1, "B", "byte", "bytes")
_add("bytes", 10**3, "kB", "KB")
_add("bytes", 10**6, "MB")
_add("bytes", 10**9, "GB")
_add("bytes", 10**12, "TB")
_add("bytes", 2**10, "KiB")
_add("bytes", 2**20, "MiB")
_add("bytes", 2**30, "GiB")
_add("bytes", 2**40, "TiB")
_add("samples", 1, "sample", "samples")
_add("frames", 1, "frame", "frames", "fr")
_add("requests", 1, "request", "requests", "req", "reqs", "query", "queries")
_add("count", 1, "count", "counts", "item", "items", "decision", "decisions", "step", "steps", "iteration", "iterations",
     "op", "ops", "operation", "operations")
_add("dimensionless", 1, "1", "x", "×", "ratio", "score")
_add("percent", 1, "%", "percent", "pct")

_RATE_ALIASES = {"tps": "tokens/s", "qps": "queries/s", "rps": "requests/s", "fps": "frames/s", "hz": "1/s", "Hz": "1/s",
                 "iops": "ops/s", "IOPS": "ops/s", "it/s": "iterations/s", "s/it": "s/iterations"}  # tqdm writes it/s and s/it
_RATE = re.compile(r"^\s*(?P<num>[^/\s]+)\s*(?:/|\s+per\s+)\s*(?P<den>[^/\s]+)\s*$")


@dataclass(frozen=True, slots=True)
class Unit:
    """
    Represents one unit: its spelling, its dimension and its exact scale to the dimension's base unit.

    `dimension` is one of `DIMENSIONS`, or "a/b" for a rate. `scale` is a
    `Fraction` (for "ms": 1/1000; for "tokens/min": 1/60).
    """

    symbol: str
    dimension: str
    scale: Fraction

    def convert(self, value: Decimal, to: Unit) -> Decimal:
        """
        Return `value` (a Decimal in this unit) expressed in unit `to`, computed exactly.

        The result is exact when it is a terminating decimal and correct to
        34 significant digits otherwise. Raises `UnitMismatch` when the
        dimensions differ.
        """
        if self.dimension != to.dimension:
            raise UnitMismatch(f"cannot convert {self.symbol} ({self.dimension}) to {to.symbol} ({to.dimension})")
        if self.scale == to.scale:
            return value
        factor = self.scale / to.scale
        with localcontext() as ctx:
            ctx.prec = 34
            return value * Decimal(factor.numerator) / Decimal(factor.denominator)

    def compatible(self, other: Unit) -> bool:
        """Return True when `other` has the same dimension (so `convert` succeeds)."""
        return self.dimension == other.dimension


def shown(text: object) -> str:
    """Return `repr(text)` for a message, cut to 60 characters with a marker (`verifier.model.findings.cut`): a unit of 50 KB is named, not echoed."""
    from verifier.model.findings import cut

    return cut(repr(text), 60)


def _base(name: str, whole: str) -> tuple[str, Fraction]:
    if name in _BASE:
        return _BASE[name]
    lowered = name.lower()
    for key, entry in _BASE.items():
        if key.lower() == lowered and key not in {"B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"}:
            return entry
    raise UnitError(f"unknown unit {shown(whole)} (known: {', '.join(sorted(set(_BASE)))}, and rates such as tokens/s)")


def parse(text: str) -> Unit:
    """
    Return the `Unit` spelled by `text`: a registered name ("ms", "tokens", "%", "GiB"),
    a rate "A/B" or "A per B" ("tokens/s", "samples per second"), or an alias ("tps", "qps").

    Raises `UnitError` naming `text` when any part is unknown.
    """
    if not isinstance(text, str) or not text.strip():
        raise UnitError(f"unknown unit {shown(text)}")
    return _parse(text.strip())


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Unit:
    """Return the `Unit` of stripped, non-empty `text` (cached: a unit name is parsed once per process; errors are not cached)."""
    text = _RATE_ALIASES.get(text, text)
    match = _RATE.match(text)
    if match:
        num_dim, num_scale = _base(match["num"], text)
        den_dim, den_scale = _base(match["den"], text)
        return Unit(text, f"{num_dim}/{den_dim}", num_scale / den_scale)
    dimension, scale = _base(text, text)
    return Unit(text, dimension, scale)


def known(text: str) -> bool:
    """Return True when `parse(text)` would succeed."""
    try:
        parse(text)
    except UnitError:
        return False
    return True


_LABELLED = re.compile(r"^\s*[^()]*[^\s()]\s*\(\s*([^()]+?)\s*\)\s*$")


def unit_in_label(text: str) -> str:
    """
    Return the unit a stated unit text names: `text` itself when it is a unit, else the unit in parentheses that ends a
    quantity's label (`Latency (ms)` -> `ms`, as MLPerf's `Units` column and LoadGen's `Mean latency (ns)` write it).

    A label whose parenthesised part is no unit, or any other text, is returned unchanged (an unknown unit stays
    unknown for the caller to report).
    """
    if known(text):
        return text
    m = _LABELLED.match(text)
    return m.group(1) if m and known(m.group(1)) else text


#: The base unit of each dimension, the unit every scale is relative to (a rate's is numerator's base / denominator's base).
BASE_SYMBOLS = {"time": "s", "tokens": "tokens", "bytes": "B", "samples": "samples", "frames": "frames", "requests": "requests",
                "count": "count", "dimensionless": "1", "percent": "%"}


def base_symbol(text: str) -> str:
    """Return the spelling of the base unit of the dimension of unit `text` ("ms" -> "s", "MiB/s" -> "B/s"); raises `UnitError`."""
    dimension = parse(text).dimension
    return "/".join(BASE_SYMBOLS[d] for d in dimension.split("/"))


def to_base(value: Decimal, unit: str) -> Decimal:
    """Return `value` (in unit `unit`) in the base unit of its dimension, exactly as `convert` computes; raises `UnitError`."""
    scale = parse(unit).scale
    if scale == 1:
        return value
    with localcontext() as ctx:
        ctx.prec = 34
        return value * Decimal(scale.numerator) / Decimal(scale.denominator)


#: The dimensions of a pure number: a ratio (`1`, `x`) and a percentage (`%`), where 1 = 100 %.
PURE = ("dimensionless", "percent")


def pure_scale(dimension: str, unit: str) -> Fraction:
    """
    Return the exact factor that writes a pure number of `dimension` (one of `PURE`) in `unit` (of either): 1 = 100 %.

    A ratio of 0.2 is 20 %: `pure_scale("dimensionless", "%")` is 100, `pure_scale("percent", "1")` 1/100, and within
    one dimension the unit's own scale (`x` and `1` are 1). This is the one place a ratio meets a percentage: a statistic
    whose result is a pure number (a speedup, a relative reduction) may be stated in either, never mislabelled. Raises
    `UnitMismatch` for a `dimension` or `unit` that is not a pure number (`ms`), `UnitError` for an unknown unit.
    """
    target = parse(unit)
    if dimension not in PURE or target.dimension not in PURE:
        raise UnitMismatch(f"{unit} ({target.dimension}) is not a pure number (a ratio `1`, `x` or a percentage `%`), as a {dimension} result is")
    factor = Fraction(1) / target.scale
    if dimension == target.dimension:
        return factor
    return factor * (100 if dimension == "dimensionless" else Fraction(1, 100))


def convert(value: Decimal, source: str, target: str) -> Decimal:
    """Return `value` converted from unit string `source` to `target`; raises `UnitError` or `UnitMismatch`."""
    return parse(source).convert(value, parse(target))
