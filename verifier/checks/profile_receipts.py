"""
What a profile-read bundle gives the schema family: the receipt sets its profile maps, read onto the evidence model.

For a profile without a `bundle` section, `schema.documents`
(`verifier.checks.schema.documents`, the one body of every reader) runs
`read`: every receipt set is read (`verifier.readers.records.read_receipts`:
each mapped field present, numbers and units as the mapping says), and the
model every later check reads is stored in `ctx.run.evidence`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from verifier.checks.profile_base import _f, _profile, _tree
from verifier.engine.pipeline import Context
from verifier.model.evidence import Evidence, FileEntry, Location, Media, Receipt, Unmapped
from verifier.model.findings import Finding, Status
from verifier.readers.claimdocs import read_claim_documents
from verifier.readers.informational import compile_patterns
from verifier.readers.pointers import resolve
from verifier.readers.records import NEVER_STATED, read_receipts
from verifier.readers.select import rule_instances
from verifier.readers.sites import parse_claim_files, read_sites

__all__ = ["read"]

#: The check these findings report under: the schema family's one id.
CHECK = "schema.documents"


def read(ctx: Context) -> Iterator[Finding]:
    """
    Read every receipt set the profile maps onto the evidence model (`ctx.run.evidence`), which every later check reads.

    The model (reader `profile:<id>`) holds the receipts of every set, with
    stand-ins for files that were not read (`Receipt.unread`), the output
    media the receipts name, the stated numbers and true/false outcomes of
    the claim documents (`verifier.readers.claimdocs`, judged by
    `claims.coverage`), and an `Unmapped` entry per file or glob that gave
    no receipts and per claim document that could not be read. PASS `mapped` per receipt file (with its record
    count); FAIL `missing-field`, `not-a-number`, `impossible-value`
    (latency or duration <= 0), `bad-phase`, `record-count`, `file-count`,
    `name-mismatch`, `unit-mismatch`, `parallel-mismatch`; UNVERIFIED
    `no-receipts` (glob matched nothing), `no-records`, `mapping-matches-nothing`
    (one finding for a mapped field missing on every record of its set, instead of a FAIL `missing-field` per record),
    `unreadable-receipt` and `blocked-by-integrity`; all under `schema.documents`.
    Side effects: reads the receipt files.
    """
    tree = _tree(ctx)
    profile = _profile(ctx)
    every: list[Receipt] = []
    media: list[Media] = []
    unmapped: list[Unmapped] = []
    for rid, spec in profile["receipts"].items():
        records, problems, files = read_receipts(tree, rid, spec)
        every.extend(records)
        if "media" in spec:
            media.extend(_media_of(records, spec["media"]["pointer"]))
        bad_files = set()
        for p in problems:
            bad_files.update(files if p.code == NEVER_STATED else (p.path,))  # a field no record states: no file maps "every mapped field"
            if p.code in _NOT_READ:
                unmapped.append(Unmapped(what=f"receipts.{rid}", where=Location(p.path), why=p.message, code=p.code))
            yield _f(CHECK, Status(p.status), p.code, p.message, path=p.path, pointer=p.pointer, expected=p.field)
        per_file: dict[str, int] = {}  # records per file, counted in one pass (not one pass per file)
        for r in records:
            per_file[r.path] = per_file.get(r.path, 0) + 1
        for rel in files:
            if rel in bad_files:
                continue
            n = per_file.get(rel, 0)
            if not n:
                continue  # read, and every record left out by the set's own `where`: no receipt, so nothing mapped to pass (`read_receipts`)
            yield _f(CHECK, Status.PASS, "mapped", f"receipts.{rid}: {rel} maps {n} records with every mapped field", path=rel, observed=n)
    stated = read_claim_documents(tree, profile.get("claim_documents", []), compile_patterns(profile.get("informational")))
    model = Evidence(reader=f"profile:{profile['id']}", files=tuple(FileEntry(rel, None, None) for rel in tree.files()),
                     receipts=tuple(every), media=tuple(media), claims=stated.claims, outcomes=stated.outcomes,
                     unmapped=(*unmapped, *stated.unmapped), gate=profile["id"], informational=stated.informational)
    ctx.run.evidence = model  # stored first: should reading the sites fail (an ERROR here), every later check still has the receipts
    sites = read_sites(tree, parse_claim_files(tree, profile, every), rule_instances(profile, every), profile)  # each claim file parsed, each rule's instances ranked, once
    ctx.run.evidence = dataclasses.replace(model, sites=sites)


#: Problems after which a file (or a glob) gave no receipts: what the model records as not mapped.
_NOT_READ = ("no-receipts", "no-records", "unreadable-receipt", "blocked-by-integrity")


def _media_of(records: list[Receipt], pointer: str) -> Iterator[Media]:
    """Return the output media the read receipts name at `pointer` (role `output`), once each, in receipt order."""
    seen: set[str] = set()
    for r in records:
        if r.unread is not None:
            continue
        try:
            output = resolve(r.raw, pointer)
        except KeyError:
            continue
        if isinstance(output, str) and output not in seen:
            seen.add(output)
            yield Media(path=output, role="output")
