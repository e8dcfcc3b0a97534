"""JSON Pointers (RFC 6901), numbers read as `Decimal`, canonical dimension texts."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from verifier.engine import stats
from verifier.formats.jsonio import array_index

__all__ = ["PLACEHOLDER", "dim_text", "fmt", "resolve", "to_decimal"]

#: A `{dimension}` (or `{dimension.index}`) placeholder in a profile's templates.
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
#: A rational string such as ffprobe's "30000/1001" (`to_decimal`), compiled once rather than looked up per call.
_RATIONAL = re.compile(r"-?\d+/\d+")


def resolve(document: Any, pointer: str) -> Any:
    """
    Return the value at RFC 6901 `pointer` in `document`.

    Raises `KeyError` when a step does not exist (a missing member, an index
    out of range or not an RFC 6901 array index, such as `01` or a non-ASCII
    digit, a step into a scalar).
    """
    if pointer == "":
        return document
    current = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~") if "~" in raw else raw  # RFC 6901 section 4
        if isinstance(current, dict):
            if token not in current:
                raise KeyError(pointer)
            current = current[token]
        elif isinstance(current, list):
            index = array_index(token)  # "0" or ASCII digits without a leading zero (RFC 6901 section 4): not "01", "²" or "१"
            if index is None or index >= len(current):
                raise KeyError(pointer)
            current = current[index]
        else:
            raise KeyError(pointer)
    return current


def to_decimal(value: Any) -> Decimal | None:
    """
    Return `value` as a `Decimal`, or None when it is not a number.

    Accepts JSON numbers (int, `Decimal`), numeric strings, and rational
    strings such as ffprobe's `"24/1"` or `"30000/1001"`. Booleans are not numbers.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            if "/" in text and _RATIONAL.fullmatch(text):  # a C-speed test first: most strings are plain numbers
                num, den = text.split("/")
                if int(den) == 0:
                    return None
                return stats.CONTEXT.divide(Decimal(num), Decimal(den))
            number = Decimal(text)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def dim_text(value: Any) -> str | None:
    """Return the canonical string of a dimension value (`1`, `"baseline"`, `Decimal('5')` -> `"5"`, an object -> its JSON text with sorted keys), or None (null, an array)."""
    if type(value) is str:
        return value  # the common case: the text itself
    if isinstance(value, dict):  # an object (JMH's `params`): its canonical JSON text, so equal objects are one dimension value
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    if value is None or isinstance(value, list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    return str(value)


fmt = stats.fmt  # one formatting of derived numbers for messages (re-exported for the profile checks)
