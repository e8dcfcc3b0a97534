"""
Tests that kill surviving mutants of `verifier/checks/outcomes.py` (issue 14), on a stand-in bundle (no pipeline).

A recorded quality outcome whose covered comparisons lack a score is
UNVERIFIED `outcome-not-derivable` naming the missing scores (absence is not
a pass); a metric name may itself hold a dot (`quality.ssim.luma` names the
gate's `ssim.luma` threshold, which the gate schema admits).
"""

from __future__ import annotations

from pathlib import Path

from verifier.checks.outcomes import outcomes
from verifier.pipeline import Context
from verifier.readers.native import from_documents


def _run(recorded: list, comparisons: list, thresholds: dict) -> list[tuple[str, str, str]]:
    media = {"reference": "a.mp4", "candidate": "b.mp4"}
    docs = {"claims": {"outcomes": recorded}, "quality": {"comparisons": [{**media, **c} for c in comparisons]}}
    ctx = Context(subject=Path("."), assets=None, bundle=None, gate={"quality": {"thresholds": thresholds}},
                  data={"evidence": from_documents(docs, manifest=None, names={})})  # the model the native reader builds
    return [(f.status.value, f.code, f.message) for f in outcomes(ctx)]


def test_covered_comparisons_without_the_score_leave_the_outcome_underivable():
    found = _run([{"gate": "quality.ssim", "passed": True, "covers": "all"}],
                 [{"id": "c1", "scores": {"ssim": 0.99}}, {"id": "c2", "scores": {}}], {"ssim": {"min": 0.97}})
    assert [(s, c) for s, c, _ in found] == [("UNVERIFIED", "outcome-not-derivable")]
    assert "covered scores are missing (c2.ssim)" in found[0][2]


def test_a_dotted_metric_name_is_the_rest_of_the_outcome_name():
    thresholds = {"ssim.luma": {"min": 0.97}, "ssim": {"min": 0.5}}
    found = _run([{"gate": "quality.ssim.luma", "passed": True, "covers": ["c1"]}], [{"id": "c1", "scores": {"ssim.luma": 0.9, "ssim": 0.9}}],
                 thresholds)
    assert [(s, c) for s, c, _ in found] == [("FAIL", "outcome-contradicted")] and "c1.ssim.luma=0.9" in found[0][2]
