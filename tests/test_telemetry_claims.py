"""The telemetry receipt's stated numbers on `derivation.claims` (issue 36): client facts, engine delta, surplus, refusals and rate.

`IDS` names the check of each part: all `derivation.claims` now (before: `telemetry.replay`, `telemetry.engine`,
`telemetry.foreign`, `telemetry.rate`); the pinning tests pass with the old ids on the base of the move too.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.core import verify_path
from verifier.report import json_report

FIX = ROOT / "tests" / "fixtures" / "telemetry" / "good"
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import make_telemetry  # noqa: E402

IDS = {"client": "derivation.claims", "engine": "derivation.claims", "surplus": "derivation.claims", "rate": "derivation.claims"}


@pytest.fixture
def receipt_dir(tmp_path: Path) -> Path:
    dest = tmp_path / "telemetry"
    shutil.copytree(FIX, dest)
    return dest


def _edit(d: Path, change) -> None:
    doc = json.loads((d / "telemetry-receipt.json").read_text())
    change(doc)
    (d / "telemetry-receipt.json").write_text(json.dumps(doc, indent=2))


def _at(report, part, pointer):
    return [f for f in report.findings if f.check == IDS[part] and f.pointer == pointer]


def test_a_sibling_fact_that_does_not_replay_leaves_the_surplus_and_the_rate_judged(receipt_dir):
    """Each stated number is judged on its own inputs: a wrong latency row no longer leaves the surplus and the rate unjudged."""
    _edit(receipt_dir, lambda r: r["facts"]["latency_ms"].__setitem__("p99_itl", 150.0))
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("rate", {"output_tokens_per_s": 30.2, "interval_s": 17.03}))
    report = verify_path(str(receipt_dir))
    assert [f.code for f in _at(report, "client", "/facts/latency_ms/p99_itl")] == ["claim-mismatch"]
    (surplus,) = _at(report, "surplus", "/facts/engine_surplus_tokens")
    assert surplus.status == "PASS" and surplus.code == "derived"
    (rate,) = _at(report, "rate", "/facts/rate/output_tokens_per_s")
    assert rate.status == "FAIL" and rate.code == "claim-mismatch" and rate.path == "telemetry-receipt.json"
    assert not [f for f in report.findings if f.code == "blocked-by"]


def test_carriers_and_process_both_failing_block_the_client_facts_and_the_engine_delta_apart(receipt_dir):
    (receipt_dir / "metrics-after.prom").unlink()
    _edit(receipt_dir, lambda r: r.__setitem__("execution", {"outcome": "exited", "exit_code": 1}))
    report = verify_path(str(receipt_dir))
    blocked = [(f.check, f.message, f.observed, f.path, f.pointer) for f in report.findings
               if f.code == "blocked-by" and f.check in (IDS["client"], IDS["engine"])]
    assert blocked == [
        (IDS["client"], "not run because telemetry.carriers, telemetry.process did not pass", ["telemetry.carriers", "telemetry.process"], None, None),
        (IDS["engine"], "not run because telemetry.carriers did not pass", ["telemetry.carriers"], None, None)]


@pytest.mark.parametrize("interval,authored", [(17.035, False), (17.025, False), (17.0351, True), (17.0249, True)])
def test_the_rate_interval_is_the_printed_duration_within_half_its_last_place(receipt_dir, interval, authored):
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("rate", {"output_tokens_per_s": 30.06, "interval_s": interval}))
    codes = {f.code for f in verify_path(str(receipt_dir)).findings if f.check == IDS["rate"] and f.status == "FAIL"}
    assert ("authored-interval" in codes) is authored


@pytest.mark.parametrize("stated,holds", [(4.004, True), (3.995, True), (4.006, False)])
def test_a_client_fact_is_judged_at_the_precision_stdout_prints_it(receipt_dir, stated, holds):
    """stdout prints 4.00: a stated 4.004 is that printing (half a unit of its place), 4.006 is not."""
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("client_bucket_peak", stated))
    (peak,) = _at(verify_path(str(receipt_dir)), "client", "/facts/client_bucket_peak")
    assert (peak.status == "PASS") is holds and peak.observed["tolerance"] == "0.005"


def test_the_engine_delta_and_the_surplus_are_judged_exactly(receipt_dir):
    after = make_telemetry.scrape(1513.0)
    (receipt_dir / "metrics-after.prom").write_text(after)
    digest = hashlib.sha256(after.encode()).hexdigest()
    _edit(receipt_dir, lambda r: (r["evidence"]["metrics_after"].__setitem__("sha256", digest),
                                  r["facts"].update(engine_generation_tokens_delta=512, engine_surplus_tokens=0)))
    report = verify_path(str(receipt_dir))
    (delta,) = _at(report, "engine", "/facts/engine_generation_tokens_delta")
    (surplus,) = _at(report, "surplus", "/facts/engine_surplus_tokens")
    for f, derived in ((delta, "513.0"), (surplus, "1.0")):
        assert f.status == "FAIL" and f.code == "claim-mismatch" and f.expected == derived and f.observed["tolerance"] == "0"
    assert surplus.message.startswith("facts/engine_surplus_tokens = 0, but engine delta 513.0 - client output tokens 512")


def test_the_claims_table_lists_the_receipts_stated_numbers():
    """Report addition of the move: the denominator identity joins the table (a conclusion left unestablished, a PASS with no number, does not)."""
    rows = json.loads(json_report.render(verify_path(str(FIX))))["claims"]
    by_where = {r["where"]: r for r in rows}
    assert by_where["telemetry-receipt.json#/facts/engine_generation_tokens_delta"]["derived"] == "512.0"
    assert (by_where["bench.stdout"]["claimed"], by_where["bench.stdout"]["derived"]) == ("4", "4")
    assert "telemetry-receipt.json#/conclusions/itl_tail_cause" not in by_where  # a PASS stating no number is no claim (its finding stays)
    assert len(rows) == 18 and all(r["status"] == "PASS" for r in rows)


@pytest.mark.parametrize("rate,holds", [(30.08, True), (30.09, False)])
def test_the_rate_carries_the_printed_durations_half_unit_as_input_error(receipt_dir, rate, holds):
    """512 / 17.03 = 30.0646: 30.08 is off by more than its own half unit, yet within what a duration printed to 0.01 s allows."""
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("rate", {"output_tokens_per_s": rate, "interval_s": 17.03}))
    (f,) = _at(verify_path(str(receipt_dir)), "rate", "/facts/rate/output_tokens_per_s")
    assert (f.status == "PASS") is holds and f.derivation == "output tokens 512 / benchmark duration 17.03 s"
