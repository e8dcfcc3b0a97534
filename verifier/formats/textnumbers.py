"""
Numbers written inside a string: `quantity(text)` reads a string that is one number with its unit ("244.6s", "75%",
"1.066x", "58,696 MiB"); `numbers_in(text)` finds every number written inside a longer text, with its unit.

Both are the one reading of a stated number by every claim-document reader (`verifier.readers.claimdocs`,
`verifier.readers.sites`) and the receipt readers' text cells (`verifier.readers.records`).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["numbers_in", "quantity"]


_QUANTITY = re.compile(r"^\s*(?P<number>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?P<unit>[A-Za-z%µμ×][A-Za-z%µμ×]*(?:\s*/\s*[A-Za-z]+)?)?\s*$")


def quantity(text: Any) -> tuple[Decimal, str | None] | None:
    """
    Return `(number, unit)` for a number written with an optional unit inside a string, or None.

    "244.6s" -> (244.6, "s"); "75%" -> (75, "%"); "1.066x" -> (1.066, "x");
    "58,696" -> (58696, None) (comma thousands separators, only in groups of
    three); "-0.7%" -> (-0.7, "%"). The unit is returned as written; the
    caller checks it against `verifier.model.units`. Numbers (int, Decimal) are
    returned with unit None; booleans, None and other text give None.
    """
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, Decimal)):
        return Decimal(text), None
    if not isinstance(text, str):
        return None
    m = _QUANTITY.match(text)
    if not m:
        return None
    try:
        number = Decimal(m["number"].replace(",", ""))
    except InvalidOperation:
        return None
    unit = m["unit"].strip() if m["unit"] else None
    return number, unit


#: A number inside a longer string: not glued to a word, a dot or a hyphenated name before it ("ConvRot-256", "v2.6.0", "W8A8",
#: "l0_9" are names; "0-9" is two numbers), nor to a word or a further ".digit" after it ("3em", "2026.09.14"); a sign only after a blank.
_EMBEDDED = re.compile(r"(?<![\w.])(?<![A-Za-z_]-)(?P<number>(?:(?<!\S)[-+])?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\d_]|\.\d)"
                       r"(?:\s?(?P<unit>[A-Za-z%µμ×][A-Za-z%µμ×]*(?:/[A-Za-z]+)?))?")


_DIGIT = re.compile(r"\d")
#: A superscript exponent right after a number, or after the parenthesis closing it: "10⁻³", "(117.88)⁻¹".
_SUPERSCRIPT = re.compile(r"\)?[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]")


def numbers_in(text: str) -> list[tuple[int, int, Decimal, str | None]]:
    """
    Return `(start, end, number, unit)` for every number stated inside a longer string, in order.

    "18,812 MiB (32.1%)" -> [(0, 10, 18812, "MiB"), (12, 17, 32.1, "%")];
    "144 VAE decoder linears" -> [(0, 3, 144, None)] (a word after a number
    is its unit only when `verifier.model.units` knows it); "ConvRot-256",
    "v2.6.0", "W8A8" and "3em" state no number (they are names), nor do
    "10⁻³" and "(117.88)⁻¹" (a superscript exponent: not the plain number). `start`
    and `end` are offsets of the number (and its unit) in `text`.
    """
    if not _DIGIT.search(text):
        return []  # most strings state no number
    from verifier.model import units  # imported here (past the texts stating no number): the grammars stay importable without the unit registry's cost

    out = []
    for m in _EMBEDDED.finditer(text):
        word = m["unit"]
        if word is not None and m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] == "_"):
            word = None
        unit = word if word is not None and units.known(word) else None
        end = m.end() if unit is not None else m.end("number")
        if unit is None and end < len(text) and (text[end].isalnum() or text[end] == "_"):
            continue  # glued to a word after it: a name ("3em")
        if _SUPERSCRIPT.match(text, m.end("number")):
            continue  # a superscript exponent ("10⁻³", "(117.88)⁻¹"): not the plain number, so no number read
        try:
            number = Decimal(m["number"].replace(",", ""))
        except InvalidOperation:
            continue
        out.append((m.start("number"), end, number, unit))
    return out
