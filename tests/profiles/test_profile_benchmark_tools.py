"""The shipped profiles for benchmark tools' native output, each on real public output (`tests/data/<tool>/SOURCE.md`): Google Benchmark JSON and pytest-benchmark JSON."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.profiles.language import Tree, candidates
from verifier.readers.tree import glob_regex

GBENCH = ROOT / "tests" / "data" / "google-benchmark" / "arrow-tensor-conversion-benchmark.json"
PYTEST_BENCHMARK = ROOT / "tests" / "data" / "pytest-benchmark" / "conbench-adapter-benchmarks.json"
FAMILY = "Int8RowMajorTensorConversionFixture<Int32Type>/ConvertToSparseCOOTensorInt32"
UNAGGREGATED = "Int8ColumnMajorTensorConversionFixture<Int32Type>/ConvertToSparseCOOTensorInt32"
TEST_INIT = "tests/adapters/test_pytest.py::test_init"
TEST_SLEEP = "tests/adapters/test_pytest.py::test_sleep"


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code != "claim-unstated"}


def _variant(tmp_path: Path, source: Path, change, name: str = "bench.json") -> Path:
    doc = json.loads(source.read_text())
    change(doc)
    out = tmp_path / name
    out.write_text(json.dumps(doc, indent=2))
    return out


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


# ---------------------------------------------------------------- globs: a folder and one directory below it


def test_brace_alternation_matches_the_folder_and_up_to_two_directories_below_never_deeper():
    regex = glob_regex("{,*/,*/*/}*.json")
    paths = ("a.json", "results/a.json", ".benchmarks/Linux-CPython-3.11-64bit/0001_x.json", "tests/data/hyperfine/export.json", "a.jsonl")
    assert [p for p in paths if regex.fullmatch(p)] == ["a.json", "results/a.json", ".benchmarks/Linux-CPython-3.11-64bit/0001_x.json"]
    assert glob_regex("a{b.json").fullmatch("a{b.json")  # an unclosed brace is a literal character
    assert glob_regex("**/{new,base}/estimates.json").fullmatch("target/criterion/g/new/estimates.json")


def test_a_source_checkout_is_not_read_by_the_benchmark_tool_profiles(run):
    # `verify .` in this repository: the tools' samples lie three directories down (tests/data/<tool>/), out of every profile's reach
    assert candidates(_shipped(), Tree(root=ROOT)) == []
    assert {"google-benchmark", "pytest-benchmark", "hyperfine"} <= set(candidates(_shipped(), Tree(root=ROOT / "tests")))


# ---------------------------------------------------------------- Google Benchmark


def test_gbench_real_output_rederives_every_aggregate_and_skips_the_unaggregated_family(run):
    report = verify_path(str(GBENCH))
    assert report.kind == "profile:google-benchmark"
    claims = _claims(report)
    assert len(claims) == 14 and all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    assert "sample SD (n-1)" in claims[f"stddev.real_time[file={GBENCH.name}][arm={FAMILY}][time_unit=ns]"].derivation
    unstated = [f for f in report.findings if f.code == "claim-unstated"]
    assert len(unstated) == 14 and all(f.status == "UNVERIFIED" and UNAGGREGATED in f.message and f.path == GBENCH.name for f in unstated)
    (coverage,) = [f for f in report.findings if f.check == "claims.coverage"]
    assert coverage.status == "PASS"
    assert report.verdict == "INCOMPLETE" and not any(f.status == "FAIL" for f in report.findings)
    assert run(str(GBENCH)).exit_code == 3


@pytest.mark.parametrize("aggregate, member, claim", [
    ("mean", "real_time", "mean.real_time"), ("mean", "cpu_time", "mean.cpu_time"),
    ("median", "real_time", "median.real_time"), ("median", "cpu_time", "median.cpu_time"),
    ("stddev", "real_time", "stddev.real_time"), ("stddev", "cpu_time", "stddev.cpu_time"),
    ("mean", "bytes_per_second", "mean.bytes_per_second"), ("median", "bytes_per_second", "median.bytes_per_second"),
    ("stddev", "bytes_per_second", "stddev.bytes_per_second"), ("mean", "items_per_second", "mean.items_per_second"),
    ("median", "items_per_second", "median.items_per_second"), ("stddev", "items_per_second", "stddev.items_per_second"),
    ("mean", "iterations", "count.iterations"), ("mean", "repetitions", "count.repetitions"),
])
def test_gbench_each_changed_aggregate_fails_naming_its_claim(tmp_path, aggregate, member, claim):
    def change(doc):
        (row,) = [r for r in doc["benchmarks"] if r.get("aggregate_name") == aggregate and r["run_name"] == FAMILY]
        row[member] = row[member] + 1 if isinstance(row[member], int) else row[member] * 1.001
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [f"{claim}[file=bench.json][arm={FAMILY}][time_unit=ns]"], failed
    assert _claims(report)[failed[0]].code == "claim-mismatch" and report.verdict == "FAIL"


def test_gbench_population_sd_instead_of_the_librarys_sample_sd_fails(tmp_path):
    def change(doc):
        (row,) = [r for r in doc["benchmarks"] if r.get("aggregate_name") == "stddev" and r["run_name"] == FAMILY]
        row["real_time"] *= (2 / 3) ** 0.5
    f = _claims(verify_path(str(_variant(tmp_path, GBENCH, change))))[f"stddev.real_time[file=bench.json][arm={FAMILY}][time_unit=ns]"]
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_gbench_a_run_without_repetitions_states_no_aggregate_and_is_never_failed(tmp_path):
    # the default run (one repetition) writes no aggregate rows: nothing is claimed, so nothing may FAIL
    def change(doc):
        doc["benchmarks"] = [r for r in doc["benchmarks"] if r["run_type"] == "iteration" and r["repetition_index"] == 0]
        for r in doc["benchmarks"]:
            r["repetitions"] = 1
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    assert not _claims(report) and not any(f.status == "FAIL" for f in report.findings)
    unstated = [f for f in report.findings if f.code == "claim-unstated"]
    assert len(unstated) == 14 and all("2 instance(s)" in f.message for f in unstated)
    assert report.verdict == "INCOMPLETE"


def test_gbench_a_benchmark_without_byte_or_item_counters_is_not_failed_for_them(tmp_path):
    # `bytes_per_second` and `items_per_second` exist only when the benchmark calls SetBytesProcessed / SetItemsProcessed
    def change(doc):
        for row in doc["benchmarks"]:
            del row["bytes_per_second"], row["items_per_second"]
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    assert sorted(label.split("[")[0] for label, f in _claims(report).items() if f.status == "PASS") == \
        ["count.iterations", "count.repetitions", "mean.cpu_time", "mean.real_time", "median.cpu_time", "median.real_time", "stddev.cpu_time", "stddev.real_time"]
    assert not any(f.status == "FAIL" for f in report.findings)


def test_gbench_aggregates_only_output_is_never_passed_nor_failed(tmp_path):
    # `--benchmark_report_aggregates_only=true`: the aggregates stand without the repetitions they summarise
    def change(doc):
        doc["benchmarks"] = [r for r in doc["benchmarks"] if r["run_type"] == "aggregate"]
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    assert report.kind == "profile:google-benchmark"
    assert not any(f.status in ("PASS", "FAIL") for f in report.findings if f.check in ("derivation.claims", "schema.documents"))
    assert report.verdict == "INCOMPLETE"


def test_gbench_a_complexity_row_is_reported_unchecked_not_passed(tmp_path):
    # `->Complexity()` adds BigO and RMS aggregate rows whose coefficients no statistic of the vocabulary fits
    def change(doc):
        doc["benchmarks"].append({"name": "BM_x_BigO", "family_index": 2, "per_family_instance_index": 0, "run_name": "BM_x", "run_type": "aggregate",
                                  "repetitions": 1, "threads": 1, "aggregate_name": "BigO", "aggregate_unit": "time",
                                  "cpu_coefficient": 1.25, "real_coefficient": 1.5, "big_o": "N", "time_unit": "ns"})
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    unchecked = {f.pointer for f in report.findings if f.code == "unchecked-claim"}
    assert {"/benchmarks/10/cpu_coefficient", "/benchmarks/10/real_coefficient"} <= unchecked
    assert not any(f.status == "FAIL" for f in report.findings)


def test_gbench_an_aggregate_in_another_time_unit_than_its_repetitions_is_not_passed(tmp_path):
    def change(doc):
        (row,) = [r for r in doc["benchmarks"] if r.get("aggregate_name") == "mean" and r["run_name"] == FAMILY]
        row["time_unit"] = "us"
    report = verify_path(str(_variant(tmp_path, GBENCH, change)))
    stray = [f for f in report.findings if f.code == "not-derivable" and f.pointer == "/benchmarks/3/real_time"]
    assert stray and stray[0].status == "UNVERIFIED"
    assert not any(label.startswith("mean.real_time") and f.status == "PASS" for label, f in _claims(report).items())


def test_gbench_is_detected_as_a_file_in_its_folder_and_up_to_two_folders_down_only(tmp_path):
    assert verify_path(str(GBENCH)).kind == "profile:google-benchmark"
    (tmp_path / "results").mkdir()
    shutil.copy(GBENCH, tmp_path / "results" / "out.json")
    assert verify_path(str(tmp_path)).kind == "profile:google-benchmark"
    (tmp_path / "results" / "linux").mkdir()
    shutil.move(tmp_path / "results" / "out.json", tmp_path / "results" / "linux" / "out.json")
    assert verify_path(str(tmp_path)).kind == "profile:google-benchmark"
    deeper = tmp_path / "deeper"
    (deeper / "a" / "b" / "results").mkdir(parents=True)
    shutil.copy(GBENCH, deeper / "a" / "b" / "results" / "out.json")
    assert verify_path(str(deeper)).kind == "discovery"  # no shipped profile matches it: discovery reads it (issue 37), never this profile


def test_gbench_is_not_detected_in_an_unrelated_folder(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"context": {"date": "x"}, "benchmarks": [{"name": "a", "time": 1}]}))
    assert "google-benchmark" not in candidates(_shipped(), Tree(root=tmp_path))


# ---------------------------------------------------------------- pytest-benchmark


def test_pytest_benchmark_real_output_rederives_every_mapped_statistic(run):
    report = verify_path(str(PYTEST_BENCHMARK))
    assert report.kind == "profile:pytest-benchmark"
    claims = _claims(report)
    assert len(claims) == 14 and all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    (coverage,) = [f for f in report.findings if f.check == "claims.coverage"]
    assert coverage.status == "PASS"
    assert report.verdict == "INCOMPLETE" and run(str(PYTEST_BENCHMARK)).exit_code == 3


@pytest.mark.parametrize("member, claim", [("mean", "mean"), ("stddev", "stddev"), ("median", "median"), ("min", "min"),
                                           ("max", "max"), ("rounds", "rounds"), ("ops", "ops")])
@pytest.mark.parametrize("index, test", [(0, TEST_INIT), (1, TEST_SLEEP)])
def test_pytest_benchmark_each_changed_statistic_fails_naming_its_claim(tmp_path, member, claim, index, test):
    def change(doc):
        stats = doc["benchmarks"][index]["stats"]
        stats[member] = stats[member] + 1 if isinstance(stats[member], int) else stats[member] * 1.0001
    report = verify_path(str(_variant(tmp_path, PYTEST_BENCHMARK, change)))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [f"{claim}[file=bench.json][arm={test}]"], failed
    assert report.verdict == "FAIL"


def test_pytest_benchmark_ops_is_rounds_over_the_sum_not_the_mean_of_inverses(tmp_path):
    def change(doc):
        stats = doc["benchmarks"][0]["stats"]
        stats["ops"] = sum(1 / v for v in stats["data"]) / len(stats["data"])
    f = _claims(verify_path(str(_variant(tmp_path, PYTEST_BENCHMARK, change))))[f"ops[file=bench.json][arm={TEST_INIT}]"]
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_pytest_benchmark_before_3_1_states_no_ops_and_is_not_failed_for_it(tmp_path):
    # `ops` was added in pytest-benchmark 3.1.0: an older file has none, which is no claim
    def change(doc):
        for bench in doc["benchmarks"]:
            del bench["stats"]["ops"]
    report = verify_path(str(_variant(tmp_path, PYTEST_BENCHMARK, change)))
    (unstated,) = [f for f in report.findings if f.code == "claim-unstated"]
    assert unstated.status == "UNVERIFIED" and unstated.message.startswith("ops: 2 instance(s)")
    assert not any(f.status == "FAIL" for f in report.findings)
    assert sum(f.status == "PASS" for f in _claims(report).values()) == 12


def test_pytest_benchmark_saved_without_data_is_not_read_and_never_passed(tmp_path):
    # `--benchmark-autosave` without `--benchmark-save-data`: no rounds to re-derive the stats from
    def change(doc):
        for bench in doc["benchmarks"]:
            del bench["stats"]["data"]
    out = _variant(tmp_path, PYTEST_BENCHMARK, change)
    assert "pytest-benchmark" not in candidates(_shipped(), Tree(root=tmp_path))
    report = verify_path(str(out), profile="pytest-benchmark")
    assert not any(f.status == "PASS" for f in report.findings if f.check == "derivation.claims")
    assert report.verdict != "PASS"


def test_pytest_benchmark_is_detected_in_an_autosave_folder_and_not_in_an_unrelated_one(tmp_path):
    machine = tmp_path / ".benchmarks" / "Darwin-CPython-3.9-64bit"
    machine.mkdir(parents=True)
    shutil.copy(PYTEST_BENCHMARK, machine / "0001_0000000000000000000000000000000000000000_20221027_191537_uncommitted-changes.json")
    assert verify_path(str(tmp_path)).kind == "profile:pytest-benchmark"  # the project's root: `.benchmarks/<machine>/` is two below
    assert verify_path(str(tmp_path / ".benchmarks")).kind == "profile:pytest-benchmark"
    assert verify_path(str(machine)).kind == "profile:pytest-benchmark"
    other = tmp_path / "other"
    other.mkdir()
    doc = copy.deepcopy(json.loads(PYTEST_BENCHMARK.read_text()))
    del doc["machine_info"]
    (other / "results.json").write_text(json.dumps(doc))
    assert "pytest-benchmark" not in candidates(_shipped(), Tree(root=other))
