"""
Integrity: the bundle's files against its manifest.

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
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from verifier.cache import Cache, digest_of
from verifier.bundle import DOCUMENTS, hash_bytes_of, hash_file, nfc, unsafe_name, unsafe_reason, walk_safely
from verifier.jsonio import JSONProblem, json_pointer, schema_message
from verifier.model import Finding, Status
from verifier.pipeline import Context, check
from verifier.progress import Progress
from verifier.trust import schema_validator
from verifier.validation import known_valid, note_valid

__all__ = ["normal_digest", "same_digest", "files", "hash_many", "load_manifest", "unchanged"]

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
    bytes that were hashed. `progress` (see `verifier.progress.make_progress`)
    is advanced by each file's size. With a `cache` (`verifier.cache`), a
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


def normal_digest(text: Any) -> str | None:
    """
    Return the sha256 hex digest `text` states, in lowercase, or None when it states none.

    Accepts 64 hex digits in either case, optionally prefixed `sha256:` (the
    `{path, digest: "sha256:..."}` entry shape): an uppercase digest names the
    same bytes as its lowercase form in every integrity path.
    """
    if not isinstance(text, str):
        return None
    hexdigits = text[7:] if text[:7].lower() == "sha256:" else text
    return hexdigits.lower() if re.fullmatch(r"[0-9a-fA-F]{64}", hexdigits) else None


def same_digest(observed: str, stated: Any) -> bool:
    """Return whether the hex sha256 `observed` (as hashed) equals the digest `stated` (see `normal_digest`)."""
    return normal_digest(stated) == observed.lower()


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


@check("integrity.files", title="Bundle files match the manifest (sha256 and size), nothing unlisted")
def files(ctx: Context) -> Iterator[Finding]:
    """
    Compare every file under the bundle root with `manifest.json`.

    Emits FAIL `missing-file`, `size-mismatch`, `sha256-mismatch`,
    `unlisted-file`, `unsafe-path`, `symlink`, `symlink-escape`,
    `special-file`, `name-collision`, `duplicate-entry`, `unreadable-file`,
    `no-manifest`, `no-evidence`, `manifest-unreadable`, `manifest-<JSONProblem code>`;
    UNVERIFIED `external-not-supplied`; PASS
    `match` per matched file. Side effects: reads every listed file once.
    """
    bundle = ctx.bundle
    manifest, problems = load_manifest(ctx)
    if manifest is None:
        yield from problems
        return
    ctx.data["manifest"] = manifest

    disk, unreadable = walk_safely(bundle.root)
    for rel, reason in unreadable:
        yield _f(Status.FAIL, "unreadable-file", f"directory {rel} cannot be listed ({reason}); its files cannot be checked",
                 path=rel)
    by_nfc: dict[str, list[str]] = {}
    regular: dict[str, str] = {}
    for entry in disk:
        if entry.rel == MANIFEST:
            continue
        bad_name = unsafe_name(entry.rel)
        if bad_name:
            yield _f(Status.FAIL, "unsafe-name", f"{ascii(entry.rel)}: {bad_name}; such a file is not read",
                     observed=ascii(entry.rel))
            continue
        by_nfc.setdefault(nfc(entry.rel), []).append(entry.rel)
        if entry.kind == "symlink":
            target = (bundle.root / entry.rel).parent / (entry.link_target or "")
            inside = os.path.realpath(target).startswith(os.path.realpath(bundle.root) + os.sep)
            code = "symlink" if inside else "symlink-escape"
            where = "inside" if inside else "outside"
            yield _f(Status.FAIL, code,
                     f"{entry.rel} is a symlink to {entry.link_target!r} ({where} the bundle); symlinks are never followed",
                     path=entry.rel, observed=entry.link_target)
        elif entry.kind == "other":
            yield _f(Status.FAIL, "special-file", f"{entry.rel} is not a regular file", path=entry.rel)
        else:
            regular[nfc(entry.rel)] = entry.rel
    folded: dict[str, list[str]] = {}
    for name, spellings in by_nfc.items():
        if len(spellings) > 1:
            yield _f(Status.FAIL, "name-collision",
                     f"{len(spellings)} files have the same name after NFC normalisation: {', '.join(ascii(n) for n in spellings)}",
                     path=spellings[0], observed=spellings)
            for s in spellings:
                regular.pop(nfc(s), None)
        folded.setdefault(name.casefold(), []).append(name)
    for spellings in folded.values():
        if len(spellings) > 1:
            yield _f(Status.FAIL, "name-collision",
                     f"files differ only in letter case: {sorted(spellings)}; they collide on case-insensitive file systems",
                     path=sorted(spellings)[0], observed=sorted(spellings))

    listed: dict[str, tuple[int, dict[str, Any]]] = {}
    for index, entry in enumerate(manifest["files"]):
        raw = entry["path"]
        reason = unsafe_reason(raw)
        pointer = f"/files/{index}/path"
        if reason:
            yield _f(Status.FAIL, "unsafe-path", f"{MANIFEST} lists {raw!r}: {reason}; it is not read",
                     path=MANIFEST, pointer=pointer, observed=raw)
            continue
        name = nfc(raw)
        if name == MANIFEST:
            yield _f(Status.FAIL, "unsafe-path", f"{MANIFEST} lists itself", path=MANIFEST, pointer=pointer)
            continue
        if name in listed:
            yield _f(Status.FAIL, "duplicate-entry",
                     f"{MANIFEST} lists {raw!r} twice (entries {listed[name][0]} and {index}, compared after NFC)",
                     path=MANIFEST, pointer=pointer)
            continue
        listed[name] = (index, entry)

    to_hash: dict[str, Path] = {}
    for name, (index, entry) in listed.items():
        if name in by_nfc and name not in regular:
            continue  # already reported as symlink, special file or collision
        if name not in regular:
            yield _f(Status.FAIL, "missing-file", f"{entry['path']} is listed in {MANIFEST} but not in the bundle",
                     path=name, pointer=f"/files/{index}", expected={"sha256": entry["sha256"], "size": entry["size"]})
            continue
        to_hash[name] = bundle.root / regular[name]
    for name in sorted(set(regular) - set(listed)):
        yield _f(Status.FAIL, "unlisted-file", f"{regular[name]} is in the bundle but not listed in {MANIFEST}",
                 path=regular[name])

    documents = {name for name, *_ in DOCUMENTS.values()}
    documents |= {nfc(e["path"]) for e in manifest["files"] if e.get("role")}  # retained attempts are parsed later: keep their hashed bytes
    kept: dict[Path, bytes] = {to_hash[name]: b"" for name in to_hash if name in documents}
    reused: set[Path] = set()
    hashed = hash_many(list(to_hash.values()), progress=ctx.options.get("progress"), keep=kept,
                       cache=ctx.options.get("cache"), from_cache=reused)
    for name, disk_path in sorted(to_hash.items()):
        index, entry = listed[name]
        result = hashed[disk_path]
        loc = {"path": name, "pointer": f"/files/{index}"}
        expected = {"sha256": entry["sha256"], "size": entry["size"]}
        if isinstance(result, OSError):
            yield _f(Status.FAIL, "unreadable-file", f"{name} cannot be read: {result.strerror or result}", **loc)
            continue
        size, digest = result
        observed = {"sha256": digest, "size": size}
        if size != entry["size"]:
            yield _f(Status.FAIL, "size-mismatch", f"{name} has {size} bytes, manifest says {entry['size']}",
                     expected=expected, observed=observed, **loc)
        elif not same_digest(digest, entry["sha256"]):
            yield _f(Status.FAIL, "sha256-mismatch", f"{name} sha256 {digest[:12]}... differs from the manifest's {entry['sha256'][:12]}...",
                     expected=expected, observed=observed, **loc)
        else:
            bundle.verified[name] = regular[name]
            bundle.digests[name] = digest
            if disk_path in kept:  # documents are parsed from the very bytes hashed here
                bundle.contents[name] = kept[disk_path]
            yield _f(Status.PASS, "match", f"{name} matches ({size} bytes)", expected=expected, observed=observed,
                     cached="digest" if disk_path in reused else None, **loc)

    yield from _externals(ctx, manifest, set(listed))


def _externals(ctx: Context, manifest: dict[str, Any], listed: set[str]) -> Iterator[Finding]:
    supplied = ctx.options.get("artifacts")
    for index, entry in enumerate(manifest.get("external", [])):
        raw = entry["path"]
        pointer = f"/external/{index}"
        reason = unsafe_reason(raw)
        if reason:
            yield _f(Status.FAIL, "unsafe-path", f"{MANIFEST} external {raw!r}: {reason}", path=MANIFEST,
                     pointer=pointer + "/path", observed=raw)
            continue
        name = nfc(raw)
        expected = {"sha256": entry["sha256"], "size": entry["size"]}
        if name in listed:
            yield _f(Status.FAIL, "duplicate-entry", f"{raw} is listed both as a bundle file and as external",
                     path=MANIFEST, pointer=pointer)
            continue
        candidate = Path(supplied) / name if supplied else None
        if candidate is None or not candidate.is_file():
            where = f"not found under {supplied}" if supplied else "not supplied (use --artifacts DIR)"
            yield _f(Status.UNVERIFIED, "external-not-supplied",
                     f"{raw} is external ({entry['reason']}); {where}, so it is neither missing nor verified",
                     path=name, pointer=pointer, expected=expected)
            continue
        try:
            size, digest = hash_file(candidate)
        except OSError as exc:
            yield _f(Status.FAIL, "unreadable-file", f"external {raw} under {supplied} cannot be read: {exc}", path=name, pointer=pointer)
            continue
        observed = {"sha256": digest, "size": size}
        if size != entry["size"] or not same_digest(digest, entry["sha256"]):
            yield _f(Status.FAIL, "external-mismatch", f"external {raw} supplied under {supplied} does not match the manifest",
                     path=name, pointer=pointer, expected=expected, observed=observed)
        else:
            ctx.data.setdefault("externals_verified", {})[name] = candidate
            yield _f(Status.PASS, "external-match", f"external {raw} supplied and matches", path=name,
                     pointer=pointer, expected=expected, observed=observed)


@check("integrity.unchanged", title="Files read by later checks still have the sha256 the integrity check matched")
def unchanged(ctx: Context) -> Iterator[Finding]:
    """
    Re-hash every bundle file a later check opened from disk (`Bundle.path_of`).

    Documents are parsed from the bytes the integrity check hashed, but media
    are read again by coverage and scoring; a file whose bytes changed while
    `verify` ran FAILs `changed-during-verification`. PASS `unchanged`
    otherwise (also when no check read a file again).
    """
    bundle = ctx.bundle
    names = sorted(bundle.touched)
    paths = {name: bundle.root / bundle.verified[name] for name in names}
    reused: set[Path] = set()  # a file changed since it was hashed has a new ctime, so it is read again
    hashed = hash_many(list(paths.values()), cache=ctx.options.get("cache"), from_cache=reused)
    changed = []
    for name in names:
        result = hashed[paths[name]]
        if isinstance(result, OSError) or result[1] != bundle.digests[name]:
            changed.append(name)
            yield Finding(check="integrity.unchanged", status=Status.FAIL, code="changed-during-verification", message=
                          f"{name} no longer has the sha256 it had when verification started; findings on it cannot be trusted",
                          path=name, expected=bundle.digests[name],
                          observed=str(result) if isinstance(result, OSError) else result[1])
    if not changed:
        yield Finding(check="integrity.unchanged", status=Status.PASS, code="unchanged",
                      message=f"{len(names)} file(s) read again by later checks still match their sha256",
                      cached="digest" if reused else None)
