"""`verify inventory REPO_ROOT`: every evidence/ bundle registered (kind, manifest sha256) and verified."""

from __future__ import annotations

import json
import shutil

from helpers import sha256, write_bundle, write_repository

from verifier.commands.repository import verify_repository


def _fails(report):
    return [f for f in report.findings if f.status == "FAIL"]


def test_sample_repository_passes(tiny_assets, tmp_path, run):
    repo = write_repository(tmp_path / "repo")
    report = verify_repository(str(repo))
    assert report.verdict == "PASS", [f.message for f in report.findings if f.status != "PASS"]
    assert {f.path for f in report.findings if f.code == "bundle-verdict"} == {"evidence/campaign-a", "evidence/pilot-b"}
    assert run("inventory", str(repo)).exit_code == 0


def test_unregistered_bundle_fails_naming_the_directory(tiny_assets, tmp_path, run):
    repo = write_repository(tmp_path / "repo", register=("campaign-a",))
    report = verify_repository(str(repo))
    assert report.verdict == "FAIL"
    [f] = _fails(report)
    assert f.code == "unregistered-bundle" and f.path == "evidence/pilot-b" and "evidence/pilot-b" in f.message
    result = run("inventory", str(repo))
    assert result.exit_code == 1 and "evidence/pilot-b is not registered" in result.stdout


def test_registered_but_absent_bundle_fails_naming_the_directory(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo")
    shutil.rmtree(repo / "evidence" / "pilot-b")
    [f] = _fails(verify_repository(str(repo)))
    assert f.code == "registered-absent" and "evidence/pilot-b" in f.message and f.pointer == "/bundles/pilot-b"


def test_changed_manifest_digest_fails_naming_the_directory(tiny_assets, tmp_path, run):
    repo = write_repository(tmp_path / "repo")
    bundle = repo / "evidence" / "campaign-a"
    (bundle / "notes.txt").write_text("added later\n")
    assert run("manifest", str(bundle), "--write").exit_code == 0  # bundle stays valid, its digest moves
    report = verify_repository(str(repo))
    [f] = _fails(report)
    assert f.code == "manifest-digest-changed" and "evidence/campaign-a/manifest.json" in f.message
    assert f.observed == sha256(bundle / "manifest.json")


def test_a_bundle_that_does_not_verify_fails_the_repository(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo")
    (repo / "evidence" / "pilot-b" / "plan.json").write_text("{}")
    report = verify_repository(str(repo))
    assert report.verdict == "FAIL"
    verdicts = {f.path: f.status for f in report.findings if f.code == "bundle-verdict"}
    assert verdicts == {"evidence/campaign-a": "PASS", "evidence/pilot-b": "FAIL"}
    assert any(f.code == "size-mismatch" and f.path == "evidence/pilot-b/plan.json" for f in report.findings)


def test_externals_stay_external_not_missing(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo", names=("campaign-a",))
    payload = b"weights"
    import hashlib

    ext = {"path": "weights/alex.pth", "sha256": hashlib.sha256(payload).hexdigest(), "size": len(payload),
           "source": "torch hub", "reason": "not redistributable"}
    shutil.rmtree(repo / "evidence" / "campaign-a")
    write_bundle(repo / "evidence" / "campaign-a", externals=[ext])
    inventory = json.loads((repo / "evidence-inventory.json").read_text())
    inventory["bundles"]["campaign-a"]["manifest_sha256"] = sha256(repo / "evidence" / "campaign-a" / "manifest.json")
    (repo / "evidence-inventory.json").write_text(json.dumps(inventory))
    report = verify_repository(str(repo))
    codes = {f.code for f in report.findings}
    assert "missing-file" not in codes and "external-not-supplied" in codes
    assert report.verdict == "INCOMPLETE"
    supplied = tmp_path / "artifacts" / "campaign-a" / "weights"
    supplied.mkdir(parents=True)
    (supplied / "alex.pth").write_bytes(payload)
    assert verify_repository(str(repo), artifacts=str(tmp_path / "artifacts")).verdict == "PASS"


def test_missing_inventory_and_stray_entries_fail(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo", names=("campaign-a",))
    (repo / "evidence-inventory.json").unlink()
    (repo / "evidence" / "README.md").write_text("hi")
    codes = sorted(f.code for f in _fails(verify_repository(str(repo))))
    assert codes == ["no-inventory", "unclassified-entry", "unregistered-bundle"]


def test_invalid_inventory_fails_with_pointer(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo", names=("campaign-a",))
    inventory = json.loads((repo / "evidence-inventory.json").read_text())
    del inventory["bundles"]["campaign-a"]["kind"]
    (repo / "evidence-inventory.json").write_text(json.dumps(inventory))
    fails = _fails(verify_repository(str(repo)))
    assert any(f.code == "inventory-schema" and f.pointer == "/bundles/campaign-a" for f in fails)


def test_no_evidence_folder_is_one_line_exit_2(tmp_path, run):
    result = run("inventory", str(tmp_path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "no evidence/ folder" in result.stderr


def test_repository_report_renders_everywhere_with_repo_relative_paths(tiny_assets, tmp_path, monkeypatch):
    from test_reporters import assert_valid_everywhere

    repo = write_repository(tmp_path / "repo", register=("campaign-a",))
    monkeypatch.chdir(tmp_path)  # GitHub annotations name files relative to where verify runs (a workflow's checkout), never absolutely
    report = verify_repository(str(repo))
    out = assert_valid_everywhere(report)
    assert "::error file=repo/evidence/pilot-b/manifest.json," in out["github"]  # a bundle folder's finding sits on its manifest
    assert f"file={tmp_path}" not in out["github"]


def _listing_sha256(bundle):
    """The registration digest computed as docs/ci.md tells a user to: sha256sum of every file, sorted, hashed again."""
    import hashlib

    files = sorted(p.relative_to(bundle).as_posix().encode() for p in bundle.rglob("*") if p.is_file())
    listing = b"".join(hashlib.sha256((bundle / f.decode()).read_bytes()).hexdigest().encode() + b"  " + f + b"\n"
                       for f in files)
    return hashlib.sha256(listing).hexdigest()


def test_a_bundle_without_a_manifest_registers_by_its_file_listing(tmp_path, run):
    """A real hyperfine export keeps no digest manifest; it is registered by files_sha256 (newcomer defect)."""
    from conftest import CORPUS

    repo = tmp_path / "repo"
    hf = repo / "evidence" / "hyperfine"
    shutil.copytree(CORPUS / "hyperfine-3em", hf)
    (repo / "evidence-inventory.json").write_text(json.dumps(
        {"format": "verify-evidence-inventory", "format_version": 1, "bundles": {}}))
    [f] = _fails(verify_repository(str(repo)))
    assert f.code == "unregistered-bundle" and f.observed == {"files_sha256": _listing_sha256(hf)}
    inventory = json.loads((repo / "evidence-inventory.json").read_text())
    inventory["bundles"]["hyperfine"] = {"kind": "microbenchmark", "files_sha256": _listing_sha256(hf)}
    (repo / "evidence-inventory.json").write_text(json.dumps(inventory))
    report = verify_repository(str(repo))
    assert not _fails(report) and report.verdict == "INCOMPLETE"  # registered; the bundle itself has no digest manifest
    assert any(f.code == "registered" and f.observed.get("files_sha256") for f in report.findings)
    assert run("inventory", str(repo)).exit_code == 3
    results = hf / "tools" / "benchmarks" / "results.json"
    results.chmod(0o644)
    results.write_bytes(results.read_bytes().replace(b"0.", b"1.", 1))
    [f] = [f for f in _fails(verify_repository(str(repo))) if f.check == "inventory.registered"]
    assert f.code == "files-digest-changed" and "evidence/hyperfine" in f.message


def test_a_file_listing_registration_refuses_symlinks_and_both_digests(tiny_assets, tmp_path):
    repo = write_repository(tmp_path / "repo", ("campaign-a",))
    inventory = json.loads((repo / "evidence-inventory.json").read_text())
    entry = inventory["bundles"]["campaign-a"]
    entry["files_sha256"] = _listing_sha256(repo / "evidence" / "campaign-a")
    (repo / "evidence-inventory.json").write_text(json.dumps(inventory))
    codes = {f.code for f in _fails(verify_repository(str(repo)))}
    assert "inventory-schema" in codes  # exactly one of manifest_sha256 and files_sha256
    del entry["manifest_sha256"]
    (repo / "evidence-inventory.json").write_text(json.dumps(inventory))
    assert not _fails(verify_repository(str(repo)))
    (repo / "evidence" / "campaign-a" / "link").symlink_to("plan.json")
    [f] = [f for f in _fails(verify_repository(str(repo))) if f.check == "inventory.registered"]
    assert f.code == "unhashable-bundle" and "campaign-a/link is a symlink" in f.message
