"""
Tests that kill surviving mutants of `verifier/checks/integrity.py` (issue 14): bundle and profile integrity.

Bundle v1: a name collision is reported at the first of its spellings; a
file that cannot be read while hashing is FAIL `unreadable-file` naming
the system error. Profiles: a format without a manifest is one UNVERIFIED
`no-manifest` (never an ERROR); a manifest that cannot be parsed is one
FAIL `manifest-unreadable`; external artifacts a profile declares are
UNVERIFIED `external-not-supplied`, one per listed artifact.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from bundlekit import rehash
from conftest import make_assets as profile_assets
from helpers import by_check, make_assets, write_bundle, write_tree

from verifier.checks import integrity
from verifier.core import verify_path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(make_assets(tmp_path_factory.mktemp("kills-integrity") / "assets"))


def test_a_name_collision_is_reported_at_its_first_spelling(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "nfc")
    (bundle / "caf\u00e9.txt").write_bytes(b"a")
    (bundle / "cafe\u0301.txt").write_bytes(b"b")
    rehash(bundle)
    (f,) = [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "name-collision"]
    assert len(f.observed) == 2 and f.path == f.observed[0]


def test_a_file_that_cannot_be_read_while_hashing_names_the_system_error(tmp_path, tiny, monkeypatch):
    bundle = write_bundle(tmp_path / "b")
    real = integrity.hash_many

    def failing(paths, **kw):
        out = real(paths, **kw)
        return {p: PermissionError(13, "Permission denied") if p.name == "plan.json" else r for p, r in out.items()}

    monkeypatch.setattr(integrity, "hash_many", failing)
    report = verify_path(str(bundle), asset_root=tiny)
    (f,) = [f for f in report.findings if f.code == "unreadable-file"]
    assert (f.status, f.path, f.message) == ("FAIL", "plan.json", "plan.json cannot be read: Permission denied")
    assert report.verdict == "FAIL"


def _profile_run(tmp_path: Path, manifest: dict, files: dict[str, str]):
    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s\n2\n", "summary.json": '{"mean": 2}', **files})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]}, "manifest": manifest,
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"},
                                            "phase": {"value": "measured"}}}}}
    report = verify_path(str(bundle), asset_root=profile_assets(tmp_path, {"run": doc}))
    assert not [f for f in report.findings if f.status == "ERROR"], [f.message for f in report.findings if f.status == "ERROR"]
    return [(f.status.value, f.code, f.pointer) for f in by_check(report, "integrity.files")]


def test_a_format_without_a_manifest_is_one_unverified_finding(tmp_path):
    assert _profile_run(tmp_path, {"kind": "none", "reason": "no digests"}, {}) == [("UNVERIFIED", "no-manifest", None)]


MAP = {"kind": "files-map", "file": "digests.json", "pointer": "/files", "sha256": "sha256", "size": "bytes",
       "missing": "fail", "unlisted": "fail", "external": [{"pointer": "/archives", "reason": "kept on the producer's machine"}]}


def _listing(archives: list[str]) -> str:
    files = {"runs/a.csv": "s\n2\n", "summary.json": '{"mean": 2}'}
    return json.dumps({"files": {rel: {"sha256": hashlib.sha256(text.encode()).hexdigest(), "bytes": len(text.encode())}
                                 for rel, text in files.items()}, "archives": archives})


def test_a_manifest_that_cannot_be_parsed_is_one_failure(tmp_path):
    assert _profile_run(tmp_path, MAP, {"digests.json": '{"files": {}, "files": {}}'}) == [("FAIL", "manifest-unreadable", None)]


def test_declared_external_artifacts_are_unverified_one_each(tmp_path):
    found = _profile_run(tmp_path, MAP, {"digests.json": _listing(["/data/run1.tar", "/data/run2.tar"])})
    assert [f for f in found if f[1] == "external-not-supplied"] == [("UNVERIFIED", "external-not-supplied", "/archives/0"),
                                                                      ("UNVERIFIED", "external-not-supplied", "/archives/1")]
    assert not [f for f in found if f[0] == "FAIL"], found


def test_a_missing_manifest_is_one_failure(tmp_path):
    assert [f for f in _profile_run(tmp_path, MAP, {}) if f[0] != "UNVERIFIED"] == [("FAIL", "manifest-missing", None)]


# --- survivors of the complete run at b2dd20d ------------------------------------------------------------------------


def test_hash_many_names_the_files_served_from_the_cache(tmp_path, monkeypatch):
    from verifier import cache as cache_mod

    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    root = tmp_path / "xdg" / "verify-evidence" / "v1"
    f = tmp_path / "a.bin"
    f.write_bytes(b"x" * 1000)
    first, reused = cache_mod.Cache.open(root)[0], set()
    integrity.hash_many([f], cache=first, from_cache=reused)
    assert reused == set()  # hashed, not reused
    again = set()
    assert integrity.hash_many([f], cache=cache_mod.Cache.open(root)[0], from_cache=again)[f][1] == hashlib.sha256(b"x" * 1000).hexdigest()
    assert again == {f}


def test_a_sha256_mismatch_names_twelve_hex_digits_of_each_digest(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    claims = bundle / "claims.json"
    claims.write_text(claims.read_text().replace("10.0", "10.5"))  # the manifest keeps the old digest
    report = verify_path(str(bundle), asset_root=tiny)
    found = by_check(report, "integrity.files", "sha256-mismatch")
    actual = hashlib.sha256(claims.read_bytes()).hexdigest()
    listed = next(e["sha256"] for e in json.loads((bundle / "manifest.json").read_text())["files"] if e["path"] == "claims.json")
    assert [f.message for f in found] == [f"claims.json sha256 {actual[:12]}... differs from manifest.json's {listed[:12]}..."]


def test_a_file_listed_both_in_the_bundle_and_as_external_is_one_finding(tmp_path, tiny):
    external = {"path": "claims.json", "sha256": "a" * 64, "size": 1, "source": "s3://bucket/claims.json",
                "reason": "too large for the repository"}
    bundle = write_bundle(tmp_path / "b")
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["external"] = [external]  # written by hand: `verify manifest` refuses to write such a manifest
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    report = verify_path(str(bundle), asset_root=tiny)
    at = [(f.status.value, f.code) for f in report.findings if f.pointer == "/external/0"]
    assert at == [("FAIL", "duplicate-entry")]  # not also matched or reported as not supplied


def test_a_scan_of_named_files_leaves_the_manifest_out(tmp_path):
    # a profile run over named files (`Tree.only`) compares them against the manifest; the manifest is never one of them
    from verifier.pipeline import Context

    ctx = Context(subject=tmp_path, assets=None)
    disk = integrity.scan(ctx, "integrity.files", tmp_path, frozenset({"a.txt", "SHA256SUMS"}), "SHA256SUMS")
    assert disk.regular == {"a.txt": "a.txt"}
