"""
Tests that kill surviving mutants of `verifier/checks/profile_matches.py` (issue 14): per-record equalities and flags.

`matches` runs on a `Context` of hand-made records: numbers are equal by
value and text as text; a join needs exactly one record of the other set
sharing the `on` dimensions; an absent value or an undeclared flag word is
UNVERIFIED `not-stated`; a flag is judged against the re-derived equality;
every compared place is marked examined (for `claims.coverage`).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile_matches import _same, matches, outcome_of
from verifier.engine.pipeline import Context, RunData
from verifier.model.evidence import Receipt
from helpers import profile_evidence, profile_receipt

WORDS = {"true": [" Passed "], "false": ["FAILED"]}


@pytest.mark.parametrize("value,words,said", [(True, None, True), (False, WORDS, False), ("passed", WORDS, True), (" failed ", WORDS, False),
                                              ("passed", None, None), ("maybe", WORDS, None), (1, WORDS, None),
                                              ("passed", {"false": ["passed"]}, False)])
def test_outcome_words_are_declared_and_compared_without_case_or_blanks(value, words, said):
    assert outcome_of(value, words) is said


@pytest.mark.parametrize("a,b,same", [(Decimal("1.50"), Decimal("1.5"), True), ("1.50", Decimal("1.5"), True), ("x", "x", True),
                                      ("x", "y", False), (Decimal(1), Decimal(2), False), ("x", Decimal(1), False),
                                      (None, None, False), (True, True, False)])
def test_numbers_compare_by_value_and_anything_else_as_text(a, b, same):
    assert _same(a, b) is same


def _rec(path: str, pointer: str, raw: Any, **dims: str) -> Receipt:
    return profile_receipt(path, pointer, raw, dims=dims)


def _run(entry: dict, runs: list[Receipt], jobs: list[Receipt] = ()) -> tuple[list, set]:
    ctx = Context(subject=Path("."), assets=None, options={"profile": {"id": "p", "matches": [{"id": "m", "receipts": "runs", **entry}]}},
                  run=RunData(**profile_evidence(runs=runs, jobs=list(jobs))))
    return [(f.status.value, f.code, f.pointer) for f in matches(ctx)], ctx.run.examined


def test_a_set_without_records_is_unverified():
    assert _run({"pointer": "/a", "equals": {"pointer": "/b"}}, [])[0] == [("UNVERIFIED", "no-receipts", None)]


def test_an_equality_within_a_record_marks_both_places_examined():
    found, seen = _run({"pointer": "/a", "equals": {"pointer": "/b"}},
                       [_rec("r.json", "/0", {"a": Decimal(1), "b": Decimal("1.0")}), _rec("r.json", "/1", {"a": "x", "b": "y"})])
    assert found == [("PASS", "equal", "/0/a"), ("FAIL", "not-equal", "/1/a")]
    assert seen == {("r.json", "/0/a"), ("r.json", "/0/b"), ("r.json", "/1/a"), ("r.json", "/1/b")}


def test_an_absent_value_on_either_side_is_not_stated():
    found, seen = _run({"pointer": "/a", "equals": {"pointer": "/b"}}, [_rec("r.json", "/0", {"a": 1}), _rec("r.json", "/1", {"b": 1})])
    assert found == [("UNVERIFIED", "not-stated", "/0/a"), ("UNVERIFIED", "not-stated", "/1/a")] and seen == set()


def test_a_join_needs_exactly_one_record_sharing_the_on_dimensions():
    entry = {"pointer": "/gpus", "equals": {"receipts": "jobs", "pointer": "/gpus", "on": ["job"]}}
    runs = [_rec("runs.json", "/0", {"gpus": "0,1"}, job="a"), _rec("runs.json", "/1", {"gpus": "2"}, job="b"),
            _rec("runs.json", "/2", {"gpus": "3"}, job="c")]
    jobs = [_rec("jobs.json", "/0", {"gpus": "0,1"}, job="a"), _rec("jobs.json", "", {"gpus": "9"}, job="b"),
            _rec("jobs.json", "/2", {"gpus": "3"}, job="c"), _rec("jobs.json", "/3", {"gpus": "3"}, job="c")]
    found, seen = _run(entry, runs, jobs)
    assert found == [("PASS", "equal", "/0/gpus"), ("FAIL", "not-equal", "/1/gpus"), ("UNVERIFIED", "join-unresolved", "/2/gpus")]
    assert ("jobs.json", "/0/gpus") in seen and ("jobs.json", "/gpus") in seen


def test_the_join_names_where_the_other_value_is():
    entry = {"pointer": "/gpus", "equals": {"receipts": "jobs", "pointer": "/gpus", "on": ["job"]}}
    ctx = Context(subject=Path("."), assets=None, options={"profile": {"id": "p", "matches": [{"id": "m", "receipts": "runs", **entry}]}},
                  run=RunData(**profile_evidence(runs=[_rec("runs.json", "/0", {"gpus": "1"}, job="a")], jobs=[_rec("jobs.json", "/4", {"gpus": "2"}, job="a")])))
    (f,) = matches(ctx)
    assert f.message == "m: runs.json /0: /gpus '1' != jobs.json /4/gpus '2'"


def test_a_flag_is_judged_against_the_rederived_equality():
    entry = {"pointer": "/a", "equals": {"pointer": "/b"}, "flag": "/same", "outcomes": WORDS}
    runs = [_rec("r.json", "/0", {"a": 1, "b": 1, "same": "passed"}), _rec("r.json", "/1", {"a": 1, "b": 2, "same": "passed"}),
            _rec("r.json", "/2", {"a": 1, "b": 2, "same": False}), _rec("r.json", "/3", {"a": 1, "b": 2, "same": "unsure"})]
    for r in runs:
        r.raw.update(a=Decimal(r.raw["a"]), b=Decimal(r.raw["b"]))
    found, seen = _run(entry, runs)
    assert found == [("PASS", "flag-agrees", "/0/same"), ("FAIL", "flag-disagrees", "/1/same"), ("PASS", "flag-agrees", "/2/same"),
                     ("UNVERIFIED", "not-stated", "/3/same")]
    assert ("r.json", "/0/same") in seen and ("r.json", "/3/same") not in seen


# --- survivors of the cosmic-ray run of record (issue 42) -----------------------------------------------------------


def test_the_default_comparison_is_exact_and_stated_precision_only_when_the_entry_says_so():
    """
    Kills `:48` `stated_precision=False` -> `True` and `:141` `entry.get("precision") == "stated"` -> `!=`: 1.0 and 1.04
    differ exactly but agree at the coarser precision the two state (half of 0.1).
    """
    assert _same(Decimal("1.0"), Decimal("1.04")) is False and _same(Decimal("1.0"), Decimal("1.04"), True) is True
    runs = [_rec("r.json", "/0", {"a": Decimal("1.0"), "b": Decimal("1.04")})]
    ctx = Context(subject=Path("."), assets=None, options={"profile": {"id": "p", "matches": [
        {"id": "exact", "receipts": "runs", "pointer": "/a", "equals": {"pointer": "/b"}},
        {"id": "stated", "receipts": "runs", "pointer": "/a", "equals": {"pointer": "/b"}, "precision": "stated"}]}}, run=RunData(**profile_evidence(runs=runs)))
    assert [(f.code, f.message) for f in matches(ctx)] == [
        ("not-equal", "exact: r.json /0: /a Decimal('1.0') != /0/b Decimal('1.04')"),
        ("equal", "stated: r.json /0: /a Decimal('1.0') == /0/b Decimal('1.04') (at the coarser precision the two state)")]


def test_matches_is_the_registered_check_the_profile_pipeline_runs():
    """Kills `:70` the `@check` decorator removed: `derivation.matches` is a check with its id and title, in the pipeline of a profile with `matches`."""
    from verifier.checks.profile import pipeline_for

    assert matches.id == "derivation.matches" and matches.title.startswith("Every per-record equality")
    assert "derivation.matches" in [c.id for c in pipeline_for({"id": "p", "matches": [{"id": "m"}]})]


def test_an_entry_over_no_records_does_not_stop_the_next_and_a_selection_is_kept_per_set():
    """
    Kills `:94` `continue` -> `break` (the entries after one over an empty set) and `:97` `if chosen not in selected:`
    negated (a selection shared by two entries, selected once).
    """
    runs = [_rec("r.json", "/0", {"a": 1, "b": 1}, model="m1"), _rec("r.json", "/1", {"a": 1, "b": 2}, model="m2")]
    sel = {"model": "m2"}
    ctx = Context(subject=Path("."), assets=None, options={"profile": {"id": "p", "matches": [
        {"id": "none", "receipts": "jobs", "pointer": "/a", "equals": {"pointer": "/b"}},
        {"id": "one", "receipts": "runs", "pointer": "/a", "equals": {"pointer": "/b"}, "selection": sel},
        {"id": "two", "receipts": "runs", "pointer": "/b", "equals": {"pointer": "/a"}, "selection": dict(sel)}]}},
                  run=RunData(**profile_evidence(runs=runs, jobs=[])))
    assert [(f.status.value, f.code, f.message) for f in matches(ctx)] == [
        ("UNVERIFIED", "no-receipts", "none: receipt set jobs has no records to check"),
        ("FAIL", "not-equal", "one: r.json /1: /a 1 != /1/b 2"), ("FAIL", "not-equal", "two: r.json /1: /b 2 != /1/a 1")]


def test_the_missing_side_is_named():
    """Kills `:137` `mine is None` negated or `is not None`: the message names the pointer that states nothing."""
    found = _run({"pointer": "/a", "equals": {"pointer": "/b"}}, [_rec("r.json", "/0", {"a": 1}), _rec("r.json", "/1", {"b": 1})])[0]
    assert found == [("UNVERIFIED", "not-stated", "/0/a"), ("UNVERIFIED", "not-stated", "/1/a")]
    ctx = Context(subject=Path("."), assets=None, options={"profile": {"id": "p", "matches": [{"id": "m", "receipts": "runs", "pointer": "/a", "equals": {"pointer": "/b"}}]}},
                  run=RunData(**profile_evidence(runs=[_rec("r.json", "/0", {"a": 1}), _rec("r.json", "/1", {"b": 1})])))
    assert [f.message for f in matches(ctx)] == ["m: r.json /0: states no value at /b, so the equality cannot be checked",
                                                 "m: r.json /1: states no value at /a, so the equality cannot be checked"]


def test_a_compared_markdown_row_is_examined_also_at_its_claim_document_place():
    """
    Kills `:109` the loop over the records made empty (no file's rows seen), `:114` `r.pointer + entry["pointer"]` -> `-`
    and `:115` `in_documents[...] + entry["pointer"]` -> `-`: a compared row of README.md's table under "Results" is also
    examined at `/tables/Results/<row>/a`; a row not compared is not.
    """
    rows = [{"#table": 1, "#row": 1, "#heading": "Results", "a": Decimal(1), "b": Decimal(1)},
            {"#table": 1, "#row": 2, "#heading": "Results", "b": Decimal(1)}]
    found, seen = _run({"pointer": "/a", "equals": {"pointer": "/b"}}, [_rec("README.md", "/0", rows[0]), _rec("README.md", "/1", rows[1])])
    assert found == [("PASS", "equal", "/0/a"), ("UNVERIFIED", "not-stated", "/1/a")]
    assert seen == {("README.md", "/0/a"), ("README.md", "/0/b"), ("README.md", "/tables/Results/0/a")}
