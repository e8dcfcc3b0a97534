"""The directory a reader reads: root-confined, read-only, never following symlinks (`Tree`)."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.formats.bundle import unsafe_reason
from verifier.formats.jsonio import JSONProblem, loads_strict, loads_strict_lines, quote_non_finite
from verifier.formats.linear_regex import compile_linear

__all__ = ["Tree", "glob_regex"]


#: How `Tree.read_bytes` opens a file: read-only, never through a symlink.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
#: The most bytes a Markdown or HTML document read by `Tree.json` may hold, and a claim text (`verifier.readers.claimtext.MAX_TEXT_BYTES`).
MAX_PAGE_BYTES = 4 * 2**20
#: The most bytes a JSON or CSV document read by `Tree.json` may hold (claim documents, manifests; receipts are read elsewhere).
MAX_DOCUMENT_BYTES = 64 * 2**20


@dataclass
class Tree:
    """
    Represents the directory a profile reads: root-confined, read-only, never following symlinks.

    `only`, when set, restricts the tree to those bundle-relative files (a
    single receipt file given on the command line). `blocked` maps a file to
    the reason it must not be parsed (set by the integrity check when its
    bytes do not match the manifest). `non_finite` (a profile's `"non_finite":
    "text"`) reads a bare `NaN`/`Infinity` in its JSON and JSON Lines files as
    text (`verifier.formats.jsonio.quote_non_finite`), never a number.
    """

    root: Path
    only: frozenset[str] | None = None
    blocked: dict[str, str] = field(default_factory=dict)
    non_finite: bool = False
    _cache: dict[str, Any] = field(default_factory=dict)

    def files(self) -> list[str]:
        """Return every regular, non-symlink file under the root (bundle-relative POSIX), sorted."""
        if self.only is not None:
            return sorted(self.only)
        if "files" in self._cache:
            return list(self._cache["files"])
        out: list[str] = []
        links: list[str] = []
        pending = [(str(self.root), "")]
        while pending:  # scandir's d_type answers "regular file, not a symlink" without a stat per entry
            directory, prefix = pending.pop()
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append((entry.path, prefix + entry.name + "/"))
                        elif entry.is_file(follow_symlinks=False):
                            out.append(prefix + entry.name)
                        elif entry.is_symlink():
                            links.append(prefix + entry.name)
            except OSError:
                continue  # an unreadable directory holds no file we can read (as os.walk skips it)
        self._cache["files"] = sorted(out)
        self._cache["links"] = sorted(links)
        return list(self._cache["files"])

    def links(self, pattern: str) -> list[str]:
        """Return the symbolic links under the root (never followed, so never files of the tree) whose path matches `pattern`, sorted."""
        if self.only is not None:
            return []
        if "links" not in self._cache:
            self.files()  # fills both lists in one walk
        links = self._cache["links"]
        if not links:
            return []
        regex = glob_regex(pattern)
        return [link for link in links if regex.fullmatch(link)]

    def glob(self, pattern: str) -> list[str]:
        """Return the files matching `pattern` (`*` within one path component, `**` across them), sorted."""
        key = "glob:" + pattern
        if self.only is not None or key not in self._cache:  # a tree's files do not change during a run: each pattern is matched once
            head, tail, regex = _glob_parts(pattern)
            if regex is None:  # no wildcard: the pattern names one file
                found = [pattern] if pattern in self._file_set() else []
            else:  # only a file with the pattern's literal start and end can match: the regex runs on those alone
                found = [f for f in self.files() if f.endswith(tail) and f.startswith(head) and regex.fullmatch(f)]
            if self.only is not None:
                return found
            self._cache[key] = found
        return list(self._cache[key])

    def exists(self, rel: str) -> bool:
        """Return whether `rel` is a regular file of the tree."""
        return unsafe_reason(rel) is None and rel in (self._cache.get("file-set") or self._file_set())

    def _file_set(self) -> frozenset[str]:
        """Return `files()` as a set (built once per tree)."""
        if "file-set" not in self._cache:
            self._cache["file-set"] = frozenset(self.files())
        return self._cache["file-set"]  # type: ignore[no-any-return]

    def read_bytes(self, rel: str) -> bytes:
        """
        Return the bytes of `rel`, opened with `O_NOFOLLOW`.

        Raises `OSError` when it is absent, unsafe, a symlink or unreadable.
        """
        if not self.exists(rel):  # `exists` refuses an unsafe name too
            raise FileNotFoundError(rel)
        cache = self._cache
        if "read" not in cache:
            cache["read"] = set()
            cache["root/"] = os.path.join(self.root, "")  # the root with one separator after it: `+ rel` joins as os.path.join
        cache["read"].add(rel)
        fd = os.open(cache["root/"] + rel, _READ_FLAGS)  # `rel` is safe (no "..", not absolute)
        try:  # plain reads (no buffered file object): most files come whole in the first
            size = os.fstat(fd).st_size
            first = os.read(fd, size + 1)
            if len(first) == size:  # all the bytes fstat counted, and none past them: end of file, no read to confirm it
                return first
            parts = [first]
            while parts[-1]:  # a short read, or a file longer than fstat said: read on to the end of the file
                parts.append(os.read(fd, 1 << 20))
        finally:
            os.close(fd)
        return b"".join(parts)

    def text_constants(self, data: bytes) -> bytes:
        """Return JSON bytes `data` as this tree reads them: with `non_finite` set, bare `NaN`/`Infinity` quoted (`quote_non_finite`), else unchanged."""
        return quote_non_finite(data) if self.non_finite else data

    def read(self) -> frozenset[str]:
        """Return the files whose bytes `read_bytes` (and so `json`) has read from this tree so far."""
        return frozenset(self._cache.get("read", ()))

    def json(self, rel: str) -> Any:
        """
        Return `rel` as a JSON-like document (cached): strict JSON, a `.jsonl`/`.ndjson` file as the array of its lines' documents, or for `.md`, `.html`/`.htm` and `.csv` files their table view.

        A Markdown file reads as `verifier.readers.markdown_doc.markdown_document` with its raw HTML blocks read in (`verifier.readers.html.with_html_blocks`; its
        tables by heading, its prose with the numbers and code spans each
        paragraph states), a reStructuredText file as `verifier.readers.rst_doc.rst_document` (the same shape, by docutils),
        an HTML page as `verifier.readers.html.html_document`
        (the same shape, plus its `title`); a CSV file as a list of row objects (header ->
        cell). So claim locations, backward reading and coverage use JSON
        Pointers alike for all three. Raises `OSError` or `JSONProblem`
        (a Markdown or CSV file that breaks its grammar raises it too, and
        code `too-large` a file over `MAX_PAGE_BYTES` (Markdown, HTML) or
        `MAX_DOCUMENT_BYTES` (JSON, CSV)).
        """
        key = ("json-nf:" if self.non_finite else "json:") + rel  # a tree reading NaN/Infinity as text may share this cache
        if key not in self._cache:
            data = self.read_bytes(rel)
            suffix = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
            limit = MAX_PAGE_BYTES if suffix in ("md", "html", "htm", "rst") else MAX_DOCUMENT_BYTES
            if len(data) > limit:  # refused before parsing: a page's parse takes about 250 times its size in memory
                raise JSONProblem("too-large", f"{len(data)} bytes, more than the {limit // 2**20} MiB a {'page' if limit == MAX_PAGE_BYTES else 'document'} read here may hold")
            if suffix in ("md", "csv", "html", "htm", "rst"):
                from verifier.readers.grammars import GrammarError, parse  # late: grammars is a leaf reader

                try:
                    if suffix in ("html", "htm"):
                        from verifier.readers.html import html_document  # late: only a profile naming a page needs the HTML reader

                        self._cache[key] = html_document(data)
                    elif suffix == "rst":
                        from verifier.readers.rst_doc import RstUnavailable, rst_document  # late: only a profile naming an .rst file needs docutils

                        try:
                            self._cache[key] = rst_document(data)
                        except RstUnavailable as exc:
                            raise JSONProblem("dependency-missing", str(exc)) from None
                    elif suffix == "md":
                        from verifier.readers.html import with_html_blocks  # late, as above
                        from verifier.readers.markdown_doc import markdown_document

                        self._cache[key] = with_html_blocks(markdown_document(data))
                    else:
                        self._cache[key] = [row for _, row in parse(data, {"encoding": "csv"})]
                except GrammarError as exc:
                    raise JSONProblem(exc.code, str(exc)) from None
            elif suffix in ("jsonl", "ndjson"):
                self._cache[key] = loads_strict_lines(self.text_constants(data))  # JSON Lines: the array of its lines' documents (`/0` is the first line)
            else:
                self._cache[key] = loads_strict(self.text_constants(data))
        return self._cache[key]



def _braces(pattern: str, i: int) -> int:
    """Return the width of the `{a,b}` alternation starting at `pattern[i]` (up to its `}`, no nested `{`), or 0 when none starts there."""
    if pattern[i] != "{":
        return 0
    end = pattern.find("}", i)
    return 0 if end < 0 or "{" in pattern[i + 1:end] else end - i + 1


@functools.lru_cache(maxsize=512)
def _glob_parts(pattern: str) -> tuple[str, str, Any]:
    """
    Return `(head, tail, regex)` of glob `pattern`: its literal text before the first and after the last wildcard (`*`, `?`, `**/`, `{a,b}`), and `glob_regex(pattern)`.

    A path `regex` fully matches starts with `head` and ends with `tail`.
    `regex` is None when the pattern has no wildcard (it then fully matches
    the pattern itself, and nothing else).
    """
    first = last = -1  # where the first wildcard starts and the last ends, scanned as `glob_regex` scans (`**/` and `{...}` are one)
    i = 0
    while i < len(pattern):
        width = 3 if pattern.startswith("**/", i) else 1 if pattern[i] in "*?" else _braces(pattern, i)
        if width:
            first = i if first < 0 else first
            last = i + width
        i += width or 1
    if first < 0:
        return pattern, pattern, None
    return pattern[:first], pattern[last:], glob_regex(pattern)


@functools.lru_cache(maxsize=512)
def glob_regex(pattern: str) -> Any:
    """
    Return the compiled regex of glob `pattern`, built once per pattern, matched by RE2 in time linear in the path (`verifier.formats.linear_regex`: a glob of many `*` cannot make a run take unbounded time).

    `*` and `?` match within one path component, `**/` across them (zero or
    more directories), and `{a,b}` any one of its comma-separated
    alternatives, each a glob itself without braces (`{,*/}*.json`: a JSON
    file in the folder or one directory below it, never deeper). A `{`
    without its `}` is a literal character.
    """
    out = []
    i = 0
    while i < len(pattern):
        width = _braces(pattern, i)
        if width:
            alternatives = pattern[i + 1:i + width - 1].split(",")
            out.append("(?:" + "|".join(glob_regex(a).pattern for a in alternatives) + ")")
            i += width
        elif pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return compile_linear("".join(out))
