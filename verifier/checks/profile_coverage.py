"""
Profile check (9) `claims.coverage`: every number a claim document states is accounted for.

The stated numbers and true/false outcomes of the profile's claim documents
are in the evidence model (`verifier.readers.claimdocs`, read by
`schema.documents`, `verifier.checks.profile_receipts`). Each must be one of: compared by a check (a claim
instance or a value read backwards from a claim's location, a heading's
number a claim's `/tables/{dim} ...` pointer binds to its instance, the recorded
gate outcome, a manifest entry's digest or size), declared `informational` by
the profile (ids, dates, seeds, configuration, with a reason), or declared
`needs_external` (a score that only the absent media could re-derive:
UNVERIFIED `needs-external`). Anything else is UNVERIFIED `unchecked-claim`
naming file and JSON Pointer: a bundle whose stated number nothing examined
is never PASS.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

from verifier.checks.profile_base import _f, _profile, evidence, examined, files_matching
from verifier.model.evidence import Evidence, Location, RecordedOutcome, StatedClaim
from verifier.formats.textnumbers import numbers_in
from verifier.formats.jsonio import shown_literal
from verifier.formats.linear_regex import compile_linear
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.readers.claimdocs import WHAT

__all__ = ["coverage", "pointer_matches"]


def _pattern(pattern: str) -> str:
    """Return the regex of one pointer pattern: each `*` matches any run of characters within one token (no `/`), everything else itself."""
    return "/".join("[^/]*".join(re.escape(part) for part in token.split("*")) for token in pattern.split("/"))


def pointer_matches(pattern: str, pointer: str) -> bool:
    """Return whether JSON Pointer `pointer` matches `pattern`, where each `*` matches any characters within one token (`/headers/*/*#numbers/*`)."""
    return compile_linear(_pattern(pattern)).fullmatch(pointer) is not None


def _any_of(patterns: list[str]) -> Callable[[str], bool]:
    """Return a predicate: does a pointer match one of `patterns` (as `pointer_matches` judges, compiled once into one regex)?"""
    regex = _regex_of(tuple(patterns))
    if regex is None:
        return lambda _pointer: False
    return lambda pointer: regex.fullmatch(pointer) is not None


@functools.lru_cache(maxsize=64)
def _regex_of(patterns: tuple[str, ...]) -> Any:
    """Return the one regex whose `fullmatch` is `_any_of(list(patterns))` (None for no pattern), compiled once per tuple of patterns (a profile declares the same ones every run), matched by RE2 in time linear in the pointer (`verifier.formats.linear_regex`)."""
    return compile_linear("|".join(f"(?:{_pattern(p)})" for p in patterns)) if patterns else None


def _member_names(seen: set[tuple[str, str]]) -> dict[str, dict[str, list[str]]]:
    """Return, per file, the member names examined at each of its pointers: its `pointer#NAME` places (not `#numbers/N` ones), grouped in one pass."""
    out: dict[str, dict[str, list[str]]] = {}
    for where, place in [item for item in seen if "#" in item[1]]:  # a C-speed test first: most places name no member
        if "#numbers/" not in place:
            pointer, _, name = place.partition("#")
            out.setdefault(where, {}).setdefault(pointer, []).append(name)
    return out


def _member_numbers(names: dict[str, list[str]], claims: list[StatedClaim]) -> set[str]:
    """
    Return the `pointer#numbers/N` places among `claims` (the stated numbers of one file) that a `NAME: value` member claim (examined as `pointer#NAME`) compared.

    `names` maps each pointer of that file to the member names examined there
    (`_member_names`). The member's value is the number inside the string (the claim's `words`)
    that starts where the member's value starts (MLPerf's "ROUGE1: 31.4286  ROUGE2: 5.8824").
    """
    from verifier.readers.sites import member_start

    out: set[str] = set()
    if not names:
        return out
    begins_of: dict[str, list[int]] = {}  # words -> where each of their numbers begins
    starts_of: dict[tuple[str, str], set[int | None]] = {}  # (words, pointer) -> where the members examined there begin
    for claim in [c for c in claims if "#numbers/" in c.id]:  # a C-speed test first: most claims are no number inside a string
        pointer, _, suffix = claim.id.partition("#numbers/")
        if not suffix or pointer not in names:
            continue
        begins = begins_of.get(claim.words)
        if begins is None:
            begins = begins_of[claim.words] = [begin for begin, _end, _number, _unit in numbers_in(claim.words)]
        starts = starts_of.get((claim.words, pointer))
        if starts is None:  # once per string and pointer, not once per number the string states
            starts = starts_of[(claim.words, pointer)] = {member_start(claim.words, name) for name in names[pointer]}
        index = int(suffix)
        if index < len(begins) and begins[index] in starts:
            out.add(claim.id)
    return out


def _by_file(model: Evidence) -> dict[str, tuple[list[StatedClaim], list[RecordedOutcome]]]:
    """Return the model's stated numbers and outcomes grouped by file, each in document order."""
    out: dict[str, tuple[list[StatedClaim], list[RecordedOutcome]]] = {}
    for rel, claims in itertools.groupby(model.claims, _FILE):  # a file's claims come in runs (one per file as read): extended a run at a time
        out.setdefault(rel, ([], []))[0].extend(claims)
    for rel, outcomes in itertools.groupby(model.outcomes, _FILE):
        out.setdefault(rel, ([], []))[1].extend(outcomes)
    return out


_FILE = operator.attrgetter("location.file")

#: The place `at.number: 0` names in a string: for a string that is wholly one number, the number stated at the string's own pointer.
_FIRST = "#numbers/0"


@check("claims.coverage", title="Every number a claim document states is derived, examined, or declared informational")
def coverage(ctx: Context) -> Iterator[Finding]:
    """
    Account for every stated number of the profile's claim documents.

    Per file: PASS `covered` when every stated number was compared by a
    check or declared informational (the counts are in the message); one
    UNVERIFIED `unchecked-claim` per number nothing examined (file, JSON
    Pointer, value; a number of more than 40 characters shown shortened); one UNVERIFIED `needs-external` per number declared to
    need absent external artifacts; UNVERIFIED `blocked-by-integrity`,
    `claim-unreadable`, `too-many-numbers` or `symlink-not-followed` for a
    claim document that cannot be read (its numbers are then unchecked as a whole).
    """
    cid = "claims.coverage"
    seen = examined(ctx)
    model = evidence(ctx)
    met = [u for u in model.unmapped if u.what == WHAT and u.where is not None]
    links = {u.where.file: u for u in met if u.code == "symlink-not-followed"}  # one per link, however many globs met it
    gaps = {u.where.file: u for u in met if u.code != "symlink-not-followed"}  # no link: each is said first, once, and no gap of its name hides it
    stated = _by_file(model)
    member_names = _member_names(seen)  # the checks that examine places all ran before this one
    headings = {(site.location.file, site.location.pointer or "") for site in model.sites if site.role == "heading"}  # `readers.sites._heading_numbers`
    for rel, gap in links.items():  # a claim document that is a symlink is in no file list below: said here
        yield _f(cid, Status.UNVERIFIED, "symlink-not-followed", gap.why, path=rel)
    for doc in _profile(ctx)["claim_documents"]:
        files = files_matching(ctx, doc["file"])
        if not files and doc["file"] in gaps:
            gap = gaps[doc["file"]]
            yield _f(cid, Status.UNVERIFIED, gap.code or "no-claim-document", gap.why, path=doc["file"])
        for rel in files:
            if rel in gaps:
                gap = gaps[rel]
                yield _f(cid, Status.UNVERIFIED, gap.code or "claim-unreadable", gap.why, path=rel)
                continue
            informational = _regex_of(tuple(d["pointer"] for d in doc.get("informational", []) if "where" not in d))  # `_any_of`'s regex; rows by `where`: the model
            compared = declared = unchecked = 0
            claims, outcomes = stated.get(rel, ([], []))
            members = _member_numbers(member_names.get(rel, {}), claims)
            for pointer, item in [(c.id, c) for c in claims] + [(o.location.pointer or "", o) for o in outcomes]:
                if (rel, pointer) in seen or (rel, pointer) in headings or pointer in members or (type(item) is StatedClaim and "#" not in pointer and (rel, pointer + _FIRST) in seen):
                    # (a claim at `#numbers/0` of a string that is wholly one number, "0.434ms", compared the number the string states)
                    compared += 1
                elif informational is not None and informational.fullmatch(pointer):
                    declared += 1
                else:  # reported: shown as the document writes it
                    shown, kind = ((shown_literal(item.written or ""), "number") if isinstance(item, StatedClaim)
                                   else ("true" if item.passed else "false", "outcome"))
                    need = next((d for d in doc.get("needs_external", []) if pointer_matches(d["pointer"], pointer)), None)
                    if need:
                        unchecked += 1
                        yield _f(cid, Status.UNVERIFIED, "needs-external", f"{Location(rel, pointer)} states {shown}: {need['reason']}", path=rel, pointer=pointer, observed=shown)
                    elif (rel, pointer) in model.informational:  # the profile's one pattern set (`informational`: classes and regexes) holds it
                        declared += 1
                    else:
                        unchecked += 1
                        yield _f(cid, Status.UNVERIFIED, "unchecked-claim",
                                 f"{Location(rel, pointer)} states the {kind} {shown}, which no claim derives, no check examines and the profile does not declare informational",
                                 path=rel, pointer=pointer, observed=shown)
            if not unchecked:
                yield _f(cid, Status.PASS, "covered",
                         f"{rel}: every stated number is accounted for ({compared} compared by a check, {declared} declared informational)",
                         path=rel, observed={"compared": compared, "informational": declared})
