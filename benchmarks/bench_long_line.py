"""
Benchmark: a receipts file of one 1 GiB line is refused in bounded memory (issue 40, "Bad input").

Usage (from the repository root):
    .venv/bin/python benchmarks/bench_long_line.py [GiB]      # default: 1

Builds the example bundle (`examples/ref2va-5s`) in a temporary directory with
one more receipt line of the given size appended to `receipts.jsonl` (a JSON
string of that many bytes), re-pins the manifest, runs `verify_path` in a
child process (so its peak RSS is the verification's alone) and prints the wall and CPU seconds, the findings of
`schema.documents` that are not PASS, and the peak RSS beside the file size.
The line is longer than `verifier.formats.jsonio.LINE_LIMIT`, so it is one FAIL
`line-too-long` and its bytes are dropped as they are read: the peak RSS stays
far below the file size. Not a test: exit 1 only if the finding is missing.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Build, verify in a child process and print one row; return 1 if `line-too-long` was not reported."""
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        return one(Path(sys.argv[2]))
    gib = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    size = int(gib * 2**30)
    with tempfile.TemporaryDirectory(prefix="bench-long-line-") as tmp:
        bundle = Path(tmp) / "bundle"
        shutil.copytree(ROOT / "examples" / "ref2va-5s", bundle)
        receipts = bundle / "receipts.jsonl"
        with open(receipts, "ab") as out:
            out.write(b'{"kind":"request","error":"')
            block = b"x" * 2**20
            for _ in range(size // len(block)):
                out.write(block)
            out.write(b'"}\n')
        manifest = json.loads((bundle / "manifest.json").read_text())
        for entry in manifest["files"]:
            if entry["path"] == "receipts.jsonl":
                entry.update(sha256=_sha256(receipts), size=receipts.stat().st_size)
        (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))
        result = subprocess.run([sys.executable, __file__, "--one", str(bundle)], capture_output=True, text=True, cwd=ROOT)
    print(result.stdout.strip() or result.stderr.strip()[-2000:])
    return result.returncode


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(2**20):
            digest.update(chunk)
    return digest.hexdigest()


def one(bundle: Path) -> int:
    """Verify `bundle` and print one JSON line of measurements."""
    from verifier.core import verify_path

    file_mib = (bundle / "receipts.jsonl").stat().st_size / 2**20
    wall, cpu = time.perf_counter(), time.process_time()
    report = verify_path(str(bundle))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    found = [f"{f.status.value} {f.code} {f.pointer}" for f in report.findings if f.check == "schema.documents" and f.status.value != "PASS"]
    print(json.dumps({"receipts_file_mib": round(file_mib), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                      "schema_findings": found, "verdict": report.verdict, "peak_rss_mib": round(peak)}))
    return 0 if any("line-too-long" in f for f in found) else 1


if __name__ == "__main__":
    sys.exit(main())
