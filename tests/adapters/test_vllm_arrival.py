"""Issue 13: a vLLM result's declared arrival process (request_rate, burstiness) against its retained send times."""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import ROOT

from verifier.core import verify_path

_spec = importlib.util.spec_from_file_location("make_vllm", ROOT / "tests" / "fixtures" / "make_vllm.py")
make_vllm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_vllm)


def _result(tmp_path, gap: float, n: int = 20, rate: float | str = 2.0, burstiness: float = 1.0):
    starts = [round(i * gap, 6) for i in range(n)]
    doc = make_vllm.result(starts, [0.4] * n, [0.05] * n, [[0.05] * 7] * n, [10] * n, [8] * n, [""] * n, None)
    doc.update(request_rate=rate, burstiness=burstiness)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    return verify_path(str(path))


def _arrival(report):
    return [f for f in report.findings if f.check == "vllm.arrival"]


@pytest.mark.parametrize("gap,status", [(0.5, "PASS"), (0.35, "PASS"), (0.05, "FAIL"), (0.0, "FAIL")])
def test_sends_faster_than_the_declared_rate_fail(tmp_path, gap, status):
    found = _arrival(_result(tmp_path, gap))
    assert [f.status for f in found] == [status], [f.message for f in found]
    if status == "FAIL":
        assert found[0].code == "sends-faster-than-declared" and "declared 2" in found[0].message


def test_slower_than_declared_passes_a_cap_only_slows_sends(tmp_path):
    assert _arrival(_result(tmp_path, 3.0))[0].status == "PASS"


def test_bursty_process_tolerates_more_clustering(tmp_path):
    # a gamma shape of 0.1 makes short spans likely: 5x faster is no contradiction with burstiness 0.1, but is with 1.0
    assert _arrival(_result(tmp_path, 0.1, burstiness=0.1))[0].status == "PASS"
    assert _arrival(_result(tmp_path, 0.1, burstiness=1.0))[0].status == "FAIL"


def test_infinite_rate_declares_no_pacing(tmp_path):
    found = _arrival(_result(tmp_path, 0.0, rate="inf"))
    assert found[0].status == "PASS" and found[0].code == "not-paced"


def test_shipped_fixtures_and_corpus_results_are_not_flagged():
    for path in sorted((ROOT / "tests" / "fixtures" / "vllm").glob("*.json")):
        assert all(f.status != "FAIL" for f in _arrival(verify_path(str(path)))), path
