"""The shipped `sglang-bench-serving` profile on real `sglang.bench_serving` output (`tests/data/sglang-bench-serving/SOURCE.md`), and the language it needed: JSON Lines claim documents, `record` dimensions, `non_finite`."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import numpy
import pytest
from conftest import ROOT

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.formats.jsonio import loads_strict_lines, quote_non_finite
from verifier.profiles.language import Tree, candidates

DATA = ROOT / "tests" / "data" / "sglang-bench-serving"
ONLINE = "llama_3_3_70b_online_output.jsonl"
OFFLINE = "llama_3_3_70b_offline_output.jsonl"


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code in ("derived", "claim-mismatch")}


def _lines(name: str) -> list[dict]:
    return loads_strict_lines(quote_non_finite((DATA / name).read_bytes()))


def _write(folder: Path, name: str, lines: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps({k: float(v) if type(v).__name__ == "Decimal" else v for k, v in line.items()}) + "\n"
                                       for line in lines))


def test_real_output_rederives_each_runs_output_throughput(run):
    report = verify_path(str(DATA))
    assert report.kind == "profile:sglang-bench-serving"
    claims = _claims(report)
    assert len(claims) == 14 and all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    assert {label.split("[")[0] for label in claims} == {"output_throughput"}
    # this version writes no request/input throughput: skipped, never failed; the offline runs' `Infinity` request rate is read as text
    unstated = {f.message.split(":")[0] for f in report.findings if f.code == "claim-unstated"}
    assert unstated == {"request_throughput", "input_throughput"}
    assert not any(f.code in ("unreadable-receipt", "claim-unreadable") for f in report.findings)
    assert not any(f.status in ("FAIL", "ERROR") for f in report.findings)
    assert report.verdict == "INCOMPLETE" and run(str(DATA)).exit_code == 3


@pytest.mark.parametrize("name, run_index", [(ONLINE, 0), (ONLINE, 6), (OFFLINE, 0), (OFFLINE, 6)])
def test_a_changed_output_throughput_fails_naming_its_run(tmp_path, name, run_index):
    lines = _lines(name)
    lines[run_index]["output_throughput"] = float(lines[run_index]["output_throughput"]) * 1.0001
    _write(tmp_path / "out", name, lines)
    failed = [label for label, f in _claims(verify_path(str(tmp_path / "out"))).items() if f.status == "FAIL"]
    assert failed == [f"output_throughput[file={name}][run={run_index}]"], failed


def test_a_changed_duration_fails_the_throughput_it_divides(tmp_path):
    lines = _lines(ONLINE)
    lines[3]["duration"] = float(lines[3]["duration"]) + 1
    _write(tmp_path / "out", ONLINE, lines)
    failed = [label for label, f in _claims(verify_path(str(tmp_path / "out"))).items() if f.status == "FAIL"]
    assert failed == [f"output_throughput[file={ONLINE}][run=3]"]


def _newer_line(ttfts: list[float], errors: list[str]) -> dict:
    """A line as bench_serving writes it since 2025 with `--output-details` (built from the first real online run, its statistics computed here as `calculate_metrics` does)."""
    line = {k: (float(v) if type(v).__name__ == "Decimal" else v) for k, v in _lines(ONLINE)[0].items()}
    ok = [t for t, e in zip(ttfts, errors, strict=True) if not e]
    line.update(request_throughput=line["completed"] / line["duration"], input_throughput=line["total_input_tokens"] / line["duration"],
                mean_ttft_ms=float(numpy.mean(ok)) * 1000, median_ttft_ms=float(numpy.median(ok)) * 1000, std_ttft_ms=float(numpy.std(ok)) * 1000,
                p99_ttft_ms=float(numpy.percentile(ok, 99)) * 1000, ttfts=ttfts, errors=errors, input_lens=[1024] * len(ttfts),
                output_lens=[1024 if not e else 0 for e in errors], itls=[[0.0136, 0.0139] if not e else [] for e in errors],
                generated_texts=["" for _ in errors])
    return line


TTFTS = [0.0857, 0.0912, 0.0801, 0.3044, 0.0, 0.0868]
ERRORS = ["", "", "", "", "Timeout after 21600 s", ""]
NEWER = ["request_throughput", "input_throughput", "output_throughput", "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms"]


def test_a_newer_line_with_details_rederives_throughputs_and_ttft_statistics_over_the_successful_requests(tmp_path):
    _write(tmp_path / "out", "run.jsonl", [_newer_line(TTFTS, ERRORS)])
    claims = _claims(verify_path(str(tmp_path / "out")))
    assert sorted(label.split("[")[0] for label, f in claims.items() if f.status == "PASS") == sorted(NEWER)
    assert statistics.pstdev([t for t, e in zip(TTFTS, ERRORS, strict=True) if not e]) > 0  # population SD (numpy's std), not sample SD


@pytest.mark.parametrize("member", NEWER)
def test_each_changed_number_of_a_newer_line_fails_naming_it(tmp_path, member):
    line = _newer_line(TTFTS, ERRORS)
    line[member] *= 1.0001
    _write(tmp_path / "out", "run.jsonl", [line])
    failed = [label for label, f in _claims(verify_path(str(tmp_path / "out"))).items() if f.status == "FAIL"]
    assert failed == [f"{member}[file=run.jsonl][run=0]"], failed


def test_a_failed_requests_ttft_counted_in_the_mean_fails(tmp_path):
    line = _newer_line(TTFTS, ERRORS)
    line["mean_ttft_ms"] = float(numpy.mean(TTFTS)) * 1000  # the 0.0 of the failed request included
    _write(tmp_path / "out", "run.jsonl", [line])
    assert _claims(verify_path(str(tmp_path / "out")))["mean_ttft_ms[file=run.jsonl][run=0]"].status == "FAIL"


def test_is_detected_given_the_folder_or_its_parent_never_three_levels_up(tmp_path):
    results = tmp_path / "a" / "b" / "results"
    shutil.copytree(DATA, results, ignore=shutil.ignore_patterns("SOURCE.md"))
    for root in (results, results.parent, results.parent.parent):
        assert "sglang-bench-serving" in candidates(_shipped(), Tree(root=root)), root
    assert "sglang-bench-serving" not in candidates(_shipped(), Tree(root=tmp_path))
    offline = tmp_path / "offline"
    offline.mkdir()
    shutil.copy(DATA / OFFLINE, offline / OFFLINE)  # every line states `"request_rate": Infinity`: detection reads it as the run will
    assert verify_path(str(offline)).kind == "profile:sglang-bench-serving"


def test_other_json_lines_and_vllm_results_are_not_detected(tmp_path):
    _write(tmp_path / "x", "a.jsonl", [{"backend": "vllm", "duration": 1.0, "completed": 3}])  # no retokenized total: not sglang's
    assert "sglang-bench-serving" not in candidates(_shipped(), Tree(root=tmp_path / "x"))
    assert "sglang-bench-serving" not in candidates(_shipped(), Tree(root=ROOT / "tests" / "data" / "lm-eval"))
    assert "sglang-bench-serving" not in candidates(_shipped(), Tree(root=ROOT))


def test_a_bare_infinity_is_text_only_for_a_profile_that_says_so(tmp_path):
    data = b'{"request_rate": Infinity, "note": "NaN stays in a string", "x": -Infinity, "y": NaN}\n'
    assert loads_strict_lines(quote_non_finite(data)) == [{"request_rate": "Infinity", "note": "NaN stays in a string", "x": "-Infinity", "y": "NaN"}]
    (tmp_path / "f.jsonl").write_bytes(data)
    assert Tree(root=tmp_path, non_finite=True).json("f.jsonl")[0]["request_rate"] == "Infinity"
    with pytest.raises(ValueError, match="non-finite"):
        Tree(root=tmp_path).json("f.jsonl")


def test_detection_reading_infinity_as_text_shares_the_folders_one_walk(tmp_path):
    # the profile's own reading (`non_finite`) takes a second view of the tree, never a second walk of a large folder
    tree = Tree(root=DATA)
    assert "sglang-bench-serving" in candidates(_shipped(), tree)
    assert f"json-nf:{OFFLINE}" in tree._cache or f"json-nf:{ONLINE}" in tree._cache  # noqa: SLF001 - the shared cache is what this test is about
    assert "files" in tree._cache  # noqa: SLF001
