"""
Issue 13: the runnable promises of docs/exit-codes.md and docs/receipts.md, read from the docs and run.

Each test parses the promise out of the Markdown (so an edit to the doc that
no longer matches the code turns a test red) and runs a case for it.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, SHARED
from helpers import write_bundle

EXIT_DOC = (ROOT / "docs" / "exit-codes.md").read_text()
RECEIPTS_DOC = (ROOT / "docs" / "receipts.md").read_text()
RECORD = SHARED / "seeds" / "serving-performance-record.json"


def _verdict_table() -> dict[str, int]:
    rows = re.findall(r"^\| (PASS|FAIL|ERROR|INCOMPLETE) \|[^|]*\| (\d) \|$", EXIT_DOC, re.MULTILINE)
    return {verdict: int(code) for verdict, code in rows}


def test_the_table_lists_every_verdict_once():
    assert set(_verdict_table()) == {"PASS", "FAIL", "ERROR", "INCOMPLETE"}


def _record(tmp_path, change=None, text=None):
    path = tmp_path / "record.json"
    if text is not None:
        path.write_text(text)
    else:
        doc = json.loads(RECORD.read_text())
        if change:
            change(doc)
        path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("verdict", ["PASS", "FAIL", "INCOMPLETE", "ERROR"])
def test_each_verdict_exits_with_its_documented_code(verdict, tiny_assets, tmp_path, run, monkeypatch):
    if verdict == "PASS":
        target = str(write_bundle(tmp_path / "b"))
    elif verdict == "FAIL":
        target = str(write_bundle(tmp_path / "b", baseline_mean="10.5"))
    elif verdict == "INCOMPLETE":
        target = str(RECORD)
    else:
        from verifier.adapters import serving_rules

        monkeypatch.setattr(serving_rules, "HEX64", None)  # a crash inside serving.record: our bug, not the evidence's
        target = str(RECORD)
    result = run(target)
    assert f"verdict: {verdict}" in result.stdout, result.stdout[-400:]
    assert result.exit_code == _verdict_table()[verdict]


def test_exit_2_is_a_one_line_usage_error(run, tmp_path):
    assert "Exit code 2 is not a verdict" in EXIT_DOC
    result = run(str(tmp_path / "missing"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_unknown_producer_version_is_unverified_as_documented(tmp_path, run):
    assert "UNVERIFIED `unknown-producer-version`" in RECEIPTS_DOC and "it is\nnever FAIL" in RECEIPTS_DOC
    result = run(_record(tmp_path, lambda d: d.update(suite_version="serving-performance-v2")), "--format", "json")
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"] if f["check"] == "serving.producer"] == ["unknown-producer-version"]
    assert {f["status"] for f in report["findings"]} == {"UNVERIFIED"}
    assert result.exit_code == _verdict_table()["INCOMPLETE"]


@pytest.mark.parametrize("token", ["NaN", "Infinity"])
def test_nan_in_a_known_receipt_is_a_fail_report_as_documented(tmp_path, run, token):
    assert "the report is FAIL with one finding `json.strict`" in RECEIPTS_DOC
    text = RECORD.read_text().replace('"value": 4155.3015', f'"value": {token}')
    result = run(_record(tmp_path, text=text), "--format", "json")
    report = json.loads(result.stdout)
    assert [(f["check"], f["status"], f["code"]) for f in report["findings"]] == [("json.strict", "FAIL", "non-finite-number")]
    assert report["kind"] == "serving-performance-v1"  # recognised as the producer's receipt, not an anonymous JSON file
    assert result.exit_code == _verdict_table()["FAIL"]


def test_nan_in_an_unrecognised_json_file_fails_and_non_json_stays_exit_2(tmp_path, run):
    assert "same FAIL under kind\n`json-file`" in RECEIPTS_DOC and "not JSON at all stay a usage error (exit 2)" in RECEIPTS_DOC
    result = run(_record(tmp_path, text='{"a": NaN}'), "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["kind"] == "json-file"
    (tmp_path / "notes.txt").write_text("hello")
    assert run(str(tmp_path / "notes.txt")).exit_code == 2
