"""
Benchmark: a native bundle with 10^5 and 10^6 receipt records (issue 10, "Speed and memory").

Usage: `python benchmarks/receipts_bench.py [--sizes 100000,1000000] [--keep DIR]`

For each size N, writes a bundle (format v1) with two arms, one server each,
N/2 measured requests per server, its plan (N planned requests), claims
(count, arm means) and manifest, under a gate written for it into a
temporary pinned asset root. Then runs `verify_path` on it in a fresh
process and prints the verdict, wall time (verification only, not the
writing) and peak RSS (`ru_maxrss` of that process), and the time per
record. Linear time means the per-record time stays flat from 10^5 to
10^6. Side effects: writes under a temporary directory (removed unless
`--keep`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
from verifier.core import verify_path
t0 = time.perf_counter()
report = verify_path(sys.argv[1], asset_root=sys.argv[2])
seconds = time.perf_counter() - t0
print(json.dumps({"verdict": report.verdict, "seconds": seconds,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "findings": len(report.findings)}))
"""


def _assets(root: Path, per_server: int) -> Path:
    from verifier.trust import write_inventory

    shutil.copytree(ROOT / "schemas", root / "schemas")
    shutil.copytree(ROOT / "gates", root / "gates")
    gate = {
        "id": "bench-v1", "version": 1, "description": "benchmark gate: two arms, one server each, counts and arm means",
        "plan": {"arm_order": ["A", "B"], "servers_per_arm": 1, "warmups_per_server": 0, "measured_per_server": per_server},
        "claims": [
            {"claim": "count.requests", "statistic": "count", "of": "requests"},
            {"claim": "arm_mean_s", "statistic": "mean_of_server_means", "per": "arm", "selection": {"phase": "measured"}},
        ],
    }
    (root / "gates" / "bench-v1.json").write_text(json.dumps(gate, indent=2))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    return root


def _bundle(root: Path, n: int) -> Path:
    from verifier.manifest import write_manifest

    root.mkdir(parents=True)
    per = n // 2
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    plan_requests, lines, sums = [], [], {"baseline": Decimal(0), "candidate": Decimal(0)}
    for arm, server, offset in (("baseline", "s1", 0), ("candidate", "s2", per)):
        for i in range(per):
            rid = f"{server}-m{i}"
            elapsed = Decimal(10 + i % 7) / 10 if arm == "baseline" else Decimal(5 + i % 3) / 10
            sums[arm] += elapsed
            start = t0 + timedelta(seconds=2 * (offset + i))
            end = start + timedelta(seconds=float(elapsed))
            plan_requests.append({"id": rid, "server": server, "phase": "measured"})
            lines.append(json.dumps({"kind": "request", "request_id": rid, "arm": arm, "server": server, "phase": "measured",
                                     "started_at": start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "ended_at": end.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                                     "elapsed_s": float(elapsed), "outcome": "ok", "http_status": 200, "error": None, "outputs": []}))
    plan = {"format": "verify-plan", "format_version": 1, "campaign": "bench", "frozen_at": "2025-12-31T00:00:00Z",
            "arms": [{"id": "baseline", "label": "A", "role": "baseline", "revision": "r0"},
                     {"id": "candidate", "label": "B", "role": "candidate", "revision": "r1"}],
            "servers": [{"id": "s1", "arm": "baseline"}, {"id": "s2", "arm": "candidate"}],
            "arm_order": ["A", "B"], "warmups_per_server": 0, "measured_per_server": per, "requests": plan_requests,
            "expected_output": {"frames": 24, "fps": "24", "sample_rate": 32000, "channels": 2}}
    means = {arm: sums[arm] / per for arm in sums}
    claims = {"format": "verify-claims", "format_version": 1, "claims": [
        {"id": "count.requests", "value": n},
        {"id": "arm_mean_s.baseline", "value": float(means["baseline"]), "unit": "s"},
        {"id": "arm_mean_s.candidate", "value": float(means["candidate"]), "unit": "s"}]}
    (root / "plan.json").write_text(json.dumps(plan))
    (root / "receipts.jsonl").write_text("\n".join(lines) + "\n")
    (root / "claims.json").write_text(json.dumps(claims))
    write_manifest(root, gate="bench-v1")
    return root


def main(argv: list[str]) -> int:
    """Run the benchmark; print one line per size; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--keep", default=None)
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="receipts-bench-"))
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            assets = _assets(work / f"assets-{n}", n // 2)
            t = time.perf_counter()
            bundle = _bundle(work / f"bundle-{n}", n)
            built = time.perf_counter() - t
            out = subprocess.run([sys.executable, "-c", CHILD, str(bundle), str(assets), str(ROOT)], capture_output=True, text=True, check=False)
            if out.returncode != 0:
                print(f"{n} records: the verifier process failed: {out.stderr.strip()[-500:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{n:>9} records: verdict {r['verdict']}, verify {r['seconds']:.1f} s ({r['seconds'] / n * 1e6:.1f} us/record), "
                  f"peak RSS {r['peak_rss_mib']:.0f} MiB, {r['findings']} findings (bundle written in {built:.1f} s)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
