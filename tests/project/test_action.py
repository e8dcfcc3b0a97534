"""The GitHub Action's shell steps, run for real with a fake runner environment (GITHUB_STEP_SUMMARY etc.)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from helpers import write_bundle

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {s["name"]: s for s in ACTION["runs"]["steps"]}


def test_action_is_composite_shell_only_and_inputs_go_through_env():
    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        assert "uses" not in step, "third-party actions must be pinned by full sha; this action uses none"
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], f"{step['name']}: expressions inside run: invite template injection"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def runner(tmp_path, tiny_assets):
    """Return a function running one action step in a fake runner; returns (exit code, stdout, env files)."""
    fake_bin = tmp_path / "verify-bin"
    fake_bin.write_text(
        f"#!{sys.executable}\n"
        "import pathlib, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from verifier.trust import assets as trust\n"
        f"trust._default_root = lambda: pathlib.Path({str(tiny_assets)!r})  # the test's pinned assets (tiny-v1 gate)\n"
        "from verifier.cli import main\n"
        "main(prog_name='verify')\n")
    fake_bin.chmod(0o755)
    files = {k: tmp_path / f"{k.lower()}.txt" for k in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ENV")}
    for f in files.values():
        f.write_text("")

    def run_step(name: str, repo: Path, **inputs: str):
        step = STEPS[name]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "VERIFY_"))}
        env.update({k: str(v) for k, v in files.items()}, RUNNER_TEMP=str(tmp_path), VERIFY_BIN=str(fake_bin), CI="true")
        for key, expr in step.get("env", {}).items():
            if key in inputs:
                env[key] = inputs[key]
            elif "inputs." in expr:
                default = ACTION["inputs"][expr.split("inputs.")[1].split()[0].rstrip("}")]["default"]
                env[key] = "" if "${{" in default else default
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        return proc.returncode, proc.stdout + proc.stderr, {k: v.read_text() for k, v in files.items()}

    return run_step


@pytest.fixture
def repo(tmp_path):
    """Return a git repository whose second commit adds a failing and an incomplete bundle to a passing one."""
    repo = tmp_path / "repo"
    write_bundle(repo / "evidence" / "old-pass")
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    write_bundle(repo / "evidence" / "new-fail", baseline_mean="10.5")
    write_bundle(repo / "evidence" / "new-incomplete", externals=[
        {"path": "media/a.mp4", "sha256": "cd" * 32, "size": 9, "source": "s3", "reason": "large"}])
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "add bundles")
    (repo / ".base").write_text(base)
    return repo


def outputs(text: str) -> dict[str, str]:
    """Return the step outputs of a GITHUB_OUTPUT file, parsed as the runner does (`k=v` and `k<<DELIM` forms)."""
    found, lines = {}, iter(text.split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            value = []
            for body in lines:
                if body == delim:
                    break
                value.append(body)
            else:
                raise AssertionError(f"unterminated {key}<<{delim}")
            found[key] = "\n".join(value)
        elif "=" in line:
            key, value = line.split("=", 1)
            found[key] = value
    return found


def test_changed_bundles_are_found_and_verified_with_annotations_summary_and_sarif(runner, repo, tmp_path):
    base = (repo / ".base").read_text()
    code, out, files = runner("Find changed bundles", repo, VERIFY_BASE_REF=base)
    assert code == 0, out
    bundles = outputs(files["GITHUB_OUTPUT"])["list"]
    assert bundles == "evidence/new-fail\nevidence/new-incomplete"
    sarif_dir = tmp_path / "sarif"
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES=bundles, VERIFY_SARIF_DIR=str(sarif_dir))
    assert code == 1, out
    assert "::error file=evidence/new-fail/claims.json,title=verify FAIL%3A derivation.claims [claim-mismatch]::" in out
    assert "::warning file=evidence/new-incomplete/manifest.json,title=verify UNVERIFIED%3A integrity.files [external-not-supplied]::" in out  # the absent external file: on its manifest (trial41c item 7)
    summary = files["GITHUB_STEP_SUMMARY"]
    assert "verify: FAIL — `evidence/new-fail`" in summary and "verify: INCOMPLETE — `evidence/new-incomplete`" in summary
    assert "| ❌ FAIL | `arm_mean_s.baseline` | 10.5 s | 10.0 s | 0.5 s | 0.05 s |" in summary  # claimed, derived, delta, tolerance
    assert "verdict=FAIL" in files["GITHUB_OUTPUT"]
    logs = sorted(p.name for p in sarif_dir.iterdir())
    assert logs == ["evidence_new-fail.sarif", "evidence_new-incomplete.sarif"]
    assert json.loads((sarif_dir / logs[0]).read_text())["runs"][0]["properties"]["verdict"] == "FAIL"


@pytest.mark.parametrize(("fail_on_incomplete", "expected"), [("true", 3), ("false", 0)])
def test_incomplete_fails_the_job_only_by_input(runner, repo, fail_on_incomplete, expected):
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="evidence/new-incomplete",
                              VERIFY_FAIL_ON_INCOMPLETE=fail_on_incomplete)
    assert code == expected, out
    assert "verdict=INCOMPLETE" in files["GITHUB_OUTPUT"]


def test_passing_bundle_and_inventory_mode(runner, repo):
    from helpers import sha256

    (repo / "evidence-inventory.json").write_text(json.dumps({"format": "verify-evidence-inventory", "format_version": 1,
        "bundles": {n: {"kind": "campaign", "manifest_sha256": sha256(repo / "evidence" / n / "manifest.json")}
                    for n in ("old-pass",)}}))
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="evidence/old-pass")
    assert code == 0 and "::notice title=verify PASS%3A evidence/old-pass::" in out
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="", VERIFY_INVENTORY="true")
    assert code == 1 and "evidence/new-fail is not registered" in out


def test_nothing_changed_passes_with_a_note(runner, repo):
    code, out, files = runner("Find changed bundles", repo, VERIFY_BASE_REF="HEAD")
    assert code == 0 and outputs(files["GITHUB_OUTPUT"])["list"] == ""
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="")
    assert code == 0 and "no evidence bundle changed" in files["GITHUB_STEP_SUMMARY"]
    assert "verdict=NONE" in files["GITHUB_OUTPUT"]


@pytest.fixture
def tricky_repo(tmp_path):
    """Return a git repository whose second commit adds failing bundles with names that quote, glob or split."""
    repo = tmp_path / "tricky"
    write_bundle(repo / "evidence" / "good")
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / ".base").write_text(_git(repo, "rev-parse", "HEAD"))
    for name in ("café", "[g]ood", "two words", "*"):
        write_bundle(repo / "evidence" / name, baseline_mean="10.5")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "add failing bundles")
    return repo


def test_bundle_names_that_git_quotes_or_the_shell_globs_are_all_verified(runner, tricky_repo):
    """Non-ASCII names must not be dropped, `[g]ood` and `*` must not glob to `good`, spaces must not split: FAIL, not PASS."""
    base = (tricky_repo / ".base").read_text()
    code, out, files = runner("Find changed bundles", tricky_repo, VERIFY_BASE_REF=base)
    assert code == 0, out
    listed = outputs(files["GITHUB_OUTPUT"])["list"].split("\n")
    assert sorted(listed) == sorted(["evidence/café", "evidence/[g]ood", "evidence/two words", "evidence/*"])
    code, out, files = runner("Verify bundles", tricky_repo, VERIFY_BUNDLES="\n".join(listed))
    assert code == 1, out
    assert outputs(files["GITHUB_OUTPUT"])["verdict"] == "FAIL"
    for name in listed:
        assert f"::error title=verify FAIL%3A {name}::" in out, name
    assert "evidence/good::" not in out and "evidence/good/" not in out


def test_paths_input_is_not_globbed(runner, tricky_repo):
    code, out, files = runner("Find changed bundles", tricky_repo, VERIFY_PATHS="evidence/[g]ood")
    assert code == 0, out
    assert outputs(files["GITHUB_OUTPUT"])["list"] == "evidence/[g]ood"
    code, out, files = runner("Find changed bundles", tricky_repo, VERIFY_PATHS="evidence/nope")
    assert code == 2 and "evidence/nope" in out and "::error" in out


@pytest.mark.parametrize("change", ["top-level file", "deleted bundle", "newline in name", "symlinked bundle"])
def test_a_changed_path_under_evidence_that_maps_to_no_bundle_fails(runner, tricky_repo, change):
    import shutil

    repo = tricky_repo
    base = _git(repo, "rev-parse", "HEAD")
    if change == "top-level file":
        (repo / "evidence" / "README.md").write_text("not a bundle\n")
    elif change == "deleted bundle":
        shutil.rmtree(repo / "evidence" / "good")
    elif change == "newline in name":
        write_bundle(repo / "evidence" / "x\nverdict=PASS")
    else:
        (repo / "evidence" / "alias").symlink_to("good")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", change)
    code, out, files = runner("Find changed bundles", repo, VERIFY_BASE_REF=base)
    assert code == 1, out
    assert "::error title=verify::" in out and "evidence/" in out
    assert "list" not in outputs(files["GITHUB_OUTPUT"])


def test_every_bundle_gets_its_own_sarif_file(runner, tricky_repo, tmp_path):
    """`evidence/a.b` and `evidence/a_b` both flatten to `evidence_a_b`: neither log may overwrite the other."""
    for name in ("a.b", "a_b"):
        write_bundle(tricky_repo / "evidence" / name, baseline_mean="10.5")
    sarif_dir = tmp_path / "sarif"
    code, out, files = runner("Verify bundles", tricky_repo, VERIFY_BUNDLES="evidence/a.b\nevidence/a_b",
                              VERIFY_SARIF_DIR=str(sarif_dir))
    assert code == 1, out
    logs = sorted(sarif_dir.iterdir())
    assert len(logs) == 2, logs
    subjects = {json.loads(p.read_text())["runs"][0]["originalUriBaseIds"]["BUNDLE"]["uri"] for p in logs}
    assert subjects == {"evidence/a.b/", "evidence/a_b/"}


def test_a_pull_request_that_loosens_its_gate_is_judged_by_the_base_trust_root(runner, tmp_path):
    from trustkit import TEAM_GATE, bundle, trusted_repository, write_gate

    from verifier.trust.assets import assets
    from verifier.commands.trustroot_cmds import pin

    repo = trusted_repository(tmp_path / "trusted")
    base = _git(repo, "rev-parse", "HEAD")
    write_gate(repo, {**TEAM_GATE, "plan": {**TEAM_GATE["plan"], "measured_per_server": 1}})
    pin(str(repo), assets())
    bundle(repo / "evidence" / "run1", measured=1)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "loosen the gate and shrink the run")
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="evidence/run1", VERIFY_BASE_REF=base)
    assert code == 1 and "verdict=FAIL" in files["GITHUB_OUTPUT"], out
    assert "verify/gates/team-v1.json" in out and "::warning" in out
    code, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="evidence/run1", VERIFY_BASE_REF=base,
                              VERIFY_TRUST_BASE="false")
    assert code == 0, out  # without the base's trust root the loosened gate would have judged it


def _pr_event(tmp_path: Path, body) -> Path:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "body": body}}), encoding="utf-8")
    return event


@pytest.mark.parametrize(("body", "code", "expected"), [
    ("Mean latency 10.0 s -> 5.0 s over 2 requests.", 0, "verdict=PASS"),
    ("Mean latency 10.0 s -> 4.0 s over 2 requests.", 1, "claims.stated [claim-mismatch]"),
    (None, 2, "claim text is empty"),
])
def test_claims_from_pr_binds_the_pull_request_body(runner, tmp_path, body, code, expected):
    repo = tmp_path / "repo"
    write_bundle(repo / "evidence" / "b")
    event = _pr_event(tmp_path, body)
    step = STEPS["Read the pull request body"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "VERIFY_"))}
    env.update(RUNNER_TEMP=str(tmp_path), GITHUB_EVENT_PATH=str(event), GITHUB_ENV=str(tmp_path / "env.txt"),
               VERIFY_CLAIMS_FROM_PR="true")
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text_file = (tmp_path / "env.txt").read_text().strip().split("=", 1)[1]
    assert Path(text_file).read_text(encoding="utf-8") == (body or "")
    code_, out, files = runner("Verify bundles", repo, VERIFY_BUNDLES="evidence/b", VERIFY_CLAIMS_TEXT=text_file)
    assert code_ == code, out
    assert expected in out + files["GITHUB_OUTPUT"]


def test_claims_from_pr_off_reads_nothing(tmp_path):
    step = STEPS["Read the pull request body"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "VERIFY_"))}
    env.update(RUNNER_TEMP=str(tmp_path), GITHUB_ENV=str(tmp_path / "env.txt"), VERIFY_CLAIMS_FROM_PR="false")
    (tmp_path / "env.txt").write_text("")
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and (tmp_path / "env.txt").read_text() == ""
