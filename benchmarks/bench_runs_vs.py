#!/usr/bin/env python3
"""
Benchmark: whole `verify` runs of this checkout against a baseline commit, in turn (issue 36, "no user-visible slowdown").

Extracts the baseline commit (default `cc17077`, where issue 36 was filed)
with `git archive` into a temporary directory, then times, for each of the
runs a user does, the process `python -m verifier ...` of this checkout (A)
and of the baseline (B) in turn, A B A B ..., `--rounds` pairs each:

- `example cold`: `verify --no-cache -f json` on each tree's own
  `examples/ref2va-5s`;
- `mlperf cold`: the same on `../shared/corpus/mlperf-inference-test-submissions-v5.0`;
- `example warm`: `verify -f json` on this checkout's example with a fresh
  cache directory (`XDG_CACHE_HOME`, `docs/cache.md`) primed by one run first (this
  checkout only; printed as a ratio to its own `example cold`).

CPU is user + system seconds of the finished child (`resource.getrusage`
of the children, before and after); wall is a monotonic clock around it.
Prints per run the median CPU and wall of A and B and the median of the A/B
ratios taken pair by pair (pairing keeps the ratio meaningful while the
machine's speed drifts). Both trees use this environment's Python and
packages.

Usage: python benchmarks/bench_runs_vs.py [--base cc17077] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MLPERF = ROOT.parent / "shared" / "corpus" / "mlperf-inference-test-submissions-v5.0"


def timed(tree: Path, args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Run `python -m verifier ARGS` with `tree` first on the path; return (CPU s, wall s). Exit 0-3 are verdicts; others raise."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "verifier", *args], cwd=tempfile.gettempdir(), capture_output=True,
                          env={**os.environ, **(env or {}), "PYTHONPATH": str(tree)})
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1, 2, 3):
        raise SystemExit(f"{tree}: verify {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    """Print the medians and pairwise ratios described in the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="cc17077")
    parser.add_argument("--rounds", type=int, default=7)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", opts.base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        runs = {"example cold": lambda t: ["--no-cache", "-f", "json", str(t / "examples" / "ref2va-5s")],
                "mlperf cold": lambda t: ["--no-cache", "-f", "json", str(MLPERF)]}
        print(f"A = this checkout ({ROOT}), B = {opts.base}; {opts.rounds} pairs each; load {os.getloadavg()[0]:.2f}")
        cold_cpu = 0.0
        for name, args in runs.items():
            timed(ROOT, args(ROOT)), timed(base, args(base))  # warm the file system cache, not counted
            pairs = [(timed(ROOT, args(ROOT)), timed(base, args(base))) for _ in range(opts.rounds)]
            a_cpu = statistics.median(a[0] for a, _ in pairs)
            cold_cpu = a_cpu if name == "example cold" else cold_cpu
            print(f"{name:13s} CPU A {a_cpu:.3f} s B {statistics.median(b[0] for _, b in pairs):.3f} s "
                  f"A/B {statistics.median(a[0] / b[0] for a, b in pairs):.3f}; wall A {statistics.median(a[1] for a, _ in pairs):.3f} s "
                  f"B {statistics.median(b[1] for _, b in pairs):.3f} s A/B {statistics.median(a[1] / b[1] for a, b in pairs):.3f}")
        cache = {"XDG_CACHE_HOME": str(Path(scratch) / "cache"), "CI": "false"}
        example = ["-f", "json", str(ROOT / "examples" / "ref2va-5s")]
        timed(ROOT, example, cache)  # primes the cache
        warm = [timed(ROOT, example, cache) for _ in range(opts.rounds)]
        warm_cpu = statistics.median(w[0] for w in warm)
        print(f"example warm  CPU A {warm_cpu:.3f} s, {100 * warm_cpu / cold_cpu:.1f} % of A's example cold")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
