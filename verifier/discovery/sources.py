"""
Discovery's reading of a directory: every file it can read, bounded, with a note for every file it skipped.

`read_sources(root)` walks `root` without following a symbolic link (a link
is never read: it may point out of the directory), reads each file with the
readers the profile language has (`verifier.readers.tree.Tree.json`: strict
JSON, CSV, Markdown and HTML into one JSON-like shape; `verifier.formats.jsonio.
loads_strict_lines` for JSON Lines; `verifier.readers.grammars.parse` with the
`TEXT_LINES` line grammars for text logs) and returns `Source`s and `Skip`
notes. Nothing is written into `root`.

Bounds (`BOUNDS`, stated in `docs/profiles.md`, "Discovery"): the first
`max_files` files (path order) are considered and at most `max_read` of
them read, `max_total` bytes in all and for `max_seconds` of reading (the
files not reached are one note saying which bound stopped it), a file
over `max_bytes` is skipped unread (its size comes from `stat`), a file
deeper than `max_depth` directories is skipped, a file whose first 8 KiB
hold a NUL byte is binary and skipped after reading those 8 KiB alone,
and a JSON document nested deeper than the strict loader's limit is
refused by it (a note). Measured by `benchmarks/bench_discovery.py`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.formats.jsonio import JSONProblem, loads_strict_lines
from verifier.readers.tree import Tree

__all__ = ["BOUNDS", "KINDS", "TEXT_LINES", "Skip", "Source", "look_alike", "read_sources"]

#: The line grammars of `verifier.readers.grammars` a text file is read with, tried in order on each line.
TEXT_LINES = ("key-value", "json-object", "python-dict", "assignments")

#: The search's reading bounds (see the module docstring).
BOUNDS = {"max_files": 100_000, "max_read": 50_000, "max_bytes": 8 * 2**20, "max_total": 256 * 2**20, "max_seconds": 30, "max_depth": 16}

#: File kind by suffix (a file without one is sniffed by its content: `_sniffed`, JSON or CSV): `document` files are read into the JSON-like shape of `Tree.json`, `lines` as JSON Lines,
#: `text` as `key: value` lines (LoadGen summaries, logs), `csv-log` as a CSV sample log whose rows are data like JSON Lines (JMeter's `.jtl`,
#: CSV by default; an XML one is skipped with a note).
KINDS = {"json": "document", "csv": "document", "tsv": "document", "md": "document", "markdown": "document", "html": "document",
         "htm": "document", "rst": "document", "jsonl": "lines", "ndjson": "lines", "txt": "text", "log": "text", "jtl": "csv-log"}


@dataclass(frozen=True)
class Source:
    """One file read: `rel` (root-relative POSIX), `kind` (`document`, `lines`, `text`, see `KINDS`), `doc` its JSON-like shape."""

    rel: str
    kind: str
    doc: Any


@dataclass(frozen=True)
class Skip:
    """
    One file (or group of `count` files) not read, with the `reason` shown in the report.

    `kind` names the reason in one word for the one-line summary of a directory where nothing
    could be bound (`discovery.report`): `binary`, `large`, `deep`, `link`, `unreadable`,
    `unparsable`, `other-kind` (a suffix not in `KINDS`) or `budget` (over `max_read`).
    """

    rel: str
    reason: str
    kind: str = ""
    count: int = 1


def _suffix(rel: str) -> str:
    """Return the lowercase suffix of `rel` without its dot ("" when it has none)."""
    name = rel.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _text_record(data: bytes) -> dict[str, Any] | None:
    """Return the lines of a text file that `TEXT_LINES` read as one object (the first value of each member), or None when none does."""
    from verifier.readers.grammars import GrammarError, parse

    try:
        pairs = parse(data, {"encoding": "text", "lines": list(TEXT_LINES)})
    except GrammarError:
        return None
    record: dict[str, Any] = {}
    for _, value in pairs:
        if isinstance(value, dict):
            for key, item in value.items():
                record.setdefault(key, item)
    return record or None


def read_sources(root: Path, bounds: dict[str, int] | None = None, progress: Any = None) -> tuple[list[Source], list[Skip], Tree]:
    """
    Return `(sources, skips, tree)` for the directory `root`, read within `bounds` (default `BOUNDS`).

    `sources` are in path order; `skips` name every file not read and why
    (binary, too large, too deep, unreadable, not parsable, a symbolic link,
    over the file budget); `tree` is the `Tree` the files were read through
    (root-confined, `O_NOFOLLOW`). `progress` (a `verifier.engine.progress.Progress`
    or None) shows the bytes read (a bar on a terminal). Never raises for a bad
    file; raises `OSError` only when `root` itself cannot be listed.
    """
    limits = {**BOUNDS, **(bounds or {})}
    tree = Tree(root=root)
    files = tree.files()
    skips = [Skip(link, "a symbolic link: never followed", "link") for link in tree.links("**")]
    wanted = [rel for rel in files if _suffix(rel) in KINDS or not _suffix(rel)]  # a file without a suffix is read by its content (`_sniffed`)
    if len(wanted) < len(files):
        others: dict[str, int] = {}
        for rel in files:
            if _suffix(rel) in KINDS or not _suffix(rel):
                continue
            name = "." + _suffix(rel) if _suffix(rel) else "no suffix"
            others[name] = others.get(name, 0) + 1
        listed = ", ".join(f"{name} {n}" for name, n in sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
        skips.append(Skip(".", f"{len(files) - len(wanted)} file(s) of kinds discovery does not read ({listed}{', ...' if len(others) > 8 else ''}): "
                               "not JSON, JSON Lines, CSV/TSV, Markdown, HTML or text", "other-kind", len(files) - len(wanted)))
    if len(files) > limits["max_files"]:
        skips.append(Skip(".", f"{len(files)} files, more than the {limits['max_files']} discovery lists; only the first "
                               f"{limits['max_files']} in path order are considered", "budget", len(files) - limits["max_files"]))
        keep = set(files[: limits["max_files"]])
        wanted = [rel for rel in wanted if rel in keep]
    if len(wanted) > limits["max_read"]:
        skips.append(Skip(".", f"{len(wanted)} readable files, more than the {limits['max_read']} discovery reads; the rest are skipped",
                          "budget", len(wanted) - limits["max_read"]))
        wanted = wanted[: limits["max_read"]]
    sources: list[Source] = []
    sizes = {}
    for rel in wanted:
        try:
            sizes[rel] = os.stat(os.path.join(root, rel), follow_symlinks=False).st_size
        except OSError:
            sizes[rel] = 0
    if progress is not None:
        progress.start(f"discovery: reading {len(wanted)} file(s)", sum(min(n, limits["max_bytes"]) for n in sizes.values()))
    total, deadline = 0, time.monotonic() + limits["max_seconds"]
    try:
        for n, rel in enumerate(wanted):
            if progress is not None:
                progress.advance(min(sizes[rel], limits["max_bytes"]))
            over = ("bytes" if total + min(sizes[rel], limits["max_bytes"]) > limits["max_total"]
                    else "seconds" if time.monotonic() > deadline else None)
            if over is not None:
                bound = f"{limits['max_total']} bytes read in all" if over == "bytes" else f"{limits['max_seconds']} s of reading"
                skips.append(Skip(".", f"{len(wanted) - n} readable file(s) from {rel} on not read: over the {bound} discovery allows", "budget", len(wanted) - n))
                break
            if sizes[rel] <= limits["max_bytes"]:
                total += sizes[rel]
            _read_one(tree, root, rel, limits, sources, skips)
    finally:
        if progress is not None:
            progress.finish()
    return sources, skips, tree


def _csv_log(data: bytes) -> list[dict[str, Any]] | None:
    """Return the rows of a CSV sample log (header -> cell) by `verifier.readers.grammars.parse`, or None for an XML one (its first byte `<`); raises `ValueError` when it is not CSV."""
    from verifier.readers.grammars import GrammarError, parse

    if data.lstrip()[:1] == b"<":
        return None
    try:
        return [row for _, row in parse(data, {"encoding": "csv"})]
    except GrammarError as exc:
        raise ValueError(str(exc)) from None


def _sniffed(data: bytes) -> str | None:
    """
    Return the kind of a file without a suffix by its content: `document` (its first non-blank byte opens a JSON object or array), `csv`
    (its first two lines hold the same number > 0 of commas), or None (any other text: not read).

    Google Benchmark writes `BENCHMARK_OUT=auto-vec-data` as JSON under that name. The whole file is then parsed by the
    strict reader of its kind, so a text that only begins like JSON is a `not parsable` note, never a guess.
    """
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return "document"
    lines = data[:8192].splitlines()
    if len(lines) >= 2 and lines[0].count(b",") > 0 and lines[0].count(b",") == lines[1].count(b","):
        return "csv"
    return None


def _head(root: Path, rel: str, size: int = 8192) -> bytes:
    """Return the first `size` bytes of `root/rel` (a file `Tree.files` listed), opened with `O_NOFOLLOW`; raises `OSError`."""
    fd = os.open(os.path.join(root, rel), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def _read_one(tree: Tree, root: Path, rel: str, limits: dict[str, int], sources: list[Source], skips: list[Skip]) -> None:
    """Read one file of `read_sources` into `sources`, or note in `skips` why not."""
    if rel.count("/") > limits["max_depth"]:
        skips.append(Skip(rel, f"deeper than {limits['max_depth']} directories", "deep"))
        return
    try:
        size = os.stat(os.path.join(root, rel), follow_symlinks=False).st_size
        if size > limits["max_bytes"]:
            skips.append(Skip(rel, f"{size} bytes, more than the {limits['max_bytes']} a file read by discovery may hold", "large"))
            return
        if b"\0" in _head(root, rel):
            skips.append(Skip(rel, "binary (a NUL byte in its first 8 KiB)", "binary"))
            return
        data = tree.read_bytes(rel)
    except OSError as exc:
        skips.append(Skip(rel, f"unreadable: {exc.strerror or exc}", "unreadable"))
        return
    kind = KINDS[_suffix(rel)] if _suffix(rel) else _sniffed(data)
    if kind is None:
        skips.append(Skip(rel, "no suffix, and its content is neither a JSON object or array nor CSV", "other-kind"))
        return
    try:
        if kind == "csv":
            doc, kind = _csv_log(data) or [], "document"  # a CSV file without its suffix: its rows, as `Tree.json` reads a `.csv` one
        elif kind == "document":
            doc = tree.json(rel)
        elif kind == "lines":
            doc = loads_strict_lines(data)
        elif kind == "csv-log":
            doc = _csv_log(data)
            if doc is None:
                skips.append(Skip(rel, "an XML sample log: discovery reads CSV ones only", "unparsable"))
                return
            kind = "lines"  # its rows are raw samples (data), as a JSON Lines file's objects are
        else:
            doc = _text_record(data)
            if doc is None:
                return  # a text file without `key: value` lines states nothing discovery can read
    except (JSONProblem, ValueError, RecursionError) as exc:
        skips.append(Skip(rel, f"not read: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", "unparsable"))
        return
    sources.append(Source(rel, kind, doc))


def look_alike(sources: list[Source], profiles: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """
    Return `{profile id: [rel, ...]}`: the files read without a suffix on which every detection pointer of a profile resolves.

    Only profiles whose `detect` has a `glob` and `pointers` without a `file` count (the pointers are what
    they look for inside each file); the profile's glob did not match these files (it names a suffix), so
    the report suggests naming them so, or choosing the profile (`verifier.discovery.report`).
    """
    from verifier.readers.pointers import resolve

    found: dict[str, list[str]] = {}
    for pid, profile in sorted(profiles.items()):
        detect = profile.get("detect", {})
        pointers = [item["pointer"] for item in detect.get("pointers", []) if "file" not in item]
        if "glob" not in detect or not pointers or detect.get("files"):
            continue
        for source in sources:
            if _suffix(source.rel) or source.kind != "document":
                continue
            try:
                for pointer in pointers:
                    resolve(source.doc, pointer)
            except (KeyError, TypeError, ValueError):
                continue
            found.setdefault(pid, []).append(source.rel)
    return found
