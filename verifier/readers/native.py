"""
The bundle format v1 reader onto the evidence model (`verifier.model.evidence`).

`evidence_of(ctx)` turns the documents of a native bundle (or of a mapped
profile, `verifier.readers.mapped`, which presents the same documents) into
one `Evidence`, cached in `ctx.run.evidence`. Only documents that passed
integrity and their schema are read (`Bundle.document`); a document that
cannot be used, a unit the registry does not know, or a receipt of an
unknown kind becomes an `Unmapped` entry instead of being dropped; a
document that leaves a part of the model unusable names that part and the
reason code (`Evidence.need`). Every native check family reads this model,
never the documents (only `schema.documents` reads them, to validate them).
Side effects: none beyond what `Bundle.document` reads (already-hashed bytes).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from dataclasses import replace
from decimal import Decimal
from typing import Annotated, Any, Literal, Self

import msgspec

from verifier.model import units
from verifier.schema.compiled_schema import DATE_TIME_PATTERN
from verifier.formats.jsonio import loads_typed_each, typed_decoder
from verifier.errors import Unverifiable
from verifier.readers.manifests import V1_MANIFEST
from verifier.model.evidence import (
    Attempt,
    FIXED_FROM,
    Evidence,
    External,
    FileEntry,
    Location,
    Media,
    Output,
    Plan,
    PlannedRequest,
    PlannedRequests,
    ProcessReceipt,
    Prose,
    QualityComparison,
    Quantity,
    ReceiptTable,
    RecordedOutcome,
    StatedClaim,
    Unmapped,
    fixed_instants,
)

__all__ = ["ATTEMPT_ROLES", "DOCUMENT_READERS", "DOCUMENT_VOUCHERS", "PLAN_SCHEMA_SHA256", "LINE_READERS", "V1_PROFILE", "PlannedLines", "ReceiptLines", "evidence_of", "from_documents", "plan_of", "vouch_plan"]

#: Manifest `role` values of a retained attempt (schemas/manifest.schema.json).
ATTEMPT_ROLES = ("rejected-attempt", "interrupted-attempt")

#: Bundle format v1 said in the profile language (`schemas/profile.schema.json`, `docs/profiles.md`): its manifest
#: kind (`V1_MANIFEST`), where the manifest names the gate, and its documents, receipts read as-is from JSON Lines.
#: Not shipped (no detection): `tests/readers/test_v1_description.py` reads the example bundle through it with the mapped
#: reader and requires the very findings of this native reader, including external artifacts with digests (matched
#: against `--artifacts`) and retained attempts (the manifest `role` of an entry).
V1_PROFILE: dict[str, Any] = {
    "id": "bundle-v1",
    "version": 1,
    "description": "verify's own bundle format v1 (docs/bundle-format.md), described in the profile language",
    "detect": {"files": ["manifest.json", "plan.json", "receipts.jsonl", "claims.json"], "pointers": [{"file": "manifest.json", "pointer": "/format"}]},
    "manifest": {**V1_MANIFEST, "role": "role",
                 "external": [{"pointer": "/external", "path": "path", "sha256": "sha256", "size": "size", "reason_member": "reason",
                               "reason": "kept outside the bundle (manifest.json /external)"}]},
    "bundle": {
        "gate": {"file": "manifest.json", "pointer": "/gate"},
        "documents": {
            "manifest": {"file": "manifest.json"},
            "plan": {"file": "plan.json"},
            "claims": {"file": "claims.json"},
            "quality": {"file": "quality-index.json"},
            "receipts": {"sources": [{"file": "receipts.jsonl", "encoding": "jsonl", "record": "as-is"}]},
        },
    },
}


def timeout_unit(key: str) -> str:
    """Return the unit a plan timeout's name states by its suffix (`_ms`, `_min`/`_minutes`, `_h`/`_hours`); seconds otherwise (`request_s`, `reservation`)."""
    for suffix, unit in (("_ms", "ms"), ("_min", "min"), ("_minutes", "min"), ("_h", "h"), ("_hours", "h")):
        if key.lower().endswith(suffix):
            return unit
    return "s"


def _quantity(value: Any, unit: str | None, where: Location, unmapped: list[Unmapped]) -> Quantity | None:
    if value is None or isinstance(value, bool):
        return None
    symbol = unit or "1"
    if not units.known(symbol):
        unmapped.append(Unmapped(f"unit {symbol!r}", where, "not in the unit registry (verifier/model/units.py)"))
        return None
    return Quantity(Decimal(value), symbol, written=str(value))


def _copy(text: str) -> str:
    """
    Return a new `str` equal to `text` (the empty and one-character strings are shared by Python anyway).

    A planned request's id is copied out of the parsed plan so that, once the
    plan's dicts are dropped, the memory they filled holds nothing the model
    keeps and is returned whole (issue 40; the peak RSS it saves at 10^6
    planned requests is in `benchmarks/README.md`).
    """
    return text[:1] + text[1:]


def _planned(listed: Iterable[Any]) -> PlannedRequests:
    """Return the `PlannedRequests` of a plan's list of request objects (ids copied by `_copy`; server and phase names shared)."""
    one = {}.setdefault
    return PlannedRequests(columns=([_copy(r["id"]) for r in listed], [one(r["server"], r["server"]) for r in listed],
                                    [one(r["phase"], r["phase"]) for r in listed]))


def plan_of(doc: dict[str, Any], name: str, requests: PlannedRequests | None = None) -> Plan:
    """
    Return the model's `Plan` of a parsed, schema-valid `plan.json` document `doc` read from file `name`.

    A timeout is a `Quantity` in the unit its name's suffix states
    (`timeout_unit`: every one is in the registry). Server and phase names are one `str` object each, shared
    by every planned request, and request ids are copies (`_copy`) (issue 40:
    a plan may list 10^6 requests). `requests`, when given, are the planned requests the document lists, already
    read as columns (`vouch_plan`); its own `requests` list is then not read.
    """
    listed = doc.get("requests", [])  # the requests themselves, or {"file": ...}: the shard that lists them (`PlannedLines`)
    return Plan(
        arms={a["id"]: a.get("role", "") for a in doc.get("arms", [])},
        servers={s["id"]: s["arm"] for s in doc.get("servers", [])},
        order=tuple(doc.get("arm_order", [])),
        per_server={"warmup": doc.get("warmups_per_server", 0), "measured": doc.get("measured_per_server", 0)},
        requests=requests if requests is not None else _planned(listed if isinstance(listed, list) else ()),
        expected_output=dict(doc.get("expected_output", {})),
        timeouts={k: Quantity(Decimal(v), timeout_unit(k), written=str(v)) for k, v in (doc.get("timeouts") or {}).items()
                  if v is not None and not isinstance(v, bool)},
        concurrency=doc.get("max_concurrency"),
        arrival=doc.get("arrival"),
        location=Location(name),
        labels={a["id"]: a.get("label", "") for a in doc.get("arms", [])},
        run_order=tuple((s["id"], s["arm"]) for s in doc.get("servers", [])),
        frozen_at=doc.get("frozen_at"),
        requests_file=None if isinstance(listed, list) else listed.get("file"),
    )


def from_documents(documents: dict[str, Any], *, manifest: dict[str, Any] | None, names: dict[str, str],
                   reader: str = "bundle-v1", gate: str | None = None, unmapped: list[Unmapped] | None = None) -> Evidence:
    """
    Return the `Evidence` of parsed bundle v1 `documents` (kind -> document; absent kinds are simply missing).

    The plan may be given parsed (a dict) or already modelled (`plan_of`);
    the receipts as any iterable of parsed lines (`verifier.formats.bundle.Lines`
    reads them from disk as they are modelled) or already modelled
    (`ReceiptLines`).

    `names` maps each kind to the file it was read from (for locations);
    `manifest` is the parsed manifest (its `files` with their `role`, and
    `external`), or None. Pure: reads nothing. Receipts of kind `request`
    become the rows of one `ReceiptTable` (`elapsed` in s), of kind `worker`
    `ProcessReceipt`s; every other kind is `Unmapped`. A manifest file
    whose `role` is an attempt role becomes a declared `Attempt` (its
    receipts are read by `attempts.retained`, never mixed in).
    """
    unmapped = list(unmapped or [])
    mname = names.get("manifest", "manifest.json")
    listed = (manifest or {}).get("files", [])
    files = tuple(FileEntry(e["path"], e.get("size"), (e.get("sha256") or "").lower() or None, (mname,), e.get("role"))
                  for e in listed)
    externals = tuple(External(e["path"], e.get("sha256"), e.get("size"), Location(mname, f"/external/{i}"), e.get("reason", ""))
                      for i, e in enumerate((manifest or {}).get("external", [])))
    attempts = tuple(Attempt(e["path"], e["role"].removesuffix("-attempt"), f"listed as {e['role']} in {mname}",
                             location=Location(mname, f"/files/{i}/role"))
                     for i, e in enumerate(listed) if e.get("role") in ATTEMPT_ROLES)
    doc = documents.get("plan")
    plan = plan_of(doc, names.get("plan", "plan.json")) if isinstance(doc, dict) else doc if isinstance(doc, Plan) else None
    del doc  # a large plan's dicts are not held while the receipts are read
    lines = documents.get("receipts")
    if not isinstance(lines, ReceiptLines):
        lines = ReceiptLines.of(lines or (), names.get("receipts", "receipts.jsonl"), {"plan": plan} if plan else None)
    receipts, processes = lines.table, lines.processes
    unmapped.extend(lines.unmapped)
    expected = dict(plan.expected_output) if plan else {}
    media = [Media(o.path, "output", expected) for outputs in receipts.outputs.values() for o in outputs]  # in row order, as added
    claims, prose, outcomes = [], [], []
    doc = documents.get("claims") or {}
    cname = names.get("claims", "claims.json")
    for key in ("headline", "notes"):
        if isinstance(doc.get(key), str):
            prose.append(Prose(doc[key], Location(cname, f"/{key}")))
    for i, c in enumerate(doc.get("claims", [])):
        where = Location(cname, f"/claims/{i}/value")
        value = c.get("value")
        claims.append(StatedClaim(c["id"], _quantity(value, c.get("unit"), where, unmapped), doc.get("headline", ""), where,
                                  value=None if value is None else Decimal(value), unit=c.get("unit")))
        if isinstance(c.get("text"), str):
            prose.append(Prose(c["text"], Location(cname, f"/claims/{i}/text")))
    for i, o in enumerate(doc.get("outcomes") or []):
        covers = o.get("covers")
        outcomes.append(RecordedOutcome(o["gate"], o["passed"], tuple(covers) if isinstance(covers, list) else covers,
                                        Location(cname, f"/outcomes/{i}")))
    quality = []
    doc = documents.get("quality") or {}
    qname = names.get("quality", "quality-index.json")
    for i, comp in enumerate(doc.get("comparisons", [])):
        scores = {metric: None if score is None else Decimal(str(score)) for metric, score in (comp.get("scores") or {}).items()}
        quality.append(QualityComparison(comp["id"], comp["reference"], comp["candidate"], scores, Location(qname, f"/comparisons/{i}")))
        media.extend(Media(comp[side], side) for side in ("reference", "candidate"))
    return Evidence(reader=reader, files=files, externals=externals, plan=plan, receipts=receipts,
                    processes=tuple(processes), claims=tuple(claims), quality=tuple(quality), media=tuple(media),
                    attempts=attempts, unmapped=tuple(unmapped), gate=gate, scorers=dict(doc.get("scorers") or {}),
                    prose=tuple(prose), outcomes=tuple(outcomes))


#: Lines `_LineBuilder.of` feeds a builder at a time (the batch of `verifier.formats.jsonio.iter_strict_batches`).
_FED = 4096


class _LineBuilder:
    """
    A builder of a part of the model from the parsed lines of one JSON Lines file (`name`), fed consecutive lines by `extend(first, records)`.

    `of` feeds it every line of an iterable; `schema.documents` feeds it each
    batch of lines it validated (`LINE_READERS`), then calls `done`. `_one` shares one `str` object per
    distinct value of a dimension. `modelled` is what the bundle's earlier
    documents were modelled as (kind -> model, `Bundle.modelled`), for a
    builder that reads it.
    """

    __slots__ = ("name", "_one")

    def __init__(self, name: str, modelled: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self._one: Any = {}.setdefault

    @classmethod
    def of(cls, lines: Iterable[Any], name: str, modelled: Mapping[str, Any] | None = None) -> Self:
        """Return the finished builder of file `name` fed every one of `lines` (parsed lines, in file order), `_FED` lines at a time: a stream is not held."""
        built = cls(name, modelled)
        lines, first = iter(lines), 0
        while batch := list(islice(lines, _FED)):
            built.extend(first, batch)
            first += len(batch)
        return built.done()

    def done(self) -> Self:
        """Drop what was kept only while lines were added, and return the builder."""
        return self

    def extend(self, first: int, records: list[Any]) -> None:
        """Model the parsed lines `records`, consecutive lines of the file, the first of 0-based index `first`."""
        raise NotImplementedError

    def vouch_for(self, schema: Any) -> Callable[[int, list[str], bool], bool] | None:
        """
        Return the builder's own reader of lines as texts for lines judged by `schema`, or None (here: always None).

        The reader, `vouch(first, texts, keep)`, is `iter_strict_batches`' `vouch` with
        `keep` added: True models the lines it vouches for, False only judges them.
        """
        return None


class ReceiptLines(_LineBuilder):
    """
    Builds the receipts part of the model from the parsed lines of one receipts file, a batch of lines at a time, as they are read.

    `extend(first, records)` takes consecutive parsed lines (schema-valid
    receipts) and the 0-based index of the first. Request receipts become the rows of `table` (a
    `ReceiptTable`; dimensions and outcomes one shared `str` object per
    distinct value: 10^6 receipts share a handful), worker receipts
    `processes` (`ProcessReceipt`), and a line of any other kind an entry of
    `unmapped`. `schema.documents` feeds it the batches it validates, so a
    valid file is parsed once (`Bundle.modelled`); `from_documents` feeds
    it lines it is given. A request id the plan lists (`modelled["plan"]`,
    or its shard `modelled["plan_requests"]`) is held as the plan's own
    `str` object, not a second copy (issue 40: 10^6 ids are about 55 MB),
    and `table.shares` names those requests (the campaign then joins
    receipts to the plan by object); the map from id to that object is
    dropped by `done`.
    """

    __slots__ = ("table", "processes", "unmapped", "_planned")

    def __init__(self, name: str, modelled: Mapping[str, Any] | None = None) -> None:
        super().__init__(name)
        self.table = ReceiptTable(name)
        self.processes: list[ProcessReceipt] = []
        self.unmapped: list[Unmapped] = []
        planned = _planned_requests(modelled or {})
        self._planned: Any = planned.own().get if planned else None  # id -> the plan's str object of it
        self.table.shares = planned  # every id the plan lists is held as its object (`_add`): the campaign joins by object

    def done(self) -> Self:
        """Drop the map of planned ids (the rows keep the plan's id objects) and return the builder."""
        self._planned = None
        return self

    def extend(self, first: int, records: list[Any]) -> None:
        """
        Model the parsed receipt lines `records`, consecutive lines of the file, the first of 0-based index `first`.

        Column by column (issue 40). Total over JSON values: a line that is no
        object is of no kind (`unmapped`), and an output that is no object is
        left out. Lines are schema-valid unless the file changed while it was
        read, and then `Bundle.records` refuses the file after its last line,
        so such a model is never used; it must only not fail on the way.
        """
        requests: list[dict[str, Any]] = []
        rows: list[int] = []
        for index, r in enumerate(records, first):
            kind = r.get("kind") if type(r) is dict else None
            if kind == "request":
                requests.append(r)
                rows.append(index)
            elif kind == "worker":
                self.processes.append(ProcessReceipt(r.get("worker_id", ""), r.get("exit_code"), r.get("signal"),
                                                     r.get("stdout"), r.get("stderr"), Location(self.name, f"/{index}"),
                                                     {k: str(r[k]) for k in ("server", "arm") if r.get(k) is not None},
                                                     started_at=r.get("started_at")))
            else:
                self.unmapped.append(Unmapped(f"receipt of kind {kind!r}", Location(self.name, f"/{index}"),
                                              "neither a request nor a worker receipt"))
        if not requests:
            return
        outputs = {row: tuple(Output(o.get("path"), o.get("sha256")) for o in outs if type(o) is dict)
                   for row, outs in enumerate(r.get("outputs") for r in requests) if type(outs) is list and outs}
        self._add(rows, *([r.get(key) for r in requests] for key in _REQUEST_COLUMNS), outputs)

    def _add(self, rows: list[int], ids: list[Any], servers: list[Any], arms: list[Any], phases: list[Any], outcomes: list[Any],
             elapsed: list[Any], started: list[Any], ended: list[Any], status: list[Any], errors: list[Any],
             outputs: dict[int, tuple[Output, ...]], valid: bool = False, instants: tuple[Any, Any] = (None, None)) -> None:
        """
        Append request rows given as columns of the values as read (`_REQUEST_COLUMNS`, any JSON values), each a row of the line index in `rows`.

        `valid`: the values are those of valid receipts (ids, names and outcomes texts, `elapsed` a number), so
        they are shared (`_one`, the plan's ids) without a test of their type; the rows are the same. `instants`: the
        started and ended times' `fixed_instants` when already computed (None for either when not).
        """
        one, planned = self._one, self._planned
        if valid:
            ids = list(map(planned, ids, ids)) if planned else ids
            dims = [list(map(one, column, column)) for column in (servers, arms, phases)]
            outcomes = list(map(one, outcomes, outcomes))
        else:
            ids = [None if v is None else (planned(v, v) if planned else v) if type(v) is str else planned(str(v), str(v)) if planned else str(v)
                   for v in ids]
            dims = [[one(v, v) if type(v) is str else None if v is None else one(str(v), str(v)) for v in column]
                    for column in (servers, arms, phases)]
            outcomes = [one(v, v) if type(v) is str else v for v in outcomes]
            elapsed = [None if isinstance(v, bool) else v for v in elapsed]
        self.table.extend(rows, ids, *dims, outcomes, elapsed, started, ended, status, errors, outputs, instants=instants)

    def vouch_for(self, schema: Any) -> Callable[[int, list[str], bool], bool] | None:
        """Return `vouch` when `schema` is the receipt schema the typed receipts mirror (`RECEIPT_SCHEMA_SHA256`), else None."""
        return self.vouch if schema_sha256(schema) == RECEIPT_SCHEMA_SHA256 else None

    def vouch(self, first: int, texts: list[str], keep: bool = True) -> bool:
        """
        Model the receipt lines `texts` (consecutive lines of the file, the first of 0-based index `first`) if each is a valid receipt; return whether each is.

        A pre-filter of the reference reading (issue 40): the texts are read
        into the typed receipts (`_Request`, `_Worker`: the schema's types,
        enums, required and forbidden fields, bounds) in one compiled pass
        (`verifier.formats.jsonio.loads_typed_each`, which vouches they are strict
        JSON), and the constraints checked a column at a time (the names'
        pattern, the `date-time` format, `elapsed_s` a number above 0). True
        only when every line is valid against `schemas/receipt.schema.json`;
        then the model grows exactly as `extend` grows it from the lines as the
        strict reader parses them. False (nothing modelled) for anything it
        does not vouch for, valid or not: the caller then reads the lines the
        reference way, which names every problem. With `keep` False the lines
        are only judged (a file with a bad line is not modelled). Never raises on any text.
        """
        records = loads_typed_each(texts, _RECEIPTS)
        if records is None:
            return False
        requests = [r for r in records if type(r) is _Request]
        workers = [r for r in records if type(r) is not _Request]
        names = [r.request_id for r in requests] + [r.worker_id for r in workers]
        started, ended = [r.started_at for r in requests], [r.ended_at for r in requests]
        # the requests' times of the common UTC shape are read a column at a time, which proves their `date-time` format too
        instants = (fixed_instants(started), fixed_instants(ended)) if len(requests) >= FIXED_FROM else (None, None)
        times = ([r.started_at for r in workers] + [r.ended_at for r in workers if r.ended_at is not None]
                 + (started if instants[0] is None else []) + (ended if instants[1] is None else []))
        elapsed = [r.elapsed_s for r in requests]
        if not (_all_match(_NAMES, names) and _all_match(_NAMES, {r.server for r in records} | {r.arm for r in records})
                and (not times or _all_match(_DATE_TIMES, times)) and all(type(v) is int or type(v) is Decimal for v in elapsed)
                and (not elapsed or 0 < min(elapsed))):  # in binary64's range: `loads_typed_each`
            return False
        if not keep:
            return True
        for index, r in enumerate(records, first):
            if type(r) is _Worker:
                self.processes.append(ProcessReceipt(r.worker_id, r.exit_code, None if r.signal is msgspec.UNSET else r.signal, None, None,
                                                     Location(self.name, f"/{index}"), {"server": r.server, "arm": r.arm},
                                                     started_at=r.started_at))
        if requests:
            rows = [index for index, r in enumerate(records, first) if type(r) is _Request] if workers else list(range(first, first + len(records)))
            unset = msgspec.UNSET
            outputs = {row: tuple(Output(o.path, o.sha256) for o in r.outputs) for row, r in enumerate(requests) if r.outputs}
            self._add(rows, names[:len(requests)], [r.server for r in requests], [r.arm for r in requests], [r.phase for r in requests],
                      [r.outcome for r in requests], elapsed, started, ended,
                      [None if r.http_status is unset else r.http_status for r in requests],
                      [None if r.error is unset else r.error for r in requests], outputs, valid=True, instants=instants)
        return True


#: The fields of a request receipt `ReceiptLines` reads into its table's columns, in the order `ReceiptLines._add` takes them.
_REQUEST_COLUMNS = ("request_id", "server", "arm", "phase", "outcome", "elapsed_s", "started_at", "ended_at", "http_status", "error")


def schema_sha256(schema: Any) -> str:
    """Return the sha256 (hex) of parsed JSON `schema` written as canonical JSON (keys sorted, no spaces, ASCII): equal for equal schemas, whatever their file's layout."""
    return hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")).hexdigest()


#: `schema_sha256` of `schemas/receipt.schema.json`, the schema the typed receipts below mirror. A receipts file judged by
#: another schema (an asset root may pin its own) is read the reference way only. Changing the schema changes this
#: (`tests/readers/test_typed_receipts.py` fails until the types and it are brought in line).
RECEIPT_SCHEMA_SHA256 = "17db804b17030ba9406ca56d72e7008f63412d85a1aae2d96430c694195dd8b8"
#: The pattern of the schema's `request_id`, `worker_id`, `arm` and `server` (`^...$`), without its anchors.
NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9._-]*"


def _all_match(pattern: re.Pattern[str], values: Iterable[str]) -> bool:
    """
    Return whether each of `values` (texts) is matched whole by `pattern`, whose matches hold no NUL, in one scan.

    The texts are joined, each followed by a NUL: `pattern` repeated matches
    the whole joined text, and a text holding a NUL itself shows as one NUL
    too many. Stricter than the schema's `^...$` (which also lets a final
    newline through): such a text is not vouched for.
    """
    values = list(values)
    joined = "\x00".join(values) + "\x00"
    return joined.count("\x00") == len(values) and pattern.fullmatch(joined) is not None


#: `_all_match`'s patterns: the names (`NAME_PATTERN`), and `compiled_schema.DATE_TIME_PATTERN` (exactly the texts the
#: reference's `date-time` checker accepts: `tests/schema/test_date_time_pattern.py`) with its anchors dropped. The repetition is
#: possessive (`*+`): a text matches a NUL-ended item in at most one span, so it accepts what `*` accepts, but a text that
#: fails is not retried by backtracking into the items before it (`DATE_TIME_PATTERN` matches "2026" as a year three
#: ways, so with `*` a batch of n good times and one bad one took about 3^n steps: 16 lines, a minute).
_NAMES = re.compile(f"(?:{NAME_PATTERN}\x00)*+")
_DATE_TIMES = re.compile(f"(?:{DATE_TIME_PATTERN.removeprefix('^').removesuffix(chr(92) + 'z')}\x00)*+")


class _Output(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One output of a request receipt as `schemas/receipt.schema.json` states it (for `ReceiptLines.vouch`)."""

    path: Annotated[str, msgspec.Meta(min_length=1)]
    sha256: Annotated[str, msgspec.Meta(pattern="^[0-9a-fA-F]{64}$")]


class _Request(msgspec.Struct, tag_field="kind", tag="request", forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """
    A request receipt line as `schemas/receipt.schema.json` states it, but for what `ReceiptLines.vouch` checks a column at a time.

    Left to `vouch`: the names' pattern (`NAME_PATTERN`), the `date-time`
    format, and `elapsed_s` (typed `Any`, so that its number is read as the
    strict reader reads it: an `int`, or a `Decimal` as written) being a number
    above 0. Fields the schema does not require default to `msgspec.UNSET`.
    """

    request_id: str
    arm: str
    server: str
    phase: Literal["warmup", "measured"]
    started_at: str
    ended_at: str
    elapsed_s: Any
    outcome: Literal["ok", "failed", "timeout"]
    outputs: list[_Output]
    http_status: int | None | msgspec.UnsetType = msgspec.UNSET
    error: str | None | msgspec.UnsetType = msgspec.UNSET


class _Worker(msgspec.Struct, tag_field="kind", tag="worker", forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """A worker receipt line as `schemas/receipt.schema.json` states it, but for the names' pattern and the `date-time` format (`ReceiptLines.vouch`)."""

    worker_id: str
    arm: str
    server: str
    pid: Annotated[int, msgspec.Meta(ge=1)]
    started_at: str
    ended_at: str | None
    exit_code: int | None
    signal: int | None | msgspec.UnsetType = msgspec.UNSET


#: One receipt line's typed reading (`verifier.formats.jsonio.typed_decoder`), by its `kind`.
_RECEIPTS = typed_decoder(_Request | _Worker).decode


def _planned_requests(modelled: Mapping[str, Any]) -> PlannedRequests | None:
    """Return the requests of the plan modelled so far (`modelled["plan"]`, or its shard's when it names one) as columns, or None."""
    plan = modelled.get("plan")  # a `Plan` (`DOCUMENT_READERS`), when the plan was valid
    if plan is None:
        return None
    shard = modelled.get("plan_requests")
    requests = plan.requests if plan.requests_file is None else shard.requests if isinstance(shard, PlannedLines) else None
    return requests if isinstance(requests, PlannedRequests) else None


class PlannedLines(_LineBuilder):
    """
    Builds a plan's requests from the parsed lines of the shard the plan names (`plan-requests.jsonl`), a batch of lines at a time.

    `extend(first, records)` takes schema-valid lines (`plan-request.schema.json`)
    and appends it to `requests` (`PlannedRequests`, columns), in file order; server and
    phase names are one shared `str` object each. `vouch` reads a batch of the lines' texts
    itself when it can vouch each is valid (typed, as `ReceiptLines.vouch`).
    """

    __slots__ = ("requests",)

    def __init__(self, name: str, modelled: Mapping[str, Any] | None = None) -> None:
        super().__init__(name)
        self.requests = PlannedRequests()

    def extend(self, first: int, records: list[Any]) -> None:
        """Model the parsed shard lines `records` (consecutive, the first of 0-based index `first`); total over JSON values, as `ReceiptLines.extend` is (a line that is no planned request is left out)."""
        one = self._one
        for r in records:
            if type(r) is dict and all(type(r.get(key)) is str for key in ("id", "server", "phase")):
                self.requests.append(r["id"], one(r["server"], r["server"]), one(r["phase"], r["phase"]))

    def vouch_for(self, schema: Any) -> Callable[[int, list[str], bool], bool] | None:
        """Return `vouch` when `schema` is the shard's line schema the typed planned requests mirror (`PLAN_REQUEST_SCHEMA_SHA256`), else None."""
        return self.vouch if schema_sha256(schema) == PLAN_REQUEST_SCHEMA_SHA256 else None

    def vouch(self, first: int, texts: list[str], keep: bool = True) -> bool:
        """
        Model the shard lines `texts` (consecutive, the first of 0-based index `first`) if each is a valid planned request; return whether each is.

        As `ReceiptLines.vouch`, for `schemas/plan-request.schema.json`: the
        texts are read into `_PlanRequest`s in one compiled pass
        (`verifier.formats.jsonio.loads_typed_each`), the ids and servers checked
        against `NAME_PATTERN` a column at a time; True only when every line
        is valid, and then `requests` grows as `extend` grows it. False (nothing modelled) for
        anything it does not vouch for: the caller reads the lines the
        reference way. With `keep` False the lines are only judged. Never raises on any text.
        """
        records = loads_typed_each(texts, _PLAN_REQUESTS)
        if records is None:
            return False
        one = self._one
        ids = [r.id for r in records]  # not copied as `vouch_plan` copies them: a batch's are near one another (measured: no difference)
        servers = [one(r.server, r.server) for r in records]
        if not (_all_match(_NAMES, ids) and _all_match(_NAMES, set(servers))):
            return False
        if keep:
            self.requests.extend(ids, servers, [one(r.phase, r.phase) for r in records])
        return True


class _PlanRequest(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """A planned request as `schemas/plan.schema.json` states one (`requests` items), but for the names' pattern (`vouch_plan`)."""

    id: str
    server: str
    phase: Literal["warmup", "measured"]
    prompt: str | msgspec.UnsetType = msgspec.UNSET


class _Shard(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """A plan's `requests` when it is an object (the shard it names): its one member, read as is (`vouch_plan`)."""

    file: Any = msgspec.UNSET


class _PlanDocument(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """
    A `plan.json` document as `vouch_plan` reads it: each of the schema's members read as is (`Any`) but `requests`.

    `requests` is a list of `_PlanRequest` (typed: read in one compiled pass,
    no dict a request) or a `_Shard`; every other member, and the requests
    list cut to its first item, is judged by the schema's own validator.
    """

    format: Any = msgspec.UNSET
    format_version: Any = msgspec.UNSET
    campaign: Any = msgspec.UNSET
    frozen_at: Any = msgspec.UNSET
    arms: Any = msgspec.UNSET
    servers: Any = msgspec.UNSET
    arm_order: Any = msgspec.UNSET
    warmups_per_server: Any = msgspec.UNSET
    measured_per_server: Any = msgspec.UNSET
    max_concurrency: Any = msgspec.UNSET
    requests: list[_PlanRequest] | _Shard | msgspec.UnsetType = msgspec.UNSET
    expected_output: Any = msgspec.UNSET
    timeouts: Any = msgspec.UNSET
    notes: Any = msgspec.UNSET


#: One `plan.json` document's typed reading (`verifier.formats.jsonio.typed_decoder`); one shard line's (`PlannedLines.vouch`).
_PLAN = typed_decoder(_PlanDocument).decode
_PLAN_REQUESTS = typed_decoder(_PlanRequest).decode
#: `schema_sha256` of `schemas/plan.schema.json`, whose planned requests `_PlanRequest` mirrors. A plan judged by another
#: schema is read the reference way only (`tests/readers/test_typed_plan.py` fails until the types and this are brought in line).
PLAN_SCHEMA_SHA256 = "9362ea7d3f00f07f61a147101ee101f0d879111d47ff899194ae255045530874"
#: `schema_sha256` of `schemas/plan-request.schema.json`, a shard line: the plan schema's `requests` item, which `_PlanRequest` mirrors.
PLAN_REQUEST_SCHEMA_SHA256 = "08fc09f7d2cc91fd9c7af8c02f4d28518cc09c904f7c880d5b9e5cf98e9dc57a"


def _as_dict(struct: Any) -> dict[str, Any]:
    """Return the members of msgspec Struct `struct` that were read (not `msgspec.UNSET`), by name."""
    return {key: value for key in struct.__struct_fields__ if (value := getattr(struct, key)) is not msgspec.UNSET}


def vouch_plan(data: bytes, valid: Callable[[Any], bool], name: str) -> Plan | None:
    """
    Return the `Plan` of `plan.json` bytes `data` (file `name`) if they are a valid plan, judged by `valid`; else None.

    A pre-filter of the reference reading (issue 40: the strict reader builds
    a dict a planned request, 10^6 of them, then the schema validates each).
    The text is read into `_PlanDocument` in one compiled pass
    (`verifier.formats.jsonio.loads_typed_each`, which vouches it is strict JSON):
    each planned request a `_PlanRequest` (the schema's item: types, enum,
    required and forbidden members), their ids and servers then checked
    against `NAME_PATTERN` a column at a time. Every other member, with
    `requests` cut to its first item, is judged by `valid(document)` (the
    plan schema's validator: True only when it finds no error). Not None only
    when `data` is a plan valid against `schemas/plan.schema.json`; the model
    is then the one `plan_of` builds from the strict reader's document (ids
    copied out of the typed requests, `_copy`, so that they lie together once
    those are dropped: the receipts read next then join them faster, and the
    peak is lower, `benchmarks/README.md`). None (nothing read) for
    anything it does not vouch for, valid or not: the caller then reads the
    document the reference way, which names every problem. Never raises on
    any bytes.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    read = loads_typed_each([text], _PLAN)
    if read is None:
        return None
    document = _as_dict(read[0])
    listed = document.get("requests")
    requests = None
    if type(listed) is list:
        if not listed:
            return None
        shared: dict[str, str] = {}
        one = shared.setdefault
        ids = [_copy(r.id) for r in listed]
        servers = [one(r.server, r.server) for r in listed]
        if not (_all_match(_NAMES, ids) and _all_match(_NAMES, shared)):  # `shared` holds each server once
            return None
        requests = PlannedRequests(columns=(ids, servers, [one(r.phase, r.phase) for r in listed]))
        document["requests"] = [_as_dict(listed[0])]
    elif listed is not None:
        document["requests"] = _as_dict(listed)
    del read, listed
    if not valid(document):
        return None
    return plan_of(document, name, requests)


#: The builders of the model from a document as `schema.documents` validated it, by document kind, so it is parsed once
#: and its parsed form is dropped as soon as it is modelled (`Bundle.modelled`): a JSON Lines document's builder is fed
#: each batch of valid lines (`ReceiptLines`), a JSON document's is given the whole parsed document.
LINE_READERS = {"receipts": ReceiptLines, "plan_requests": PlannedLines}
DOCUMENT_READERS = {"plan": plan_of}
#: A document kind's own reading of its bytes into the model, for the schema (by `schema_sha256`) its types mirror: tried
#: by `schema.documents` before the reference reading (strict reader, schema, `DOCUMENT_READERS`), see `vouch_plan`.
DOCUMENT_VOUCHERS = {"plan": (PLAN_SCHEMA_SHA256, vouch_plan)}


def evidence_of(ctx: Any) -> Evidence:
    """
    Return (and cache in `ctx.run.evidence`) the `Evidence` of the run's bundle, native or mapped.

    A document that did not pass integrity or its schema is left out and
    recorded as `Unmapped` with the part it leaves unusable and the reason
    code `Bundle.document` gives. Called first by a check that runs after
    `schema.documents` (which records the schema problems it reads).
    """
    if ctx.run.evidence is not None:
        return ctx.run.evidence  # type: ignore[no-any-return]
    bundle = ctx.bundle
    documents: dict[str, Any] = {}
    unmapped: list[Unmapped] = []
    names = {kind: spec[0] for kind, spec in bundle.kinds.items()}
    for kind in ("plan", "receipts", "claims", "quality"):
        parts = ("receipts", "processes") if kind == "receipts" else (kind,)
        if kind not in bundle.kinds:  # a mapped profile that maps no such document
            unmapped.extend(Unmapped(f"{kind} document", None, f"the reader maps no {kind} document, so nothing that needs it is checked",
                                     part, "not-in-evidence") for part in parts)
            continue
        try:  # modelled as the schema check read and validated it (`Bundle.modelled`): not read again
            documents[kind] = bundle.modelled[kind] if kind in bundle.modelled else bundle.document(kind)
        except Unverifiable as exc:
            unmapped.extend(Unmapped(f"document {names[kind]}", Location(names[kind]), str(exc), part, exc.code) for part in parts)
    if isinstance(documents.get("plan"), dict):  # modelled first and released: its dicts are not held while the receipts are read
        documents["plan"] = plan_of(documents["plan"], names["plan"])
        bundle.release("plan")
    plan = documents.get("plan")
    if isinstance(plan, Plan) and plan.requests_file is not None:  # the requests are in the shard the plan names
        name = bundle.kinds["plan_requests"][0]
        try:
            shard = bundle.modelled["plan_requests"] if "plan_requests" in bundle.modelled else PlannedLines.of(bundle.document("plan_requests"), name)
            documents["plan"] = replace(plan, requests=shard.requests)
        except Unverifiable as exc:
            documents.pop("plan")
            unmapped.append(Unmapped(f"document {name}", Location(name), str(exc), "plan", exc.code))
    profile = ctx.options.get("profile")
    reader = f"profile:{profile['id']}" if profile else "bundle-v1"
    try:
        evidence = from_documents(documents, manifest=ctx.run.manifest, names=names, reader=reader,
                                  gate=ctx.gate_id, unmapped=unmapped)
    except Unverifiable as exc:  # JSON Lines are read as they are modelled (`Bundle.document`): the file changed under us
        documents.pop("receipts", None)
        unmapped.extend(Unmapped(f"document {names['receipts']}", Location(names["receipts"]), str(exc), part, exc.code)
                        for part in ("receipts", "processes"))
        evidence = from_documents(documents, manifest=ctx.run.manifest, names=names, reader=reader,
                                  gate=ctx.gate_id, unmapped=unmapped)
    ctx.run.evidence = evidence
    return evidence
