"""
The warm re-verify cache (`verifier.cache.warm`, docs/cache.md).

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

from verifier.cache import warm as cache_mod
from verifier.cache.warm import Cache, digest_of, enabled


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
    marks = [(f["check"], f["code"], f.pop("cached", None)) for f in warm_findings]
    reused = {(check, code, mark) for check, code, mark in marks if mark}
    assert {(check, mark) for check, _code, mark in reused} == {
        ("integrity.files", "digest"), ("integrity.unchanged", "digest"), ("quality.rescore", "score"),
        ("schema.documents", "schema"), ("coverage.streams", "coverage"), ("claims.stated", "markdown")}
    assert sum(code == "rescore-match" and mark == "score" for _check, code, mark in marks) == 28
    assert sum(mark == "coverage" for *_rest, mark in marks) == 20  # every media file's demux
    assert warm_findings == _findings(plain.stdout)  # apart from the markers, identical
    assert sorted(p.relative_to(example_copy) for p in example_copy.rglob("*")) == before  # nothing written in the bundle
    assert any((Path(os.environ["XDG_CACHE_HOME"]) / "verify-evidence" / "v1" / "results").rglob("*"))
    text = run(str(example_copy), "--cache", "-v")
    assert "(cached" not in text.stdout and "cache: " in text.stdout and "28 finding(s) reused a cached score" in text.stdout  # the footer only
    assert '"cached"' not in run(str(example_copy), "--no-cache", "-f", "json").stdout


def test_warm_report_validates_against_the_report_schema(run, example_copy, monkeypatch):
    pytest.importorskip("av")
    from verifier.trust.assets import assets, schema_validator

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


# --- what else a warm run reuses: the asset check, schema validity, demux facts, Markdown parses ---------------

def test_the_asset_check_is_reused_only_while_no_pinned_file_changes(root, tmp_path, monkeypatch):
    from helpers import make_assets

    from verifier.trust import assets as trust
    from verifier.errors import PinMismatch

    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    assets_root = make_assets(tmp_path / "assets")
    trust.Assets(assets_root, cache=_fresh(root))  # checked and remembered
    checked = []
    monkeypatch.setattr(trust.Assets, "_check_pins", lambda self, pinned: checked.append(1))
    trust.Assets(assets_root, cache=_fresh(root))
    assert checked == []  # reused: nothing hashed or compiled
    monkeypatch.undo()
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    gate = assets_root / "gates" / "tiny-v1.json"
    st = gate.stat()
    data = gate.read_bytes()
    gate.write_bytes(data.replace(b"tiny", b"tinY", 1))  # same size, mtime restored below: only ctime tells
    os.utime(gate, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(PinMismatch):
        trust.Assets(assets_root, cache=_fresh(root))


def test_a_racy_asset_is_checked_and_nothing_is_remembered(root, tmp_path):
    from helpers import make_assets

    from verifier.trust import assets as trust

    assets_root = make_assets(tmp_path / "assets")  # just written: every file is inside the 2 s window
    cache = _fresh(root)
    trust.Assets(assets_root, cache=cache)
    assert cache.stored.get("result", 0) == 0


def test_schema_validity_is_remembered_for_valid_bytes_only(root):
    from verifier.schema.validation import known_valid, note_valid

    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
    cache = _fresh(root)
    assert known_valid(cache, schema, "a" * 64) is None and known_valid(None, schema, "a" * 64) is None
    note_valid(cache, schema, "a" * 64)
    assert known_valid(cache, schema, "a" * 64) is False  # stored by this same run: not from the cache
    assert known_valid(_fresh(root), schema, "a" * 64) is True
    assert known_valid(_fresh(root), schema, "b" * 64) is None  # other bytes
    assert known_valid(_fresh(root), {**schema, "type": "array"}, "a" * 64) is None  # another schema


def test_result_keys_change_with_the_code_and_the_installed_packages(monkeypatch):
    key = cache_mod.result_key("x", 1)
    monkeypatch.setattr(cache_mod, "_CODE_DIGEST", ["0" * 64])
    assert cache_mod.result_key("x", 1) != key
    monkeypatch.setattr(cache_mod, "_ENVIRONMENT", {"digest": "1" * 64, "dists": {}})
    assert cache_mod.result_key("x", 1) not in (key,)


def test_installed_version_reads_what_importlib_metadata_reads():
    from importlib.metadata import version

    for name in ("numpy", "jsonschema", "click", "scikit-image"):
        assert cache_mod.installed_version(name) == version(name).split("+")[0]
    assert cache_mod.installed_version("no-such-distribution-here") == "not installed"


def test_demuxed_facts_read_back_from_json_judge_and_score_alike():
    pytest.importorskip("av")
    from fractions import Fraction

    from conftest import EXAMPLE

    from verifier.scoring import rescore as scoring
    from verifier.checks import coverage
    from verifier.media.demux import MediaFacts

    exp = coverage.Expectation(frames=124, fps=Fraction(24), sample_rate=32000, channels=2)
    for name in ("A1-m1.mp4", "B2-w2.mp4"):
        facts = coverage.probe(EXAMPLE / "media" / name, name, exp, coverage.DEFAULT_POLICY)
        back = MediaFacts.from_json(json.loads(json.dumps(facts.to_json())), name)
        assert back.to_json() == facts.to_json()
        assert coverage.judge(back, exp, coverage.DEFAULT_POLICY) == coverage.judge(facts, exp, coverage.DEFAULT_POLICY)
        assert scoring.exact_samples(back) == scoring.exact_samples(facts)
        assert back.audio.sha256.hexdigest() == facts.audio.sha256.hexdigest()
    short = exp.__class__(frames=100, fps=Fraction(24), sample_rate=32000, channels=2)  # a failing judgement too
    facts = coverage.probe(EXAMPLE / "media" / "A1-m1.mp4", "x", short, coverage.DEFAULT_POLICY)
    back = MediaFacts.from_json(facts.to_json(), "x")
    assert [f.code for f in coverage.judge(back, short, coverage.DEFAULT_POLICY)] == \
           [f.code for f in coverage.judge(facts, short, coverage.DEFAULT_POLICY)] != ["covered"]
    with pytest.raises((KeyError, TypeError, ValueError)):
        MediaFacts.from_json({**facts.to_json(), "video": {"index": 0}}, "x")


def test_a_changed_media_file_is_demuxed_again(run, example_copy, monkeypatch):
    pytest.importorskip("av")
    from verifier.checks import coverage

    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    run(str(example_copy), "--cache")
    demuxed = []
    original = coverage.check_file
    monkeypatch.setattr(coverage, "check_file", lambda path, name, *a, **k: demuxed.append(name) or original(path, name, *a, **k))
    run(str(example_copy), "--cache")
    assert demuxed == []  # all 20 facts from the cache
    from bundlekit import rehash

    media = example_copy / "media" / "A1-w1.mp4"
    media.write_bytes(media.read_bytes() + b"\0")  # still a valid MP4 (trailing byte), new sha256
    rehash(example_copy)
    warm = json.loads(run(str(example_copy), "--cache", "-f", "json").stdout)
    assert demuxed == ["media/A1-w1.mp4"]
    mine = [f for f in warm["findings"] if f["check"] == "coverage.streams" and f["path"] == "media/A1-w1.mp4"]
    assert mine and all("cached" not in f for f in mine)
