"""
Benchmark: verifying an MLPerf Inference results tree through the `mlperf-inference` profile vs parsing its files with the standard library alone.

Not a test (not run by pytest or .ci/run). Target (issue 11): the profile-read
tree verifies in under 2x the time plain-stdlib parsing of the same files takes.

Both sides run in this process after one untimed warm-up (imports, asset
pins and schema compilation are not counted; the page cache is warm):

- `stdlib`: read summary.json (json), summary.csv (csv), the README table
  (split on `|`), every `mlperf_log_summary.txt` (`key : value` lines, split
  at the first colon), every `mlperf_log_detail.txt` (`:::MLLOG {json}`
  lines, json), every `accuracy.txt` (json / ast.literal_eval /
  `k=v` lines) and every measurements README line naming a bound;
- `verify`: `verifier.core.verify_path(TREE)` (detection, every check of the
  profile, the report object).

Prints the median and minimum of `--reps` runs of each and the ratios
verify / stdlib (of the medians and of the minimums: on a shared machine the
minimum is the figure least disturbed by other load), the load average
before and after, and the median time of parsing the README once with
`verifier.readers.markdown_doc.markdown_document` (pyromark, what `verify` reads the README's table and prose with; the
stdlib baseline only splits its lines at `|`), the floor that parse sets on
the ratio, and the time of reading the `:::MLLOG` lines of every detail log
strictly as `verify` reads them (`verifier.formats.jsonio.loads_strict_each`, a
batch per file; `loads_strict_text` per line in a checkout that predates
it) next to plain `json.loads` per line (the other floor: strict JSON). It measures the `verifier/` of the checkout it sits in.

`--base REF` measures a second checkout in the same run: REF is checked out
as a detached `git worktree` in a temporary directory (removed at exit), and
base and this checkout alternate, each in a fresh child process, for
`--rounds` rounds, so load drifting on a shared machine hits both alike; it
prints each round and the medians over rounds of both ratios.
`--phases` prints instead where one run's time goes: the median over
`--reps` runs of each reading step of `schema.documents` on a profile (`verifier.checks.profile_receipts`: receipt sets, claim
documents, of which the Markdown parse, claim sites) and of each check,
timed by wrapping those functions (each wrapper adds its own call to the time it reports).
Usage: `python benchmarks/bench_profile_mlperf.py [TREE] [--reps N] [--base REF [--rounds N] | --phases]`.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "corpus" / "mlperf-inference-test-submissions-v5.0"


def parse_stdlib(tree: Path) -> int:
    """Parse every file the profile reads with the standard library only; return how many values were read."""
    count = 0
    table = json.loads((tree / "summary.json").read_text())
    count += len(table)
    with (tree / "summary.csv").open(newline="") as handle:
        count += sum(1 for _ in csv.DictReader(handle))
    count += sum(1 for line in (tree / "README.md").read_text().splitlines() if line.startswith("|"))
    for path in tree.glob("*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"):
        values = {}
        for line in path.read_text().splitlines():
            key, sep, value = line.partition(":")
            if sep:
                values[key.strip()] = value.strip()
        count += len(values)
    for path in tree.glob("*/*/results/*/*/*/performance/run_1/mlperf_log_detail.txt"):
        for line in path.read_text().splitlines():
            if line.startswith(":::MLLOG "):
                try:
                    entry = json.loads(line[len(":::MLLOG "):])
                except ValueError:
                    continue
                count += isinstance(entry, dict) and "key" in entry
    for path in tree.glob("*/*/results/*/*/*/accuracy/accuracy.txt"):
        for line in path.read_text().splitlines():
            text = line.strip()
            if text.startswith("{"):
                try:
                    count += len(json.loads(text))
                except ValueError:
                    try:
                        count += len(ast.literal_eval(text))
                    except (ValueError, SyntaxError):
                        pass
            elif "=" in text:
                count += text.count("=")
    for path in tree.glob("*/*/measurements/*/*/*/README.md"):
        count += sum(1 for line in path.read_text().splitlines() if "Required accuracy" in line)
    return count


def measure(tree: Path, reps: int) -> dict[str, float | str | int]:
    """Time `reps` alternating runs of the stdlib parse, `verify_path`, one Markdown parse of the README and the detail-log lines strict and plain, after a warm-up; return the figures."""
    from verifier.core import verify_path
    from verifier.readers.markdown_doc import markdown_document
    from verifier.formats import jsonio

    def strict_each(texts: list[str]) -> None:
        """Read `texts` strictly as this checkout's `verify` reads a detail log's lines."""
        if hasattr(jsonio, "loads_strict_each"):
            jsonio.loads_strict_each(texts)
        else:
            for text in texts:
                jsonio.loads_strict_text(text)

    verify_path(str(tree))  # warm-up: imports, pins, schema compilation
    parse_stdlib(tree)
    readme = (tree / "README.md").read_bytes()
    per_file = [[line[len(":::MLLOG "):] for line in path.read_text().splitlines() if line.startswith(":::MLLOG ")]
                for path in tree.glob("*/*/results/*/*/*/performance/run_1/mlperf_log_detail.txt")]
    mllog = [text for texts in per_file for text in texts]
    ours, theirs, markdown, strict, plain = [], [], [], [], []
    for _ in range(reps):
        start = time.perf_counter()
        values = parse_stdlib(tree)
        theirs.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = verify_path(str(tree))
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        markdown_document(readme)
        markdown.append(time.perf_counter() - start)
        start = time.perf_counter()
        for texts in per_file:
            strict_each(texts)
        strict.append(time.perf_counter() - start)
        start = time.perf_counter()
        for text in mllog:
            json.loads(text)
        plain.append(time.perf_counter() - start)
    return {
        "rows": sum(1 for f in report.findings if f.check == "derivation.claims" and f.message.startswith("Result[")),
        "values": values, "verdict": str(report.verdict), "findings": len(report.findings), "readme_bytes": len(readme),
        "stdlib_median": statistics.median(theirs), "stdlib_min": min(theirs),
        "verify_median": statistics.median(ours), "verify_min": min(ours), "markdown_median": statistics.median(markdown),
        "mllog_lines": len(mllog), "strict_json_median": statistics.median(strict), "plain_json_median": statistics.median(plain),
    }


def phases(tree: Path, reps: int) -> None:
    """Print the median time per reading step and per check of `verify_path(tree)` over `reps` runs after a warm-up (see the module docstring)."""
    import verifier.checks.profile_receipts as profile_receipts
    import verifier.core as core
    import verifier.readers.markdown_doc as markdown_doc
    import verifier.engine.pipeline as pipeline

    spent: dict[str, float] = {}

    def timed(label: str, fn: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        return run

    for name in ("read_receipts", "read_claim_documents", "read_sites"):
        setattr(profile_receipts, name, timed(f"schema.documents: {name}", getattr(profile_receipts, name)))
    markdown_doc.markdown_document = timed("schema.documents: read_claim_documents: markdown_document", markdown_doc.markdown_document)

    class Timed:
        def __init__(self, chk: Any) -> None:
            self.chk, self.id, self.requires, self.title = chk, chk.id, chk.requires, chk.title

        def __call__(self, ctx: Any) -> list[Any]:
            start = time.perf_counter()
            out = list(self.chk(ctx))
            spent[f"check {self.id}"] = spent.get(f"check {self.id}", 0.0) + time.perf_counter() - start
            return out

    run_pipeline = pipeline.run_pipeline
    core.run_pipeline = lambda steps, ctx, **kw: run_pipeline([Timed(c) for c in steps], ctx, **kw)  # type: ignore[assignment]
    core.verify_path(str(tree))  # warm-up
    runs: list[dict[str, float]] = []
    totals = []
    for _ in range(reps):
        spent.clear()
        start = time.perf_counter()
        core.verify_path(str(tree))
        totals.append(time.perf_counter() - start)
        runs.append(dict(spent))
    print(f"verify_path({tree}): median {statistics.median(totals) * 1000:.1f} ms over {reps} runs; per step (median ms):")
    for label in sorted(runs[0], key=lambda k: -statistics.median(r.get(k, 0.0) for r in runs)):
        print(f"  {statistics.median(r.get(label, 0.0) for r in runs) * 1000:7.1f}  {label}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(tree: Path, reps: int, f: dict[str, float | str | int]) -> None:
    """Print the figures of one `measure`."""
    s, v, m = float(f["stdlib_median"]), float(f["verify_median"]), float(f["markdown_median"])
    print(f"tree: {tree} ({f['rows']} table rows, {f['values']} values parsed by the stdlib baseline)")
    print(f"stdlib parse: median {s * 1000:.1f} ms, min {float(f['stdlib_min']) * 1000:.1f} ms over {reps} runs")
    print(f"verify (mlperf-inference profile): median {v * 1000:.1f} ms, min {float(f['verify_min']) * 1000:.1f} ms, verdict {f['verdict']}, {f['findings']} findings")
    print(f"of which the README's Markdown parse (markdown_document, one parse of {f['readme_bytes']} bytes): median {m * 1000:.1f} ms = {m / s:.1f}x the stdlib baseline alone")
    print(f"of which the {f['mllog_lines']} :::MLLOG lines as strict JSON (verifier.formats.jsonio): median {float(f['strict_json_median']) * 1000:.1f} ms "
          f"= {float(f['strict_json_median']) / s:.1f}x the stdlib baseline (plain json.loads of them: {float(f['plain_json_median']) * 1000:.1f} ms)")
    print(f"ratio verify / stdlib: {v / s:.1f}x of the medians, {float(f['verify_min']) / float(f['stdlib_min']):.1f}x of the minimums "
          f"(target < 2x); without the Markdown parse: {(v - m) / s:.1f}x")


def against(base_ref: str, tree: Path, reps: int, rounds: int) -> None:
    """Measure checkout `base_ref` and this checkout alternately in child processes, `rounds` times; print each round and the medians."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", base_ref], capture_output=True, text=True, check=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"base {base_ref} = {sha[:12]}; head: this checkout ({head}{', with uncommitted changes' if dirty else ''}); {rounds} rounds x {reps} runs")
    print(f"load average before: {_load()}")
    with tempfile.TemporaryDirectory(prefix="bench-mlperf-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), sha], capture_output=True, check=True)
        try:
            ratios: dict[str, dict[str, list[float]]] = {"base": {"median": [], "min": []}, "head": {"median": [], "min": []}}
            for rnd in range(1, rounds + 1):
                for label, checkout in (("base", base), ("head", ROOT)):
                    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(tree), "--reps", str(reps), "--child", str(checkout)],
                                          capture_output=True, text=True)
                    if proc.returncode != 0:
                        raise SystemExit(f"{label} run failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
                    f = json.loads(proc.stdout.strip().splitlines()[-1])
                    med, low = f["verify_median"] / f["stdlib_median"], f["verify_min"] / f["stdlib_min"]
                    ratios[label]["median"].append(med)
                    ratios[label]["min"].append(low)
                    print(f"round {rnd} {label}: stdlib median {f['stdlib_median'] * 1000:.1f} ms, verify median {f['verify_median'] * 1000:.1f} ms, "
                          f"ratio {med:.2f}x (of the minimums {low:.2f}x), verdict {f['verdict']}, {f['findings']} findings", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
    print(f"load average after: {_load()}")
    for label in ("base", "head"):
        print(f"{label}: ratio verify / stdlib, median over rounds: {statistics.median(ratios[label]['median']):.2f}x of the medians, "
              f"{statistics.median(ratios[label]['min']):.2f}x of the minimums (target < 2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--base", help="also measure this commit, alternating with this checkout, in one run")
    parser.add_argument("--rounds", type=int, default=3, help="with --base: alternating rounds (default 3)")
    parser.add_argument("--phases", action="store_true", help="print where one run's time goes (per reading step and check)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # internal: measure the checkout at this path, print JSON
    args = parser.parse_args()
    if args.child is not None:
        sys.path.insert(0, str(args.child))
        print(json.dumps(measure(args.tree.resolve(), args.reps)))
        return
    if args.phases:
        sys.path.insert(0, str(ROOT))
        phases(args.tree.resolve(), args.reps)
        return
    if args.base:
        against(args.base, args.tree.resolve(), args.reps, args.rounds)
        return
    sys.path.insert(0, str(ROOT))
    print(f"load average before: {_load()}")
    figures = measure(args.tree.resolve(), args.reps)
    print(f"load average after: {_load()}")
    report(args.tree, args.reps, figures)


if __name__ == "__main__":
    main()
