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
    from verifier.cache import warm as cache_mod

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
    from verifier.engine.pipeline import Context

    ctx = Context(subject=tmp_path, assets=None)
    disk = integrity.scan(ctx, tmp_path, frozenset({"a.txt", "SHA256SUMS"}), "SHA256SUMS")
    assert disk.regular == {"a.txt": "a.txt"}


# --- issue 42 (cosmic-ray): the lines the config's test files never reached, and the messages pinned whole -------------

def _integrity(findings) -> list[tuple]:
    return [(f.status.value, f.code, f.path, f.pointer, f.message) for f in findings if f.check == "integrity.files"]


def _direct(root: Path) -> list[tuple]:
    """Run `integrity.files` (bundle format v1) on `root` as the bundle pipeline does."""
    from verifier.formats.bundle import Bundle
    from verifier.engine.pipeline import Context
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    return _integrity(integrity.files(Context(subject=root, assets=TrustSet(assets(None)), bundle=Bundle(root=root), options={})))


def test_a_bundle_without_a_readable_manifest_is_one_failure_saying_why(tmp_path):
    """Kills :115 `or` -> `and`, `not is_file` -> `is_file`, :118 `not present` -> `present`, :123 `except JSONProblem` replaced,
    :132 `if errors` -> `if not errors`, :156 `manifest is None` -> `is not None`; pins the messages."""
    import os

    (tmp_path / "empty").mkdir()
    assert _direct(tmp_path / "empty") == [("FAIL", "no-evidence", "manifest.json", None, "the bundle directory is empty: no manifest, no receipts, no claims")]
    write_tree(tmp_path / "none", {"a.txt": "x", "b/c.txt": "y"})
    missing = ("FAIL", "no-manifest", "manifest.json", None, "manifest.json is missing (or not a regular file); 2 file(s) are unaccounted for")
    assert _direct(tmp_path / "none") == [missing]
    write_tree(tmp_path / "link", {"real.json": "{}", "b/c.txt": "y"})
    os.symlink("real.json", tmp_path / "link" / "manifest.json")  # a symlinked manifest is never read
    assert _direct(tmp_path / "link") == [(*missing[:4], "manifest.json is missing (or not a regular file); 3 file(s) are unaccounted for")]
    write_tree(tmp_path / "json", {"manifest.json": "{not json"})
    assert _direct(tmp_path / "json") == [("FAIL", "manifest-invalid-json", "manifest.json", None,
                                           "manifest.json: not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2")]
    write_tree(tmp_path / "schema", {"manifest.json": json.dumps({"format": "verify-manifest", "files": [{"path": 1}]})})
    found = _direct(tmp_path / "schema")
    assert {f[1] for f in found} == {"manifest-schema"} and ("FAIL", "manifest-schema", "manifest.json", "/files/0/path",
                                                              "manifest.json: 1 is not of type 'string'") in found


def test_files_that_are_never_read_are_each_named(tmp_path, tiny):
    """Kills :212 `if bad_name` -> `if not`, :215 `continue` -> `break`, :217 / :224 `==` -> `!=`, :219 the inside/outside test,
    :238 `len > 1` -> `>= 1`, `> 2` (letter case); pins every message."""
    import os

    bundle = write_bundle(tmp_path / "b")
    (bundle / "bad\nname.txt").write_bytes(b"x")
    (bundle / "A.txt").write_bytes(b"a")
    (bundle / "a.txt").write_bytes(b"b")
    os.mkfifo(bundle / "fifo")
    os.symlink("plan.json", bundle / "in-link")
    os.symlink("/etc/passwd", bundle / "out-link")
    rehash(bundle)
    found = [f for f in _integrity(verify_path(str(bundle), asset_root=tiny).findings) if f[0] == "FAIL"]
    assert found == [
        ("FAIL", "unsafe-path", "manifest.json", "/files/2/path", "manifest.json lists 'bad\\nname.txt': control character in the name; it is not read"),
        ("FAIL", "unsafe-name", None, None, "'bad\\nname.txt': control character in the name; such a file is not read"),
        ("FAIL", "special-file", "fifo", None, "fifo is not a regular file"),
        ("FAIL", "symlink", "in-link", None, "in-link is a symlink to 'plan.json' (inside the bundle); symlinks are never followed"),
        ("FAIL", "symlink-escape", "out-link", None, "out-link is a symlink to '/etc/passwd' (outside the bundle); symlinks are never followed"),
        ("FAIL", "name-collision", "A.txt", None, "files differ only in letter case: ['A.txt', 'a.txt']; they collide on case-insensitive file systems")]


def test_a_v1_bundle_names_each_missing_unlisted_and_resized_file_and_matches_the_rest(tmp_path, tiny):
    """Kills :274 `in` -> `not in` / :276 `continue` -> `break`, :278 `== "fail"` -> `!=`, :287 `== "fail"` -> `!=`, :309 `is not None` ->
    `is None`, `and` -> `or`, `!=` -> `==`, :313 `!=` -> `==`; pins the messages."""
    bundle = write_bundle(tmp_path / "b")
    (bundle / "claims.json").write_text((bundle / "claims.json").read_text() + " ")
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"] = [e for e in manifest["files"] if e["path"] != "plan.json"] + [{"path": "gone.txt", "sha256": "a" * 64, "size": 3}]
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    found = _integrity(verify_path(str(bundle), asset_root=tiny).findings)
    assert found == [
        ("FAIL", "missing-file", "gone.txt", "/files/2", "gone.txt is listed in manifest.json but not in the bundle"),
        ("FAIL", "unlisted-file", "plan.json", None, "plan.json is in the bundle but not listed in manifest.json"),
        ("FAIL", "size-mismatch", "claims.json", "/files/0", "claims.json has 307 bytes, manifest.json says 306"),
        ("PASS", "match", "receipts.jsonl", "/files/1", "receipts.jsonl matches manifest.json (512 bytes)")]


def test_an_unreadable_file_does_not_stop_the_files_after_it(tmp_path, tiny, monkeypatch):
    """Kills :306 `continue` -> `break` (claims.json unreadable, the files after it still matched) and :303 `isinstance` -> `not`."""
    bundle = write_bundle(tmp_path / "b")
    real = integrity.hash_many

    def failing(paths, **kw):
        return {p: PermissionError(13, "Permission denied") if p.name == "claims.json" else r for p, r in real(paths, **kw).items()}

    monkeypatch.setattr(integrity, "hash_many", failing)
    found = _integrity(verify_path(str(bundle), asset_root=tiny).findings)
    assert [f[:3] for f in found] == [("FAIL", "unreadable-file", "claims.json"), ("PASS", "match", "plan.json"), ("PASS", "match", "receipts.jsonl")]


class _Progress:
    def __init__(self):
        self.calls: list[tuple] = []

    def start(self, text, total):
        self.calls.append(("start", text, total))

    def advance(self, n):
        self.calls.append(("advance", n))

    def finish(self):
        self.calls.append(("finish",))


def test_hash_many_hashes_the_largest_first_reporting_progress_and_returns_an_unreadable_path_as_its_error(tmp_path):
    """Kills :64 `-_size` -> `+_size`, :66 / :86 `progress is not None` -> `is None`, :78 `except OSError` replaced, :85 the size advanced,
    :94 `except OSError` replaced (the size of a path that is not there is 0)."""
    big, small, gone = tmp_path / "big", tmp_path / "small", tmp_path / "gone"
    big.write_bytes(b"x" * 1000)
    small.write_bytes(b"y" * 10)
    progress = _Progress()
    out = integrity.hash_many([small, gone, big], workers=1, progress=progress)
    assert out[big] == (1000, hashlib.sha256(b"x" * 1000).hexdigest()) and out[small] == (10, hashlib.sha256(b"y" * 10).hexdigest())
    assert isinstance(out[gone], FileNotFoundError)
    assert progress.calls == [("start", "hashing 3 file(s)", 1010), ("advance", 1000), ("advance", 10), ("advance", 0), ("finish",)]
    assert integrity._size(gone) == 0
    link = tmp_path / "link"
    link.symlink_to(big)
    assert integrity._size(link) == len(str(big))  # the link itself (lstat), never the file it points to (:93 follow_symlinks)


def test_hash_many_keeps_the_bytes_of_the_documents_asked_for(tmp_path):
    """Kills :71 `keep is not None and p in keep` -> `or`, `in` -> `not in`."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"aaa")
    b.write_bytes(b"bb")
    keep = {a: b""}
    out = integrity.hash_many([a, b], keep=keep)
    assert keep == {a: b"aaa"} and out[b] == (2, hashlib.sha256(b"bb").hexdigest())
    assert integrity.hash_many([a], keep=None)[a][0] == 3


def test_files_read_again_are_each_judged_unchanged_or_changed(tmp_path):
    """Kills :541 `or` -> `and`, `!=` -> `==`, `isinstance` -> `not`, :546 `not changed` -> `changed`; pins the messages."""
    from verifier.engine.pipeline import Context, RunData
    from verifier.readers.tree import Tree

    (tmp_path / "a.txt").write_bytes(b"a")
    (tmp_path / "b.txt").write_bytes(b"b")
    good = hashlib.sha256(b"a").hexdigest()

    def run(matched):
        ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), run=RunData(matched=matched))
        return [(f.status.value, f.code, f.path, f.message, f.expected) for f in integrity.unchanged(ctx)]

    assert run({"a.txt": ("a.txt", good)}) == [("PASS", "unchanged", None, "1 file(s) read again by later checks still match their sha256", None)]
    said = "no longer has the sha256 it had when verification started; findings on it cannot be trusted"
    assert run({"a.txt": ("a.txt", good), "b.txt": ("b.txt", good), "c.txt": ("c.txt", good)}) == [
        ("FAIL", "changed-during-verification", "b.txt", f"b.txt {said}", good), ("FAIL", "changed-during-verification", "c.txt", f"c.txt {said}", good)]
    ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), run=RunData(matched={"b.txt": ("b.txt", good), "c.txt": ("c.txt", good)}))
    b, c = integrity.unchanged(ctx)
    assert b.observed == hashlib.sha256(b"b").hexdigest() and c.observed.startswith("[Errno 2] No such file or directory")  # :545 what is there now


MAP_ONLY = {k: v for k, v in MAP.items() if k != "external"}
FILES = {"runs/a.csv": "s\n2\n", "summary.json": '{"mean": 2}'}


def _run_full(tmp_path: Path, manifest: dict, files: dict[str, str], artifacts: str | None = None) -> list[tuple]:
    bundle = write_tree(tmp_path / "run", {**FILES, **files})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]}, "manifest": manifest,
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"},
                                            "phase": {"value": "measured"}}}}}
    return _integrity(verify_path(str(bundle), asset_root=profile_assets(tmp_path, {"run": doc}), artifacts=artifacts).findings)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


SUMS = "".join(f"{_sha(text)}  {rel}\n" for rel, text in FILES.items())


def test_a_sha256sums_manifest_is_read_as_text_and_its_gaps_follow_the_profile(tmp_path):
    """Kills :399 `== "sha256sums"` -> `!=`, :278 / :287 `== "fail"` -> `!=` (missing and unlisted files UNVERIFIED where the profile says so),
    :389 `== "none"` -> `!=`; pins the messages."""
    sums = {"kind": "sha256sums", "file": "SHA256SUMS", "missing": "fail", "unlisted": "fail"}
    assert _run_full(tmp_path, sums, {"SHA256SUMS": SUMS}) == [
        ("PASS", "match", "runs/a.csv", "#line=1", "runs/a.csv matches SHA256SUMS (4 bytes)"),
        ("PASS", "match", "summary.json", "#line=2", "summary.json matches SHA256SUMS (11 bytes)")]
    loose = {**sums, "missing": "unverified", "missing_reason": "published elsewhere", "unlisted": "unverified"}
    assert _run_full(tmp_path / "loose", loose, {"SHA256SUMS": SUMS + f"{'b' * 64}  gone.bin\n", "extra.txt": "x"})[:2] == [
        ("UNVERIFIED", "external-not-supplied", "gone.bin", "#line=3",
         "gone.bin is listed in SHA256SUMS but not in this copy (published elsewhere); not supplied (use --artifacts DIR), so it is neither missing nor verified"),
        ("UNVERIFIED", "no-published-digest", "extra.txt", None, "extra.txt has no digest in SHA256SUMS, so its contents are not integrity-verified")]


def test_externals_declared_without_a_manifest_are_each_unverified(tmp_path):
    """Kills :432 `name is None` -> `is not None` and :435 `continue` -> `break`."""
    none = {"kind": "none", "reason": "no digests", "external": [{"pointer": "/a", "reason": "r1"}, {"pointer": "/b", "reason": "r2"}]}
    assert _run_full(tmp_path, none, {}) == [
        ("UNVERIFIED", "no-manifest", None, None, "this format has no integrity manifest (no digests); file contents cannot be checked against digests"),
        ("UNVERIFIED", "external-not-supplied", None, "/a", "external artifacts (r1) are declared but not supplied"),
        ("UNVERIFIED", "external-not-supplied", None, "/b", "external artifacts (r2) are declared but not supplied")]


EXT = {"pointer": "/ext", "reason": "kept elsewhere", "path": "p", "sha256": "h", "size": "n", "reason_member": "why"}


def test_digested_externals_are_matched_against_the_supplied_artifacts(tmp_path):
    """
    Kills :441 / :444 / :461 / :488 / :494 `continue` -> `break`, :438 `except` replaced, :442 `in` -> `not in`, :458 each `or` -> `and` and `not`
    dropped, :463 `and` -> `or` (an empty reason member), :485 `if reason`, :491 `in` -> `not in`, :351 `or` -> `and`, :353 the FIFO and the
    directory, :358 a listed size that differs, :365 a digest that differs; pins the messages.
    """
    import os

    art = tmp_path / "art"
    art.mkdir()
    (art / "w.bin").write_text("weights")
    os.mkfifo(art / "f.bin")
    (art / "d.bin").mkdir()
    good = _sha("weights")
    entries = [{"p": "w.bin", "h": good, "n": 7, "why": "too big"}, {"p": "w.bin", "h": good, "n": 8}, {"p": "w.bin", "h": "a" * 64, "n": 7},
               {"p": "f.bin", "h": "a" * 64, "n": 1, "why": ""}, {"p": "d.bin", "h": "a" * 64, "n": 1}, {"h": "a" * 64, "n": 1},
               {"p": "y", "h": 5, "n": 1}, {"p": "y", "h": "a" * 64, "n": "1"}, {"p": "y", "h": "a" * 64, "n": True}, "str",
               {"p": "../up", "h": "a" * 64, "n": 1}, {"p": "summary.json", "h": "a" * 64, "n": 1}, {"p": "x.bin", "h": "a" * 64, "n": 1}]
    listing = {"files": {rel: {"sha256": _sha(text), "bytes": len(text)} for rel, text in FILES.items()}, "ext": entries, "plain": ["one.tar", "two.tar"]}
    manifest = {**MAP_ONLY, "external": [EXT, {"pointer": "/nothing", "reason": "r"}, {"pointer": "/plain", "reason": "rp"}]}
    lacks = "lacks a path (p), a sha256 (h) or an integer size (n)"
    assert _run_full(tmp_path, manifest, {"digests.json": json.dumps(listing)}, artifacts=str(art))[2:] == [
        *[("FAIL", "manifest-entry", "digests.json", f"/ext/{i}", f"external entry {i} of digests.json {lacks}") for i in range(5, 10)],
        ("PASS", "external-match", "w.bin", "/ext/0", "external w.bin supplied and matches"),
        ("FAIL", "external-mismatch", "w.bin", "/ext/1", f"external w.bin supplied under {art} has 7 bytes, the manifest says 8"),
        ("FAIL", "external-mismatch", "w.bin", "/ext/2", f"external w.bin supplied under {art} does not match the manifest"),
        ("UNVERIFIED", "external-not-supplied", "f.bin", "/ext/3", f"f.bin is external (kept elsewhere); {art}/f.bin is not a regular file "
                                                                    "(a FIFO, device or socket is never read), so it is neither missing nor verified"),
        ("UNVERIFIED", "external-not-supplied", "d.bin", "/ext/4", f"d.bin is external (kept elsewhere); not found at {art}/d.bin, so it is neither missing nor verified"),
        ("FAIL", "unsafe-path", "digests.json", "/ext/10/path", "digests.json external '../up': '..' component leaves the bundle"),
        ("FAIL", "duplicate-entry", "digests.json", "/ext/11", "summary.json is listed both as a bundle file and as external"),
        ("UNVERIFIED", "external-not-supplied", "x.bin", "/ext/12", f"x.bin is external (kept elsewhere); not found at {art}/x.bin, so it is neither missing nor verified"),
        ("FAIL", "external-list-missing", "digests.json", "/nothing", "digests.json has no external list at /nothing"),
        ("UNVERIFIED", "external-not-supplied", "digests.json", "/plain/0", "external artifact one.tar (rp) is not supplied and digests.json records no digest for it"),
        ("UNVERIFIED", "external-not-supplied", "digests.json", "/plain/1", "external artifact two.tar (rp) is not supplied and digests.json records no digest for it")]


def test_an_external_not_supplied_gives_the_reason_its_entry_states(tmp_path):
    """Kills :462 `"reason_member" in item` -> `not in` and :350 / :352 (no --artifacts: not supplied)."""
    listing = {"files": {rel: {"sha256": _sha(text), "bytes": len(text)} for rel, text in FILES.items()},
               "ext": [{"p": "w.bin", "h": "a" * 64, "n": 7, "why": "too big"}]}
    assert _run_full(tmp_path, {**MAP_ONLY, "external": [EXT]}, {"digests.json": json.dumps(listing)})[2:] == [
        ("UNVERIFIED", "external-not-supplied", "w.bin", "/ext/0", "w.bin is external (too big); not supplied (use --artifacts DIR), so it is neither missing nor verified")]


def test_the_documents_are_kept_as_the_bytes_hashed_and_other_files_are_not(tmp_path):
    """Kills :293 `key in keep` -> `not in`, :319 `disk_path in kept` -> `not in`, :162 `if e.get("role")` -> `if not` (a retained attempt is kept),
    :166 the loop recording each match (a loop over nothing)."""
    from verifier.formats.bundle import Bundle
    from verifier.engine.pipeline import Context
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    bundle = write_bundle(tmp_path / "b")
    (bundle / "notes.txt").write_text("x")
    (bundle / "attempts").mkdir()
    (bundle / "attempts" / "r.jsonl").write_text("{}\n")
    rehash(bundle)
    manifest = json.loads((bundle / "manifest.json").read_text())
    next(e for e in manifest["files"] if e["path"] == "attempts/r.jsonl")["role"] = "rejected-attempt"
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    ctx = Context(subject=bundle, assets=TrustSet(assets(None)), bundle=Bundle(root=bundle), options={})
    assert {f.code for f in integrity.files(ctx)} == {"match"}
    assert sorted(ctx.bundle.contents) == ["attempts/r.jsonl", "claims.json", "plan.json"]  # receipts.jsonl is streamed (Bundle.records)
    assert sorted(ctx.bundle.verified) == ["attempts/r.jsonl", "claims.json", "notes.txt", "plan.json", "receipts.jsonl"]  # :166 every match recorded
    assert ctx.bundle.digests["notes.txt"] == hashlib.sha256(b"x").hexdigest()
    assert ctx.bundle.contents["claims.json"] == (bundle / "claims.json").read_bytes()


def test_a_listed_symlink_is_reported_once_and_the_entries_after_it_are_still_matched(tmp_path, tiny):
    """Kills :273 `continue` -> `break` (a listed name already reported as a symlink is skipped, not the end of the listing)."""
    import os

    bundle = write_bundle(tmp_path / "b")
    os.symlink("plan.json", bundle / "in-link")
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"].insert(0, {"path": "in-link", "sha256": "a" * 64, "size": 1})
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    assert [f[:3] for f in _integrity(verify_path(str(bundle), asset_root=tiny).findings)] == [
        ("FAIL", "symlink", "in-link"), ("PASS", "match", "claims.json"), ("PASS", "match", "plan.json"), ("PASS", "match", "receipts.jsonl")]


def test_a_listed_name_refused_as_unsafe_is_not_also_unlisted(tmp_path, tiny):
    """Kills :284 `p[0] == "unsafe-path"` -> `!=` (a backslash is a safe file name on disk, but no manifest path)."""
    bundle = write_bundle(tmp_path / "b")
    (bundle / "a\\b.txt").write_text("x")
    rehash(bundle)
    assert [f for f in _integrity(verify_path(str(bundle), asset_root=tiny).findings) if f[0] != "PASS"] == [
        ("FAIL", "unsafe-path", "manifest.json", "/files/0/path", "manifest.json lists 'a\\\\b.txt': backslash in path (paths are POSIX, '/'-separated); it is not read")]


def test_a_digest_served_from_the_cache_is_marked_cached(tmp_path, tiny, monkeypatch):
    """Kills :322 `"digest" if disk_path in reused` -> `not in` (notes.txt and the streamed receipts.jsonl are hashed through the cache; JSON documents are read whole)."""
    from verifier.cache import warm as cache_mod

    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    bundle = write_bundle(tmp_path / "b")
    (bundle / "notes.txt").write_text("x")
    rehash(bundle)
    root = tmp_path / "xdg"
    verify_path(str(bundle), asset_root=tiny, cache=cache_mod.Cache.open(root)[0])
    again = verify_path(str(bundle), asset_root=tiny, cache=cache_mod.Cache.open(root)[0])
    assert [(f.path, f.cached) for f in again.findings if f.code == "match"] == [
        ("claims.json", None), ("notes.txt", "digest"), ("plan.json", None), ("receipts.jsonl", "digest")]


def test_a_supplied_external_that_cannot_be_read_is_a_failure_naming_it(tmp_path, monkeypatch):
    """Kills :362 `except OSError` replaced (the error of reading a supplied artifact is a finding, not a crash)."""
    art = tmp_path / "art"
    art.mkdir()
    (art / "w.bin").write_text("weights")

    def refuse(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(integrity, "hash_file", refuse)
    listing = {"files": {rel: {"sha256": _sha(text), "bytes": len(text)} for rel, text in FILES.items()},
               "ext": [{"p": "w.bin", "h": _sha("weights"), "n": 7}]}
    found = _run_full(tmp_path, {**MAP_ONLY, "external": [EXT]}, {"digests.json": json.dumps(listing)}, artifacts=str(art))
    assert found[-1] == ("FAIL", "unreadable-file", "w.bin", "/ext/0", f"external w.bin under {art} cannot be read: [Errno 13] Permission denied")


def test_a_malformed_line_naming_a_file_leaves_that_file_unlisted(tmp_path):
    """Kills :284 `"unsafe-path" and isinstance(...)` -> `or` (only a refused unsafe path is exempt from `unlisted-file`, not a malformed line)."""
    sums = {"kind": "sha256sums", "file": "SHA256SUMS", "missing": "fail", "unlisted": "fail"}
    assert [f for f in _run_full(tmp_path, sums, {"SHA256SUMS": SUMS + "extra.txt\n", "extra.txt": "x"}) if f[0] != "PASS"] == [
        ("FAIL", "manifest-entry", "SHA256SUMS", "#line=3", "line 3 is not `<sha256>  <path>`"),
        ("FAIL", "unlisted-file", "extra.txt", None, "extra.txt is in the bundle but not listed in SHA256SUMS")]


def test_files_read_again_without_a_cache_are_not_marked_cached(tmp_path):
    """Kills :549 `"digest" if reused` -> `if not reused`."""
    from verifier.engine.pipeline import Context, RunData
    from verifier.readers.tree import Tree

    (tmp_path / "a.txt").write_bytes(b"a")
    ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), run=RunData(matched={"a.txt": ("a.txt", hashlib.sha256(b"a").hexdigest())}))
    assert [(f.code, f.cached) for f in integrity.unchanged(ctx)] == [("unchanged", None)]


def test_a_manifest_or_directory_that_cannot_be_read_is_a_failure_naming_the_error(tmp_path, tiny, monkeypatch):
    """Kills :125 `except OSError` replaced and :126 `strerror or exc` -> `and`; :204 the unreadable directories (a loop over nothing).
    (Run as root, no mode makes a file unreadable: the reads are made to fail.)"""
    from verifier.formats.bundle import Bundle
    from verifier.engine.pipeline import Context
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    bundle = write_bundle(tmp_path / "b")

    class Locked(Bundle):
        def raw_document(self, kind):
            raise PermissionError(13, "Permission denied")

    ctx = Context(subject=bundle, assets=TrustSet(assets(None)), bundle=Locked(root=bundle), options={})
    assert _integrity(integrity.files(ctx)) == [("FAIL", "manifest-unreadable", "manifest.json", None, "manifest.json cannot be read (Permission denied)")]
    real = integrity.walk_safely
    monkeypatch.setattr(integrity, "walk_safely", lambda root: (real(root)[0], [("locked", "Permission denied")]))
    found = _integrity(verify_path(str(bundle), asset_root=tiny).findings)
    assert found[0] == ("FAIL", "unreadable-file", "locked", None, "directory locked cannot be listed (Permission denied); its files cannot be checked")


def test_a_document_larger_than_256_mib_is_refused_naming_the_limit(tmp_path):
    """Kills `DOCUMENT_LIMIT = 256 << 20` with either number moved by one (a sparse file of 257 MiB: refused, the limit named in bytes)."""
    big = tmp_path / "claims.json"
    with open(big, "wb") as handle:
        handle.truncate(257 << 20)  # sparse: no disk space used
    result = integrity.hash_many([big], keep={big: b""})[big]
    assert isinstance(result, OSError) and str(result) == "larger than 268435456 bytes, the limit for a document"


def test_a_manifest_or_external_list_that_cannot_be_read_is_named(tmp_path, monkeypatch):
    """Kills :400 `except` with OSError or UnicodeDecodeError replaced, :438 `except` with OSError or JSONProblem replaced."""
    sums = {"kind": "sha256sums", "file": "SHA256SUMS", "missing": "fail", "unlisted": "fail"}
    bad = tmp_path / "utf8"
    bundle = write_tree(bad / "run", {**FILES})
    (bundle / "SHA256SUMS").write_bytes(b"\xff\xfe  runs/a.csv\n")
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]}, "manifest": sums,
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}}}
    found = _integrity(verify_path(str(bundle), asset_root=profile_assets(bad, {"run": doc})).findings)
    assert found == [("FAIL", "manifest-unreadable", "SHA256SUMS", None, "SHA256SUMS: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")]
    listing = json.dumps({"files": {rel: {"sha256": _sha(text), "bytes": len(text)} for rel, text in FILES.items()}})
    external = [{"file": "gone.json", "pointer": "/ext", "reason": "r"}, {"file": "bad.json", "pointer": "/ext", "reason": "r"}]
    found = _run_full(tmp_path / "ext", {**MAP_ONLY, "external": external}, {"digests.json": listing, "bad.json": "{not json"})
    assert [f for f in found if f[0] != "PASS"] == [
        ("FAIL", "unlisted-file", "bad.json", None, "bad.json is in the bundle but not listed in digests.json"),
        ("FAIL", "external-list-missing", "gone.json", "/ext", "gone.json has no external list at /ext"),
        ("FAIL", "external-list-missing", "bad.json", "/ext", "bad.json has no external list at /ext")]
    from verifier.readers.tree import Tree

    real = Tree.json

    def locked(self, rel):
        if rel == "digests.json":
            raise PermissionError(13, "Permission denied")
        return real(self, rel)

    monkeypatch.setattr(Tree, "json", locked)  # (run as root, no mode makes a file unreadable)
    assert _run_full(tmp_path / "locked", MAP_ONLY, {"digests.json": listing}) == [
        ("FAIL", "manifest-unreadable", "digests.json", None, "digests.json: [Errno 13] Permission denied")]


def test_the_names_of_a_lookup_are_keyword_only():
    """Kills `*` -> `/` in `match_supplied`'s signature (the message parts and the listing's name are passed by keyword, never by position)."""
    import pytest

    from verifier.engine.pipeline import Context

    ctx = Context(subject=Path("."), assets=None)
    with pytest.raises(TypeError):
        integrity.match_supplied(ctx, "k", {"sha256": "a" * 64, "size": None}, {"path": "k"}, "absent", "listing")  # type: ignore[misc]


def test_a_profile_manifest_leaves_what_later_checks_read(tmp_path):
    """Kills :406 the loop over the listed names (a loop over nothing); pins the blocked files and the matches later checks read
    (derivation.digests, coverage.streams, integrity.unchanged)."""
    from verifier.engine.pipeline import Context
    from verifier.readers.tree import Tree

    text = {"runs/a.csv": "s\n2\n", "runs/b.csv": "s\n2\n", "summary.json": '{"mean": 2}'}
    bundle = write_tree(tmp_path / "run", {**text, "digests.json": json.dumps(
        {"files": {rel: {"sha256": _sha(t), "bytes": len(t)} for rel, t in text.items()} | {"summary.json": {"sha256": "a" * 64, "bytes": 11}}})})
    spec = {**MAP_ONLY}
    ctx = Context(subject=bundle, assets=None, bundle=Tree(bundle), options={"profile": {"id": "run", "manifest": spec}})
    assert [(f.status.value, f.code, f.path) for f in integrity.files(ctx)] == [
        ("PASS", "match", "runs/a.csv"), ("PASS", "match", "runs/b.csv"), ("FAIL", "sha256-mismatch", "summary.json")]
    twice = _sha("s\n2\n")
    assert ctx.run.listed_names == {twice: ["runs/a.csv", "runs/b.csv"], "a" * 64: ["summary.json"]}
    assert ctx.run.listed_digests == {twice, "a" * 64}
    assert sorted(ctx.run.matched) == ["runs/a.csv", "runs/b.csv"]
    assert ctx.bundle.blocked == {"summary.json": "its sha256 differs from the manifest's"}


def test_files_whose_names_collide_after_nfc_are_never_read(tmp_path, tiny):
    """Kills :234 the loop dropping each colliding spelling (a loop over nothing: one of them would be hashed and judged)."""
    bundle = write_bundle(tmp_path / "nfc")
    (bundle / "caf\u00e9.txt").write_bytes(b"a")
    (bundle / "cafe\u0301.txt").write_bytes(b"b")
    rehash(bundle)
    found = [(f[0], f[1], f[2]) for f in _integrity(verify_path(str(bundle), asset_root=tiny).findings) if "caf" in str(f[2]) or "caf" in f[4]]
    assert [f[1] for f in found] == ["duplicate-entry", "name-collision"], found


def test_a_bundle_re_hashes_only_the_files_later_checks_opened(tmp_path):
    """Kills `bundle.touched` -> `bundle.verified` in `unchanged` (issue 36, one body): a bundle's documents are parsed from the
    hashed bytes, so only the files a check opened from disk (`Bundle.path_of`) are hashed again; one changed but never opened is not."""
    from verifier.formats.bundle import Bundle
    from verifier.engine.pipeline import Context

    (tmp_path / "a.mp4").write_bytes(b"a")
    (tmp_path / "plan.json").write_bytes(b"changed since it was hashed")
    bundle = Bundle(root=tmp_path, verified={"a.mp4": "a.mp4", "plan.json": "plan.json"},
                    digests={"a.mp4": hashlib.sha256(b"a").hexdigest(), "plan.json": hashlib.sha256(b"{}").hexdigest()})
    assert bundle.path_of("a.mp4") == tmp_path / "a.mp4"
    found = [(f.status.value, f.code, f.message) for f in integrity.unchanged(Context(subject=tmp_path, assets=None, bundle=bundle))]
    assert found == [("PASS", "unchanged", "1 file(s) read again by later checks still match their sha256")]
