"""
A campaign's plan and receipts from the evidence model, indexed for the plan, receipt, derivation and claim checks.

Pure functions over `verifier.evidence` shapes (whatever reader built them:
the bundle v1 documents, or a foreign layout mapped by a profile); no I/O.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from verifier.evidence import Evidence, Plan, PlannedRequests, ProcessReceipt, Receipt, ReceiptTable, parse_time
from verifier.readers.native import evidence_of

__all__ = ["Campaign", "RequestIndex", "campaign_of", "elapsed", "parse_time", "select"]


class RequestIndex(Mapping[str, list[Receipt]]):
    """
    Represents request id -> the `Receipt`s recording it (a list, so duplicates stay visible), in the order read.

    An index of row numbers over a `ReceiptTable` (one dict entry per
    distinct id; a receipt without a `request_id` is filed under ""): the
    `Receipt` of a row is built when it is looked up, so checks that only
    count or join ids read `rows` and `first` and never build one.
    """

    __slots__ = ("table", "first", "more")

    def __init__(self, table: ReceiptTable) -> None:
        self.table = table
        #: request id -> its first row.
        self.first: dict[str, int] = {}
        #: request id -> its rows after the first (only for ids read more than once).
        self.more: dict[str, list[int]] = {}
        first, more = self.first, self.more
        for row, rid in enumerate(table.request_id):
            key = "" if rid is None else rid
            if first.setdefault(key, row) != row:
                more.setdefault(key, []).append(row)

    def rows(self, rid: str) -> list[int]:
        """Return the rows of request `rid` in the order read ([] when it has none)."""
        row = self.first.get(rid)
        return [] if row is None else [row, *self.more.get(rid, ())]

    def count(self, rid: str) -> int:
        """Return how many receipts record request `rid`."""
        return 0 if rid not in self.first else 1 + len(self.more.get(rid, ()))

    def __getitem__(self, rid: str) -> list[Receipt]:
        if rid not in self.first:
            raise KeyError(rid)
        return [self.table.row(i) for i in self.rows(rid)]

    def __iter__(self) -> Iterator[str]:
        return iter(self.first)

    def __len__(self) -> int:
        return len(self.first)

    def __contains__(self, rid: object) -> bool:
        return rid in self.first


@dataclass
class Campaign:
    """
    Represents a plan with its receipts.

    `plan` is the model's `Plan` (its `requests` as `PlannedRequests`); `receipts` the request receipts (a
    `ReceiptTable`: columns, one row per receipt in the order read) and
    `workers` the worker process receipts; `requests` maps request id to its
    request receipts (a `RequestIndex` of rows); `arm_of_server` and
    `label_of_arm` come from the plan.
    """

    plan: Plan
    receipts: ReceiptTable
    workers: tuple[ProcessReceipt, ...] = ()
    requests: RequestIndex = field(init=False)
    arm_of_server: dict[str, str] = field(default_factory=dict)
    label_of_arm: dict[str, str] = field(default_factory=dict)
    #: server id -> the rows of `plan.requests` on that server, in plan order (an `array` of 64-bit integers: no object a row).
    planned_on: dict[str, Sequence[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.receipts = ReceiptTable.of(self.receipts)
        self.requests = RequestIndex(self.receipts)
        if not isinstance(self.plan.requests, PlannedRequests):  # a plan a test or another reader built as a tuple
            self.plan = replace(self.plan, requests=PlannedRequests(self.plan.requests))

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
        c = cls(plan=plan, receipts=evidence.receipts, workers=tuple(evidence.processes))  # type: ignore[arg-type]
        c.arm_of_server = dict(plan.servers)
        c.label_of_arm = dict(plan.labels)
        on = c.planned_on
        for row, server in enumerate(c.plan.requests.server):
            if server in on:
                on[server].append(row)
            else:
                on[server] = array("q", (row,))
        return c

    def planned(self, selection: dict[str, str]) -> Sequence[int]:
        """
        Return the rows of `plan.requests` (`PlannedRequests`) matching `selection` (keys `server`, `arm`, `phase`), in plan order.

        With `server` only that server's requests are scanned, so a loop over
        servers stays linear in the plan's size. The rows are an `array` of
        64-bit integers (a `range` for no selection).
        """
        requests = self.plan.requests
        out: Sequence[int] = self.planned_on.get(selection["server"], ()) if "server" in selection else range(len(requests))
        if "phase" in selection:  # filtered one key at a time, over the columns (issue 40)
            phase, phases = selection["phase"], requests.phase
            out = array("q", (row for row in out if phases[row] == phase))  # no list of int objects on the way
        if "arm" in selection:
            arm, arm_of, servers = selection["arm"], self.arm_of_server, requests.server
            out = array("q", (row for row in out if arm_of.get(servers[row]) == arm))
        return out

    def servers_of_arm(self, arm: str) -> list[str]:
        """Return the plan's server ids of `arm`, in run order."""
        return [sid for sid, a in self.plan.run_order if a == arm]


def campaign_of(ctx: Any) -> Campaign:
    """Return the `Campaign` of the run's evidence (memoized in `ctx.data`); raises `Unverifiable` if plan or receipts are unusable."""
    if "campaign" not in ctx.data:
        ctx.data["campaign"] = Campaign.build(evidence_of(ctx))
    return ctx.data["campaign"]  # type: ignore[no-any-return]


def select(campaign: Campaign, selection: dict[str, str]) -> tuple[list[int], list[str]]:
    """
    Return `(rows, missing_ids)` for the planned requests matching `selection`: rows of `campaign.receipts`.

    Each planned request contributes the row of its first receipt; a planned
    request with no receipt is listed in `missing_ids`. A request the plan
    lists more than once (`plan.conformance` FAILs it) counts once in a
    selection, at the first of its listings the selection matches (listed
    under two servers, it counts in each server's selection). An `outcome`
    key in `selection` filters receipts after the plan selection (the
    denominator stays the plan).
    """
    plan_sel = {k: v for k, v in selection.items() if k != "outcome"}
    chosen, missing = [], []
    first, outcomes = campaign.requests.first, campaign.receipts.outcome
    want = selection.get("outcome")
    ids = campaign.plan.requests.id
    repeated, seen = campaign.plan.requests.repeated, set()
    for rid in map(ids.__getitem__, campaign.planned(plan_sel)):
        if rid in repeated:
            if rid in seen:
                continue
            seen.add(rid)
        row = first.get(rid)
        if row is None:
            missing.append(rid)
        elif want is None or outcomes[row] == want:
            chosen.append(row)
    return chosen, missing


def elapsed(table: ReceiptTable, row: int) -> Decimal:
    """Return the elapsed time in seconds (`Decimal`, exact) of request receipt `row` of `table`; raises `ValueError` when it records none."""
    value = table.seconds(row)
    if value is None:
        raise ValueError(f"receipt at {table.file} {table.pointer(row)} has no elapsed time")  # the schema requires one: our bug if reached
    return value
