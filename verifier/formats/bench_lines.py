"""
Line grammars for the benchmark lines test harnesses print: Rust libtest's `cargo bench` and Go's `go test -bench`.

Each reader maps one line to the members it states, or None when the line is not of its grammar (a text receipt set's
`lines`, `verifier.readers.grammars`): the benchmark's name as written, holding an object of its numbers (`Decimal`). With
`"records": {"members_of": ""}` each benchmark is one record, its name under `#key` (`docs/profiles.md`, "Grammars").

- `libtest-bench`: `test NAME ... bench:       1,234 ns/iter (+/- 56)` (optionally ` = 12 MB/s`) ->
  `{"NAME": {"ns_per_iter": 1234, "deviation_ns": 56}}` (`"mb_per_s"` when stated). Thousands separators are dropped;
  libtest writes the median of its samples and the spread max - min of them (rustc's `library/test/src/bench.rs`,
  `fmt_bench_samples`).
- `go-bench`: `BenchmarkX-8   1000000   1234 ns/op   56 B/op   3 allocs/op` ->
  `{"BenchmarkX-8": {"name": "BenchmarkX", "procs": 8, "iterations": 1000000, "ns_per_op": 1234, "bytes_per_op": 56,
  "allocs_per_op": 3}}`: the Go benchmark data format (go.dev/design/14313-benchmark-format: a name starting with
  `Benchmark`, the iteration count, then value-unit pairs); `ns/op`, `B/op`, `allocs/op` and `MB/s` are named as above
  (`mb_per_s`), any other unit (a `b.ReportMetric`) is kept under its unit as written. The `-N` suffix is GOMAXPROCS.

Both are linear in the line's length (a split and a few fixed anchored patterns, no backtracking over the line).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["BENCH_GRAMMARS", "go_bench", "libtest_bench"]

_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
_LIBTEST = re.compile(rf"test (\S+) +\.\.\. bench: +({_NUMBER}) ns/iter \(\+/- ({_NUMBER})\)(?: = ({_NUMBER}) MB/s)?")
_GO_UNITS = {"ns/op": "ns_per_op", "B/op": "bytes_per_op", "allocs/op": "allocs_per_op", "MB/s": "mb_per_s"}
_PROCS = re.compile(r"-([0-9]+)$")


def _number(text: str) -> Decimal | None:
    """Return the decimal `text` states (thousands separators "," dropped), or None when it is none."""
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def libtest_bench(line: str) -> dict[str, Any] | None:
    """Return `{name: {"ns_per_iter", "deviation_ns"[, "mb_per_s"]}}` of one libtest bench line, or None when it is not one."""
    found = _LIBTEST.fullmatch(line.strip())
    if not found:
        return None
    name, value, deviation, rate = found.groups()
    numbers = {"ns_per_iter": _number(value), "deviation_ns": _number(deviation)} | ({"mb_per_s": _number(rate)} if rate else {})
    return {name: numbers}


def go_bench(line: str) -> dict[str, Any] | None:
    """Return `{name as written: {"name", ["procs",] "iterations", value per unit}}` of one Go bench line, or None when it is not one."""
    tokens = line.split()
    if len(tokens) < 4 or not tokens[0].startswith("Benchmark") or not tokens[1].isdigit() or len(tokens) % 2:
        return None
    written = tokens[0]
    procs = _PROCS.search(written)
    numbers: dict[str, Any] = {"name": written[:procs.start()] if procs else written}
    if procs:
        numbers["procs"] = Decimal(procs.group(1))
    numbers["iterations"] = Decimal(tokens[1])
    for value, unit in zip(tokens[2::2], tokens[3::2], strict=True):
        number = _number(value)
        if number is None:
            return None
        numbers[_GO_UNITS.get(unit, unit)] = number
    return {written: numbers}


#: The line grammars of this module, by the name a profile's `lines` gives them.
BENCH_GRAMMARS = {"libtest-bench": libtest_bench, "go-bench": go_bench}
