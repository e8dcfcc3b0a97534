"""
Derivation: every claim the gate requires is re-derived from the receipts.

The gate names, per claim, the statistic and the selection (see
`docs/bundle-format.md`, "Gate"). Claims are read as `Decimal` and compared at
the precision they are stated: a claim holds when |claimed - derived| is at
most half a unit of its last stated place, unless the gate sets `tolerance`.
Latency statistics are taken over every planned request of the selection: a
missing receipt or a failed or timed-out request leaves the statistic
underivable over the planned denominator, so the claim FAILs
(`incomplete-denominator`) rather than being computed over the survivors.
A claim in `claims.json` that no gate rule derives is UNVERIFIED.

A receipt reader's stated numbers (`receipt_claims`) go the same road: the
reader says per number the rule that derives it (`derive.Stated`), and
`derive_rule` and `stats.compare` derive and judge it.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier import stats, units
from verifier.derive import Stated, claim_finding, derive_rule
from verifier.stats import Underivable
from verifier.campaign import Campaign, campaign_of, elapsed, select
from verifier.readers.native import evidence_of
from verifier.model import Finding, Status
from verifier.evidence import Location
from verifier.numtext import comparison_text, delta_text, number, tolerance_text
from verifier.pipeline import Check, Context, check

__all__ = ["CampaignSource", "Underivable", "claims", "derive_rule", "expand", "judge", "native_key", "receipt_claims"]

CHECK = "derivation.claims"


def _latencies(c: Campaign, selection: dict[str, str]) -> tuple[list[Decimal], str]:
    rows, missing = select(c, selection)
    planned = len(rows) + len(missing)
    table = c.receipts
    bad = [table.request_id[i] for i in rows if table.outcome[i] != "ok"]
    label = ", ".join(f"{k}={v}" for k, v in sorted(selection.items()))
    if planned == 0:
        raise Underivable(f"no planned requests match {label}", "empty-selection")
    if missing or bad:
        ok = planned - len(missing) - len(bad)
        raise Underivable(
            f"{ok}/{planned} planned requests ({label}) succeeded with a receipt "
            f"(missing: {missing or 'none'}; failed or timed out: {bad or 'none'}); "
            f"a latency statistic over {ok} is not one over {planned}",
            "incomplete-denominator",
        )
    return [elapsed(table, i) for i in rows], f"measured values ({label})"


def _servers(c: Campaign, selection: dict[str, str]) -> dict[str, list[Decimal]]:
    """Return server -> latencies of the arm `selection` names, each over its planned denominator."""
    arm = selection["arm"]
    servers = c.servers_of_arm(arm)
    if not servers:
        raise Underivable(f"arm {arm} has no servers in the plan", "empty-selection")
    return {sid: _latencies(c, {**selection, "server": sid})[0] for sid in servers}


class CampaignSource:
    """
    A native bundle's campaign as a `verifier.derive.Source`: latency statistics over every planned request of a selection.

    Values are the receipts' elapsed seconds (`campaign.elapsed`; the rule's
    `value` is always the latency); a missing receipt or a failed or timed-out
    request raises `Underivable` `incomplete-denominator`. Arm statistics
    read the measured phase unless the selection names one. `count` counts
    request receipts, worker exits or the quality index's comparisons (the
    rule's `of`). `ratio_of_sums` has no values here (`empty-selection`).
    """

    __slots__ = ("basis", "ctx")

    def __init__(self, c: Campaign, ctx: Context) -> None:
        self.basis, self.ctx = c, ctx

    def label(self, selection: dict[str, Any]) -> str:
        """The selection as derivation texts name it ("arm=a, phase=measured")."""
        return ", ".join(f"{k}={v}" for k, v in sorted(selection.items()))

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[Any], str]:
        """Request receipts of the selection, workers that exited, or the quality comparisons (`rule["of"]`)."""
        c, of = self.basis, rule["of"]
        if of == "requests":
            rows, missing = select(c, selection)
            return rows, f"request receipts matching {selection or 'all'} ({len(missing)} planned without receipt)"
        if of == "worker_exits":
            return [w for w in c.workers if w.exit_code is not None or w.signal is not None], f"worker receipts with an exit code or signal ({len(c.workers)} worker receipts)"
        evidence = evidence_of(self.ctx)
        evidence.need("quality")
        index = evidence.quality[0].location.file if evidence.quality else "the quality index"
        return evidence.quality, f"comparisons in {index}"

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """The latencies of every planned request of the selection."""
        return _latencies(self.basis, selection)

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """Server -> latencies of the arm the selection names."""
        return _servers(self.basis, selection), self.label(selection)

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """Arm -> server -> latencies of the measured phase (unless the selection names a phase)."""
        sel = {"phase": "measured", **selection}
        return {arm: _servers(self.basis, {**sel, "arm": arm}) for arm in (baseline, candidate)}, "arm means of server means"

    def sums(self, selection: dict[str, Any], numerator: str, denominator: str) -> tuple[list[list[Decimal]], str]:
        """Not given by a native campaign: raises `Underivable`."""
        raise Underivable("a native gate names no values to sum", "empty-selection")


def native_key(rule: dict[str, Any], key: str | None) -> dict[str, str]:
    """The instance key `derive_rule` takes for a native rule: `{per: key}` (server or arm id), or none."""
    return {rule["per"]: key} if rule.get("per") and key is not None else {}


def expand(rule: dict[str, Any], c: Campaign) -> list[tuple[str, str | None]]:
    """Return `[(claim_id, key)]` for one gate rule: one per server or arm of the plan when the rule has `per`, else one with key None."""
    per = rule.get("per")
    if per == "server":
        keys = [sid for sid, arm in c.plan.run_order if "arm" not in rule.get("selection", {}) or arm == rule["selection"]["arm"]]
    elif per == "arm":
        keys = list(c.plan.arms)
    else:
        return [(rule["claim"], None)]
    return [(f"{rule['claim']}.{k}", k) for k in keys]


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=CHECK, status=status, code=code, message=message, path="claims.json", **kw)


@check("derivation.claims", title="Every claim the gate requires re-derives from the receipts at its stated precision",
       requires=("gate.pinned",))
def claims(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive each gate claim and compare with `claims.json`.

    A claim stated in another unit of the rule's dimension (`ms` for `s`) is
    converted exactly and compared at its own stated precision, converted.
    PASS `derived`; FAIL `claim-mismatch`, `claim-missing`, `incomplete-denominator`,
    `empty-selection`, `unit-mismatch` (a unit of another dimension, or unknown); UNVERIFIED `not-derivable` for claims no rule covers.
    """
    c = campaign_of(ctx)
    evidence = evidence_of(ctx)
    evidence.need("claims")
    by_id: dict[str, tuple[int, Any]] = {}
    for i, claim in enumerate(evidence.claims):
        if claim.id in by_id:
            yield _f(Status.FAIL, "duplicate-claim", f"claim {claim.id} appears twice", pointer=f"/claims/{i}/id")
        by_id[claim.id] = (i, claim)
    covered: set[str] = set()
    for rule in (ctx.gate or {}).get("claims", []):
        for claim_id, key in expand(rule, c):
            covered.add(claim_id)
            if claim_id not in by_id:
                yield _f(Status.FAIL, "claim-missing", f"the gate requires claim {claim_id}, which claims.json does not state", expected=claim_id)
                continue
            index, claim = by_id[claim_id]
            yield from judge(Stated(claim_id, claim.value, f"/claims/{index}/value", rule, CampaignSource(c, ctx), unit=claim.unit or "",
                                    key=native_key(rule, key), style="gate", unit_pointer=f"/claims/{index}/unit"), CHECK, "claims.json", "the receipts")
    for claim_id in sorted(set(by_id) - covered):
        index, claim = by_id[claim_id]
        yield _f(Status.UNVERIFIED, "not-derivable", f"{claim_id} = {claim.value}: the gate has no derivation for it, so it is not verified",
                 pointer=f"/claims/{index}")


def receipt_claims(reader: Any) -> Check:
    """
    Return the `derivation.claims` check of receipt reader `reader`: each `derive.Stated` of `reader.stated(ctx)` judged
    (`judge`, `reader.NOUN` naming the receipt's records in messages: "the cases").
    """

    def run(ctx: Context) -> Iterator[Finding]:
        for s in reader.stated(ctx):
            yield from judge(s, CHECK, ctx.options["name"], reader.NOUN)

    return Check(CHECK, "Every number the receipt states re-derives from its records; those it cannot support are UNVERIFIED",
                 run, ("schema.documents",))


def judge(s: Stated, check_id: str, name: str | None, noun: str) -> Iterator[Finding]:
    """
    Judge one stated number (`derive.Stated`, from any road: a native claim, a receipt's number, a profile's claim site) into its findings.

    The one road after a number is found: refused, contradicted or not derivable as the row says; else derived
    (`derive_rule` over `s.source` with `s.key`, then `s.adjust`), its unit reconciled with the stated one (`s.style`),
    bounded (`stats.tolerance`: the statistic over its inputs, the rule's `tolerance`, `s.scale`, `s.steps`) and compared
    (`stats.compare`). `name` is the file a row with `path` "" names, `noun` what gives the derived value in messages
    ("the receipts", "the cases"). Yields one finding: PASS `derived`; FAIL `s.mismatch` (`claim-mismatch` by default),
    `unit-mismatch`, `definition-contradicts-value`, `samples-mismatch`, or an `Underivable`'s code (FAIL or UNVERIFIED
    as it says); UNVERIFIED `not-derivable`; a refused number, its `derive.Refused` finding (observed: the stated number
    as text when the refusal gives none, so every report shows it as claimed).
    """
    name = name if s.path == "" else s.path  # a receipt directory's row names its own carrier, or no file

    def f(status: Status, code: str, message: str, **kw: Any) -> Finding:
        return Finding(check=check_id, status=status, code=code, message=message, path=name, **{"pointer": s.pointer, **kw})

    if s.refused is not None:  # a refused stated number is its finding's observed unless the reader says otherwise
        observed = s.refused.observed if s.refused.observed is not None or s.claimed is None else str(s.claimed)
        yield f(s.refused.status, s.refused.code, s.refused.message, expected=s.refused.expected, observed=observed)
        return
    if s.conflict is not None:
        yield f(Status.FAIL, "definition-contradicts-value", f"{s.label}: {s.conflict[1]}", pointer=s.conflict[0], observed=s.conflict[2])
        return
    if s.rule is None:
        yield f(Status.UNVERIFIED, "not-derivable", f"{s.label} = {s.claimed} {s.unit}: not re-derived: {s.why}", observed=str(s.claimed))
        return
    try:
        result = derive_rule(s.rule, s.source, s.key, s.memo)
        derived, text = result.value, result.text
        if s.adjust is not None:
            derived, text = s.adjust(derived, text)
    except Underivable as exc:
        exc = s.explain(exc) if s.explain is not None else exc
        yield f(Status.FAIL if exc.fail else Status.UNVERIFIED, exc.code, f"{s.label} = {s.claimed}: {exc}" if s.style == "gate" else f"{s.label}: {exc}",
                observed=None if s.claimed is None else str(s.claimed))
        return
    if s.rule["statistic"] in stats.COUNT_RESULTS and s.style == "receipt":
        how, n = s.rule.get("description"), int(derived)
        holds = stats.compare(s.claimed, derived, exact=True).holds
        if s.words is not None:
            message = s.words[0 if holds else 1].format(claimed=s.claimed, derived=n)
        else:
            message = f"{s.label} = {s.claimed} re-derives ({how})" if holds else f"{s.label} = {s.claimed}, but {noun} give {n} ({how})"
        yield f(Status.PASS if holds else Status.FAIL, "derived" if holds else s.mismatch, message, expected=n, observed=s.claimed, derivation=how)
        return
    if s.how is not None:  # worded as the producer's own identities are (`claim_finding`)
        bound = s.bound if s.bound is not None else (
            {"statistic": result.statistic, "values": result.inputs, "input_error": s.input_error, "steps": s.steps} if s.float_bound else {})
        yield claim_finding(check_id, s.claimed, derived, name=name, pointer=s.pointer, label=s.label, how=s.how, scale=s.scale, **bound)
        return
    if s.samples is not None and not stats.compare(s.samples[0], Decimal(len(result.inputs)), exact=True).holds:
        yield f(Status.FAIL, "samples-mismatch", f"{s.label} says {s.samples[0]} samples, {noun} record {len(result.inputs)} {s.samples[2]}",
                pointer=s.samples[1], expected=len(result.inputs), observed=s.samples[0])
        return
    claimed, unit, rule_unit = s.claimed, s.unit, s.rule.get("unit") or ""
    bound = {"statistic": result.statistic, "values": result.inputs, "declared": s.rule.get("tolerance"), "scale": s.scale, "steps": s.steps}
    latency = s.style == "gate" and result.statistic not in (*stats.COUNT_RESULTS, *stats.RATIO_RESULTS, *stats.PERCENT_RESULTS)
    if latency and (named := rule_unit or unit) and named != "s":  # a native statistic of latencies is in s: into the unit the rule (else the claim) names
        try:
            derived, bound["scale"] = units.convert(derived, "s", named), units.convert(Decimal(1), "s", named)
        except (units.UnitError, units.UnitMismatch):
            yield f(Status.FAIL, "unit-mismatch", f"{s.label}: the gate derives a latency statistic (in s), which cannot be written in {named}",
                    pointer=s.unit_pointer if not rule_unit else s.pointer, expected="s", observed=named, derivation=text)
            return
        text = f"{text}; in {named}: {derived}"
    if s.style == "gate" and unit and rule_unit and unit != rule_unit:  # a claim stated in another unit of the rule's dimension, converted exactly
        try:
            given, wanted = units.parse(unit), units.parse(rule_unit)
            converted = given.convert(claimed, wanted)
        except (units.UnitError, units.UnitMismatch) as exc:
            yield f(Status.FAIL, "unit-mismatch", f"{s.label} is stated in {unit}, but the gate derives it in {rule_unit}: {exc}",
                    pointer=s.unit_pointer, expected=rule_unit, observed=unit, derivation=text)
            return
        if bound["declared"] is None:  # the stated precision and the float bound in the stated unit, carried into the rule's unit
            in_stated = stats.tolerance(claimed, **{**bound, "scale": wanted.convert(bound["scale"], given)})
            bound["declared"] = abs(given.convert(in_stated, wanted))
        text = f"{text}; stated {claimed} {unit} = {converted} {rule_unit}"
        claimed, unit = converted, rule_unit
    elif s.style == "profile" and unit and unit != rule_unit:  # the derived value converted into the stated unit
        try:
            derived = units.convert(derived, rule_unit or "1", unit)
        except (units.UnitError, units.UnitMismatch):
            have = units.parse(rule_unit or "1").dimension  # the rule's unit was checked at load; "" is dimensionless
            stated_dim = units.parse(unit).dimension if units.known(unit) else "unknown unit"
            yield f(Status.FAIL, "unit-mismatch", f"{s.label}: {Location(name or '', s.pointer or '')} states {claimed} in {unit} ({stated_dim}), but the value "
                    f"it names is derived in {rule_unit or '1'} ({have}): {stats.fmt(derived)} {rule_unit}",
                    expected=f"{claimed} {unit}", observed=f"{derived} {rule_unit}", derivation=text)
            return
    elif s.style == "profile":
        unit = rule_unit
    cmp = stats.compare(claimed, derived, **bound)
    shown_unit = f" {unit}" if unit and unit != "1" else ""  # the dimensionless unit is not written ("count = 5")
    if s.style == "profile":
        bounded = tolerance_text(cmp.tolerance, unit or None)
        shown, bounded = (stats.fmt(derived), bounded) if cmp.holds else comparison_text(claimed, derived, cmp.tolerance, unit or None)
        if not cmp.holds:  # the digits the claims tables show: past the stated places until the delta reads on its side of the tolerance
            shown = shown[: -len(unit) - 1] if unit and unit != "1" else shown
            other = s.other(claimed, derived, unit, text) if s.other is not None else None
            if other is not None:  # the stated number is another value of the same receipt, e.g. tokens/s stated as samples/s
                yield other
                return
        yield f(Status.PASS if cmp.holds else Status.FAIL, "derived" if cmp.holds else s.mismatch, f"{s.label}: stated {claimed}{shown_unit}, derived {shown}{shown_unit} ({bounded})",
                expected=str(claimed), observed=str(derived), derivation=text)
        return
    detail = {"claim": s.label, **cmp.detail(claimed, derived)}
    if s.style == "gate":
        c, d, t = number(claimed), number(derived), tolerance_text(cmp.tolerance, unit or None)
        passed, failed = f"{s.label} = {c}{shown_unit} re-derives ({d}, {t})", f"{s.label} claims {c}{shown_unit}, {noun} give {d}{shown_unit} ({delta_text(cmp.delta, unit or None)}, {t})"
    else:
        passed, failed = f"{s.label} = {claimed} re-derives ({derived})", f"{s.label} = {claimed}, {noun} give {derived}"
    if cmp.holds:
        yield f(Status.PASS, "derived", passed, expected=str(derived), observed=detail, derivation=text)
    elif s.alternative is not None and stats.compare(claimed, (alt := derive_rule(s.alternative[0], s.source, {})).value,
                                                     statistic=alt.statistic, values=alt.inputs).holds:
        yield f(Status.FAIL, "definition-contradicts-value", f"{s.label} = {claimed}: " + s.alternative[1].format(derived=derived),
                expected=str(derived), observed=detail, derivation=text)
    else:
        yield f(Status.FAIL, s.mismatch, failed, expected=str(derived), observed=detail, derivation=text)
