"""
Tests that kill surviving mutants of `verifier/checks/gate.py` (issue 42, cosmic-ray run of record).

`gate.pinned` on tiny bundles: a `--gate` override equal to the bundle's
own gate is accepted and a different one FAILs; the PASS message names the
gate, its version, the first 12 hex digits of its sha256 and who pinned it
(`inventory.json` for a shipped gate, the repository's trust root for a
gate of an evidence repository).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import make_assets, write_bundle
from trustkit import trusted_repository

from verifier.core import verify_path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(make_assets(tmp_path_factory.mktemp("gatekills") / "assets"))


def _gate_findings(report) -> list:
    return [f for f in report.findings if f.check == "gate.pinned"]


def test_an_override_equal_to_the_bundles_gate_passes_and_a_different_one_fails(tmp_path, tiny):
    """Kills `:36` `override != gate_id` -> `==` (the equal override would FAIL, the different one PASS)."""
    bundle = write_bundle(tmp_path / "b")
    same = _gate_findings(verify_path(str(bundle), gate_id="tiny-v1", asset_root=tiny))
    assert [(f.status.value, f.code) for f in same] == [("PASS", "pinned")]
    other = _gate_findings(verify_path(str(bundle), gate_id="ref2va-5s-v1", asset_root=tiny))
    assert [(f.status.value, f.code, f.message) for f in other] == [
        ("FAIL", "gate-override-differs", "--gate ref2va-5s-v1 was given but the bundle asks to be judged by tiny-v1")]


def test_a_shipped_gate_message_shows_12_hex_digits_and_inventory_json(tmp_path, tiny):
    """Kills `:54` `sha[:12]` -> `sha[:13]`, `sha[:11]` and `:52` `== "repository"` -> `!=` / `not (...)` (shipped side)."""
    (finding,) = _gate_findings(verify_path(str(write_bundle(tmp_path / "b")), asset_root=tiny))
    sha = finding.observed["sha256"]
    assert re.fullmatch(r"[0-9a-f]{64}", sha)
    assert finding.message == f"gate tiny-v1 v1 (sha256 {sha[:12]}...) pinned by inventory.json"
    assert re.fullmatch(r"gate tiny-v1 v1 \(sha256 [0-9a-f]{12}\.\.\.\) pinned by inventory\.json", finding.message)


def test_a_repository_gate_message_names_the_repositorys_trust_root(tmp_path: Path, run):
    """Kills `:52` `origin == "repository"` -> `!=` and `not (...)` (the repository's gate would say inventory.json)."""
    repo = trusted_repository(tmp_path / "repo")
    result = run("-f", "json", str(repo / "evidence" / "run1"))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (finding,) = [f for f in report["findings"] if f["check"] == "gate.pinned"]
    sha = json.loads((repo / "verify" / "inventory.json").read_text())["assets"]["verify/gates/team-v1.json"]
    assert finding["message"] == f"gate team-v1 v1 (sha256 {sha[:12]}...) pinned by the repository's trust root"
