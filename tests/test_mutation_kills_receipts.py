"""
Tests that kill surviving mutants of `verifier/checks/receipts.py` (issue 14): receipt consistency and retained attempts.

`consistency` runs on a stand-in campaign (plan and receipts only) and
`attempts` on a stand-in bundle of in-memory files, each rule at its
boundary: an ok receipt needs a 2xx status (200 and 299 pass, 199 and 300
fail) and no error; an ok measured request needs an output when the gate
makes the expected output binding; an ok request may take exactly the
request timeout; a timeout may equal the reservation; the plan must be
frozen no later than the earliest receipt start; retained attempts are
declared .jsonl receipts, valid, and never also in receipts.jsonl; any
other file holding receipts is FAIL `undeclared-receipts`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE

from verifier.checks import receipts as rc
from verifier.pipeline import Context
from verifier.readers.native import from_documents
from verifier.trust import assets

ROWS = [json.loads(line) for line in (EXAMPLE / "receipts.jsonl").read_text().splitlines()]
REQUEST = next(r for r in ROWS if r["kind"] == "request" and r["phase"] == "measured")
WORKER = next(r for r in ROWS if r["kind"] == "worker")


def _request(n: int, **change: Any) -> dict[str, Any]:
    return {**REQUEST, "request_id": f"r{n}", **change}


def _model(plan: dict, receipts: list[dict], manifest: dict | None = None):
    """Return the evidence model the native reader builds from a stand-in plan and receipts (`from_documents`)."""
    return from_documents({"plan": plan, "receipts": receipts}, manifest=manifest, names={})


def _consistency(receipts: list[dict], gate: dict | None = None, **plan: Any) -> list[tuple[str, str, str | None]]:
    """Return `(status, code, pointer)` of each finding; the freeze-time one only when the plan states `frozen_at`."""
    keep = "frozen_at" in plan
    plan = {"frozen_at": "2026-01-01T00:00:00Z", **plan}
    ctx = Context(subject=Path("."), assets=None, gate=gate, data={"evidence": _model(plan, receipts)})
    return [(f.status.value, f.code, f.pointer) for f in rc.consistency(ctx) if keep or "frozen" not in f.message]


@pytest.mark.parametrize("status,error,ok", [(200, None, True), (299, "", True), (None, None, True), (199, None, False),
                                              (300, None, False), (200, "upstream reset", False)])
def test_an_ok_receipt_needs_a_2xx_status_and_no_error(status, error, ok):
    found = _consistency([_request(0, http_status=status, error=error)])
    assert found == ([("PASS", "holds", None)] if ok else [("FAIL", "outcome-contradicts-status", "/0")])


def test_a_failed_request_may_carry_any_status_and_workers_are_not_requests():
    found = _consistency([_request(0, outcome="error", http_status=500, error="boom"), WORKER])
    assert found == [("PASS", "holds", None)]
    ctx = Context(subject=Path("."), assets=None, data={"evidence": _model({"frozen_at": "2026-01-01T00:00:00Z"}, [_request(0), WORKER, _request(1)])})
    assert "every ok receipt of 2 " in next(iter(rc.consistency(ctx))).message


COVERAGE_GATE = {"coverage": {}}


def test_an_ok_measured_request_without_output_fails_when_the_gate_binds_the_output():
    receipts = [_request(0, outputs=[]), _request(1, phase="warmup", outputs=[]), _request(2, outcome="timeout", outputs=[]),
                _request(3)]
    found = _consistency(receipts, COVERAGE_GATE, expected_output={"frames": 1})
    assert found[1:] == [("FAIL", "ok-without-output", "/0")]
    assert _consistency(receipts[1:], COVERAGE_GATE, expected_output={"frames": 1})[1:] == [("PASS", "holds", None)]
    assert _consistency(receipts, None, expected_output={"frames": 1})[1:] == []  # no coverage gate: not binding
    assert _consistency(receipts, COVERAGE_GATE)[1:] == []  # no expected output


@pytest.mark.parametrize("elapsed,late", [("900", False), ("900.01", True), ("899", False)])
def test_an_ok_request_may_take_exactly_the_request_timeout(elapsed, late):
    found = _consistency([_request(0, elapsed_s=json.loads(elapsed))], timeouts={"request_s": 900})
    assert found[1:] == ([("FAIL", "ok-after-timeout", "/0")] if late else [("PASS", "holds", None)])


def test_a_failed_request_beyond_the_timeout_is_not_late():
    assert _consistency([_request(0, elapsed_s=1000, outcome="timeout")], timeouts={"request_s": 900})[1:] == [("PASS", "holds", None)]


@pytest.mark.parametrize("request_s,over", [(600, False), (599, False), (601, True)])
def test_a_timeout_may_equal_the_reservation_it_runs_inside(request_s, over):
    found = _consistency([], timeouts={"request_s": request_s, "reservation_s": 600})
    assert found[-1:] == ([("FAIL", "timeout-beyond-reservation", "/timeouts/request_s")] if over else [("PASS", "holds", None)])


@pytest.mark.parametrize("frozen,late", [("2026-10-01T08:00:00Z", False), ("2026-10-01T08:00:00.000001Z", True),
                                         ("2026-10-01T07:00:00Z", False)])
def test_the_plan_is_frozen_no_later_than_the_earliest_start(frozen, late):
    receipts = [_request(0, started_at="2026-10-01T09:00:00Z"), _request(1, started_at="2026-10-01T08:00:00Z")]
    found = _consistency(receipts, frozen_at=frozen)
    assert found[-1] == (("FAIL", "plan-frozen-late", "/frozen_at") if late else ("PASS", "holds", None))


@pytest.mark.parametrize("head,looks", [(b"\n  \n" + json.dumps(REQUEST).encode(), True), (json.dumps(WORKER).encode(), True),
                                        (b'{"kind": "note"}', False), (b"{not json\n" + json.dumps(REQUEST).encode(), False),
                                        (b"", False), (b"[1]", False)])
def test_receipts_are_recognised_by_the_first_non_blank_line(head, looks):
    assert rc._looks_like_receipts(head) is looks


class _Bundle:
    def __init__(self, root: Path, files: dict[str, bytes]):
        self.root, self.contents, self.verified = root, dict(files), {}
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
            self.verified[name] = name


def _attempts(tmp_path: Path, files: dict[str, bytes], roles: dict[str, str], accepted: list[dict] | None = None) -> list:
    manifest = {"files": [{"path": n, "role": r} for n, r in roles.items()]}
    ctx = Context(subject=tmp_path, assets=assets(), bundle=_Bundle(tmp_path, files),
                  data={"manifest": manifest, "evidence": _model({}, accepted or [], manifest)})
    return [(f.status.value, f.code, f.path, f.pointer) for f in rc.attempts(ctx)]


def _lines(*rows: dict) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_a_declared_attempt_is_retained_and_one_also_accepted_is_mixed_in(tmp_path):
    files = {"attempts/a.jsonl": _lines(_request(0), _request(1))}
    assert _attempts(tmp_path, files, {"attempts/a.jsonl": "rejected-attempt"}) == [
        ("PASS", "attempt-retained", "attempts/a.jsonl", None), ("PASS", "no-hidden-receipts", None, None)]
    mixed = _attempts(tmp_path / "m", files, {"attempts/a.jsonl": "rejected-attempt"}, accepted=[_request(1)])
    assert mixed[0] == ("FAIL", "attempt-mixed-in", "attempts/a.jsonl", "/1") and len(mixed) == 2


def test_an_attempt_must_be_valid_jsonl_receipts(tmp_path):
    role = {"a.txt": "interrupted-attempt"}
    assert _attempts(tmp_path / "1", {"a.txt": _lines(_request(0))}, role)[0][:2] == ("FAIL", "attempt-not-receipts")
    bad_line = _lines(_request(0)) + b"{broken\n"
    assert _attempts(tmp_path / "2", {"a.jsonl": bad_line}, {"a.jsonl": "rejected-attempt"})[0][3] == "/1"
    invalid = _attempts(tmp_path / "3", {"a.jsonl": _lines({**_request(0), "outcome": 5})}, {"a.jsonl": "rejected-attempt"})
    assert invalid[0][:2] == ("FAIL", "schema-violation") and invalid[0][3].startswith("/0")
    assert "attempt-retained" not in {f[1] for f in invalid}
    empty = _attempts(tmp_path / "4", {"a.jsonl": b""}, {"a.jsonl": "rejected-attempt"})
    assert empty[0][:2] == ("FAIL", "attempt-not-receipts") and "attempt-retained" not in {f[1] for f in empty}


def test_an_undeclared_file_holding_receipts_fails_and_documents_are_not_sniffed(tmp_path):
    files = {"notes.jsonl": _lines(_request(0)), "receipts.jsonl": _lines(_request(1)), "README.md": b"# run\n"}
    assert _attempts(tmp_path, files, {}) == [("FAIL", "undeclared-receipts", "notes.jsonl", None)]
    assert _attempts(tmp_path / "ok", {"receipts.jsonl": _lines(_request(1))}, {}) == [("PASS", "no-hidden-receipts", None, None)]


def test_an_attempt_that_did_not_pass_integrity_is_not_parsed(tmp_path):
    # integrity.files FAILed it (not in `verified`): attempts.retained says nothing of it and never reads it
    files = {"attempts/a.jsonl": _lines(_request(0))}
    manifest = {"files": [{"path": "attempts/a.jsonl", "role": "rejected-attempt"}]}
    bundle = _Bundle(tmp_path, files)
    bundle.verified.clear()
    bundle.contents.clear()
    ctx = Context(subject=tmp_path, assets=assets(), bundle=bundle,
                  data={"manifest": manifest, "evidence": _model({}, [], manifest)})
    assert [(f.status.value, f.code, f.path) for f in rc.attempts(ctx)] == [("PASS", "no-hidden-receipts", None)]
