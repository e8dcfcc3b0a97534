"""
Stated claims (issue 12): every number in a bundle's headline, notes, README and a pull-request body is bound or named.

Most tests run the bundle pipeline up to `claims.stated` (integrity, gate,
schemas, plan, derivation, statements): the media checks are not what is
under test and take seconds per run.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import asset_root, edit_json, make_bundle, rehash

from verifier import verify_path
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets

PIPELINE = (integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims, statements.stated)


def run_claims(bundle: Path, claims_text: tuple[str, str] | None = None):
    """Return the findings of the reduced pipeline on `bundle`."""
    options = {"claims_text": claims_text} if claims_text else {}
    ctx = Context(subject=bundle, assets=assets(), bundle=Bundle(root=bundle), options=options)
    findings, _ = run_pipeline(PIPELINE, ctx)
    return findings


def stated(findings, status=None, source=None):
    return [f for f in findings if f.check == "claims.stated" and (status is None or f.status == status)
            and (source is None or f.observed["source"] == source)]


def set_headline(bundle: Path, headline: str) -> None:
    edit_json(bundle / "claims.json", lambda d: d.update(headline=headline))
    rehash(bundle)


def test_example_headline_and_readme_are_all_bound(example_copy):
    found = stated(run_claims(example_copy))
    assert found and all(f.status == "PASS" for f in found), [f.message for f in found if f.status != "PASS"]
    sources = {f.observed["source"] for f in found}
    assert sources == {"claims.json#/headline", "README.md"}
    readme = [f for f in found if f.observed["source"] == "README.md" and f.code != "informational"]
    assert len(readme) >= 20
    codes = {f.code for f in readme}
    assert {"bound", "plan-count", "gate-threshold", "recorded-score"} <= codes


def test_headline_98_12_75_91_4_15_fails_on_each_naming_the_sentence(example_copy):
    headline = "407.27 s -> 98.12 s HTTP E2E, 75.91 % lower (4.15x inverse-latency speedup)"
    set_headline(example_copy, headline)
    bad = stated(run_claims(example_copy), "FAIL")
    assert [f.observed["stated"] for f in bad] == ["98.12 s", "75.91 %", "4.15 x"]
    assert all(f.code == "claim-mismatch" and headline in f.message and f.path == "claims.json" for f in bad)
    assert bad[0].observed["derived"] == "108.12"
    assert bad[1].observed["derived"].startswith("73.4525")
    assert bad[2].observed["derived"].startswith("3.76683")


def test_percent_faster_for_a_time_reduction_is_a_wording_mismatch(example_copy):
    set_headline(example_copy, "407.27 s -> 108.12 s HTTP E2E, 73.45 % faster (3.77x inverse-latency speedup)")
    bad = stated(run_claims(example_copy), "FAIL")
    assert [(f.code, f.observed["stated"]) for f in bad] == [("wording-mismatch", "73.45 %")]
    assert "(baseline/candidate - 1) x 100" in bad[0].message and "276.68" in bad[0].message
    assert "(1 - candidate/baseline) x 100" in bad[0].message


def test_ms_statement_of_a_seconds_value_converts_and_passes(example_copy):
    set_headline(example_copy, "407270 ms -> 108120 ms HTTP E2E; server A1 mean 396300 ms")
    found = stated(run_claims(example_copy), source="claims.json#/headline")
    assert [f.status for f in found] == ["PASS", "PASS", "PASS"], [f.message for f in found]
    assert found[2].observed["binding"] == "server_mean_s.A1"


def test_ms_statement_off_by_one_ms_fails(example_copy):
    set_headline(example_copy, "server A1 mean 396301 ms")
    bad = stated(run_claims(example_copy), "FAIL")
    assert [(f.code, f.observed["stated"]) for f in bad] == [("claim-mismatch", "396301 ms")]


def test_number_nothing_accounts_for_is_unverified_with_sentence_and_position(example_copy):
    set_headline(example_copy, "407.27 s -> 108.12 s. Peak HBM is 44.86 % lower.")
    found = run_claims(example_copy)
    unchecked = stated(found, "UNVERIFIED")
    assert [(f.code, f.observed["stated"], f.observed["line"], f.observed["column"]) for f in unchecked] == [
        ("unchecked-claim", "44.86 %", 1, 35)]
    assert "Peak HBM is 44.86 % lower." in unchecked[0].message


def test_claims_json_claim_in_ms_converts_and_passes(example_copy):
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=Decimal("396300"), unit="ms")
                                                        for c in d["claims"] if c["id"] == "server_mean_s.A1"])
    rehash(example_copy)
    found = [f for f in run_claims(example_copy) if f.check == "derivation.claims" and "server_mean_s.A1" in f.message]
    assert [(f.status, f.code) for f in found] == [("PASS", "derived")], found[0].message


def test_claims_json_claim_in_another_dimension_fails_unit_mismatch(example_copy):
    edit_json(example_copy / "claims.json", lambda d: [c.update(unit="samples/s") for c in d["claims"] if c["id"] == "server_mean_s.A1"])
    rehash(example_copy)
    found = [f for f in run_claims(example_copy) if f.check == "derivation.claims" and "server_mean_s.A1" in f.message]
    assert [(f.status, f.code) for f in found] == [("FAIL", "unit-mismatch")]
    assert "samples/s" in found[0].message


def test_notes_are_claim_text(example_copy):
    edit_json(example_copy / "claims.json", lambda d: d.update(notes="The baseline sample SD across server means is 15.61 s."))
    rehash(example_copy)
    bad = stated(run_claims(example_copy), "FAIL")
    assert [(f.observed["source"], f.observed["stated"], f.observed["binding"]) for f in bad] == [
        ("claims.json#/notes", "15.61 s", "sd_server_means_s.baseline")]


def test_readme_not_utf8_fails(example_copy):
    (example_copy / "README.md").write_bytes(b"407.27 s \xff\n")
    rehash(example_copy)
    bad = stated(run_claims(example_copy), "FAIL")
    assert [(f.code, f.path) for f in bad] == [("claim-text-not-utf8", "README.md")]


# --- recorded gate outcomes ------------------------------------------------------

def outcome_findings(bundle: Path, outcomes: list, quality_edit=None):
    edit_json(bundle / "claims.json", lambda d: d.update(outcomes=outcomes))
    if quality_edit:
        edit_json(bundle / "quality-index.json", quality_edit)
    rehash(bundle)
    return [(f.status, f.code) for f in stated(run_claims(bundle)) if f.pointer and f.pointer.startswith("/outcomes/")]


def test_recorded_quality_pass_over_all_comparisons_rederives(example_copy):
    assert outcome_findings(example_copy, [{"gate": "quality", "passed": True, "covers": "all"},
                                           {"gate": "quality.ssim", "passed": True, "covers": ["c01", "c02"]}]) == [
        ("PASS", "outcome-rederived"), ("PASS", "outcome-rederived")]


def test_recorded_pass_without_scope_is_unverified(example_copy):
    assert outcome_findings(example_copy, [{"gate": "quality", "passed": True}]) == [("UNVERIFIED", "outcome-scope-undeclared")]


def test_recorded_outcome_nothing_rederives_is_unverified(example_copy):
    assert outcome_findings(example_copy, [{"gate": "e2e-latency", "passed": True, "covers": "all"},
                                           {"gate": "quality.lpips", "passed": True, "covers": "all"}]) == [
        ("UNVERIFIED", "outcome-not-derivable"), ("UNVERIFIED", "outcome-not-derivable")]


def test_recorded_pass_that_rederives_to_fail_fails(example_copy):
    def low(d):
        d["comparisons"][0]["scores"]["ssim"] = Decimal("0.961")
    assert outcome_findings(example_copy, [{"gate": "quality", "passed": True, "covers": "all"},
                                           {"gate": "quality.ssim", "passed": True, "covers": ["c02"]}], low) == [
        ("FAIL", "outcome-contradicted"), ("PASS", "outcome-rederived")]


def test_recorded_fail_that_rederives_to_pass_fails_and_unknown_scope_fails(example_copy):
    assert outcome_findings(example_copy, [{"gate": "quality", "passed": False, "covers": "all"},
                                           {"gate": "quality", "passed": True, "covers": ["c99"]}]) == [
        ("FAIL", "outcome-contradicted"), ("FAIL", "outcome-scope-unknown")]


def test_readme_with_too_many_numbers_is_unverified(example_copy):
    from verifier.readers.claimtext import MAX_QUANTITIES

    (example_copy / "README.md").write_text("1 s. " * (MAX_QUANTITIES + 1), encoding="utf-8")
    rehash(example_copy)
    found = [(f.status, f.code, f.path) for f in stated(run_claims(example_copy)) if f.path == "README.md"]
    assert found == [("UNVERIFIED", "claim-text-too-long", "README.md")]


def test_readme_larger_than_a_claim_text_may_be_is_unverified_unparsed(example_copy):
    """A README of one number with millions of digits (a newcomer's hostile trial: MemoryError, exit 4) is refused by size, unparsed."""
    from verifier.readers.claimtext import MAX_TEXT_BYTES

    (example_copy / "README.md").write_text("Extra: " + "1" * MAX_TEXT_BYTES, encoding="utf-8")
    rehash(example_copy)
    found = [(f.status, f.code, f.path) for f in stated(run_claims(example_copy)) if f.path == "README.md"]
    assert found == [("UNVERIFIED", "claim-text-too-large", "README.md")]
    (example_copy / "README.md").write_text("Extra: " + "1" * (MAX_TEXT_BYTES - 7), encoding="utf-8")  # exactly the bound: read
    rehash(example_copy)
    assert "claim-text-too-large" not in {f.code for f in stated(run_claims(example_copy))}


def test_running_out_of_memory_is_one_line_and_exit_4(monkeypatch, capsys):
    """A MemoryError anywhere (a newcomer's 30 MB claim document ran the text reporter out of memory: traceback, exit 1) is exit 4."""
    import sys

    import pytest

    from verifier import cli, core

    def exhausted(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(core, "verify_path", exhausted)
    monkeypatch.setattr(sys, "argv", ["verify", "--no-cache", "examples/ref2va-5s"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 4 and err.startswith("verify: error: the verifier ran out of memory") and "Traceback" not in err


_SPREAD_GATE = {"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1},
                "claims": [{"claim": "max_s", "statistic": "max", "per": "arm", "selection": {"phase": "measured"}, "unit": "s"},
                           {"claim": "min_s", "statistic": "min", "per": "arm", "selection": {"phase": "measured"}, "unit": "s"},
                           {"claim": "sd_s", "statistic": "sd", "per": "arm", "selection": {"phase": "measured"}, "unit": "s"}]}


def _spread_stated(tmp_path, sentence: str) -> list:
    """The `claims.stated` findings of claim text `sentence` on a bundle of `_SPREAD_GATE`: baseline 2, 4 s; candidate 1, 3 s."""
    roots = asset_root(tmp_path, {"spread-v1": _SPREAD_GATE})
    bundle = make_bundle(tmp_path / "b", "spread-v1", {"A1": ("baseline", [("measured", 2.0, "ok"), ("measured", 4.0, "ok")]),
                                                       "B1": ("candidate", [("measured", 1.0, "ok"), ("measured", 3.0, "ok")])},
                         {"max_s.baseline": 4.0, "max_s.candidate": 3.0, "min_s.baseline": 2.0, "min_s.candidate": 1.0,
                          "sd_s.baseline": 1.4142135623730951, "sd_s.candidate": 1.4142135623730951})
    report = verify_path(str(bundle), asset_root=roots, claims_text=("pr.md", sentence + "\n"))
    found = [f for f in report.findings if f.check == "claims.stated" and f.observed.get("source") == "pr.md"]
    return found


@pytest.mark.parametrize("sentence,status", [
    ("The candidate's max latency was 9.9 s.", "FAIL"), ("The candidate's max latency was 3.0 s.", "PASS"),
    ("The baseline's min latency was 0.5 s.", "FAIL"), ("The baseline's min latency was 2.0 s.", "PASS"),
    ("The candidate's standard deviation was 9.9 s.", "FAIL"), ("The candidate's standard deviation was 1.41 s.", "PASS"),
])
def test_a_native_gates_max_min_and_sd_rules_bind_the_prose_that_names_them(tmp_path, sentence, status):
    # the profile road bound "max", "min" and "sd" words; the native gate's rules of those statistics were unbound (UNVERIFIED)
    found = _spread_stated(tmp_path, sentence)
    assert [f.status.value for f in found] == [status], [f.message for f in found]


@pytest.mark.parametrize("sentence,allowed", [
    # helper-88: the second number of a list lost the arm its sentence names and PASSed on the other arm's value; a true list
    # FAILed, its first number judged against the second word's statistic. Never PASS or FAIL on a guess: which number is which
    # statistic ("respectively") is not read, so such a number is UNVERIFIED unless its own words decide.
    ("The candidate's min and max latency were 1.0 s and 4.0 s.", [{"PASS", "UNVERIFIED"}, {"FAIL", "UNVERIFIED"}]),
    ("The candidate's max latency and sd were 4.0 s and 1.41 s.", [{"FAIL", "UNVERIFIED"}, {"PASS", "UNVERIFIED"}]),
    ("The candidate's min and max latency were 1.0 s and 3.0 s.", [{"PASS", "UNVERIFIED"}, {"PASS", "UNVERIFIED"}]),
    ("The baseline's max and min latency were 4.0 s and 2.0 s.", [{"PASS", "UNVERIFIED"}, {"PASS", "UNVERIFIED"}]),
    ("The candidate's latency was 1.0 s at least and 3.0 s at most.", [{"PASS", "UNVERIFIED"}, {"PASS", "UNVERIFIED"}]),
    ("The candidate's min and max latency, unlike the baseline's, were 1.0 s and 4.0 s.", [{"PASS", "UNVERIFIED"}, {"FAIL", "UNVERIFIED"}]),
])
def test_a_list_of_numbers_keeps_the_arm_its_sentence_names(tmp_path, sentence, allowed):
    found = _spread_stated(tmp_path, sentence)
    assert len(found) == 2 and all(f.status.value in ok for f, ok in zip(found, allowed)), [f"{f.status.value} {f.message}" for f in found]
    assert not any(f.status.value == "PASS" and "baseline" in f.message for f in found if "candidate's" in sentence)
