"""
Result model: statuses, findings, reports, verdicts and exit codes.

Pure data, no I/O. The wire format of every type here is described by
`schemas/report.schema.json`.
"""

from __future__ import annotations

import enum
import operator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any


__all__ = ["MAX_SHOWN_CHARS", "MAX_SHOWN_ITEMS", "ExitCode", "Finding", "Report", "Status", "bounded", "cut", "exit_code_for",
           "finding", "verdict_of"]

JSONValue = Any


class Status(enum.StrEnum):
    """Represents the outcome of one check on one piece of evidence (values are the wire format)."""

    PASS = "PASS"
    FAIL = "FAIL"
    UNVERIFIED = "UNVERIFIED"  # could not run: evidence absent, dependency missing, blocked upstream
    ERROR = "ERROR"  # the verifier itself failed inside a check


class ExitCode(enum.IntEnum):
    """Represents the process exit codes of `verify` (see `docs/exit-codes.md`)."""

    PASS = 0
    FAIL = 1
    USAGE = 2  # bad arguments, or one of our own pinned assets fails its pin
    INCOMPLETE = 3
    ERROR = 4


#: Verdict names. INCOMPLETE is the verdict when a required finding is UNVERIFIED.
VERDICTS = ("PASS", "FAIL", "INCOMPLETE", "ERROR")


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """
    Represents one check's outcome on one piece of evidence.

    `check` is the stable check id (`family.noun`, e.g. `integrity.files`), `code`
    a stable kebab-case reason (`sha256-mismatch`). `path` is bundle-relative
    POSIX, `pointer` an RFC 6901 JSON Pointer into `path`. `expected` and
    `observed` are JSON values; `derivation` is an optional human-readable
    account of how a derived value was computed (shown with `-v`). `cached`
    names what this finding reused from the warm re-verify cache
    (`verifier.cache.warm`): `digest` (a file's sha256 by its identity), `score`
    (re-computed scores), `schema`, `coverage`, `markdown`, or `report` (the
    whole report was replayed because every input was unchanged,
    `verifier.fastpath`); None when nothing was reused.
    """

    check: str
    status: Status
    code: str
    message: str
    path: str | None = None
    pointer: str | None = None
    expected: JSONValue = None
    observed: JSONValue = None
    derivation: str | None = None
    cached: str | None = None

    def to_json(self) -> dict[str, JSONValue]:
        """Return the JSON form used by `schemas/report.schema.json` (keys always present; `cached` only when set)."""
        out: dict[str, JSONValue] = {
            "check": self.check,
            "status": self.status.value,
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "pointer": self.pointer,
            "expected": _jsonable(self.expected),
            "observed": _jsonable(self.observed),
            "derivation": self.derivation,
        }
        if self.cached is not None:
            out["cached"] = self.cached
        return out


def finding(check: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    """Return a `Finding` of check `check` (the positional shorthand of the receipt readers' checks; `kw`: its other fields)."""
    return Finding(check=check, status=status, code=code, message=message, **kw)


def _jsonable(value: JSONValue) -> JSONValue:
    """Return `value` with `Decimal` and `Fraction` turned into strings (exact, never float-rounded)."""
    from decimal import Decimal
    from fractions import Fraction

    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


#: The size budget of everything a report copies from the bundle (a sentence, a file name, a value): a string of a
#: finding (its message, path, pointer, derivation, and every string, key or number inside `expected`/`observed`)
#: holds at most this many characters, the cut marker included; the longest one of the shipped corpus is 1,029.
MAX_SHOWN_CHARS = 2048
#: ... and an array or object inside `expected`/`observed` at most this many items (the last one a cut marker).
MAX_SHOWN_ITEMS = 256


def cut(text: str, limit: int | None = None) -> str:
    """
    Return `text` whole if it has at most `limit` characters (default `MAX_SHOWN_CHARS`), else its head and a visible marker, `limit` characters in all.

    `"aaaa…(5000 chars)"` -> `"aaa… [cut, 4986 chars]"`: the marker counts the
    characters left out. Idempotent (a cut text fits its limit), so a report
    bounded twice is the same report.
    """
    limit = MAX_SHOWN_CHARS if limit is None else limit
    if len(text) <= limit:
        return text
    marker = f"\u2026 [cut, {len(text)} chars]"  # at most the text's length: the first guess of what is left out
    keep = max(0, limit - len(marker))
    return text[:keep] + f"\u2026 [cut, {len(text) - keep} chars]"


def bounded(value: JSONValue, limit: int | None = None, items: int | None = None) -> JSONValue:
    """
    Return JSON-like `value` within the size budget: each string `cut`, each array or object at most `items` items (default `MAX_SHOWN_ITEMS`).

    A `Decimal` of more digits than the budget becomes its cut string; an
    array or object past `items` keeps its first `items - 1` items and a
    marker (`"\u2026 [cut, N items]"`, as a last element or under the key
    `"\u2026"`). Returns `value` itself (no copy) when all of it fits, so
    the common case costs one walk. Nested containers are few levels deep
    (the values a finding records), so the walk recurses.
    """
    limit = MAX_SHOWN_CHARS if limit is None else limit
    items = MAX_SHOWN_ITEMS if items is None else items
    if isinstance(value, str):
        return cut(value, limit)
    if isinstance(value, Decimal):
        return value if len(value.as_tuple().digits) <= limit - 30 else cut(str(value), limit)
    if isinstance(value, dict):
        pairs = list(value.items())
        out = {cut(str(k), limit): bounded(v, limit, items) for k, v in pairs[:items - 1 if len(pairs) > items else items]}
        if len(pairs) > items:
            out["\u2026"] = f"\u2026 [cut, {len(pairs) - (items - 1)} items]"
        elif all(k is k2 and v is v2 for (k, v), (k2, v2) in zip(pairs, out.items())):
            return value  # nothing cut: the same object
        return out
    if isinstance(value, (list, tuple)):
        kept = [bounded(v, limit, items) for v in value[:items - 1 if len(value) > items else items]]
        if len(value) > items:
            return kept + [f"\u2026 [cut, {len(value) - (items - 1)} items]"]
        return value if all(a is b for a, b in zip(kept, value)) else kept
    return value


def _fits(value: JSONValue, limit: int, items: int) -> bool:
    """Return whether `bounded(value, limit, items)` would return `value` itself: a walk that builds nothing (the common case)."""
    kind = type(value)
    if kind is str:
        return len(value) <= limit
    if kind is dict:
        if len(value) > items:
            return False
        for k, v in value.items():
            if type(k) is str and len(k) > limit or type(v) is not int and v is not None and not _fits(v, limit, items):
                return False
        return True
    if kind is list or kind is tuple:
        if len(value) > items:
            return False
        for v in value:
            if type(v) is not int and v is not None and not _fits(v, limit, items):
                return False
        return True
    if kind is Decimal:
        return len(value.as_tuple().digits) <= limit - 30
    return True


def _bounded_finding(f: Finding) -> Finding:
    """Return `f` with every string it copies within the size budget (`cut`, `bounded`); `f` itself when all fits."""
    limit, items = MAX_SHOWN_CHARS, MAX_SHOWN_ITEMS
    path, pointer, derivation = f.path, f.pointer, f.derivation
    if (len(f.message) <= limit and (path is None or len(path) <= limit) and (pointer is None or len(pointer) <= limit)
            and (derivation is None or len(derivation) <= limit) and _fits(f.expected, limit, items) and _fits(f.observed, limit, items)):
        return f  # the common case: nothing to cut, nothing built
    changes: dict[str, Any] = {}
    for name in ("message", "path", "pointer", "derivation"):
        text = getattr(f, name)
        if text is not None and len(text) > limit:
            changes[name] = cut(text)
    for name in ("expected", "observed"):
        value = getattr(f, name)
        if not _fits(value, limit, items):
            changes[name] = bounded(value)
    return replace(f, **changes) if changes else f


def verdict_of(findings: tuple[Finding, ...] | list[Finding]) -> str:
    """
    Return the verdict for a set of findings.

    Precedence (from `shared/docs/brief.md`): FAIL if any finding failed, else
    ERROR if any errored, else INCOMPLETE if any is UNVERIFIED, else PASS. A
    set with no PASS finding at all (including the empty set) is never PASS: it
    is INCOMPLETE.
    """
    statuses = {f.status for f in findings}
    if Status.FAIL in statuses:
        return "FAIL"
    if Status.ERROR in statuses:
        return "ERROR"
    if Status.UNVERIFIED in statuses or Status.PASS not in statuses:
        return "INCOMPLETE"
    return "PASS"


def exit_code_for(verdict: str) -> ExitCode:
    """Return the exit code for a verdict name; raises `KeyError` for an unknown verdict."""
    return {
        "PASS": ExitCode.PASS,
        "FAIL": ExitCode.FAIL,
        "INCOMPLETE": ExitCode.INCOMPLETE,
        "ERROR": ExitCode.ERROR,
    }[verdict]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckInfo:
    """Represents one entry of the roster: a check that ran, with its title and finding counts."""

    check: str
    title: str
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """
    Represents the result of verifying one bundle or receipt.

    `subject` is the path as given on the command line, `kind` the reader that
    handled it (`bundle-v1`, `serving-performance-v1`, ...), `gate` and
    `gate_sha256` the gate judged by (None when the reader has no gate),
    `roster` every check that ran in pipeline order, `findings` every finding
    in pipeline order. `producer` is `{"producer": ..., "version": ...}` of a
    receipt whose reader identified its producer (None for bundles and
    unidentified receipts).
    """

    subject: str
    kind: str
    verifier_version: str
    findings: tuple[Finding, ...]
    roster: tuple[CheckInfo, ...]
    gate: str | None = None
    gate_sha256: str | None = None
    producer: dict[str, str] | None = None
    #: Where the gates and profiles that judged this report came from (`verifier.trust.trustroot.TrustSet.describe`):
    #: `{config, ref, sources: [{kind, id, origin, path, sha256}], changed: [trusted files edited since ref]}`.
    trust: dict[str, JSONValue] | None = None
    #: Plot data for people (`verifier.checks.figures`: request latencies in run order, per-frame scores, stream spans);
    #: drawn by the HTML reporter only, never part of the JSON report.
    figures: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Hold every finding within the size budget (`MAX_SHOWN_CHARS`, `MAX_SHOWN_ITEMS`): the one place every reporter's findings pass."""
        bounded_findings = [_bounded_finding(f) for f in self.findings]
        if any(map(operator.is_not, bounded_findings, self.findings)):
            object.__setattr__(self, "findings", tuple(bounded_findings))

    @property
    def verdict(self) -> str:
        """Return the verdict of `findings` (see `verdict_of`)."""
        return verdict_of(self.findings)

    @property
    def exit_code(self) -> ExitCode:
        """Return the exit code of `verdict`."""
        return exit_code_for(self.verdict)

    def to_json(self) -> dict[str, JSONValue]:
        """Return the JSON document described by `schemas/report.schema.json` (report_version 1)."""
        counts = {s.value: 0 for s in Status}
        for f in self.findings:
            counts[f.status.value] += 1
        out: dict[str, JSONValue] = {
            "report_version": 1,
            "verifier_version": self.verifier_version,
            "subject": self.subject,
            "kind": self.kind,
            "gate": self.gate,
            "gate_sha256": self.gate_sha256,
            "verdict": self.verdict,
            "exit_code": int(self.exit_code),
            "counts": counts,
            "roster": [
                {"check": c.check, "title": c.title, "counts": dict(sorted(c.counts.items()))}
                for c in self.roster
            ],
            "findings": [f.to_json() for f in self.findings],
        }
        if self.producer is not None:
            out["producer"] = dict(self.producer)
        if self.trust is not None:
            out["trust"] = self.trust
        return out
