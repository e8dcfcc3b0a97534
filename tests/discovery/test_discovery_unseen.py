"""
Issue 37: real public evidence sets of benchmark families not in the corpus and not covered by a shipped profile (`tests/data/unseen/`).

Per set: `verify DIR` (discovery) binds at least the numbers measured on this commit and is never PASS; the
drafted profile stored beside it (`profile.json`, after the hand edits its `SOURCE.md` and `docs/profiles.md`,
"Unseen public sets", list) judges the untouched set with no FAIL, and FAILs naming the claim on a copy with
one stated number changed (beyond binary64's
error: the 17th digit of a float is within the engine's tolerance).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT

UNSEEN = ROOT / "tests" / "data" / "unseen"

#: Per set: the fewest numbers discovery binds (measured: see docs/profiles.md), the drafted profile's claims
#: (all PASS on the untouched set), and one stated number to change: (file, text before, text after, claim id).
SETS = {
    "llmperf-leaderboard": (70, 86, ("raw_data/summary/anyscale_70b.json", '"results_ttft_s_mean": 0.24890269464666667',
                                     '"results_ttft_s_mean": 0.24890369464666667',
                                     "raw_data_summary_anyscale_70b.json_results_ttft_s_mean")),
    "optimum-benchmark-quantization": (30, 24, ("benchmark_report.json", '"mean": 1.4620818969726563', '"mean": 1.4620818969736563',
                                                "benchmark_report.json_decode_latency_mean")),
    "jmeter-jsonplaceholder": (4, 16, ("report/statistics.json", '"meanResTime" : 44.58999999999997', '"meanResTime" : 44.57999999999997',
                                       "report_statistics.json_Total_meanResTime")),
    "coherent-benchmarks-ftle": (30, 40, ("results/numbacs_dg_ftle_results.json", '"mean_per_iter_time": 0.1795122853067005',
                                          '"mean_per_iter_time": 0.1795122853068005', "results_numbacs_dg_ftle_results.json_timings_mean_per_iter_time")),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_discovery_binds_the_set_and_is_never_pass(name):
    from verifier.core import verify_path
    from verifier.discovery import discover

    evidence = UNSEEN / name / "evidence"
    disc = discover(evidence, seconds=600)
    assert disc.counts()["bound"] >= SETS[name][0], disc.counts()
    report = verify_path(str(evidence))
    assert report.kind == "discovery" and report.verdict == "INCOMPLETE"


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_drafted_profile_judges_the_untouched_set_with_no_fail(run, name):
    result = run("--profile", str(UNSEEN / name / "profile.json"), str(UNSEEN / name / "evidence"), "-f", "json")
    report = json.loads(result.stdout)
    claims = [f for f in report["findings"] if f["check"] == "derivation.claims"]
    assert report["counts"]["FAIL"] == 0 and result.exit_code == 3, result.stdout[:2000]
    assert len(claims) == SETS[name][1] and all(f["status"] == "PASS" for f in claims)


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_drafted_profile_fails_a_changed_number_naming_its_claim(run, tmp_path, name):
    copy = tmp_path / name
    shutil.copytree(UNSEEN / name / "evidence", copy)
    rel, before, after, claim = SETS[name][2]
    text = (copy / rel).read_text()
    assert before in text
    (copy / rel).write_text(text.replace(before, after, 1))  # the first place it is stated
    result = run("--profile", str(UNSEEN / name / "profile.json"), str(copy), "-f", "json")
    failed = [f for f in json.loads(result.stdout)["findings"] if f["status"] == "FAIL"]
    assert result.exit_code == 1 and len(failed) == 1 and claim in json.dumps(failed[0]), failed


def test_every_unseen_set_has_its_source_and_stays_small():
    for name in SETS:
        folder = UNSEEN / name
        assert (folder / "SOURCE.md").is_file() and "commit" in (folder / "SOURCE.md").read_text()
        assert sum(p.stat().st_size for p in (folder / "evidence").rglob("*") if p.is_file()) <= 220_000
