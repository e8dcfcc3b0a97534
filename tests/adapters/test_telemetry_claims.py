"""The telemetry receipt's stated numbers on `derivation.claims` (issue 36): client facts, engine delta, surplus, refusals and rate.

`IDS` names the check of each part: all `derivation.claims` now (before: `telemetry.replay`, `telemetry.engine`,
`telemetry.foreign`, `telemetry.rate`); the pinning tests pass with the old ids on the base of the move too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_telemetry import FIX, _edit, _replace_carrier, make_telemetry, receipt_dir  # noqa: F401 - the telemetry tests' fixture and helpers

from verifier.core import verify_path
from verifier.report import json_report

IDS = {"client": "derivation.claims", "engine": "derivation.claims", "surplus": "derivation.claims", "rate": "derivation.claims"}


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
        (IDS["client"], "the client facts are not replayed: telemetry.carriers, telemetry.process did not pass",
         ["telemetry.carriers", "telemetry.process"], None, None),
        (IDS["engine"], "the engine delta is not replayed: telemetry.carriers did not pass", ["telemetry.carriers"], None, None)]
    # the check ran (its other rows follow): not the pipeline's "not run because", which read as if derivation.claims had not run


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
    assert surplus.message.startswith("facts/engine_surplus_tokens = 0, but engine delta 513.0 - client output tokens 512 (unattributed engine "
                                      "work inside the scrape envelope, not observed foreign traffic) gives 1")  # trial 69 #10: '...traffic gives'


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


# --- hostile trial 69: every stated fact of a failed process FAILs, every stated number gets a finding, the claims table
# --- shows only what the receipt states as claimed, a refused number is its finding's observed, a blocked row names its blocker

def _facts(d: Path, execution: dict | None = None, **facts) -> None:
    """Keep only `facts` (None: the fixture's value of that key), and set `execution` when given."""
    def change(r):
        kept = {k: (r["facts"][k] if v is None else v) for k, v in facts.items()}
        r["facts"] = kept
        if execution is not None:
            r["execution"] = execution
    _edit(d, change)


FAILED = [{"outcome": "exited", "exit_code": 1}, {"outcome": "unreachable", "cause": "connection refused"}]
RATE = {"output_tokens_per_s": 30.06, "interval_s": 17.03}


@pytest.mark.parametrize("execution", FAILED, ids=["exit1", "unreachable"])
@pytest.mark.parametrize("facts", [{"rate": RATE}, {"client_bucket_peak": 4}, {"rate": RATE, "client_bucket_peak": 4},
                                   {"engine_generation_tokens_delta": 512, "engine_surplus_tokens": 0}, "all"],
                         ids=["rate", "peak", "rate+peak", "engine+surplus", "all"])
def test_every_fact_a_failed_or_unreachable_process_states_fails(receipt_dir, execution, facts):
    """docs/receipts.md section 3: a non-zero exit or an unreachable host with facts stated FAILs facts-from-failed-process, per fact;
    only the engine delta, which the scrapes carry whatever the process did, is not the process's fact."""
    if facts == "all":
        _edit(receipt_dir, lambda r: r.__setitem__("execution", execution))
        facts = json.loads((FIX / "telemetry-receipt.json").read_text())["facts"]
    else:
        _facts(receipt_dir, execution, **facts)
    report = verify_path(str(receipt_dir))
    failed = [f.pointer for f in report.findings if f.check == "telemetry.process" and f.code == "facts-from-failed-process"]
    assert failed == [f"/facts/{k}" for k in facts if k != "engine_generation_tokens_delta"]
    assert report.verdict == "FAIL"


def test_a_failed_process_stating_only_the_engine_delta_states_no_fact_of_its_own(receipt_dir):
    _facts(receipt_dir, FAILED[0], engine_generation_tokens_delta=512)
    report = verify_path(str(receipt_dir))
    assert [f.code for f in report.findings if f.check == "telemetry.process"] == ["no-facts"]


def _untyped(d):
    _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.0, engine_type="untyped"))


def _fractional(d):
    _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.5))


def _no_tokens_row(d):
    _replace_carrier(d, "stdout", "bench.stdout", "".join(x for x in make_telemetry.bench_stdout().splitlines(True)
                                                          if not x.startswith("Total generated tokens")))


def _exit1(d):
    _edit(d, lambda r: r.__setitem__("execution", {"outcome": "exited", "exit_code": 1}))


def _reset(d):
    _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(300.0))


@pytest.mark.parametrize("spoil,why,pointers", [
    (_untyped, "untyped", [SURPLUS := "/facts/engine_surplus_tokens"]),
    (_fractional, "not a whole token count", [SURPLUS]),
    (_reset, "reset", [SURPLUS]),
    (_no_tokens_row, "bench.stdout: no 'Total generated tokens' row)", [SURPLUS, "/facts/rate/output_tokens_per_s"]),
    (_exit1, "telemetry.process did not pass", [SURPLUS, "/facts/rate/output_tokens_per_s"]),
], ids=["untyped", "fractional", "reset", "stdout-without-tokens", "exit1"])
def test_a_stated_number_whose_inputs_did_not_replay_is_unverified_naming_them(receipt_dir, spoil, why, pointers):
    """Never silently skipped: the surplus (engine delta - client tokens) and the rate (client tokens / duration) stated over inputs that
    did not replay are each one UNVERIFIED row, naming what did not replay, with the stated number as observed."""
    _edit(receipt_dir, lambda r: r["facts"].update(engine_surplus_tokens=99999, engine_generation_tokens_delta=None))
    spoil(receipt_dir)
    report = verify_path(str(receipt_dir))
    stated = {SURPLUS: "99999", "/facts/rate/output_tokens_per_s": "30.06"}
    for pointer in pointers:
        (f,) = [f for f in report.findings if f.check == "derivation.claims" and f.pointer == pointer]
        assert (f.status, f.code, f.observed) == ("UNVERIFIED", "not-replayed", stated[pointer]), pointer
        assert why in f.message and stated[pointer] in f.message, f.message
    rows = {r["where"]: r for r in json.loads(json_report.render(report))["claims"]}
    for pointer in pointers:
        assert rows[f"telemetry-receipt.json#{pointer}"]["claimed"] == stated[pointer]


@pytest.mark.parametrize("spoil", [None, _fractional], ids=["whole", "fractional"])
def test_a_derived_number_nothing_states_is_no_claim(receipt_dir, spoil):
    """The engine delta and the surplus, not stated: their derivation is the finding's expected, never a row claiming it."""
    _edit(receipt_dir, lambda r: r["facts"].update(engine_generation_tokens_delta=None, engine_surplus_tokens=None))
    if spoil is not None:
        spoil(receipt_dir)
    report = verify_path(str(receipt_dir))
    stated = json.loads((receipt_dir / "telemetry-receipt.json").read_text())["facts"]
    rows = json.loads(json_report.render(report))["claims"]
    assert not [r for r in rows if r["status"] == "PASS" and r["claimed"] == "-"]  # a PASS stating nothing is no claim row
    for row in rows:
        if row["claimed"] == "-" or row["where"] == "bench.stdout":  # bench.stdout: successful + failed as stdout prints them
            continue
        where, _, pointer = row["where"].partition("#")
        assert where == "telemetry-receipt.json" and pointer.startswith("/facts/"), row
        value = stated
        for part in pointer.split("/")[2:]:
            value = value[part]
        assert row["claimed"] == str(value), row
    if spoil is None:
        derived = {f.message.split(" ")[0]: f.expected for f in report.findings if f.check == "derivation.claims" and f.code == "derived"
                   and f.pointer is None and f.path != "bench.stdout"}
        assert derived == {"engine": "512.0", "surplus": "0.0"}


@pytest.mark.parametrize("change,pointer,claimed", [
    (lambda d: _edit(d, lambda r: r["facts"].__setitem__("engine_peak_concurrent_requests", 4)), "/facts/engine_peak_concurrent_requests", "4"),
    (_reset, None, "512"),
    (lambda d: (_replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1500.0)),
                _edit(d, lambda r: r["facts"].update(engine_generation_tokens_delta=500, engine_surplus_tokens=-12))),
     "/facts/engine_surplus_tokens", "-12"),
    (lambda d: (_replace_carrier(d, "stdout", "bench.stdout", make_telemetry.bench_stdout().replace(" 17.03 ", " 0.00  ")),
                _edit(d, lambda r: r["facts"].update(benchmark_duration_s=0.0, rate={"output_tokens_per_s": 0.0, "interval_s": 0.0}))),
     "/facts/rate", "0.0"),
], ids=["engine-peak", "reset-as-delta", "client-exceeds-engine", "rate-from-zero-duration"])
def test_a_refused_stated_number_is_the_findings_observed_and_claimed_in_the_table(receipt_dir, change, pointer, claimed):
    change(receipt_dir)
    report = verify_path(str(receipt_dir))
    refused = [f for f in report.findings if f.check == "derivation.claims" and f.status == "FAIL"]
    (f,) = [f for f in refused if f.pointer == pointer and f.code != "claim-mismatch"]
    assert f.observed == claimed, (f.code, f.observed)
    (row,) = [r for r in json.loads(json_report.render(report))["claims"] if r["status"] == "FAIL" and r["claim"] != "successful + failed"
              and (r["where"].endswith(f"#{pointer}") if pointer else r["where"] == "metrics-after.prom")]
    assert row["claimed"] == claimed


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_blocked_claims_row_names_what_blocked_it(receipt_dir, fmt):
    """docs/ci.md: `claims not judged: 1 blocked by integrity`; a telemetry receipt whose process exited 1: blocked by telemetry.process."""
    from verifier.report import render

    _facts(receipt_dir, FAILED[0], rate=RATE)
    page = render(verify_path(str(receipt_dir)), fmt)
    assert "claims not judged: 1 blocked by telemetry.process" in page


def test_a_number_stated_under_a_key_the_producer_does_not_write_is_unverified(receipt_dir):
    """Every stated number gets a finding: `facts.foreign_tokens` (no key of the schema, none the profile refuses) was silently skipped."""
    _edit(receipt_dir, lambda r: r["facts"].update(foreign_tokens=77, extra={"tail_ms": 1.5}))
    report = verify_path(str(receipt_dir))
    rows = [(f.status, f.code, f.pointer, f.observed) for f in report.findings if f.check == "derivation.claims" and f.code == "not-a-producer-field"]
    assert rows == [("UNVERIFIED", "not-a-producer-field", "/facts/extra/tail_ms", "1.5"), ("UNVERIFIED", "not-a-producer-field", "/facts/foreign_tokens", "77")]


@pytest.mark.parametrize("key, text, status", [("itl_tail_cause", "prefill interference", "FAIL"),
                                               ("queue_cause", "the scheduler", "UNVERIFIED")])
def test_a_stated_conclusion_shows_its_text_as_claimed_in_the_claims_table(receipt_dir, key, text, status):
    """A conclusion is stated text, not a number: its row shows that text as claimed, never "claimed -" (stop 52's open item)."""
    _edit(receipt_dir, lambda r: r["conclusions"].__setitem__(key, text))
    rows = json.loads(json_report.render(verify_path(str(receipt_dir))))["claims"]
    (row,) = [r for r in rows if r["where"] == f"telemetry-receipt.json#/conclusions/{key}"]
    assert (row["status"], row["claimed"], row["derived"]) == (status, text, "-")


def test_a_count_row_without_a_delta_in_its_finding_shows_the_difference_of_its_numbers(receipt_dir):
    """The denominator identity's finding carries no comparison detail; its row still gives claimed - derived (was "delta -")."""
    rows = json.loads(json_report.render(verify_path(str(receipt_dir))))["claims"]
    assert (rows_at := [r for r in rows if r["where"] == "bench.stdout"]) and rows_at[0]["delta"] == "0"
