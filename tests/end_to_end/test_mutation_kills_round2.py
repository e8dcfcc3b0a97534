"""
Issue 42: tests that kill the mutants an independent mutation sample left alive.

Each test names the mutant it kills (the statement and what was done to it).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import EXAMPLE

from verifier.engine import stats
from verifier.prose.binding import bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import extract
from verifier.engine.pipeline import Context, RunData, run_pipeline
from verifier.trust.assets import assets


@pytest.fixture(scope="module")
def example_evidence():
    """Return `(evidence, pairs, keys)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)[:3]


# checks/statements.py `_finding`: `detail["delta"] = str(q.value - o.derived)` with the operands swapped
@pytest.mark.parametrize(("text", "delta"), [
    ("The candidate arm mean is 98.12 s.", "-10.00"),
    ("The candidate arm mean is 118.12 s.", "10.00"),
])
def test_the_delta_a_stated_number_finding_records_is_stated_minus_derived(text, delta, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    finding = statements._finding(outcome, None)
    assert finding.observed["claimed"] == text.split()[-2] and Decimal(finding.observed["derived"]) == Decimal("108.12")
    assert finding.observed["delta"] == delta  # stated - derived, as `stats.Comparison.delta` and every other claim finding


# stats.py `tolerance`, the confidence-interval branch: `work = EPS * total + per_input + (abs(stated) / k) * (2 * n * EPS + 4 * U)`
# with its last term dropped, a sign flipped, or a constant changed
@pytest.mark.parametrize("statistic", sorted(stats.CI_STATISTICS))
@pytest.mark.parametrize("scale", [1, 1000])
def test_the_ci_tolerance_is_the_means_bound_plus_the_half_widths_quotient_term(statistic, scale):
    xs = [Decimal("100.5"), Decimal("99.25"), Decimal("101")]
    stated = Decimal("3.123456789012345678901234") * scale  # enough places that half a unit of the last is negligible
    n, k = Decimal(3), Decimal(scale)
    mean_bound = stats.EPS * sum(xs) + stats.U * max(xs)
    quotient = (stated / k) * (2 * n * stats.EPS + 4 * stats.U + stats.QUANTILE_ERROR)  # QUANTILE_ERROR: a solver-found critical value (JMH)
    expected = stats.half_unit(stated) + (mean_bound + quotient) * k
    got = stats.tolerance(stated, statistic=statistic, values=xs, scale=scale)
    assert abs(got - expected) <= expected * Decimal("1e-20"), (got, expected)
    assert quotient * k > expected / 20  # the quotient term is a visible part of the bound, so dropping it is seen


# checks/profile_media.py, coverage of a profile's media: the `continue` after UNVERIFIED `media-absent` (a record naming no
# output) and after UNVERIFIED `expected-unreadable` (a record whose expected shape cannot be read), each deleted
@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    """The supplied clips of `tests/profiles/test_profile_media.py` (its fixture's body: a clip covering the record, one with short audio)."""
    from test_profile_media import FRAMES, FULL, make_clips

    d = tmp_path_factory.mktemp("clips")
    return {"covers": make_clips.write_clip(d / "covers.mp4", frames=FRAMES, audio_samples=FULL)}


def _media_report(tmp_path, clips, edit, **media):
    import json

    from conftest import make_assets
    from test_profile_media import PID, _bundle, _profile

    from verifier.core import verify_path

    bundle = _bundle(tmp_path, clips["covers"])
    results = bundle / "artifacts" / "results.json"
    doc = json.loads(results.read_text())
    edit({r["name"]: r for r in doc["records"]})
    results.write_text(json.dumps(doc, indent=2))
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile(**media)}))


def _coverage_of(report):
    """The judged findings of `coverage.streams`, not the presence of the other set's outputs (`test_profile_media._presence`)."""
    from test_profile_media import _presence

    present = _presence(report)
    return [f for f in report.findings if f.check == "coverage.streams" and f not in present]


def test_a_record_naming_no_output_is_media_absent_once_and_judges_nothing(tmp_path, clips):
    def edit(records):
        records["10s-measured-2"].pop("output")
        records["10s-measured-2"]["sha256"] = "0" * 64  # no listed file has it: no name comes from the digest either
    report = _media_report(tmp_path, clips, edit)
    found = _coverage_of(report)
    absent = [f for f in found if f.code == "media-absent"]
    assert len(absent) == 1 and absent[0].status.value == "UNVERIFIED" and absent[0].observed is None
    assert not [f for f in found if f.status.value == "ERROR" or f.path is None and f.code != "media-absent"], [(f.code, f.path) for f in found]
    whole = _coverage_of(_media_report(tmp_path / "whole", clips, lambda records: None))
    assert len(found) == len(whole) + 1  # media-absent, and nothing else more or less


def test_a_record_whose_shape_cannot_be_read_is_expected_unreadable_and_never_judged_against_anothers(tmp_path, clips):
    def edit(records):
        records["10s-measured-1"]["validation"]["frames"] = "many"  # the supplied, covering clip: its record's shape unreadable
    report = _media_report(tmp_path, clips, edit)
    mine = [f for f in _coverage_of(report) if f.path and "10s-measured-1" in f.path or "10s-measured-1" in f.message]
    assert [f.code for f in mine] == ["expected-unreadable"], [(f.code, f.status.value, f.path) for f in mine]
    assert not [f for f in report.findings if f.status.value == "ERROR"]


# checks/profile_unreached.py `_underived`: its `continue` for a place an instance already judged (`handled`) and for a row
# the claim's selection leaves out (`left_out`), each deleted. `verifier.readers.sites.read_sites` leaves both out of the
# `stated` sites already, so through the pipeline these guards are a second line; fed such sites directly, `_underived`
# must still say nothing of them.
def _underived_on(stated_sites, handled):
    import dataclasses
    from pathlib import Path

    from helpers import profile_evidence
    from test_mutation_kills_profile_claims import INDEXED, _rec, _Tree

    from verifier.checks.profile_unreached import _underived
    from verifier.model.evidence import Location, Site
    from verifier.engine.pipeline import Context

    claim = {**INDEXED, "selection": {"phase": "measured", "model": "m1"}, "per": ["model", "arm"],
             "at": {"file": "summary.json", "pointer": "/mean/{model}/{arm}"}}
    records = [_rec("a", "2"), _rec("a", "4"), _rec("a", "9", "m2")]
    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv", "name": "runs/{arm}.csv"}}, "claims": [claim]}
    data = profile_evidence(runs=records)
    sites = tuple(Site("/claims/0", "stated", tuple(key.items()), Location("summary.json", pointer), Decimal(v)) for key, pointer, v in stated_sites)
    data["evidence"] = dataclasses.replace(data["evidence"], sites=sites)
    ctx = Context(subject=Path("."), assets=None, bundle=_Tree({}), options={"profile": profile}, run=RunData(**data))
    return [(f.status.value, f.code, f.pointer) for f in _underived(ctx, "/claims/0", claim, records, [{"model": "m1", "arm": "a"}],
                                                                     lambda: {}, handled, set())]


def test_underived_says_nothing_of_a_row_the_selection_leaves_out():
    assert _underived_on([({"model": "m2", "arm": "a"}, "/mean/m2/a", 9)], set()) == []
    assert _underived_on([({"model": "m1", "arm": "c"}, "/mean/m1/c", 5)], set()) == [("UNVERIFIED", "not-derivable", "/mean/m1/c")]


def test_underived_says_nothing_of_a_place_an_instance_already_judged():
    assert _underived_on([({"model": "m1", "arm": "c"}, "/mean/m1/c", 5)], {("summary.json", "/mean/m1/c")}) == []


# binding.py `_narrow`: `if statistic == "mean" and re.search(r"\bserver means?\b", local) and not ...:` negated ("server
# mean" would no longer keep only server-level values, so an arm's mean would pass for a server's), and `if used and not
# statistic:` negated (a number no wording narrows would be bound among the primary values only)
@pytest.mark.parametrize(("text", "status", "evidence"), [
    ("The server mean is 407.27 s.", "UNVERIFIED", None),  # 407.27 is the baseline arm's mean, which no server has
    ("Its mean is 407.27 s.", "PASS", "arm_mean_s.baseline"),
    ("We saw 396.30 s.", "PASS", "server_mean_s.A1"),
    ("The mean is 396.30 s.", "PASS", "server_mean_s.A1"),  # a statistic named: every mean, not only the headline's
    ("A1 took 396.30 s.", "PASS", "server_mean_s.A1"),
])
def test_the_wording_narrows_the_values_a_number_may_be(text, status, evidence, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    assert (outcome.status, outcome.evidence) == (status, evidence), outcome.message


# binding.py `_fmt`: `if not value.is_finite(): return str(value)` negated (every finite value shown with all its digits)
def test_a_derived_value_is_shown_to_twelve_significant_digits(example_evidence):
    from verifier.prose.binding import _fmt

    [outcome] = bind(extract("The speedup is 3.77x.", "pr.md"), *example_evidence)
    assert "re-derives: 3.76683314835 from" in outcome.message, outcome.message
    assert (_fmt(Decimal("1E+3")), _fmt(Decimal("1.23456789012345")), _fmt(Decimal("Infinity"))) == ("1000", "1.23456789012", "Infinity")


# binding.py `_bind_arrow`: `if statistic:` negated (an arrow whose wording names the mean would be matched against every
# pair, so the SD pair's values would pass for the means)
@pytest.mark.parametrize(("text", "statuses"), [
    ("The mean went 15.51 -> 2.06 s.", ["FAIL", "FAIL"]),
    ("The SD went 15.51 -> 2.06 s.", ["PASS", "PASS"]),
])
def test_an_arrow_is_matched_against_the_pairs_of_the_statistic_it_names(text, statuses, example_evidence):
    assert [o.status for o in bind(extract(text, "pr.md"), *example_evidence)] == statuses


# binding.py `_Ids.of`: `if o.role:` negated (every number that is no arrow end would tie a relative phrase to a pair)
def test_a_plain_number_beside_a_relative_phrase_does_not_tie_it_to_a_pair(example_evidence):
    outcomes = bind(extract("It is 108.12 s: 73.45% lower.", "pr.md"), *example_evidence)
    assert [(o.status, o.code) for o in outcomes] == [("PASS", "bound"), ("UNVERIFIED", "unchecked-claim")]


# binding.py `_bind_relative`, a relative number with no wording: `if stats.compare(q.value, derived, ...).holds:` negated
# (the first formula it does NOT equal would pass it)
@pytest.mark.parametrize(("text", "status"), [("Latency ratio: 3.77x.", "PASS"), ("Latency ratio: 9.99x.", "UNVERIFIED"),
                                              ("Latency change: 73.45%.", "PASS"), ("Latency change: 12.00%.", "UNVERIFIED")])
def test_a_relative_number_without_wording_passes_only_when_some_formula_gives_it(text, status, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    assert outcome.status == status, outcome.message
