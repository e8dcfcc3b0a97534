"""
Tests that kill surviving mutants of `verifier/checks/profile.py` (issue 14): identities, clocks, digests, the pipeline.

The per-record checks are called on a `Context` holding hand-made records
(no bundle): an identity holds within its tolerance and fails just past it,
for each `op`, in `left`'s unit, with the clock (`difference`) tolerance
only for differences; requests of a group overlap when one starts before
the previous ended (touching is sequential); an unread digest list is
UNVERIFIED; `pipeline_for` and `held_parts` follow the profile's sections.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile import digests, held_parts, identities, overlap, pipeline_for
from verifier.pipeline import Context
from verifier.evidence import Receipt

from helpers import profile_evidence, profile_receipt

D = Decimal


def _ctx(profile: dict[str, Any], records: list[Receipt], **data: Any) -> Context:
    return Context(subject=Path("."), assets=None, options={"profile": {"id": "p", **profile}},
                   data={**profile_evidence(runs=records), **data})


def _raw(i: int, raw: dict[str, Any], **values: Any) -> Receipt:
    return profile_receipt("runs.json", f"/{i}", raw, dims={"request_id": f"r{i}", "server": "s1"}, **values)


def _findings(check, ctx: Context) -> list[tuple[str, str]]:
    return [(f.status.value, f.code) for f in check(ctx)]


def _identity(op: str, left: dict, terms: list[dict], tolerance: Any = None) -> dict:
    out = {"id": "i", "receipts": "runs", "left": left, "terms": terms, "op": op}
    return out if tolerance is None else {**out, "tolerance": tolerance}


A, B, C = {"pointer": "/a"}, {"pointer": "/b"}, {"pointer": "/c"}


@pytest.mark.parametrize("op,a,b,c,holds", [
    ("value", "10", "10.5", "0", True), ("value", "10", "10.6", "0", False),
    ("sum", "10", "4", "6.5", True), ("sum", "10", "4", "6.6", False),
    ("difference", "10", "16", "6.5", True), ("difference", "10", "16", "5.4", False),
    ("ratio", "2", "5", "2", True), ("ratio", "2", "6", "2", False),
])
def test_each_op_holds_within_the_tolerance_and_fails_past_it(op, a, b, c, holds):
    terms = [B] if op == "value" else [B, C]
    ctx = _ctx({"identities": [_identity(op, A, terms, "0.5")], "receipts": {"runs": {"glob": "runs.json"}}},
               [_raw(0, {"a": D(a), "b": D(b), "c": D(c)})])
    assert _findings(identities, ctx) == [("PASS", "identity-holds") if holds else ("FAIL", "identity-mismatch")]


def test_an_identity_without_a_unit_compares_unscaled_numbers():
    ctx = _ctx({"identities": [_identity("value", A, [B], "0.5")], "receipts": {"runs": {"glob": "runs.json"}}},
               [_raw(0, {"a": D(10), "b": D("9.2")})])
    (f,) = identities(ctx)
    assert (f.status.value, f.code) == ("FAIL", "identity-mismatch") and "/a = 10, value(/b) = 9.2" in f.message


def test_a_term_in_seconds_is_compared_in_lefts_milliseconds_with_its_precision_converted():
    left, term = {"pointer": "/a", "unit": "ms"}, {"pointer": "/b", "unit": "s"}
    spec = {"identities": [_identity("value", left, [term])], "receipts": {"runs": {"glob": "runs.json"}}}
    assert _findings(identities, _ctx(spec, [_raw(0, {"a": D(1540), "b": D("1.5")})])) == [("PASS", "identity-holds")]  # 1.5 s: +-50 ms
    assert _findings(identities, _ctx(spec, [_raw(0, {"a": D(1560), "b": D("1.5")})])) == [("FAIL", "identity-mismatch")]


def test_rational_strings_are_exact_so_any_gap_fails():
    spec = {"identities": [_identity("value", A, [B])], "receipts": {"runs": {"glob": "runs.json"}}}
    assert _findings(identities, _ctx(spec, [_raw(0, {"a": "49/2", "b": "24/1"})])) == [("FAIL", "identity-mismatch")]
    assert _findings(identities, _ctx(spec, [_raw(0, {"a": "48/2", "b": "24/1"})])) == [("PASS", "identity-holds")]
    # a numeric string states its precision as a JSON number does ("24": half a unit), so 24.5 against it holds
    assert _findings(identities, _ctx(spec, [_raw(0, {"a": "49/2", "b": "24"})])) == [("PASS", "identity-holds")]


def test_the_clock_tolerance_applies_to_differences_only():
    raw = {"a": D("1E+20"), "b": D("1E+20"), "c": D(5)}  # exact numbers: half a unit is 0.5, the gap 5
    spec = {"receipts": {"runs": {"glob": "runs.json"}}}
    assert _findings(identities, _ctx({**spec, "identities": [_identity("sum", A, [B, C])]}, [_raw(0, raw)])) == [
        ("FAIL", "identity-mismatch")]
    clocks = {"a": D("1E+20"), "b": D("1E+20"), "c": D(-5)}  # the same gap as a difference: binary64 spacing at 1e20 applies
    assert _findings(identities, _ctx({**spec, "identities": [_identity("difference", A, [B, C])]}, [_raw(0, clocks)])) == [
        ("PASS", "identity-holds")]


def test_an_identity_over_no_records_is_unverified():
    ctx = _ctx({"identities": [_identity("value", A, [B], "0.5")], "receipts": {"runs": {"glob": "runs.json"}}}, [])
    assert _findings(identities, ctx) == [("UNVERIFIED", "no-receipts")]


def _clock(i: int, start: str | None, end: str | None) -> Receipt:
    return _raw(i, {}, start=None if start is None else D(start), end=None if end is None else D(end))


OVERLAP = {"receipts": {"runs": {"glob": "runs.json", "no_overlap": ["server"]}}}


def test_requests_that_touch_are_sequential_and_one_starting_early_overlaps():
    assert _findings(overlap, _ctx(OVERLAP, [_clock(0, "0", "1"), _clock(1, "1", "2")])) == [("PASS", "sequential")]
    (f,) = overlap(_ctx(OVERLAP, [_clock(0, "0", "1"), _clock(1, "0.9", "2"), _clock(2, "2", "3")]))
    assert (f.status.value, f.code) == ("FAIL", "overlap") and "r1 starts before r0 ended (1 overlapping pair(s))" in f.message
    (f,) = overlap(_ctx(OVERLAP, [_clock(0, "0", "1"), _clock(1, "0.9", "2"), _clock(2, "1.5", "3")]))
    assert "r1 starts before r0 ended (2 overlapping pair(s))" in f.message and f.pointer == "/1"


@pytest.mark.parametrize("start,end", [(None, "1"), ("0", None)])
def test_a_request_without_a_clock_leaves_its_group_unverified(start, end):
    assert _findings(overlap, _ctx(OVERLAP, [_clock(0, start, end), _clock(1, "1", "2")])) == [("UNVERIFIED", "missing-field")]


DIGESTS = {"receipts": {"runs": {"glob": "runs.json", "listed_digest": {"pointer": "/sha"}}, "other": {"glob": "o.json"}}}


def test_digests_are_unverified_without_the_list_and_checked_against_it():
    records = [_raw(0, {"sha": "AB"}), _raw(1, {"sha": "cd"})]
    assert _findings(digests, _ctx(DIGESTS, records)) == [("UNVERIFIED", "no-digest-list")]
    assert _findings(digests, _ctx(DIGESTS, records, listed_digests={"ab", "cd"})) == [("PASS", "digest-listed")]
    assert _findings(digests, _ctx(DIGESTS, records, listed_digests={"ab"})) == [("FAIL", "digest-unlisted")]


def test_held_parts_and_the_pipeline_follow_the_profiles_sections():
    bare = {"id": "p", "receipts": {"runs": {"glob": "x"}}}
    assert held_parts(bare) == {"gate", "receipts"}
    assert held_parts({**bare, "receipts": {"runs": {"glob": "x", "media": {"pointer": "/o"}}}, "claims": [{}],
                       "manifest": {"kind": "sha256sum"}}) == {"gate", "receipts", "media", "claims", "files"}
    # the checks a profile's sections add (a family with none of them is a `roster.stand_in`, under the same family id)
    ids = lambda profile: {c.id for c in pipeline_for(profile) if not c.func.__qualname__.startswith("stand_in")}  # noqa: E731
    assert "plan.overlap" in ids({**bare, "receipts": {"runs": {"glob": "x", "no_overlap": ["server"]}}})
    assert "derivation.claims" in ids({**bare, "claims": [{"id": "c"}]})
    assert "coverage.media" in ids({**bare, "receipts": {"runs": {"glob": "x", "media": {"pointer": "/o"}}}})
    assert "derivation.digests" in ids({**bare, "receipts": {"runs": {"glob": "x", "listed_digest": {"pointer": "/s"}}}})
    assert not {"plan.overlap", "derivation.claims", "coverage.media", "derivation.digests", "derivation.identities",
                "derivation.matches"} & ids(bare)


def test_a_receipt_file_with_a_problem_is_not_also_reported_mapped(tmp_path):
    from conftest import make_assets
    from helpers import by_check, write_tree

    from verifier.core import verify_path

    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s\nabc\n", "runs/b.csv": "s\n1\n", "summary.json": "{}"})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"},
                                            "phase": {"value": "measured"}}}}}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    found = {(f.path, f.status.value, f.code) for f in by_check(report, "schema.receipts")}
    assert ("runs/b.csv", "PASS", "mapped") in found and ("runs/a.csv", "FAIL", "not-a-number") in found
    assert not [f for f in found if f[0] == "runs/a.csv" and f[1] == "PASS"]
