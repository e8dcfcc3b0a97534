"""The real `serving-performance-v1` record from ../shared/seeds (read in place, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SHARED

from verifier.core import verify_path

RECORD = SHARED / "seeds" / "serving-performance-record.json"


def _by(report, check):
    return [f for f in report.findings if f.check == check]


def test_real_record_rederives_counts_median_and_p95_and_is_incomplete():
    report = verify_path(str(RECORD))
    assert report.kind == "serving-performance-v1"
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    counts = {f.pointer: f for f in _by(report, "serving.counts")}
    assert counts["/counts/declared"].status == "PASS" and counts["/counts/declared"].observed == 8
    assert counts["/counts/outcomes/pass"].observed == 6 and counts["/counts/outcomes/fail"].observed == 2
    metrics = {f.message.split(" ")[0]: f for f in _by(report, "serving.metrics")}
    assert metrics["completion_median_ms"].status == "PASS"
    assert metrics["completion_median_ms"].expected == "4155.3015"
    assert metrics["completion_p95_ms"].status == "PASS"
    assert metrics["completion_p95_ms"].expected == "6909.58135"
    for name in ("completion_throughput_tps", "first_generated_median_ms", "first_final_content_median_ms",
                 "stream_chunk_interval_median_ms"):
        assert metrics[name].status == "UNVERIFIED", name
        assert "retains no" in metrics[name].message


def _mutated(tmp_path: Path, change) -> Path:
    record = json.loads(RECORD.read_text())
    change(record)
    out = tmp_path / "record.json"
    out.write_text(json.dumps(record))
    return out


def test_record_whose_cases_disagree_with_its_median_fails(tmp_path):
    def change(r):
        r["cases"][0]["duration_ms"] = 4000.0  # moves the median off 4155.3015
    report = verify_path(str(_mutated(tmp_path, change)))
    assert report.verdict == "FAIL"
    assert any(f.code == "metric-mismatch" and "completion_median_ms" in f.message for f in report.findings)


def test_record_whose_outcome_counts_disagree_fails(tmp_path):
    def change(r):
        r["cases"][1]["outcome"] = "pass"
    report = verify_path(str(_mutated(tmp_path, change)))
    assert report.verdict == "FAIL"
    assert {f.pointer for f in report.findings if f.code == "count-mismatch"} >= {"/counts/outcomes/pass", "/counts/outcomes/fail"}


def test_record_with_wrong_p95_definition_fails(tmp_path):
    def change(r):
        for m in r["metrics"]:
            if m["id"] == "completion_p95_ms":
                m["value"] = 6931.26  # nearest-rank p95 of 8 values is the maximum; the record says linear
    report = verify_path(str(_mutated(tmp_path, change)))
    assert any(f.code == "metric-mismatch" and "completion_p95_ms" in f.message for f in report.findings)


def test_cli_exit_code_is_3(run):
    result = run(str(RECORD))
    assert result.exit_code == 3
    assert "INCOMPLETE" in result.stdout
