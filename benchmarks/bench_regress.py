#!/usr/bin/env python3
"""
Benchmark: the integrity and coverage ratios of this checkout against a baseline commit, in one run.

Extracts the baseline commit (default `0b7f98b`, the start of the speed work
of issue 16) with `git archive` into a temporary directory (no worktree, no
checkout change), then runs `benchmarks/integrity_bench.py` and
`benchmarks/coverage_bench.py` of each tree alternately (baseline, this
checkout; `--rounds` times), each against its own reference tool (openssl and
bagit; ffprobe) on data it generates itself, and prints every ratio line
they print, with the load average before each run. Both trees use this
environment's Python and packages.

Usage: python benchmarks/bench_regress.py [--base 0b7f98b] [--rounds 1] [--integrity-args "--reps 3 --no-sweep"]
[--coverage-args "--clips 100"]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ratio_lines(text: str) -> list[str]:
    keep = ("ratio", "coverage (in process)", "ffprobe -v", "check ", "hash_many", "openssl", "bagit", "memory")
    return [line.strip() for line in text.splitlines() if line.strip().lower().startswith(keep)]


def run(tree: Path, script: str, extra: str) -> list[str]:
    """Run `benchmarks/<script>` of `tree` in a fresh process; return its ratio lines (or its error)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *shlex.split(extra)], capture_output=True,
                          text=True, cwd=tree, env=env)
    if proc.returncode != 0:
        return [f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ''}"]
    return _ratio_lines(proc.stdout)


def main() -> None:
    """Extract the baseline, run both benchmarks of both trees alternately, print the ratio lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="0b7f98b")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--integrity-args", default="--reps 3 --no-sweep")
    parser.add_argument("--coverage-args", default="--clips 100")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", args.base], capture_output=True, text=True, cwd=ROOT,
                            check=True).stdout.strip()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="bench-regress-"))
    try:
        base = tmp / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", commit], capture_output=True, cwd=ROOT, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        trees = [(f"baseline {commit}", base), (f"this checkout {head} (+ working tree)", ROOT)]
        for script, extra in (("integrity_bench.py", args.integrity_args), ("coverage_bench.py", args.coverage_args)):
            for rnd in range(args.rounds):
                for label, tree in trees:
                    load = os.getloadavg()[0]
                    lines = run(tree, script, extra)
                    print(f"{script} round {rnd + 1}, {label}, load average {load:.2f}:", flush=True)
                    for line in lines:
                        print(f"    {line}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
