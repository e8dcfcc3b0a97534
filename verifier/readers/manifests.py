"""
Manifest kinds: where a bundle lists its files with their digests, read into one `Listing`.

One reader per way of listing files, all onto the same shape, so the one
integrity check (`verifier.checks.integrity`) compares any of them with the
files on disk:

- `entries`: a JSON list at `pointer` of entries naming a path (`path`
  member), a sha256 (`sha256` member, 64 hex digits in either case,
  optionally `sha256:`-prefixed) and, when the spec names a `size` member,
  an integer size in bytes. Our own `manifest.json` (bundle format v1) is
  this kind: `V1_MANIFEST`;
- `files-map`: a JSON object at `pointer` of path -> {sha256 member, size member};
- `sha256sums`: the text `sha256sum` writes (`<64 hex>  <path>` or
  `<64 hex> *<path>`, one a line; a line starting with a backslash has its
  name escaped as GNU coreutils writes it: `\\\\`, `\\n`, `\\r`), with an
  optional `strip_prefix`.

The spec is the `manifest` section of a profile
(`schemas/profile.schema.json`). Paths are compared after NFC normalisation;
an unsafe path (`verifier.formats.bundle.unsafe_reason`) or the manifest listing
itself is a problem, never an entry. A path listed twice is a
`duplicate-entry` problem when the digests differ, and always when the spec
says `"duplicates": "fail"` (bundle format v1). Pure: reads nothing; the
caller passes the parsed document or the raw bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from verifier.formats.bundle import nfc, unsafe_reason
from verifier.readers.pointers import resolve

__all__ = ["V1_MANIFEST", "Entry", "Listing", "normal_digest", "read_listing"]

#: Bundle format v1's `manifest.json` said in the language of manifest kinds (docs/bundle-format.md).
V1_MANIFEST: dict[str, Any] = {"kind": "entries", "file": "manifest.json", "pointer": "/files", "path": "path",
                               "sha256": "sha256", "size": "size", "missing": "fail", "unlisted": "fail",
                               "duplicates": "fail"}

_SHA256SUMS_LINE = re.compile(r"^(\\?)([0-9a-fA-F]{64}) [ *](.+)$")
#: The escapes GNU `sha256sum` writes in a name when its line starts with a backslash (coreutils 9: `\\`, `\n`, `\r`).
_SHA256SUMS_ESCAPE = re.compile(r"\\(.?)")
_UNESCAPED = {"\\": "\\", "n": "\n", "r": "\r"}


def normal_digest(text: Any) -> str | None:
    """
    Return the sha256 hex digest `text` states, in lowercase, or None when it states none.

    Accepts 64 hex digits in either case, optionally prefixed `sha256:` (the
    `{path, digest: "sha256:..."}` entry shape): an uppercase digest names the
    same bytes as its lowercase form in every manifest kind.
    """
    if not isinstance(text, str):
        return None
    hexdigits = text[7:] if text[:7].lower() == "sha256:" else text
    return hexdigits.lower() if re.fullmatch(r"[0-9a-fA-F]{64}", hexdigits) else None


class Entry(NamedTuple):
    """One listed file: `path` as written, `sha256` (lowercase hex), `size` in bytes (None when the kind states none), `pointer` of the entry."""

    path: str
    sha256: str
    size: int | None
    pointer: str


@dataclass
class Listing:
    """
    Represents what one manifest lists: `entries` by NFC name, and `problems` `(code, message, pointer, observed)` it has.

    `stated` holds the `(pointer)` places of every digest, size and path the
    manifest states that the integrity check compares (for the profile
    coverage check's account of what was examined). `roles` maps the NFC
    name of an `entries` entry to the role its `role` member states (e.g.
    `rejected-attempt`), when the kind names such a member.
    """

    file: str
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[tuple[str, str, str | None, Any]] = field(default_factory=list)
    stated: list[str] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)

    def add(self, spec: dict[str, Any], written: str, digest: str, size: int | None, pointer: str, path_pointer: str) -> None:
        """Add one entry, or the problem it is (unsafe path, the manifest itself, a repeat; see the module docstring)."""
        reason = unsafe_reason(written)
        name = nfc(written) if reason is None else written
        if reason:
            self.problems.append(("unsafe-path", f"{self.file} lists {written!r}: {reason}; it is not read", path_pointer, written))
        elif name == self.file:
            self.problems.append(("unsafe-path", f"{self.file} lists itself", path_pointer, written))
        elif name in self.entries and (spec.get("duplicates") == "fail" or self.entries[name].sha256 != digest):
            self.problems.append(("duplicate-entry", f"{self.file} lists {written!r} twice ({self.entries[name].pointer} and "
                                  f"{pointer}, compared after NFC)", pointer, written))
        elif name not in self.entries:
            self.entries[name] = Entry(written, digest, size, pointer)


def read_listing(spec: dict[str, Any], content: Any) -> Listing:
    """
    Return the `Listing` of manifest kind `spec["kind"]` read from `content`.

    `content` is the parsed JSON document for `entries` and `files-map`, the
    raw bytes for `sha256sums`. Raises `UnicodeDecodeError` for a
    `sha256sums` file that is not UTF-8; every other defect is a problem of
    the listing (`manifest-unreadable` when the list itself is absent or of
    the wrong type, `manifest-entry` for an entry lacking a path, digest or
    size), never an exception.
    """
    listing = Listing(file=spec["file"])
    kind = spec["kind"]
    if kind == "sha256sums":
        _sha256sums(listing, spec, content)
        return listing
    try:
        table = resolve(content, spec["pointer"])
    except KeyError:
        listing.problems.append(("manifest-unreadable", f"no {'files map' if kind == 'files-map' else 'list of entries'} at {spec['pointer']!r}", spec["pointer"], None))
        return listing
    if kind == "files-map":
        if not isinstance(table, dict):
            listing.problems.append(("manifest-unreadable", f"{spec['pointer']!r} is not an object of path -> entry", spec["pointer"], None))
            return listing
        rows = [(f"{spec['pointer']}/{rel.replace('~', '~0').replace('/', '~1')}", rel, entry) for rel, entry in table.items()]
    else:
        if not isinstance(table, list):
            listing.problems.append(("manifest-unreadable", f"{spec['pointer']!r} is not a list of entries", spec["pointer"], None))
            return listing
        rows = [(f"{spec['pointer']}/{index}", entry.get(spec["path"]) if isinstance(entry, dict) else None, entry)
                for index, entry in enumerate(table)]
    sized = "size" in spec
    for pointer, rel, entry in rows:
        path_pointer = pointer + (f"/{spec['path']}" if kind == "entries" else "")
        if isinstance(rel, str) and unsafe_reason(rel):
            listing.add(spec, rel, "", None, pointer, path_pointer)  # an unsafe path is a problem, whatever else the entry says
            continue
        digest = normal_digest(entry.get(spec["sha256"])) if isinstance(entry, dict) else None
        size = entry.get(spec["size"]) if isinstance(entry, dict) and sized else None
        if not isinstance(rel, str) or digest is None or (sized and (not isinstance(size, int) or isinstance(size, bool))):
            label = repr(rel) if kind == "files-map" else pointer.rsplit("/", 1)[-1]
            what = (f"a path ({spec['path']}), " if kind == "entries" else "") + f"a sha256 ({spec['sha256']})"
            listing.problems.append(("manifest-entry", f"entry {label} lacks {what}"
                                     + (f" or an integer size ({spec['size']})" if sized else ""), pointer, None))
            continue
        listing.add(spec, rel, digest, size, pointer, path_pointer)
        if kind == "entries" and "role" in spec and isinstance(entry.get(spec["role"]), str) and nfc(rel) in listing.entries:
            listing.roles[nfc(rel)] = entry[spec["role"]]
        if kind == "entries":
            listing.stated.extend(f"{pointer}/{spec[member]}" for member in ("sha256", "size", "path") if member in spec)
    return listing


def _sha256sums(listing: Listing, spec: dict[str, Any], raw: bytes) -> None:
    prefix = spec.get("strip_prefix", "")
    for number, line in enumerate(raw.decode("utf-8").split("\n"), start=1):  # not splitlines(): U+2028 and the like may be in a name
        line = line.removesuffix("\r")  # a CRLF file; a CR inside a name is written escaped
        if not line.strip():
            continue
        pointer = f"#line={number}"
        m = _SHA256SUMS_LINE.match(line)
        if not m:
            listing.problems.append(("manifest-entry", f"line {number} is not `<sha256>  <path>`", pointer, line))
            continue
        name = m.group(3)
        if m.group(1):  # GNU sha256sum escapes a name holding a backslash, newline or carriage return
            bad = [e for e in _SHA256SUMS_ESCAPE.findall(name) if e not in _UNESCAPED]
            if bad:
                listing.problems.append(("manifest-entry", f"line {number} escapes its name with \\{bad[0]}, which sha256sum never writes "
                                         "(only \\\\, \\n and \\r)", pointer, line))
                continue
            name = _SHA256SUMS_ESCAPE.sub(lambda e: _UNESCAPED[e.group(1)], name)
        listing.add(spec, name.removeprefix(prefix), m.group(2).lower(), None, pointer, pointer)
