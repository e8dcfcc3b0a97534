"""
Tests that kill the mutants issue 14 found surviving (and those mutation runs found since: docs/testing.md), on tiny bundles.

Each test pins one rule at its boundary, so weakening the rule (a swapped
comparison, a deleted `yield`, `n - 1` -> `n`) turns it red: the `--gate`
override, the gate's required comparison count and thresholds, the receipt
time order, NFC and case-fold collisions, a manifest listing itself, the
sample SD's Bessel correction, and the loader's bounds. Fast by design: one
mutant run costs seconds.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import asset_root, make_bundle, rehash
from helpers import make_assets, write_bundle

from verifier.engine import stats
from verifier.core import verify_path
from verifier.formats.jsonio import MAX_BINARY64, MAX_DEPTH, JSONProblem, json_pointer, loads_strict, loads_strict_lines

D = Decimal


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(make_assets(tmp_path_factory.mktemp("kills") / "assets"))


def _codes(report) -> set[tuple[str, str, str]]:
    return {(f.check, f.status.value, f.code) for f in report.findings}


# --- gate.pinned -------------------------------------------------------------------------------------------------------

def test_gate_override_must_equal_the_bundles_gate(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    other = verify_path(str(bundle), gate_id="ref2va-5s-v1", asset_root=tiny)
    assert ("gate.pinned", "FAIL", "gate-override-differs") in _codes(other) and other.verdict == "FAIL"
    same = verify_path(str(bundle), gate_id="tiny-v1", asset_root=tiny)
    assert ("gate.pinned", "PASS", "pinned") in _codes(same) and same.verdict == "PASS"
    assert ("gate.pinned", "PASS", "pinned") in _codes(verify_path(str(bundle), asset_root=tiny))


def test_gate_override_that_differs_is_the_only_gate_finding(tmp_path, tiny):
    report = verify_path(str(write_bundle(tmp_path / "b")), gate_id="ref2va-5s-v1", asset_root=tiny)
    assert [f.code for f in report.findings if f.check == "gate.pinned"] == ["gate-override-differs"]
    assert report.gate is None  # not judged by a gate at all


def test_no_manifest_means_no_gate_not_an_error(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "manifest.json").write_text("{}")
    report = verify_path(str(bundle), asset_root=tiny)
    assert [(f.status.value, f.code) for f in report.findings if f.check == "gate.pinned"] == [("UNVERIFIED", "no-gate")]


def test_unknown_gate_fails(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["gate"] = "no-such-gate"
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    report = verify_path(str(bundle), asset_root=tiny)
    assert ("gate.pinned", "FAIL", "unknown-gate") in _codes(report)
    assert [f for f in report.findings if f.check == "gate.pinned"][0].observed == "no-such-gate"


# --- quality.recorded ---------------------------------------------------------------------------------------------------

QUALITY_GATE = {"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1, "warmups_per_server": 0, "measured_per_server": 1},
                "claims": [{"claim": "count.requests", "statistic": "count", "of": "requests"}],
                "quality": {"thresholds": {"ssim": {"min": 0.9}, "lpips": {"max": 0.2}}, "required_scores": ["ssim"],
                            "comparisons": 2}}


def _quality_bundle(tmp_path: Path, scores: list[dict], *, gate: dict | None = None) -> tuple[Path, str]:
    assets = asset_root(tmp_path, {"q-v1": gate or QUALITY_GATE})
    bundle = make_bundle(tmp_path / "b", "q-v1", {"s1": ("baseline", [("measured", "1.0", "ok")]),
                                                   "s2": ("candidate", [("measured", "1.0", "ok")])}, {"count.requests": 2})
    for name in ("a.mp4", "b.mp4", "c.mp4"):
        (bundle / name).write_bytes(name.encode())
    comps = [{"id": f"c{i}", "reference": "a.mp4", "candidate": ("b.mp4", "c.mp4")[i % 2], "scores": s} for i, s in enumerate(scores)]
    (bundle / "quality-index.json").write_text(json.dumps({"format": "verify-quality-index", "format_version": 1, "scorers": {},
                                                           "comparisons": comps}))
    rehash(bundle)
    return bundle, assets


def _quality(report) -> set[tuple[str, str]]:
    return {(f.status.value, f.code) for f in report.findings if f.check == "quality.recorded"}


def test_quality_count_and_thresholds_at_their_boundaries(tmp_path):
    bundle, assets = _quality_bundle(tmp_path / "ok", [{"ssim": 0.9, "lpips": 0.2}, {"ssim": 0.95}])
    report = verify_path(str(bundle), asset_root=assets)
    assert _quality(report) == {("PASS", "threshold-met"), ("UNVERIFIED", "metric-not-attested")}  # no scorer pins here
    assert len([f for f in report.findings if f.code == "threshold-met"]) == 2
    bundle, assets = _quality_bundle(tmp_path / "one", [{"ssim": 0.95}])
    assert ("FAIL", "comparison-count") in _quality(verify_path(str(bundle), asset_root=assets))
    bundle, assets = _quality_bundle(tmp_path / "three", [{"ssim": 0.95}, {"ssim": 0.95}, {"ssim": 0.96}])
    assert ("FAIL", "comparison-count") in _quality(verify_path(str(bundle), asset_root=assets))
    bundle, assets = _quality_bundle(tmp_path / "low", [{"ssim": 0.8999}, {"ssim": 0.95, "lpips": 0.2001}])
    report = verify_path(str(bundle), asset_root=assets)
    missed = [f for f in report.findings if f.code == "threshold-missed"]
    assert sorted(f.pointer for f in missed) == ["/comparisons/0/scores/ssim", "/comparisons/1/scores/lpips"]
    bundle, assets = _quality_bundle(tmp_path / "noscore", [{"lpips": 0.1}, {"ssim": 0.95}])
    assert ("FAIL", "score-missing") in _quality(verify_path(str(bundle), asset_root=assets))


def test_quality_comparisons_must_compare_something(tmp_path):
    bundle, assets = _quality_bundle(tmp_path / "dup", [{"ssim": 0.95}, {"ssim": 0.95}])
    index = json.loads((bundle / "quality-index.json").read_text())
    index["comparisons"][1].update(id="c0", candidate="b.mp4")
    (bundle / "quality-index.json").write_text(json.dumps(index))
    rehash(bundle)
    codes = _quality(verify_path(str(bundle), asset_root=assets))
    assert {("FAIL", "duplicate-comparison-id"), ("FAIL", "duplicate-comparison")} <= codes
    index["comparisons"][1].update(id="c1", candidate="a.mp4")
    (bundle / "quality-index.json").write_text(json.dumps(index))
    rehash(bundle)
    assert ("FAIL", "self-comparison") in _quality(verify_path(str(bundle), asset_root=assets))


def test_quality_media_must_be_in_the_bundle(tmp_path):
    bundle, assets = _quality_bundle(tmp_path / "m", [{"ssim": 0.95}, {"ssim": 0.95}])
    index = json.loads((bundle / "quality-index.json").read_text())
    index["comparisons"][0]["reference"] = "elsewhere.mp4"
    (bundle / "quality-index.json").write_text(json.dumps(index))
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=assets)
    bad = [f for f in report.findings if f.code == "media-not-in-bundle"]
    assert [f.pointer for f in bad] == ["/comparisons/0/reference"]


# --- plan.conformance ---------------------------------------------------------------------------------------------------

def _receipts(bundle: Path) -> list[dict]:
    return [json.loads(line) for line in (bundle / "receipts.jsonl").read_text().splitlines()]


def _write_receipts(bundle: Path, rows: list[dict]) -> None:
    (bundle / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rehash(bundle)


def test_receipt_ending_before_it_starts_is_a_time_order_fail(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    rows = _receipts(bundle)
    rows[1]["started_at"], rows[1]["ended_at"] = rows[1]["ended_at"], rows[1]["started_at"]
    _write_receipts(bundle, rows)
    report = verify_path(str(bundle), asset_root=tiny)
    bad = [f for f in report.findings if f.code == "time-order"]
    assert len(bad) == 1 and bad[0].pointer == "/1" and bad[0].status.value == "FAIL"
    assert ("plan.conformance", "PASS", "timing") not in _codes(report)
    assert ("plan.conformance", "PASS", "timing") in _codes(verify_path(str(write_bundle(tmp_path / "ok")), asset_root=tiny))


def test_elapsed_must_agree_with_timestamps_within_the_clock_tolerance(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    rows = _receipts(bundle)
    rows[0]["elapsed_s"] = 10.001  # exactly the default 1 ms tolerance: holds
    _write_receipts(bundle, rows)
    assert not [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "elapsed-mismatch"]
    rows[0]["elapsed_s"] = 10.0011
    _write_receipts(bundle, rows)
    bad = [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "elapsed-mismatch"]
    assert len(bad) == 1 and bad[0].pointer == "/0"


def test_worker_exits_and_unplanned_receipts(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    rows = _receipts(bundle)
    worker = {"kind": "worker", "worker_id": "w1", "arm": "baseline", "server": "s1", "pid": 7,
              "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:02:00Z", "exit_code": 0}
    _write_receipts(bundle, rows + [worker])
    report = verify_path(str(bundle), asset_root=tiny)
    assert ("plan.conformance", "PASS", "workers") in _codes(report)
    _write_receipts(bundle, rows + [{**worker, "exit_code": 0, "signal": 9}, {**worker, "worker_id": "w2", "exit_code": None, "ended_at": None}])
    report = verify_path(str(bundle), asset_root=tiny)
    assert {("plan.conformance", "FAIL", "worker-exit"), ("plan.conformance", "FAIL", "worker-not-exited")} <= _codes(report)
    assert [f.pointer for f in report.findings if f.code == "worker-exit"] == ["/2"]
    _write_receipts(bundle, rows + [{**rows[0], "request_id": "zz"}])
    report = verify_path(str(bundle), asset_root=tiny)
    assert ("plan.conformance", "FAIL", "unplanned-receipt") in _codes(report)
    assert ("plan.conformance", "PASS", "requests") not in _codes(report)


# --- integrity.files -----------------------------------------------------------------------------------------------------

def test_nfc_twins_and_casefold_twins_collide(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "nfc")
    (bundle / "caf\u00e9.txt").write_bytes(b"a")
    (bundle / "cafe\u0301.txt").write_bytes(b"b")
    rehash(bundle)
    collisions = [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "name-collision"]
    assert collisions and all(f.status.value == "FAIL" for f in collisions)
    bundle = write_bundle(tmp_path / "case")
    (bundle / "Data.txt").write_bytes(b"a")
    (bundle / "data.txt").write_bytes(b"b")
    rehash(bundle)
    collisions = [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "name-collision"]
    assert collisions and "case" in collisions[0].message.lower()
    bundle = write_bundle(tmp_path / "fine", extra={"data1.txt": b"a", "data2.txt": b"b"})
    assert not [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "name-collision"]


def test_unsafe_names_and_symlinks_are_reported_once(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    (bundle / "evil\x1bname.txt").write_text("x")
    (bundle / "inside.json").symlink_to("plan.json")
    (bundle / "escape").symlink_to("/etc/hostname")
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    evil = [f for f in report.findings if f.check == "integrity.files" and "evil" in f.message]
    assert sorted(f.code for f in evil) == ["unsafe-name", "unsafe-path"]  # the file is never read, so never matched
    links = {(f.path, f.code) for f in report.findings if f.code in ("symlink", "symlink-escape")}
    assert links == {("inside.json", "symlink"), ("escape", "symlink-escape")}


def test_manifest_listing_itself_is_unsafe(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"].append({"path": "manifest.json", "sha256": "0" * 64, "size": 1})
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    bad = [f for f in verify_path(str(bundle), asset_root=tiny).findings if f.code == "unsafe-path"]
    assert len(bad) == 1 and "lists itself" in bad[0].message and bad[0].pointer == f"/files/{len(manifest['files']) - 1}/path"


def test_unreadable_directory_is_a_fail(tmp_path, tiny, monkeypatch):
    bundle = write_bundle(tmp_path / "b")
    from verifier.formats import bundle as bundle_module

    real = bundle_module.os.scandir

    def refuse(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real(path)

    (bundle / "locked").mkdir()
    monkeypatch.setattr(bundle_module.os, "scandir", refuse)
    report = verify_path(str(bundle), asset_root=tiny)
    assert ("integrity.files", "FAIL", "unreadable-file") in _codes(report)


# --- stats -----------------------------------------------------------------------------------------------------------------

def test_sample_sd_uses_bessels_correction():
    assert stats.sample_sd([D(1), D(2), D(3), D(4)]) == D("1.6666666666666666666666666666666666666666666666667").sqrt(stats.CONTEXT)
    assert stats.sample_sd([D(2), D(4)]) == D(2).sqrt(stats.CONTEXT)
    with pytest.raises(ValueError):
        stats.sample_sd([D(1)])


def test_percentiles_at_their_boundaries():
    xs = [D(10), D(20), D(30)]
    assert stats.percentile_nearest_rank(xs, D(99)) == 30 and stats.percentile_nearest_rank(xs, D(33)) == 10
    assert stats.percentile_nearest_rank(xs, D("33.34")) == 20 and stats.percentile_nearest_rank(xs, D(100)) == 30
    assert stats.percentile_linear(xs, D(99)) == D("29.80") and stats.percentile_linear(xs, D(0)) == 10
    assert stats.percentile_linear(xs, D(100)) == 30 and stats.median([D(1), D(2), D(4), D(9)]) == D(3)
    for bad in (D(0), D(101), D(-1)):
        with pytest.raises(ValueError):
            stats.percentile_nearest_rank(xs, bad)
    for bad in (D("-0.1"), D("100.1")):
        with pytest.raises(ValueError):
            stats.percentile_linear(xs, bad)
    with pytest.raises(ValueError):
        stats.mean([])


def test_tolerances():
    assert stats.half_unit(D("73.45")) == D("0.005") and stats.half_unit(D("2E1")) == D("0.5") and stats.half_unit(7) == D("0.5")
    for bad in (D("NaN"), D("Infinity")):  # the loader never yields these; a caller that does gets ValueError, not TypeError
        with pytest.raises(ValueError, match="not finite"):
            stats.half_unit(bad)
    assert stats.tolerance(D("73.45")) == D("0.005") and stats.tolerance(7) == D("0.5")
    long = D("123.456789012345")
    assert stats.tolerance(long) == max(stats.half_unit(long), long * D(2) ** -48)
    assert stats.tolerance(D("1234567890123456.7")) > stats.half_unit(D("1234567890123456.7"))
    assert stats.tolerance(D("12345678901234.5")) == D("0.05")  # 15 digits: 16 ulps (0.044) < half a unit
    assert stats.tolerance(D("1.5"), exact=True) == 0 and stats.tolerance(D("1.5"), declared=0.25) == D("0.25")
    assert stats.compare(D("1.005"), D(1), declared="0.005").holds and not stats.compare(D("1.0051"), D(1), declared="0.005").holds
    assert stats.compare(D("0.995"), D(1), declared="0.005").holds and not stats.compare(D("0.9949"), D(1), declared="0.005").holds
    assert stats.compare(D("1.00"), D("1.005")).holds and not stats.compare(D("1.00"), D("1.0051")).holds


def test_peaks_count_touching_intervals_once():
    assert stats.peak_in_flight([(0, 1), (1, 2)]) == 1 and stats.peak_in_flight([(0, 2), (1, 3), (1, 3)]) == 3
    assert stats.peak_in_flight([]) == 0 and stats.sweep_peak([(5, 1), (5, -1), (5, 1)]) == 1


# --- jsonio ----------------------------------------------------------------------------------------------------------------

def test_loader_bounds_at_their_edges():
    assert loads_strict(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    with pytest.raises(JSONProblem, match="nested deeper"):
        loads_strict(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    with pytest.raises(JSONProblem, match="nested deeper"):
        loads_strict(b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1))
    deepest = b"[" + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b",[],[],[]]"  # depth 64, more than 64 brackets
    assert loads_strict(deepest)[1:] == [[], [], []]
    with pytest.raises(JSONProblem, match="nested deeper"):
        loads_strict(b"[" + deepest + b"]")
    assert loads_strict(("1" + "0" * 308).encode()) == 10 ** 308  # 309 digits, below the binary64 maximum
    assert loads_strict(str(int(MAX_BINARY64)).encode()) == int(MAX_BINARY64)
    with pytest.raises(JSONProblem):
        loads_strict(str(int(MAX_BINARY64) + 1).encode())
    assert loads_strict(b"1e308") == D("1e308") and loads_strict(b"1e-308") == D("1e-308")
    assert loads_strict(("9" * 308).encode()) == int("9" * 308)
    for text in (b"1e309", b"1e-309", b"1.8e308", ("9" * 309).encode(), b"-1.8e308"):
        with pytest.raises(JSONProblem):
            loads_strict(text)
    with pytest.raises(JSONProblem) as info:
        loads_strict(b'{"a": 1, "a": 1}')
    assert info.value.code == "duplicate-key"
    for text, code, says in ((b"NaN", "non-finite-number", "NaN"), (b"\xff", "not-utf8", "0xff"),
                             (b"\xef\xbb\xbf1", "invalid-json", "byte order mark"), (b"[", "invalid-json", "line 1")):
        with pytest.raises(JSONProblem, match=says) as info:
            loads_strict(text)
        assert info.value.code == code
    assert loads_strict_lines(b'{"a": 1}\n{"b": 2}\n') == [{"a": 1}, {"b": 2}]
    with pytest.raises(JSONProblem) as info:
        loads_strict_lines(b'{"a": 1}\n\n{"b": 2}\n')
    assert info.value.line == 2
    long = "1." + "0" * 35 + "e400"  # 41 characters: shown shortened, with its length
    with pytest.raises(JSONProblem) as info:
        loads_strict(long.encode())
    assert str(info.value) == f"number {long[:20]}...{long[-12:]} (41 characters) is outside the binary64 range"
    with pytest.raises(JSONProblem, match="^number 1e400 is outside"):
        loads_strict(b"1e400")
    with pytest.raises(JSONProblem, match="^number " + "1" * 36 + "e999 is outside"):  # 40 characters: shown whole
        loads_strict(("1" * 36 + "e999").encode())
    assert json_pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0" and json_pointer([]) == ""


def test_json_lines_keep_a_last_line_without_its_newline():
    assert loads_strict_lines(b'{"a": 1}\n{"b": 2}') == [{"a": 1}, {"b": 2}]  # no final newline: the last document is kept
    assert loads_strict_lines(b'{"a": 1}\n{"b": 2}\n') == [{"a": 1}, {"b": 2}]  # one final newline ends the last line
    assert loads_strict_lines(b'{"a": 1}') == [{"a": 1}]
    with pytest.raises(JSONProblem) as info:
        loads_strict_lines(b'{"a": 1}\n\n')  # a second newline is a blank line
    assert info.value.line == 2


def test_a_text_line_with_a_byte_order_mark_is_refused_naming_it():
    from verifier.formats.jsonio import loads_strict_text

    with pytest.raises(JSONProblem, match=r"^starts with a byte order mark, which JSON forbids \(RFC 8259 section 8.1\)$") as info:
        loads_strict_text('\ufeff{"a": 1}')
    assert info.value.code == "invalid-json"
    assert loads_strict_text('{"a": 1}') == {"a": 1}
    assert loads_strict_text(' {"a": "\ufeff"}') == {"a": "\ufeff"}  # a BOM character inside a string is data
