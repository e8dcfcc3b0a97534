"""
Tests that kill surviving mutants of `verifier/checks/profile_coverage.py` and its reader `verifier/readers/claimdocs.py` (issue 14): every stated number accounted for.

`coverage` runs over the model `read_claim_documents` builds from a stand-in tree (glob, blocked, json) and a profile with
one claim document: a number some check compared counts as compared, one
matching an `informational` pattern as informational, one matching
`needs_external` is UNVERIFIED `needs-external`, any other UNVERIFIED
`unchecked-claim`; `covered` (PASS) only when nothing is unchecked; a
missing, blocked or unreadable document is UNVERIFIED and nothing else.
"""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile_coverage import _any_of, coverage, pointer_matches
from verifier.evidence import Evidence, FileEntry
from verifier.readers.claimdocs import read_claim_documents, stated_numbers
from verifier.jsonio import JSONProblem
from verifier.pipeline import Context


class _Tree:
    def __init__(self, files: dict[str, Any], blocked: dict[str, str] | None = None):
        self.files, self.blocked = files, blocked or {}

    def glob(self, pattern: str) -> list[str]:
        return sorted(f for f in self.files if Path(f).match(pattern))

    def links(self, pattern: str) -> list[str]:
        return []  # no symbolic links in this stand-in (verifier.readers.tree.Tree.links)

    def json(self, rel: str) -> Any:
        value = self.files[rel]
        if isinstance(value, Exception):
            raise value
        return value


def _run(files: dict[str, Any], doc: dict[str, Any], seen: set[tuple[str, str]] = frozenset(), blocked=None) -> list:
    """Read the claim documents onto a model as `schema.receipts` does, then run `coverage` over it."""
    tree, documents = _Tree(files, blocked), [{"file": "*.json", **doc}]
    stated = read_claim_documents(tree, documents)
    model = Evidence(reader="profile:p", files=tuple(FileEntry(rel, None, None) for rel in tree.files), claims=stated.claims,
                     outcomes=stated.outcomes, unmapped=stated.unmapped)
    ctx = Context(subject=Path("."), assets=None, bundle=tree, options={"profile": {"id": "p", "claim_documents": documents}},
                  data={"examined": set(seen), "evidence": model})
    return list(coverage(ctx))


def _codes(findings: list) -> list[tuple[str, str, str | None]]:
    return [(f.status.value, f.code, f.pointer) for f in findings]


DOC = {"a": D("1.5"), "b": {"c": "75%", "#line": D(3)}, "d": [True, None, "word"], "e": D(2)}  # as the JSON reader gives them


def test_stated_numbers_walks_numbers_quantities_and_outcomes_skipping_hash_keys_and_null():
    assert list(stated_numbers(DOC)) == [("/a", D("1.5")), ("/b/c", "75%"), ("/d/0", True), ("/e", D(2))]
    assert list(stated_numbers({"x/y": {"~": D(1)}})) == [("/x~1y/~0", D(1))]


def test_pointer_patterns_match_one_token_per_star_and_the_same_depth():
    assert pointer_matches("/a/*/c", "/a/b/c") and not pointer_matches("/a/*", "/a/b/c") and not pointer_matches("/a/*/c", "/a/b")
    assert not pointer_matches("/a/x", "/a/b")
    assert not _any_of([])("/a") and _any_of(["/a/*"])("/a/b") and not _any_of(["/a/*"])("/a/b/c")


def test_every_kind_of_accounting_and_covered_only_when_nothing_is_unchecked():
    doc = {"informational": [{"pointer": "/b/*"}], "needs_external": [{"pointer": "/d/*", "reason": "raw logs kept elsewhere"}]}
    found = _run({"s.json": DOC}, doc, seen={("s.json", "/a")})
    # a file's numbers are reported first, then its true/false outcomes (each in document order)
    assert _codes(found) == [("UNVERIFIED", "unchecked-claim", "/e"), ("UNVERIFIED", "needs-external", "/d/0")]
    assert "states true: raw logs kept elsewhere" in found[1].message and "states the number 2," in found[0].message
    covered = _run({"s.json": DOC}, doc, seen={("s.json", "/a"), ("s.json", "/e"), ("other.json", "/d/0")} | {("s.json", "/d/0")})
    assert _codes(covered) == [("PASS", "covered", None)]
    assert covered[0].observed == {"compared": 3, "informational": 2}  # /b/c and /b/#line: a JSON file's `#line` is a member it states
    outcome = _run({"s.json": {"ok": False}}, {})
    assert _codes(outcome) == [("UNVERIFIED", "unchecked-claim", "/ok")] and "the outcome false," in outcome[0].message


def test_an_empty_document_is_covered():
    assert _codes(_run({"s.json": {"note": "no numbers"}}, {})) == [("PASS", "covered", None)]


@pytest.mark.parametrize("files,blocked,code", [
    ({}, None, "no-claim-document"),
    ({"s.json": DOC}, {"s.json": "its sha256 differs from the manifest"}, "blocked-by-integrity"),
    ({"s.json": JSONProblem("duplicate key", "duplicate-key")}, None, "claim-unreadable"),
    ({"s.json": OSError("gone")}, None, "claim-unreadable"),
])
def test_a_missing_blocked_or_unreadable_document_is_one_unverified_finding(files, blocked, code):
    assert [(f.status.value, f.code) for f in _run(files, {}, blocked=blocked)] == [("UNVERIFIED", code)]


def test_a_document_that_is_one_bare_number_is_unchecked_not_informational():
    assert not _any_of([])("")  # the whole-document pointer matches no pattern when none is declared
    assert _codes(_run({"s.json": D(42)}, {})) == [("UNVERIFIED", "unchecked-claim", "")]


def test_a_prose_item_is_one_with_numbers_text_and_a_line_and_only_its_text_is_left_to_its_numbers():
    prose = {"numbers": ["7 s"], "text": "took 7 s", "code": "9 s", "#line": D(4)}
    assert list(stated_numbers(prose)) == [("/numbers/0", "7 s")]
    for partial in ({"text": "7 s", "#line": D(4)}, {"numbers": [], "text": "7 s"}, {"text": "7 s"}):  # not a prose item
        assert ("/text", "7 s") in list(stated_numbers(partial)), partial
    assert list(stated_numbers({"numbers": [], "code": "9 s", "#line": D(1)})) == [("/code", "9 s")]


MEMBERS = {"r": "ROUGE1: 31.4286  ROUGE2: 5.8824"}


def test_a_member_claim_covers_the_number_of_its_member_in_its_own_file_only():
    # a `NAME: value` member examined as `pointer#NAME` compares the number its value starts with, nothing else
    found = _run({"s.json": MEMBERS}, {}, seen={("s.json", "/r#ROUGE1")})
    assert _codes(found) == [("UNVERIFIED", "unchecked-claim", "/r#numbers/1")]
    assert _codes(_run({"s.json": MEMBERS}, {}, seen={("s.json", "/r#ROUGE1"), ("s.json", "/r#ROUGE2")})) == [("PASS", "covered", None)]
    other = _run({"s.json": MEMBERS}, {}, seen={("other.json", "/r#ROUGE1")})  # examined in another file
    assert _codes(other) == [("UNVERIFIED", "unchecked-claim", "/r#numbers/0"), ("UNVERIFIED", "unchecked-claim", "/r#numbers/1")]
    # a compared `#numbers/N` place is that place, not a member named "numbers/1"
    assert _codes(_run({"s.json": MEMBERS}, {}, seen={("s.json", "/r#numbers/1")})) == [("UNVERIFIED", "unchecked-claim", "/r#numbers/0")]


def test_a_member_claim_at_a_pointer_the_document_lacks_covers_nothing_and_breaks_nothing():
    found = _run({"s.json": MEMBERS}, {}, seen={("s.json", "/missing#ROUGE1"), ("s.json", "/r#ROUGE2")})
    assert _codes(found) == [("UNVERIFIED", "unchecked-claim", "/r#numbers/0")]
