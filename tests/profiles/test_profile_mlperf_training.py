"""The shipped `mlperf-training` profile on a real MLPerf Training result tree (`tests/data/mlperf-training/SOURCE.md`), and the language it needed: `olympic_mean`, `subtract`, prefixed JSON Lines, `times`."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.engine import stats

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.profiles.language import Tree, candidates, load_profile

DATA = ROOT / "tests" / "data" / "mlperf-training"
SCHEMA = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
BENCH = Path("Intel-HabanaLabs") / "results" / "HLS-Gaudi2-PT" / "llama2_70b_lora"
LABEL = "time_to_train[pre=Intel-HabanaLabs/results/][system=HLS-Gaudi2-PT][benchmark=llama2_70b_lora]"
#: The ten runs' run_stop - run_start in minutes; the olympic mean drops 74.64195 and 86.89215; scaling.json states 1.0033670033670032.
OLYMPIC = Decimal("77.84657916666666")
SCORE = "78.11"  # OLYMPIC x the scaling factor (78.1087), at MLCommons' two decimals


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _tree(tmp_path: Path, score: str | None = SCORE) -> Path:
    out = tmp_path / "training_results"
    shutil.copytree(DATA, out, ignore=shutil.ignore_patterns("SOURCE.md"))
    if score is not None:
        (out / "README.md").write_text(f"| System | Benchmark | Time to train (min) |\n|---|---|---|\n| HLS-Gaudi2-PT | llama2_70b_lora | {score} |\n")
    return out


def _by(report, check: str, status: str | None = None) -> list:
    return [f for f in report.findings if f.check == check and (status is None or f.status == status)]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_real_tree_scores_the_olympic_mean_times_its_scaling_factor_and_meets_every_gate_rule(run, tmp_path):
    folder = _tree(tmp_path)
    report = verify_path(str(folder))
    assert report.kind == "profile:mlperf-training"
    (claim,) = [f for f in _by(report, "derivation.claims") if f.code == "derived"]
    assert claim.status == "PASS" and claim.message.startswith(LABEL) and "olympic mean" in claim.derivation and "1.00336700337" in claim.derivation
    met = {f.message.split(" ")[0] for f in _by(report, "gate.rules", "PASS")}
    assert met == {"quality-llama2_70b_lora", "runs-llama2_70b_lora", "run-stop-success"}
    # the rules of benchmarks this tree does not hold judge nothing: UNVERIFIED, never FAIL
    assert all(f.code == "empty-selection" for f in _by(report, "gate.rules", "UNVERIFIED"))
    assert not any(f.status in ("FAIL", "ERROR") for f in report.findings)
    assert report.verdict == "INCOMPLETE" and run(str(folder)).exit_code == 3


@pytest.mark.parametrize("stated, why", [("78.12", "one unit of the last place"), (f"{OLYMPIC:.2f}", "the unscaled olympic mean"),
                                         ("78.69", "the plain mean of all ten runs, times the factor")])
def test_a_wrong_score_fails_naming_its_claim(tmp_path, stated, why):
    report = verify_path(str(_tree(tmp_path, stated)))
    (claim,) = [f for f in _by(report, "derivation.claims") if f.code in ("derived", "claim-mismatch")]
    assert (claim.status, claim.code) == ("FAIL", "claim-mismatch") and claim.message.startswith(LABEL), why


def test_without_scaling_json_the_factor_is_one(tmp_path):
    folder = _tree(tmp_path, f"{OLYMPIC:.2f}")
    (folder / BENCH / "scaling.json").unlink()
    (claim,) = [f for f in _by(verify_path(str(folder)), "derivation.claims") if f.code == "derived"]
    assert claim.status == "PASS" and "scaling.json is absent" in claim.derivation
    _edit(folder / "README.md", f"{OLYMPIC:.2f}", SCORE)
    assert [f.status for f in _by(verify_path(str(folder)), "derivation.claims") if f.code in ("derived", "claim-mismatch")] == ["FAIL"]


def test_a_changed_scaling_factor_fails_the_score(tmp_path):
    folder = _tree(tmp_path)
    (folder / BENCH / "scaling.json").write_text('{"scaling_factor": 1.01}')
    assert [f.status for f in _by(verify_path(str(folder)), "derivation.claims") if f.code in ("derived", "claim-mismatch")] == ["FAIL"]


def test_a_run_that_never_reached_the_target_fails_the_quality_rule_naming_it(tmp_path):
    folder = _tree(tmp_path)
    # run 1's only eval at or below 0.925 is its last (0.9249573349952698): raised above the target
    _edit(folder / BENCH / "result_1.txt", '"key": "eval_accuracy", "value": 0.9249573349952698', '"key": "eval_accuracy", "value": 0.9259573349952698')
    (failed,) = _by(verify_path(str(folder)), "gate.rules", "FAIL")
    assert failed.message.startswith("quality-llama2_70b_lora") and "run=1: min = 0.92596 (needs <= 0.925)" in failed.message  # trial41c item 3: two places past the bound's


def test_a_missing_run_fails_the_count_of_runs(tmp_path):
    folder = _tree(tmp_path)
    (folder / BENCH / "result_9.txt").unlink()
    report = verify_path(str(folder))
    (failed,) = _by(report, "gate.rules", "FAIL")
    assert failed.message.startswith("runs-llama2_70b_lora") and "count = 9 (needs >= 10)" in failed.message


def test_an_aborted_run_fails_the_stop_status_rule(tmp_path):
    folder = _tree(tmp_path)
    _edit(folder / BENCH / "result_4.txt", '"status": "success"', '"status": "aborted"')
    (failed,) = _by(verify_path(str(folder)), "gate.rules", "FAIL")
    assert failed.message.startswith("run-stop-success") and "run=4: count_ok = 0" in failed.message


def test_a_changed_run_stop_clock_moves_the_score(tmp_path):
    folder = _tree(tmp_path)
    text = (folder / BENCH / "result_5.txt").read_text()
    stop = next(line for line in text.splitlines() if '"key": "run_stop"' in line)
    stamp = json.loads(stop.removeprefix(":::MLLOG "))["time_ms"]
    _edit(folder / BENCH / "result_5.txt", f'"time_ms": {stamp}, "event_type": "INTERVAL_END", "key": "run_stop"',
          f'"time_ms": {stamp + 60000}, "event_type": "INTERVAL_END", "key": "run_stop"')  # one minute longer: +0.125 min on the mean of 8
    assert [f.status for f in _by(verify_path(str(folder)), "derivation.claims") if f.code in ("derived", "claim-mismatch")] == ["FAIL"]


def test_detected_given_the_organisation_or_the_folder_holding_it_never_deeper(tmp_path):
    folder = _tree(tmp_path)
    assert "mlperf-training" in candidates(_shipped(), Tree(root=folder))
    assert "mlperf-training" in candidates(_shipped(), Tree(root=folder / "Intel-HabanaLabs"))
    assert "mlperf-training" not in candidates(_shipped(), Tree(root=tmp_path))  # three levels above results/: out of reach
    assert candidates(_shipped(), Tree(root=ROOT)) == []
    loose = tmp_path / "loose" / "a" / "b"  # `x/y/result_1.txt` without a results/ directory: never this profile
    loose.mkdir(parents=True)
    shutil.copy(DATA / BENCH / "result_0.txt", loose / "result_1.txt")
    assert "mlperf-training" not in candidates(_shipped(), Tree(root=tmp_path / "loose"))


def test_olympic_mean_drops_one_smallest_and_one_largest_and_needs_three_values():
    values = [Decimal(v) for v in ("5", "1", "3", "9")]
    assert stats.derive("olympic_mean", values).value == Decimal(4)
    with pytest.raises(stats.Underivable, match="at least three"):
        stats.derive("olympic_mean", values[:2])


def test_subtract_and_times_are_refused_where_they_mean_nothing():
    base = json.loads((ROOT / "profiles" / "mlperf-training.json").read_text())
    base["id"] = "draft"
    bad = json.loads(json.dumps(base))
    bad["receipts"]["runs"]["dimensions"]["run"] = {"from_name": "run", "subtract": {"pointer": "/run_start"}}
    with pytest.raises(ConfigError, match="subtract"):
        load_profile(bad, SCHEMA, origin="draft.json")
    bad = json.loads(json.dumps(base))
    bad["claims"][0]["statistic"] = "count"
    bad["claims"][0].pop("value")
    bad["claims"][0]["unit"] = "1"
    with pytest.raises(ConfigError, match="times"):
        load_profile(bad, SCHEMA, origin="draft.json")
    bad = json.loads(json.dumps(base))
    bad["claims"][0]["times"]["at"]["file"] = "{model}/scaling.json"
    with pytest.raises(ConfigError, match="model"):
        load_profile(bad, SCHEMA, origin="draft.json")
