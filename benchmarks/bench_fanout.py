#!/usr/bin/env python3
"""
Benchmark: `verify inventory` over many copies of the example, locally and on a 2-worker Dask cluster.

Writes an evidence repository of `--copies` (default 50) registered copies of
`examples/ref2va-5s` into a temporary directory, starts a
`distributed.LocalCluster` of 2 worker processes (1 thread each, TCP on
127.0.0.1), then runs `verify inventory REPO -f json --no-cache` in a fresh
process without and with `--executor` (alternately, `--reps` rounds), and
prints the wall times and whether the two JSON reports are byte-for-byte
equal. Needs the `distributed` extra. Everything is deleted at exit.

Usage: python benchmarks/bench_fanout.py [--copies 50] [--reps 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def main() -> None:
    """Build the repository, start the cluster, time both paths and compare the reports."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    from distributed import LocalCluster
    from test_fanout import make_repository

    tmp = Path(tempfile.mkdtemp(prefix="bench-fanout-"))
    try:
        repo = make_repository(tmp / "repo", args.copies)
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          host="127.0.0.1") as cluster:
            print(f"cpus {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}; {args.copies} copies; "
                  f"cluster {cluster.scheduler_address} with 2 worker processes", flush=True)
            for _ in range(args.reps):
                out = {}
                for label, extra in (("local", []), ("cluster", ["--executor", cluster.scheduler_address])):
                    t0 = time.perf_counter()
                    proc = subprocess.run([sys.executable, "-m", "verifier", "inventory", str(repo), "-f", "json",
                                           "--no-cache", *extra], capture_output=True, text=True, env=env, cwd=ROOT)
                    out[label] = (time.perf_counter() - t0, proc.returncode, proc.stdout)
                    print(f"{label:8}: exit {proc.returncode}, wall {out[label][0]:.1f} s, "
                          f"{len(proc.stdout)} bytes of JSON", flush=True)
                print(f"JSON reports byte-for-byte equal: {out['local'][2] == out['cluster'][2]}; "
                      f"cluster/local wall {out['cluster'][0] / out['local'][0]:.2f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
