"""
The receipt adapters as readers: a validated receipt onto the evidence model (`verifier.model.evidence.Evidence`).

Pure functions, no I/O: each takes a document that passed its pinned schema
(the adapter's schema check ran first, so every field read here has its
type) and returns the `Evidence` the adapter's checks read. What a reader
meets and cannot map (a unit the registry `verifier.model.units` does not know, an
array shorter than the ledger) goes to `Evidence.unmapped`, never dropped.

- `vllm_result`: a `vllm bench serve --save-result` JSON. One receipt per
  prompt (dims `kind: request`, `request`: its index; quantities `ttft`,
  `latency`, `start` in s and `input`, `output` in tokens, as the result
  retains them; `ok` is the producer's own success rule, `errors[i] == ""`),
  one receipt per inter-token latency (dims `kind: itl`, `request`,
  `index`; quantity `itl` in s), every stated number of the top level as
  a claim (its unit from `VLLM_UNITS`), and the declared plan (prompts,
  `max_concurrency`, arrival process);
- `serving_record`: a `serving-performance-v1` record. One receipt per case
  (dims `case_id`, `outcome`, `primary_outcome`; quantity `duration` in ms,
  None when the case records none: absence is not zero), the stated counts
  as claims (`requests`) and every metric as a claim in its own unit;
- `telemetry_receipt`: a `serving-load-telemetry-v1` receipt. The bench
  process as a process receipt (outcome, exit code, its stdout and stderr
  carriers), every carrier as a file listed in the receipt with its sha256,
  every stated fact as a claim (`TELEMETRY_UNITS`; a null is not stated),
  and the protocol as the plan (prompts, `max_concurrency`, arrival);
- `http_matrix`: a frozen HTTP matrix output. One receipt per line of
  responses.jsonl (dims `phase`, `case`, `concurrency`, `round`, `index`,
  `outcome`; quantities `latency`, `dispatched`, `completed` in s; `ok` when
  the outcome is the runner's success word), summary.json's per-round
  numbers and denominators as claims, plan.json as a file pinned by
  config.plan_sha256, and the plan's budget (requests and warmups per case,
  timeout, the largest concurrency).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from verifier.model import units
from verifier.model.evidence import Evidence, FileEntry, Location, Plan, ProcessReceipt, Quantity, Receipt, StatedClaim, Unmapped

__all__ = ["MATRIX_UNITS", "TELEMETRY_UNITS", "VLLM_UNITS", "http_matrix", "serving_record", "telemetry_receipt", "unit_of", "vllm_result"]

#: Units of the top-level numbers of a vLLM result, by key pattern (first match); a key matching none is `count`.
VLLM_UNITS: tuple[tuple[str, str], ...] = (
    (r"_ms$", "ms"), (r"^duration$", "s"), (r"^request_(throughput|goodput)", "requests/s"),
    (r"_throughput$|_tokens_per_s$", "tokens/s"), (r"_tokens$", "tokens"),
    (r"^(completed|failed|num_prompts|max_concurrency|max_concurrent_requests)$", "requests"),
    (r"^(request_rate)$", "requests/s"), (r"^burstiness$", "1"),
)

_REQUEST = {"ttfts": ("ttft", "s"), "latencies": ("latency", "s"), "start_times": ("start", "s"),
            "input_lens": ("input", "tokens"), "output_lens": ("output", "tokens")}


def unit_of(key: str) -> str:
    """Return the unit `VLLM_UNITS` gives a top-level key of a vLLM result (`count` when no pattern matches)."""
    return next((unit for pattern, unit in VLLM_UNITS if re.search(pattern, key)), "count")


def _pointer(key: str) -> str:
    return "/" + key.replace("~", "~0").replace("/", "~1")


def _number(value: Any) -> bool:
    return isinstance(value, (int, Decimal)) and not isinstance(value, bool)


def vllm_result(document: dict[str, Any], name: str, arrays: list[str]) -> Evidence:
    """
    Return the `Evidence` of a schema-valid vLLM result `document` read from file `name`.

    `arrays` names the per-request arrays the producer version retains (its
    profile's `per_request_arrays`); a request receipt exists for every
    index all retained arrays hold, and an array of another length is
    recorded in `unmapped` (the ledger check judges it). Claims are the
    numeric top-level values, located at their JSON Pointer.
    """
    held = {k: document[k] for k in arrays if isinstance(document.get(k), list)}
    unmapped: list[Unmapped] = []
    receipts: list[Receipt] = []
    if held and len(held) == len(arrays):
        n = min(len(v) for v in held.values())
        for key, values in held.items():
            if len(values) != n:
                unmapped.append(Unmapped(f"{key}[{n}:]", Location(name, f"/{key}"), f"{key} holds {len(values)} entries, another array {n}"))
        for i in range(n):
            quantities = {q: Quantity(Decimal(held[key][i]), unit) for key, (q, unit) in _REQUEST.items() if key in held}
            receipts.append(Receipt(dims={"kind": "request", "request": str(i)}, quantities=quantities,
                                    location=Location(name, f"/errors/{i}"), ok=held["errors"][i] == ""))
            for j, gap in enumerate(held["itls"][i] if "itls" in held else ()):
                receipts.append(Receipt(dims={"kind": "itl", "request": str(i), "index": str(j)},
                                        quantities={"itl": Quantity(Decimal(gap), "s")}, location=Location(name, f"/itls/{i}/{j}"),
                                        ok=held["errors"][i] == ""))
    else:
        unmapped.append(Unmapped("per-request arrays", Location(name), f"the result keeps aggregates only (no {', '.join(arrays)})"))
    claims = tuple(StatedClaim(key, Quantity(Decimal(value), unit_of(key), str(value)), key, Location(name, _pointer(key)))
                   for key, value in document.items() if _number(value))
    rate = document.get("request_rate")
    plan = Plan(arms={}, servers={}, per_server={"measured": document["num_prompts"]},
                concurrency=document.get("max_concurrency") if _number(document.get("max_concurrency")) else None,
                arrival=None if rate is None else f"request_rate {rate}, burstiness {document.get('burstiness', 1)}",
                location=Location(name))
    return Evidence(reader="vllm-bench-serve", plan=plan, receipts=tuple(receipts), claims=claims, unmapped=tuple(unmapped))


def serving_record(document: dict[str, Any], name: str) -> Evidence:
    """
    Return the `Evidence` of a schema-valid `serving-performance-v1` record `document` read from file `name`.

    A metric whose unit the registry does not know is a claim without a
    quantity, recorded in `unmapped`.
    """
    receipts = tuple(
        Receipt(dims={"case_id": c["case_id"], "outcome": c["outcome"], "primary_outcome": str(c.get("primary_outcome"))},
                quantities={"duration": None if c.get("duration_ms") is None else Quantity(Decimal(c["duration_ms"]), "ms")},
                location=Location(name, f"/cases/{i}"), ok=c["outcome"] == "pass")
        for i, c in enumerate(document["cases"]))
    counts = document["counts"]
    claims: list[StatedClaim] = [StatedClaim("counts/declared", Quantity(Decimal(counts["declared"]), "requests"), "declared",
                                             Location(name, "/counts/declared"))]
    claims += [StatedClaim(f"counts/outcomes/{k}", Quantity(Decimal(v), "requests"), f"outcome {k}", Location(name, f"/counts/outcomes/{k}"))
               for k, v in counts["outcomes"].items()]
    if "primary_passes" in counts:
        claims.append(StatedClaim("counts/primary_passes", Quantity(Decimal(counts["primary_passes"]), "requests"), "primary passes",
                                  Location(name, "/counts/primary_passes")))
    unmapped: list[Unmapped] = []
    for i, metric in enumerate(document["metrics"]):
        where = Location(name, f"/metrics/{i}/value")
        unit = metric.get("unit", "")
        quantity = Quantity(Decimal(metric["value"]), unit, str(metric["value"])) if units.known(unit) else None
        if quantity is None:
            unmapped.append(Unmapped(f"unit of {metric['id']}", where, f"unit {unit!r} is not in the unit registry"))
        claims.append(StatedClaim(metric["id"], quantity, str(metric.get("definition") or metric["id"]), where))
    return Evidence(reader="serving-performance-v1", receipts=receipts, claims=tuple(claims), unmapped=tuple(unmapped))


#: Units of a telemetry receipt's facts, by fact key (a key under `latency_ms` is in ms).
TELEMETRY_UNITS = {"successful_requests": "requests", "failed_requests": "requests", "output_tokens": "tokens",
                   "benchmark_duration_s": "s", "engine_generation_tokens_delta": "tokens", "engine_surplus_tokens": "tokens",
                   "client_bucket_peak": "requests", "rate/output_tokens_per_s": "tokens/s", "rate/interval_s": "s"}


def telemetry_receipt(receipt: dict[str, Any], name: str) -> Evidence:
    """
    Return the `Evidence` of a schema-valid telemetry receipt `receipt` (file `name`, the receipt directory's `telemetry-receipt.json`).

    The process receipt's `exit_code` is None for an unreachable host (its
    `dims` say `outcome` and `cause`); a fact whose key has no unit in
    `TELEMETRY_UNITS` is recorded in `unmapped`.
    """
    ev, ex, proto = receipt["evidence"], receipt["execution"], receipt["protocol"]
    files = tuple(FileEntry(item["path"], None, item["sha256"].lower(), (f"{name}#/evidence/{key}",)) for key, item in ev.items())
    process = ProcessReceipt("bench", ex.get("exit_code") if ex["outcome"] == "exited" else None, None,
                             ev["stdout"]["path"], ev["stderr"]["path"] if "stderr" in ev else None,  # stderr is optional
                             Location(name, "/execution"),
                             {"outcome": ex["outcome"], "cause": ex.get("cause", "")})
    claims: list[StatedClaim] = []
    unmapped: list[Unmapped] = []
    stack: list[tuple[str, Any]] = list((receipt.get("facts") or {}).items())
    while stack:
        key, value = stack.pop(0)
        if isinstance(value, dict):
            stack[:0] = [(f"{key}/{k}", v) for k, v in value.items()]
            continue
        if not _number(value):
            continue  # null: not stated
        unit = "ms" if key.startswith("latency_ms/") else TELEMETRY_UNITS.get(key)
        where = Location(name, f"/facts/{key}")
        if unit is None:
            unmapped.append(Unmapped(f"facts/{key}", where, "no unit is known for this fact"))
        claims.append(StatedClaim(key, None if unit is None else Quantity(Decimal(value), unit, str(value)), key, where))
    plan = Plan(arms={}, servers={}, per_server={"measured": proto["num_prompts"]},
                concurrency=proto.get("max_concurrency") if _number(proto.get("max_concurrency")) else None,
                arrival=proto.get("arrival"), location=Location(name, "/protocol"))
    return Evidence(reader="serving-load-telemetry", files=files, plan=plan, processes=(process,), claims=tuple(claims),
                    unmapped=tuple(unmapped))


#: Units of the numbers of a summary.json round (member -> unit); `steady_state/` members as named.
MATRIX_UNITS = {"p50_ms": "ms", "p95_ms": "ms", "wave_seconds": "s", "throughput_rps": "requests/s",
                "steady_state/seconds": "s", "steady_state/throughput_rps": "requests/s", "steady_state/requests": "requests",
                "steady_state/excluded_each_end": "requests", "planned": "requests", "attempted": "requests", "successful": "requests"}


def http_matrix(docs: dict[str, Any], success: str) -> Evidence:
    """
    Return the `Evidence` of a schema-valid frozen HTTP matrix output: `docs` maps each file name to its parsed content.

    `success` is the runner's success outcome word (its profile's
    `success_outcome`). A dimension is the value's JSON text (`1`, `1.0`), so
    a reader of the model can recover the number exactly.
    """
    lines, summary, plan, config = docs["responses.jsonl"], docs["summary.json"], docs["plan.json"], docs["config.json"]
    receipts = tuple(
        Receipt(dims={"phase": x["phase"], "case": x["case"], "concurrency": str(x["concurrency"]), "round": str(x["round"]),
                      "index": str(x["index"]), "outcome": x["outcome"]},
                quantities={"latency": Quantity(Decimal(x["latency_seconds"]), "s"),
                            "dispatched": Quantity(Decimal(x["dispatched_at_monotonic_seconds"]), "s"),
                            "completed": Quantity(Decimal(x["completed_at_monotonic_seconds"]), "s")},
                location=Location("responses.jsonl", f"/{i}"), ok=x["outcome"] == success)
        for i, x in enumerate(lines))
    claims = [StatedClaim(f"denominators/{k}", Quantity(Decimal(v), "requests"), f"{k} requests",
                          Location("summary.json", f"/denominators/{k}")) for k, v in summary["denominators"].items() if _number(v)]
    for i, row in enumerate(summary["rounds"]):
        members = {**row, **{f"steady_state/{k}": v for k, v in (row.get("steady_state") or {}).items()}}
        claims += [StatedClaim(f"rounds/{i}/{k}", Quantity(Decimal(members[k]), unit), f"round {row['case']} {row['concurrency']} "
                               f"{row['round']} {k}", Location("summary.json", f"/rounds/{i}/{k}"))
                   for k, unit in MATRIX_UNITS.items() if _number(members.get(k))]
    budget = Plan(arms={}, servers={}, per_server={"measured": plan["requests_per_case"], "warmup": plan["warmup_per_case"]},
                  timeouts={"request": Quantity(Decimal(plan["timeout_seconds"]), "s")} if _number(plan.get("timeout_seconds")) else {},
                  concurrency=max(plan["concurrency"]), location=Location("plan.json"))
    pinned = FileEntry("plan.json", None, config["plan_sha256"].lower(), ("config.json#/plan_sha256",))
    return Evidence(reader="frozen-http-matrix", files=(pinned,), plan=budget, receipts=receipts, claims=tuple(claims))
