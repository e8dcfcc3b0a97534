"""
Benchmark: what a receipts path held as Apache Arrow columns end to end would cost (issue 40's ratio), not verify itself.

Usage (from the repository root, with pyarrow installed by hand: it is not a
dependency of verify): ``python benchmarks/bench_arrow_route.py [N]`` (default 1000000;
anything but a count of lines prints this usage and exits 2, ``-h`` exits 0). At
small N fixed costs weigh on every figure: issue 40's figures are at 10^6.

Builds `bench_receipts.build`'s bundle of N receipt lines and times, with
`time.process_time` and Arrow held to one CPU thread, the work of a run done
over Arrow arrays instead of Python objects:
the SHA-256 of every file; `plan.json` and `receipts.jsonl` read by
pyarrow's JSON reader (`elapsed_s` as `decimal128(18, 9)`: a number with
more places is refused, not rounded); the receipts joined to the planned
requests by id (`pyarrow.compute.index_in`) with ids unique and server and
phase as planned; both timestamps cast to instants; each elapsed time against
its span; the exact per-server sums of `elapsed_s` (`group_by`); every outcome
`ok`. It prints microseconds per line for each part, the total, and the total
over `bench_receipts.parse_alone` (msgspec's decoder alone).

Left out, so the total is a floor of that route, not its cost: the findings,
the names' pattern, worker receipts and outputs, time order and overlap, the
tolerances, and the screens pyarrow's reader would need to read as strictly
as verify does (it accepts a byte order mark, `NaN` where a double is
expected, and a string such as "0.5" where a decimal is). Not a test: no exit
code for speed (exit 2 without pyarrow).
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
import bench_receipts  # noqa: E402


def route(bundle: Path) -> dict[str, float]:
    """Return the CPU seconds of each part of the Arrow route over `bundle` (see the module docstring); raises AssertionError if a part finds the bundle wrong."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    parts: dict[str, float] = {}
    start = time.process_time()
    for path in sorted(bundle.iterdir()):
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    parts["sha256 of every file"] = time.process_time() - start

    start = time.process_time()
    plan = pj.read_json(bundle / "plan.json", read_options=pj.ReadOptions(use_threads=False, block_size=1 << 27))
    planned = plan.column("requests").combine_chunks().values  # one struct a planned request
    parts["plan.json read"] = time.process_time() - start

    start = time.process_time()
    schema = pa.schema([("kind", pa.string()), ("request_id", pa.string()), ("arm", pa.string()), ("server", pa.string()),
                        ("phase", pa.string()), ("started_at", pa.string()), ("ended_at", pa.string()),
                        ("elapsed_s", pa.decimal128(18, 9)), ("outcome", pa.string())])
    receipts = pj.read_json(bundle / "receipts.jsonl", read_options=pj.ReadOptions(use_threads=False, block_size=1 << 22),
                            parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer"))
    parts["receipts.jsonl read"] = time.process_time() - start

    start = time.process_time()
    ids = receipts.column("request_id")
    assert pc.count_distinct(ids).as_py() == len(ids), "a request id repeats"
    at = pc.index_in(ids, value_set=planned.field("id"))
    assert at.null_count == 0, "an unplanned receipt"
    for name in ("server", "phase"):
        assert pc.all(pc.equal(receipts.column(name), pc.take(planned.field(name), at))).as_py(), f"a receipt's {name} is not the plan's"
    parts["join to the plan"] = time.process_time() - start

    start = time.process_time()
    instants = [pc.cast(receipts.column(name), pa.timestamp("ns", tz="UTC")) for name in ("started_at", "ended_at")]
    parts["timestamps"] = time.process_time() - start

    start = time.process_time()
    span = pc.cast(pc.subtract(instants[1], instants[0]), pa.int64())
    stated = pc.cast(pc.multiply(pc.cast(receipts.column("elapsed_s"), pa.float64()), 1e9), pa.int64())
    assert pc.max(pc.abs(pc.subtract(span, stated))).as_py() <= 1, "an elapsed time is not its span"
    parts["elapsed against span"] = time.process_time() - start

    start = time.process_time()
    sums = receipts.group_by("server").aggregate([("elapsed_s", "sum"), ("elapsed_s", "count")])
    assert sums.num_rows == 2
    parts["per-server exact sums"] = time.process_time() - start

    start = time.process_time()
    assert pc.all(pc.equal(receipts.column("outcome"), "ok")).as_py(), "an outcome is not ok"
    parts["outcomes"] = time.process_time() - start
    return parts


def main(n: int) -> int:
    """Print the parts, the total and the ratio for a bundle of `n` lines; return the exit code."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print("bench_arrow_route.py: pyarrow is not installed (it is no dependency of verify): pip install pyarrow", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-arrow-") as tmp:
        bundle, _assets = bench_receipts.build(Path(tmp), n)
        parts = route(bundle)
        parse = bench_receipts.parse_alone(bundle / "receipts.jsonl")
    for part, seconds in parts.items():
        print(f"{part:24} {1e6 * seconds / n:6.2f} us/line")
    total = sum(parts.values())
    print(f"total {1e6 * total / n:.2f} us/line, {total / parse:.1f}x the parse alone ({1e6 * parse / n:.2f} us/line)")
    return 0


if __name__ == "__main__":
    sys.exit(main(bench_receipts.lines_argument(__doc__, 1_000_000)))
