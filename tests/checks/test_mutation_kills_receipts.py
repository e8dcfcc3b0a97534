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
from verifier.engine.pipeline import Context, RunData
from verifier.readers.native import from_documents
from verifier.trust.assets import assets

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
    ctx = Context(subject=Path("."), assets=None, gate=gate, run=RunData(evidence=_model(plan, receipts)))
    return [(f.status.value, f.code, f.pointer) for f in rc.consistency(ctx) if keep or "frozen" not in f.message]


@pytest.mark.parametrize("status,error,ok", [(200, None, True), (299, "", True), (None, None, True), (199, None, False),
                                              (300, None, False), (200, "upstream reset", False)])
def test_an_ok_receipt_needs_a_2xx_status_and_no_error(status, error, ok):
    found = _consistency([_request(0, http_status=status, error=error)])
    assert found == ([("PASS", "holds", None)] if ok else [("FAIL", "outcome-contradicts-status", "/0")])


def test_a_failed_request_may_carry_any_status_and_workers_are_not_requests():
    found = _consistency([_request(0, outcome="error", http_status=500, error="boom"), WORKER])
    assert found == [("PASS", "holds", None)]
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=_model({"frozen_at": "2026-01-01T00:00:00Z"}, [_request(0), WORKER, _request(1)])))
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
                                         ("2026-10-01T07:00:00Z", False), ("2026-10-01T08:00:00.000000001Z", True),
                                         ("2026-10-01T08:00:00.0000000009Z", False), ("2026-10-01T10:29:59.999999999+02:30", False)])
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
                  run=RunData(manifest=manifest, evidence=_model({}, accepted or [], manifest)))
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


def test_a_bundle_document_or_a_file_of_no_receipts_listed_as_an_attempt_is_one_finding(tmp_path):
    """The plan's shard (or any document the bundle reads) with an attempt role: one `attempt-not-receipts`, not a schema error per line."""
    plan_rows = _lines(*({"id": f"B1-m{i}", "server": "B1", "phase": "measured"} for i in range(40)))
    for name in ("plan-requests.jsonl", "receipts.jsonl"):
        found = _attempts(tmp_path / name, {name: plan_rows if name.startswith("plan") else _lines(_request(0))}, {name: "rejected-attempt"})
        assert [f[:3] for f in found] == [("FAIL", "attempt-not-receipts", name), ("PASS", "no-hidden-receipts", None)], found
    other = _attempts(tmp_path / "notes", {"attempts/notes.jsonl": plan_rows}, {"attempts/notes.jsonl": "interrupted-attempt"})
    assert [f[:3] for f in other] == [("FAIL", "attempt-not-receipts", "attempts/notes.jsonl"), ("PASS", "no-hidden-receipts", None)]
    mixed = _attempts(tmp_path / "mixed", {"a.jsonl": _lines(_request(0), {"id": "B1-m1"})}, {"a.jsonl": "rejected-attempt"})
    assert [f[1] for f in mixed] == ["schema-violation"] * (len(mixed) - 1) + ["no-hidden-receipts"]  # a receipt among them: each line judged


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
                  run=RunData(manifest=manifest, evidence=_model({}, [], manifest)))
    assert [(f.status.value, f.code, f.path) for f in rc.attempts(ctx)] == [("PASS", "no-hidden-receipts", None)]


# --- cosmic-ray survivors (issue 42) ---------------------------------------------------------------------------------------

import hashlib  # noqa: E402

from verifier.engine.pipeline import Check  # noqa: E402


def _hold(timeouts: dict[str, Any]) -> list[tuple[str, str, str | None, str]]:
    """Return `(status, code, pointer, message)` of the plan-timeout findings (`_hold_limits`) of a plan with `timeouts` (in s)."""
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=_model({"timeouts": timeouts}, [])))
    return [(f.status.value, f.code, f.pointer, f.message) for f in rc.consistency(ctx) if f.path == "plan.json"]


def test_a_soft_terminate_after_the_reservation_never_fires():
    """
    Kills :85 both `and`->`or` and `not` deleted, :92 `>`->`>=`, :93 ZeroIterationForLoop, :103 `and`->`or`: a soft
    terminate later than the reservation FAILs (and nothing else is judged beyond the least hold); one equal to it holds.
    """
    assert _hold({"reservation_s": 600, "soft_term_s": 660, "request_s": 500}) == [
        ("FAIL", "terminate-after-reservation", "/timeouts/soft_term_s",
         "plan soft_term_s = 660 s terminates 660 s in, after the reservation_s = 600 s (600 s) has already ended the run: "
         "the soft terminate never fires")]
    assert _hold({"reservation_s": 600, "soft_term_s": 600}) == [
        ("PASS", "holds", None, "every plan timeout fits the time the run may hold the machine (reservation_s = 600 s, 600 s)")]


def test_the_least_hold_limit_bounds_the_other_timeouts_and_grace_periods_bound_nothing():
    """
    Kills :84 `and`->`or`, :97 both `and`->`or`: a reservation longer than the soft terminate is not itself "beyond"
    it, a grace period longer than the hold is not judged, and a plain timeout is judged against the least limit.
    """
    timeouts = {"reservation_s": 600, "soft_term_s": 500, "term_grace_s": 900, "kill_after_s": 700, "wave_timeout_s": 550}
    assert _hold(timeouts) == [
        ("FAIL", "timeout-beyond-reservation", "/timeouts/wave_timeout_s",
         "plan timeout wave_timeout_s = 550 s (550 s) is longer than the time the run may hold the machine, soft_term_s = 500 s "
         "(500 s): that limit ends the run first, and the timeout can never be the recorded cause")]
    assert _hold({**timeouts, "wave_timeout_s": 400})[0][:2] == ("PASS", "holds")


def test_receipts_checks_are_registered_checks():
    """Kills :107 and :178 RemoveDecorator: the pipeline runs `Check` objects with their ids and requirements."""
    assert isinstance(rc.consistency, Check) and (rc.consistency.id, rc.consistency.requires) == ("receipts.consistency", ("gate.pinned",))
    assert isinstance(rc.attempts, Check) and (rc.attempts.id, rc.attempts.requires) == ("attempts.retained", ())


def test_findings_name_the_files_the_plan_and_receipts_were_read_from():
    """Kills :116 AddNot and :118 `[0]`->`[1]`/`[-1]`: a mapped bundle's plan and receipts keep their own file names."""
    receipts = [_request(0, http_status=500), _request(1)]
    model = from_documents({"plan": {"frozen_at": "2026-01-01T00:00:00Z", "timeouts": {"request_s": 900, "reservation_s": 800}},
                            "receipts": receipts}, manifest=None, names={"plan": "run/plan.json", "receipts": "run/log.jsonl"})
    import dataclasses

    last = dataclasses.replace(model.receipts[1], location=dataclasses.replace(model.receipts[1].location, file="run/log2.jsonl"))
    model = dataclasses.replace(model, receipts=(model.receipts[0], last))  # a profile may read receipts from several files
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=model))
    assert [(f.code, f.path, f.pointer) for f in rc.consistency(ctx)] == [
        ("outcome-contradicts-status", "run/log.jsonl", "/0"), ("holds", "run/log.jsonl", None),
        ("timeout-beyond-reservation", "run/plan.json", "/timeouts/request_s"), ("holds", "run/plan.json", None)]


def _attempt_findings(tmp_path: Path, files: dict[str, bytes], roles: dict[str, str], *, accepted: list[dict] | None = None,
                      evidence=None, unread: tuple[str, ...] = (), unverified: tuple[str, ...] = (), cache: Any = None) -> list:
    """Return `(status, code, path, pointer, message, cached)` of `attempts`; `unread` files keep no bytes (a mapped bundle)."""
    manifest = {"files": [{"path": n, "role": r} for n, r in roles.items()]}
    bundle = _Bundle(tmp_path, files)
    bundle.digests = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    for name in unread:
        del bundle.contents[name]
    for name in unverified:
        del bundle.verified[name], bundle.contents[name]
    ctx = Context(subject=tmp_path, assets=assets(), bundle=bundle, options={"cache": cache},
                  run=RunData(manifest=manifest, evidence=evidence or _model({}, accepted or [], manifest)))
    return [(f.status.value, f.code, f.path, f.pointer, f.message, f.cached) for f in rc.attempts(ctx)]


def test_each_declared_attempt_is_judged_on_its_own_and_in_name_order(tmp_path):
    """
    Kills :200, :204, :217, :233 continue->break (a bad attempt does not stop the next one), :231 `not` deleted and AddNot
    (invalid rows are not also "no receipts"), :237 `i + 1` and its numbers, :242 AddNot (not cached without a cache).
    """
    files = {"a1.txt": _lines(_request(0)), "a2.jsonl": _lines(_request(0)) + b"{broken\n", "a3.jsonl": _lines({**_request(0), "outcome": 5}),
             "a4.jsonl": b"", "a5.jsonl": _lines(_request(0)), "a6.jsonl": _lines(_request(0), _request(1)), "receipts.jsonl": _lines(_request(1))}
    roles = {n: "rejected-attempt" for n in files if n != "receipts.jsonl"} | {"a4.jsonl": "interrupted-attempt"}
    found = _attempt_findings(tmp_path, files, roles, accepted=[_request(1)], unverified=("a5.jsonl",))
    assert [f[:4] for f in found] == [
        ("FAIL", "attempt-not-receipts", "a1.txt", None), ("FAIL", "invalid-json", "a2.jsonl", "/1"),
        ("FAIL", "schema-violation", "a3.jsonl", "/0/outcome"), ("FAIL", "attempt-not-receipts", "a4.jsonl", None),
        ("FAIL", "attempt-mixed-in", "a6.jsonl", "/1"), ("PASS", "no-hidden-receipts", None, None)]
    assert [f[4] for f in found if f[0] == "FAIL" and f[1] != "invalid-json" and f[1] != "schema-violation"] == [
        "a1.txt is listed as rejected-attempt but is not a .jsonl receipts file",
        "a4.jsonl (interrupted-attempt) holds no receipts",
        "a6.jsonl line 2: the rejected-attempt receipt r1 also appears in receipts.jsonl, mixed into the accepted result"]
    retained = _attempt_findings(tmp_path / "ok", {"a.jsonl": _lines(_request(0), WORKER)}, {"a.jsonl": "interrupted-attempt"})
    assert retained[0] == ("PASS", "attempt-retained", "a.jsonl", None,
                           "a.jsonl: 2 interrupted-attempt receipt(s), integrity-verified, valid, kept out of the accepted result", None)


def test_a_mapped_bundle_reads_an_attempt_again_and_parses_it_only_if_unchanged(tmp_path):
    """
    Kills :206 AddNot and `is`->`is not`, :207 `/`->`*`, :209 AddNot and `!=`->`==`, :212 continue->break: an attempt whose
    bytes were not kept is read again; one whose bytes changed since integrity matched them is not parsed.
    """
    files = {"a.jsonl": _lines(_request(0)), "b.jsonl": _lines(_request(1))}
    roles = {"a.jsonl": "rejected-attempt", "b.jsonl": "rejected-attempt"}
    found = _attempt_findings(tmp_path / "a", files, roles, unread=("a.jsonl", "b.jsonl"))
    assert [f[:3] for f in found] == [("PASS", "attempt-retained", "a.jsonl"), ("PASS", "attempt-retained", "b.jsonl"),
                                      ("PASS", "no-hidden-receipts", None)]

    class Changing(_Bundle):
        def __init__(self, root, files):
            super().__init__(root, files)
            (root / "a.jsonl").write_bytes(_lines(_request(7)))  # rewritten after integrity.files hashed the original

    manifest = {"files": [{"path": n, "role": r} for n, r in roles.items()]}
    bundle = Changing(tmp_path / "c", files)
    bundle.digests = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    bundle.contents.clear()
    ctx = Context(subject=tmp_path, assets=assets(), bundle=bundle, run=RunData(manifest=manifest, evidence=_model({}, [], manifest)))
    assert [(f.status.value, f.code, f.path, f.message) for f in rc.attempts(ctx)] == [
        ("FAIL", "changed-during-verification", "a.jsonl", "a.jsonl changed after integrity.files matched its sha256, so it is not parsed"),
        ("PASS", "attempt-retained", "b.jsonl", "b.jsonl: 1 rejected-attempt receipt(s), integrity-verified, valid, kept out of the accepted result"),
        ("PASS", "no-hidden-receipts", None, "no file outside receipts.jsonl and the declared attempts holds receipts")]


class _Cache:
    """A warm cache stand-in: what one run stores, a later run reads back as stored by an earlier run."""

    def __init__(self):
        self.kept: dict[str, tuple[str, bool]] = {}

    def result(self, key: str):
        return self.kept.get(key)

    def store_result(self, key: str, value: str) -> None:
        self.kept[key] = (value, True)


def test_only_a_valid_attempt_is_remembered_as_valid_and_a_rerun_says_so(tmp_path):
    """Kills :223 `not` deleted and AddNot, :242 AddNot: valid rows are noted (the next run's PASS is `cached`), invalid ones never."""
    cache = _Cache()
    files = {"a.jsonl": _lines(_request(0)), "b.jsonl": _lines({**_request(1), "outcome": 5})}
    roles = {"a.jsonl": "rejected-attempt", "b.jsonl": "rejected-attempt"}
    first = _attempt_findings(tmp_path / "1", files, roles, cache=cache)
    again = _attempt_findings(tmp_path / "2", files, roles, cache=cache)
    assert [(f[1], f[2], f[5]) for f in first] == [("attempt-retained", "a.jsonl", None), ("schema-violation", "b.jsonl", None),
                                                   ("no-hidden-receipts", None, None)]
    assert [(f[1], f[2], f[5]) for f in again] == [("attempt-retained", "a.jsonl", "schema"), ("schema-violation", "b.jsonl", None),
                                                   ("no-hidden-receipts", None, None)]
    assert len(cache.kept) == 1


def test_without_a_manifest_no_attempt_is_examined():
    """Pins the blocked finding (:185)."""
    ctx = Context(subject=Path("."), assets=None, run=RunData())
    assert [(f.status.value, f.code, f.message) for f in rc.attempts(ctx)] == [
        ("UNVERIFIED", "blocked-by-integrity", "no usable manifest.json: no file was matched, none is examined")]


def test_an_attempt_is_retained_when_the_accepted_receipts_are_unusable(tmp_path):
    """Kills :195 ExceptionReplacer: with unusable receipts (`campaign_of` raises `Unverifiable`) nothing can be mixed in."""
    manifest = {"files": [{"path": "a.jsonl", "role": "rejected-attempt"}]}
    from verifier.model.evidence import Location, Unmapped

    gap = Unmapped("receipts.jsonl", Location("receipts.jsonl", None), "receipts.jsonl failed its schema", part="receipts",
                   code="blocked-by-schema")
    evidence = from_documents({"plan": {}, "receipts": [_request(0)]}, manifest=manifest, names={}, unmapped=[gap])
    found = _attempt_findings(tmp_path, {"a.jsonl": _lines(_request(0))}, {"a.jsonl": "rejected-attempt"}, evidence=evidence)
    assert [f[:2] for f in found] == [("PASS", "attempt-retained"), ("PASS", "no-hidden-receipts")]


@pytest.mark.parametrize("size,hidden", [(4096, True), (4097, False)])
def test_receipts_are_sniffed_from_the_first_4096_bytes(tmp_path, size, hidden):
    """Kills :51 both numbers: a first line of 4096 bytes is read whole and recognised; one of 4097 is cut and is not."""
    line = json.dumps({**REQUEST, "note": ""}).encode()
    line = line.replace(b'"note": ""', b'"note": "' + b"x" * (size - len(line)) + b'"')
    assert len(line) == size
    found = _attempt_findings(tmp_path, {"notes.log": line + b"\n"}, {})
    assert [f[:3] for f in found] == ([("FAIL", "undeclared-receipts", "notes.log")] if hidden else [("PASS", "no-hidden-receipts", None)])


def test_documents_are_never_sniffed_and_do_not_stop_the_sniffing(tmp_path):
    """Kills :247 continue->break: `claims.json` sorts before an undeclared receipts file; the message names the roles."""
    found = _attempt_findings(tmp_path, {"claims.json": b"{}", "notes.jsonl": _lines(_request(0))}, {})
    assert [(f[0], f[1], f[2], f[4]) for f in found] == [
        ("FAIL", "undeclared-receipts", "notes.jsonl",
         "notes.jsonl holds receipts but is not declared: retain an attempt as .jsonl with a manifest role "
         "(rejected-attempt, interrupted-attempt)")]


def test_an_ok_measured_request_without_output_says_it_recorded_none():
    """Kills :136 both numbers (observed 0 outputs); pins the message."""
    plan = {"frozen_at": "2026-01-01T00:00:00Z", "expected_output": {"frames": 1}}
    ctx = Context(subject=Path("."), assets=None, gate=COVERAGE_GATE, run=RunData(evidence=_model(plan, [_request(0, outputs=[])])))
    (f,) = [f for f in rc.consistency(ctx) if f.code == "ok-without-output"]
    assert (f.expected, f.observed, f.path, f.message) == (
        ">= 1 output", 0, "receipts.jsonl",
        "measured request r0 is ok but records no output, while the plan expects one (expected_output)")


def _frozen_message(receipts: list[dict], frozen: str) -> str:
    plan = {"frozen_at": frozen}
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=_model(plan, receipts)))
    return next(f.message for f in rc.consistency(ctx) if "frozen" in f.message)


@pytest.mark.parametrize("starts,first", [
    # the earliest instant, as written (its offset kept); equal instants: the first in file order
    (["2026-10-01T09:00:00Z", "2026-10-01T10:00:00+02:00", "2026-10-01T08:00:00Z"], "2026-10-01T10:00:00+02:00"),
    (["2026-10-01T09:00:00Z", "2026-10-01T08:00:00Z", "2026-10-01T10:00:00+02:00"], "2026-10-01T08:00:00+00:00"),
    # a lower-case "z" the model holds no instant for: read here, and still the earliest
    (["2026-10-01T09:00:00Z", "2026-10-01T07:30:00z", "2026-10-01T08:00:00Z"], "2026-10-01T07:30:00+00:00"),
    (["2026-10-01T07:00:00Z", "2026-10-01T07:30:00z", "2026-10-01T07:00:00+00:00"], "2026-10-01T07:00:00+00:00"),
    (["2026-10-01T08:00:00z", "2026-10-01T09:30:00+02:00"], "2026-10-01T09:30:00+02:00"),
    (["2026-10-01T09:30:00+02:00", "2026-10-01T07:30:00z"], "2026-10-01T09:30:00+02:00"),
])
def test_the_earliest_start_is_the_first_of_the_earliest_instants_as_written(starts, first):
    receipts = [_request(i, started_at=s) for i, s in enumerate(starts)]
    assert f"after the first receipt started ({first})" in _frozen_message(receipts, "2026-10-02T00:00:00Z")


def test_a_worker_that_started_first_is_the_earliest_start_and_a_tie_keeps_the_request():
    requests = [_request(0, started_at="2026-10-01T09:00:00Z")]
    early = {**WORKER, "started_at": "2026-10-01T08:59:59Z"}
    assert "(2026-10-01T08:59:59+00:00)" in _frozen_message([*requests, early], "2026-10-02T00:00:00Z")
    tie = {**WORKER, "started_at": "2026-10-01T11:00:00+02:00"}
    assert "(2026-10-01T09:00:00+00:00)" in _frozen_message([*requests, tie], "2026-10-02T00:00:00Z")
    later = {**WORKER, "started_at": "2026-10-01T09:00:01Z"}
    assert "(2026-10-01T09:00:00+00:00)" in _frozen_message([*requests, later], "2026-10-02T00:00:00Z")
    assert "(2026-10-01T08:59:59+00:00)" in _frozen_message([early], "2026-10-02T00:00:00Z")  # workers alone


def test_receipts_that_record_no_start_are_passed_over():
    """A model built without the schema (`from_documents`) may hold a row or worker without `started_at`: no start, no failure."""
    bare = {k: v for k, v in _request(0).items() if k != "started_at"}
    worker = {k: v for k, v in WORKER.items() if k != "started_at"}
    assert "(2026-10-01T09:00:00+00:00)" in _frozen_message([bare, _request(1, started_at="2026-10-01T09:00:00Z"), worker],
                                                            "2026-10-02T00:00:00Z")


@pytest.mark.parametrize("written,mixed", [
    ("2026-10-01T13:46:43.760000+05:30", True), ("2026-10-01t08:16:43.76z", True),  # the accepted receipt's instant, written otherwise
    ("2026-10-01T08:16:43.760001Z", False),  # a microsecond later: another start
    ("2026-10-01T08:16:43.760000001Z", False), ("2026-10-01T08:16:43.7600000000Z", True),  # a nanosecond later; a zero 10th digit
])
def test_an_attempt_that_started_at_an_accepted_receipts_instant_is_mixed_in_however_it_is_written(tmp_path, written, mixed):
    """Found by this stop's trial: the start was compared as text, so the same receipt with another offset passed."""
    accepted = _request(1, started_at="2026-10-01T08:16:43.760000Z")
    files = {"attempts/a.jsonl": _lines(_request(0, started_at="2026-10-01T07:00:00Z"), _request(1, started_at=written))}
    found = _attempts(tmp_path, files, {"attempts/a.jsonl": "rejected-attempt"}, accepted=[accepted])
    assert (found[0][:2] == ("FAIL", "attempt-mixed-in")) is mixed and (not mixed or found[0][3] == "/1")


def test_an_accepted_receipt_whose_start_names_no_instant_is_compared_as_written(tmp_path):
    """A model built without the schema may hold a worker with no start (None) or a start no parser reads: compared as written, no failure."""
    bare_worker = {k: v for k, v in WORKER.items() if k != "started_at"}
    odd = _request(1, started_at="not a time")
    files = {"attempts/a.jsonl": _lines(_request(0, started_at="2026-10-01T07:00:00Z"), _request(1))}
    found = _attempts(tmp_path, files, {"attempts/a.jsonl": "rejected-attempt"}, accepted=[bare_worker, odd])
    assert found[0][:2] == ("PASS", "attempt-retained")
    same = _attempts(tmp_path / "s", {"attempts/a.jsonl": _lines({**odd, "started_at": "2026-10-01T07:00:00Z"})},
                     {"attempts/a.jsonl": "rejected-attempt"}, accepted=[odd, bare_worker])
    assert same[0][:2] == ("PASS", "attempt-retained")


def test_an_attempt_after_a_document_or_a_file_of_no_receipts_is_still_judged(tmp_path):
    """Kills `:244` and `:261` `continue` -> `break` (cosmic-ray run on the receipts.py of 89157fd): the attempts listed after such a file are judged too."""
    files = {"a.jsonl": _lines({"id": "B1-m1"}), "plan-requests.jsonl": _lines({"id": "B1-m1"}), "z.jsonl": _lines(_request(0))}
    found = _attempts(tmp_path, files, {name: "rejected-attempt" for name in files})
    assert [f[:3] for f in found] == [("FAIL", "attempt-not-receipts", "a.jsonl"), ("FAIL", "attempt-not-receipts", "plan-requests.jsonl"),
                                      ("PASS", "attempt-retained", "z.jsonl"), ("PASS", "no-hidden-receipts", None)]
