"""`--format` and `--report FORMAT=PATH`: files after the run on every exit code; bad input is one line, exit 2."""

from __future__ import annotations

import json

import pytest
from helpers import write_bundle
from junitparser import JUnitXml


@pytest.mark.parametrize(("mean", "code"), [("10.0", 0), ("10.5", 1)])
def test_reports_are_written_on_every_exit_code(tiny_assets, tmp_path, run, mean, code):
    bundle = write_bundle(tmp_path / "b", baseline_mean=mean)
    out = tmp_path / "out"
    out.mkdir()
    result = run(str(bundle), "--report", f"sarif={out / 'r.sarif'}", "--report", f"junit={out / 'r.xml'}",
                 "--report", f"json={out / 'r.json'}", "--report", f"markdown={out / 'r.md'}")
    assert result.exit_code == code
    assert json.loads((out / "r.json").read_text())["exit_code"] == code
    assert json.loads((out / "r.sarif").read_text())["version"] == "2.1.0"
    assert next(iter(JUnitXml.fromfile(str(out / "r.xml")))).failures == (0 if code == 0 else 1)
    assert ("**Verdict: PASS**" if code == 0 else "**Verdict: FAIL**") in (out / "r.md").read_text()


def test_report_on_incomplete_receipt_is_written(tmp_path, run):
    from conftest import SHARED

    result = run(str(SHARED / "seeds" / "serving-performance-record.json"), "--report", f"json={tmp_path / 'r.json'}")
    assert result.exit_code == 3
    assert json.loads((tmp_path / "r.json").read_text())["verdict"] == "INCOMPLETE"


@pytest.mark.parametrize(("args", "needle"), [
    (["--report", "sarif=/nonexistent-dir-xyz/r.sarif"], "directory /nonexistent-dir-xyz does not exist"),
    (["--report", "xml=r.xml"], "unknown report format 'xml'"),
    (["--report", "sarif"], "expected FORMAT=PATH"),
    (["--format", "xml"], "unknown report format 'xml'"),
])
def test_bad_report_options_are_one_line_exit_2(tiny_assets, tmp_path, run, args, needle):
    bundle = write_bundle(tmp_path / "b")
    result = run(str(bundle), *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and needle in result.stderr and "Traceback" not in result.stderr


def test_unknown_option_is_one_line_exit_2(run):
    result = run("check", "--nope", "x")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and result.stderr.startswith("verify: error:")


def test_github_format_appends_step_summary(tiny_assets, tmp_path, run, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    bundle = write_bundle(tmp_path / "b", baseline_mean="10.5")
    result = run(str(bundle), "--format", "github")
    assert result.exit_code == 1
    assert f"::error file={bundle}/claims.json,title=verify FAIL%3A derivation.claims [claim-mismatch]::" in result.stdout
    text = summary.read_text()
    assert text.startswith("# earlier step\n") and "**Verdict: FAIL**" in text and "`arm_mean_s.baseline`" in text


def test_text_format_leaves_step_summary_alone(tiny_assets, tmp_path, run, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(str(write_bundle(tmp_path / "b"))).exit_code == 0
    assert not summary.exists()
