"""
Per-producer rule packs: the rules a producer's receipt states about itself, judged as the gate-rules family (`gate.rules`).

A receipt names no gate, so the rules shipped with its reader are what
judges it. `PACKS` maps a receipt reader's `KIND` (`verifier/adapters/`) to
its checks; each reads only what passed `schema.documents`.
"""

from __future__ import annotations

from verifier.checks.packs import serving_record
from verifier.pipeline import Check

__all__ = ["PACKS"]

PACKS: dict[str, tuple[Check, ...]] = {"serving-performance-v1": (serving_record.record_rules,)}
