"""
Sentences about recorded scores bind to the subject, the count and the extreme their own words name (a hostile trial's defects 4, 5, 6).

On the shipped example (`examples/ref2va-5s/quality-index.json`): the lowest
SSIM is 0.991703 (c01 and c04), the highest 1.000000 (c11 to c14), c07's
0.991752; the gate counts 14 comparisons. Before these fixes, "The SSIM of
c07 was 0.991703" PASSed (0.991703 is c01's score, not c07's: the id was
ignored), "all 14 comparisons" in a sentence with "best SSIM" was compared
with the best SSIM (FAIL), and "from 0.991703 (worst) to 1.000000 (best)"
read "worst" for both numbers (FAIL on 1.000000).
"""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLE, ROOT

from verifier.prose.binding import bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.engine.pipeline import Context, run_pipeline
from verifier.readers.claimtext import extract
from verifier.trust.assets import assets

PR = ROOT / "examples" / "ref2va-5s-pr.md"


@pytest.fixture(scope="module")
def evidence():
    """Return `(evidence, pairs, keys, levels)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)


def judged(text: str, evidence) -> list[tuple[str, str, str, str | None]]:
    """(number, status, code, bound evidence name) of each quantity of `text`."""
    return [(o.quantity.number, o.status, o.code, o.evidence) for o in bind(extract(text, "pr.md"), *evidence)
            if not o.quantity.informational]


def cli(run, tmp_path, sentence: str) -> tuple[int, list[dict]]:
    """Run `verify --claims-text` on the example with its PR text plus `sentence`; return the exit code and the sentence's findings."""
    pr = tmp_path / "PR.md"
    pr.write_text(PR.read_text(encoding="utf-8") + "\n" + sentence + "\n", encoding="utf-8")
    result = run("check", "-f", "json", str(EXAMPLE), "--claims-text", str(pr))
    document = json.loads(result.stdout)
    mine = [f for f in document["findings"] if f["check"] == "claims.stated" and f["observed"].get("sentence") == sentence
            and f["code"] != "informational"]
    return result.exit_code, mine


# defect 5: a comparison id (or any subject id) named in the sentence is the subject of its number

def test_a_comparison_named_binds_to_its_own_score_cli(run, tmp_path):
    """The trial's sentence: 0.991703 is c01's (the lowest) SSIM, not c07's 0.991752: FAIL naming c07's score."""
    code, found = cli(run, tmp_path, "The SSIM of c07 was 0.991703.")
    assert code == 1
    assert [(f["status"], f["code"], f["observed"]["binding"]) for f in found] == [("FAIL", "claim-mismatch", "quality.ssim.c07")]
    code, found = cli(run, tmp_path, "The SSIM of c07 was 0.991752.")
    assert code == 0
    assert [(f["status"], f["code"], f["observed"]["binding"]) for f in found] == [("PASS", "recorded-score", "quality.ssim.c07")]


@pytest.mark.parametrize(("text", "want"), [
    ("The SSIM of c07 was 0.991703.", [("0.991703", "FAIL", "claim-mismatch", "quality.ssim.c07")]),
    ("The SSIM of c07 was 0.991752.", [("0.991752", "PASS", "recorded-score", "quality.ssim.c07")]),
    ("c11 scored an SSIM of 1.000000.", [("1.000000", "PASS", "recorded-score", "quality.ssim.c11")]),
    ("c11 scored an SSIM of 0.991703.", [("0.991703", "FAIL", "claim-mismatch", "quality.ssim.c11")]),
    ("The audio cosine of c03 (0.977337) was the lowest.", [("0.977337", "PASS", "recorded-score", "quality.audio_cosine.c03")]),
    ("The SSIM (c02) was 0.991703.", [("0.991703", "FAIL", "claim-mismatch", "quality.ssim.c02")]),
    ("The SSIM was 0.991752 (c07).", [("0.991752", "PASS", "recorded-score", "quality.ssim.c07")]),
    ("The SSIM was 0.991703 (c07).", [("0.991703", "FAIL", "claim-mismatch", "quality.ssim.c07")]),
])
def test_a_comparison_named_binds_to_its_own_score(text, want, evidence):
    assert judged(text, evidence) == want


@pytest.mark.parametrize("text", ["The SSIM of c99 was 0.991703.", "The SSIM of C15 was 1.000000."])
def test_a_comparison_id_the_evidence_lacks_is_unverified_with_the_reason(text, evidence):
    outcomes = [o for o in bind(extract(text, "pr.md"), *evidence) if not o.quantity.informational]
    assert [(o.status, o.code) for o in outcomes] == [("UNVERIFIED", "unbound-claim")]
    assert "no comparison, request, server or arm" in outcomes[0].message, outcomes[0].message


@pytest.mark.parametrize(("text", "want"), [
    # A1-m1's output is the reference of c01 only (SSIM 0.991703)
    ("The SSIM of request A1-m1 was 0.991703.", [("0.991703", "PASS", "recorded-score", "quality.ssim.c01")]),
    ("The SSIM of request A1-m1 was 1.000000.", [("1.000000", "FAIL", "claim-mismatch", "quality.ssim.c01")]),
    # B2-m1's output is in c04 (0.991703) and c11 (1.0): the lowest of B2-m1 is c04's
    ("The lowest SSIM of request B2-m1 was 0.991703.", [("0.991703", "PASS", "recorded-score", "quality.ssim.c04")]),
    ("The lowest SSIM of request B2-m1 was 1.000000.", [("1.000000", "FAIL", "claim-mismatch", "quality.ssim.c04")]),
    # server A2's outputs: c04, c05, c06, c09, c10: lowest 0.991703, highest 0.991752 (not the campaign's 1.000000)
    ("The highest SSIM on server A2 was 0.991752.", [("0.991752", "PASS", "recorded-score", "quality.ssim.c09")]),
    ("The highest SSIM on server A2 was 1.000000.", [("1.000000", "FAIL", "claim-mismatch", "quality.ssim.c09")]),
])
def test_a_request_or_server_named_binds_to_the_scores_of_its_outputs(text, want, evidence):
    assert judged(text, evidence) == want


def test_a_subject_whose_scores_disagree_and_no_extreme_named_is_unbound(evidence):
    """Server A2's SSIMs are 0.991703 .. 0.991752: "the SSIM on server A2 was 0.9917" names none of them."""
    assert judged("The SSIM on server A2 was 0.991700.", evidence) == [("0.991700", "UNVERIFIED", "unbound-claim", None)]
    message = bind(extract("The SSIM on server A2 was 0.991700.", "pr.md"), *evidence)[0].message
    assert message.startswith("0.991700 is not bound: the subject ('A2') leaves 5 derivations that disagree"), message
    assert judged("The SSIM on server A2 was 0.991729.", evidence) == [("0.991729", "PASS", "recorded-score", "quality.ssim.c05")]


def test_a_server_the_evidence_lacks_in_a_score_sentence_is_unverified(evidence):
    outcomes = [o for o in bind(extract("The SSIM on server A9 was 0.991703.", "pr.md"), *evidence) if not o.quantity.informational]
    assert [(o.status, o.code) for o in outcomes] == [("UNVERIFIED", "unbound-claim")]
    assert "'A9'" in outcomes[0].message


# defect 4: a count followed by its counted noun is a count, never the score of its clause

def test_a_count_of_comparisons_beside_a_score_is_a_count_cli(run, tmp_path):
    code, found = cli(run, tmp_path, "The best SSIM was 1.000000, and all 14 comparisons passed.")
    assert code == 0, found
    assert [(f["status"], f["observed"]["binding"]) for f in found] == [("PASS", "quality.ssim.max"), ("PASS", "count.comparisons")]
    code, found = cli(run, tmp_path, "The best SSIM was 1.000000, and all 15 comparisons passed.")
    assert code == 1
    assert [(f["status"], f["code"], f["observed"]["binding"]) for f in found] == [
        ("PASS", "recorded-score", "quality.ssim.max"), ("FAIL", "claim-mismatch", "count.comparisons")]


@pytest.mark.parametrize(("text", "want"), [
    ("The lowest SSIM over 14 comparisons was 0.991703.",
     [("14", "PASS", "bound", "count.comparisons"), ("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
    ("The lowest SSIM over 20 requests was 0.991703.",
     [("20", "PASS", "bound", "count.requests"), ("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
    ("The lowest SSIM over 21 requests was 0.991703.",
     [("21", "FAIL", "claim-mismatch", "count.requests"), ("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
    # a count of something the evidence does not count stays unaccounted for, never a score
    ("The best SSIM was 1.000000 across 3 clips.", [("1.000000", "PASS", "recorded-score", "quality.ssim.max"),
                                                    ("3", "UNVERIFIED", "unchecked-claim", None)]),
])
def test_a_count_followed_by_its_noun_binds_as_a_count(text, want, evidence):
    assert judged(text, evidence) == want


# defect 6: each number takes the extreme word nearest to it; "from X to Y" of a score is its range

def test_a_range_with_both_extremes_named_cli(run, tmp_path):
    code, found = cli(run, tmp_path, "SSIM ranged from 0.991703 (worst) to 1.000000 (best).")
    assert code == 0, found
    assert [(f["status"], f["observed"]["binding"]) for f in found] == [("PASS", "quality.ssim.min"), ("PASS", "quality.ssim.max")]
    code, found = cli(run, tmp_path, "SSIM ranged from 0.991729 (worst) to 1.000000 (best).")
    assert code == 1
    assert [(f["status"], f["observed"]["binding"]) for f in found] == [("FAIL", "quality.ssim.min"), ("PASS", "quality.ssim.max")]


@pytest.mark.parametrize(("text", "want"), [
    ("SSIM ranged from 0.991703 (worst) to 1.000000 (best).", ["PASS", "PASS"]),
    ("SSIM ranged from 1.000000 (best) to 0.991703 (worst).", ["PASS", "PASS"]),
    ("SSIM ranged from 0.991703 (best) to 1.000000 (worst).", ["FAIL", "FAIL"]),
    ("SSIM ranged from 0.991703 (lowest) to 1.000000 (highest).", ["PASS", "PASS"]),
    ("SSIM ranged from 0.991703 to 1.000000 (best).", ["PASS", "PASS"]),
    ("SSIM ranged from 0.991703 to 1.000000.", ["PASS", "PASS"]),
    ("SSIM ranged from 1.000000 down to 0.991703.", ["PASS", "PASS"]),
    # c07's 0.991752 is a recorded score, but not the low end of the range
    ("SSIM ranged from 0.991752 to 1.000000.", ["FAIL", "PASS"]),
    ("SSIM ranged from 0.991703 to 0.991752.", ["PASS", "FAIL"]),
    ("The worst SSIM was 0.991703 and the best 1.000000.", ["PASS", "PASS"]),
    ("The best SSIM was 1.000000 and the worst 0.991703.", ["PASS", "PASS"]),
    ("The best SSIM was 0.991703 and the worst 1.000000.", ["FAIL", "FAIL"]),
    # a word before a number is as far from it as from its first digit: "lowest" is 0.991703's, 1 character away, not
    # 1.000000's, 9 away (measured from 0.991703's last digit it would be 9 too, and a tie keeps it for both)
    ("The SSIM scores were 1.000000 and the lowest 0.991703.", ["PASS", "PASS"]),
])
def test_each_number_takes_the_extreme_word_nearest_to_it(text, want, evidence):
    assert [status for _, status, _, _ in judged(text, evidence)] == want


# defect 5's class beyond scores: an id named that the evidence lacks is never bound to another subject's value

@pytest.mark.parametrize(("text", "word"), [
    ("Server A9 handled 5 requests.", "A9"),  # was FAIL against all 20 requests
    ("Server C1 had a mean of 396.30 s.", "C1"),  # was PASS on A1's mean
    ("Request A1-m9 took 495.38 s.", "A1-m9"),  # was unbound-claim listing every request
    ("The SSIM of comparison x7 was 0.991752.", "x7"),  # after "comparison", whatever its shape
])
def test_an_id_the_evidence_lacks_is_unverified_naming_it(text, word, evidence):
    outcomes = [o for o in bind(extract(text, "pr.md"), *evidence) if not o.quantity.informational]
    assert [(o.status, o.code) for o in outcomes] == [("UNVERIFIED", "unbound-claim")]
    assert f"its words name '{word}', and the evidence has no comparison, request, server or arm '{word}'" in outcomes[0].message


@pytest.mark.parametrize(("text", "want"), [
    ("Server A1 had a mean of 396.30 s.", [("396.30", "PASS", "bound", "server_mean_s.A1")]),
    ("Server A1 had a mean of 418.24 s.", [("418.24", "FAIL", "claim-mismatch", "server_mean_s.A1")]),
    ("Server B2 handled 5 requests.", [("5", "PASS", "bound", "server.B2.all.count")]),
    ("Request A1-w1 took 495.38 s.", [("495.38", "PASS", "bound", "request.A1-w1.elapsed_s")]),
    # a word of another width is no id of this shape: "A100" beside A1, A2
    ("The A100 SSIM was 0.991703 at its lowest.", [("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
])
def test_an_id_the_evidence_has_binds_to_its_own_value(text, want, evidence):
    assert judged(text, evidence) == want


@pytest.mark.parametrize(("text", "want"), [
    # the counted noun's first word is no plural ("quality"): the count noun of the gate's count still makes it a count
    ("The best SSIM was 1.000000, and all 14 quality comparisons passed.",
     [("1.000000", "PASS", "recorded-score", "quality.ssim.max"), ("14", "PASS", "bound", "count.comparisons")]),
    # a whole number followed by a word that is no plural noun ("exactly"), by "across" or by "means" is still a score
    ("The highest SSIM was 1 exactly.", [("1", "PASS", "recorded-score", "quality.ssim.max")]),
    ("The highest SSIM was 1 across the candidate pairs.", [("1", "PASS", "recorded-score", "quality.ssim.max")]),
    ("An SSIM of 1 means identical frames.", [("1", "PASS", "recorded-score", "quality.ssim.min")]),  # 1 is 0.5 .. 1.5
    # a gate threshold quoted as such takes no extreme word: "lowest" stays 0.991752's, which is not the lowest
    ("The lowest SSIM, well above the gate of 0.97, was 0.991752.",
     [("0.97", "PASS", "gate-threshold", "gate.quality.ssim.min"), ("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min")]),
    # an arrow of scores is a range too; equal ends are either end
    ("SSIM went 0.991752 → 1.000000.", [("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min"),
                                         ("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
    # "->" is an arrow, not "greater than": neither end is a gate threshold or a bound
    ("SSIM went 0.991752 -> 1.000000.", [("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min"),
                                          ("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
    ("SSIM ranged from 0.991703 to 0.991703.", [("0.991703", "PASS", "recorded-score", "quality.ssim.min"),
                                                 ("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
    # "baseline" and "candidate" name a side of every comparison, not a subject: the highest of all scores
    ("The highest SSIM between baseline and candidate was 1.000000.", [("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
])
def test_the_edges_of_counts_extremes_and_sides(text, want, evidence):
    assert judged(text, evidence) == want


def test_an_id_with_no_recorded_score_is_unverified():
    """A request the evidence has whose output no comparison scored: its words name it, so no other score stands for it."""
    from decimal import Decimal

    from verifier.prose.binding import Evidence
    scores = [Evidence("quality.x.min", Decimal("0.5"), None, "recorded", "lowest", statistic="min", topics=frozenset({"x"})),
              Evidence("quality.x.c1", Decimal("0.5"), None, "recorded", "x of c1", topics=frozenset({"x"}),
                       keys=frozenset({"c1", "r1"}), level="comparison")]
    outcomes = bind(extract("The x of r2 was 0.5.", "pr.md"), scores, [], {"r1": "r1", "r2": "r2"})
    assert [(o.status, o.code) for o in outcomes] == [("UNVERIFIED", "unbound-claim")]
    assert "its words name 'r2', and no recorded x score is of a comparison, request, server or arm 'r2'" in outcomes[0].message
    assert [(o.status, o.evidence) for o in bind(extract("The x of r1 was 0.5.", "pr.md"), scores, [], {"r1": "r1", "r2": "r2"})] == \
        [("PASS", "quality.x.c1")]


@pytest.mark.parametrize(("text", "want"), [
    # a number with a point is never a count, whatever follows it
    ("The lowest SSIM was 0.991703 points.", [("0.991703", "PASS", "recorded-score", "quality.ssim.min")]),
    # a number with a unit of no counted dimension is not a count of the noun after it: the plan's 24 fps
    ("The outputs ran at 24 fps videos.", [("24", "PASS", "plan-count", "plan.expected_output.fps")]),
    # a count takes no extreme word from the score beside it
    ("The lowest of the 14 comparisons' SSIM scores was 0.991752.",
     [("14", "PASS", "bound", "count.comparisons"), ("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min")]),
    # each end of "from X up/down to Y" is a range's end, read from either side
    ("SSIM ranged from 0.991752 up to 1.000000.", [("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min"),
                                                    ("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
    ("SSIM ranged from 0.991703 up to 0.991752.", [("0.991703", "PASS", "recorded-score", "quality.ssim.min"),
                                                    ("0.991752", "FAIL", "claim-mismatch", "quality.ssim.max")]),
    # "from X" with no "to" before the next number, and a number after one that follows "from" without "to": no range
    ("SSIM from 0.991752 was reported, with 1.000000 at its best.", [("0.991752", "PASS", "recorded-score", "quality.ssim.c07"),
                                                                     ("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
    ("SSIM ranged from 0.991703; 0.991752 was also recorded.", [("0.991703", "PASS", "recorded-score", "quality.ssim.min"),
                                                                 ("0.991752", "PASS", "recorded-score", "quality.ssim.c07")]),
    # "to" with no "from" before the score before it is no range; an arrow's end is, "from" or not
    ("SSIM 1.000000 to 0.991752, by comparison.", [("1.000000", "PASS", "recorded-score", "quality.ssim.max"),
                                                   ("0.991752", "PASS", "recorded-score", "quality.ssim.c07")]),
    ("SSIM went 1.000000 → 0.991752.", [("1.000000", "PASS", "recorded-score", "quality.ssim.max"),
                                         ("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min")]),
    # the "to" end pairs with the nearest score before it (1.000000), not the first (0.991703): the lower end
    ("SSIM 0.991703 was recorded, and scores ranged from 1.000000 down to 0.991752.", [
        ("0.991703", "PASS", "recorded-score", "quality.ssim.min"), ("1.000000", "PASS", "recorded-score", "quality.ssim.max"),
        ("0.991752", "FAIL", "claim-mismatch", "quality.ssim.min")]),
    # the nearest "from" end pairs with a "to" end, not an earlier score
    ("SSIM 0.991752 was recorded, and scores ranged from 0.991703 to 1.000000.", [
        ("0.991752", "PASS", "recorded-score", "quality.ssim.c07"), ("0.991703", "PASS", "recorded-score", "quality.ssim.min"),
        ("1.000000", "PASS", "recorded-score", "quality.ssim.max")]),
    # a known id named: an id-shaped word beside it does not unbind the number
    ("A1's mean, unlike the retired A9's, was 396.30 s.", [("396.30", "PASS", "bound", "server_mean_s.A1")]),
])
def test_counts_ranges_and_ids_at_their_edges(text, want, evidence):
    assert judged(text, evidence) == want


def test_the_messages_say_which_end_and_why(evidence):
    """A range's end says so; an extreme word says its statistic; a metric of two words is named by its first word in order."""
    ranged = bind(extract("SSIM ranged from 0.991752 to 1.000000.", "pr.md"), *evidence)[0]
    assert "the wording (the lower end of a range from ... to) says it is quality.ssim.min" in ranged.message, ranged.message
    lowest = bind(extract("The lowest SSIM was 0.991752.", "pr.md"), *evidence)[0]
    assert "the wording (min) says it is quality.ssim.min" in lowest.message, lowest.message


def test_an_id_with_no_score_of_a_two_word_metric_names_the_metric():
    from decimal import Decimal

    from verifier.prose.binding import Evidence
    words = frozenset({"audio", "cosine"})
    scores = [Evidence("quality.audio_cosine.c1", Decimal("0.9"), None, "recorded", "c1", topics=words, keys=frozenset({"c1"}),
                       level="comparison")]
    outcome = bind(extract("The audio cosine of r2 was 0.9.", "pr.md"), scores, [], {"r2": "r2"})[0]
    assert "no recorded audio score is of a comparison, request, server or arm 'r2'" in outcome.message, outcome.message


def test_equal_ends_at_the_top_and_the_subject_in_messages(evidence):
    """Equal ends are either end (at the top too); a subject's verdict names it."""
    assert [st for _, st, _, _ in judged("SSIM ranged from 1.000000 to 1.000000.", evidence)] == ["PASS", "PASS"]
    wrong = bind(extract("The SSIM of c07 was 0.991703.", "pr.md"), *evidence)[0]
    assert "but the wording ('c07') says it is quality.ssim.c07" in wrong.message, wrong.message
    right = bind(extract("The SSIM of c07 was 0.991752.", "pr.md"), *evidence)[0]
    assert right.message.endswith("; the wording ('c07') names it"), right.message
    lowest = bind(extract("The lowest SSIM of request B2-m1 was 1.000000.", "pr.md"), *evidence)[0]
    assert "but the wording ('B2-m1', min) says it is quality.ssim.c04" in lowest.message, lowest.message


def test_an_output_is_about_the_plans_arm_of_its_server_else_the_receipts_own():
    """`_subjects_of_outputs`: the plan's arm of a receipt's server decides (a receipt that names another arm does not move its
    outputs, `plan.conformance` FAILs that receipt); a server the plan does not list keeps the receipt's own arm."""
    from verifier.readers.campaign import Campaign
    from verifier.model.evidence import Plan, PlannedRequest
    from verifier.readers.native import from_documents

    lines = [{"kind": "request", "request_id": "r1", "server": "s1", "arm": "b", "phase": "measured", "outcome": "ok",
              "started_at": "2026-01-01T00:00:01Z", "ended_at": "2026-01-01T00:00:02Z", "elapsed_s": 1,
              "outputs": [{"path": "out/r1.wav", "sha256": "ab" * 32}]},
             {"kind": "request", "request_id": "r2", "server": "s9", "arm": "b", "phase": "measured", "outcome": "ok",
              "started_at": "2026-01-01T00:00:01Z", "ended_at": "2026-01-01T00:00:02Z", "elapsed_s": 1,
              "outputs": [{"path": "out/r2.wav", "sha256": "cd" * 32}]}]
    receipts = from_documents({"receipts": lines}, manifest=None, names={"receipts": "receipts.jsonl"}).receipts
    plan = Plan(arms={"a": "baseline", "b": "candidate"}, servers={"s1": "a"}, requests=(PlannedRequest("r1", "s1", "measured"),))
    c = Campaign(plan=plan, receipts=receipts, arm_of_server={"s1": "a"})
    assert statements._subjects_of_outputs(c) == {"out/r1.wav": frozenset({"r1", "s1", "a"}), "out/r2.wav": frozenset({"r2", "s9", "b"})}
