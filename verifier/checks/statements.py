"""
Stated claims: every number a bundle's prose states (headline, notes, README/RESULTS, a pull-request body) is accounted for.

`claims.stated` reads the claim texts, extracts every number
(`verifier.readers.claimtext`), and binds each to a value the evidence gives
(`verifier.prose.binding`): the gate's derivations of the receipts, the plan's
counts, the gate's thresholds and the quality index's recorded scores.
Each number yields one finding: PASS when bound and equal at its stated
precision (or matched by an identifier rule), FAIL on `claim-mismatch`,
`wording-mismatch` or `unit-mismatch`, UNVERIFIED `unchecked-claim` when
nothing accounts for it, `unbound-claim` when its subject words leave several
derivations or none, so a bundle with an unaccounted number is never PASS.

Claim texts of a bundle: `claims.json` `headline`, `notes` and each claim's
`text`; root files named README or RESULTS (`.md`, `.txt` or none, any
case) that the manifest lists; and the file given with
`verify --claims-text FILE` (read by the CLI, passed as
`ctx.options["claims_text"] = (name, text)`).

One body, `judge`, for every reader, given the texts and the values
(`Candidates`): `stated` gives, for a bundle (native, mapped), `texts`,
`blocked_texts` and `collect_all`; for a bundle a profile reads (no
`bundle` section) a `verify --claims-text FILE` (`given`) bound to the
values the profile's claim rules derive (`profile_candidates`: each
instance derived as `derivation.claims` derives it, in the rule's unit; a
value of one arm pairs with the other arm's, so a stated reduction or
speedup binds to the two).
"""

from __future__ import annotations

import dataclasses

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.prose.binding import Evidence, Outcome, Pair, bind
from verifier.checks.derivation import CampaignSource, Underivable, derive_rule, expand, native_key
from verifier.checks.profile_base import _all_records, _derivations, _profile, joined
from verifier.checks.profile_claims import _convert
from verifier.checks.outcomes import outcomes
from verifier.readers.campaign import Campaign, campaign_of, parse_time
from verifier.readers.claimtext import MAX_QUANTITIES, MAX_TEXT_BYTES, extract
from verifier.model.evidence import Plan
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.readers.native import evidence_of
from verifier.readers.select import RecordSource, instances

__all__ = ["CHECK", "TEXT_FILES", "Candidates", "collect_all", "given", "judge", "pairs_of", "profile_candidates", "stated", "statistic_word"]

CHECK = "claims.stated"

#: Root files of a bundle read as claim texts (matched case-insensitively).
TEXT_FILES = re.compile(r"(?:README|RESULTS)(?:\.md|\.markdown|\.txt)?", re.IGNORECASE)

#: What a reader gives `claims.stated` to bind numbers to: `(evidence, pairs, keys, levels)`, `verifier.prose.binding.bind`'s arguments.
Candidates = tuple[list[Evidence], list[Pair], dict[str, str], dict[str, str]]



def statistic_word(rule: dict[str, Any]) -> str | None:
    """Return the word a value of claim or gate `rule` is stated with (`mean`, `sd`, `p99`, ...), or None for a statistic prose names by no word."""
    if rule["statistic"] == "percentile":
        return f"p{Decimal(str(rule['q'])).normalize():f}"  # q 50: p50, not p5E+1
    return stats.STATED_WORDS.get(rule["statistic"])
_COUNT_NOUNS = {
    "requests": r"^(?!measured|warm)(?:[a-z-]+\s+)?(?:planned\s+|http\s+)?requests\b(?!\s+per)",
    "comparisons": r"^(?:[a-z-]+\s+){0,2}comparisons\b",
    "worker_exits": r"^(?:[a-z-]+\s+){0,2}(?:worker\s+)?(?:process\s+)?exits\b",
}


def collect_all(ctx: Context) -> tuple[list[Evidence], list[Pair], dict[str, str], dict[str, str]]:
    """
    Return the `Candidates` `(evidence, pairs, keys, levels)` of a bundle-v1 run (native or mapped): every value a stated number may be bound to.

    Derived values come from the gate's claim rules (`derivation.derive_rule`; an
    underivable rule contributes nothing), plan counts from `plan.json`,
    thresholds from the gate's `quality` section, recorded scores from
    `quality-index.json`. `keys` maps arm ids, server ids, and the words
    `baseline`/`candidate` to the arm or server id they name, and each
    request id to itself; `levels` maps each id to `arm`, `server` or
    `request`. The receipts also give the values a sentence's subject words
    may name (`_receipt_values`: one request, the first, last, fastest and
    slowest of a server, an arm or all, counts of one server or arm).
    Raises `Unverifiable` when plan or receipts are unusable.
    """
    c = campaign_of(ctx)
    plan = c.plan
    gate = ctx.gate or {}
    evidence: list[Evidence] = []
    keys: dict[str, str] = {}
    role_of = dict(plan.arms)
    for arm, role in plan.arms.items():
        keys[arm] = arm
        if role in ("baseline", "candidate"):
            keys[role] = arm
    arm_of_server = dict(plan.servers)
    for sid in arm_of_server:
        keys[sid] = sid
    levels = {arm: "arm" for arm in plan.arms} | {sid: "server" for sid in arm_of_server}
    relative = [r for r in gate.get("claims", []) if r["statistic"] in ("relative_reduction_pct", "speedup")]
    headline_stat = "mean_of_server_means" if relative else None
    per_arm: dict[str, dict[str, Evidence]] = {}
    for rule in gate.get("claims", []):
        for claim_id, key in expand(rule, c):
            try:
                derived = derive_rule(rule, CampaignSource(c, ctx), native_key(rule, key))
                value, text = derived.value, derived.text
            except Underivable:
                continue
            statistic = rule["statistic"]
            stat = statistic_word(rule)
            level = rule.get("per")
            entity = {key} if key else set()
            if level == "server" and key:
                entity.add(arm_of_server.get(key, ""))
            if statistic == "count":
                of = rule["of"]
                phase = rule.get("selection", {}).get("phase")
                noun = _COUNT_NOUNS[of]
                if of == "requests" and phase:
                    noun = rf"^(?:[a-z-]+\s+)?{phase}\s+(?:http\s+)?requests\b(?!\s+per)"
                evidence.append(Evidence(claim_id, value, None, "derived", text, statistic="count", keys=frozenset(entity), nouns=noun,
                                         phase=phase, level="all" if not level else None))
                continue
            if statistic in ("relative_reduction_pct", "speedup"):
                evidence.append(Evidence(claim_id, value, rule.get("unit"), "derived", text, statistic=statistic,
                                         topics=frozenset({"reduction"} if statistic != "speedup" else {"speedup"})))
                continue
            e = Evidence(claim_id, value, rule.get("unit", "s"), "derived", text, statistic=stat, keys=frozenset(entity),
                         topics=frozenset({"latency"}), primary=statistic == headline_stat and level == "arm", level=level,
                         phase=rule.get("selection", {}).get("phase"))
            evidence.append(e)
            if level == "arm" and key:
                per_arm.setdefault(rule["claim"], {})[role_of.get(key) or key] = e
    pairs = pairs_of(per_arm, "baseline", "candidate")
    evidence += _plan_counts(plan)
    evidence += _quality(ctx, gate, _subjects_of_outputs(c))
    evidence += _receipt_values(c, {(e.statistic, e.level, e.phase) for e in evidence if e.level == "all"})
    for rid in c.requests:
        if rid and rid not in keys:
            keys[rid] = rid
            levels[rid] = "request"
    return evidence, pairs, keys, levels


def pairs_of(per_arm: dict[str, dict[str, Evidence]], baseline: str, candidate: str) -> list[Pair]:
    """Return one `Pair` per rule of `per_arm` (rule -> arm -> its value) holding both arms, the headline (primary) ones first."""
    pairs = [Pair(name, arms[baseline], arms[candidate], primary=arms[baseline].primary)
             for name, arms in per_arm.items() if baseline in arms and candidate in arms]
    pairs.sort(key=lambda p: not p.primary)
    return pairs


def _receipt_values(c: Campaign, have: set[tuple[str | None, str | None, str | None]]) -> list[Evidence]:
    """
    Return the values of the receipts a sentence's subject may name, each with its level, ids and phase.

    Per request: its elapsed seconds (ok receipts with a time only). Per
    scope (every server, every arm, and `all`) and phase (warmup, measured,
    both): `count` of its receipts, and, when every receipt of the scope is
    ok and timed, `min`, `max`, `first` and `last` (by `started_at`, file
    order when a start is missing) of the elapsed seconds (`stats.derive`).
    A scope with a failed or untimed request gets no time values: which one
    was "the fastest" is not known. Counts the gate's rules already derive
    for all requests (`have`) are not repeated.
    """
    out: list[Evidence] = []
    rows = []
    for r in c.receipts:
        rid, sid = r.dims.get("request_id", ""), r.dims.get("server", "")
        arm = c.arm_of_server.get(sid) or r.dims.get("arm", "")
        q = r.quantities.get("elapsed")
        seconds = q.to("s") if q is not None and r.ok else None
        rows.append((rid, sid, arm, r.dims.get("phase", ""), r.started_at or "", seconds))
        if seconds is not None and rid:
            out.append(Evidence(f"request.{rid}.elapsed_s", seconds, "s", "receipts", f"elapsed_s of request {rid} ({r.location})",
                                statistic="value", keys=frozenset({rid, sid, arm}), topics=frozenset({"latency"}), level="request",
                                phase=r.dims.get("phase") or None))
    ordered = all(row[4] for row in rows)
    if ordered:
        rows.sort(key=lambda row: parse_time(row[4]))
    scopes = [("all", None)] + [("arm", a) for a in c.plan.arms] + [("server", s) for s in c.arm_of_server]
    for level, key in scopes:
        for phase in (None, "warmup", "measured"):
            chosen = [row for row in rows if (key is None or key in (row[1], row[2])) and (phase is None or row[3] == phase)]
            where = f"{level} {key}" if key else "all requests"
            label = f"{where}{', ' + phase if phase else ''}"
            name = f"{level}.{key}.{phase or 'all'}" if key else f"all.{phase or 'all'}"
            ids = frozenset({key} if key else set())
            if ("count", level, phase) not in have:
                out.append(Evidence(f"{name}.count", Decimal(len(chosen)), None, "receipts", f"count of request receipts ({label})",
                                    statistic="count", keys=ids, level=level, phase=phase))
            times = [row[5] for row in chosen]
            if not chosen or any(t is None for t in times):
                continue
            for statistic in ("min", "max", "first", "last"):
                derived = stats.derive(statistic, times, of=f"elapsed seconds ({label})")
                text = derived.text.replace("(in file order)", "(by start time)") if ordered else derived.text
                out.append(Evidence(f"{name}.{statistic}_s", derived.value, "s", "receipts", text, statistic=statistic,
                                    keys=ids, topics=frozenset({"latency"}), level=level, phase=phase))
    return out


def _plan_counts(plan: Plan) -> list[Evidence]:
    servers = plan.run_order
    arms = plan.arms
    warmups, measured = plan.per_server.get("warmup", 0), plan.per_server.get("measured", 0)
    per_arm = {len([s for s in servers if s[1] == a]) for a in arms}
    out = [
        Evidence("plan.servers", Decimal(len(servers)), None, "plan", "servers listed in plan.json", statistic="count",
                 nouns=r"^(?:[a-z-]+\s+){0,2}servers\b(?!\s+per)"),
        Evidence("plan.arms", Decimal(len(arms)), None, "plan", "arms listed in plan.json", statistic="count",
                 nouns=r"^(?:[a-z-]+\s+)?arms\b"),
        Evidence("plan.warmups_per_server", Decimal(warmups), None, "plan", "plan.json warmups_per_server",
                 statistic="count", nouns=r"^(?:[a-z-]+\s+)?warm-?ups?\s+(?:requests\s+)?(?:per|each|on each|for each)\s+server"),
        Evidence("plan.measured_per_server", Decimal(measured), None, "plan", "plan.json measured_per_server",
                 statistic="count", nouns=r"^(?:[a-z-]+\s+)?measured\s+(?:requests\s+)?(?:per|each|on each|for each)\s+server"),
        Evidence("plan.warmups", Decimal(warmups * len(servers)), None, "plan",
                 "warmups_per_server x servers in plan.json", statistic="count", nouns=r"^(?:[a-z-]+\s+)?warm-?ups?\b(?!\s+per)"),
    ]
    if len(per_arm) == 1:
        out.append(Evidence("plan.servers_per_arm", Decimal(per_arm.pop()), None, "plan", "servers per arm in plan.json",
                            statistic="count", nouns=r"^(?:[a-z-]+\s+){0,2}servers\s+(?:per|each|in each|for each)\s+arm"))
    expected = plan.expected_output
    if "frames" in expected:
        out.append(Evidence("plan.expected_output.frames", Decimal(expected["frames"]), None, "plan", "plan.json expected_output.frames",
                            statistic="count", nouns=r"^(?:[a-z-]+\s+)?frames\b"))
        if "fps" in expected:
            seconds = Fraction(expected["frames"]) / Fraction(str(expected["fps"]))
            out.append(Evidence("plan.expected_output.duration_s", Decimal(seconds.numerator) / Decimal(seconds.denominator), "s", "plan",
                                f"expected_output frames {expected['frames']} / fps {expected['fps']}", topics=frozenset({"output", "clip", "clips", "video", "videos", "outputs", "duration"})))
            out.append(Evidence("plan.expected_output.fps", Decimal(str(Fraction(str(expected["fps"])).numerator)) if Fraction(str(expected["fps"])).denominator == 1 else Decimal(float(Fraction(str(expected["fps"])))),
                                "frames/s", "plan", "plan.json expected_output.fps", topics=frozenset({"fps"})))
    if "channels" in expected:
        out.append(Evidence("plan.expected_output.channels", Decimal(expected["channels"]), None, "plan", "plan.json expected_output.channels",
                            statistic="count", nouns=r"^(?:[a-z-]+\s+)?(?:audio\s+)?channels\b"))
    for key, value in plan.timeouts.items():
        out.append(Evidence(f"plan.timeouts.{key}", value.value, "s" if key.endswith("_s") else None, "plan",
                            f"plan.json timeouts.{key}", topics=frozenset({"timeout", "timeouts", "budget"})))
    return out


_METRIC_WORDS = {"ssim": {"ssim"}, "lpips": {"lpips"}, "audio_cosine": {"cosine", "audio"}}


def _subjects_of_outputs(c: Campaign) -> dict[str, frozenset[str]]:
    """Return each output path the request receipts record -> the ids of its request, server and arm (what a comparison of it is about)."""
    out: dict[str, frozenset[str]] = {}
    for r in c.receipts:
        sid = r.dims.get("server", "")
        ids = {r.dims.get("request_id", ""), sid, c.arm_of_server.get(sid) or r.dims.get("arm", "")} - {""}
        for o in r.outputs:
            out[o.path] = out.get(o.path, frozenset()) | ids
    return out


def _quality(ctx: Context, gate: dict[str, Any], subjects: dict[str, frozenset[str]] | None = None) -> list[Evidence]:
    """
    Return the gate's quality thresholds and comparison count, and the recorded scores of `quality-index.json`, as `Evidence`.

    Per metric: its lowest and highest recorded score, and each comparison's
    score with `level` `comparison` and `keys` the comparison id plus the
    request, server and arm ids `subjects` gives for its reference and
    candidate files (so "the SSIM of c07", "the SSIM of request A1-m1" name
    the scores of that subject, `binding._bind_score`).
    """
    subjects = subjects or {}
    out: list[Evidence] = []
    quality = gate.get("quality")
    if not quality:
        return out
    for metric, bounds in quality.get("thresholds", {}).items():
        for side in ("min", "max"):
            if side in bounds:
                out.append(Evidence(f"gate.quality.{metric}.{side}", Decimal(str(bounds[side])), None, "gate",
                                    f"gate {ctx.gate_id} quality.thresholds.{metric}.{side}", statistic="threshold",
                                    topics=frozenset(_METRIC_WORDS.get(metric, {metric}))))
    if "comparisons" in quality:
        out.append(Evidence("gate.quality.comparisons", Decimal(quality["comparisons"]), None, "gate",
                            f"gate {ctx.gate_id} quality.comparisons", statistic="count", nouns=_COUNT_NOUNS["comparisons"]))
    model = evidence_of(ctx)
    if not model.usable("quality"):  # an unusable index is reported by its own checks; no scores to bind here
        return out
    scores: dict[str, list[tuple[str, Decimal]]] = {}
    about: dict[str, frozenset[str]] = {}
    for comparison in model.quality:
        about[comparison.id] = frozenset({comparison.id}) | subjects.get(comparison.reference, frozenset()) | \
            subjects.get(comparison.candidate, frozenset())
        for metric, value in comparison.scores.items():
            if value is not None:
                scores.setdefault(metric, []).append((comparison.id, value))
    for metric, values in scores.items():
        words = frozenset(_METRIC_WORDS.get(metric, {metric}))
        lo = min(values, key=lambda v: v[1])
        hi = max(values, key=lambda v: v[1])
        out.append(Evidence(f"quality.{metric}.min", lo[1], None, "recorded", f"lowest recorded {metric} ({lo[0]} of {len(values)})",
                            statistic="min", topics=words))
        out.append(Evidence(f"quality.{metric}.max", hi[1], None, "recorded", f"highest recorded {metric} ({hi[0]} of {len(values)})",
                            statistic="max", topics=words))
        for cid, value in values:
            out.append(Evidence(f"quality.{metric}.{cid}", value, None, "recorded", f"{metric} of comparison {cid}", topics=words,
                                keys=about[cid], level="comparison"))
    return out


def texts(ctx: Context) -> list[tuple[str, str | None, str]]:
    """Return `(source name, finding path, text)` for every claim text of the run (claims.json fields, README/RESULTS, --claims-text)."""
    out: list[tuple[str, str | None, str]] = []
    model = evidence_of(ctx)
    model.need("claims")
    for prose in model.prose:
        size = len(prose.text) if len(prose.text) * 4 <= MAX_TEXT_BYTES else len(prose.text.encode("utf-8", "surrogatepass"))
        out.append((str(prose.location), prose.location.file, prose.text if size <= MAX_TEXT_BYTES else f"\x00too-large:{size}"))
    for name in sorted(ctx.bundle.verified):
        if "/" not in name and TEXT_FILES.fullmatch(name):
            path = ctx.bundle.path_of(name)
            data = path.read_bytes() if path is not None else b""
            if len(data) > MAX_TEXT_BYTES:  # never parsed: a number of millions of digits, or millions of numbers, is no claim text
                out.append((name, name, f"\x00too-large:{len(data)}"))
                continue
            try:
                out.append((name, name, data.decode("utf-8").removeprefix("\ufeff")))
            except UnicodeDecodeError as exc:
                out.append((name, name, f"\x00not-utf8:{exc.start}"))
    return out + given(ctx)


def blocked_texts(ctx: Context) -> list[tuple[str, int | None]]:
    """
    Return `(name, numbers)` for each root README/RESULTS file the manifest lists but `integrity.files` did not match.

    Its numbers are never judged (its bytes are not the ones the manifest
    pins), but they are counted, so a report says how many were left out
    instead of dropping them silently (issue 41). `numbers` is None when the
    file is absent, unreadable, larger than a claim text may be, or not UTF-8;
    at most `MAX_QUANTITIES + 1` numbers are counted (more than the limit).
    """
    try:
        manifest = ctx.bundle.raw_document("manifest")
    except Exception:  # noqa: BLE001 - no usable manifest: integrity.files says so, and no file is read at all
        return []
    out: list[tuple[str, int | None]] = []
    listed = [e.get("path") for e in (manifest.get("files") or []) if isinstance(e, dict)] if isinstance(manifest, dict) else []
    for name in sorted({n for n in listed if isinstance(n, str)}):
        if "/" in name or not TEXT_FILES.fullmatch(name) or name in ctx.bundle.verified:
            continue
        count: int | None = None
        try:
            path = ctx.bundle.root / name
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_TEXT_BYTES:
                count = len(extract(path.read_bytes().decode("utf-8").removeprefix("\ufeff"), name, None, set(), limit=MAX_QUANTITIES))
        except (OSError, UnicodeDecodeError):
            count = None
        out.append((name, count))
    return out


def _finding(o: Outcome, path: str | None) -> Finding:
    q = o.quantity
    status = {"PASS": Status.PASS, "FAIL": Status.FAIL, "UNVERIFIED": Status.UNVERIFIED}[o.status]
    detail: dict[str, Any] = {"claim": f"{q.where()} {q.stated}", "sentence": q.sentence, "source": q.source,
                              "line": q.line, "column": q.column, "stated": q.stated, "claimed": str(q.value),
                              "binding": o.evidence, "formula": o.formula}
    if o.derived is not None:
        detail["derived"] = str(o.derived)
        detail["delta"] = str(q.value - o.derived)
        detail["tolerance"] = str(o.tolerance)
    detail.update(o.extra)
    sentence = q.sentence if len(q.sentence) <= 160 else q.sentence[:157] + "..."
    return Finding(check=CHECK, status=status, code=o.code, path=path,
                   message=f'{q.where()}: {o.message}. Sentence: "{sentence}"',
                   expected=str(o.derived) if o.derived is not None else None, observed=detail, derivation=o.formula)


@check(CHECK, title="Every number the bundle's prose or pull request states is bound to the evidence, or named as unchecked",
       requires=("gate.pinned", "schema.documents"),
       roads={"profile": ("Every number the pull request states is bound to the values the profile derives, or named as unchecked", ())})
def stated(ctx: Context) -> Iterator[Finding]:
    """
    `judge` over the claim texts and values each reader gives: a bundle (native or mapped) the recorded gate outcomes of
    `claims.json` (`verifier.checks.outcomes`) first, then every claim text (`texts`, `blocked_texts`) with the values
    `collect_all` gives; a profile without a `bundle` section the run's claim text (`given`) with the values its claim
    rules derive (`profile_candidates`; in its pipeline only when a claim text is given).
    """
    profile = ctx.options.get("profile")
    if profile is not None and "bundle" not in profile:
        yield from judge(ctx, given(ctx), [], profile_candidates)
        return
    yield from outcomes(ctx)
    yield from judge(ctx, texts(ctx), blocked_texts(ctx), collect_all)


#: What a profile's count counts is not named by the profile: any of these nouns may name it.
_COUNT_NOUN = r"^(?:[a-z-]+\s+){0,2}(?:requests|receipts|records|runs|passes|samples|queries)\b"


def _counted(per: list[str]) -> str:
    """
    Return the pattern of the nouns a count rule's value may be stated with (`binding._count_noun`'s noun).

    A count noun (`_COUNT_NOUN`); a distributive "per X" / "each X" only for
    an X the rule counts per: "74 requests per server" is a count per
    server, never the count over all servers.
    """
    dims = "|".join(re.escape(d) for d in per)
    return _COUNT_NOUN + (rf"(?!.*\b(?:per|each)\b(?!\s+(?:{dims})\b))" if dims else r"(?!.*\b(?:per|each)\b)")


def profile_candidates(ctx: Context) -> Candidates:
    """
    Return `(evidence, pairs, keys, levels)`: every value the profile's claim rules derive, the arm pairs, the arm/server words, and no subject levels (`{}`).

    One `Evidence` per instance that derives (an underivable one gives
    nothing), named `rule_id[dim=value]...`, in the rule's unit; `keys` maps
    each arm and server value, and `baseline`/`candidate`, to the arm or
    server it names.
    """
    rules = [r for r in _profile(ctx).get("claims", []) if "pick" not in r]
    memo = _derivations(ctx)
    keys: dict[str, str] = {}
    for rule in rules:
        for role in ("baseline", "candidate"):
            if role in rule and not rule[role].startswith("{"):
                keys[role] = rule[role]
    evidence: list[Evidence] = []
    per_arm: dict[str, dict[str, Evidence]] = {}
    for rule in rules:
        records = _all_records(ctx, rule["receipts"])
        if not records:
            continue
        statistic, unit, per = rule["statistic"], rule.get("unit"), rule.get("per", [])
        plain = not any(isinstance(v, dict) for v in rule["selection"].values())
        for key in instances(rule, records):
            try:
                result = derive_rule(rule if plain else joined(ctx, rule, key), RecordSource(records), key, memo)
            except Underivable:
                continue
            for dim in ("arm", "server"):
                if dim in key:
                    keys.setdefault(key[dim], key[dim])
            name = rule["id"] + "".join(f"[{k}={v}]" for k, v in key.items())
            value = _convert(result.value, statistic, unit)
            if statistic == "count":
                evidence.append(Evidence(name, value, None, "derived", result.text, statistic="count", keys=frozenset(key.values()),
                                         nouns=_counted(per)))
                continue
            if statistic in ("relative_reduction_pct", "speedup"):
                evidence.append(Evidence(name, value, unit, "derived", result.text, statistic=statistic, keys=frozenset(key.values()),
                                         topics=frozenset({"speedup"} if statistic == "speedup" else {"reduction"})))
                continue
            stat = statistic_word(rule)
            timed = unit is not None and units.known(unit) and units.parse(unit).dimension == "time"
            level = "arm" if per == ["arm"] else "server" if "server" in per else None
            e = Evidence(name, value, unit, "derived", result.text, statistic=stat, keys=frozenset(key.values()),
                         topics=frozenset({"latency"} if timed else set(rule["id"].lower().replace("-", "_").split("_"))),
                         primary=statistic == "mean_of_server_means" and level == "arm", level=level)
            evidence.append(e)
            if level == "arm":
                per_arm.setdefault(rule["id"], {})[key["arm"]] = e
    base, cand = keys.get("baseline", "baseline"), keys.get("candidate", "candidate")
    return evidence, pairs_of(per_arm, base, cand), keys, {}


def given(ctx: Context) -> list[tuple[str, str | None, str]]:
    """Return `[(name, None, text)]` for the run's `verify --claims-text` (`ctx.options["claims_text"]`), `[]` without one."""
    text = ctx.options.get("claims_text")
    return [(text[0], None, text[1])] if text else []


def judge(ctx: Context, sources: list[tuple[str, str | None, str]], blocked: list[tuple[str, int | None]],
          candidates: Callable[[Context], Candidates]) -> Iterator[Finding]:
    """
    Extract and bind every stated number of every claim text: the one body of `claims.stated`, whichever reader read the bundle.

    `sources` are `(source name, finding path or None, text)` (`texts`, `given`), `blocked` the `(name, numbers)`
    of claim texts integrity blocked (`blocked_texts`), `candidates` the reader's values a number may bind to
    (`collect_all` for a native or mapped bundle, `profile_candidates` for a profile's), called once, when
    the first text states a number; `Unverifiable` it raises (plan or receipts unusable) propagates.

    PASS `bound`, `plan-count`, `gate-threshold`, `recorded-score`,
    `informational`, `no-claim-text`; FAIL `claim-mismatch`,
    `wording-mismatch`, `unit-mismatch`, `claim-text-not-utf8`;
    UNVERIFIED `unchecked-claim`, `unbound-claim`, `claim-text-too-long`, `claim-text-too-large`,
    `blocked-by-integrity` (a README/RESULTS the manifest lists whose bytes do not match: its numbers counted, not judged).
    """
    collected = None  # the values a number may bind to, derived once a text states a number (prose without one needs none)
    if not sources and not blocked:  # a README blocked by integrity is prose too: counted below, never a PASS for no prose
        yield Finding(check=CHECK, status=Status.PASS, code="no-claim-text",
                      message="the bundle states no headline, notes, claim texts or README, so there is no prose to bind")
        return
    numbered: list[str] = []  # the texts that state a number (a refused text counts: it has a finding)
    for name, path, text in sources:
        if text.startswith("\x00not-utf8:"):
            yield Finding(check=CHECK, status=Status.FAIL, code="claim-text-not-utf8", path=path,
                          message=f"{name} is not UTF-8 (first bad byte at offset {text.split(':')[1]}), so its claims cannot be read")
            numbered.append(name)
            continue
        if text.startswith("\x00too-large:"):
            yield Finding(check=CHECK, status=Status.UNVERIFIED, code="claim-text-too-large", path=path,
                          message=f"{name} is {text.split(':')[1]} bytes, more than the {MAX_TEXT_BYTES // 2**20} MiB a claim text may hold; none of its numbers is checked")
            numbered.append(name)
            continue
        reused: set[str] = set()
        quantities = extract(text, name, ctx.options.get("cache"), reused, limit=MAX_QUANTITIES)
        if len(quantities) > MAX_QUANTITIES:
            yield Finding(check=CHECK, status=Status.UNVERIFIED, code="claim-text-too-long", path=path,
                          message=f"{name} states more than the {MAX_QUANTITIES} numbers a claim text may state; none is checked")
            numbered.append(name)
            continue
        if not quantities:
            continue
        collected = collected or candidates(ctx)
        for outcome in bind(quantities, *collected):
            finding = _finding(outcome, path)
            yield dataclasses.replace(finding, cached="markdown") if reused else finding  # parsed by an earlier run
        numbered.append(name)
    for name, count in blocked:  # listed, but its bytes are not the manifest's: counted, never judged, never dropped silently
        numbers = "its numbers" if count is None else f"more than {MAX_QUANTITIES} numbers" if count > MAX_QUANTITIES else \
            f"{count} number{'' if count == 1 else 's'}"
        yield Finding(check=CHECK, status=Status.UNVERIFIED, code="blocked-by-integrity", path=name,
                      message=f"{name}: {numbers} not judged (blocked by integrity.files: its bytes do not match the manifest's sha256 and size)")
        numbered.append(name)
    if not numbered:  # a headline "Faster video generation" (or "") states nothing to check: as if there were no prose
        yield Finding(check=CHECK, status=Status.PASS, code="no-claim-text",
                      message=f"the prose ({', '.join(name for name, _, _ in sources)}) states no number, so there is nothing to bind")
