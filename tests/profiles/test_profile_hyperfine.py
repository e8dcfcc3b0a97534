"""The fourth profile: `hyperfine --export-json`, written from hyperfine's documented export shape (fixture: tests/data/hyperfine/_make.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT

from verifier.core import verify_path

EXPORT = ROOT / "tests" / "data" / "hyperfine" / "export.json"


def _variant(tmp_path: Path, change) -> Path:
    doc = json.loads(EXPORT.read_text())
    change(doc)
    out = tmp_path / "bench.json"
    out.write_text(json.dumps(doc, indent=2))
    return out


def _claims(report):
    return {f.message.split(":")[0]: f for f in report.findings if f.check == "derivation.claims"}


def test_export_rederives_every_statistic_and_is_incomplete_without_a_manifest(run):
    report = verify_path(str(EXPORT), profile="hyperfine")
    claims = _claims(report)
    assert len(claims) == 10  # mean, stddev, median, min, max for two commands
    assert all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    assert "sample SD (n-1)" in claims["stddev[file=export.json][arm=sleep 0.1]"].derivation
    (no_manifest,) = [f for f in report.findings if f.check == "integrity.files"]
    assert (no_manifest.status, no_manifest.code) == ("UNVERIFIED", "no-manifest")
    assert report.verdict == "INCOMPLETE"
    result = run("--profile", "hyperfine", str(EXPORT))
    assert result.exit_code == 3


def test_export_is_detected_as_a_file_and_in_a_directory(tmp_path):
    assert verify_path(str(EXPORT)).kind == "profile:hyperfine"
    shutil.copy(EXPORT, tmp_path / "results.json")
    assert verify_path(str(tmp_path)).kind == "profile:hyperfine"


def test_wrong_mean_fails(tmp_path):
    def change(doc):
        doc["results"][1]["mean"] += 0.0001
    report = verify_path(str(_variant(tmp_path, change)), profile="hyperfine")
    f = _claims(report)["mean[file=bench.json][arm=sleep 0.2]"]
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")
    assert report.verdict == "FAIL"


def test_population_sd_instead_of_sample_sd_fails(tmp_path):
    def change(doc):
        r = doc["results"][0]
        n = len(r["times"])
        r["stddev"] = r["stddev"] * ((n - 1) / n) ** 0.5
    f = _claims(verify_path(str(_variant(tmp_path, change)), profile="hyperfine"))["stddev[file=bench.json][arm=sleep 0.1]"]
    assert f.status == "FAIL"


def test_a_failed_run_stays_in_the_denominator(tmp_path):
    def change(doc):
        doc["results"][0]["exit_codes"][3] = 1  # hyperfine -i keeps the time of a failed run
    report = verify_path(str(_variant(tmp_path, change)), profile="hyperfine")
    f = _claims(report)["mean[file=bench.json][arm=sleep 0.1]"]
    assert (f.status, f.code) == ("FAIL", "incomplete-denominator")
    assert "/results/0/times/3" in f.message


def test_missing_command_names_file_and_field(tmp_path):
    def change(doc):
        del doc["results"][0]["command"]
    report = verify_path(str(_variant(tmp_path, change)), profile="hyperfine")
    missing = [f for f in report.findings if f.code == "missing-field"]
    assert missing and all(f.status == "FAIL" and f.path == "bench.json" for f in missing)
    assert missing[0].expected == "arm" and "/results/0" in missing[0].pointer
    assert report.verdict == "FAIL"


def test_exit_codes_not_parallel_to_times_fail(tmp_path):
    def change(doc):
        doc["results"][1]["exit_codes"].pop()
    report = verify_path(str(_variant(tmp_path, change)), profile="hyperfine")
    assert any(f.code == "parallel-mismatch" and f.status == "FAIL" for f in report.findings)


def test_parallel_mismatch_says_how_the_column_is_wrong(tmp_path):
    # a missing or non-array parallel column is named as such, never as "has none entries"
    def drop(doc):
        del doc["results"][1]["exit_codes"]

    def scalar(doc):
        doc["results"][1]["exit_codes"] = 0

    for change, words in ((drop, "is missing"), (scalar, "is a int, not an array")):
        (tmp_path / change.__name__).mkdir()
        report = verify_path(str(_variant(tmp_path / change.__name__, change)), profile="hyperfine")
        found = [f for f in report.findings if f.code == "parallel-mismatch"]
        assert found and all(f.status == "FAIL" for f in found), change.__name__
        assert words in found[0].message and "none entries" not in found[0].message
        assert report.verdict == "FAIL"
