"""
A scorer's identity remembered by its weight files' identities, so a warm run need not load torch or the weights.

The LPIPS scorer's run identity (`lpips_alex.build`: weight digests, state
digest, versions, parameters, files, device, threads) is a function of the
bytes of its weight files, of the installed packages and of the verifier's
code. After a successful build it is stored in the warm re-verify cache
(`verifier.cache.warm`) under a key made of: the gate's pins (every file's name,
sha256, role, packaged path; the state digest), `--weights-dir`, the device,
the threads of `threads.plan()`, the path each pin resolves to by the
offline search (`weights.locate`) and the identity of that file as `stat`
reports it through any symlink, `(st_dev, st_ino, st_size, st_mtime_ns,
st_ctime_ns)`, as for file digests (docs/cache.md); `result_key` adds the
verifier version, the digest of its sources and of the installed
distributions (torch, torchvision, lpips among them).

So a later run whose weight files kept their identity learns the identity
without reading, hashing or unpickling them; any write to a weight file,
`touch`, a replaced or retargeted file, a file appearing earlier in the
search order, another package version or other code is another key, and
the scorer is built (and its files hashed and checked) again. An entry is
stored only when each file had the same identity before the build and
after it, and neither its mtime nor its ctime is within `RACY_NS` of the
build's start (git's racily-clean rule). The scorer itself is then built
only when a pair has to be computed (`verifier.scoring.scorer_set.Scorers.lpips_model`),
and its identity must equal the remembered one.

Standard library only: a warm run that reuses every score imports neither
numpy nor torch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from verifier.cache.warm import Cache, file_identity, result_key
from verifier.scorers import threads
from verifier.scorers.weights import WeightPin, WeightsProblem, locate

__all__ = ["identity_or_build"]

KIND = "scorer-identity"


def _files(pins: list[WeightPin], weights_dir: str | None) -> list[tuple[str, os.stat_result]] | None:
    """Return each pin's located path and its `stat` (through symlinks), or None when one cannot be located or stat-ed."""
    out = []
    for pin in pins:
        try:
            path = locate(pin, weights_dir)
            out.append((str(path), os.stat(path)))
        except (WeightsProblem, OSError):
            return None  # the build reports it
    return out


def _key(metric: str, pins: list[WeightPin], state_sha256: str | None, weights_dir: str | None, device: str,
         files: list[tuple[str, os.stat_result]], started_ns: int) -> str | None:
    ids = [file_identity(st, started_ns) for _path, st in files]
    if any(i is None for i in ids):
        return None  # racy: nothing may be remembered under this identity
    return result_key(KIND, metric, [[p.name, p.sha256.lower(), p.role, p.package_file] for p in pins], state_sha256,
                      weights_dir, device, threads.plan().threads, [[path, list(i)] for (path, _st), i in zip(files, ids)])  # type: ignore[arg-type]


def _valid(value: Any, pins: list[WeightPin], state_sha256: str | None) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("id"), str) and state_sha256 is not None
            and value.get("state_sha256") == state_sha256
            and sorted((w.get("name"), w.get("sha256")) for w in value.get("weights", []) if isinstance(w, dict))
            == sorted((p.name, p.sha256) for p in pins))


def identity_or_build(metric: str, pins: list[WeightPin], state_sha256: str | None, weights_dir: str | None, device: str,
                      cache: Cache | None, build: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """
    Return `(identity, built)`: the remembered identity of the scorer (built False), or `build()`'s (built True).

    `build` builds the scorer and returns its identity (raising
    `WeightsProblem`); its identity is stored when the weight files kept
    their identity throughout and are not racy (see the module docstring).
    Without a cache, or with `state_sha256` not pinned, it always builds.
    """
    if cache is None or state_sha256 is None:
        return build(), True
    now = time.time_ns()
    files = _files(pins, weights_dir)
    key = None if files is None else _key(metric, pins, state_sha256, weights_dir, device, files, now)
    if key is not None:
        found = cache.result(key)
        if found is not None and _valid(found[0], pins, state_sha256):
            return dict(found[0]), False
    started = time.time_ns()
    identity = build()
    before = files
    after = _files(pins, weights_dir)
    if (before is None or after is None or [p for p, _ in before] != [p for p, _ in after]
            or identity.get("files") != [p for p, _ in after]):
        return identity, True
    key_before = _key(metric, pins, state_sha256, weights_dir, device, before, started)
    if key_before is not None and key_before == _key(metric, pins, state_sha256, weights_dir, device, after, started):
        cache.store_result(key_before, identity)
    return identity, True
