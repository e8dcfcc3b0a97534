"""
Benchmark: CPU microseconds per receipt line of each check of one native bundle of N receipt lines (issue 40).

Usage (from the repository root): ``python benchmarks/bench_checks.py [N]`` (default 200000).

Builds the bundle `bench_receipts.build` builds (N planned measured requests over two servers, one receipt each,
a test gate pinned in a fresh asset root, in a temporary directory), sets the cyclic collector as the `verify`
command does (`verifier.fastpath.gc_for_one_run`), runs `verifier.core.verify_path` once with every check's
``Check.__call__`` timed by `time.process_time`, and prints each check costing at least 0.5 % of the run in
microseconds per line, then the run's total and the sum over checks. Not a test: no exit code for speed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
import bench_receipts  # noqa: E402


def main(n: int) -> None:
    """Print the per-check figures for a bundle of `n` receipt lines."""
    bundle, assets = bench_receipts.build(Path(tempfile.mkdtemp()), n)
    from verifier.engine import pipeline
    from verifier.core import verify_path
    from verifier.fastpath import gc_for_one_run

    gc_for_one_run()
    times: dict[str, float] = {}
    original = pipeline.Check.__call__

    def timed(self, ctx):  # type: ignore[no-untyped-def]
        start = time.process_time()
        out = list(original(self, ctx))
        times[self.id] = times.get(self.id, 0.0) + time.process_time() - start
        return out

    pipeline.Check.__call__ = timed
    start = time.process_time()
    verify_path(str(bundle), asset_root=assets)
    total = time.process_time() - start
    for check, seconds in sorted(times.items(), key=lambda item: -item[1]):
        if seconds > 0.005 * total:
            print(f"{check:28} {1e6 * seconds / n:7.2f} us/line")
    print(f"total {1e6 * total / n:.2f} us/line, sum of checks {1e6 * sum(times.values()) / n:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
