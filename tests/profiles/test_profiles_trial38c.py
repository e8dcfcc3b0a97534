"""Issue 38, the third newcomer trial (JMeter JTL + dashboard + COMPARISON.md; coherent_benchmarks per-run JSON + README tables).

Every authoring mistake the trial made is named at load (exit 2, one line: file, JSON Pointer, what to write) or by
`verify profile check`, never as an evidence FAIL. The bundles are small and made up, shaped like the two real sets
(harshapilli369/intellicare-assignment3 jmeter/results, alb3rtjarvis/coherent_benchmarks results/).
"""

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

#: A JTL CSV per arm: label, elapsed (ms), success. Baseline login: 10, 10, 40 (mean 20, median 10); optimized: 5, 5, 50
#: (mean 20, median 5). The change of the means is 0 %, of the medians -50 %.
JTL = {
    "baseline/light.csv": "timeStamp,elapsed,label,success\n1,10,login,true\n2,10,login,true\n3,40,login,true\n4,8,index,true\n",
    "optimized/light.csv": "timeStamp,elapsed,label,success\n1,5,login,true\n2,5,login,true\n3,50,login,true\n4,4,index,true\n",
}


def _jm(claims: list[dict], **extra) -> dict:
    """Return a profile `jm` reading `{arm}/{load}.csv` JTL samples (latency `elapsed` ms, dimension `label`) with `claims`."""
    return {
        "id": "jm", "version": 1, "description": "test profile shaped like a JMeter results folder",
        "detect": {"files": ["COMPARISON.md"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"samples": {"glob": "*/*.csv", "encoding": "csv", "name": "{arm}/{load}.csv",
                                 "fields": {"latency": {"pointer": "/elapsed", "unit": "ms"}, "arm": {"from_name": "arm"}, "outcome": {"pointer": "/success"}},
                                 "dimensions": {"load": {"from_name": "load"}, "label": {"pointer": "/label"}},
                                 "ok_outcomes": ["true"]}},
        "claims": claims,
        **extra,
    }


def _verify(tmp_path: Path, files: dict[str, str], doc: dict):
    """Return the report of `verify` over `files` judged by the profile `doc`."""
    bundle = write_tree(tmp_path / "bundle", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {doc["id"]: doc}))


def _check(run, tmp_path: Path, files: dict[str, str], doc: dict):
    """Return the CLI result of `verify profile check` over `files` with the draft `doc`."""
    bundle = write_tree(tmp_path / "bundle", files)
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(doc | {"id": "draft-" + doc["id"]}))
    return run("profile", "check", str(bundle), "--profile", str(draft))


def _refused(doc: dict, pointer: str, *words: str) -> str:
    """Assert `doc` is refused at load with one line naming the file and `pointer` (and each of `words`); return the line."""
    with pytest.raises(ConfigError) as info:
        load_profile(doc, SCHEMA, origin="draft.json")
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"draft.json: invalid profile at {pointer}:"), line
    for word in words:
        assert word in line, (word, line)
    return line


# ---------------------------------------------------------------- D2: `of` on every two-selection statistic

def _change(statistic: str, of: dict | None, unit: str = "%") -> dict:
    claim = {"id": "change", "receipts": "samples", "statistic": statistic, "baseline": "baseline", "candidate": "optimized",
             "selection": {"load": "light", "label": "login"}, "unit": unit, "at": {"file": "summary.json", "pointer": "/change"}}
    return claim | ({"of": of} if of else {})


@pytest.mark.parametrize(("statistic", "unit", "of_median", "of_mean"), [
    ("relative_change_pct", "%", "-50", "0"),       # (5 - 10) / 10
    ("ratio", "1", "0.5", "1.0"),                    # 5 / 10
    ("relative_reduction_pct", "%", "50", "0"),      # (10 - 5) / 10
    ("speedup", "x", "2", "1"),                      # 10 / 5
    ("difference", "ms", "5", "0"),                  # 10 - 5
])
def test_of_names_the_statistic_every_two_selection_statistic_compares(tmp_path, statistic, unit, of_median, of_mean):
    doc = _jm([_change(statistic, {"statistic": "median"}, unit)])
    report = _verify(tmp_path, {**JTL, "COMPARISON.md": "", "summary.json": f'{{"change": {of_median}}}'}, doc)
    assert _claim(report, "change").status == "PASS", _claim(report, "change").message
    report = _verify(tmp_path / "b", {**JTL, "COMPARISON.md": "", "summary.json": f'{{"change": {of_mean}}}'}, doc)
    assert _claim(report, "change").status == "FAIL", _claim(report, "change").message


@pytest.mark.parametrize("statistic", ["mean", "count", "percentile", "sd"])
def test_of_on_a_statistic_of_one_selection_is_refused_at_load(statistic):
    claim = {"id": "one", "receipts": "samples", "statistic": statistic, "selection": {"load": "light"}, "of": {"statistic": "median"},
             "at": {"file": "summary.json", "pointer": "/one"}}
    claim |= {"q": 95, "method": "linear"} if statistic == "percentile" else {}
    claim |= {} if statistic == "count" else {"unit": "ms"}
    _refused(_jm([claim]), "/claims/0/of", statistic, "relative_change_pct")


# ---------------------------------------------------------------- D4: `profile check` resolves the arms an instance names

def _speedup(baseline: str, candidate: str, per: list[str]) -> dict:
    return {"id": "speedup", "receipts": "samples", "statistic": "speedup", "baseline": baseline, "candidate": candidate,
            "selection": {"load": "light"}, "per": per, "unit": "x",
            "at": {"file": "summary.json", "pointer": "/{" + per[0] + "}/{label}"}}


def _line(result, where: str) -> str:
    return next(x for x in result.stdout.splitlines() if x.strip().startswith(where)), result.stdout


def test_profile_check_names_a_misspelled_baseline_beside_a_per_arm_candidate(tmp_path, run):
    files = {**JTL, "COMPARISON.md": "", "summary.json": '{"baseline": {"login": 1, "index": 1}, "optimized": {"login": 1, "index": 2}}'}
    result = _check(run, tmp_path, files, _jm([_speedup("basline", "{arm}", ["arm", "label"])]))
    line = _line(result, "claims/0")[0]
    assert result.exit_code == 1 and "baseline arm 'basline'" in line and "matches nothing" in line, result.stdout
    result = _check(run, tmp_path / "good", files, _jm([_speedup("baseline", "{arm}", ["arm", "label"])]))
    assert result.exit_code == 0 and "baseline arm 'baseline'" in _line(result, "claims/0")[0], result.stdout


def test_profile_check_names_an_instance_whose_other_dimension_excludes_the_baseline_arm(tmp_path, run):
    # the trial's `candidate: "{pkg}"` with `pkg` (the same name part as the arm) in `per`: the baseline selection keeps
    # pkg=optimized and so selects nothing for every instance but the baseline's own
    doc = _jm([_speedup("baseline", "{pkg}", ["pkg", "label"])])
    doc["receipts"]["samples"]["dimensions"]["pkg"] = {"from_name": "arm"}
    files = {**JTL, "COMPARISON.md": "", "summary.json": '{"baseline": {"login": 1, "index": 1}, "optimized": {"login": 2, "index": 2}}'}
    result = _check(run, tmp_path, files, doc)
    line = _line(result, "claims/0")[0]
    assert result.exit_code == 1 and "baseline arm 'baseline' selects no receipt for 2 of 4 instances" in line and "pkg=optimized" in line, result.stdout


# ---------------------------------------------------------------- D5, D6: a mapping that matches no record of its set

MEAN = {"id": "mean", "receipts": "samples", "statistic": "mean", "selection": {"load": "light"}, "per": ["arm", "label"], "unit": "ms",
        "at": {"file": "summary.json", "pointer": "/{arm}/{label}"}}
MEANS = {**JTL, "COMPARISON.md": "", "summary.json": '{"baseline": {"login": 20, "index": 8}, "optimized": {"login": 20, "index": 4}}'}


def _typo_latency() -> dict:
    doc = _jm([MEAN])
    doc["receipts"]["samples"]["fields"]["latency"]["pointer"] = "/elapsd"
    return doc


def test_a_field_pointer_matching_no_record_is_one_unverified_finding_naming_it_not_a_fail_per_record(tmp_path):
    report = _verify(tmp_path, MEANS, _typo_latency())
    found = _by(report, "schema.documents")
    assert not [f for f in found if f.status == "FAIL"], [f.message for f in found if f.status == "FAIL"][:3]
    [one] = [f for f in found if f.code == "mapping-matches-nothing"]
    assert one.status == "UNVERIFIED" and "'/elapsd'" in one.message and "8 records" in one.message and "/elapsed" in one.message, one.message
    assert not [f.message for f in found if f.code == "mapped"]  # no file "maps every mapped field"
    claims = _by(report, "derivation.claims")
    assert claims and all(f.status == "UNVERIFIED" for f in claims), [(f.status, f.code) for f in claims]
    assert report.verdict != "FAIL" and report.exit_code == 3


def test_a_field_missing_on_some_records_only_is_still_evidence(tmp_path):
    timings = json.loads(RUNS["results/dynlab_dg_results.json"])
    del timings["timings"]["loop_times"]  # one file of two lacks the loop times: the evidence is incomplete, FAIL
    report = _verify(tmp_path, {**RUNS, "results/dynlab_dg_results.json": json.dumps(timings)}, _cb("/timings/loop_times"))
    assert {f.code for f in _by(report, "schema.documents") if f.status == "FAIL"} == {"missing-field", "parallel-mismatch"}
    assert not [f for f in _by(report, "schema.documents") if f.code == "mapping-matches-nothing"]
    assert _claim(report, "mean_loop_time[file=results/dynlab_dg_results.json]").status == "FAIL"
    assert _claim(report, "mean_loop_time[file=results/numbacs_dg_results.json]").status == "PASS"


def test_profile_check_names_a_field_pointer_matching_no_record(tmp_path, run):
    result = _check(run, tmp_path, MEANS, _typo_latency())
    line = _line(result, "receipts.samples/fields/latency")[0]
    assert result.exit_code == 1 and "pointer '/elapsd' matches no record of set samples (8 records)" in line and "/elapsed" in line, result.stdout


def test_profile_check_names_a_dimension_pointer_matching_no_record(tmp_path, run):
    doc = _jm([MEAN])
    doc["receipts"]["samples"]["dimensions"]["label"]["pointer"] = "/lable"
    result = _check(run, tmp_path, MEANS, doc)
    line = _line(result, "receipts.samples/dimensions/label")[0]
    assert result.exit_code == 1 and "pointer '/lable' matches no record of set samples" in line and "/label" in line, result.stdout


#: coherent_benchmarks' per-run JSON: per-iteration times and the loop times beside them (unnest with a parallel array).
RUNS = {"results/numbacs_dg_results.json": json.dumps({"metadata": {"package_name": "NumbaCS"}, "timings": {
            "per_iter_times": [0.2, 0.4, 0.6], "loop_times": [10, 20, 30], "mean_loop_time": 20}}),
        "results/dynlab_dg_results.json": json.dumps({"metadata": {"package_name": "Dynlab"}, "timings": {
            "per_iter_times": [2, 4, 6], "loop_times": [100, 200, 300], "mean_loop_time": 200}})}


def _cb(parallel: str) -> dict:
    return {"id": "cb", "version": 1, "description": "test profile shaped like coherent_benchmarks", "detect": {"files": ["results/numbacs_dg_results.json"]},
            "manifest": {"kind": "none", "reason": "no digests"},
            "receipts": {"runs": {"glob": "results/*_results.json", "encoding": "json",
                                  "unnest": {"array": "/timings/per_iter_times", "parallel": {"loop": parallel}},
                                  "fields": {"phase": {"value": "measured"}, "arm": {"pointer": "/metadata/package_name"}},
                                  "values": {"per_iter": {"element": True, "unit": "s"}, "loop": {"parallel": "loop", "unit": "s"}}}},
            "claims": [{"id": "mean_loop_time", "receipts": "runs", "statistic": "mean", "value": "loop", "selection": {"phase": "measured"},
                        "per": ["file"], "unit": "s", "at": {"file": "{file}", "pointer": "/timings/mean_loop_time"}}]}


def test_a_parallel_pointer_matching_no_record_is_named_by_check_and_never_a_fail(tmp_path, run):
    report = _verify(tmp_path, RUNS, _cb("/timings/loop_time"))
    assert not [f for f in report.findings if f.status == "FAIL"], [(f.check, f.code, f.message) for f in report.findings if f.status == "FAIL"][:3]
    [one] = [f for f in _by(report, "schema.documents") if f.code == "mapping-matches-nothing"]
    assert "'/timings/loop_time'" in one.message, one.message
    result = _check(run, tmp_path / "c", RUNS, _cb("/timings/loop_time"))
    line = _line(result, "receipts.runs/unnest/parallel/loop")[0]
    assert result.exit_code == 1 and "matches no record of set runs" in line, result.stdout
    assert _check(run, tmp_path / "d", RUNS, _cb("/timings/loop_times")).exit_code == 0


# ---------------------------------------------------------------- D7: a `where` matching several rows is the profile's fault

#: COMPARISON.md as summarise.py writes it: one table per load, a row per endpoint and a Total row; "Change" columns
#: repeated ("Change", "Change (2)" once read).
COMPARISON = """# JMeter Comparison - Baseline vs Optimized

## Light load - 10 users

| Endpoint | Avg (ms) before | Avg (ms) after | Change | Median (ms) before | Median (ms) after | Change | Error % before |
| -------- | --------------- | -------------- | ------ | ------------------ | ----------------- | ------ | -------------- |
| login    | 20              | 20             | +0.0%  | 10                 | 5                 | -50.0% | 0.00           |
| index    | 8               | 4              | -50.0% | 8                  | 4                 | -50.0% | 0.00           |
| Total    | 17              | 16             | -5.9%  | 10                 | 5                 | -50.0% | 0.00           |
"""
TABLE = "/tables/Light load - 10 users"


def test_a_where_matching_several_rows_is_unverified_ambiguous_location_never_claim_missing(tmp_path):
    total = {"id": "total", "receipts": "samples", "statistic": "mean", "selection": {"load": "light", "arm": "baseline"}, "unit": "ms",
             "at": {"file": "COMPARISON.md", "pointer": TABLE, "where": {"Error % before": "0.00"}, "then": "/Avg (ms) before"}}
    report = _verify(tmp_path, {**JTL, "COMPARISON.md": COMPARISON}, _jm([total]))
    found = _claim(report, "total")
    assert (found.status, found.code) == ("UNVERIFIED", "ambiguous-location"), (found.status, found.code, found.message)
    assert "3 elements" in found.message and "Error % before" in found.message and "profile" in found.message, found.message
    fixed = {**total, "at": {**total["at"], "where": {"Endpoint": "Total"}}}
    assert _claim(_verify(tmp_path / "b", {**JTL, "COMPARISON.md": COMPARISON}, _jm([fixed])), "total").status == "PASS"


# ---------------------------------------------------------------- D3: a place another claim binds is not this claim's underived value

def _avg(label: str = "{label}", per: tuple[str, ...] = ("label",)) -> dict:
    return {"id": f"avg.before.{'label' if per else 'total'}", "receipts": "samples", "statistic": "mean", "selection": {"load": "light", "arm": "baseline"},
            "per": list(per), "unit": "ms", "at": {"file": "COMPARISON.md", "pointer": TABLE, "where": {"Endpoint": label}, "then": "/Avg (ms) before"}}


def test_the_total_row_a_total_claim_binds_is_not_read_backwards_as_not_derivable_by_the_per_label_claim(tmp_path):
    per_label, total = _avg(), {k: v for k, v in _avg("Total", ()).items() if k != "per"}
    report = _verify(tmp_path, {**JTL, "COMPARISON.md": COMPARISON}, _jm([per_label, total]))
    assert _claim(report, "avg.before.total").status == "PASS"
    assert [_claim(report, f"avg.before.label[label={x}]").status for x in ("index", "login")] == ["PASS", "PASS"]
    assert not [f.message for f in _by(report, "derivation.claims") if f.code == "not-derivable"]
    # without the Total claim, the Total row is still a stated number no instance derives: reported, never passed over
    report = _verify(tmp_path / "b", {**JTL, "COMPARISON.md": COMPARISON}, _jm([per_label]))
    assert [f.code for f in _by(report, "derivation.claims") if f.status != "PASS"] == ["not-derivable"]


def _split(pkg: str) -> dict:
    return {"id": f"mean_loop_time.{pkg}", "receipts": "runs", "statistic": "mean", "value": "loop", "selection": {"phase": "measured", "pkg": pkg},
            "per": ["file"], "unit": "s", "at": {"file": "{file}", "pointer": "/timings/mean_loop_time"}}


def test_claims_split_by_selection_at_file_do_not_report_each_others_files(tmp_path, run):
    doc = _cb("/timings/loop_times")
    doc["receipts"]["runs"]["dimensions"] = {"pkg": {"pointer": "/metadata/package_name"}}
    doc["claims"] = [_split("NumbaCS"), _split("Dynlab")]
    report = _verify(tmp_path, RUNS, doc)
    assert sorted((f.status.value if hasattr(f.status, "value") else f.status, f.code) for f in _by(report, "derivation.claims")) == [("PASS", "derived")] * 2
    result = _check(run, tmp_path / "c", RUNS, doc)
    assert result.exit_code == 0 and "no instance derives" not in result.stdout, result.stdout
    # a third package's file neither claim selects is still a stated number no instance derives: reported, never passed over
    third = {**RUNS, "results/lcstool_dg_results.json": RUNS["results/dynlab_dg_results.json"].replace("Dynlab", "LCStool")}
    report = _verify(tmp_path / "d", third, doc)
    assert {(f.code, f.path) for f in _by(report, "derivation.claims") if f.status != "PASS"} == {("not-derivable", "results/lcstool_dg_results.json")}


def test_where_not_leaves_a_row_out_of_a_claims_location_and_of_its_reading_backwards(tmp_path):
    per_label = {**_avg(), "at": {**_avg()["at"], "where_not": {"Endpoint": ["Total"]}}}
    doc = _jm([per_label], claim_documents=[{"file": "COMPARISON.md"}])
    report = _verify(tmp_path, {**JTL, "COMPARISON.md": COMPARISON}, doc)
    assert [(f.status, f.code) for f in _by(report, "derivation.claims")] == [("PASS", "derived")] * 2, [f.message for f in _by(report, "derivation.claims")]
    unchecked = [f.pointer for f in _by(report, "claims.coverage") if f.code == "unchecked-claim"]
    assert f"{TABLE}/2/Avg (ms) before" in unchecked, unchecked  # the Total row is no claim's: unchecked, never passed over
    # a `where` whose only match is a row `where_not` leaves out states nothing there
    total = {**_avg("Total", ()), "at": {**_avg("Total", ())["at"], "where_not": {"/Endpoint": ["Total"]}}}
    total.pop("per")
    found = _claim(_verify(tmp_path / "b", {**JTL, "COMPARISON.md": COMPARISON}, _jm([total])), "avg.before.total")
    assert (found.status, found.code) == ("FAIL", "claim-missing"), found.message


def test_where_not_without_a_where_is_refused_at_load():
    claim = {**_avg(), "at": {"file": "COMPARISON.md", "pointer": TABLE + "/0/Avg (ms) before", "where_not": {"Endpoint": ["Total"]}}}
    claim.pop("per")
    _refused(_jm([claim]), "/claims/0/at/where_not", "add the `where`")


def test_one_row_stated_twice_is_the_evidences_fault_claim_missing_not_ambiguous(tmp_path):
    # rows equal in every member but the one read: the bundle states one row twice (MLPerf's summary listing a run
    # twice), not a `where` too loose to tell rows apart
    twice = COMPARISON + "| login    | 20              | 20             | +0.0%  | 10                 | 5                 | -50.0% | 0.00           |\n"
    claim = {**_avg(), "at": {**_avg()["at"], "where_not": {"Endpoint": ["Total"]}}}
    found = _claim(_verify(tmp_path, {**JTL, "COMPARISON.md": twice}, _jm([claim])), "avg.before.label[label=login]")
    assert (found.status, found.code) == ("FAIL", "claim-missing") and "2 elements" in found.message, found.message
    # stated twice with two values in the column read: still one row twice (a contradiction of the evidence)
    twice = twice[:twice.rindex("| 20              | 20")] + "| 21              | 20             | +0.0%  | 10                 | 5                 | -50.0% | 0.00           |\n"
    found = _claim(_verify(tmp_path / "b", {**JTL, "COMPARISON.md": twice}, _jm([claim])), "avg.before.label[label=login]")
    assert (found.status, found.code) == ("FAIL", "claim-missing"), found.message


# ---------------------------------------------------------------- D8: a schema pattern is said in a sentence, never as the raw regex

def _patterns(node) -> set[str]:
    if isinstance(node, dict):
        return ({node["pattern"]} if isinstance(node.get("pattern"), str) else set()) | {p for v in node.values() for p in _patterns(v)}
    return {p for v in node for p in _patterns(v)} if isinstance(node, list) else set()


@pytest.mark.parametrize(("change", "pointer", "words"), [
    (lambda d: d["receipts"]["samples"].update(glob="/tmp/trial/jmeter/*/*.csv"), "/receipts/samples/glob", ("absolute path", "'*/*.csv'")),
    (lambda d: d["receipts"]["samples"].update(glob="baseline\\light.csv"), "/receipts/samples/glob", ("a backslash", "'baseline/light.csv'")),
    (lambda d: d.update(id="jmeter dashboard"), "/id", ("not an id", "'jmeter-dashboard'")),
    (lambda d: d["claims"][0].update(tolerance="0,5"), "/claims/0/tolerance", ("decimal", "\"0.5\"")),
])
def test_a_schema_pattern_a_value_breaks_is_said_in_a_sentence(change, pointer, words):
    doc = _jm([copy.deepcopy(MEAN)])
    change(doc)
    line = _refused(doc, pointer, *words)
    assert "does not match" not in line and "^" not in line, line


def test_every_pattern_of_the_profile_schema_has_its_sentence():
    from verifier.profiles.language import PATTERN_SENTENCES
    assert _patterns(SCHEMA) <= set(PATTERN_SENTENCES), _patterns(SCHEMA) - set(PATTERN_SENTENCES)


# ---------------------------------------------------------------- D9: what is not a plain number is not read as one

def test_digits_glued_to_a_name_and_a_superscript_exponent_are_no_plain_number():
    from verifier.formats.textnumbers import numbers_in
    from verifier.readers.markdown_doc import markdown_document
    hardware = "Hardware: Intel(R) Core(TM) i7-3770K CPU @ 3.50GHz, Cores = 4, Threads = 8."
    doc = markdown_document(f"# Bench\n\n{hardware}\n\nSpeedup (117.88)⁻¹ and 10⁻³ of 2.5 s.\n\nAn i7-3770 runs it.\n".encode())
    assert [p["numbers"] for p in doc["prose"]] == [["4", "8"], ["2.5 s"], []]
    assert [str(n) for _s, _e, n, _u in numbers_in("(117.88)⁻¹, 10⁻³ or 41.47")] == ["41.47"]


#: coherent_benchmarks' README table: the slower package's speedup written as an inverse, "(117.88)⁻¹".
SPEEDUPS = """# Coherent Benchmarks

## Double Gyre FTLE (Iter/Run: 3, Num Runs: 1)

| Package | Speedup (vs NumbaCS) |
| ------- | -------------------- |
| NumbaCS | 1.00 |
| Dynlab  | (10.00)⁻¹ |
"""


def test_a_speedup_written_with_an_inverse_exponent_is_unverified_never_read_as_the_plain_number(tmp_path):
    doc = _cb("/timings/loop_times")
    doc["detect"] = {"files": ["README.md"]}
    doc["claims"] = [{"id": "speedup", "receipts": "runs", "statistic": "speedup", "value": "per_iter", "baseline": "NumbaCS", "candidate": "{arm}",
                      "selection": {"phase": "measured"}, "per": ["arm"], "unit": "x",
                      "at": {"file": "README.md", "pointer": "/tables/Double Gyre FTLE (Iter~1Run: 3, Num Runs: 1)", "where": {"Package": "{arm}"},
                             "then": "/Speedup (vs NumbaCS)", "number": 0}}]
    report = _verify(tmp_path, {**RUNS, "README.md": SPEEDUPS}, doc)  # Dynlab per-iteration mean 4 s, NumbaCS 0.4 s: speedup 0.1 = (10)⁻¹
    found = _claim(report, "speedup[arm=Dynlab]")
    assert found.status == "UNVERIFIED" and "(10.00)⁻¹" in found.message, (found.status, found.code, found.message)
    assert _claim(report, "speedup[arm=NumbaCS]").status == "PASS"


def test_heading_numbers_a_claims_pointer_template_binds_are_compared_not_unchecked(tmp_path):
    # coherent_benchmarks' README headings "Double Gyre FTLE (Iter/Run: 3, Num Runs: 1)": {iters} and {nruns} of the
    # table pointer bind the instance's dimension values, so the heading's 3 and 1 are compared (the table is found only
    # for receipts stating them)
    doc = _cb("/timings/loop_times")
    doc["detect"] = {"files": ["README.md"]}
    doc["receipts"]["runs"]["dimensions"] = {"iters": {"pointer": "/timings/iters"}, "nruns": {"pointer": "/timings/nruns"}}
    doc["claim_documents"] = [{"file": "README.md", "informational": [{"pointer": "/tables/*/*/Speedup (vs NumbaCS)", "reason": "not claimed here"},
                                                                      {"pointer": "/tables/*/*/Speedup (vs NumbaCS)#numbers/*", "reason": "not claimed here"}]}]
    doc["claims"] = [{"id": "loop", "receipts": "runs", "statistic": "mean", "value": "loop", "selection": {"phase": "measured"},
                      "per": ["arm", "iters", "nruns"], "unit": "s",
                      "at": {"file": "README.md", "pointer": "/tables/Double Gyre FTLE (Iter~1Run: {iters}, Num Runs: {nruns})", "where": {"Package": "{arm}"},
                             "then": "/Loop (s)"}}]
    runs = {rel: json.dumps({**json.loads(text), "timings": {**json.loads(text)["timings"], "iters": 3, "nruns": 1}}) for rel, text in RUNS.items()}
    readme = SPEEDUPS.replace("| Speedup (vs NumbaCS) |\n| ------- | -------------------- |", "| Speedup (vs NumbaCS) | Loop (s) |\n| ------- | ---- | ---- |")
    readme = readme.replace("| 1.00 |", "| 1.00 | 20 |").replace("| (10.00)⁻¹ |", "| (10.00)⁻¹ | 200 |")
    report = _verify(tmp_path, {**runs, "README.md": readme}, doc)
    assert [f.status for f in _by(report, "derivation.claims")] == ["PASS", "PASS"], [f.message for f in _by(report, "derivation.claims")]
    assert [(f.status, f.code) for f in _by(report, "claims.coverage")] == [("PASS", "covered")], [f.message for f in _by(report, "claims.coverage")]
    # a number of the heading the template writes literally is no instance's value: still unchecked
    doc["claims"][0]["at"]["pointer"] += " grid 64"
    report = _verify(tmp_path / "b", {**runs, "README.md": readme.replace("Num Runs: 1)\n", "Num Runs: 1) grid 64\n")}, doc)
    assert [f.pointer for f in _by(report, "claims.coverage") if f.code == "unchecked-claim"] == ["/headings/1/numbers/2"]


# ---------------------------------------------------------------- D10: discovery's "ambiguous" says why one fitting derivation is not bound

def test_an_ambiguous_number_with_one_fitting_derivation_says_why_it_is_not_bound():
    from decimal import Decimal

    from verifier.discovery.classify import classify
    from verifier.discovery.context import Stated
    from verifier.discovery.report import _finding
    from verifier.discovery.search import Derivation, Search

    stated = Stated("a.json", "/x", "74", Decimal("74"), None, {"x"}, set(), set(), set(), "x")
    fit = Derivation("s1", "x_total", "first", (("k", "a"),), Decimal("74"), 1, 0, "first of 1", member_named=False, member_hint=True)
    message = _finding(stated, classify(stated, Search([fit], [], None, set()))).message
    assert "one derivation fits, not bound: a number of fewer than 3 significant digits" in message and "1 derivations" not in message, message
    twice = Derivation("s2", "x_total", "first", (("k", "b"),), Decimal("74"), 1, 0, "first of 1", member_named=False, member_hint=True)
    message = _finding(stated, classify(stated, Search([fit, twice], [], None, set()))).message
    assert "2 derivations fit, not bound" in message, message


def test_a_placeholder_value_holding_a_slash_is_escaped_in_a_pointer_and_written_as_is_in_where(tmp_path):
    # JMeter's statistics.json keys its rows by the sampler label, "01 POST /api/auth/login"
    files = {"baseline/light.csv": "timeStamp,elapsed,label,success\n1,10,01 POST /api/auth/login,true\n2,30,01 POST /api/auth/login,true\n",
             "COMPARISON.md": "| Endpoint | Avg |\n| --- | --- |\n| 01 POST /api/auth/login | 20 |\n",
             "baseline/light-report/statistics.json": '{"01 POST /api/auth/login": {"transaction": "01 POST /api/auth/login", "meanResTime": 20.0}}'}
    by_pointer = {**MEAN, "id": "by_pointer", "per": ["label"], "selection": {"load": "light", "arm": "baseline"},
                  "at": {"file": "baseline/light-report/statistics.json", "pointer": "/{label}/meanResTime"}}
    by_where = {**by_pointer, "id": "by_where", "at": {"file": "baseline/light-report/statistics.json", "pointer": "", "where": {"transaction": "{label}"}, "then": "/meanResTime"}}
    report = _verify(tmp_path, files, _jm([by_pointer, by_where]))
    found = _claim(report, "by_pointer[label=01 POST /api/auth/login]")
    assert found.status == "PASS" and found.pointer == "/01 POST ~1api~1auth~1login/meanResTime", (found.status, found.pointer)
    assert _claim(report, "by_where[label=01 POST /api/auth/login]").status == "PASS"


# ---------------------------------------------------------------- D1: `profile draft` says why it left numbers out, grouped

NOTES = ["baseline/light-report/statistics.json /login/meanResTime -- baseline/light-report/statistics.json#/: an object of objects keyed by name "
         "(the language reads arrays of records)",
         "optimized/light-report/statistics.json /index/meanResTime -- optimized/light-report/statistics.json#/: an object of objects keyed by name "
         "(the language reads arrays of records)",
         "claim COMPARISON.md_tables_0_Avg -- the profile language does not reproduce discovery's derivation (x: 0/4 receipts of arm=optimized have a usable y)",
         "claim COMPARISON.md_tables_4_Avg -- the profile language does not reproduce discovery's derivation (x: stated 1 %, derived 2 % at 'Change')"]


def _drafting(monkeypatch, keep: bool) -> None:
    """Make `write_draft` draft `_jm([MEAN])` with `NOTES` left out (the first two by the draft, the last by its self-check; `keep`: the claim stays)."""
    import verifier.discovery
    import verifier.discovery.draft
    from verifier.discovery import drafting

    monkeypatch.setattr(verifier.discovery, "discover", lambda root, seconds: None)
    monkeypatch.setattr(verifier.discovery.draft, "draft_profile", lambda disc, pid: (_jm([copy.deepcopy(MEAN)]), NOTES[:2]))  # (a fresh list each call)

    def self_check(profile, root, verify):
        if not keep:
            profile["claims"] = []
        return list(NOTES[2:])
    monkeypatch.setattr(drafting, "_self_check", self_check)


def test_a_draft_with_no_claim_left_says_why_grouped_by_reason(tmp_path, run, monkeypatch):
    _drafting(monkeypatch, keep=False)
    result = run("profile", "draft", str(write_tree(tmp_path / "d", MEANS)), "-o", str(tmp_path / "draft.json"))
    assert result.exit_code == 2 and not (tmp_path / "draft.json").exists()
    lines = result.stderr.splitlines()
    assert lines[0] == "verify: left out of the draft: 4 bound number(s), for 2 reason(s):", lines
    assert lines[1].startswith("  2 x an object of objects keyed by name (the language reads arrays of records) (first: baseline/light-report/statistics.json"), lines
    assert lines[2].startswith("  2 x the profile language does not reproduce discovery's derivation (first: claim COMPARISON.md_tables_0_Avg)"), lines
    assert "no drafted claim re-derives" in lines[-1] and "most for: an object of objects keyed by name" in lines[-1], lines


def test_profile_draft_explain_lists_every_number_left_out_and_still_writes_the_draft(tmp_path, run, monkeypatch):
    _drafting(monkeypatch, keep=True)
    result = run("profile", "draft", str(write_tree(tmp_path / "d", MEANS)), "-o", str(tmp_path / "draft.json"), "--explain")
    assert result.exit_code == 0 and (tmp_path / "draft.json").exists(), result.stderr
    assert "      optimized/light-report/statistics.json /index/meanResTime: optimized/light-report/statistics.json#/: an object" in result.stderr
    assert "4 bound number(s) left out (see its description; `--explain` lists why, grouped)" in result.stdout


def test_left_out_notes_group_by_reason_whatever_name_they_quote():
    from verifier.discovery.drafting import grouped
    notes = ["a.json /x -- some records of its selection lack 'elapsed' (a profile would count them as missing)",
             "a.json /y -- some records of its selection lack 'Latency' (a profile would count them as missing)", *NOTES]
    assert [(kind, n) for kind, n, _first in grouped(notes)] == [
        ("an object of objects keyed by name (the language reads arrays of records)", 2),
        ("some records of its selection lack '…' (a profile would count them as missing)", 2),
        ("the profile language does not reproduce discovery's derivation", 2)]


def test_a_dimension_pointer_matching_no_record_makes_its_claims_unverified_never_fail(tmp_path):
    # coherent_benchmarks' `/metadata/packge_name`: every claim over the set, also one not naming the dimension, was FAIL
    every = {**MEAN, "id": "every", "per": ["arm"], "at": {"file": "summary.json", "pointer": "/{arm}/all"}}
    doc = _jm([MEAN, every])
    doc["receipts"]["samples"]["dimensions"]["label"]["pointer"] = "/lable"
    files = {**MEANS, "summary.json": '{"baseline": {"login": 20, "index": 8, "all": 17}, "optimized": {"login": 20, "index": 4, "all": 16}}'}
    report = _verify(tmp_path, files, doc)
    assert not [f for f in report.findings if f.status == "FAIL"], [(f.check, f.code, f.message[:160]) for f in report.findings if f.status == "FAIL"][:3]
    [one] = [f for f in _by(report, "schema.documents") if f.code == "mapping-matches-nothing"]
    assert "'/lable'" in one.message and "/label" in one.message, one.message
    assert report.exit_code == 3


def test_profile_check_names_two_claims_comparing_one_stated_value(tmp_path, run):
    # the trial's copy-paste: the LCStool std claim kept the NumbaCS row's `where`, so two claims read one cell
    def row(label: str, where: str) -> dict:
        return {"id": f"avg.{label}", "receipts": "samples", "statistic": "mean", "selection": {"load": "light", "arm": "baseline", "label": label},
                "unit": "ms", "at": {"file": "COMPARISON.md", "pointer": TABLE, "where": {"Endpoint": where}, "then": "/Avg (ms) before"}}
    files = {**JTL, "COMPARISON.md": COMPARISON}
    result = _check(run, tmp_path, files, _jm([row("login", "login"), row("index", "login")]))
    line = _line(result, "claims/1")[0]
    assert result.exit_code == 1 and "its place is also compared by claims/0 (avg.login)" in line and "Light load - 10 users/0/Avg (ms) before" in line, result.stdout
    assert _check(run, tmp_path / "ok", files, _jm([row("login", "login"), row("index", "index")])).exit_code == 0


def test_profile_check_names_a_claim_whose_every_instance_differs_from_the_bundle(tmp_path, run):
    # the trial's ratio mapped `%` against a column stated in `x` (S2), and a change of the means against a column of the
    # change of the medians (M11): each instance FAILs at verify, so the rule, not the evidence, is the first suspect
    files = {**JTL, "COMPARISON.md": "", "summary.json": '{"change": 0.5}'}
    result = _check(run, tmp_path, files, _jm([_change("ratio", {"statistic": "median"}, unit="%")]))
    line = _line(result, "claims/0")[0]
    assert result.exit_code == 1 and "every one of its 1 compared instance differs from what the bundle states" in line, result.stdout
    assert "stated 0.5, derived 50.0: a factor of 100" in line, line
    result = _check(run, tmp_path / "b", {**files, "summary.json": '{"change": -50}'}, _jm([_change("relative_change_pct", None)]))
    line = _line(result, "claims/0")[0]
    assert result.exit_code == 1 and "differs from what the bundle states (first: stated -50, derived 0)" in line, result.stdout
    result = _check(run, tmp_path / "c", {**files, "summary.json": '{"change": -50}'}, _jm([_change("relative_change_pct", {"statistic": "median"})]))
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize(("n", "wrong", "flagged"), [(4, 3, True), (4, 1, False), (3, 2, False), (8, 3, False), (3, 3, True)])
def test_profile_check_names_a_claim_most_of_whose_instances_differ_and_not_a_few_of_many(tmp_path, run, n, wrong, flagged):
    # the trial's percentile with another method than the tool's (M8): most instances differ, a few agree by chance;
    # flagged when every instance differs, or at least half of them and three or more
    labels = [f"l{i}" for i in range(n)]
    csv = "timeStamp,elapsed,label,success\n" + "".join(f"{j},{v},{lab},true\n" for lab in labels for j, v in enumerate((10, 20, 30, 40)))
    claim = {**MEAN, "per": ["label"], "selection": {"load": "light", "arm": "baseline"}, "at": {"file": "summary.json", "pointer": "/{label}"}}
    stated = json.dumps({lab: (30 if i < wrong else 25) for i, lab in enumerate(labels)})  # the mean is 25
    result = _check(run, tmp_path, {"baseline/light.csv": csv, "COMPARISON.md": "", "summary.json": stated}, _jm([claim]))
    assert result.exit_code == (1 if flagged else 0), result.stdout
    if flagged and wrong < n:
        assert f"{wrong} of its {n} compared instances differ from what the bundle states" in _line(result, "claims/0")[0]


def test_profile_explain_names_the_claim_whose_every_instance_differs_too(tmp_path, run):
    bundle = write_tree(tmp_path / "bundle", {**JTL, "COMPARISON.md": "", "summary.json": '{"change": 0.5}'})
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(_jm([_change("ratio", {"statistic": "median"}, unit="%")]) | {"id": "draft-jm"}))
    result = run("profile", "explain", str(draft), str(bundle))
    assert "every one of its 1 compared instance differs" in result.stdout and "what each rule matched (1 matches nothing)" in result.stdout, result.stdout
