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

A receipt reader's stated numbers and a profile's claim sites go the same
road (`claims`, one body): the reader says per number the rule that derives
it (`derive.Stated`), and `derive.judge` derives and judges it.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.checks import profile_claims
from verifier.engine.derive import Stated, derive_rule, judge
from verifier.engine.stats import Underivable
from verifier.readers.campaign import Campaign, campaign_of, elapsed, select
from verifier.readers.native import evidence_of
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check

__all__ = ["CampaignSource", "Underivable", "claims", "derive_rule", "expand", "native_key"]

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
    A native bundle's campaign as a `verifier.engine.derive.Source`: latency statistics over every planned request of a selection.

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
       requires=("gate.pinned",),
       roads={"profile": ("Every claim the profile maps re-derives from the receipts at its stated precision", ()),
              "receipt": ("Every number the receipt states re-derives from its records; those it cannot support are UNVERIFIED",
                          ("schema.documents",))})
def claims(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive every number the evidence states and judge it (`derive.judge`): each reader gives its rows (`derive.Stated`).

    A bundle: each gate claim against `claims.json` (`_gate_claims`); a profile without a `bundle` section: its claim
    sites (`checks.profile_claims.claims`); a receipt reader (`ctx.options["reader"]`): its `stated(ctx)`, `reader.NOUN`
    naming the receipt's records in messages ("the cases").
    """
    reader, profile = ctx.options.get("reader"), ctx.options.get("profile")
    if reader is not None:
        for s in reader.stated(ctx):
            yield from judge(s, CHECK, ctx.options["name"], reader.NOUN)
    elif profile is not None and "bundle" not in profile:
        yield from profile_claims.claims(ctx)
    else:
        yield from _gate_claims(ctx)


def _gate_claims(ctx: Context) -> Iterator[Finding]:
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
