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
from verifier.model.evidence import Evidence, FileEntry
from verifier.readers.claimdocs import WHAT, read_claim_documents, stated_numbers
from verifier.formats.jsonio import JSONProblem
from verifier.engine.pipeline import Context, RunData


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
    """Read the claim documents onto a model as `schema.documents` does, then run `coverage` over it."""
    tree, documents = _Tree(files, blocked), [{"file": "*.json", **doc}]
    stated = read_claim_documents(tree, documents)
    model = Evidence(reader="profile:p", files=tuple(FileEntry(rel, None, None) for rel in tree.files), claims=stated.claims,
                     outcomes=stated.outcomes, unmapped=stated.unmapped)
    ctx = Context(subject=Path("."), assets=None, bundle=tree, options={"profile": {"id": "p", "claim_documents": documents}},
                  run=RunData(examined=set(seen), evidence=model))
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


# --- survivors of the cosmic-ray run of record (issue 42) -----------------------------------------------------------

def _cover(files: dict[str, Any], documents: list[dict[str, Any]], *, seen=frozenset(), blocked=None, links=(), sites=(),
           informational=None, unmapped=()) -> list[tuple[str, str, str | None, str | None]]:
    """Run `coverage` over `documents` read from a stand-in tree (with symbolic links `links`) onto a model that also holds `sites`, `informational` and `unmapped`."""
    from verifier.readers.tree import glob_regex

    class Linked(_Tree):
        def links(self, pattern: str) -> list[str]:
            return [link for link in links if glob_regex(pattern).fullmatch(link)]

    tree = Linked(files, blocked)
    stated = read_claim_documents(tree, documents)
    model = Evidence(reader="profile:p", files=tuple(FileEntry(rel, None, None) for rel in tree.files), claims=stated.claims,
                     outcomes=stated.outcomes, unmapped=(*stated.unmapped, *unmapped), sites=tuple(sites), informational=informational or {})
    ctx = Context(subject=Path("."), assets=None, bundle=tree, options={"profile": {"id": "p", "claim_documents": documents}},
                  run=RunData(examined=set(seen), evidence=model))
    return [(f.status.value, f.code, f.path, f.pointer) for f in coverage(ctx)]


def test_a_gap_of_another_part_at_a_claim_documents_file_is_not_the_documents():
    """Kills `:135` `u.what == WHAT and u.where is not None` -> `or`: a receipt file's gap does not make a claim document unread."""
    from verifier.model.evidence import Location, Unmapped

    gap = Unmapped("receipt file", Location("s.json"), "its record 3 names no arm", "receipts", "mapping-incomplete")
    assert _cover({"s.json": {"a": D(1)}}, [{"file": "*.json"}], seen={("s.json", "/a")}, unmapped=[gap]) == [("PASS", "covered", "s.json", None)]


def test_a_number_a_heading_site_binds_is_compared_and_one_only_read_backwards_is_not():
    """Kills `:138` `site.role == "heading"` -> `!=` and `pointer or ""` -> `and`: only a `heading` site's own place counts."""
    from verifier.model.evidence import Location, Site

    sites = [Site("/claims/0", "heading", (("arm", "a"),), Location("s.json", "/h"), D(1)), Site("/claims/0", "stated", (), Location("s.json", "/x"), D(2))]
    assert _cover({"s.json": {"h": D(1), "x": D(2)}}, [{"file": "*.json"}], sites=sites) == [("UNVERIFIED", "unchecked-claim", "s.json", "/x")]


def test_a_symlinked_or_blocked_document_is_said_once_and_the_documents_after_it_are_read():
    """Kills `:139` the loop over the gaps made empty (the symlink never said) and `:151` `continue` -> `break` (b.json after blocked a.json)."""
    found = _cover({"a.json": {"v": D(1)}, "b.json": {"v": D(2)}}, [{"file": "*.json"}], blocked={"a.json": "its sha256 differs from the manifest"},
                   links=("c.json",))
    assert found == [("UNVERIFIED", "symlink-not-followed", "c.json", None), ("UNVERIFIED", "blocked-by-integrity", "a.json", None),
                     ("UNVERIFIED", "unchecked-claim", "b.json", "/v")]


def test_an_absent_optional_document_says_nothing_and_a_blocked_one_named_outright_is_said_once():
    """Kills `:144` `not files and doc["file"] in gaps` -> `or` (a KeyError for the optional document, the blocked one said twice)."""
    found = _cover({"s.json": {"v": D(1)}}, [{"file": "gone.json", "optional": True}, {"file": "s.json"}], blocked={"s.json": "its sha256 differs from the manifest"})
    assert found == [("UNVERIFIED", "blocked-by-integrity", "s.json", None)]


def test_a_missing_document_whose_gap_has_no_code_is_no_claim_document():
    """Kills `:146` `gap.code or "no-claim-document"` -> `and`."""
    from verifier.model.evidence import Location, Unmapped

    gap = Unmapped(WHAT, Location("gone.json"), "gone.json was not found")
    assert _cover({}, [{"file": "gone.json", "optional": True}], unmapped=[gap]) == [("UNVERIFIED", "no-claim-document", "gone.json", None)]


def test_a_string_that_is_wholly_one_number_is_compared_at_its_first_number_but_an_outcome_is_not():
    """Kills `:157` `type(item) is StatedClaim` -> `is not`: `/t#numbers/0` compared covers "0.434ms" at /t, never the outcome at /ok."""
    found = _cover({"s.json": {"t": "0.434ms", "ok": True}}, [{"file": "*.json"}], seen={("s.json", "/t#numbers/0"), ("s.json", "/ok#numbers/0")})
    assert found == [("UNVERIFIED", "unchecked-claim", "s.json", "/ok")]


def test_a_number_needing_external_artifacts_is_not_covered():
    """Kills `:167` `unchecked += 1` -> `+= 0`: a file whose only number needs external artifacts is not PASS `covered`."""
    found = _cover({"s.json": {"a": D(1)}}, [{"file": "*.json", "needs_external": [{"pointer": "/a", "reason": "the raw logs are elsewhere"}]}])
    assert found == [("UNVERIFIED", "needs-external", "s.json", "/a")]


def test_a_number_the_pattern_set_holds_is_counted_once_as_informational():
    """Kills `:170` `declared += 1` -> `+= 0` / `+= 2`."""
    documents = [{"file": "*.json"}]
    stated = read_claim_documents(_Tree({"s.json": {"date": D(20261206), "b": D(1)}}), documents)
    model = Evidence(reader="profile:p", files=(FileEntry("s.json", None, None),), claims=stated.claims, outcomes=stated.outcomes,
                     informational={("s.json", "/date"): "date"})
    ctx = Context(subject=Path("."), assets=None, bundle=None, options={"profile": {"id": "p", "claim_documents": documents}},
                  run=RunData(examined={("s.json", "/b")}, evidence=model))
    (f,) = coverage(ctx)
    assert (f.code, f.observed, f.message) == ("covered", {"compared": 1, "informational": 1},
                                               "s.json: every stated number is accounted for (1 compared by a check, 1 declared informational)")


def test_a_claim_document_named_outright_that_is_a_symlink_is_said_a_symlink_once():
    """
    Found through the `:144`/`:146` survivors: the gaps kept the last one per file, so a document named outright that is
    a symbolic link was said twice when `optional` (the symlink gap, then again as the document's own gap) and, when not,
    only as "not in the bundle" (the reader's `no-claim-document` gap for the name hid the symlink). Two globs meeting
    one link say it once.
    """
    assert _cover({}, [{"file": "s.json", "optional": True}], links=("s.json",)) == [("UNVERIFIED", "symlink-not-followed", "s.json", None)]
    assert _cover({}, [{"file": "s.json"}], links=("s.json",)) == [("UNVERIFIED", "symlink-not-followed", "s.json", None),
                                                                    ("UNVERIFIED", "no-claim-document", "s.json", None)]
    assert _cover({}, [{"file": "*.json", "optional": True}, {"file": "s.*", "optional": True}], links=("s.json",)) == [
        ("UNVERIFIED", "symlink-not-followed", "s.json", None)]
