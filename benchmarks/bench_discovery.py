"""
Discovery's speed (issue 37): `verifier.discovery.discover` on the MLPerf corpus tree, the example bundle and every other corpus folder.

A benchmark, not a test: run `PYTHONPATH=$PWD python benchmarks/bench_discovery.py [--reps N] [--files N]`.
Each directory is discovered in a fresh child process per run (`--reps`, default 3), timed inside the
child around `discover` (wall and CPU), and the median, the minimum and the counts (bound, ambiguous,
near-miss, unexplained, left out by the bounds) are printed with the target of issue 37 (under 10 s for
the MLPerf tree and the example bundle on a 2-core machine). `--files N` (default 10000) also times a
synthetic directory of N small JSON files (one object per file), the issue's "10^4 files in under a
minute": every one of them must be read (`files read` = N + 1, nothing skipped: the reading bounds of
`verifier.discovery.sources.BOUNDS` are 50,000 files, 256 MiB and 30 s). `--only NAME` times one
directory. Prints the machine's core count and load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
TARGETS = {"mlperf-inference-test-submissions-v5.0": 10.0, "ref2va-5s": 10.0}

CHILD = r"""
import json, sys, time, resource
from pathlib import Path
from verifier.discovery import discover
t, c = time.perf_counter(), time.process_time()
d = discover(Path(sys.argv[1]))
skipped = {}
for s in d.skips:
    skipped[s.kind] = skipped.get(s.kind, 0) + s.count
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "counts": d.counts(), "dropped": d.dropped,
                  "listed": d.listed, "files": len(d.sources), "skipped": skipped, "sets": len(d.sets),
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _one(path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _synthetic(root: Path, n: int) -> Path:
    folder = root / "many"
    for i in range(n):
        sub = folder / f"run{i % 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"case{i // 100:04d}.json").write_text(json.dumps({"case": f"c{i // 100}", "latency_s": 1 + (i % 7) / 10, "tokens": i % 13}))
    (folder / "summary.json").write_text(json.dumps({"mean_latency_s": 1.3, "runs": n}))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--only", help="time only the directory of this name (`many` for the synthetic one)")
    args = parser.parse_args()
    print(f"cores {os.cpu_count()}, load {os.getloadavg()}")
    folders = [CORPUS / "mlperf-inference-test-submissions-v5.0", ROOT / "examples" / "ref2va-5s",
               *sorted(p for p in CORPUS.iterdir() if p.is_dir() and p.name != "mlperf-inference-test-submissions-v5.0")]
    with tempfile.TemporaryDirectory() as scratch:
        if args.files:
            folders.append(_synthetic(Path(scratch), args.files))
        for folder in folders:
            if args.only and folder.name != args.only:
                continue
            runs = [_one(folder) for _ in range(args.reps)]
            walls = [r["wall"] for r in runs]
            last = runs[-1]
            target = TARGETS.get(folder.name, 60.0 if folder.name == "many" else None)
            verdict = "" if target is None else f" target < {target:.0f} s: {'met' if statistics.median(walls) < target else 'MISSED'}"
            print(f"{folder.name}: median {statistics.median(walls):.2f} s, min {min(walls):.2f} s, cpu {last['cpu']:.2f} s, "
                  f"rss {last['rss_mib']:.0f} MiB, {last['listed']} listed, {last['files']} files read, skipped {last['skipped']}, {last['sets']} sets, {last['counts']}, "
                  f"left out by the bounds {last['dropped']}{verdict}")
    print(f"load after {os.getloadavg()}")


if __name__ == "__main__":
    main()
