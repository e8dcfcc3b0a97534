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
from pathlib import Path
from typing import Any

from verifier.errors import Unverifiable
from verifier.model import CheckInfo, Finding, Status
from verifier.stats import RUN_CONTEXT

__all__ = ["ROADS", "Check", "Context", "check", "run_pipeline"]

#: What a reader gives the check families: a bundle of format v1, a foreign bundle a profile's `bundle` section maps onto
#: it, the evidence a profile without one reads, a receipt reader's document or directory. A check's title and `requires`
#: may depend on it (`Check.on`; a mapped bundle's are a bundle's unless it says otherwise); its body reads the inputs the
#: reader gave.
ROADS = ("bundle", "mapped", "profile", "receipt")


@dataclass
class Context:
    """
    Represents what checks of one run share.

    `bundle` is a `verifier.bundle.Bundle` (None for single-file readers),
    `subject` the path being verified, `assets` our verified `trust.Assets`,
    `gate_id`/`gate` the gate judged by (None until the gate check found it),
    `options` the run options (e.g. `artifacts`: a directory of external
    artifacts), `data` a per-run cache for values shared by checks.
    """

    subject: Path
    assets: Any
    bundle: Any = None
    gate_id: str | None = None
    gate: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)


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
    UNVERIFIED finding; any other exception one ERROR finding (traceback in
    `derivation` when `debug`). Each check runs in `verifier.stats.RUN_CONTEXT`,
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
