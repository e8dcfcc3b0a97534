"""
Tests that kill surviving mutants of `verifier/checks/outcomes.py` (issue 14), on a stand-in bundle (no pipeline).

A recorded quality outcome whose covered comparisons lack a score is
UNVERIFIED `outcome-not-derivable` naming the missing scores (absence is not
a pass); a metric name may itself hold a dot (`quality.ssim.luma` names the
gate's `ssim.luma` threshold, which the gate schema admits). Issue 42's
cosmic-ray survivors: every outcome is judged whatever the one before it
was, bounds are inclusive, `quality` covers the gate's `required_scores` (or
every threshold), only `quality.<threshold>` names one metric, and messages
list at most five scores.
"""

from __future__ import annotations

from pathlib import Path

from verifier.checks.outcomes import outcomes
from verifier.engine.pipeline import Context, RunData
from verifier.readers.native import from_documents


def _run(recorded: list, comparisons: list, thresholds: dict) -> list[tuple[str, str, str]]:
    media = {"reference": "a.mp4", "candidate": "b.mp4"}
    docs = {"claims": {"outcomes": recorded}, "quality": {"comparisons": [{**media, **c} for c in comparisons]}}
    ctx = Context(subject=Path("."), assets=None, bundle=None, gate={"quality": {"thresholds": thresholds}},
                  run=RunData(evidence=from_documents(docs, manifest=None, names={})))  # the model the native reader builds
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


# --- issue 42, cosmic-ray run of record -------------------------------------------------------------------------------

def _judge(recorded: list, comparisons: list, quality: dict, quality_unusable: bool = False) -> list[tuple[str, str, str]]:
    """(status, code, message) of each outcome judged under the gate section `quality` (thresholds, required_scores)."""
    from verifier.model.evidence import Unmapped

    media = {"reference": "a.mp4", "candidate": "b.mp4"}
    docs = {"claims": {"outcomes": recorded}, "quality": {"comparisons": [{**media, **c} for c in comparisons]}}
    gaps = [Unmapped("document quality-index.json", None, "not hashed", "quality", "blocked-by-integrity")] if quality_unusable else []
    evidence = from_documents(docs, manifest=None, names={}, unmapped=gaps)
    ctx = Context(subject=Path("."), assets=None, bundle=None, gate={"quality": quality}, run=RunData(evidence=evidence))
    return [(f.status.value, f.code, f.message) for f in outcomes(ctx)]


BOUNDS = {"ssim": {"min": 0.97}, "lpips": {"max": 0.2}}
EDGE = [{"id": "c1", "scores": {"ssim": 0.97, "lpips": 0.2}}, {"id": "c2", "scores": {"ssim": 0.99, "lpips": 0.1}}]


def test_each_outcome_is_judged_after_one_that_is_undeclared_underivable_unknown_or_missing_scores():
    """
    Kills `:51`, `:57`, `:63`, `:76` `continue` -> `break` (the outcomes after would vanish), `:77` `not failing` ->
    `failing` (a clean pass would be contradicted), `:72` `<` -> `<=` and `>` -> `>=` (bounds are inclusive: ssim 0.97
    and lpips 0.2 meet them), `:72` first `and` -> `or` (`"min" in bound or ...`: lpips, with no min, would fail).
    """
    recorded = [{"gate": "quality", "passed": True},
                {"gate": "quality", "passed": True, "covers": "all"},
                {"gate": "speed", "passed": True, "covers": "all"},
                {"gate": "quality.ssim", "passed": True, "covers": ["c9"]},
                {"gate": "quality.vmaf", "passed": True, "covers": "all"},
                {"gate": "quality.lpips", "passed": True, "covers": ["c1"]}]
    comparisons = [*EDGE, {"id": "c3", "scores": {"ssim": 0.98}}]
    assert _judge(recorded, comparisons, {"thresholds": {**BOUNDS, "vmaf": {"min": 90}}, "required_scores": ["ssim"]}) == [
        ("UNVERIFIED", "outcome-scope-undeclared", "outcome quality passed=true names no selection it covered (`covers`), "
                                                   "so what it passed is not stated"),
        ("PASS", "outcome-rederived", "outcome quality passed=true re-derives over 3 comparison(s) x ssim"),
        ("UNVERIFIED", "outcome-not-derivable", "outcome speed passed=true: nothing re-derives it (no gate section 'speed' with thresholds)"),
        ("FAIL", "outcome-scope-unknown", "outcome quality.ssim passed=true covers c9, which quality-index.json does not hold"),
        ("UNVERIFIED", "outcome-not-derivable", "outcome quality.vmaf passed=true: covered scores are missing (c1.vmaf, c2.vmaf, c3.vmaf)"),
        ("PASS", "outcome-rederived", "outcome quality.lpips passed=true re-derives over 1 comparison(s) x lpips")]


def test_the_quality_outcome_covers_every_threshold_unless_required_scores_says_which():
    """Kills `:52` `name == "quality"` -> `!=` and `not (...)` (quality would be underivable, quality.ssim would judge every metric)."""
    recorded = [{"gate": "quality", "passed": True, "covers": "all"}, {"gate": "quality.ssim", "passed": True, "covers": "all"}]
    assert _judge(recorded, EDGE, {"thresholds": BOUNDS}) == [
        ("PASS", "outcome-rederived", "outcome quality passed=true re-derives over 2 comparison(s) x ssim, lpips"),
        ("PASS", "outcome-rederived", "outcome quality.ssim passed=true re-derives over 2 comparison(s) x ssim")]


def test_only_quality_dot_a_threshold_names_a_metric():
    """
    Kills `:53` `and` -> `or` (`speed.ssim` would judge ssim, `lpips` raise IndexError, `quality.vmaf` look for vmaf
    scores) and `split(".", 1)` -> `split(".", 2)` (`quality.ssim.luma` would look up `ssim`, absent here).
    """
    recorded = [{"gate": g, "passed": True, "covers": "all"} for g in ("speed.ssim", "lpips", "quality.vmaf", "quality.ssim.luma")]
    found = _judge(recorded, [{"id": "c1", "scores": {"ssim.luma": 0.99}}], {"thresholds": {"ssim.luma": {"min": 0.97}, "lpips": {"max": 0.2}}})
    assert found == [
        ("UNVERIFIED", "outcome-not-derivable", "outcome speed.ssim passed=true: nothing re-derives it (no gate section 'speed.ssim' with thresholds)"),
        ("UNVERIFIED", "outcome-not-derivable", "outcome lpips passed=true: nothing re-derives it (no gate section 'lpips' with thresholds)"),
        ("UNVERIFIED", "outcome-not-derivable", "outcome quality.vmaf passed=true: nothing re-derives it "
                                                "(no gate section 'quality.vmaf' with thresholds)"),
        ("PASS", "outcome-rederived", "outcome quality.ssim.luma passed=true re-derives over 1 comparison(s) x ssim.luma")]


def test_an_unusable_quality_index_leaves_every_outcome_underivable_and_says_so():
    """Kills `:54` `or` -> `and` (a TypeError on the absent index) and `:55` `metrics is None` -> `is not None` / `not (...)`."""
    recorded = [{"gate": "quality.ssim", "passed": True, "covers": "all"}, {"gate": "speed", "passed": False, "covers": "all"}]
    assert _judge(recorded, EDGE, {"thresholds": BOUNDS}, quality_unusable=True) == [
        ("UNVERIFIED", "outcome-not-derivable", "outcome quality.ssim passed=true: nothing re-derives it (the quality index is unusable)"),
        ("UNVERIFIED", "outcome-not-derivable", "outcome speed passed=false: nothing re-derives it (no gate section 'speed' with thresholds)")]


def test_messages_list_at_most_five_missing_or_failing_scores_and_every_missing_metric_of_a_comparison():
    """
    Kills `:75` `missing[:5]` -> 6, 4 and `:85` `failing[:5]` -> 6, 4 (six of each here), and `:71` `continue` ->
    `break` (a comparison missing ssim would not be searched for lpips).
    """
    six = [{"id": f"c{n}", "scores": {"ssim": 0.5, "lpips": 0.1}} for n in range(1, 7)]
    failing = _judge([{"gate": "quality.ssim", "passed": True, "covers": "all"}], six, {"thresholds": BOUNDS})
    assert failing == [("FAIL", "outcome-contradicted", "outcome quality.ssim passed=true, but over 6 comparison(s) x ssim it re-derives "
                                                        "to passed=false (c1.ssim=0.5, c2.ssim=0.5, c3.ssim=0.5, c4.ssim=0.5, c5.ssim=0.5 "
                                                        "past the gate's thresholds)")]
    bare = [{"id": f"c{n}", "scores": {}} for n in range(1, 4)]
    missing = _judge([{"gate": "quality", "passed": True, "covers": "all"}], bare, {"thresholds": BOUNDS})
    assert missing == [("UNVERIFIED", "outcome-not-derivable", "outcome quality passed=true: covered scores are missing "
                                                               "(c1.ssim, c1.lpips, c2.ssim, c2.lpips, c3.ssim)")]
    recorded_fail = _judge([{"gate": "quality.ssim", "passed": False, "covers": ["c1"]}], six[:1], {"thresholds": BOUNDS})
    assert recorded_fail == [("PASS", "outcome-rederived", "outcome quality.ssim passed=false re-derives over 1 comparison(s) x ssim")]
