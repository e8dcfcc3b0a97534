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
`schema.documents` (`checks.schema.documents` over `FILES`, `MATCH`,
`SCHEMAS`: data, no check of this module).

Honesty rules enforced (each a check that can FAIL; this module registers
no check: the producer's checks, `telemetry.*`, and its rules are the rule
pack `verifier/checks/packs/telemetry.py`, issue 36):
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
- the pack's checks (carriers, process outcome, protocol echo, dataset and
  implementation pinning, boundary occupancy) run in the plan family, this
  reader's rows (engine-peak and causal claims refused: `refused`; the rate
  and its interval: `rate`) in `stated`, and the pack's rules (`gate.rules`:
  arrival, lease and traffic-receipt binding, the qualification's
  prerequisites) last.

Reader and model: after `schema.documents`, `model` reads the receipt onto
the evidence model (`readers.telemetry_receipt`: the bench process as a
process receipt, the carriers as files listed in the receipt with their
sha256, the stated facts as claims with location and unit, the protocol as
the plan); the pack's `telemetry.process` judges the process receipt's outcome, and
`stated` gives `derivation.claims` (`checks.derivation.claims`)
each of the model's stated claims with the rule deriving it from what
replays from the carriers (`Replayed`; before 7 Dec 2026 the checks
`telemetry.replay`, `telemetry.engine`, `telemetry.foreign`,
`telemetry.claims` and `telemetry.rate`).

Why code, not a shipped profile: its facts come from a stdout table (the
`vllm bench serve` result block, parsed line by line) and from Prometheus
text exposition (two scrapes, counter deltas with resets refused), gated
on the process outcome; parsing both is procedural, which the profile
language does not say. So it is code.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any


from verifier.engine import stats
from verifier.adapters import readers
from verifier.engine.derive import Refused, Source, Stated, derive_rule
from verifier.model.evidence import Evidence
from verifier.model.findings import Status
from verifier.engine.pipeline import Context
from verifier.engine.stats import Underivable

__all__ = ["ENGINE_FACTS", "FILES", "KIND", "MATCH", "NOUN", "RATE", "READ", "RECEIPT", "SCHEMAS", "SURPLUS", "Replayed", "detects",
           "detects_directory", "model", "parse_bench_stdout", "rate", "refused", "stated"]

KIND = "serving-load-telemetry"
RECEIPT = "telemetry-receipt.json"
#: What `schema.documents` (`checks.schema.documents`) reads and judges: the receipt, read as strict JSON, how that
#: is said, the words for a producer version the pinned profile does not know (the `match` of its schema's
#: `x-verify-profile`), and its pinned schema.
FILES, READ, MATCH = (RECEIPT,), "{name} read", (RECEIPT, "telemetry receipt")
SCHEMAS = {RECEIPT: "serving-load-telemetry-v1"}
#: How `derivation.claims` names what its numbers replay from.
NOUN = "the carriers"
#: The facts the scrapes carry whatever the bench process did; every other `facts` key is the process's (stdout's, or derived
#: from it: the rate, the bucket peak, the surplus over the client's tokens, the refused engine-peak facts).
ENGINE_FACTS = ("engine_generation_tokens_delta",)


def detects(document: Any) -> bool:
    """A lone JSON file is never read as a telemetry receipt (its carriers are siblings); always False."""
    return False


def detects_directory(path: Path) -> bool:
    """Return whether directory `path` holds a `telemetry-receipt.json`."""
    return (path / RECEIPT).is_file()


def _r(ctx: Context) -> dict[str, Any]:
    return ctx.run.doc[RECEIPT]  # type: ignore[no-any-return]


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.run.evidence`) the receipt read onto the evidence model (`readers.telemetry_receipt`).

    Call only after `schema.documents` passed: the reader relies on the schema's types.
    """
    if ctx.run.evidence is None:
        ctx.run.evidence = readers.telemetry_receipt(_r(ctx), RECEIPT)
    return ctx.run.evidence  # type: ignore[no-any-return]


def _stated(ctx: Context, key: str) -> Decimal | None:
    """Return the fact `key` (e.g. `latency_ms/p99_itl`) as the model's stated claim holds it, or None when not stated."""
    claim = next((c for c in model(ctx).claims if c.id == key), None)
    return None if claim is None or claim.quantity is None else claim.quantity.value


def parse_bench_stdout(text: str, profile: dict[str, Any]) -> tuple[dict[str, Decimal], list[str], bool]:
    """
    Parse the `vllm bench serve` result block of `text` (stdout only).

    Returns (facts by profile key, problems, ambiguous). A block runs from the
    profile's `open` line to a line starting with `close_prefix`; a block
    that never closes, or lacks a `required_labels` row, is truncated and
    yields no facts. Values are `Decimal` as printed (2 decimals for floats).
    A stdout that prints two or more blocks whose facts differ yields no facts
    and `ambiguous` True (which block is the run's result cannot be told); the
    same block printed again is read once.
    """
    block = profile["stdout_block"]
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if block["open"] in line]
    if not starts:
        return {}, ["no result block"], False
    read: list[dict[str, Decimal]] = []
    for start in starts:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(block["close_prefix"])), None)
        if end is None:
            return {}, [f"the result block at line {start + 1} never closes (truncated)"], False
        out: dict[str, Decimal] = {}
        for line in lines[start + 1:end]:
            for label, key in profile["stdout_labels"].items():
                if line.startswith(label):
                    try:
                        out[key] = Decimal(line[len(label):].strip())
                    except InvalidOperation:
                        return {}, [f"{label} has no number"], False
        missing = [label for label in profile["required_labels"] if profile["stdout_labels"][label] not in out]
        if missing:
            return {}, [f"no {', '.join(repr(label.rstrip(': ')) for label in missing)} row"], False
        read.append(out)
    if any(facts != read[0] for facts in read[1:]):
        return {}, [f"{len(starts)} result blocks that differ (at lines {', '.join(str(i + 1) for i in starts)}): which is the run's "
                    "result cannot be told"], True
    return read[0], [], False


class Replayed:
    """
    What replays from the carriers, as a `verifier.engine.derive.Source` (`stated`): the client facts stdout prints and the engine counter.

    `values` gives a client fact's one printed value (`name`: its `facts`
    key, e.g. `latency_ms/p99_itl`) or, for `engine_delta`, the counter's
    increment per series; `sums` the printed facts `numerator` names and the
    printed `denominator`; `arms` the engine delta (`engine`) and the client's
    output tokens (`client`), one value each. `count` gives the offered
    requests (the protocol's `num_prompts`); servers: `Underivable`.
    """

    __slots__ = ("basis", "client", "increments", "offered")

    def __init__(self, client: dict[str, Decimal], increments: list[Decimal], offered: int) -> None:
        self.basis, self.client, self.increments, self.offered = client, client, increments, offered

    def label(self, selection: dict[str, Any]) -> str:
        """The carriers select nothing: the empty label."""
        return ""

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[int], str]:
        """The offered requests (`protocol.num_prompts`)."""
        return list(range(self.offered)), "offered requests"

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """The printed value of client fact `name`, or the engine counter's increment per series (`engine_delta`)."""
        return (self.increments, "series increments") if name == "engine_delta" else ([self.client[name]], "printed value")

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """The carriers name no servers: raises `Underivable`."""
        raise Underivable("a telemetry receipt names no servers", "empty-selection")

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """The engine delta (`engine`) and the client's output tokens (`client`)."""
        delta = stats.derive("sum", self.increments).value
        return {"engine": {"": [delta]}, "client": {"": [self.client["output_tokens"]]}}, "engine delta and client output tokens"

    def sums(self, selection: dict[str, Any], numerator: Any, denominator: str) -> tuple[list[list[Decimal]], str]:
        """The printed facts `numerator` names, and the printed `denominator`."""
        return [[self.client[k] for k in numerator], [self.client[denominator]]], "printed facts"


def refused(ctx: Context) -> list[Stated]:
    """
    Return the rows (`derive.Stated`, `derivation.claims`) refusing facts and conclusions the client evidence cannot carry.

    FAIL `bucket-peak-as-engine-concurrency` per `facts` key of the profile's
    `refused_facts` that is stated (not null; its value the finding's
    observed); FAIL `causal-conclusion` per
    `conclusions` key of `refused_conclusions` whose value is not null or an
    `unestablished` word (PASS `cause-unestablished` when it is); UNVERIFIED
    `conclusion-not-checked` for any other conclusion (a stated conclusion's
    text is its finding's observed, the claims table's claimed); PASS
    `no-unsupported-claims` when none is stated.
    """
    receipt, profile = _r(ctx), ctx.run.profile
    facts, said = receipt.get("facts") or {}, receipt.get("conclusions") or {}

    def row(pointer: str | None, status: Status, code: str, message: str, claimed: Any = None) -> Stated:
        return Stated(pointer or "claims", claimed, pointer, None, path=RECEIPT, refused=Refused(status, code, message))

    out = [row(f"/facts/{key}", Status.FAIL, "bucket-peak-as-engine-concurrency", f"{RECEIPT}#/facts/{key} = {facts[key]!r}: {why}", facts[key])
           for key, why in profile["refused_facts"].items() if facts.get(key) is not None]
    for key, value in said.items():
        why, pointer = profile["refused_conclusions"].get(key), f"/conclusions/{key}"
        if why is None:
            out.append(row(pointer, Status.UNVERIFIED, "conclusion-not-checked", f"{RECEIPT}#{pointer} = {value!r}: no rule of this reader establishes it",
                           value))
        elif value is None or value in profile["unestablished"]:
            out.append(row(pointer, Status.PASS, "cause-unestablished", f"{RECEIPT}#{pointer}: left unestablished ({why})"))
        else:
            out.append(row(pointer, Status.FAIL, "causal-conclusion",
                           f"{RECEIPT}#{pointer} = {value!r} is a causal or policy conclusion the telemetry cannot support: {why}", value))
    return out or [row(None, Status.PASS, "no-unsupported-claims", "no engine-concurrency, foreign-work or causal conclusion is stated")]


#: The client rate: the printed output tokens over the printed benchmark duration.
RATE = {"statistic": "ratio_of_sums", "numerator": ("output_tokens",), "denominator": "benchmark_duration_s"}


def rate(ctx: Context, source: Source, unread: str | None = None) -> list[Stated]:
    """
    Return the row (`derive.Stated`, `derivation.claims`) of `facts.rate` = {output_tokens_per_s, interval_s} over the printed facts `source` gives.

    `unread` says why the printed facts did not replay (None: they did).
    FAIL `rate-from-zero-duration` when the interval or the printed
    benchmark duration is 0 (the stated rate its observed); UNVERIFIED
    `not-replayed` naming `unread`; FAIL `authored-interval` when `interval_s` is
    not stdout's `Benchmark duration (s)` at its printed precision (a scrape
    envelope or a convenient second is not the client service interval);
    else the rate is output_tokens / duration (`RATE`, the duration's print
    half-unit as input error: PASS `derived` / FAIL `claim-mismatch`). PASS
    `no-rate-stated` without a rate.
    """
    receipt = _r(ctx)
    stated = (receipt.get("facts") or {}).get("rate")

    def refuse(status: Status, code: str, message: str, pointer: str | None, claimed: Decimal | None = None, **kw: Any) -> list[Stated]:
        return [Stated("facts/rate", claimed, pointer, None, path=RECEIPT, refused=Refused(status, code, message, **kw))]

    if stated is None:
        return refuse(Status.PASS, "no-rate-stated", "no client rate is stated", None)
    claimed, interval = Decimal(stated["output_tokens_per_s"]), Decimal(stated["interval_s"])
    if unread is None:
        (tokens,), (duration,) = source.sums({}, RATE["numerator"], RATE["denominator"])[0]
    if interval == 0 or unread is None and duration == 0:
        return refuse(Status.FAIL, "rate-from-zero-duration", f"{RECEIPT}#/facts/rate = {claimed} tokens/s over interval {interval} s "
                      f"(stdout duration {'unread' if unread else f'{duration} s'}): a zero duration yields no rate", "/facts/rate", claimed)
    if unread is not None:
        return refuse(Status.UNVERIFIED, "not-replayed", f"{RECEIPT}#/facts/rate/output_tokens_per_s = {claimed}: not derived (output tokens / "
                      f"benchmark duration): {unread}", "/facts/rate/output_tokens_per_s", claimed)
    if not stats.compare(duration, interval).holds:  # the interval is the duration as stdout prints it, at its printed place
        return refuse(Status.FAIL, "authored-interval",
                      f"{RECEIPT}#/facts/rate/interval_s = {interval} s is not the benchmark's own duration {duration} s printed in "
                      f"{receipt['evidence']['stdout']['path']}: a rate over an authored interval (or the scrape envelope) is not the client rate",
                      "/facts/rate/interval_s", expected=str(duration), observed=str(interval))
    return [Stated("facts/rate/output_tokens_per_s", claimed, "/facts/rate/output_tokens_per_s", RATE, source,
                   path=RECEIPT, how=f"output tokens {tokens} / benchmark duration {duration} s", input_error=stats.half_unit(duration))]



def _blocked(what: str, blockers: list[str]) -> Stated:
    """The row of what a failed plan check leaves unreplayed (`what`: "the client facts"), UNVERIFIED `blocked-by` naming the checks."""
    return Stated("blocked", None, None, None, path=None, refused=Refused(
        Status.UNVERIFIED, "blocked-by", f"{what} {'are' if what.endswith('s') else 'is'} not replayed: {', '.join(blockers)} did not pass",
        observed=blockers))


def stated(ctx: Context) -> list[Stated]:
    """
    Return every number the receipt states with the rule deriving it from the carriers (`derivation.claims`), or the finding refusing it.

    Runs after the plan family: a carrier `telemetry.carriers` did not retain
    or a process `telemetry.process` did not pass leaves the client facts
    unread, and a missing carrier the engine delta, each one UNVERIFIED
    `blocked-by` naming them. A refused row's observed is the number the
    receipt states there (`checks.derivation`), what the carriers show its
    expected. In order:

    - client facts (`_client`): stdout only; FAIL `stdout-truncated` without
      a complete result block; each printed fact the stated one at its
      printed precision (`claim-mismatch`; UNVERIFIED `not-stated`,
      `not-in-stdout` for a latency row stdout does not print); successful +
      failed the protocol's num_prompts (FAIL `denominator-mismatch`);
    - the engine `generation_tokens_total` delta (`_engine`): the sum of the
      per-series increments between the scrapes, exactly; FAIL
      `scrape-unparseable`, UNVERIFIED `untyped-family`, `metric-absent`,
      `counter-reset` (FAIL `reset-as-delta` when a delta is stated),
      `not-whole-tokens`; PASS `derived` when not stated;
    - the engine surplus (`_surplus`), with both read: FAIL
      `client-exceeds-engine` when the client counted more tokens than the
      engine, else engine - client exactly (PASS `derived` when not stated);
      stated while either did not replay: UNVERIFIED `not-replayed` naming why;
    - refused facts and conclusions (`refused`);
    - the client rate (`rate`; UNVERIFIED `not-replayed` when
      stated while the client facts did not replay);
    - a number stated under a `facts` key the schema does not define
      (`_foreign`): UNVERIFIED `not-a-producer-field`.

    A derived number the receipt does not state (PASS `derived`) is its
    finding's expected, never its observed: no claim.

    Stores the printed facts in `ctx.run.facts.client` and the delta in
    `ctx.run.facts.engine_delta` (the rule pack reads them).
    """
    receipt = _r(ctx)
    carriers_ok = set(ctx.run.facts.carrier) >= set(receipt["evidence"])
    bench = model(ctx).processes[0]
    process_ok = bench.dims["outcome"] == "exited" and bench.exit_code == 0
    client_blockers = [name for name, ok in (("telemetry.carriers", carriers_ok), ("telemetry.process", process_ok)) if not ok]
    if client_blockers:
        out, client_why = [_blocked("the client facts", client_blockers)], f"the client facts did not replay ({', '.join(client_blockers)} did not pass)"
    else:
        out, client_why = _client(ctx)
    if not carriers_ok:
        if client_blockers != ["telemetry.carriers"]:
            out.append(_blocked("the engine delta", ["telemetry.carriers"]))
        increments, engine_why = None, "the engine delta did not replay (telemetry.carriers did not pass)"
    else:
        rows, increments, engine_why = _engine(ctx)
        out += rows
    client = ctx.run.facts.client
    source = Replayed(client or {}, increments or [], receipt["protocol"]["num_prompts"])
    out += _surplus(ctx, source, [why for why in (client_why, engine_why) if why is not None])
    out += refused(ctx)
    out += rate(ctx, source, client_why)
    return out + _foreign(ctx)


def _foreign(ctx: Context) -> list[Stated]:
    """
    The rows of the numbers `facts` states under a key the pinned schema does not define and the profile does not refuse
    (`stated`): UNVERIFIED `not-a-producer-field` each, by key (no rule derives them; never skipped).
    """
    facts, profile = _r(ctx).get("facts") or {}, ctx.run.profile
    known = set(ctx.assets.schema(SCHEMAS[RECEIPT])["properties"]["facts"]["properties"]) | set(profile["refused_facts"])
    out = []
    for claim in sorted(model(ctx).claims, key=lambda c: c.id):
        if claim.id.split("/")[0] in known:
            continue
        value: Any = facts
        for part in claim.id.split("/"):  # the model's id joins the keys with "/"
            value = value.get(part) if isinstance(value, dict) else None
        out.append(Stated(f"facts/{claim.id}", value, claim.location.pointer, None, path=RECEIPT, refused=Refused(
            Status.UNVERIFIED, "not-a-producer-field", f"{RECEIPT}#{claim.location.pointer} = {value}: not a fact {profile['producer']} "
            "writes; no derivation known")))
    return out


def _client(ctx: Context) -> tuple[list[Stated], str | None]:
    """The client facts' rows (`stated`) and why they did not replay (None: they did); stores the printed facts in `ctx.run.facts.client`."""
    receipt, profile = _r(ctx), ctx.run.profile
    stdout_path = receipt["evidence"]["stdout"]["path"]
    text = ctx.run.facts.carrier["stdout"].decode("utf-8", errors="replace")
    parsed, problems, ambiguous = parse_bench_stdout(text, profile)
    if problems:
        why = f"{stdout_path}: {'; '.join(problems)}"
        status, code = (Status.UNVERIFIED, "stdout-ambiguous") if ambiguous else (Status.FAIL, "stdout-truncated")
        return [Stated("stdout", None, None, None, path=stdout_path, refused=Refused(
            status, code, f"{why}: no client fact can replay from the retained stdout"))], f"the client facts did not replay ({why})"
    ctx.run.facts.client = parsed
    n = receipt["protocol"]["num_prompts"]
    source = Replayed(parsed, [], n)
    out = []
    for key, value in parsed.items():
        claimed = _stated(ctx, key)
        out.append(Stated(f"facts/{key}", claimed, f"/facts/{key}", {"statistic": "first", "value": key}, source, path=RECEIPT,
                          how=f"{stdout_path} prints {value}", bound={"source": value}, refused=None if claimed is not None else Refused(
                              Status.UNVERIFIED, "not-stated", f"{RECEIPT}#/facts/{key}: not stated (stdout prints {value})")))
    for key, value in ((receipt.get("facts") or {}).get("latency_ms") or {}).items():
        if f"latency_ms/{key}" not in parsed:
            out.append(Stated(f"facts/latency_ms/{key}", value, f"/facts/latency_ms/{key}", None, path=RECEIPT, refused=Refused(
                Status.UNVERIFIED, "not-in-stdout", f"{RECEIPT}#/facts/latency_ms/{key} = {value}: stdout prints no such row")))
    total = parsed["successful_requests"] + parsed["failed_requests"]
    said = f"successful + failed = {parsed['successful_requests']} + {parsed['failed_requests']} = {{claimed}}; protocol num_prompts = {{derived}}"
    out.append(Stated("successful + failed", str(total), None, {"statistic": "count"}, source, mismatch="denominator-mismatch",
                      path=stdout_path, words=(said, said + ": offered requests are missing from the ledger")))
    return out, None


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


def _engine(ctx: Context) -> tuple[list[Stated], list[Decimal] | None, str | None]:
    """
    The engine delta's row (`stated`), the counter's per-series increments and why they did not replay (increments None, a reason;
    or the increments, None); stores their sum in `ctx.run.facts.engine_delta`.
    """
    receipt, profile = _r(ctx), ctx.run.profile
    family = profile["engine_counter"]
    ev = receipt["evidence"]
    claimed = _stated(ctx, "engine_generation_tokens_delta")
    pointer, series = "/facts/engine_generation_tokens_delta", {}

    def refuse(status: Status, code: str, message: str, path: str, expected: Any = None) -> list[Stated]:
        return [Stated("facts/engine_generation_tokens_delta", claimed, None, None, path=path, refused=Refused(status, code, message, expected=expected))]

    for which in ("metrics_before", "metrics_after"):
        values, problem = _counter(ctx.run.facts.carrier[which], ev[which]["path"], family)
        if problem is not None:
            unparseable = "not Prometheus" in problem
            return refuse(Status.FAIL if unparseable else Status.UNVERIFIED,
                          "scrape-unparseable" if unparseable else ("untyped-family" if "untyped" in problem else "metric-absent"),
                          problem + ("" if claimed is None else f"; {RECEIPT}#{pointer} = {claimed} does not replay"),
                          ev[which]["path"]), None, f"the engine delta did not replay ({problem})"
        series[which] = values
    before, after = series["metrics_before"], series["metrics_after"]
    after_path = ev["metrics_after"]["path"]
    resets = [dict(sorted(k)) for k in after if k not in before or after[k] < before[k]]  # labels sorted: one message whatever the hash seed
    if resets or not after:
        return refuse(Status.FAIL if claimed is not None else Status.UNVERIFIED, "reset-as-delta" if claimed is not None else "counter-reset",
                      f"{after_path}: {family}_total went down or appeared for {resets}: a reset (new incarnation), "
                      "not a negative delta; no delta is derived" + (f", yet the receipt states {claimed}" if claimed is not None else ""),
                      after_path, resets), None, f"the engine delta did not replay ({after_path}: {family}_total reset)"
    increments = [after[k] - before[k] for k in after]  # each series' counter increment (reading; the sum is the engine's)
    delta = stats.derive("sum", increments).value
    if delta != delta.to_integral_value():  # refused, so no derived value: the delta is in the message only
        why = f"{family}_total delta {delta} is not a whole token count"
        return refuse(Status.UNVERIFIED, "not-whole-tokens", why, after_path), None, f"the engine delta did not replay ({why})"
    ctx.run.facts.engine_delta = delta
    how = f"sum over series of {after_path} - {ev['metrics_before']['path']} for {family}_total"
    if claimed is None:
        return refuse(Status.PASS, "derived", f"engine delta {delta} tokens ({how}); not stated in the receipt", after_path, str(delta)), increments, None
    return [Stated("facts/engine_generation_tokens_delta", claimed, pointer, {"statistic": "sum", "value": "engine_delta"},
                   Replayed({}, increments, 0), path=RECEIPT, how=how, bound={"exact": True})], increments, None


#: The surplus: the engine delta minus the client's output tokens (`stats.derive`'s `difference`, baseline - candidate).
SURPLUS = {"statistic": "difference", "baseline": "engine", "candidate": "client"}


def _surplus(ctx: Context, source: Replayed, unread: list[str]) -> list[Stated]:
    """
    The engine surplus row (`stated`): client tokens above the engine delta are a contradiction, never zero foreign work.

    `unread` says why the client facts or the engine delta did not replay (empty: both did); then a stated surplus is
    UNVERIFIED `not-replayed` naming them, and none stated is no row.
    """
    claimed, pointer = _stated(ctx, "engine_surplus_tokens"), "/facts/engine_surplus_tokens"
    if unread:
        return [] if claimed is None else [Stated("facts/engine_surplus_tokens", claimed, pointer, None, path=RECEIPT, refused=Refused(
            Status.UNVERIFIED, "not-replayed", f"{RECEIPT}#{pointer} = {claimed}: not derived (engine delta - client output tokens): "
            + "; ".join(unread)))]
    client, eng = source.client["output_tokens"], ctx.run.facts.engine_delta
    if client > eng:
        return [Stated("facts/engine_surplus_tokens", claimed, pointer, None, path=RECEIPT, refused=Refused(
            Status.FAIL, "client-exceeds-engine", f"client output tokens {client} exceed the engine generation_tokens_total delta {eng}: a "
            "contradiction (interval or engine identity mismatch), not zero foreign work" + (f"; the receipt states surplus {claimed}"
                                                                                            if claimed is not None else ""),
            expected={"client": str(client), "engine": str(eng)}))]
    surplus = derive_rule(SURPLUS, source, {}).value
    how = f"engine delta {eng} - client output tokens {client} (unattributed engine work inside the scrape envelope, not observed foreign traffic)"
    if claimed is None:
        return [Stated("facts/engine_surplus_tokens", None, None, None, path=RECEIPT, refused=Refused(
            Status.PASS, "derived", f"surplus {surplus} tokens ({how})", expected=str(surplus)))]
    return [Stated("facts/engine_surplus_tokens", claimed, pointer, SURPLUS, source, path=RECEIPT, how=how, bound={"exact": True})]


#: What this reader supplies of the evidence model (`verifier.model.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"files", "plan", "processes", "claims"})  # files: the carriers the receipt lists with their sha256
NOTES = {"integrity": "the receipt directory has no manifest; only the carriers the receipt lists are hashed, once it validated "
                      "(telemetry.carriers)",
         "gate": "the receipt names no gate; the pinned schema of its receipt version judges it (schema.documents)",
         "coverage": "a telemetry receipt retains text carriers, no output media",
         "unchanged": "each carrier is read once (telemetry.carriers) and every check reads those bytes"}

