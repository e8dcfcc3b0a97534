"""
The shipped `lm-eval` profile (lm-evaluation-harness results and `--log_samples` samples), on a real results file (`tests/data/lm-eval/SOURCE.md`).

No public lm-eval run with both a results file and its samples of a mean-aggregated metric was found, so
the samples here are constructed: the per-document `acc` values the real results imply (a binary `acc` of
0.34 over `n-samples.effective` 100 documents is 34 ones and 66 zeros; their order does not change a mean
or a standard error), written as lm-eval writes a samples line (`doc_id`, `filter`, the metric under its name).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.profiles.language import Tree, candidates

DATA = ROOT / "tests" / "data" / "lm-eval" / "results-only"
MODEL = "__home__cs29824__matthew__lm-evaluation-harness__examples__dog_steer.csv"
TS = "2025-01-21T00-40-03.356274"
TASK = "mmlu_abstract_algebra"
KEY = f"[run={MODEL}][task={TASK}][ts={TS}][filter=none]"


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code not in ("claim-unstated", "no-receipts")}


def _run(tmp_path: Path, change=None, ones: int = 34, docs: int = 100) -> Path:
    """Return an `--output_path` folder: the real results file (changed by `change`) and the samples its numbers imply."""
    out = tmp_path / "out"
    shutil.copytree(DATA, out)
    results = out / MODEL / f"results_{TS}.json"
    if change is not None:
        doc = json.loads(results.read_text())
        change(doc)
        results.write_text(json.dumps(doc, indent=2))
    lines = [{"doc_id": i, "target": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0 if i < ones else 0.0} for i in range(docs)]
    (out / MODEL / f"samples_{TASK}_{TS}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def test_real_results_without_samples_are_detected_and_never_passed(run):
    report = verify_path(str(DATA))
    assert report.kind == "profile:lm-eval"
    assert not _claims(report) and not any(f.status == "FAIL" for f in report.findings)
    unchecked = {f.pointer for f in report.findings if f.code == "unchecked-claim"}
    assert unchecked == {f"/results/{TASK}/acc,none", f"/results/{TASK}/acc_stderr,none", f"/n-samples/{TASK}/effective"}
    assert report.verdict == "INCOMPLETE" and run(str(DATA)).exit_code == 3


def test_with_its_samples_the_metric_its_stderr_and_the_sample_count_rederive(tmp_path):
    report = verify_path(str(_run(tmp_path)))
    claims = _claims(report)
    assert sorted(claims) == [f"acc{KEY}", f"acc_stderr{KEY}", f"n-samples{KEY}"]  # the task name's `_`s read whole (`name_patterns`)
    assert all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values()]
    assert "sample SD (n-1) / sqrt(n)" in claims[f"acc_stderr{KEY}"].derivation
    (coverage,) = [f for f in report.findings if f.check == "claims.coverage"]
    assert coverage.status == "PASS"
    assert report.verdict == "INCOMPLETE" and not any(f.status == "FAIL" for f in report.findings)


@pytest.mark.parametrize("place, value, claim", [
    (("results", TASK, "acc,none"), 0.35, "acc"),
    (("results", TASK, "acc_stderr,none"), 0.04762, "acc_stderr"),  # 0.04761 is the stderr rounded: PASS
    (("results", TASK, "acc_stderr,none"), 0.04737087712930804, "acc_stderr"),  # sqrt(p(1-p)/n): the population SD's stderr
    (("n-samples", TASK, "effective"), 99, "n-samples"),
])
def test_each_changed_number_fails_naming_its_claim(tmp_path, place, value, claim):
    def change(doc):
        doc[place[0]][place[1]][place[2]] = value
    claims = _claims(verify_path(str(_run(tmp_path, change))))
    failed = [label for label, f in claims.items() if f.status == "FAIL"]
    assert failed == [f"{claim}{KEY}"], failed
    assert claims[failed[0]].code == "claim-mismatch"


def test_a_stderr_lm_eval_did_not_compute_is_not_failed(tmp_path):
    # `--bootstrap_iters 0` writes "N/A" for every stderr: not a number, so not claimed
    def change(doc):
        doc["results"][TASK]["acc_stderr,none"] = "N/A"
    report = verify_path(str(_run(tmp_path, change)))
    assert f"acc_stderr{KEY}" not in {k for k, f in _claims(report).items() if f.status == "PASS"}
    assert not any(f.status == "FAIL" for f in report.findings), [f.message for f in report.findings if f.status == "FAIL"]


def test_detection_needs_lm_evals_members_and_never_reaches_a_source_checkout(tmp_path):
    assert "lm-eval" in candidates(_shipped(), Tree(root=DATA))
    assert "lm-eval" in candidates(_shipped(), Tree(root=DATA / MODEL))
    other = tmp_path / "other" / "model"
    other.mkdir(parents=True)
    (other / "results_x.json").write_text(json.dumps({"results": {"t": {"acc,none": 0.5}}}))  # no configs, versions, n-samples
    assert "lm-eval" not in candidates(_shipped(), Tree(root=tmp_path / "other"))
    assert "lm-eval" not in candidates(_shipped(), Tree(root=ROOT))  # tests/data/lm-eval/results-only/<model>/ is four down


def test_a_generative_task_with_two_filters_and_a_group_row_beside_it(tmp_path):
    # gsm8k logs one samples line per document and filter; a group (`mmlu`) has no samples file: its pooled numbers are unchecked, never failed
    def change(doc):
        doc["results"]["gsm8k"] = {"alias": "gsm8k", "exact_match,strict-match": 0.25, "exact_match_stderr,strict-match": 0.25,
                                   "exact_match,flexible-extract": 0.5, "exact_match_stderr,flexible-extract": 0.28867513459481287}
        doc["results"]["mmlu"] = {"alias": "mmlu", "acc,none": 0.3, "acc_stderr,none": 0.004}
        doc["n-samples"]["gsm8k"] = {"original": 1319, "effective": 4}
    out = _run(tmp_path, change)
    lines = [{"doc_id": i, "filter": f, "exact_match": v} for f, values in (("strict-match", [1.0, 0.0, 0.0, 0.0]), ("flexible-extract", [1.0, 1.0, 0.0, 0.0]))
             for i, v in enumerate(values)]
    (out / MODEL / f"samples_gsm8k_{TS}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = verify_path(str(out))
    claims = _claims(report)
    gsm8k = {label.split("[")[0] + "/" + label.split("[filter=")[1].rstrip("]"): f.status for label, f in claims.items() if "[task=gsm8k]" in label}
    assert gsm8k == {"exact_match/strict-match": "PASS", "exact_match_stderr/strict-match": "PASS", "n-samples/strict-match": "PASS",
                     "exact_match/flexible-extract": "PASS", "exact_match_stderr/flexible-extract": "PASS", "n-samples/flexible-extract": "PASS"}
    unchecked = {f.pointer for f in report.findings if f.code == "unchecked-claim"}
    assert unchecked == {"/results/mmlu/acc,none", "/results/mmlu/acc_stderr,none"}
    assert not any(f.status == "FAIL" for f in report.findings)


def test_a_samples_line_without_a_filter_is_read_as_filter_none(tmp_path):
    out = _run(tmp_path)
    path = out / MODEL / f"samples_{TASK}_{TS}.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        del line["filter"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = verify_path(str(out))
    assert sorted(label for label, f in _claims(report).items() if f.status == "PASS") == [f"acc{KEY}", f"acc_stderr{KEY}", f"n-samples{KEY}"]
    assert not any(f.status == "FAIL" for f in report.findings)
