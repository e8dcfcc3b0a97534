"""
The whole-report fast path (`verifier.fastpath`, docs/cache.md "Whole-report replay").

What must hold: a run whose every input is unchanged replays the stored
report (every finding marked `cached: report`, otherwise equal to the full
run's) without importing the verification machinery; a touched, added,
removed or renamed bundle file, a changed gate, another option, `--no-cache`
or CI each miss and run in full; nothing racy or changed during the run is
stored; nothing is written into the bundle.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier import fastpath

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "examples" / "ref2va-5s"
LATER = 10**19  # a start time far after every file's ctime: not racy (tests do not wait out RACY_NS)


@pytest.fixture
def setup(tmp_path: Path, monkeypatch):
    """Return `(bundle, assets, env)`: a small bundle, an asset root with one gate, and an environment with its own cache."""
    bundle = tmp_path / "bundle"
    (bundle / "media").mkdir(parents=True)
    (bundle / "manifest.json").write_text("{}")
    (bundle / "media" / "a.mp4").write_bytes(b"a" * 100)
    assets = tmp_path / "assets"
    (assets / "gates").mkdir(parents=True)
    (assets / "gates" / "g.json").write_text('{"id": "g"}')
    (assets / "inventory.json").write_text("{}")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    monkeypatch.chdir(tmp_path)
    return bundle, assets, env


def _stored(argv, env, assets, text="report\n"):
    """Fingerprint a run of `argv`, store `text` as its report, and return whether it was stored."""
    fastpath.begin(argv, env, started_ns=LATER, asset_roots=(str(assets),))
    return fastpath.store(text, "verify: PASS: bundle\n", 0, env, asset_roots=(str(assets),))


def _replay(argv, env, assets):
    return fastpath.replay(argv, env, asset_roots=(str(assets),))


def _bump(path: Path) -> None:
    """Touch `path` so its mtime and ctime change (a new nanosecond stamp even on a coarse clock)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_an_unchanged_run_replays_the_stored_report(setup):
    bundle, assets, env = setup
    assert _replay(["bundle"], env, assets) is None
    assert _stored(["bundle"], env, assets)
    assert _replay(["bundle"], env, assets) == ("report\n", "verify: PASS: bundle\n", 0)
    assert _replay(["check", "bundle"], env, assets) is None  # other arguments, even if equivalent: a miss


@pytest.mark.parametrize("change", ["touch", "add", "remove", "rename", "rewrite-same-size", "add-directory"])
def test_any_change_to_the_bundle_misses(setup, change):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    assert _replay(["bundle"], env, assets) is not None
    media = bundle / "media" / "a.mp4"
    if change == "touch":
        _bump(media)
    elif change == "add":
        (bundle / "media" / "b.mp4").write_bytes(b"")
    elif change == "remove":
        media.unlink()
    elif change == "rename":
        media.rename(bundle / "media" / "c.mp4")
    elif change == "rewrite-same-size":
        st = media.stat()
        media.write_bytes(b"b" * 100)
        os.utime(media, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime restored; the ctime still moves
    else:
        (bundle / "extra").mkdir()
    assert _replay(["bundle"], env, assets) is None


def test_a_changed_gate_misses(setup):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    (assets / "gates" / "g.json").write_text('{"id": "h"}')
    assert _replay(["bundle"], env, assets) is None


def test_an_added_gate_or_a_changed_inventory_misses(setup):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    (assets / "gates" / "h.json").write_text("{}")
    assert _replay(["bundle"], env, assets) is None
    assert _stored(["bundle"], env, assets)
    _bump(assets / "inventory.json")
    assert _replay(["bundle"], env, assets) is None


def test_the_shipped_gates_schemas_profiles_and_sources_are_fingerprinted():
    fp = fastpath.fingerprint([str(EXAMPLE)], {"XDG_CACHE_HOME": "/nonexistent"})
    paths = {p for p, _ in fp["files"]}
    for rel in ("gates/ref2va-5s-v1.json", "schemas/report.schema.json", "inventory.json", "verifier/checks/integrity.py",
                "verifier/fastpath.py"):
        assert str(ROOT / rel) in paths, rel
    assert any(p.startswith(str(ROOT / "profiles") + os.sep) for p in paths)
    assert str(EXAMPLE / "media") in paths


@pytest.mark.parametrize("argv", [["bundle", "-f", "text"], ["bundle", "--gate", "other"], ["bundle", "-v"],
                                  ["-f", "json", "bundle"], ["bundle", "--format=json"]])
def test_another_option_misses(setup, argv):
    bundle, assets, env = setup
    assert _stored(["bundle", "-f", "json"], env, assets)
    assert _replay(["bundle", "-f", "json"], env, assets) is not None
    assert _replay(argv, env, assets) is None


def test_a_changed_environment_or_working_directory_misses(setup, tmp_path, monkeypatch):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    assert _replay(["bundle"], dict(env, VERIFY_PINNED_ONLY="1"), assets) is None
    assert _replay(["bundle"], dict(env, TORCH_HOME=str(tmp_path)), assets) is None
    monkeypatch.chdir(bundle)
    assert _replay(["bundle"], env, assets) is None


def test_a_weight_file_appearing_in_the_hub_cache_misses(setup, tmp_path):
    bundle, assets, env = setup
    env = dict(env, TORCH_HOME=str(tmp_path / "torch"))
    assert _stored(["bundle"], env, assets)
    hub = tmp_path / "torch" / "hub" / "checkpoints"
    hub.mkdir(parents=True)
    assert _replay(["bundle"], env, assets) is None
    assert _stored(["bundle"], env, assets)
    (hub / "alexnet-owt-7be5be79.pth").write_bytes(b"w")
    assert _replay(["bundle"], env, assets) is None


def test_a_trust_root_appearing_above_the_bundle_misses(setup, tmp_path):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    (tmp_path / "verify.toml").write_text("")
    assert _replay(["bundle"], env, assets) is None


def test_option_trees_are_fingerprinted(setup, tmp_path):
    bundle, assets, env = setup
    text = tmp_path / "pr.md"
    text.write_text("1 s\n")
    argv = ["bundle", "--claims-text", str(text)]
    assert _stored(argv, env, assets)
    _bump(text)
    assert _replay(argv, env, assets) is None


@pytest.mark.parametrize("argv", [
    ["bundle", "--no-cache"], ["bundle", "--report", "json=out.json"], ["bundle", "-f", "github"],
    ["bundle", "--trust-ref", "HEAD"], ["bundle", "--executor", "tcp://x:1"], ["bundle", "--device", "cuda"],
    ["bundle", "--profile", "./mine.json"], ["inventory", "."], ["bundle", "--", "x"], ["bundle", "other"],
    ["bundle", "-fjson"], ["--help"], ["--version"], [],
])
def test_runs_the_fast_path_never_serves(argv):
    assert fastpath.eligible(argv, {}) is None


def test_ci_turns_it_off_unless_asked_for():
    assert fastpath.eligible(["bundle"], {"CI": "true"}) is None
    assert fastpath.eligible(["bundle", "--cache"], {"CI": "true"}) == {"path": "bundle", "trees": []}
    assert fastpath.eligible(["bundle", "--cache", "--no-cache"], {}) is None


def test_the_commands_it_knows_are_the_clis():
    from verifier.cli import main

    assert sorted(main.commands) == sorted(fastpath.COMMANDS)


def test_nothing_racy_and_nothing_changed_during_the_run_is_stored(setup):
    bundle, assets, env = setup
    fastpath.begin(["bundle"], env, asset_roots=(str(assets),))  # the files were written just now: racy
    assert fastpath.pending()
    assert not fastpath.store("r", "", 0, env, asset_roots=(str(assets),))
    fastpath.begin(["bundle"], env, started_ns=LATER, asset_roots=(str(assets),))
    (bundle / "media" / "late.mp4").write_bytes(b"")  # appears while the run is going on
    assert not fastpath.store("r", "", 0, env, asset_roots=(str(assets),))
    assert _replay(["bundle"], env, assets) is None


def test_a_cache_directory_others_can_write_is_not_used(setup):
    bundle, assets, env = setup
    assert _stored(["bundle"], env, assets)
    results = Path(env["XDG_CACHE_HOME"]) / "verify-evidence" / "v1" / "results"
    results.chmod(0o777)
    assert _replay(["bundle"], env, assets) is None


# ---------------------------------------------------------------- end to end, in fresh processes


def _verify(args, env, cwd):
    return subprocess.run([sys.executable, "-m", "verifier", *args], capture_output=True, text=True, env=env, cwd=cwd)


def _strip(out: str) -> dict:
    data = json.loads(out)
    for f in data["findings"]:
        f.pop("cached", None)
    return data


def test_end_to_end_a_replay_equals_the_full_run_and_a_touch_runs_in_full(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, bundle)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(ROOT))
    time.sleep(2.1)  # past the racy window: the copy's files may be remembered
    listing = sorted((p.relative_to(bundle), p.stat().st_mtime_ns) for p in bundle.rglob("*"))
    full = _verify([str(bundle), "-f", "json"], env, tmp_path)
    assert full.returncode == 0, full.stderr
    replay = _verify([str(bundle), "-f", "json"], env, tmp_path)
    assert replay.returncode == full.returncode and replay.stderr == full.stderr
    assert _strip(replay.stdout) == _strip(full.stdout)
    assert {f.get("cached") for f in json.loads(replay.stdout)["findings"]} == {"report"}
    nocache = _verify([str(bundle), "-f", "json", "--no-cache"], env, tmp_path)
    assert "cached" not in nocache.stdout and _strip(nocache.stdout) == _strip(full.stdout)
    text_full = _verify([str(bundle)], env, tmp_path)
    text_replay = _verify([str(bundle)], env, tmp_path)
    assert "reused a cached whole report" in text_replay.stdout and text_replay.returncode == text_full.returncode
    assert text_replay.stdout.splitlines()[-1] == text_full.stdout.splitlines()[-1]  # the verdict line
    _bump(bundle / "receipts.jsonl")
    touched = _verify([str(bundle), "-f", "json"], env, tmp_path)
    assert '"report"' not in touched.stdout and _strip(touched.stdout) == _strip(full.stdout)
    assert sorted((p.relative_to(bundle), p.stat().st_mtime_ns) for p in bundle.rglob("*") if p.name != "receipts.jsonl") \
        == [x for x in listing if x[0].name != "receipts.jsonl"]  # nothing written into the bundle


def test_a_replay_imports_no_verification_machinery(tmp_path):
    """The hit path of `fastpath.main` loads neither click nor any check, reader, numpy, av or torch."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(ROOT))
    bundle = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, bundle)
    time.sleep(2.1)
    assert _verify([str(bundle), "-f", "json"], env, tmp_path).returncode == 0
    probe = ("import sys, runpy\nsys.argv = ['verify', %r, '-f', 'json']\n"
             "try:\n    runpy.run_module('verifier', run_name='__main__')\nexcept SystemExit as e:\n"
             "    sys.stderr.write('EXIT %%s MODULES %%s' %% (e.code, ' '.join(sorted(sys.modules))))\n") % str(bundle)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    modules = proc.stderr.split("MODULES ", 1)[1].split()
    assert "EXIT 0" in proc.stderr
    loaded = {m for m in modules if m.split(".")[0] in ("click", "numpy", "av", "torch", "jsonschema")
              or m.startswith(("verifier.checks", "verifier.core", "verifier.cli", "verifier.model.findings", "verifier.report"))}
    assert loaded == set()


@pytest.mark.parametrize("target", ["bundle", "claims-text", "hub-weight", "inner-link"])
def test_a_change_behind_a_symlink_misses(setup, tmp_path, target):
    """What a symlink points at is an input too: an edit behind any symlink the run follows is a miss (newcomer defect)."""
    bundle, assets, env = setup
    env = dict(env, TORCH_HOME=str(tmp_path / "torch"))
    hub = tmp_path / "torch" / "hub" / "checkpoints"
    hub.mkdir(parents=True)
    weights = tmp_path / "weights.pth"
    weights.write_bytes(b"w")
    (hub / "alexnet-owt-7be5be79.pth").symlink_to(weights)  # as model caches lay weights out
    text = tmp_path / "pr.md"
    text.write_text("1 s\n")
    (tmp_path / "pr-link.md").symlink_to(text)
    (tmp_path / "bundle-link").symlink_to(bundle)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("x")
    (bundle / "notes").symlink_to(elsewhere)
    argv = ["bundle-link", "--claims-text", "pr-link.md"]
    assert _stored(argv, env, assets)
    assert _replay(argv, env, assets) is not None
    changed = {"bundle": bundle / "media" / "a.mp4", "claims-text": text, "hub-weight": weights,
               "inner-link": elsewhere}[target]
    _bump(changed)
    assert _replay(argv, env, assets) is None


def test_a_symlink_loop_is_fingerprinted_without_running_forever(setup, tmp_path):
    bundle, assets, env = setup
    (bundle / "loop").symlink_to(bundle)
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (bundle / "ab").symlink_to(tmp_path / "a")
    assert _stored(["bundle"], env, assets)
    assert _replay(["bundle"], env, assets) is not None


def test_the_verify_process_raises_the_gc_threshold_and_the_library_does_not(monkeypatch, tmp_path):
    """Issue 40: generation-0 collections at 700 allocations cost a quarter of a 10^5-line run; only the CLI process raises it."""
    import gc

    from verifier import cli
    from verifier.core import verify_path

    before = gc.get_threshold()
    verify_path(str(tmp_path))  # an empty directory: the library leaves a caller's collector alone
    assert gc.get_threshold() == before
    seen = []
    monkeypatch.setattr(fastpath, "replay", lambda argv: None)
    monkeypatch.setattr(fastpath, "begin", lambda argv: None)
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.get_threshold()))
    monkeypatch.setattr(sys, "argv", ["verify", str(tmp_path)])
    try:
        fastpath.main()
    finally:
        gc.set_threshold(*before)
    assert seen == [(fastpath.CLI_GC_THRESHOLD0, *before[1:])] and fastpath.CLI_GC_THRESHOLD0 >= 10_000


def test_a_folder_of_too_many_files_is_not_fingerprinted_but_said_to_be_no_bundle(tmp_path, monkeypatch, capsys):
    """Issue 41: `verify /tmp` fingerprinted every file below (seconds, twice) before the folder check said "not one bundle"."""
    from verifier import cli
    from verifier.profiles import folders

    big = tmp_path / "big"
    (big / "files").mkdir(parents=True)
    for i in range(folders.MANY_FILES + 500):
        (big / "files" / f"f{i}.txt").write_text("x")
    for name in ("b1", "b2"):
        (big / name).mkdir()
        (big / name / "manifest.json").write_text("{}")
    seen = []
    entry = fastpath._entry

    def counted(path, st):
        if path.startswith(str(big)):
            seen.append(path)
        return entry(path, st)

    monkeypatch.setattr(fastpath, "_entry", counted)
    monkeypatch.setattr(cli, "report_keeper", None, raising=False)
    monkeypatch.setattr(sys, "argv", ["verify", str(big)])
    for key in ("CI", "GITHUB_ACTIONS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    gc_threshold = __import__("gc").get_threshold()
    try:
        with pytest.raises(SystemExit) as stop:
            fastpath.main()
    finally:
        __import__("gc").set_threshold(*gc_threshold)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "not one bundle" in err and "verify inventory" in err and len(err.strip().splitlines()) == 1
    assert 0 < len(seen) <= 2 * (folders.MANY_FILES + 10)  # each of two walks stops past the bound, never all 2,505 files twice
    assert fastpath.FOLDER_FILES == folders.MANY_FILES
    assert fastpath.fingerprint([str(big)], {}) is None and not fastpath.pending()
    (big / "manifest.json").write_text("{}")  # a native bundle of many files keeps its replay
    assert fastpath.fingerprint([str(big)], {}) is not None
