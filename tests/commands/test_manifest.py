"""`verify manifest BUNDLE [--write]`: the manifest writer (the only command that writes)."""

from __future__ import annotations

import json
import os

import pytest
from helpers import write_bundle

from verifier.core import verify_path


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_written_manifest_passes_integrity_and_is_up_to_date(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    report = verify_path(str(bundle))
    assert report.verdict == "PASS"
    assert {f.code for f in report.findings if f.check == "integrity.files"} == {"match"}
    result = run("manifest", str(bundle))
    assert result.exit_code == 0 and result.stdout == ""
    assert "up to date" in result.stderr


def test_without_write_prints_difference_exits_1_and_writes_nothing(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "plan.json").write_text((bundle / "plan.json").read_text() + " ")
    (bundle / "notes.txt").write_text("new\n")
    (bundle / "claims.json").unlink()
    before = _snapshot(bundle)
    result = run("manifest", str(bundle))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("~ plan.json:") for line in lines)
    assert any(line.startswith("+ notes.txt (4 bytes") for line in lines)
    assert "- claims.json (listed, not on disk)" in lines
    assert _snapshot(bundle) == before


def test_write_updates_only_the_manifest_and_then_verifies(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "extra").mkdir()
    (bundle / "extra" / "log.txt").write_text("hello\n")
    assert verify_path(str(bundle)).verdict == "FAIL"  # unlisted file
    before = {k: v for k, v in _snapshot(bundle).items() if k != "manifest.json"}
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 0
    assert "+ extra/log.txt (6 bytes" in result.stdout
    after = _snapshot(bundle)
    assert {k: v for k, v in after.items() if k != "manifest.json"} == before
    assert not [p for p in os.listdir(bundle) if p.startswith(".manifest.")]
    assert verify_path(str(bundle)).verdict == "PASS"
    assert run("manifest", str(bundle)).exit_code == 0


@pytest.mark.parametrize("target", ["plan.json", "../outside.txt"])
def test_refuses_symlinks_inside_or_escaping(tiny_assets, tmp_path, run, target):
    (tmp_path / "outside.txt").write_text("secret\n")
    bundle = write_bundle(tmp_path / "b")
    manifest = (bundle / "manifest.json").read_bytes()
    (bundle / "link.txt").symlink_to(target)
    for args in (("manifest", str(bundle)), ("manifest", str(bundle), "--write")):
        result = run(*args)
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and "link.txt is a symlink" in result.stderr
    assert (bundle / "manifest.json").read_bytes() == manifest


def test_refuses_a_symlinked_manifest(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "manifest.json").rename(tmp_path / "real.json")
    (bundle / "manifest.json").symlink_to(tmp_path / "real.json")
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 2 and "symlinks are refused" in result.stderr


def test_refuses_case_collisions(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "Notes.txt").write_text("a")
    (bundle / "notes.txt").write_text("b")
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 2 and "collide" in result.stderr


def test_keeps_externals_as_declared(tiny_assets, tmp_path, run):
    external = {"path": "media/out.mp4", "sha256": "ab" * 32, "size": 123, "source": "object store", "reason": "too large"}
    bundle = write_bundle(tmp_path / "b", externals=[external])
    (bundle / "plan.json").write_text((bundle / "plan.json").read_text() + "\n")
    assert run("manifest", str(bundle), "--write").exit_code == 0
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["external"] == [external]
    report = verify_path(str(bundle))
    codes = {f.code for f in report.findings}
    assert "external-not-supplied" in codes and "missing-file" not in codes
    assert report.verdict == "INCOMPLETE"


def test_refuses_a_file_that_is_also_declared_external(tiny_assets, tmp_path, run):
    external = {"path": "media/out.mp4", "sha256": "ab" * 32, "size": 1, "source": "s", "reason": "r"}
    bundle = write_bundle(tmp_path / "b", externals=[external])
    (bundle / "media").mkdir()
    (bundle / "media" / "out.mp4").write_bytes(b"x")
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 2 and "declared external" in result.stderr


def test_new_manifest_needs_a_gate(tiny_assets, tmp_path, run):
    bundle = tmp_path / "new"
    bundle.mkdir()
    (bundle / "plan.json").write_text("{}")
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 2 and "--gate" in result.stderr
    result = run("manifest", str(bundle), "--write", "--gate", "tiny-v1")
    assert result.exit_code == 0
    assert json.loads((bundle / "manifest.json").read_text())["gate"] == "tiny-v1"


def test_invalid_existing_manifest_is_refused(tiny_assets, tmp_path, run):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "manifest.json").write_text('{"format": "verify-bundle", "format": "x"}')
    result = run("manifest", str(bundle), "--write")
    assert result.exit_code == 2 and "duplicate key" in result.stderr


def test_manifest_write_refuses_a_gate_that_is_not_an_id_and_writes_a_readable_file(tmp_path, run):
    import stat

    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "a.txt").write_text("a")
    result = run("manifest", "--gate", "../../etc/passwd", "--write", str(bundle))
    assert result.exit_code == 2 and not (bundle / "manifest.json").exists()
    old = os.umask(0o022)
    try:
        assert run("manifest", "--gate", "ref2va-5s-v1", "--write", str(bundle)).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((bundle / "manifest.json").stat().st_mode) == 0o644
