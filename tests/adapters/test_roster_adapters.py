"""The roster for the receipt readers of `verifier/adapters/` (issue 10, item 3): every family, in the fixed order, once each.

Each adapter's checks sit in their family (`verifier.engine.roster.FAMILIES`), under
their own ids or, for a reader moved onto the native families (`serving-performance-v1`) and for the rule packs (`gate.rules`), the family's native id; a family the reader does not feed is one UNVERIFIED
`not-in-evidence` finding under the family's native id, naming what the
reader does not supply, exactly as for a profile (`tests/checks/test_roster.py`).
"""

from __future__ import annotations

import pytest
from conftest import CORPUS, ROOT, SHARED
from test_roster import _families_in_order

from verifier.adapters import http_matrix, serving_record, telemetry, vllm_bench
from verifier.core import receipt_pipeline, verify_path
from verifier.model.evidence import PARTS
from verifier.formats.jsonio import loads_strict
from verifier.engine.pipeline import Check, Context, run_pipeline
from verifier.engine.roster import FAMILIES, family_of, in_families
from verifier.trust.assets import assets
from verifier.trust.trustroot import TrustSet

ASCEND = sorted((CORPUS / "vllm-save-result-ascend").glob("*.json"))[0]
STANDINS = ["integrity.files", "gate.pinned", "coverage.streams", "quality.recorded", "quality.rescore", "integrity.unchanged"]

#: reader -> (an input it reads, its own check ids (stable), the families it stands in for)
READERS = {
    "vllm-bench-serve": (ASCEND, vllm_bench, {"schema.documents", "derivation.claims", "vllm.requests",
                                              "vllm.peak", "vllm.arrival"}, [*STANDINS[:5], "gate.rules", STANDINS[5]]),
    "serving-performance-v1": (SHARED / "seeds" / "serving-performance-record.json", serving_record,
                               {"schema.documents", "derivation.claims", "gate.rules"},
                               [*STANDINS[:2], "plan.conformance", *STANDINS[2:]]),
    "frozen-http-matrix": (ROOT / "tests" / "fixtures" / "matrix" / "good", http_matrix,
                           {"schema.documents", "matrix.plan_digest", "matrix.provenance",
                            "gate.rules", "matrix.denominators", "matrix.stop", "derivation.claims",
                            "matrix.spread"}, STANDINS),
    "serving-load-telemetry": (ROOT / "tests" / "fixtures" / "telemetry" / "good", telemetry,
                               {"schema.documents", "telemetry.carriers", "telemetry.process", "derivation.claims", "telemetry.protocol",
                                "telemetry.provenance", "telemetry.occupancy", "gate.rules"}, STANDINS),
}


@pytest.mark.parametrize("kind", sorted(READERS))
def test_every_adapter_check_has_its_family_and_every_family_is_in_the_pipeline(kind):
    _, module, own, standins = READERS[kind]
    pipeline = receipt_pipeline(module)
    ids = [c.id for c in pipeline]
    assert module.KIND == kind
    stood = [c.id for c in pipeline if c.func.__qualname__.startswith("stand_in.")]
    assert {i for i in ids if family_of(i) is not None} - set(stood) == own  # every check of the reader kept, placed
    assert stood == standins and [i for i in ids if i not in own] == standins  # the stand-ins, in roster order
    order = [family_of(i) or next(f for f in FAMILIES if f.id == i) for i in ids]
    assert [f.name for f in order] == sorted((f.name for f in order), key=[g.name for g in FAMILIES].index)
    assert {f.name for f in order} == {f.name for f in FAMILIES}


@pytest.mark.parametrize("kind", sorted(READERS))
def test_an_adapter_report_holds_every_family_once_in_order(kind):
    subject, _, own, standins = READERS[kind]
    report = verify_path(str(subject))
    assert report.kind == kind
    assert _families_in_order(report) == [f.name for f in FAMILIES]
    assert not [f for f in report.findings if f.code == "pipeline-order"]
    assert {info.check for info in report.roster} == own | set(standins)
    for family_id in standins:
        found = [f for f in report.findings if f.check == family_id]
        assert [(f.status, f.code) for f in found] == [("UNVERIFIED", "not-in-evidence")], family_id
        assert all(part in found[0].message for part in found[0].observed), found[0].message
        assert kind in found[0].message and (found[0].observed or "has no check of this family" in found[0].message)


@pytest.mark.parametrize("kind", sorted(READERS))
def test_what_the_stand_ins_say_a_reader_holds_is_what_its_model_holds(kind):
    subject, module, _, _ = READERS[kind]
    subject = ROOT / "tests" / "fixtures" / "vllm" / "abcd-bucket-peak.json" if kind == "vllm-bench-serve" else subject  # with arrays
    options = ({"directory": subject, "name": subject.name} if subject.is_dir()
               else {"document": loads_strict(subject.read_bytes()), "name": subject.name})
    ctx = Context(subject=subject, assets=TrustSet(assets(None)), options={"reader": module, **options})
    run_pipeline(receipt_pipeline(module), ctx)
    evidence = ctx.run.evidence
    assert evidence.reader == kind and not evidence.unmapped
    assert {part for part in PARTS if getattr(evidence, part) not in (None, ())} == set(module.HELD)  # the parts it holds: not None, not empty


def test_a_check_placed_before_a_check_it_requires_is_refused():
    first = Check("derivation.claims", "x", lambda ctx: iter(()))
    later = Check("plan.conformance", "y", lambda ctx: iter(()), requires=("derivation.claims",))
    with pytest.raises(ValueError, match="requires derivation.claims"):
        in_families((first, later), "test", frozenset())
