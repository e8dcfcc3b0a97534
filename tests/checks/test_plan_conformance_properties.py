"""
`plan.conformance` on generated plans and receipts (issue 40 judges the receipts rule over columns at once).

Each example is built from a list of what happens to each planned request
(answered once, never, twice, or by a receipt that names another server,
phase or arm), some unplanned receipts and an order of the receipt lines;
the findings it must give are written from those choices: per planned
request in plan order a `missing-receipt`, or a `duplicate-receipt` (the
pointer of its second line) and a `receipt-disagrees` when its first line
differs from the plan; then the unplanned ids, sorted; `no-measured-receipts`
for a server none of whose measured requests has a receipt; the `requests`
PASS only without any of these. A second property builds per-server
warmup and measured intervals and expects `warmup-after-measured` exactly
where a warmup ends after the server's first measured start, and
`arm-order` when the servers' first starts do not follow the plan's arms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.checks import plan as pl
from verifier.engine.pipeline import Context, RunData
from verifier.readers.native import from_documents

ARMS = [{"id": "base", "label": "A", "role": "baseline"}, {"id": "cand", "label": "B", "role": "candidate"}]
FATES = ["ok", "ok", "ok", "missing", "twice", "twice-disagreeing", "server", "phase", "arm"]
RECEIPT_CODES = ("missing-receipt", "duplicate-receipt", "receipt-disagrees", "unplanned-receipt", "no-measured-receipts", "requests")


def _time(second: int) -> str:
    return f"2026-01-01T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


def _plan(servers: list[str], warmups: int, measured: int, repeat: list[int]) -> dict[str, Any]:
    """Servers alternate baseline and candidate (arm order A B A ...); `repeat` lists planned rows the plan lists again at its end."""
    requests = [{"id": f"{s}-{p[0]}{i}", "server": s, "phase": p} for s in servers
                for p, n in (("warmup", warmups), ("measured", measured)) for i in range(n)]
    requests += [dict(requests[k]) for k in repeat if k < len(requests)]
    return {"frozen_at": "2026-01-01T00:00:00Z", "arms": ARMS,
            "servers": [{"id": s, "arm": ARMS[k % 2]["id"]} for k, s in enumerate(servers)],
            "arm_order": ["AB"[k % 2] for k in range(len(servers))], "warmups_per_server": warmups,
            "measured_per_server": measured, "max_concurrency": None, "requests": requests}


def _receipt(rid: str, server: str, phase: str, arm: str, start: int) -> dict[str, Any]:
    return {"kind": "request", "request_id": rid, "server": server, "arm": arm, "phase": phase, "started_at": _time(start),
            "ended_at": _time(start + 1), "elapsed_s": 1, "outcome": "ok", "outputs": []}


def _conformance(plan: dict[str, Any], receipts: list[dict[str, Any]]) -> list[tuple[str, str, str, str | None]]:
    model = from_documents({"plan": plan, "receipts": receipts}, manifest={"files": []}, names={})
    ctx = Context(subject=Path("."), assets=None, gate=None, run=RunData(evidence=model))
    return [(f.status.value, f.code, f.message, f.pointer) for f in pl.conformance(ctx)]


@st.composite
def _campaigns(draw: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[str, str, str, str | None]]]:
    """A plan, its receipt lines, and the findings of the receipts rule they call for (in order)."""
    servers = [f"s{k}" for k in range(draw(st.integers(1, 3)))]
    warmups, measured = draw(st.integers(0, 2)), draw(st.integers(1, 3))
    distinct = len(servers) * (warmups + measured)
    repeat = draw(st.lists(st.integers(0, distinct - 1), max_size=2, unique=True))
    plan = _plan(servers, warmups, measured, repeat)
    arm_of = {s["id"]: s["arm"] for s in plan["servers"]}
    listed: dict[str, dict[str, Any]] = {}  # id -> its last listing (as the rule judges a repeated id)
    for r in plan["requests"]:
        listed[r["id"]] = r
    fates = {rid: draw(st.sampled_from(FATES)) for rid in listed}
    lines: list[dict[str, Any]] = []
    for rid, r in listed.items():
        server, phase, arm, fate = r["server"], r["phase"], arm_of[r["server"]], fates[rid]
        if fate == "missing":
            continue
        if fate == "server":
            server = "s9"
        elif fate == "phase":
            phase = "warmup" if phase == "measured" else "measured"
        elif fate == "arm":
            arm = "cand" if arm == "base" else "base"
        lines.append(_receipt(rid, server, phase, arm, len(lines) * 2))
        if fate.startswith("twice"):
            lines.append(_receipt(rid, server, "warmup" if fate == "twice-disagreeing" and phase == "measured" else phase,
                                  arm, len(lines) * 2))
    unplanned = draw(st.lists(st.sampled_from(["u1", "u2", "u3"]), max_size=3))
    lines += [_receipt(rid, "s0", "measured", "base", len(lines) * 2 + k) for k, rid in enumerate(unplanned)]
    lines = draw(st.permutations(lines))

    rows: dict[str, list[int]] = {}
    for k, line in enumerate(lines):
        rows.setdefault(line["request_id"], []).append(k)
    expected: list[tuple[str, str, str, str | None]] = []
    for rid, r in listed.items():  # plan order of first listings
        server, phase, arm = r["server"], r["phase"], arm_of[r["server"]]
        if rid not in rows:
            expected.append(("FAIL", "missing-receipt", f"planned {phase} request {rid} on {server} has no receipt", None))
            continue
        if len(rows[rid]) > 1:
            expected.append(("FAIL", "duplicate-receipt", f"request {rid} has {len(rows[rid])} receipts", f"/{rows[rid][1]}"))
        line = lines[rows[rid][0]]
        have = {"server": line["server"], "phase": line["phase"], "arm": line["arm"]}
        want = {"server": server, "phase": phase, "arm": arm}
        if have != want:
            expected.append(("FAIL", "receipt-disagrees", f"receipt of {rid} says {have}, the plan says {want}", f"/{rows[rid][0]}"))
    expected += [("FAIL", "unplanned-receipt", f"receipt for request {rid} is not in the plan", None) for rid in sorted(set(unplanned))]
    for s in servers:
        if not any(rid in rows for rid, r in listed.items() if r["server"] == s and r["phase"] == "measured"):
            expected.append(("FAIL", "no-measured-receipts", f"server {s} has no measured receipt at all", None))
    if not [f for f in expected if f[1] != "no-measured-receipts"]:
        expected.append(("PASS", "requests", f"{len(listed)} planned requests, each with exactly one agreeing receipt; none unplanned", None))
    return plan, lines, expected


@settings(max_examples=150, deadline=None)
@given(_campaigns(), st.sampled_from([1 << 16, 1, 3]))
def test_the_receipts_rule_names_each_missing_doubled_disagreeing_and_unplanned_receipt_in_plan_order(example: Any, chunk: int) -> None:
    """Also with the rows judged a few at a time (`_CHUNK`), as 10^6 rows are."""
    plan, lines, expected = example
    with mock.patch.object(pl, "_CHUNK", chunk):
        assert [f for f in _conformance(plan, lines) if f[1] in RECEIPT_CODES] == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50), st.integers(0, 50)), min_size=n, max_size=n),
    st.permutations(range(3 * n)))))
def test_warmups_must_end_before_each_servers_first_measured_start_and_servers_follow_the_arm_order(example: Any) -> None:
    """Each server: two warmups and one measured request at drawn starts (each lasting 1 s); lines in a drawn order."""
    times, order = example
    servers = [f"s{k}" for k in range(len(times))]
    plan = _plan(servers, 2, 1, [])
    arm_of = {s["id"]: s["arm"] for s in plan["servers"]}
    receipts = []
    for s, (w0, w1, m0, offset) in zip(servers, times):
        base = 1000 + 100 * offset
        receipts += [_receipt(f"{s}-w0", s, "warmup", arm_of[s], base + w0), _receipt(f"{s}-w1", s, "warmup", arm_of[s], base + w1),
                     _receipt(f"{s}-m0", s, "measured", arm_of[s], base + m0)]
    lines = [receipts[k] for k in order]
    expected = []
    for s, (w0, w1, m0, offset) in zip(servers, times):
        base = 1000 + 100 * offset
        if max(w0, w1) + 1 > m0:
            latest = _time(base + max(w0, w1) + 1)
            expected.append(("FAIL", "warmup-after-measured",
                             f"server {s}: a warmup ends at {latest}, after the first measured request starts at {_time(base + m0)}", None))
    first_start = {s: 1000 + 100 * offset + min(w0, w1, m0) for s, (w0, w1, m0, offset) in zip(servers, times)}
    observed = ["AB"[servers.index(s) % 2] for s in sorted(servers, key=lambda s: first_start[s])]  # ties keep plan order
    if observed != plan["arm_order"]:
        expected.append(("FAIL", "arm-order", "servers ran in a different arm order than planned", None))
    timing = [f for f in _conformance(plan, lines) if f[1] in ("warmup-after-measured", "arm-order", "timing")]
    assert timing == (expected or [("PASS", "timing", "elapsed_s agrees with timestamps (tolerance 0.001 s); warmups precede measured "
                                                      f"requests; arm order {''.join(observed)} as planned", None)])
