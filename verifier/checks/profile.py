"""
Checks that verify a foreign bundle through a profile (`verifier.profiles`).

`pipeline_for(profile)` orders them; a section the profile does not declare
(no identities, no gate, ...) leaves its check out of the pipeline, so the
roster shows exactly what ran. Order, as for native bundles: (1) integrity
before anything is parsed (a file whose bytes contradict the manifest is
never read); (2) receipts mapped and counted; (3) per-record identities;
(4) clocks: no overlap; (5) output digests listed; (6) media; (7) claims
re-derived; (8) the gate last, on re-derived numbers only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier import stats
from verifier.bundle import unsafe_reason
from verifier.checks.integrity import hash_many
from verifier.jsonio import JSONProblem
from verifier.model import Finding, Status
from verifier.pipeline import Check, Context, check
from verifier.profiles import (
    UNITS,
    Record,
    Tree,
    Underivable,
    check_complete,
    derive,
    fmt,
    instances,
    key_values,
    locate,
    read_receipts,
    resolve,
    select,
    stated,
    to_decimal,
)

__all__ = ["claims", "default_tolerance", "digests", "gate", "identities", "integrity", "media", "overlap", "pipeline_for", "receipts"]

_SHA256SUMS_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")
_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
_BRACKETED = re.compile(r" \[[^]]*\]")  # the derivation detail, kept out of the one-line message


def _f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


def _profile(ctx: Context) -> dict[str, Any]:
    return ctx.options["profile"]  # type: ignore[no-any-return]


def _tree(ctx: Context) -> Tree:
    return ctx.bundle  # type: ignore[no-any-return]


# ---------------------------------------------------------------- (1) integrity


@check("profile.integrity", title="Bundle files match the manifest the profile names (sha256 and size)")
def integrity(ctx: Context) -> Iterator[Finding]:
    """
    Compare the bundle's files with its own manifest, in the shape the profile declares.

    `files-map`: a JSON object path -> {sha256, size}; `sha256sums`: a
    `sha256sum` text file. PASS `match`; FAIL `missing-file` (or UNVERIFIED
    `external-not-supplied` when the profile says listed files may be absent),
    `size-mismatch`, `sha256-mismatch`, `unsafe-path`, `duplicate-entry`,
    `unlisted-file` (or UNVERIFIED `no-published-digest`), `manifest-unreadable`;
    UNVERIFIED `external-not-supplied` for declared external artifacts and
    `no-manifest` when the format has none. A file whose bytes contradict the
    manifest is marked so later checks never parse it.
    Side effects: reads every listed file once.
    """
    cid = "profile.integrity"
    spec = _profile(ctx)["manifest"]
    tree = _tree(ctx)
    if spec["kind"] == "none":
        yield _f(cid, Status.UNVERIFIED, "no-manifest", f"this format has no integrity manifest ({spec['reason']}); file contents cannot be checked against digests")
        return
    name = spec["file"]
    if not tree.exists(name):
        yield _f(cid, Status.FAIL, "manifest-missing", f"{name}, the manifest this profile expects, is not in the bundle", path=name)
        return
    try:
        raw = tree.read_bytes(name)
        entries, problems = _sha256sums(raw, spec) if spec["kind"] == "sha256sums" else _files_map(tree.json(name), spec)
    except (OSError, JSONProblem, UnicodeDecodeError) as exc:
        yield _f(cid, Status.FAIL, "manifest-unreadable", f"{name}: {exc}", path=name)
        return
    for code, message, pointer in problems:
        yield _f(cid, Status.FAIL, code, message, path=name, pointer=pointer)
    ctx.data["listed_digests"] = {digest for digest, _size, _pointer in entries.values()}
    present = set(tree.files())
    to_hash = {rel: tree.root / rel for rel in entries if rel in present}
    for rel, (digest, size, pointer) in sorted(entries.items()):
        if rel in present:
            continue
        expected = {"sha256": digest, "size": size}
        if spec["missing"] == "fail":
            yield _f(cid, Status.FAIL, "missing-file", f"{rel} is listed in {name} but not in the bundle", path=rel, pointer=pointer, expected=expected)
        else:
            yield _f(cid, Status.UNVERIFIED, "external-not-supplied", f"{rel} is listed in {name} but not in this copy ({spec.get('missing_reason', 'absent')})",
                     path=rel, pointer=pointer, expected=expected)
    hashed = hash_many(list(to_hash.values()))
    for rel, path in sorted(to_hash.items()):
        digest, size, pointer = entries[rel]
        result = hashed[path]
        expected = {"sha256": digest, "size": size}
        if isinstance(result, OSError):
            tree.blocked[rel] = "unreadable"
            yield _f(cid, Status.FAIL, "unreadable-file", f"{rel} cannot be read: {result}", path=rel, pointer=pointer)
            continue
        got_size, got_digest = result
        observed = {"sha256": got_digest, "size": got_size}
        if size is not None and got_size != size:
            tree.blocked[rel] = f"its size {got_size} differs from the manifest's {size}"
            yield _f(cid, Status.FAIL, "size-mismatch", f"{rel} has {got_size} bytes, {name} says {size}", path=rel, pointer=pointer, expected=expected, observed=observed)
        elif got_digest != digest:
            tree.blocked[rel] = "its sha256 differs from the manifest's"
            yield _f(cid, Status.FAIL, "sha256-mismatch", f"{rel} sha256 {got_digest[:12]}... differs from {name}'s {digest[:12]}...", path=rel, pointer=pointer,
                     expected=expected, observed=observed)
        else:
            yield _f(cid, Status.PASS, "match", f"{rel} matches {name} ({got_size} bytes)", path=rel, pointer=pointer, expected=expected, observed=observed)
    ignored = set(spec.get("ignore", [])) | {name}
    for rel in sorted(present - set(entries) - ignored):
        if spec["unlisted"] == "fail":
            tree.blocked[rel] = f"it is not listed in {name}"
            yield _f(cid, Status.FAIL, "unlisted-file", f"{rel} is in the bundle but not listed in {name}", path=rel)
        else:
            yield _f(cid, Status.UNVERIFIED, "no-published-digest", f"{rel} has no digest in {name}, so its contents are not integrity-verified", path=rel)
    yield from _externals(tree, spec, name)


def _files_map(document: Any, spec: dict[str, Any]) -> tuple[dict[str, tuple[str, int | None, str]], list[tuple[str, str, str | None]]]:
    try:
        table = resolve(document, spec["pointer"])
    except KeyError:
        return {}, [("manifest-unreadable", f"no files map at {spec['pointer']!r}", spec["pointer"])]
    if not isinstance(table, dict):
        return {}, [("manifest-unreadable", f"{spec['pointer']!r} is not an object of path -> entry", spec["pointer"])]
    entries: dict[str, tuple[str, int | None, str]] = {}
    problems = []
    for rel, entry in table.items():
        pointer = f"{spec['pointer']}/{rel.replace('~', '~0').replace('/', '~1')}"
        reason = unsafe_reason(rel)
        digest = entry.get(spec["sha256"]) if isinstance(entry, dict) else None
        size = entry.get(spec["size"]) if isinstance(entry, dict) else None
        if reason:
            problems.append(("unsafe-path", f"manifest lists {rel!r}: {reason}; it is not read", pointer))
        elif not isinstance(digest, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", digest) or not isinstance(size, int) or isinstance(size, bool):
            problems.append(("manifest-entry", f"entry {rel!r} lacks a sha256 ({spec['sha256']}) or an integer size ({spec['size']})", pointer))
        else:
            entries[rel] = (digest.lower(), size, pointer)  # upper-case hex is the same digest
    return entries, problems


def _sha256sums(raw: bytes, spec: dict[str, Any]) -> tuple[dict[str, tuple[str, int | None, str]], list[tuple[str, str, str | None]]]:
    entries: dict[str, tuple[str, int | None, str]] = {}
    problems: list[tuple[str, str, str | None]] = []
    prefix = spec.get("strip_prefix", "")
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        pointer = f"#line={number}"
        m = _SHA256SUMS_LINE.match(line)
        if not m:
            problems.append(("manifest-entry", f"line {number} is not `<sha256>  <path>`", pointer))
            continue
        digest, rel = m.group(1).lower(), m.group(2)
        rel = rel.removeprefix(prefix)
        reason = unsafe_reason(rel)
        if reason:
            problems.append(("unsafe-path", f"line {number} lists {rel!r}: {reason}; it is not read", pointer))
        elif rel in entries and entries[rel][0] != digest:
            problems.append(("duplicate-entry", f"{rel} is listed twice with different digests (lines {entries[rel][2]} and {number})", pointer))
        else:
            entries[rel] = (digest, None, pointer)
    return entries, problems


def _externals(tree: Tree, spec: dict[str, Any], name: str) -> Iterator[Finding]:
    for item in spec.get("external", []):
        try:
            listed = resolve(tree.json(name), item["pointer"])
        except KeyError:
            yield _f("profile.integrity", Status.FAIL, "external-list-missing", f"{name} has no external list at {item['pointer']}", path=name, pointer=item["pointer"])
            continue
        for index, entry in enumerate(listed if isinstance(listed, list) else []):
            yield _f("profile.integrity", Status.UNVERIFIED, "external-not-supplied",
                     f"external artifact {entry} ({item['reason']}) is not supplied and {name} records no digest for it",
                     path=name, pointer=f"{item['pointer']}/{index}", observed=entry)


# ---------------------------------------------------------------- (2) receipts


def _records(ctx: Context, rid: str) -> list[Record]:
    """Return the receipts of `rid` that were read (no stand-ins for unread files): what per-record checks look at."""
    return [r for r in _all_records(ctx, rid) if r.unread is None]


def _all_records(ctx: Context, rid: str) -> list[Record]:
    """Return the receipts of `rid` with the stand-ins for unread files: what derivations (claims, gate) run over."""
    return ctx.data.setdefault("receipts", {}).get(rid, [])  # type: ignore[no-any-return]


@check("profile.receipts", title="Receipt files exist and every mapped field is present")
def receipts(ctx: Context) -> Iterator[Finding]:
    """
    Read every receipt set the profile maps.

    PASS `mapped` per receipt file (with its record count); FAIL
    `missing-field`, `not-a-number`, `impossible-value` (latency or duration <= 0), `bad-phase`, `record-count`, `file-count`,
    `name-mismatch`, `unreadable-receipt`, `parallel-mismatch`; UNVERIFIED
    `no-receipts` (glob matched nothing) and `blocked-by-integrity`.
    Side effects: reads the receipt files.
    """
    cid = "profile.receipts"
    tree = _tree(ctx)
    store = ctx.data.setdefault("receipts", {})
    for rid, spec in _profile(ctx)["receipts"].items():
        records, problems, files = read_receipts(tree, rid, spec)
        store[rid] = records
        bad_files = set()
        for p in problems:
            bad_files.add(p.path)
            yield _f(cid, Status(p.status), p.code, p.message, path=p.path, pointer=p.pointer, expected=p.field)
        for rel in files:
            if rel in bad_files:
                continue
            n = sum(1 for r in records if r.path == rel)
            yield _f(cid, Status.PASS, "mapped", f"receipts.{rid}: {rel} maps {n} records with every mapped field", path=rel, observed=n)


# ---------------------------------------------------------------- (3) identities


def _term(record: Any, term: dict[str, Any]) -> Decimal:
    value = to_decimal(resolve(record, term["pointer"]))
    if value is None:
        raise ValueError(term["pointer"])
    return stats.CONTEXT.multiply(value, UNITS[term["unit"]]) if "unit" in term else value


@check("profile.identities", title="Recorded fields agree with each other (sums, differences, unit conversions)")
def identities(ctx: Context) -> Iterator[Finding]:
    """
    Check each per-record identity the profile declares, within its tolerance.

    `left` must equal `op(terms)` (value, sum, difference, ratio), compared
    in `left`'s unit. Tolerance: the profile's (in `left`'s unit, or
    `one_over` a field such as one frame = 1/fps), else the largest
    `stats.claim_tolerance` of the stated numbers involved (half a unit of
    stated precision, or ulps for full-precision floats), never exact `==`.
    One finding per identity and receipt set: PASS `identity-holds` or FAIL
    `identity-mismatch` naming the first record that breaks it; FAIL
    `missing-field` when a record lacks an operand.
    """
    cid = "profile.identities"
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
            for r in records:
                try:
                    result = _identity(identity, r.raw)
                except (KeyError, ValueError) as exc:
                    broken.append(_f(cid, Status.FAIL, "missing-field", f"{identity['id']}: {r.path} {r.pointer} has no number at {exc.args[0]}",
                                     path=r.path, pointer=r.pointer))
                    continue
                left, right, tolerance, text = result
                gap = abs(left - right)
                worst = max(worst, gap)
                if gap > tolerance:
                    broken.append(_f(cid, Status.FAIL, "identity-mismatch",
                                     f"{identity['id']}: {r.path} {r.pointer}: {text}; |difference| {fmt(gap)} > tolerance {fmt(tolerance)}",
                                     path=r.path, pointer=r.pointer + identity["left"]["pointer"], expected=str(right), observed=str(left), derivation=text))
            if broken:
                yield from broken
            else:
                yield _f(cid, Status.PASS, "identity-holds", f"{identity['id']}: holds on all {len(records)} records of {rid} (largest difference {fmt(worst)})",
                         path=_profile(ctx)["receipts"][rid]["glob"], observed=len(records))


def _identity(identity: dict[str, Any], raw: Any) -> tuple[Decimal, Decimal, Decimal, str]:
    left_term = identity["left"]
    left = _term(raw, left_term)
    terms = [_term(raw, t) for t in identity["terms"]]
    op = identity["op"]
    if op == "value":
        right = terms[0]
    elif op == "sum":
        right = sum(terms, Decimal(0))
    elif op == "difference":
        right = terms[0] - terms[1]
    else:
        right = stats.CONTEXT.divide(terms[0], terms[1])
    scale = UNITS[left_term["unit"]] if "unit" in left_term else Decimal(1)
    left, right = stats.CONTEXT.divide(left, scale), stats.CONTEXT.divide(right, scale)
    tolerance_spec = identity.get("tolerance")
    if isinstance(tolerance_spec, str):
        tolerance = Decimal(tolerance_spec)
    elif isinstance(tolerance_spec, dict):
        per = to_decimal(resolve(raw, tolerance_spec["one_over"]))
        if not per:
            raise ValueError(tolerance_spec["one_over"])
        tolerance = stats.CONTEXT.divide(Decimal(1), per)
    else:
        stated = [to_decimal(resolve(raw, t["pointer"])) for t in [left_term, *identity["terms"]]]
        # rational strings such as "24/1" have no stated precision: they count as exact
        tolerance = max((stats.claim_tolerance(s) * (UNITS[t["unit"]] / scale if "unit" in t else 1)
                         for s, t in zip(stated, [left_term, *identity["terms"]], strict=True)
                         if s is not None and not isinstance(resolve(raw, t["pointer"]), str)), default=Decimal(0))
    names = [t["pointer"] for t in identity["terms"]]
    text = f"{left_term['pointer']} = {fmt(left)}, {op}({', '.join(names)}) = {fmt(right)}"
    return left, right, tolerance, text


# ---------------------------------------------------------------- (4) clocks


@check("profile.overlap", title="Requests of one group do not overlap in time")
def overlap(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `no_overlap`, check that within each group no request starts before the previous one ended.

    PASS `sequential` per group; FAIL `overlap` naming both requests;
    UNVERIFIED `missing-field` when a clock field is missing.
    """
    cid = "profile.overlap"
    for rid, spec in _profile(ctx)["receipts"].items():
        dims = spec.get("no_overlap")
        if not dims:
            continue
        groups: dict[tuple[str, ...], list[Record]] = {}
        for r in _records(ctx, rid):
            groups.setdefault(tuple(r.dims.get(d, "") for d in dims), []).append(r)
        for key, group in sorted(groups.items()):
            label = ", ".join(f"{d}={v}" for d, v in zip(dims, key, strict=True))
            if any(r.values.get("start") is None or r.values.get("end") is None for r in group):
                yield _f(cid, Status.UNVERIFIED, "missing-field", f"receipts.{rid} ({label}): some requests lack start/end clocks", path=group[0].path)
                continue
            ordered = sorted(group, key=lambda r: r.values["start"])  # type: ignore[arg-type, return-value]
            clash = [(a, b) for a, b in zip(ordered, ordered[1:], strict=False) if b.values["start"] < a.values["end"]]  # type: ignore[operator]
            if clash:
                a, b = clash[0]
                yield _f(cid, Status.FAIL, "overlap", f"receipts.{rid} ({label}): {b.dims.get('request_id', b.pointer)} starts before "
                         f"{a.dims.get('request_id', a.pointer)} ended ({len(clash)} overlapping pair(s))", path=b.path, pointer=b.pointer)
            else:
                yield _f(cid, Status.PASS, "sequential", f"receipts.{rid} ({label}): {len(group)} requests, none overlaps the next", path=group[0].path,
                         observed=len(group))


# ---------------------------------------------------------------- (5) digests, (6) media


@check("profile.digests", title="Every recorded output digest is listed in the bundle's digest list")
def digests(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `listed_digest`, check each record's output sha256 appears in the manifest.

    PASS `digest-listed` per receipt file; FAIL `digest-unlisted` per record;
    UNVERIFIED `no-digest-list` when the manifest could not be read.
    """
    cid = "profile.digests"
    listed = ctx.data.get("listed_digests")
    for rid, spec in _profile(ctx)["receipts"].items():
        if "listed_digest" not in spec:
            continue
        pointer = spec["listed_digest"]["pointer"]
        by_file: dict[str, list[Record]] = {}
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


@check("profile.media", title="Output media are present for decode and coverage checks")
def media(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `media`, report each output file; absent media leave decode and coverage UNVERIFIED.

    UNVERIFIED `media-absent` per output not in the bundle; UNVERIFIED
    `media-not-checked` for a present one (the media checks of the native
    pipeline are not wired to profiles yet).
    """
    cid = "profile.media"
    tree = _tree(ctx)
    for rid, spec in _profile(ctx)["receipts"].items():
        if "media" not in spec:
            continue
        for r in _records(ctx, rid):
            try:
                output = resolve(r.raw, spec["media"]["pointer"])
            except KeyError:
                output = None
            if isinstance(output, str) and tree.exists(output):
                yield _f(cid, Status.UNVERIFIED, "media-not-checked", f"{output}: present, but decode and coverage checks are not run through profiles yet", path=output)
            else:
                yield _f(cid, Status.UNVERIFIED, "media-absent", f"{r.path} {r.pointer}: output {output} is not in this copy, so decode and coverage checks cannot run",
                         path=r.path, pointer=r.pointer + spec["media"]["pointer"], observed=output)


# ---------------------------------------------------------------- (7) claims


def _convert(value: Decimal, statistic: str, unit: str | None) -> Decimal:
    if statistic in ("count", "relative_reduction_pct", "speedup") or unit not in UNITS:
        return value
    return stats.CONTEXT.divide(value, UNITS[unit])


def _indexes(records: list[Record], rule: dict[str, Any]) -> dict[str, int]:
    out = {}
    for dim in rule.get("per", []):
        for i, v in enumerate(key_values(records, dim)):
            out.setdefault(dim, {})[v] = i  # type: ignore[index]
    return out  # type: ignore[return-value]


@check("profile.claims", title="Every claim the profile maps re-derives from the receipts at its stated precision")
def claims(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive each claim instance and compare it with the number the bundle states.

    Tolerance: the claim's `tolerance`, else `stats.claim_tolerance` of the
    stated number. PASS `derived`; FAIL `claim-mismatch`, `claim-missing`,
    `incomplete-denominator`, `empty-selection`; UNVERIFIED `claim-not-stated`
    (null), `no-receipts`, `blocked-by-integrity`, `incomplete-denominator`
    (receipts not read may cover it). Then every other value the bundle
    states at the claim's location (a pass, command, shape or index no
    receipt has) is UNVERIFIED `not-derivable`: a stated number is never
    passed over in silence.
    """
    cid = "profile.claims"
    tree = _tree(ctx)
    for rule in _profile(ctx)["claims"]:
        rid = rule["receipts"]
        records = _all_records(ctx, rid)
        if not records:
            yield _f(cid, Status.UNVERIFIED, "no-receipts", f"{rule['id']}: receipt set {rid} yielded no records, so the claim cannot be derived")
            continue
        ranks = _indexes(select_records(records, rule), rule)
        keys = instances(rule, records)
        handled: set[tuple[str, str]] = set()
        blocked: set[str] = set()
        for key in keys:
            label = rule["id"] + "".join(f"[{k}={v}]" for k, v in key.items())
            indexes = {d: ranks[d][v] for d, v in key.items()}  # type: ignore[index]
            claim_file = _PLACEHOLDER_RE.sub(lambda m: key.get(m.group(1), m.group(0)), rule["at"]["file"])  # noqa: B023
            if claim_file in tree.blocked:  # never parsed, not even to find the value
                blocked.add(claim_file)
                yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{label}: {claim_file} is not parsed because {tree.blocked[claim_file]}", path=claim_file)
                continue
            try:
                rel, pointer, stated_value = locate(tree, rule["at"], key, indexes)
                handled.add((rel, pointer))
            except (KeyError, LookupError) as exc:
                yield _f(cid, Status.FAIL, "claim-missing", f"{label}: the bundle states no value at the mapped location ({exc})", path=rule["at"]["file"])
                continue
            except (OSError, JSONProblem) as exc:
                yield _f(cid, Status.UNVERIFIED, "claim-unreadable", f"{label}: claim file cannot be read: {exc}", path=rule["at"]["file"])
                continue
            if rel in tree.blocked:
                yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{label}: {rel} is not parsed because {tree.blocked[rel]}", path=rel, pointer=pointer)
                continue
            claimed = to_decimal(stated_value)
            if claimed is None:
                yield _f(cid, Status.UNVERIFIED, "claim-not-stated", f"{label}: {rel} {pointer} holds {stated_value!r}, not a number", path=rel, pointer=pointer,
                         observed=stated_value)
                continue
            try:
                derived, text = derive(rule, records, key)
            except Underivable as exc:
                yield _f(cid, Status.FAIL if exc.fail else Status.UNVERIFIED, exc.code, f"{label}: {exc}", path=rel, pointer=pointer, observed=str(claimed))
                continue
            derived = _convert(derived, rule["statistic"], rule.get("unit"))
            tolerance = Decimal(rule["tolerance"]) if "tolerance" in rule else default_tolerance(claimed, rule["statistic"])
            unit = rule.get("unit", "")
            ok = stats.within(claimed, derived, tolerance)
            yield _f(cid, Status.PASS if ok else Status.FAIL, "derived" if ok else "claim-mismatch",
                     f"{label}: stated {claimed} {unit}, derived {fmt(derived)} {unit} (tolerance {fmt(tolerance)})".replace("  ", " "),
                     path=rel, pointer=pointer, expected=str(claimed), observed=str(derived), derivation=text)
        yield from _underived(ctx, rule, records, keys, ranks, handled, blocked)


def _underived(ctx: Context, rule: dict[str, Any], records: list[Record], keys: list[dict[str, str]], ranks: dict[str, Any],
               handled: set[tuple[str, str]], blocked: set[str]) -> Iterator[Finding]:
    """
    Yield a finding for every value the bundle states at the claim's location that no derived instance reached.

    UNVERIFIED `blocked-by-integrity` / `incomplete-denominator` when receipts
    that were not read may cover it, else UNVERIFIED `not-derivable`: the
    bundle states a number no receipt backs. A claim file that is blocked is
    reported once, unread.
    """
    cid = "profile.claims"
    tree = _tree(ctx)
    at = rule["at"]
    files = tree.glob(_profile(ctx)["receipts"][rule["receipts"]]["glob"]) if "{" in at["file"] else []
    reported = {rel for rel, _ in handled} | blocked
    for rel in files or [at["file"]]:
        if rel in tree.blocked and rel not in reported:
            yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{rule['id']}: {rel} is not parsed because {tree.blocked[rel]}, so the values it states are not checked",
                     path=rel)
    for bound, rel, pointer, value in stated(tree, at, files):
        if (rel, pointer) in handled:
            continue
        key: dict[str, str] = {}
        unknown: dict[str, str] = {}
        for name, text in bound.items():
            if name.endswith(".index"):
                dim = name.removesuffix(".index")
                by_rank = {i: v for v, i in ranks.get(dim, {}).items()}
                if int(text) in by_rank:
                    key.setdefault(dim, by_rank[int(text)])
                else:
                    unknown[name] = text
            else:
                key[name] = text
        if not unknown and key in keys:
            continue  # an instance with this key was judged (e.g. claim-missing for an ambiguous `where`)
        label = rule["id"] + "".join(f"[{k}={v}]" for k, v in {**key, **unknown}.items())
        selection = {**rule["selection"], **key}
        if "baseline" in rule:
            selection.pop("arm", None)
        try:
            check_complete(select(records, selection), ", ".join(f"{k}={v}" for k, v in sorted(selection.items())))
        except Underivable as exc:
            yield _f(cid, Status.UNVERIFIED, exc.code, f"{label}: {exc}", path=rel, pointer=pointer, observed=str(value) if isinstance(value, Decimal) else value)
            continue
        over = ", ".join(f"{k}={v}" for k, v in sorted({**selection, **unknown}.items()))
        shown = str(value) if isinstance(value, Decimal) else value
        yield _f(cid, Status.UNVERIFIED, "not-derivable",
                 f"{label}: {rel} {pointer} states {shown!s}, but no receipt matches {over}, so it cannot be derived or checked",
                 path=rel, pointer=pointer, observed=shown)


#: A percentage change is 100 * (1 - c/b): its float rounding error scales with
#: 100 (the operands' magnitude), not with the small result (cancellation).
PERCENT_SCALE = Decimal(100)


def default_tolerance(claimed: Decimal, statistic: str) -> Decimal:
    """
    Return the default tolerance for a stated claim: `stats.claim_tolerance`, widened for percentage changes.

    A full-precision `relative_reduction_pct` carries the float noise of
    `1 - c/b` times 100, i.e. ulps of 100 rather than of the (small) result:
    its tolerance is at least `stats.claim_tolerance` of a full-precision 100
    (16 ulps of 100, about 3.6e-13).
    """
    base = stats.claim_tolerance(claimed)
    if statistic == "relative_reduction_pct" and len(claimed.as_tuple().digits) >= stats.FULL_PRECISION_DIGITS:
        return max(base, PERCENT_SCALE * Decimal(2) ** -48)
    return base


def select_records(records: list[Record], rule: dict[str, Any]) -> list[Record]:
    """Return the records in the rule's selection (arm ignored for arm comparisons, so both arms rank alike)."""
    selection = {k: v for k, v in rule["selection"].items() if not (k == "arm" and "baseline" in rule)}
    return [r for r in records if all(r.dims.get(k) == v for k, v in selection.items())]


# ---------------------------------------------------------------- (8) gate


@check("profile.gate", title="The profile's gate rules, each over the selection it declares")
def gate(ctx: Context) -> Iterator[Finding]:
    """
    Judge each gate rule on re-derived numbers, then compare with the outcome the bundle records.

    One finding per rule: PASS `rule-met` or FAIL `rule-not-met` (a
    threshold `min`/`max` on the derived statistic, or `below_baseline`:
    for every `per` key the candidate's statistic is below the baseline's);
    UNVERIFIED when it cannot be derived. With `recorded`: PASS
    `recorded-agrees` or FAIL `recorded-disagrees`.
    """
    cid = "profile.gate"
    spec = _profile(ctx)["gate"]
    source, _, source_pointer = spec.get("source", "").partition("#")
    where = {"path": source or None, "pointer": source_pointer or None}
    outcomes: list[bool | None] = []
    for rule in spec["rules"]:
        records = _all_records(ctx, rule["receipts"])
        covers = ", ".join(f"{k}={v}" for k, v in sorted(rule["selection"].items()))
        try:
            if "below_baseline" in rule:
                met, text, observed = _below(rule, records)
            else:
                met, text, observed = _threshold(rule, records)
        except Underivable as exc:
            outcomes.append(None)
            yield _f(cid, Status.UNVERIFIED, exc.code, f"{rule['id']} (over {covers}): cannot be judged: {exc}", **where)
            continue
        outcomes.append(met)
        yield _f(cid, Status.PASS if met else Status.FAIL, "rule-met" if met else "rule-not-met",
                 f"{rule['id']} (over {covers}): {'met' if met else 'not met'}: {_BRACKETED.sub('', text)}",
                 expected={k: rule[k] for k in ("min", "max", "below_baseline") if k in rule}, observed=observed, derivation=text, **where)
    if "recorded" in spec:
        at = spec["recorded"]
        tree = _tree(ctx)
        try:
            rel, pointer, recorded = locate(tree, at, {}, {})
        except (KeyError, LookupError, OSError, JSONProblem) as exc:
            yield _f(cid, Status.UNVERIFIED, "recorded-unreadable", f"the recorded gate outcome cannot be read: {exc}", path=at["file"], pointer=at["pointer"])
            return
        if None in outcomes:
            yield _f(cid, Status.UNVERIFIED, "recorded-not-compared", "a rule could not be judged, so the recorded outcome is not compared", path=rel, pointer=pointer)
        elif not isinstance(recorded, bool):
            yield _f(cid, Status.FAIL, "recorded-not-boolean", f"{rel} {pointer} holds {recorded!r}, not true/false", path=rel, pointer=pointer)
        else:
            ours = all(outcomes)
            agree = ours == recorded
            yield _f(cid, Status.PASS if agree else Status.FAIL, "recorded-agrees" if agree else "recorded-disagrees",
                     f"the bundle records gate outcome {str(recorded).lower()}; re-derived outcome is {str(ours).lower()}",
                     path=rel, pointer=pointer, expected=ours, observed=recorded)


def _threshold(rule: dict[str, Any], records: list[Record]) -> tuple[bool, str, Any]:
    """Judge a `min`/`max` rule: once over its selection, or for every `per` instance (all must hold)."""
    low, high = rule.get("min"), rule.get("max")
    bound = f">= {low}" if low is not None else f"<= {high}"
    check_complete(select(records, rule["selection"]), "the selection")
    keys = instances(rule, records)
    if not keys:
        raise Underivable(f"no receipts match {rule['selection']}", "empty-selection")
    met, lines, observed = True, [], {}
    for key in keys:
        value, text = derive(rule, records, key)
        value = _convert(value, rule["statistic"], rule.get("unit"))
        ok = (low is None or value >= Decimal(str(low))) and (high is None or value <= Decimal(str(high)))
        met = met and ok
        label = ",".join(f"{k}={v}" for k, v in key.items())
        lines.append(f"{label + ': ' if label else ''}{rule['statistic']} = {(fmt(value) + ' ' + rule.get('unit', '')).strip()} (needs {bound}) [{text}]")
        observed[label or rule["statistic"]] = str(value)
    return met, "; ".join(lines), observed if len(keys) > 1 or keys[0] else next(iter(observed.values()))


def _below(rule: dict[str, Any], records: list[Record]) -> tuple[bool, str, Any]:
    arms = rule["below_baseline"]
    check_complete(select(records, rule["selection"]), "the selection")
    keys = instances(rule, records)
    if not keys:
        raise Underivable(f"no receipts match {rule['selection']}", "empty-selection")
    lines, observed, met = [], {}, True
    for key in keys:
        b, _ = derive(rule, records, {**key, "arm": arms["baseline"]})
        c, _ = derive(rule, records, {**key, "arm": arms["candidate"]})
        label = ",".join(f"{k}={v}" for k, v in key.items())
        ok = c < b
        met = met and ok
        lines.append(f"{label}: candidate {fmt(c)} {'<' if ok else '>='} baseline {fmt(b)} s")
        observed[label] = {"baseline": str(b), "candidate": str(c)}
    return met, f"{rule['statistic']} per {', '.join(rule.get('per', []))}: " + "; ".join(lines), observed


# ---------------------------------------------------------------- pipeline


def pipeline_for(profile: dict[str, Any]) -> tuple[Check, ...]:
    """Return the ordered checks for `profile`: sections it does not declare are left out (and so absent from the roster)."""
    specs = profile["receipts"].values()
    steps: list[Check] = [integrity, receipts]  # (1) hash before parse, (2) receipts mapped
    if profile.get("identities"):
        steps.append(identities)  # (3)
    if any("no_overlap" in s for s in specs):
        steps.append(overlap)  # (4)
    if any("listed_digest" in s for s in specs):
        steps.append(digests)  # (5)
    if any("media" in s for s in specs):
        steps.append(media)  # (6)
    if profile.get("claims"):
        steps.append(claims)  # (7)
    if profile.get("gate"):
        steps.append(gate)  # (8) last: thresholds judge re-derived numbers only
    return tuple(steps)
