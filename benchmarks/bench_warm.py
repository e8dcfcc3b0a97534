#!/usr/bin/env python3
"""
Benchmark: warm re-verify (the cache of `docs/cache.md`) against a cold run, in the same run.

Two subjects: the example bundle (`examples/ref2va-5s`, read in place) and a
synthetic 1 GiB bundle (200 random files of varied sizes with a valid
manifest, written by `integrity_bench.write_bundle` into a temporary
directory and deleted at exit; it is not a complete campaign bundle, so its
verdict is not PASS, but every file is hashed as in any bundle).

For each subject, alternately (cold, warm, cold, warm, ...) for `--reps`
rounds after one untimed priming run that fills the cache:

- cold: `verify --no-cache SUBJECT -f json` in a fresh process;
- warm: `verify --cache SUBJECT -f json` in a fresh process, with the cache
  filled by the priming run (an isolated `XDG_CACHE_HOME` in the temporary
  directory).

Python bytecode is written once into the temporary directory
(`PYTHONPYCACHEPREFIX`, `PYTHONDONTWRITEBYTECODE` unset), as an installed
verify has it; nothing is written into the checkout.

Printed per subject: the median whole-process wall and CPU seconds (user +
system of the child, `RUSAGE_CHILDREN`) of each, warm/cold ratios, and the
same ratio for the in-process verification time (`verify_path` alone, no
interpreter start or imports: a child measuring itself with
`--inprocess`). It also checks that the warm JSON report equals the cold one
apart from the `cached` markers. Targets (issue 16): warm <= 10 % of cold for
the example, <= 5 % for the 1 GiB bundle.

Usage: python benchmarks/bench_warm.py [--reps 5] [--total-mib 1024] [--skip-big]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(subject: Path, cache: bool, env: dict[str, str]) -> tuple[float, float, str]:
    """Run `verify` on `subject` in a fresh process; return (wall s, cpu s, stdout)."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "verifier", str(subject), "-f", "json",
                           "--cache" if cache else "--no-cache"], capture_output=True, text=True, env=env, cwd=ROOT)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"verify exited {proc.returncode}: {proc.stderr}")
    return wall, cpu, proc.stdout


def run_inprocess(subject: Path, cache: bool, env: dict[str, str]) -> float:
    """Return the seconds `verify_path` takes in a fresh process (imports and asset checks excluded)."""
    proc = subprocess.run([sys.executable, __file__, "--inprocess", str(subject), "1" if cache else "0"],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def inprocess_child(subject: str, cache: bool) -> None:
    """Child side of `run_inprocess`: import, check assets, then time `verify_path` alone."""
    from verifier.cache.warm import Cache
    from verifier.core import verify_path
    from verifier.trust.assets import assets

    from verifier.trust.assets import use_cache

    opened = Cache.open()[0] if cache else None
    use_cache(opened)
    assets()
    t0 = time.perf_counter()
    verify_path(subject, cache=opened, parallel=True)
    print(time.perf_counter() - t0)


def _strip(report: str) -> str:
    data = json.loads(report)
    for f in data["findings"]:
        f.pop("cached", None)
    return json.dumps(data, sort_keys=True)


def measure(name: str, subject: Path, reps: int, env: dict[str, str]) -> None:
    """Prime the cache, then time cold and warm runs alternately and print the medians and ratios."""
    run_cli(subject, True, env)  # primes the cache
    cold: list[tuple[float, float]] = []
    warm: list[tuple[float, float]] = []
    inproc_cold: list[float] = []
    inproc_warm: list[float] = []
    same = True
    for _ in range(reps):
        w, c, cold_out = run_cli(subject, False, env)
        cold.append((w, c))
        w, c, warm_out = run_cli(subject, True, env)
        warm.append((w, c))
        same = same and _strip(warm_out) == _strip(cold_out) and '"cached"' in warm_out
        inproc_cold.append(run_inprocess(subject, False, env))
        inproc_warm.append(run_inprocess(subject, True, env))
    med = statistics.median
    cw, cc = med(x[0] for x in cold), med(x[1] for x in cold)
    ww, wc = med(x[0] for x in warm), med(x[1] for x in warm)
    ic, iw = med(inproc_cold), med(inproc_warm)
    print(f"{name}: cold wall {cw:.2f} s, cpu {cc:.2f} s | warm wall {ww:.2f} s, cpu {wc:.2f} s | "
          f"warm/cold wall {ww / cw:.1%}, cpu {wc / cc:.1%} | verify_path alone: cold {ic:.3f} s, warm {iw:.3f} s, "
          f"warm/cold {iw / ic:.1%} | reports equal apart from markers: {same}", flush=True)


def main() -> None:
    """Run both subjects and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--total-mib", type=int, default=1024)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--inprocess", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inprocess:
        inprocess_child(args.inprocess[0], args.inprocess[1] == "1")
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-warm-"))
    try:
        # Bytecode is compiled once into the temporary directory, as `pip install` compiles it for an installed verify
        # (PYTHONDONTWRITEBYTECODE would recompile every module in every run, cold and warm alike).
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "xdg-cache"), PYTHONPATH=str(ROOT),
                   PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
        env.pop("CI", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"cpus {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}; {args.reps} rounds, medians", flush=True)
        measure("example bundle (examples/ref2va-5s)", ROOT / "examples" / "ref2va-5s", args.reps, env)
        if not args.skip_big:
            from integrity_bench import varied_sizes, write_bundle

            big = tmp / "big"
            write_bundle(big, varied_sizes(args.total_mib << 20, args.files, 1))
            time.sleep(2.1)  # past the cache's racy window (files younger than 2 s are hashed, not remembered)
            measure(f"{args.total_mib} MiB bundle ({args.files} files)", big, args.reps, env)
        print(f"load average after {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
