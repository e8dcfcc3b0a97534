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

Prints the median of `--reps` runs of each and the ratio verify / stdlib,
and the median time of parsing the README once with markdown-it-py (what
`verify` reads the README's table and prose with; the stdlib baseline only
splits its lines at `|`), the floor that parse sets on the ratio.
Usage: `python benchmarks/bench_profile_mlperf.py [TREE] [--reps N]`.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import statistics
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "mlperf-inference-test-submissions-v5.0"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    from verifier.core import verify_path

    verify_path(str(args.tree))  # warm-up: imports, pins, schema compilation
    parse_stdlib(args.tree)
    from verifier.grammars import markdown_document

    readme = (args.tree / "README.md").read_bytes()
    ours, theirs, markdown = [], [], []
    for _ in range(args.reps):
        start = time.perf_counter()
        values = parse_stdlib(args.tree)
        theirs.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = verify_path(str(args.tree))
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        markdown_document(readme)
        markdown.append(time.perf_counter() - start)
    rows = sum(1 for f in report.findings if f.check == "profile.claims" and f.message.startswith("Result["))
    s, v = statistics.median(theirs), statistics.median(ours)
    print(f"tree: {args.tree} ({rows} table rows, {values} values parsed by the stdlib baseline)")
    print(f"stdlib parse: median {s * 1000:.1f} ms over {args.reps} runs")
    print(f"verify (mlperf-inference profile): median {v * 1000:.1f} ms, verdict {report.verdict}, {len(report.findings)} findings")
    m = statistics.median(markdown)
    print(f"of which the README's Markdown parse (markdown-it-py, one parse of {len(readme)} bytes): median {m * 1000:.1f} ms = {m / s:.1f}x the stdlib baseline alone")
    print(f"ratio verify / stdlib: {v / s:.1f}x (target < 2x); without the Markdown parse: {(v - m) / s:.1f}x")


if __name__ == "__main__":
    main()
