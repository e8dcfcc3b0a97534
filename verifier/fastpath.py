"""
The whole-report fast path: replay a stored report when every input of a `verify PATH` run is unchanged.

`main()` is the `verify` entry point (and `python -m verifier`). Before click,
the checks, numpy, PyAV, jsonschema or torch are imported, it takes the
run's *fingerprint* (`fingerprint`) and looks it up in the cache directory
(`verifier.cache.cachefs`, kind `report`). On a hit it prints the stored report,
the stored verdict line on stderr, and exits with the stored exit code. On a
miss it runs the command line as usual (`verifier.cli`, with
`cli.report_keeper` set to `keep_report`); after a `check` run the CLI calls
`keep_report`, whose `store` takes the fingerprint again and stores the
report only when nothing changed during the run and nothing is "racily
clean" (see below). The rules are stated in `docs/cache.md`.

The fingerprint of a run (a JSON value; the entry's key is its canonical
JSON, and the whole fingerprint is compared again on a hit) holds:

- the arguments exactly as given, the working directory, the environment
  variables that can change a report (`_ENV`), whether stdout is a terminal
  and its encoding, the number of CPUs;
- the verifier version, `sys.version`, `sys.executable`, `sys.path` and the
  names of every installed distribution's metadata directory (the
  installed-packages digest of `verifier.cache.warm.environment_digest`);
- `lstat` identities `(type, st_dev, st_ino, st_size, st_mtime_ns,
  st_ctime_ns)` (and a symlink's target text, then whatever the symlink
  resolves to, listed the same way) of every entry, recursively, of: the
  bundle (or receipt file), the `--artifacts` and `--weights-dir` trees and
  the `--claims-text` file; the verifier's own package (its sources);
  `schemas/`, `gates/`, `profiles/` and `inventory.json` of both places the
  shipped assets can come from (the source checkout, `verifier/_assets`);
  the torch hub checkpoint directory (scorer weights are searched there);
- for each directory from the bundle up to the first one with a `.git`
  entry (where the trust root search of `verifier.trust.trustroot.find_repository`
  stops at the latest) or the file system root, the identity (or absence) of
  its `verify.toml`, `pyproject.toml` and `.git`. A run judged by a
  repository trust root is never stored (its files are not listed here).

Any difference, including a file added, removed, renamed or touched, is a
different fingerprint, so a miss: the full run. Runs that are never stored
or replayed (`eligible` returns None): a command other than `check`; the
cache off (`--no-cache`, or `CI=true` without `--cache`); `--report`,
`-f github` (they write files), `--trust-ref` (a git ref can move),
`--executor`, `--device cuda`, `--profile FILE`, `--help`, `--version`, `--`
or any argument this parser does not know (spelled differently from
`--name value`, `--name=value` or `-f value`); and (`fingerprint` returns
None) a directory without a `manifest.json` holding more than `FOLDER_FILES`
files, whose walk stops there (the run is exit 2 at `folders.not_one_bundle`
unless a profile reads the folder).

Standard library only: nothing here may import the verification machinery
(a warm run's whole cost is this module and the interpreter's start-up).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from typing import Any

from verifier import __version__
from verifier.cache.cachefs import (
    RACY_NS,
    cache_root,
    distributions,
    enabled,
    prepare,
    read_entry,
    write_entry,
)

__all__ = ["COMMANDS", "KIND", "begin", "eligible", "fingerprint", "main", "pending", "replay", "store"]

KIND = "report"
#: The subcommands of `verify` (`verifier.cli.main`): a first argument naming one is not a bundle path.
COMMANDS = ("changed", "check", "gate", "init", "inventory", "manifest", "media", "pin", "profile", "schema", "score")

#: `verify check` options that take a value, and how the value is an input: "value" (in the arguments only),
#: "tree" (a path whose every entry is fingerprinted), "profile" (a pinned id; a file is refused).
_VALUE_OPTIONS = {"-f": "format", "--format": "format", "--gate": "value", "--profile": "profile",
                  "--weights-dir": "tree", "--device": "device", "--claims-text": "tree", "--artifacts": "tree"}
_FLAGS = {"-v", "--verbose", "--cache", "--no-cache"}
#: Environment variables that can change what a run reports (CI switches, colour, where weights are searched,
#: torch's thread counts that are part of a scorer's identity, the cache location itself).
_ENV = ("CI", "GITHUB_ACTIONS", "VERIFY_PINNED_ONLY", "NO_COLOR", "TORCH_HOME", "XDG_CACHE_HOME", "HOME", "PYTHONPATH",
        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
_ASSETS = ("schemas", "gates", "profiles", "inventory.json")
_TRUST_MARKERS = ("verify.toml", "pyproject.toml", ".git")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
#: A directory without a `manifest.json` holding more files than this is not fingerprinted (no replay, nothing stored):
#: `verifier.profiles.folders.MANY_FILES`, past which `not_one_bundle` makes the run a usage error unless a profile reads it.
FOLDER_FILES = 2000

#: The fingerprint taken by `main` before a full run, for `store`: (argv, fingerprint, started_ns).
_PENDING: list[tuple[list[str], Any, int]] = []


def eligible(argv: list[str], env: dict[str, str]) -> dict[str, Any] | None:
    """
    Return `{"path", "trees", "cache"}` for a `verify [check] PATH ...` run the fast path may serve, else None.

    `path` is the bundle or receipt path, `trees` the other paths whose
    entries are inputs (`--artifacts`, `--weights-dir`, `--claims-text`).
    None for every run listed as refused in the module docstring.
    """
    args = list(argv)
    if args and args[0] == "check":
        args = args[1:]
    elif args and args[0] in COMMANDS:
        return None
    setting: bool | None = None
    path: str | None = None
    trees: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _FLAGS:
            if arg in ("--cache", "--no-cache"):
                setting = arg == "--cache"
            i += 1
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _VALUE_OPTIONS:
            if not eq:
                if i + 1 >= len(args):
                    return None
                value = args[i + 1]
                i += 1
            role = _VALUE_OPTIONS[name]
            if (role == "format" and value == "github") or (role == "device" and value != "cpu"):
                return None
            if role == "profile" and (value.endswith(".json") or "/" in value or os.sep in value):
                return None  # an unpinned profile file (trustroot.is_profile_file)
            if role == "tree":
                trees.append(value)
            i += 1
            continue
        if arg.startswith("-") or path is not None:
            return None  # unknown, refused, or a second positional argument
        path = arg
        i += 1
    if path is None or not enabled(setting, env):
        return None
    return {"path": path, "trees": trees}


def _entry(path: str, st: os.stat_result) -> list[Any]:
    mode = stat.S_IFMT(st.st_mode)
    out: list[Any] = [mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    if stat.S_ISLNK(st.st_mode):
        out.append(os.readlink(path))
    return out


class _NotOneBundle(Exception):
    """A bundle walk passed `FOLDER_FILES` files in a directory without a `manifest.json` (`fingerprint` gives up)."""


def _tree(path: str, out: list[Any], skip: tuple[str, ...] = (), _followed: set[str] | None = None,
          budget: list[int] | None = None) -> None:
    """
    Append `[path, identity]` of `path` and, for a directory, of every entry below it (sorted).

    `budget`, when given, is `[n]`: the walk lowers `n` for each entry that is
    not a directory and raises `_NotOneBundle` once it goes below zero.

    A symlink is listed as itself (its `lstat` identity and target text) and
    then, once per resolved target (so a loop ends), whatever it resolves to
    is listed the same way: a run reads through a symlink given as the bundle,
    the `--claims-text` file or a weight in the hub cache, so what it points
    at is an input too.
    """
    followed = set() if _followed is None else _followed
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        out.append([path, None])
        return
    out.append([path, _entry(path, st)])
    if budget is not None and not stat.S_ISDIR(st.st_mode):
        budget[0] -= 1
        if budget[0] < 0:
            raise _NotOneBundle(path)
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(path)
        if target not in followed:
            followed.add(target)
            _tree(target, out, skip, followed, budget)
    elif stat.S_ISDIR(st.st_mode):
        with os.scandir(path) as entries:
            names = sorted(e.name for e in entries)
        for name in names:
            if name not in skip:
                _tree(os.path.join(path, name), out, skip, followed, budget)


def _trust_markers(start: str, out: list[Any]) -> None:
    """Append the identity (or absence) of the trust-root markers of each directory up from `start` to where `find_repository` stops."""
    here = os.path.realpath(start)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        for marker in _TRUST_MARKERS:
            candidate = os.path.join(here, marker)
            try:
                out.append([candidate, _entry(candidate, os.lstat(candidate))])
            except FileNotFoundError:
                out.append([candidate, None])
        parent = os.path.dirname(here)
        if out[-1][1] is not None or parent == here:  # a `.git` entry: the search stops there at the latest
            return
        here = parent


def _hub_checkpoints(env: dict[str, str]) -> str:
    home = env.get("TORCH_HOME")
    if not home:
        home = os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "torch")
    return os.path.join(home, "hub", "checkpoints")


def fingerprint(argv: list[str], env: dict[str, str], *, package: str = _PACKAGE,
                asset_roots: tuple[str, ...] | None = None) -> Any:
    """
    Return the fingerprint of a run of `argv` under `env` in the current directory (a JSON value), or None when not `eligible`
    or when the path is a directory without a `manifest.json` holding more than `FOLDER_FILES` files (its walk stops there).

    `package` is the verifier's package directory and `asset_roots` the
    directories holding `schemas/`, `gates/`, `profiles/` and
    `inventory.json` (default: the source checkout above the package and
    `verifier/_assets`); tests point them elsewhere. Raises `OSError` when a
    listed directory cannot be read.
    """
    run = eligible(argv, env)
    if run is None:
        return None
    roots = asset_roots if asset_roots is not None else (os.path.dirname(package), os.path.join(package, "_assets"))
    files: list[Any] = []
    path = run["path"]
    if os.path.isdir(path) and not os.path.lexists(os.path.join(path, "manifest.json")):
        try:  # a folder of more files than `folders.not_one_bundle` allows: the run stops at that check (exit 2)
            _tree(path, files, budget=[FOLDER_FILES])
        except _NotOneBundle:
            return None
    else:
        _tree(path, files)
    for tree in run["trees"]:
        _tree(tree, files)
    _tree(package, files, skip=("__pycache__", "_assets"))
    for root in roots:
        for name in _ASSETS:
            _tree(os.path.join(root, name), files)
    _tree(_hub_checkpoints(env), files)
    _trust_markers(run["path"], files)
    stdout = sys.stdout
    return {
        "argv": list(argv), "cwd": os.getcwd(), "env": {k: env.get(k) for k in _ENV},
        "stdout": [bool(stdout is not None and stdout.isatty()), getattr(stdout, "encoding", None), getattr(stdout, "errors", None)],
        "cpus": os.cpu_count(), "version": __version__, "python": [sys.version, sys.executable, [os.path.abspath(p or ".") for p in sys.path]],
        "distributions": sorted(p.name for p in distributions().values()), "files": files,
    }


def _key(fp: Any) -> str:
    return hashlib.sha256(json.dumps(fp, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _usable_root(env: dict[str, str], create: bool = False) -> Any:
    root = cache_root(env)
    return root if prepare(root, create) is None else None


def replay(argv: list[str], env: dict[str, str] | None = None, **where: Any) -> tuple[str, str, int] | None:
    """
    Return the stored `(stdout, stderr, exit_code)` of a run whose fingerprint equals this run's, or None (a miss).

    Never raises for an unreadable input: an `OSError` while taking the
    fingerprint is a miss. `where` passes `package`/`asset_roots` to `fingerprint`.
    """
    env = dict(os.environ) if env is None else env
    try:
        fp = fingerprint(argv, env, **where)
    except OSError:
        return None
    if fp is None:
        return None
    root = _usable_root(env)
    if root is None:
        return None
    value = read_entry(root, KIND, _key(fp))
    if (not isinstance(value, dict) or value.get("fingerprint") != fp or not isinstance(value.get("stdout"), str)
            or not isinstance(value.get("stderr"), str) or type(value.get("exit_code")) is not int):
        return None
    return value["stdout"], value["stderr"], value["exit_code"]


def _racy(fp: Any, started_ns: int) -> bool:
    """Return whether any fingerprinted entry changed less than `RACY_NS` before `started_ns` (its identity could repeat)."""
    return any(ident is not None and max(ident[4], ident[5]) > started_ns - RACY_NS for _, ident in fp["files"])


def begin(argv: list[str], env: dict[str, str] | None = None, *, started_ns: int | None = None, **where: Any) -> None:
    """
    Take the fingerprint of the run about to start (for `store` after it); nothing when the run is not eligible.

    `started_ns` is the run's start (`time.time_ns()` by default) against
    which `store` judges racy entries; tests pass a later time rather than
    wait out `RACY_NS`.
    """
    env = dict(os.environ) if env is None else env
    _PENDING.clear()
    started = time.time_ns() if started_ns is None else started_ns
    try:
        fp = fingerprint(argv, env, **where)
    except OSError:
        return
    if fp is not None:
        _PENDING.append((list(argv), fp, started))


def store(stdout: str, stderr: str, exit_code: int, env: dict[str, str] | None = None, **where: Any) -> bool:
    """
    Store the rendered report of the run `begin` fingerprinted; return whether it was stored.

    Stored only when `begin` took a fingerprint, the fingerprint taken now is
    the same (nothing changed during the run), no fingerprinted entry is
    younger than `RACY_NS` at the start of the run, and the cache directory
    is usable. `stdout` must already carry the `cached: report` markers (what
    a replay shows).
    """
    if not _PENDING:
        return False
    argv, before, started = _PENDING.pop()
    env = dict(os.environ) if env is None else env
    try:
        after = fingerprint(argv, env, **where)
    except OSError:
        return False
    if after != before or _racy(before, started):
        return False
    root = _usable_root(env, create=True)
    if root is None:
        return False
    return write_entry(root, KIND, _key(before), {"fingerprint": before, "stdout": stdout, "stderr": stderr,
                                                   "exit_code": int(exit_code)})


def pending() -> bool:
    """Return whether `begin` fingerprinted the current run (so `store` may keep its report)."""
    return bool(_PENDING)


def keep_report(report: Any, fmt: str, verbose: bool) -> None:
    """
    Store what a replay of this run prints: `report` (a `verifier.model.findings.Report`) rendered as `fmt`, every finding marked `cached: report`.

    Only for a run `begin` fingerprinted before it started (so not under
    `--no-cache`, `--report`, ...), and never for a report with an ERROR
    finding (a broken environment must be seen again, not replayed).
    """
    from dataclasses import replace

    from verifier.model.findings import Status
    from verifier.report import render
    from verifier.report._common import visible

    if not pending() or any(f.status is Status.ERROR for f in report.findings):
        return
    marked = replace(report, findings=tuple(replace(f, cached="report") for f in report.findings))
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    store(render(marked, fmt, verbose=verbose, color=color),
          f"verify: {report.verdict}: {visible(report.subject)}\n", int(report.exit_code))


#: errno values of an output that cannot take the report (a full disk or quota, a file too large, an I/O error).
_NO_ROOM = ("ENOSPC", "EDQUOT", "EFBIG", "EIO")


def main() -> None:
    """
    The `verify` entry point: replay a stored report when every input is unchanged, else run `verifier.cli`.

    An output that cannot take the report (`_NO_ROOM`) is one line on stderr
    and exit 2, never a traceback: stdout is pointed at the null device first,
    so the interpreter's last flush cannot fail again.
    """
    import errno

    try:
        _main()
    except OSError as exc:
        if exc.errno not in {getattr(errno, name, None) for name in _NO_ROOM}:
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.stderr.write(f"verify: error: cannot write the output: {exc.strerror}\n")
        sys.exit(2)


def _main() -> None:
    argv = sys.argv[1:]
    hit = replay(argv)
    if hit is not None:
        out, err, code = hit
        sys.stdout.write(out)
        sys.stdout.flush()
        sys.stderr.write(err)
        sys.exit(code)
    begin(argv)
    from verifier import cli

    cli.report_keeper = keep_report
    gc_for_one_run()
    cli.main()


#: Allocations between generation-0 collections in the `verify` process (CPython's default is 700).
CLI_GC_THRESHOLD0 = 100_000


def gc_for_one_run() -> None:
    """
    Raise the cyclic collector's generation-0 threshold to `CLI_GC_THRESHOLD0` for the rest of this process.

    Thresholds are process-wide, so only the `verify` entry point calls this,
    never the library (`verify_path` leaves a caller's collector alone). At the
    default 700 a run over 10^5 receipt lines spends about a quarter of its CPU
    in collections that find nothing: its objects live until the report is
    written. Cycles are still collected, in batches of up to 10^5 allocations.
    Figures: `benchmarks/README.md` (`bench_receipts.py`, issue 40).
    """
    import gc

    gc.set_threshold(CLI_GC_THRESHOLD0, *gc.get_threshold()[1:])
