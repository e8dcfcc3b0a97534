"""
How re-scoring uses the CPU cores: a few single-threaded tasks side by side instead of one multi-threaded kernel.

Measured on the shared 2-core machine (issue 16, `benchmarks/README.md`):
torch's default of one OpenMP thread per core made one AlexNet forward at
832x480 take 2.5x the wall time of a single-threaded one whenever other
processes held a core (the threads of one convolution wait for each other at
every barrier), and numpy's OpenBLAS threads slowed SSIM's banded products
the same way. So while `verifier.scoring.batch_scoring.score_many` runs, torch's
intra-op threads and OpenBLAS's threads are set to `plan().threads` (1 on a
machine of up to 7 cores) and the work is spread over `plan().workers`
threads instead: one AlexNet forward per file and SSIM batches, each on one
thread, side by side (torch and numpy release the GIL). The previous
settings are restored when the last concurrent `score_many` ends.

Scores do not depend on this beyond float32 rounding: a forward on 1 thread
and on 2 differs by at most 4.7e-10 (media-notes A4), SSIM is float64 and
held to scikit-image within 1e-9 (`tests/scorers/test_ssim.py`). The number of
threads is part of the LPIPS scorer's run identity (`threads`), so cached
scores are keyed by it.

Standard library only (torch is touched only when already imported, OpenBLAS
only through the copy numpy loaded), so a warm run that computes nothing
loads neither.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["Plan", "plan", "single_threaded_kernels"]

#: At most this many worker threads: a component of the example campaign has 4 files (4 forwards per frame index).
MAX_WORKERS = 4


@dataclass(frozen=True)
class Plan:
    """Represents how scoring uses the cores: `workers` threads side by side, each kernel on `threads` threads."""

    workers: int
    threads: int


def _cpus() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()  # a user's limit on torch's threads is kept
    if limit.isascii() and limit.isdigit() and int(limit) > 0:  # not "²", which str.isdigit accepts and int refuses
        cpus = min(cpus, int(limit))
    return max(1, cpus)


def plan() -> Plan:
    """Return the run's plan: `min(cpus, MAX_WORKERS)` workers, `cpus // workers` threads per kernel (cpus: this process's cores)."""
    cpus = _cpus()
    workers = min(cpus, MAX_WORKERS)
    return Plan(workers=workers, threads=max(1, cpus // workers))


_lock = threading.Lock()
_depth = 0
_saved: dict[str, int] = {}


def _openblas() -> tuple[Any, Any] | None:
    """Return numpy's OpenBLAS (get, set) thread functions, when numpy is loaded and uses OpenBLAS; else None."""
    if "numpy" not in sys.modules:
        return None
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)  # already loaded by numpy: the same library, not a second copy
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""), ("openblas", "64_"), ("openblas", "")):
            get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
            put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return get, put
    return None


@contextmanager
def single_threaded_kernels(threads: int) -> Iterator[None]:
    """
    Run the block with torch's intra-op threads (if torch is imported) and OpenBLAS's threads set to `threads`.

    Nested and concurrent uses share one setting: the first entry saves the
    previous values, the last exit restores them.
    """
    global _depth
    with _lock:
        if _depth == 0:
            _saved.clear()
            torch = sys.modules.get("torch")
            if torch is not None and hasattr(torch, "get_num_threads"):
                _saved["torch"] = torch.get_num_threads()
                torch.set_num_threads(threads)
            blas = _openblas()
            if blas is not None:
                _saved["openblas"] = blas[0]()
                blas[1](threads)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                torch = sys.modules.get("torch")
                if "torch" in _saved and torch is not None:
                    torch.set_num_threads(_saved["torch"])
                blas = _openblas() if "openblas" in _saved else None
                if blas is not None:
                    blas[1](_saved["openblas"])
                _saved.clear()
