"""
Check registration and the runner.

A check is a function `(Context) -> Iterable[Finding]` decorated with `@check`.
The order of checks is fixed by each reader's pipeline (e.g.
`verifier.core.BUNDLE_PIPELINE`, `verifier.core.receipt_pipeline`) and is a security property: nothing is
parsed before it is hashed, nothing is derived before it validates.

`run_pipeline` holds the only broad `except` of the verifier: a crash inside a
check becomes one ERROR finding, never a traceback and never a PASS.
"""

from __future__ import annotations

import decimal
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import ConfigError, Unverifiable
from verifier.model.findings import CheckInfo, Finding, Status
from verifier.engine.stats import RUN_CONTEXT

if TYPE_CHECKING:
    from verifier.model.evidence import Evidence, Receipt

__all__ = ["ROADS", "Check", "Context", "PackFacts", "RunData", "check", "run_pipeline"]

#: What a reader gives the check families: a bundle of format v1, a foreign bundle a profile's `bundle` section maps onto
#: it, the evidence a profile without one reads, a receipt reader's document or directory. A check's title and `requires`
#: may depend on it (`Check.on`; a mapped bundle's are a bundle's unless it says otherwise); its body reads the inputs the
#: reader gave.
ROADS = ("bundle", "mapped", "profile", "receipt")


@dataclass
class PackFacts:
    """
    Represents what the telemetry checks establish for the rule pack (`verifier.checks.packs.telemetry`) to read.

    Written by the pack's checks (`telemetry.carriers`, `telemetry.provenance`, `telemetry.occupancy`), the reader's `stated`
    (`verifier.adapters.telemetry`) and the pack's standings, read by the pack's
    qualification (a fact never established stays at its default: False / None / empty).
    `carrier`: retained carrier file name (`stdout`, `metrics_before`, `metrics_after`, `implementation`, ...) -> its
    bytes (`telemetry.carriers`); `client`: the client facts printed on stdout (`_client`), None until parsed;
    `engine_delta`: the engine's generated-token counter delta (`_engine`), None until summed;
    `no_preemptions`, `occupancy_within_cap`, `implementation_bound` (the pack's checks), `subject_established`,
    `arrival_observed`, `window_isolated` (the pack's standings): whether each prerequisite was observed.
    """

    carrier: dict[str, bytes] = field(default_factory=dict)
    client: dict[str, Any] | None = None
    engine_delta: Decimal | None = None
    no_preemptions: bool = False
    occupancy_within_cap: bool = False
    implementation_bound: bool = False
    subject_established: bool = False
    arrival_observed: bool = False
    window_isolated: bool = False


@dataclass
class RunData:
    """
    Represents the values checks of one run share (`Context.run`), each written by the check named and read later.

    The run's documents: `evidence` the evidence model (`verifier.model.evidence.Evidence`; built by the reader's
    `model`/`evidence_of`, `schema.documents` for a profile (`checks.profile_receipts`); None until built), `manifest` the manifest the model reads
    (bundle format v1's shape; `integrity.files`; None when none was read), `campaign` the `verifier.readers.campaign.Campaign`
    (`campaign.campaign_of`, memoized; None until built), `profile` the producer profile the schema checks chose (`{}` until then),
    `schema` its schema name, `producer` `{producer, version}` for the report (None when not identified), `doc` /
    `raw` file name -> parsed document / its bytes (`schema.documents`, adapters).
    Integrity: `matched` NFC name -> (name on disk, sha256) of the files `integrity.files` matched; `listed_names`
    sha256 -> the sorted names it is listed under; `listed_digests` every listed sha256 (None when no manifest was
    read); `listed_externals` the external artifacts listed with digests (manifest entries); `externals_verified`
    / `externals_digests` name -> the supplied external file's path / its sha256 (`integrity.match_supplied`; re-hashed by
    `integrity.unchanged`). `examined` the `(file, JSON Pointer)` places of stated values some check compared
    (read by `explain`). `coverage_checked` media name -> (expectation, policy, findings, facts) of
    `coverage.streams`, re-used by `quality.rescore`. `figures` figure kind -> rows for the HTML report
    (`verifier.checks.figures.add`). Per-model memos of `profile_base` / `profile_unreached`, each `(model, value)`
    rebuilt when the model changes: `receipt_sets` set id -> receipts (with stand-ins), `read_receipt_sets` set id
    -> read receipts, `file_paths` the model's file paths, `claimed_places` the places claims found values at;
    `derivations` the memo of `derive_rule`. `facts` what the telemetry checks establish for its rule pack.
    """

    evidence: Evidence | None = None
    manifest: dict[str, Any] | None = None
    campaign: Any = None  # a verifier.readers.campaign.Campaign (not imported: campaign imports readers/, which import this module)
    profile: dict[str, Any] = field(default_factory=dict)
    schema: str | None = None
    producer: dict[str, Any] | None = None
    doc: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, bytes] = field(default_factory=dict)
    matched: dict[str, tuple[str, str]] = field(default_factory=dict)
    listed_names: dict[str, list[str]] = field(default_factory=dict)
    listed_digests: set[str] | None = None
    listed_externals: list[dict[str, Any]] = field(default_factory=list)
    externals_verified: dict[str, Any] = field(default_factory=dict)
    externals_digests: dict[str, str] = field(default_factory=dict)
    examined: set[tuple[str, str]] = field(default_factory=set)
    coverage_checked: dict[str, tuple[Any, Any, Any, Any]] = field(default_factory=dict)
    figures: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    receipt_sets: tuple[Evidence, dict[str, list[Receipt]]] | None = None
    read_receipt_sets: tuple[Evidence, dict[str, list[Receipt]]] | None = None
    file_paths: tuple[Evidence, frozenset[str]] | None = None
    claimed_places: tuple[Evidence, dict[tuple[str, str], set[str]]] | None = None
    derivations: dict[Any, Any] = field(default_factory=dict)
    facts: PackFacts = field(default_factory=PackFacts)


@dataclass
class Context:
    """
    Represents what checks of one run share.

    `bundle` is a `verifier.formats.bundle.Bundle` (None for single-file readers),
    `subject` the path being verified, `assets` our verified `trust.Assets`,
    `gate_id`/`gate` the gate judged by (None until the gate check found it),
    `options` the run options (e.g. `artifacts`: a directory of external
    artifacts), `run` the values checks of the run share (`RunData`).
    """

    subject: Path
    assets: Any
    bundle: Any = None
    gate_id: str | None = None
    gate: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    run: RunData = field(default_factory=RunData)


@dataclass(frozen=True)
class Check:
    """
    Represents a registered check: stable `id`, human `title`, the function, and the check ids it `requires`.

    `roads` holds `(road, title, requires)`: the bundle's first (what an input not listed has), then one per input
    (`ROADS`) the check is titled or ordered otherwise on; `on(road)` gives the check as that input's pipeline runs it.
    """

    id: str
    title: str
    func: Callable[[Context], Iterable[Finding]]
    requires: tuple[str, ...] = ()
    roads: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    def on(self, road: str) -> Check:
        """Return this check with the title and `requires` it has for input `road` (one of `ROADS`); raises `ValueError` for another."""
        if road not in ROADS:
            raise ValueError(f"unknown road {road!r} (known: {', '.join(ROADS)})")
        title, requires = next(((t, r) for name, t, r in self.roads if name == road), self.roads[0][1:] if self.roads else (self.title, self.requires))
        return Check(self.id, title, self.func, requires, self.roads)

    def __call__(self, ctx: Context) -> Iterable[Finding]:
        """Run the check function on `ctx`."""
        return self.func(ctx)


def check(check_id: str, *, title: str, requires: Sequence[str] = (),
          roads: Mapping[str, tuple[str, Sequence[str]]] | None = None) -> Callable[[Callable[[Context], Iterable[Finding]]], Check]:
    """
    Return a decorator registering a function as check `check_id`, once for every reader.

    `requires` names checks that must have passed outright (only PASS
    findings); otherwise this check emits one UNVERIFIED `blocked-by` finding
    instead of running. `roads` maps an input (`ROADS`) to the `(title,
    requires)` the check has there instead (`Check.on`).
    """

    def wrap(func: Callable[[Context], Iterable[Finding]]) -> Check:
        others = tuple((road, t, tuple(r)) for road, (t, r) in (roads or {}).items())
        return Check(check_id, title, func, tuple(requires), (("bundle", title, tuple(requires)), *others) if others else ())

    return wrap


def run_pipeline(pipeline: Sequence[Check], ctx: Context, *, debug: bool = False) -> tuple[list[Finding], list[CheckInfo]]:
    """
    Run `pipeline` in order on `ctx`; return `(findings, roster)`.

    A check that yields nothing gets one UNVERIFIED `no-findings` finding, so
    a check that silently dropped out is visible. `Unverifiable` becomes one
    UNVERIFIED finding; `ConfigError` (one of our own assets is unusable) propagates to the caller (exit 2);
    any other exception one ERROR finding (traceback in `derivation` when `debug`). Each check runs in `verifier.engine.stats.RUN_CONTEXT`,
    whatever decimal context the calling thread has.
    """
    findings: list[Finding] = []
    roster: list[CheckInfo] = []
    outcome: dict[str, set[Status]] = {}
    for chk in pipeline:
        produced: list[Finding] = []
        blockers = [r for r in chk.requires if r in outcome and outcome[r] != {Status.PASS}]
        unknown = [r for r in chk.requires if r not in outcome]
        if unknown:
            produced.append(
                Finding(check=chk.id, status=Status.ERROR, code="pipeline-order",
                        message=f"requires {', '.join(unknown)}, which did not run before it")
            )
        elif blockers:
            produced.append(
                Finding(check=chk.id, status=Status.UNVERIFIED, code="blocked-by",
                        message=f"not run because {', '.join(blockers)} did not pass",
                        expected=None, observed=blockers)
            )
        else:
            try:
                with decimal.localcontext(RUN_CONTEXT):  # the caller's decimal context is not the verifier's
                    produced.extend(chk(ctx))
            except Unverifiable as exc:
                produced.append(
                    Finding(check=chk.id, status=Status.UNVERIFIED, code=exc.code, message=str(exc), path=exc.path)
                )
            except ConfigError:  # one of our own assets is unusable: no verdict on the evidence at all (exit 2), never a finding
                raise
            except Exception as exc:  # noqa: BLE001 - the one sanctioned catch-all: a crash is ERROR, never a traceback
                produced.append(
                    Finding(check=chk.id, status=Status.ERROR, code="verifier-error",
                            message=f"the verifier failed inside this check: {type(exc).__name__}: {exc}",
                            derivation=traceback.format_exc() if debug else None)
                )
            if not produced:
                produced.append(
                    Finding(check=chk.id, status=Status.UNVERIFIED, code="no-findings",
                            message="the check produced no findings, so nothing was established")
                )
        by_status: dict[Status, int] = {}  # counted by member, named by value once per status (an Enum's `.value` is a Python-level lookup)
        for f in produced:
            by_status[f.status] = by_status.get(f.status, 0) + 1
        counts = {status.value: n for status, n in by_status.items()}
        outcome[chk.id] = set(by_status)
        roster.append(CheckInfo(check=chk.id, title=chk.title, counts=counts))
        findings.extend(produced)
    return findings, roster
