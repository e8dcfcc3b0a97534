"""
Benchmark: what a receipts path held as Apache Arrow columns end to end would cost (issue 40's ratio), not verify itself.

Usage (from the repository root, with pyarrow installed by hand: it is not a
dependency of verify): ``python benchmarks/bench_arrow_route.py [N]`` (default 1000000;
anything but a count of lines prints this usage and exits 2, ``-h`` exits 0). At
small N fixed costs weigh on every figure: issue 40's figures are at 10^6.

Builds `bench_receipts.build`'s bundle of N receipt lines and times, with
`time.process_time` and Arrow held to one CPU thread, the work of a run done
over Arrow arrays instead of Python objects: every file read into memory
once and its SHA-256; `plan.json` read by pyarrow's JSON reader, and again
the way verify reads it (msgspec's typed decode, `native.vouch_plan`, then
three Arrow arrays); `receipts.jsonl` read by pyarrow's JSON reader
(`elapsed_s` as `decimal128(18, 9)`: a number with more places is refused,
not rounded); the receipts joined to the planned requests by id
(`pyarrow.compute.index_in`) with ids unique and server and phase as
planned; both timestamps cast to instants; each elapsed time against its
span; the exact per-server sums of `elapsed_s` (`group_by`); every outcome
`ok`; the names' pattern (ids whole, servers and arms once each); the
`date-time` format (`compiled_schema.DATE_TIME_PATTERN`: pyarrow's cast also
takes "2026-01-01 00:00:00Z"); time order and overlap (each request starts
at or after the end of the one before it); and the screens of the bytes for
what pyarrow's reader accepts and verify refuses (a byte order mark, `NaN`,
`Infinity`, `elapsed_s` written as a string such as "0.5", which pyarrow
reads as a decimal). It prints microseconds per line for each part, then
the total and the total over `bench_receipts.parse_alone` (msgspec's decoder
alone) twice: with the plan read by pyarrow, and with it read typed.

Left out, so the total is a floor of that route, not its cost: the
findings, worker receipts and outputs, plan conformance beyond the join
(counts per server, arm order), the derivations and tolerances at stated
precision, and any fallback that names the line of a problem (pyarrow's
errors name none). Each part is a bare vectorized test that raises
AssertionError on this bundle only if it is wrong. Not a test: no exit code
for speed (exit 2 without pyarrow).
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
    start = time.process_time()  # each file read once, into memory: hashed, screened and parsed from there
    held = {path.name: path.read_bytes() for path in sorted(bundle.iterdir())}
    for data in held.values():
        hashlib.sha256(data).digest()
    parts["sha256 of every file"] = time.process_time() - start

    start = time.process_time()
    plan = pj.read_json(pa.BufferReader(held["plan.json"]), read_options=pj.ReadOptions(use_threads=False, block_size=1 << 27))
    planned = plan.column("requests").combine_chunks().values  # one struct a planned request
    parts["plan.json read"] = time.process_time() - start

    start = time.process_time()  # the same, read as verify reads it: msgspec's typed decode (`native.vouch_plan`), then three arrays
    from verifier.formats.jsonio import loads_typed_each
    from verifier.readers import native

    typed = loads_typed_each([held["plan.json"].decode("utf-8")], native._PLAN)[0].requests
    pa.array([r.id for r in typed]), pa.array([r.server for r in typed]), pa.array([r.phase for r in typed])
    del typed
    parts[PLAN_TYPED] = time.process_time() - start

    start = time.process_time()
    schema = pa.schema([("kind", pa.string()), ("request_id", pa.string()), ("arm", pa.string()), ("server", pa.string()),
                        ("phase", pa.string()), ("started_at", pa.string()), ("ended_at", pa.string()),
                        ("elapsed_s", pa.decimal128(18, 9)), ("outcome", pa.string())])
    receipts = pj.read_json(pa.BufferReader(held["receipts.jsonl"]), read_options=pj.ReadOptions(use_threads=False, block_size=1 << 22),
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

    start = time.process_time()  # the schema's pattern of the names (`native.NAME_PATTERN`): ids whole, servers and arms once each
    name = f"^{NAME_PATTERN}$"
    assert pc.all(pc.match_substring_regex(ids, name)).as_py(), "a request id off the names' pattern"
    for column in ("server", "arm"):
        assert pc.all(pc.match_substring_regex(pc.unique(receipts.column(column)), name)).as_py(), f"a {column} off the names' pattern"
    parts["names' pattern"] = time.process_time() - start

    start = time.process_time()  # pyarrow's cast takes "2026-01-01 00:00:00Z" too: the `date-time` format is its own pass
    for column in ("started_at", "ended_at"):
        assert pc.all(pc.match_substring_regex(receipts.column(column), DATE_TIME)).as_py(), f"a {column} off the date-time format"
    parts["date-time format"] = time.process_time() - start

    start = time.process_time()  # one request in flight at a time: each starts at or after the end of the one before it
    order = pc.sort_indices(instants[0])
    began, ended = (pc.take(column, order).combine_chunks() for column in instants)
    assert pc.all(pc.greater_equal(began.slice(1), ended.slice(0, len(ended) - 1))).as_py(), "two requests overlap"
    parts["time order and overlap"] = time.process_time() - start

    start = time.process_time()  # what pyarrow's reader accepts and strict JSON or the schema does not: NaN, Infinity, a quoted number
    data = held["receipts.jsonl"]
    assert not data.startswith(b"\xef\xbb\xbf") and b"NaN" not in data and b"Infinity" not in data, "a text pyarrow reads and verify refuses"
    assert data.count(b'"elapsed_s":') == receipts.num_rows and b'"elapsed_s":"' not in data, "elapsed_s written otherwise: read the slow way"
    parts["strictness screens"] = time.process_time() - start
    return parts


#: The part that reads `plan.json` as verify does (msgspec), the other way to the same arrays as "plan.json read".
PLAN_TYPED = "plan.json read, typed"
#: The schema's name pattern and the `date-time` format (`verifier.schema.compiled_schema.DATE_TIME_PATTERN`, in RE2's dialect: `$` for `\z`).
NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9._-]*"
DATE_TIME = None  # set in `route`'s caller from the package, so the benchmark times the very pattern verify applies


def main(n: int) -> int:
    """Print the parts, the total and the ratio for a bundle of `n` lines; return the exit code."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print("bench_arrow_route.py: pyarrow is not installed (it is no dependency of verify): pip install pyarrow", file=sys.stderr)
        return 2
    global DATE_TIME
    from verifier.schema.compiled_schema import DATE_TIME_PATTERN

    DATE_TIME = DATE_TIME_PATTERN.removesuffix("\\z") + "$"
    with tempfile.TemporaryDirectory(prefix="bench-arrow-") as tmp:
        bundle, _assets = bench_receipts.build(Path(tmp), n)
        parts = route(bundle)
        parse = bench_receipts.parse_alone(bundle / "receipts.jsonl")
    for part, seconds in parts.items():
        print(f"{part:24} {1e6 * seconds / n:6.2f} us/line")
    for way, left_out in (("the plan read by pyarrow", PLAN_TYPED), ("the plan read typed (msgspec)", "plan.json read")):
        total = sum(seconds for part, seconds in parts.items() if part != left_out)
        print(f"total, {way}: {1e6 * total / n:.2f} us/line, {total / parse:.1f}x the parse alone ({1e6 * parse / n:.2f} us/line)")
    return 0


if __name__ == "__main__":
    sys.exit(main(bench_receipts.lines_argument(__doc__, 1_000_000)))
