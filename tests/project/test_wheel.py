"""`schemas/`, `gates/` and `inventory.json` ship as package data and work from a built wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from conftest import EXAMPLE, ROOT


def test_wheel_carries_pinned_assets_and_verifies_the_example(tmp_path):
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(out.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "verifier/_assets/inventory.json" in names
    assert "verifier/_assets/gates/ref2va-5s-v1.json" in names
    assert "verifier/_assets/schemas/report.schema.json" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = subprocess.run([sys.executable, "-c", "import verifier.trust.assets as t; print(t.assets().root)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True, timeout=60)
    assert probe.stdout.strip() == str(site / "verifier" / "_assets")
    result = subprocess.run([sys.executable, "-m", "verifier", str(EXAMPLE)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict: PASS" in result.stdout
