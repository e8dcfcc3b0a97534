"""The profile language's records from a JSON object's members (`records.members_of`), one record per combination of parameter lists (`unnest.product_of` with a `join`ed element dimension), and `where` `{"matches": REGEX}`: each PASSes as documented, FAILs when the evidence contradicts a claim, and is refused at load when misused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, make_assets
from helpers import by_check, one_claim, write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.readers.members import MembersError, members
from verifier.profiles.language import load_profile

SCHEMA = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())

#: an asv-like results file: `results` keyed by benchmark name, each an array read by `result_columns`
RESULTS = {"result_columns": ["result", "params", "version"],
           "results": {"m.time_a": [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [["1", "2"], ["'x'", "'y'", "'z'"]], "v"],
                       "m.peakmem_b": [[100], [], "v"],
                       "m.time_c": [[0.5], []]}}


def _doc(claims: list[dict], runs: dict | None = None) -> dict:
    """Return a profile reading `runs/{arm}.json` as members of `/results` by `/result_columns`, one record per parameter combination."""
    spec = {"glob": "runs/*.json", "encoding": "json", "name": "runs/{arm}.json",
            "records": {"members_of": "/results", "columns": "/result_columns"},
            "where": {"/#key": {"matches": r"(?:.*\.)?time_[^.]*"}},
            "unnest": {"product_of": "/params", "parallel": {"result": "/result"}},
            "fields": {"latency": {"parallel": "result", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
            "dimensions": {"benchmark": {"pointer": "/#key"}, "params": {"element": True, "join": ", "}}}
    return {"id": "run", "version": 1, "description": "test profile", "detect": {"files": ["summary.json"]},
            "manifest": {"kind": "none", "reason": "no digests"}, "receipts": {"runs": {**spec, **(runs or {})}}, "claims": claims}


def _claim(selection: dict, pointer: str = "/m") -> dict:
    return {"id": "c", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", **selection}, "unit": "s",
            "at": {"file": "summary.json", "pointer": pointer}}


def _report(tmp_path: Path, stated: float, selection: dict, results: dict | None = None, runs: dict | None = None):
    bundle = write_tree(tmp_path / "run", {"runs/base.json": json.dumps(results or RESULTS), "summary.json": json.dumps({"m": stated})})
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _doc([_claim(selection)], runs)}))


def _refused(doc: dict, pointer: str, *words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_profile(doc, SCHEMA, origin="draft.json")
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"draft.json: invalid profile at {pointer}"), line
    assert all(w in line for w in words), line


def test_each_member_is_a_record_with_its_key_and_its_positional_columns():
    pairs = members(RESULTS, {"members_of": "/results", "columns": "/result_columns"})
    assert [p for p, _ in pairs] == ["/results/m.time_a", "/results/m.peakmem_b", "/results/m.time_c"]
    assert pairs[1][1] == {"#key": "m.peakmem_b", "result": [100], "params": [], "version": "v"}
    assert pairs[2][1] == {"#key": "m.time_c", "result": [0.5], "params": []}  # a shorter array leaves the trailing columns unstated
    # a fixed list of columns, an object of objects, and a member that is neither
    assert members({"r": {"a/b": [1, 2]}}, {"members_of": "/r", "columns": ["x", "y"]}) == [("/r/a~1b", {"#key": "a/b", "x": 1, "y": 2})]
    assert members({"r": {"a": {"t": 1}, "b": 7}}, {"members_of": "/r"}) == [("/r/a", {"#key": "a", "t": 1}), ("/r/b", {"#key": "b", "#value": 7})]


@pytest.mark.parametrize("document, spec, words", [
    ({"r": [1]}, {"members_of": "/r"}, "not an object"),
    ({}, {"members_of": "/r"}, "no records"),
    ({"r": {"a": [1]}, "c": "x"}, {"members_of": "/r", "columns": "/c"}, "not an array of column names"),
    ({"r": {"a": {"t": 1}}}, {"members_of": "/r", "columns": ["t"]}, "not an array of the columns"),
])
def test_a_document_that_breaks_members_of_is_unreadable(document, spec, words):
    with pytest.raises(MembersError) as info:
        members(document, spec)
    assert words in str(info.value)


def test_a_file_whose_results_are_no_object_is_unreadable_never_failed(tmp_path):
    report = _report(tmp_path, 0.5, {"benchmark": "m.time_c"}, {"result_columns": ["result"], "results": [[0.5]]})
    assert [(f.status, f.code) for f in by_check(report, "schema.documents") if f.status != "PASS"] == [("UNVERIFIED", "unreadable-receipt")]
    assert one_claim(report, "c").status == "UNVERIFIED" and report.verdict == "INCOMPLETE"


@pytest.mark.parametrize("params, stated, status", [
    ("1, 'x'", 1.0, "PASS"), ("1, 'z'", 3.0, "PASS"), ("2, 'x'", 4.0, "PASS"), ("2, 'y'", 5.0, "PASS"),
    ("2, 'y'", 2.0, "FAIL"),  # the value of 1, 'y': a combination read in another order than itertools.product's
])
def test_each_parameter_combination_is_one_record_in_product_order(tmp_path, params, stated, status):
    report = _report(tmp_path, stated, {"benchmark": "m.time_a", "params": params})
    assert one_claim(report, "c").status == status


def test_a_benchmark_without_parameters_is_one_record_whose_params_is_empty(tmp_path):
    assert one_claim(_report(tmp_path / "p", 0.5, {"benchmark": "m.time_c", "params": ""}), "c").status == "PASS"
    assert one_claim(_report(tmp_path / "f", 0.6, {"benchmark": "m.time_c", "params": ""}), "c").status == "FAIL"


def test_where_matches_keeps_only_the_records_whose_text_matches_whole(tmp_path):
    # the mean over every time_ combination: 1..6 and 0.5 (7 records); the peakmem_ member's 100 is left out by `matches`
    assert one_claim(_report(tmp_path / "p", 3.5 * 6 / 7 + 0.5 / 7, {}), "c").status == "PASS"
    everything = {"where": {"/#key": {"matches": ".*"}}}
    assert one_claim(_report(tmp_path / "f", 3.5 * 6 / 7 + 0.5 / 7, {}, runs=everything), "c").status == "FAIL"


def test_a_parallel_array_of_another_length_than_the_combinations_fails(tmp_path):
    results = json.loads(json.dumps(RESULTS))
    results["results"]["m.time_a"][0] = [1.0, 2.0]  # 2 results for 6 combinations
    report = _report(tmp_path, 0.5, {"benchmark": "m.time_c"}, results)
    assert [f.code for f in by_check(report, "schema.documents") if f.status == "FAIL"] == ["parallel-mismatch"]
    assert report.verdict == "FAIL"


def test_params_that_are_not_an_array_of_arrays_fail_missing_field(tmp_path):
    results = json.loads(json.dumps(RESULTS))
    results["results"]["m.time_a"][1] = "1, 2"
    report = _report(tmp_path, 0.5, {"benchmark": "m.time_c"}, results)
    assert [f.code for f in by_check(report, "schema.documents") if f.status == "FAIL"] == ["missing-field"]


def test_members_of_outside_json_a_bad_regex_and_join_without_element_are_refused():
    doc = _doc([_claim({})])
    doc["receipts"]["runs"]["encoding"] = "jsonl"
    _refused(doc, "/receipts/runs/records", "members_of")
    doc = _doc([_claim({})], {"where": {"/#key": {"matches": "time_("}}})
    _refused(doc, "/receipts/runs/where", "regex")  # the schema asserts `format: regex`
    doc = _doc([_claim({})], {"dimensions": {"params": {"pointer": "/params", "join": ", "}}})
    _refused(doc, "/receipts/runs/dimensions/params")
    doc = _doc([_claim({})], {"unnest": {"product_of": "/params", "then": "/x"}})
    _refused(doc, "/receipts/runs/unnest")
    doc = _doc([_claim({})], {"records": {"members_of": "/results", "columns": ["#key"]}})
    _refused(doc, "/receipts/runs/records")


def test_discovery_drafts_an_object_of_objects_keyed_by_name_as_members_of(run, tmp_path):
    folder = write_tree(tmp_path / "bench", {
        "bench.json": json.dumps({"results": {"alpha": {"time": 1.25, "n": 10}, "beta": {"time": 2.5, "n": 10}, "gamma": {"time": 3.75, "n": 10}}}),
        "README.md": "| Benchmark | time |\n|---|---|\n| alpha | 1.25 |\n| beta | 2.5 |\n| gamma | 3.75 |\n"})
    out = tmp_path / "drafted.json"
    assert run("profile", "draft", str(folder), "-o", str(out)).exit_code == 0
    profile = json.loads(out.read_text())
    (spec,) = profile["receipts"].values()
    assert spec["records"] == {"members_of": "/results"} and {"pointer": "/#key"} in spec["dimensions"].values()
    report = json.loads(run("--profile", str(out), str(folder), "-f", "json").stdout)
    claims = [f for f in report["findings"] if f["check"] == "derivation.claims"]
    assert len(claims) == 3 and all(f["status"] == "PASS" for f in claims)
    (folder / "README.md").write_text((folder / "README.md").read_text().replace("| 2.5 |", "| 2.6 |"))
    judged = run("--profile", str(out), str(folder), "-f", "json")
    assert judged.exit_code == 1 and [f["pointer"] for f in json.loads(judged.stdout)["findings"] if f["status"] == "FAIL"] == ["/tables/(top)/1/time"]


def test_each_flattens_a_parallel_array_per_combination_into_one_record_per_entry(tmp_path):
    results = {"result_columns": ["result", "params", "samples"],
               "results": {"m.time_a": [[2.0, 9.0], [["1", "2"]], [[1.0, 2.0, 30.0], None]], "m.time_c": [[0.5], []]}}
    runs = {"unnest": {"product_of": "/params", "parallel": {"samples": "/samples"}, "each": "samples"},
            "fields": {"latency": {"parallel": "samples", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}
    # params 1: the mean of its three samples; params 2 states null samples and time_c none: no records, not a problem
    assert one_claim(_report(tmp_path / "p", 11.0, {"benchmark": "m.time_a"}, results, runs), "c").status == "PASS"
    assert one_claim(_report(tmp_path / "f", 2.0, {"benchmark": "m.time_a"}, results, runs), "c").status == "FAIL"
    results["results"]["m.time_a"][2][1] = 4.0  # an entry that is no array
    report = _report(tmp_path / "m", 11.0, {"benchmark": "m.time_a"}, results, runs)
    assert [f.code for f in by_check(report, "schema.documents") if f.status == "FAIL"] == ["missing-field"]


def test_each_naming_no_parallel_array_is_refused():
    doc = _doc([_claim({})], {"unnest": {"product_of": "/params", "parallel": {"result": "/result"}, "each": "samples"}})
    _refused(doc, "/receipts/runs/unnest/each", "unnest.parallel")


def test_a_where_regex_re2_refuses_stops_at_load():
    # Python's `re` takes a backreference (the schema's `format: regex` passes it); the reader matches with RE2, which does not
    doc = _doc([_claim({})], {"where": {"/#key": {"matches": r"(time)_\1"}}})
    _refused(doc, "/receipts/runs/where/~1#key/matches", "RE2")
