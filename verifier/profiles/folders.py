"""
Whether a directory given to `verify DIR` is one bundle, decided before a broad profile reads every file below it.

A profile whose detection is only a glob (`hyperfine`: `**/*.json` holding
`/results/0/command`) matches any folder with one such file somewhere below
it: a source checkout, an evidence repository's root or /tmp would be read
file by file (10,911 UNVERIFIED findings for this repository, minutes of
silence for /tmp). `not_one_bundle` says what such a folder holds instead,
within a second, and `core.verify_path` turns it into a usage error (exit 2)
pointing to `verify DIR/SUB` and `verify inventory`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

__all__ = ["CHECKOUT_MARKERS", "LAYOUT_DIRS", "MANY_FILES", "SUBDIR_LIMIT", "names_a_layout", "not_one_bundle"]

#: What marks a source checkout rather than evidence (a version-control directory or a project's build file).
CHECKOUT_MARKERS = (".git", "pyproject.toml", "setup.py", "package.json", "Cargo.toml", "go.mod", "pom.xml")
#: A folder holding more files than this (counted up to it) that no profile names by its files is not one bundle.
MANY_FILES = 2000
#: A source checkout holding more JSON files than this is not one bundle (a hyperfine export holds one to a few).
CHECKOUT_JSON = 20
#: How many sub-folders of each folder are looked at (the directory's, and each of theirs: `evidence/NAME`, `corpus/NAME`).
SUBDIR_LIMIT = 64
#: How long the sub-folder scan may take (seconds) before it stops and the count it gives is a lower bound ("at least N").
SCAN_SECONDS = 0.5


def _subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(e for e in folder.iterdir() if e.is_dir() and not e.is_symlink() and not e.name.startswith("."))[:SUBDIR_LIMIT]
    except OSError:
        return []


def _count(target: Path, deadline: float | None = None) -> tuple[int, int]:
    """Return `(files, json files)` below `target` (`.git` skipped), counting stopped past `MANY_FILES` files or at `deadline` (`time.monotonic`)."""
    files = jsons = 0
    for _dirpath, dirnames, filenames in os.walk(target):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        files += len(filenames)
        jsons += sum(1 for n in filenames if n.endswith((".json", ".jsonl")))
        if files > MANY_FILES or (deadline is not None and time.monotonic() > deadline):
            break
    return files, jsons


#: How many directories `_layout_match` may list looking for a file of a profile's layout glob.
LAYOUT_DIRS = 10_000


def names_a_layout(detect: dict[str, Any]) -> bool:
    """
    Return whether a profile's `detect` names its format by a fixed layout: a `glob` of fixed depth (no `**`, braces or brackets) with a literal directory.

    MLPerf's `*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt` does;
    hyperfine's `{,*/,*/*/}*.json` (any JSON file near the folder) does not.
    Such a profile counts like one naming `files` when a folder is judged to be
    one bundle or several.
    """
    glob = detect.get("glob")
    if not isinstance(glob, str) or "**" in glob or any(c in glob for c in "{}[]"):
        return False
    parts = glob.split("/")
    return len(parts) > 1 and any(not any(c in part for c in "*?") for part in parts[:-1])


def _layout_match(folder: Path, pattern: str) -> bool:
    """
    Return whether a regular file below `folder` matches fixed-depth glob `pattern`, walking only the directories its components match.

    Components match as `verifier.readers.tree.glob_regex` does (`*` and `?`
    within one component); symbolic links are never followed (as `Tree`).
    Bounded: at most `LAYOUT_DIRS` directories listed (then False).
    """
    import fnmatch

    *dirs, name = pattern.split("/")
    pending: list[tuple[str, int]] = [(str(folder), 0)]
    listed = 0
    while pending:
        directory, depth = pending.pop()
        listed += 1
        if listed > LAYOUT_DIRS:
            return False
        try:
            with os.scandir(directory) as entries:
                found = list(entries)
        except OSError:
            continue
        if depth == len(dirs):
            if any(fnmatch.fnmatchcase(e.name, name) and e.is_file(follow_symlinks=False) for e in found):
                return True
            continue
        pending.extend((e.path, depth + 1) for e in sorted(found, key=lambda e: e.name, reverse=True)
                       if e.is_dir(follow_symlinks=False) and fnmatch.fnmatchcase(e.name, dirs[depth]))
    return False


def not_one_bundle(target: Path, trusted: Any) -> str | None:
    """
    Return why directory `target` is not read as one bundle (plain sentences: what it holds, then what to run instead), or None to read it.

    `trusted` is the run's `TrustSet` (its profiles are read for detection).
    None when a shipped profile that names files in its detection (`files`,
    or a layout glob: `names_a_layout`) reads `target` itself. Otherwise a sentence when `target`, or its
    sub-folders (`evidence/NAME`), hold two or more bundles (a sub-folder with a
    `manifest.json`, or one such a profile reads; the sentence names each and
    its profile), when it is a source checkout (`CHECKOUT_MARKERS`) with more
    than `CHECKOUT_JSON` JSON files, or when it holds more than `MANY_FILES`
    files. Bounded: at most `MANY_FILES + 1` files counted and `2 * SUBDIR_LIMIT`
    sub-folders (two levels) looked at, each by file existence and a few JSON Pointers,
    for at most `SCAN_SECONDS`; when a bound cut the scan short the sentence says
    "at least N bundles", never a partial count as if complete.
    Raises nothing (unreadable entries are skipped).
    """
    from verifier.profiles.language import Tree, matches

    specific = {}
    for pid in trusted.profile_ids():
        profile = trusted.detection(pid)
        if profile.get("detect", {}).get("files") or names_a_layout(profile.get("detect", {})):
            specific[pid] = profile

    def readers(folder: Path) -> list[str]:  # the named files first (a stat each), the tree only when they are all there
        named = [pid for pid, p in sorted(specific.items()) if all(os.path.isfile(folder / rel) for rel in p["detect"].get("files", []))
                 and (not names_a_layout(p["detect"]) or _layout_match(folder, p["detect"]["glob"]))]
        return [pid for pid in named if set(specific[pid]["detect"]) <= {"glob"} or matches(specific[pid], Tree(root=folder))]

    if readers(target):
        return None
    found = []
    first = _subdirs(target)
    below = [_subdirs(d) for d in first if not any(d.name == m for m in CHECKOUT_MARKERS)]
    every = first + [s for subs in below for s in subs]
    bounded = len(first) >= SUBDIR_LIMIT or len(every) > SUBDIR_LIMIT * 2 or any(len(subs) >= SUBDIR_LIMIT for subs in below)
    deadline = time.monotonic() + SCAN_SECONDS
    for sub in every[:SUBDIR_LIMIT * 2]:
        if time.monotonic() > deadline:
            bounded = True
            break
        read = readers(sub)
        rel = sub.relative_to(target).as_posix()
        if read:
            found.append(f"{rel}/ (profile {', '.join(read)})")
        elif os.path.lexists(sub / "manifest.json"):
            found.append(f"{rel}/ (a manifest.json)")
    markers = [m for m in CHECKOUT_MARKERS if os.path.lexists(target / m)]
    files, jsons = _count(target, deadline)
    what = []
    if markers and jsons > CHECKOUT_JSON:
        what.append(f"It is a source checkout ({', '.join(markers)}) with {jsons}{' or more' if files > MANY_FILES else ''} JSON files.")
    elif files > MANY_FILES:
        what.append(f"It holds more than {MANY_FILES} files, and no profile recognises the folder by its files.")
    if len(found) >= 2 or (found and what):
        count = f"{'at least ' if bounded else ''}{len(found)} bundle{'' if len(found) == 1 else 's'}"
        what.append(f"Its first two folder levels hold {count}"
                    + (" (the scan stopped at its bound; `verify inventory` lists them all)" if bounded else "") + ": "
                    + "; ".join(found[:8]) + (f"; and {len(found) - 8} more" if len(found) > 8 else "") + ".")
    if not what:
        return None
    return (" ".join(what) + " To verify one bundle, give its folder (verify DIR/SUB). To verify the bundles an evidence repository "
            "registers, run `verify inventory DIR`. To read this whole folder as one bundle, add --profile NAME.")
