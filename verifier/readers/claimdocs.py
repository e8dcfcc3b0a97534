"""
Reader of a profile's claim documents: every number and true/false outcome they state, onto the evidence model.

A profile names its claim documents (`claim_documents`: globs). Every number
such a file states (a JSON number, a string that is wholly a number with an
optional unit such as "244.6s", every number inside a longer string such as
the cell "18,812 MiB (32.1%)") becomes a `verifier.model.evidence.StatedClaim`, and
every true/false a `verifier.model.evidence.RecordedOutcome`, each at its file and
JSON Pointer. A document that is not in the bundle, is blocked by integrity or
cannot be parsed is an `Unmapped` entry with the reason code
`claims.coverage` reports (`no-claim-document`, `blocked-by-integrity`,
`claim-unreadable`; `too-many-numbers` for one stating more than `MAX_STATED`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from verifier.model import units
from verifier.model.evidence import Location, Quantity, RecordedOutcome, StatedClaim, Unmapped
from verifier.formats.textnumbers import numbers_in, quantity
from verifier.readers.informational import Patterns, informational_numbers, rows_held
from verifier.formats.jsonio import JSONProblem

__all__ = ["ClaimDocuments", "read_claim_documents", "stated_numbers"]

#: `Unmapped.what` of a claim document the reader could not read.
WHAT = "claim_documents"
#: The most numbers and true/false outcomes one claim document may state; beyond it the document is `too-many-numbers`.
MAX_STATED = 100_000


@dataclass(frozen=True)
class ClaimDocuments:
    """What `read_claim_documents` read: the stated numbers (`claims`), the stated true/false (`outcomes`), what it could not read (`unmapped`) and the numbers the pattern set holds (`informational`: `(file, pointer)` -> pattern)."""

    claims: tuple[StatedClaim, ...]
    outcomes: tuple[RecordedOutcome, ...]
    unmapped: tuple[Unmapped, ...]
    informational: dict[tuple[str, str], str] = field(default_factory=dict)


def read_claim_documents(tree: Any, documents: list[dict[str, Any]], patterns: Patterns = ()) -> ClaimDocuments:
    """
    Read every file matched by the `file` glob of each of `documents` (a profile's `claim_documents`) from `tree` (`verifier.readers.tree.Tree`).

    Each file is read once even when several globs match it, in the order of
    `documents` and then of the sorted files. A stated number is a
    `StatedClaim` whose `id` is its JSON Pointer, `words` the string it was
    read from (a JSON number: its member name), `written` the text as stated,
    `value`/`unit` as stated and `quantity` set when the unit is in the
    registry (`verifier.model.units`; no unit: dimensionless "1"). A stated
    true/false is a `RecordedOutcome` (`gate`: its member name, `covers`
    None). Never raises for the bundle's content: a file that cannot be read
    is an `Unmapped` entry naming it. `patterns` (a profile's compiled
    `informational` set, `verifier.readers.informational.compile_patterns`)
    marks the stated numbers it holds in `ClaimDocuments.informational`.
    """
    claims: list[StatedClaim] = []
    informational: dict[tuple[str, str], str] = {}
    outcomes: list[RecordedOutcome] = []
    unmapped: list[Unmapped] = []
    memo: dict[str, Any] = {}  # cell text -> what it states (`_string_numbers`), shared by this run's claim documents
    texts: dict[str, Any] = {}  # stated text -> (the `parsed` of `memo` it was read to, its `Quantity` or None), shared as `memo` is
    numbers: dict[str, Quantity] = {}  # a JSON number's text -> its `Quantity`
    done: set[str] = set()
    for doc in documents:
        files = tree.glob(doc["file"])
        for link in tree.links(doc["file"]):
            unmapped.append(Unmapped(WHAT, Location(link), f"{link} is a symbolic link, which is never followed, so none of its numbers is checked",
                                     code="symlink-not-followed"))
        if not files and not doc.get("optional"):  # an `optional` document the tree does not hold states nothing (MLPerf's root summary table)
            unmapped.append(Unmapped(WHAT, Location(doc["file"]), f"claim document {doc['file']!r} is not in the bundle, so what it states cannot be checked",
                                     code="no-claim-document"))
        for rel in files:
            if rel in done:
                continue
            done.add(rel)
            if rel in tree.blocked:
                unmapped.append(Unmapped(WHAT, Location(rel), f"{rel} is not parsed because {tree.blocked[rel]}, so none of its numbers is checked",
                                         code="blocked-by-integrity"))
                continue
            try:
                document = tree.json(rel)
            except (OSError, JSONProblem) as exc:
                unmapped.append(Unmapped(WHAT, Location(rel), f"{rel} cannot be read ({exc}), so none of its numbers is checked", code="claim-unreadable"))
                continue
            found: list[tuple[str, Any, Any, Any]] = []
            _collect(document, "", found, memo, _SHOWN_KEYS if rel.lower().endswith((".md", ".html", ".htm", ".rst")) else frozenset())
            if len(found) > MAX_STATED:  # one finding, not a million: no benchmark's claim document states this many
                unmapped.append(Unmapped(WHAT, Location(rel), f"{rel} states {len(found)} numbers and outcomes, more than the {MAX_STATED} a claim "
                                         "document may state, so none of them is checked", code="too-many-numbers"))
                continue
            for pointer, value, parsed, source in found:
                if parsed is not None:  # a stated text (`_collect` reads each string to its number and unit): most claims
                    known = texts.get(value)
                    if known is None or known[0] is not parsed:  # its `Quantity` made once for the copies of one table (it is frozen)
                        known = texts[value] = (parsed, _text_quantity(value, parsed))
                    words = source if source is not None else _words(document, pointer, value)
                    claims.append(StatedClaim(pointer, known[1], words, Location(rel, pointer), parsed[0], parsed[1], value))
                elif value is True or value is False:
                    outcomes.append(RecordedOutcome(pointer.rpartition("/")[2], value, None, Location(rel, pointer)))
                else:
                    claims.append(_number_claim(pointer, value, Location(rel, pointer), numbers))
            if patterns:
                held = informational_numbers(document, [(p, v if parsed is not None else str(v)) for p, v, parsed, _s in found if parsed is not None or not isinstance(v, bool)], patterns)
                informational.update(((rel, p), name) for p, name in held.items())
            if any("where" in d for d in doc.get("informational", [])):  # declarations that hold a row's numbers by what the row states (its `Units`)
                informational.update(((rel, p), name) for p, name in rows_held(document, [p for p, _v, _parsed, _s in found], doc["informational"]).items())
    return ClaimDocuments(tuple(claims), tuple(outcomes), tuple(unmapped), informational)


def _number_claim(pointer: str, value: int | Decimal, where: Location, numbers: dict[str, Quantity]) -> StatedClaim:
    """
    Return the `StatedClaim` of a JSON number (`Decimal` from the strict loader): its `words` are its member name (the last token of `pointer`).

    `numbers` (a number's text -> its `Quantity`, one per run) lets the copies of one table share one: a `Decimal`
    is wholly given by its text (`Decimal(str(d))` has d's sign, digits and exponent).
    """
    written = str(value)
    number = value if isinstance(value, Decimal) else Decimal(written)
    q = numbers.get(written)
    if q is None:
        q = numbers[written] = Quantity(number, "1", written)
    return StatedClaim(pointer, q, pointer.rpartition("/")[2], where, number, None, written)


def _text_quantity(text: str, parsed: tuple[Decimal | None, str | None]) -> Quantity | None:
    """Return the `Quantity` of stated `text` read to `parsed` (number, unit), or None when it has no number or its unit is not in the registry."""
    number, unit = parsed
    return None if number is None or (unit is not None and not units.known(unit)) else Quantity(number, unit or "1", text)


def _words(document: Any, pointer: str, text: str) -> str:
    """Return the words of stated `text` at `pointer`: the whole string at the pointer before `#`, as resolved in `document` (`text` itself when `pointer` holds no `#`)."""
    base = pointer.partition("#")[0]
    return text if base == pointer else _string_at(document, base, text)


def _string_at(document: Any, pointer: str, fallback: str) -> str:
    """Return the string at JSON Pointer `pointer` of `document` (the whole text a `#numbers/N` number was read from), else `fallback`."""
    from verifier.readers.pointers import resolve

    try:
        text = resolve(document, pointer)
    except KeyError:
        return fallback
    return text if isinstance(text, str) else fallback


#: What the Markdown and HTML readers add to a row or prose item (where it is), not stated text; every other member,
#: `#`-named ones included (a `| # |` or `| #GPUs |` column, a JSON member `"#samples"`), is walked.
_SHOWN_KEYS = frozenset({"#line"})


#: Texts a claim document writes for "no number here" (compared after `strip()` and `casefold()`): a claim instance whose place
#: states one of them claims nothing (one UNVERIFIED `claim-unstated` per rule counts them), and a value read backwards at a
#: claim's location that states no number is no stated value. A profile's top-level `no_number` list adds its own texts.
NO_NUMBER = ("", "-", "–", "—", "n/a", "na", "n.a.")


def no_number_texts(profile: dict[str, Any]) -> frozenset[str]:
    """Return the casefolded texts that state no number under `profile`: `NO_NUMBER` and the profile's own `no_number` list."""
    return frozenset([*NO_NUMBER, *(t.strip().casefold() for t in profile.get("no_number", ()))])


def states_no_number(value: Any, texts: frozenset[str]) -> bool:
    """Return whether `value` is a string in `texts` (`no_number_texts`), compared after `strip()` and `casefold()`: "N/A", " - ", "—"."""
    return type(value) is str and value.strip().casefold() in texts


def stated_numbers(document: Any, base: str = "", memo: dict[str, Any] | None = None, skip: frozenset[str] = _SHOWN_KEYS) -> Iterator[tuple[str, Any]]:
    """
    Yield `(pointer, value)` for every stated number and true/false outcome in a JSON document.

    Numbers are JSON numbers and strings that are wholly a quantity
    (`verifier.formats.textnumbers.quantity`: "244.6s", "75%", "58,696"), and every
    number inside a longer string (`verifier.formats.textnumbers.numbers_in`: the cell
    "18,812 MiB (32.1%)" states "18,812 MiB" at `pointer#numbers/0` and
    "32.1%" at `pointer#numbers/1`); null is not stated. A Markdown prose
    item's `text` and `code` are not walked: its `numbers` list states them.
    Objects and arrays are walked depth first in document order. `memo`
    (string -> what it states, see `_string_numbers`) may be shared by the
    calls of one run: the same cell text in a JSON, CSV and Markdown copy of
    one table is then read by the grammars once. Members named in `skip`
    are not walked (default: the `#line` a Markdown or HTML reader adds;
    `read_claim_documents` passes none for JSON and CSV files).
    """
    out: list[tuple[str, Any, Any, Any]] = []
    _collect(document, base, out, {} if memo is None else memo, skip)
    for pointer, value, _parsed, _source in out:
        yield pointer, value


def _escape(token: str) -> str:
    """Return `token` escaped for a JSON Pointer (RFC 6901: `~` -> `~0`, `/` -> `~1`)."""
    return token.replace("~", "~0").replace("/", "~1")


_DIGIT = re.compile(r"\d")


def _string_numbers(text: str) -> list[tuple[str, str, tuple[Decimal | None, str | None]]]:
    """
    Return `(pointer suffix, stated text, (number, unit))` for what string `text` states.

    `("", text, ...)` when it is wholly a quantity (`verifier.formats.textnumbers.quantity`),
    else one `#numbers/N` per number inside it (`verifier.formats.textnumbers.numbers_in`).
    """
    if not _DIGIT.search(text):
        return []  # most strings state no number: one C-speed scan, no grammar
    whole = quantity(text)
    if whole is not None:
        return [("", text, whole)]
    return [(f"#numbers/{index}", text[start:end], (number, unit)) for index, (start, end, number, unit) in enumerate(numbers_in(text))]


def _collect(document: Any, base: str, out: list[tuple[str, Any, Any, Any]], memo: dict[str, Any], skip: frozenset[str]) -> None:
    """
    Append `(pointer, value, parsed, source)` for what `stated_numbers` yields to `out`; `parsed` is `(number, unit)` of a stated text, else None.

    `source` is the whole string a stated text was read from when the
    pointer it was read at holds no `#` (so `pointer.partition("#")[0]`
    names that string), else None.

    Plain recursion, bounded by the strict loader's nesting limit; `memo` caches `_string_numbers`.
    A container's children are read in its own loop, so only containers
    recurse (most children of a claim document's tables are strings and numbers).
    """
    if isinstance(document, dict):
        prose = "numbers" in document and "text" in document and "#line" in document
        children: Any = (("/" + _escape(str(key)), value) for key, value in document.items()
                         if not (key in skip or (prose and key in ("text", "code"))))  # `#line`: where a reader found the value
    elif isinstance(document, list):
        children = zip(map("/{}".format, range(len(document))), document)
    else:
        children = (("", document),)
    for suffix, value in children:  # a child's pointer is made only when it states something (most strings do not) or is a container
        if isinstance(value, str):
            found = memo.get(value)
            if found is None:
                found = memo[value] = _string_numbers(value)
            if found:  # most strings state no number
                pointer = base + suffix
                source = None if "#" in pointer else value
                for numbered, text, parsed in found:
                    out.append((pointer + numbered, text, parsed, source))
        elif isinstance(value, (dict, list)):
            _collect(value, base + suffix, out, memo, skip)
        elif isinstance(value, (int, Decimal)):  # true/false (a bool is an int) and what `quantity` reads of a non-string: an int or a Decimal
            out.append((base + suffix, value, None, None))
