"""
The pre-commit hooks we offer, run by the real `pre-commit` (issue 15): `pre-commit try-repo` against this checkout.

A temporary evidence repository with its own trust root (verify.toml, a gate,
pins) and a registered bundle stages a change: a good one passes both hooks,
one that breaks the bundle fails `verify-bundles`. The hooks are `language:
python`, so pre-commit pip-installs this checkout into its own environment.
The tests run offline (`unshare --net`), so pip is pointed at a wheelhouse
that `.ci/run` builds beforehand (`VERIFY_WHEELHOUSE`, `pip wheel . hatchling`)
with `PIP_NO_INDEX`; without one the test skips and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from trustkit import git, trusted_repository

from verifier.commands.manifest import write_manifest

WHEELHOUSE = os.environ.get("VERIFY_WHEELHOUSE", "")
PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
pytestmark = [
    pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (it is in the `test` extra)"),
    pytest.mark.skipif(not (WHEELHOUSE and Path(WHEELHOUSE).is_dir()),
                       reason="no VERIFY_WHEELHOUSE: pre-commit must pip-install the hook offline; .ci/run builds one"),
    pytest.mark.slow,
]


def try_repo(repo: Path, home: Path, hook: str, *files: str) -> subprocess.CompletedProcess[str]:
    """Run `pre-commit try-repo <this checkout> HOOK --files FILES` in `repo`, installing from the wheelhouse only."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELHOUSE,
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([PRE_COMMIT, "try-repo", str(ROOT), hook, "--files", *files], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def register(repo: Path, name: str) -> None:
    import hashlib

    digest = hashlib.sha256((repo / "evidence" / name / "manifest.json").read_bytes()).hexdigest()
    path = repo / "evidence-inventory.json"
    inventory = json.loads(path.read_text())
    inventory["bundles"][name] = {"kind": "campaign", "manifest_sha256": digest}
    path.write_text(json.dumps(inventory, indent=2))


def test_hooks_pass_a_good_change_and_fail_one_that_breaks_a_bundle(tmp_path):
    repo = trusted_repository(tmp_path / "evidence-repo", before_commit=lambda root: register(root, "run1"))
    home = tmp_path / "pre-commit-home"

    manifest = json.loads((repo / "evidence" / "run1" / "manifest.json").read_text())
    manifest["description"] = "a good change: a clearer description"
    (repo / "evidence" / "run1" / "manifest.json").write_text(json.dumps(manifest, indent=2))
    register(repo, "run1")
    git(repo, "add", "-A")
    good = try_repo(repo, home, "verify-bundles", "evidence/run1/manifest.json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "verify changed evidence bundles" in good.stdout and "Passed" in good.stdout
    inventory = try_repo(repo, home, "verify-inventory", "evidence-inventory.json")
    assert inventory.returncode == 0, inventory.stdout + inventory.stderr

    claims = repo / "evidence" / "run1" / "claims.json"
    claims.write_text(claims.read_text().replace('"value": 10.0', '"value": 9.5'))
    write_manifest(repo / "evidence" / "run1")  # a consistent bundle whose claim the receipts contradict
    register(repo, "run1")
    git(repo, "add", "-A")
    bad = try_repo(repo, home, "verify-bundles", "evidence/run1/claims.json", "evidence/run1/manifest.json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "verify: FAIL: evidence/run1" in bad.stdout + bad.stderr
