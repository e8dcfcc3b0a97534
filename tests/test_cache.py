"""
The warm re-verify cache (`verifier.cache`, docs/cache.md).

What must hold: an unchanged file is not hashed again, any change (even with
its mtime restored) is; a run with an empty cache reports exactly what a run
without one does, and a warm run only adds `cached` markers; the cache lives
under XDG_CACHE_HOME, never in the bundle; it is off under CI unless asked
for; a cache directory or entry another user could write is not used.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from verifier import cache as cache_mod
from verifier.cache import Cache, digest_of, enabled


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "verify-evidence" / "v1"


def _old_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _fresh(root: Path) -> Cache:
    """Open the cache as a new run would (entries written by an earlier Cache count as from the cache)."""
    cache, reason = Cache.open(root)
    assert reason is None and cache is not None
    return cache


def test_enabled_by_default_off_under_ci_and_flags_win():
    assert enabled(None, {}) is True
    assert enabled(None, {"CI": "true"}) is False and enabled(None, {"CI": "1"}) is False
    assert enabled(True, {"CI": "true"}) is True  # --cache under CI
    assert enabled(False, {}) is False  # --no-cache


def test_cache_root_follows_xdg_cache_home(tmp_path):
    assert cache_mod.cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "verify-evidence" / "v1"


def test_an_unchanged_file_is_not_hashed_again(root, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    f = _old_file(tmp_path / "media.bin", b"x" * 100_000)
    size, digest, hit = digest_of(f, _fresh(root))
    assert (size, hit) == (100_000, False)
    monkeypatch.setattr(cache_mod.hashlib, "file_digest", lambda *a, **k: pytest.fail("hashed again"))
    assert digest_of(f, _fresh(root)) == (size, digest, True)


def test_changed_bytes_with_the_mtime_restored_are_hashed_again(root, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    f = _old_file(tmp_path / "media.bin", b"a" * 4096)
    st = f.stat()
    _, first, _ = digest_of(f, _fresh(root))
    time.sleep(0.05)  # past the kernel's timestamp tick, so the write gets a new ctime
    f.write_bytes(b"b" * 4096)  # same size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime restored: only ctime says it changed
    assert f.stat().st_mtime_ns == st.st_mtime_ns and f.stat().st_ctime_ns != st.st_ctime_ns
    size, second, hit = digest_of(f, _fresh(root))
    assert not hit and second != first and size == 4096
    assert second == cache_mod.hashlib.sha256(b"b" * 4096).hexdigest()


def test_a_file_modified_within_the_racy_window_is_not_remembered(root, tmp_path):
    f = _old_file(tmp_path / "new.bin", b"fresh")  # ctime is now: within RACY_NS of the hashing
    digest_of(f, _fresh(root))
    assert not digest_of(f, _fresh(root))[2]
    assert not any((root / "digests").rglob("*")) or not [p for p in (root / "digests").rglob("*") if p.is_file()]


def test_a_file_that_changed_while_being_read_is_not_remembered(root, tmp_path):
    f = _old_file(tmp_path / "f.bin", b"data")
    before = f.stat()
    f.write_bytes(b"more data")
    assert _fresh(root).store_digest(before, f.stat(), "0" * 64, time.time_ns() + 10 * cache_mod.RACY_NS) is False


def test_a_cache_directory_others_can_write_is_not_used(root, monkeypatch):
    _fresh(root)
    os.chmod(root / "results", 0o777)
    cache, reason = Cache.open(root)
    assert cache is None and "writable by group or others" in reason
    os.chmod(root / "results", 0o700)
    monkeypatch.setattr(os, "getuid", lambda: 12345)
    cache, reason = Cache.open(root)
    assert cache is None and "not by you" in reason


def test_an_entry_others_can_write_or_a_symlinked_entry_is_ignored(root, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    f = _old_file(tmp_path / "media.bin", b"z" * 1000)
    digest_of(f, _fresh(root))
    [entry] = [p for p in (root / "digests").rglob("*") if p.is_file()]
    os.chmod(entry, 0o666)
    assert digest_of(f, _fresh(root))[2] is False  # ignored (and rewritten 0600)
    [entry] = [p for p in (root / "digests").rglob("*") if p.is_file()]
    assert (entry.stat().st_mode & 0o777) == 0o600
    target = tmp_path / "elsewhere"
    entry.rename(target)
    entry.symlink_to(target)
    assert digest_of(f, _fresh(root))[2] is False


def test_a_torn_or_foreign_entry_is_a_miss(root, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    f = _old_file(tmp_path / "media.bin", b"q" * 1000)
    _, digest, _ = digest_of(f, _fresh(root))
    [entry] = [p for p in (root / "digests").rglob("*") if p.is_file()]
    entry.write_bytes(entry.read_bytes()[:10])
    assert digest_of(f, _fresh(root)) == (1000, digest, False)
    key = json.dumps([1, 2, 3])
    c = _fresh(root)
    c.store_result(key, {"v": 1.5})
    assert c.result(key) == ({"v": 1.5}, False)  # written by this run: not reported as from the cache
    assert _fresh(root).result(key) == ({"v": 1.5}, True) and _fresh(root).result(key + " ") is None
    c.store_result("nan", float("nan"))  # not plain JSON: silently not stored
    assert _fresh(root).result("nan") is None


# --- the CLI, on the example ---------------------------------------------------------------

def _findings(text: str) -> list[dict]:
    return json.loads(text)["findings"]


def test_warm_re_verify_reports_what_it_reused_and_nothing_else_changes(run, example_copy, tmp_path, monkeypatch):
    pytest.importorskip("av")
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    monkeypatch.setenv("CI", "true")  # off by default here: --cache asks for it
    before = sorted(p.relative_to(example_copy) for p in example_copy.rglob("*"))
    plain = run(str(example_copy), "-f", "json")
    assert '"cached"' not in plain.stdout and not (Path(os.environ["XDG_CACHE_HOME"]) / "verify-evidence").exists()
    cold = run(str(example_copy), "--cache", "-f", "json")
    warm = run(str(example_copy), "--cache", "-f", "json")
    assert plain.exit_code == cold.exit_code == warm.exit_code == 0
    assert cold.stdout == plain.stdout  # an empty cache changes nothing
    warm_findings = _findings(warm.stdout)
    reused = [f for f in warm_findings if f.pop("cached", None)]
    assert {f["code"] for f in reused} == {"match", "rescore-match", "unchanged"}
    assert sum(f["code"] == "rescore-match" for f in reused) == 28
    assert warm_findings == _findings(plain.stdout)  # apart from the markers, identical
    assert sorted(p.relative_to(example_copy) for p in example_copy.rglob("*")) == before  # nothing written in the bundle
    assert any((Path(os.environ["XDG_CACHE_HOME"]) / "verify-evidence" / "v1" / "results").rglob("*"))
    text = run(str(example_copy), "--cache", "-v")
    assert "(cached score)" in text.stdout and "cache: " in text.stdout and "28 finding(s) reused a cached score" in text.stdout
    assert '"cached"' not in run(str(example_copy), "--no-cache", "-f", "json").stdout


def test_warm_report_validates_against_the_report_schema(run, example_copy, monkeypatch):
    pytest.importorskip("av")
    from verifier.trust import assets, schema_validator

    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    run(str(example_copy), "--cache")
    warm = json.loads(run(str(example_copy), "--cache", "-f", "json").stdout)
    assert any("cached" in f for f in warm["findings"])
    assert list(schema_validator(assets().schema("report")).iter_errors(warm)) == []


def test_a_media_file_changed_after_a_warm_run_is_hashed_and_scored_again(run, example_copy, monkeypatch):
    pytest.importorskip("av")
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    run(str(example_copy), "--cache")
    media = example_copy / "media" / "A1-m1.mp4"
    st = media.stat()
    time.sleep(0.05)
    data = bytearray(media.read_bytes())
    data[-5] ^= 0xFF  # same size; the manifest's sha256 no longer matches
    media.write_bytes(bytes(data))
    os.utime(media, ns=(st.st_atime_ns, st.st_mtime_ns))
    warm = run(str(example_copy), "--cache", "-f", "json")
    assert warm.exit_code == 1
    bad = [f for f in _findings(warm.stdout) if f["path"] == "media/A1-m1.mp4" and f["check"] == "integrity.files"]
    assert [(f["code"], f.get("cached")) for f in bad] == [("sha256-mismatch", None)]
