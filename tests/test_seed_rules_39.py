"""
Issue 39, item 3: the seed rules still open, each with a FAIL input and a PASS input, in every naming the seeds use.

Plan durations that bound each other (`receipts.consistency`): the ref2va campaign review
(`shared/seeds/ref2va-campaign-review.txt`, P2) has `wave_timeout_s` and `http_timeout_s` of 14,400 s
inside one 3-hour hard reservation shared by every arm, with a soft TERM at 165 minutes (and, in the
pilot, a 2-hour reservation, a soft TERM at 105 minutes and a forced kill 180 s later).
"""

from __future__ import annotations

import pytest
from test_mutation_kills_receipts import _consistency, _request



SEED_FAIL = [
    ({"wave_timeout_s": 14400, "http_timeout_s": 14400, "hard_reservation_s": 10800, "soft_term_s": 9900},
     {"/timeouts/wave_timeout_s", "/timeouts/http_timeout_s"}),
    ({"http_timeout_s": 14400, "reservation_hard_min": 180, "soft_terminate_min": 165}, {"/timeouts/http_timeout_s"}),
    ({"wave_timeout_s": 14400, "shared_reservation_h": 2, "soft_term_after_min": 105, "kill_after_s": 180},
     {"/timeouts/wave_timeout_s"}),
    ({"request_timeout_s": 9901, "shared_reservation_s": 10800, "sigterm_after_s": 9900}, {"/timeouts/request_timeout_s"}),
]
SEED_PASS = [
    {"wave_timeout_s": 9000, "http_timeout_s": 9000, "hard_reservation_s": 10800, "soft_term_s": 9900},
    {"http_timeout_s": 9900, "reservation_hard_min": 180, "soft_terminate_min": 165},
    {"wave_timeout_s": 6000, "shared_reservation_h": 2, "soft_term_after_min": 105, "kill_after_s": 180},
]


@pytest.mark.parametrize("timeouts,pointers", SEED_FAIL)
def test_a_timeout_longer_than_the_machine_may_be_held_fails_in_every_naming(timeouts, pointers):
    found = _consistency([_request(0)], timeouts=timeouts)
    over = {p for s, code, p in found if code == "timeout-beyond-reservation" and s == "FAIL"}
    assert over == pointers, found


@pytest.mark.parametrize("timeouts", SEED_PASS)
def test_timeouts_inside_the_hold_pass(timeouts):
    found = _consistency([_request(0)], timeouts=timeouts)
    assert all(s == "PASS" for s, _, _ in found), found
    assert len(found) >= 2  # the status rule, the hold rule (and the request timeout rule where one is named)


def test_a_soft_terminate_after_the_hard_reservation_fails():
    found = _consistency([_request(0)], timeouts={"request_s": 600, "hard_reservation_min": 60, "soft_term_min": 70})
    assert ("FAIL", "terminate-after-reservation", "/timeouts/soft_term_min") in found
    found = _consistency([_request(0)], timeouts={"request_s": 600, "hard_reservation_min": 60, "soft_term_min": 55})
    assert all(s == "PASS" for s, _, _ in found), found


@pytest.mark.parametrize("key", ["request_s", "request_timeout_s", "http_timeout_s"])
def test_an_ok_request_after_the_request_timeout_fails_in_every_naming(key):
    found = _consistency([_request(0, elapsed_s=901)], timeouts={key: 900})
    assert ("FAIL", "ok-after-timeout", "/0") in found
    assert ("FAIL", "ok-after-timeout", "/0") not in _consistency([_request(0, elapsed_s=899)], timeouts={key: 900})


def test_a_timeout_in_minutes_is_read_in_minutes():
    found = _consistency([_request(0, elapsed_s=901)], timeouts={"request_timeout_min": 15})
    assert ("FAIL", "ok-after-timeout", "/0") in found
    assert ("FAIL", "ok-after-timeout", "/0") not in _consistency([_request(0, elapsed_s=899)], timeouts={"request_timeout_min": 15})


@pytest.mark.parametrize("timeouts", [{"request_s": 600, "reservation_s": 3600, "term_grace_s": 60},
                                      {"request_s": 600, "reservation_s": 3600, "kill_after_s": 7200}])
def test_a_grace_before_the_forced_kill_bounds_nothing(timeouts):
    """A grace counts from the TERM, not from the start: it is neither a hold limit nor a timeout inside one."""
    found = _consistency([_request(0)], timeouts=timeouts)
    assert all(s == "PASS" for s, _, _ in found), found


def _share_output(bundle, second_outcome="ok"):
    """Give request A1-m2 the output of A1-m1 (same path and digest), with `second_outcome`."""
    from bundlekit import read_lines, rehash, write_lines

    rows = read_lines(bundle / "receipts.jsonl")
    first = next(r for r in rows if r.get("request_id") == "A1-m1")
    second = next(r for r in rows if r.get("request_id") == "A1-m2")
    second["outputs"] = [dict(o) for o in first["outputs"]]
    if second_outcome != "ok":
        second.update(outcome=second_outcome, http_status=504, error="gateway timeout")
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)


def _plan_codes(bundle):
    from test_claims_stated import run_claims

    return [(f.status.value, f.code, f.pointer) for f in run_claims(bundle) if f.check == "plan.conformance"]


def test_two_successful_requests_naming_the_same_output_file_fail(example_copy):
    assert ("PASS", "outputs", None) in _plan_codes(example_copy)
    _share_output(example_copy)
    found = _plan_codes(example_copy)
    assert [f for f in found if f[1] == "output-shared"] == [("FAIL", "output-shared", "/3/outputs/0/path")], found


def test_a_failed_request_naming_a_successful_ones_output_is_not_a_shared_output(example_copy):
    _share_output(example_copy, "failed")
    found = _plan_codes(example_copy)
    assert not [f for f in found if f[1] == "output-shared"] and ("PASS", "outputs", None) in found, found
