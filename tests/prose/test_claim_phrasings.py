"""
The phrasing table (tests/data/claim-phrasings.json): how write-ups state results, each with its expected binding and verdict.

Rows run against the shipped example's evidence or against a small synthetic
evidence set (100 ms -> 25 ms mean latency, p95 180 ms -> 40 ms, output
throughput 1200 tokens/s). Every number of a row's text must be listed with
(stated, status, code, binding).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from conftest import EXAMPLE, ROOT

from verifier.prose.binding import Evidence, Pair, bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import extract
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets

TABLE = json.loads((ROOT / "tests" / "data" / "claim-phrasings.json").read_text(encoding="utf-8"))["rows"]


def synthetic():
    """Return `(evidence, pairs, keys)`: mean 100 -> 25 ms (the headline pair), p95 180 -> 40 ms, output throughput 1200 tokens/s."""
    def arm(stat, arm_id, value, primary):
        return Evidence(f"{stat}.{arm_id}", Decimal(value), "ms", "derived", f"{stat} of {arm_id}", statistic=stat,
                        keys=frozenset({arm_id}), topics=frozenset({"latency"}), primary=primary, level="arm")
    mean_b, mean_c = arm("mean", "baseline", "100", True), arm("mean", "candidate", "25", True)
    p95_b, p95_c = arm("p95", "baseline", "180", False), arm("p95", "candidate", "40", False)
    throughput = Evidence("output_throughput", Decimal("1200"), "tokens/s", "derived", "output tokens / duration",
                          topics=frozenset({"throughput", "output"}))
    return ([mean_b, mean_c, p95_b, p95_c, throughput], [Pair("mean", mean_b, mean_c, primary=True), Pair("p95", p95_b, p95_c)],
            {"baseline": "baseline", "candidate": "candidate"})


@pytest.fixture(scope="module")
def evidence_sets():
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return {"example": statements.collect_all(ctx)[:3], "synthetic": synthetic()}


def test_table_has_at_least_30_phrasings_with_sources():
    assert len(TABLE) >= 30
    assert len({row["id"] for row in TABLE}) == len(TABLE)
    assert all(row["seen_in"] and row["expect"] is not None for row in TABLE)
    verdicts = {e[1] for row in TABLE for e in row["expect"]}
    codes = {e[2] for row in TABLE for e in row["expect"]}
    assert verdicts == {"PASS", "FAIL", "UNVERIFIED"}
    assert {"wording-mismatch", "unit-mismatch", "claim-mismatch", "unchecked-claim", "bound"} <= codes


@pytest.mark.parametrize("row", TABLE, ids=[row["id"] for row in TABLE])
def test_phrasing(row, evidence_sets):
    outcomes = bind(extract(row["text"], row["id"]), *evidence_sets[row["evidence"]])
    got = [[o.quantity.stated, o.status, o.code, o.evidence] for o in outcomes]
    assert got == row["expect"], [o.message for o in outcomes]
