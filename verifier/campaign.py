"""
A campaign's plan and receipts, indexed for the plan and derivation checks.

Pure functions over the parsed documents; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

__all__ = ["Campaign", "parse_time", "select"]


def parse_time(value: str) -> datetime:
    """Return an aware `datetime` for an RFC 3339 `date-time` string (already format-checked by the schema)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))


@dataclass
class Campaign:
    """
    Represents a plan with its receipts.

    `plan` and `receipts` are the parsed documents; `requests` maps request id
    to its request receipts (a list, so duplicates stay visible), `workers`
    holds the worker receipts, `arm_of_server` and `label_of_arm` come from the
    plan.
    """

    plan: dict[str, Any]
    receipts: list[dict[str, Any]]
    requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    workers: list[dict[str, Any]] = field(default_factory=list)
    arm_of_server: dict[str, str] = field(default_factory=dict)
    label_of_arm: dict[str, str] = field(default_factory=dict)
    #: `id(receipt)` -> its 0-based line in `receipts`, so a finding's JSON pointer costs O(1), not a `list.index` scan.
    line_of: dict[int, int] = field(default_factory=dict)
    #: server id -> the plan's requests on that server, in plan order.
    planned_on: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def build(cls, plan: dict[str, Any], receipts: list[dict[str, Any]]) -> Campaign:
        """Return the indexed campaign for a schema-valid plan and receipt list (linear in their sizes)."""
        c = cls(plan=plan, receipts=receipts)
        for i, r in enumerate(receipts):
            c.line_of[id(r)] = i
            if r["kind"] == "request":
                c.requests.setdefault(r["request_id"], []).append(r)
            else:
                c.workers.append(r)
        c.arm_of_server = {s["id"]: s["arm"] for s in plan["servers"]}
        c.label_of_arm = {a["id"]: a["label"] for a in plan["arms"]}
        for req in plan["requests"]:
            c.planned_on.setdefault(req["server"], []).append(req)
        return c

    def pointer(self, receipt: dict[str, Any]) -> str:
        """Return the JSON pointer (`/<line>`, 0-based) of `receipt`, one of this campaign's receipts."""
        return f"/{self.line_of[id(receipt)]}"

    def planned(self, selection: dict[str, str]) -> list[dict[str, Any]]:
        """
        Return the planned requests matching `selection` (keys `server`, `arm`, `phase`).

        With `server` only that server's requests are scanned, so a loop over
        servers stays linear in the plan's size.
        """
        out = []
        pool = self.planned_on.get(selection["server"], []) if "server" in selection else self.plan["requests"]
        for req in pool:
            row = {"server": req["server"], "phase": req["phase"], "arm": self.arm_of_server.get(req["server"])}
            if all(row.get(k) == v for k, v in selection.items() if k in row):
                out.append(req)
        return out

    def servers_of_arm(self, arm: str) -> list[str]:
        """Return the plan's server ids of `arm`, in run order."""
        return [s["id"] for s in self.plan["servers"] if s["arm"] == arm]


def select(campaign: Campaign, selection: dict[str, str]) -> tuple[list[dict[str, Any]], list[str]]:
    """
    Return `(receipts, missing_ids)` for the planned requests matching `selection`.

    Each planned request contributes its one receipt; a planned request with no
    receipt is listed in `missing_ids`. An `outcome` key in `selection`
    filters receipts after the plan selection (the denominator stays the plan).
    """
    plan_sel = {k: v for k, v in selection.items() if k != "outcome"}
    chosen, missing = [], []
    for req in campaign.planned(plan_sel):
        found = campaign.requests.get(req["id"], [])
        if not found:
            missing.append(req["id"])
            continue
        receipt = found[0]
        if "outcome" in selection and receipt["outcome"] != selection["outcome"]:
            continue
        chosen.append(receipt)
    return chosen, missing


def elapsed(receipt: dict[str, Any]) -> Decimal:
    """Return a request receipt's elapsed seconds as `Decimal`."""
    return Decimal(receipt["elapsed_s"])
