"""Shared fixtures: paths to `../shared`, a CLI runner, and the example bundle."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EXAMPLE = ROOT / "examples" / "ref2va-5s"

# The tests mirror the package's folders (tests/checks/ for verifier/checks/, ...). A test module is imported by its
# file name (no __init__.py), and some import another's builders (`from test_roster import ...`) wherever it lives.
sys.path[1:1] = [str(d) for d in sorted(Path(__file__).resolve().parent.iterdir()) if d.is_dir() and any(d.glob("test_*.py"))]


def pytest_configure(config):
    """Stop with one line (exit 4) when `../shared` is absent, instead of an import error per test module that reads it."""
    if not (SHARED / "corpus").is_dir() or not (SHARED / "seeds").is_dir():
        raise pytest.UsageError(f"the tests read the seeds and corpus of ../shared, and {SHARED} holds no seeds/ and corpus/: "
                                "clone the project next to the shared/ directory (README, 'Set up and run the tests')")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Give every test its own empty warm re-verify cache (`verifier.cache.warm`), never the user's ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    for name in ("CI", "GITHUB_ACTIONS", "VERIFY_PINNED_ONLY"):  # a CI service's own settings must not change what a test sees
        monkeypatch.delenv(name, raising=False)


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

    from verifier.trust import assets as trust

    root = make_assets(tmp_path_factory.mktemp("assets"))
    monkeypatch.setattr(trust, "_default_root", lambda: root)
    trust.assets.cache_clear()
    yield root
    trust.assets.cache_clear()


CORPUS = SHARED / "corpus"


def profile_document(profile_id: str) -> dict:
    """Return a shipped profile as a plain dict (to derive test variants from)."""
    import json

    return json.loads((ROOT / "profiles" / f"{profile_id}.json").read_text())


def make_assets(tmp_path: Path, profiles: dict[str, dict], *, keep_shipped: bool = False) -> str:
    """
    Return an asset root under `tmp_path` with our schemas and gates plus `profiles` (id -> document), freshly pinned.

    The shipped profiles are left out unless `keep_shipped`, so detection sees only the given ones.
    """
    import json

    from verifier.trust.assets import write_inventory

    root = tmp_path / "assets"
    shutil.copytree(ROOT / "schemas", root / "schemas")
    shutil.copytree(ROOT / "gates", root / "gates")
    if keep_shipped:
        shutil.copytree(ROOT / "profiles", root / "profiles")
    (root / "profiles").mkdir(exist_ok=True)
    for pid, doc in profiles.items():
        (root / "profiles" / f"{pid}.json").write_text(json.dumps(doc, indent=2))
    shutil.copy(ROOT / "inventory.json", root / "inventory.json")
    write_inventory(root)
    return str(root)


def copy_bundle(name: str, tmp_path: Path) -> Path:
    """Return a writable copy of corpus bundle `name` under `tmp_path` (tests never write to the corpus)."""
    dest = tmp_path / name
    shutil.copytree(CORPUS / name, dest)
    return dest


def repin_files_map(bundle: Path, *rels: str) -> None:
    """Update the sha256 and bytes of `rels` in a files-map `manifest.json` (a producer re-publishing after an edit)."""
    import hashlib
    import json

    manifest = json.loads((bundle / "manifest.json").read_text())
    for rel in rels:
        data = (bundle / rel).read_bytes()
        manifest["files"][rel]["sha256"] = hashlib.sha256(data).hexdigest()
        manifest["files"][rel]["bytes"] = len(data)
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))


def pytest_terminal_summary(terminalreporter):
    """Print how the LPIPS tests ended, so a CI log shows they ran rather than skipped (issue 15)."""
    counts = {outcome: sum(1 for r in terminalreporter.stats.get(outcome, [])
                           if getattr(r, "nodeid", "").startswith("tests/scorers/test_lpips.py"))
              for outcome in ("passed", "failed", "error", "skipped")}
    if any(counts.values()):
        terminalreporter.write_line("LPIPS tests (tests/scorers/test_lpips.py): " + ", ".join(f"{n} {k}" for k, n in counts.items()))
