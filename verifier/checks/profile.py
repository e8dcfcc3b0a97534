"""
Checks that verify a foreign bundle through a profile (`verifier.profiles.language`).

`pipeline_for(profile)` orders them; a section the profile does not declare
(no identities, no gate, ...) leaves its check out of the pipeline, so the
roster shows exactly what ran. Order, as for native bundles: (1) integrity
before anything is parsed (a file whose bytes contradict the manifest is
never read); (2) receipts mapped and counted (`schema.documents`, its
profile road: `verifier.checks.profile_receipts`); (3) per-record identities;
(4) clocks: no overlap; (5) output digests listed; (6) media (`coverage.streams`,
its profile road: `verifier.checks.profile_media`); (7) claims re-derived;
(8) the gate last, on re-derived numbers only.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.checks.profile_base import _f, _profile, _records, examined
from verifier.checks.derivation import claims
from verifier.checks.statements import stated
from verifier.checks.profile_claims import _stated, select_records  # noqa: F401 - public here
from verifier.checks.gate import pinned
from verifier.checks.profile_gate import gate
from verifier.checks.profile_coverage import coverage
from verifier.checks.integrity import files as integrity
from verifier.checks.profile_matches import matches
from verifier.checks.coverage import streams
from verifier.checks.profile_media import judged_sets, presence_sets
from verifier.checks.schema import documents
from verifier.model.findings import Finding, Status
from verifier.model.numtext import delta_text, tolerance_text
from verifier.engine.pipeline import Check, Context, check
from verifier.readers.pointers import fmt, resolve, to_decimal
from verifier.model.evidence import Receipt
from verifier.readers.markdown_doc import row_pointers
from verifier.readers.records import UNITS


# ---------------------------------------------------------------- (3) identities


def _stated_number(record: Any, term: dict[str, Any]) -> tuple[Decimal | None, bool]:
    """
    Return `(number, exact)`: what a record states at a term's pointer, in the term's unit, or `(None, False)` for no number.

    A JSON number or numeric string ("33.33" states its precision); a
    rational string such as "24/1" (`exact`: it states no precision); or a
    number written with its unit
    inside a string ("76.000%", "244.6s": `profile_claims._stated`),
    converted from that unit to the term's (`verifier.model.units.convert`; a unit
    of another dimension, or one the registry does not know, is no number).
    Raises `KeyError` when the pointer is absent.
    """
    raw = resolve(record, term["pointer"])
    number, written = _stated(raw)  # the one reading of a stated value, as derivation.claims reads it
    if number is None:
        return None, False
    if written is None or written == term.get("unit", "1"):
        return number, written is None and isinstance(raw, str) and "/" in raw
    try:
        return units.convert(number, written, term.get("unit", "1")), False
    except (units.UnitError, units.UnitMismatch):
        return None, False


def _term(record: Any, term: dict[str, Any], stated: tuple[Decimal | None, bool] | None = None) -> Decimal:
    """Return the number a record states at `term`, in the term's base unit (`stated`: `_stated_number(record, term)` when already read); raises `KeyError` or `ValueError` naming the pointer."""
    value, _exact = stated if stated is not None else _stated_number(record, term)
    if value is None:
        raw = resolve(record, term["pointer"])
        _number, written = _stated(raw)
        if written is not None:  # a number, in a unit that is not of the term's dimension
            raise ValueError(f"{term['pointer']} ({raw!r} is in {written}, not in a unit of {term.get('unit', '1')}'s dimension)")
        raise ValueError(term["pointer"])
    return stats.CONTEXT.multiply(value, UNITS[term["unit"]]) if "unit" in term else value


def _has(raw: Any, pointer: str) -> bool:
    try:
        resolve(raw, pointer)
    except KeyError:
        return False
    return True


@check("derivation.identities", title="Recorded fields agree with each other (sums, differences, unit conversions)")
def identities(ctx: Context) -> Iterator[Finding]:
    """
    Check each per-record identity the profile declares, within its tolerance.

    `left` must equal `op(terms)` (value, sum, difference, ratio, percentage:
    100 x part / whole), compared
    in `left`'s unit. Tolerance: the profile's (in `left`'s unit, or
    `one_over` a field such as one frame = 1/fps), else the largest
    `stats.tolerance` of the stated numbers involved (half a unit of
    stated precision, or ulps for full-precision floats), never exact `==`.
    One finding per identity and receipt set: PASS `identity-holds` or FAIL
    `identity-mismatch` naming the first record that breaks it; FAIL
    `missing-field` when a record lacks an operand; UNVERIFIED
    `identity-undefined` when the operation has no value for a record (a
    zero divisor, counts that are no counts: `_identity`). With `when_present`,
    records stating none of the terms are skipped and counted in the message.
    The places compared (`left` and each term, a Markdown table row's also at
    its claim document place `/tables/<name>/<row>`) are marked examined, so
    `claims.coverage` counts them.
    """
    cid = "derivation.identities"
    for identity in _profile(ctx)["identities"]:
        sets = identity["receipts"] if isinstance(identity["receipts"], list) else [identity["receipts"]]
        for rid in sets:
            seen: set[int] = set()
            records = [r for r in _records(ctx, rid) if id(r.raw) not in seen and not seen.add(id(r.raw))]  # type: ignore[func-returns-value]
            if not records:
                yield _f(cid, Status.UNVERIFIED, "no-receipts", f"{identity['id']}: receipt set {rid} has no records to check")
                continue
            broken: list[Finding] = []
            worst = Decimal(0)
            if identity.get("when_present"):
                stating = [r for r in records if any(_has(r.raw, t["pointer"]) for t in identity["terms"])]
                skipped, records = len(records) - len(stating), stating
                if not records:
                    yield _f(cid, Status.UNVERIFIED, "no-receipts", f"{identity['id']}: no record of {rid} states its terms ({skipped} skipped)")
                    continue
            else:
                skipped = 0
            by_file: dict[str, list[Any]] = {}
            for r in records:
                by_file.setdefault(r.path, []).append(r.raw)
            in_documents = {k: v for raws in by_file.values() for k, v in row_pointers(raws).items()}  # a Markdown table row: its claim document's place
            for r in records:
                try:
                    result = _identity(identity, r.raw)
                except (KeyError, ValueError) as exc:
                    broken.append(_f(cid, Status.FAIL, "missing-field", f"{identity['id']}: {r.path} {r.pointer} has no number at {exc.args[0]}",
                                     path=r.path, pointer=r.pointer))
                    continue
                except Undefined as exc:
                    broken.append(_f(cid, Status.UNVERIFIED, "identity-undefined", f"{identity['id']}: {r.path} {r.pointer}: {exc}, so it cannot be judged",
                                     path=r.path, pointer=r.pointer))
                    continue
                for term in (identity["left"], *identity["terms"]):  # stated values this check compares: a change to any of them is judged
                    examined(ctx).add((r.path, r.pointer + term["pointer"]))
                    if id(r.raw) in in_documents:
                        examined(ctx).add((r.path, in_documents[id(r.raw)] + term["pointer"]))
                left, right, tolerance, text = result
                judged = stats.compare(left, right, declared=tolerance)
                gap = abs(judged.delta)
                worst = max(worst, gap)
                if not judged.holds:
                    broken.append(_f(cid, Status.FAIL, "identity-mismatch",
                                     f"{identity['id']}: {r.path} {r.pointer}: {text} ({delta_text(judged.delta)}, {tolerance_text(tolerance)})",
                                     path=r.path, pointer=r.pointer + identity["left"]["pointer"], expected=str(right), observed=str(left), derivation=text))
            if broken:
                yield from broken
            else:
                yield _f(cid, Status.PASS, "identity-holds", f"{identity['id']}: holds on all {len(records)} records of {rid} (largest {delta_text(worst)})"
                         + (f"; {skipped} records state none of its terms and are not checked" if skipped else ""),
                         path=_profile(ctx)["receipts"][rid]["glob"], observed=len(records))


#: Raised by `_identity` when its operation has no value for a record: a zero divisor, counts that are no counts, a number out of range.
Undefined = stats.Undefined


def _identity(identity: dict[str, Any], raw: Any) -> tuple[Decimal, Decimal, Decimal, str]:
    """
    Return `(left, right, tolerance, text)` of one identity on one record, both sides in `left`'s unit.

    Raises `KeyError` or `ValueError` (naming the pointer) when the record
    states no number for a term, `Undefined` when the operation has no value
    (a divisor of 0; a `percentage` whose part or whole is not a whole
    number >= 0, or whose whole is 0; a number beyond the arithmetic's range).
    """
    try:
        return _evaluate(identity, raw)
    except ArithmeticError as exc:
        if isinstance(exc, Undefined):
            raise
        raise Undefined(f"{identity['op']} of its terms is undefined ({type(exc).__name__})") from None


def _evaluate(identity: dict[str, Any], raw: Any) -> tuple[Decimal, Decimal, Decimal, str]:
    left_term = identity["left"]
    read = [_stated_number(raw, left_term)]  # each term's stated number, read once: its value here, its precision for the tolerance
    left = _term(raw, left_term, read[0])
    terms = []
    for t in identity["terms"]:  # in order: the first term without a number is the one named
        read.append(_stated_number(raw, t))
        terms.append(_term(raw, t, read[-1]))
    op = identity["op"]
    tolerance_spec = identity.get("tolerance")

    def one_over() -> Decimal:
        per = to_decimal(resolve(raw, tolerance_spec["one_over"]))
        if not per:
            raise ValueError(tolerance_spec["one_over"])
        return per

    stated = [(s, exact, UNITS[t["unit"]] if "unit" in t else None) for (s, exact), t in zip(read, [left_term, *identity["terms"]], strict=True)]
    left, right, tolerance = stats.identity(op, left, terms, stated, scale=UNITS[left_term["unit"]] if "unit" in left_term else Decimal(1),
                                            declared=tolerance_spec if isinstance(tolerance_spec, str) else None,
                                            one_over=one_over if isinstance(tolerance_spec, dict) else None)
    names = [t["pointer"] for t in identity["terms"]]
    text = f"{left_term['pointer']} = {fmt(left)}, {op}({', '.join(names)}) = {fmt(right)}"
    return left, right, tolerance, text


# ---------------------------------------------------------------- (4) clocks


@check("plan.overlap", title="Requests of one group do not overlap in time")
def overlap(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `no_overlap`, check that within each group no request starts before the previous one ended.

    PASS `sequential` per group; FAIL `overlap` naming both requests;
    UNVERIFIED `missing-field` when a clock field is missing.
    """
    cid = "plan.overlap"
    for rid, spec in _profile(ctx)["receipts"].items():
        dims = spec.get("no_overlap")
        if not dims:
            continue
        groups: dict[tuple[str, ...], list[Receipt]] = {}
        for r in _records(ctx, rid):
            groups.setdefault(tuple(r.dims.get(d, "") for d in dims), []).append(r)
        for key, group in sorted(groups.items()):
            label = ", ".join(f"{d}={v}" for d, v in zip(dims, key, strict=True))
            if any(r.value("start") is None or r.value("end") is None for r in group):
                yield _f(cid, Status.UNVERIFIED, "missing-field", f"receipts.{rid} ({label}): some requests lack start/end clocks", path=group[0].path)
                continue
            ordered = sorted(group, key=lambda r: r.value("start"))  # type: ignore[arg-type, return-value]
            clash = [(a, b) for a, b in zip(ordered, ordered[1:], strict=False) if b.value("start") < a.value("end")]  # type: ignore[operator]
            if clash:
                a, b = clash[0]
                yield _f(cid, Status.FAIL, "overlap", f"receipts.{rid} ({label}): {b.dims.get('request_id', b.pointer)} starts before "
                         f"{a.dims.get('request_id', a.pointer)} ended ({len(clash)} overlapping pair(s))", path=b.path, pointer=b.pointer)
            else:
                yield _f(cid, Status.PASS, "sequential", f"receipts.{rid} ({label}): {len(group)} requests, none overlaps the next", path=group[0].path,
                         observed=len(group))


# ---------------------------------------------------------------- (5) digests


@check("derivation.digests", title="Every recorded output digest is listed in the bundle's digest list")
def digests(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `listed_digest`, check each record's output sha256 appears in the manifest.

    PASS `digest-listed` per receipt file; FAIL `digest-unlisted` per record;
    UNVERIFIED `no-digest-list` when the manifest could not be read.
    """
    cid = "derivation.digests"
    listed = ctx.run.listed_digests
    for rid, spec in _profile(ctx)["receipts"].items():
        if "listed_digest" not in spec:
            continue
        pointer = spec["listed_digest"]["pointer"]
        by_file: dict[str, list[Receipt]] = {}
        for r in _records(ctx, rid):
            by_file.setdefault(r.path, []).append(r)
        for rel, records in sorted(by_file.items()):
            if listed is None:
                yield _f(cid, Status.UNVERIFIED, "no-digest-list", f"{rel}: the bundle's digest list was not read", path=rel)
                continue
            bad = []
            for r in records:
                try:
                    digest = resolve(r.raw, pointer)
                except KeyError:
                    digest = None
                if not isinstance(digest, str) or digest.lower() not in listed:
                    bad.append(r)
                    yield _f(cid, Status.FAIL, "digest-unlisted", f"{rel} {r.pointer}: output sha256 {str(digest)[:16]}... is not in the digest list",
                             path=rel, pointer=r.pointer + pointer, observed=digest)
            if not bad:
                yield _f(cid, Status.PASS, "digest-listed", f"{rel}: all {len(records)} output digests are in the digest list", path=rel, observed=len(records))


# ---------------------------------------------------------------- pipeline


def held_parts(profile: dict[str, Any]) -> set[str]:
    """Return the evidence parts (`verifier.model.evidence.PARTS`) a profile without a `bundle` section maps (for the roster's stand-ins)."""
    specs = list(profile.get("receipts", {}).values())
    held = {"gate"}
    if profile.get("manifest", {}).get("kind", "none") != "none":
        held.add("files")
    if specs:
        held.add("receipts")
    if profile.get("claims") or profile.get("gate"):
        held.add("claims")
    if any("media" in s for s in specs):
        held.add("media")
    return held


def pipeline_for(profile: dict[str, Any], *, claims_text: bool = False) -> tuple[Check, ...]:
    """
    Return the checks for `profile` in roster order (`verifier.engine.roster.in_families`); with `claims_text`, `claims.stated` binds a `--claims-text`.

    A section the profile does not declare leaves its check out; a family
    left without any check reports one UNVERIFIED `not-in-evidence` finding
    naming the parts of the evidence the profile does not map, so the roster
    always holds every family.
    """
    from verifier.checks.integrity import unchanged
    from verifier.engine.roster import in_families

    specs = profile.get("receipts", {}).values()
    steps: list[Check] = [integrity, pinned, documents]  # hash before parse; the judging profile; receipts mapped (`profile_receipts.read`)
    if profile.get("identities"):
        steps.append(identities)
    if profile.get("matches"):
        steps.append(matches)  # per-record equalities and joins across files
    if any("no_overlap" in s for s in specs):
        steps.append(overlap)
    if any("listed_digest" in s for s in specs):
        steps.append(digests)
    if judged_sets(profile) or presence_sets(profile):
        steps.append(streams)  # the coverage family's own check: presence of what maps no shape, coverage of the shape each record expects
    if profile.get("claims"):
        steps.append(claims)
    if profile.get("gate"):
        steps.append(gate)  # thresholds judge re-derived numbers only
    if claims_text:
        steps.append(stated)
    if profile.get("claim_documents"):
        steps.append(coverage)  # after every check that compares stated values
    notes = {}
    if profile.get("manifest", {}).get("kind", "none") != "none":
        steps.append(unchanged)
    else:
        notes["unchanged"] = "the profile names no manifest, so no file was matched to a sha256 that could be compared again"
    return in_families(steps, f"profile:{profile['id']}", held_parts(profile), notes, road="profile")
