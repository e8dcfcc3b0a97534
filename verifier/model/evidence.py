"""
The evidence model: what a reader could establish about an input, as pure data (no I/O).

Readers (`verifier.readers.*`: the native bundle v1 documents, profiles, the
receipt adapters) fill an `Evidence`; what they could not map goes into
`Evidence.unmapped`, never dropped. Every quantity carries a unit of the one
registry `verifier.model.units` (time, tokens, bytes, samples, frames, requests,
counts, dimensionless, percent, and rates as unit per unit), so a value is
never compared across dimensions by accident.

Shapes (frozen dataclasses; sequences are tuples, except the request receipts
of a JSON Lines file, held as columns in a `ReceiptTable`):

- `FileEntry`: a bundle file (path, size, sha256) and where it was listed;
  `External`: an artifact kept outside the bundle, with its source and reason;
- `Plan`: arms, servers, arm order, phases and per-server counts, the
  expected output shape, timeouts, concurrency and arrival process;
- `Receipt`: one record with its dimensions (`arm`, `server`, `phase`, ...)
  and typed `Quantity`s; `ProcessReceipt`: exit code, signal, stdout and
  stderr carriers;
- `StatedClaim`: a number as written, its unit, the words around it and its
  `Location` (file and JSON Pointer or line);
- `QualityComparison`: metric, recorded score, reference and candidate,
  scorer identity; `Media`: path, role, expected shape;
- `Site`: where the bundle states one value a profile rule compares (or
  why it could not be found there), resolved by the reader so that the
  claims and gate checks read no document;
- `Attempt`: a run kept outside the accepted result (rejected, interrupted):
  retained, never mixed into the receipts.

`Evidence.need(*parts)` raises, for a part a check family needs that the
reader could not use, the reader's own code and reason, so the family reports
exactly one UNVERIFIED finding saying what was missing instead of dropping
out of the roster.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from itertools import accumulate, islice
from typing import Any, NamedTuple

from verifier.model import units
from verifier.errors import Unverifiable

__all__ = [
    "NO_INSTANT",
    "PARTS",
    "Attempt",
    "Evidence",
    "External",
    "FileEntry",
    "Location",
    "Media",
    "Output",
    "Prose",
    "RecordedOutcome",
    "Plan",
    "PlannedRequest",
    "PlannedRequests",
    "ProcessReceipt",
    "QualityComparison",
    "Quantity",
    "Receipt",
    "ReceiptTable",
    "SITE_ROLES",
    "Site",
    "StatedClaim",
    "TextColumn",
    "TimeColumn",
    "fixed_instants",
    "instant",
    "parse_time",
    "Unmapped",
]


@dataclass(frozen=True, slots=True)
class Location:
    """Represents where a fact was read: a bundle-relative `file` and a JSON Pointer (`#/a/0`) or line (`#line=3`, `#row=2`)."""

    file: str
    pointer: str | None = None

    def __str__(self) -> str:
        return self.file + (f"#{self.pointer.lstrip('#')}" if self.pointer else "")


#: Unit spellings `units.parse` accepted (`Quantity` parses each spelling once per process; the registry does not change).
_REGISTERED: set[str] = set()


@dataclass(frozen=True, slots=True)
class Quantity:
    """
    Represents a number with its unit: `value` (exact `Decimal`), `unit` (a symbol `verifier.model.units.parse` knows),
    and `written` (the text as the source wrote it, e.g. "396.30", which keeps its stated precision).

    Raises `verifier.model.units.UnitError` at construction for a unit the registry does not know.
    """

    value: Decimal
    unit: str
    written: str | None = None

    def __post_init__(self) -> None:
        if type(self.unit) is not str or self.unit not in _REGISTERED:
            units.parse(self.unit)  # one registry: an unknown unit is refused where it enters the model
            _REGISTERED.add(self.unit)  # parsed: the next quantity in this unit needs no parse

    def to(self, unit: str) -> Decimal:
        """Return the value in `unit` (exact within a dimension); raises `verifier.model.units.UnitMismatch` across dimensions."""
        if unit == self.unit:  # what `units.convert` returns for one unit, without its two parses and a Fraction compare per receipt
            return self.value
        return units.convert(self.value, self.unit, unit)


@dataclass(frozen=True, slots=True)
class FileEntry:
    """
    Represents one bundle file: `path` (bundle-relative POSIX), `size` (bytes), `sha256` (lowercase hex),
    `listed_in` (manifest names) and its `role` where the manifest gives one (e.g. `rejected-attempt`).
    """

    path: str
    size: int | None
    sha256: str | None
    listed_in: tuple[str, ...] = ()
    role: str | None = None


@dataclass(frozen=True, slots=True)
class External:
    """Represents an artifact kept outside the bundle: `path`, its `sha256` and `size` if stated, `source` (where listed) and `reason`."""

    path: str
    sha256: str | None
    size: int | None
    source: Location
    reason: str


class PlannedRequest(NamedTuple):
    """Represents one request the plan calls for: its `id`, the `server` it is sent to and its `phase` (`warmup`/`measured`)."""

    id: str
    server: str
    phase: str


class PlannedRequests(Sequence[PlannedRequest]):
    """
    Represents a plan's requests as columns, in the order the plan lists them (issue 40: a plan may list 10^7).

    Columns (lists of equal length): `id`, `server`, `phase` (the builders
    share one `str` object per distinct server and phase). `repeated` maps an
    id the plan lists more than once to how many times, `last` such an id
    to the row of its last listing and `again` to that of its second: all found when first asked for (after
    the parsed plan is dropped: a set of 10^6 ids is about 32 MB) and again
    after an `append`. `requests[i]` builds row `i`'s
    `PlannedRequest` (negative counts from the end; past the end raises
    `IndexError`); a `PlannedRequests` is equal to the tuple of its rows.
    """

    __slots__ = ("id", "server", "phase", "_repeats")

    def __init__(self, requests: Iterable[PlannedRequest] = (), *, columns: tuple[list[str], list[str], list[str]] | None = None) -> None:
        self.id, self.server, self.phase = columns or ([], [], [])
        self._repeats: tuple[dict[str, int], dict[str, int], dict[str, int]] | None = None  # (repeated, last, again), once found
        for r in requests:
            self.append(*r)

    @classmethod
    def of(cls, requests: Sequence[PlannedRequest]) -> PlannedRequests:
        """Return `requests` as columns (a `PlannedRequests` is returned as is)."""
        return requests if isinstance(requests, PlannedRequests) else cls(requests)

    def append(self, rid: str, server: str, phase: str) -> None:
        """Append one planned request."""
        self.id.append(rid)
        self.server.append(server)
        self.phase.append(phase)
        self._repeats = None

    def extend(self, ids: list[str], servers: list[str], phases: list[str]) -> None:
        """Append planned requests given as columns of equal length, as `append` appends each."""
        self.id += ids
        self.server += servers
        self.phase += phases
        self._repeats = None

    @property
    def repeated(self) -> dict[str, int]:
        """Return id -> how many times the plan lists it, for each id listed more than once."""
        return self._found()[0]

    @property
    def last(self) -> dict[str, int]:
        """Return id -> the row of its last listing, for each id listed more than once."""
        return self._found()[1]

    @property
    def again(self) -> dict[str, int]:
        """Return id -> the row of its second listing (the first that should not be there), for each id listed more than once."""
        return self._found()[2]

    def own(self) -> dict[str, str]:
        """
        Return id -> the `str` object of it the columns hold (its last listing's), for readers that share it (10^6 ids: about 29 MB).

        Also learns, at no further cost, whether any id repeats: when none does, `repeated` needs no pass of its own.
        """
        own = {rid: rid for rid in self.id}
        if len(own) == len(self.id):
            self._repeats = ({}, {}, {})
        return own

    def _found(self) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        if self._repeats is None:
            repeated: dict[str, int] = {}
            last: dict[str, int] = {}
            again: dict[str, int] = {}
            seen: set[str] = set()
            for row, rid in enumerate(self.id):  # one pass, a set of the ids while it runs
                if rid in seen:
                    repeated[rid] = repeated.get(rid, 1) + 1
                    last[rid] = row
                    again.setdefault(rid, row)
                else:
                    seen.add(rid)
            self._repeats = (repeated, last, again)
        return self._repeats

    def __len__(self) -> int:
        return len(self.id)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self.id))))
        return PlannedRequest(self.id[i], self.server[i], self.phase[i])

    def __iter__(self) -> Iterator[PlannedRequest]:
        return map(PlannedRequest, self.id, self.server, self.phase)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (PlannedRequests, tuple)) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Plan:
    """
    Represents what was frozen before the run.

    `arms` maps arm id -> role (`baseline`/`candidate`); `servers` maps
    server id -> arm id; `order` is the arm order (labels or ids);
    `per_server` maps phase -> planned requests per server; `requests` the
    planned request ids with their server and phase (`PlannedRequests`, columns, from the native reader); `expected_output` the
    media shape (duration, frames, fps, sample rate, channels) as the plan
    states it; `timeouts` (name -> `Quantity`), `concurrency` (the most
    requests allowed in flight at once) and `arrival` as stated (None when
    the plan does not say). `labels` maps arm id -> its one-letter label
    (the letters of `order`); `run_order` lists `(server id, arm id)` as the
    plan lists its servers, duplicates kept (`servers` is its mapping);
    `frozen_at` is the RFC 3339 time the plan says it was frozen;
    `requests_file` the JSON Lines shard the plan names for its requests
    when it does not list them itself (None when it does).
    """

    arms: Mapping[str, str]
    servers: Mapping[str, str]
    order: tuple[str, ...] = ()
    per_server: Mapping[str, int] = field(default_factory=dict)
    requests: Sequence[PlannedRequest] = ()
    expected_output: Mapping[str, Any] = field(default_factory=dict)
    timeouts: Mapping[str, Quantity] = field(default_factory=dict)
    concurrency: int | None = None
    arrival: str | None = None
    location: Location | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    run_order: tuple[tuple[str, str], ...] = ()
    frozen_at: str | None = None
    requests_file: str | None = None


@dataclass(frozen=True, slots=True)
class Output:
    """Represents one output file a receipt records: its bundle-relative `path` and the `sha256` (hex) the receipt states."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Receipt:
    """
    Represents one raw record of the run (one request, or one timed run).

    `dims` holds its selection dimensions as strings (`arm`, `server`,
    `phase`, `request_id`, reader-declared ones); `quantities` its typed
    numbers (None when a mapped field is missing: absence is not zero);
    `ok` whether its outcome is a success; `outputs` the media it produced
    (`Output`: path and the sha256 the receipt records). Where the format
    records them: `started_at`/`ended_at` (RFC 3339 text as written, parsed
    by the checks that order them), `outcome` (the word as recorded),
    `http_status` and `error`.

    A profile's receipts also carry `receipt_set` (the profile's receipt-set
    id; "" for a format with one set) and `raw` (the record as read, a
    JSON-like value, for the per-record rules a profile states as JSON
    Pointers into it: identities, matches, listed digests, media paths;
    None elsewhere). What the reader could not map stays visible on the
    receipt: `unknown` names dimensions it could not read (such a receipt
    may belong to any selection on them), and `unread`, when set, makes the
    receipt a stand-in for receipts that were not read at all (a file
    blocked by integrity, unreadable, holding no records), saying why, with
    `unread_code` the reason code statistics over it report. A stand-in
    holds only the dimensions known without parsing and no quantities; no
    check treats it as a record, and every statistic whose selection may
    cover it is underivable.
    """

    dims: Mapping[str, str]
    quantities: Mapping[str, Quantity | None]
    location: Location
    ok: bool = True
    outputs: tuple[Output, ...] = ()
    started_at: str | None = None
    ended_at: str | None = None
    outcome: str | None = None
    http_status: int | None = None
    error: str | None = None
    receipt_set: str = ""
    raw: Any = None
    unknown: frozenset[str] = frozenset()
    unread: str | None = None
    unread_code: str = "incomplete-denominator"

    @property
    def path(self) -> str:
        """Return the bundle-relative file the receipt was read from (`location.file`)."""
        return self.location.file

    @property
    def pointer(self) -> str:
        """Return the JSON Pointer or line of the receipt in its file (`location.pointer`), "" for the whole file."""
        return self.location.pointer or ""

    def value(self, name: str) -> Decimal | None:
        """
        Return quantity `name` in the base unit of its dimension (seconds, bytes, tokens/s, ...: `verifier.model.units`), exactly.

        None when the receipt has no such quantity or it is missing (absence is not zero).
        """
        q = self.quantities.get(name)
        return None if q is None else units.to_base(q.value, q.unit)


class TextColumn(Sequence[Any]):
    """
    Represents one column of texts (a `ReceiptTable`'s timestamps) as the ASCII bytes of every row in one buffer (issue 40).

    `column[i]` is row `i`'s value exactly as appended: an ASCII `str` is
    kept as its bytes (its row's span of one `bytearray`, ending at
    `ends[i]`, 8 bytes of offset a row), anything else (None, the empty
    string, a non-ASCII text, a value of another type) as itself in a sparse
    dict. 10^6 timestamps of 27 characters take about 35 MB, not the 80 MB
    of a list of `str` objects. Negative indexes count from the end; past the
    end raises `IndexError`.
    """

    __slots__ = ("blob", "ends", "other")

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.blob = bytearray()
        self.ends = array("q")
        self.other: dict[int, Any] = {}  # row -> a value not held as bytes (None is absent: an empty span)
        for value in values:
            self.append(value)

    def append(self, value: Any) -> None:
        """Append one row's value (a `str` or anything else, kept as it is)."""
        if type(value) is str and value and value.isascii():
            self.blob += value.encode("ascii")
        elif value is not None:
            self.other[len(self.ends)] = value
        self.ends.append(len(self.blob))

    def extend(self, values: list[Any]) -> None:
        """Append each of `values` as `append` does; non-empty ASCII texts all, in one piece."""
        if all(type(value) is str and value for value in values):
            joined = "".join(values)
            if joined.isascii():
                self.blob += joined.encode("ascii")
                self.ends.extend(islice(accumulate(map(len, values), initial=self.ends[-1] if self.ends else 0), 1, None))
                return
        for value in values:
            TextColumn.append(self, value)

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.ends)))]
        ends = self.ends
        if i < 0:
            i += len(ends)
        end = ends[i]  # IndexError past either end
        start = ends[i - 1] if i else 0
        return self.blob[start:end].decode("ascii") if end != start else self.other.get(i)

    def __iter__(self) -> Iterator[Any]:
        blob, other, start = self.blob, self.other, 0
        for i, end in enumerate(self.ends):
            yield blob[start:end].decode("ascii") if end != start else other.get(i)
            start = end


def parse_time(value: str) -> datetime:
    """
    Return an aware `datetime` for an RFC 3339 `date-time` string (already format-checked by the schema).

    Raises `ValueError` for a text Python's ISO 8601 parser refuses even with a
    lower-case "z" read as "+00:00" (it takes "Z" itself since Python 3.11).
    """
    try:
        return datetime.fromisoformat(value)  # the common case, parsed in C without a copy of the text
    except ValueError:
        return datetime.fromisoformat(value.replace("z", "+00:00"))


#: `TimeColumn.at` of a row whose value is no instant Python's ISO 8601 parser reads as it is (None, a lower-case "z").
NO_INSTANT = -(2**63)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_fromisoformat = datetime.fromisoformat


def _nanoseconds(text: str) -> int:
    """
    Return the 7th to 9th digits of the seconds' fraction of RFC 3339 `text` as nanoseconds (0 when it has six digits or fewer).

    Python's ISO 8601 parser keeps six digits and drops the rest; a clock
    that writes nanoseconds (Go's `RFC3339Nano`, `date --rfc-3339=ns`)
    writes nine. Digits past the ninth are dropped (under a nanosecond).
    """
    if len(text) < 28 or text[19:20] != ".":  # "YYYY-MM-DDTHH:MM:SS.ffffffZ" is 27 characters: no 7th digit in fewer than 28
        return 0
    end = 20
    while end < len(text) and text[end] in "0123456789":
        end += 1
    return int(text[26:min(end, 29)].ljust(3, "0")) if end > 26 else 0


def instant(text: str) -> int:
    """
    Return the instant RFC 3339 `text` names, in integer nanoseconds since 1970-01-01T00:00:00Z (`parse_time`, then `_nanoseconds`).

    Raises what `parse_time` raises (`ValueError`, `TypeError` for a non-text).
    """
    return (parse_time(text) - _EPOCH) // _MICROSECOND * 1000 + _nanoseconds(text)


#: The latest instant 64 bits of nanoseconds since the epoch hold (2262-04-11T23:47:16.854775807Z).
_LATEST = 2**63 - 1


def _instant_or_none(value: Any) -> int:
    """Return `instant(value)` for a text `datetime.fromisoformat` reads as it is, within 64 bits of nanoseconds; else `NO_INSTANT`."""
    if type(value) is not str:
        return NO_INSTANT
    try:
        at = (_fromisoformat(value) - _EPOCH) // _MICROSECOND * 1000 + _nanoseconds(value)
    except (ValueError, TypeError):  # TypeError: a text without an offset reads as a naive datetime, no instant
        return NO_INSTANT
    return at if NO_INSTANT <= at <= _LATEST else NO_INSTANT


#: Rows from which `TimeColumn.extend` tries `fixed_instants` (numpy's fixed cost per batch is above Python's below it).
FIXED_FROM = 64
#: Each digit byte -> "0", every other byte as it is: the shape `fixed_instants` compares a batch's bytes with.
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else b for b in range(256))
#: Days before the first of each month (1-12) in a common year; days of each month (1-12).
_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
#: Days from 0001-01-01 to 1970-01-01 (proleptic Gregorian).
_EPOCH_DAY = 719162


def fixed_instants(values: list[Any]) -> Any:
    """
    Return the instants of `values` as `TimeColumn.at` holds them (numpy int64, nanoseconds since the epoch), or None.

    Not None only when every value is a `str` of one shape and length,
    `YYYY-MM-DDTHH:MM:SS` then `Z` or `.` with one or more digits and `Z`
    (the common UTC form), naming a real date of the years 1678 to 2261 and a
    time of day without a leap second: exactly the instants `_instant_or_none`
    gives for them, computed a column at a time (issue 40: a row's
    `datetime.fromisoformat` and its arithmetic cost more than the rest of its
    column's reading). Such a text also matches `compiled_schema.DATE_TIME_PATTERN`
    (the `date-time` format). Anything else (other zones, a lower-case `t` or
    `z`, mixed lengths, None, an empty list) gives None: the caller reads it row by row.
    """
    import numpy as np  # noqa: PLC0415 - as in `campaign.codes_of`: loaded when a batch is large enough to use it

    if not values or set(map(type, values)) != {str}:
        return None
    width = len(values[0])
    if width < 20 or width == 21:  # 21: a "." without digits
        return None
    joined = "\x00".join(values)  # NUL parts the rows: where the shape has none, so the rows are all of its width
    if not joined.isascii():
        return None
    data = joined.encode("ascii")
    shape = b"0000-00-00T00:00:00" + (b"." + b"0" * (width - 21) if width > 20 else b"") + b"Z\x00"
    if data.translate(_DIGITS_AS_ZERO) != (shape * len(values))[:-1]:
        return None
    rows = np.frombuffer(data + b"\x00", dtype=np.uint8).reshape(len(values), width + 1)
    d = np.ascontiguousarray(rows.T[:width] - np.uint8(48)).astype(np.int64)  # (width, rows): each a digit 0-9 where the shape has one
    year = d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3]
    month, day, hour = d[5] * 10 + d[6], d[8] * 10 + d[9], d[11] * 10 + d[12]
    if year.min() < 1678 or year.max() > 2261 or month.min() < 1 or month.max() > 12 or day.min() < 1 or hour.max() > 23 \
            or d[14].max() > 5 or d[17].max() > 5:  # minutes and seconds below 60: no leap second
        return None
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    february = (month == 2) & leap
    if (day > np.array(_MONTH_DAYS)[month] + february).any():
        return None
    before = year - 1
    days = before * 365 + before // 4 - before // 100 + before // 400 + np.array(_BEFORE_MONTH)[month] + ((month > 2) & leap) + day - 1 - _EPOCH_DAY
    at = (days * 86400 + hour * 3600 + (d[14] * 10 + d[15]) * 60 + d[17] * 10 + d[18]) * 1_000_000_000
    for k in range(min(width - 21, 9)):  # the fraction's first nine digits (`_nanoseconds`: later ones are dropped)
        at += d[20 + k] * 10 ** (8 - k)
    return at


class TimeColumn(TextColumn):
    """
    Represents a column of RFC 3339 timestamps: the texts as written (`TextColumn`) and their instants, for ordering and spans.

    `at[i]` is row `i`'s instant in integer nanoseconds since 1970-01-01T00:00:00Z
    (an `array` of 64-bit integers, filled as rows are appended: `instant`), or
    `NO_INSTANT` when the text is not read by `datetime.fromisoformat` as
    it is or names an instant outside 64 bits of nanoseconds (1677 to
    2262); `instant(i)` reads such a row through `parse_time`
    (its errors, e.g. `ValueError`, raised as they are).
    """

    __slots__ = ("at",)

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.at = array("q")
        super().__init__(values)

    def append(self, value: Any) -> None:
        """Append one row's text (or any other value, kept as it is) and its instant."""
        TextColumn.append(self, value)
        self.at.append(_instant_or_none(value))

    def extend(self, values: list[Any], at: Any = None) -> None:
        """
        Append each of `values` (texts or any other values) and its instant, as `append` does.

        `at`, when given, is what `fixed_instants(values)` gave (its caller already computed it); from `FIXED_FROM` values on,
        `fixed_instants` is tried first.
        """
        TextColumn.extend(self, values)
        if at is None and len(values) >= FIXED_FROM:
            at = fixed_instants(values)
        if at is not None:
            self.at.frombytes(at.astype("int64").tobytes())
            return
        try:
            moments = list(map(_fromisoformat, values))  # in C; a value it refuses sends the batch row by row
            at = [(moment - _EPOCH) // _MICROSECOND * 1000 for moment in moments]  # TypeError: a naive one, no offset
        except (ValueError, TypeError):
            self.at.extend(map(_instant_or_none, values))
            return
        if values and max(map(len, values)) > 27:  # a 7th digit of a fraction takes 28 characters or more ("YYYY-MM-DDTHH:MM:SS.fffffffZ")
            at = [moment + _nanoseconds(value) for moment, value in zip(at, values)]
        if at and not (NO_INSTANT <= min(at) and max(at) <= _LATEST):
            at = [value if NO_INSTANT <= value <= _LATEST else NO_INSTANT for value in at]
        self.at.extend(at)

    def instant(self, i: int) -> int:
        """Return row `i`'s instant in nanoseconds since the epoch; raises what `parse_time` raises on its text."""
        at = self.at[i]
        if at != NO_INSTANT:
            return at
        return instant(self[i])


class ReceiptTable(Sequence[Receipt]):
    """
    Represents the request receipts of one JSON Lines file as columns, one row per receipt in the order read (issue 40).

    A `Sequence[Receipt]`: `table[i]` and iteration build each row's
    `Receipt` on demand (with `elapsed` in s, `location` the file and the
    JSON Pointer `/<line index>`), so checks that read every receipt read
    the columns instead, and 10^6 receipts hold no object per receipt beyond
    their values. Columns (lists of equal length): `request_id`, `server`,
    `arm`, `phase`, `outcome` (text as recorded, or None), `elapsed` (the
    number as parsed: `Decimal` or `int`, or None), `started_at`,
    `ended_at` (RFC 3339 text as written, or None, with their instants: `TimeColumn`s), `http_status`, `error`,
    and `index` (the 0-based line index of the row in `file`, an `array` of 64-bit integers). `outputs`
    maps a row to its recorded `Output`s (rows without outputs are absent). `shares` is the `PlannedRequests`
    whose `str` objects the `request_id` column holds (None when the reader shares none): a row's id equals one
    of its ids exactly when it is that id's object (its last listing's), so the campaign joins receipts to
    the plan by object, without a dict of the ids (`campaign.PlanJoin`).
    """

    __slots__ = ("file", "index", "request_id", "server", "arm", "phase", "outcome", "elapsed", "started_at", "ended_at",
                 "http_status", "error", "outputs", "shares")

    def __init__(self, file: str) -> None:
        self.file = file
        self.index = array("q")  # 8 bytes a row (a list would hold an int object per row)
        self.request_id: list[str | None] = []
        self.server: list[str | None] = []
        self.arm: list[str | None] = []
        self.phase: list[str | None] = []
        self.outcome: list[str | None] = []
        self.elapsed: list[Decimal | int | None] = []
        self.started_at = TimeColumn()  # 27-character timestamps: one buffer, not a str object a row
        self.ended_at = TimeColumn()
        self.http_status: list[int | None] = []
        self.error: list[str | None] = []
        self.outputs: dict[int, tuple[Output, ...]] = {}
        self.shares: PlannedRequests | None = None

    @classmethod
    def of(cls, receipts: Iterable[Receipt]) -> ReceiptTable:
        """
        Return the table of `receipts` (`Receipt`s of one file, or a `ReceiptTable`, returned as is).

        Each row keeps the receipt's dimensions, outcome, times, status,
        error, outputs and its `elapsed` quantity in seconds; the file is the
        first receipt's, and a row's `index` the last token of its pointer
        when that is a number (its position otherwise).
        """
        if isinstance(receipts, ReceiptTable):
            return receipts
        table: ReceiptTable | None = None
        for position, r in enumerate(receipts):
            table = table or cls(r.location.file)
            token = (r.location.pointer or "").rpartition("/")[2]
            q = r.quantities.get("elapsed")
            table.add(int(token) if token.isdigit() else position, r.dims.get("request_id"), r.dims.get("server"), r.dims.get("arm"),
                      r.dims.get("phase"), r.outcome, None if q is None else q.to("s"), r.started_at, r.ended_at, r.http_status,
                      r.error, r.outputs)
        return table or cls("receipts.jsonl")

    def add(self, index: int, request_id: str | None, server: str | None, arm: str | None, phase: str | None, outcome: str | None,
            elapsed: Decimal | int | None, started_at: str | None, ended_at: str | None, http_status: int | None,
            error: str | None, outputs: tuple[Output, ...] = ()) -> None:
        """Append one row (values as the columns hold them, see the class)."""
        if outputs:
            self.outputs[len(self.index)] = outputs
        self.index.append(index)
        self.request_id.append(request_id)
        self.server.append(server)
        self.arm.append(arm)
        self.phase.append(phase)
        self.outcome.append(outcome)
        self.elapsed.append(elapsed)
        self.started_at.append(started_at)
        self.ended_at.append(ended_at)
        self.http_status.append(http_status)
        self.error.append(error)

    def extend(self, index: list[int], request_id: list[str | None], server: list[str | None], arm: list[str | None],
               phase: list[str | None], outcome: list[str | None], elapsed: list[Decimal | int | None], started_at: list[Any],
               ended_at: list[Any], http_status: list[int | None], error: list[str | None],
               outputs: Mapping[int, tuple[Output, ...]] | None = None, instants: tuple[Any, Any] = (None, None)) -> None:
        """
        Append rows given as columns of equal length (values as `add` takes them); `outputs` maps a position in these columns to its row's outputs.

        `instants`: `fixed_instants` of `started_at` and of `ended_at` when the caller computed them (None for either when not).
        """
        base = len(self.index)
        for position, outs in (outputs or {}).items():
            if outs:
                self.outputs[base + position] = outs
        self.index.extend(index)
        self.request_id += request_id
        self.server += server
        self.arm += arm
        self.phase += phase
        self.outcome += outcome
        self.elapsed += elapsed
        self.started_at.extend(started_at, instants[0])
        self.ended_at.extend(ended_at, instants[1])
        self.http_status += http_status
        self.error += error

    def __len__(self) -> int:
        return len(self.index)

    def row(self, i: int) -> Receipt:
        """Return row `i` (0-based, negative counts from the end) as a `Receipt`; raises `IndexError` past the end."""
        if i < 0:
            i += len(self.index)
        value = self.elapsed[i]
        dims = {k: v for k, v in (("request_id", self.request_id[i]), ("arm", self.arm[i]), ("server", self.server[i]),
                                  ("phase", self.phase[i])) if v is not None}
        outcome = self.outcome[i]
        return Receipt(dims=dims, quantities={"elapsed": None if value is None else Quantity(Decimal(value), "s", written=str(value))},
                       location=Location(self.file, f"/{self.index[i]}"), ok=outcome == "ok", outputs=self.outputs.get(i, ()),
                       started_at=self.started_at[i], ended_at=self.ended_at[i], outcome=outcome, http_status=self.http_status[i],
                       error=self.error[i])

    def pointer(self, i: int) -> str:
        """Return the JSON Pointer of row `i` in `file` (`/<line index>`), as its `Receipt.location` gives it."""
        return f"/{self.index[i]}"

    def seconds(self, i: int) -> Decimal | None:
        """Return row `i`'s elapsed time in seconds (exact `Decimal`), or None when it records none."""
        value = self.elapsed[i]
        return value if type(value) is Decimal or value is None else Decimal(value)  # the number held, not a copy of it

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self.row(k) for k in range(*i.indices(len(self))))
        return self.row(i)

    def __iter__(self) -> Iterator[Receipt]:
        return (self.row(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (ReceiptTable, tuple)) and tuple(self) == tuple(other)


@dataclass(frozen=True, slots=True)
class ProcessReceipt:
    """
    Represents a process run: `exit_code` and `signal` (None when unknown), the `stdout`/`stderr` carrier files,
    its `dims` (`server`, `arm`) and, where recorded, `started_at` (RFC 3339 text as written).
    """

    name: str
    exit_code: int | None
    signal: str | None
    stdout: str | None
    stderr: str | None
    location: Location
    dims: Mapping[str, str] = field(default_factory=dict)
    started_at: str | None = None


@dataclass(frozen=True, slots=True)
class StatedClaim:
    """
    Represents a number the evidence asserts: its `id`, `quantity` (value as written, unit), the `words` around it and its `location`.

    `value` and `unit` keep the number and unit exactly as stated even when
    the unit is not in the registry (then `quantity` is None and the checks
    say the unit is unknown; None when the reader states them only through
    `quantity`). `written`, when the reader keeps it, is the stated text
    itself ("18,812 MiB"), also when no number could be read from it.
    """

    id: str
    quantity: Quantity | None
    words: str
    location: Location
    value: Decimal | None = None
    unit: str | None = None
    written: str | None = None


@dataclass(frozen=True, slots=True)
class Site:
    """
    Represents where the bundle states one value a profile rule compares, as the claim-site reader found it (`verifier.readers.sites`).

    `rule` is the rule's JSON Pointer in the profile (`/claims/3`,
    `/gate/rules/0`; `/gate` for the gate's own recorded outcome); `role` one of `SITE_ROLES`; `key` the instance as
    `(dimension, value)` pairs (empty for a rule without instances, and for
    `stated` the placeholders bound by reading backwards; for `heading`, a
    number of the heading a claim's `/tables/{dim} ...` pointer located, equal
    to the instance's value it binds); `location` the file
    and JSON Pointer read (the file tried when nothing was found); `value`
    the stated value as parsed (for `bounds`, a tuple of `(operator,
    Decimal)`); `unit` the unit the bundle states beside a claim (`at.unit`),
    else None. `problem` is None when the value was found, else `missing`
    (no value at the place, or no `where` element), `ambiguous` (several
    elements match the location's `where`: the profile chooses none), `unreadable` (the
    file cannot be read or parsed), `blocked` (integrity refused the file) or
    `unranked` (the instance exists only through receipts that were not
    read, so its `{dim.index}` places are unknown); `detail` says why (for
    `unranked`: the files integrity refused, comma-separated, empty when none).
    """

    rule: str
    role: str
    key: tuple[tuple[str, str], ...]
    location: Location
    value: Any = None
    unit: str | None = None
    problem: str | None = None
    detail: str = ""


#: What a `Site` locates: a claim's stated value (`claim`), the target its margin subtracts (`target`), the name a ranking
#: claim states (`named`), any other value stated at a claim's templated place (`stated`, found by reading backwards), a
#: recorded gate outcome (`recorded`, the gate's own or one rule instance's) and the bounds a bundle states (`bounds`).
SITE_ROLES = ("claim", "target", "named", "stated", "recorded", "bounds", "heading")


@dataclass(frozen=True, slots=True)
class Prose:
    """Represents a text the evidence states in words (a headline, notes, a claim's sentence): the `text` and its `location`."""

    text: str
    location: Location


@dataclass(frozen=True, slots=True)
class RecordedOutcome:
    """
    Represents a gate outcome the evidence records: the `gate` (e.g. `quality`, `quality.ssim`), whether it `passed`,
    and what it `covers` (`"all"`, a tuple of comparison ids, or None when it does not say), at `location`.
    """

    gate: str
    passed: bool
    covers: str | tuple[str, ...] | None
    location: Location


@dataclass(frozen=True, slots=True)
class QualityComparison:
    """
    Represents one recorded quality comparison: its `id`, `reference` and `candidate` media, and the recorded
    `scores` (metric -> score, None when recorded as null); the scorer identity of each metric is `Evidence.scorers`.
    `location` points at the comparison (`quality-index.json#/comparisons/0`).
    """

    id: str
    reference: str
    candidate: str
    scores: Mapping[str, Decimal | None]
    location: Location


@dataclass(frozen=True, slots=True)
class Media:
    """Represents an output file: `path`, its `role` (e.g. `output`, `reference`, `candidate`) and the `expected` shape it must cover."""

    path: str
    role: str
    expected: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Attempt:
    """Represents a run kept outside the accepted result: `status` (`rejected`, `interrupted`), `reason`, and its receipts (never mixed in)."""

    id: str
    status: str
    reason: str
    receipts: tuple[Receipt, ...] = ()
    location: Location | None = None


@dataclass(frozen=True, slots=True)
class Unmapped:
    """
    Represents something a reader met and could not map onto the model: `what`, `where` it was, and `why`.

    When it leaves a whole `part` of the model (see `PARTS`) unusable, `part`
    names it and `code` is the reason code checks report (`not-in-evidence`,
    `blocked-by-integrity`, `blocked-by-schema`): `Evidence.need` raises it.
    """

    what: str
    where: Location | None
    why: str
    part: str | None = None
    code: str | None = None


#: The parts of the model a check family may need (`Evidence.lacks`).
PARTS = ("files", "plan", "receipts", "processes", "claims", "quality", "media", "gate")


@dataclass
class Evidence:
    """
    Represents everything one reader established about one input; the only thing the check families read.

    `reader` names the reader (`bundle-v1`, `profile:<id>`, an adapter
    kind); `gate` the pinned gate id the evidence is judged by (never one
    the evidence brings); `scorers` the scorer identity recorded per quality
    metric; `prose` the texts stated in words; `outcomes` the recorded gate
    outcomes; `sites` where the bundle states each value a profile's claims
    and gate compare; `informational` the stated numbers of claim documents
    a profile's pattern set declares informational (`(file, JSON Pointer)` ->
    the pattern class or regex that holds it, `verifier.readers.informational`).
    Every other field is one of the shapes above.
    """

    reader: str
    files: tuple[FileEntry, ...] = ()
    externals: tuple[External, ...] = ()
    plan: Plan | None = None
    receipts: Sequence[Receipt] = ()
    processes: tuple[ProcessReceipt, ...] = ()
    claims: tuple[StatedClaim, ...] = ()
    quality: tuple[QualityComparison, ...] = ()
    media: tuple[Media, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    unmapped: tuple[Unmapped, ...] = ()
    gate: str | None = None
    scorers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prose: tuple[Prose, ...] = ()
    outcomes: tuple[RecordedOutcome, ...] = ()
    sites: tuple[Site, ...] = ()
    informational: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def sites_of(self, rule: str, role: str) -> list[Site]:
        """Return the `Site`s of `rule` (its profile pointer, `Site.rule`) with `role` (see `SITE_ROLES`), in the order the reader found them (instance order)."""
        index = self.__dict__.get("_sites_index")
        if index is None or index[0] is not self.sites:
            by: dict[tuple[str, str], list[Site]] = {}
            for site in self.sites:
                by.setdefault((site.rule, site.role), []).append(site)
            index = self.__dict__["_sites_index"] = (self.sites, by)
        return list(index[1].get((rule, role), ()))

    def need(self, *parts: str) -> None:
        """
        Raise `Unverifiable` for the first of `parts` the reader could not use (absent, failed integrity or schema).

        The raised code and message are the reader's (`Unmapped.code`, `why`):
        a check that needs the part reports that one UNVERIFIED finding.
        Returns None when every part is usable (it may still be empty).
        """
        for part in parts:
            for gap in self.unmapped:
                if gap.part == part and gap.code:
                    raise Unverifiable(gap.why, code=gap.code, path=gap.where.file if gap.where else None)

    def usable(self, part: str) -> bool:
        """Return whether the reader could use `part` (see `need`); an absent part is not usable."""
        return not any(gap.part == part and gap.code for gap in self.unmapped)

    def present(self, part: str) -> bool:
        """Return whether the input holds `part` at all, usable or not (False only for `not-in-evidence`)."""
        return not any(gap.part == part and gap.code == "not-in-evidence" for gap in self.unmapped)
