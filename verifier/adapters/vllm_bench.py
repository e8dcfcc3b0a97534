"""
Reader for vLLM serving-benchmark result JSON (`vllm bench serve --save-result`,
formerly `benchmarks/benchmark_serving.py --save-result`).

Detection: a JSON object carrying the result fields every version writes
(`backend`, `num_prompts`, `duration`, `completed`, `total_input_tokens`,
`total_output_tokens`, `request_throughput`) is recognisably this family. The
result records no version number, so the version is chosen by the field set
named in the profiles (`PROFILES`: pinned schemas whose `x-verify-profile`
annotation is data). A family receipt no profile matches is UNVERIFIED
(`unknown-producer-version`), never FAIL.

What re-derives (formulas from vLLM's `calculate_metrics`):
- aggregates, always: `request_throughput = completed / duration`,
  `output_throughput = total_output_tokens / duration`,
  `total_token_throughput = (total_input_tokens + total_output_tokens) / duration`,
  and `completed + failed = num_prompts` where `failed` exists;
- with the per-request arrays (`--save-detailed`, or always in the older
  script): the success ledger (success is `errors[i] == ""`, the producer's
  `RequestFuncOutput.error` default), token totals over successful requests,
  and mean, median, std and every `pNN` of TTFT, TPOT, ITL and E2EL over the
  successful requests, in ms, with numpy's definitions: `np.percentile`
  default `linear` (Hyndman & Fan 7) and `np.std` population (ddof 0);
  TPOT of one request is (latency - ttft) / (output_len - 1) for output_len > 1;
- a declared `max_concurrency` must hold: the exact overlap of the successful
  requests may not exceed it (field-failures H-05; 0 is refused by the schema);
- `max_concurrent_requests` (profiles with `peak_concurrency`
  `whole-second-bucket-inclusive`): the maximum over whole-second buckets of
  this client's own successful requests, each counted in every bucket from
  int(start - min_start) to int(end - min_start) inclusive. It is never engine
  concurrency and never evidence of foreign traffic; the finding says so.

Failed requests stay in the denominator: the arrays must hold one entry per
prompt and the report always prints successful/num_prompts. A TTFT of 0.0 on
a successful request is "not measured" (field-failures H-03): that request
FAILs `ttft-not-measured` and the TTFT/TPOT claims are UNVERIFIED.

Reader and model: after `schema.documents` (`checks.schema.documents`:
the version chosen by the signatures of `VERSIONS`, then its schema), `model` reads the result onto the
evidence model (`readers.vllm_result`: one receipt per prompt with typed
quantities, one per inter-token latency, the stated numbers as claims with
their JSON Pointer and unit, the declared plan); the ledger and peak checks
of its rule pack (`verifier/checks/packs/vllm.py`: `vllm.*`; this module
registers no check) take their samples from it, and `stated` gives the aggregates and latency
statistics as `derive.Stated` items over a `Result` source (its stated
numbers and samples) for `derivation.claims`
(`checks.derivation.claims`), each with the finding refusing it
where it cannot be derived (`derive.Refused`), then the numbers it cannot
re-derive at all: the profile's `not_derivable` keys (with its reason) and
numbers the producer's schema does not define. The array lengths, key sets
and declared arrival parameters stay read from the validated document.

Why code, not a shipped profile (`profiles/*.json`): the profile language
can say the aggregate identities (`identities`: ratio), the parallel
per-request arrays (`unnest` with `parallel`) and a mean, median or linear
percentile per claim, but not, without losing a rule: the version chosen by
keys that must be *absent*; numpy's population SD (the language's `sd` is
the sample SD); TPOT as (latency - ttft) / (output_len - 1) per request; ITL
as a nested array flattened over successful requests; TTFT 0.0 as "not
measured" blocking its claims (H-03); the whole-second bucket peak; and the
arrival-process test. Those are procedural, so this reader is code.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from verifier.engine import stats
from verifier.adapters import readers
from verifier.engine.derive import Refused, Stated
from verifier.model.evidence import Evidence, Receipt
from verifier.model.findings import Status
from verifier.engine.pipeline import Context
from verifier.engine.stats import Underivable

__all__ = ["FAMILY", "FAMILY_KEYS", "KIND", "NOUN", "PROFILES", "STATISTICS", "THROUGHPUTS", "VERSIONS", "Result", "detects", "model", "stated"]

KIND = "vllm-bench-serve"

#: Pinned schemas, one per producer version; each carries its `x-verify-profile`, whose `signature` (keys present and
#: absent) chooses the version (`schema.documents`, `checks.schema.documents`): the result records no version.
PROFILES = VERSIONS = ("vllm-serve-result-goodput-colon", "vllm-serve-result-bucket-peak")
FAMILY = "a vLLM serving-benchmark result"
#: How `derivation.claims` names the result's records in its messages.
NOUN = "the requests"

#: Keys every version of the result writes; their presence identifies the family.
FAMILY_KEYS = frozenset({"backend", "num_prompts", "duration", "completed", "total_input_tokens",
                         "total_output_tokens", "request_throughput"})

STAT_KEY = re.compile(r"^(mean|median|std|p(?P<q>[0-9]+(?:\.[0-9]+)?))_(?P<metric>ttft|tpot|itl|e2el)_ms$")
MS = Decimal(1000)


def detects(document: Any) -> bool:
    """Return whether `document` is recognisably a vLLM serving-benchmark result (any version)."""
    return isinstance(document, dict) and FAMILY_KEYS <= set(document)


def _doc(ctx: Context) -> tuple[dict[str, Any], str]:
    return ctx.options["document"], ctx.options["name"]


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.run.evidence`) the result read onto the evidence model (`readers.vllm_result`).

    Call only after `schema.documents` passed: the reader relies on the schema's types.
    """
    if ctx.run.evidence is None:
        d, name = _doc(ctx)
        ctx.run.evidence = readers.vllm_result(d, name, ctx.run.profile.get("per_request_arrays", []))
    return ctx.run.evidence  # type: ignore[no-any-return]


def _requests(ctx: Context, *, ok: bool = False) -> list[Receipt]:
    """Return the model's per-prompt receipts in prompt order (only the successful ones with `ok`)."""
    return [r for r in model(ctx).receipts if r.dims["kind"] == "request" and (r.ok or not ok)]


def _v(receipt: Receipt, quantity: str) -> Decimal:
    q = receipt.quantities[quantity]
    assert q is not None  # the reader maps every retained array entry
    return q.value


def _nothing_measured(ctx: Context) -> str | None:
    """Return why no request succeeded (the per-request ledger, else the stated `completed` = 0), or None when one did."""
    d, _ = _doc(ctx)
    requests = _requests(ctx)
    if requests:
        return None if any(r.ok for r in requests) else f"0/{len(requests)} requests succeeded (errors array)"
    return f"completed = 0 of num_prompts = {d['num_prompts']}" if d["completed"] == 0 else None


def _no_success(key: str, claimed: Any, why: str) -> Refused:
    return Refused(Status.FAIL, "no-successful-request",
                   f"{key} = {claimed}: no successful request ({why}): nothing was measured, so a stated {key} is no measurement "
                   "(the producer prints 0 for an empty sample)", observed=str(claimed))


class Result:
    """
    The result as a `verifier.engine.derive.Source` (`stated`): its stated numbers and the samples of its successful requests.

    `sums` gives stated numbers by id (`numerator`: a sequence of ids, each a
    numerator term; `denominator` one id), `values` the sample of a metric
    (`ttft`, `itl`, `e2el`, `tpot`: seconds, taken by `stated`), `count` the
    declared prompts (the model's plan). Servers and arms: `Underivable`.
    """

    __slots__ = ("basis", "numbers", "samples")

    def __init__(self, evidence: Evidence, samples: dict[str, tuple[list[Decimal], str]]) -> None:
        self.basis, self.samples = evidence, samples
        self.numbers = {c.id: c.quantity.value for c in evidence.claims if c.quantity is not None}

    def label(self, selection: dict[str, Any]) -> str:
        """The result selects nothing: the empty label."""
        return ""

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[int], str]:
        """The declared prompts (`num_prompts`, the model's plan)."""
        return list(range(self.basis.plan.per_server["measured"])), "declared prompts"

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """The sample of metric `name` and how it was taken."""
        return self.samples[name]

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """A result names no servers: raises `Underivable`."""
        raise Underivable("a vLLM result names no servers", "empty-selection")

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """A result names no arms: raises `Underivable`."""
        raise Underivable("a vLLM result names no arms", "empty-selection")

    def sums(self, selection: dict[str, Any], numerator: Any, denominator: str) -> tuple[list[list[Decimal]], str]:
        """The stated numbers `numerator` names, and the stated `denominator`."""
        return [[self.numbers[k] for k in numerator], [self.numbers[denominator]]], "stated numbers"


#: The throughputs vLLM `calculate_metrics` states: key -> the stated totals whose sum it divides by `duration`.
THROUGHPUTS = {"request_throughput": ("completed",), "output_throughput": ("total_output_tokens",),
               "total_token_throughput": ("total_input_tokens", "total_output_tokens")}
#: The statistics of a latency key (`STAT_KEY`), with numpy's definitions: linear percentiles, population std (ddof=0).
STATISTICS = {"mean": ("mean", "mean"), "median": ("median", "median"), "std": ("population_sd", "population std (numpy ddof=0)")}


def stated(ctx: Context) -> list[Stated]:
    """
    Return every number the result states with the rule deriving it (`derivation.claims`), or the finding refusing it.

    The aggregates (vLLM `calculate_metrics`), always: each throughput the sum
    of its stated totals over `duration` (`THROUGHPUTS`; FAIL
    `no-successful-request` when no request succeeded: nothing was measured,
    as a native bundle whose requests all failed), judged at its stated
    precision; `completed + failed` the declared prompts (FAIL
    `count-mismatch`), or without `failed`, `completed` the declared prompts
    (FAIL `count-mismatch` above them, UNVERIFIED `disposition-unknown`
    below: the missing requests stay counted). Then every
    `mean_|median_|std_|pNN_{ttft,tpot,itl,e2el}_ms`: the sample in seconds
    (TPOT `stats.per_output_token`, its float error carried as
    `input_error`), the statistic x 1000 (mean, median, numpy-linear
    percentile, numpy population std); FAIL `no-successful-request` when no
    request succeeded (the producer prints 0 for the empty samples: no
    measurement); UNVERIFIED `no-per-request-arrays`, `blocked-by-ledger`
    (arrays do not cover num_prompts), `unmeasured-ttft` (a TTFT/TPOT sample
    holding H-03 zeros), `not-retained`, `empty-sample` (the producer prints
    0 for an empty sample); one UNVERIFIED `no-findings` when the result
    states no latency statistic. Last, what this reader cannot re-derive
    (`_unsupported`, before 7 Dec 2026 `vllm.unsupported`): UNVERIFIED
    `not-derivable` or `not-a-producer-field`, PASS `not-claimed` for a null.
    """
    d, name = _doc(ctx)
    evidence, arrays, nothing = model(ctx), _arrays(ctx), _nothing_measured(ctx)
    covered = arrays is not None and len(arrays["errors"]) == d["num_prompts"] and all(len(v) == d["num_prompts"] for v in arrays.values())
    samples = {metric: _samples(ctx, metric, arrays) for metric in ("ttft", "itl", "e2el", "tpot")} if covered else {}
    source = Result(evidence, {metric: (xs, how) for metric, (xs, how, _) in samples.items() if xs is not None})
    numbers = source.numbers
    out = []
    for key, terms in THROUGHPUTS.items():
        sum_of = " + ".join(terms) if len(terms) == 1 else f"({' + '.join(terms)})"
        values = " + ".join(str(numbers[t]) for t in terms) if len(terms) == 1 else f"({' + '.join(str(numbers[t]) for t in terms)})"
        out.append(Stated(key, numbers[key], f"/{key}", {"statistic": "ratio_of_sums", "numerator": terms, "denominator": "duration"},
                          source, refused=None if nothing is None else _no_success(key, d[key], nothing),
                          how=f"{sum_of} / duration = {values} / {numbers['duration']}", float_bound=False))
    completed, n = d["completed"], d["num_prompts"]  # the count identity compares the ledger's integers as the schema typed them
    prompts = {"statistic": "count"}
    if "failed" in d:
        said = f"completed + failed = {completed} + {d['failed']} = {{claimed}}, num_prompts = {{derived}}"
        out.append(Stated("completed + failed", completed + d["failed"], "/failed", prompts, source, mismatch="count-mismatch", words=(said, said)))
    else:
        unknown = None if completed >= n else Refused(
            Status.UNVERIFIED, "disposition-unknown", f"{completed}/{n} requests succeeded; this version records no failed count, so "
            f"{n - completed} requests have no recorded disposition (they stay in the denominator)", expected=n, observed=completed)
        out.append(Stated("completed", completed, "/completed", prompts, source, mismatch="count-mismatch", refused=unknown,
                          words=("completed = num_prompts = {derived}: no request failed", "completed = {claimed} exceeds num_prompts = {derived}")))
    keys = sorted(k for k in d if STAT_KEY.match(k))
    if not keys:
        out.append(Stated("latency statistics", None, None, None, refused=Refused(Status.UNVERIFIED, "no-findings", f"{name}: no latency statistics claimed")))
    unmeasured = _unmeasured(ctx, arrays) if covered and arrays is not None else []
    for key in keys:
        m = STAT_KEY.match(key)
        assert m is not None
        metric, claimed = m["metric"], d[key]
        xs, how, error = samples.get(metric, (None, "", None))
        if nothing is not None:
            refused: Refused | None = _no_success(key, claimed, nothing)
        elif arrays is None:
            refused = Refused(Status.UNVERIFIED, "no-per-request-arrays", f"{key} = {claimed}: not re-derived: the result keeps aggregates "
                              "only (no per-request ttfts/itls/latencies)", observed=str(claimed))
        elif not covered:
            refused = Refused(Status.UNVERIFIED, "blocked-by-ledger", f"{key}: per-request arrays do not cover num_prompts")
        elif metric in ("ttft", "tpot") and unmeasured:
            refused = Refused(Status.UNVERIFIED, "unmeasured-ttft", f"{key} = {claimed}: not re-derived: its sample holds TTFT 0.0 "
                              f"'not measured' at requests {unmeasured}, which the producer counted as data")
        elif xs is None:
            refused = Refused(Status.UNVERIFIED, "not-retained", f"{key} = {claimed}: not re-derived: {how}")
        elif not xs:
            refused = Refused(Status.UNVERIFIED, "empty-sample", f"{key} = {claimed}: no measured sample ({how}); the producer prints 0 "
                              "for an empty sample")
        else:
            refused = None
        statistic, text = STATISTICS.get(m.group(1), ("percentile", f"p{m['q']} numpy-linear"))
        rule = {"statistic": statistic, "value": metric, "method": "linear", **({"q": m["q"]} if statistic == "percentile" else {})}
        out.append(Stated(key, claimed, f"/{key}", rule, source, refused=refused, how=f"{text} x 1000 of {how}", scale=MS, input_error=error))
    return out + _unsupported(ctx, evidence)


def _unsupported(ctx: Context, evidence: Evidence) -> list[Stated]:
    """
    Return the rows refusing what this reader cannot re-derive (`stated`): the profile's `not_derivable` keys the result
    writes (PASS `not-claimed` when null, else UNVERIFIED `not-derivable` with the profile's reason), then, by key, each
    number the producer's schema does not define (UNVERIFIED `not-a-producer-field`: a patched script's or --metadata key).
    """
    d, _ = _doc(ctx)
    profile = ctx.run.profile

    def row(key: str, status: Status, code: str, message: str) -> Stated:
        return Stated(key, d[key], "/" + key.replace("~", "~0").replace("/", "~1"), None,
                      refused=Refused(status, code, message, observed=None if d[key] is None else str(d[key])))

    out = [row(key, Status.PASS, "not-claimed", f"{key!r} is null: nothing claimed") if d[key] is None else
           row(key, Status.UNVERIFIED, "not-derivable", f"{key!r} = {d[key]}: not re-derived: {reason}")
           for key, reason in profile.get("not_derivable", {}).items() if key in d]
    known = ctx.assets.schema(ctx.run.schema)["properties"]  # the model's claims are the result's numbers (bools are none)
    return out + [row(c.id, Status.UNVERIFIED, "not-a-producer-field", f"{c.id!r} = {d[c.id]}: not a field {profile['producer']} writes; "
                      "no derivation known") for c in sorted(evidence.claims, key=lambda c: c.id) if c.id not in known and not STAT_KEY.match(c.id)]


def _arrays(ctx: Context) -> dict[str, list[Any]] | None:
    d, _ = _doc(ctx)
    wanted = ctx.run.profile.get("per_request_arrays", [])
    if not wanted or not all(isinstance(d.get(k), list) for k in wanted):
        return None
    return {k: d[k] for k in wanted}


def _unmeasured(ctx: Context, arrays: dict[str, list[Any]]) -> list[int]:
    """Return the prompts (indexes) that succeeded with TTFT <= 0 or above their latency (H-03: 0.0 is "not measured")."""
    lat = "latencies" in arrays
    return [int(r.dims["request"]) for r in _requests(ctx, ok=True) if _v(r, "ttft") <= 0 or (lat and _v(r, "ttft") > _v(r, "latency"))]


def _samples(ctx: Context, metric: str, arrays: dict[str, list[Any]]) -> tuple[list[Decimal] | None, str, Decimal | None]:
    """
    Return the sample of `metric` (s) over the model's successful requests, how it was taken, and the bound on each
    value's own float error (TPOT's, `stats.per_output_token`; else None); None when not retained.
    """
    ok = _requests(ctx, ok=True)
    n = len(_requests(ctx))
    if metric == "ttft":
        return [_v(r, "ttft") for r in ok], f"ttfts of {len(ok)}/{n} successful requests", None
    if metric == "itl":
        xs = [_v(r, "itl") for r in model(ctx).receipts if r.dims["kind"] == "itl" and r.ok]
        return xs, f"{len(xs)} itls of {len(ok)}/{n} successful requests", None
    if "latencies" not in arrays:
        return None, "the result does not retain per-request latencies", None
    if metric == "e2el":
        return [_v(r, "latency") for r in ok], f"latencies of {len(ok)}/{n} successful requests", None
    tp, error = stats.per_output_token((_v(r, "latency"), _v(r, "ttft"), _v(r, "output")) for r in ok)
    return tp, f"(latency - ttft) / (output_len - 1) of the {len(tp)} successful requests with output_len > 1 ({len(ok)}/{n} successful)", error


#: What this reader supplies of the evidence model (`verifier.model.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"plan", "receipts", "claims"})
NOTES = {"integrity": "one result file, listed in no manifest",
         "gate": "a result names no gate; the pinned schema of its producer version judges it (schema.documents)",
         "coverage": "a serving benchmark result retains no output media",
         "rules": "no gate states rules for a serving benchmark result; its own identities are re-derived (vllm.*)",
         "unchanged": "one result file, read once"}

