"""
Profile check (9) `profile.coverage`: every number a claim document states is accounted for.

A profile names its claim documents (`claim_documents`: globs). Every number
such a file states (a JSON number, a string that is wholly a number with an
optional unit such as "244.6s", every number inside a longer string such as
the cell "18,812 MiB (32.1%)", and every true/false recorded outcome) must be
one of: compared by a check (a claim instance or a value read backwards from a
claim's location, the recorded gate outcome, a manifest entry's digest or
size), declared `informational` by the profile (ids, dates, seeds,
configuration, with a reason), or declared `needs_external` (a score that only
the absent media could re-derive: UNVERIFIED `needs-external`). Anything else
is UNVERIFIED `unchecked-claim` naming file and JSON Pointer: a bundle whose
stated number nothing examined is never PASS.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from verifier.checks.profile_base import _f, _profile, _tree, examined
from verifier.grammars import numbers_in, quantity
from verifier.jsonio import JSONProblem
from verifier.model import Finding, Status
from verifier.pipeline import Context, check

__all__ = ["coverage", "pointer_matches", "stated_numbers"]


def pointer_matches(pattern: str, pointer: str) -> bool:
    """Return whether JSON Pointer `pointer` matches `pattern`, where a `*` token of the pattern matches any one token."""
    a, b = pattern.split("/"), pointer.split("/")
    return len(a) == len(b) and all(x == "*" or x == y for x, y in zip(a, b, strict=True))


def _any_of(patterns: list[str]) -> Callable[[str], bool]:
    """Return a predicate: does a pointer match one of `patterns` (as `pointer_matches` judges, compiled once into one regex)?"""
    if not patterns:
        return lambda _pointer: False
    regex = re.compile("|".join("/".join("[^/]*" if t == "*" else re.escape(t) for t in p.split("/")) for p in patterns))
    return lambda pointer: regex.fullmatch(pointer) is not None


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def stated_numbers(document: Any, base: str = "", memo: dict[str, list[tuple[str, str]]] | None = None) -> Iterator[tuple[str, Any]]:
    """
    Yield `(pointer, value)` for every stated number and true/false outcome in a JSON document.

    Numbers are JSON numbers and strings that are wholly a quantity
    (`verifier.grammars.quantity`: "244.6s", "75%", "58,696"), and every
    number inside a longer string (`verifier.grammars.numbers_in`: the cell
    "18,812 MiB (32.1%)" states "18,812 MiB" at `pointer#numbers/0` and
    "32.1%" at `pointer#numbers/1`); null is not stated. A Markdown prose
    item's `text` and `code` are not walked: its `numbers` list states them.
    Objects and arrays are walked depth first in document order. `memo`
    (string -> what it states, see `_string_numbers`) may be shared by the
    calls of one run: the same cell text in a JSON, CSV and Markdown copy of
    one table is then read by the grammars once.
    """
    out: list[tuple[str, Any]] = []
    _collect(document, base, out, {} if memo is None else memo)
    yield from out


_DIGIT = re.compile(r"\d")


def _string_numbers(text: str) -> list[tuple[str, str]]:
    """Return `(pointer suffix, stated text)` for what string `text` states: `("", text)` when it is wholly a quantity, else one `#numbers/N` per number inside it."""
    if not _DIGIT.search(text):
        return []  # most strings state no number: one C-speed scan, no grammar
    if quantity(text) is not None:
        return [("", text)]
    return [(f"#numbers/{index}", text[start:end]) for index, (start, end, _number, _unit) in enumerate(numbers_in(text))]


def _collect(document: Any, base: str, out: list[tuple[str, Any]], memo: dict[str, list[tuple[str, str]]]) -> None:
    """Append what `stated_numbers` yields to `out` (plain recursion, bounded by the strict loader's nesting limit); `memo` caches `_string_numbers`."""
    if isinstance(document, dict):
        prose = "numbers" in document and "text" in document and "#line" in document
        for key, value in document.items():
            if str(key).startswith("#") or (prose and key in ("text", "code")):  # `#line` and the like are where a reader found the value
                continue
            _collect(value, f"{base}/{_escape(str(key))}", out, memo)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            _collect(value, f"{base}/{index}", out, memo)
    elif isinstance(document, str):
        found = memo.get(document)
        if found is None:
            found = memo[document] = _string_numbers(document)
        out.extend((base + suffix, text) for suffix, text in found)
    elif isinstance(document, bool) or quantity(document) is not None:
        out.append((base, document))


def _member_numbers(seen: set[tuple[str, str]], rel: str, document: Any) -> set[str]:
    """
    Return the `pointer#numbers/N` places of `rel` that a `NAME: value` member claim (examined as `pointer#NAME`) compared.

    The member's value is the number inside the string that starts where the
    member's value starts (MLPerf's "ROUGE1: 31.4286  ROUGE2: 5.8824").
    """
    from verifier.readers.locate import member_start
    from verifier.readers.pointers import resolve

    out = set()
    for where, place in seen:
        if where != rel or "#" not in place or "#numbers/" in place:
            continue
        pointer, _, name = place.partition("#")
        try:
            text = resolve(document, pointer)
        except KeyError:
            continue
        start = member_start(text, name)
        for index, (begin, _end, _number, _unit) in enumerate(numbers_in(text) if isinstance(text, str) else []):
            if begin == start:
                out.add(f"{pointer}#numbers/{index}")
    return out


@check("profile.coverage", title="Every number a claim document states is derived, examined, or declared informational")
def coverage(ctx: Context) -> Iterator[Finding]:
    """
    Account for every stated number of the profile's claim documents.

    Per file: PASS `covered` when every stated number was compared by a
    check or declared informational (the counts are in the message); one
    UNVERIFIED `unchecked-claim` per number nothing examined (file, JSON
    Pointer, value); one UNVERIFIED `needs-external` per number declared to
    need absent external artifacts; UNVERIFIED `blocked-by-integrity` or
    `claim-unreadable` for a claim document that cannot be read (its numbers
    are then unchecked as a whole).
    """
    cid = "profile.coverage"
    tree = _tree(ctx)
    seen = examined(ctx)
    memo: dict[str, list[tuple[str, str]]] = {}  # cell text -> what it states, shared by this run's claim documents
    for doc in _profile(ctx)["claim_documents"]:
        files = tree.glob(doc["file"])
        if not files:
            yield _f(cid, Status.UNVERIFIED, "no-claim-document", f"claim document {doc['file']!r} is not in the bundle, so what it states cannot be checked", path=doc["file"])
        for rel in files:
            if rel in tree.blocked:
                yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{rel} is not parsed because {tree.blocked[rel]}, so none of its numbers is checked", path=rel)
                continue
            try:
                document = tree.json(rel)
            except (OSError, JSONProblem) as exc:
                yield _f(cid, Status.UNVERIFIED, "claim-unreadable", f"{rel} cannot be read ({exc}), so none of its numbers is checked", path=rel)
                continue
            informational = _any_of([d["pointer"] for d in doc.get("informational", [])])
            counts = {"compared": 0, "informational": 0}
            unchecked = 0
            members = _member_numbers(seen, rel, document)
            for pointer, value in stated_numbers(document, memo=memo):
                shown = str(value) if not isinstance(value, bool) else str(value).lower()
                if (rel, pointer) in seen or pointer in members:
                    counts["compared"] += 1
                elif informational(pointer):
                    counts["informational"] += 1
                elif need := next((d for d in doc.get("needs_external", []) if pointer_matches(d["pointer"], pointer)), None):
                    unchecked += 1
                    yield _f(cid, Status.UNVERIFIED, "needs-external", f"{rel} {pointer} states {shown}: {need['reason']}", path=rel, pointer=pointer, observed=shown)
                else:
                    unchecked += 1
                    kind = "outcome" if isinstance(value, bool) else "number"
                    yield _f(cid, Status.UNVERIFIED, "unchecked-claim",
                             f"{rel} {pointer} states the {kind} {shown}, which no claim derives, no check examines and the profile does not declare informational",
                             path=rel, pointer=pointer, observed=shown)
            if not unchecked:
                yield _f(cid, Status.PASS, "covered",
                         f"{rel}: every stated number is accounted for ({counts['compared']} compared by a check, {counts['informational']} declared informational)",
                         path=rel, observed=counts)
