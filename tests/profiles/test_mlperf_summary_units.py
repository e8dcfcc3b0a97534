"""
The `mlperf-inference` table claims derive the member the row's own `Units` names, in every scenario.

The official submission checker (mlcommons/inference
`tools/submission/submission_checker/`, b66003e) writes each row's `Result`
from the detail log's `RESULT_FIELD_NEW` member, replaced for the LLMs by
`RESULT_FIELD_BENCHMARK_OVERWRITE` (`checks/performance_check.py` lines
564-578), and its `Units` from `SPECIAL_UNIT_DICT`, else `UNIT_DICT`
(`results.py` lines 122-127): an LLM's Offline, Server and Interactive rows
state tokens per second in `Tokens/s`. `tests/data/mlperf-inference/checker-summary-snapshot.csv`
holds rows of the checker's own snapshot of such a table (header and units as
it writes them). The runs here are the checker's sample tree
(`tests/data/mlperf-inference/closed/`, SOURCE.md); the rows are the ones the
checker's rules give for their logs.
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

from verifier.core import verify_path
from verifier.errors import ConfigError

DATA = Path(__file__).parent.parent / "data" / "mlperf-inference"
SNAPSHOT = DATA / "checker-summary-snapshot.csv"
PLATFORM = "8xMI300X_2xEPYC_9575F"
LLAMA = "ROUGE1: 44.4406  ROUGE2: 22.0593  ROUGEL: 28.6063  TOKENS_PER_SAMPLE: 301.3"
#: (model, scenario) -> (Result, Units, Accuracy) as the checker writes them for the sample's logs
ROWS = {
    ("llama2-70b-99", "Server"): ("24593.8", "Tokens/s", LLAMA),  # result_completed_tokens_per_second
    ("llama2-70b-99", "Interactive"): ("8840.42", "Tokens/s", "ROUGE1: 44.4542  ROUGE2: 22.0419  ROUGEL: 28.6112  TOKENS_PER_SAMPLE: 301.1"),
    ("mixtral-8x7b", "Offline"): ("53017.3", "Tokens/s", "ROUGE1: 45.2287  ROUGE2: 23.1915  ROUGEL: 30.2473  TOKENS_PER_SAMPLE: 143.7  gsm8k_accuracy: 73.2  mbxp_accuracy: 59.9"),  # result_tokens_per_second
}


def _tree(tmp_path: Path, rows: dict[tuple[str, str], tuple[str, str, str]] | None = None) -> Path:
    """The checker's sample runs with a root summary.csv in the columns of the checker's snapshot (`rows` replacing some)."""
    root = tmp_path / "tree"
    shutil.copytree(DATA / "closed", root / "closed")
    header = next(csv.reader(io.StringIO(SNAPSHOT.read_text())))
    out = io.StringIO()
    writer = csv.DictWriter(out, header, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writeheader()
    for (model, scenario), (result, unit, accuracy) in {**ROWS, **(rows or {})}.items():
        writer.writerow({**{k: "" for k in header}, "Organization": "AMD", "Division": "closed", "Platform": PLATFORM, "Model": model,
                         "MlperfModel": model, "Scenario": scenario, "Result": result, "Accuracy": accuracy, "Units": unit})
    (root / "summary.csv").write_text(out.getvalue())
    return root


def _results(report) -> dict[str, object]:
    return {f.message.split(":")[0]: f for f in by_check(report, "derivation.claims") if f.message.startswith("csv.Result")}


def test_the_checker_s_snapshot_states_llm_rows_in_tokens_per_second_in_every_scenario():
    rows = list(csv.DictReader(io.StringIO(SNAPSHOT.read_text())))
    assert {(r["Model"], r["Scenario"], r["Units"]) for r in rows} >= {
        ("llama2-70b-99", "Interactive", "Tokens/s"), ("llama2-70b-99", "Offline", "Tokens/s"), ("llama2-70b-99", "Server", "Tokens/s"),
        ("dlrm-v3", "Server", "Queries/s"), ("whisper", "Offline", "Samples/s"), ("wan-2.2-t2v-a14b", "SingleStream", "Latency (s)")}


def test_a_table_in_tokens_per_second_rederives_every_llm_row_from_its_tokens_member(tmp_path):
    report = verify_path(str(_tree(tmp_path)))
    found = _results(report)
    assert len(found) == 3 and all((f.status, f.code) == ("PASS", "derived") for f in found.values()), [f.message for f in found.values()]
    assert "24593.8 Tokens/s" in found[f"csv.Result.server[division=closed][org=AMD][platform={PLATFORM}][model=llama2-70b-99][scenario=Server]"].message
    assert f"csv.Result.interactive[division=closed][org=AMD][platform={PLATFORM}][model=llama2-70b-99][scenario=Interactive]" in found
    assert not [f for f in report.findings if f.status in ("FAIL", "ERROR")], [f.message[:200] for f in report.findings if f.status == "FAIL"]
    assert not by_check(report, "claims.coverage", "unchecked-claim")


@pytest.mark.parametrize("model, scenario, result, unit", [
    ("llama2-70b-99", "Server", "81.6768", "Tokens/s"),  # the samples figure under Tokens/s
    ("mixtral-8x7b", "Offline", "53017.3", "Samples/s"),  # the tokens figure under Samples/s (as the v5.0 test-submissions table states mixtral)
    ("llama2-70b-99", "Interactive", "8840.43", "Tokens/s"),  # off in its last place
    ("llama2-70b-99", "Interactive", "29.4065", "Queries/s"),  # queries/s: the checker's unit for a model it does not count in tokens
])
def test_a_row_whose_number_is_not_the_member_its_units_name_fails(tmp_path, model, scenario, result, unit):
    rows = {(model, scenario): (result, unit, ROWS[(model, scenario)][2])}
    found = _results(verify_path(str(_tree(tmp_path, rows))))
    (f,) = [f for label, f in found.items() if f"[model={model}][scenario={scenario}]" in label]
    want = "PASS" if unit == "Queries/s" else "FAIL"
    assert f.status == want, f.message
    members = {"Samples/s": ("tokens_per_second", "not its samples_per_second"), "Tokens/s": ("completed_queries_per_second", "not its completed_tokens_per_second")}
    if result in ("81.6768", "53017.3"):  # another member's figure: both named
        assert f.code == "unit-mismatch" and all(m in f.message for m in members[unit]), f.message


def test_a_closed_run_judged_by_the_checker_need_not_quote_its_range(tmp_path):
    report = verify_path(str(_tree(tmp_path)))
    gate = {f.message.split(" ")[0]: f for f in by_check(report, "gate.rules")}
    assert not by_check(report, "gate.rules", "bounds-not-stated"), [f.message[:160] for f in by_check(report, "gate.rules", "bounds-not-stated")]
    for metric in ("ROUGE1", "ROUGE2", "ROUGEL", "TOKENS_PER_SAMPLE", "gsm8k_accuracy", "mbxp_accuracy"):
        assert gate[f"checker-accuracy-mixtral-8x7b-{metric}"].status == "PASS", gate[f"checker-accuracy-mixtral-8x7b-{metric}"].message


# --- the language: a claim's `value_by_unit`


def _offline(doc) -> dict:
    return next(c for c in doc["claims"] if c["id"] == "csv.Result")


@pytest.mark.parametrize("change, where", [
    (lambda c: c["value_by_unit"][0].update(value="no_such_value"), "/value_by_unit/0/value"),  # not a declared value
    (lambda c: c["value_by_unit"][0].update(unit="ms"), "/value_by_unit/0/unit"),  # not of the dimension of tokens_per_second
    (lambda c: c["value_by_unit"][0].update(unit="furlongs/s"), "/value_by_unit/0/unit: unknown unit"),  # one line, never a traceback
    (lambda c: c["value_by_unit"].append({"value": "samples_per_second", "unit": "samples/min"}), "/value_by_unit/1/unit"),  # the claim's own unit's dimension
    (lambda c: c.update(pick="max", per=["model"]), "/value_by_unit"),  # a pick names an instance, no value to choose
])
def test_a_value_by_unit_that_cannot_choose_is_refused_at_load(tmp_path, change, where):
    doc = copy.deepcopy(profile_document("mlperf-inference"))
    claim = _offline(doc)
    change(claim)
    pointer = f"/claims/{doc['claims'].index(claim)}{where}"
    with pytest.raises(ConfigError, match=rf"mlperf-inference\.json: invalid profile at {pointer}"):
        verify_path(str(_tree(tmp_path)), asset_root=make_assets(tmp_path / "assets", {"mlperf-inference": doc}))


def test_without_value_by_unit_a_tokens_row_is_a_unit_mismatch(tmp_path):
    doc = copy.deepcopy(profile_document("mlperf-inference"))
    for claim in doc["claims"]:
        claim.pop("value_by_unit", None)
    report = verify_path(str(_tree(tmp_path)), asset_root=make_assets(tmp_path / "assets", {"mlperf-inference": doc}))
    mixtral = next(f for label, f in _results(report).items() if "[model=mixtral-8x7b][scenario=Offline]" in label)
    assert (mixtral.status, mixtral.code) == ("FAIL", "unit-mismatch")


@pytest.mark.parametrize("result, status", [("27.384519297", "PASS"), ("27384.519297", "FAIL")])
def test_a_latency_in_seconds_is_the_early_stopping_estimate_in_seconds(tmp_path, result, status):
    # wan-2.2-t2v-a14b SingleStream: SPECIAL_UNIT_DICT says `Latency (s)`; the checker divides the ns estimate by 10^6 and again by 10^3
    from test_mlperf_profile_checker import _run, write_official_tree
    model = "wan-2.2-t2v-a14b"
    root = write_official_tree(tmp_path, model, runs={"SingleStream": _run(model, "SingleStream", early_stopping_latency_ss=27384519297)})
    header = next(csv.reader(io.StringIO(SNAPSHOT.read_text())))
    out = io.StringIO()
    writer = csv.DictWriter(out, header, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writeheader()
    writer.writerow({**{k: "" for k in header}, "Organization": "Org", "Division": "closed", "Platform": "sut-1", "Model": model, "MlperfModel": model,
                     "Scenario": "SingleStream", "Result": result, "Accuracy": "vbench_score: 70.48", "Units": "Latency (s)"})
    (root / "summary.csv").write_text(out.getvalue())
    (f,) = [f for f in by_check(verify_path(str(root)), "derivation.claims") if f.message.startswith("csv.Result.singlestream[")]
    assert f.status == status, f.message
