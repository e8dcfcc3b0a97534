"""
Reader for serving-load telemetry receipt directories: one `vllm bench serve`
process run plus before/after Prometheus scrapes of the engine, retained as
the probe reviewed in `shared/seeds/telemetry-receipt-review.txt` keeps them
(contract in `docs/receipts.md`).

Detection: a directory without `manifest.json` holding
`telemetry-receipt.json`. Producer and version come from the receipt's
`producer` and `receipt_version`, matched against the profile in the pinned
`serving-load-telemetry-v1` schema; anything else is UNVERIFIED. Reading the
receipt strictly, its producer version and its pinned schema are the native
`schema.documents` (`checks.schema.receipt_document` over `FILES`, `MATCH`,
`SCHEMAS`: data, no check of this module).

Honesty rules enforced (each a check that can FAIL):
- every carrier (stdout, stderr, both scrapes) exists in the directory with
  the sha256 the receipt records; a derived number replays only from them;
- client facts are read from stdout only, and only when the process exited
  0; a non-zero exit or an unreachable host yields no facts whatever its text
  says, and a receipt stating facts anyway FAILs; stderr is never parsed;
- a stdout without a complete result block (truncated) yields no facts;
- the engine `vllm:generation_tokens_total` delta is parsed with
  `prometheus_client`'s text-format parser; only a `counter` family is read
  (an `untyped` family is UNVERIFIED), a series that went down is a reset
  (UNVERIFIED; stating a delta across it FAILs), a non-whole token delta is
  refused;
- client output tokens above the engine delta are a contradiction (FAIL),
  never "zero foreign work"; a surplus is unattributed engine work in the
  scrape envelope, not observed foreign traffic;
- a declared send-all arrival is not an observed zero stagger, and a missing
  isolation lease is "isolation not established", not "contention observed";
- the checks of `verifier.adapters.telemetry_rules` (engine-peak and causal
  claims refused, protocol echo, dataset and implementation pinning, rate
  interval, boundary occupancy) run after these, and its rule pack
  (`verifier/checks/packs/telemetry.py`, `gate.rules`: arrival, lease and
  traffic-receipt binding, the qualification's prerequisites) last.

Reader and model: after `schema.documents`, `model` reads the receipt onto
the evidence model (`readers.telemetry_receipt`: the bench process as a
process receipt, the carriers as files listed in the receipt with their
sha256, the stated facts as claims with location and unit, the protocol as
the plan); `telemetry.process` judges the process receipt's outcome, and
`telemetry.replay`, `telemetry.engine` and `telemetry.foreign` compare the
model's stated claims with what replays from the carriers.

Why code, not a shipped profile: its facts come from a stdout table (the
`vllm bench serve` result block, parsed line by line) and from Prometheus
text exposition (two scrapes, counter deltas with resets refused), gated
on the process outcome; parsing both is procedural, which the profile
language does not say. So it is code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path, PurePosixPath
from typing import Any


from verifier.adapters import readers
from verifier.derive import claim_finding
from verifier.adapters.telemetry_rules import claims, occupancy, provenance, rate
from verifier.adapters.telemetry_rules import protocol as protocol_echo
from verifier.evidence import Evidence
from verifier.model import Finding, Status, finding
from verifier.pipeline import Context, check

__all__ = ["CHECKS", "FILES", "KIND", "MATCH", "READ", "RECEIPT", "SCHEMAS", "carriers", "detects", "detects_directory", "engine",
           "foreign_work", "model", "parse_bench_stdout", "process", "replay"]

KIND = "serving-load-telemetry"
RECEIPT = "telemetry-receipt.json"
#: What `schema.documents` (`checks.schema.receipt_document`) reads and judges: the receipt, read as strict JSON, how that
#: is said, the words for a producer version the pinned profile does not know (the `match` of its schema's
#: `x-verify-profile`), and its pinned schema.
FILES, READ, MATCH = (RECEIPT,), "{name} read", (RECEIPT, "telemetry receipt")
SCHEMAS = {RECEIPT: "serving-load-telemetry-v1"}
CLIENT_FACTS = ("successful_requests", "failed_requests", "output_tokens", "benchmark_duration_s", "latency_ms")


def detects(document: Any) -> bool:
    """A lone JSON file is never read as a telemetry receipt (its carriers are siblings); always False."""
    return False


def detects_directory(path: Path) -> bool:
    """Return whether directory `path` holds a `telemetry-receipt.json`."""
    return (path / RECEIPT).is_file()


def _r(ctx: Context) -> dict[str, Any]:
    return ctx.data["doc"][RECEIPT]  # type: ignore[no-any-return]


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.data["evidence"]`) the receipt read onto the evidence model (`readers.telemetry_receipt`).

    Call only after `schema.documents` passed: the reader relies on the schema's types.
    """
    if "evidence" not in ctx.data:
        ctx.data["evidence"] = readers.telemetry_receipt(_r(ctx), RECEIPT)
    return ctx.data["evidence"]  # type: ignore[no-any-return]


def _stated(ctx: Context, key: str) -> Decimal | None:
    """Return the fact `key` (e.g. `latency_ms/p99_itl`) as the model's stated claim holds it, or None when not stated."""
    claim = next((c for c in model(ctx).claims if c.id == key), None)
    return None if claim is None or claim.quantity is None else claim.quantity.value


@check("telemetry.carriers", title="Raw stdout, stderr and both scrapes are retained with the recorded sha256",
       requires=("schema.documents",))
def carriers(ctx: Context) -> Iterator[Finding]:
    """
    Hash every evidence file the receipt names.

    FAIL `unsafe-path` (absolute or `..`), `carrier-missing`, `sha256-mismatch`;
    PASS `retained`. Stores the bytes in `ctx.data["carrier"]`.
    """
    root: Path = ctx.options["directory"]
    ctx.data["carrier"] = {}
    for name, item in _r(ctx)["evidence"].items():
        rel = PurePosixPath(item["path"])
        ptr = f"/evidence/{name}"
        if rel.is_absolute() or ".." in rel.parts:
            yield finding("telemetry.carriers", Status.FAIL, "unsafe-path", f"{RECEIPT}: evidence {name} path {item['path']!r} leaves the receipt directory",
                    path=RECEIPT, pointer=f"{ptr}/path")
            continue
        target = root / rel
        if not target.is_file() or target.is_symlink():
            yield finding("telemetry.carriers", Status.FAIL, "carrier-missing",
                    f"{item['path']}: the {name} carrier the receipt records is not retained; facts cannot replay from it",
                    path=item["path"], pointer=ptr)
            continue
        data = target.read_bytes()
        got = hashlib.sha256(data).hexdigest()
        if got != item["sha256"].lower():
            yield finding("telemetry.carriers", Status.FAIL, "sha256-mismatch", f"{item['path']}: sha256 {got} differs from {RECEIPT}#{ptr}/sha256 {item['sha256']}",
                    path=item["path"], pointer=f"{ptr}/sha256", expected=item["sha256"], observed=got)
            continue
        ctx.data["carrier"][name] = data
        yield finding("telemetry.carriers", Status.PASS, "retained", f"{item['path']}: {name} retained, sha256 matches ({len(data)} bytes)",
                path=item["path"], pointer=ptr)


def _stated_client_facts(receipt: dict[str, Any]) -> list[str]:
    facts = receipt.get("facts") or {}
    return [k for k in CLIENT_FACTS if facts.get(k) not in (None, {})]


@check("telemetry.process", title="Client facts exist only for a process that exited 0", requires=("schema.documents",))
def process(ctx: Context) -> Iterator[Finding]:
    """
    Gate every client fact on the process outcome.

    PASS `exited-0`; for a non-zero exit or unreachable host: FAIL
    `facts-from-failed-process` per fact the receipt states anyway, else
    UNVERIFIED `no-facts` (nothing can be read, whatever stdout says).
    """
    receipt = _r(ctx)
    bench = model(ctx).processes[0]
    if bench.dims["outcome"] == "exited" and bench.exit_code == 0:
        yield finding("telemetry.process", Status.PASS, "exited-0", "the bench process exited 0: its stdout may carry facts",
                path=RECEIPT, pointer="/execution")
        return
    what = f"exited {bench.exit_code}" if bench.dims["outcome"] == "exited" else f"was unreachable ({bench.dims['cause']})"
    stated = _stated_client_facts(receipt)
    for key in stated:
        yield finding("telemetry.process", Status.FAIL, "facts-from-failed-process",
                f"{RECEIPT}#/facts/{key} is stated, but the bench process {what}: a failed or unreachable process yields no facts, "
                "whatever its stdout or stderr says", path=RECEIPT, pointer=f"/facts/{key}")
    if not stated:
        yield finding("telemetry.process", Status.UNVERIFIED, "no-facts", f"the bench process {what}: no client facts are read",
                path=RECEIPT, pointer="/execution")


def parse_bench_stdout(text: str, profile: dict[str, Any]) -> tuple[dict[str, Decimal], list[str]]:
    """
    Parse the `vllm bench serve` result block of `text` (stdout only).

    Returns (facts by profile key, problems). The block runs from the
    profile's `open` line to a line starting with `close_prefix`; a block
    that never closes, or lacks a `required_labels` row, is truncated and
    yields no facts. Values are `Decimal` as printed (2 decimals for floats).
    """
    block = profile["stdout_block"]
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if block["open"] in line), None)
    if start is None:
        return {}, ["no result block"]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(block["close_prefix"])), None)
    if end is None:
        return {}, ["the result block never closes (truncated)"]
    out: dict[str, Decimal] = {}
    for line in lines[start + 1:end]:
        for label, key in profile["stdout_labels"].items():
            if line.startswith(label):
                try:
                    out[key] = Decimal(line[len(label):].strip())
                except InvalidOperation:
                    return {}, [f"{label} has no number"]
    missing = [label for label in profile["required_labels"] if profile["stdout_labels"][label] not in out]
    if missing:
        return {}, [f"missing {', '.join(missing)}"]
    return out, []


@check("telemetry.replay", title="Every client fact replays from the retained stdout", requires=("telemetry.carriers", "telemetry.process"))
def replay(ctx: Context) -> Iterator[Finding]:
    """
    Re-read the client facts from the retained stdout (never stderr).

    FAIL `stdout-truncated` when stdout has no complete result block, FAIL
    `claim-mismatch` per fact that does not equal the printed value (at its
    printed precision), FAIL `denominator-mismatch` when successful + failed
    differs from the protocol's num_prompts; UNVERIFIED `not-stated` /
    `not-in-stdout`. Stores the parsed facts in `ctx.data["client"]`.
    """
    receipt, profile = _r(ctx), ctx.data["profile"]
    stdout_path = receipt["evidence"]["stdout"]["path"]
    text = ctx.data["carrier"]["stdout"].decode("utf-8", errors="replace")
    parsed, problems = parse_bench_stdout(text, profile)
    if problems:
        yield finding("telemetry.replay", Status.FAIL, "stdout-truncated",
                f"{stdout_path}: {'; '.join(problems)}: no client fact can replay from the retained stdout", path=stdout_path)
        return
    ctx.data["client"] = parsed
    for key, value in parsed.items():
        claimed = _stated(ctx, key)
        if claimed is None:
            yield finding("telemetry.replay", Status.UNVERIFIED, "not-stated", f"{RECEIPT}#/facts/{key}: not stated (stdout prints {value})",
                    path=RECEIPT, pointer=f"/facts/{key}")
            continue
        yield claim_finding("telemetry.replay", claimed, value, name=RECEIPT, pointer=f"/facts/{key}", label=f"facts/{key}",
                            how=f"{stdout_path} prints {value}", source=value)
    for key, value in ((receipt.get("facts") or {}).get("latency_ms") or {}).items():
        if f"latency_ms/{key}" not in parsed:
            yield finding("telemetry.replay", Status.UNVERIFIED, "not-in-stdout", f"{RECEIPT}#/facts/latency_ms/{key} = {value}: stdout prints no such row",
                    path=RECEIPT, pointer=f"/facts/latency_ms/{key}")
    n = receipt["protocol"]["num_prompts"]
    total = parsed["successful_requests"] + parsed["failed_requests"]
    ok = total == n
    yield finding("telemetry.replay", Status.PASS if ok else Status.FAIL, "derived" if ok else "denominator-mismatch",
            f"successful + failed = {parsed['successful_requests']} + {parsed['failed_requests']} = {total}; protocol num_prompts = {n}"
            + ("" if ok else ": offered requests are missing from the ledger"), path=stdout_path, expected=n, observed=str(total))


def _counter(data: bytes, name: str, family: str) -> tuple[dict[frozenset[tuple[str, str]], Decimal] | None, str | None]:
    try:
        from prometheus_client.parser import text_string_to_metric_families  # on first use: a heavy import

        families = list(text_string_to_metric_families(data.decode("utf-8")))
    except (ValueError, UnicodeDecodeError, IndexError) as exc:
        return None, f"{name}: not Prometheus text exposition: {exc}"
    for fam in families:
        if fam.name in (family, f"{family}_total"):
            if fam.type != "counter":
                kind = "untyped" if fam.type == "unknown" else fam.type
                return None, f"{name}: family {fam.name} is {kind}, not counter: monotonicity unknown, no delta is read"
            return {frozenset(s.labels.items()): Decimal(repr(s.value)) for s in fam.samples if s.name == f"{family}_total"}, None
    return None, f"{name}: no {family}_total family"


@check("telemetry.engine", title="The engine generation_tokens_total delta replays from both scrapes (counter only, resets refused)",
       requires=("telemetry.carriers",))
def engine(ctx: Context) -> Iterator[Finding]:
    """
    Derive after - before of `vllm:generation_tokens_total`, summed over series.

    FAIL `scrape-unparseable`; UNVERIFIED `untyped-family` / `metric-absent`
    (no delta is derived, so a stated delta does not replay); UNVERIFIED
    `counter-reset` for a series that went down or
    appeared (FAIL `reset-as-delta` when a delta is stated); UNVERIFIED
    `not-whole-tokens`; PASS/FAIL the stated delta. Stores `ctx.data["engine_delta"]`.
    """
    receipt, profile = _r(ctx), ctx.data["profile"]
    family = profile["engine_counter"]
    ev = receipt["evidence"]
    stated = _stated(ctx, "engine_generation_tokens_delta")
    series = {}
    for which in ("metrics_before", "metrics_after"):
        values, problem = _counter(ctx.data["carrier"][which], ev[which]["path"], family)
        if problem is not None:
            unparseable = "not Prometheus" in problem
            yield finding("telemetry.engine", Status.FAIL if unparseable else Status.UNVERIFIED,
                    "scrape-unparseable" if unparseable else ("untyped-family" if "untyped" in problem else "metric-absent"),
                    problem + ("" if stated is None else f"; {RECEIPT}#/facts/engine_generation_tokens_delta = {stated} does not replay"),
                    path=ev[which]["path"])
            return
        series[which] = values
    before, after = series["metrics_before"], series["metrics_after"]
    resets = [dict(k) for k in after if k not in before or after[k] < before[k]]
    if resets or not after:
        status = Status.FAIL if stated is not None else Status.UNVERIFIED
        yield finding("telemetry.engine", status, "reset-as-delta" if stated is not None else "counter-reset",
                f"{ev['metrics_after']['path']}: {family}_total went down or appeared for {resets}: a reset (new incarnation), "
                "not a negative delta; no delta is derived" + (f", yet the receipt states {stated}" if stated is not None else ""),
                path=ev["metrics_after"]["path"], observed=resets)
        return
    delta = sum((after[k] - before.get(k, Decimal(0)) for k in after), Decimal(0))
    if delta != delta.to_integral_value():
        yield finding("telemetry.engine", Status.UNVERIFIED, "not-whole-tokens", f"{family}_total delta {delta} is not a whole token count",
                path=ev["metrics_after"]["path"], observed=str(delta))
        return
    ctx.data["engine_delta"] = delta
    how = f"sum over series of {ev['metrics_after']['path']} - {ev['metrics_before']['path']} for {family}_total"
    if stated is None:
        yield finding("telemetry.engine", Status.PASS, "derived", f"engine delta {delta} tokens ({how}); not stated in the receipt",
                path=ev["metrics_after"]["path"], observed=str(delta))
        return
    yield claim_finding("telemetry.engine", stated, delta, name=RECEIPT, pointer="/facts/engine_generation_tokens_delta",
                        label="facts/engine_generation_tokens_delta", how=how, exact=True)


@check("telemetry.foreign", title="Client tokens above the engine delta are a contradiction, a surplus is not observed foreign traffic",
       requires=("telemetry.replay", "telemetry.engine"))
def foreign_work(ctx: Context) -> Iterator[Finding]:
    """
    Compare the client's output tokens (stdout) with the engine delta (scrapes).

    FAIL `client-exceeds-engine` when client > engine (an interval or
    identity mismatch, never "zero foreign work"); else PASS/FAIL the stated
    `engine_surplus_tokens` = engine - client, described as unattributed
    engine work in the scrape envelope.
    """
    receipt = _r(ctx)
    client, eng = ctx.data["client"]["output_tokens"], ctx.data["engine_delta"]
    stated = _stated(ctx, "engine_surplus_tokens")
    if client > eng:
        yield finding("telemetry.foreign", Status.FAIL, "client-exceeds-engine",
                f"client output tokens {client} exceed the engine generation_tokens_total delta {eng}: a contradiction "
                f"(interval or engine identity mismatch), not zero foreign work" + (f"; the receipt states surplus {stated}" if stated is not None else ""),
                path=RECEIPT, pointer="/facts/engine_surplus_tokens", observed={"client": str(client), "engine": str(eng)})
        return
    surplus = eng - client
    how = f"engine delta {eng} - client output tokens {client}: unattributed engine work inside the scrape envelope, not observed foreign traffic"
    if stated is None:
        yield finding("telemetry.foreign", Status.PASS, "derived", f"surplus {surplus} tokens ({how})", path=RECEIPT, observed=str(surplus))
        return
    yield claim_finding("telemetry.foreign", stated, surplus, name=RECEIPT, pointer="/facts/engine_surplus_tokens",
                        label="facts/engine_surplus_tokens", how=how, exact=True)


#: What this reader supplies of the evidence model (`verifier.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"files", "plan", "processes", "claims"})  # files: the carriers the receipt lists with their sha256
NOTES = {"integrity": "the receipt directory has no manifest; only the carriers the receipt lists are hashed, once it validated "
                      "(telemetry.carriers)",
         "gate": "the receipt names no gate; the pinned schema of its receipt version judges it (schema.documents)",
         "coverage": "a telemetry receipt retains text carriers, no output media",
         "unchanged": "each carrier is read once (telemetry.carriers) and every check reads those bytes"}

#: This reader's own checks: plan (carriers, process outcome, protocol echo, provenance, occupancy), derivation (replay,
#: engine delta, foreign work, refused claims, rate); `verifier.core.receipt_pipeline` adds `schema.documents` (strict JSON,
#: producer, schema), the rule pack (`checks/packs/telemetry.py`, `gate.rules`: last, it reads what
#: every check before it established) and the stand-ins, in roster order.
CHECKS = (carriers, process, protocol_echo, provenance, occupancy, replay, engine, foreign_work, claims, rate)
