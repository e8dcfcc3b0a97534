"""
A claims headline of 64 MiB (issue 42): `verify` must finish in under 10 s and 500 MiB of resident memory.

Builds a copy of `examples/ref2va-5s` whose `claims.json` headline is the
shipped one followed by 64 MiB of words in one sentence (no full stop), re-hashes
its manifest, and runs `python -m verifier -f json` on it in a child process,
measuring wall time, CPU time and the child's peak resident set size (`resource.getrusage`,
`RUSAGE_CHILDREN`, KiB on Linux). The bound is on wall time, measured on a machine running nothing else. Prints one line of figures and exits 1 when a
bound is exceeded. Also reports the size of the JSON report, which the size
budget (`verifier.model.findings.MAX_SHOWN_CHARS`) keeps independent of the headline.

    PYTHONPATH=$PWD python benchmarks/bench_huge_headline.py [MIB]
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
EXAMPLE = ROOT / "examples" / "ref2va-5s"
MAX_SECONDS = 10.0
MAX_RSS_MIB = 500


def build(dest: Path, mib: int) -> None:
    """Write the example bundle at `dest` with a headline of `mib` MiB of words after its numbers, manifest re-hashed."""
    shutil.copytree(EXAMPLE, dest)
    claims = json.loads((dest / "claims.json").read_text())
    claims["headline"] += " and" + " more words here" * (mib * 2**20 // 16)
    (dest / "claims.json").write_text(json.dumps(claims))
    manifest = json.loads((dest / "manifest.json").read_text())
    for entry in manifest["files"]:
        data = (dest / entry["path"]).read_bytes()
        entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))


def main(argv: list[str]) -> int:
    """Build, run and judge; return 0 within the bounds, else 1."""
    mib = int(argv[0]) if argv else 64
    with tempfile.TemporaryDirectory() as tmp:
        bundle = Path(tmp) / "bundle"
        build(bundle, mib)
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "verifier", "-f", "json", "--no-cache", str(bundle)],
                             capture_output=True, cwd=ROOT)
        seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    verdict = json.loads(run.stdout)["verdict"] if run.stdout.startswith(b"{") else f"exit {run.returncode}: {run.stderr[-300:]!r}"
    print(f"headline {mib} MiB: {seconds:.2f} s wall ({cpu:.2f} s CPU: on a loaded machine wall time is not the verifier's), peak RSS {rss:.0f} MiB, JSON report {len(run.stdout)} bytes, verdict {verdict}")
    return 0 if seconds < MAX_SECONDS and rss < MAX_RSS_MIB else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
