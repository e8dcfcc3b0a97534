"""
The rule pack of frozen HTTP matrix output (seed 003): the plan, config and responses checked against their own statements (`gate.rules`).

Runs after `schema.documents` (over the files and schemas `verifier/adapters/http_matrix.py` names), so every
field read here is typed by the pinned `frozen-http-matrix-*-v1` schemas; a
wrong type is a schema finding. Each rule yields PASS `holds` or FAIL with
its code (`RULES`); an ok line whose case has no readable oracle is
UNVERIFIED `oracle-unreadable`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from verifier.engine import stats
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.model.findings import Finding, Status
from verifier.model.numtext import delta_text, tolerance_text
from verifier.engine.pipeline import Context, check

__all__ = ["RULES", "matrix_rules", "secret_key", "without"]

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
