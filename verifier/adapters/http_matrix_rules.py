"""
Frozen HTTP matrix output: the plan and responses checked against their own statements (seed 003).

Runs after `matrix.schema`, so every field read here is typed by the pinned
`frozen-http-matrix-*-v1` schemas; a wrong type is a schema finding. Each
rule yields PASS `holds` or FAIL with its code (`RULES`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier import stats
from verifier.adapters._common import f
from verifier.model import Finding, Status
from verifier.pipeline import Context, check

__all__ = ["RULES", "plan_rules", "response_rules"]

RULES = {
    "ok-after-deadline": "no ok response took longer than the plan's timeout_seconds",
    "clock-order": "no response completed before it was dispatched",
    "latency-disagrees-with-clocks": "every latency equals completed - dispatched within the clocks' precision",
    "oracle-count": "every case has exactly one oracle",
    "budget-beyond-plan": "the effective budget does not exceed the plan's repetitions and warmups",
    "ignore-paths-overlap": "no ignore path repeats or contains another",
    "credential-retained": "no credential is retained in plan.json or config.json",
    "requests-below-concurrency": "requests_per_case is at least the largest concurrency",
}

#: Codes of `matrix.response_rules`; the others belong to `matrix.plan_rules`.
RESPONSE_CODES = frozenset({"ok-after-deadline", "clock-order", "latency-disagrees-with-clocks"})
#: Keys whose non-empty string value is a credential, and values that are one whatever their key.
SECRET_KEY = re.compile(r"(authorization|token|api[_-]?key|password|secret|bearer|cookie)", re.IGNORECASE)
SECRET_VALUE = re.compile(r"\b(Bearer|Basic)\s+\S+|\bsk-[A-Za-z0-9_-]{16,}|\bhf_[A-Za-z0-9]{16,}|(TOKEN|KEY|SECRET|PASSWORD)=\S+",
                          re.IGNORECASE)


def _rule(ok: bool, code: str, message: str, name: str, pointer: str | None = None, **kw: Any) -> Finding:
    check_id = "matrix.response_rules" if code in RESPONSE_CODES else "matrix.plan_rules"
    if ok:
        return f(check_id, Status.PASS, "holds", RULES[code], path=name, pointer=pointer)
    return f(check_id, Status.FAIL, code, message, path=name, pointer=pointer, **kw)


@check("matrix.plan_rules", title="The plan and config state a consistent budget, one oracle per case, no overlapping ignore paths, no credentials",
       requires=("matrix.schema",))
def plan_rules(ctx: Context) -> Iterator[Finding]:
    """FAIL `oracle-count`, `budget-beyond-plan`, `ignore-paths-overlap`, `credential-retained`, `requests-below-concurrency`; else PASS `holds`."""
    plan, config = ctx.data["doc"]["plan.json"], ctx.data["doc"]["config.json"]
    for i, case in enumerate(plan["cases"]):
        oracle = case.get("oracle")
        kinds = sorted(oracle) if isinstance(oracle, dict) else []
        yield _rule(len(kinds) == 1, "oracle-count",
                    f"case {case['id']!r} has {len(kinds)} oracle(s) {kinds}: a frozen case needs exactly one", "plan.json",
                    f"/cases/{i}/oracle", expected=1, observed=kinds)
        paths = [*plan.get("ignore_paths", []), *case.get("ignore_paths", [])]
        clash = sorted({(a, b) for a in paths for b in paths if a is not b and (a == b or b.startswith(a + "/"))})
        yield _rule(not clash, "ignore-paths-overlap",
                    f"case {case['id']!r}: ignore path {clash[0][0]!r} " + ("repeats" if clash and clash[0][0] == clash[0][1] else
                                                                           f"contains {clash[0][1]!r}") if clash else "",
                    "plan.json", f"/cases/{i}/ignore_paths", observed=[list(c) for c in clash] or None)
    budget = config["effective_budget"]
    over = [k for k in ("repetitions", "warmup_per_case") if budget[k] > plan[k]]
    yield _rule(not over, "budget-beyond-plan",
                "effective budget exceeds the frozen plan: " + ", ".join(f"{k} {budget[k]} > {plan[k]}" for k in over),
                "config.json", "/effective_budget", expected={k: plan[k] for k in ("repetitions", "warmup_per_case")}, observed=budget)
    top = max(plan["concurrency"])
    yield _rule(plan["requests_per_case"] >= top, "requests-below-concurrency",
                f"requests_per_case {plan['requests_per_case']} is below concurrency {top}: the round never reaches its concurrency",
                "plan.json", "/requests_per_case", expected=f">= {top}", observed=plan["requests_per_case"])
    for name in ("plan.json", "config.json"):
        found = list(_secrets(ctx.data["doc"][name], ""))
        yield _rule(not found, "credential-retained",
                    f"{name} retains a credential at {found[0]} (its value is not shown)" if found else "", name,
                    found[0] if found else None)


def _secrets(node: Any, pointer: str) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if isinstance(value, str) and value.strip() and (SECRET_KEY.search(str(key)) or SECRET_VALUE.search(value)):
                yield here
            else:
                yield from _secrets(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _secrets(value, f"{pointer}/{i}")
    elif isinstance(node, str) and SECRET_VALUE.search(node):
        yield pointer


@check("matrix.response_rules", title="Responses: ok only within the deadline, dispatched before completed, latency equal to the clocks",
       requires=("matrix.schema",))
def response_rules(ctx: Context) -> Iterator[Finding]:
    """FAIL `ok-after-deadline`, `clock-order`, `latency-disagrees-with-clocks` (first offending line each); else PASS `holds`."""
    plan, lines = ctx.data["doc"]["plan.json"], ctx.data["doc"]["responses.jsonl"]
    name = "responses.jsonl"
    deadline = plan.get("timeout_seconds")
    if deadline is not None:
        late = [i for i, r in enumerate(lines) if r["outcome"] == "ok" and Decimal(r["latency_seconds"]) > Decimal(deadline)]
        yield _rule(not late, "ok-after-deadline",
                    f"line {late[0] + 1}: outcome ok after {lines[late[0]]['latency_seconds']} s, beyond timeout_seconds {deadline} "
                    f"({len(late)} such line(s))" if late else "", name, f"/{late[0]}" if late else None)
    backwards = [i for i, r in enumerate(lines) if r["completed_at_monotonic_seconds"] < r["dispatched_at_monotonic_seconds"]]
    yield _rule(not backwards, "clock-order", f"line {backwards[0] + 1}: completed before it was dispatched" if backwards else "",
                name, f"/{backwards[0]}" if backwards else None)
    worst = None
    for i, r in enumerate(lines):
        lat, done, sent = (Decimal(r[k]) for k in ("latency_seconds", "completed_at_monotonic_seconds", "dispatched_at_monotonic_seconds"))
        # binary64 clocks: 2 ulps at the clocks' magnitude, plus half a unit of the latency's stated last place
        tol = stats.tolerance(lat, statistic="difference", values=(done, sent))
        if abs(lat - (done - sent)) > tol:
            worst = (i, lat, done - sent, tol)
            break
    yield _rule(worst is None, "latency-disagrees-with-clocks",
                f"line {worst[0] + 1}: latency_seconds {worst[1]} but completed - dispatched = {worst[2]} (tolerance {worst[3]} s)"
                if worst else "", name, f"/{worst[0]}/latency_seconds" if worst else None,
                **({"expected": str(worst[2]), "observed": {"latency": str(worst[1]), "tolerance": str(worst[3])}} if worst else {}))
