"""
Rows of the official checker's summary table that a correct tree holds and the `mlperf-inference` table claims must not FAIL.

The checker (mlcommons/inference `tools/submission/submission_checker/` at
b66003e) writes, for a run with power results, a second row of the same run
whose `Result` is the power metric in `Watts` (Offline, Server, Interactive)
or `millijoules` (SingleStream, MultiStream) (`results.py` lines 133-137,
`POWER_UNIT_DICT` in `constants.py` lines 2014-2026; the metric is the mean
of `spl.txt` samples inside the detail log's power window,
`checks/power_check.py` lines 147-240). It writes llama3.1-8b-edge's
SingleStream `Result` from `result_90.00_percentile_latency_ns` (not the
early-stopping estimate) and whisper's Offline `Result` from
`result_tokens_per_second` (`RESULT_FIELD_BENCHMARK_OVERWRITE`, `constants.py`
lines 1592 on; `checks/performance_check.py` lines 564-578), the latter under
`Samples/s` (`SPECIAL_UNIT_DICT` names no whisper: `results.py` lines 122-127),
gptj's (round v5.0) from the inferred tokens per second under `Samples/s`
and `Queries/s` (`constants.py` lines 1610-1617), and e2e-rag-qna's Offline
samples per second under `Tasks/s` (`SPECIAL_UNIT_DICT`, lines 1995-1997).
The rows' numbers are those of the checker's own snapshot of the table
(`tests/data/mlperf-inference/checker-summary-snapshot.csv`, SOURCE.md).
"""

from __future__ import annotations

import copy
import csv
import io
import shutil
from pathlib import Path

import pytest
from conftest import make_assets, profile_document
from helpers import by_check
from test_mlperf_profile_checker import write_official_tree
from test_mlperf_summary_units import PLATFORM, ROWS

from verifier.core import verify_path
from verifier.errors import ConfigError

DATA = Path(__file__).parent.parent / "data" / "mlperf-inference"
SNAPSHOT = DATA / "checker-summary-snapshot.csv"
HEADER = next(csv.reader(io.StringIO(SNAPSHOT.read_text())))


def _snapshot_row(model: str, scenario: str) -> dict[str, str]:
    return next(r for r in csv.DictReader(io.StringIO(SNAPSHOT.read_text())) if (r["Model"], r["Scenario"]) == (model, scenario))


def _write_table(root: Path, rows: list[dict[str, str]]) -> Path:
    """Write `rows` (members of the snapshot's header) as the root summary.csv the checker writes; return `root`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, HEADER, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**{k: "" for k in HEADER}, **row})
    (root / "summary.csv").write_text(out.getvalue())
    return root


def _claims(report, prefix: str = "csv.Result") -> dict[str, object]:
    return {f.message.split(":")[0]: f for f in by_check(report, "derivation.claims") if f.message.startswith(prefix)}


def _bad(report) -> list[str]:
    return [f"{f.check} {f.code}: {f.message[:240]}" for f in report.findings if f.status in ("FAIL", "ERROR")]


# --- 1. power rows


def _sample_with_power(tmp_path: Path, power: dict[tuple[str, str], tuple[str, str]]) -> Path:
    """The checker's sample runs and their rows, each run in `power` followed by its power row (`(Result, Units)`), as `results.py` 132-137 orders them."""
    root = tmp_path / "tree"
    shutil.copytree(DATA / "closed", root / "closed")
    rows = []
    for (model, scenario), (result, unit, accuracy) in ROWS.items():
        row = {"Organization": "AMD", "Division": "closed", "Platform": PLATFORM, "Model": model, "MlperfModel": model, "Scenario": scenario,
               "Result": result, "Accuracy": accuracy, "Units": unit, "has_power": "True" if (model, scenario) in power else "False"}
        rows.append(row)
        if (model, scenario) in power:
            rows.append({**row, "Result": power[(model, scenario)][0], "Units": power[(model, scenario)][1]})
    return _write_table(root, rows)


POWER = {("llama2-70b-99", "Server"): ("10512.3", "Watts"), ("llama2-70b-99", "Interactive"): ("10277.9", "Watts"),
         ("mixtral-8x7b", "Offline"): ("9964.51", "Watts")}


def test_a_run_with_its_power_row_is_rederived_from_its_performance_row(tmp_path):
    report = verify_path(str(_sample_with_power(tmp_path, POWER)))
    found = _claims(report)
    assert len(found) == 3 and all((f.status, f.code) == ("PASS", "derived") for f in found.values()), [f.message[:200] for f in found.values()]
    assert not _bad(report), _bad(report)
    assert not by_check(report, "derivation.claims", "ambiguous-location")


def test_a_power_row_is_declared_informational_with_its_reason_never_unchecked_silently(tmp_path):
    report = verify_path(str(_sample_with_power(tmp_path, POWER)))
    assert not by_check(report, "claims.coverage", "unchecked-claim"), [f.message for f in by_check(report, "claims.coverage", "unchecked-claim")]
    (covered,) = [f for f in by_check(report, "claims.coverage", "covered") if f.path == "summary.csv"]
    assert covered.observed["informational"] >= 3  # the three power Results (and nothing compared them)
    doc = next(d for d in profile_document("mlperf-inference")["claim_documents"] if d["file"] == "summary.csv")
    rows = {d["pointer"]: d for d in doc["informational"] if "where" in d}
    assert set(rows) == {"/*/Result", "/*/Accuracy"} and all(d["where"] == {"Units": ["Watts", "millijoules"]} for d in rows.values())
    assert "spl.txt" in rows["/*/Result"]["reason"] and "power_check.py" in rows["/*/Result"]["reason"]


@pytest.mark.parametrize("units, unchecked", [("Watts", []), ("kW", ["/tables/(top)/3/Result"])])
def test_a_readme_table_s_power_row_is_declared_the_same_way(tmp_path, units, unchecked):
    root = _sample_with_power(tmp_path, {("mixtral-8x7b", "Offline"): ("9964.51", units)})
    rows = list(csv.DictReader(io.StringIO((root / "summary.csv").read_text())))
    cols = ["Organization", "Division", "Platform", "Model", "Scenario", "Result", "Units", "Accuracy"]
    (root / "README.md").write_text("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n" + "".join("| " + " | ".join(r[c] for c in cols) + " |\n" for r in rows))
    (root / "summary.csv").unlink()
    report = verify_path(str(root))
    assert [(f.status, f.code) for f in _claims(report, "readme.Result").values()] == [("PASS", "derived")] * 3
    assert [f.pointer for f in by_check(report, "claims.coverage", "unchecked-claim") if f.pointer.endswith("/Result")] == unchecked


def test_a_row_in_a_unit_the_checker_never_writes_is_still_unchecked(tmp_path):
    # the informational rows are chosen by their Units: a Result in another unit is not hidden by them
    report = verify_path(str(_sample_with_power(tmp_path, {("mixtral-8x7b", "Offline"): ("9964.51", "kW")})))
    unchecked = {f.pointer: f for f in by_check(report, "claims.coverage", "unchecked-claim")}
    assert "9964.51" in unchecked["/3/Result"].message and "/3/Accuracy#numbers/0" in unchecked


def test_two_performance_rows_of_one_run_are_the_evidences_fault(tmp_path):
    # the Units filter chooses among the units the checker writes; two rows of one run both in Tokens/s (equal but for the
    # Result read) are one row the table states twice: FAIL claim-missing naming both, never a PASS on either
    report = verify_path(str(_sample_with_power(tmp_path, {("mixtral-8x7b", "Offline"): ("53017.3", "Tokens/s")})))
    (f,) = [f for f in by_check(report, "derivation.claims", "claim-missing") if f.message.startswith("csv.Result[") and "[model=mixtral-8x7b]" in f.message]
    assert f.status == "FAIL" and "2 elements" in f.message, f.message


# --- 2. llama3.1-8b-edge SingleStream: the 90th percentile latency


EDGE = "llama3.1-8b-edge"
EDGE_ROW = _snapshot_row(EDGE, "SingleStream") if any(r["Model"] == EDGE for r in csv.DictReader(io.StringIO(SNAPSHOT.read_text()))) else None


def _edge_tree(tmp_path: Path, result: str, *, model: str = EDGE) -> Path:
    entries = {"effective_scenario": "SingleStream", "effective_min_duration_ms": 600000, "effective_min_query_count": 1, "effective_samples_per_query": 1,
               "effective_performance_sample_count": 5000, "effective_target_latency_ns": 0, "result_validity": "VALID", "early_stopping_met": True,
               "early_stopping_latency_ss": 1361234567, "result_90.00_percentile_latency_ns": 1357552837, "result_99.00_percentile_latency_ns": 1400000000}
    root = write_official_tree(tmp_path / "tree", model, accuracy="{'rouge1': 38.3796, 'rouge2': 15.9406, 'rougeL': 24.3855, 'rougeLsum': 35.5168, 'gen_len': 3112369}",
                               runs={"SingleStream": entries}, accuracy_log={"effective_scenario": "SingleStream", "qsl_reported_total_count": 5000})
    return _write_table(root, [{"Organization": "Org", "Division": "closed", "Platform": "sut-1", "Model": model, "MlperfModel": model, "Scenario": "SingleStream",
                                "Result": result, "Units": "Latency (ms)", "Accuracy": "ROUGE1: 38.3796  ROUGE2: 15.9406  ROUGEL: 24.3855  ROUGELSUM: 35.5168  GEN_LEN: 3112369"}])


def test_the_checker_s_snapshot_states_the_edge_singlestream_row_in_milliseconds():
    assert EDGE_ROW is not None and (EDGE_ROW["Result"], EDGE_ROW["Units"]) == ("1357.552837", "Latency (ms)")


@pytest.mark.parametrize("result, status", [("1357.552837", "PASS"), ("1361.234567", "FAIL")])
def test_the_edge_singlestream_row_is_its_90th_percentile_latency(tmp_path, result, status):
    # the p90 (1357552837 ns / 10^6) PASSes; the early-stopping estimate (1361234567 ns), what other SingleStream rows state, FAILs
    report = verify_path(str(_edge_tree(tmp_path, result)))
    found = _claims(report, "csv.Result")
    assert [f.status for f in found.values()] == [status], [f.message[:200] for f in found.values()]


@pytest.mark.parametrize("result, status", [("1361.234567", "PASS"), ("1357.552837", "FAIL")])
def test_another_model_s_singlestream_row_is_still_its_early_stopping_estimate(tmp_path, result, status):
    report = verify_path(str(_edge_tree(tmp_path, result, model="llama3.1-8b")))
    found = _claims(report, "csv.Result")
    assert [f.status for f in found.values()] == [status], [f.message[:200] for f in found.values()]


# --- 3. whisper Offline: tokens per second under Samples/s


def _whisper_tree(tmp_path: Path, result: str, units: str = "Samples/s") -> Path:
    root = write_official_tree(tmp_path / "tree", "whisper", runs={"Offline": {"effective_scenario": "Offline", "result_validity": "VALID"}})
    summary = next(root.rglob("performance/run_1/mlperf_log_summary.txt"))
    summary.write_text(summary.read_text() + "Samples per second: 1490.77\nTokens per second: 18338.3\n")
    return _write_table(root, [{"Organization": "Org", "Division": "closed", "Platform": "sut-1", "Model": "whisper", "MlperfModel": "whisper",
                                "Scenario": "Offline", "Result": result, "Units": units, "Accuracy": "ACCURACY: 97.83967947314827"}])


def test_the_checker_s_snapshot_states_whisper_s_tokens_under_samples_per_second():
    row = _snapshot_row("whisper", "Offline")
    assert (row["Result"], row["Units"]) == ("18338.3", "Samples/s")


@pytest.mark.parametrize("result, units, status", [
    ("18338.3", "Samples/s", "PASS"),  # the official row: tokens per second under Samples/s
    ("1490.77", "Samples/s", "FAIL"),  # the samples per second: not what the checker writes for whisper
    ("18338.4", "Samples/s", "FAIL"),  # off in its last place
    ("18338.3", "Tokens/s", "FAIL"),  # not the unit the checker writes for whisper
])
def test_whisper_s_offline_row_is_its_tokens_per_second_under_samples_per_second(tmp_path, result, units, status):
    report = verify_path(str(_whisper_tree(tmp_path, result, units)))
    found = _claims(report, "csv.Result")
    assert len(found) == 1, [f.message[:200] for f in found.values()]
    (f,) = found.values()
    assert f.status == status, f.message


# --- the language: a selection that excludes values


def _with(change) -> dict:
    doc = copy.deepcopy(profile_document("mlperf-inference"))
    change(doc)
    return doc


def _claim(doc: dict, cid: str) -> dict:
    return next(c for c in doc["claims"] if c["id"] == cid)


@pytest.mark.parametrize("value, said", [
    ({"not": []}, "selection/model"),  # excludes nothing
    ({"not": ["llama3.1-8b-edge"], "receipts": "detail"}, "selection/model"),  # neither an exclusion nor a join
    ({"not": ["{model}"]}, "selection/model"),  # literal text, never a placeholder
])
def test_an_exclusion_that_cannot_select_is_refused_at_load(tmp_path, value, said):
    doc = _with(lambda d: _claim(d, "csv.Result.singlestream")["selection"].update(model=value))
    index = doc["claims"].index(_claim(doc, "csv.Result.singlestream"))
    with pytest.raises(ConfigError, match=rf"mlperf-inference\.json: invalid profile at /claims/{index}/{said}"):
        verify_path(str(_edge_tree(tmp_path, "1357.552837")), asset_root=make_assets(tmp_path / "assets", {"mlperf-inference": doc}))


def test_without_the_exclusion_the_general_claim_fails_the_edge_row(tmp_path):
    doc = _with(lambda d: _claim(d, "csv.Result.singlestream")["selection"].pop("model"))
    report = verify_path(str(_edge_tree(tmp_path, "1357.552837")), asset_root=make_assets(tmp_path / "assets", {"mlperf-inference": doc}))
    assert "FAIL" in [f.status for f in _claims(report, "csv.Result.singlestream[").values()]


# --- gptj (round v5.0): inferred tokens per second under Samples/s and Queries/s


def _gptj_tree(tmp_path: Path, scenario: str, result: str, units: str) -> Path:
    from test_mlperf_profile_checker import _run
    member = "result_inferred_tokens_per_second" if scenario == "Offline" else "result_inferred_completed_tokens_per_second"
    extra = {"result_samples_per_second": 30.1, "result_completed_samples_per_sec": 29.4} if scenario == "Offline" else {"result_completed_samples_per_sec": 29.4}
    root = write_official_tree(tmp_path / "tree", "gptj-99", runs={scenario: _run("gptj-99", scenario, **{member: 3853.7, **extra})})
    return _write_table(root, [{"Organization": "Org", "Division": "closed", "Platform": "sut-1", "Model": "gptj-99", "MlperfModel": "gptj-99",
                                "Scenario": scenario, "Result": result, "Units": units, "Accuracy": "ROUGE1: 43.0  ROUGE2: 20.1  ROUGEL: 30.0  GEN_LEN: 4000000"}])


@pytest.mark.parametrize("scenario, result, units, status", [
    ("Offline", "3853.7", "Samples/s", "PASS"),  # RESULT_FIELD_BENCHMARK_OVERWRITE v5.0: the inferred tokens per second, under UNIT_DICT's Samples/s
    ("Offline", "30.1", "Samples/s", "FAIL"),  # the samples per second: not what the checker writes for gptj
    ("Server", "3853.7", "Queries/s", "PASS"),  # the inferred completed tokens per second, under Queries/s
    ("Server", "29.4", "Queries/s", "FAIL"),
])
def test_gptj_s_row_is_its_inferred_tokens_per_second(tmp_path, scenario, result, units, status):
    report = verify_path(str(_gptj_tree(tmp_path, scenario, result, units)))
    found = _claims(report, "csv.Result")
    assert [f.status for f in found.values()] == [status], [f.message[:200] for f in found.values()]


# --- e2e-rag-qna Offline: samples per second under Tasks/s


def _rag_tree(tmp_path: Path, model: str, result: str, units: str) -> Path:
    root = write_official_tree(tmp_path / "tree", "whisper", runs={"Offline": {"effective_scenario": "Offline", "result_validity": "VALID"}})
    summary = next(root.rglob("performance/run_1/mlperf_log_summary.txt"))
    summary.write_text(summary.read_text() + "Samples per second: 12.4167\n")
    shutil.move(root / "closed/Org/results/sut-1/whisper", root / f"closed/Org/results/sut-1/{model}")  # the run's logs, under the model's directory
    return _write_table(root, [{"Organization": "Org", "Division": "closed", "Platform": "sut-1", "Model": model, "MlperfModel": model,
                                "Scenario": "Offline", "Result": result, "Units": units, "Accuracy": ""}])


@pytest.mark.parametrize("model, result, units, status, code", [
    ("e2e-rag-qna", "12.4167", "Tasks/s", "PASS", "derived"),  # SPECIAL_UNIT_DICT: Tasks/s; RESULT_FIELD_NEW: result_samples_per_second
    ("e2e-rag-qna", "12.4168", "Tasks/s", "FAIL", "claim-mismatch"),
    ("resnet", "12.4167", "Tasks/s", "FAIL", "unit-mismatch"),  # the checker writes Tasks/s for e2e-rag-qna only
])
def test_e2e_rag_qna_s_row_is_its_samples_per_second_in_tasks(tmp_path, model, result, units, status, code):
    found = _claims(verify_path(str(_rag_tree(tmp_path, model, result, units))), "csv.Result")
    assert [(f.status, f.code) for f in found.values()] == [(status, code)], [f.message[:200] for f in found.values()]
