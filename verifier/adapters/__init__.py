"""
Readers for receipts that other tools produce.

Each adapter module defines `KIND`, `detects(document) -> bool` (from what the
receipt records about its producer) and `model(ctx)` (the receipt read onto the
evidence model by `verifier.adapters.readers`, once its schema check passed).
Every reader gives its schema family as data for `schema.documents`
(`verifier.checks.schema.documents`): `VERSION` and `PRODUCER`, or
`VERSIONS` (pinned schemas whose signature chooses the version:
`vllm_bench`), or, for a receipt directory, `FILES` (read strictly),
`READ`, `MATCH` (the file naming the version, matched against its pinned
schema's profile) and `SCHEMAS` (`http_matrix`, `telemetry`). Every reader
gives `stated(ctx)` (each stated number with the rule deriving it, for
`derivation.claims`), `HELD` and `NOTES` (for the stand-ins). A reader
registers no check (`tests/project/test_structure.py`): its producer's
checks (`matrix.*`, `telemetry.*`, `vllm.*`: `verifier.engine.roster.PACK_MEMBERS`,
and `gate.rules`) are its rule pack in `verifier/checks/packs/`, which
reads the model and the reader-state a reader gives (`model(ctx)`, its
helpers); `verifier.core.receipt_pipeline` composes a reader with its pack
(`checks.packs.PACKS` by `KIND`) and one `not-in-evidence` stand-in per
family they do not feed (`verifier.engine.roster.in_families`). A reader of receipt directories also defines
`detects_directory(path) -> bool`; `verifier.core` asks it only for a
directory without `manifest.json`. Each module's docstring says why it is
code rather than a shipped profile.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from verifier.adapters import http_matrix, serving_record, telemetry, vllm_bench

__all__ = ["ADAPTERS", "detect", "detect_directory"]

ADAPTERS: tuple[ModuleType, ...] = (serving_record, vllm_bench, http_matrix, telemetry)


def detect(document: Any) -> ModuleType | None:
    """Return the one adapter that recognises `document`, or None."""
    matches = [a for a in ADAPTERS if a.detects(document)]
    return matches[0] if len(matches) == 1 else None


def detect_directory(path: Path) -> ModuleType | None:
    """Return the one directory reader that recognises the receipt directory `path`, or None."""
    matches = [a for a in ADAPTERS if hasattr(a, "detects_directory") and a.detects_directory(path)]
    return matches[0] if len(matches) == 1 else None
