"""
Benchmark: the issue-11 ratio (verify / stdlib parse of an MLPerf results tree) in CPU instructions, not seconds.

Not a test (not run by pytest or .ci/run). Wall-clock ratios on a shared
2-core machine move by 20 % between rounds (`bench_profile_mlperf.py`
prints both); instructions retired by the process under valgrind's
callgrind do not depend on other load, so this script gives a figure that
repeats. Each side runs in a fresh child process under
`valgrind --tool=callgrind`, once with 0 and once with `--reps` timed
operations after the same warm-up (imports, asset pins, schema
compilation: one untimed operation), and the difference divided by
`--reps` is the cost of one operation:

- `stdlib`: `bench_profile_mlperf.parse_stdlib(TREE)` (the same baseline);
- `verify`: `verifier.core.verify_path(TREE)`.

Prints instructions per operation of each, and their ratio (target < 2x).
`--base REF` measures a second checkout (a detached `git worktree`, removed
at exit) the same way and prints both. Needs valgrind (Debian's `valgrind`).
Each child takes about a minute per operation counted (callgrind runs
Python about 50x slower). Usage:
`python benchmarks/icount_profile_mlperf.py [TREE] [--reps N] [--base REF]`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "corpus" / "mlperf-inference-test-submissions-v5.0"

_CHILD = """
import sys
sys.path.insert(0, {checkout!r}); sys.path.insert(0, {bench!r})
from pathlib import Path
from bench_profile_mlperf import parse_stdlib
from verifier.core import verify_path
tree, what, n = Path({tree!r}), {what!r}, {n}
run = (lambda: parse_stdlib(tree)) if what == "stdlib" else (lambda: verify_path(str(tree)))
run()
for _ in range(n):
    run()
"""


def instructions(checkout: Path, tree: Path, what: str, n: int) -> int:
    """Return the instructions callgrind counts for a child that warms up once, then runs `what` `n` times in `checkout`."""
    code = _CHILD.format(checkout=str(checkout), bench=str(Path(__file__).resolve().parent), tree=str(tree), what=what, n=n)
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
                          capture_output=True, text=True, cwd=tempfile.gettempdir())
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind child failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
    return int(found.group(1))


def per_operation(checkout: Path, tree: Path, reps: int) -> dict[str, int]:
    """Return instructions per operation of `stdlib` and `verify` in `checkout`: (count with `reps` runs - count with 0) / `reps`."""
    return {what: (instructions(checkout, tree, what, reps) - instructions(checkout, tree, what, 0)) // reps for what in ("stdlib", "verify")}


def report(label: str, figures: dict[str, int]) -> None:
    print(f"{label}: stdlib {figures['stdlib'] / 1e6:.1f} M instructions, verify {figures['verify'] / 1e6:.1f} M instructions per run, "
          f"ratio verify / stdlib {figures['verify'] / figures['stdlib']:.2f}x (target < 2x)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--base", help="also measure this commit")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    tree = args.tree.resolve()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    if args.base:
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.base], capture_output=True, text=True, check=True).stdout.strip()
        with tempfile.TemporaryDirectory(prefix="icount-mlperf-") as tmp:
            base = Path(tmp) / "base"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), sha], capture_output=True, check=True)
            try:
                report(f"base {args.base} ({sha[:12]})", per_operation(base, tree, args.reps))
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
    report(f"head ({head})", per_operation(ROOT, tree, args.reps))


if __name__ == "__main__":
    main()
