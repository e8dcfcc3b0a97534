"""Profile check (1): the bundle's files against the manifest the profile names, before anything is parsed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from verifier.bundle import unsafe_reason
from verifier.checks.integrity import hash_many, normal_digest
from verifier.checks.profile_base import _f, _profile, _tree, examined
from verifier.jsonio import JSONProblem
from verifier.model import Finding, Status
from verifier.pipeline import Context, check
from verifier.readers.pointers import resolve
from verifier.readers.tree import Tree

__all__ = ["integrity"]

_SHA256SUMS_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")


@check("profile.integrity", title="Bundle files match the manifest the profile names (sha256 and size)")
def integrity(ctx: Context) -> Iterator[Finding]:
    """
    Compare the bundle's files with its own manifest, in the shape the profile declares.

    `files-map`: a JSON object path -> {sha256, size}; `sha256sums`: a
    `sha256sum` text file; `entries`: a JSON list of entries naming path,
    sha256 (optionally "sha256:"-prefixed) and size. PASS `match`; FAIL `missing-file` (or UNVERIFIED
    `external-not-supplied` when the profile says listed files may be absent),
    `size-mismatch`, `sha256-mismatch`, `unsafe-path`, `duplicate-entry`,
    `unlisted-file` (or UNVERIFIED `no-published-digest`), `manifest-unreadable`;
    UNVERIFIED `external-not-supplied` for declared external artifacts and
    `no-manifest` when the format has none (declared externals are still
    reported). A file whose bytes contradict the
    manifest is marked so later checks never parse it.
    Side effects: reads every listed file once.
    """
    cid = "profile.integrity"
    spec = _profile(ctx)["manifest"]
    tree = _tree(ctx)
    if spec["kind"] == "none":
        yield _f(cid, Status.UNVERIFIED, "no-manifest", f"this format has no integrity manifest ({spec['reason']}); file contents cannot be checked against digests")
        yield from _externals(tree, spec, None)  # declared externals are reported with or without a manifest
        return
    name = spec["file"]
    if not tree.exists(name):
        yield _f(cid, Status.FAIL, "manifest-missing", f"{name}, the manifest this profile expects, is not in the bundle", path=name)
        return
    try:
        raw = tree.read_bytes(name)
        if spec["kind"] == "sha256sums":
            entries, problems = _sha256sums(raw, spec)
        elif spec["kind"] == "entries":
            entries, problems = _entries(tree.json(name), spec)
            for _digest, _size, pointer in entries.values():  # the digests and sizes it states are compared below
                examined(ctx).update({(name, f"{pointer}/{spec['sha256']}"), (name, f"{pointer}/{spec.get('size', '')}"), (name, f"{pointer}/{spec['path']}")})
        else:
            entries, problems = _files_map(tree.json(name), spec)
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
        elif normal_digest(digest) is None or not isinstance(size, int) or isinstance(size, bool):
            problems.append(("manifest-entry", f"entry {rel!r} lacks a sha256 ({spec['sha256']}) or an integer size ({spec['size']})", pointer))
        else:
            entries[rel] = (normal_digest(digest), size, pointer)  # type: ignore[assignment]
    return entries, problems


def _entries(document: Any, spec: dict[str, Any]) -> tuple[dict[str, tuple[str, int | None, str]], list[tuple[str, str, str | None]]]:
    """Read a manifest given as a list of entries (`path`, `sha256` with an optional "sha256:" prefix, optional `size` member names)."""
    try:
        table = resolve(document, spec["pointer"])
    except KeyError:
        return {}, [("manifest-unreadable", f"no list of entries at {spec['pointer']!r}", spec["pointer"])]
    if not isinstance(table, list):
        return {}, [("manifest-unreadable", f"{spec['pointer']!r} is not a list of entries", spec["pointer"])]
    entries: dict[str, tuple[str, int | None, str]] = {}
    problems: list[tuple[str, str, str | None]] = []
    for index, entry in enumerate(table):
        pointer = f"{spec['pointer']}/{index}"
        rel = entry.get(spec["path"]) if isinstance(entry, dict) else None
        digest = entry.get(spec["sha256"]) if isinstance(entry, dict) else None
        size = entry.get(spec["size"]) if isinstance(entry, dict) and "size" in spec else None
        if isinstance(digest, str):
            digest = digest.removeprefix("sha256:")
        if not isinstance(rel, str) or not isinstance(digest, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", digest) \
                or ("size" in spec and (not isinstance(size, int) or isinstance(size, bool))):
            problems.append(("manifest-entry", f"entry {index} lacks a path ({spec['path']}), a sha256 ({spec['sha256']})"
                             + (f" or an integer size ({spec['size']})" if "size" in spec else ""), pointer))
        elif reason := unsafe_reason(rel):
            problems.append(("unsafe-path", f"manifest lists {rel!r}: {reason}; it is not read", pointer))
        elif rel in entries and entries[rel][0] != digest.lower():
            problems.append(("duplicate-entry", f"{rel} is listed twice with different digests", pointer))
        else:
            entries[rel] = (digest.lower(), size, pointer)
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


def _externals(tree: Tree, spec: dict[str, Any], manifest: str | None) -> Iterator[Finding]:
    """Report every declared external artifact (UNVERIFIED `external-not-supplied`); its list is in the item's `file`, else the manifest."""
    for item in spec.get("external", []):
        name = item.get("file", manifest)
        if name is None:
            yield _f("profile.integrity", Status.UNVERIFIED, "external-not-supplied", f"external artifacts ({item['reason']}) are declared but not supplied", pointer=item["pointer"])
            continue
        try:
            listed = resolve(tree.json(name), item["pointer"])
        except (KeyError, OSError, JSONProblem):
            yield _f("profile.integrity", Status.FAIL, "external-list-missing", f"{name} has no external list at {item['pointer']}", path=name, pointer=item["pointer"])
            continue
        for index, entry in enumerate(listed if isinstance(listed, list) else []):
            yield _f("profile.integrity", Status.UNVERIFIED, "external-not-supplied",
                     f"external artifact {entry} ({item['reason']}) is not supplied and {name} records no digest for it",
                     path=name, pointer=f"{item['pointer']}/{index}", observed=entry)
