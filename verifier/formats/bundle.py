"""
A bundle on disk: root-confined path handling, the file walk, and document access.

Nothing here writes: files are opened read-only with `O_NOFOLLOW`, and a path
that is absolute, contains `..`, or goes through a symlink is never opened.
Documents are parsed only after the integrity check has matched their bytes
against the manifest ("hash before you parse").
"""

from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

from verifier.errors import Unverifiable
from verifier.formats.jsonio import JSONProblem, file_chunks, iter_strict_batches, loads_strict

__all__ = ["DOCUMENTS", "Bundle", "DiskEntry", "Lines", "hash_bytes_of", "hash_file", "open_regular", "nfc", "unsafe_name", "unsafe_reason", "walk", "walk_safely"]

#: Bundle format v1 documents: kind -> (file name, schema name, JSON Lines?, required?).
DOCUMENTS: dict[str, tuple[str, str, bool, bool]] = {
    "manifest": ("manifest.json", "manifest", False, True),
    "plan": ("plan.json", "plan", False, True),
    # the planned requests of a plan too large to list them itself (plan.json `"requests": {"file": "plan-requests.jsonl"}`),
    # read before the receipts, whose request ids are then held as the plan's (`verifier.readers.native.ReceiptLines`)
    "plan_requests": ("plan-requests.jsonl", "plan-request", True, False),
    "receipts": ("receipts.jsonl", "receipt", True, True),
    "claims": ("claims.json", "claims", False, True),
    "quality": ("quality-index.json", "quality-index", False, False),
}



def nfc(path: str) -> str:
    """Return `path` in Unicode Normalization Form C (how names are compared, H-09)."""
    return unicodedata.normalize("NFC", path)


def unsafe_reason(path: str) -> str | None:
    """
    Return why a manifest path is unsafe, or None if it is a plain relative POSIX path.

    Refused: empty, absolute (`/x`, `C:x`), backslashes, `.` or `..` or empty
    components, NUL bytes.
    """
    if not path:
        return "empty path"
    if "\x00" in path:
        return "NUL byte in path"
    if "\\" in path:
        return "backslash in path (paths are POSIX, '/'-separated)"
    name_problem = unsafe_name(path)
    if name_problem:
        return name_problem
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return "absolute path"
    parts = path.split("/")
    if ".." in parts:
        return "'..' component leaves the bundle"
    if "" in parts or "." in parts:
        return "empty or '.' component"
    return None


def open_regular(path: Path) -> int:
    """
    Return a read-only file descriptor for the regular file at `path`, never following a symlink.

    Opens with `O_NONBLOCK` so a FIFO or device cannot block the open, checks
    with `fstat` that it is a regular file, then clears `O_NONBLOCK`. Raises
    `OSError` (a symlink: `ELOOP`; anything not a regular file: "not a
    regular file").
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def hash_file(path: Path) -> tuple[int, str]:
    """
    Return `(size_bytes, sha256_hex)` of the regular file at `path`, streaming.

    Opens with `O_NOFOLLOW` so a symlink swapped in after the walk is refused.
    Raises `OSError` when the file cannot be opened or read.
    """
    with os.fdopen(open_regular(path), "rb", buffering=0) as handle:
        digest = hashlib.file_digest(handle, "sha256")
        return handle.tell(), digest.hexdigest()


def hash_bytes_of(path: Path, limit: int) -> tuple[int, str, bytes]:
    """
    Return `(size, sha256_hex, data)` of the regular file at `path`, read once into memory.

    For documents that are parsed after hashing: the same bytes are hashed and
    parsed. Raises `OSError` if the file cannot be read or exceeds `limit` bytes.
    """
    with os.fdopen(open_regular(path), "rb", buffering=0) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"larger than {limit} bytes, the limit for a document")
    return len(data), hashlib.sha256(data).hexdigest(), data


#: Unicode bidirectional embedding, override and isolate controls: they make a name display as another.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def unsafe_name(name: str) -> str | None:
    """Return why a file name cannot be reported safely (control or bidi characters, undecodable bytes), or None."""
    if name.isascii() and name.isprintable():  # the common case: no control (C0, DEL), and nothing outside ASCII (C1, bidi, surrogates)
        return None
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or c in "\u2028\u2029" for c in name):  # C0, DEL, C1, line/paragraph separators
        return "control character in the name"
    if any(c in BIDI_CONTROLS for c in name):
        return "Unicode bidirectional control character in the name (it can make the name display as another)"
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in name):
        return "the name is not valid UTF-8"
    return None


@dataclass(frozen=True, slots=True)
class DiskEntry:
    """Represents one non-directory entry under the bundle root: `rel` (as on disk, POSIX), its kind, size."""

    rel: str
    kind: str  # "file", "symlink", "other"
    size: int
    link_target: str | None = None


def walk(root: Path) -> list[DiskEntry]:
    """
    Return every non-directory entry under `root`, not following symlinks.

    Symlinked directories are reported as symlinks and not descended into.
    Raises `OSError` if `root` cannot be listed.
    """
    entries, unreadable = walk_safely(root)
    if unreadable:
        rel, reason = unreadable[0]
        raise OSError(f"{root / rel}: cannot list: {reason}")
    return entries


def walk_safely(root: Path) -> tuple[list[DiskEntry], list[tuple[str, str]]]:
    """
    Return `(entries, unreadable)` like `walk`, but collect directories that cannot be listed.

    `unreadable` holds `(relative directory, reason)` pairs instead of raising.
    """
    out: list[DiskEntry] = []
    unreadable: list[tuple[str, str]] = []
    stack = [root]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError as exc:
            unreadable.append((Path(current).relative_to(root).as_posix() or ".", exc.strerror or str(exc)))
            continue
        for entry in entries:
            rel = Path(entry.path).relative_to(root).as_posix()
            if entry.is_symlink():
                out.append(DiskEntry(rel, "symlink", 0, os.readlink(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                out.append(DiskEntry(rel, "file", entry.stat(follow_symlinks=False).st_size))
            else:
                out.append(DiskEntry(rel, "other", 0))
    return sorted(out, key=lambda e: e.rel), unreadable


@dataclass
class Bundle:
    """
    Represents a bundle directory being verified.

    `verified` maps the NFC name of each file whose size and sha256 matched the
    manifest to its on-disk relative name; the integrity check fills it.
    `problems` maps a document kind to the reason it cannot be used (set by
    the schema check). `document(kind)` parses a document on first use.
    `kinds` maps each document kind to (file name, schema name, JSON Lines?,
    required?): `DOCUMENTS` for bundle format v1; a mapped reader
    (`verifier.readers.mapped`) names its own files.
    """

    root: Path
    verified: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # NFC name -> sha256 matched by the integrity check
    contents: dict[str, bytes] = field(default_factory=dict)  # document bytes, read once and hashed by the integrity check
    touched: set[str] = field(default_factory=set)  # files later checks opened from disk (re-hashed at the end)
    kinds: dict[str, tuple[str, str, bool, bool]] = field(default_factory=lambda: dict(DOCUMENTS))  # where each document kind is
    parsed_sha256: dict[str, str] = field(default_factory=dict)  # kind -> sha256 of the bytes `raw_document` parsed
    #: kind -> what a reader built from a JSON Lines document's lines as `schema.documents` validated them, so a valid file
    #: is parsed once (`verifier.readers.native.LINE_READERS`); absent when any line was bad or the file changed.
    modelled: dict[str, Any] = field(default_factory=dict)
    _cache: dict[str, Any] = field(default_factory=dict)

    def path_of(self, name: str) -> Path | None:
        """
        Return the on-disk path of verified file `name` for a check to read, or None if it did not verify.

        The file is recorded in `touched`, so `integrity.unchanged` re-hashes it
        after the checks and FAILs if its bytes changed during verification.
        """
        disk = self.verified.get(name)
        if disk is None:
            return None
        self.touched.add(name)
        return self.root / disk

    def raw_document(self, kind: str, vouch: Callable[[bytes], Any] | None = None) -> Any:
        """
        Return the parsed document of `kind` (see `DOCUMENTS`), strict JSON; for a JSON Lines kind, the list of its lines' documents.

        `vouch`, when given for a JSON kind, is first offered the bytes: what it
        returns when not None (a reader's model of a document it vouches is valid,
        `verifier.checks.schema`) is returned instead of the parse, and not kept.

        Raises `Unverifiable` (code `blocked-by-integrity`) when its bytes were
        not matched against the manifest, and `JSONProblem` when it is not
        strict JSON (for JSON Lines, the first bad line's, `line` set).
        `manifest.json` itself is the root of trust and is read without a
        prior match. A JSON Lines document is not kept: checks read it as a
        stream (`records`); this list is for callers that need it whole.
        """
        if kind in self._cache:
            return self._cache[kind]
        name, _schema, lines, _required = self.kinds[kind]
        if lines:
            out = []
            for _number, document in self.records(kind):
                if type(document) is JSONProblem:
                    raise document
                out.append(document)
            return out
        if kind != "manifest" and name not in self.verified:
            raise Unverifiable(
                f"{name} did not pass the integrity check, so it is not parsed",
                code="blocked-by-integrity",
                path=name,
            )
        if name in self.contents:
            data = self.contents.pop(name)  # the very bytes whose sha256 matched: no second read to race with; parsed once, not kept
        else:
            with os.fdopen(open_regular(self.root / name), "rb") as handle:
                data = handle.read()
            if kind != "manifest" and name in self.digests and hashlib.sha256(data).hexdigest() != self.digests[name]:
                raise Unverifiable(f"{name} changed after integrity.files matched its sha256, so it is not parsed",
                                   code="changed-during-verification", path=name)
        value = vouch(data) if vouch is not None else None
        if value is None:
            value = loads_strict(data)
            self._cache[kind] = value
        self.parsed_sha256[kind] = hashlib.sha256(data).hexdigest() + ":json"
        return value

    def records(self, kind: str) -> Iterator[tuple[int, Any]]:
        """Yield `(line number, document or JSONProblem)` for each line of the JSON Lines document of `kind`: the lines of `record_batches`."""
        return chain.from_iterable(self.record_batches(kind))

    def record_batches(self, kind: str, vouch: Callable[[int, list[str]], bool] | None = None) -> Iterator[list[tuple[int, Any]] | range]:
        """
        Yield lists of `(line number, document or JSONProblem)`, consecutive lines of the JSON Lines document of `kind`, read from its file as a stream.

        With `vouch`, a batch it takes care of is yielded as the `range` of its
        line numbers, unparsed (`verifier.formats.jsonio.iter_strict_batches`).

        Nothing is kept: each call reads the file again, in chunks
        (`verifier.formats.jsonio.iter_strict_batches`: a bad line yields its problem
        and reading goes on; a line longer than `LINE_LIMIT` is a problem, its
        bytes dropped), so memory does not grow with the file. The bytes read
        are hashed on the way; after the last line, raises `Unverifiable`
        (`changed-during-verification`) when they are not the bytes
        `integrity.files` matched. Also raises `Unverifiable`
        (`blocked-by-integrity`) for a file that did not match,
        `JSONProblem` (`line` None) for a byte order mark or bytes that are
        not UTF-8, and `OSError` for a file that cannot be read.
        """
        name = self.kinds[kind][0]
        if name not in self.verified:
            raise Unverifiable(f"{name} did not pass the integrity check, so it is not parsed",
                               code="blocked-by-integrity", path=name)
        if name in self.digests:
            self.parsed_sha256[kind] = self.digests[name] + ":lines"
        digest = hashlib.sha256()
        with os.fdopen(open_regular(self.root / self.verified[name]), "rb") as handle:
            def read() -> Iterator[bytes]:
                for chunk in file_chunks(handle):
                    digest.update(chunk)
                    yield chunk
            yield from iter_strict_batches(read(), vouch=vouch)
        if name in self.digests and digest.hexdigest() != self.digests[name]:
            raise Unverifiable(f"{name} changed after integrity.files matched its sha256, so it is not parsed",
                               code="changed-during-verification", path=name)

    def release(self, kind: str) -> None:
        """
        Drop the parsed document of `kind` (once the evidence model holds what the checks read from it), to free its memory.

        A later `raw_document(kind)` reads the file again and parses it only if
        its sha256 is still the one `integrity.files` matched (else
        `Unverifiable`, code `changed-during-verification`).
        """
        self._cache.pop(kind, None)

    def document(self, kind: str) -> Any:
        """
        Return the document of `kind` only if it passed integrity and its schema.

        Raises `Unverifiable` naming the blocking reason otherwise: `not-in-evidence`
        for a document absent from the bundle, `blocked-by-integrity`,
        `blocked-by-schema`.
        """
        name = self.kinds[kind][0]
        if kind != "manifest" and name not in self.verified and not os.path.lexists(self.root / name):
            raise Unverifiable(f"{name} is absent: the evidence holds no {kind} document, so nothing that needs it is checked",
                               code="not-in-evidence", path=name)
        if kind != "manifest" and name not in self.verified:
            raise Unverifiable(f"{name} did not pass the integrity check, so it is not parsed",
                               code="blocked-by-integrity", path=name)
        if kind in self.problems:
            problem = self.problems[kind]
            raise Unverifiable(problem if problem.startswith(name) else f"{name}: {problem}", code="blocked-by-schema", path=name)
        if self.kinds[kind][2]:
            return Lines(self, kind)
        try:
            return self.raw_document(kind)
        except JSONProblem as exc:
            raise Unverifiable(f"{name}: {exc}", code="blocked-by-schema", path=name) from None

    def has(self, kind: str) -> bool:
        """Return whether the document of `kind` exists as a regular file, not a symlink (no trust implied)."""
        if kind not in self.kinds:
            return False
        path = self.root / self.kinds[kind][0]
        return path.is_file() and not path.is_symlink()


class Lines:
    """
    The documents of one JSON Lines document of a bundle (`Bundle.document`), read from its file each time it is iterated, never held.

    Iterating yields each line's document in order; raises `Unverifiable`
    (`blocked-by-schema`) at a line that is not strict JSON (the schema
    check found it first, so a reader meets it only if the file changed) and
    as `Bundle.records` does.
    """

    def __init__(self, bundle: Bundle, kind: str) -> None:
        self.bundle, self.kind = bundle, kind

    def __iter__(self) -> Iterator[Any]:
        name = self.bundle.kinds[self.kind][0]
        for _number, document in self.bundle.records(self.kind):
            if type(document) is JSONProblem:
                raise Unverifiable(f"{name}: {document}", code="blocked-by-schema", path=name)
            yield document
