"""
Strict JSON reading for evidence.

Python's `json` accepts duplicate keys (last one wins), bare `NaN`/`Infinity`
and turns `396.30` into a float that forgets its stated precision. Evidence is
read with all three refused or preserved: duplicate keys and non-finite
constants raise `JSONProblem`, numbers with a fraction or exponent become
`decimal.Decimal` (so `396.30` keeps two places), and the bytes must be UTF-8
(RFC 8259 section 8.1).

Hostile input is bounded here, once, for every reader: every accepted number
is finite and within IEEE 754 binary64's range (an exponent of 10^20 is
refused, not handed to `Decimal`; with a zero mantissa it is 0), a string holding a lone surrogate
(`"\\ud800"`, not a Unicode character, RFC 8259 section 8.2) is refused, and
nesting deeper than `MAX_DEPTH` is refused, so no later step (schema
validation, canonical JSON, reporters) can recurse without bound.

Many short documents at once (the lines of a log, JSON Lines) go through
`loads_strict_each`, which reads a batch with msgspec's compiled decoder
and keeps its result only when checks on the batch prove it is what the
rules above give (`_checked_many`); otherwise each text is read as above.
A reader that knows the shape of its lines can also read them into typed
objects in one compiled pass (`typed_decoder`, `loads_typed_each`) and
vouch for a whole batch of `iter_strict_batches` (its `vouch` argument).
"""

from __future__ import annotations

import json
import os
import re
from decimal import MAX_PREC, Clamped, Context, Decimal, Inexact, InvalidOperation, Overflow, Rounded, Subnormal, Underflow
from itertools import chain, repeat
from operator import add
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

__all__ = ["JSONProblem", "array_index", "check_depth", "json_pointer", "loads_strict", "loads_strict_each", "loads_strict_lines", "loads_strict_text", "loads_typed_each", "in_binary64", "iter_strict_batches", "iter_strict_lines", "file_chunks", "LINE_LIMIT", "quote_non_finite", "schema_message", "shown_literal", "typed_decoder"]


class JSONProblem(ValueError):
    """
    Raised when bytes are not strict JSON; `code` is a stable reason.

    Codes: `not-utf8`, `invalid-json`, `duplicate-key`, `non-finite-number`,
    `number-out-of-range` (magnitude beyond IEEE 754 binary64),
    `invalid-unicode` (a lone surrogate escape), `too-deep` (nesting beyond
    `MAX_DEPTH`); readers of whole documents add `too-large`
    (`verifier.readers.tree.Tree.json`).
    `line` is the 1-based line for JSON Lines input, else None.
    """

    def __init__(self, code: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.line = line


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # C speed; a duplicate key makes it shorter than the pairs, and is then named
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise JSONProblem("duplicate-key", f"duplicate key {key!r}")
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise JSONProblem("non-finite-number", f"non-finite number {name} is not JSON")


#: A JSON string (skipped whole, escapes included) or a bare non-finite constant outside one (group 1).
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def quote_non_finite(data: bytes) -> bytes:
    """
    Return `data` with every bare `NaN`, `Infinity` and `-Infinity` outside a string written as a JSON string (`"Infinity"`).

    Python's `json.dumps` writes a float that is not finite that way (sglang.bench_serving's
    `"request_rate": Infinity` for an unthrottled run), which is not JSON. Read as text, such a
    value is never a number; everything else is then read by the strict readers as before.
    `data` that is not UTF-8 or holds no such word is returned unchanged (the strict reader judges it).
    """
    if b"Infinity" not in data and b"NaN" not in data:
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return _NON_FINITE.sub(lambda m: f'"{m.group(1)}"' if m.group(1) else m.group(0), text).encode("utf-8")


#: Largest magnitude accepted for a JSON number: IEEE 754 binary64's range, which every
#: producer of these documents writes from; beyond it a number is refused, not computed with.
MAX_EXPONENT = 308
MAX_INT_DIGITS = 309
#: The largest finite binary64 value, (2 - 2**-52) * 2**1023 (IEEE 754-2019 section 3.3).
MAX_BINARY64 = Decimal("1.7976931348623157E+308")
_MAX_INT = int(MAX_BINARY64)
#: Deepest nesting of arrays and objects accepted; no producer of these documents nests beyond a handful of levels.
MAX_DEPTH = 64


def shown_literal(literal: str) -> str:
    """Return `literal` as a message shows it: whole up to 40 characters, else its head and tail with its length."""
    return literal if len(literal) <= 40 else f"{literal[:20]}...{literal[-12:]} ({len(literal)} characters)"


def in_binary64(value: Decimal) -> bool:
    """Return whether finite `value` is zero or within IEEE 754 binary64's range (exponent within +-`MAX_EXPONENT`, |x| <= `MAX_BINARY64`)."""
    # `copy_abs`, not `abs`: `abs` rounds to the thread's decimal context (28 digits by default), so
    # 1.7976931348623157000000000001E+308 would round down to the limit; comparisons are exact
    return not value or (abs(value.adjusted()) <= MAX_EXPONENT and value.copy_abs() <= MAX_BINARY64)


def _float(literal: str) -> Decimal:
    if len(literal) < MAX_EXPONENT - 8 and "e" not in literal and "E" not in literal:
        # without an exponent, fewer than 300 characters hold fewer than 300 digits: the magnitude is below 10**300 and,
        # unless zero, at least 10**-300, inside the binary64 range (the common case: no range arithmetic per literal)
        return Decimal(literal)
    try:
        value = Decimal(literal)
        out_of_range = not in_binary64(value)
    except (InvalidOperation, ValueError, OverflowError):  # an exponent beyond Decimal's own limits (e.g. 1e99999999999999999999)
        mantissa, _, exponent = literal.lower().partition("e")
        if not Decimal(mantissa):  # 0e99999999999999999999 is 0: at most 0E-308 places (finer than any binary64 print), never wider than stated
            return Decimal((Decimal(mantissa).is_signed(), (0,), -MAX_EXPONENT if exponent.startswith("-") else 0))
        out_of_range = True
    if out_of_range:
        raise JSONProblem("number-out-of-range", f"number {shown_literal(literal)} is outside the binary64 range")
    return value


def _int(literal: str) -> int:
    if len(literal) < MAX_INT_DIGITS:  # at most 308 digits: below 10**308, inside the binary64 range (the common case, no big-int compare)
        return int(literal)
    if len(literal.lstrip("-")) > MAX_INT_DIGITS or abs(int(literal)) > _MAX_INT:
        raise JSONProblem("number-out-of-range", f"integer {shown_literal(literal)} is outside the binary64 range")
    return int(literal)


#: A `\\uD800`-`\\uDFFF` escape in the text: only then can a decoded string hold a surrogate (UTF-8 bytes cannot).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_depth(value: Any) -> None:
    """
    Raise `JSONProblem` (`too-deep`) when `value`, a parsed JSON or TOML document (dicts, lists, scalars), nests deeper than `MAX_DEPTH`.

    Iterative, so any depth is measured without recursion: the one depth cap
    of readers whose parser is not ours (trust-root TOML, cache entries).
    """
    _inspect(value, depth=True, surrogates=False)


def _inspect(value: Any, *, depth: bool, surrogates: bool) -> None:
    """
    Raise `JSONProblem` `too-deep` (when `depth`) for nesting beyond `MAX_DEPTH`, then `invalid-unicode` (when `surrogates`) for a string, key or value, holding a lone surrogate.

    Depth is measured first (`_nesting`), so a document with both problems is
    refused as too deep; the strings are then searched depth first, without
    recursion.
    """
    if depth and _nesting(value) > MAX_DEPTH:
        raise JSONProblem("too-deep", f"nested deeper than {MAX_DEPTH} levels of arrays and objects")
    if not surrogates:
        return
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in node:
                if _SURROGATE.search(key):
                    raise JSONProblem("invalid-unicode", f"key {key.encode('unicode_escape').decode()[:60]!s} holds a lone "
                                      "surrogate, which is not a Unicode character (RFC 8259 section 8.2)")
            stack.extend(child for child in node.values() if isinstance(child, (dict, list, str)))
        elif isinstance(node, list):
            stack.extend(child for child in node if isinstance(child, (dict, list, str)))
        elif isinstance(node, str) and _SURROGATE.search(node):
            raise JSONProblem("invalid-unicode", f"string {node.encode('unicode_escape').decode()[:60]!s} holds a lone "
                              "surrogate, which is not a Unicode character (RFC 8259 section 8.2)")


def _nesting(value: Any) -> int:
    """
    Return how many levels of arrays and objects `value` nests (0 for a scalar, 1 for `[]` or `{"a": 1}`), at most `MAX_DEPTH + 1`.

    Level by level: each level's containers are gathered by comprehensions
    (C loops), so a plan of 10^6 request objects costs a few list passes, not
    one Python step per object; the walk stops one level past `MAX_DEPTH`.
    """
    level = [value] if isinstance(value, (dict, list)) else []
    levels = 0
    while level and levels <= MAX_DEPTH:
        levels += 1
        children = [child for node in level for child in (node.values() if isinstance(node, dict) else node)]
        level = [child for child in children if isinstance(child, (dict, list))]
    return levels


#: A run of digits long enough that an integer literal might leave the binary64 range (`_int` must then see it); shorter ones
#: cannot (fewer than MAX_INT_DIGITS - 1 digits is below 10**307), so the C parser's own `int` is used without a call per literal.
_LONG_DIGITS = re.compile(r"\d{%d}" % (MAX_INT_DIGITS - 2))
#: For ASCII text: each digit byte -> "0", every other byte -> " ", so a run of digits becomes a run of "0" that
#: `bytes.__contains__` finds at C speed (the regex engine steps through every character, which costs more than the parse).
_DIGIT_MASK = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * (MAX_INT_DIGITS - 2)
#: Characters per slice `_long_digits` masks at once (bounds the transient copies of a large document).
_MASK_STEP = 1 << 20


def _long_digits(text: str) -> bool:
    """
    Return whether `text` holds a run of at least `MAX_INT_DIGITS - 2` digits, i.e. whether `_LONG_DIGITS.search(text)` matches.

    ASCII text (the common case; `str.isascii` is a flag test) is masked
    with `_DIGIT_MASK` in slices of `_MASK_STEP` characters that overlap by
    one run less one, so a run crossing a slice boundary is seen whole;
    other text (whose `\\d` also matches non-ASCII digits) goes through the regex.
    """
    run = MAX_INT_DIGITS - 2
    if len(text) < run:
        return False  # too short to hold a run: no scan (most texts are lines of a log)
    if not text.isascii():
        return _LONG_DIGITS.search(text) is not None
    for start in range(0, len(text), _MASK_STEP):
        if _LONG_RUN in text[start:start + _MASK_STEP + run - 1].encode("ascii").translate(_DIGIT_MASK):
            return True
    return False


#: The two strict decoders, built once (`json.loads` with hooks builds a decoder and its scanner on every call), keyed by
#: whether integers need `_int`'s range check. Both refuse duplicate keys and NaN/Infinity and range-check every fraction.
_DECODERS = {
    ints: json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, parse_int=_int if ints else None)
    for ints in (False, True)
}


def _decode(text: str) -> Any:
    """Return the one JSON document `text` holds, refusing what `loads_strict` refuses (raises `JSONProblem`)."""
    try:
        value = _DECODERS[_long_digits(text)].decode(text)
    except JSONProblem:
        raise
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # the standard library's "Invalid control character at" names no place itself
        raise JSONProblem("invalid-json", f"not valid JSON: {message} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise JSONProblem("too-deep", f"nested deeper than {MAX_DEPTH} levels of arrays and objects") from None
    # Both scans are skipped when the text cannot hold the problem (C-speed counts; `"\\" in` is a memchr, cheaper
    # than the two-character search it guards), so large documents stay linear.
    depth = text.count("[") + text.count("{") > MAX_DEPTH
    surrogates = "\\" in text and "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None
    if depth or surrogates:
        _inspect(value, depth=depth, surrogates=surrogates)
    return value


_NEWLINE = b"\n"


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(_NEWLINE, 0, exc.start) + 1
        raise JSONProblem("not-utf8", f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line})") from None
    if text.startswith("\ufeff"):
        raise JSONProblem("invalid-json", "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)")
    return text


def loads_strict(data: bytes) -> Any:
    """
    Parse one JSON document from `data` (bytes, UTF-8).

    Returns dicts, lists, str, int, `Decimal`, bool and None. Raises
    `JSONProblem` for non-UTF-8 bytes, invalid JSON, duplicate keys,
    NaN/Infinity, numbers beyond the binary64 range, lone surrogates and
    nesting deeper than `MAX_DEPTH`.
    """
    return _decode(_text(data))


def loads_strict_text(text: str) -> Any:
    """Parse one JSON document from `text`, already decoded from UTF-8 (a line of a text file); as `loads_strict`, without the byte round trip."""
    if text.startswith("\ufeff"):
        raise JSONProblem("invalid-json", "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)")
    return _decode(text)


#: The context `_COMPILED` reads a number with a fraction or exponent in: exact (no rounding at any length) and raising
#: `decimal.Overflow` beyond 10**308 or `decimal.Subnormal` below 10**-308 (magnitudes `in_binary64` refuses); a magnitude
#: in [10**308, `MAX_BINARY64`] raises too and is then read (and accepted) by `_decode`.
_BINARY64_RANGE = Context(prec=MAX_PREC, Emax=MAX_EXPONENT - 1, Emin=-MAX_EXPONENT,
                          traps=[Overflow, Subnormal, Underflow, Clamped, Inexact, Rounded, InvalidOperation])
#: msgspec's decoder (compiled): refuses what the JSON grammar refuses (NaN/Infinity, trailing commas, lone surrogate
#: escapes, other whitespace, a byte order mark before the document) and hands each number with a fraction or exponent,
#: as written, to `_BINARY64_RANGE.create_decimal`; it does NOT refuse duplicate keys (the last one wins), integers beyond
#: binary64 or nesting deeper than `MAX_DEPTH`, which `_checked_many` rules out.
_COMPILED = msgspec.json.Decoder(float_hook=_BINARY64_RANGE.create_decimal)
_ENCODE = msgspec.json.Encoder().encode
#: For `_checked_many`, one pass over the texts' bytes keeps what its three counts need: each digit -> "0", "[" -> "{",
#: and "{", ":", "," and the texts' separator as they are; every other byte is deleted (`_SKELETON_DROPPED`).
_SKELETON = bytes(0x30 if 0x30 <= b <= 0x39 else 0x7B if b == 0x5B else b for b in range(256))
_SKELETON_DROPPED = bytes(b for b in range(256) if not 0x30 <= b <= 0x39 and b not in b"{[:,\x00")
#: With "0", ":" and "," deleted from that skeleton too, a text nested deeper than `MAX_DEPTH` leaves a run of more than `MAX_DEPTH` "{".
_TOO_DEEP = b"{" * (MAX_DEPTH + 1)
#: Texts per batch of `loads_strict_each` (bounds the transient copies `_checked_many` makes).
_BATCH = 4096


def _unicode_escape(data: bytes) -> bool:
    """
    Return whether JSON texts `data` hold a `\\u` escape: each backslash found starts an escape, whose second character is skipped.

    Exact for valid JSON (a backslash only starts an escape there: `\\\\u` is an
    escaped backslash, then `u`); for other bytes any answer is safe, since
    the compiled decoder refuses them. A loop per backslash: LoadGen logs hold
    a handful (a memchr each), where a two-byte search of the whole text
    costs more.
    """
    at = data.find(b"\\")
    while at != -1:
        if data[at + 1:at + 2] == b"u":
            return True
        at = data.find(b"\\", at + 2)
    return False


def _checked_many(texts: list[str]) -> list[Any] | None:
    """
    Return `[loads_strict_text(t) for t in texts]` read by the compiled decoder, or None when it cannot vouch for every text.

    None means: some text is not JSON, or is one whose strict reading the
    compiled decoder could differ from (then each text is read by
    `_decode`). A batch holding a `\\u` escape, a run of `MAX_INT_DIGITS - 2`
    digits (an integer that may be beyond binary64: the decoder reads any
    integer) or a text with more than `MAX_DEPTH` opening brackets is not
    decoded; a number with a fraction or exponent outside the binary64 range
    stops the decoder (`_BINARY64_RANGE`). After decoding, duplicate keys:
    a colon in JSON text either separates a key from its value or stands in
    a string; without `\\u` escapes (a `\\u003a` would hide one) a string's
    colon is written as itself, in the texts as in the compact encoding of
    what was decoded. A duplicate key drops a key (and its value's strings)
    from the decoded object, so the encoding holds fewer colons than the
    texts exactly when some object stated a key twice.
    """
    try:
        data = "\x00".join(texts).encode("utf-8")  # a raw NUL is not JSON, so no text that decodes holds the separator
    except UnicodeEncodeError:  # a lone surrogate in a str that was not decoded from UTF-8
        return None
    if _unicode_escape(data):
        return None
    colons = _colons_unless_hazard(data)
    if colons is None:
        return None
    try:
        docs = list(map(_COMPILED.decode, texts))
    except (ValueError, ArithmeticError, RecursionError):  # msgspec.DecodeError is a ValueError; out of range: decimal.Overflow etc.
        return None
    if _ENCODE(docs).count(b":") != colons:
        return None
    return docs


def _colons_unless_hazard(data: bytes) -> int | None:
    """
    Return `data.count(b":")`, or None when `data` (texts parted by NUL) holds a text with more than `MAX_DEPTH` opening brackets or a run of `MAX_INT_DIGITS - 2` digits.

    One pass (`_SKELETON`) keeps digits (as "0"), opening brackets (as "{"),
    colons, commas and NULs: its colons are all of `data`'s; with "0", ":"
    and "," deleted too, each text's opening brackets are one run of "{"
    between NULs. A run of digits in `data` is one in the skeleton, where a
    run may also join digits that other bytes parted (a string of hex
    digits, "1.5e3"; commas part array elements), so a run found there is
    looked for in `data` itself (`_DIGIT_MASK`): the answer is exactly that
    of the three separate scans.
    """
    skeleton = data.translate(_SKELETON, _SKELETON_DROPPED)
    if _TOO_DEEP in skeleton.translate(None, b"0:,") or (_LONG_RUN in skeleton and _LONG_RUN in data.translate(_DIGIT_MASK)):
        return None
    return skeleton.count(b":")


def typed_decoder(kind: Any) -> Any:
    """
    Return msgspec's compiled decoder (`msgspec.json.Decoder`) of one JSON text into the type `kind` (e.g. msgspec Structs), for `loads_typed_each`.

    A number with a fraction or exponent read into a field typed `Any` becomes
    a `Decimal` as `loads_strict` reads it (`_BINARY64_RANGE`: out of range
    raises). The type must not admit `Decimal` or `float` itself (msgspec
    reads a `Decimal` field from a string too, and a float loses the digits
    as written), nor `datetime` and the like (their re-encoding can differ
    in colons), and every Struct in it must be `forbid_unknown_fields` with
    only `msgspec.UNSET` defaults under `omit_defaults` (`loads_typed_each`
    counts the keys by re-encoding what was decoded).
    """
    return msgspec.json.Decoder(kind, float_hook=_BINARY64_RANGE.create_decimal)


def loads_typed_each(texts: list[str], decode: Any) -> list[Any] | None:
    """
    Return `[decode(t) for t in texts]` (`decode`: a `typed_decoder`'s `decode`), or None when it cannot vouch that each text is strict JSON.

    Not None only when every text is one JSON document that `loads_strict_text`
    reads without a problem and that `decode` read, each key and each value
    (no text may hold a `\\u` escape, a run of `MAX_INT_DIGITS - 2` digits
    or a duplicate key, as in `_checked_many`: a duplicate key shows as a
    colon the re-encoding of what was decoded lacks; deep nesting is refused
    by the type itself or by the decoder's recursion limit). Any
    error of the decode (a text that is no JSON, or not of the type) gives None too:
    the texts are then read the strict way, which names every problem.
    """
    joined = "\x00".join(texts)
    if "\\" in joined and _unicode_escape(joined.encode("utf-8", "surrogatepass")):
        return None
    if _long_digits(joined):
        return None
    try:
        values = list(map(decode, texts))
    except (ValueError, ArithmeticError, RecursionError):  # msgspec.DecodeError/ValidationError are ValueErrors; out of range
        return None
    if _ENCODE(values).count(b":") != joined.count(":"):
        return None
    return values


def loads_strict_each(texts: list[str]) -> list[Any]:
    """
    Read each of `texts` (already decoded from UTF-8) as `loads_strict_text` does; one result per text, in order.

    A text that is not strict JSON gives its `JSONProblem` in its place
    (returned, not raised), so one bad line of a log does not hide the
    others. Texts are taken in batches of `_BATCH` (which bounds the
    transient copies `_checked_many` makes); a batch of well-formed texts is
    read by a compiled decoder in one pass (`_checked_many`, several times
    faster than one `_decode` per text), any other batch text by text.
    """
    out: list[Any] = []
    for first in range(0, len(texts), _BATCH):
        batch = texts[first:first + _BATCH]
        docs = _checked_many(batch)
        if docs is not None:
            out += docs
            continue
        for text in batch:
            try:
                out.append(loads_strict_text(text))
            except JSONProblem as exc:
                out.append(exc)
    return out


def loads_strict_lines(data: bytes) -> list[Any]:
    """
    Parse JSON Lines (one document per non-empty line) from `data`, held whole; `iter_strict_lines` read in one piece.

    Returns the list of documents. Raises `JSONProblem` with `line` set for
    the first bad line (a blank line is bad too, except the empty one after
    a final newline); bytes that are not UTF-8, or a byte order mark at the
    start, refuse the whole file (`line` None). No line limit applies: the
    bytes are already in memory.
    """
    out: list[Any] = []
    first = None
    for _number, document in iter_strict_lines((data,), line_limit=max(len(data), 1)):
        if type(document) is not JSONProblem:
            out.append(document)
        elif first is None:
            first = document
    if first is not None:  # raised after the whole file was read: bytes that are not UTF-8 anywhere win, as they refuse the file
        raise first
    return out


#: The longest line `iter_strict_lines` reads (bytes, newline excluded); a longer line is a `line-too-long` problem and
#: is skipped without being held, so memory stays bounded by this and `_CHUNK` whatever the file holds.
LINE_LIMIT = 16 << 20
#: Bytes read from a JSON Lines file at a time by `iter_strict_lines`.
_CHUNK = 1 << 20
_BOM = "\ufeff".encode("utf-8")


def iter_strict_lines(chunks: Iterator[bytes], *, line_limit: int = LINE_LIMIT) -> Iterator[tuple[int, Any]]:
    """
    Yield `(line number, document)` for each line of JSON Lines read from `chunks` (bytes in any split), as a stream.

    The lines of `iter_strict_batches`, one at a time.
    """
    return chain.from_iterable(iter_strict_batches(chunks, line_limit=line_limit))


def iter_strict_batches(chunks: Iterator[bytes], *, line_limit: int = LINE_LIMIT,
                        vouch: Callable[[int, list[str]], bool] | None = None) -> Iterator[list[tuple[int, Any]] | range]:
    """
    Yield lists of `(line number, document)`, consecutive lines of JSON Lines read from `chunks` (bytes in any split), as a stream.

    Each line is read as `loads_strict_text` reads it (in batches of at most
    `_BATCH` lines through `loads_strict_each`; a list holds one batch, in
    line order, its numbers consecutive); a line that is not strict
    JSON yields its `JSONProblem` (with `line` set) in place of a document,
    and reading goes on with the next line. A blank line is a problem
    (`invalid-json`), except the empty one after a final newline; a line
    longer than `line_limit` bytes is a problem `line-too-long` (a list of
    its own) and its bytes
    are dropped as they arrive (never held whole). Raises `JSONProblem`
    (`line` None) for what refuses the whole file, as `loads_strict_lines`
    does: a byte order mark at the start, bytes that are not UTF-8 (with
    their offset in the file). Memory: one chunk, one batch and the line
    being read, at most `line_limit` bytes.

    `vouch`, when given, is first offered each batch of lines none of which
    is longer than `line_limit`: `vouch(first, texts)` (the 0-based index of
    the first line, the lines' texts without their newline) returns True only
    when it took care of every line itself (each is strict JSON that its
    reader accepts: a pre-filter, e.g. `loads_typed_each`); that batch is
    then yielded as the `range` of its line numbers, nothing parsed here.
    On False the batch is read as above.
    """
    chunks = iter(chunks)
    head = b""
    for chunk in chunks:  # the first three bytes, to refuse a byte order mark however the bytes were split
        head += chunk
        if len(head) >= len(_BOM):
            break
    if head.startswith(_BOM):
        raise JSONProblem("invalid-json", "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)")
    carry = b""
    offset = 0  # file offset of carry[0]
    number = 0  # lines read so far
    skipping = False  # inside a line longer than the limit: its bytes are dropped up to its newline
    for chunk in chain((head,), chunks):
        if skipping:
            at = chunk.find(b"\n")
            if at == -1:
                offset += len(chunk)
                continue
            skipping = False
            offset += at + 1
            chunk = chunk[at + 1:]
        data = carry + chunk if carry else chunk
        end = data.rfind(b"\n")
        if end != -1:
            whole, data = data[:end], data[end + 1:]
            yield from _strict_batch(whole, offset, number, line_limit, vouch)
            number += whole.count(b"\n") + 1
            offset += end + 1
        if len(data) > line_limit:
            number += 1
            yield [(number, JSONProblem("line-too-long", f"line {number} is longer than {line_limit} bytes, the limit for one line", line=number))]
            skipping, data, offset = True, b"", offset + len(data)
        carry = data
    if carry:
        yield from _strict_batch(carry, offset, number, line_limit, vouch)


def _strict_batch(data: bytes, offset: int, number: int, line_limit: int,
                  vouch: Callable[[int, list[str]], bool] | None = None) -> Iterator[list[tuple[int, Any]] | range]:
    """
    Yield lists of `(line number, document or JSONProblem)` (`_BATCH` lines a list) for the complete lines `data` (no final newline), its first line being `number + 1` at file `offset`.

    A batch `vouch` takes care of (see `iter_strict_batches`) is yielded as the `range` of its line numbers instead.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = number + data.count(_NEWLINE, 0, exc.start) + 1
        raise JSONProblem("not-utf8", f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {offset + exc.start} (line {line})") from None
    lines = text.split("\n")
    for first in range(0, len(lines), _BATCH):
        batch = lines[first:first + _BATCH]
        if vouch is not None and max(map(len, batch)) <= line_limit // 4 and vouch(number + first, batch):  # 4 bytes a character at most
            yield range(number + first + 1, number + first + 1 + len(batch))
            continue
        out: list[tuple[int, Any]] = []
        for n, (line, document) in enumerate(zip(batch, loads_strict_each(batch)), start=number + first + 1):
            if len(line) > line_limit // 4 and len(line.encode("utf-8")) > line_limit:
                document = JSONProblem("line-too-long", f"line {n} is longer than {line_limit} bytes, the limit for one line", line=n)
            elif not line.strip():
                document = JSONProblem("invalid-json", f"line {n} is blank", line=n)
            elif type(document) is JSONProblem:  # a line is one line of text: its column, not "line 1 column"
                document = JSONProblem(document.code, f"line {n}: {str(document).replace(' at line 1 column ', ' at column ')}", line=n)
            out.append((n, document))
        yield out


def file_chunks(handle: Any, size: int = _CHUNK) -> Iterator[bytes]:
    """Yield the bytes of the open binary file `handle` in pieces of at most `size` bytes, to its end."""
    while chunk := handle.read(size):
        yield chunk


#: The first digit of an array index other than "0" (RFC 6901 section 4: `array-index = %x30 / ( %x31-39 *(%x30-39) )`).
_NONZERO = frozenset("123456789")


def array_index(token: str) -> int | None:
    """Return the array index a JSON Pointer reference token names ("0", or ASCII digits without a leading zero: RFC 6901 section 4), else None ("01", "²", "१", "-")."""
    if token == "0" or (token[:1] in _NONZERO and token.isascii() and token.isdigit()):
        return int(token)
    return None


def json_pointer(parts: Any) -> str:
    """Return the RFC 6901 JSON Pointer for a sequence of keys and indexes (`~` -> `~0`, `/` -> `~1`; section 3)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


_DECIMAL_REPR = re.compile(r"Decimal\('([^']*)'\)")


def schema_message(error: Any) -> str:
    """Return a jsonschema `ValidationError`'s message with `Decimal('396.30')` shown as `396.30`, as the document states it."""
    return _DECIMAL_REPR.sub(r"\1", str(error.message))


def unparsed_files(root: Path, limit: int = 20, max_bytes: int = 64 * 2**20) -> list[str]:
    """
    Return one line per `*.json` file under directory `root` (three levels deep) that strict JSON does not load ("a/results.json: ...").

    For error messages only (a directory no reader recognises): a broken
    export should be named as broken, not as an unknown format. At most
    `limit` files of at most `max_bytes` each are read, in name order; files
    that cannot be read are named with the OS error. Never raises.
    """
    found: list[str] = []
    names: list[Path] = []
    for top, dirs, files in os.walk(root):  # never follows symlinked directories
        depth = len(Path(top).relative_to(root).parts)
        dirs[:] = sorted(dirs) if depth < 3 else []
        names += [Path(top) / f for f in sorted(files) if f.lower().endswith(".json") and not os.path.islink(Path(top) / f)]
        if len(names) >= limit:
            break
    for path in names[:limit]:
        try:
            if path.stat().st_size <= max_bytes:
                loads_strict(path.read_bytes())
        except JSONProblem as exc:
            found.append(f"{path.relative_to(root).as_posix()}: {exc}")
        except OSError as exc:
            found.append(f"{path.relative_to(root).as_posix()}: cannot be read ({exc.strerror})")
    return found
