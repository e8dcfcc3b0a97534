"""
The manifest writer: `verify manifest BUNDLE [--write]`.

Builds a bundle's `manifest.json` from the files on disk with the same walk,
path rules and hashing the integrity check uses (`verifier.formats.bundle.walk`,
`verifier.formats.bundle.unsafe_reason`, `verifier.checks.integrity.hash_many`), so a
manifest this writes is one the integrity check accepts. External artifacts
are kept exactly as declared; the gate and any other top-level keys of an
existing manifest are kept. Symlinks, special files, unsafe names and
Unicode/case name collisions are refused, never recorded. This is the only
code in the verifier that writes, and it writes only `manifest.json`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from verifier.formats.bundle import DOCUMENTS, nfc, unsafe_reason, walk
from verifier.checks.integrity import hash_many
from verifier.errors import UsageError
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.engine.progress import Progress
from verifier.trust.assets import assets, schema_validator

__all__ = ["build_manifest", "diff_manifests", "dumps_manifest", "read_manifest", "write_manifest"]

MANIFEST = DOCUMENTS["manifest"][0]
GATE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # as in schemas/manifest.schema.json
_KEY_ORDER = ("format", "format_version", "gate", "description", "created_at", "files", "external")


def read_manifest(root: Path) -> dict[str, Any] | None:
    """
    Return the bundle's current manifest, or None when there is none.

    Raises `UsageError` when `manifest.json` is a symlink or not a regular
    file, is not strict JSON, or does not validate against the manifest
    schema (an invalid manifest's externals cannot be trusted to be kept).
    Side effects: reads `manifest.json`.
    """
    path = root / MANIFEST
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        raise UsageError(f"{path}: not a regular file (symlinks are refused); remove it first")
    try:
        document = loads_strict(path.read_bytes())
    except JSONProblem as exc:
        raise UsageError(f"{path}: {exc}; fix or remove it before writing a new one") from None
    validator = schema_validator(assets().schema("manifest"))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        raise UsageError(f"{path}: invalid manifest: {errors[0].message}; fix or remove it first")
    return document  # type: ignore[no-any-return]


def build_manifest(root: Path, *, gate: str | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """
    Return the manifest the files under `root` call for.

    `gate` is required when there is no manifest yet and, when given, replaces
    the current one. Raises `UsageError` naming every refused entry (symlink,
    special file, unsafe name, name collision, a file also declared external)
    or a file that cannot be read. Side effects: reads and hashes every file.
    """
    if root.is_symlink() or not root.is_dir():
        raise UsageError(f"{root}: not a bundle directory (symlinks are refused)")
    current = read_manifest(root)
    chosen_gate = gate or (current or {}).get("gate")
    if not chosen_gate:
        raise UsageError(f"{root}: no {MANIFEST} yet; pass --gate GATE_ID to name the gate it is judged by")
    if gate is not None and not GATE_ID.fullmatch(gate):
        raise UsageError(f"--gate {gate!r}: not a gate id (letters, digits, '.', '_', '-'; no '/')")
    problems: list[str] = []
    regular: list[str] = []
    seen: dict[str, str] = {}
    for entry in walk(root):
        if entry.rel == MANIFEST:
            continue
        if entry.kind == "symlink":
            problems.append(f"{entry.rel} is a symlink (to {entry.link_target!r})")
            continue
        if entry.kind != "file":
            problems.append(f"{entry.rel} is not a regular file")
            continue
        reason = unsafe_reason(entry.rel)
        if reason:
            problems.append(f"{entry.rel!r}: {reason}")
            continue
        folded = nfc(entry.rel).casefold()
        if folded in seen:
            problems.append(f"{seen[folded]!r} and {entry.rel!r} collide after NFC normalisation or case folding")
            continue
        seen[folded] = entry.rel
        regular.append(entry.rel)
    external = list((current or {}).get("external", []))
    declared = {nfc(e["path"]).casefold(): e["path"] for e in external}
    for rel in regular:
        if nfc(rel).casefold() in declared:
            problems.append(f"{rel} is on disk but declared external; remove the file or the external entry")
    if problems:
        raise UsageError(f"{root}: refusing to write a manifest: " + "; ".join(problems))
    hashed = hash_many([root / rel for rel in regular], progress=progress)
    roles = {e["path"]: e["role"] for e in (current or {}).get("files", []) if isinstance(e, dict) and "role" in e}
    files = []
    for rel in regular:
        result = hashed[root / rel]
        if isinstance(result, OSError):
            raise UsageError(f"{root / rel}: cannot read: {result.strerror or result}")
        size, digest = result
        files.append({"path": rel, "sha256": digest, "size": size, **({"role": roles[rel]} if rel in roles else {})})
    manifest: dict[str, Any] = dict(current or {"format": "verify-bundle", "format_version": 1})
    manifest.update(gate=chosen_gate, files=sorted(files, key=lambda f: f["path"]), external=external)
    return manifest


def dumps_manifest(manifest: dict[str, Any]) -> str:
    """Return the canonical text of a manifest: known keys in a fixed order, two-space indent, final newline."""
    ordered = {k: manifest[k] for k in _KEY_ORDER if k in manifest}
    ordered.update({k: v for k, v in sorted(manifest.items()) if k not in ordered})
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def diff_manifests(current: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """
    Return one line per difference between `current` and `new` (empty when equal).

    Lines: `+ path (size bytes, sha256 abc…)` added, `- path` removed,
    `~ path: ...` changed, `~ gate: a -> b`, `+ manifest.json (new)`.
    """
    if current is None:
        return [f"+ {MANIFEST} (new, {len(new['files'])} file(s), gate {new['gate']})"] + [
            f"+ {f['path']} ({f['size']} bytes, sha256 {f['sha256'][:12]}...)" for f in new["files"]
        ]
    lines = []
    if current.get("gate") != new.get("gate"):
        lines.append(f"~ gate: {current.get('gate')} -> {new.get('gate')}")
    old = {f["path"]: f for f in current.get("files", [])}
    fresh = {f["path"]: f for f in new["files"]}
    for path in sorted(set(old) | set(fresh)):
        a, b = old.get(path), fresh.get(path)
        if a is None and b is not None:
            lines.append(f"+ {path} ({b['size']} bytes, sha256 {b['sha256'][:12]}...)")
        elif b is None and a is not None:
            lines.append(f"- {path} (listed, not on disk)")
        elif a is not None and b is not None and (a["sha256"].lower(), a["size"]) != (b["sha256"].lower(), b["size"]):
            lines.append(f"~ {path}: {a['size']} -> {b['size']} bytes, sha256 {a['sha256'][:12]}... -> {b['sha256'][:12]}...")
    if not lines and dumps_manifest(current) != dumps_manifest(new):
        lines.append(f"~ {MANIFEST}: same entries, different layout or order")
    return lines


def write_manifest(root: Path, *, gate: str | None = None, progress: Progress | None = None) -> list[str]:
    """
    Create or update `root/manifest.json` from the files on disk; return the differences written.

    Raises `UsageError` as `build_manifest` does. Side effects: replaces
    `manifest.json` atomically (temporary file in the bundle, then rename)
    when it differs; writes nothing else.
    """
    current = read_manifest(root)
    new = build_manifest(root, gate=gate, progress=progress)
    changes = diff_manifests(current, new)
    if changes:
        fd, tmp = tempfile.mkstemp(prefix=".manifest.", suffix=".tmp", dir=root)
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; a manifest is as readable as any new file
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(dumps_manifest(new))
            os.replace(tmp, root / MANIFEST)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return changes
