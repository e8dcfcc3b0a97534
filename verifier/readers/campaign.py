"""
A campaign's plan and receipts from the evidence model, indexed for the plan, receipt, derivation and claim checks.

Pure functions over `verifier.model.evidence` shapes (whatever reader built them:
the bundle v1 documents, or a foreign layout mapped by a profile); no I/O.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from itertools import repeat
from typing import Any

from verifier.model.evidence import Evidence, Plan, PlannedRequests, ProcessReceipt, Receipt, ReceiptTable, parse_time
from verifier.readers.native import evidence_of

__all__ = ["Campaign", "PlanJoin", "RequestIndex", "campaign_of", "codes_of", "elapsed", "parse_time", "select"]


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


class PlanJoin:
    """
    Represents a campaign's request receipts joined to its plan's requests, as numpy arrays (issue 40: no dict of 10^6 ids).

    Built once per campaign (`Campaign.join`). A receipt's id is its
    `request_id`, "" for a receipt without one (as `RequestIndex` files it).

    - `at`: int64, one per planned row: the first receipt row of its id, -1
      when it has none (every listing of an id listed twice has it);
    - `first`: bool, one per receipt row: whether it is the first receipt of
      its id; `first_rows` the rows where it is (int64, increasing);
    - `more`: id -> its receipt rows after the first (lists of int), only
      for ids read more than once;
    - `firsts`: id -> its first receipt row, for the ids of `more`;
    - `unplanned`: id -> its first receipt row, for each id the plan does
      not list.

    A receipt's planned row (the last listing of its id) is found
    `_CHUNK` rows at a time: when `table.shares` is `requests` (the native
    reader holds each planned id as the plan's own object) by comparing
    objects (their `id()`s, sorted: 16 bytes a planned row while the join
    is built), otherwise by a dict of the plan's ids. Both give the same
    arrays (`tests/readers/test_receipt_table.py`).
    """

    __slots__ = ("at", "first", "first_rows", "more", "firsts", "unplanned")

    def __init__(self, table: ReceiptTable, requests: PlannedRequests) -> None:
        import numpy as np  # noqa: PLC0415 - as in `codes_of`

        ids, n = table.request_id, len(table)
        planned = np.empty(n, dtype=np.int64)  # receipt row -> the row of its id's last listing, -1 for none
        if table.shares is requests and len(requests) and None not in ids:
            addresses = np.fromiter(map(id, requests.id), dtype=np.uint64, count=len(requests))
            order = np.argsort(addresses, kind="stable")  # one object listed twice: its last listing last
            addresses = addresses[order]
            for lo in range(0, n, _CHUNK):
                mine = np.fromiter(map(id, ids[lo:lo + _CHUNK]), dtype=np.uint64)
                pos = np.searchsorted(addresses, mine, side="right") - 1
                pos[pos < 0] = 0
                planned[lo:lo + len(mine)] = np.where(addresses[pos] == mine, order[pos], -1)
            del addresses, order
        else:
            index = {rid: row for row, rid in enumerate(requests.id)}  # each id at its last listing
            for lo in range(0, n, _CHUNK):
                keys = ["" if rid is None else rid for rid in ids[lo:lo + _CHUNK]]
                planned[lo:lo + len(keys)] = np.fromiter(map(index.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
            del index
        at = np.full(len(requests), n, dtype=np.int64)
        listed = planned >= 0
        for lo in range(0, n, _CHUNK):  # each planned row's first receipt (n for none)
            ok = np.flatnonzero(listed[lo:lo + _CHUNK])
            np.minimum.at(at, planned[lo:lo + _CHUNK][ok], ok + lo)
        self.first = first = np.zeros(n, dtype=bool)
        self.more: dict[str, list[int]] = {}
        self.unplanned: dict[str, int] = {}
        self.firsts: dict[str, int] = {}
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            mine, ok = planned[lo:hi], listed[lo:hi]
            first[lo:hi] = ok & (at[np.where(ok, mine, 0)] == np.arange(lo, hi)) if len(at) else False
            for row in (np.flatnonzero(~first[lo:hi]) + lo).tolist():  # a second receipt of an id, or one the plan does not list
                rid = ids[row]
                key = "" if rid is None else rid
                if listed[row] or self.unplanned.setdefault(key, row) != row:
                    self.more.setdefault(key, []).append(row)
                    self.firsts.setdefault(key, int(at[planned[row]]) if listed[row] else self.unplanned[key])
                else:
                    first[row] = True
        at[at == n] = -1
        last = requests.last
        if last:  # an id listed more than once: each listing gets its last listing's
            for k in np.flatnonzero(np.fromiter(map(last.__contains__, requests.id), dtype=bool, count=len(requests))).tolist():
                at[k] = at[last[requests.id[k]]]
        self.at = at
        self.first_rows = np.flatnonzero(first)

    def is_first(self, row: int) -> bool:
        """Return whether receipt `row` is the first receipt of its id."""
        return bool(self.first[row])

    def first_of(self, row: int, rid: str | None) -> int:
        """Return the first receipt row of the id `rid` of receipt `row` (its `request_id`, None for none)."""
        return row if self.first[row] else self.firsts["" if rid is None else rid]


#: Receipt rows joined at once by `PlanJoin`: its passes hold arrays of this length, not of every row.
_CHUNK = 1 << 16


@dataclass
class Campaign:
    """
    Represents a plan with its receipts.

    `plan` is the model's `Plan` (its `requests` as `PlannedRequests`); `receipts` the request receipts (a
    `ReceiptTable`: columns, one row per receipt in the order read) and
    `workers` the worker process receipts; `join` the receipts joined to
    the plan's requests (`PlanJoin`, arrays: what plan conformance and the
    derivations read); `requests` maps request id to its request receipts
    (a `RequestIndex` of rows, built when first asked for: a dict of every
    id); `arm_of_server` and `label_of_arm` come from the plan.
    """

    plan: Plan
    receipts: ReceiptTable
    workers: tuple[ProcessReceipt, ...] = ()
    arm_of_server: dict[str, str] = field(default_factory=dict)
    label_of_arm: dict[str, str] = field(default_factory=dict)
    #: server id -> the rows of `plan.requests` on that server, in plan order (a numpy array of int64: no object a row).
    planned_on: dict[str, Sequence[int]] = field(default_factory=dict)
    #: `(server codes, phase codes)` of `plan.requests` (`codes_of` each), found when first asked for (`plan_codes`).
    _plan_codes: Any = field(default=None, init=False, repr=False, compare=False)
    _join: PlanJoin | None = field(default=None, init=False, repr=False, compare=False)
    _requests: RequestIndex | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.receipts = ReceiptTable.of(self.receipts)
        if not isinstance(self.plan.requests, PlannedRequests):  # a plan a test or another reader built as a tuple
            self.plan = replace(self.plan, requests=PlannedRequests(self.plan.requests))

    @property
    def join(self) -> PlanJoin:
        """Return the receipts joined to the plan's requests (`PlanJoin`, built when first asked for)."""
        if self._join is None:
            self._join = PlanJoin(self.receipts, self.plan.requests)  # type: ignore[arg-type]
        return self._join

    @property
    def requests(self) -> RequestIndex:
        """Return request id -> its request receipts (`RequestIndex`, built when first asked for: 10^6 ids are about 70 MB)."""
        if self._requests is None:
            self._requests = RequestIndex(self.receipts)
        return self._requests

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
    """Return the `Campaign` of the run's evidence (memoized in `ctx.run.campaign`); raises `Unverifiable` if plan or receipts are unusable."""
    if ctx.run.campaign is None:
        ctx.run.campaign = Campaign.build(evidence_of(ctx))
    return ctx.run.campaign


def select(campaign: Campaign, selection: dict[str, str]) -> tuple[array[int], list[str]]:
    """
    Return `(rows, missing_ids)` for the planned requests matching `selection`: rows of `campaign.receipts` (an `array` of 64-bit integers: no int object a row while the derivations hold their values), ids a list.

    Each planned request contributes the row of its first receipt; a planned
    request with no receipt is listed in `missing_ids`. A request the plan
    lists more than once (`plan.conformance` FAILs it) counts once in a
    selection, at the first of its listings the selection matches (listed
    under two servers, it counts in each server's selection). An `outcome`
    key in `selection` filters receipts after the plan selection (the
    denominator stays the plan).
    """
    import numpy as np  # noqa: PLC0415 - as in `codes_of`

    plan_sel = {k: v for k, v in selection.items() if k != "outcome"}
    outcomes = campaign.receipts.outcome
    want = selection.get("outcome")
    ids = campaign.plan.requests.id
    rows = campaign.planned(plan_sel)
    repeated: dict[str, int] = campaign.plan.requests.repeated
    if repeated:  # the selected rows, each id at the first of its listings
        once, seen = [], set()
        for k, rid in zip(rows.tolist(), map(ids.__getitem__, memoryview(rows))):
            if rid in repeated:
                if rid in seen:
                    continue
                seen.add(rid)
            once.append(k)
        rows = np.array(once, dtype=np.int64)
    at = campaign.join.at[rows]  # the first receipt row of each, -1 for none
    chosen = array("q", at[at >= 0].astype(np.int64).tobytes())
    missing: list[str] = []
    if len(chosen) < len(at):
        missing = list(map(ids.__getitem__, memoryview(rows[at < 0])))
    if want is not None:
        chosen = array("q", [row for row in chosen if outcomes[row] == want])
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
