"""`fmt`: a `Decimal` for a message, rounded for display only; re-exported by `verifier.stats`."""

from __future__ import annotations

import decimal
from decimal import Decimal

__all__ = ["fmt"]


#: `fmt`'s rounding contexts by digits, built once (a `decimal.Context` per call cost more than the rounding; only its flags change with use).
_FMT_CONTEXTS: dict[int, decimal.Context] = {}


def fmt(value: Decimal, digits: int = 12) -> str:
    """
    Return `value` for a message: rounded half-even to `digits` significant digits, trailing zeros dropped.

    Plain decimal (`0.613333333333`, `1200`) for magnitudes from 1e-9 to below 1e21, scientific (`1.5E+30`)
    outside; NaN and infinities as `str` gives them. Display only: findings keep exact values in `expected`
    and `observed`, and comparisons never use this text. (It used to cut the string at 24 characters,
    which could change a large number's magnitude.)
    """
    if not value.is_finite():
        return str(value)
    if value.is_zero():
        return "0"
    context = _FMT_CONTEXTS.get(digits)
    if context is None:
        context = _FMT_CONTEXTS[digits] = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_EVEN)
    rounded = context.plus(value).normalize()
    if -9 <= rounded.adjusted() < 21:
        return format(rounded, "f")
    return str(rounded)
