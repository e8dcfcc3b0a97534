"""
A profile's informational pattern set: the stated numbers that are identifiers or "no value" texts, declared once for every claim document.

A profile's top-level `informational` section names pattern classes of one
closed vocabulary (`CLASSES`) and regexes of its own (RE2 syntax,
`google-re2`: matched in time linear in the text, no backreferences or
lookarounds). A number a claim document states is informational when a match
of one of them, searched in the text the number is written in (the string or
table cell; a Markdown, HTML or rST item's `text`; a JSON number's own
digits), covers the number: where a reader states them, `llama-3-8b`'s 3
and 8 are held as an `identifier` and `vLLM 0.6.3`'s 0.6.3 as a `version`
(the Markdown prose, JSON and CSV readers state neither), the cell `N/A (OOM at 64)` holds 64
as `not-applicable` (and a claim instance whose place writes such a text
states no number, as one of the `no_number` texts: `not_applicable`).
`claims.coverage` counts such a number declared
informational (never compared), after the checks and the pointer-pattern
declarations of `claim_documents`, and before `unchecked-claim`.

The classes (except `not-applicable`) are the identifier rules of the claim
text reader (`verifier.readers.claimtext.identifier_spans`), so a README's version or
commit is informational the same way in a native bundle and in a profile's
claim document. Bounds: at most `MAX_REGEXES` regexes of at most
`MAX_REGEX_CHARS` characters, each compiled at load (`compile_patterns`
raises `ValueError` with the JSON Pointer of a bad one), each search linear
in a text that is itself bounded by the claim document's size limit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from verifier.readers.pointers import dim_text, resolve

__all__ = ["CLASSES", "MAX_REGEXES", "MAX_REGEX_CHARS", "Patterns", "compile_patterns", "informational_numbers", "not_applicable", "pattern_names", "rows_held"]

#: The closed vocabulary of pattern classes (name -> what it holds), the schema's enum (tests keep them equal).
CLASSES = {
    "not-applicable": "every number of a text that begins with a no-value word: N/A, n.a., NA, not applicable, not available, not significant, n.s., skipped, none, TBD",
    "date": "a calendar date or timestamp: 2026-09-14, 2026-09-14T10:00:00Z",
    "time-of-day": "a clock reading: 10:42, 00:00:05",
    "version": "a version: 0.6.3, v2, v1.4",
    "commit": "a hexadecimal id of 7 to 64 digits with a letter: a commit or a digest",
    "reference": "an issue or pull request number: #123, PR 45",
    "identifier": "a number inside a word or glued to one by a hyphen: llama-3-8b, sm_90, H100, ref2va-5s",
}
#: At most this many user regexes, of at most this many characters each.
MAX_REGEXES = 50
MAX_REGEX_CHARS = 200

_NOT_APPLICABLE = re.compile(r"\s*(?:n/a|n\.a\.|na|not\s+applicable|not\s+available|not\s+significant|n\.s\.|skipped|none|tbd)(?![\w/])", re.IGNORECASE)

#: One compiled pattern set: `(name, search)` pairs, `search(text)` giving the `(start, end)` spans it holds.
Patterns = tuple[tuple[str, Callable[[str], list[tuple[int, int]]]], ...]


def not_applicable(text: Any) -> bool:
    """Return whether `text` is a string that begins with a no-value word (the `not-applicable` class: "N/A (OOM at 64)", "not significant (p = 0.21)")."""
    return isinstance(text, str) and _NOT_APPLICABLE.match(text) is not None


def _not_applicable(text: str) -> list[tuple[int, int]]:
    return [(0, len(text))] if _NOT_APPLICABLE.match(text) else []


def _identifier_search(names: frozenset[str]) -> Callable[[str], list[tuple[int, int]]]:
    """Return a search giving the identifier spans (`verifier.readers.claimtext.identifier_spans`) whose rule is in `names`, except those inside a wider span of a rule not in `names` (the widest span names the rule, as the claim text reader decides: a date's `-09` is a `date`, not an `identifier`)."""
    from verifier.readers.claimtext import identifier_spans

    def search(text: str) -> list[tuple[int, int]]:
        spans = identifier_spans(text)
        wider = [(s, e) for s, e, rule in spans if rule not in names]
        return [(s, e) for s, e, rule in spans if rule in names and not any(ws <= s and e <= we and we - ws > e - s for ws, we in wider)]
    return search


def _regex_search(compiled: Any) -> Callable[[str], list[tuple[int, int]]]:
    return lambda text: [m.span() for m in compiled.finditer(text) if m.end() > m.start()]


def pattern_names(section: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Return `(profile pointer, name)` of each pattern of an `informational` section, in the order `compile_patterns` tries them (the names `informational_numbers` gives)."""
    if not section:
        return []
    classes = section.get("classes", [])
    named = sorted(set(classes) - {"not-applicable"})
    out = [("/informational/classes (not-applicable)", "not-applicable")] if "not-applicable" in classes else []
    out += [(f"/informational/classes ({', '.join(named)})", f"class {'/'.join(named)}")] if named else []
    return out + [(f"/informational/regexes/{i}", f"regex {i} ({item['reason']})") for i, item in enumerate(section.get("regexes", []))]


def compile_patterns(section: dict[str, Any] | None) -> Patterns:
    """
    Return the compiled pattern set of a profile's `informational` section (`{"classes": [...], "regexes": [{"regex", "reason"}]}`), empty for None.

    Raises `ValueError((pointer, message))` for a regex RE2 refuses (a
    backreference, a lookaround, a syntax error), too long, or beyond `MAX_REGEXES`:
    the pointer is the profile's (`/informational/regexes/2/regex`).
    """
    if not section:
        return ()
    classes = section.get("classes", [])
    out: list[tuple[str, Callable[[str], list[tuple[int, int]]]]] = [("not-applicable", _not_applicable)] if "not-applicable" in classes else []
    named = frozenset(classes) - {"not-applicable"}
    if named:
        out.append((f"class {'/'.join(sorted(named))}", _identifier_search(named)))
    regexes = section.get("regexes", [])
    if len(regexes) > MAX_REGEXES:
        raise ValueError((f"/informational/regexes/{MAX_REGEXES}", f"at most {MAX_REGEXES} regexes (write one alternation, or a class)"))
    from verifier.formats.linear_regex import RegexError, compile_linear  # RE2: linear-time matching, so a profile cannot make verify take unbounded time

    for i, item in enumerate(regexes):
        text = item["regex"]
        if len(text) > MAX_REGEX_CHARS:
            raise ValueError((f"/informational/regexes/{i}/regex", f"a regex of {len(text)} characters; at most {MAX_REGEX_CHARS}"))
        try:
            compiled = compile_linear(text)
        except RegexError as exc:
            reason = str(exc)
            raise ValueError((f"/informational/regexes/{i}/regex", f"{text!r} is not an RE2 regex ({reason}); "
                              "RE2 has no backreferences or lookarounds: match the text around the number instead")) from None
        out.append((f"regex {i} ({item['reason']})", _regex_search(compiled)))
    return tuple(out)


_NUMBERS_ITEM = re.compile(r"^(?P<item>.*)/numbers/(?P<n>\d+)$")


def _text_and_span(document: Any, pointer: str, written: str) -> tuple[str, tuple[int, int]] | None:
    """Return the text the number stated at `pointer` (as `written`) is written in and its span there, or None when it cannot be placed."""
    from verifier.readers.markdown_doc import _NUMBER_IN_TEXT
    from verifier.readers.pointers import resolve

    base, sep, suffix = pointer.partition("#numbers/")
    if sep:  # a number inside a longer string: the string at `base`, its number `suffix`
        try:
            text = resolve(document, base)
        except KeyError:
            return None
        found = _number_spans(text) if isinstance(text, str) else ()
        index = int(suffix)
        return (text, found[index]) if index < len(found) else None
    m = _NUMBERS_ITEM.match(pointer)
    if m:  # a Markdown, HTML or rST item's `numbers` list: the item's `text`
        try:
            item = resolve(document, m["item"])
        except KeyError:
            item = None
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            text, index = item["text"], int(m["n"])
            for spans in ([x.span() for x in _NUMBER_IN_TEXT.finditer(text)], list(_number_spans(text))):  # Markdown's reader, then the others'
                if index < len(spans) and text[spans[index][0]:spans[index][1]] == written:
                    return text, spans[index]
            return None
    return written, (0, len(written))


@functools.lru_cache(maxsize=64)
def _number_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Return the `(start, end)` of each number `textnumbers.numbers_in` finds in `text`, once per text (a text of n numbers is asked n times)."""
    from verifier.formats.textnumbers import numbers_in

    return tuple(n[:2] for n in numbers_in(text))


def informational_numbers(document: Any, found: list[tuple[str, Any]], patterns: Patterns) -> dict[str, str]:
    """
    Return `{pointer: pattern name}` for the stated numbers among `found` (`(pointer, written text)` of one claim document) a pattern holds.

    A pattern holds a number when one of its spans in the number's text
    (`_text_and_span`) starts at or before the number and ends at or after it.
    """
    out: dict[str, str] = {}
    if not patterns:
        return out
    cache: dict[str, list[tuple[str, list[tuple[int, int]]]]] = {}  # text -> each pattern's spans (a table repeats its cells)
    for pointer, written in found:
        placed = _text_and_span(document, pointer, written)
        if placed is None:
            continue
        text, (start, end) = placed
        spans = cache.get(text)
        if spans is None:
            spans = cache[text] = [(name, search(text)) for name, search in patterns]
        for name, held in spans:
            if any(s <= start and end <= e for s, e in held):
                out[pointer] = name
                break
    return out


def rows_held(document: Any, pointers: list[str], declared: list[dict[str, Any]]) -> dict[str, str]:
    """
    Return `{pointer: "declared/N"}` for the stated numbers among `pointers` (of one parsed claim document) a row-filtered declaration holds.

    `declared` is a claim document's `informational` list; an entry with a
    `where` (member -> text or list of texts) holds a number when its pointer
    (before any `#`) matches the entry's `pointer` (a `*` token: any one member
    or index) and the object holding it (the pointer's parent: a table row)
    states every `where` member as one of the texts given (MLPerf's power rows:
    `{"Units": ["Watts", "millijoules"]}`). `N` is the entry's index. A row
    that cannot be resolved, or lacks a member, is not held.
    """
    out: dict[str, str] = {}
    entries = [(f"declared/{i}", re.compile("/".join("[^/]*" if t == "*" else re.escape(t) for t in d["pointer"].split("/"))),
                {m: set(v) if isinstance(v, list) else {v} for m, v in d["where"].items()}) for i, d in enumerate(declared) if "where" in d]
    if not entries:
        return out
    for pointer in pointers:
        plain = pointer.partition("#")[0]
        parent = plain.rpartition("/")[0]
        for name, pattern, where in entries:
            if not pattern.fullmatch(plain):
                continue
            try:
                row = resolve(document, parent)
            except LookupError:
                continue
            if isinstance(row, dict) and all(m in row and dim_text(row[m]) in texts for m, texts in where.items()):
                out[pointer] = name
                break
    return out
