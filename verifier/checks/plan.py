"""
Plan conformance: the receipts are exactly what the frozen plan called for.

Every planned request has exactly one receipt and no receipt is unplanned;
each receipt agrees with the plan on server, arm and phase; per server, every
warmup ends before the first measured request starts; the observed arm order
(servers ordered by their first receipt) and the per-server counts match the
plan and the gate; `elapsed_s` agrees with the timestamps; peak in-flight
requests rebuilt from the receipt intervals stay within the plan's
`max_concurrency`; every output digest a receipt records is the manifest's;
every worker process exited with code 0 and no signal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.campaign import campaign_of, elapsed, parse_time
from verifier.readers.native import evidence_of
from verifier import stats
from verifier.stats import peak_in_flight
from verifier.model import Finding, Status
from verifier.numtext import tolerance_text
from verifier.pipeline import Context, check

__all__ = ["conformance"]

CHECK = "plan.conformance"
DEFAULT_CLOCK_TOLERANCE_S = Decimal("0.001")
#: The plan fields the gate's `plan` section may fix, read from the model's `Plan`.
_GATE_FIELDS = {"arm_order": lambda p: list(p.order), "warmups_per_server": lambda p: p.per_server.get("warmup", 0),
                "measured_per_server": lambda p: p.per_server.get("measured", 0)}


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=CHECK, status=status, code=code, message=message, **kw)


@check("plan.conformance", title="Receipts match the frozen plan: one per planned request, warmups first, arm order, counts",
       requires=("gate.pinned",))
def conformance(ctx: Context) -> Iterator[Finding]:
    """
    Compare plan, receipts and gate.

    FAIL codes: `plan-inconsistent`, `gate-plan-mismatch`, `missing-receipt`,
    `duplicate-receipt`, `unplanned-receipt`, `receipt-disagrees`,
    `warmup-after-measured`, `arm-order`, `time-order`, `elapsed-mismatch`,
    `concurrency-exceeded`, `warmups-below-concurrency`, `output-not-in-bundle`,
    `output-digest-mismatch`, `output-shared`, `no-measured-receipts`, `worker-exit`,
    `worker-not-exited`. PASS codes: `requests`, `timing`, `outputs`, `workers`.
    """
    c = campaign_of(ctx)
    plan = c.plan
    pfile = plan.location.file if plan.location else "plan.json"
    gate_plan = (ctx.gate or {}).get("plan", {})
    failures_before = 0
    found: list[Finding] = []
    order = list(plan.order)
    warmups, measured_n = plan.per_server.get("warmup", 0), plan.per_server.get("measured", 0)

    # (a) the plan against itself and against the gate
    arms = set(plan.arms)
    for i, (sid, arm) in enumerate(plan.run_order):
        if arm not in arms:
            found.append(_f(Status.FAIL, "plan-inconsistent", f"plan server {sid} names unknown arm {arm!r}",
                            path=pfile, pointer=f"/servers/{i}/arm"))
    planned_order = [c.label_of_arm.get(arm, "?") for _sid, arm in plan.run_order]
    if planned_order != order:
        found.append(_f(Status.FAIL, "plan-inconsistent", "the plan's servers (in run order) do not follow its arm_order",
                        path=pfile, pointer="/arm_order", expected=order, observed=planned_order))
    ids = Counter(r.id for r in plan.requests)
    for rid, n in sorted(ids.items()):
        if n > 1:
            found.append(_f(Status.FAIL, "plan-inconsistent", f"plan lists request {rid} {n} times", path=pfile, pointer="/requests"))
    for sid, _arm in plan.run_order:
        for phase, key, want in (("warmup", "warmups_per_server", warmups), ("measured", "measured_per_server", measured_n)):
            n = len(c.planned({"server": sid, "phase": phase}))
            if n != want:
                found.append(_f(Status.FAIL, "plan-inconsistent", f"plan lists {n} {phase} request(s) for server {sid}, but {key} is {want}",
                                path=pfile, pointer="/requests", expected=want, observed=n))
    for key, of in _GATE_FIELDS.items():
        if key in gate_plan and gate_plan[key] != of(plan):
            found.append(_f(Status.FAIL, "gate-plan-mismatch", f"plan {key} is {of(plan)}, the gate requires {gate_plan[key]}",
                            path=pfile, pointer=f"/{key}", expected=gate_plan[key], observed=of(plan)))
    if "servers_per_arm" in gate_plan:
        for arm in sorted(arms):
            n = len(c.servers_of_arm(arm))
            if n != gate_plan["servers_per_arm"]:
                found.append(_f(Status.FAIL, "gate-plan-mismatch", f"arm {arm} has {n} server(s), the gate requires {gate_plan['servers_per_arm']}",
                                path=pfile, pointer="/servers", expected=gate_plan["servers_per_arm"], observed=n))
    if gate_plan.get("warmups_at_least_concurrency") and plan.concurrency is not None and warmups < plan.concurrency:
        found.append(_f(Status.FAIL, "warmups-below-concurrency",
                        f"{warmups} warmup(s) at max_concurrency {plan.concurrency}: the first measured requests run cold",
                        path=pfile, pointer="/warmups_per_server", expected=f">= {plan.concurrency}", observed=warmups))

    # (b) one receipt per planned request, none unplanned, each agreeing with the plan
    rfile = c.receipts[0].location.file if c.receipts else "receipts.jsonl"
    planned = {r.id: r for r in plan.requests}
    for rid, req in planned.items():
        got = c.requests.get(rid, [])
        if not got:
            found.append(_f(Status.FAIL, "missing-receipt", f"planned {req.phase} request {rid} on {req.server} has no receipt",
                            path=rfile, expected=rid))
        elif len(got) > 1:
            found.append(_f(Status.FAIL, "duplicate-receipt", f"request {rid} has {len(got)} receipts", path=rfile, observed=len(got)))
        for r in got[:1]:
            arm = c.arm_of_server.get(req.server)
            if (r.dims.get("server"), r.dims.get("phase"), r.dims.get("arm")) == (req.server, req.phase, arm):
                continue  # agrees: no dicts built per receipt
            want = {"server": req.server, "phase": req.phase, "arm": arm}
            have = {k: r.dims.get(k) for k in want}
            if have != want:
                found.append(_f(Status.FAIL, "receipt-disagrees", f"receipt of {rid} says {have}, the plan says {want}",
                                path=r.location.file, pointer=r.location.pointer, expected=want, observed=have))
    for rid in sorted(set(c.requests) - set(planned)):
        found.append(_f(Status.FAIL, "unplanned-receipt", f"receipt for request {rid} is not in the plan", path=rfile, observed=rid))
    for w in c.workers:
        server, arm = w.dims.get("server"), w.dims.get("arm")
        if server not in c.arm_of_server or c.arm_of_server[server] != arm:
            found.append(_f(Status.FAIL, "receipt-disagrees", f"worker {w.name} names server {server} / arm {arm}, not in the plan",
                            path=w.location.file, pointer=w.location.pointer))
    for sid, _arm in plan.run_order:
        measured = [r for req in c.planned({"server": sid, "phase": "measured"}) for r in c.requests.get(req.id, [])[:1]]
        if not measured:
            found.append(_f(Status.FAIL, "no-measured-receipts", f"server {sid} has no measured receipt at all", path=rfile))
    if not [f for f in found if f.code in ("missing-receipt", "duplicate-receipt", "unplanned-receipt", "receipt-disagrees")]:
        found.append(_f(Status.PASS, "requests", f"{len(planned)} planned requests, each with exactly one agreeing receipt; none unplanned",
                        path=rfile, observed=len(planned)))
    failures_before = len(found)

    # (c) timing: per-receipt identity, warmups before measured, arm order
    tolerance = Decimal(str(gate_plan.get("clock_tolerance_s", DEFAULT_CLOCK_TOLERANCE_S)))
    requests = [r for rs in c.requests.values() for r in rs[:1]]
    timed = [(r, parse_time(r.started_at), parse_time(r.ended_at)) for r in requests]  # each timestamp parsed once
    for r, start, end in timed:
        delta = end - start
        span = Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds) / Decimal(10**6)
        where = {"path": r.location.file, "pointer": r.location.pointer}
        rid = r.dims.get("request_id")
        if end < start:
            found.append(_f(Status.FAIL, "time-order", f"request {rid} ends before it starts", **where))
        elif not stats.compare(elapsed(r), span, declared=tolerance).holds:
            written = r.quantities["elapsed"].written  # type: ignore[union-attr]
            found.append(_f(Status.FAIL, "elapsed-mismatch", f"request {rid}: elapsed_s {written} but ended_at - started_at = {span} s",
                            expected=str(span), observed=str(written), **where))
    first_start: dict[str, Any] = {}
    by_server: dict[str, list[Any]] = {}
    for r, start, end in timed:
        by_server.setdefault(r.dims.get("server", ""), []).append((r, start, end))
    for sid, _arm in plan.run_order:
        mine = by_server.get(sid, [])
        if not mine:
            continue
        first_start[sid] = min(start for _r, start, _end in mine)
        warm = [end for r, _start, end in mine if r.dims.get("phase") == "warmup"]
        meas = [start for r, start, _end in mine if r.dims.get("phase") == "measured"]
        if warm and meas and max(warm) > min(meas):
            found.append(_f(Status.FAIL, "warmup-after-measured",
                            f"server {sid}: a warmup ends at {max(warm).isoformat()}, after the first measured request starts at {min(meas).isoformat()}",
                            path=rfile))
    observed_order = [c.label_of_arm.get(c.arm_of_server[sid], "?") for sid in sorted(first_start, key=lambda k: first_start[k])]
    if len(first_start) == len(plan.run_order) and observed_order != order:
        found.append(_f(Status.FAIL, "arm-order", "servers ran in a different arm order than planned",
                        path=rfile, expected=order, observed=observed_order))
    if plan.concurrency is not None:
        peak = peak_in_flight([(start, end) for _r, start, end in timed])
        if peak > plan.concurrency:
            found.append(_f(Status.FAIL, "concurrency-exceeded",
                            f"{peak} requests were in flight at once (rebuilt from receipt intervals), above max_concurrency {plan.concurrency}",
                            path=rfile, expected=plan.concurrency, observed=peak))
    if len(found) == failures_before:
        found.append(_f(Status.PASS, "timing", f"elapsed_s agrees with timestamps ({tolerance_text(tolerance, 's')}); warmups precede measured requests; arm order {''.join(observed_order)} as planned",
                        path=rfile, observed=observed_order))
    failures_before = len(found)

    # (d) outputs recorded by receipts are the listed files or declared externals (upper-case hex is the same digest)
    evidence = evidence_of(ctx)
    listed = {e.path: (e.sha256 or "").lower() for e in evidence.files}
    listed.update({e.path: (e.sha256 or "").lower() for e in evidence.externals})
    n_outputs = 0
    owner: dict[str, str] = {}  # output path -> the successful request that first named it
    for r in requests:
        for i, o in enumerate(r.outputs):
            n_outputs += 1
            where = {"path": r.location.file, "pointer": f"{r.location.pointer}/outputs"}
            rid = r.dims.get("request_id")
            first = owner.setdefault(o.path, str(rid)) if r.ok else None
            if first is not None and first != str(rid):
                found.append(_f(Status.FAIL, "output-shared", f"successful requests {first} and {rid} both name the output {o.path}: one file cannot be "
                                "the output of two requests (one overwrote the other, or one output was never kept)",
                                path=r.location.file, pointer=f"{r.location.pointer}/outputs/{i}/path", expected="a file of its own", observed=o.path))
            if o.path not in listed:
                found.append(_f(Status.FAIL, "output-not-in-bundle", f"request {rid} output {o.path} is neither a bundle file nor a declared external artifact", **where))
            elif listed[o.path] != o.sha256.lower():
                found.append(_f(Status.FAIL, "output-digest-mismatch", f"request {rid} output {o.path}: receipt sha256 differs from the manifest",
                                expected=listed[o.path], observed=o.sha256, **where))
    if len(found) == failures_before:
        found.append(_f(Status.PASS, "outputs", f"{n_outputs} output digest(s) recorded by receipts match the manifest", path=rfile))
    failures_before = len(found)

    # (e) every worker process exited cleanly: exit code 0 and no signal
    processes = evidence.processes
    for w in processes:
        where = {"path": w.location.file, "pointer": w.location.pointer}
        server = w.dims.get("server", "?")
        if w.exit_code is None and w.signal is None:
            found.append(_f(Status.FAIL, "worker-not-exited", f"worker {w.name} on {server} has no recorded exit",
                            expected={"exit_code": 0}, observed={"exit_code": None, "signal": None}, **where))
        elif w.exit_code != 0 or w.signal is not None:
            found.append(_f(Status.FAIL, "worker-exit", f"worker {w.name} on {server} exited with code {w.exit_code}"
                            + (f", signal {w.signal}" if w.signal is not None else ""),
                            expected={"exit_code": 0, "signal": None}, observed={"exit_code": w.exit_code, "signal": w.signal}, **where))
    if len(found) == failures_before:
        found.append(_f(Status.PASS, "workers", f"{len(processes)} worker process(es) exited with code 0 and no signal", path=rfile))
    yield from found
