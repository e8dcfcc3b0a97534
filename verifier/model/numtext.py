"""
The one way a number is written for people: in findings' messages and in every report format.

`number` writes a value at the precision it was stated or derived at, in
plain decimal notation for ordinary magnitudes (never `0E-8`, `5E+2`,
`1.99749920200`); `quantity` adds a unit, leaving out the dimensionless
unit `1` (never "count = 5 1"). `tolerance_text` and `delta_text` are the one
notation of a comparison's bound and difference in every message and
report: `(delta 0.05 s, tolerance 0.005 s)`, never `|diff| 2.6e-07 <= 1e-06`
or `tolerance 0.00500000000016`. `compared_places` and `comparison_text` pick the
digits of a compared value so its outcome shows (`derived 32.0499 % (delta
0.0501 %, tolerance 0.05 %)`, not `0.050 %`), `bound_places` those of a
value judged against a bound (`0.42 % (needs >= 2 %)`). Display only: findings keep exact values
in `expected` and `observed`, and comparisons never read this text.
"""

from __future__ import annotations

import decimal
from decimal import Decimal

__all__ = ["PLAIN_RANGE", "TOLERANCE_DIGITS", "at_places", "bound_places", "compared_places", "comparison_text", "delta_text", "fmt", "number", "plain", "quantity", "tolerance_text"]

#: Adjusted exponents (`Decimal.adjusted()`) written in plain notation: 1e-9 up to below 1e21.
PLAIN_RANGE = (-9, 21)
#: Significant digits of a tolerance: a bound, not a measurement (`0.00500000000016` -> `0.005`).
TOLERANCE_DIGITS = 3
#: Rounding contexts by significant digits, built once (only their flags change with use).
_CONTEXTS: dict[int, decimal.Context] = {}


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int | float | str):
        try:
            return Decimal(str(value).strip())
        except (decimal.InvalidOperation, ValueError):
            return None
    return None


def _plain(value: Decimal) -> str:
    """Return a finite `value` in plain notation inside `PLAIN_RANGE`, scientific outside; `-0` as `0`."""
    if value.is_zero():  # `0E-8`, `0E+4`, `-0`: zero; `0.00` keeps its stated places
        exponent = value.as_tuple().exponent
        return "0" if not isinstance(exponent, int) or not -6 <= exponent < 0 else format(abs(value), "f")
    if PLAIN_RANGE[0] <= value.adjusted() < PLAIN_RANGE[1]:
        return format(value, "f")
    return str(value)


def number(value: object, places: int | None = None, digits: int = 12) -> str:
    """
    Return `value` (Decimal, int, float or numeric text) written for people; other values as `str` gives them.

    A value of at most `digits` significant digits keeps the precision it
    has (`"396.30"` stays `396.30`); a longer one is rounded half-even to
    `digits` significant digits, trailing zeros dropped (`0.00500000000031`
    -> `0.005` at `digits=3`). With `places` (decimal places, e.g. those a
    claim states), the value is rounded half-even to exactly that many
    (`"0.00"`). Plain decimal notation from 1e-9 to below 1e21
    (`PLAIN_RANGE`: `"0E-8"` -> `0`, `"5E+2"` -> `500`), scientific outside
    (`1.5E+30`); NaN and infinities as `str` gives them. Raises nothing.
    """
    d = _decimal(value)
    if d is None:
        return str(value)
    if not d.is_finite():
        return str(d)
    if places is not None and PLAIN_RANGE[0] <= (d.adjusted() if d else 0) < PLAIN_RANGE[1] and 0 <= places <= 60:
        context = decimal.Context(prec=max(28, d.adjusted() + places + 3), rounding=decimal.ROUND_HALF_EVEN)
        return _plain(d.quantize(Decimal(1).scaleb(-places), context=context))
    if len(d.as_tuple().digits) > digits:
        context = _CONTEXTS.get(digits)
        if context is None:
            context = _CONTEXTS[digits] = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_EVEN)
        d = context.plus(d).normalize()
    return _plain(d)


def quantity(value: object, unit: str | None = None, places: int | None = None, digits: int = 12) -> str:
    """Return `number(value, places, digits)` followed by ` unit`; no unit for None, `""` or the dimensionless `"1"`."""
    text = number(value, places, digits)
    return f"{text} {unit}" if unit and unit != "1" else text


def fmt(value: Decimal, digits: int = 12) -> str:
    """
    Return `value` for a message: rounded half-even to `digits` significant digits, trailing zeros dropped.

    Plain decimal (`0.613333333333`, `1200`) for magnitudes in `PLAIN_RANGE`, scientific (`1.5E+30`)
    outside; NaN and infinities as `str` gives them. Display only: findings keep exact values in `expected`
    and `observed`, and comparisons never use this text. Re-exported as `verifier.engine.stats.fmt`.
    """
    if value.is_zero():
        return "0"
    if not value.is_finite():
        return str(value)
    return number(value.normalize(), digits=digits)


def plain(value: object, digits: int = 12) -> str:
    """
    Return `value` rounded half-even to `digits` significant digits, trailing zeros dropped, in plain decimal notation however small.

    What a tolerance or a delta is written as (`tolerance_text`, `delta_text`, the claims table's delta column): `-7E-17` ->
    `-0.00000000000000007`, `8.35E-13` -> `0.000000000000835`, `0E-8` -> `0`; from 1e21 up scientific, as `number`
    writes it. NaN, infinities and non-numbers as `str` gives them. Raises nothing.
    """
    d = _decimal(value)
    if d is None or not d.is_finite():
        return str(value)
    text = fmt(d, digits)
    if "E" in text and not d.is_zero() and Decimal(text).adjusted() < PLAIN_RANGE[0]:
        return format(Decimal(text), "f")
    return text


def _trimmed(value: object, unit: str | None, digits: int) -> str:
    """Return `plain(value, digits)` followed by ` unit` (none for None, `""` or `"1"`)."""
    text = plain(value, digits)
    return f"{text} {unit}" if unit and unit != "1" else text


def tolerance_text(value: object, unit: str | None = None) -> str:
    """
    Return `tolerance T[ unit]`: the words every message and report uses for a comparison's bound.

    `T` is `value` (Decimal, int, float or numeric text) at `TOLERANCE_DIGITS`
    significant digits, trailing zeros dropped, in plain notation inside
    `PLAIN_RANGE` (`1e-06` -> `tolerance 0.000001`, `Decimal("0.00500000000016")`
    with `"s"` -> `tolerance 0.005 s`); the dimensionless unit `1` is left
    out. Raises nothing; a non-number is written as `str` gives it.
    """
    return "tolerance " + _trimmed(value, unit, TOLERANCE_DIGITS)


def delta_text(value: object, unit: str | None = None, digits: int = 12) -> str:
    """
    Return `delta D[ unit]`: the words every message and report uses for a comparison's difference (stated - derived, or |difference|).

    `D` is `value` at most `digits` significant digits (12; a re-scored
    float's difference at 2), trailing zeros dropped, in plain notation
    inside `PLAIN_RANGE` (`Decimal("1.99749920200")` -> `delta 1.997499202`,
    `2.6e-07` -> `delta 0.00000026`, `0E-8` -> `delta 0`). Raises nothing.
    """
    return "delta " + _trimmed(value, unit, digits)


def compared_places(delta: object, tolerance: object, places: int | None, most: int = 12) -> int | None:
    """
    Return the decimal places to write a compared value's derived number and delta at, so the comparison's outcome shows.

    At least `places + 2` (`places`: those the claim states; two more keep
    the rounding visible), and more, up to `places + most`, while the
    delta's magnitude at those places reads the same as the tolerance as
    written (`tolerance_text`: `TOLERANCE_DIGITS` significant digits) though
    the exact values differ, or reads on the other side of it: `0.0501158`
    against `0.05` at one stated place gives 4 (`0.0501`, not `0.050`).
    None when `places` is None (the claim states no decimal number); `places + 2` when `delta` or `tolerance` is no number.
    Display only; raises nothing.
    """
    if places is None:
        return None
    d, t = _decimal(delta), _decimal(plain(tolerance, TOLERANCE_DIGITS)) if tolerance is not None else None
    low = places + 2
    if d is None or t is None or not d.is_finite() or not t.is_finite():
        return low
    d = abs(d)
    for shown_places in range(low, places + most + 1):
        context = decimal.Context(prec=max(28, d.adjusted() + shown_places + 3), rounding=decimal.ROUND_HALF_EVEN)
        shown = d.quantize(Decimal(1).scaleb(-shown_places), context=context)
        if (shown == t) == (d == t) and (shown <= t) == (d <= t):
            return shown_places
    return places + most


def _places_of(value: object) -> int | None:
    """Return the decimal places `value` is written with (`"74.45"` -> 2, `2` -> 0), None for a non-number."""
    d = _decimal(value)
    if d is None or not d.is_finite():
        return None
    exponent = d.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def at_places(value: object, places: int | None) -> str:
    """Return `number(value, places)`, but `value` as it is (`number(value)`) when it has no more places than that: never padded (`80.0` stays `80.0`)."""
    have = _places_of(value)
    if places is None or have is None or have <= places:
        return number(value)
    return number(value, places)


def comparison_text(stated: object, derived: object, tolerance: object, unit: str | None = None) -> tuple[str, str]:
    """
    Return `(derived, "delta D, tolerance T")` of a stated number compared with its derivation, with `unit`, for a message.

    Both at the decimal places `compared_places` picks for the difference `stated - derived` (those the claim
    states plus two, more until the delta reads on its side of the tolerance): `("74.45", Decimal("73.4525007979"),
    "0.005", "%")` -> `("73.4525 %", "delta 0.9975 %, tolerance 0.005 %")`, the digits the claims tables show.
    A non-number `stated` or `derived` gives `number(derived)` and `tolerance T` alone. Raises nothing.
    """
    s, d = _decimal(stated), _decimal(derived)
    suffix = f" {unit}" if unit and unit != "1" else ""
    if s is None or d is None or not s.is_finite() or not d.is_finite():
        return number(derived) + suffix, tolerance_text(tolerance, unit)
    places = compared_places(s - d, tolerance, _places_of(stated))
    return at_places(d, places) + suffix, f"delta {at_places(s - d, places)}{suffix}, {tolerance_text(tolerance, unit)}"


def bound_places(value: object, bound: object, least: int = 2) -> int | None:
    """
    Return the decimal places to write a value judged against a bound at (a gate rule's `>= 2`): those of the bound plus `least`,
    and more, up to 12 more, while the value at those places reads equal to the bound though it is not, or on the
    bound's other side (`0.42005871366` against `2` -> 2: `0.42`). None for a non-number. Display only; raises nothing.
    """
    v, b, places = _decimal(value), _decimal(bound), _places_of(bound)
    if v is None or b is None or places is None or not v.is_finite():
        return None
    for shown_places in range(places + least, places + least + 13):
        context = decimal.Context(prec=max(28, v.adjusted() + shown_places + 3), rounding=decimal.ROUND_HALF_EVEN)
        shown = v.quantize(Decimal(1).scaleb(-shown_places), context=context)
        if (shown == b) == (v == b) and (shown < b) == (v < b):
            return shown_places
    return places + least + 12
