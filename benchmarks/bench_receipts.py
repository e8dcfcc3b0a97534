"""
Benchmark: a bundle of N receipt lines verifies in time linear in N (issue 14).

Usage (from the repository root):
    python benchmarks/bench_receipts.py [N ...]      # default: 10000 100000 1000000

For each N a bundle is built in a temporary directory: a plan with N planned
measured requests over two servers (baseline A, candidate B), N request
receipts (one per planned request, 10 ms apart, each 5 ms long, written
compactly: about 190 bytes a line; above 10^6 lines the plan lists its
requests in the shard `plan-requests.jsonl`, since 10^7 of them are over the
256 MiB limit for one JSON document), and claims
of the request count and both arm means, judged by a test gate pinned in a
fresh asset root. Each N runs in a fresh child process, which builds its
bundle and then runs `verify_path` on it (its peak RSS is the larger of the
two; the verification's at 10^6 and above). The script prints the machine's
core count and load average, then per N: the wall and CPU seconds of the
verification alone, wall and CPU microseconds per receipt line (CPU can
exceed wall: numpy's OpenBLAS threads spin on the second core after its
first call; with `OPENBLAS_NUM_THREADS=1` the two agree), the CPU
microseconds per line of decoding the same lines with msgspec's compiled
JSON decoder alone and the ratio verify CPU / that parse (issue 40), then
the same with the standard library's `json.loads` (whose scanner is
compiled C too; `json ratio`), the verdict and the peak RSS. The cyclic
collector is set as the `verify` command sets it
(`verifier.fastpath.gc_for_one_run`). Linear time shows as a flat microseconds-per-line column. Not a
test: no pass/fail exit code for speed (exit 1 only if a verdict is not PASS;
exit 2, with the usage, for an argument that is no count of lines).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Above this many lines the plan names its requests' shard, `plan-requests.jsonl`, instead of listing them itself.
SHARD_ABOVE = 1_000_000
GATE = {"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1},
        "claims": [{"claim": "count.requests", "statistic": "count", "of": "requests"},
                   {"claim": "arm_mean_s", "statistic": "mean_of_server_means", "per": "arm", "selection": {"phase": "measured"}}]}


def build(root: Path, n: int) -> tuple[Path, str]:
    """Write the N-line bundle and its asset root under `root`; return (bundle, asset root)."""
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    from bundlekit import asset_root

    from verifier.commands.manifest import write_manifest

    assets = asset_root(root, {"bench-v1": GATE})
    bundle = root / "bundle"
    bundle.mkdir()
    half = n // 2
    servers = (("s1", "baseline"), ("s2", "candidate"))
    requests = [{"id": f"{sid}-{i}", "server": sid, "phase": "measured"} for sid, _ in servers for i in range(half)]
    plan = {"format": "verify-plan", "format_version": 1, "campaign": "bench", "frozen_at": "2026-01-01T00:00:00Z",
            "arms": [{"id": "baseline", "label": "A", "role": "baseline", "revision": "r0"},
                     {"id": "candidate", "label": "B", "role": "candidate", "revision": "r1"}],
            "servers": [{"id": sid, "arm": arm} for sid, arm in servers], "arm_order": ["A", "B"],
            "warmups_per_server": 0, "measured_per_server": half, "requests": requests,
            "expected_output": {"frames": 24, "fps": "24", "sample_rate": 32000, "channels": 2}}
    if n > SHARD_ABOVE:  # over 256 MiB as one document: the requests go to the shard the plan names (docs/bundle-format.md)
        with open(bundle / "plan-requests.jsonl", "w") as out:
            out.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)
        plan["requests"] = {"file": "plan-requests.jsonl"}
    (bundle / "plan.json").write_text(json.dumps(plan))
    with open(bundle / "receipts.jsonl", "w") as out:
        for k, (sid, arm) in enumerate(servers):
            for i in range(half):
                t = k * half + i  # 10 ms apart, one after another: never more than one in flight
                start, end = f"2026-01-01T{t // 360000 % 24:02d}:{t // 6000 % 60:02d}:{t // 100 % 60:02d}.{t % 100:02d}0000Z", None
                end = start[:-5] + "5000Z"
                # compact: about 190 bytes a line
                out.write(json.dumps({"kind": "request", "request_id": f"{sid}-{i}", "arm": arm, "server": sid, "phase": "measured",
                                      "started_at": start, "ended_at": end, "elapsed_s": 0.005, "outcome": "ok", "outputs": []},
                                     separators=(",", ":")) + "\n")
    claims = {"format": "verify-claims", "format_version": 1, "claims": [
        {"id": "count.requests", "value": 2 * half}, {"id": "arm_mean_s.baseline", "value": 0.005, "unit": "s"},
        {"id": "arm_mean_s.candidate", "value": 0.005, "unit": "s"}]}
    (bundle / "claims.json").write_text(json.dumps(claims))
    write_manifest(bundle, gate="bench-v1")
    return bundle, assets


def one(n: int) -> None:
    """Build and verify one bundle of `n` lines; print one JSON line of measurements."""
    with tempfile.TemporaryDirectory(prefix="bench-receipts-") as tmp:
        bundle, assets = build(Path(tmp), n)
        from verifier.core import verify_path
        from verifier.fastpath import gc_for_one_run

        gc_for_one_run()  # the collector as the `verify` process sets it (issue 40); the library leaves it alone
        wall, cpu = time.perf_counter(), time.process_time()
        report = verify_path(str(bundle), asset_root=assets)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        bad = [f"{f.status.value} {f.code}" for f in report.findings if f.status.value != "PASS"][:3]
        peak = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        parse = parse_alone(bundle / "receipts.jsonl")
        parse_json = parse_alone(bundle / "receipts.jsonl", stdlib=True)
        print(json.dumps({"n": n, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "us_per_line": round(1e6 * wall / n, 1), "cpu_us_per_line": round(1e6 * cpu / n, 1),
                          "verdict": report.verdict, "not_pass": bad, "peak_rss_mib": peak,
                          "parse_cpu_us_per_line": round(1e6 * parse / n, 2), "ratio": round(cpu / parse, 1),
                          "json_cpu_us_per_line": round(1e6 * parse_json / n, 2), "json_ratio": round(cpu / parse_json, 1)}))


def parse_alone(path: Path, stdlib: bool = False) -> float:
    """
    Return the CPU seconds of reading `path` and decoding each of its lines with msgspec's compiled JSON decoder alone.

    The floor `verify` is compared with (issue 40): no strictness checks, no
    schema, no model; the best of three runs (after `verify_path`, so the
    peak RSS printed is the verification's). With `stdlib`, the decoder is
    the standard library's `json.loads` instead (its scanner is compiled C,
    `_json`), printed beside msgspec's for comparison.
    """
    import msgspec

    decode = json.loads if stdlib else msgspec.json.Decoder().decode
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        with open(path, "rb") as handle:
            for line in handle:
                decode(line)
        best = min(best, time.process_time() - cpu)
    return best


def lines_argument(usage: str, default: int) -> int:
    """
    Return the one count of lines a benchmark script was given (`sys.argv[1]`), or `default` without one.

    `-h`/`--help` prints `usage` (the script's docstring) and exits 0; any
    other argument, or more than one, prints it to stderr and exits 2.
    """
    args = sys.argv[1:]
    if not args:
        return default
    if len(args) == 1 and _count(args[0]):
        return int(args[0])
    asked = args[0] in ("-h", "--help")
    print(usage.strip(), file=sys.stdout if asked else sys.stderr)
    sys.exit(0 if asked else 2)


def _count(arg: str) -> bool:
    """Return whether `arg` is a count of lines: ASCII digits ("²" is a digit to `str.isdigit` but not to `int`), above 0."""
    return arg.isascii() and arg.isdigit() and int(arg) > 0


def main() -> int:
    """Run every N in its own child process and print a table."""
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        one(int(sys.argv[2]))
        return 0
    if not all(map(_count, sys.argv[1:])):  # -h, --help, or anything that is no count of lines
        print(__doc__.strip().split("\n\n")[1])
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000]
    print(f"nproc {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    print(f"{'lines':>9} {'wall s':>8} {'cpu s':>8} {'us/line':>8} {'cpu us/line':>12} {'parse us/line':>14} {'ratio':>6}"
          f" {'json us/line':>13} {'json ratio':>11}  verdict  peak RSS")
    failed = False
    for n in sizes:
        result = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, cwd=ROOT)
        if result.returncode != 0:
            print(f"{n:>9} failed: {result.stderr.strip().splitlines()[-1:]}")
            failed = True
            continue
        row = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"{n:>9} {row['wall_s']:>8} {row['cpu_s']:>8} {row['us_per_line']:>8} {row['cpu_us_per_line']:>12} {row['parse_cpu_us_per_line']:>14} {row['ratio']:>5}x"
              f" {row['json_cpu_us_per_line']:>13} {row['json_ratio']:>10}x"
              f"  {row['verdict']:7}  {row['peak_rss_mib']} MiB"
              + (f"  {row['not_pass']}" if row["not_pass"] else ""))
        failed |= row["verdict"] != "PASS"
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
