"""
Tests that kill surviving mutants of `verifier/checks/quality.py` (issue 42, cosmic-ray run of record).

`quality.recorded` runs on the shipped example's plan, receipts and quality
index (14 comparisons; the 6 measured candidate outputs each against a
baseline output) under the gate `ref2va-5s-v1`'s quality section, each edited in
turn: every finding's status, code, pointer and message is pinned, so a
threshold met at its bound, a score missing or refused, a metric nobody
attests, a wrong count, an empty list, media outside the bundle, a
duplicate or self comparison and a candidate output nobody compared each
show exactly as documented.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLE, ROOT

from verifier.checks.quality import recorded
from verifier.model.evidence import Unmapped
from verifier.engine.pipeline import Context, RunData
from verifier.readers.native import from_documents

GATE = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())["quality"]
INDEX = json.loads((EXAMPLE / "quality-index.json").read_text())
PLAN = json.loads((EXAMPLE / "plan.json").read_text())
RECEIPTS = [json.loads(x) for x in (EXAMPLE / "receipts.jsonl").read_text().splitlines()]


def _recorded(index: dict | bool | None = None, gate: dict | None = GATE, *, receipts: list | None = None, unlisted: tuple[str, ...] = ()) -> list:
    """
    Run `recorded` on the example's documents with quality index `index` (None: the example's; False: the bundle holds none)
    under quality section `gate` (None: the gate has none), with `receipts` instead of the example's and the manifest
    listing every compared file but `unlisted`.
    """
    index = copy.deepcopy(INDEX) if index is None else index
    files = [{"path": c[side]} for c in INDEX["comparisons"] for side in ("reference", "candidate") if c[side] not in unlisted]
    docs: dict[str, Any] = {"plan": PLAN, "receipts": receipts or RECEIPTS}
    gaps = []
    if index is False:
        gaps = [Unmapped("quality document", None, "the bundle holds no quality index", "quality", "not-in-evidence")]
    else:
        docs["quality"] = index
    model = from_documents(docs, manifest={"files": files, "external": []}, names={}, unmapped=gaps)
    ctx = Context(subject=Path("."), assets=None, bundle=None, gate=None if gate is None else {"quality": gate},
                  run=RunData(manifest={"files": files, "external": []}, evidence=model))
    return list(recorded(ctx))


def _index(edit) -> dict:
    index = copy.deepcopy(INDEX)
    edit(index)
    return index


def _not(findings: list, *codes: str) -> list[tuple[str, str, str | None, str]]:
    """The findings other than those of `codes`, as (status, code, pointer, message)."""
    return [(f.status.value, f.code, f.pointer, f.message) for f in findings if f.code not in codes]


def test_without_a_quality_gate_an_index_is_unverified_and_no_index_passes():
    """Kills `:56` `if evidence.present("quality"):` negated."""
    assert _not(_recorded(gate=None)) == [
        ("UNVERIFIED", "no-quality-gate", None, "the gate sets no quality thresholds, so the recorded scores are not judged")]
    assert _not(_recorded(False, gate=None)) == [
        ("PASS", "not-required", None, "the gate requires no quality comparisons and the bundle records none")]


def test_a_pinned_scorer_is_judged_after_an_unpinned_one_and_its_pin_is_shown_without_facts():
    """
    Kills `:71` `continue` -> `break` (lpips, recorded and unpinned, sorts before ssim) and `:74` `k != "facts"` -> `==`
    (the expected identity shown is the pin without its `facts`).
    """
    index = _index(lambda i: [c["scores"].update(lpips=0.1) for c in i["comparisons"]])
    found = [f for f in _recorded(index) if f.code == "scorer-identity-pinned"]
    assert [f.pointer for f in found] == ["/scorers/audio_cosine", "/scorers/ssim"]
    pin = GATE["scorers"]["ssim"]
    assert found[1].expected == {k: v for k, v in pin.items() if k != "facts"} and "facts" in pin
    assert found[1].message == "ssim: recorded scorer ssim-wang2004 equals the gate's pin"


def test_a_score_of_another_scorer_is_counted_and_named_and_never_compared():
    """
    Kills `:81` `sum(1 ...)` -> `sum(2 ...)` / `sum(0 ...)` and `is not None` -> `is None` (13 of 14 comparisons record
    ssim) and `:84`, `:86` `mine or {}` -> `mine and {}` (the recorded scorer's id named); its scores meet no threshold.
    """
    def edit(i):
        i["scorers"]["ssim"]["id"] = "ssim-other"
        del i["comparisons"][3]["scores"]["ssim"]
    found = _recorded(_index(edit))
    (nc,) = [f for f in found if f.code == "scores-not-comparable"]
    assert nc.message == ("ssim: 13 recorded score(s) are not compared with the gate's threshold {'min': 0.97}: they come from scorer "
                          "'ssim-other', not the pinned 'ssim-wang2004' (another LPIPS version, weights or parameters score on another "
                          "scale), so meeting or missing the threshold would say nothing")
    assert (nc.status.value, nc.pointer, nc.expected, nc.observed) == ("UNVERIFIED", "/scorers/ssim", "ssim-wang2004", "ssim-other")
    assert [f.code for f in found if f.pointer == "/comparisons/3/scores"] == ["score-missing"]
    assert [f.message for f in found if f.code == "threshold-met"][0] == "comparison c01: as recorded: audio_cosine 0.98224 >= 0.8"


def test_a_score_without_a_threshold_or_refused_does_not_stop_the_scores_after_it():
    """Kills `:118` `continue` -> `break`: "a_extra" (no threshold) sorts before audio_cosine, which misses its threshold."""
    index = _index(lambda i: i["comparisons"][0]["scores"].update(a_extra=1, audio_cosine=0.5))
    assert _not(_recorded(index), "scorer-identity-pinned", "threshold-met", "pairs-complete") == [
        ("FAIL", "threshold-missed", "/comparisons/0/scores/audio_cosine", "comparison c01: recorded audio_cosine 0.5 does not meet >= 0.8")]


def test_only_a_thresholded_metric_neither_pinned_nor_rescored_is_not_attested():
    """Kills `:91` the loop made empty, and `:92` negated or either `and` -> `or`: lpips is reported, ssim (pinned, re-scored) and vmaf (no threshold) are not."""
    index = _index(lambda i: [c["scores"].update(lpips=0.1, vmaf=90) for c in i["comparisons"]])
    assert _not(_recorded(index), "scorer-identity-pinned", "threshold-met", "pairs-complete") == [
        ("UNVERIFIED", "metric-not-attested", "/comparisons",
         "lpips is recorded, but the gate neither pins its scorer nor re-computes it, so its values are not attested (its threshold is still applied below)")]


def test_a_score_at_its_bound_meets_it_and_the_bound_names_only_its_own_sides():
    """Kills `:120` `>=` -> `>` and `<=` -> `<`, and `:121` `lo is not None` / `hi is not None` -> `is None` (the bound shown)."""
    index = _index(lambda i: i["comparisons"][0]["scores"].update(ssim=0.97, lpips=0.2))
    (met,) = [f for f in _recorded(index) if f.pointer == "/comparisons/0"]
    assert (met.code, met.message) == ("threshold-met", "comparison c01: as recorded: audio_cosine 0.98224 >= 0.8; lpips 0.2 <= 0.2; ssim 0.97 >= 0.97")


def test_a_count_other_than_the_gates_fails_and_an_empty_list_meets_nothing():
    """Kills `:96` `"comparisons" in gate and ...` negated, `:99` `thresholds and not comparisons` negated, `:102` `observed=0` -> 1 / -1."""
    found = _recorded(_index(lambda i: i["comparisons"].pop()))
    assert [(f.code, f.message, f.expected, f.observed) for f in found if f.status.value == "FAIL"][0] == (
        "comparison-count", "13 comparisons recorded, the gate requires 14", 14, 13)
    empty = [f for f in _recorded(_index(lambda i: i.update(comparisons=[])), {**GATE, "pairs": None}) if f.code == "no-comparisons"]
    assert [(f.status.value, f.message, f.expected, f.observed) for f in empty] == [
        ("FAIL", "the gate sets quality thresholds (audio_cosine, lpips, ssim) but the index records no comparison, so no threshold was met by anything",
         ">= 1", 0)]
    assert not [f for f in _recorded(_index(lambda i: i.update(comparisons=[])), {**GATE, "thresholds": {}, "comparisons": 0, "pairs": None})
                if f.status.value != "PASS"]


def test_media_outside_the_bundle_and_a_missing_required_score_fail_the_comparison():
    """Kills `:105` and `:110` the loops over the two sides and over the required scores made empty."""
    index = _index(lambda i: i["comparisons"][1]["scores"].pop("audio_cosine"))
    found = _not(_recorded(index, unlisted=("media/A1-m1.mp4",)), "scorer-identity-pinned", "threshold-met", "pairs-complete")
    assert found == [
        ("FAIL", "media-not-in-bundle", "/comparisons/0/reference",
         "comparison c01 reference media/A1-m1.mp4 is neither a bundle file nor a declared external artifact"),
        ("FAIL", "score-missing", "/comparisons/1/scores", "comparison c02 has no audio_cosine score, which the gate requires")]


def test_duplicate_and_self_comparisons_fail_and_a_self_comparison_does_not_stop_the_pairs_after_it():
    """Kills `:142` the loop over the comparisons made empty and `:150` `continue` -> `break`."""
    def edit(i):
        c = i["comparisons"]
        c[1]["candidate"] = c[1]["reference"]  # c02 compares a file with itself
        c[2].update(id="c01", reference=c[0]["reference"], candidate=c[0]["candidate"])  # c03 repeats c01's id and pair
    found = _not(_recorded(_index(edit)), "scorer-identity-pinned", "threshold-met", "pairs-complete", "candidate-output-not-compared")
    assert found == [
        ("FAIL", "self-comparison", "/comparisons/1", "comparison c02 compares media/A1-m2.mp4 with itself"),
        ("FAIL", "duplicate-comparison-id", "/comparisons/2/id", "comparison id c01 is used twice (entries 0 and 2)"),
        ("FAIL", "duplicate-comparison", "/comparisons/2", "comparison c01 repeats comparison c01 (media/A1-m1.mp4 vs media/B1-m1.mp4)")]


def test_every_measured_candidate_output_is_counted_and_one_no_comparison_covers_fails():
    """
    Kills `:156` `!=` -> `==` or negated, `:162`, `:163`, `:165` and `:172` each loop made empty, `:163` `[:1]` -> `[:0]`
    and `:168` `== "measured"` -> `!=` (the count of measured candidate outputs), and `:176` `not missing` negated.
    """
    assert _not(_recorded(), "scorer-identity-pinned", "threshold-met") == [
        ("PASS", "pairs-complete", "/comparisons", "every measured candidate output (6) is compared against a baseline output")]
    assert not [f for f in _recorded(gate={**GATE, "pairs": None}) if f.code == "pairs-complete"]
    found = _recorded(_index(lambda i: i["comparisons"][0].update(candidate="media/B1-w1.mp4")))  # c01 sets a warmup output against A1-m1
    assert _not(found, "scorer-identity-pinned", "threshold-met") == [
        ("FAIL", "candidate-output-not-compared", "/comparisons",
         "measured candidate request B1-m1 output media/B1-m1.mp4 is not the candidate of any comparison against a baseline output")]


def test_only_a_requests_first_receipt_names_its_outputs():
    """Kills `:163` `receipts[:1]` -> `receipts[:2]`: a second receipt of a measured candidate request names an output nobody compared."""
    first = next(r for r in RECEIPTS if r.get("request_id") == "B1-m1")
    again = {**first, "outputs": [{"path": "media/B1-m1-again.mp4", "sha256": "0" * 64}]}
    found = _recorded(receipts=[*RECEIPTS, again])
    assert [(f.code, f.message) for f in found if f.code in ("pairs-complete", "candidate-output-not-compared")] == [
        ("pairs-complete", "every measured candidate output (6) is compared against a baseline output")]
