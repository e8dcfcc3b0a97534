"""`verify profile draft`: run discovery on a directory and write its bindings as a validated profile file (never into the directory)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from verifier.model.findings import Report

__all__ = ["DRAFT_SECONDS", "DraftRefused", "grouped", "write_draft"]

#: Drafting is done once per format, so its search may take longer than `verify DIR`'s (`verifier.discovery.SEARCH_SECONDS`).
DRAFT_SECONDS = 120.0


class DraftRefused(UsageError):
    """No drafted claim is left to write (exit 2); `notes` says, per bound number, why it was left out (`grouped` groups them)."""

    def __init__(self, message: str, notes: list[str]) -> None:
        super().__init__(message)
        self.notes = notes


def grouped(notes: list[str]) -> list[tuple[str, int, str]]:
    """
    Return `(reason, count, first place)` per kind of reason among the left-out `notes` ("<place> -- <reason>"), most
    frequent first: a reason with what varies between numbers written `…` (quoted names, the file a receipt set is
    read from, a finding's details in parentheses), so 191 left-out numbers read as a few causes.
    """
    groups: dict[str, list[str]] = {}
    for note in notes:
        place, _, reason = note.partition(" -- ")
        kind = re.sub(r"^\S+#\S*: ", "", reason)  # "<file>#<pointer>: an object of objects keyed by name ..." -> its words
        kind = re.sub(r" \(.*\)$", "", kind) if kind.startswith("the profile language does not reproduce") else kind  # the finding's details
        kind = re.sub(r"'[^']*'", "'…'", kind)  # a quoted name ('elapsed'); the details holding "discovery's" are gone above
        groups.setdefault(kind, []).append(place)
    return sorted(((kind, len(places), places[0]) for kind, places in groups.items()), key=lambda g: (-g[1], g[0]))


def write_draft(directory: str, output: str, profile_id: str | None = None, *,
                verify: Callable[..., Report]) -> tuple[str, int, list[str]]:
    """
    Discover `directory`, draft the profile (`verifier.discovery.draft.draft_profile`), validate it and write it to `output`.

    Returns `(output, claims written, the notes of the bound numbers left out and why)`. Before writing, the draft judges the
    directory once and every claim that FAILs through it is left out (`_self_check`), so the draft
    gives no false FAIL on the evidence it was drafted from. `verify` is that judge, called as
    `verify(directory, profile=profile_file)` and returning its `Report`: `verifier.core.verify_path`,
    passed in by the caller (`verify profile draft`, `verifier.cli`), because `verifier.core` runs
    discovery (`verifier.discovery.report`) on a directory no profile matches and discovery importing
    `verifier.core` back would tie the two into one loop (`tests/project/test_structure.py`). Raises `UsageError` when `output`
    lies inside `directory` (nothing is written into the evidence), when discovery bound nothing a
    profile can state, or when the file cannot be written; `DraftRefused` (a `UsageError` carrying
    the notes of what was left out and why) when no drafted claim is left; `ConfigError` when the draft fails the
    profile schema or its cross-checks (`verifier.profiles.language.load_profile`: a bug of ours).
    """
    from verifier.discovery import discover
    from verifier.discovery.draft import _id, draft_profile
    from verifier.formats.jsonio import loads_strict
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    root = Path(directory).resolve()
    target = Path(output).resolve()
    if target == root or root in target.parents:
        raise UsageError(f"-o {output}: inside {directory}; discovery never writes into the directory it reads")
    disc = discover(root, seconds=DRAFT_SECONDS)
    try:
        profile, left = draft_profile(disc, _id(profile_id or root.name))
    except ValueError as exc:
        raise UsageError(f"{directory}: {exc}") from None
    try:
        load_profile(loads_strict(json.dumps(profile).encode()), assets().schema("profile"), origin=output)
    except ConfigError as exc:
        raise ConfigError(f"the drafted profile does not validate (a bug of verify): {exc}") from None
    left += _self_check(profile, root, verify)
    if not profile["claims"]:
        kind, n, _first = grouped(left)[0]
        raise DraftRefused(f"{directory}: no drafted claim re-derives through the profile language ({len(left)} left out, "
                           f"most for: {kind} ({n}); the reasons are listed above, grouped)", left)
    try:
        with open(target, "w", encoding="utf-8") as fh:
            json.dump(profile, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    except OSError as exc:
        raise UsageError(f"-o {output}: cannot write: {exc.strerror or exc}") from None
    return os.fspath(output), len(profile["claims"]), left


def _self_check(profile: dict[str, Any], root: Path, verify: Callable[..., Report]) -> list[str]:
    """
    Judge `root` with the draft (written to a temporary file outside it) by `verify` (`write_draft`) and drop every claim that FAILs.

    Returns a note per dropped claim: the profile language read its records otherwise than discovery did (a
    member some records lack, a selection it spells differently), so it is left out rather than written as a false FAIL.
    """
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"{profile['id']}.json"
        path.write_text(json.dumps(profile), encoding="utf-8")
        report = verify(str(root), profile=str(path))
    ids = {c["id"] for c in profile["claims"]}
    failed: dict[str, str] = {}
    for f in report.findings:
        if f.check == "derivation.claims" and f.status.value == "FAIL":
            cid = re.split(r"[:\[]", f.message, maxsplit=1)[0]
            if cid in ids:
                failed.setdefault(cid, f.message)
    profile["claims"] = [c for c in profile["claims"] if c["id"] not in failed]
    used = {c["receipts"] for c in profile["claims"]}
    profile["receipts"] = {rid: spec for rid, spec in profile["receipts"].items() if rid in used}
    return [f"claim {cid} -- the profile language does not reproduce discovery's derivation ({message[:160]})" for cid, message in failed.items()]
