"""
Integrity: the bundle's files against its manifest, for every manifest kind.

One body (`judge`) for every reader: each gives only what it lists
(`listed_of`: bundle format v1's `manifest.json`, or the manifest a profile
names, for a profile-read or a mapped bundle), read by its kind
(`verifier.readers.manifests`: our `manifest.json`, a files-map,
`sha256sums`, a list of `{path, digest, bytes}` entries) into one `Listing`;
the disk is scanned once (`scan`), and the two are compared (`compare`).
`integrity.unchanged` (`unchanged`) re-hashes what later checks read again.

Every manifest entry is on disk with the same size and sha256, every file on
disk is in the manifest, names are compared after NFC normalisation, and
unsafe paths and symlinks are reported and never read. All problems are
reported, not only the first. External artifacts are UNVERIFIED unless a
directory holding them is supplied (`--artifacts`), in which case they are
hashed like bundle files.

Hashing streams each file (`hashlib.file_digest`, which releases the GIL) on a
pool of as many threads as there are CPUs, largest files first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.cache.warm import Cache, digest_of
from verifier.formats.bundle import DOCUMENTS, Bundle, hash_bytes_of, hash_file, nfc, unsafe_name, unsafe_reason, walk_safely
from verifier.formats.jsonio import JSONProblem, json_pointer, schema_message
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.engine.progress import Progress
from verifier.readers.manifests import Listing, normal_digest, read_listing
from verifier.readers.mapped import MappedBundle
from verifier.readers.native import V1_PROFILE
from verifier.readers.pointers import resolve
from verifier.readers.tree import Tree
from verifier.trust.assets import schema_validator
from verifier.schema.validation import known_valid, note_valid

__all__ = ["Disk", "Listed", "Outcome", "compare", "files", "hash_many", "judge", "listed_of", "load_manifest", "match_supplied",
           "scan", "unchanged"]

MANIFEST = DOCUMENTS["manifest"][0]
DOCUMENT_LIMIT = 256 << 20  # a bundle document larger than 256 MiB is refused rather than read into memory


def hash_many(paths: list[Path], workers: int | None = None, progress: Progress | None = None,
              keep: dict[Path, bytes] | None = None, cache: Cache | None = None,
              from_cache: set[Path] | None = None) -> dict[Path, tuple[int, str] | OSError]:
    """
    Return `{path: (size, sha256_hex) or the OSError}` for every path, hashed in parallel.

    `workers` defaults to the CPU count. Memory stays bounded by one read
    buffer per worker, whatever the file sizes, except for paths that are
    keys of `keep`: those are read whole (up to `DOCUMENT_LIMIT` bytes) and
    their bytes stored in `keep[path]`, so a caller can parse exactly the
    bytes that were hashed. `progress` (see `verifier.engine.progress.make_progress`)
    is advanced by each file's size. With a `cache` (`verifier.cache.warm`), a
    file whose identity (device, inode, size, mtime, ctime) is cached is not
    read; such paths are added to `from_cache`.
    """
    ordered = sorted(paths, key=lambda p: -_size(p))
    results: dict[Path, tuple[int, str] | OSError] = {}
    if progress is not None:
        progress.start(f"hashing {len(ordered)} file(s)", sum(_size(p) for p in ordered))

    def one(p: Path) -> tuple[Path, tuple[int, str] | OSError]:
        try:
            if keep is not None and p in keep:
                size, digest, keep[p] = hash_bytes_of(p, DOCUMENT_LIMIT)
                return p, (size, digest)
            size, digest, cached = digest_of(p, cache)
            if cached and from_cache is not None:
                from_cache.add(p)
            return p, (size, digest)
        except OSError as exc:
            return p, exc

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2) as pool:
        for p, result in pool.map(one, ordered):
            results[p] = result
            if progress is not None:
                progress.advance(result[0] if isinstance(result, tuple) else 0)
    if progress is not None:
        progress.finish()
    return results


def _size(p: Path) -> int:
    try:
        return p.stat(follow_symlinks=False).st_size
    except OSError:
        return 0


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check="integrity.files", status=status, code=code, message=message, **kw)


def load_manifest(ctx: Context) -> tuple[dict[str, Any] | None, list[Finding]]:
    """
    Return `(manifest, findings)`: the parsed, schema-valid manifest or None with FAIL findings.

    Side effects: reads `manifest.json` once.
    """
    bundle = ctx.bundle
    path = bundle.root / MANIFEST
    if path.is_symlink() or not path.is_file():
        entries, unreadable = walk_safely(bundle.root)
        present = [e.rel for e in entries] + [rel for rel, _ in unreadable]
        if not present:
            return None, [_f(Status.FAIL, "no-evidence", "the bundle directory is empty: no manifest, no receipts, no claims", path=MANIFEST)]
        return None, [_f(Status.FAIL, "no-manifest", f"{MANIFEST} is missing (or not a regular file); {len(present)} file(s) are unaccounted for", path=MANIFEST)]
    try:
        manifest = bundle.raw_document("manifest")
    except JSONProblem as exc:
        return None, [_f(Status.FAIL, f"manifest-{exc.code}", f"{MANIFEST}: {exc}", path=MANIFEST)]
    except OSError as exc:  # e.g. mode 000: the bundle cannot be read, which the evidence (not the verifier) is to blame for
        return None, [_f(Status.FAIL, "manifest-unreadable", f"{MANIFEST} cannot be read ({exc.strerror or exc})", path=MANIFEST)]
    schema = ctx.assets.schema("manifest")
    if known_valid(ctx.options.get("cache"), schema, bundle.parsed_sha256.get("manifest")) is not None:
        return manifest, []  # these very bytes were valid in an earlier run of this code (docs/cache.md)
    validator = schema_validator(schema)
    errors = sorted(validator.iter_errors(manifest), key=lambda e: list(e.absolute_path))
    if errors:
        return None, [
            _f(Status.FAIL, "manifest-schema", f"{MANIFEST}: {schema_message(e)}", path=MANIFEST,
               pointer=json_pointer(e.absolute_path))
            for e in errors
        ]
    note_valid(ctx.options.get("cache"), schema, bundle.parsed_sha256.get("manifest"))
    return manifest, []


@check("integrity.files", title="Bundle files match the manifest (sha256 and size), nothing unlisted",
       roads={"mapped": ("Bundle files match the manifest the profile names (sha256 and size), nothing unlisted", ()),
              "profile": ("Bundle files match the manifest the profile names (sha256 and size)", ())})
def files(ctx: Context) -> Iterator[Finding]:
    """`integrity.files` of every reader, titled by its input (`Check.on`): `judge` of what the reader lists (`listed_of`)."""
    return judge(ctx, listed_of(ctx))


@dataclass
class Listed:
    """
    Represents what a reader gives `integrity.files`: the manifest kind and where the files are.

    `spec` is the manifest kind in the profile language (`verifier.readers.manifests`, with
    its `external` items); `read` returns the manifest's content (parsed JSON, or the bytes of
    a `sha256sums` text), None when there is none to read, after the FAIL or UNVERIFIED
    `problems` that say why. The files on disk are those under `root` (or only the files `only`
    names); `keep` names files whose hashed bytes later checks parse (`Bundle.contents`);
    `tree` is where an external list in another file is read and refused files are marked
    (`Tree.blocked`); `model` returns the manifest the evidence model reads
    (`ctx.run.manifest`) from the `Listing` (None when none was read), or is None.
    """

    spec: dict[str, Any]
    root: Path
    read: Callable[[], Any] | None = None
    problems: list[Finding] = field(default_factory=list)
    only: frozenset[str] | None = None
    keep: set[str] = field(default_factory=set)
    tree: Tree | None = None
    model: Callable[[Context, Listing | None], dict[str, Any]] | None = None


def listed_of(ctx: Context) -> Listed:
    """
    Return what the run's reader lists: bundle format v1's `manifest.json`, or the manifest a profile names (profile-read and mapped bundles).

    Side effects: reads `manifest.json` (v1: `load_manifest`).
    """
    profile = ctx.options.get("profile")
    if profile is None:
        manifest, problems = load_manifest(ctx)
        if manifest is None:
            return Listed(V1_PROFILE["manifest"], ctx.bundle.root, problems=problems)
        keep = {name for name, _schema, lines, _required in DOCUMENTS.values() if not lines}  # JSON Lines are read as a stream (`Bundle.records`)
        keep |= {nfc(e["path"]) for e in manifest["files"] if e.get("role")}  # retained attempts are parsed later: keep their hashed bytes
        return Listed(V1_PROFILE["manifest"], ctx.bundle.root, lambda: manifest, keep=keep, model=lambda _ctx, _listing: manifest)
    spec = profile["manifest"]
    bundle = ctx.bundle
    tree = bundle.tree if isinstance(bundle, MappedBundle) else bundle
    model = bundle.manifest_of if isinstance(bundle, MappedBundle) else None
    listed = Listed(spec, tree.root, only=tree.only, tree=tree, model=model)
    if spec["kind"] == "none":
        listed.problems.append(_f(Status.UNVERIFIED, "no-manifest", f"this format has no integrity manifest ({spec['reason']}); "
                                  "file contents cannot be checked against digests"))
    elif not tree.exists(spec["file"]):
        listed.problems.append(_f(Status.FAIL, "manifest-missing", f"{spec['file']}, the manifest this profile expects, is not in the bundle",
                                  path=spec["file"]))
    else:
        listed.read = lambda: tree.read_bytes(spec["file"]) if spec["kind"] == "sha256sums" else tree.json(spec["file"])
    return listed


def judge(ctx: Context, listed: Listed) -> Iterator[Finding]:
    """
    Compare the files a reader lists (`listed`) with the files on disk: the one body of `integrity.files`.

    Yields the reader's `problems` (v1: `no-manifest`, `no-evidence`, `manifest-unreadable`,
    `manifest-schema`, `manifest-<JSONProblem code>`; a profile: FAIL `manifest-missing`,
    UNVERIFIED `no-manifest` when the format has none), FAIL `manifest-unreadable` when the
    manifest cannot be read, every finding of `compare` (FAIL `missing-file`, `size-mismatch`,
    `sha256-mismatch`, `unlisted-file`, `unsafe-path`, `unsafe-name`, `symlink`,
    `symlink-escape`, `special-file`, `name-collision`, `duplicate-entry`, `unreadable-file`,
    `manifest-entry`; UNVERIFIED `no-published-digest`, `external-not-supplied`; PASS `match`),
    then the external artifacts (`_declared_externals`; also when the format has no manifest).
    Records what matched: `ctx.run.matched` (NFC name -> (name on disk, sha256)), a
    bundle's `verified`, `digests` and kept `contents`, the refused files in `Tree.blocked`,
    and `ctx.run.manifest` (the reader's `model`). Side effects: reads every listed file once.
    """
    listing = yield from _judged(ctx, listed)
    if listed.model is not None:
        ctx.run.manifest = listed.model(ctx, listing)


def _judged(ctx: Context, listed: Listed) -> Generator[Finding, None, Listing | None]:
    """Yield the findings of `judge`, recording what matched; return the `Listing` read, or None."""
    spec = listed.spec
    yield from listed.problems
    if listed.read is None:
        if spec["kind"] == "none":
            yield from _declared_externals(ctx, listed, None, None, set())
        return None
    name = spec["file"]
    try:
        document = listed.read()
        listing = read_listing(spec, document)
    except (OSError, JSONProblem, UnicodeDecodeError) as exc:
        yield _f(Status.FAIL, "manifest-unreadable", f"{name}: {exc}", path=name)
        return None
    ctx.run.examined.update((name, pointer) for pointer in listing.stated)  # stated digests compared below
    ctx.run.listed_digests = {entry.sha256 for entry in listing.entries.values()}
    names: dict[str, list[str]] = {}
    for name_, entry in sorted(listing.entries.items()):
        names.setdefault(entry.sha256, []).append(name_)
    ctx.run.listed_names = names  # every name a digest is listed under, sorted (identical bytes published twice)
    outcome = Outcome()
    yield from compare(ctx, spec, listing, scan(ctx, listed.root, listed.only, name), outcome, keep=listed.keep)
    ctx.run.matched = outcome.matched  # re-hashed by `integrity.unchanged` after the checks that read them
    if listed.tree is not None:
        listed.tree.blocked.update(outcome.blocked)
    if isinstance(ctx.bundle, Bundle):
        for key, (rel, digest) in outcome.matched.items():
            ctx.bundle.verified[key] = rel
            ctx.bundle.digests[key] = digest
        ctx.bundle.contents.update(outcome.contents)  # documents are parsed from the very bytes hashed here
    yield from _declared_externals(ctx, listed, document, name, set(listing.entries))
    return listing


@dataclass
class Disk:
    """Represents the regular files found on disk: `regular` maps NFC name -> name on disk; `shadowed` holds names already reported (symlinks, collisions)."""

    regular: dict[str, str] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class Outcome:
    """Represents what `compare` established: `matched` NFC name -> (name on disk, sha256); `blocked` name -> why it must not be parsed; `contents` kept bytes."""

    matched: dict[str, tuple[str, str]] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)
    contents: dict[str, bytes] = field(default_factory=dict)


def scan(ctx: Context, root: Path, only: frozenset[str] | None, manifest: str) -> Disk:
    """
    Return the `Disk` under `root` (or just the files `only` names), the `manifest` file left out.

    Every unsafe name, symlink (inside or escaping the bundle), special file,
    unreadable directory and NFC or letter-case collision becomes a FAIL
    finding in `Disk.findings`; such files are never read.
    """
    disk = Disk()
    if only is not None:
        disk.regular = {nfc(rel): rel for rel in sorted(only) if rel != manifest}
        return disk
    entries, unreadable = walk_safely(root)
    for rel, reason in unreadable:
        disk.findings.append(_f(Status.FAIL, "unreadable-file", f"directory {rel} cannot be listed ({reason}); its files cannot be checked",
                                path=rel))
    by_nfc: dict[str, list[str]] = {}
    for entry in entries:
        if entry.rel == manifest:
            continue
        bad_name = unsafe_name(entry.rel)
        if bad_name:
            disk.findings.append(_f(Status.FAIL, "unsafe-name", f"{ascii(entry.rel)}: {bad_name}; such a file is not read",
                                    observed=ascii(entry.rel)))
            continue
        by_nfc.setdefault(nfc(entry.rel), []).append(entry.rel)
        if entry.kind == "symlink":
            target = (root / entry.rel).parent / (entry.link_target or "")
            inside = os.path.realpath(target).startswith(os.path.realpath(root) + os.sep)
            code = "symlink" if inside else "symlink-escape"
            where = "inside" if inside else "outside"
            disk.findings.append(_f(Status.FAIL, code, f"{entry.rel} is a symlink to {entry.link_target!r} ({where} the bundle); symlinks are never followed",
                                    path=entry.rel, observed=entry.link_target))
        elif entry.kind == "other":
            disk.findings.append(_f(Status.FAIL, "special-file", f"{entry.rel} is not a regular file", path=entry.rel))
        else:
            disk.regular[nfc(entry.rel)] = entry.rel
    folded: dict[str, list[str]] = {}
    for name, spellings in by_nfc.items():
        if len(spellings) > 1:
            disk.findings.append(_f(Status.FAIL, "name-collision",
                                    f"{len(spellings)} files have the same name after NFC normalisation: {', '.join(ascii(n) for n in spellings)}",
                                    path=spellings[0], observed=spellings))
            for s in spellings:
                disk.regular.pop(nfc(s), None)
        folded.setdefault(name.casefold(), []).append(name)
    for spellings in folded.values():
        if len(spellings) > 1:
            disk.findings.append(_f(Status.FAIL, "name-collision",
                                    f"files differ only in letter case: {sorted(spellings)}; they collide on case-insensitive file systems",
                                    path=sorted(spellings)[0], observed=sorted(spellings)))
    disk.shadowed = set(by_nfc) - set(disk.regular)
    return disk


def compare(ctx: Context, spec: dict[str, Any], listing: Listing, disk: Disk, outcome: Outcome,
            keep: set[str] = frozenset()) -> Iterator[Finding]:  # type: ignore[assignment]
    """
    Yield the findings of comparing manifest `listing` (kind `spec`) with the files on `disk`; fill `outcome`.

    The one comparison of every manifest kind (`verifier.readers.manifests`):
    the listing's problems and the disk's findings (FAIL); per listed file
    absent from disk FAIL `missing-file`, or UNVERIFIED
    `external-not-supplied` when `spec["missing"]` is `unverified`; per file
    on disk the listing lacks (other than `spec["ignore"]`) FAIL
    `unlisted-file`, or UNVERIFIED `no-published-digest` when
    `spec["unlisted"]` is `unverified`; per listed file on disk, hashed
    (`hash_many`, with the run's cache and progress), FAIL `unreadable-file`,
    `size-mismatch` (only where the kind states sizes), `sha256-mismatch`,
    or PASS `match`. A matched file goes into `outcome.matched` (with its
    bytes in `outcome.contents` when its name is in `keep`); a file whose
    bytes contradict the listing, or an unlisted one that FAILs, into
    `outcome.blocked`, so no later check parses it.
    """
    name = listing.file
    for code, message, pointer, observed in listing.problems:
        yield _f(Status.FAIL, code, message, path=name, pointer=pointer, observed=observed)
    yield from disk.findings
    to_hash: dict[str, Path] = {}
    root = ctx.bundle.root
    for key, entry in listing.entries.items():
        if key in disk.shadowed:
            continue  # already reported as symlink, special file or collision
        if key in disk.regular:
            to_hash[key] = root / disk.regular[key]
            continue
        expected = {"sha256": entry.sha256, "size": entry.size, "listed_in": name}
        if spec["missing"] == "fail":
            yield _f(Status.FAIL, "missing-file", f"{entry.path} is listed in {name} but not in the bundle",
                     path=key, pointer=entry.pointer, expected=expected)
        else:
            yield match_supplied(ctx, key, {"sha256": entry.sha256, "size": entry.size}, {"path": key, "pointer": entry.pointer},  # published elsewhere
                                 absent=f"{entry.path} is listed in {name} but not in this copy ({spec.get('missing_reason', 'absent')})", listing=name)
    ignored = {nfc(rel) for rel in spec.get("ignore", [])}
    refused = {nfc(p[3]) for p in listing.problems if p[0] == "unsafe-path" and isinstance(p[3], str)}  # listed, refused above: not also "unlisted"
    for key in sorted(set(disk.regular) - set(listing.entries) - ignored - refused):
        rel = disk.regular[key]
        if spec["unlisted"] == "fail":
            outcome.blocked[rel] = f"it is not listed in {name}"
            yield _f(Status.FAIL, "unlisted-file", f"{rel} is in the bundle but not listed in {name}", path=rel)
        else:
            yield _f(Status.UNVERIFIED, "no-published-digest", f"{rel} has no digest in {name}, so its contents are not integrity-verified",
                     path=rel)
    kept: dict[Path, bytes] = {to_hash[key]: b"" for key in to_hash if key in keep}
    reused: set[Path] = set()
    hashed = hash_many(list(to_hash.values()), progress=ctx.options.get("progress"), keep=kept,
                       cache=ctx.options.get("cache"), from_cache=reused)
    for key, disk_path in sorted(to_hash.items()):
        entry = listing.entries[key]
        rel = disk.regular[key]
        result = hashed[disk_path]
        loc = {"path": key, "pointer": entry.pointer}
        expected = {"sha256": entry.sha256, "size": entry.size, "listed_in": name}  # `pointer` is into `listed_in`, not `path`
        if isinstance(result, OSError):
            outcome.blocked[rel] = "unreadable"
            yield _f(Status.FAIL, "unreadable-file", f"{key} cannot be read: {result.strerror or result}", **loc)
            continue
        size, digest = result
        observed = {"sha256": digest, "size": size}
        if entry.size is not None and size != entry.size:
            outcome.blocked[rel] = f"its size {size} differs from the manifest's {entry.size}"
            yield _f(Status.FAIL, "size-mismatch", f"{key} has {size} bytes, {name} says {entry.size}",
                     expected=expected, observed=observed, **loc)
        elif digest.lower() != entry.sha256:
            outcome.blocked[rel] = "its sha256 differs from the manifest's"
            yield _f(Status.FAIL, "sha256-mismatch", f"{key} sha256 {digest[:12]}... differs from {name}'s {entry.sha256[:12]}...",
                     expected=expected, observed=observed, **loc)
        else:
            outcome.matched[key] = (rel, digest)
            if disk_path in kept:
                outcome.contents[key] = kept[disk_path]
            yield _f(Status.PASS, "match", f"{key} matches {name} ({size} bytes)", expected=expected, observed=observed,
                     cached="digest" if disk_path in reused else None, **loc)


def match_supplied(ctx: Context, key: str, expected: dict[str, Any], loc: dict[str, Any], *, absent: str, listing: str) -> Finding:
    """
    Return the finding of one listed file looked up under `--artifacts DIR` at its listed path `key`.

    `expected` is `{"sha256", "size"}` as listed (`size` None where the
    listing states none), `loc` the finding's `path` and `pointer`.
    PASS `external-match` (the file then counts as verified:
    `ctx.run.externals_verified[key]`); FAIL `external-mismatch` (size or
    sha256 differ; a listed size that differs is refused before the file is
    read), `unreadable-file`; UNVERIFIED `external-not-supplied`,
    its message `absent` plus where it was looked for.
    """
    supplied = ctx.options.get("artifacts")
    candidate = Path(os.path.realpath(Path(supplied) / key)) if supplied else None  # symlinks under DIR are followed, once, here
    if candidate is None or not candidate.is_file():
        where = f"not found at {Path(supplied) / key}" if supplied else "not supplied (use --artifacts DIR)"
        if candidate is not None and os.path.lexists(candidate) and not candidate.is_dir():  # a FIFO, device or socket: never opened
            where = f"{Path(supplied) / key} is not a regular file (a FIFO, device or socket is never read)"
        return _f(Status.UNVERIFIED, "external-not-supplied", f"{absent}; {where}, so it is neither missing nor verified", expected=expected, **loc)
    try:
        on_disk = candidate.stat().st_size
        if expected["size"] is not None and on_disk != expected["size"]:  # refused before reading: a wrong file may be huge
            return _f(Status.FAIL, "external-mismatch", f"external {key} supplied under {supplied} has {on_disk} bytes, {listing} says {expected['size']}",
                      expected=expected, observed={"size": on_disk}, **loc)
        size, digest = hash_file(candidate)
    except OSError as exc:
        return _f(Status.FAIL, "unreadable-file", f"external {key} under {supplied} cannot be read: {exc}", **loc)
    observed = {"sha256": digest, "size": size}
    if (expected["size"] is not None and size != expected["size"]) or normal_digest(expected["sha256"]) != digest.lower():
        return _f(Status.FAIL, "external-mismatch", f"external {key} supplied under {supplied} does not match {listing}",
                  expected=expected, observed=observed, **loc)
    ctx.run.externals_verified[key] = candidate
    ctx.run.externals_digests[key] = digest  # re-hashed by integrity.unchanged: later checks read the file again
    return _f(Status.PASS, "external-match", f"external {key} supplied and matches", expected=expected, observed=observed, **loc)


def _declared_externals(ctx: Context, listed: Listed, document: Any, manifest: str | None, names: set[str]) -> Iterator[Finding]:
    """
    Report every external artifact the manifest kind `listed.spec` declares; its list is in the item's `file`, else the manifest (`document`).

    An item naming no digest member: UNVERIFIED `external-not-supplied` per
    entry. Else first FAIL `manifest-entry` per entry lacking a path, a
    sha256 or an integer size (the others kept in
    `ctx.run.listed_externals`), then per other entry FAIL `unsafe-path`,
    `duplicate-entry` (one of the listed `names`), or `match_supplied` (PASS
    `external-match`, FAIL `external-mismatch`, `unreadable-file`,
    UNVERIFIED `external-not-supplied`).
    """
    for item in listed.spec.get("external", []):
        name = item.get("file", manifest)
        if name is None:
            yield _f(Status.UNVERIFIED, "external-not-supplied", f"external artifacts ({item['reason']}) are declared but not supplied",
                     pointer=item["pointer"])
            continue
        try:
            found = resolve(document if listed.tree is None else listed.tree.json(name), item["pointer"])
        except (KeyError, OSError, JSONProblem):
            yield _f(Status.FAIL, "external-list-missing", f"{name} has no external list at {item['pointer']}", path=name,
                     pointer=item["pointer"])
            continue
        entries = []
        for index, entry in enumerate(found if isinstance(found, list) else []):
            pointer = f"{item['pointer']}/{index}"
            if "sha256" not in item:
                yield _f(Status.UNVERIFIED, "external-not-supplied", f"external artifact {entry} ({item['reason']}) is not supplied and "
                         f"{name} records no digest for it", path=name, pointer=pointer, observed=entry)
                continue
            values = {key: entry.get(item[key]) if isinstance(entry, dict) else None for key in ("path", "sha256", "size")}
            size = values["size"]
            if not isinstance(values["path"], str) or not isinstance(values["sha256"], str) or not isinstance(size, int) or isinstance(size, bool):
                yield _f(Status.FAIL, "manifest-entry", f"external entry {index} of {name} lacks a path ({item['path']}), a sha256 "
                         f"({item['sha256']}) or an integer size ({item['size']})", path=name, pointer=pointer)
                continue
            reason = entry.get(item["reason_member"]) if "reason_member" in item else None
            entries.append(({**values, "reason": reason if isinstance(reason, str) and reason else item["reason"]}, pointer))
        if "sha256" in item:
            ctx.run.listed_externals.extend(entry for entry, _pointer in entries)
        for entry, pointer in entries:
            raw = entry["path"]
            if unsafe_reason(raw):
                yield _f(Status.FAIL, "unsafe-path", f"{name} external {raw!r}: {unsafe_reason(raw)}", path=name, pointer=pointer + "/path", observed=raw)
            elif nfc(raw) in names:
                yield _f(Status.FAIL, "duplicate-entry", f"{raw} is listed both as a bundle file and as external", path=name, pointer=pointer)
            else:
                yield match_supplied(ctx, nfc(raw), {"sha256": entry["sha256"], "size": entry["size"]}, {"path": nfc(raw), "pointer": pointer},
                                     absent=f"{raw} is external ({entry['reason']})", listing="the manifest")


@check("integrity.unchanged", title="Files read by later checks still have the sha256 the integrity check matched")
def unchanged(ctx: Context) -> Iterator[Finding]:
    """
    Re-hash every file a later check read again from disk, and every supplied external artifact that matched.

    A bundle's documents are parsed from the bytes `integrity.files` hashed,
    so its files read again are those checks opened (`Bundle.path_of`: media,
    by coverage and scoring); a profile's checks read every file from disk,
    so all it matched (`ctx.run.matched`). FAIL
    `changed-during-verification` per file whose sha256 changed while
    `verify` ran; PASS `unchanged` otherwise (also when no check read a file
    again). Side effects: reads those files again.
    """
    bundle = ctx.bundle
    read = {name: (bundle.verified[name], bundle.digests[name]) for name in bundle.touched} if isinstance(bundle, Bundle) else ctx.run.matched
    yield from _rehash(ctx, {**read, **_supplied_read(ctx)})


def _supplied_read(ctx: Context) -> dict[str, tuple[str, str]]:
    """Return the external artifacts `--artifacts` supplied and matched (name -> (absolute path, sha256)): later checks read them again."""
    digests = ctx.run.externals_digests
    return {name: (str(path), digests[name]) for name, path in ctx.run.externals_verified.items()}


def _rehash(ctx: Context, files: dict[str, tuple[str, str]]) -> Iterator[Finding]:
    """Yield `integrity.unchanged` findings for `files` (NFC name -> (name on disk, sha256 matched earlier)), hashed again."""
    root = ctx.bundle.root
    paths = {name: root / rel for name, (rel, _digest) in files.items()}
    reused: set[Path] = set()  # a file changed since it was hashed has a new ctime, so it is read again
    hashed = hash_many(list(paths.values()), cache=ctx.options.get("cache"), from_cache=reused)
    changed = []
    for name in sorted(files):
        result = hashed[paths[name]]
        digest = files[name][1]
        if isinstance(result, OSError) or result[1] != digest:
            changed.append(name)
            yield Finding(check="integrity.unchanged", status=Status.FAIL, code="changed-during-verification", message=
                          f"{name} no longer has the sha256 it had when verification started; findings on it cannot be trusted",
                          path=name, expected=digest, observed=str(result) if isinstance(result, OSError) else result[1])
    if not changed:
        yield Finding(check="integrity.unchanged", status=Status.PASS, code="unchanged",
                      message=f"{len(files)} file(s) read again by later checks still match their sha256",
                      cached="digest" if reused else None)
