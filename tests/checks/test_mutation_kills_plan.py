"""
Tests that kill surviving mutants of `checks/plan.py`, `checks/outcomes.py`, `checks/integrity.py` and
`checks/derivation.py` (issue 14), each at the boundary of a documented rule.

Plan: a request that ends the instant it starts is in time order; the
warmup that ends last (not the first) is what must precede measured
requests; the outputs PASS counts the output digests it checked. Recorded
outcomes: thresholds are inclusive; a scope naming unknown comparisons is
one FAIL and nothing else; "nothing re-derives" says why (it said "the
quality index is unusable" for a gate section that does not exist, found by
the mutant that survived). Integrity: a listed
symlink is reported once, as a symlink; an external with an unsafe path is
FAIL `unsafe-path`. Derivation: a missing receipt keeps its place in the
denominator the message states; worker exits count workers with an exit
code or a signal, not running ones.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import asset_root, edit_json, make_bundle, read_lines, rehash, write_lines
from conftest import EXAMPLE
from helpers import TINY_GATE, make_assets, write_bundle

from verifier.core import verify_path
from verifier.model.findings import Status


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(make_assets(tmp_path_factory.mktemp("kills-plan") / "assets"))


def _of(report, check, code=None):
    return [f for f in report.findings if f.check == check and (code is None or f.code == code)]


def _no_error(report):
    assert not [f for f in report.findings if f.status is Status.ERROR], [f.message for f in report.findings if f.status is Status.ERROR]


# --- plan ----------------------------------------------------------------------------------------------------------------

def test_a_request_that_ends_as_it_starts_is_in_time_order(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    rows = [json.loads(x) for x in (bundle / "receipts.jsonl").read_text().splitlines()]
    rows[0].update(ended_at=rows[0]["started_at"], elapsed_s=0.001)  # > 0 (schema); within the 1 ms clock tolerance
    (bundle / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    assert not _of(report, "plan.conformance", "time-order") and _of(report, "plan.conformance", "timing")


def _shift_measured_to_the_last_warmup_end(bundle: Path) -> None:
    """Make s1's measured request start the instant its last warmup ends (and end its elapsed later)."""
    from datetime import datetime, timedelta

    rows = read_lines(bundle / "receipts.jsonl")
    warm_end = max(r["ended_at"] for r in rows if r["server"] == "s1" and r["phase"] == "warmup")
    for r in rows:
        if r["server"] == "s1" and r["phase"] == "measured":
            start = datetime.fromisoformat(warm_end.replace("Z", "+00:00"))
            r["started_at"] = warm_end
            r["ended_at"] = (start + timedelta(seconds=float(r["elapsed_s"]))).isoformat().replace("+00:00", "Z")
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)


@pytest.mark.parametrize("case,expect", [("ordered", []), ("touching", []), ("late", ["FAIL"])])
def test_the_last_warmup_must_end_before_the_first_measured_request(tmp_path, case, expect):
    gate = {"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1},
            "claims": [{"claim": "count.requests", "statistic": "count", "of": "requests"}]}
    assets = asset_root(tmp_path, {"warm-v1": gate})
    ok = [("warmup", 1, "ok"), ("warmup", 1, "ok"), ("measured", 2, "ok"), ("measured", 2, "ok")]
    late = [("warmup", 1, "ok"), ("measured", 2, "ok"), ("warmup", 1, "ok"), ("measured", 2, "ok")]  # a warmup between
    bundle = make_bundle(tmp_path / "b", "warm-v1", {"s1": ("baseline", late if case == "late" else ok),
                                                     "s2": ("candidate", ok)}, {"count.requests": 8})
    if case == "touching":  # a warmup ending the instant the first measured request starts precedes it
        _shift_measured_to_the_last_warmup_end(bundle)
    report = verify_path(str(bundle), asset_root=assets)
    assert [f.status.value for f in _of(report, "plan.conformance", "warmup-after-measured")] == expect
    assert not _of(report, "plan.conformance", "elapsed-mismatch")


def test_the_outputs_pass_counts_the_digests_it_checked(tmp_path, tiny):
    report = verify_path(str(write_bundle(tmp_path / "b")), asset_root=tiny)
    assert [f.message for f in _of(report, "plan.conformance", "outputs")] == [
        "0 output digest(s) recorded by receipts match the manifest"]


@pytest.mark.parametrize("recorded", ["a" * 64, "A" * 64, "b" * 64], ids=["same", "upper-case", "other"])
def test_an_output_that_is_a_declared_external_matches_its_digest(tmp_path, tiny, recorded):
    # a receipt may record an output kept outside the bundle: it is matched against the external's sha256 (any hex case)
    external = {"path": "media/r1.mp4", "sha256": "a" * 64, "size": 1, "source": "s3://bucket/r1.mp4",
                "reason": "too large for the repository"}
    bundle = write_bundle(tmp_path / "b", externals=[external])
    rows = [json.loads(x) for x in (bundle / "receipts.jsonl").read_text().splitlines()]
    rows[0]["outputs"] = [{"path": "media/r1.mp4", "sha256": recorded}]
    (bundle / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    if recorded == "b" * 64:
        assert [f.code for f in _of(report, "plan.conformance") if f.status is Status.FAIL] == ["output-digest-mismatch"]
    else:
        assert [f.message for f in _of(report, "plan.conformance", "outputs")] == [
            "1 output digest(s) recorded by receipts match the manifest"]


# --- recorded outcomes (claims.stated) -----------------------------------------------------------------------------------

def _outcomes(bundle: Path, outcomes: list, quality_edit=None):
    edit_json(bundle / "claims.json", lambda d: d.update(outcomes=outcomes))
    if quality_edit:
        edit_json(bundle / "quality-index.json", quality_edit)
    rehash(bundle)
    report = verify_path(str(bundle))
    _no_error(report)
    return [f for f in report.findings if f.pointer and f.pointer.startswith("/outcomes/")]


@pytest.mark.parametrize("metric,score,expect", [
    ("ssim", "0.97", ("PASS", "outcome-rederived")),  # the gate's ssim min is 0.97, inclusive
    ("lpips", "0.2", ("PASS", "outcome-rederived")),  # its lpips max is 0.2, inclusive
    ("ssim", "0.969", ("FAIL", "outcome-contradicted")),
    ("lpips", "0.201", ("FAIL", "outcome-contradicted")),
])
def test_a_score_on_the_threshold_meets_it(example_copy, metric, score, expect):
    def on_the_bound(d):
        next(c for c in d["comparisons"] if c["id"] == "c01")["scores"][metric] = Decimal(score)
    found = _outcomes(example_copy, [{"gate": f"quality.{metric}", "passed": True, "covers": ["c01"]}], on_the_bound)
    assert [(f.status.value, f.code) for f in found] == [expect]


def test_an_unknown_scope_is_one_fail_and_nothing_else(example_copy):
    found = _outcomes(example_copy, [{"gate": "quality", "passed": True, "covers": ["c01", "c99"]}])
    assert [(f.status.value, f.code, f.observed) for f in found] == [("FAIL", "outcome-scope-unknown", ["c99"])]


def test_nothing_rederives_says_why(example_copy):
    found = _outcomes(example_copy, [{"gate": "e2e-latency", "passed": True, "covers": "all"}])
    assert len(found) == 1 and found[0].message.endswith("(no gate section 'e2e-latency' with thresholds)"), found[0].message


# --- integrity -----------------------------------------------------------------------------------------------------------

def test_a_listed_symlink_is_reported_once_as_a_symlink(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b", extra={"data/x.txt": b"x"})
    (bundle / "data" / "x.txt").unlink()
    (bundle / "data" / "x.txt").symlink_to("../plan.json")
    report = verify_path(str(bundle), asset_root=tiny)
    about = [f for f in report.findings if f.path == "data/x.txt" and f.status is not Status.PASS]
    assert len(about) == 1 and about[0].status is Status.FAIL and "symlink" in about[0].message.lower(), \
        [(f.code, f.message) for f in about]


def test_an_external_with_an_unsafe_path_fails(tmp_path, tiny):
    external = {"path": "../outside.bin", "sha256": "a" * 64, "size": 1, "source": "s3://bucket/outside.bin",
                "reason": "too large for the repository"}
    bundle = write_bundle(tmp_path / "b", externals=[external])
    report = verify_path(str(bundle), asset_root=tiny)
    bad = [f for f in report.findings if f.pointer == "/external/0/path"]
    assert [(f.status.value, f.code) for f in bad] == [("FAIL", "unsafe-path")] and "leaves the bundle" in bad[0].message


# --- derivation ----------------------------------------------------------------------------------------------------------

def test_a_missing_receipt_stays_in_the_stated_denominator(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    lines = (bundle / "receipts.jsonl").read_text().splitlines()
    (bundle / "receipts.jsonl").write_text(lines[1] + "\n")  # r1 (baseline, s1) has no receipt
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    found = [f for f in _of(report, "derivation.claims", "incomplete-denominator") if "arm_mean_s.baseline" in f.message]
    assert len(found) == 1 and "0/1 planned requests" in found[0].message, [f.message for f in found]
    assert "(missing: ['r1']; failed or timed out: none)" in found[0].message  # each list, or the word none


def test_a_failed_receipt_is_named_as_failed_not_missing(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    rows = [json.loads(x) for x in (bundle / "receipts.jsonl").read_text().splitlines()]
    rows[0]["outcome"] = "failed"  # r1 (baseline, s1) has a receipt that did not succeed
    (bundle / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    found = [f for f in _of(report, "derivation.claims", "incomplete-denominator") if "arm_mean_s.baseline" in f.message]
    assert len(found) == 1, [(f.code, f.message) for f in report.findings if f.check == "derivation.claims"]
    assert "0/1 planned requests" in found[0].message and "(missing: none; failed or timed out: ['r1'])" in found[0].message


def test_worker_exits_count_workers_that_exited_not_running_ones(tmp_path):
    gate = {k: v for k, v in TINY_GATE.items() if k != "id"}
    gate["claims"] = [*gate["claims"], {"claim": "count.worker_exits", "statistic": "count", "of": "worker_exits"}]
    assets = asset_root(tmp_path, {"tiny-workers-v1": gate})
    bundle = write_bundle(tmp_path / "b")
    worker = {"kind": "worker", "arm": "baseline", "server": "s1", "started_at": "2026-01-01T00:00:00Z"}
    workers = [{**worker, "worker_id": "w1", "pid": 1, "ended_at": "2026-01-01T00:02:00Z", "exit_code": 0},
               {**worker, "worker_id": "w2", "pid": 2, "ended_at": "2026-01-01T00:02:00Z", "exit_code": None, "signal": 9},
               {**worker, "worker_id": "w3", "pid": 3, "ended_at": None, "exit_code": None},
               {**worker, "worker_id": "w4", "pid": 4, "ended_at": None, "exit_code": None}]  # w1 and w2 exited
    with (bundle / "receipts.jsonl").open("a") as handle:
        handle.write("".join(json.dumps(w) + "\n" for w in workers))
    claims = json.loads((bundle / "claims.json").read_text())
    claims["claims"].append({"id": "count.worker_exits", "value": 2})
    (bundle / "claims.json").write_text(json.dumps(claims))
    manifest = json.loads((bundle / "manifest.json").read_text())
    (bundle / "manifest.json").write_text(json.dumps({**manifest, "gate": "tiny-workers-v1"}))
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=assets)
    found = [f for f in report.findings if f.check == "derivation.claims" and "count.worker_exits" in f.message]
    assert [(f.status.value, f.code) for f in found] == [("PASS", "derived")], [f.message for f in found]


@pytest.mark.parametrize("elapsed,ok", [("86410.5", True), ("86410.501", True), ("86410.502", False), ("10.5", False)])
def test_elapsed_is_checked_against_a_span_of_days_to_the_clock_tolerance(tmp_path, tiny, elapsed, ok):
    bundle = write_bundle(tmp_path / "b")
    rows = read_lines(bundle / "receipts.jsonl")
    last = max(range(len(rows)), key=lambda i: rows[i].get("ended_at", ""))  # the last request: nothing starts after it
    rows[last].update(ended_at="2027-01-01T00:00:10.500000Z", started_at="2026-12-31T00:00:00Z", elapsed_s=Decimal(elapsed))
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    _no_error(report)
    assert bool(_of(report, "plan.conformance", "elapsed-mismatch")) is not ok


def test_as_many_requests_in_flight_as_the_plan_allows_is_not_exceeded(tmp_path):
    gate = {"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1}}
    root = asset_root(tmp_path / "assets", {"conc-v1": {**TINY_GATE, "id": "conc-v1", **gate}})
    servers = {"s1": ("baseline", [("measured", 1, "ok")]), "s2": ("candidate", [("measured", 1, "ok")])}
    bundle = make_bundle(tmp_path / "b", "conc-v1", servers, {}, plan_extra={"max_concurrency": 1})
    report = verify_path(str(bundle), asset_root=root)
    _no_error(report)
    assert not _of(report, "plan.conformance", "concurrency-exceeded") and _of(report, "plan.conformance", "timing")


def _edited(tmp_path: Path, tiny: str, plan_change=None, receipts_change=None):
    bundle = write_bundle(tmp_path / "b")
    if plan_change:
        edit_json(bundle / "plan.json", plan_change)
    if receipts_change:
        rows = read_lines(bundle / "receipts.jsonl")
        receipts_change(rows)
        write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)
    report = verify_path(str(bundle), asset_root=tiny)
    _no_error(report)
    return [(f.status.value, f.code, f.message) for f in _of(report, "plan.conformance")]


def test_a_plain_bundle_has_every_pass_of_the_plan(tmp_path, tiny):
    assert [c for s, c, _ in _edited(tmp_path, tiny)] == ["requests", "timing", "outputs", "workers"]


def test_a_request_the_plan_lists_twice_is_inconsistent(tmp_path, tiny):
    found = _edited(tmp_path, tiny, plan_change=lambda d: d["requests"].append(dict(d["requests"][0])))
    assert ("FAIL", "plan-inconsistent", "plan lists request r1 2 times") in found


def test_a_count_per_server_other_than_the_plans_is_inconsistent(tmp_path, tiny):
    found = _edited(tmp_path, tiny, plan_change=lambda d: d.update(measured_per_server=2))
    assert ("FAIL", "plan-inconsistent", "plan lists 1 measured request(s) for server s1, but measured_per_server is 2") in found


def test_two_receipts_of_one_request_are_a_duplicate_and_no_requests_pass(tmp_path, tiny):
    found = _edited(tmp_path, tiny, receipts_change=lambda rows: rows.append(dict(rows[0])))
    codes = [c for _, c, _ in found]
    assert "duplicate-receipt" in codes and "requests" not in codes


@pytest.mark.parametrize("exit_code,signal,code", [(0, None, "workers"), (None, None, "worker-not-exited"), (1, None, "worker-exit"),
                                                   (0, 9, "worker-exit"), (None, 15, "worker-exit")])
def test_every_worker_exits_with_code_0_and_no_signal(tmp_path, tiny, exit_code, signal, code):
    worker = {"kind": "worker", "worker_id": "s1-w0", "arm": "baseline", "server": "s1", "pid": 7,
              "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:11Z", "exit_code": exit_code, "signal": signal}
    found = _edited(tmp_path, tiny, receipts_change=lambda rows: rows.append(worker))
    assert [c for _, c, _ in found][-1] == code


# --- cosmic-ray survivors (issue 42): `conformance` on a stand-in evidence model (no bundle, no pipeline) ------------------

import dataclasses  # noqa: E402

from verifier.checks import plan as pl  # noqa: E402
from verifier.engine.pipeline import Check, Context, RunData  # noqa: E402
from verifier.readers.native import from_documents  # noqa: E402
from verifier.model.evidence import NO_INSTANT  # noqa: E402

#: two arms, one server each, one warmup and one measured request per server, one request in flight at a time
PLAN = {"frozen_at": "2026-01-01T00:00:00Z",
        "arms": [{"id": "baseline", "label": "A", "role": "baseline"}, {"id": "candidate", "label": "B", "role": "candidate"}],
        "servers": [{"id": "s1", "arm": "baseline"}, {"id": "s2", "arm": "candidate"}], "arm_order": ["A", "B"],
        "warmups_per_server": 1, "measured_per_server": 1, "max_concurrency": 1,
        "requests": [{"id": f"{s}-{p[0]}", "server": s, "phase": p} for s in ("s1", "s2") for p in ("warmup", "measured")]}
DIGEST = {"s1-m": "a" * 64, "s2-m": "b" * 64}


def _rq(rid: str, start: int, **change: Any) -> dict[str, Any]:
    """A receipt of planned request `rid` (`s1-w` ...) starting `start` s after midnight and taking 10 s."""
    server, phase = rid.split("-")
    row = {"kind": "request", "request_id": rid, "arm": {"s1": "baseline", "s2": "candidate"}.get(server, "ghost"), "server": server,
           "phase": {"w": "warmup", "m": "measured"}[phase], "started_at": f"2026-01-01T00:{start // 60:02d}:{start % 60:02d}Z",
           "ended_at": f"2026-01-01T00:{(start + 10) // 60:02d}:{(start + 10) % 60:02d}Z", "elapsed_s": 10, "outcome": "ok",
           "outputs": [{"path": f"media/{rid}.mp4", "sha256": DIGEST[rid]}] if rid in DIGEST else []}
    return {**row, **change}


def _wk(sid: str, **change: Any) -> dict[str, Any]:
    return {"kind": "worker", "worker_id": f"{sid}-w0", "server": sid, "arm": {"s1": "baseline", "s2": "candidate"}[sid],
            "started_at": "2026-01-01T00:00:00Z", "exit_code": 0, "signal": None, **change}


RECEIPTS = [_rq("s1-w", 0), _rq("s1-m", 20), _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")]
MANIFEST = {"files": [{"path": f"media/{rid}.mp4", "sha256": d} for rid, d in DIGEST.items()]}


def _conf(receipts: list | None = None, gate: dict | None = None, plan: dict | None = None, names: dict | None = None,
          evidence=None, full: bool = False) -> list:
    """Return `(status, code, message)` of each `plan.conformance` finding (with path and pointer when `full`)."""
    model = evidence or from_documents({"plan": {**PLAN, **(plan or {})}, "receipts": RECEIPTS if receipts is None else receipts},
                                       manifest=MANIFEST, names=names or {})
    ctx = Context(subject=Path("."), assets=None, gate=gate, run=RunData(evidence=model))
    return [(f.status.value, f.code, f.message, *((f.path, f.pointer) if full else ())) for f in pl.conformance(ctx)]


PASSES = [("PASS", "requests", "4 planned requests, each with exactly one agreeing receipt; none unplanned"),
          ("PASS", "timing", "elapsed_s agrees with timestamps (tolerance 0.001 s); warmups precede measured requests; arm order AB as planned"),
          ("PASS", "outputs", "2 output digest(s) recorded by receipts match the manifest"),
          ("PASS", "workers", "2 worker process(es) exited with code 0 and no signal")]


def test_a_run_as_planned_passes_every_section_without_a_gate():
    """
    Kills (plan.py) :58 `or`->`and` (no gate), :136 `[:1]` numbers, :160 `or` mutants, :174/:200/:216 the PASS conditions,
    :181/:182 `or`->`and`, :183/:187 the output count: the four PASS findings, exactly.
    """
    assert _conf() == PASSES


def test_conformance_is_the_registered_check_that_requires_a_pinned_gate():
    """Kills :42 RemoveDecorator."""
    assert isinstance(pl.conformance, Check) and (pl.conformance.id, pl.conformance.requires) == ("plan.conformance", ("gate.pinned",))


def test_findings_name_the_files_the_plan_and_receipts_were_read_from():
    """Kills :57 AddNot and :100 `[0]`->`[1]`/`[-1]`: a mapped bundle's plan and (first) receipts file name the findings."""
    model = from_documents({"plan": {**PLAN, "requests": PLAN["requests"] * 2}, "receipts": RECEIPTS}, manifest=MANIFEST,
                           names={"plan": "run/plan.json", "receipts": "run/a.jsonl"})
    later = [dataclasses.replace(r, location=dataclasses.replace(r.location, file="run/b.jsonl")) for r in model.receipts[1:]]
    model = dataclasses.replace(model, receipts=(model.receipts[0], *later))  # a profile may read receipts from several files
    found = _conf(evidence=model, full=True)
    assert [(f[1], f[3]) for f in found][:2] == [("plan-inconsistent", "run/plan.json"), ("plan-inconsistent", "run/plan.json")]
    assert [(f[1], f[3]) for f in found if f[0] == "PASS"] == [("requests", "run/a.jsonl"), ("timing", "run/a.jsonl"),
                                                              ("outputs", "run/a.jsonl"), ("workers", "run/a.jsonl")]


def test_a_plan_that_contradicts_itself_says_how():
    """
    Kills :66 ZeroIterationForLoop and :67 AddNot (an unknown arm), :71, :75-:81 (duplicate ids, counts per server):
    every inconsistency, with its pointer.
    """
    plan = {"servers": [*PLAN["servers"], {"id": "s3", "arm": "ghost"}], "requests": [*PLAN["requests"], PLAN["requests"][0]]}
    found = _conf(plan=plan, full=True)
    assert [f for f in found if f[1] == "plan-inconsistent"] == [
        ("FAIL", "plan-inconsistent", "plan server s3 names unknown arm 'ghost'", "plan.json", "/servers/2/arm"),
        ("FAIL", "plan-inconsistent", "the plan's servers (in run order) do not follow its arm_order", "plan.json", "/arm_order"),
        ("FAIL", "plan-inconsistent", "plan lists request s1-w 2 times", "plan.json", "/requests/4"),  # its second listing
        ("FAIL", "plan-inconsistent", "plan lists 2 warmup request(s) for server s1, but warmups_per_server is 1", "plan.json", "/requests"),
        ("FAIL", "plan-inconsistent", "plan lists 0 warmup request(s) for server s3, but warmups_per_server is 1", "plan.json", "/requests"),
        ("FAIL", "plan-inconsistent", "plan lists 0 measured request(s) for server s3, but measured_per_server is 1", "plan.json", "/requests")]


def test_per_server_counts_a_reader_did_not_state_are_zero():
    """
    Kills :34/:35/:62 the `0` defaults: a plan model without per-server counts (a mapped reader) plans no warmup and no
    measured request, so its measured requests are inconsistent and a gate asking for none is met.
    """
    model = from_documents({"plan": {**PLAN, "requests": [r for r in PLAN["requests"] if r["phase"] == "measured"]},
                            "receipts": [r for r in RECEIPTS if r.get("phase") != "warmup"]}, manifest=MANIFEST, names={})
    model = dataclasses.replace(model, plan=dataclasses.replace(model.plan, per_server={}))
    gate = {"plan": {"warmups_per_server": 0, "measured_per_server": 0}}
    assert [f[2] for f in _conf(evidence=model, gate=gate) if f[0] == "FAIL"] == [
        "plan lists 1 measured request(s) for server s1, but measured_per_server is 0",
        "plan lists 1 measured request(s) for server s2, but measured_per_server is 0"]


def test_the_gate_fixes_the_plan_it_judges():
    """
    Kills :84-:97: each field the gate fixes and differs, servers per arm, and warmups below the concurrency, with messages;
    a gate fixing one field only asks nothing of the others.
    """
    gate = {"plan": {"arm_order": ["B", "A"], "warmups_per_server": 2, "measured_per_server": 1, "servers_per_arm": 2,
                     "warmups_at_least_concurrency": True}}
    found = _conf(gate=gate, plan={"max_concurrency": 2}, full=True)
    assert [f for f in found if f[0] == "FAIL"] == [
        ("FAIL", "gate-plan-mismatch", "plan arm_order is ['A', 'B'], the gate requires ['B', 'A']", "plan.json", "/arm_order"),
        ("FAIL", "gate-plan-mismatch", "plan warmups_per_server is 1, the gate requires 2", "plan.json", "/warmups_per_server"),
        ("FAIL", "gate-plan-mismatch", "arm baseline has 1 server(s), the gate requires 2", "plan.json", "/servers"),
        ("FAIL", "gate-plan-mismatch", "arm candidate has 1 server(s), the gate requires 2", "plan.json", "/servers"),
        ("FAIL", "warmups-below-concurrency", "1 warmup(s) at max_concurrency 2: the first measured requests run cold",
         "plan.json", "/warmups_per_server")]
    assert _conf(gate={"plan": {"arm_order": ["A", "B"], "servers_per_arm": 1, "warmups_at_least_concurrency": True}}) == PASSES
    assert _conf(gate={"plan": {"warmups_at_least_concurrency": True}}, plan={"max_concurrency": None}) == PASSES
    assert _conf(gate={"plan": {}}, plan={"max_concurrency": 2}) == PASSES  # below the concurrency, but the gate does not ask


def test_receipts_that_are_missing_doubled_disagreeing_or_unplanned():
    """
    Kills :102-:129: a missing receipt (and its server then has no measured one), a duplicate whose second copy disagrees
    (only the first is compared), a disagreeing receipt, an unplanned one, workers naming another server or arm.
    """
    receipts = [_rq("s1-w", 0), _rq("s2-w", 60), _rq("s2-w", 60, arm="baseline"), _rq("s2-m", 80, phase="warmup"),
                _rq("s9-m", 100), _wk("s1", server="s7"), _wk("s2", arm="baseline"), _wk("s1")]
    found = _conf(receipts)
    assert [f for f in found if f[1] != "timing" and f[0] == "FAIL"] == [
        ("FAIL", "missing-receipt", "planned measured request s1-m on s1 has no receipt"),
        ("FAIL", "duplicate-receipt", "request s2-w has 2 receipts"),
        ("FAIL", "receipt-disagrees", "receipt of s2-m says {'server': 's2', 'phase': 'warmup', 'arm': 'candidate'}, "
                                      "the plan says {'server': 's2', 'phase': 'measured', 'arm': 'candidate'}"),
        ("FAIL", "unplanned-receipt", "receipt for request s9-m is not in the plan"),
        ("FAIL", "receipt-disagrees", "worker s1-w0 names server s7 / arm baseline, not in the plan"),
        ("FAIL", "receipt-disagrees", "worker s2-w0 names server s2 / arm baseline, not in the plan"),
        ("FAIL", "no-measured-receipts", "server s1 has no measured receipt at all")]
    assert "requests" not in [f[1] for f in found]


def test_timing_is_judged_per_server_from_each_requests_first_receipt():
    """
    Kills :109 and :136 `[:1]`->`[:2]` (a duplicate is not timed twice), :138-:145, :151-:165 (a server without receipts
    does not stop the others, nor is arm order judged without it), :168-:173: each timing failure, with its message.
    """
    late = [_rq("s2-m", 60), _rq("s2-w", 80, ended_at="2026-01-01T00:01:29Z", elapsed_s=9), _rq("s2-w", 80, elapsed_s=99)]
    found = _conf(late)
    assert [f for f in found if f[0] == "FAIL" and f[1] not in ("missing-receipt", "no-measured-receipts", "duplicate-receipt")] == [
        ("FAIL", "warmup-after-measured", "server s2: a warmup ends at 2026-01-01T00:01:29Z, after the first measured "
                                          "request starts at 2026-01-01T00:01:00Z")]
    odd = [_rq("s1-w", 0), _rq("s1-m", 30, ended_at="2026-01-01T00:00:20Z"), _rq("s2-w", 5), _rq("s2-m", 40, elapsed_s="10.5"),
           _wk("s1"), _wk("s2")]
    assert [f for f in _conf(odd) if f[0] == "FAIL"] == [
        ("FAIL", "time-order", "request s1-m ends before it starts"),
        ("FAIL", "elapsed-mismatch", "request s2-m: elapsed_s 10.5 but ended_at - started_at = 10 s"),
        ("FAIL", "concurrency-exceeded", "2 requests were in flight at once (rebuilt from receipt intervals), above max_concurrency 1")]
    backwards = [_rq("s2-w", 0), _rq("s2-m", 20), _rq("s1-w", 60), _rq("s1-m", 80), _wk("s1"), _wk("s2")]
    assert [f for f in _conf(backwards) if f[0] == "FAIL"] == [("FAIL", "arm-order", "servers ran in a different arm order than planned")]


def test_outputs_are_the_manifests_files_and_each_belongs_to_one_successful_request():
    """Kills :185-:197: a shared output (a failed request's copy is not), an output not listed, a digest that differs."""
    receipts = [_rq("s1-w", 0, outputs=[{"path": "media/s1-m.mp4", "sha256": "a" * 64}], outcome="error"),
                _rq("s1-m", 20, outputs=[{"path": "media/s1-m.mp4", "sha256": "A" * 64}, {"path": "media/extra.mp4", "sha256": "c" * 64}]),
                _rq("s2-w", 60), _rq("s2-m", 80, outputs=[{"path": "media/s2-m.mp4", "sha256": "c" * 64}, {"path": "media/s1-m.mp4", "sha256": "a" * 64}]),
                _wk("s1"), _wk("s2")]
    found = _conf(receipts, full=True)
    assert [f[1:] for f in found if f[0] == "FAIL"] == [
        ("output-not-in-bundle", "request s1-m output media/extra.mp4 is neither a bundle file nor a declared external artifact",
         "receipts.jsonl", "/1/outputs"),
        ("output-digest-mismatch", "request s2-m output media/s2-m.mp4: receipt sha256 differs from the manifest", "receipts.jsonl", "/3/outputs"),
        ("output-shared", "successful requests s1-m and s2-m both name the output media/s1-m.mp4: one file cannot be the output of "
                          "two requests (one overwrote the other, or one output was never kept)", "receipts.jsonl", "/3/outputs/1/path")]


@pytest.mark.parametrize("exit_code,signal,message", [
    (None, None, "worker s1-w0 on s1 has no recorded exit"),
    (3, None, "worker s1-w0 on s1 exited with code 3"),
    (None, 9, "worker s1-w0 on s1 exited with code None, signal 9")])
def test_a_worker_that_did_not_exit_cleanly_says_how(exit_code, signal, message):
    """Kills :209-:215: the messages (a signal only when there was one) and the expected exit."""
    found = [f for f in pl.conformance(Context(subject=Path("."), assets=None, run=RunData(evidence=from_documents(
        {"plan": PLAN, "receipts": [*RECEIPTS[:4], _wk("s1", exit_code=exit_code, signal=signal)]}, manifest=MANIFEST, names={}))))
             if f.status is Status.FAIL]
    assert [(f.message, f.expected, f.observed) for f in found] == [
        (message, {"exit_code": 0} if exit_code is None and signal is None else {"exit_code": 0, "signal": None},
         {"exit_code": exit_code, "signal": signal})]


def test_of_equal_instants_the_first_read_is_named():
    """
    Kills `>`/`<` -> `>=`/`<=` in the timing pass: of two warmups ending at one instant (written with other offsets) the
    first read is the one named, and so is the first of two measured requests starting at one instant.
    """
    def at(hms: str) -> str:  # the same instant, written one hour ahead
        hour, rest = hms.split(":", 1)
        return f"2026-01-01T{int(hour) + 1:02d}:{rest}+01:00"

    receipts = [_rq("s1-w", 0), _rq("s1-m", 20), _wk("s1"), _wk("s2"),
                _rq("s2-w", 60, ended_at="2026-01-01T00:01:29Z", elapsed_s=29),
                {**_rq("s2-w", 60), "request_id": "s2-w2", "started_at": at("00:01:00"), "ended_at": at("00:01:29"), "elapsed_s": 29},
                _rq("s2-m", 80),
                {**_rq("s2-m", 80), "request_id": "s2-m2", "started_at": at("00:01:20"), "ended_at": at("00:01:30")}]
    assert [f[2] for f in _conf(receipts) if f[1] == "warmup-after-measured"] == [
        "server s2: a warmup ends at 2026-01-01T00:01:29Z, after the first measured request starts at 2026-01-01T00:01:20Z"]
    receipts[4:8] = [receipts[5], receipts[4], receipts[7], receipts[6]]  # the other writing read first
    assert [f[2] for f in _conf(receipts) if f[1] == "warmup-after-measured"] == [
        "server s2: a warmup ends at 2026-01-01T01:01:29+01:00, after the first measured request starts at 2026-01-01T01:01:20+01:00"]


def test_a_duplicate_receipt_records_how_many_receipts_its_request_has():
    """Kills `observed=1 + len(...)` -> `0 + ...`, `2 + ...`, `1 - ...`: the finding's observed count is the message's."""
    model = from_documents({"plan": PLAN, "receipts": RECEIPTS + [_rq("s2-m", 80), _rq("s2-m", 80)]}, manifest=MANIFEST, names={})
    ctx = Context(subject=Path("."), assets=None, gate=None, run=RunData(evidence=model))
    found = [(f.message, f.observed, f.pointer) for f in pl.conformance(ctx) if f.code == "duplicate-receipt"]
    assert found == [("request s2-m has 3 receipts", 3, f"/{len(RECEIPTS)}")]  # the line of the second receipt


def test_a_request_listed_three_times_is_said_so_once_in_id_order():
    """Each repeated id is one finding with its count, in id order; the plan's last listing of an id is the one judged."""
    requests = [*PLAN["requests"], PLAN["requests"][1], PLAN["requests"][0], {**PLAN["requests"][1], "phase": "warmup"}]
    found = _conf(plan={"requests": requests})
    assert [f[2] for f in found if f[2].startswith("plan lists request")] == ["plan lists request s1-m 3 times", "plan lists request s1-w 2 times"]
    full = _conf(plan={"requests": requests}, full=True)  # each named at its second listing: s1-m at 4 (then 6), s1-w at 5
    assert [f[4] for f in full if f[2].startswith("plan lists request")] == ["/requests/4", "/requests/5"]
    assert ("FAIL", "receipt-disagrees", "receipt of s1-m says {'server': 's1', 'phase': 'measured', 'arm': 'baseline'}, "
                                         "the plan says {'server': 's1', 'phase': 'warmup', 'arm': 'baseline'}") in found


def test_timestamps_only_parse_time_reads_are_timed_as_written_and_offsets_kept_in_messages():
    """The model holds no instant for a lower-case "z": conformance reads it (a span, an order, a message with the text's offset)."""
    lower = [_rq("s1-w", 0, started_at="2026-01-01T00:00:00z", ended_at="2026-01-01T00:00:10z"), _rq("s1-m", 20),
             _rq("s2-w", 60), _rq("s2-m", 80, ended_at="2026-01-01T00:01:30z"), _wk("s1"), _wk("s2")]
    assert _conf(lower) == PASSES
    assert [f for f in _conf([*lower[:3], _rq("s2-m", 80, ended_at="2026-01-01T00:01:31z"), *lower[4:]]) if f[0] == "FAIL"] == [
        ("FAIL", "elapsed-mismatch", "request s2-m: elapsed_s 10 but ended_at - started_at = 11 s")]
    late = [_rq("s1-w", 0), _rq("s1-m", 20), _rq("s2-w", 60, ended_at="2026-01-01T02:01:25+02:00", elapsed_s=25),
            _rq("s2-m", 80, started_at="2026-01-01T00:01:20z", ended_at="2026-01-01T00:01:30z"), _wk("s1"), _wk("s2")]
    assert [f for f in _conf(late) if f[0] == "FAIL"] == [
        ("FAIL", "warmup-after-measured", "server s2: a warmup ends at 2026-01-01T02:01:25+02:00, after the first measured "
                                          "request starts at 2026-01-01T00:01:20z"),
        ("FAIL", "concurrency-exceeded", "2 requests were in flight at once (rebuilt from receipt intervals), above max_concurrency 1")]
    backwards = [_rq("s2-w", 0, started_at="2026-01-01T00:00:00z"), _rq("s2-m", 20), _rq("s1-w", 60), _rq("s1-m", 80), _wk("s1"), _wk("s2")]
    assert [f for f in _conf(backwards) if f[0] == "FAIL"] == [("FAIL", "arm-order", "servers ran in a different arm order than planned")]


def test_a_request_listed_again_is_judged_once_at_its_first_place_as_its_last_listing_says():
    """The plan lists s1-w three times (first as a warmup on s1, last as a measured request on s2) and s1-m twice."""
    requests = [{"id": "s1-w", "server": "s1", "phase": "warmup"}, {"id": "s2-w", "server": "s2", "phase": "warmup"},
                {"id": "s1-w", "server": "s1", "phase": "warmup"}, {"id": "s1-m", "server": "s1", "phase": "measured"},
                {"id": "s2-m", "server": "s2", "phase": "measured"}, {"id": "s1-w", "server": "s2", "phase": "measured"},
                {"id": "s1-m", "server": "s1", "phase": "measured"}]
    found = _conf(plan={"requests": requests, "max_concurrency": None})
    assert [f for f in found if f[1] in ("receipt-disagrees", "missing-receipt") or "request s1-" in f[2]] == [
        ("FAIL", "plan-inconsistent", "plan lists request s1-m 2 times"),
        ("FAIL", "plan-inconsistent", "plan lists request s1-w 3 times"),
        ("FAIL", "receipt-disagrees", "receipt of s1-w says {'server': 's1', 'phase': 'warmup', 'arm': 'baseline'}, "
                                      "the plan says {'server': 's2', 'phase': 'measured', 'arm': 'candidate'}")]
    missing = _conf([_rq("s1-m", 20), _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")],
                    plan={"requests": requests, "max_concurrency": None})
    assert [f[2] for f in missing if f[1] == "missing-receipt"] == ["planned measured request s1-w on s2 has no receipt"]
    twice = [*PLAN["requests"], PLAN["requests"][0]]
    assert [f for f in _conf(plan={"requests": twice}) if f[0] == "PASS"][0] == PASSES[0]  # four distinct requests, not five


def test_receipts_of_ids_the_plan_does_not_list_are_unplanned_in_id_order():
    receipts = [*RECEIPTS, _rq("s9-m", 100, server="s2"), _rq("s8-m", 110, server="s2"), _rq("s8-m", 120, server="s2")]
    found = _conf(receipts, plan={"max_concurrency": None})
    assert [f[2] for f in found if f[1] == "unplanned-receipt"] == ["receipt for request s8-m is not in the plan",
                                                                    "receipt for request s9-m is not in the plan"]
    assert "requests" not in [f[1] for f in found]


def test_a_request_after_a_repeated_listing_is_still_judged():
    """Kills `continue` -> `break` after a repeated id: the requests listed after its second listing are judged too."""
    requests = [PLAN["requests"][0], PLAN["requests"][0], *PLAN["requests"][1:]]
    found = _conf([_rq("s1-w", 0), _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")], plan={"requests": requests})
    assert [f[2] for f in found if f[1] == "missing-receipt"] == ["planned measured request s1-m on s1 has no receipt"]


def test_the_earliest_measured_start_of_a_server_is_compared_with_its_last_warmup_end():
    """Kills `measured_start[sid][0]` -> `[1]`/`[-1]`: a later line that starts earlier is the server's first measured start."""
    requests = [*PLAN["requests"], {"id": "s1-n", "server": "s1", "phase": "measured"}]
    receipts = [_rq("s1-w", 0, ended_at="2026-01-01T00:00:25Z", elapsed_s=25), _rq("s1-m", 40),
                {**_rq("s1-m", 20), "request_id": "s1-n"}, _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")]
    found = _conf(receipts, plan={"requests": requests, "measured_per_server": 2, "max_concurrency": None})
    assert [f[2] for f in found if f[1] == "warmup-after-measured"] == [
        "server s1: a warmup ends at 2026-01-01T00:00:25Z, after the first measured request starts at 2026-01-01T00:00:20Z"]


class _NoIteration(dict):
    def __iter__(self):
        raise AssertionError("the receipts' ids were iterated: a set of every id was built")


def test_no_set_of_the_receipt_ids_is_built_when_every_receipt_is_planned():
    """The unplanned rule builds a set of every receipt id (10^6 ids: 32 MB) only when some receipt id is not planned."""
    model = from_documents({"plan": PLAN, "receipts": RECEIPTS}, manifest=MANIFEST, names={})
    from verifier.readers.campaign import Campaign
    c = Campaign.build(model)
    c.requests.first = _NoIteration(c.requests.first)
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=model, campaign=c))
    assert [(f.status.value, f.code, f.message) for f in pl.conformance(ctx)] == PASSES


def test_a_planned_request_on_a_server_the_plan_does_not_list_is_inconsistent():
    """Found by this stop's trial (a shard's request on server Z9): it was only a missing receipt."""
    requests = [*PLAN["requests"], {"id": "z9-m", "server": "z9", "phase": "measured"}, {"id": "z9-n", "server": "z9", "phase": "measured"}]
    found = _conf(plan={"requests": requests}, full=True)
    assert [f[1:] for f in found if f[1] == "plan-inconsistent"] == [
        ("plan-inconsistent", "plan lists 2 request(s) for server z9, which is not one of its servers", "plan.json", "/requests/4")]
    assert [f[2] for f in found if f[1] == "missing-receipt"] == ["planned measured request z9-m on z9 has no receipt",
                                                                  "planned measured request z9-n on z9 has no receipt"]
    assert not [f for f in _conf(full=True) if f[1] == "plan-inconsistent"]


@pytest.mark.parametrize("ended,elapsed,holds", [
    ("2026-01-01T00:01:31.001000999Z", "11.002000999", True), ("2026-01-01T00:01:31.001000999Z", "11.000000999", True),
    ("2026-01-01T00:01:31.001000999Z", "11", False),  # 0.001000999 s off, beyond the 0.001 s tolerance (with the digits read to 6: 0.001, held)
    ("2026-01-01T00:01:31.001000999Z", "11.002001", False),  # 0.001000001 s off (to 6 digits: 0.001000, held)
    ("2026-01-01T00:01:31.001Z", "11.002", True),
])
def test_elapsed_is_compared_with_a_span_read_to_the_nanosecond(ended, elapsed, holds):
    """Found by stop 49's trial: a timestamp's 7th to 9th fraction digits were dropped, so a span near the tolerance was judged wrong."""
    receipts = [_rq("s1-w", 0), _rq("s1-m", 20), _rq("s2-w", 60), _rq("s2-m", 80, ended_at=ended, elapsed_s=Decimal(elapsed)), _wk("s1"), _wk("s2")]
    found = [f for f in _conf(receipts, plan={"max_concurrency": None}) if f[1] == "elapsed-mismatch"]
    assert not found if holds else found == [("FAIL", "elapsed-mismatch", f"request s2-m: elapsed_s {elapsed} but ended_at - started_at = 11.001000999 s")]


def test_a_warmup_ending_nanoseconds_after_the_first_measured_start_is_said_with_every_digit():
    """Found by this stop's trial: the message printed both instants cut to microseconds, so they read as one time."""
    late = [_rq("s1-w", 0), _rq("s1-m", 20), _rq("s2-w", 60, ended_at="2026-01-01T00:01:20.0000005Z", elapsed_s=Decimal("20.0000005")),
            _rq("s2-m", 80, started_at="2026-01-01T00:01:20.0000001Z", ended_at="2026-01-01T00:01:30Z", elapsed_s=Decimal("9.9999999")),
            _wk("s1"), _wk("s2")]
    assert [f[2] for f in _conf(late, plan={"max_concurrency": None}) if f[1] == "warmup-after-measured"] == [
        "server s2: a warmup ends at 2026-01-01T00:01:20.0000005Z, after the first measured request starts at 2026-01-01T00:01:20.0000001Z"]


# --- the timing section over columns (issue 40): the same findings, in the order of the rows, for any instants ---

def test_timing_failures_are_in_the_order_of_the_rows_whatever_their_kind():
    rows = [_rq("s1-w", 0), _rq("s1-m", 20, elapsed_s=11), _rq("s2-w", 60, ended_at="2026-01-01T00:00:50Z"), _rq("s2-m", 80),
            _wk("s1"), _wk("s2")]
    assert [f[1:] for f in _conf(rows) if f[1] in ("time-order", "elapsed-mismatch")] == [
        ("elapsed-mismatch", "request s1-m: elapsed_s 11 but ended_at - started_at = 10 s"), ("time-order", "request s2-w ends before it starts")]


def test_a_span_longer_than_64_bits_of_nanoseconds_is_subtracted_exactly():
    """1700 to 2260 is about 1.8e19 ns, past 2**63: held as Python integers, not wrapped around."""
    seconds = (datetime(2260, 1, 1) - datetime(1700, 1, 1)) // timedelta(seconds=1)
    rows = [_rq("s1-w", 0, started_at="1700-01-01T00:00:00Z", ended_at="2260-01-01T00:00:00Z", elapsed_s=seconds), *RECEIPTS[1:]]
    found = _conf(rows)
    assert not [f for f in found if f[1] in ("elapsed-mismatch", "time-order") or f[0] == "ERROR"]
    rows[0]["elapsed_s"] = seconds + 1
    assert [f[1:] for f in _conf(rows) if f[1] == "elapsed-mismatch"] == [
        ("elapsed-mismatch", f"request s1-w: elapsed_s {seconds + 1} but ended_at - started_at = {seconds} s")]


def test_instants_outside_64_bits_of_nanoseconds_are_timed_and_ordered_exactly():
    rows = [_rq("s1-w", 0, started_at="9999-01-01T00:00:00Z", ended_at="9999-01-01T00:00:10Z"), *RECEIPTS[1:]]
    assert [f for f in _conf(rows) if f[0] != "PASS"] == [
        ("FAIL", "warmup-after-measured", "server s1: a warmup ends at 9999-01-01T00:00:10Z, after the first measured request starts at 2026-01-01T00:00:20Z")]


def test_the_arm_order_is_the_order_of_each_servers_earliest_start():
    """s1 starts first and ends last: A then B, as planned (its latest start would say B then A)."""
    rows = [_rq("s1-w", 0), _rq("s1-m", 200), _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")]
    assert not [f for f in _conf(rows) if f[1] == "arm-order"] and [f for f in _conf(rows) if f[1] == "timing"]


@pytest.mark.parametrize("size", [1, 2, 3])
def test_the_timing_findings_do_not_depend_on_how_many_rows_are_judged_at_once(monkeypatch, size):
    cases = [[_rq("s1-w", 0), _rq("s1-m", 20, elapsed_s=11), _rq("s2-w", 60, ended_at="2026-01-01T00:00:50Z"), _rq("s2-m", 80, elapsed_s=9),
              _wk("s1"), _wk("s2")],
             [_rq("s1-w", 0, started_at="2026-01-01T00:00:00z", ended_at="2026-01-01T00:00:11z"), _rq("s1-m", 20), _rq("s2-w", 60),
              _rq("s2-m", 80, elapsed_s=12), _wk("s1"), _wk("s2")]]
    expected = [_conf(rows) for rows in cases]
    assert [len([f for f in found if f[1] in ("time-order", "elapsed-mismatch")]) for found in expected] == [3, 2]
    monkeypatch.setattr(pl, "_CHUNK", size)
    assert [_conf(rows) for rows in cases] == expected


def test_timing_reads_instants_the_model_lacks_without_writing_them_into_the_model():
    """The timing section's arrays are views of the model's columns where it can: a row it reads itself goes into a copy."""
    receipts = [_rq("s1-w", 0, started_at="2026-01-01T00:00:00z", ended_at="2026-01-01T00:00:10z"), *RECEIPTS[1:]]
    model = from_documents({"plan": PLAN, "receipts": receipts}, manifest=MANIFEST, names={})
    assert _conf(evidence=model) == PASSES
    assert model.receipts.started_at.at[0] == model.receipts.ended_at.at[0] == NO_INSTANT  # as the reader built it


def test_an_instant_of_exactly_2_to_the_63_nanoseconds_is_held_as_a_python_integer():
    """2262-04-11T23:47:16.854775808Z is 2**63 ns, one past int64: the timing section holds it exactly (kills the bound's `- 1` -> `+ 1`)."""
    rows = [_rq("s1-w", 0), _rq("s1-m", 20), _rq("s2-w", 60),
            _rq("s2-m", 80, started_at="2262-04-11T23:47:15.854775808Z", ended_at="2262-04-11T23:47:16.854775808Z", elapsed_s=1),
            _wk("s1"), _wk("s2")]
    found = _conf(rows)
    assert not [f for f in found if f[0] == "ERROR" or f[1] in ("elapsed-mismatch", "time-order")], found
    rows[3]["elapsed_s"] = 2
    assert [f[2] for f in _conf(rows) if f[1] == "elapsed-mismatch"] == ["request s2-m: elapsed_s 2 but ended_at - started_at = 1 s"]


def test_an_instant_one_nanosecond_before_64_bits_is_held_as_a_python_integer():
    """1677-09-21T00:12:43.145224191Z is -2**63 - 1 ns: held exactly, no ERROR (kills the lower bound's `- 1` -> `- 2`)."""
    rows = [_rq("s1-w", 0, started_at="1677-09-21T00:12:43.145224191Z", ended_at="1677-09-21T00:12:53.145224191Z"), *RECEIPTS[1:]]
    found = _conf(rows)
    assert not [f for f in found if f[0] == "ERROR" or f[1] in ("elapsed-mismatch", "time-order")], found


def test_a_plan_without_one_request_receipt_is_timed_over_no_rows():
    """Only worker receipts: every planned request is missing, and the timing section runs over zero rows without an ERROR."""
    found = _conf([_wk("s1"), _wk("s2")])
    assert [f[1] for f in found if f[0] == "ERROR"] == [] and [f[1] for f in found].count("missing-receipt") == 4
    assert ("PASS", "timing") in [f[:2] for f in found]


def test_a_request_listed_again_is_judged_at_its_first_place_even_when_its_first_listing_agrees():
    """The findings keep the plan's order: s1-w's first listing agrees with its receipt, its last (on s2) does not, and the
    disagreement is said at the first place, before s1-m's missing receipt (listed between); kills dropping the repeated ids
    (`last`) from the listings `conformance` judges row by row."""
    requests = [{"id": "s1-w", "server": "s1", "phase": "warmup"}, {"id": "s1-m", "server": "s1", "phase": "measured"},
                {"id": "s2-w", "server": "s2", "phase": "warmup"}, {"id": "s2-m", "server": "s2", "phase": "measured"},
                {"id": "s1-w", "server": "s2", "phase": "measured"}]
    found = _conf([_rq("s1-w", 0), _rq("s2-w", 60), _rq("s2-m", 80), _wk("s1"), _wk("s2")],
                  plan={"requests": requests, "max_concurrency": None})
    assert [f[1] for f in found if f[1] in ("receipt-disagrees", "missing-receipt")] == ["receipt-disagrees", "missing-receipt"]


def test_with_a_duplicate_receipt_each_request_is_timed_by_its_own_first_receipt():
    """A second receipt of s1-w (read before s1-m) leaves the first rows of the requests apart from the table's rows: the server and
    phase of each first row decide, so s1's warmup ending at 00:25 after its measured request starts at 00:20 is said, once."""
    receipts = [_rq("s1-w", 0, ended_at="2026-01-01T00:00:25Z", elapsed_s=25), _rq("s1-w", 5), _rq("s1-m", 20), _rq("s2-w", 60),
                _rq("s2-m", 80), _wk("s1"), _wk("s2")]
    found = _conf(receipts, plan={"max_concurrency": None})
    assert [f[2] for f in found if f[1] in ("warmup-after-measured", "duplicate-receipt")] == [
        "request s1-w has 2 receipts",
        "server s1: a warmup ends at 2026-01-01T00:00:25Z, after the first measured request starts at 2026-01-01T00:00:20Z"]
