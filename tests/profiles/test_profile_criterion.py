"""The shipped `criterion` profile on real criterion.rs output (`tests/data/criterion/SOURCE.md`): 0.3 (top-level benchmarks), 0.4 (a group, a `Flat` run), 0.5."""

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
from verifier.readers.records import _name_values

DATA = ROOT / "tests" / "data" / "criterion"
V03 = DATA / "gettingstarted-0.3"
V04 = DATA / "aoc2024-0.4"
V05 = DATA / "utc-time-0.5"
FAST = "fib 20 - fast"
GROUPED = "Individual/01.1_ Historian Hysteria"
FLAT = "Total_ All Days"
CLAIMS = ("mean", "median", "std_dev", "median_abs_dev", "slope")
#: criterion's `A::cast(1.4826)`: the f32 nearest 1.4826, widened
CRITERION_MAD = Decimal("1.4825999736785888671875")


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code != "claim-unstated"}


def _copy(tmp_path: Path, source: Path = V03) -> Path:
    out = tmp_path / "project"
    shutil.copytree(source, out)
    return out / "target" / "criterion"


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def _per_iteration(bench: Path) -> list[Decimal]:
    sample = json.loads((bench / "new" / "sample.json").read_text(), parse_float=Decimal)
    return [t / i for t, i in zip(sample["times"], sample["iters"], strict=True)]


# ---------------------------------------------------------------- real output


@pytest.mark.parametrize("tree, passed, unstated", [(V03, 10, 0), (V04, 14, 1), (V05, 5, 0)])
def test_real_output_rederives_every_point_estimate(run, tree, passed, unstated):
    report = verify_path(str(tree / "target" / "criterion"))
    assert report.kind == "profile:criterion"
    claims = _claims(report)
    assert len(claims) == passed and all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    skipped = [f for f in report.findings if f.code == "claim-unstated"]
    assert len(skipped) == unstated and all(f.status == "UNVERIFIED" and FLAT in f.message and f.message.startswith("slope:") for f in skipped)
    coverage = [f for f in report.findings if f.check == "claims.coverage"]
    assert coverage and all(f.status == "PASS" for f in coverage)
    assert report.verdict == "INCOMPLETE" and not any(f.status == "FAIL" for f in report.findings)
    assert run(str(tree / "target" / "criterion")).exit_code == 3


def test_a_grouped_benchmark_id_is_one_instance_across_its_directories():
    claims = _claims(verify_path(str(V04 / "target" / "criterion")))
    assert claims[f"mean[bench={GROUPED}]"].status == "PASS"
    assert claims[f"slope[bench={GROUPED}]"].derivation.startswith("least-squares slope through the origin")


@pytest.mark.parametrize("claim", CLAIMS)
def test_each_changed_point_estimate_fails_naming_it(tmp_path, claim):
    home = _copy(tmp_path)
    _edit(home / FAST / "new" / "estimates.json", lambda doc: doc[claim].update(point_estimate=doc[claim]["point_estimate"] * 1.000000001))
    report = verify_path(str(home))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [f"{claim}[bench={FAST}]"], failed
    assert _claims(report)[failed[0]].code == "claim-mismatch" and report.verdict == "FAIL"


@pytest.mark.parametrize("scale", [stats.MAD_NORMAL, Decimal("1.4826")])
def test_a_mad_scaled_otherwise_than_criterions_f32_constant_fails(tmp_path, scale):
    # criterion multiplies by the f32 literal 1.4826; the normal scale of scipy and R's 1.4826 are 1.8e-8 (relative) away
    home = _copy(tmp_path)
    mad = stats.median_abs_deviation(_per_iteration(home / FAST))
    assert abs(float(mad * CRITERION_MAD) - 0.11908295457380802) < 1e-15  # the real file's value, as criterion computed it
    _edit(home / FAST / "new" / "estimates.json", lambda doc: doc["median_abs_dev"].update(point_estimate=float(mad * scale)))
    f = _claims(verify_path(str(home)))[f"median_abs_dev[bench={FAST}]"]
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_a_slope_with_an_intercept_instead_of_through_the_origin_fails(tmp_path):
    home = _copy(tmp_path)
    sample = json.loads((home / FAST / "new" / "sample.json").read_text())
    xs, ys = sample["iters"], sample["times"]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    ols = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    _edit(home / FAST / "new" / "estimates.json", lambda doc: doc["slope"].update(point_estimate=ols))
    f = _claims(verify_path(str(home)))[f"slope[bench={FAST}]"]
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_a_changed_sample_fails_the_estimates_it_feeds(tmp_path):
    home = _copy(tmp_path)
    _edit(home / FAST / "new" / "sample.json", lambda doc: doc["times"].__setitem__(0, doc["times"][0] * 2))
    failed = sorted(label.split("[")[0] for label, f in _claims(verify_path(str(home))).items() if f.status == "FAIL")
    assert failed == ["mean", "slope", "std_dev"], failed  # one sample doubled moves the mean, SD and slope, not the median or MAD


def test_a_sample_of_zero_iterations_is_no_value(tmp_path):
    home = _copy(tmp_path)
    _edit(home / FAST / "new" / "sample.json", lambda doc: doc["iters"].__setitem__(0, 0.0))
    report = verify_path(str(home))
    assert any(f.code == "not-a-number" and f.status == "FAIL" and "iters" in f.message for f in report.findings)
    assert not any(f.status == "PASS" for label, f in _claims(report).items() if FAST in label and label.split("[")[0] in ("mean", "median", "std_dev"))


def test_a_first_run_without_change_estimates_is_complete(tmp_path):
    # criterion writes `change/` only when a previous run exists; the profile does not read it
    home = _copy(tmp_path)
    for bench in home.iterdir():
        shutil.rmtree(bench / "change")
    report = verify_path(str(home))
    assert all(f.status == "PASS" for f in report.findings if f.check in ("derivation.claims", "claims.coverage"))


def test_a_flat_run_states_no_slope_and_is_never_failed_for_it():
    report = verify_path(str(V04 / "target" / "criterion"))
    assert f"slope[bench={FLAT}]" not in _claims(report)
    assert json.loads((V04 / "target" / "criterion" / FLAT / "new" / "estimates.json").read_text())["slope"] is None


# ---------------------------------------------------------------- detection


def test_detected_from_the_criterion_home_target_and_the_project_root(tmp_path):
    home = _copy(tmp_path, V04)
    for given in (home, home.parent, home.parent.parent, home / "Individual"):
        assert candidates(_shipped(), Tree(root=given)) == ["criterion"], given
    assert verify_path(str(home.parent.parent)).kind == "profile:criterion"


def test_not_detected_in_a_source_checkout_or_an_unrelated_folder(tmp_path):
    assert "criterion" not in candidates(_shipped(), Tree(root=ROOT))  # the samples lie in tests/data/criterion/<set>/target/criterion/
    deep = tmp_path / "a" / "b" / "c" / "d"
    shutil.copytree(V03 / "target" / "criterion" / FAST, deep / FAST)
    assert verify_path(str(tmp_path)).kind == "discovery"  # no shipped profile matches it: discovery reads it (issue 37), never this profile
    other = tmp_path / "other" / "x" / "new"
    other.mkdir(parents=True)
    (other / "sample.json").write_text(json.dumps({"iters": [1, 2], "times": [3, 4]}))  # no estimates.json: not criterion's
    assert "criterion" not in candidates(_shipped(), Tree(root=tmp_path / "other"))


# ---------------------------------------------------------------- the language it needed


def test_a_placeholder_spans_directories_only_when_its_dimension_says_so():
    rel = f"{GROUPED}/new/sample.json"
    assert _name_values("{bench}/new/sample.json", rel) is None
    assert _name_values("{bench}/new/sample.json", rel, frozenset({"bench"})) == {"bench": GROUPED}
    assert _name_values("{bench}/new/sample.json", "new/sample.json", frozenset({"bench"})) is None  # never empty


def test_divide_by_a_parallel_array_the_set_does_not_unnest_is_refused():
    doc = json.loads((ROOT / "profiles" / "criterion.json").read_text())
    doc["receipts"]["samples"]["values"]["time"]["divide_by"] = {"parallel": "iterations"}
    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    with pytest.raises(ConfigError, match="/receipts/samples/values/time/divide_by/parallel.*'iterations' is not an array"):
        load_profile(doc, schema, origin="draft.json")
    doc["receipts"]["samples"]["dimensions"]["bench"] = {"pointer": "/x", "spans_directories": True}
    with pytest.raises(ConfigError):
        load_profile(doc, schema, origin="draft.json")
