"""
Reader for frozen HTTP matrix output directories (system1-omni
`benchmarks/serving_matrix.py`, contract from the review in
`shared/seeds/frozen-http-matrix-review.txt`; described in `docs/receipts.md`).

Detection: a directory without `manifest.json` holding `plan.json`,
`config.json`, `responses.jsonl` and `summary.json`. The producer and version
come from `config.json` (`runner`, `output_version`) matched against the
profile in the pinned `frozen-http-matrix-config-v1` schema; another runner or
version is UNVERIFIED (`unknown-producer-version`). Reading the four files
strictly, the runner version and their pinned schemas are the native
`schema.documents` (`checks.schema.documents` over `FILES`, `MATCH`,
`SCHEMAS`: data, no check of this module).

What re-derives from the retained files (the first four by the producer's
checks in its rule pack, `verifier/checks/packs/http_matrix.py`; the rest
by `derivation.claims` over `stated`):
- sha256(plan.json bytes) = `config.plan_sha256` (the runner's bytes are not
  retained, so `runner_sha256` is recorded, not checked: UNVERIFIED);
- the eleven provenance fields of `plan.metadata` are present and non-blank;
- planned (from the plan), attempted and successful counts (from the measured
  lines of responses.jsonl) per round and in total, kept separate; a round that
  never ran keeps its planned count;
- after the first failure no request is dispatched (in-flight work may drain),
  and the summary says the run stopped and is incomplete;
- per complete round, p50/p95 nearest-rank over successful latencies in ms
  (rank ceil(q/100 n); p95 is the maximum when n < 20);
- round throughput = successful / (last completion - first dispatch), which
  must be labelled `complete_wave_including_ramp_and_drain`; a steady-state
  window exists only when n > 2c (c completions excluded at each end,
  seconds = t[n-c] - t[c] over sorted completion times, requests n - 2c).

Reader and model: after `schema.documents`, `model` reads the output onto the
evidence model (`readers.http_matrix`: one receipt per response line with
its clocks in s, summary.json's numbers as claims with location and unit,
plan.json as a file pinned by config.plan_sha256, the plan's budget);
the rule pack's `matrix.denominators` and `matrix.stop` count and time those
receipts (`_measured`, `_rows`, `_value`), `matrix.spread` reads the rounds
by (case, concurrency) (`_groups`, `SPREAD_METRICS`).
Each round's percentiles, wave, throughput and steady-state window are
`derivation.claims` (`checks.derivation.claims`, issue 36; were
`matrix.percentiles` and `matrix.throughput`): `stated` gives each stated
number as a `derive.Stated` with its rule over a `Rounds` source (the
percentile, a clock span as the engine's `difference`, a throughput as
`ratio_of_sums`, the window's counts exactly), worded as the producer's
checks were, and the producer's rules on where a number may stand (no
aggregate of a failed round, a labelled scope, no window when n <= 2c) as
`derive.Refused` findings in their place. `matrix.denominators` (the
per-round ledger, in the plan family) and `matrix.spread` (one finding
per block of five numbers) stay checks of their own, in the rule pack
(issue 36: this module registers no check). Round statuses,
steady-state blocks and the plan's structure stay read from the validated
documents.

Why code, not a shipped profile: four files whose planned rounds are the
product of the plan's cases, concurrencies and repetitions (a denominator
for rounds that never ran), the sha256 of plan.json's bytes against
config.plan_sha256, dispatch stopping after the first failure, a
steady-state window that exists only when n > 2c, and the credential scan
of its rule pack (`verifier/checks/packs/http_matrix.py`) are procedural; the profile language has no way to
say them without losing a rule. So it is code.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from verifier.engine import stats
from verifier.adapters import readers
from verifier.engine.derive import Refused, Stated
from verifier.model.evidence import Evidence, Receipt
from verifier.formats.jsonio import loads_strict
from verifier.model.findings import Status
from verifier.engine.pipeline import Context
from verifier.engine.stats import Underivable

__all__ = ["FILES", "KIND", "MATCH", "NOUN", "READ", "SCHEMAS", "SPREAD_METRICS", "Rounds", "detects_directory", "model", "stated"]

KIND = "frozen-http-matrix"
#: What `schema.documents` (`checks.schema.documents`) reads and judges: the output's files, read strictly in this
#: order (`responses.jsonl` as JSON Lines), how a file read is said, the file whose members name the runner version with
#: the words for a version the pinned profile does not know (the `match` of its schema's `x-verify-profile`), and each
#: file's pinned schema, in the order they are validated (a JSON Lines file line by line).
FILES = ("plan.json", "config.json", "responses.jsonl", "summary.json")
READ = "{name} read ({size} bytes)"
MATCH = ("config.json", "frozen HTTP matrix producer")
SCHEMAS = {"plan.json": "frozen-http-matrix-plan-v1", "config.json": "frozen-http-matrix-config-v1",
           "summary.json": "frozen-http-matrix-summary-v1", "responses.jsonl": "frozen-http-matrix-response-v1"}
MS = Decimal(1000)


def detects(document: Any) -> bool:
    """A single JSON file is never a matrix output (it is a directory); always False."""
    return False


def detects_directory(path: Path) -> bool:
    """Return whether directory `path` holds the four files of a frozen HTTP matrix output."""
    return all((path / name).is_file() for name in FILES)


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.run.evidence`) the output read onto the evidence model (`readers.http_matrix`).

    Call only after `schema.documents` passed (it chose the profile, `ctx.run.profile`): the reader relies on both.
    """
    if ctx.run.evidence is None:
        ctx.run.evidence = readers.http_matrix(ctx.run.doc, ctx.run.profile["success_outcome"])
    return ctx.run.evidence  # type: ignore[no-any-return]


def _measured(ctx: Context) -> dict[tuple[Any, Any, Any], list[Receipt]]:
    """Return the model's measured receipts grouped by round (case, concurrency, round: the numbers as the lines wrote them), in line order."""
    out: dict[tuple[Any, Any, Any], list[Receipt]] = {}
    for r in model(ctx).receipts:
        if r.dims["phase"] == "measured":
            key = (r.dims["case"], loads_strict(r.dims["concurrency"].encode()), loads_strict(r.dims["round"].encode()))
            out.setdefault(key, []).append(r)
    return out


def _value(receipt: Receipt, quantity: str) -> Decimal:
    q = receipt.quantities[quantity]
    assert q is not None  # the reader maps every clock of a schema-valid line
    return q.value


def _stated(ctx: Context, claim: str) -> Decimal | None:
    """Return summary.json's number `claim` (e.g. `rounds/0/p50_ms`) as the model's stated claim holds it, or None when not stated."""
    found = next((c for c in model(ctx).claims if c.id == claim), None)
    return None if found is None or found.quantity is None else found.quantity.value


def _rows(ctx: Context) -> dict[tuple[str, int, int], tuple[int, dict[str, Any]]]:
    return {(r["case"], r["concurrency"], r["round"]): (i, r) for i, r in enumerate(ctx.run.doc["summary.json"]["rounds"])}


#: How `derivation.claims` names the output's records in its messages.
NOUN = "the measured lines"


class Rounds:
    """
    The output's complete rounds as a `verifier.engine.derive.Source` (`stated`): what each round's stated numbers derive from.

    A selection names one summary row (`{"round": i}`, its index in `summary.json#/rounds`). `values` gives a sample
    (`latency`: the successful measured lines' latencies, s), `count` the items a count counts (`rule["of"]`:
    `successful` lines, the completions `excluded` at each end of the steady-state window, those `window` keeps),
    `arms` the two clock readings a span is the difference of (`wave`: last completion and first dispatch; `steady`:
    t[n-c] and t[c] of the sorted completion times, s), and `sums` a throughput: 1 per item of `numerator` over the
    span `denominator`. Servers: `Underivable`. Filled by `stated`.
    """

    __slots__ = ("basis", "parts")

    def __init__(self, evidence: Evidence) -> None:
        self.basis = evidence
        self.parts: dict[tuple[int, str], Any] = {}

    def label(self, selection: dict[str, Any]) -> str:
        """The summary row the selection names ("round 0")."""
        return f"round {selection['round']}"

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[Any], str]:
        """The items `rule["of"]` names in the selected round."""
        return self.parts[(selection["round"], rule["of"])], str(rule.get("description", ""))

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """The sample `name` of the selected round."""
        return self.parts[(selection["round"], name)], f"{name} of {self.label(selection)}"

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """A matrix round names no servers: raises `Underivable`."""
        raise Underivable("an HTTP matrix round names no servers", "empty-selection")

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """The later and the earlier clock reading of span `name` (`baseline` - `candidate` is the span)."""
        later, earlier = self.parts[(selection["round"], name)]
        return {baseline: {"": [later]}, candidate: {"": [earlier]}}, f"{name} of {self.label(selection)}"

    def span(self, i: int, name: str) -> Decimal:
        """The span `name` of round `i` (later - earlier clock reading, s), derived by the engine."""
        later, earlier = self.parts[(i, name)]
        return stats.derive("difference", {"later": {"": [later]}, "earlier": {"": [earlier]}}, baseline="later", candidate="earlier").value

    def sums(self, selection: dict[str, Any], numerator: str, denominator: str) -> tuple[list[list[Decimal]], str]:
        """1 per item of `numerator` over the span `denominator` of the selected round."""
        i = selection["round"]
        return [[Decimal(1)] * len(self.parts[(i, numerator)]), [self.span(i, denominator)]], f"{numerator} / {denominator} of round {i}"


def _counted(label: str, claimed: Any, pointer: str, of: str, how: str, source: Rounds, i: int) -> Stated:
    """A stated count of round `i` judged exactly, worded `summary.json#POINTER = N re-derives (HOW)` as the producer's counts are."""
    return Stated(label, claimed, pointer, {"statistic": "count", "of": of, "description": how, "selection": {"round": i}}, source,
                  mismatch="count-mismatch", path="summary.json",  # `words` are templates: the pointer and `how` hold no braces
                  words=(f"summary.json#{pointer} = {{claimed}} re-derives ({how})", f"summary.json#{pointer} = {{claimed}}, but {how} gives {{derived}} ({how})"))


#: A round that is not complete, as a message names it by its summary status.
_A_ROUND = {"incomplete": "an incomplete round", "not_run": "a round that was not run (status 'not_run')"}


def _refused(label: str, pointer: str | None, status: Status, code: str, message: str, expected: Any = None, observed: Any = None) -> Stated:
    return Stated(label, None, pointer, None, refused=Refused(status, code, message, expected, observed), path="summary.json")


def stated(ctx: Context) -> list[Stated]:
    """
    Return every number summary.json states of a round, with the rule deriving it (`derivation.claims`), or the producer's rule on it.

    First per round (summary order) p50/p95: nearest-rank percentile (p95 is
    the maximum when n < 20) of the round's successful measured latencies,
    s, x 1000 for the stated ms; FAIL `failed-round-aggregated` when an
    incomplete or unrun round states one, `no-samples` (a complete round
    without successful lines), `missing-claim` (null on a complete round).
    Then per round the throughput: FAIL `failed-round-aggregated` when an
    incomplete round states a throughput or a steady-state window,
    `scope-unlabelled` unless throughput_scope names the whole wave,
    `complete-round-unsupported` (a complete round stating no
    wave_seconds/throughput_rps, or without successful lines);
    wave_seconds = last completion - first dispatch (`difference`),
    throughput_rps = successful / wave (`ratio_of_sums`); with n successful
    lines and concurrency c, n <= 2c: PASS `derived` when no window is claimed,
    else FAIL `no-steady-state`; otherwise PASS `not-claimed` without one,
    or the window's counts (c excluded at each end, n - 2c kept: exact),
    seconds t[n-c] - t[c] over the sorted completion times and its
    throughput (n - 2c) / seconds when seconds > 0. Every number is judged
    at its stated precision plus the float error of its computation
    (`claim_finding`'s words; `docs/tolerances.md`): a percentile's inputs
    and the x 1000 (`steps`), a span's two clock readings (`difference`: 2
    ulps at their magnitude), a throughput that span's error through the
    quotient (`_over_span`: `input_error` = `stats.clock_span_error`,
    relative to the span). A stated
    excluded_each_end of a window not claimed is c, exactly. Last
    (`_unjudged`), every other number of summary.json no check of this
    reader judges: UNVERIFIED `not-a-producer-field` (a member the schema
    does not define) or `not-derivable`.
    """
    evidence, rows, scope = model(ctx), _rows(ctx), ctx.run.profile["throughput_scope"]
    measured, source = _measured(ctx), Rounds(evidence)
    ordered = sorted(rows.items(), key=lambda kv: kv[1][0])
    out = []
    for key, (i, row) in ordered:
        lines = measured.get(key, [])
        if row["status"] != "complete":
            out += [_refused(f"round {key} {q}", f"/rounds/{i}/{q}", Status.FAIL, "failed-round-aggregated",
                             f"summary.json#/rounds/{i}/{q} = {row[q]} for {_A_ROUND[row['status']]}: failed rounds are excluded from aggregates")
                    for q in ("p50_ms", "p95_ms") if row[q] is not None]
            continue
        xs = source.parts[(i, "latency")] = [_value(x, "latency") for x in lines if x.ok]
        if not xs:
            out.append(_refused(f"round {key}", f"/rounds/{i}", Status.FAIL, "no-samples", f"summary.json#/rounds/{i}: complete round without successful lines"))
            continue
        for q in (50, 95):
            claimed = _stated(ctx, f"rounds/{i}/p{q}_ms")
            if claimed is None:
                out.append(_refused(f"round {key} p{q}_ms", f"/rounds/{i}/p{q}_ms", Status.FAIL, "missing-claim",
                                    f"summary.json#/rounds/{i}/p{q}_ms is null for a complete round"))
                continue
            note = " (n < 20: p95 is the maximum)" if q == 95 and len(xs) < 20 else ""
            out.append(Stated(f"round {key} p{q}_ms", claimed, f"/rounds/{i}/p{q}_ms",
                              {"statistic": "percentile", "q": q, "method": "nearest-rank", "value": "latency", "selection": {"round": i}},
                              source, path="summary.json", how=f"nearest-rank p{q} of {len(xs)} successful latencies in ms{note}", scale=MS,
                              steps=1))  # the runner's x 1000 rounds once
    for key, (i, row) in ordered:
        base = f"/rounds/{i}"
        if row["status"] != "complete":
            if row["throughput_rps"] is not None or row["steady_state"]["available"]:
                out.append(_refused(f"round {key}", f"{base}/throughput_rps", Status.FAIL, "failed-round-aggregated",
                                    f"summary.json#{base}: {_A_ROUND[row['status']]} reports throughput: failed rounds are excluded from aggregates"))
            continue
        if row["throughput_scope"] != scope:
            out.append(_refused(f"round {key} throughput_scope", f"{base}/throughput_scope", Status.FAIL, "scope-unlabelled",
                                f"summary.json#{base}/throughput_scope = {row['throughput_scope']!r}: throughput over the whole wave includes ramp-up "
                                f"and drain and must be labelled {scope!r}", scope, row["throughput_scope"]))
        lines = source.parts[(i, "successful")] = [x for x in measured.get(key, []) if x.ok]
        unstated = [k for k in ("wave_seconds", "throughput_rps") if row[k] is None]
        if not lines or unstated:
            out.append(_refused(f"round {key}", base, Status.FAIL, "complete-round-unsupported",
                                f"summary.json#{base}: a complete round " + (f"states no {', '.join(unstated)}" if unstated else
                                                                             "has no successful measured line in responses.jsonl")))
            continue
        start, end = min(_value(x, "dispatched") for x in lines), max(_value(x, "completed") for x in lines)
        source.parts[(i, "wave")] = (end, start)
        wave = source.span(i, "wave")
        out.append(Stated(f"round {key} wave_seconds", _stated(ctx, f"rounds/{i}/wave_seconds"), f"{base}/wave_seconds",
                          {"statistic": "difference", "baseline": "last completion", "candidate": "first dispatch", "value": "wave",
                           "selection": {"round": i}}, source, path="summary.json", how=f"last completion {end} - first dispatch {start}"))
        out.append(Stated(f"round {key} throughput_rps", _stated(ctx, f"rounds/{i}/throughput_rps"), f"{base}/throughput_rps",
                          {"statistic": "ratio_of_sums", "numerator": "successful", "denominator": "wave", "selection": {"round": i}}, source,
                          path="summary.json", how=f"{len(lines)} successful / {wave} s whole wave (including ramp and drain)",
                          bound=_over_span(wave, (end, start))))
        n, c = len(lines), key[1]
        ss = row["steady_state"]
        t = sorted(_value(x, "completed") for x in lines)
        source.parts[(i, "excluded")] = t[:c]
        excluded = _counted(f"round {key} steady_state.excluded_each_end", ss.get("excluded_each_end", -1), f"{base}/steady_state/excluded_each_end",
                            "excluded", "concurrency c completions excluded at each end", source, i)
        if n <= 2 * c:
            ok = not ss["available"]
            out.append(_refused(f"round {key} steady_state", f"{base}/steady_state/available", Status.PASS if ok else Status.FAIL,
                                "derived" if ok else "no-steady-state",
                                f"summary.json#{base}/steady_state.available = {ss['available']}: n = {n} <= 2c = {2 * c}, so no interior window exists",
                                False, ss["available"]))
            out += [excluded] if "excluded_each_end" in ss else []  # the runner states c even without a window
            continue
        if not ss["available"]:
            out.append(_refused(f"round {key} steady_state", f"{base}/steady_state", Status.PASS, "not-claimed",
                                f"summary.json#{base}: no steady-state window claimed (n = {n} > 2c = {2 * c})"))
            out += [excluded] if "excluded_each_end" in ss else []
            continue
        source.parts[(i, "window")], source.parts[(i, "steady")] = t[c:n - c], (t[n - c - 1], t[c - 1])
        out.append(excluded)
        out.append(_counted(f"round {key} steady_state.requests", ss.get("requests", -1), f"{base}/steady_state/requests", "window", "n - 2c", source, i))
        how = f"t[{n - c}] - t[{c}] of {n} sorted completion times"
        out.append(Stated(f"round {key} steady_state.seconds", ss.get("seconds", -1), f"{base}/steady_state/seconds",
                          {"statistic": "difference", "baseline": f"t[{n - c}]", "candidate": f"t[{c}]", "value": "steady", "selection": {"round": i}},
                          source, path="summary.json", how=how))
        if t[n - c - 1] > t[c - 1]:  # a window of positive length: its throughput is defined
            out.append(Stated(f"round {key} steady_state.throughput_rps", ss.get("throughput_rps", -1), f"{base}/steady_state/throughput_rps",
                              {"statistic": "ratio_of_sums", "numerator": "window", "denominator": "steady", "selection": {"round": i}}, source,
                              path="summary.json", how=f"(n - 2c) / ({how})", bound=_over_span(source.span(i, "steady"), source.parts[(i, "steady")])))
    return out + _unjudged(ctx, {s.pointer for s in out if s.pointer is not None})


def _over_span(span: Decimal, clocks: tuple[Decimal, Decimal]) -> dict[str, Any]:
    """
    The `stats.tolerance` keywords of a throughput `count / span` the runner computed in binary64: a quotient
    (`ratio_of_sums`) whose one inexact input is the span, carrying the error of the two `clocks` it is the difference
    of (`input_error` = `stats.clock_span_error`), relative to the span; the count is exact.
    """
    return {"statistic": "ratio_of_sums", "values": (span,), "input_error": stats.clock_span_error(clocks)}


def _tokens(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _numbers(node: Any, schema: Any, pointer: str, named: bool) -> Iterator[tuple[str, Any, bool]]:
    """Every number (not a boolean) under `node`, in document order: `(pointer, value, named)`, `named` whether each member on
    its way is one the `schema` defines (a `properties` member, or any member of an object whose `additionalProperties` is a schema)."""
    schema = schema if isinstance(schema, dict) else {}
    if "anyOf" in schema:  # a spread block: null or an object
        schema = next((alt for alt in schema["anyOf"] if alt.get("type") == "object"), {})
    if isinstance(node, bool) or node is None or isinstance(node, str):
        return
    if isinstance(node, (int, float, Decimal)):
        yield pointer, node, named
    elif isinstance(node, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key, value in node.items():
            defined = key in props or isinstance(extra, dict)
            yield from _numbers(value, props.get(key, extra if isinstance(extra, dict) else {}), f"{pointer}/{_tokens(key)}", named and defined)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _numbers(value, schema.get("items", {}), f"{pointer}/{i}", named)


def _judged_elsewhere(summary: dict[str, Any]) -> set[str]:
    """The pointers of summary.json numbers `matrix.denominators` (keys and counts of each row, the totals, the failure tally) and
    `matrix.spread` (each block of a (case, concurrency) the rounds have: its key, complete_rounds and the members of `SPREAD_METRICS`) judge."""
    out = {f"/denominators/{k}" for k in ("planned", "attempted", "successful")} | {f"/failures/{_tokens(k)}" for k in summary["failures"]}
    out |= {f"/rounds/{i}/{k}" for i in range(len(summary["rounds"])) for k in ("concurrency", "round", "planned", "attempted", "successful")}
    groups = _groups(summary)
    for j, block in enumerate(summary.get("round_aggregates", [])):
        if (block["case"], block["concurrency"]) in groups:
            out |= {f"/round_aggregates/{j}/concurrency", f"/round_aggregates/{j}/complete_rounds"}
            out |= {f"/round_aggregates/{j}/metrics/{m}/{k}" for m in SPREAD_METRICS for k in stats.SPREAD_FIELDS}
    return out


def _unjudged(ctx: Context, judged: set[str]) -> list[Stated]:
    """
    Return a row for each number of summary.json that no check of this reader judges (`stated`'s last rows), in document order.

    The schema admits members it does not define: a number at one (`rounds/0/p99_ms`, `mean_ms`, `denominators/throughput_rps`)
    is UNVERIFIED `not-a-producer-field`; a defined member this reader derives nothing for where it stands (a failed round's
    wave_seconds, the numbers of a window said unavailable, a spread block of a metric it does not know or of a (case,
    concurrency) no round has) UNVERIFIED `not-derivable`. Never silently ignored.
    """
    summary, runner = ctx.run.doc["summary.json"], ctx.run.doc["config.json"]["runner"]
    judged = judged | _judged_elsewhere(summary)
    out = []
    for pointer, value, named in _numbers(summary, ctx.assets.schema(SCHEMAS["summary.json"]), "", True):
        if pointer in judged:
            continue
        code, why = (("not-derivable", "not re-derived: this reader derives no value at this place (its round or window was not "
                                         "derived, or no round has its block's metric or group)") if named else
                     ("not-a-producer-field", f"not a field {runner} writes; no derivation known"))
        out.append(Stated(pointer[1:], value, pointer, None, path="summary.json",
                          refused=Refused(Status.UNVERIFIED, code, f"summary.json#{pointer} = {value}: {why}", observed=str(value))))
    return out


#: summary.json round values whose spread across rounds `round_aggregates` states (metric -> pointer under a round).
SPREAD_METRICS = {"throughput_rps": ("throughput_rps",), "p50_ms": ("p50_ms",), "p95_ms": ("p95_ms",),
                  "steady_state_throughput_rps": ("steady_state", "throughput_rps")}


def _groups(summary: dict[str, Any]) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """Each (case, concurrency) of summary.json's rounds, in order, with its complete rounds (the rows a spread block is over)."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for row in summary["rounds"]:
        groups.setdefault((row["case"], row["concurrency"]), [])
        if row["status"] == "complete":
            groups[(row["case"], row["concurrency"])].append(row)
    return groups


#: What this reader supplies of the evidence model (`verifier.model.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"files", "plan", "receipts", "claims"})  # files: plan.json, pinned by config.plan_sha256
NOTES = {"integrity": "the output directory has no manifest; only plan.json is pinned, by config.plan_sha256 (matrix.plan_digest)",
         "gate": "the output names no gate; the pinned schemas of its runner version judge it (schema.documents)",
         "coverage": "an HTTP matrix retains response bytes, no output media",
         "unchanged": "the four files are read once (schema.documents) and every check reads those bytes"}

