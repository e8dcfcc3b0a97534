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
    monkeypatch.chdir(tmp_path)  # GitHub's file= is relative to where verify runs, never absolute
    result = run(str(bundle), "--format", "github")
    assert result.exit_code == 1
    assert "::error file=b/claims.json,title=verify FAIL%3A derivation.claims [claim-mismatch]::" in result.stdout
    assert "file=/" not in result.stdout
    text = summary.read_text()
    assert text.startswith("# earlier step\n") and "**Verdict: FAIL**" in text and "`arm_mean_s.baseline`" in text


def test_text_format_leaves_step_summary_alone(tiny_assets, tmp_path, run, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(str(write_bundle(tmp_path / "b"))).exit_code == 0
    assert not summary.exists()


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _refused(result, needle="inside the verified"):
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and needle in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("where", ["claims file", "new file in bundle", "dot-dot", "symlinked dir", "symlink file",
                                   "bundle given through a symlink", "hard link"])
def test_a_report_never_overwrites_the_evidence_it_verifies(tiny_assets, tmp_path, run, monkeypatch, where):
    import os

    bundle = write_bundle(tmp_path / "b")
    before = _snapshot(bundle)
    subject, target = str(bundle), str(bundle / "claims.json")
    if where == "new file in bundle":
        target = str(bundle / "report.json")
    elif where == "dot-dot":
        target = str(tmp_path / "elsewhere" / ".." / "b" / "claims.json")
        (tmp_path / "elsewhere").mkdir()
    elif where == "symlinked dir":
        (tmp_path / "alias").symlink_to(bundle)
        target = str(tmp_path / "alias" / "claims.json")
    elif where == "symlink file":
        (tmp_path / "out.json").symlink_to(bundle / "claims.json")
        target = str(tmp_path / "out.json")
    elif where == "bundle given through a symlink":
        (tmp_path / "alias").symlink_to(bundle)
        subject = str(tmp_path / "alias")
    elif where == "hard link":
        os.link(bundle / "claims.json", tmp_path / "out.json")
        target = str(tmp_path / "out.json")
    _refused(run(subject, "--report", f"json={target}"), "hard link" if where == "hard link" else "inside the verified")
    assert _snapshot(bundle) == before


def test_inventory_reports_stay_out_of_evidence_and_the_inventory(tiny_assets, tmp_path, run):
    from helpers import write_repository

    repo = write_repository(tmp_path / "repo")
    before = _snapshot(repo)
    for target in (repo / "evidence" / "campaign-a" / "claims.json", repo / "evidence-inventory.json"):
        _refused(run("inventory", str(repo), "--report", f"json={target}"))
    assert _snapshot(repo) == before
    result = run("inventory", str(repo), "--report", f"sarif={repo / 'verify.sarif'}")  # the repository root is fine
    assert result.exit_code == 0 and (repo / "verify.sarif").is_file()


def test_reports_stay_out_of_artifacts_and_media_inputs(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    _refused(run(str(bundle), "--artifacts", str(artifacts), "--report", f"json={artifacts / 'r.json'}"))
    media = tmp_path / "a.mp4"
    media.write_bytes(b"not really media")
    _refused(run("media", str(media), "--frames", "1", "--report", f"json={media}"))
    assert media.read_bytes() == b"not really media"


def test_step_summary_inside_the_bundle_is_refused(tiny_assets, tmp_path, run, monkeypatch):
    bundle = write_bundle(tmp_path / "b")
    before = _snapshot(bundle)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(bundle / "claims.json"))
    _refused(run(str(bundle), "--format", "github"))
    assert _snapshot(bundle) == before


def test_two_reports_to_one_path_are_refused(tiny_assets, tmp_path, run, monkeypatch):
    bundle = write_bundle(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    _refused(run(str(bundle), "--report", "json=out.json", "--report", "sarif=./out.json"), "same path")
    _refused(run(str(bundle), "--report", "json=-", "--report", "sarif=-"), "same path")
    assert not (tmp_path / "out.json").exists()


def test_dash_is_stdout(tiny_assets, tmp_path, run, monkeypatch):
    bundle = write_bundle(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    result = run(str(bundle), "--format", "github", "--report", "json=-")
    assert result.exit_code == 0
    assert not (tmp_path / "-").exists()
    text, _, rest = result.stdout.partition("\n{")
    assert text.startswith("::") and json.loads("{" + rest)["verdict"] == "PASS"


@pytest.mark.parametrize("command", [["check"], ["profile", "explain", "p.json"], ["inventory"]])
def test_an_option_given_twice_is_refused_not_the_last_kept(tiny_assets, tmp_path, run, command):
    # click keeps the last of repeated occurrences: `--artifacts A --artifacts B` verified against B alone, silently
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    bundle = write_bundle(tmp_path / "bundle")
    twice = run(*command, "--artifacts", str(tmp_path / "a"), "--artifacts", str(tmp_path / "b"), str(bundle))
    assert twice.exit_code == 2 and twice.stdout == "" and twice.stderr.count("\n") == 1
    assert "'--artifacts': given 2 times" in twice.stderr and str(tmp_path / "b") in twice.stderr
    once = run("check", "--artifacts", str(tmp_path / "a"), str(bundle))
    assert once.exit_code == 0, once.stderr
