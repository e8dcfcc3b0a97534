"""
The warm re-verify cache: file digests by file identity, scores by content and scorer.

Two kinds of entry, each one small JSON file under the user's cache directory
(`$XDG_CACHE_HOME/verify-evidence/v1`, default `~/.cache/verify-evidence/v1`),
never inside a bundle:

- `digests/`: the sha256 of a regular file keyed by its identity as the
  kernel reports it, `(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`,
  as git's index and DVC do. Any write to a file, and any change of its
  times by `touch`/`utime`, sets its ctime to the current time, which a
  user cannot choose, so a changed file never matches an old entry and is
  hashed again. An entry is written only when the file's identity was the
  same before and after hashing (it did not change while being read) and
  its mtime and ctime are at least `RACY_NS` older than the start of the
  hashing (a write in the same timestamp tick could otherwise leave the
  identity unchanged: git's "racily clean" rule).
- `results/`: a JSON value keyed by the sha256 of a canonical JSON key the
  caller builds with `result_key` from everything the value depends on,
  always with the verifier version, the digest of the verifier's own
  sources (`code_digest`) and of the installed distributions
  (`environment_digest`). Kinds: scores (both files' sha256, the metrics,
  the gate's scorer pins and the run's scorer identities, the coverage
  policy; `verifier.scoring.rescore.score_pair`), coverage facts of a media file
  (its sha256, the expectation and policy; `verifier.checks.coverage`),
  schema validity of a document (its sha256 and the schema's canonical
  digest; `verifier.schema.validation`) and the start-up check of the shipped
  assets (the identity of every pinned file; `verifier.trust.assets`).

What the cache trusts, and its refusals, are stated in `docs/cache.md`. The
directory must be a real directory owned by the user and not writable by
group or others (created 0700); each entry is opened without following
symlinks and must be a regular file owned by the user with no group/other
permissions (written 0600 through a temporary file and an atomic rename).
Otherwise the cache is not used (`Cache.open` returns None with a reason) or
the entry is ignored. A torn or foreign entry is a miss, never an error.

`enabled(setting, env)` decides whether a run uses it: `--cache` (True) or
`--no-cache` (False) win; by default it is on, except under CI (`CI` set to
`true`/`1`/`yes`), where runners start cold and a shared cache would be a
new input.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.formats.bundle import open_regular
from verifier.cache.cachefs import LAYOUT, RACY_NS, cache_root, enabled, identity, prepare, read_entry, safe_dir, write_entry  # noqa: F401 (re-exported)
from verifier.cache.cachefs import distributions as _distributions

__all__ = ["RACY_NS", "Cache", "cache_root", "code_digest", "digest_of", "enabled", "environment_digest", "file_identity",
           "installed_version", "result_key"]

_identity = identity


def file_identity(st: os.stat_result, started_ns: int) -> tuple[int, int, int, int, int] | None:
    """
    Return the identity `(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)` of a file's `stat`, or None when it is racy.

    Racy: its mtime or ctime is less than `RACY_NS` older than `started_ns`
    (a write in the same timestamp tick could leave the identity unchanged),
    so nothing may be remembered under it.
    """
    if max(st.st_mtime_ns, st.st_ctime_ns) > started_ns - RACY_NS:
        return None
    return _identity(st)


_CODE_DIGEST: list[str] = []


def code_digest() -> str:
    """Return the sha256 of the verifier package's Python sources (sorted paths and bytes): cached results are reused only by the same code."""
    if not _CODE_DIGEST:
        package = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for source in sorted(package.rglob("*.py")):
            h.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
        _CODE_DIGEST.append(h.hexdigest())
    return _CODE_DIGEST[0]


_ENVIRONMENT: dict[str, Any] = {}


def environment_digest() -> str:
    """
    Return the sha256 of the Python version and the names of every installed distribution's metadata directory.

    A dist-info directory name holds the distribution's name and version, so
    installing, upgrading or removing any package (PyAV and its FFmpeg,
    numpy, torch, jsonschema and its format checkers) changes the digest and
    with it every cached result. Reads directory listings only.
    """
    if "digest" not in _ENVIRONMENT:
        dists = _distributions()
        _ENVIRONMENT["dists"] = dists
        text = sys.version + "\0" + "\0".join(sorted(str(p.name) for p in dists.values()))
        _ENVIRONMENT["digest"] = hashlib.sha256(text.encode()).hexdigest()
    return str(_ENVIRONMENT["digest"])


def installed_version(name: str) -> str:
    """
    Return the version of installed distribution `name` without its local part ("2.14.1+cu130" -> "2.14.1"), or "not installed".

    The `Version:` field of its metadata, as `importlib.metadata.version`
    reads it, without importing `importlib.metadata` (tens of milliseconds
    at start-up, which a warm re-verify cannot afford).
    """
    environment_digest()
    where = _ENVIRONMENT["dists"].get(name.lower().replace("-", "_").replace(".", "_"))
    if where is None:
        return "not installed"
    try:
        with open(where / ("METADATA" if where.name.endswith(".dist-info") else "PKG-INFO"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip().split("+")[0]
                if not line.strip():
                    break
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name).split("+")[0]
    except PackageNotFoundError:
        return "not installed"


def result_key(kind: str, *parts: Any) -> str:
    """
    Return the canonical JSON key of a cached result of `kind` computed from `parts`.

    The verifier version, `code_digest()` and `environment_digest()` are
    always part of it: a result is reused only by the same code in the same
    environment. `parts` must be JSON-able (other values by `str`).
    """
    return json.dumps([kind, list(parts), __version__, code_digest(), environment_digest()], sort_keys=True, default=str,
                      separators=(",", ":"))


_safe_dir = safe_dir


@dataclass(eq=False)
class Cache:
    """
    Represents an open cache directory (see the module docstring); use `Cache.open` to get one.

    `hits` counts the entries reused in this run by kind (`digest`, `result`);
    `stored` the entries written. An entry written by this same run is reused
    too (e.g. by `integrity.unchanged`) but is not reported as from the cache:
    a run with an empty cache reports exactly what a run without one does.
    """

    root: Path
    hits: dict[str, int] = field(default_factory=dict)
    stored: dict[str, int] = field(default_factory=dict)
    _written: set[tuple[str, str]] = field(default_factory=set, repr=False)  # (kind, key) stored by this run

    @classmethod
    def open(cls, root: Path | None = None) -> tuple[Cache | None, str | None]:
        """
        Return `(cache, None)`, or `(None, reason)` when the directory cannot be used safely.

        Creates the directory (mode 0700) when absent. Refused: a directory
        (or its `verify-evidence` parent) that is a symlink, not owned by this
        user, or writable by group or others.
        """
        root = cache_root() if root is None else root
        reason = prepare(root)
        if reason is not None:
            return None, reason
        return cls(root=root), None

    # ------------------------------------------------------------------ entries

    def _read(self, kind: str, key: str) -> Any:
        return read_entry(self.root, kind, key)

    def _write(self, kind: str, key: str, value: Any) -> None:
        if write_entry(self.root, kind, key, value):
            self.stored[kind] = self.stored.get(kind, 0) + 1
            self._written.add((kind, key))

    # ------------------------------------------------------------------ digests

    def digest(self, st: os.stat_result) -> tuple[str, bool] | None:
        """Return `(sha256, from_an_earlier_run)` cached for the file whose `fstat` is `st`, or None."""
        key = json.dumps(_identity(st))
        value = self._read("digest", key)
        if isinstance(value, str) and len(value) == 64:
            self.hits["digest"] = self.hits.get("digest", 0) + 1
            return value, ("digest", key) not in self._written
        return None

    def store_digest(self, before: os.stat_result, after: os.stat_result, sha256: str, started_ns: int) -> bool:
        """
        Remember `sha256` for the file identity `after`; return whether it was written.

        Not written when the identity changed while the file was read
        (`before` != `after`) or when its mtime or ctime is less than
        `RACY_NS` older than `started_ns` (the time hashing began).
        """
        if _identity(before) != _identity(after):
            return False
        if max(after.st_mtime_ns, after.st_ctime_ns) > started_ns - RACY_NS:
            return False
        self._write("digest", json.dumps(_identity(after)), sha256)
        return True

    # ------------------------------------------------------------------ results

    def result(self, key: str) -> tuple[Any, bool] | None:
        """Return `(value, from_an_earlier_run)` stored under the canonical key `key` (see `result_key`), or None."""
        value = self._read("result", key)
        if value is None:
            return None
        self.hits["result"] = self.hits.get("result", 0) + 1
        return value, ("result", key) not in self._written

    def store_result(self, key: str, value: Any) -> None:
        """Remember the JSON value `value` (finite numbers only) under `key`."""
        self._write("result", key, value)


def digest_of(path: Path, cache: Cache | None = None) -> tuple[int, str, bool]:
    """
    Return `(size, sha256_hex, from_cache)` of the regular file at `path` (`from_cache`: stored by an earlier run).

    The file is opened once (no symlink followed, `bundle.open_regular`);
    with a `cache`, its `fstat` identity is looked up first, and after a
    full read the digest is stored under the identity (see
    `Cache.store_digest` for when it is not). Raises `OSError` when the file
    cannot be opened or read.
    """
    with os.fdopen(open_regular(path), "rb", buffering=0) as handle:
        before = os.fstat(handle.fileno())
        if cache is not None:
            known = cache.digest(before)
            if known is not None:
                return before.st_size, known[0], known[1]
        started = time.time_ns()
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
        size = handle.tell()
        if cache is not None and size == before.st_size:
            cache.store_digest(before, os.fstat(handle.fileno()), digest, started)
        return size, digest, False
