"""
A campaign's plan and receipts from the evidence model, indexed for the plan, receipt, derivation and claim checks.

Pure functions over `verifier.evidence` shapes (whatever reader built them:
the bundle v1 documents, or a foreign layout mapped by a profile); no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from verifier.evidence import Evidence, Plan, PlannedRequest, ProcessReceipt, Receipt
from verifier.readers.native import evidence_of

__all__ = ["Campaign", "campaign_of", "elapsed", "parse_time", "select"]


def parse_time(value: str) -> datetime:
    """Return an aware `datetime` for an RFC 3339 `date-time` string (already format-checked by the schema)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))


@dataclass
class Campaign:
    """
    Represents a plan with its receipts.

    `plan` is the model's `Plan`; `receipts` the request receipts and
    `workers` the worker process receipts, in the order read; `requests`
    maps request id to its request receipts (a list, so duplicates stay
    visible); `arm_of_server` and `label_of_arm` come from the plan.
    """

    plan: Plan
    receipts: tuple[Receipt, ...]
    workers: tuple[ProcessReceipt, ...] = ()
    requests: dict[str, list[Receipt]] = field(default_factory=dict)
    arm_of_server: dict[str, str] = field(default_factory=dict)
    label_of_arm: dict[str, str] = field(default_factory=dict)
    #: server id -> the plan's requests on that server, in plan order.
    planned_on: dict[str, list[PlannedRequest]] = field(default_factory=dict)

    @classmethod
    def build(cls, evidence: Evidence) -> Campaign:
        """
        Return the indexed campaign of `evidence` (linear in its sizes).

        Raises `Unverifiable` (the reader's code: `not-in-evidence`,
        `blocked-by-integrity`, `blocked-by-schema`) when its plan or
        receipts could not be used.
        """
        evidence.need("plan", "receipts")
        plan = evidence.plan or Plan(arms={}, servers={})
        c = cls(plan=plan, receipts=evidence.receipts, workers=evidence.processes)
        for r in evidence.receipts:
            c.requests.setdefault(r.dims.get("request_id", ""), []).append(r)
        c.arm_of_server = dict(plan.servers)
        c.label_of_arm = dict(plan.labels)
        for req in plan.requests:
            c.planned_on.setdefault(req.server, []).append(req)
        return c

    def planned(self, selection: dict[str, str]) -> list[PlannedRequest]:
        """
        Return the planned requests matching `selection` (keys `server`, `arm`, `phase`).

        With `server` only that server's requests are scanned, so a loop over
        servers stays linear in the plan's size.
        """
        pool = self.planned_on.get(selection["server"], []) if "server" in selection else self.plan.requests
        out = list(pool)  # `pool` is that server's already; filtered one key at a time, no row per request (issue 40)
        if "phase" in selection:
            phase = selection["phase"]
            out = [req for req in out if req.phase == phase]
        if "arm" in selection:
            arm, arm_of = selection["arm"], self.arm_of_server
            out = [req for req in out if arm_of.get(req.server) == arm]
        return out

    def servers_of_arm(self, arm: str) -> list[str]:
        """Return the plan's server ids of `arm`, in run order."""
        return [sid for sid, a in self.plan.run_order if a == arm]


def campaign_of(ctx: Any) -> Campaign:
    """Return the `Campaign` of the run's evidence (memoized in `ctx.data`); raises `Unverifiable` if plan or receipts are unusable."""
    if "campaign" not in ctx.data:
        ctx.data["campaign"] = Campaign.build(evidence_of(ctx))
    return ctx.data["campaign"]  # type: ignore[no-any-return]


def select(campaign: Campaign, selection: dict[str, str]) -> tuple[list[Receipt], list[str]]:
    """
    Return `(receipts, missing_ids)` for the planned requests matching `selection`.

    Each planned request contributes its one receipt; a planned request with no
    receipt is listed in `missing_ids`. An `outcome` key in `selection`
    filters receipts after the plan selection (the denominator stays the plan).
    """
    plan_sel = {k: v for k, v in selection.items() if k != "outcome"}
    chosen, missing = [], []
    for req in campaign.planned(plan_sel):
        found = campaign.requests.get(req.id, [])
        if not found:
            missing.append(req.id)
            continue
        receipt = found[0]
        if "outcome" in selection and receipt.outcome != selection["outcome"]:
            continue
        chosen.append(receipt)
    return chosen, missing


def elapsed(receipt: Receipt) -> Decimal:
    """Return a request receipt's elapsed time in seconds (`Decimal`, exact in the registry's units)."""
    quantity = receipt.quantities["elapsed"]
    if quantity is None:
        raise ValueError(f"receipt at {receipt.location} has no elapsed time")  # the schema requires one: our bug if reached
    if quantity.unit == "s":  # what `to("s")` returns for a quantity in seconds, without two unit parses per receipt
        return quantity.value
    return quantity.to("s")
