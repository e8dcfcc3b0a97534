"""
The cache directory and its entries, with the standard library only (no verifier module is imported).

Shared by `verifier.cache.warm` (digests and results) and `verifier.fastpath`
(the whole-report replay, which must run before any heavy import). The rules
are those of `docs/cache.md`: the directory is
`$XDG_CACHE_HOME/verify-evidence/v1`; it and each level below
`verify-evidence` must be a real directory owned by the user and not
writable by group or others; an entry is a JSON object `{kind, key, value}`
written 0600 through a fresh temporary name and an atomic rename, and read
without following symlinks, only when it is a regular file owned by the user
with no group/other permission bit. A torn or foreign entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from verifier.formats.jsonio import check_depth

__all__ = ["LAYOUT", "RACY_NS", "cache_root", "distributions", "enabled", "entry_path", "identity", "prepare", "read_entry",
           "safe_dir", "write_entry"]

#: Entries are written only for files whose mtime and ctime are this much older than the start of hashing (2 s:
#: the coarsest common file-system timestamp granularity, FAT's; Linux local file systems tick every few ms).
RACY_NS = 2_000_000_000
LAYOUT = "v1"
_MAX_ENTRY = 64 << 20


def cache_root(env: dict[str, str] | None = None) -> Path:
    """Return the cache directory: `$XDG_CACHE_HOME/verify-evidence/v1` (XDG default `~/.cache`)."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "verify-evidence" / LAYOUT


def enabled(setting: bool | None, env: dict[str, str] | None = None) -> bool:
    """Return whether a run uses the cache: `setting` (--cache True, --no-cache False) wins; else off under CI, on otherwise."""
    if setting is not None:
        return setting
    env = dict(os.environ) if env is None else env
    return env.get("CI", "").strip().lower() not in ("true", "1", "yes")


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """Return a file's identity `(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)` from its `stat`."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def safe_dir(path: Path) -> str | None:
    """Return why `path` is not a directory only this user can write to, or None when it is."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory (or is a symlink)"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{path} is owned by uid {st.st_uid}, not by you"
    if st.st_mode & 0o022:
        return f"{path} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def prepare(root: Path, create: bool = True) -> str | None:
    """
    Return why the cache directory `root` cannot be used safely, or None when it can.

    With `create`, makes the missing levels first (`$XDG_CACHE_HOME` as
    usual, each level of ours 0700). Refused: `verify-evidence`, `v1`,
    `digests` or `results` being a symlink, not owned by this user, or
    writable by group or others.
    """
    levels = (root.parent, root, root / "digests", root / "results")
    if create:
        try:
            os.makedirs(root.parent.parent, exist_ok=True)
            for level in levels:
                os.makedirs(level, mode=0o700, exist_ok=True)  # the mode applies to the leaf
        except OSError as exc:
            return f"cannot create {root}: {exc.strerror or exc}"
    for level in levels:
        reason = safe_dir(level)
        if reason is not None:
            return reason
    return None


def distributions() -> dict[str, Path]:
    """Return `{normalised name: dist-info directory}` of every distribution on `sys.path` (first one wins, as for imports)."""
    found: dict[str, Path] = {}
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                key = name.rsplit(".", 1)[0].split("-", 1)[0].lower().replace("-", "_").replace(".", "_")
                found.setdefault(key, Path(entry or ".") / name)
    return found


def entry_path(root: Path, kind: str, key: str) -> Path:
    """Return the file of the entry `(kind, key)` under the cache directory `root` (`digests/` or `results/`, fanned out by 2 hex digits)."""
    name = hashlib.sha256(f"{kind}\0{key}".encode()).hexdigest()
    return root / ("digests" if kind == "digest" else "results") / name[:2] / name[2:]


def read_entry(root: Path, kind: str, key: str) -> Any:
    """Return the value stored under `(kind, key)`, or None (absent, not ours, readable by others, torn or foreign)."""
    path = entry_path(root, kind, key)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if (not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or st.st_size > _MAX_ENTRY
                or (hasattr(os, "getuid") and st.st_uid != os.getuid())):
            return None  # not ours, or readable/writable by others: ignored
        try:
            entry = json.loads(handle.read())
            check_depth(entry)  # nested past `MAX_DEPTH` (no entry we write is): foreign, and no reader of it may recurse
        except (OSError, ValueError, RecursionError):  # JSONProblem is a ValueError
            return None  # torn, foreign or nested too deep: a miss
    if not isinstance(entry, dict) or entry.get("kind") != kind or entry.get("key") != key:
        return None
    return entry.get("value")


def write_entry(root: Path, kind: str, key: str, value: Any) -> bool:
    """
    Store the JSON value `value` (finite numbers only) under `(kind, key)`; return whether it was written.

    Written 0600 to a fresh name (`O_EXCL`, no symlink followed) in the
    entry's 0700 directory, then renamed over the entry. A value that is not
    plain finite JSON, a full disk or a read-only cache is not an error:
    nothing is written and False is returned.
    """
    path = entry_path(root, kind, key)
    try:
        data = json.dumps({"kind": kind, "key": key, "value": value}, sort_keys=True, allow_nan=False).encode()
    except (TypeError, ValueError):
        return False
    try:
        os.makedirs(path.parent, mode=0o700, exist_ok=True)
        # a fresh name, created 0600, never an existing file or symlink (as tempfile.mkstemp does; tempfile's
        # import is a good part of a warm run's start-up)
        tmp = path.parent / f".tmp-{os.getpid()}-{os.urandom(8).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True
