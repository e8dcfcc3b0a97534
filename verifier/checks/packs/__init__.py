"""
Per-producer rule packs: the rules a producer's receipt states about itself, judged as the gate-rules family (`gate.rules`).

A receipt names no gate, so the rules shipped with its reader are what
judges it. `PACKS` maps a receipt reader's `KIND` (`verifier/adapters/`) to
its checks; each reads only what passed the reader's schema family
(`schema.documents`).
"""

from __future__ import annotations

from verifier.checks.packs import http_matrix, serving_record, telemetry
from verifier.engine.pipeline import Check

__all__ = ["PACKS"]

PACKS: dict[str, tuple[Check, ...]] = {"serving-performance-v1": (serving_record.record_rules,),
                                       "frozen-http-matrix": (http_matrix.matrix_rules,),
                                       "serving-load-telemetry": (telemetry.telemetry_rules,)}
