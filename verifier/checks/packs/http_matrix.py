"""
The rule pack of frozen HTTP matrix output (seed 003): the producer's own checks and the plan, config and responses checked against their own statements (`gate.rules`).

Runs after `schema.documents` (over the files and schemas `verifier/adapters/http_matrix.py` names), so every
field read here is typed by the pinned `frozen-http-matrix-*-v1` schemas; a
wrong type is a schema finding. The producer's checks (`CHECKS`): in the
plan family `matrix.plan_digest` (plan.json's bytes against
config.plan_sha256), `matrix.provenance`, `matrix.denominators` (planned,
attempted and successful counts per round and in total) and `matrix.stop`
(dispatch stops after the first failure), in the derivation family
`matrix.spread` (the spread blocks across complete rounds); they read the
reader's model (`verifier.adapters.http_matrix.model`: the measured response
lines by round, their clocks in s). Each rule of `gate.rules` yields PASS
`holds` or FAIL with its code (`RULES`); an ok line whose case has no
readable oracle is UNVERIFIED `oracle-unreadable`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

from verifier.adapters.http_matrix import SPREAD_METRICS, _groups, _measured, _rows, _value, model
from verifier.engine import stats
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.model.findings import Finding, Status, finding
from verifier.model.numtext import comparison_text, delta_text, tolerance_text
from verifier.engine.pipeline import Context, check

__all__ = ["CHECKS", "MISSING_LISTED", "RULES", "denominators", "matrix_rules", "plan_digest", "provenance", "secret_key", "spread",
           "stop_after_failure", "without"]

RULES = {
    "ok-after-deadline": "no ok response took longer than the plan's timeout_seconds",
    "clock-order": "no response completed before it was dispatched",
    "latency-disagrees-with-clocks": "every latency equals completed - dispatched within the clocks' precision",
    "oracle-count": "every case has exactly one oracle",
    "budget-beyond-plan": "the effective budget does not exceed the plan's repetitions and warmups",
    "ignore-paths-overlap": "no ignore path repeats or contains another",
    "credential-retained": "no credential is retained in plan.json, config.json, responses.jsonl (raw bytes included) or summary.json",
    "requests-below-concurrency": "requests_per_case is at least the largest concurrency",
    "raw-response-absent": "every response line retains its raw bytes (raw_response_base64)",
    "ignore-paths-hide-oracle": "no case's ignore paths remove every field its exact_json oracle reads",
    "ignore-path-unresolved": "every ignore path names a field of its case's exact_json oracle",
    "ok-contradicts-oracle": "every ok response's retained bytes match its case's oracle (ignore paths dropped, type-strict)",
    "finished-before-started": "config.json's finished_at is not before its started_at",
}

#: Key words whose non-empty string value is a credential (a key is split into words at `_`, `-`, spaces and camelCase humps).
SECRET_KEY = re.compile(r"^(?:authorization|auth|password|passwd|secret|bearer|cookie|apikey|credential|credentials)$")
#: A `token` key word is a credential unless a word next to it names a vocabulary token ("eos_token", "pad_token_id") or it is a count.
_TOKEN_KINDS = frozenset("eos bos pad unk sep cls mask stop start end special image audio video vision think tool".split())
#: Values that are a credential whatever their key: an Authorization header value (scheme and a token-like credential:
#: 8 characters or more with a digit, `=`, `+` or `/`, or 20 characters, so "basic arithmetic" is prose), provider key prefixes,
#: an environment assignment in capitals (`OMNI_JEV_TEST_TOKEN=...`).
SECRET_VALUE = re.compile(r"(?<![\w-])(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+(?=[A-Za-z0-9._~+/=-]*[0-9=+/])[A-Za-z0-9._~+/-]{8,}=*(?![\w])"
                          r"|(?<![\w-])(?:[Bb]earer|[Bb]asic)\s+[A-Za-z0-9._~+/-]{20,}=*"
                          r"|\bsk-[A-Za-z0-9_-]{16,}|\bhf_[A-Za-z0-9]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}"
                          r"|\b[A-Z0-9_]*(?:TOKEN|API_KEY|APIKEY|SECRET|PASSWORD)=\S+")
#: The matrix files the credential rule reads (the response log's raw bytes are decoded and read too).
SCANNED = ("plan.json", "config.json", "responses.jsonl", "summary.json")


def secret_key(key: str) -> bool:
    """Return whether a JSON key names a credential: `Authorization`, `X-Api-Key`, `hf_token`, `access_token`; not `tokenizer`, `eos_token`, `max_tokens`."""
    parts = [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", str(key))]
    if any(SECRET_KEY.match(w) for w in parts) or any(a == "api" and b == "key" for a, b in zip(parts, parts[1:], strict=False)):
        return True
    for i, w in enumerate(parts):
        if w == "token":
            near = set(parts[max(0, i - 1):i]) | set(parts[i + 1:i + 2])
            if not near & (_TOKEN_KINDS | {"id", "ids", "count", "counts", "limit"}):
                return True
    return False


def _rule(ok: bool, code: str, message: str, name: str, pointer: str | None = None, **kw: Any) -> Finding:
    if ok:
        return Finding(check="gate.rules", status=Status.PASS, code="holds", message=RULES[code], path=name, pointer=pointer)
    return Finding(check="gate.rules", status=Status.FAIL, code=code, message=message, path=name, pointer=pointer, **kw)


@check("matrix.plan_digest", title="plan.json's sha256 equals config.plan_sha256", requires=("schema.documents",))
def plan_digest(ctx: Context) -> Iterator[Finding]:
    """PASS/FAIL `plan-sha256-mismatch` on the plan snapshot bytes; UNVERIFIED `runner-not-retained` for runner_sha256."""
    config = ctx.run.doc["config.json"]
    got = hashlib.sha256(ctx.run.raw["plan.json"]).hexdigest()
    ok = got == config["plan_sha256"].lower()  # upper-case hex is the same digest
    yield finding("matrix.plan_digest", Status.PASS if ok else Status.FAIL, "derived" if ok else "plan-sha256-mismatch",
            f"sha256(plan.json) = {got}" + (" equals" if ok else " differs from") + f" config.plan_sha256 {config['plan_sha256']}",
            path="config.json", pointer="/plan_sha256", expected=got, observed=config["plan_sha256"])
    yield finding("matrix.plan_digest", Status.UNVERIFIED, "runner-not-retained",
            f"config.runner_sha256 = {config['runner_sha256']}: recorded, not checked: the runner's bytes are not in the output",
            path="config.json", pointer="/runner_sha256", observed=config["runner_sha256"])


@check("matrix.provenance", title="The eleven provenance fields are present and non-blank", requires=("schema.documents",))
def provenance(ctx: Context) -> Iterator[Finding]:
    """FAIL `provenance-missing` per absent or blank field of plan.metadata (names from the profile); PASS when all are present."""
    meta = ctx.run.doc["plan.json"]["metadata"]
    wanted = ctx.run.profile["provenance_fields"]
    bad = []
    for key in wanted:
        value = meta.get(key)
        blank = value is None or (isinstance(value, str) and not value.strip()) or (isinstance(value, (list, dict)) and not value)
        if blank:
            bad.append(key)
            yield finding("matrix.provenance", Status.FAIL, "provenance-missing",
                    f"plan.json: metadata.{key} is {'absent' if key not in meta else repr(value)}: each of the {len(wanted)} provenance fields must be non-blank",
                    path="plan.json", pointer=f"/metadata/{key}")
    if not bad:
        yield finding("matrix.provenance", Status.PASS, "present", f"plan.json: all {len(wanted)} provenance fields are non-blank "
                "(presence only: the declarations themselves are not verified)", path="plan.json", pointer="/metadata")


#: Missing rounds listed one finding each, beyond the summary's own rows; a plan asking for more (an absurd
#: `repetitions`) gets one FAIL `rounds-beyond-summary`, so no loop runs longer than the input is (issue 14).
MISSING_LISTED = 100


def _planned_count(plan: dict[str, Any]) -> int:
    return len(plan["cases"]) * len(plan["concurrency"]) * plan["repetitions"]


def _planned_rounds(plan: dict[str, Any]) -> Iterator[tuple[str, int, int]]:
    return ((case["id"], c, r) for case in plan["cases"] for c in plan["concurrency"] for r in range(1, plan["repetitions"] + 1))


def _planned_test(plan: dict[str, Any]) -> Callable[[tuple[Any, Any, Any]], bool]:
    """Return a predicate: is a (case, concurrency, round) key one of the plan's rounds (in O(1), whatever `repetitions` is)."""
    cases, levels, last = {c["id"] for c in plan["cases"]}, set(plan["concurrency"]), plan["repetitions"]

    def planned(key: tuple[Any, Any, Any]) -> bool:
        case, concurrency, rnd = key
        return case in cases and concurrency in levels and 1 <= rnd <= last and rnd == int(rnd)
    return planned


def _count(check_id: str, name: str, ptr: str, claimed: int, derived: int, how: str) -> Finding:
    ok = stats.compare(claimed, derived, exact=True).holds
    return finding(check_id, Status.PASS if ok else Status.FAIL, "derived" if ok else "count-mismatch",
             f"{name}#{ptr} = {claimed}" + (" re-derives" if ok else f", but {how} gives {derived}") + f" ({how})",
             path=name, pointer=ptr, expected=derived, observed=claimed, derivation=how)


@check("matrix.denominators", title="Planned, attempted and successful counts re-derive and stay separate", requires=("schema.documents",))
def denominators(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive planned (plan), attempted and successful (measured response lines) per round and in total.

    FAIL `round-missing` when a planned round has no summary row (its
    denominator was dropped), `unplanned-round`, `unplanned-response`,
    `count-mismatch`, `status-mismatch`; the failure tally re-derives from
    every line's outcome.
    """
    plan, summary = ctx.run.doc["plan.json"], ctx.run.doc["summary.json"]
    ok_word = ctx.run.profile["success_outcome"]
    measured, rows = _measured(ctx), _rows(ctx)
    count, n, is_planned = _planned_count(plan), plan["requests_per_case"], _planned_test(plan)
    keys: Iterable[tuple[str, int, int]] = _planned_rounds(plan)
    if count > len(rows) + MISSING_LISTED:
        yield finding("matrix.denominators", Status.FAIL, "rounds-beyond-summary",
                f"plan.json asks for {count} rounds ({len(plan['cases'])} cases x {len(plan['concurrency'])} concurrencies x "
                f"{plan['repetitions']} repetitions) but summary.json has {len(rows)} rows: at least {count - len(rows)} "
                "planned rounds have no row (each keeps its denominator)",
                path="plan.json", pointer="/repetitions", expected=f"<= {len(rows)} rounds (summary rows)", observed=count)
        keys = [key for key in rows if is_planned(key)]
    for key in keys:
        if key not in rows:
            yield finding("matrix.denominators", Status.FAIL, "round-missing",
                    f"summary.json: planned round {key} ({n} requests) has no row: its denominator was dropped",
                    path="summary.json", pointer="/rounds", expected=list(key))
            continue
        i, row = rows[key]
        lines = measured.get(key, [])
        succ = sum(1 for x in lines if x.ok)
        yield _count("matrix.denominators", "summary.json", f"/rounds/{i}/planned", row["planned"], n, "plan.requests_per_case")
        yield _count("matrix.denominators", "summary.json", f"/rounds/{i}/attempted", row["attempted"], len(lines),
                     f"measured lines of round {key} in responses.jsonl")
        yield _count("matrix.denominators", "summary.json", f"/rounds/{i}/successful", row["successful"], succ,
                     f"measured lines of round {key} with outcome {ok_word!r}")
        status = "not_run" if not lines else ("complete" if succ == n and len(lines) == n else "incomplete")
        if row["status"] != status:
            yield finding("matrix.denominators", Status.FAIL, "status-mismatch", f"summary.json#/rounds/{i}/status = {row['status']!r}, "
                    f"the responses give {status!r} ({succ}/{len(lines)}/{n} successful/attempted/planned)",
                    path="summary.json", pointer=f"/rounds/{i}/status", expected=status, observed=row["status"])
    for key, (i, _) in rows.items():
        if not is_planned(key):
            yield finding("matrix.denominators", Status.FAIL, "unplanned-round", f"summary.json#/rounds/{i}: round {key} is not in the plan",
                    path="summary.json", pointer=f"/rounds/{i}")
    for key in measured:
        if not is_planned(key):
            yield finding("matrix.denominators", Status.FAIL, "unplanned-response", f"responses.jsonl: measured lines for unplanned round {key}",
                    path="responses.jsonl")
    all_measured = [x for lines in measured.values() for x in lines]
    den = summary["denominators"]
    yield _count("matrix.denominators", "summary.json", "/denominators/planned", den["planned"], n * count,
                 f"{count} planned rounds x {n} requests")
    yield _count("matrix.denominators", "summary.json", "/denominators/attempted", den["attempted"], len(all_measured),
                 "measured lines in responses.jsonl")
    yield _count("matrix.denominators", "summary.json", "/denominators/successful", den["successful"],
                 sum(1 for x in all_measured if x.ok), f"measured lines with outcome {ok_word!r}")
    tally = Counter(x.dims["outcome"] for x in model(ctx).receipts if not x.ok)
    claimed = {k: v for k, v in summary["failures"].items() if v}
    ok = claimed == dict(tally)
    yield finding("matrix.denominators", Status.PASS if ok else Status.FAIL, "derived" if ok else "count-mismatch",
            f"summary.json#/failures = {claimed}" + (" re-derives" if ok else f", the responses give {dict(tally)}"),
            path="summary.json", pointer="/failures", expected=dict(tally), observed=claimed)


@check("matrix.stop", title="After a failure no request is dispatched; the run is marked stopped and incomplete",
       requires=("schema.documents",))
def stop_after_failure(ctx: Context) -> Iterator[Finding]:
    """
    FAIL `dispatch-after-failure` per line dispatched after the first failure completed.

    Also FAIL `stop-not-reported` when the summary does not say
    stopped_after_failure = true and complete = false after a failure, or
    says stopped/incomplete without one.
    """
    lines = model(ctx).receipts  # one per line of responses.jsonl, in order
    summary = ctx.run.doc["summary.json"]
    failures = [(_value(x, "completed"), i) for i, x in enumerate(lines) if not x.ok]
    planned = summary["denominators"]["planned"]
    if not failures:
        complete = summary["denominators"]["attempted"] == planned
        ok = summary["stopped_after_failure"] is False and summary["complete"] is complete
        yield finding("matrix.stop", Status.PASS if ok else Status.FAIL, "no-failure" if ok else "stop-not-reported",
                f"no request failed; summary.json says complete = {summary['complete']}, stopped_after_failure = {summary['stopped_after_failure']}",
                path="summary.json", pointer="/stopped_after_failure")
        return
    t_fail, first = min(failures)
    late = [(i, x) for i, x in enumerate(lines) if _value(x, "dispatched") > t_fail]
    for i, x in late:
        yield finding("matrix.stop", Status.FAIL, "dispatch-after-failure",
                f"responses.jsonl line {i + 1} was dispatched at {_value(x, 'dispatched')} s, after the failure on line "
                f"{first + 1} completed at {t_fail} s: dispatch must stop after a failure", path="responses.jsonl", pointer=f"/{i}")
    if not late:
        yield finding("matrix.stop", Status.PASS, "stopped", f"no request was dispatched after the first failure (line {first + 1}, {t_fail} s)",
                path="responses.jsonl", pointer=f"/{first}")
    ok = summary["stopped_after_failure"] is True and summary["complete"] is False
    yield finding("matrix.stop", Status.PASS if ok else Status.FAIL, "stop-reported" if ok else "stop-not-reported",
            f"after a failure summary.json says complete = {summary['complete']}, stopped_after_failure = {summary['stopped_after_failure']} "
            "(expected false, true)", path="summary.json", pointer="/complete")


def _metric(row: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = row
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node


@check("matrix.spread", title="Each (case, concurrency) spread block re-derives from its complete rounds", requires=("schema.documents",))
def spread(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive `summary.json#/round_aggregates` from the complete rounds of `rounds`.

    Per (case, concurrency): complete_rounds when stated (exact, FAIL
    `count-mismatch`); per metric of `SPREAD_METRICS`: rounds (exact),
    min and max (picks), median (`stats.median`: the mean of the two middle
    values for even n, as `statistics.median`) and relative_spread = (max -
    min) / median, derived and compared by `stats.compare_spread`. FAIL `spread-mismatch` per
    wrong field, `spread-missing` for a group or metric with complete
    rounds and no block (or a block for values that do not exist);
    UNVERIFIED `spread-not-stated` when the summary has no `round_aggregates`.
    """
    summary = ctx.run.doc["summary.json"]
    if "round_aggregates" not in summary:
        yield finding("matrix.spread", Status.UNVERIFIED, "spread-not-stated",
                "summary.json states no round_aggregates: the spread across rounds is not reported", path="summary.json")
        return
    groups = _groups(summary)
    blocks = {(b["case"], b["concurrency"]): (i, b) for i, b in enumerate(summary["round_aggregates"])}
    for key, done in groups.items():
        if key not in blocks:
            yield finding("matrix.spread", Status.FAIL, "spread-missing", f"round_aggregates has no block for case {key[0]!r} at concurrency {key[1]}",
                    path="summary.json", pointer="/round_aggregates")
            continue
        i, block = blocks[key]
        if "complete_rounds" in block:
            yield _count("matrix.spread", "summary.json", f"/round_aggregates/{i}/complete_rounds", block["complete_rounds"], len(done),
                         f"complete rounds of case {key[0]!r} at concurrency {key[1]}")
        for metric, where in SPREAD_METRICS.items():
            values = [Decimal(v) for v in (_metric(r, where) for r in done) if v is not None]
            stated, ptr = block["metrics"].get(metric), f"/round_aggregates/{i}/metrics/{metric}"
            if (not values) != (stated is None):
                yield finding("matrix.spread", Status.FAIL, "spread-missing",
                        f"{ptr}: stated {'nothing' if stated is None else 'a spread'} for {len(values)} complete-round value(s)",
                        path="summary.json", pointer=ptr)
                continue
            if not values:
                continue
            derived, bad = stats.compare_spread(stated, values)
            yield (finding("matrix.spread", Status.FAIL, "spread-mismatch",  # each derived number at its stated places plus two
                     f"{ptr}: " + "; ".join(f"{k} {stated[k]} but {len(values)} complete round(s) give {comparison_text(stated[k], derived[k], None)[0]}"
                                            for k in bad),
                     path="summary.json", pointer=ptr, expected={k: str(v) for k, v in derived.items()}, observed={k: str(stated[k]) for k in bad})
                   if bad else
                   finding("matrix.spread", Status.PASS, "derived", f"{ptr}: min/median/max/relative spread re-derive from {len(values)} complete round(s)",
                     path="summary.json", pointer=ptr))


@check("gate.rules", title="The plan and config state a consistent budget, one oracle per case, no overlapping ignore paths, no credentials; "
       "responses are ok only within the deadline, dispatched before completed, latency equal to the clocks, bytes as the oracle",
       requires=("schema.documents",))
def matrix_rules(ctx: Context) -> Iterator[Finding]:
    """Run the plan's rules (`_plan_rules`), then the responses' (`_response_rules`): every rule of `RULES`."""
    yield from _plan_rules(ctx)
    yield from _response_rules(ctx)


def _plan_rules(ctx: Context) -> Iterator[Finding]:
    """FAIL `oracle-count`, `ignore-path-unresolved`, `ignore-paths-hide-oracle`, `budget-beyond-plan`, `ignore-paths-overlap`, `credential-retained`, `requests-below-concurrency`; else PASS `holds`."""
    plan, config = ctx.run.doc["plan.json"], ctx.run.doc["config.json"]
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
        yield from _ignore_rules(i, case, plan.get("ignore_paths", []))
    budget = config["effective_budget"]
    over = [k for k in ("repetitions", "warmup_per_case") if budget[k] > plan[k]]
    yield _rule(not over, "budget-beyond-plan",
                "effective budget exceeds the frozen plan: " + ", ".join(f"{k} {budget[k]} > {plan[k]}" for k in over),
                "config.json", "/effective_budget", expected={k: plan[k] for k in ("repetitions", "warmup_per_case")}, observed=budget)
    top = max(plan["concurrency"])
    yield _rule(plan["requests_per_case"] >= top, "requests-below-concurrency",
                f"requests_per_case {plan['requests_per_case']} is below concurrency {top}: the round never reaches its concurrency",
                "plan.json", "/requests_per_case", expected=f">= {top}", observed=plan["requests_per_case"])
    for name in SCANNED:
        if name not in ctx.run.doc:
            continue
        found = list(_secrets(ctx.run.doc[name], ""))
        yield _rule(not found, "credential-retained",
                    f"{name} retains a credential at {found[0]} (its value is not shown)" if found else "", name,
                    found[0] if found else None)


def _secrets(node: Any, pointer: str) -> Iterator[str]:
    """Yield the JSON Pointer of every credential in `node`; a response line's raw bytes are decoded and read as text and as JSON."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key == "raw_response_base64" and isinstance(value, str) and _raw(value):
                text = base64.b64decode(value, validate=True).decode("utf-8", "replace")
                if SECRET_VALUE.search(text) or next(_secrets(_json_or_none(text), here), None) is not None:
                    yield here
            elif isinstance(value, str) and value.strip() and (secret_key(str(key)) or SECRET_VALUE.search(value)):
                yield here
            else:
                yield from _secrets(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _secrets(value, f"{pointer}/{i}")
    elif isinstance(node, str) and SECRET_VALUE.search(node):
        yield pointer


def _response_rules(ctx: Context) -> Iterator[Finding]:
    """FAIL `ok-after-deadline`, `clock-order`, `latency-disagrees-with-clocks`, `ok-contradicts-oracle`, `finished-before-started`, `raw-response-absent` (first offending line each); else PASS `holds`; UNVERIFIED `oracle-unreadable` when an ok line's case has no readable oracle (its bytes are not re-checked)."""
    plan, lines = ctx.run.doc["plan.json"], ctx.run.doc["responses.jsonl"]
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
        judged = stats.compare(lat, done - sent, statistic="difference", values=(done, sent))
        if not judged.holds:
            worst = (i, lat, done - sent, judged.tolerance, judged.delta)
            break
    yield _rule(worst is None, "latency-disagrees-with-clocks",
                f"line {worst[0] + 1}: latency_seconds {worst[1]} but completed - dispatched = {worst[2]} ({delta_text(worst[4], 's')}, {tolerance_text(worst[3], 's')})"
                if worst else "", name, f"/{worst[0]}/latency_seconds" if worst else None,
                **({"expected": str(worst[2]), "observed": {"latency": str(worst[1]), "tolerance": str(worst[3])}} if worst else {}))
    cases = {c["id"]: c for c in plan["cases"]}
    wrong, unread = None, None
    for i, r in enumerate(lines):
        case = cases.get(r["case"])
        if r["outcome"] != "ok" or case is None or not isinstance(case.get("oracle"), dict) or not _raw(r.get("raw_response_base64")):
            continue
        verdict = _matches_oracle(base64.b64decode(r["raw_response_base64"], validate=True), case["oracle"],
                                  [*plan.get("ignore_paths", []), *case.get("ignore_paths", [])])
        if verdict is None and unread is None:
            unread = i
        if verdict is False:
            wrong = i
            break
    if unread is not None and wrong is None:
        yield Finding(check="gate.rules", status=Status.UNVERIFIED, code="oracle-unreadable",
                      message=f"line {unread + 1}: case {lines[unread]['case']!r} has no readable oracle (exact_bytes as base64 text, "
                      "or exact_json), so its ok responses' bytes are not re-checked", path="plan.json", pointer="/cases")
    else:  # a PASS here says every ok line was re-checked
        yield _rule(wrong is None, "ok-contradicts-oracle",
                    f"line {wrong + 1}: outcome ok, but its retained bytes do not match case {lines[wrong]['case']!r}'s oracle "
                    "(ignore paths dropped, type-strict)" if wrong is not None else "", name,
                    f"/{wrong}/raw_response_base64" if wrong is not None else None)
    config = ctx.run.doc.get("config.json") or {}
    began, ended = config.get("started_at"), config.get("finished_at")
    if isinstance(began, str) and isinstance(ended, str):
        from verifier.model.evidence import instant

        backwards_run = instant(ended) < instant(began)  # nanoseconds, as every clock of the evidence is read
        yield _rule(not backwards_run, "finished-before-started",
                    f"config.json says the run finished at {ended}, before it started at {began}" if backwards_run else "",
                    "config.json", "/finished_at" if backwards_run else None, expected=f">= {began}" if backwards_run else None,
                    observed=ended if backwards_run else None)
    bare = next((i for i, r in enumerate(lines) if not _raw(r.get("raw_response_base64"))), None)
    yield _rule(bare is None, "raw-response-absent",
                f"line {bare + 1}: no raw response bytes (raw_response_base64 absent or not base64): the oracle verdict "
                f"{lines[bare]['outcome']!r} cannot be audited" if bare is not None else "", name, f"/{bare}" if bare is not None else None)


_MISSING = object()


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _resolves(doc: Any, pointer: str) -> bool:
    """Return whether the RFC 6901 `pointer` names a value in `doc` (object member, or array index in range)."""
    node = doc
    for token in (_unescape(t) for t in pointer.split("/")[1:]):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node) and (token == "0" or not token.startswith("0")):
            node = node[int(token)]
        else:
            return False
    return True


def without(doc: Any, pointers: Iterable[str]) -> Any:
    """Return a copy of `doc` with the values at `pointers` removed (a pointer that resolves nowhere removes nothing); the root is never removed."""
    import copy

    out = copy.deepcopy(doc)
    for pointer in sorted(pointers, key=lambda p: -p.count("/")):
        tokens = [_unescape(t) for t in pointer.split("/")[1:]]
        node = out
        for token in tokens[:-1]:
            node = node.get(token, _MISSING) if isinstance(node, dict) else (
                node[int(token)] if isinstance(node, list) and token.isdigit() and int(token) < len(node) else _MISSING)
            if node is _MISSING:
                break
        last = tokens[-1] if tokens else None
        if last is None or node is _MISSING:
            continue
        if isinstance(node, dict):
            node.pop(last, None)
        elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
            node.pop(int(last))
    return out


def _leaves(doc: Any) -> int:
    if isinstance(doc, dict):
        return sum(_leaves(v) for v in doc.values())
    if isinstance(doc, list):
        return sum(_leaves(v) for v in doc)
    return 1


def _ignore_rules(i: int, case: dict[str, Any], plan_paths: list[str]) -> Iterator[Finding]:
    """The case's ignore paths (plan-level ones apply to every case) name fields of its exact_json oracle and leave one to compare."""
    oracle = case.get("oracle") if isinstance(case.get("oracle"), dict) else {}
    paths = [*plan_paths, *case.get("ignore_paths", [])]
    if not paths:
        return
    where = f"/cases/{i}/ignore_paths"
    if "exact_json" not in oracle:
        yield _rule(False, "ignore-path-unresolved", f"case {case['id']!r} ignores {paths[0]!r}, but its oracle is not exact_json: "
                                                     "an ignore path names no field of raw bytes", "plan.json", where, observed=paths)
        return
    document = oracle["exact_json"]
    nowhere = [p for p in paths if not _resolves(document, p)]
    yield _rule(not nowhere, "ignore-path-unresolved",
                f"case {case['id']!r}: ignore path {nowhere[0]!r} names no field of its exact_json oracle "
                f"({len(nowhere)} such path(s)): it ignores nothing, or a field the oracle never had" if nowhere else "",
                "plan.json", where, observed=nowhere or None)
    left = without(document, paths)
    hidden = _leaves(document) > 0 and _leaves(left) == 0 and left != document
    yield _rule(not hidden, "ignore-paths-hide-oracle",
                f"case {case['id']!r}: its ignore paths remove every field the exact_json oracle reads, so any response "
                "would match it" if hidden else "", "plan.json", where, observed=paths if hidden else None)


def _same(a: Any, b: Any) -> bool:
    """Type-strict JSON equality: 1, 1.0 and true differ; objects compare by keys, arrays by position."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _matches_oracle(raw: bytes, oracle: dict[str, Any], ignore: list[str]) -> bool | None:
    """Return whether `raw` matches the case's oracle (exact_bytes, or exact_json with the ignore paths dropped); None when the oracle is neither."""
    if "exact_bytes" in oracle and isinstance(oracle["exact_bytes"], str) and _raw(oracle["exact_bytes"]):
        return raw == base64.b64decode(oracle["exact_bytes"], validate=True)
    if "exact_json" in oracle:
        try:
            body = loads_strict(raw)  # as plan.json was read: integers int, other numbers Decimal, so 1 and 1.0 differ
        except JSONProblem:
            return False
        return _same(without(body, ignore), without(oracle["exact_json"], ignore))
    return None


def _json_or_none(text: str) -> Any:
    """Return `text` parsed as JSON (a response body), or None when it is not JSON."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def _raw(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


#: The producer's checks in the order `verifier.core.receipt_pipeline` hands them to `roster.in_families`: plan (plan digest,
#: provenance, denominators, stop after failure), derivation (spread), the review's rules (`gate.rules`); it adds the
#: reader's `schema.documents` (strict JSON, runner version, schemas) and `derivation.claims` (`stated`: the rounds'
#: percentiles and throughputs) and the stand-ins, in roster order.
CHECKS = (plan_digest, provenance, denominators, stop_after_failure, spread, matrix_rules)
