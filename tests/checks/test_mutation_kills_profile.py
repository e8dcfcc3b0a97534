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

import dataclasses
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile import digests, held_parts, identities, overlap, pipeline_for
from verifier.engine.pipeline import Context, RunData
from verifier.model.evidence import Receipt

from helpers import profile_evidence, profile_receipt

D = Decimal


def _ctx(profile: dict[str, Any], records: list[Receipt], **data: Any) -> Context:
    return Context(subject=Path("."), assets=None, options={"profile": {"id": "p", **profile}},
                   run=RunData(**{**profile_evidence(runs=records), **data}))


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
    assert "coverage.streams" in ids({**bare, "receipts": {"runs": {"glob": "x", "media": {"pointer": "/o"}}}})  # presence only
    assert "derivation.digests" in ids({**bare, "receipts": {"runs": {"glob": "x", "listed_digest": {"pointer": "/s"}}}})
    assert not {"plan.overlap", "derivation.claims", "coverage.streams", "derivation.digests", "derivation.identities",
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
    found = {(f.path, f.status.value, f.code) for f in by_check(report, "schema.documents")}
    assert ("runs/b.csv", "PASS", "mapped") in found and ("runs/a.csv", "FAIL", "not-a-number") in found
    assert not [f for f in found if f[0] == "runs/a.csv" and f[1] == "PASS"]


# --- issue 42 (cosmic-ray): the lines the config's test files never reached, and the messages pinned whole -------------

R = {"runs": {"glob": "runs.json"}}


def _all(check, ctx: Context) -> list[tuple]:
    return [(f.status.value, f.code, f.path, f.pointer, f.message) for f in check(ctx)]


def test_identity_findings_name_each_broken_record_and_go_on_to_the_next():
    """
    Kills :212 / :216 `except` replaced, :215 / :219 `continue` -> `break`, :256 `isinstance(exc, Undefined)` -> `not` (its own message kept),
    :255 `except ArithmeticError` replaced (an overflow is undefined, not an error), :151 `written is not None` -> `is None`,
    :148 `value is None` -> `is not None`, :228 `not judged.holds` -> `judged.holds`.
    """
    left, term = {"pointer": "/a", "unit": "s"}, {"pointer": "/b", "unit": "s"}
    spec = {"identities": [_identity("value", left, [term], "0.5")], "receipts": R}
    records = [_raw(0, {"a": D(1)}), _raw(1, {"a": D(1), "b": "3 MiB"}), _raw(2, {"a": D(1), "b": D(3)}), _raw(3, {"a": D(1), "b": D("1.25")})]
    assert _all(identities, _ctx(spec, records)) == [
        ("FAIL", "missing-field", "runs.json", "/0", "i: runs.json /0 has no number at /b"),
        ("FAIL", "missing-field", "runs.json", "/1", "i: runs.json /1 has no number at /b ('3 MiB' is in MiB, not in a unit of s's dimension)"),
        ("FAIL", "identity-mismatch", "runs.json", "/2/a", "i: runs.json /2: /a = 1, value(/b) = 3 (delta -2, tolerance 0.5)")]
    ratio = {"identities": [_identity("ratio", A, [B, C])], "receipts": R}
    undefined = [_raw(0, {"a": D(1), "b": D(1), "c": D(0)}), _raw(1, {"a": D(1), "b": D("1E+999999"), "c": D("1E-999999")}),
                 _raw(2, {"a": D(1), "b": D(2), "c": D(1)})]
    assert _all(identities, _ctx(ratio, undefined)) == [
        ("UNVERIFIED", "identity-undefined", "runs.json", "/0", "i: runs.json /0: its divisor is 0, so it cannot be judged"),
        ("UNVERIFIED", "identity-undefined", "runs.json", "/1", "i: runs.json /1: ratio of its terms is undefined (Overflow), so it cannot be judged"),
        ("FAIL", "identity-mismatch", "runs.json", "/2/a", "i: runs.json /2: /a = 1, ratio(/b, /c) = 2 (delta -1, tolerance 0.5)")]


def test_an_identity_that_holds_names_its_largest_gap_and_the_records_skipped():
    """Kills :197 `when_present`, :199 `len - len` -> `+`, :236 `if skipped` -> `if not skipped`, :227 `max` of the gaps, :191 the de-duplication (`not in` -> `in`, `and` -> `or`)."""
    spec = {"identities": [_identity("value", A, [B], "0.5")], "receipts": R}
    present = {"identities": [{**_identity("value", A, [B], "0.5"), "when_present": True}], "receipts": R}
    records = [_raw(0, {"a": D(1)}), _raw(1, {"a": D(1), "b": D("1.2")}), _raw(2, {"a": D(1), "b": D("0.9")})]
    assert _all(identities, _ctx(present, records)) == [
        ("PASS", "identity-holds", "runs.json", None, "i: holds on all 2 records of runs (largest delta 0.2); 1 records state none of its terms and are not checked")]
    assert _all(identities, _ctx(spec, records[1:])) == [("PASS", "identity-holds", "runs.json", None, "i: holds on all 2 records of runs (largest delta 0.2)")]
    same = {"a": D(1), "b": D(1)}  # one record read twice (the same raw object): judged once
    (f,) = identities(_ctx(spec, [_raw(0, same), _raw(1, same), _raw(2, {"a": D(2), "b": D(2)})]))
    assert (f.message, f.observed) == ("i: holds on all 2 records of runs (largest delta 0)", 2)


def test_an_identity_over_several_sets_judges_each_even_after_an_empty_one():
    """Kills :188 `isinstance(..., list)`, :193 / :202 `continue` -> `break`, :192 / :200 `not records` -> `records`."""
    over = {**_identity("value", A, [B], "0.5"), "receipts": ["none", "runs"]}
    profile = {"identities": [over], "receipts": {"none": {"glob": "n.json"}, "runs": {"glob": "runs.json"}}}
    assert _all(identities, _ctx(profile, [_raw(0, {"a": D(1), "b": D(1)})])) == [
        ("UNVERIFIED", "no-receipts", None, None, "i: receipt set none has no records to check"),
        ("PASS", "identity-holds", "runs.json", None, "i: holds on all 1 records of runs (largest delta 0)")]
    present = {**over, "when_present": True, "receipts": ["runs", "runs"]}
    ctx = _ctx({"identities": [present], "receipts": R}, [_raw(0, {"a": D(1)})])
    assert _all(identities, ctx) == [("UNVERIFIED", "no-receipts", None, None, "i: no record of runs states its terms (1 skipped)")] * 2


def test_a_one_over_tolerance_is_one_over_the_records_own_field_and_zero_is_no_number():
    """Kills :274 `not per` -> `per` and :281 `isinstance(tolerance, dict)` (one frame at 25 fps: 0.04)."""
    spec = {"identities": [_identity("value", A, [B], {"one_over": "/fps"})], "receipts": R}
    records = [_raw(0, {"a": D(1), "b": D("1.03"), "fps": D(25)}), _raw(1, {"a": D(1), "b": D("1.05"), "fps": D(25)}),
               _raw(2, {"a": D(1), "b": D(1), "fps": D(0)})]
    assert _all(identities, _ctx(spec, records)) == [
        ("FAIL", "identity-mismatch", "runs.json", "/1/a", "i: runs.json /1: /a = 1, value(/b) = 1.05 (delta -0.05, tolerance 0.04)"),
        ("FAIL", "missing-field", "runs.json", "/2", "i: runs.json /2 has no number at /fps")]


def test_an_identity_marks_every_compared_place_examined_and_a_table_row_also_at_its_document_place():
    """Kills :222 `id(raw) in in_documents` -> `not in` and the examined places of :221 / :223 (read by `claims.coverage`)."""
    row = {"#table": 1, "#row": 2, "#heading": "Results", "a": D(1), "b": D(1)}
    ctx = _ctx({"identities": [_identity("value", A, [B], "0.5")], "receipts": R}, [_raw(0, {"a": D(1), "b": D(1)}), _raw(1, row)])
    assert _findings(identities, ctx) == [("PASS", "identity-holds")]
    assert ctx.run.examined == {("runs.json", "/0/a"), ("runs.json", "/0/b"), ("runs.json", "/1/a"), ("runs.json", "/1/b"),
                                    ("runs.json", "/tables/Results/1/a"), ("runs.json", "/tables/Results/1/b")}


def test_a_stated_number_is_read_in_the_terms_unit():
    """Kills :135 `is None`, :137 `or` -> `and` / `==` -> `!=`, :138 each `and` -> `or` / `in` -> `not in`, :141 `except` replaced."""
    from verifier.checks.profile import _stated_number

    cases = [("76.000%", {"unit": "%"}, (D("76.000"), False)), ("244.6s", {"unit": "ms"}, (D("244600.0"), False)), ("24/1", {}, (D(24), True)),
             ("24", {}, (D(24), False)), (D("2.5"), {"unit": "s"}, (D("2.5"), False)), ("2 s", {"unit": "s"}, (D(2), False)),
             ("3 MiB", {"unit": "s"}, (None, False)), ("n/a", {}, (None, False)), ("5 parsecs", {"unit": "s"}, (None, False))]
    assert [_stated_number({"a": raw}, {"pointer": "/a", **term}) for raw, term, _ in cases] == [want for _, _, want in cases]


def test_overlap_messages_name_the_group_and_every_group_is_judged():
    """Kills :301 `not dims` -> `dims`, :302 / :310 `continue` -> `break`, :308 `or` -> `and`, and pins the messages (:309, :315, :318)."""
    profile = {"receipts": {"plain": {"glob": "p.json"}, "runs": {"glob": "runs.json", "no_overlap": ["server"]}}}
    def clock(i, server, start, end):
        return profile_receipt("runs.json", f"/{i}", {}, dims={"request_id": f"r{i}", "server": server},
                               start=None if start is None else D(start), end=None if end is None else D(end))
    records = [clock(0, "s1", "0", None), clock(1, "s2", "0", "1"), clock(2, "s2", "1", "2"), clock(3, "s3", "0", "2"), clock(4, "s3", "1", "3")]
    assert _all(overlap, _ctx(profile, records)) == [
        ("UNVERIFIED", "missing-field", "runs.json", None, "receipts.runs (server=s1): some requests lack start/end clocks"),
        ("PASS", "sequential", "runs.json", None, "receipts.runs (server=s2): 2 requests, none overlaps the next"),
        ("FAIL", "overlap", "runs.json", "/4", "receipts.runs (server=s3): r4 starts before r3 ended (1 overlapping pair(s))")]


def test_digest_messages_name_the_record_and_the_first_16_characters():
    """Kills :336 `not in` -> `in` / :337 `continue` -> `break`, :345 `continue` -> `break`, :350 `except KeyError` replaced, :352 `or` -> `and`,
    :354 `[:16]` -> 15 / 17, :356 `not bad` -> `bad`, and pins the messages."""
    profile = {"receipts": {"other": {"glob": "o.json"}, "runs": {"glob": "*.json", "listed_digest": {"pointer": "/sha"}}}}
    def rec(path, i, raw):
        return profile_receipt(path, f"/{i}", raw, dims={})
    sha = "0123456789abcdef0123"
    records = [rec("a.json", 0, {"sha": sha.upper()}), rec("b.json", 0, {}), rec("b.json", 1, {"sha": 5}), rec("b.json", 2, {"sha": "ffff"})]
    assert _all(digests, _ctx(profile, records)) == [
        ("UNVERIFIED", "no-digest-list", "a.json", None, "a.json: the bundle's digest list was not read"),
        ("UNVERIFIED", "no-digest-list", "b.json", None, "b.json: the bundle's digest list was not read")]
    assert _all(digests, _ctx(profile, records, listed_digests={sha, "ffff"})) == [
        ("PASS", "digest-listed", "a.json", None, "a.json: all 1 output digests are in the digest list"),
        ("FAIL", "digest-unlisted", "b.json", "/0/sha", "b.json /0: output sha256 None... is not in the digest list"),
        ("FAIL", "digest-unlisted", "b.json", "/1/sha", "b.json /1: output sha256 5... is not in the digest list")]
    assert _all(digests, _ctx(profile, records[:1], listed_digests={"ffff"})) == [
        ("FAIL", "digest-unlisted", "a.json", "/0/sha", "a.json /0: output sha256 0123456789ABCDEF... is not in the digest list")]


class _Files:
    """A stand-in bundle tree holding `files` (what `profile_media.present` asks: does an output exist)."""

    def __init__(self, *files: str):
        self.files = set(files)

    def exists(self, rel: str) -> bool:
        return rel in self.files


def test_media_without_an_expected_shape_are_reported_present_or_absent():
    """Kills in `profile_media.presence_sets` `not in` -> `in`, `and` -> `or`, `in` -> `not in`; in `present` `except KeyError`
    replaced, `and` -> `or`, the `no-findings` stand-in's `and` -> `or`, `not found` -> `found`; and pins the messages and the check id."""
    from verifier.checks.profile_media import present as media

    profile = {"receipts": {"shaped": {"glob": "s.json", "media": {"pointer": "/out", "expected": {}}}, "plain": {"glob": "p.json"},
                            "runs": {"glob": "runs.json", "media": {"pointer": "/out"}}}}
    records = [_raw(0, {"out": "a.mp4"}), _raw(1, {"out": "b.mp4"}), _raw(2, {}), _raw(3, {"out": 7})]
    ctx = Context(subject=Path("."), assets=None, bundle=_Files("a.mp4", "7"), options={"profile": {"id": "p", **profile}},
                  run=RunData(**profile_evidence(runs=records)))
    assert _all(media, ctx) == [
        ("UNVERIFIED", "media-not-checked", "a.mp4", None,
         "a.mp4: present, but the profile maps no expected shape for it, so decode and coverage checks are not run"),
        ("UNVERIFIED", "media-absent", "runs.json", "/1/out", "runs.json /1: output b.mp4 is not in this copy, so decode and coverage checks cannot run"),
        ("UNVERIFIED", "media-absent", "runs.json", "/2/out", "runs.json /2: output None is not in this copy, so decode and coverage checks cannot run"),
        ("UNVERIFIED", "media-absent", "runs.json", "/3/out", "runs.json /3: output 7 is not in this copy, so decode and coverage checks cannot run")]
    assert {f.check for f in media(ctx)} == {"coverage.streams"}
    # no record of a presence set read: said once, as the pipeline says it of a check that established nothing (coverage.media was one)
    unread = dataclasses.replace(ctx, run=RunData(**profile_evidence(runs=[])))
    assert _all(media, unread) == [("UNVERIFIED", "no-findings", None, None, "the check produced no findings, so nothing was established")]
    shaped_only = dataclasses.replace(unread, options={"profile": {"id": "p", "receipts": {"shaped": profile["receipts"]["shaped"]}}})
    assert _all(media, shaped_only) == []  # no presence set: nothing to say (coverage of the shaped set is `asked`'s)


def test_the_media_a_set_names_are_read_once_each_from_read_records_only():
    """Kills in `profile_receipts._media_of` `is not None` -> `is None`, each `continue` -> `break`, `except KeyError` replaced, `and` -> `or`, `not in` -> `in`."""
    from verifier.checks.profile_receipts import _media_of

    records = [profile_receipt("r.json", "/0", {"out": "x.mp4"}, unread="blocked"), _raw(1, {}), _raw(2, {"out": 3}), _raw(3, {"out": "a.mp4"}),
               _raw(4, {"out": "a.mp4"}), _raw(5, {"out": "b.mp4"})]
    assert [(m.path, m.role) for m in _media_of(records, "/out")] == [("a.mp4", "output"), ("b.mp4", "output")]


def _run(tmp_path: Path, files: dict[str, str], runs: dict, **profile_args):
    from conftest import make_assets
    from helpers import write_tree

    from verifier.core import verify_path

    bundle = write_tree(tmp_path / "run", {**files, "summary.json": "{}"})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"}, "receipts": {"runs": runs}, **profile_args}
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))


CSV = {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
       "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}


def test_mapped_receipt_files_are_counted_and_a_file_the_sets_where_empties_is_not_mapped(tmp_path):
    """Kills :83 `+ 1` -> `- 1` and `0` -> `1`, :88 `not n` -> `n`, :89 `continue` -> `break`, :85 `in` -> `not in`, and pins the message."""
    runs = {**CSV, "where": {"kind": "run"}}
    report = _run(tmp_path, {"runs/a.csv": "s,kind\n1,warmup\n", "runs/b.csv": "s,kind\n1,run\n2,run\n3,warmup\n"}, runs)
    assert [(f.status.value, f.code, f.path, f.message, f.observed) for f in report.findings if f.check == "schema.documents"] == [
        ("PASS", "mapped", "runs/b.csv", "receipts.runs: runs/b.csv maps 2 records with every mapped field", 2)]


def test_a_field_no_record_states_maps_no_file(tmp_path):
    """Kills :77 `p.code == NEVER_STATED` -> `!=`: a mapping that matches nothing is the whole set's problem, so no file is `mapped`."""
    runs = {**CSV, "fields": {**CSV["fields"], "request_id": {"pointer": "/rid"}}}
    report = _run(tmp_path, {"runs/a.csv": "s\n1\n", "runs/b.csv": "s\n2\n"}, runs)
    found = [(f.status.value, f.code) for f in report.findings if f.check == "schema.documents"]
    assert found == [("UNVERIFIED", "mapping-matches-nothing")], found


def test_the_judging_profile_is_named_with_its_sha256(tmp_path):
    """Kills :399 `in unpinned` -> `not in` and the sha256 shown (:402 / :406 `[:12]` -> 11 / 13)."""
    import hashlib

    report = _run(tmp_path, {"runs/a.csv": "s\n1\n"}, CSV)
    (f,) = [f for f in report.findings if f.check == "gate.pinned"]
    sha = hashlib.sha256((tmp_path / "assets" / "profiles" / "run.json").read_bytes()).hexdigest()
    assert (f.status.value, f.code, f.message, f.observed) == ("PASS", "profile-pinned", f"judged by profile run, pinned at sha256 {sha[:12]}...",
                                                               {"profile": "run", "sha256": sha})


def test_the_pipeline_holds_one_check_per_declared_section():
    """Kills :418 `or` -> `and`, :439-:462 each section test (`in` -> `not in`, `and` -> `or`, `!=` -> `==`)."""
    bare = {"id": "p", "receipts": {"runs": {"glob": "x"}}}
    assert held_parts({**bare, "gate": {"rules": []}}) == {"gate", "receipts", "claims"}
    ids = lambda profile, **kw: {c.id for c in pipeline_for(profile, **kw) if not c.func.__qualname__.startswith("stand_in")}  # noqa: E731
    base = {"integrity.files", "gate.pinned", "schema.documents"}
    assert ids(bare) == base
    shaped = {**bare, "receipts": {"runs": {"glob": "x", "media": {"pointer": "/o", "expected": {"duration_s": 1}}}}}
    assert ids(shaped) == base | {"coverage.streams"}
    assert ids({**bare, "identities": [{"id": "i"}]}) == base | {"derivation.identities"}
    assert ids({**bare, "matches": [{"id": "m"}]}) == base | {"derivation.matches"}
    assert ids({**bare, "gate": {"rules": []}}) == base | {"gate.rules"}
    assert ids({**bare, "claim_documents": [{"file": "x.md"}]}) == base | {"claims.coverage"}
    assert ids({**bare, "manifest": {"kind": "sha256sum"}}) == base | {"integrity.unchanged"}
    assert ids(bare, claims_text=True) == base | {"claims.stated"}  # binds a --claims-text


def test_a_profile_given_as_a_file_is_named_unpinned_with_its_sha256(tmp_path):
    """Kills :402 `sha[:12]` -> 11 / 13 (the unpinned profile's message) and :399 `in` -> `not in` from the unpinned side."""
    import hashlib
    import json

    from conftest import make_assets
    from helpers import write_tree

    from verifier.core import verify_path

    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s\n1\n", "summary.json": "{}"})
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({"id": "draft", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
                                 "manifest": {"kind": "none", "reason": "no digests"}, "receipts": {"runs": CSV}}))
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {}), profile=str(draft))
    (f,) = [f for f in report.findings if f.check == "gate.pinned"]
    sha = hashlib.sha256(draft.read_bytes()).hexdigest()
    assert (f.status.value, f.code, f.observed) == ("UNVERIFIED", "profile-unpinned", sha)
    assert f.message == f"profile draft was loaded unpinned from {draft} (sha256 {sha[:12]}...); nothing vouches for the rules it states"


def test_an_overlap_finding_is_placed_at_the_first_file_of_its_group():
    """Kills :309 and :318 `group[0].path` -> `group[1]` / `group[-1]` (a group's receipts spread over files, e.g. one file per request)."""
    def clock(i, path, server, start, end):
        return profile_receipt(path, f"/{i}", {}, dims={"request_id": f"r{i}", "server": server},
                               start=None if start is None else D(start), end=None if end is None else D(end))
    records = [clock(0, "a.json", "s1", None, "1"), clock(1, "b.json", "s1", "1", "2"), clock(2, "c.json", "s2", "0", "1"), clock(3, "d.json", "s2", "1", "2")]
    assert [(f.code, f.path) for f in overlap(_ctx(OVERLAP, records))] == [("missing-field", "a.json"), ("sequential", "c.json")]


def test_claims_text_is_a_keyword_only_option_of_the_pipeline():
    """Kills :425 `*` -> `/` in `pipeline_for(profile, *, claims_text=False)`."""
    with pytest.raises(TypeError):
        pipeline_for({"id": "p", "receipts": {}}, True)  # type: ignore[misc]
