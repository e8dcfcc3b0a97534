"""
`verify profile explain PROFILE DIR`: what a profile maps in a directory, file by file, for profile authors.

PROFILE is a shipped profile id or the path of a profile JSON file being
written (validated by the profile schema and cross-checks, not pinned: this
is authoring, not verification). The profile pipeline runs on DIR (read
only, nothing written) and the findings are regrouped per bundle file:
which receipt set read it and how many records, which claims it states and
how each compared, which stated numbers nothing checks (`unchecked-claim`),
and which files no part of the profile touches.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError, UsageError
from verifier.readers.mdtables import READER_KEYS
from verifier.commands.profile_check import NOTHING, rule_lines
from verifier.report._common import visible

__all__ = ["check", "explain"]


#: `claims.coverage` codes of a claim document whose numbers were never read (`verifier.readers.claimdocs`).
UNREAD_DOCUMENT = frozenset({"claim-unreadable", "no-claim-document", "blocked-by-integrity", "too-many-numbers"})


def _load(profile: str, trusted: Any) -> tuple[str, dict[str, Any]]:
    """
    Return `(id, document)` of `profile`: a shipped id, or a draft file (`TrustSet.add_unpinned_profile`).

    A draft may carry a shipped profile's id (authoring often starts from a
    copy); it is still registered as unpinned, so `gate.pinned` reports
    `profile-unpinned` and never the shipped file's pin.
    """
    candidate = Path(profile)
    if not (profile.endswith(".json") or candidate.is_file()):
        return profile, trusted.profile(profile)
    pid = trusted.add_unpinned_profile(candidate, label=profile, own_id=False)
    return pid, trusted.profile(pid)


def _run(profile: str, directory: str, asset_root: str | None, artifacts: str | None) -> tuple[str, dict[str, Any], Any, Any, list[Any]]:
    """Return `(id, document, tree, context, findings)` of the profile pipeline run on `directory` (read only); raises as `explain` does."""
    from verifier.checks.profile import pipeline_for
    from verifier.checks.profile_media import coverage_gates
    from verifier.engine.pipeline import Context, run_pipeline
    from verifier.readers.tree import Tree
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"{directory}: not a directory")
    trusted = TrustSet(assets(asset_root))
    pid, document = _load(profile, trusted)
    tree = Tree(root=root, non_finite=document.get("non_finite") == "text")
    ctx = Context(subject=root, assets=trusted, bundle=tree, options={"profile": document, "coverage_gates": coverage_gates(trusted, document),
                                                                 "artifacts": artifacts})
    findings, _roster = run_pipeline(pipeline_for(document), ctx)
    return pid, document, tree, ctx, findings


def check(profile: str, directory: str, *, asset_root: str | None = None, artifacts: str | None = None) -> tuple[str, int]:
    """
    Return `(text, exit_code)` of `verify profile check DIR --profile P`: per rule of `profile`, what it matched in `directory`.

    The lines of `verifier.commands.profile_check.rule_lines`, then how many rules matched nothing. `exit_code` is 4 when a
    check failed inside (an ERROR, our bug), 1 when a rule matched nothing (an authoring problem to look at before any
    verdict), else 0. Raises `UsageError` and `ConfigError` (exit 2) as `explain` does.
    """
    pid, document, tree, ctx, findings = _run(profile, directory, asset_root, artifacts)
    lines, nothing = rule_lines(document, ctx.run.evidence, tree.glob, findings)
    text = [f"profile {pid} on {directory}: what each rule matched", *lines, f"{nothing} rule(s) matched nothing or name an authoring problem"]
    failed = any(str(f.status.value if hasattr(f.status, "value") else f.status) == "ERROR" for f in findings)
    return "\n".join(visible(line) for line in text) + "\n", 4 if failed else 1 if nothing else 0


def explain(profile: str, directory: str, *, asset_root: str | None = None, artifacts: str | None = None,
            every: bool = False) -> tuple[str, int]:
    """
    Return `(text, exit_code)`: the per-file explanation of `profile` applied to `directory` (one block per file).

    `artifacts` is the `--artifacts DIR` of `verify`: files the manifest lists
    but `directory` lacks are looked up there (`verifier.checks.integrity.match_supplied`).
    A file's record members no mapping reads are listed up to `_SHOWN` of
    them and counted beyond (`and N more`); `every` lists them all.

    `exit_code` is 4 when a check failed inside (an ERROR finding: our bug,
    `docs/exit-codes.md`), else 0: explaining is not judging, so FAIL and
    UNVERIFIED findings are listed but do not change it. Raises
    `UsageError` when `directory` is not a directory or the profile file
    cannot be read, `ConfigError` when the profile is invalid (exit 2).
    """
    pid, document, tree, ctx, findings = _run(profile, directory, asset_root, artifacts)
    per_file: dict[str, list[str]] = defaultdict(list)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    general: list[str] = []
    for f in findings:
        status = str(f.status.value if hasattr(f.status, "value") else f.status)
        if f.path is None or f.path not in set(tree.files()) and not f.path.endswith((".mp4", ".MP4")):
            general.append(f"  {status:<10} {f.check} [{f.code}] {f.message}")
            continue
        if f.check == "schema.documents" and f.code == "mapped":
            per_file[f.path].append(f"  receipts: {f.message.split(': ', 1)[-1]}")
        elif f.check == "derivation.claims" and status == "PASS":
            counts[f.path]["claims PASS"] += 1
        elif f.check == "integrity.files" and f.code == "no-published-digest":
            counts[f.path]["no digest"] += 1
        elif f.check == "claims.coverage" and f.code == "covered":
            per_file[f.path].append(f"  coverage: {f.message.split(': ', 1)[-1]}")
        else:
            per_file[f.path].append(f"  {status:<10} {f.check} [{f.code}] {f.pointer or ''} {f.message}".rstrip())
    evidence = ctx.run.evidence
    stated: dict[str, set[str]] = defaultdict(set)  # file -> pointers of what its claim documents state (coverage accounts for them)
    for c in [*evidence.claims, *evidence.outcomes] if evidence is not None else ():
        stated[c.location.file].add((c.location.pointer or "").partition("#")[0])
    for rel, pointer in ctx.run.examined:  # places a check compared (a manifest entry's path, digest and size, ...)
        stated[rel].add(pointer.partition("#")[0])
    for rid, spec in document.get("receipts", {}).items():
        by_file: dict[str, dict[tuple[str, int], tuple[str, Any]]] = defaultdict(dict)
        unnested = re.compile(re.escape(spec["unnest"]["array"]) + r"/\d+$") if "unnest" in spec else None
        for r in evidence.receipts if evidence is not None else ():
            if r.receipt_set == rid and r.raw is not None:
                base = r.location.pointer or ""
                base = unnested.sub("", base) if unnested else base  # an element's receipt: its record is the one it was unnested from
                if isinstance(r.raw, dict) and {"#table", "#row", "#heading"} <= set(r.raw):  # a Markdown table row: where the claim document has it
                    heading = str(r.raw["#heading"] or "(top)").replace("~", "~0").replace("/", "~1")
                    base = f"/tables/{heading}/{int(r.raw['#row']) - 1}"
                by_file[r.path].setdefault((base, id(r.raw)), (base, r.raw))
        for rel, records in by_file.items():
            unread = unread_members(document, rid, list(records.values()), stated.get(rel, set()))
            if unread:
                cut = len(unread) if every else _SHOWN
                shown = ", ".join(unread[:cut]) + (f" and {len(unread) - cut} more (--all lists them)" if len(unread) > cut else "")
                per_file[rel].append(f"  not read by the profile (receipts.{rid}): {len(unread)} record member(s): {shown}")
    lines = [f"profile {pid} on {directory}: {len(findings)} findings"]
    manifest = (document.get("manifest") or {}).get("file")
    for rel in tree.files():
        notes = per_file.get(rel, [])
        summary = ", ".join(f"{n} {what}" for what, n in sorted(counts.get(rel, {}).items()))
        if rel == manifest and not notes and not summary:
            lines.append(f"{rel}: the manifest this profile reads")
            continue
        if not notes and not summary:
            lines.append(f"{rel}: " + ("read by this profile, nothing to report" if rel in tree.read() else "not read by this profile"))
            continue
        lines.append(f"{rel}:" + (f" ({summary})" if summary else ""))
        lines.extend(notes)
    missing = sorted({p for p in per_file if p not in set(tree.files())})
    for rel in missing:
        lines.append(f"{rel} (listed, not in this directory):")
        lines.extend(per_file[rel])
    if general:
        lines.append("not tied to one file:")
        lines.extend(general)
    ruled, nothing = rule_lines(document, evidence, tree.glob, findings)
    lines.append(f"what each rule matched ({nothing} {NOTHING}):")
    lines.extend(ruled)
    unchecked = sum(1 for f in findings if f.code == "unchecked-claim")
    unread = sorted({f.path or "-" for f in findings if f.check == "claims.coverage" and f.code in UNREAD_DOCUMENT})
    if unread:  # their numbers were never counted: "0 left unchecked" would say the bundle states nothing unchecked
        lines.append(f"{len(unread)} claim document(s) not read, so their numbers are not counted: {', '.join(unread)}")
    lines.append(f"{unchecked} stated number(s) left unchecked (unchecked-claim)")
    failed = any(str(f.status.value if hasattr(f.status, "value") else f.status) == "ERROR" for f in findings)
    return "\n".join(visible(line) for line in lines) + "\n", 4 if failed else 0  # names from evidence cannot forge lines or reorder text


#: How many unread record members `explain` names per file before it counts the rest.
_SHOWN = 12

#: Members of a profile item whose `pointer` points into a claim document, not into the records.
_CLAIM_PLACES = ("at", "minus", "recorded", "bounds_at")


def unread_members(profile: dict[str, Any], rid: str, records: list[tuple[str, Any]], stated: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """
    Return the JSON Pointers of the leaf members of `records` that no mapping of `profile` reads and no claim document states.

    `records` are `(pointer of the record in its file, parsed record)` of
    receipt set `rid`; `stated` the pointers, in the same file, of the
    numbers and true/false its claim documents state (`claims.coverage`
    accounts for those) and of the places a check compared (a manifest
    entry's path, digest and size). A member is read when a `pointer` (or an `unnest`
    `array` or `parallel` pointer) of the set's own spec, or of an item
    naming the set in its `receipts` (identities, claims, gate rules, ...),
    is it or one of its ancestors (`at`, `minus`, `recorded` and `bounds_at`
    point into claim documents and do not count). Leaves are scalars, null
    and empty arrays or objects, not members a reader adds (`#line`, `#table`,
    `#conflicts`: a record's top level only);
    in order of first appearance across `records`.
    """
    read: set[str] = set()
    _pointers(profile, rid, False, read)
    out: dict[str, None] = {}
    for base, record in records:
        for leaf in _leaves(record, ""):
            if leaf not in out and base + leaf not in stated and not any(leaf == r or leaf.startswith(r + "/") for r in read):
                out[leaf] = None
    return list(out)


def _pointers(node: Any, rid: str, inside: bool, into: set[str]) -> None:
    """
    Add to `into` every record pointer of receipt set `rid` that a part of the profile `node` reads.

    A part reads the records of the set its own `receipts` member names (a
    join inside a claim names the set it joins), else those of the part it is
    in (`inside`: of `rid`); the set's own spec under `/receipts/<rid>` reads
    `rid`. Read are `pointer` and `array` members, the pointers of an
    `unnest` `parallel` map and the pointer keys of a `where` filter; the
    places of `_CLAIM_PLACES` point into claim documents and are skipped.
    """
    if isinstance(node, list):
        for value in node:
            _pointers(value, rid, inside, into)
        return
    if not isinstance(node, dict):
        return
    named = node.get("receipts")
    if isinstance(named, (str, list)) and not isinstance(named, dict):
        inside = named == rid or (isinstance(named, list) and rid in named)
    for key, value in node.items():
        if key in _CLAIM_PLACES:
            continue
        if key == "receipts" and isinstance(value, dict):  # the profile's receipt sets: only rid's own spec reads rid
            for set_id, spec in value.items():
                _pointers(spec, rid, set_id == rid, into)
        elif inside and key in ("pointer", "array") and isinstance(value, str):
            into.add(value)
        elif inside and key == "parallel" and isinstance(value, dict):  # unnest: member -> pointer of the array read alongside
            into.update(v for v in value.values() if isinstance(v, str))
        elif inside and key == "where" and isinstance(value, dict):  # a filter on record members, keyed by their pointers
            into.update(k for k in value if k.startswith("/"))
            _pointers(value, rid, inside, into)
        else:
            _pointers(value, rid, inside, into)


#: Members a reader adds to a record (where a table row was found; a text receipt's conflicting keys), not the file's.
_ADDED = READER_KEYS | {"#conflicts"}


def _leaves(node: Any, base: str) -> list[str]:
    """Return the JSON Pointers of the leaves of a parsed record (see `unread_members`); a member the file names `#...` (`| #GPUs |`) is one."""
    if isinstance(node, dict) and node:
        return [leaf for k, v in node.items() if not (base == "" and k in _ADDED)
                for leaf in _leaves(v, f"{base}/{str(k).replace('~', '~0').replace('/', '~1')}")]
    if isinstance(node, list) and node:
        return [leaf for i, v in enumerate(node) for leaf in _leaves(v, f"{base}/{i}")]
    return [base]
