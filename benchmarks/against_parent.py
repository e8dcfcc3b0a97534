"""
Run `integrity_bench.py` and `coverage_bench.py` on this checkout and on a base commit, in one run, and print both figures.

Usage (from the repository root):
    .venv/bin/python benchmarks/against_parent.py --base REF [--head REF] [--total-mib 256] [--reps 3] [--clips 30] [--rounds 2]

The base and head commits (head: `HEAD` by default) are checked out as
detached `git worktree`s in a temporary directory (removed at exit), so
editing the checkout during the run changes nothing; each benchmark script runs from its own tree,
so it measures that tree's `verifier/` (both scripts put their checkout
first on `sys.path`). The runs alternate base, head, base, head ... for
`--rounds` rounds, so load drifting on a shared machine hits both alike.
Figures read from the scripts' output: the median wall seconds of the whole
`integrity.files` check (`check`) and of `hash_many`, the ours/openssl
ratio, and the in-process coverage time of the clips. Printed per round and
as head/base ratios of the medians and of the minimums over rounds (the
minimum is the figure least disturbed by other load on a shared machine;
`hash_many` is the same code in most comparisons, so its ratio shows the
noise floor of the run); the issue's promise is within 5 % (ratios 0.95
to 1.05). Not a test: no exit code for speed.
Needs what the two scripts need (`openssl`, `bagit`; `ffprobe` is optional).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PATTERNS = {
    "integrity check s": re.compile(r"^\s+ours integrity\.files check\s+([0-9.]+)\s", re.M),
    "integrity check min s": re.compile(r"^\s+ours integrity\.files check\s+[0-9.]+\s+([0-9.]+)\s", re.M),
    "hash_many s": re.compile(r"^\s+ours hash_many \(threads=nproc\)\s+([0-9.]+)\s", re.M),
    "hash_many min s": re.compile(r"^\s+ours hash_many \(threads=nproc\)\s+[0-9.]+\s+([0-9.]+)\s", re.M),
    "check ours/openssl": re.compile(r"ratios check \(median\): ours/openssl ([0-9.]+)", re.M),
    "hash_many ours/openssl": re.compile(r"ratios hash_many \(median\): ours/openssl ([0-9.]+)", re.M),
    "coverage ms": re.compile(r"^coverage \(in process\): ([0-9.]+) ms", re.M),
}


def run(tree: Path, script: str, args: list[str]) -> dict[str, float]:
    """Run `tree/benchmarks/script` with `args`; return the figures of `PATTERNS` its output states. Exits on a failed run."""
    proc = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args], capture_output=True, text=True, cwd=tree)
    if proc.returncode != 0:
        raise SystemExit(f"{tree.name}/{script} failed (exit {proc.returncode}):\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
    return {name: float(m.group(1)) for name, pattern in PATTERNS.items() if (m := pattern.search(proc.stdout))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the commit to compare against (e.g. the parent of the first change)")
    ap.add_argument("--head", default="HEAD", help="the commit measured against the base (default HEAD)")
    ap.add_argument("--total-mib", default="256", help="integrity_bench --total-mib (default 256)")
    ap.add_argument("--reps", default="3", help="integrity_bench --reps (default 3)")
    ap.add_argument("--clips", default="30", help="coverage_bench --clips (default 30)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds of base and head (default 2)")
    args = ap.parse_args()
    base_sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.base], capture_output=True, text=True, check=True).stdout.strip()
    head_sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.head], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="against-parent-") as tmp:
        base, head = Path(tmp) / "base", Path(tmp) / "head"
        for tree, sha in ((base, base_sha), (head, head_sha)):
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], capture_output=True, check=True)
        try:
            figures: dict[str, dict[str, list[float]]] = {"base": {}, "head": {}}
            for rnd in range(1, args.rounds + 1):
                for label, tree in (("base", base), ("head", head)):
                    got = run(tree, "integrity_bench.py", ["--total-mib", args.total_mib, "--reps", args.reps, "--no-sweep"])
                    got.update(run(tree, "coverage_bench.py", ["--clips", args.clips]))
                    for name, value in got.items():
                        figures[label].setdefault(name, []).append(value)
                    print(f"round {rnd} {label}: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()), flush=True)
        finally:
            for tree in (base, head):
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
    print(f"base {base_sha[:12]} ({args.base}), head {head_sha[:12]} ({args.head}); medians over {args.rounds} round(s):")
    for name in PATTERNS:
        b, h = figures["base"].get(name), figures["head"].get(name)
        if not b or not h:
            print(f"  {name}: not reported")
            continue
        mb, mh = statistics.median(b), statistics.median(h)
        ratio = mh / mb if mb else float("nan")
        low = min(h) / min(b) if min(b) else float("nan")
        print(f"  {name}: base {mb:.3f}, head {mh:.3f}, head/base {ratio:.3f} ({'within' if 0.95 <= ratio <= 1.05 else 'OUTSIDE'} 5 %); "
              f"min over rounds: base {min(b):.3f}, head {min(h):.3f}, head/base {low:.3f}")


if __name__ == "__main__":
    main()
