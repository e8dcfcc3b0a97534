"""
Per-producer rule packs: the checks of a producer's receipt, each a member of one family of the roster.

A receipt reader (`verifier/adapters/`) reads a receipt onto the evidence
model and registers no check; its producer's checks are its pack here:
the producer's own (`matrix.*`, `telemetry.*`, `vllm.*`, in the plan and
derivation families under their own ids: `verifier.engine.roster.PACK_MEMBERS`)
and the rules the receipt states about itself, judged as the gate-rules
family (`gate.rules`): a receipt names no gate, so the rules shipped with its
reader are what judges it. `PACKS` maps a reader's `KIND` to its pack's
`CHECKS`, in the order `verifier.core.receipt_pipeline` composes them after
the reader's `schema.documents` and `derivation.claims`; each reads only what
passed the reader's schema family (`schema.documents`).
"""

from __future__ import annotations

from verifier.checks.packs import http_matrix, serving_record, telemetry, vllm
from verifier.engine.pipeline import Check

__all__ = ["PACKS"]

PACKS: dict[str, tuple[Check, ...]] = {"serving-performance-v1": serving_record.CHECKS,
                                       "frozen-http-matrix": http_matrix.CHECKS,
                                       "serving-load-telemetry": telemetry.CHECKS,
                                       "vllm-bench-serve": vllm.CHECKS}
