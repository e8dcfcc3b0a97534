"""
Benchmark: the example bundle's stated claims bound against N extra request receipts (issue 40's newcomer trial).

Usage (from the repository root):
    .venv/bin/python benchmarks/bench_stated_many.py [N ...]      # default: 5000 20000

For each N, copies `examples/ref2va-5s` into a temporary directory, appends N
copies of its third receipt line under new request ids (unplanned receipts:
the verdict is FAIL, which is expected), re-pins the manifest, and runs
`verify_path` in a child process; prints N, the CPU seconds of the
verification, CPU microseconds per added line, the CPU seconds of
`claims.stated` alone and the peak RSS. Each request id is a key a
sentence may name (`verifier.prose.wording.keys_of`), so this shows whether
binding the example's prose grows with the number of requests. Not a test:
no exit code for speed.
"""

from __future__ import annotations

import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(bundle: Path, n: int) -> None:
    """Copy the example to `bundle` and append `n` receipt lines with new ids; re-pin receipts.jsonl in the manifest."""
    shutil.copytree(ROOT / "examples" / "ref2va-5s", bundle)
    receipts = bundle / "receipts.jsonl"
    line = json.loads(receipts.read_text().splitlines()[2])
    with open(receipts, "a") as out:
        for i in range(n):
            out.write(json.dumps({**line, "request_id": f"X-{i}"}) + "\n")
    manifest = json.loads((bundle / "manifest.json").read_text())
    data = receipts.read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == "receipts.jsonl":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))


def one(bundle: Path, n: int) -> None:
    """Verify `bundle` and print one JSON line of measurements."""
    sys.path.insert(0, str(ROOT))
    from verifier.engine import pipeline
    from verifier.core import verify_path

    spent: dict[str, float] = {}
    call = pipeline.Check.__call__

    def timed(self, ctx):  # type: ignore[no-untyped-def]
        start = time.process_time()
        out = list(call(self, ctx))
        spent[self.id] = spent.get(self.id, 0.0) + time.process_time() - start
        return out

    pipeline.Check.__call__ = timed  # type: ignore[method-assign]
    cpu = time.process_time()
    report = verify_path(str(bundle))
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": n, "cpu_s": round(cpu, 2), "cpu_us_per_line": round(1e6 * cpu / n, 1),
                      "claims_stated_cpu_s": round(spent.get("claims.stated", 0.0), 2), "verdict": report.verdict, "peak_rss_mib": round(peak)}))


def main() -> int:
    """Run every N in its own child process and print a table."""
    if len(sys.argv) > 3 and sys.argv[1] == "--one":
        one(Path(sys.argv[2]), int(sys.argv[3]))
        return 0
    sizes = [int(a) for a in sys.argv[1:]] or [5000, 20000]
    print(f"{'lines':>7} {'cpu s':>7} {'cpu us/line':>12} {'claims.stated s':>16}  verdict  peak RSS")
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-stated-") as tmp:
            bundle = Path(tmp) / "bundle"
            build(bundle, n)
            result = subprocess.run([sys.executable, __file__, "--one", str(bundle), str(n)], capture_output=True, text=True, cwd=ROOT)
        if result.returncode != 0:
            print(f"{n:>7} failed: {result.stderr.strip().splitlines()[-1:]}")
            continue
        row = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"{n:>7} {row['cpu_s']:>7} {row['cpu_us_per_line']:>12} {row['claims_stated_cpu_s']:>16}  {row['verdict']:7}  {row['peak_rss_mib']} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
