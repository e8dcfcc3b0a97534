"""
Stated quantities: every number a claim text states, with its unit, its structure and the words that give it meaning.

A claim text is prose or Markdown: a bundle's `claims.json` headline, notes
and claim texts, its README or RESULTS file, or a pull-request body
(`verify --claims-text FILE BUNDLE`). `extract(text, source)` returns one
`Quantity` per number, in reading order. Markdown structure comes from
`verifier.readers.markdown` (pyromark: CommonMark plus GFM tables): numbers in code spans, fenced
(except those github.com renders: ```math, ```mermaid) or indented code blocks, HTML comments, tags and attributes and link targets are
not claims; numbers in link texts, headings, list items, table cells (header
cells and captions included) and the text a raw HTML block renders (`<div>`, `<details>`, `<summary>`) are. Bare URLs in prose are
masked before numbers are read. Units are recognised through the one unit
registry, `verifier.model.units`; what a number *means* ("% lower", "x faster",
"p95", "of 26 requests") is recorded here as words and phrase keys, and
bound to the evidence by `verifier.checks.statements` (phrase table and
formulas: `docs/claims.md`).

Numbers that are identifiers rather than quantities are marked
`informational` with the rule that matched (`date`, `time-of-day`, `commit`,
`reference`, `version`, `identifier`, `year`); they are still returned, so a
report can list every number of the text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from verifier.model import units
from verifier.readers.tree import MAX_PAGE_BYTES

__all__ = ["MAX_QUANTITIES", "MAX_TEXT_BYTES", "ClaimTextError", "Quantity", "extract", "read_claim_text"]

#: A claim text stating more numbers than this is refused (CLI) or left UNVERIFIED (bundle files): no reviewer reads
#: that many claims, and binding each costs a pass over the evidence.
MAX_QUANTITIES = 2000
#: The most bytes a claim text (README/RESULTS, `--claims-text`) may hold: the bound of a profile's Markdown or HTML claim document too.
MAX_TEXT_BYTES = MAX_PAGE_BYTES


class ClaimTextError(ValueError):
    """Raised by `read_claim_text` for a text that is not UTF-8, is empty, or states no number (one-line message naming the file)."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """
    Represents one number stated in a claim text.

    `value` is the number as a `Decimal` with its stated places (`73.45`),
    `number` its digits as written, `unit` a unit string the registry parses
    (`s`, `ms`, `%`, `x`, `tokens/s`) or None when none is written. `phrase`
    is the key of the meaning phrase around it (`pct-less`, `pct-faster`,
    `pct-more`, `pct-slower`, `x-faster`, `x-as-fast`, `x-less`, `x-slower`,
    `speedup`) or None. `before`/`after` are the lower-cased words of its own
    clause before and after it; `noun` the words right after it (count
    nouns), `tail` the rest of its clause, other numbers included, `start`
    its offset in `sentence`. `role` is `from` or `to` when it is one end of an arrow or
    "from A to B" pair, `partner` the index of the other end. `sentence` is
    the sentence it stands in, `source` the text's name, `line`/`column` its
    1-based position. `informational` names the identifier rule it matched,
    or None when it is a quantity to bind.
    """

    value: Decimal
    number: str
    unit: str | None
    phrase: str | None
    before: str
    after: str
    noun: str
    sentence: str
    source: str
    line: int
    column: int
    context: str = ""
    role: str | None = None
    partner: int | None = None
    informational: str | None = None
    index: int = 0
    tail: str = ""
    start: int = 0

    @property
    def stated(self) -> str:
        """Return the number with its unit as a reader would quote it (`73.45 %`, `3.77 x`, `20`)."""
        return f"{self.number} {self.unit}" if self.unit else self.number

    @property
    def words(self) -> str:
        """Return the lower-cased local words around the number (table context first)."""
        return f"{self.context} {self.before} {self.after}".lower()

    def where(self) -> str:
        """Return `source:line:column`."""
        return f"{self.source}:{self.line}:{self.column}"


@dataclass
class _Segment:
    text: str
    line: int
    context: str = ""
    starts: list[int] = field(default_factory=list)  # offsets in text where source lines 2, 3, ... begin


def _markdown_tokens(text: str) -> list[Any]:
    """Return the block tokens of Markdown `text` (`verifier.readers.markdown.tokens`: CommonMark with GFM tables), imported on first use."""
    from verifier.readers.markdown import tokens

    return tokens(text)

_URL = re.compile(r"(?:https?|ftp)://[^\s<>()]*[^\s<>().,;:!?'\"]|www\.[^\s<>()]*[^\s<>().,;:!?'\"]", re.IGNORECASE)
_DATE = re.compile(r"(?<![\w.])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?(?![\w])")
_TIME = re.compile(r"(?<![\w.:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){2,}(?![\w.])|(?<![\w.])v\d+(?:\.\d+)?(?![\w.])")
_REFERENCE = re.compile(r"(?:#|\b(?:pr|pull|issue|issues|prs)\s+#?)(\d+)\b", re.IGNORECASE)
_WORD_NUM = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]*\d[A-Za-z0-9_]*")  # anchored at a word start: linear, no rescans
#: A number: optional sign, digits with optional thousands commas, optional decimals, optional exponent (`9.0e1`,
#: `1.0812E+2`: read as its value, never as an identifier); never glued to a word on its left.
_NUMBER = re.compile(r"(?<![\w.#])(?P<sign>[-+\u2212])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+(?![\w.]\d))?)(?![.,]\d)")
#: A word `_WORD_NUM` finds that is a number in exponent notation, with a unit glued to it or not (`1e2`, `1e2s`).
_EXPONENT_WORD = re.compile(r"\d+[eE]\d+(?P<unit>[A-Za-z\u00b5\u03bc]*)")
_ARROW = re.compile(r"^\s*(?:->|\u2192|\u27f6|=>|\u21d2|to)\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"'*_`#\[])|\n{2,}")

#: Phrase patterns: (key, required unit kind, pattern on the lower-cased text right after the number and unit).
_AFTER = [
    ("pct-faster", "%", r"(?:\w+\s+)?(?:faster|quicker)\b"),
    ("pct-less", "%", r"(?:\w+\s+)?(?:lower|less|shorter|smaller|fewer|reduction|decrease|drop|cut|saving|savings)\b"),
    ("pct-slower", "%", r"(?:\w+\s+)?(?:slower|longer)\b"),
    ("pct-more", "%", r"(?:\w+\s+)?(?:higher|more|increase|larger|greater|bigger|growth|rise)\b"),
    ("x-as-fast", "x", r"as\s+fast\b"),
    ("x-faster", "x", r"(?:\w+\s+)?(?:faster|quicker)\b"),
    ("x-slower", "x", r"(?:\w+\s+)?(?:slower|longer)\b"),
    ("x-less", "x", r"(?:\w+\s+)?(?:lower|less|shorter|smaller|reduction)\b"),
    ("speedup", "x", r"(?:[\w-]+\s+)?(?:speedup|speed-up|speed\s+up|improvement|throughput\s+gain)\b"),
]
_BEFORE = [
    ("pct-less", "%", r"\b(?:reduc\w*|cut\w*|lower\w*|decreas\w*|drop\w*|shrink\w*|shrank|sav\w*|shav\w*|trim\w*)\b(?:\s+[\w-]+){0,4}?\s+by\s*(?:about\s+|around\s+|~)?$"),
    ("pct-less", "%", r"\b(?:reduction|decrease|drop|saving|savings|improvement)\s+(?:of|by)\s*$"),
    ("pct-more", "%", r"\b(?:ris\w*|rose|grow\w*|grew|increas\w*|goes\s+up|went\s+up|climb\w*)\b(?:\s+by)?\s*(?:about\s+|around\s+|~)?$"),
    ("pct-faster", "%", r"\bfaster\s+by\s*$"),
    ("speedup", "x", r"\b(?:speedup|speed-up|speed\s+up)\s*(?:of|is|was|=|:)?\s*(?:about\s+|around\s+|~)?$"),
]
_AFTER_RE = [(k, u, re.compile(r"^\s*" + p)) for k, u, p in _AFTER]
_BEFORE_RE = [(k, u, re.compile(p)) for k, u, p in _BEFORE]

#: Written after a number, these name its unit (checked before asking the registry).
_UNIT_WORDS = {"%": "%", "percent": "%", "pct": "%", "x": "x", "\u00d7": "x", "times": "x", "fold": "x",
               "ms": "ms", "s": "s", "sec": "s", "secs": "s", "seconds": "s", "second": "s"}
_RATE_TEXT = re.compile(r"^\s*(?P<u>[A-Za-z\u00b5\u03bc%\u00d7]+(?:\s*/\s*[A-Za-z]+|\s+per\s+[A-Za-z]+)?)")


def read_claim_text(data: bytes, name: str) -> str:
    """
    Return `data` decoded as a claim text, or raise `ClaimTextError` with a one-line message naming `name`.

    Refused: bytes that are not UTF-8 (the offset of the first bad byte is
    named), an empty or blank text, and a text in which no number is stated
    (outside code and URLs), since a claim check over it would check nothing,
    and one stating more than `MAX_QUANTITIES` numbers.
    A leading UTF-8 byte order mark is dropped.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClaimTextError(f"{name}: claim text is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ClaimTextError(f"{name}: claim text is empty")
    if "\x00" in text:
        raise ClaimTextError(f"{name}: claim text holds a NUL character, so it is not text")
    found = extract(text, name, limit=MAX_QUANTITIES)
    if len(found) > MAX_QUANTITIES:
        raise ClaimTextError(f"{name}: claim text states more than the {MAX_QUANTITIES} numbers a claim text may state")
    if not any(q.informational is None for q in found):
        raise ClaimTextError(f"{name}: claim text states no number outside code spans, URLs and identifiers, so there is nothing to check")
    return text


def _segments(text: str, cache: Any = None) -> tuple[list[_Segment], bool]:
    """
    Return the prose and table-cell segments of Markdown `text` (code, HTML and link targets left out), and whether an earlier run's parse was reused.

    With a warm re-verify `cache` (`verifier.cache.warm`), the segments of a text
    are remembered by its sha256 (with the verifier code and installed
    packages, `verifier.cache.warm.result_key`), so an unchanged README is not
    parsed again.
    """
    key = None
    if cache is not None:
        import hashlib

        from verifier.cache.warm import result_key

        key = result_key("markdown-segments", hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
        found = cache.result(key)
        if found is not None:
            try:
                return [_Segment(str(t), int(n), str(c), [int(x) for x in starts]) for t, n, c, starts in found[0]], found[1]
            except (TypeError, ValueError):
                pass  # a foreign entry: parse again
    out = _parse_segments(text)
    if key is not None:
        cache.store_result(key, [[seg.text, seg.line, seg.context, seg.starts] for seg in out])
    return out, False


def _parse_segments(text: str) -> list[_Segment]:
    from verifier.readers.markdown import rendered_fence

    tokens = _markdown_tokens(text)
    out: list[_Segment] = []
    header: list[str] = []
    row: list[tuple[str, int]] = []
    in_head = False
    for i, tok in enumerate(tokens):
        if tok.type == "thead_open":
            in_head, header = True, []
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and not in_head and row:
            label = row[0][0]
            for col, (value, line) in enumerate(row):
                head = header[col] if col < len(header) else ""
                context = f"{head}" if col == 0 else f"{label} | {head}"
                out.append(_Segment(value, line, context=context))
        elif tok.type == "html_block":
            out.extend(_html_segments(tok.content, tok.map[0] + 1))
        elif rendered_fence(tok):  # ```math, ```mermaid: github.com shows what they state; the fence line is not text
            code = tok.content
            out.append(_Segment(code, tok.map[0] + 2, starts=[m.end() for m in re.finditer("\n", code.rstrip("\n"))]))
        elif tok.type == "inline":
            seg = _inline(tok)
            parent = tokens[i - 1].type if i else ""
            if parent == "th_open":
                header.append(seg.text)
                out.append(_Segment(seg.text, seg.line))  # a header cell is shown: its numbers are stated (it is no row's context)
            elif parent == "td_open":
                row.append((seg.text, seg.line))
            else:
                out.append(seg)
    return out


def _html_segments(html: str, first_line: int) -> list[_Segment]:
    """
    Return the text a raw HTML block renders (`<div>`, `<details>`, `<summary>`, `<p>` ...) as segments: one per run of prose, one per table cell.

    GitHub and most Markdown renderers show the text of such blocks, so a
    number in them is a claim; a block the HTML reader refuses is one
    segment of its source, tags included (a number is never dropped). The block is read by the project's one HTML
    reader, `verifier.readers.html.html_document` (inline elements join the
    words around them; comments, attributes, `<script>`, `<style>` and
    `<template>` are not stated text); table cells carry their header and
    row label as context, as Markdown table cells do.
    """
    from verifier.readers.grammars import GrammarError
    from verifier.readers.html import html_document

    try:
        doc = html_document(html.encode("utf-8", "replace"))
    except GrammarError:  # markup `html.parser` refuses (`<![ ]]>`): every number of the block's source counts as stated
        return [_Segment(html, first_line, starts=[m.end() for m in re.finditer("\n", html.rstrip("\n"))])]
    found = [_Segment(item["text"], first_line + item["#line"] - 1) for item in doc["prose"] if item["text"].strip()]
    for name, rows in doc["tables"].items():
        found.extend(_Segment(text, first_line) for text in [doc["captions"].get(name, ""), *doc["headers"][name]] if text.strip())
        for row in rows:
            cells = [(head, value) for head, value in row.items() if head != "#line"]  # where the row is; a `#` column is a column
            label = str(cells[0][1]) if cells else ""
            line = first_line + int(row.get("#line", 1)) - 1
            for col, (head, value) in enumerate(cells):
                found.append(_Segment(str(value), line, context=head if col == 0 else f"{label} | {head}"))
    return found


def _inline(tok) -> _Segment:  # type: ignore[no-untyped-def]
    seg = _Segment("", tok.map[0] + 1)  # every inline token has its block's line (`verifier.readers.markdown`)
    parts: list[str] = []
    length = 0
    for child in tok.children or []:
        if child.type == "text":
            piece = child.content
        elif child.type in ("softbreak", "hardbreak"):
            piece = "\n"
            seg.starts.append(length + 1)
        elif child.type == "code_inline":
            piece = "\u2039code\u203a"  # a code span is not a claim, and must not join the words around it
        elif child.type == "html_inline" and parts and parts[-1][-1:].strip():
            piece = " "  # `5<br>6` states two numbers, never 56 (an extra blank before a blank changes no reading)
        else:
            continue  # a tag after a blank; tokens verifier.readers.markdown never gives (markdown-it's em_open, link_open): no piece, so the piece before stays the last
        parts.append(piece)
        length += len(piece)
    seg.text = "".join(parts)
    return seg


def _mask_urls(text: str) -> str:
    return _URL.sub(lambda m: "\u2039url\u203a".ljust(len(m.group()), "\u00b7"), text)


def _split_sentences(text: str) -> list[tuple[int, str]]:
    """Return `(offset, sentence)` for each sentence of `text` with words, one longer than `MAX_SENTENCE_CHARS` in pieces (`_pieces`)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(s + at, piece) for s, t in out if t.strip() for at, piece in _pieces(t) if piece.strip()]


#: A sentence longer than this is read as pieces of at most this many characters, cut at whitespace: no reviewer
#: writes such a sentence, and each number's meaning is read from its sentence (every word of it, per number), so an
#: unbounded one (a hostile headline of megabytes with no full stop) would cost its length for every number in it.
MAX_SENTENCE_CHARS = 4096
_SPACE = re.compile(r"\s")


def _pieces(sentence: str) -> list[tuple[int, str]]:
    """Return `(offset, piece)` of `sentence` cut at the last whitespace before each `MAX_SENTENCE_CHARS` (a longer word is never cut)."""
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return [(0, sentence)]
    out, start = [], 0
    while len(sentence) - start > MAX_SENTENCE_CHARS:
        stop = start + MAX_SENTENCE_CHARS
        at = max(sentence.rfind(" ", start + 1, stop), sentence.rfind("\n", start + 1, stop), sentence.rfind("\t", start + 1, stop))
        if at < 0:
            m = _SPACE.search(sentence, stop)  # one word longer than a piece: kept whole, so no number inside it is split
            at = m.start() if m else len(sentence)
        out.append((start, sentence[start:at]))
        start = at
    out.append((start, sentence[start:]))
    return out


def _unit_after(rest: str) -> tuple[str | None, int]:
    """Return `(unit, length consumed)` for the text right after a number: `%`, `x`, `ms`, `tokens/s`, `samples per second`."""
    m = re.match(r"^\s?(%|\u00d7|x(?![a-z]))", rest, re.IGNORECASE)
    if m and (m.group(1) != "x" and m.group(1) != "X" or re.match(r"^\s?[xX](?:\W|$)", rest)):
        return _UNIT_WORDS.get(m.group(1).lower(), m.group(1)), m.end()
    m = re.match(r"^-(second|seconds|s|ms|minute|hour)\b", rest)
    if m:
        return units.parse(m.group(1)).symbol, m.end()
    m = _RATE_TEXT.match(rest)
    if not m:
        return None, 0
    candidate = m.group("u")
    for text in (candidate, candidate.split()[0] if " " in candidate and " per " not in candidate else None):
        if not text:
            continue
        word = text.strip()
        key = word.lower() if word.lower() in _UNIT_WORDS else word
        if key in _UNIT_WORDS:
            return _UNIT_WORDS[key], m.start("u") + len(word)
        if units.known(word) and word.lower() not in ("b", "item", "items", "step", "steps", "count", "score", "ratio", "1"):
            return word, m.start("u") + len(word)
    return None, 0


def _informational(sentence: str, start: int, end: int, spans: list[tuple[int, int, str]]) -> tuple[str | None, tuple[int, int] | None]:
    """
    Return `(rule, (start, end))` of an identifier span holding the number at `start:end`, or `(None, None)`.

    `spans` must be sorted (`_rule_spans` sorts them). Spans are single
    words, dates or references, so only the eight starting last at or
    before the number can hold it: a bisection, not a scan. The widest
    holding span wins.
    """
    i = bisect.bisect_right(spans, (start, float("inf"), ""))
    holding = [(s, -e, rule) for s, e, rule in spans[max(0, i - 8):i] if s <= start and end <= e]
    if not holding:
        return None, None
    s, e, rule = min(holding)  # the widest span (a date over the hyphenated name inside it)
    return rule, (s, -e)


def _header_unit(context: str) -> str | None:
    """Return the unit a table column header states in parentheses or brackets (`Mean E2E (s)` -> `s`), or None."""
    parts = context.split(" | ")
    for head in (parts[-1], parts[0]):  # the column header first, then the row label (`Mean E2E (ms)` rows)
        for m in re.finditer(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]", head):
            word = m.group(1)
            if word.lower() in _UNIT_WORDS:
                return _UNIT_WORDS[word.lower()]
            if units.known(word):
                return word
    return None


def identifier_spans(sentence: str) -> list[tuple[int, int, str]]:
    """
    Return `(start, end, rule)` of every identifier span of `sentence`, sorted: the rules `date`, `time-of-day`, `version`, `reference`, `commit`, `identifier`, `percentile-name`.

    A number inside such a span is an identifier, not a quantity (what marks a
    `Quantity` `informational`); a profile's `informational` classes
    (`verifier.readers.informational`) are these rules by name.
    """
    return _rule_spans(sentence)


def _rule_spans(sentence: str) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    for rule, rx in (("date", _DATE), ("time-of-day", _TIME), ("version", _VERSION)):
        spans += [(m.start(), m.end(), rule) for m in rx.finditer(sentence)]
    spans += [(m.start(1), m.end(1), "reference") for m in _REFERENCE.finditer(sentence)]
    for m in _WORD_NUM.finditer(sentence):
        word = m.group()
        e = _EXPONENT_WORD.fullmatch(word)
        if e and (not e["unit"] or _is_number_with_unit("1" + e["unit"])) and (
                len(word) < 7 or e["unit"] or word[1] in "eE" or _unit_after(sentence[m.end():m.end() + 64])[0]):
            continue  # `1e2`, `1e2s`, `1e999999 s`: a number in exponent notation, not an identifier (nor a commit)
        if re.fullmatch(r"[0-9a-f]{7,64}", word) and re.search(r"[a-f]", word):
            spans.append((m.start(), m.end(), "commit"))  # `1234e56` too, with no unit after it: a short commit id
        elif re.search(r"[A-Za-z_]", word) and not _is_number_with_unit(word) and not re.fullmatch(r"[pP]\d+", word):
            spans.append((m.start(), m.end(), "identifier"))
        elif re.fullmatch(r"[pP]\d+", word):
            spans.append((m.start(), m.end(), "percentile-name"))
    # a number glued to a word by a hyphen on its left (ref2va-5s, gpt-4, gpt-4e2) belongs to that name
    spans += [(m.start(1), m.end(1), "identifier") for m in re.finditer(r"[A-Za-z0-9]-(\d+(?:\.\d+)?[A-Za-z0-9]*)", sentence)
              if re.search(r"[A-Za-z]", sentence[max(0, m.start() - 12):m.start() + 1])]
    return sorted(spans)


def _value(literal: str) -> Decimal:
    """
    Return the `Decimal` that `_NUMBER`'s `literal` writes, an exponent of 1000 or more (in magnitude) held at +-`_MAX_EXPONENT`.

    Such a number is outside every range evidence holds (binary64 ends near
    10**308), so holding its exponent changes no verdict: it is compared and
    fails, where `Decimal` arithmetic would overflow (`1e999999999`) or
    `Decimal` itself refuse it (`0e99999999999999999999`, which is 0).
    """
    mantissa, e, exponent = literal.lower().partition("e")
    if not e or len(exponent.lstrip("+-").lstrip("0")) < 4:
        return Decimal(literal)
    sign, digits, places = Decimal(mantissa).as_tuple()
    bound = -_MAX_EXPONENT if exponent.startswith("-") else _MAX_EXPONENT
    return Decimal((sign, digits, bound + int(places)))


#: The exponent `_value` holds a huge one at: far outside any measured quantity, well inside `Decimal` arithmetic's limits.
_MAX_EXPONENT = 1000


def _is_number_with_unit(word: str) -> bool:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z\u00b5\u03bc]+)", word)
    if not m:
        return False
    tail = m.group(2)
    return tail.lower() in _UNIT_WORDS or (units.known(tail) and tail.lower() not in ("b",))


def _phrase(unit: str | None, before: str, after: str) -> str | None:
    kind = "%" if unit == "%" else ("x" if unit == "x" else None)
    if kind is None:
        return None
    for key, need, rx in _AFTER_RE:
        if need == kind and rx.match(after):
            return key
    for key, need, rx in _BEFORE_RE:
        if need == kind and rx.search(before):
            return key
    return None


def extract(text: str, source: str, cache: Any = None, reused: set[str] | None = None, limit: int | None = None) -> list[Quantity]:
    """
    Return every number stated in Markdown or plain `text`, as `Quantity` objects in reading order.

    With `limit`, reading stops once more than `limit` numbers are found:
    the first `limit + 1` are returned (a caller refusing a text that states
    more than `MAX_QUANTITIES` then pays for `MAX_QUANTITIES + 1` numbers, not
    for every number of a hostile megabyte).

    `source` names the text in positions (`README.md`, `claims.json#/headline`).
    Arrow pairs ("407.27 -> 108.12 s", "407.27 s → 108.12 s", "from 407.27 to
    108.12 s") are linked by `role`/`partner`, and a unit written only after
    the second end applies to both. Never raises on any `str`. With a warm
    re-verify `cache`, the Markdown parse may come from an earlier run
    (`_segments`); then `source` is added to `reused`.
    """
    lines = text.splitlines()
    found: list[Quantity] = []
    segments, earlier = _segments(text, cache)
    if earlier and reused is not None:
        reused.add(source)
    for seg in segments:
        body = _mask_urls(seg.text)
        for offset, sentence in _split_sentences(body):
            spans = _rule_spans(sentence)
            matches = list(_NUMBER.finditer(sentence))
            raw: list[dict] = []
            taken: tuple[int, int] | None = None
            for m in matches:
                if limit is not None and len(found) + len(raw) > limit:
                    break  # enough to know the text states too many
                value = _value(m.group("num").replace(",", ""))
                if m.group("sign") in ("-", "\u2212"):
                    value = -value
                unit, used = _unit_after(sentence[m.end():m.end() + 64])
                rule, span = _informational(sentence, m.start("num"), m.end("num"), spans)
                if rule is not None and span == taken:
                    continue  # one identifier (a date, a commit id) is one informational number, not three
                taken = span if rule is not None else None
                if rule is not None:
                    unit = None
                if rule is None and unit is None and seg.context:
                    unit = _header_unit(seg.context)
                if rule is None and unit is None and re.match(r"^[A-Za-z_]", sentence[m.end():m.end() + 1]):
                    rule = "identifier"  # digits glued to letters that are no unit: 910B1, 3rd
                raw.append({"m": m, "value": value, "unit": unit, "end": m.end() + used, "rule": rule,
                            "number": sentence[span[0]:span[1]] if span else ("-" if value < 0 else "") + m.group("num")})
            for j, r in enumerate(raw):
                prev_end = raw[j - 1]["end"] if j else 0
                next_start = raw[j + 1]["m"].start() if j + 1 < len(raw) else len(sentence)
                r["before"] = sentence[prev_end:r["m"].start()]
                r["after"] = sentence[r["end"]:next_start]
            _pair(raw, sentence)
            norm, norm_at = _normalised(sentence)
            clause_end = re.compile(r"[,;]")
            for j, r in enumerate(raw):
                m = r["m"]
                absolute = offset + m.start()
                line = seg.line + bisect.bisect_right(seg.starts, absolute)
                stop = clause_end.search(sentence, r["end"], r["end"] + 240)  # a clause tail is read up to 240 characters
                column = _column(lines, line, m.group("num"), seg.text, absolute, seg.starts)
                before = re.sub(r"\s+", " ", r["before"]).lower()
                after = re.sub(r"\s+", " ", r["after"]).lower()
                noun = " ".join(re.findall(r"[a-z][a-z-]*", after.split(",")[0].split(";")[0])[:4])
                found.append(Quantity(
                    value=r["value"], number=r["number"], unit=r["unit"],
                    phrase=_phrase(r["unit"], before, after) if r["rule"] is None else None,
                    before=before, after=after, noun=noun, sentence=norm, source=source,
                    line=line, column=column, context=seg.context, role=r.get("role"),
                    partner=(len(found) - j + r["partner"]) if r.get("partner") is not None else None,
                    informational=r["rule"], index=len(found),
                    tail=" ".join(sentence[r["end"]:stop.start() if stop else r["end"] + 240].lower().split()),
                    start=norm_at[m.start()],
                ))
            if limit is not None and len(found) > limit:
                return found
    return found


def _normalised(sentence: str) -> tuple[str, list[int]]:
    """Return the sentence with runs of whitespace as one space (trimmed), and for each original offset its offset there."""
    out: list[str] = []
    at: list[int] = []
    pending = False
    for c in sentence:
        if c.isspace():
            pending = bool(out)
            at.append(len(out) + (1 if pending else 0))
            continue
        if pending:
            out.append(" ")
            pending = False
        at.append(len(out))
        out.append(c)
    at.append(len(out))
    return "".join(out), at


def _pair(raw: list[dict], sentence: str) -> None:
    """Link arrow and from/to pairs among the numbers of one sentence; share the unit of the second end."""
    for j in range(len(raw) - 1):
        a, b = raw[j], raw[j + 1]
        if a["rule"] or b["rule"] or a.get("role") or b.get("role"):
            continue
        between = sentence[a["end"]:b["m"].start()]
        arrow = _ARROW.match(between)
        if not arrow:
            continue
        if between.strip().lower() == "to" and not re.search(r"\bfrom\s*$", a["before"].lower()):
            continue
        if a["unit"] and b["unit"] and units.known(a["unit"]) and units.known(b["unit"]):
            if not units.parse(a["unit"]).compatible(units.parse(b["unit"])):
                continue
        if a["unit"] is None and b["unit"] is not None:
            a["unit"] = b["unit"]
        a["role"], b["role"] = "from", "to"
        a["partner"], b["partner"] = j + 1, j


def _column(lines: list[str], line: int, number: str, seg_text: str, absolute: int, starts: list[int]) -> int:
    """Return the 1-based column of `number` on source `line` (its first occurrence there at or after its place in the segment)."""
    if not 1 <= line <= len(lines):
        return 1
    line_start = max([0] + [s for s in starts if s <= absolute])
    within = absolute - line_start
    src = lines[line - 1]
    alone = re.compile(rf"(?<![\w.]){re.escape(number)}(?!\d)")  # not the "2" of "A2"
    m = alone.search(src, max(0, within - 8)) or alone.search(src)
    if m is None:
        hit = src.find(number, max(0, within - 8))
        return hit + 1 if hit >= 0 else 1
    return m.start() + 1
