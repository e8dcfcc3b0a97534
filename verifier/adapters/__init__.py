"""
Readers for receipts that other tools produce.

Each adapter module defines `KIND`, `detects(document) -> bool` (from what the
receipt records about its producer) and `PIPELINE` (its ordered checks).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from verifier.adapters import serving_record, vllm_bench

__all__ = ["ADAPTERS", "detect"]

ADAPTERS: tuple[ModuleType, ...] = (serving_record, vllm_bench)


def detect(document: Any) -> ModuleType | None:
    """Return the one adapter that recognises `document`, or None."""
    matches = [a for a in ADAPTERS if a.detects(document)]
    return matches[0] if len(matches) == 1 else None
