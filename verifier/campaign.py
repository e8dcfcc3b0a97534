"""
A campaign's plan and receipts from the evidence model, indexed for the plan, receipt, derivation and claim checks.

Pure functions over `verifier.evidence` shapes (whatever reader built them:
the bundle v1 documents, or a foreign layout mapped by a profile); no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from verifier.evidence import Evidence, Plan, PlannedRequests, ProcessReceipt, Receipt, ReceiptTable, parse_time
from verifier.readers.native import evidence_of

__all__ = ["Campaign", "RequestIndex", "campaign_of", "codes_of", "elapsed", "parse_time", "select"]


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
        ids = table.request_id
        keys = ["" if rid is None else rid for rid in ids] if None in ids else ids
        first = dict(zip(keys, range(len(keys))))  # each id at its last row: right, and in the order read, when no id repeats
        if len(first) == len(keys):
            self.first = first
            return
        first, more = self.first, self.more
        for row, key in enumerate(keys):
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
    #: server id -> the rows of `plan.requests` on that server, in plan order (a numpy array of int64: no object a row).
    planned_on: dict[str, Sequence[int]] = field(default_factory=dict)
    #: `(server codes, phase codes)` of `plan.requests` (`codes_of` each), found when first asked for (`plan_codes`).
    _plan_codes: Any = field(default=None, init=False, repr=False, compare=False)

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
        import numpy as np  # noqa: PLC0415 - as in `codes_of`

        (codes, code_of), _phases = c.plan_codes()
        order = np.argsort(codes, kind="stable")  # the rows grouped by server, each group in plan order
        ends = np.cumsum(np.bincount(codes, minlength=len(code_of))).tolist()
        c.planned_on = {server: order[(ends[k - 1] if k else 0):ends[k]] for server, k in code_of.items()}
        return c

    def plan_codes(self) -> tuple[tuple[Any, dict[str, int]], tuple[Any, dict[str, int]]]:
        """Return `codes_of(plan.requests.server)` and `codes_of(plan.requests.phase)` (computed once per campaign)."""
        if self._plan_codes is None:
            requests = self.plan.requests
            self._plan_codes = (codes_of(requests.server), codes_of(requests.phase))
        return self._plan_codes  # type: ignore[no-any-return]

    def planned(self, selection: dict[str, str]) -> Sequence[int]:
        """
        Return the rows of `plan.requests` (`PlannedRequests`) matching `selection` (keys `server`, `arm`, `phase`), in plan order.

        With `server` only that server's rows (`planned_on`) are filtered, so
        a loop over servers stays linear in the plan's size. The rows are a
        contiguous numpy array of int64.
        """
        import numpy as np  # noqa: PLC0415 - as in `codes_of`

        requests = self.plan.requests
        out = (np.ascontiguousarray(self.planned_on.get(selection["server"], ()), dtype=np.int64) if "server" in selection
               else np.arange(len(requests), dtype=np.int64))
        if "phase" in selection or "arm" in selection:  # filtered one key at a time, over the columns' codes (issue 40)
            (servers, server_code), (phases, phase_code) = self.plan_codes()
            if "phase" in selection:
                out = out[phases[out] == phase_code.get(selection["phase"], -1)]
            if "arm" in selection:
                arm, arm_of = selection["arm"], self.arm_of_server
                out = out[np.isin(servers[out], [k for server, k in server_code.items() if arm_of.get(server) == arm])]
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
    first, outcomes = campaign.requests.first, campaign.receipts.outcome
    want = selection.get("outcome")
    ids = campaign.plan.requests.id
    rows = memoryview(campaign.planned(plan_sel))  # ints one at a time: no list of them
    repeated: dict[str, int] = campaign.plan.requests.repeated
    once: list[str] | None = None  # the selected ids, each at the first of its listings, when the plan lists one twice
    if repeated:
        once, seen = [], set()
        for rid in map(ids.__getitem__, rows):
            if rid in repeated:
                if rid in seen:
                    continue
                seen.add(rid)
            once.append(rid)

    def selected() -> Iterable[str]:  # the ids, without a list of them (8 MB at 10^6) while the derivations hold their values
        return map(ids.__getitem__, rows) if once is None else once

    chosen: list[Any] = list(map(first.get, selected()))
    missing: list[str] = []
    if None in chosen:
        missing = [rid for rid, row in zip(selected(), chosen) if row is None]
        chosen = [row for row in chosen if row is not None]
    if want is not None:
        chosen = [row for row in chosen if outcomes[row] == want]
    return chosen, missing


def codes_of(values: Sequence[Any]) -> tuple[Any, dict[Any, int]]:
    """
    Return `(codes, code_of)`: `values` (hashable; a column of 10^6) as a numpy array of codes, and value -> its code.

    Codes number the distinct values from 0 in the order first met, so
    grouping and comparing by value are integer operations; the array is of
    the smallest signed integers that hold them (int8 up to 127 values: 1 MB
    for 10^6), so -1 compares as no value. numpy is imported here, by a run
    that judges a campaign, not by every run (about 0.1 s).
    """
    import numpy as np  # noqa: PLC0415

    code_of = {value: k for k, value in enumerate(dict.fromkeys(values))}
    dtype = np.int8 if len(code_of) <= 127 else np.int16 if len(code_of) <= 32767 else np.int32
    return np.fromiter(map(code_of.__getitem__, values), dtype=dtype, count=len(values)), code_of


def elapsed(table: ReceiptTable, row: int) -> Decimal:
    """Return the elapsed time in seconds (`Decimal`, exact) of request receipt `row` of `table`; raises `ValueError` when it records none."""
    value = table.seconds(row)
    if value is None:
        raise ValueError(f"receipt at {table.file} {table.pointer(row)} has no elapsed time")  # the schema requires one: our bug if reached
    return value
