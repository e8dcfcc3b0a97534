"""
The `mlperf-inference` profile judges every benchmark of the official submission checker, in the official layout.

The thresholds are those of mlcommons/inference
`tools/submission/submission_checker/constants.py` at b66003e (rounds v5.0
to v6.1; `tools/mlperf_checker_rules.py` writes them into the profile). Each
tree here is a closed-division results tree laid out as the official results
repositories are (capitalised scenario directories, no root summary table),
its log lines modelled on the real sample in `tests/data/mlperf-inference/`.
A tree that meets the checker has no FAIL; each mutant (accuracy below its
window or above its upper limit, a run shorter than 600 s, too few Offline
samples per query, a Server target latency or TTFT over its limit) FAILs
naming the rule.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from conftest import make_assets, profile_document
from helpers import by_check, write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError

DATA = Path(__file__).parent.parent / "data" / "mlperf-inference"
ROW = "closed/Org/results/sut-1/{model}/{scenario}"

#: model -> (accuracy.txt text meeting the checker, the same below (or above) its window, the rule that must then FAIL)
ACCURACY = {
    "resnet": ("accuracy=76.078%, good=38039, total=50000\n", "accuracy=75.600%, good=37800, total=50000\n", "checker-accuracy-resnet-acc"),
    "retinanet": ("mAP=37.552%\n", "mAP=37.100%\n", "checker-accuracy-retinanet-mAP"),
    "bert-99": ('{"exact_match": 83.7, "f1": 90.88}\n', '{"exact_match": 83.7, "f1": 89.9}\n', "checker-accuracy-bert-99-F1"),
    "bert-99.9": ('{"exact_match": 83.7, "f1": 90.88}\n', '{"exact_match": 83.7, "f1": 90.7}\n', "checker-accuracy-bert-99.9-F1"),
    "dlrm-v2-99": ("AUC=80.310%\n", "AUC=79.400%\n", "checker-accuracy-dlrm-v2-99-AUC"),
    "3d-unet-99.9": ("Accuracy: mean = 0.86236, kidney = 0.9350, tumor = 0.7897\n", "Accuracy: mean = 0.86000, kidney = 0.9350, tumor = 0.7897\n",
                     "checker-accuracy-3d-unet-99.9-DICE"),
    "gptj-99": ("{'rouge1': 42.9865, 'rouge2': 20.1235, 'rougeL': 29.9881, 'gen_len': 4016878, 'gen_num': 13368}\n",
                "{'rouge1': 42.9865, 'rouge2': 20.1235, 'rougeL': 29.9881, 'gen_len': 3600000, 'gen_num': 13368}\n", "checker-accuracy-gptj-99-GEN_LEN"),
    "llama2-70b-99": ("{'rouge1': 44.4406, 'rouge2': 22.0593, 'rougeL': 28.6063, 'rougeLsum': 42.0258, 'gen_len': 29615930, 'tokens_per_sample': 301.3}\n",
                      "{'rouge1': 44.4406, 'rouge2': 22.0593, 'rougeL': 28.6063, 'rougeLsum': 42.0258, 'gen_len': 29615930, 'tokens_per_sample': 330.1}\n",
                      "checker-accuracy-llama2-70b-99-TOKENS_PER_SAMPLE"),
    "mixtral-8x7b": ("{'rouge1': 45.2287, 'rouge2': 23.1915, 'rougeL': 30.2473, 'gsm8k': 73.2, 'mbxp': 59.9, 'tokens_per_sample': 143.7}\n",
                     "{'rouge1': 45.2287, 'rouge2': 23.1915, 'rougeL': 30.2473, 'gsm8k': 73.2, 'mbxp': 59.1, 'tokens_per_sample': 143.7}\n",
                     "checker-accuracy-mixtral-8x7b-mbxp_accuracy"),
    "llama3.1-405b": ("{'rougeL': 21.9, 'exact_match': 90.2, 'tokens_per_sample': 684.7}\n", "{'rougeL': 21.9, 'exact_match': 89.0, 'tokens_per_sample': 684.7}\n",
                      "checker-accuracy-llama3.1-405b-exact_match"),
    "llama3.1-8b": ("{'rouge1': 38.8, 'rouge2': 15.9, 'rougeL': 24.5, 'rougeLsum': 35.8, 'gen_len': 8167644}\n",
                    "{'rouge1': 38.8, 'rouge2': 15.9, 'rougeL': 24.5, 'rougeLsum': 35.1, 'gen_len': 8167644}\n", "checker-accuracy-llama3.1-8b-ROUGELSUM"),
    "deepseek-r1": ("{'exact_match': 81.4, 'tokens_per_sample': 3886.2}\n", "{'exact_match': 81.4, 'tokens_per_sample': 4300.0}\n",
                    "checker-accuracy-deepseek-r1-TOKENS_PER_SAMPLE"),
    "gpt-oss-120b": ("{'exact_match': 83.1, 'tokens_per_sample': 9999.0}\n", "{'exact_match': 82.0, 'tokens_per_sample': 9999.0}\n",
                     "checker-accuracy-gpt-oss-120b-exact_match"),
    "stable-diffusion-xl": ("Accuracy Results: {'FID_SCORE': '23.909064176163497', 'CLIP_SCORE': '31.749353325665'}\n",
                            "Accuracy Results: {'FID_SCORE': '23.909064176163497', 'CLIP_SCORE': '31.9'}\n", "checker-accuracy-stable-diffusion-xl-CLIP_SCORE"),
    # graph/R-GAT/tools/accuracy_igbh.py writes a percentage; the checker's window is the fraction 0.7286 * 0.99, compared number to number
    "rgat": ("accuracy=72.863%, good=574437, total=788379\n", "accuracy=0.500%, good=3942, total=788379\n", "checker-accuracy-rgat-acc"),
    "whisper": ("Word Error Rate: 2.0671%, accuracy=97.9329%\n", "Word Error Rate: 3.5%, accuracy=96.5%\n", "checker-accuracy-whisper-ACCURACY"),
    "wan-2.2-t2v-a14b": ("{'vbench_score': 70.48}\n", "{'vbench_score': 69.0}\n", "checker-accuracy-wan-2.2-t2v-a14b-vbench_score"),
    "qwen3-vl-235b-a22b": ('{"f1": 0.7903}\n', '{"f1": 0.7800}\n', "checker-accuracy-qwen3-vl-235b-a22b-F1_HIERARCHICAL-Offline"),
    "yolo-99": ("mAP=53.4%\n", "mAP=52.1%\n", "checker-accuracy-yolo-99-mAP"),
}
#: model -> its Offline samples per query floor (OFFLINE_MIN_SPQ_SINCE_V4, which names no gptj: the checker at b66003e has no floor for it)
SPQ = {"resnet": 24576, "retinanet": 24576, "bert-99": 10833, "bert-99.9": 10833, "dlrm-v2-99": 24576, "3d-unet-99.9": 43,
       "llama2-70b-99": 24576, "mixtral-8x7b": 15000, "llama3.1-405b": 8313, "llama3.1-8b": 13368, "deepseek-r1": 4388, "gpt-oss-120b": 6396,
       "stable-diffusion-xl": 5000, "rgat": 788379, "whisper": 1633, "wan-2.2-t2v-a14b": 50, "qwen3-vl-235b-a22b": 48289, "yolo-99": 1525}
#: model -> performance-sample-count of MODEL_CONFIG (the same in every round)
PSC = {"resnet": 1024, "retinanet": 64, "bert-99": 10833, "bert-99.9": 10833, "dlrm-v2-99": 204800, "3d-unet-99.9": 43, "gptj-99": 13368,
       "llama2-70b-99": 24576, "mixtral-8x7b": 15000, "llama3.1-405b": 8313, "llama3.1-8b": 13368, "deepseek-r1": 4388, "gpt-oss-120b": 6396,
       "stable-diffusion-xl": 5000, "rgat": 788379, "whisper": 1633, "wan-2.2-t2v-a14b": 50, "qwen3-vl-235b-a22b": 48289, "yolo-99": 64}
#: model -> the accuracy run's sample count (accuracy-sample-count, else dataset-size)
DATASET = {"resnet": 50000, "retinanet": 24781, "bert-99": 10833, "bert-99.9": 10833, "dlrm-v2-99": 330067, "3d-unet-99.9": 43, "gptj-99": 13368,
           "llama2-70b-99": 24576, "mixtral-8x7b": 15000, "llama3.1-405b": 8313, "llama3.1-8b": 13368, "deepseek-r1": 4388, "gpt-oss-120b": 4395,
           "stable-diffusion-xl": 5000, "rgat": 788379, "whisper": 1633, "wan-2.2-t2v-a14b": 248, "qwen3-vl-235b-a22b": 48289, "yolo-99": 1525}
SERVER = {"resnet": 15_000_000, "retinanet": 100_000_000, "dlrm-v2-99": 60_000_000, "gptj-99": 20_000_000_000, "llama2-70b-99": 20_000_000_000,
          "mixtral-8x7b": 20_000_000_000, "llama3.1-405b": 60_000_000_000, "llama3.1-8b": 20_000_000_000, "deepseek-r1": 60_000_000_000,
          "gpt-oss-120b": 60_000_000_000, "stable-diffusion-xl": 20_000_000_000, "qwen3-vl-235b-a22b": 12_000_000_000}
#: LLM_LATENCY_LIMITS (Server): model -> (TTFT, TPOT) in ns, strict upper bounds
LLM = {"llama2-70b-99": (2_000_000_000, 200_000_000), "mixtral-8x7b": (2_000_000_000, 200_000_000), "llama3.1-405b": (6_000_000_000, 175_000_000),
       "llama3.1-8b": (2_000_000_000, 100_000_000), "deepseek-r1": (2_000_000_000, 80_000_000), "gpt-oss-120b": (3_000_000_000, 80_000_000)}


def _detail(entries: dict[str, object]) -> str:
    return "".join(f':::MLLOG {json.dumps({"key": k, "value": v, "time_ms": 0.5, "namespace": "mlperf::logging"})}\n' for k, v in entries.items())


def _run(model: str, scenario: str, **over: object) -> dict[str, object]:
    """The detail-log entries of a run meeting the checker (as LoadGen writes them), with `over` replacing some."""
    entries: dict[str, object] = {"effective_scenario": scenario, "effective_min_duration_ms": 600000, "effective_min_query_count": 1,
                                  "effective_samples_per_query": SPQ.get(model, 13368) if scenario == "Offline" else 1,
                                  "effective_performance_sample_count": PSC[model],
                                  "effective_target_latency_ns": SERVER.get(model, 0) if scenario == "Server" else 0,
                                  "result_validity": "VALID", "early_stopping_met": True, "result_99.00_percentile_latency_ns": 900000}
    if model in LLM and scenario == "Server":
        entries["effective_target_latency_ns"] = 0  # LLM Server runs: TTFT/TPOT limits instead (as in the real sample)
        entries.update({"result_first_token_99.00_percentile_latency_ns": LLM[model][0] - 85_352_355,
                        "result_time_per_output_token_99.00_percentile_ns": LLM[model][1] - 6_619_876})
    entries.update(over)
    return entries


def write_official_tree(root: Path, model: str, *, accuracy: str | None = None, runs: dict[str, dict[str, object]] | None = None,
                        accuracy_log: dict[str, object] | None = None) -> Path:
    """Write a closed-division tree of `model` (Offline, and Server where the checker constrains it), no root summary table; return `root`."""
    runs = runs if runs is not None else {"Offline": _run(model, "Offline"), **({"Server": _run(model, "Server")} if model in SERVER else {})}
    files: dict[str, str] = {}
    for scenario, entries in runs.items():
        base = ROW.format(model=model, scenario=scenario)
        files[f"{base}/performance/run_1/mlperf_log_summary.txt"] = (
            f"================================================\nMLPerf Results Summary\n================================================\n"
            f"SUT name : PySUT\nScenario : {scenario}\nMode     : PerformanceOnly\nResult is : VALID\nMean latency (ns)               : 43579602295\n")
        files[f"{base}/performance/run_1/mlperf_log_detail.txt"] = _detail(entries)
        files[f"{base}/accuracy/accuracy.txt"] = (ACCURACY[model][0] if accuracy is None else accuracy) + "\nhash=0123abcd\n"
        files[f"{base}/accuracy/mlperf_log_detail.txt"] = _detail(accuracy_log if accuracy_log is not None else {
            "effective_scenario": scenario, "effective_test_mode": "AccuracyOnly", "qsl_reported_total_count": DATASET[model]})
    return write_tree(root, files)


def _gate(report) -> dict[str, object]:
    return {f.message.split(" ")[0]: f for f in by_check(report, "gate.rules")}


def _no_fail(report) -> None:
    bad = [f"{f.check} {f.code}: {f.message[:300]}" for f in report.findings if f.status in ("FAIL", "ERROR")]
    assert not bad, bad


@pytest.mark.parametrize("model", sorted(ACCURACY))
def test_a_closed_run_meeting_the_checker_passes_its_rules_without_a_summary_table(tmp_path, model):
    report = verify_path(str(write_official_tree(tmp_path, model)))
    assert report.kind == "profile:mlperf-inference"
    _no_fail(report)
    gate = _gate(report)
    assert gate[ACCURACY[model][2]].status == "PASS", gate[ACCURACY[model][2]].message
    assert gate["checker-min-duration"].status == "PASS"
    assert gate[f"checker-performance-sample-count-{PSC[model]}"].status == "PASS"
    assert gate[f"checker-accuracy-samples-{DATASET[model]}" + ("-Offline" if model == "qwen3-vl-235b-a22b" else "")].status == "PASS"
    if model in SPQ:
        assert gate[f"checker-offline-samples-per-query-{SPQ[model]}"].status == "PASS"
    if model in SERVER and model not in LLM:
        assert gate[f"checker-latency-{model}-Server"].status == "PASS"
    # rules for benchmarks this tree does not hold are not applicable: no finding, never UNVERIFIED empty-selection
    assert not by_check(report, "gate.rules", "empty-selection")
    assert not [f for f in report.findings if f.check in ("derivation.claims", "claims.coverage") and f.code != "no-findings"]


@pytest.mark.parametrize("model", sorted(ACCURACY))
def test_accuracy_outside_the_checker_window_fails_naming_the_rule(tmp_path, model):
    report = verify_path(str(write_official_tree(tmp_path, model, accuracy=ACCURACY[model][1])))
    f = _gate(report)[ACCURACY[model][2]]
    assert (f.status, f.code) == ("FAIL", "rule-not-met") and report.verdict == "FAIL", f.message
    assert "constants.py" not in f.message  # the citation is in the rule's description, the finding names the rule


def test_the_open_division_is_not_judged_by_the_checker_accuracy_rules(tmp_path):
    root = write_official_tree(tmp_path, "resnet", accuracy=ACCURACY["resnet"][1])
    shutil.move(str(root / "closed"), str(root / "open"))
    report = verify_path(str(root))
    assert not [f for f in by_check(report, "gate.rules") if f.message.startswith("checker-")]


@pytest.mark.parametrize("model, scenario, over, rule", [
    ("resnet", "Offline", {"effective_min_duration_ms": 599999}, "checker-min-duration"),
    ("llama2-70b-99", "Server", {"effective_min_duration_ms": 60000}, "checker-min-duration"),
    ("resnet", "Offline", {"effective_samples_per_query": 24575}, "checker-offline-samples-per-query-24576"),
    ("mixtral-8x7b", "Offline", {"effective_samples_per_query": 5000}, "checker-offline-samples-per-query-15000"),
    ("bert-99", "Offline", {"effective_performance_sample_count": 10832}, "checker-performance-sample-count-10833"),
    ("resnet", "Server", {"effective_target_latency_ns": 15_000_001}, "checker-latency-resnet-Server"),
    ("retinanet", "Server", {"effective_target_latency_ns": 150_000_000}, "checker-latency-retinanet-Server"),
    ("llama2-70b-99", "Server", {"result_first_token_99.00_percentile_latency_ns": 2_000_000_000}, "checker-llm-llama2-70b-99-Server-ttft"),
    ("deepseek-r1", "Server", {"result_time_per_output_token_99.00_percentile_ns": 80_000_000}, "checker-llm-deepseek-r1-Server-tpot"),
])
def test_a_run_breaking_a_performance_rule_fails_naming_it(tmp_path, model, scenario, over, rule):
    runs = {"Offline": _run(model, "Offline"), **({"Server": _run(model, "Server")} if model in SERVER else {})}
    runs[scenario] = _run(model, scenario, **over)
    report = verify_path(str(write_official_tree(tmp_path, model, runs=runs)))
    f = _gate(report)[rule]
    assert (f.status, f.code) == ("FAIL", "rule-not-met"), f.message
    assert f"scenario={scenario}" in f.message


def test_qwen3_vl_interactive_has_its_own_window_and_latency(tmp_path):
    model = "qwen3-vl-235b-a22b"
    runs = {"Interactive": _run(model, "Interactive", **{"result_99.00_percentile_latency_ns": 1_400_000_000})}
    report = verify_path(str(write_official_tree(tmp_path, model, accuracy='{"f1": 0.7801}\n', runs=runs)))
    gate = _gate(report)
    assert gate["checker-accuracy-qwen3-vl-235b-a22b-F1_HIERARCHICAL-Interactive"].status == "PASS"  # 0.7801 >= 0.779922
    assert gate["checker-latency-qwen3-vl-235b-a22b-Interactive"].status == "PASS"
    runs = {"Interactive": _run(model, "Interactive", **{"result_99.00_percentile_latency_ns": 1_500_000_001})}
    gate = _gate(verify_path(str(write_official_tree(tmp_path / "b", model, accuracy='{"f1": 0.7799}\n', runs=runs))))
    assert gate["checker-accuracy-qwen3-vl-235b-a22b-F1_HIERARCHICAL-Interactive"].status == "FAIL"
    assert gate["checker-latency-qwen3-vl-235b-a22b-Interactive"].status == "FAIL"


def test_a_closed_run_whose_detail_log_lacks_the_duration_is_unverified_not_skipped(tmp_path):
    entries = _run("resnet", "Offline")
    del entries["effective_min_duration_ms"]
    report = verify_path(str(write_official_tree(tmp_path, "resnet", runs={"Offline": entries})))
    assert _gate(report)["checker-min-duration"].status == "UNVERIFIED"


def _real(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(DATA / "closed", root / "closed")
    return root


def test_the_real_official_sample_passes_every_checker_rule_it_meets(tmp_path):
    report = verify_path(str(_real(tmp_path)))
    assert report.kind == "profile:mlperf-inference"
    _no_fail(report)
    gate = _gate(report)
    for rule in ("checker-accuracy-llama2-70b-99-ROUGE1", "checker-accuracy-llama2-70b-99-TOKENS_PER_SAMPLE", "checker-min-duration",
                 "checker-latency-llama2-70b-99-Server", "checker-llm-llama2-70b-99-Server-ttft", "checker-llm-llama2-70b-99-Server-tpot"):
        assert gate[rule].status == "PASS", gate[rule].message


def test_the_real_sample_with_its_ttft_over_the_limit_fails(tmp_path):
    root = _real(tmp_path)
    detail = next(root.rglob("llama2-70b-99/Server/**/mlperf_log_detail.txt"))
    text = detail.read_text()
    assert '"key": "result_first_token_99.00_percentile_latency_ns", "value": 1914647645,' in text
    detail.write_text(text.replace('"value": 1914647645,', '"value": 2000000000,'))
    f = _gate(verify_path(str(root)))["checker-llm-llama2-70b-99-Server-ttft"]
    assert (f.status, f.code) == ("FAIL", "rule-not-met") and "2000000000" in f.message.replace(",", "").replace(" ", "") or "2e+09" in f.message, f.message


def test_every_checker_rule_cites_the_checker_source_and_line():
    doc = profile_document("mlperf-inference")
    rules = [r for r in doc["gate"]["rules"] if r["id"].startswith("checker-")]
    assert len(rules) > 100
    for r in rules:
        assert "constants.py @ b66003e10e2d" in r["description"] and "line " in r["description"], r["id"]
        assert r["unmatched"] == "skip" and set(r["selection"]["division"]) <= {"closed", "network"}, r["id"]


# --- the language additions: gate `unmatched`, claim_documents `optional`, values `may_be_zero`


def _assets_with(tmp_path: Path, change) -> Path:
    doc = copy.deepcopy(profile_document("mlperf-inference"))
    change(doc)
    return make_assets(tmp_path / "assets", {"mlperf-inference": doc})


def test_without_unmatched_skip_a_rule_for_an_absent_benchmark_is_unverified(tmp_path):
    root = write_official_tree(tmp_path / "t", "resnet")

    def default(doc):
        for r in doc["gate"]["rules"]:
            r.pop("unmatched", None)
    report = verify_path(str(root), asset_root=_assets_with(tmp_path, default))
    f = _gate(report)["checker-accuracy-bert-99-F1"]
    assert (f.status, f.code) == ("UNVERIFIED", "empty-selection")


@pytest.mark.parametrize("where, bad", [("gate", "ignore"), ("claim_documents", "yes"), ("may_be_zero", False)])
def test_a_wrong_value_of_a_new_member_is_refused_at_load(tmp_path, where, bad):
    def change(doc):
        if where == "gate":
            doc["gate"]["rules"][0]["unmatched"] = bad
        elif where == "claim_documents":
            doc["claim_documents"][0]["optional"] = bad
        else:
            doc["receipts"]["detail"]["values"]["min_duration"]["may_be_zero"] = bad
    with pytest.raises(ConfigError, match=r"mlperf-inference\.json: invalid profile at /"):
        verify_path(str(write_official_tree(tmp_path / "t", "resnet")), asset_root=_assets_with(tmp_path, change))


def test_without_optional_an_absent_summary_table_is_unverified(tmp_path):
    def required(doc):
        for d in doc["claim_documents"]:
            d.pop("optional")
    report = verify_path(str(write_official_tree(tmp_path / "t", "resnet")), asset_root=_assets_with(tmp_path, required))
    assert [f.code for f in by_check(report, "claims.coverage")] == ["no-claim-document"] * 3


@pytest.mark.parametrize("value, may, status", [(0, True, None), (0, False, "impossible-value"), (-1, True, "impossible-value")])
def test_a_setting_of_zero_ms_is_read_only_when_mapped_may_be_zero(tmp_path, value, may, status):
    def change(doc):
        doc["receipts"]["detail"]["values"]["min_duration"].pop("may_be_zero")
        if may:
            doc["receipts"]["detail"]["values"]["min_duration"]["may_be_zero"] = True
    root = write_official_tree(tmp_path / "t", "resnet", runs={"Offline": _run("resnet", "Offline", effective_min_duration_ms=value)})
    report = verify_path(str(root), asset_root=_assets_with(tmp_path, change))
    codes = [f.code for f in by_check(report, "schema.documents") if f.status == "FAIL"]
    assert codes == ([] if status is None else [status])
    assert _gate(report)["checker-min-duration"].status == ("FAIL" if status is None else "UNVERIFIED")


@pytest.mark.parametrize("line, members", [
    ("Word Error Rate: 2.0671%, accuracy=97.9329%", {"Word Error Rate": "2.0671%", "accuracy": "97.9329%"}),
    ("Accuracy: mean = 0.86236, kidney = 0.9350", {"mean": "0.86236", "kidney": "0.9350"}),
    ("Word Error Rate: 2.0671%", None),  # no assignment after the labelled value: not this grammar's line
    ("Note: a, b=1", {"Note": "a", "b": "1"}),
])
def test_a_labelled_value_before_assignments_is_the_label_s_member(line, members):
    from verifier.readers.grammars import parse

    records = parse(line.encode() + b"\n", {"encoding": "text", "lines": ["assignments"]})
    got = {k: v for k, v in records[0][1].items() if not k.startswith("#")} if records else {}
    assert (got or None) == members


# --- a layout glob names the format, as `detect.files` does: an official results repository is one bundle, even of thousands of files


def test_a_results_tree_of_more_than_2000_files_without_a_summary_table_is_read_as_one(tmp_path):
    from verifier.profiles.folders import MANY_FILES

    root = write_official_tree(tmp_path / "repo", "resnet")
    extra = root / "closed" / "Org" / "code"
    extra.mkdir(parents=True)
    for i in range(MANY_FILES + 1):
        (extra / f"f{i}.py").write_text("")
    report = verify_path(str(root))
    assert report.kind == "profile:mlperf-inference" and _gate(report)["checker-accuracy-resnet-acc"].status == "PASS"


def test_two_results_trees_side_by_side_are_two_bundles(tmp_path):
    for name in ("a", "b"):
        write_official_tree(tmp_path / "evidence" / name, "resnet")
    with pytest.raises(Exception, match=r"not one bundle\. Its first two folder levels hold 2 bundles: evidence/a/ \(profile mlperf-inference\)"):
        verify_path(str(tmp_path))


@pytest.mark.parametrize("detect, named", [
    ({"glob": "*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"}, True),
    ({"glob": "{,*/,*/*/}*.json"}, False),  # any JSON file near the folder: not a layout
    ({"glob": "**/results/x.json"}, False),
    ({"glob": "*/*.json"}, False),  # no literal directory
    ({"files": ["summary.json"]}, False),
])
def test_only_a_fixed_depth_glob_with_a_literal_directory_names_a_layout(detect, named):
    from verifier.profiles.folders import names_a_layout

    assert names_a_layout(detect) is named


def test_the_layout_walk_does_not_follow_symbolic_links(tmp_path):
    from verifier.profiles.folders import _layout_match

    real = write_official_tree(tmp_path / "real", "resnet")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "closed").symlink_to(real / "closed")
    pattern = "*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"
    assert _layout_match(real, pattern) and not _layout_match(tmp_path / "linked", pattern)


def test_a_capitalised_scenario_s_summary_is_joined_to_its_detail_log(tmp_path):
    """The official layout writes `Server/`, not `server/`: the summary-equals-detail joins select it too."""
    root = _real(tmp_path)
    joins = [f for f in by_check(verify_path(str(root)), "derivation.matches") if "/llama2-70b-99/Server/" in f.path]
    assert len(joins) == 12 and all(f.status == "PASS" for f in joins), [f.message for f in joins]  # validity, 9 latencies, completed and scheduled samples/s
    summary = next(root.rglob("llama2-70b-99/Server/**/mlperf_log_summary.txt"))
    summary.write_text(summary.read_text().replace("Mean latency (ns)               : 43579602295", "Mean latency (ns)               : 43579602296"))
    bad = [f for f in by_check(verify_path(str(root)), "derivation.matches") if f.status != "PASS"]
    assert [(f.status, f.code) for f in bad] == [("FAIL", "not-equal")] and "mean-latency" in bad[0].message


def test_profile_check_says_a_skipped_rule_and_an_absent_optional_document_are_not_applicable(tmp_path):
    from verifier.commands.explain import check

    text, _code = check("mlperf-inference", str(write_official_tree(tmp_path, "resnet")))
    assert "gate/rules/" in text and "(checker-accuracy-bert-99-F1): selection" in text
    line = next(x for x in text.splitlines() if "(checker-accuracy-bert-99-F1)" in x)
    assert "not applicable to this evidence (`unmatched: skip`)" in line and "authoring problem" not in line
    assert "claim_documents/0: 'summary.json' names no file: matches nothing, not applicable to this evidence (`optional`)" in text
    line = next(x for x in text.splitlines() if "(checker-accuracy-resnet-acc)" in x)
    assert "selects 2 receipts" in line and "not applicable" not in line  # Offline and Server


def test_a_closed_run_without_its_accuracy_txt_is_a_gap_not_a_rule_that_does_not_apply(tmp_path):
    root = write_official_tree(tmp_path, "resnet")
    for f in root.rglob("accuracy.txt"):
        f.unlink()
    f = _gate(verify_path(str(root)))["checker-accuracy-resnet-acc"]
    assert (f.status, f.code) == ("UNVERIFIED", "empty-selection"), f.message


@pytest.mark.parametrize("log, rule, status", [
    ({"qsl_reported_total_count": 49999}, "checker-accuracy-samples-50000", "FAIL"),  # the accuracy run left samples out
    ({"qsl_reported_total_count": 500, "effective_accuracy_sample_count": 50000}, "checker-accuracy-samples-50000-effective", "PASS"),  # the checker reads this one
    ({"qsl_reported_total_count": 50000, "effective_accuracy_sample_count": 500}, "checker-accuracy-samples-50000-effective", "FAIL"),
])
def test_the_accuracy_run_must_cover_the_dataset(tmp_path, log, rule, status):
    report = verify_path(str(write_official_tree(tmp_path, "resnet", accuracy_log={"effective_test_mode": "AccuracyOnly", **log})))
    f = _gate(report)[rule]
    assert f.status == status, f.message
    other = rule[:-len("-effective")] if rule.endswith("-effective") else rule + "-effective"
    assert other not in _gate(report)  # the other way of counting is not the checker's for this log: its set leaves the log out


def test_a_closed_run_without_its_accuracy_log_is_a_gap_for_the_dataset_rule(tmp_path):
    root = write_official_tree(tmp_path, "resnet")
    for f in root.rglob("accuracy/mlperf_log_detail.txt"):
        f.unlink()
    gate = _gate(verify_path(str(root)))
    assert (gate["checker-accuracy-samples-50000"].status, gate["checker-accuracy-samples-50000"].code) == ("UNVERIFIED", "empty-selection")
    assert gate["checker-accuracy-resnet-acc"].status == "PASS"
