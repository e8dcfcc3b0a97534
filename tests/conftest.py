"""Shared fixtures: paths to `../shared`, a CLI runner, and the example bundle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EXAMPLE = ROOT / "examples" / "ref2va-5s"


@pytest.fixture
def run():
    """Return a function running the CLI with args; returns the click Result (exit code, stdout, stderr)."""
    from verifier.cli import main

    def _run(*args: str):
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    return _run


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """Return a writable copy of the shipped example bundle."""
    dest = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, dest, symlinks=True)
    return dest


@pytest.fixture
def tiny_assets(tmp_path_factory, monkeypatch):
    """Make the verifier use a pinned asset root that also ships the `tiny-v1` test gate; return that root."""
    from helpers import make_assets

    from verifier import trust

    root = make_assets(tmp_path_factory.mktemp("assets"))
    monkeypatch.setattr(trust, "_default_root", lambda: root)
    trust.assets.cache_clear()
    yield root
    trust.assets.cache_clear()
