"""Issue 38: profile authoring a new team can trust: units cannot lie, mistakes stop at load, `optional` works, counting is honest."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import ROOT, make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.profiles.language import load_profile

SCHEMA = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())

RUNS = {"runs/baseline.csv": "s,samples\n1.2,10\n1.2,10\n", "runs/candidate.csv": "s,samples\n1.0,10\n1.0,10\n"}  # speedup 1.2


def _doc(claims: list[dict], **extra) -> dict:
    """Return a profile `run` reading `runs/{arm}.csv` (columns s, samples) with `claims`."""
    return {
        "id": "run", "version": 1, "description": "test profile",
        "detect": {"files": ["summary.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                              "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
                              "values": {"samples": {"pointer": "/samples", "unit": "samples"}}}},
        "claims": claims,
        **extra,
    }


def _run(tmp_path: Path, files: dict[str, str], claims: list[dict], **extra):
    """Return the report of `verify` over `files` with the profile of `_doc(claims)`."""
    bundle = write_tree(tmp_path / "run", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _doc(claims, **extra)}))


def _refused(doc: dict, pointer: str, *words: str) -> str:
    """Assert `doc` is refused at load with one line naming the file and `pointer` (and each of `words`); return the line."""
    with pytest.raises(ConfigError) as info:
        load_profile(doc, SCHEMA, origin="draft.json")
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"draft.json: invalid profile at {pointer}:"), line
    for word in words:
        assert word in line, (word, line)
    return line


# ---------------------------------------------------------------- 1. units cannot lie

SPEEDUP = {"id": "speedup", "receipts": "runs", "statistic": "speedup", "baseline": "baseline", "candidate": "candidate",
           "selection": {"phase": "measured"}, "unit": "%", "at": {"file": "summary.json", "pointer": "/speedup"}}


def test_a_speedup_in_percent_is_the_ratio_times_100(tmp_path):
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 120}'}, [SPEEDUP])
    assert _claim(report, "speedup").status == "PASS"


def test_a_speedup_in_percent_stated_without_the_factor_fails(tmp_path):
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 1.2}'}, [SPEEDUP])
    assert _claim(report, "speedup").status == "FAIL"


def test_a_reduction_in_percent_stated_as_a_fraction_with_unit_1(tmp_path):
    claim = {**SPEEDUP, "id": "saved", "statistic": "relative_reduction_pct", "unit": "1"}  # (1 - 1.0/1.2) = 0.1667 = 16.67 %
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 0.1667}'}, [claim])
    assert _claim(report, "saved").status == "PASS"
    report = _run(tmp_path / "b", {**RUNS, "summary.json": '{"speedup": 16.67}'}, [claim])
    assert _claim(report, "saved").status == "FAIL"


def test_a_speedup_gate_in_percent_applies_the_factor(tmp_path):
    rule = {k: v for k, v in SPEEDUP.items() if k != "at"} | {"id": "at-least-110-pct", "min": 110}
    report = _run(tmp_path, {**RUNS, "summary.json": "{}"}, [], gate={"rules": [rule]})
    assert [f.status for f in _by(report, "gate.rules")] == ["PASS"]
    report = _run(tmp_path / "b", {**RUNS, "summary.json": "{}"}, [], gate={"rules": [rule | {"min": 130}]})
    assert [f.status for f in _by(report, "gate.rules")] == ["FAIL"]


@pytest.mark.parametrize(("statistic", "unit", "instead"), [
    ("speedup", "ms", "`1`, `x` or `%`"),
    ("relative_reduction_pct", "s", "`%`"),
    ("count", "%", "`1`"),
    ("count", "ms", "`1`"),
])
def test_a_unit_of_another_dimension_than_the_statistic_is_refused(statistic, unit, instead):
    claim = {**SPEEDUP, "statistic": statistic, "unit": unit}
    if statistic == "count":
        claim = {k: v for k, v in claim.items() if k not in ("baseline", "candidate")}
    _refused(_doc([claim]), "/claims/0/unit", repr(unit), instead)


# ---------------------------------------------------------------- 2. mistakes stop at load, naming file, pointer and what to write

MEAN = {"id": "mean", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
        "at": {"file": "summary.json", "pointer": "/{arm}/mean"}}


def _with(change) -> dict:
    doc = _doc([copy.deepcopy(MEAN)])
    change(doc)
    return doc


def test_a_location_pointer_without_its_leading_slash_is_refused():
    _refused(_with(lambda d: d["claims"][0]["at"].update(pointer="{arm}/mean")), "/claims/0/at/pointer", "write '/{arm}/mean'")


def test_a_then_without_its_leading_slash_is_refused():
    at = {"file": "RESULTS.md", "pointer": "/tables/Results", "where": {"Arm": "{arm}"}, "then": "Wall s"}
    _refused(_with(lambda d: d["claims"][0].update(at=at)), "/claims/0/at/then", "write '/Wall s'")


def test_a_field_pointer_without_its_leading_slash_says_what_to_write():
    _refused(_with(lambda d: d["receipts"]["runs"]["fields"]["latency"].update(pointer="s")), "/receipts/runs/fields/latency/pointer", "write '/s'")


def test_a_slash_in_a_csv_column_name_left_unescaped_is_refused():
    _refused(_with(lambda d: d["receipts"]["runs"]["values"]["samples"].update(pointer="/samples/s")),
             "/receipts/runs/values/samples/pointer", "'~1'", "write '/samples~1s'")


def test_a_slash_in_a_table_column_name_left_unescaped_is_refused():
    at = {"file": "RESULTS.md", "pointer": "/tables/Results", "where": {"Arm": "{arm}"}, "then": "/Wall s/req"}
    _refused(_with(lambda d: d["claims"][0].update(at=at)), "/claims/0/at/then", "write '/Wall s~1req'")


def test_a_slash_in_a_table_heading_left_unescaped_is_refused():
    at = {"file": "RESULTS.md", "pointer": "/tables/Per/task results", "where": {"Arm": "{arm}"}, "then": "/Wall s"}
    _refused(_with(lambda d: d["claims"][0].update(at=at)), "/claims/0/at/pointer", "write '/tables/Per~1task results'")
    at = {"file": "RESULTS.md", "pointer": "/tables/Per/task results/{arm.index}/Wall s"}
    _refused(_with(lambda d: d["claims"][0].update(at=at)), "/claims/0/at/pointer", "write '/tables/Per~1task results/{arm.index}/Wall s'")


def test_an_escaped_slash_in_a_table_location_loads():
    at = {"file": "RESULTS.md", "pointer": "/tables/Per~1task results", "where": {"Arm": "{arm}"}, "then": "/Wall s~1req"}
    load_profile(_with(lambda d: d["claims"][0].update(at=at)), SCHEMA, origin="draft.json")


def test_a_location_where_key_of_two_tokens_into_a_table_row_is_refused():
    at = {"file": "RESULTS.md", "pointer": "/tables/Results", "where": {"/ms/req": "{arm}"}, "then": "/mean"}
    _refused(_with(lambda d: d["claims"][0].update(at=at)), "/claims/0/at/where", "a table row is flat", "'/ms~1req'")
    at = {"file": "summary.json", "pointer": "/runs", "where": {"/meta/arm": "{arm}"}, "then": "/mean"}  # a nested member of a JSON element: compared
    load_profile(_with(lambda d: d["claims"][0].update(at=at)), SCHEMA, origin="draft.json")


def test_two_placeholders_side_by_side_are_refused():
    _refused(_with(lambda d: d["receipts"]["runs"].update(name="runs/{arm}{phase}.csv")), "/receipts/runs/name", "side by side")
    _refused(_with(lambda d: d["receipts"]["runs"].update(name="runs/{arm}{phase}.csv", name_patterns={"server": "[a-z]+"})), "/receipts/runs/name", "side by side")
    # a placeholder given a regex by `name_patterns` ends where its regex says (pyperf's `{dir}{suite}.json`)
    load_profile(_with(lambda d: d["receipts"]["runs"].update(name="runs/{arm}{phase}.csv", name_patterns={"arm": "(?:[^/]+/)*"})), SCHEMA, origin="draft.json")


def test_a_placeholder_in_a_selection_value_is_refused():
    _refused(_with(lambda d: d["claims"][0]["selection"].update(arm="{arm}")), "/claims/0/selection/arm", "literal", "`per`")


def test_an_arm_placeholder_that_is_not_a_per_dimension_is_refused():
    claim = {**SPEEDUP, "baseline": "{case}", "unit": "x"}
    _refused(_doc([claim]), "/claims/0/baseline", "`per`")


WHERE_RUNS = {"runs/baseline.csv": "s,kind\n2,measure\n9,calibrate\n", "runs/candidate.csv": "s,kind\n1,measure\n"}


@pytest.mark.parametrize("key", ["kind", "/kind"])
def test_both_kinds_of_where_take_a_member_name_or_a_one_token_pointer(tmp_path, key):
    doc_where = {key: "measure"}
    at = {"file": "summary.json", "pointer": "/arms", "where": {key.replace("kind", "name"): "{arm}"}, "then": "/mean"}
    claim = {**MEAN, "at": at}
    summary = json.dumps({"arms": [{"name": "baseline", "mean": 2.0}, {"name": "candidate", "mean": 1.0}]})
    bundle = write_tree(tmp_path / "run", {**WHERE_RUNS, "summary.json": summary})
    doc = _doc([claim])
    doc["receipts"]["runs"]["where"] = doc_where
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    assert [f.status for f in _by(report, "derivation.claims")] == ["PASS", "PASS"], [f.message for f in _by(report, "derivation.claims")]


# ---------------------------------------------------------------- 3. `optional: true` on a dimension works

def _optional_doc(optional: bool, claims: list[dict]) -> dict:
    doc = _doc(claims)
    doc["receipts"]["runs"] = {"glob": "runs/*.jsonl", "encoding": "jsonl", "name": "runs/{arm}.jsonl",
                               "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
                               "dimensions": {"batch": {"pointer": "/params/batch", **({"optional": True} if optional else {})}}}
    return doc


OPTIONAL_RUNS = {  # the calibration run states no parameters
    "runs/baseline.jsonl": '{"s": 3}\n{"s": 2, "params": {"batch": 8}}\n{"s": 4, "params": {"batch": 8}}\n',
    "runs/candidate.jsonl": '{"s": 1, "params": {"batch": 8}}\n',
}


def test_an_optional_dimension_absent_from_a_record_is_read_without_it(tmp_path):
    claims = [{**MEAN, "id": "all"}, {**MEAN, "id": "batch8", "selection": {"phase": "measured", "batch": "8"}, "at": {"file": "summary.json", "pointer": "/{arm}/b8"}}]
    bundle = write_tree(tmp_path / "run", {**OPTIONAL_RUNS, "summary.json": '{"baseline": {"mean": 3.0, "b8": 3.0}, "candidate": {"mean": 1.0, "b8": 1.0}}'})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _optional_doc(True, claims)}))
    assert not [f for f in _by(report, "schema.documents") if f.status == "FAIL"], [f.message for f in _by(report, "schema.documents")]
    assert [f.status for f in _by(report, "derivation.claims")] == ["PASS"] * 4, [f.message for f in _by(report, "derivation.claims")]
    (bundle / "summary.json").write_text('{"baseline": {"mean": 3.0, "b8": 2.0}, "candidate": {"mean": 1.0, "b8": 1.0}}')
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path / "b", {"run": _optional_doc(True, claims)}))
    assert sorted(f.status for f in _by(report, "derivation.claims")) == ["FAIL", "PASS", "PASS", "PASS"]


def test_a_required_dimension_absent_from_a_record_is_still_missing(tmp_path):
    bundle = write_tree(tmp_path / "run", {**OPTIONAL_RUNS, "summary.json": '{"baseline": {"mean": 3.0}, "candidate": {"mean": 1.0}}'})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _optional_doc(False, [MEAN])}))
    assert [f.code for f in _by(report, "schema.documents") if f.status == "FAIL"] == ["missing-field"]


# ---------------------------------------------------------------- 4. counting

COUNTED = {"runs/baseline.csv": "s,samples,exit\n1,10,0\n2,10,1\n3,10,0\n"}


def _counting(gate_rules: list[dict], claims: list[dict] = ()) -> dict:
    doc = _doc(list(claims), gate={"rules": gate_rules})
    doc["receipts"]["runs"]["fields"]["outcome"] = {"pointer": "/exit"}
    doc["receipts"]["runs"]["ok_outcomes"] = ["0"]
    return doc


def _gate(tmp_path: Path, files: dict[str, str], doc: dict) -> list[tuple[str, str]]:
    bundle = write_tree(tmp_path / "run", {**files, "summary.json": "{}"})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    return [(f.status.value, f.code) for f in _by(report, "gate.rules")]


def test_a_count_gate_asking_for_one_over_an_empty_selection_fails(tmp_path):
    rule = {"id": "some-warmup", "receipts": "runs", "statistic": "count", "selection": {"phase": "warmup"}, "min": 1}
    assert _gate(tmp_path, COUNTED, _counting([rule])) == [("FAIL", "rule-not-met")]


def test_a_count_gate_allowing_none_over_an_empty_selection_passes(tmp_path):
    rule = {"id": "no-warmup", "receipts": "runs", "statistic": "count", "selection": {"phase": "warmup"}, "max": 0}
    assert _gate(tmp_path, COUNTED, _counting([rule])) == [("PASS", "rule-met")]


def test_a_count_of_successes_leaves_failed_receipts_out(tmp_path):
    rule = {"id": "three-successes", "receipts": "runs", "statistic": "count_ok", "selection": {"phase": "measured"}, "min": 3}
    assert _gate(tmp_path, COUNTED, _counting([rule])) == [("FAIL", "rule-not-met")]
    assert _gate(tmp_path / "b", COUNTED, _counting([rule | {"min": 2}])) == [("PASS", "rule-met")]
    counted = {**rule, "statistic": "count", "min": 3}  # `count` counts every receipt, failed ones too (they stay in the denominator)
    assert _gate(tmp_path / "c", COUNTED, _counting([counted])) == [("PASS", "rule-met")]


def test_a_count_of_successes_needs_an_outcome_at_load():
    claim = {"id": "ok", "receipts": "runs", "statistic": "count_ok", "selection": {"phase": "measured"}, "at": {"file": "summary.json", "pointer": "/ok"}}
    _refused(_doc([claim]), "/claims/0/statistic", "`outcome`")


# ---------------------------------------------------------------- 5. `verify profile check DIR --profile P`: what each rule matched

def test_profile_check_names_the_rules_that_match_nothing(tmp_path, run):
    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": '{"baseline": {"mean": 1.2}, "candidate": {"mean": 1.0}, "speedup": 1.2}'})
    good = [MEAN, {**SPEEDUP, "unit": "x"}]
    draft = tmp_path / "good.json"
    draft.write_text(json.dumps(_doc(good) | {"id": "draft-run"}))
    result = run("profile", "check", str(bundle), "--profile", str(draft))
    assert result.exit_code == 0 and "0 rule(s) matched nothing" in result.stdout, result.stdout
    assert "baseline arm 'baseline': 2 receipts; candidate arm 'candidate': 2 receipts; its place is stated for 1 of 1" in result.stdout
    bad = [{**MEAN, "at": {"file": "summary.json", "pointer": "/{arm}/mean_s"}}, {**SPEEDUP, "unit": "x", "candidate": "candidat"}]
    draft.write_text(json.dumps(_doc(bad) | {"id": "draft-run"}))
    result = run("profile", "check", str(bundle), "--profile", str(draft))
    assert result.exit_code == 1 and "2 rule(s) matched nothing" in result.stdout, result.stdout
    lines = result.stdout.splitlines()
    mean = next(line for line in lines if "claims/0 (mean)" in line)
    assert "stated for 0 of 2" in mean and "/baseline/mean_s" in mean and "matches nothing" in mean
    assert "candidate arm 'candidat': 0 receipts" in next(line for line in lines if "claims/1 (speedup)" in line)


def test_profile_explain_lists_what_each_rule_matched(tmp_path, run):
    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": '{"baseline": {"mean": 1.2}, "candidate": {"mean": 1.0}}'})
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(_doc([MEAN]) | {"id": "draft-run", "receipts": {"runs": {**_doc([])["receipts"]["runs"], "glob": "run/*.csv"}}}))
    result = run("profile", "explain", str(draft), str(bundle))
    assert result.exit_code == 0 and "what each rule matched (2 matches nothing)" in result.stdout, result.stdout
    assert "receipts.runs: glob 'run/*.csv' names 0 files, 0 records read: matches nothing" in result.stdout


def test_profile_check_refuses_a_broken_draft_in_one_line(tmp_path, run):
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(_with(lambda d: d["claims"][0]["at"].update(pointer="{arm}/mean")) | {"id": "draft-run"}))
    result = run("profile", "check", str(tmp_path), "--profile", str(draft))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "/claims/0/at/pointer" in result.stderr, result.stderr


# ---------------------------------------------------------------- 6. the language: statistics and units, each with a PASS and a FAIL input

def test_the_schema_statistics_are_the_one_vocabulary():
    from verifier.engine import stats
    from verifier.schema.validation import filled

    assert set(filled(SCHEMA)["$defs"]["derivation"]["properties"]["statistic"]["enum"]) == set(stats.STATISTICS)


SPREAD = {"runs/a.csv": "s,samples\n1.0,10\n2.0,20\n4.0,30\n7.5,40\n3.2,50\n"}
XS = [1.0, 2.0, 4.0, 7.5, 3.2]


def _one(statistic: str, stated: str, unit: str = "s", **extra) -> str:
    return json.dumps({"v": stated}), {"id": statistic, "receipts": "runs", "statistic": statistic, "selection": {"phase": "measured"}, "unit": unit,
                                       "at": {"file": "summary.json", "pointer": "/v"}, **extra}


def _independent(statistic: str) -> float:
    """The statistic by scipy/numpy, not by verifier.engine.stats."""
    import numpy as np
    from scipy import stats as sps

    samples = [10, 20, 30, 40, 50]
    return {"mad": lambda: sps.median_abs_deviation(XS), "mad_scaled": lambda: sps.median_abs_deviation(XS, scale="normal"),
            "geometric_mean": lambda: sps.gmean(XS), "population_sd": lambda: float(np.std(XS)), "sum": lambda: sum(XS),
            "slope": lambda: sps.linregress(samples, XS).slope * 1000, "r_squared": lambda: sps.linregress(samples, XS).rvalue ** 2,
            "slope_through_origin": lambda: float(np.dot(samples, XS) / np.dot(samples, samples)) * 1000,  # criterion.rs's `Slope::fit`
            "mad_scaled/1.4826": lambda: sps.median_abs_deviation(XS) * 1.4826}[statistic]()  # R's `mad()` constant


@pytest.mark.parametrize(("statistic", "unit", "extra"), [
    ("mad", "s", {}), ("mad_scaled", "s", {}), ("geometric_mean", "s", {}), ("population_sd", "s", {}), ("sum", "s", {}),
    ("slope", "ms/sample", {"x": "samples", "value": "t"}), ("r_squared", "1", {"x": "samples", "value": "t"}),
    ("slope_through_origin", "ms/sample", {"x": "samples", "value": "t"}), ("mad_scaled", "s", {"scale": 1.4826}),
])
def test_each_new_statistic_passes_its_value_and_fails_another(tmp_path, statistic, unit, extra):
    expected = _independent(statistic + (f"/{extra['scale']}" if "scale" in extra else ""))
    for stated, status in ((f"{expected:.4f}", "PASS"), (f"{expected * 1.01:.4f}", "FAIL")):
        summary, claim = _one(statistic, stated, unit, **extra)
        doc = _doc([claim])
        doc["receipts"]["runs"]["values"]["t"] = {"pointer": "/s", "unit": "s"}
        bundle = write_tree(tmp_path / status / "run", {**SPREAD, "summary.json": summary})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": doc}))
        assert _claim(report, statistic).status == status, (stated, _claim(report, statistic).message)


def test_a_geometric_mean_of_a_non_positive_value_is_not_derived(tmp_path):
    summary, claim = _one("geometric_mean", "0", "1", value="r")
    doc = _doc([claim])
    doc["receipts"]["runs"]["values"]["r"] = {"pointer": "/samples", "unit": "1"}
    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s,samples\n1,0\n2,4\n", "summary.json": summary})
    found = _claim(verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc})), "geometric_mean")
    assert (found.status, found.code) == ("FAIL", "empty-selection") and "values > 0" in found.message, found.message


def test_a_ratio_to_the_baseline_in_percent_and_a_relative_change(tmp_path):
    ratio = {**SPEEDUP, "id": "of_baseline", "statistic": "ratio", "at": {"file": "summary.json", "pointer": "/of"}}  # candidate / baseline: 1.0 / 1.2
    change = {**SPEEDUP, "id": "change", "statistic": "relative_change_pct", "at": {"file": "summary.json", "pointer": "/change"}}
    report = _run(tmp_path, {**RUNS, "summary.json": '{"of": 83.33, "change": -16.67}'}, [ratio, change])
    assert (_claim(report, "of_baseline").status, _claim(report, "change").status) == ("PASS", "PASS")
    report = _run(tmp_path / "b", {**RUNS, "summary.json": '{"of": 120.0, "change": 16.67}'}, [ratio, change])
    assert (_claim(report, "of_baseline").status, _claim(report, "change").status) == ("FAIL", "FAIL")


def test_the_scale_of_a_mad_is_part_of_the_claim(tmp_path):
    # R's constant 1.4826 against the normal scale 1/Phi^-1(3/4): 1.3e-6 apart, far beyond a 9-digit statement's tolerance
    stated = f"{_independent('mad_scaled/1.4826'):.9f}"
    for extra, status in (({"scale": 1.4826}, "PASS"), ({}, "FAIL")):
        summary, claim = _one("mad_scaled", stated, "s", **extra)
        bundle = write_tree(tmp_path / status / "run", {**SPREAD, "summary.json": summary})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": _doc([claim])}))
        assert _claim(report, "mad_scaled").status == status, _claim(report, "mad_scaled").message


def test_a_scale_on_another_statistic_than_mad_scaled_is_refused():
    _, claim = _one("mad", "1", "s", scale=1.4826)
    _refused(_doc([claim]), "/claims/0", "scale")


def test_a_slope_in_a_unit_of_another_dimension_is_refused():
    _, claim = _one("slope", "1", "ms", x="samples", value="t")
    doc = _doc([claim])
    doc["receipts"]["runs"]["values"]["t"] = {"pointer": "/s", "unit": "s"}
    _refused(doc, "/claims/0/unit", "t / samples")


@pytest.mark.parametrize(("unit", "stated", "status"), [("ops/ms", "2", "PASS"), ("ops/ms", "2000", "FAIL"), ("IOPS", "2000", "PASS"), ("kops", "2", None)])
def test_operations_per_second(tmp_path, unit, stated, status):
    claim = {"id": "ops", "receipts": "runs", "statistic": "mean", "value": "rate", "selection": {"phase": "measured"}, "unit": unit,
             "at": {"file": "summary.json", "pointer": "/ops"}}
    doc = _doc([claim])
    doc["receipts"]["runs"]["values"]["rate"] = {"pointer": "/samples", "unit": "ops/s"}
    if status is None:
        _refused(doc, "/claims/0/unit", "unknown unit")
        return
    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s,samples\n1,1000\n1,3000\n", "summary.json": json.dumps({"ops": float(stated)})})
    assert _claim(verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc})), "ops").status == status


def _json_doc(claims: list[dict], runs: dict) -> dict:
    """Return a profile reading `runs/{arm}.json` (one JSON object per file, `benchmarks` records) with `runs` as its receipt set spec overrides."""
    doc = _doc(claims)
    doc["receipts"]["runs"] = {"glob": "runs/*.json", "encoding": "json", "records": "/benchmarks", "name": "runs/{arm}.json",
                               "fields": {"arm": {"from_name": "arm"}, "phase": {"value": "measured"}}, **runs}
    return doc


BENCH = {"runs/baseline.json": json.dumps({"benchmarks": [{"name": "a", "real_time": 2000, "iterations": 1000},
                                                          {"name": "b", "real_time": 6000, "iterations": 1000},
                                                          {"name": "a_mean", "aggregate_name": "mean", "real_time": 9, "iterations": 1}]})}


def _per_iteration(tmp_path: Path, stated: str, runs: dict) -> str:
    claim = {"id": "per_iter", "receipts": "runs", "statistic": "mean", "value": "t", "selection": {"phase": "measured"}, "unit": "ns",
             "at": {"file": "summary.json", "pointer": "/per_iter"}}
    bundle = write_tree(tmp_path / "run", {**BENCH, "summary.json": json.dumps({"per_iter": float(stated)})})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _json_doc([claim], runs)}))
    return _claim(report, "per_iter").status.value


PER_ITERATION = {"values": {"t": {"pointer": "/real_time", "unit": "ns", "divide_by": {"pointer": "/iterations"}}},
                 "where": {"aggregate_name": {"present": False}}}


def test_a_value_computed_per_record_and_records_filtered_by_presence(tmp_path):
    assert _per_iteration(tmp_path, "4", PER_ITERATION) == "PASS"  # (2 + 6) / 2 ns per iteration; the aggregate row is left out
    assert _per_iteration(tmp_path / "b", "4000", PER_ITERATION) == "FAIL"  # the time per record, not per iteration
    kept_aggregate = {**PER_ITERATION, "where": {"aggregate_name": {"present": True}}}
    assert _per_iteration(tmp_path / "c", "9", kept_aggregate) == "PASS"


def test_a_divisor_of_zero_is_no_value(tmp_path):
    bundle = write_tree(tmp_path / "run", {"runs/baseline.json": json.dumps({"benchmarks": [{"real_time": 5, "iterations": 0}]}), "summary.json": '{"per_iter": 5}'})
    claim = {"id": "per_iter", "receipts": "runs", "statistic": "mean", "value": "t", "selection": {"phase": "measured"}, "unit": "ns",
             "at": {"file": "summary.json", "pointer": "/per_iter"}}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _json_doc([claim], {"values": PER_ITERATION["values"]})}))
    assert [f.code for f in _by(report, "schema.documents") if f.status == "FAIL"] == ["not-a-number"]
    assert _claim(report, "per_iter").status != "PASS"


NESTED = {"runs/baseline.json": json.dumps({"benchmarks": [{"forks": [{"samples": [1, 2]}, {"samples": [3, 6]}]}]})}


def test_nested_arrays_are_flattened(tmp_path):
    runs = {"unnest": {"array": "/forks", "then": "/samples"}, "fields": {"latency": {"element": True, "unit": "s"}, "arm": {"from_name": "arm"},
                                                                          "phase": {"value": "measured"}}}
    claim = {"id": "mean", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s", "at": {"file": "summary.json", "pointer": "/m"}}
    for stated, status in (("3", "PASS"), ("4.5", "FAIL")):  # the mean of all four samples, not of the last fork
        bundle = write_tree(tmp_path / status / "run", {**NESTED, "summary.json": json.dumps({"m": float(stated)})})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": _json_doc([claim], runs)}))
        assert _claim(report, "mean").status == status


def test_an_element_without_the_inner_array_is_no_record_only_when_then_optional(tmp_path):
    # pyperf writes no `values` for a calibration run (only `warmups`): with `then_optional` it holds no records, else FAIL missing-field
    files = {"runs/baseline.json": json.dumps({"benchmarks": [{"forks": [{"warmups": [9]}, {"samples": [1, 2]}, {"samples": [3, 6]}]}]})}
    claim = {"id": "mean", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s", "at": {"file": "summary.json", "pointer": "/m"}}
    for optional, status in ((True, "PASS"), (False, "FAIL")):
        unnest = {"array": "/forks", "then": "/samples", **({"then_optional": True} if optional else {})}
        runs = {"unnest": unnest, "fields": {"latency": {"element": True, "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}
        bundle = write_tree(tmp_path / status / "run", {**files, "summary.json": json.dumps({"m": 3.0})})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": _json_doc([claim], runs)}))
        assert [f.code for f in _by(report, "schema.documents") if f.status == "FAIL"] == ([] if optional else ["missing-field"])
        assert _claim(report, "mean").status == "PASS" and (report.verdict == "FAIL") is not optional


def test_labels_map_what_records_write_onto_one_dimension_value(tmp_path):
    files = {"runs/baseline.json": json.dumps({"benchmarks": [{"n": "N=1k", "t": 2}, {"n": "1000", "t": 4}, {"n": "N=2k", "t": 9}]})}
    claim = {"id": "mean", "receipts": "runs", "statistic": "mean", "value": "t", "selection": {"phase": "measured", "n": "1000"}, "unit": "s",
             "at": {"file": "summary.json", "pointer": "/m"}}
    runs = {"values": {"t": {"pointer": "/t", "unit": "s"}}, "dimensions": {"n": {"pointer": "/n", "labels": {"N=1k": "1000", "N=2k": "2000"}}}}
    for stated, status in (("3", "PASS"), ("4", "FAIL")):
        bundle = write_tree(tmp_path / status / "run", {**files, "summary.json": json.dumps({"m": float(stated)})})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": _json_doc([claim], runs)}))
        assert _claim(report, "mean").status == status


def test_labels_on_a_value_and_a_divisor_on_a_dimension_are_refused():
    doc = _json_doc([], {"values": {"t": {"pointer": "/t", "unit": "s", "labels": {"x": "1"}}}})
    _refused(doc, "/receipts/runs/values/t/labels", "`dimensions`")
    doc = _json_doc([], {"dimensions": {"n": {"pointer": "/n", "divide_by": {"pointer": "/k"}}}})
    _refused(doc, "/receipts/runs/dimensions/n/divide_by", "`values`")


# ---------------------------------------------------------------- 7. reStructuredText claim documents

RST = """Results
=======

The candidate is 16.67 % faster.

.. table:: Latency

   =========  ======
   Arm        Mean s
   =========  ======
   baseline   {b}
   candidate  1.0
   =========  ======

.. include:: {inc}

.. code-block:: text

   mean 1.0 s
"""


def test_a_restructuredtext_claim_document_is_read_by_its_tables(tmp_path):
    claim = {**MEAN, "at": {"file": "RESULTS.rst", "pointer": "/tables/Latency", "where": {"Arm": "{arm}"}, "then": "/Mean s"}}
    for b, status in (("1.2", "PASS"), ("1.3", "FAIL")):
        inc = tmp_path / status / "run" / "other.txt"  # an absolute path, so a reader that followed `include` would find it
        bundle = write_tree(tmp_path / status / "run", {**RUNS, "summary.json": "{}", "RESULTS.rst": RST.format(b=b, inc=inc), "other.txt": "99 included numbers"})
        doc = _doc([claim], claim_documents=[{"file": "RESULTS.rst"}])
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": doc}))
        assert sorted(f.status.value for f in _by(report, "derivation.claims")) == sorted(["PASS", status]), [f.message for f in _by(report, "derivation.claims")]
    unchecked = sorted(f.pointer for f in _by(report, "claims.coverage", "unchecked-claim"))
    assert unchecked == ["/literal/0/numbers/0", "/prose/0/numbers/0"], unchecked  # the code block's number is stated; the include read nothing


def test_a_bounds_file_placeholder_that_is_not_a_per_dimension_is_refused():
    rule = {"id": "range", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
            "bounds_at": {"file": "{arm}/{modle}/README.md", "line_naming": "mean"}}
    _refused(_doc([], gate={"rules": [rule]}), "/gate/rules/0/bounds_at/file", "{modle}", "`per`")
    load_profile(_doc([], gate={"rules": [{**rule, "bounds_at": {"file": "{arm}/README.md", "line_naming": "mean"}}]}), SCHEMA, origin="draft.json")


def test_profile_check_says_when_instances_share_one_place(tmp_path, run):
    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": '{"mean": 1.2}'})
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(_doc([{**MEAN, "at": {"file": "summary.json", "pointer": "/mean"}}]) | {"id": "draft-run"}))
    result = run("profile", "check", str(bundle), "--profile", str(draft))
    assert "its place is stated for 2 of 2 (2 instances at 1 place" in result.stdout, result.stdout


def test_a_restructuredtext_page_nested_too_deeply_is_unreadable_not_an_error():
    from verifier.readers.grammars import GrammarError
    from verifier.readers.rst_doc import rst_document

    with pytest.raises(GrammarError, match="nested too deeply"):
        rst_document("\n".join("  " * i + "- a" for i in range(1200)).encode())


def test_a_quotient_beyond_binary64_is_not_used(tmp_path):
    bundle = write_tree(tmp_path / "run", {"runs/baseline.json": '{"benchmarks": [{"real_time": 1e300, "iterations": 1e-300}]}', "summary.json": '{"per_iter": 5}'})
    claim = {"id": "per_iter", "receipts": "runs", "statistic": "mean", "value": "t", "selection": {"phase": "measured"}, "unit": "ns",
             "at": {"file": "summary.json", "pointer": "/per_iter"}}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _json_doc([claim], {"values": PER_ITERATION["values"]})}))
    assert [f.code for f in _by(report, "schema.documents") if f.status == "UNVERIFIED"] == ["number-out-of-range"]


# The first 11 samples of Criterion.rs's documented raw.csv (its user guide, "CSV Output": "To calculate the time-per-iteration,
# use sample_measured_value/iteration_count").
CRITERION = """group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count
Fibonacci,Iterative,,,,915000,ns,110740
Fibonacci,Iterative,,,,1964000,ns,221480
Fibonacci,Iterative,,,,2812000,ns,332220
Fibonacci,Iterative,,,,3767000,ns,442960
Fibonacci,Iterative,,,,4785000,ns,553700
Fibonacci,Iterative,,,,6302000,ns,664440
Fibonacci,Iterative,,,,6946000,ns,775180
Fibonacci,Iterative,,,,7815000,ns,885920
Fibonacci,Iterative,,,,9186000,ns,996660
Fibonacci,Iterative,,,,9578000,ns,1107400
Fibonacci,Iterative,,,,11206000,ns,1218140
"""


def test_criterion_raw_csv_time_per_iteration(tmp_path):
    from fractions import Fraction

    rows = [line.split(",") for line in CRITERION.splitlines()[1:]]
    per_iteration = sum(Fraction(int(r[5]), int(r[7])) for r in rows) / len(rows)  # the mean of the per-sample times, in ns
    of_totals = Fraction(sum(int(r[5]) for r in rows), sum(int(r[7]) for r in rows))  # a ratio of sums: another number
    claim = {"id": "ns_per_iter", "receipts": "runs", "statistic": "mean", "value": "t", "selection": {"phase": "measured"}, "unit": "ns",
             "at": {"file": "summary.json", "pointer": "/ns"}}
    doc = _doc([claim])
    doc["receipts"]["runs"] = {"glob": "new/raw.csv", "encoding": "csv", "fields": {"phase": {"value": "measured"}},
                               "values": {"t": {"pointer": "/sample_measured_value", "unit": "ns", "divide_by": {"pointer": "/iteration_count"}}}}
    for stated, status in ((per_iteration, "PASS"), (of_totals, "FAIL")):
        bundle = write_tree(tmp_path / status / "run", {"new/raw.csv": CRITERION, "summary.json": json.dumps({"ns": round(float(stated), 4)})})
        assert _claim(verify_path(str(bundle), asset_root=make_assets(tmp_path / status, {"run": doc})), "ns_per_iter").status == status
