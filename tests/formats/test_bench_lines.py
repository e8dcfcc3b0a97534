"""The bench line grammars (`verifier.formats.bench_lines`): Rust libtest `cargo bench` and Go `go test -bench` lines as text receipts.

A real excerpt (tests/data/parity-libtest/, ethereum/benchmarking's Parity precompile run: the raw libtest lines and the
table made from them) ties the table's `Time (ns)` to the raw lines; a made-up Go bench output does the same for a
summary. Each has a PASS and a FAIL input, and a grammar name outside the closed vocabulary is refused at load.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT, make_assets
from helpers import by_check as _by
from helpers import write_tree

from verifier.formats.bench_lines import go_bench, libtest_bench
from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.profiles.language import load_profile

DATA = ROOT / "tests" / "data" / "parity-libtest"
SCHEMA = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())


def test_libtest_line_reads_median_and_spread_with_thousands_separators():
    assert libtest_bench("test alt_bn128_add_cdetrio10             ... bench:       1,174 ns/iter (+/- 169)") == {
        "alt_bn128_add_cdetrio10": {"ns_per_iter": Decimal(1174), "deviation_ns": Decimal(169)}}
    assert libtest_bench("test a::b ... bench:   1,234.56 ns/iter (+/- 7.5) = 120 MB/s")["a::b"]["mb_per_s"] == 120
    for other in ("test a ... ok", "running 57 tests", "test a ... bench: fast ns/iter (+/- 1)", "test result: ok. 0 passed"):
        assert libtest_bench(other) is None, other


def test_go_line_reads_iterations_and_every_unit():
    got = go_bench("BenchmarkEncode/small-8   \t  500000\t      2468 ns/op\t     128 B/op\t       5 allocs/op\t  3.5 widgets/op")
    assert got == {"BenchmarkEncode/small-8": {"name": "BenchmarkEncode/small", "procs": 8, "iterations": 500000, "ns_per_op": 2468,
                                               "bytes_per_op": 128, "allocs_per_op": 5, "widgets/op": Decimal("3.5")}}
    assert go_bench("BenchmarkX   100   7.25 ns/op")["BenchmarkX"] == {"name": "BenchmarkX", "iterations": 100, "ns_per_op": Decimal("7.25")}
    for other in ("PASS", "ok  \texample.com/x\t2.345s", "goos: linux", "BenchmarkX-8 --- FAIL", "BenchmarkX 100 1234"):
        assert go_bench(other) is None, other


def _raw(glob: str, grammar: str, value: str, unit: str, dims: dict) -> dict:
    return {"glob": glob, "encoding": "text", "lines": [grammar], "records": {"members_of": ""}, "fields": {"phase": {"value": "measured"}},
            "values": {"t": {"pointer": value, "unit": unit}}, "dimensions": dims}


def _parity() -> dict:
    """A profile: the table's Time (ns) per Name is the raw libtest line's ns/iter."""
    return {
        "id": "parity-raw", "version": 1, "description": "test profile: Parity precompile table against its cargo bench lines",
        "detect": {"files": ["rawdata/parity_20180721_mhswende.txt"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"raw": _raw("rawdata/*.txt", "libtest-bench", "/ns_per_iter", "ns", {"name": {"pointer": "/#key"}})},
        "claims": [{"id": "time", "receipts": "raw", "statistic": "first", "value": "t", "selection": {"phase": "measured"}, "per": ["name"], "unit": "ns",
                    "at": {"file": "processed/parity_20180721_mhswende.txt.md", "pointer": "/tables/(top)", "where": {"Name": "{name}"}, "then": "/Time (ns)"}}],
    }


def _verify(tmp_path: Path, files: dict[str, str], doc: dict):
    bundle = write_tree(tmp_path / "bundle", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {doc["id"]: doc}))


def _real() -> dict[str, str]:
    return {str(p.relative_to(DATA)): p.read_text() for p in DATA.rglob("*") if p.is_file() and p.name != "SOURCE.md"}


def test_the_real_parity_table_times_are_its_libtest_lines(tmp_path):
    report = _verify(tmp_path, _real(), _parity())
    found = _by(report, "derivation.claims")
    assert len(found) == 3 and {f.status.value for f in found} == {"PASS"}, [f.message for f in found]


def test_a_table_time_that_is_not_its_libtest_line_fails(tmp_path):
    files = _real()
    files["processed/parity_20180721_mhswende.txt.md"] = files["processed/parity_20180721_mhswende.txt.md"].replace("566.00", "567.00")
    bad = [f for f in _by(_verify(tmp_path, files, _parity()), "derivation.claims") if f.status.value != "PASS"]
    assert [(f.status.value, f.code) for f in bad] == [("FAIL", "claim-mismatch")] and "sha256" in bad[0].message, [f.message for f in bad]


GO = ("goos: linux\ngoarch: amd64\npkg: example.com/x\n"
      "BenchmarkParse-8   \t 1000000\t      1234 ns/op\t      56 B/op\t       3 allocs/op\n"
      "BenchmarkEncode/small-8   \t  500000\t      2468 ns/op\t     128 B/op\t       5 allocs/op\n"
      "PASS\nok  \texample.com/x\t2.345s\n")


def _go() -> dict:
    return {
        "id": "go-bench", "version": 1, "description": "test profile: a summary of go test -bench output",
        "detect": {"files": ["bench.txt"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"bench": _raw("bench.txt", "go-bench", "/ns_per_op", "ns", {"name": {"pointer": "/name"}, "procs": {"pointer": "/procs"}})},
        "claims": [{"id": "ns", "receipts": "bench", "statistic": "first", "value": "t", "selection": {"phase": "measured"}, "per": ["name"], "unit": "us",
                    "at": {"file": "summary.json", "pointer": "/{name}/us_per_op"}}],
    }


def test_a_go_bench_summary_passes_and_a_wrong_number_fails(tmp_path):
    good = {"BenchmarkParse": {"us_per_op": 1.234}, "BenchmarkEncode/small": {"us_per_op": 2.468}}
    report = _verify(tmp_path / "a", {"bench.txt": GO, "summary.json": json.dumps(good)}, _go())
    assert {f.status.value for f in _by(report, "derivation.claims")} == {"PASS"} and len(_by(report, "derivation.claims")) == 2
    wrong = copy.deepcopy(good)
    wrong["BenchmarkEncode/small"]["us_per_op"] = 2.478
    bad = [f for f in _by(_verify(tmp_path / "b", {"bench.txt": GO, "summary.json": json.dumps(wrong)}, _go()), "derivation.claims") if f.status.value != "PASS"]
    assert [(f.status.value, f.code) for f in bad] == [("FAIL", "claim-mismatch")] and "BenchmarkEncode/small" in bad[0].message


def test_a_bench_stated_twice_differently_is_unreadable_not_a_pass(tmp_path):
    twice = GO + "BenchmarkParse-8   \t 1000000\t      1300 ns/op\n"
    report = _verify(tmp_path, {"bench.txt": twice, "summary.json": json.dumps({"BenchmarkParse": {"us_per_op": 1.234}})}, _go())
    assert "PASS" not in {f.status.value for f in _by(report, "derivation.claims")}
    assert any("conflicting-members" in f.code or "stated twice" in f.message for f in _by(report, "schema.documents")), [f.message for f in _by(report, "schema.documents")]


def test_an_unknown_line_grammar_is_refused_at_load():
    doc = _go()
    doc["receipts"]["bench"]["lines"] = ["gotest-bench"]
    with pytest.raises(ConfigError) as info:
        load_profile(doc, SCHEMA, origin="draft.json")
    assert "\n" not in str(info.value) and "/receipts/bench/lines" in str(info.value), str(info.value)
