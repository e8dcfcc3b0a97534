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

from collections.abc import Iterator
from itertools import repeat
from operator import is_
from decimal import Decimal
from typing import Any

from verifier.readers.campaign import Campaign, campaign_of, codes_of, elapsed
from verifier.model.evidence import NO_INSTANT, TimeColumn
from verifier.readers.native import evidence_of
from verifier.engine import stats
from verifier.engine.stats import peak_overlap
from verifier.model.findings import Finding, Status
from verifier.model.numtext import tolerance_text
from verifier.engine.pipeline import Context, check

__all__ = ["conformance"]

CHECK = "plan.conformance"
DEFAULT_CLOCK_TOLERANCE_S = Decimal("0.001")
#: The plan fields the gate's `plan` section may fix, read from the model's `Plan`.
_GATE_FIELDS = {"arm_order": lambda p: list(p.order), "warmups_per_server": lambda p: p.per_server.get("warmup", 0),
                "measured_per_server": lambda p: p.per_server.get("measured", 0)}


#: The largest 64-bit signed integer: instants and spans in nanoseconds above it are held as Python integers.
_INT64_MAX = 2**63 - 1


#: Rows judged at once by the receipts screen (`_to_judge`) and the timing section: their lists and arrays are of this length, not of every receipt.
_CHUNK = 1 << 16


def _instants(column: TimeColumn, rows: Any, whole: bool) -> Any:
    """
    Return the instants of `rows` (a numpy array of row numbers; every row in order when `whole`) of `column` in nanoseconds since the epoch, as a numpy array (int64; object when one lies outside 64 bits).

    For `whole`, the array is a read-only view of the column's own instants unless a row needs reading here (no copy of 10^6 instants).

    A row the model did not read as an instant (`NO_INSTANT`) is read here by
    `TimeColumn.instant`, and raises as it raises.
    """
    import numpy as np  # noqa: PLC0415 - numpy is imported by a run that times receipts, not by every run (about 0.1 s)

    at = np.frombuffer(column.at, dtype=np.int64) if len(rows) else np.zeros(0, dtype=np.int64)
    if not whole:
        at = at[rows]
    odd = np.flatnonzero(at == NO_INSTANT).tolist()
    exact = [column.instant(int(rows[k])) for k in odd]
    if exact:  # a copy of its own, as Python integers when one lies outside 64 bits
        at = at.astype(object) if not all(-_INT64_MAX - 1 <= x <= _INT64_MAX for x in exact) else at.copy()
    for k, x in zip(odd, exact):
        at[k] = x
    return at


def _to_judge(c: Campaign, at: Any) -> list[int]:
    """
    Return the rows of `c.plan.requests` the receipts rule must judge one by one, in plan order: a list of ints.

    `at` gives each planned row the row of its request's first receipt in
    `c.receipts` (a numpy int64 array, -1 for none). A row is judged when
    its request has no receipt, more than one, a receipt that differs from
    the plan in server, phase or arm (the plan's arm of its server), or when
    the plan lists its id more than once; every other row holds each rule.
    """
    import numpy as np  # noqa: PLC0415 - as in `_instants`

    requests, table = c.plan.requests, c.receipts
    judge = at < 0
    arm_of = c.arm_of_server.get
    for first in range(0, len(at) if len(table) else 0, _CHUNK):  # lists of _CHUNK at a time, not of every row
        rows = slice(first, first + _CHUNK)
        row = memoryview(at[rows])  # ints one at a time, no list of them; -1 (no receipt) reads the last row, judged anyway
        servers = requests.server[rows]
        for planned, recorded in ((servers, table.server), (requests.phase[rows], table.phase), (list(map(arm_of, servers)), table.arm)):
            got = list(map(recorded.__getitem__, row))
            if got != planned:  # then which rows differ: the columns' own != (str or None)
                judge[rows] |= np.array(got, dtype=object) != np.array(planned, dtype=object)
    if c.join.more:  # ids read more than once
        judge |= np.fromiter(map(c.join.more.__contains__, requests.id), dtype=bool, count=len(requests.id))
    if requests.last:  # ids listed more than once
        judge |= np.fromiter(map(requests.last.__contains__, requests.id), dtype=bool, count=len(requests.id))
    return np.flatnonzero(judge).tolist()  # type: ignore[no-any-return]


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
    requests = plan.requests  # the campaign's columns (`PlannedRequests`)
    ids, servers, phases, last = requests.id, requests.server, requests.phase, requests.last
    for rid, n in sorted(requests.repeated.items()):  # named at its second listing, the first that should not be there
        row = requests.again[rid]
        found.append(_f(Status.FAIL, "plan-inconsistent", f"plan lists request {rid} {n} times", path=plan.requests_file or pfile,
                        pointer=f"/{row}" if plan.requests_file else f"/requests/{row}"))
    for sid, _arm in plan.run_order:
        for phase, key, want in (("warmup", "warmups_per_server", warmups), ("measured", "measured_per_server", measured_n)):
            n = len(c.planned({"server": sid, "phase": phase}))
            if n != want:
                found.append(_f(Status.FAIL, "plan-inconsistent", f"plan lists {n} {phase} request(s) for server {sid}, but {key} is {want}",
                                path=pfile, pointer="/requests", expected=want, observed=n))
    for sid in sorted(set(c.planned_on) - set(plan.servers)):  # a request on a server the plan does not run: no count holds it
        rows = c.planned_on[sid]
        found.append(_f(Status.FAIL, "plan-inconsistent", f"plan lists {len(rows)} request(s) for server {sid}, which is not one of its servers",
                        path=plan.requests_file or pfile, pointer=f"/{rows[0]}" if plan.requests_file else f"/requests/{rows[0]}"))
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

    # (b) one receipt per planned request, none unplanned, each agreeing with the plan (read from the receipt columns)
    table = c.receipts
    rfile = table.file if table else "receipts.jsonl"
    join = c.join
    more = join.more
    import numpy as np  # noqa: PLC0415 - as in `_instants`

    at = join.at  # planned row -> its first receipt's row, -1 for none
    judge = _to_judge(c, at)  # the planned rows that may fail a rule below (the rest hold, and count as matched)
    judged: set[str] = set()  # the ids listed more than once that were judged (once, at their first place, as their last listing says)
    for k in judge:
        rid = ids[k]
        if rid in last:
            if rid in judged:
                continue
            judged.add(rid)
            k = last[rid]
        server, phase = servers[k], phases[k]
        row = int(at[k])
        if row < 0:
            found.append(_f(Status.FAIL, "missing-receipt", f"planned {phase} request {rid} on {server} has no receipt",
                            path=rfile, expected=rid))
            continue
        if rid in more:
            n = 1 + len(more[rid])
            found.append(_f(Status.FAIL, "duplicate-receipt", f"request {rid} has {n} receipts", path=rfile,
                            pointer=table.pointer(more[rid][0]), observed=n))  # the second, the first one that should not be there
        arm = c.arm_of_server.get(server)
        if table.server[row] != server or table.phase[row] != phase or table.arm[row] != arm:
            have = {"server": table.server[row], "phase": table.phase[row], "arm": table.arm[row]}
            want = {"server": server, "phase": phase, "arm": arm}
            found.append(_f(Status.FAIL, "receipt-disagrees", f"receipt of {rid} says {have}, the plan says {want}",
                            path=table.file, pointer=table.pointer(row), expected=want, observed=have))
    for rid in sorted(join.unplanned):
        found.append(_f(Status.FAIL, "unplanned-receipt", f"receipt for request {rid} is not in the plan", path=rfile, observed=rid))
    for w in c.workers:
        server, arm = w.dims.get("server"), w.dims.get("arm")
        if server not in c.arm_of_server or c.arm_of_server[server] != arm:
            found.append(_f(Status.FAIL, "receipt-disagrees", f"worker {w.name} names server {server} / arm {arm}, not in the plan",
                            path=w.location.file, pointer=w.location.pointer))
    for sid, _arm in plan.run_order:
        if not (at[c.planned({"server": sid, "phase": "measured"})] >= 0).any():
            found.append(_f(Status.FAIL, "no-measured-receipts", f"server {sid} has no measured receipt at all", path=rfile))
    if not [f for f in found if f.code in ("missing-receipt", "duplicate-receipt", "unplanned-receipt", "receipt-disagrees")]:
        n = len(ids) - sum(requests.repeated.values()) + len(requests.repeated)  # each id once
        found.append(_f(Status.PASS, "requests", f"{n} planned requests, each with exactly one agreeing receipt; none unplanned",
                        path=rfile, observed=n))
    failures_before = len(found)

    # (c) timing: per-receipt identity, warmups before measured, arm order (the first receipt of each request id)
    tolerance = Decimal(str(gate_plan.get("clock_tolerance_s", DEFAULT_CLOCK_TOLERANCE_S)))

    rows = join.first_rows  # the first row of each request id, increasing
    whole = len(rows) == len(table)  # distinct rows, as many as the table's: every row
    starts, ends = table.started_at, table.ended_at
    start, end = _instants(starts, rows, whole), _instants(ends, rows, whole)  # nanoseconds since the epoch, one per row
    if start.dtype != object and len(rows) and int(end.max()) - int(start.min()) > _INT64_MAX:  # a span past 64 bits
        start, end = start.astype(object), end.astype(object)
    flagged: dict[int, Finding] = {}
    for first_row in range(0, len(rows), _CHUNK):  # a chunk of rows at a time: memory for arrays of _CHUNK, not of every row
        chunk = slice(first_row, first_row + _CHUNK)
        backwards = end[chunk] < start[chunk]
        for k in (np.flatnonzero(backwards) + first_row).tolist():
            flagged[k] = _f(Status.FAIL, "time-order", f"request {table.request_id[rows[k]]} ends before it starts", path=table.file,
                            pointer=table.pointer(rows[k]))
        forward = np.flatnonzero(~backwards) + first_row
        seconds = list(map(table.elapsed.__getitem__, memoryview(rows[forward])))
        none = list(map(is_, seconds, repeat(None)))  # by identity: `None in` would ask each Decimal's __eq__ (0.3 us each)
        if True in none:
            elapsed(table, rows[int(forward[none.index(True)])])  # raises: the schema requires an elapsed time (our bug if reached)
        for at, span, _comparison in stats.compare_spans(seconds, end[forward] - start[forward], declared=tolerance):
            k = int(forward[at])
            written = table.elapsed[rows[k]]
            flagged[k] = _f(Status.FAIL, "elapsed-mismatch", f"request {table.request_id[rows[k]]}: elapsed_s {written} but ended_at - started_at = {span} s",
                            expected=str(span), observed=str(written), path=table.file, pointer=table.pointer(rows[k]))
    found.extend(flagged[k] for k in sorted(flagged))  # in the order of the rows
    first_start: dict[str, int] = {}  # server -> the earliest start of its requests (nanoseconds since the epoch)
    warm_end: dict[str, tuple[int, int]] = {}  # server -> (instant, row) of the latest end of its warmups (the first row of it)
    measured_start: dict[str, tuple[int, int]] = {}  # server -> (instant, row) of the earliest start of its measured requests
    picked = None if whole else memoryview(rows)  # as in `_to_judge`
    server_of = table.server if picked is None else list(map(table.server.__getitem__, picked))
    codes, code_of = codes_of(["" if s is None else s for s in server_of] if None in server_of else server_of)  # server -> its code
    phase_codes, phase_code = codes_of(table.phase if picked is None else list(map(table.phase.__getitem__, picked)))
    of_phase = {phase: phase_codes == phase_code.get(phase, -1) for phase in ("warmup", "measured")}
    for sid, code in code_of.items():
        mine = codes == code
        first_start[sid] = start[mine].min()
        for phase, pick, into in (("warmup", end, warm_end), ("measured", start, measured_start)):
            where = np.flatnonzero(mine & of_phase[phase])
            if where.size:  # the first row of the latest warmup end, of the earliest measured start
                best = int(where[np.argmax(pick[where]) if phase == "warmup" else np.argmin(pick[where])])
                into[sid] = (pick[best], int(rows[best]))
    first_start = {sid: first_start[sid] for sid, _arm in plan.run_order if sid in first_start}  # in run order: ties keep it
    for sid, _arm in plan.run_order:
        if sid in warm_end and sid in measured_start and warm_end[sid][0] > measured_start[sid][0]:
            warmup_end, measured = ends[warm_end[sid][1]], starts[measured_start[sid][1]]  # the texts as written: every digit, the offset kept
            found.append(_f(Status.FAIL, "warmup-after-measured",
                            f"server {sid}: a warmup ends at {warmup_end}, after the first measured request starts at {measured}",
                            path=rfile))
    observed_order = [c.label_of_arm.get(c.arm_of_server[sid], "?") for sid in sorted(first_start, key=lambda k: first_start[k])]
    if len(first_start) == len(plan.run_order) and observed_order != order:
        found.append(_f(Status.FAIL, "arm-order", "servers ran in a different arm order than planned",
                        path=rfile, expected=order, observed=observed_order))
    if plan.concurrency is not None:
        peak = peak_overlap(start, end)
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
    for row in sorted(table.outputs):  # the rows of `rows` (first rows) that record outputs, in order
        if not join.is_first(row):
            continue
        outputs = table.outputs[row]
        for i, o in enumerate(outputs):
            n_outputs += 1
            where = {"path": table.file, "pointer": f"{table.pointer(row)}/outputs"}
            rid = table.request_id[row]
            first_owner = owner.setdefault(o.path, str(rid)) if table.outcome[row] == "ok" else None
            if first_owner is not None and first_owner != str(rid):
                found.append(_f(Status.FAIL, "output-shared", f"successful requests {first_owner} and {rid} both name the output {o.path}: one file cannot be "
                                "the output of two requests (one overwrote the other, or one output was never kept)",
                                path=table.file, pointer=f"{table.pointer(row)}/outputs/{i}/path", expected="a file of its own", observed=o.path))
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
