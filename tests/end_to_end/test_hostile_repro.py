"""
Issue 14's reproducers: hostile input ends in a clean verdict, in seconds, with every report format parsing.

Each test is one reproducer of the issue (numbered as there), run on the code
path where the class of bug lives: `jsonio` (numbers, Unicode, depth),
`stats`/`vllm_bench` (loops bounded by input size), `report/*` (any string or
number renders), `checks/plan.py` (linear in the receipts), `integrity`
(unreadable manifest). Time bounds are generous ceilings against hangs, not
speed targets (those live in benchmarks/).
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import rehash
from conftest import EXAMPLE, ROOT
from hostile_corpus import deny_unreadable
from report_formats import assert_all_formats_parse

from verifier.core import verify_path
from verifier.formats.jsonio import JSONProblem, loads_strict, loads_strict_lines
from verifier.model.findings import CheckInfo, Finding, Report, Status
from verifier.report import render

ABCD = ROOT / "tests" / "fixtures" / "vllm" / "abcd-bucket-peak.json"
HUGE_EXPONENT = "1e99999999999999999999"


@contextmanager
def deadline(seconds: int):
    """Raise `TimeoutError` in the test if the block runs longer than `seconds` (SIGALRM; a hang guard)."""

    def _alarm(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def verified(path: Path, seconds: int = 60) -> Report:
    """Verify `path` within `seconds`, check all six formats parse, return the report."""
    with deadline(seconds):
        report = verify_path(str(path))
    assert_all_formats_parse(report)
    assert not [f for f in report.findings if f.status is Status.ERROR], [f.message for f in report.findings if f.status is Status.ERROR]
    return report


def example(tmp_path: Path, edit) -> Path:
    bundle = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, bundle)
    edit(bundle)
    rehash(bundle)
    return bundle


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def codes(report: Report) -> set[tuple[str, str, str]]:
    return {(f.check, f.status.value, f.code) for f in report.findings}


# (1) a latency of 2**64 + 1 s: the whole-second bucket peak is a sweep over 2n events, not a loop over seconds
def test_1_bucket_peak_of_a_2_to_the_64_second_latency_is_bounded(tmp_path):
    text = ABCD.read_text().replace('"latencies": [\n  0.75', '"latencies": [\n  18446744073709551617', 1)
    assert "18446744073709551617" in text
    (tmp_path / "r.json").write_text(text)
    start = time.monotonic()
    report = verified(tmp_path / "r.json", seconds=20)
    assert time.monotonic() - start < 20
    peak = [f for f in report.findings if f.check == "vllm.peak" and f.code in ("derived", "claim-mismatch")]
    assert peak and peak[0].status is Status.PASS  # bucket 0 still holds all four requests
    assert report.verdict == "FAIL"  # the latency statistics no longer re-derive


def test_1_bucket_peak_counts_inclusive_whole_second_buckets():
    from verifier.checks.packs.vllm import bucket_peak

    D = Decimal
    assert bucket_peak([]) == 0
    assert bucket_peak([(D(0), D("0.5")), (D(1), D(2))]) == 1  # buckets {0} and {1, 2}
    assert bucket_peak([(D(0), D(1)), (D(1), D(2))]) == 2  # both are in bucket 1 (inclusive end)
    assert bucket_peak([(D(0), D(2 ** 64 + 1)), (D(5), D(6)), (D("5.5"), D(7))]) == 3
    assert bucket_peak([(D(0), D(3)), (D(2), D(1))]) == 1  # an interval ending before it starts lies in no bucket


# (2) an exponent of 10**20: a FAIL finding on every road (bundle manifest, receipt file, receipt folder, profile folder)
def test_2_exponent_overflow_is_refused_by_the_loader():
    for text in (HUGE_EXPONENT, "1e999999999999999999", "1.8e308", "-1e309", "1e-400", "9" * 310, "[" + "1" * 400 + "]"):
        with pytest.raises(JSONProblem) as info:
            loads_strict(text.encode())
        assert info.value.code == "number-out-of-range"
    assert loads_strict(b"1.7976931348623157e308") == Decimal("1.7976931348623157e308")
    assert loads_strict(b"-0") == 0 and loads_strict(b"0e400") == 0


def test_2_exponent_overflow_in_a_manifest_is_a_fail_finding(tmp_path):
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "manifest.json").write_text('{"format":"verify-bundle","x":%s}' % HUGE_EXPONENT)
    report = verified(bundle)
    assert ("integrity.files", "FAIL", "manifest-number-out-of-range") in codes(report)


def test_2_exponent_overflow_in_a_receipt_file_and_folder_is_a_fail_finding(tmp_path):
    bad = ABCD.read_text().replace('"duration": ', f'"x": {HUGE_EXPONENT}, "duration": ', 1)
    (tmp_path / "r.json").write_text(bad)
    report = verified(tmp_path / "r.json")
    assert report.verdict == "FAIL" and codes(report) == {("json.strict", "FAIL", "number-out-of-range")}
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copy(ABCD, folder / "a.json")
    (folder / "b.json").write_text(bad)
    report = verified(folder)
    assert ("json.strict", "FAIL", "number-out-of-range") in codes(report) and report.verdict == "FAIL"


def test_2_exponent_overflow_in_a_profile_folder_is_not_a_traceback(tmp_path):
    from conftest import CORPUS

    bundle = tmp_path / "gdn"
    shutil.copytree(CORPUS / "system1-omni-gdn-20261003", bundle)
    target = next(p for p in sorted(bundle.rglob("*.json")) if p.name != "manifest.json" and b"." in p.read_bytes())
    text = target.read_text()
    i = next(i for i, c in enumerate(text) if c.isdigit() and text[i - 1] in " :[")
    target.write_text(text[:i] + HUGE_EXPONENT + ", \"zz\": " + text[i:])
    report = verified(bundle)
    assert report.verdict in ("FAIL", "INCOMPLETE")


# (3) and (9) a lone surrogate is refused at load, in any field; reports still render
@pytest.mark.parametrize("escape", ["\\ud800", "\\udc00", "\\udfff", "x\\ud83d"])
def test_3_lone_surrogate_is_refused_at_load(escape):
    for doc in (f'{{"a": "{escape}"}}', f'{{"{escape}": 1}}', f'[[["{escape}"]]]'):
        with pytest.raises(JSONProblem) as info:
            loads_strict(doc.encode())
        assert info.value.code == "invalid-unicode"
    with pytest.raises(JSONProblem) as info:
        loads_strict_lines(f'{{"a": 1}}\n{{"b": "{escape}"}}\n'.encode())
    assert info.value.line == 2
    assert loads_strict('"\\ud83d\\ude00"'.encode()) == "\U0001f600"  # a surrogate pair is one character
    assert loads_strict(b'"\\\\ud800"') == "\\ud800"  # an escaped backslash is not a surrogate


def test_3_lone_surrogate_in_a_claim_id_is_a_fail_and_every_format_renders(tmp_path):
    bundle = example(tmp_path, lambda b: replace_in(b / "claims.json", '"server_mean_s.A1"', '"server_mean_s.A1\\ud800"'))
    report = verified(bundle)
    assert ("schema.documents", "FAIL", "invalid-unicode") in codes(report) and report.verdict == "FAIL"


def test_9_lone_surrogate_in_the_headline_is_not_valid_utf8_json(tmp_path):
    bundle = example(tmp_path, lambda b: replace_in(b / "claims.json", '"407.27 s', '"\\udc00407.27 s'))
    report = verified(bundle)
    assert ("schema.documents", "FAIL", "invalid-unicode") in codes(report) and report.verdict == "FAIL"


def test_3_a_surrogate_the_model_holds_renders_in_every_format():
    name = "evidence/\udcff\udc80.json"  # a non-UTF-8 file name as os.scandir returns it (surrogateescape)
    finding = Finding(check="integrity.files", status=Status.FAIL, code="unlisted-file", message=f"{name} \ud800 is unlisted",
                      path=name, observed={"\udc80": "\udfff"})
    report = Report(subject="b\udc80", kind="bundle-v1", verifier_version="0", findings=(finding,),
                    roster=(CheckInfo(check="integrity.files", title="files\udc80", counts={"FAIL": 1}),))
    out = assert_all_formats_parse(report)
    assert "\\udc80" in out["text"] and "%FF%80" in out["sarif"]


# (4) 10**5 extra worker lines: the plan check is linear (no list.index in a loop)
def test_4_plan_pointers_are_linear(tmp_path):
    from verifier.readers.campaign import Campaign
    from verifier.readers.native import from_documents

    workers = [{"kind": "worker", "worker_id": f"w{i}", "arm": "a", "server": "s", "pid": 1, "started_at": "x",
                "ended_at": None, "exit_code": 0} for i in range(200_000)]
    plan = {"servers": [{"id": "s", "arm": "a"}], "arms": [{"id": "a", "label": "A"}], "requests": []}
    with deadline(10):
        c = Campaign.build(from_documents({"plan": plan, "receipts": workers}, manifest=None, names={}))
        pointers = [w.location.pointer for w in c.workers]
    assert pointers[-1] == "/199999" and pointers[7] == "/7"


def test_4_hundred_thousand_worker_lines_end_in_a_verdict(tmp_path):
    def more_workers(b: Path) -> None:
        line = json.dumps({"kind": "worker", "worker_id": "w", "arm": "baseline", "server": "A1", "pid": 1,
                           "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:01Z", "exit_code": 0}) + "\n"
        with open(b / "receipts.jsonl", "a") as handle:
            handle.write(line * 100_000)

    report = verified(example(tmp_path, more_workers), seconds=240)
    assert report.verdict == "FAIL" and ("derivation.claims", "FAIL", "claim-mismatch") in codes(report)


# (5) Markdown (and the GitHub step summary) renders a claim of 1e30 and one with many significant digits
def test_5_markdown_renders_huge_and_long_numbers(tmp_path):
    def edit(b: Path) -> None:
        replace_in(b / "claims.json", "396.30", "1e30")
        replace_in(b / "claims.json", "106.66", "106.66" + "1" * 400)
        replace_in(b / "claims.json", "109.58", "1.0958e-300")

    report = verified(example(tmp_path, edit))
    assert report.verdict == "FAIL"
    md = render(report, "markdown")
    assert "1E+30" in md and "1" * 400 in md


def test_5_claims_table_shows_any_number():
    from verifier.report._common import _shown

    assert _shown("4611686018427387904732.5000", 2) == "4611686018427387904732.5000"
    assert _shown("396.3012345678", 2) == "396.3012"
    assert _shown("1E+30", 0) == "1E+30"
    assert _shown("1" + "0" * 500 + ".123456", 2) == "1" + "0" * 500 + ".1235"
    assert _shown("1.7976931348623157E+308", 400) == "1.7976931348623157E+308"


# (6) a control character in a claim id: JUnit stays well-formed XML 1.0
def test_6_junit_with_control_characters_is_well_formed(tmp_path):
    bundle = example(tmp_path, lambda b: replace_in(b / "claims.json", '"server_mean_s.A1"', '"server_mean_s.A1\\u0001\\u001b\\ufffe"'))
    report = verified(bundle)
    xml = render(report, "junit")
    assert "\\x01\\x1b\\ufffe" in xml and "\x01" not in xml


# (7) unreadable manifest (mode 000), 900-deep nesting, a claim of 1e99999999999999999999: FAIL findings, not ERROR
def test_7_unreadable_manifest_is_a_fail_finding(tmp_path, monkeypatch):
    bundle = example(tmp_path, lambda b: None)
    (bundle / "manifest.json").chmod(0)
    deny_unreadable(monkeypatch)  # as root too: root reads mode 000, a normal user (and this test) does not
    report = verified(bundle)
    assert report.findings[0].code == "manifest-unreadable" and report.findings[0].status is Status.FAIL
    assert report.verdict == "FAIL"


def test_7_deep_nesting_is_a_fail_finding(tmp_path):
    def deep(b: Path) -> None:
        doc = json.loads((b / "quality-index.json").read_text())
        node: object = 1
        for _ in range(900):
            node = {"a": node}
        doc["scorers"]["ssim"]["parameters"]["deep"] = node
        (b / "quality-index.json").write_text(json.dumps(doc))

    report = verified(example(tmp_path, deep))
    assert ("schema.documents", "FAIL", "too-deep") in codes(report)
    for depth in (65, 100_000):
        with pytest.raises(JSONProblem) as info:
            loads_strict(b"[" * depth + b"]" * depth)
        assert info.value.code == "too-deep"
    assert loads_strict(b"[" * 64 + b"]" * 64) is not None


def test_7_claim_beyond_binary64_is_a_fail_finding(tmp_path):
    report = verified(example(tmp_path, lambda b: replace_in(b / "claims.json", "396.30", HUGE_EXPONENT)))
    assert ("schema.documents", "FAIL", "number-out-of-range") in codes(report)


# (8) malformed arrays and types in a vLLM file: FAIL findings, never ERROR
def test_8_short_start_times_do_not_crash_the_peak_check(tmp_path):
    doc = json.loads(ABCD.read_text())
    doc["start_times"] = doc["start_times"][:2]
    (tmp_path / "r.json").write_text(json.dumps(doc))
    report = verified(tmp_path / "r.json")
    assert ("vllm.requests", "FAIL", "denominator-dropped") in codes(report)
    assert ("vllm.peak", "UNVERIFIED", "not-retained") in codes(report)


def test_8_integer_claims_have_a_tolerance(tmp_path):
    from verifier.engine import stats

    assert stats.half_unit(0) == Decimal("0.5") and stats.tolerance(20) == Decimal("0.5")
    doc = json.loads(ABCD.read_text())
    doc["std_ttft_ms"] = 0  # an integer where the producer wrote a float
    (tmp_path / "r.json").write_text(json.dumps(doc))
    report = verified(tmp_path / "r.json")
    std = [f for f in report.findings if f.pointer == "/std_ttft_ms"]
    assert std and std[0].status is Status.FAIL and std[0].code == "claim-mismatch"


# Known defects found after the ten: an absurd frozen-HTTP-matrix `repetitions` is a FAIL finding, in bounded time
def test_absurd_matrix_repetitions_is_a_fail_not_a_hang(tmp_path):
    from test_http_matrix import _copy, _edit_plan

    matrix = _copy(tmp_path, "good")
    _edit_plan(matrix, lambda p: p.__setitem__("repetitions", 10**300))
    report = verified(matrix, seconds=30)
    beyond = [f for f in report.findings if f.code == "rounds-beyond-summary"]
    assert len(beyond) == 1 and beyond[0].status is Status.FAIL and report.verdict == "FAIL"
    assert beyond[0].observed > 10**300 and beyond[0].pointer == "/repetitions"
    assert not [f for f in report.findings if f.code == "round-missing"]  # one finding, not one per absent round


def test_a_few_missing_matrix_rounds_are_still_listed_one_by_one(tmp_path):
    from test_http_matrix import _copy, _edit_plan

    matrix = _copy(tmp_path, "good")
    reps = json.loads((matrix / "plan.json").read_text())["repetitions"]
    _edit_plan(matrix, lambda p: p.__setitem__("repetitions", reps + 1))
    report = verified(matrix, seconds=30)
    plan = json.loads((matrix / "plan.json").read_text())
    missing = [f for f in report.findings if f.code == "round-missing"]
    assert len(missing) == len(plan["cases"]) * len(plan["concurrency"]) and all(f.expected[2] == reps + 1 for f in missing)
    assert not [f for f in report.findings if f.code == "rounds-beyond-summary"]
