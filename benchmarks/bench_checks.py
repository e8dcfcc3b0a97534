"""
Benchmark: CPU microseconds per receipt line of each check of one native bundle of N receipt lines (issue 40).

Usage (from the repository root): ``python benchmarks/bench_checks.py [N]`` (default 200000; anything but a count of
lines prints this usage and exits 2, ``-h`` exits 0).

Builds the bundle `bench_receipts.build` builds (N planned measured requests over two servers, one receipt each,
a test gate pinned in a fresh asset root, in a temporary directory), sets the cyclic collector as the `verify`
command does (`verifier.fastpath.gc_for_one_run`), runs `verifier.core.verify_path` once with every check's
``Check.__call__`` timed by `time.process_time`, and prints each check costing at least 0.5 % of the run in
microseconds per line, then the run's total and the sum over checks (the rest of the total is outside any check:
finding the bundle's reader, the trust root, the report). Last it prints what reading the bundle strictly costs with
no model and no check (`reading_alone`), that figure over `bench_receipts.parse_alone`'s, and the run's total over it
("the run Nx"). At small N fixed costs (imports, the first numpy call) weigh on every figure; issue 40's are at 10^6.
Not a test: no exit code for speed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
import bench_receipts  # noqa: E402


def main(n: int) -> None:
    """Print the per-check figures for a bundle of `n` receipt lines (built in a temporary directory, removed at the end)."""
    with tempfile.TemporaryDirectory(prefix="bench-checks-") as tmp:
        run(Path(tmp), n)


def run(tmp: Path, n: int) -> None:
    """Build the bundle of `n` lines under `tmp`, time one `verify_path` of it check by check, then its reading alone; print both."""
    bundle, assets = bench_receipts.build(tmp, n)
    from verifier.engine import pipeline
    from verifier.core import verify_path
    from verifier.fastpath import gc_for_one_run

    gc_for_one_run()
    times: dict[str, float] = {}
    original = pipeline.Check.__call__

    def timed(self, ctx):  # type: ignore[no-untyped-def]
        start = time.process_time()
        out = list(original(self, ctx))
        times[self.id] = times.get(self.id, 0.0) + time.process_time() - start
        return out

    pipeline.Check.__call__ = timed
    start = time.process_time()
    verify_path(str(bundle), asset_root=assets)
    total = time.process_time() - start
    for check, seconds in sorted(times.items(), key=lambda item: -item[1]):
        if seconds > 0.005 * total:
            print(f"{check:28} {1e6 * seconds / n:7.2f} us/line")
    print(f"total {1e6 * total / n:.2f} us/line, sum of checks {1e6 * sum(times.values()) / n:.2f}")
    parts = reading_alone(bundle)
    parse = bench_receipts.parse_alone(bundle / "receipts.jsonl")
    for part, seconds in parts.items():
        print(f"reading alone: {part:34} {1e6 * seconds / n:7.2f} us/line")
    print(f"reading alone {1e6 * sum(parts.values()) / n:.2f} us/line, {sum(parts.values()) / parse:.1f}x the parse alone "
          f"({1e6 * parse / n:.2f} us/line); the run {total / parse:.1f}x")


def reading_alone(bundle: Path) -> dict[str, float]:
    """
    Return the CPU seconds of the reading every run of `bundle` does before it models or checks anything, by part.

    Parts: the SHA-256 of every file (`integrity.files`); `plan.json` read
    into its typed form, which vouches it is strict JSON
    (`verifier.formats.jsonio.loads_typed_each`, as `native.vouch_plan` reads
    it); `receipts.jsonl` as a stream of lines, each batch read into the typed
    receipts the same way (`iter_strict_batches` with the `vouch` of
    `native.ReceiptLines` minus its column checks and the model). A floor of
    this design for issue 40's ratio: what the model and the checks add is
    the run's total less this.
    """
    import hashlib

    from verifier.formats.jsonio import file_chunks, iter_strict_batches, loads_typed_each
    from verifier.readers import native

    parts: dict[str, float] = {}
    start = time.process_time()
    for path in sorted(bundle.iterdir()):
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for chunk in file_chunks(handle):
                digest.update(chunk)
    parts["sha256 of every file"] = time.process_time() - start
    start = time.process_time()
    if loads_typed_each([(bundle / "plan.json").read_bytes().decode("utf-8")], native._PLAN) is None:
        raise SystemExit("plan.json: not read by its typed form")
    parts["plan.json, strict and typed"] = time.process_time() - start
    start = time.process_time()
    with open(bundle / "receipts.jsonl", "rb") as handle:
        for batch in iter_strict_batches(file_chunks(handle), vouch=lambda _first, texts: loads_typed_each(texts, native._RECEIPTS) is not None):
            if type(batch) is not range:
                raise SystemExit("receipts.jsonl: a batch not read by its typed form")
    parts["receipts.jsonl, strict and typed"] = time.process_time() - start
    return parts


if __name__ == "__main__":
    main(bench_receipts.lines_argument(__doc__, 200_000))
