"""
Tests that kill surviving mutants of `verifier/checks/statements.py` `profile_candidates` (was `checks/profile_statements.py`; issue 42, cosmic-ray run of record).

`claims.stated` on a bundle a profile reads, driven as `verify --claims-text`
drives it (`verify_path(..., profile=, claims_text=)`) on tiny profiles whose
receipts are `runs/{arm}.csv` (arms `alpha`, `beta`): the arm words a rule's
`baseline`/`candidate` give, the arm and server ids, a rule with no records
or an underivable instance skipped without hiding the next, the instances
after a count or a relative value, the topics of a speedup, a reduction and
a time value, the headline (primary) pair of a mean of server means, a
per-arm rule with one arm, a join in a selection, and the
`MAX_QUANTITIES` limit at its boundary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import make_assets
from helpers import write_tree

from verifier.readers.claimtext import MAX_QUANTITIES
from verifier.core import verify_path

AT = {"file": "summary.json", "pointer": "/x"}
FIELDS = {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}
RUNS = {"runs/alpha.csv": "s\n2\n4\n", "runs/beta.csv": "s\n1\n2\n"}  # means 3 s and 1.5 s
SERVERS = {"server": {"pointer": "/server"}}


def _rule(rid: str, statistic: str, **kw: Any) -> dict[str, Any]:
    """A claim rule over receipt set `runs` (unit `s` unless `unit=None` drops it, as a count has none)."""
    rule = {"id": rid, "receipts": "runs", "statistic": statistic, "selection": {"phase": "measured"}, "unit": "s", "at": AT, **kw}
    return {k: v for k, v in rule.items() if v is not None}


def _cut(**kw: Any) -> dict[str, Any]:
    return _rule("cut", "relative_reduction_pct", unit="%", baseline="alpha", candidate="beta", **kw)


def _sets(name: str, glob: str, **kw: Any) -> dict[str, Any]:
    return {name: {"glob": glob, "encoding": "csv", "name": glob.replace("*", "{arm}"), "fields": FIELDS, **kw}}


def _report(tmp_path: Path, files: dict[str, str], claims: list[dict], text: str, **runs: Any):
    """Verify `files` (+ an empty `summary.json`) under a profile of `claims` with claim text `text`; `runs` extends set `runs`."""
    sets = _sets("runs", "runs/*.csv", **{k: v for k, v in runs.items() if k != "more"})
    sets.update(runs.get("more", {}))
    doc = {"id": "p", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"}, "receipts": sets, "claims": claims}
    bundle = write_tree(tmp_path / "run", {**files, "summary.json": "{}"})
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"p": doc}), profile="p", claims_text=("pr.md", text))


def _stated(report) -> list[tuple[str, str, str]]:
    """(status, code, message up to the sentence) of every `claims.stated` finding; asserts no finding is an ERROR."""
    assert not [f.message for f in report.findings if f.status.value == "ERROR"]
    return [(f.status.value, f.code, f.message.split(" Sentence: ")[0]) for f in report.findings if f.check == "claims.stated"]


def test_baseline_and_candidate_words_and_arm_ids_name_the_profiles_arms(tmp_path):
    """
    Kills `:50` and `:51` for loops over nothing, `:52` `not` deleted (no `baseline` -> `alpha` word: no pair, the
    wrong arm), and `:67` for loop over nothing (`beta` is no arm id: its 3 s would bind to alpha's mean).
    """
    text = "The baseline mean is 3 s and the candidate mean is 1.5 s, 50 % lower. The mean of beta is 3 s."
    assert _stated(_report(tmp_path, RUNS, [_rule("mean_s", "mean", per=["arm"]), _cut()], text)) == [
        ("PASS", "bound", "pr.md:1:22: 3 s is mean_s[arm=alpha] = 3 s (mean of 2 values of latency (arm=alpha, phase=measured))."),
        ("PASS", "bound", "pr.md:1:52: 1.5 s is mean_s[arm=beta] = 1.5 s (mean of 2 values of latency (arm=beta, phase=measured))."),
        ("PASS", "bound", 'pr.md:1:59: 50 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 50 '
                          "from mean_s: baseline 3 s, candidate 1.5 s."),
        ("FAIL", "claim-mismatch", "pr.md:1:91: states 3 s, but the wording ('beta', 'mean') says it is mean_s[arm=beta], which the "
                                   "evidence gives as 1.5 s (delta 1.5 s, tolerance 0.5 s; mean of 2 values of latency "
                                   "(arm=beta, phase=measured)).")]


def test_a_rule_without_records_does_not_hide_the_rules_after_it(tmp_path):
    """Kills `:59` `continue` -> `break` (the rule over the empty set `none` would end the collection)."""
    claims = [_rule("gone", "mean", receipts="none"), _rule("mean_s", "mean", per=["arm"])]
    report = _report(tmp_path, RUNS, claims, "The mean of beta is 1.5 s.", more=_sets("none", "nothing/*.csv"))
    assert _stated(report) == [
        ("PASS", "bound", "pr.md:1:21: 1.5 s is mean_s[arm=beta] = 1.5 s (mean of 2 values of latency (arm=beta, phase=measured)).")]


def test_an_underivable_instance_is_skipped_and_the_next_instance_still_binds(tmp_path):
    """Kills `:65` `except Underivable` replaced (an ERROR) and `:66` `continue` -> `break` (beta's SD never derived)."""
    files = {"runs/alpha.csv": "s\n2\n", "runs/beta.csv": "s\n1\n2\n"}  # alpha: one value, no sample SD
    assert _stated(_report(tmp_path, files, [_rule("sd_s", "sd", per=["arm"])], "The sd of beta is 0.71 s.")) == [
        ("PASS", "bound", "pr.md:1:19: 0.71 s is sd_s[arm=beta] = 0.707106781187 s "
                          "(sample SD (n-1) of 2 values of latency (arm=beta, phase=measured)).")]


def test_every_instance_of_a_count_rule_is_a_value(tmp_path):
    """Kills `:74` `continue` -> `break` (only alpha's count, 2, would be derived; the bare 3 is beta's)."""
    files = {"runs/alpha.csv": "s\n2\n4\n", "runs/beta.csv": "s\n1\n2\n3\n"}
    assert _stated(_report(tmp_path, files, [_rule("n", "count", per=["arm"], unit=None)], "Then 3.")) == [
        ("PASS", "bound", "pr.md:1:6: 3 is n[arm=beta] = 3 (count of 3 receipts with arm=beta, phase=measured).")]


def test_a_speedup_and_a_reduction_carry_their_own_topic(tmp_path):
    """Kills `:77` `statistic == "speedup"` -> `!=` and `not (...)`: the topics swapped, 50 would pass as the speedup."""
    claims = [_rule("fast", "speedup", unit="x", baseline="alpha", candidate="beta"), _cut()]
    assert _stated(_report(tmp_path, RUNS, claims, "The speedup is 50. The reduction is 2.")) == [
        ("FAIL", "claim-mismatch", "pr.md:1:16: states 50, but the wording ('speedup') says it is fast, which the evidence gives as 2 "
                                   "(delta 48, tolerance 5; baseline / candidate: baseline 3 (mean 3 over 2), candidate 1.5 "
                                   "(mean 1.5 over 2))."),
        ("FAIL", "claim-mismatch", "pr.md:1:37: states 2, but the wording ('reduction') says it is cut, which the evidence gives as "
                                   "50.0 (delta -48.0, tolerance 0.5; (1 - candidate/baseline) * 100: baseline 3 (mean 3 over 2), "
                                   "candidate 1.5 (mean 1.5 over 2)).")]


def test_every_instance_of_a_relative_rule_is_a_value(tmp_path):
    """Kills `:78` `continue` -> `break` (only server s1's reduction would be derived; s2's 25 would name nothing)."""
    files = {"runs/alpha.csv": "s,server\n2,s1\n4,s2\n", "runs/beta.csv": "s,server\n1,s1\n3,s2\n"}
    assert _stated(_report(tmp_path, files, [_cut(per=["server"])], "s2 shows a reduction of 25.", dimensions=SERVERS)) == [
        ("PASS", "bound", "pr.md:1:25: 25 is cut[server=s2] = 25 ((1 - candidate/baseline) * 100: baseline 4 "
                          "(server s2 mean 4 over 1), candidate 3 (server s2 mean 3 over 1)).")]


def test_a_time_value_has_the_latency_topic_and_a_memory_value_has_its_ids_words(tmp_path):
    """
    Kills `:80` `and` -> `or` (first: every unit timed), `unit is not None` -> `is None`, `dimension == "time"` -> `!=`,
    and `:83` `not timed`: "latency" must single out the time value `wall` from the MiB value `peak` of the same arm.
    """
    files = {"runs/alpha.csv": "s,mem\n2,10\n4,10\n", "runs/beta.csv": "s,mem\n1,5\n2,5\n"}
    claims = [_rule("wall", "mean", per=["arm"]), _rule("peak", "mean", per=["arm"], unit="MiB", value="mem")]
    report = _report(tmp_path, files, claims, "The latency of alpha is 5 s.", values={"mem": {"pointer": "/mem", "unit": "MiB"}})
    assert _stated(report) == [
        ("FAIL", "claim-mismatch", "pr.md:1:25: states 5 s, but the wording ('alpha', 'latency') says it is wall[arm=alpha], which the "
                                   "evidence gives as 3 s (delta 2 s, tolerance 0.5 s; mean of 2 values of latency "
                                   "(arm=alpha, phase=measured)).")]


# alpha: servers s1 [3], s2 [3]; beta: s1 [1, 1, 1], s2 [2]: median 3 -> 1 (66.67 % lower), mean of server means 3 -> 1.5 (50 %)
SPLIT = {"runs/alpha.csv": "s,server\n3,s1\n3,s2\n", "runs/beta.csv": "s,server\n1,s1\n1,s1\n1,s1\n2,s2\n"}
HEADLINE = [_rule("med", "median", per=["arm"]), _rule("agg", "mean_of_server_means", per=["arm"]), _cut()]


def test_the_mean_of_server_means_per_arm_is_the_headline_pair(tmp_path):
    """
    Kills `:84` `and` -> `or`, `statistic == "mean_of_server_means"` -> `!=`, `level == "arm"` -> `!=`: a relative
    number naming no statistic compares the headline pair (agg, 50 %), not the first pair (med, 66.67 %).
    """
    assert _stated(_report(tmp_path, SPLIT, HEADLINE, "Latency is 50 % lower.", dimensions=SERVERS)) == [
        ("PASS", "bound", 'pr.md:1:12: 50 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 50 '
                          "from agg: baseline 3 s, candidate 1.5 s.")]


def test_an_arrow_tries_the_headline_pair_first(tmp_path):
    """Kills `:90` `not p.primary` -> `p.primary` (med, listed first, would be tried first: its 3 s start matches, its end is 1 s)."""
    assert _stated(_report(tmp_path, SPLIT, HEADLINE, "Latency went from 3 s -> 1.5 s.", dimensions=SERVERS)) == [
        ("PASS", "bound", "pr.md:1:19: 3 s is agg[arm=alpha] = 3 s (mean of server means (arm=alpha, phase=measured): server s1 mean 3 "
                          "over 1; server s2 mean 3 over 1); the start of an arrow is the baseline."),
        ("PASS", "bound", "pr.md:1:26: 1.5 s is agg[arm=beta] = 1.5 s (mean of server means (arm=beta, phase=measured): server s1 mean 1 "
                          "over 3; server s2 mean 2 over 1); the end of an arrow is the candidate.")]


def test_a_per_arm_rule_with_the_baseline_arm_only_makes_no_pair(tmp_path):
    """Kills `:89` `base in arms and cand in arms` -> `or` (a KeyError for the absent candidate: an ERROR)."""
    claims = [_cut(), _rule("solo", "mean", per=["arm"], receipts="solo")]
    report = _report(tmp_path, {**RUNS, "solo/alpha.csv": "s\n3\n"}, claims, "The mean of alpha is 3 s.", more=_sets("solo", "solo/*.csv"))
    assert _stated(report) == [
        ("PASS", "bound", "pr.md:1:22: 3 s is solo[arm=alpha] = 3 s (mean of 1 values of latency (arm=alpha, phase=measured)).")]


def test_a_join_in_the_selection_is_resolved_per_instance(tmp_path):
    """
    Kills `:61` `not any(...)` -> `any(...)` and `:64` `rule if plain` -> `if not plain`: the rule with its join
    unresolved selects nothing, so beta's mean over GPU 1 (1.5 s, not the 50 s run on GPU 0) is never derived.
    """
    files = {"runs/alpha.csv": "s,gpu\n2,0\n4,0\n100,1\n", "runs/beta.csv": "s,gpu\n1,1\n2,1\n50,0\n", "jobs.csv": "arm,gpus,s\nalpha,0,0\nbeta,1,0\n"}
    join = {"receipts": "jobs", "pointer": "/gpus", "on": ["arm"]}
    jobs = {"jobs": {"glob": "jobs.csv", "encoding": "csv",
                     "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"pointer": "/arm"}, "phase": {"value": "setup"}}}}
    claims = [_rule("mean_s", "mean", per=["arm"], selection={"phase": "measured", "gpu": join})]
    report = _report(tmp_path, files, claims, "The mean of beta is 1.5 s.", dimensions={"gpu": {"pointer": "/gpu"}}, more=jobs)
    assert _stated(report) == [
        ("PASS", "bound", "pr.md:1:21: 1.5 s is mean_s[arm=beta] = 1.5 s (mean of 2 values of latency (arm=beta, gpu=in 1, phase=measured)).")]


def test_a_claim_text_of_exactly_max_quantities_numbers_is_checked(tmp_path):
    """Kills `:106` `len(quantities) > MAX_QUANTITIES` -> `>=` (2000 numbers would be refused as too many)."""
    stated = _stated(_report(tmp_path, RUNS, [_rule("mean_s", "mean", per=["arm"])], "3 s. " * MAX_QUANTITIES))
    assert len(stated) == MAX_QUANTITIES and {(s, c) for s, c, _ in stated} == {("PASS", "bound")}


def test_a_percentile_rule_with_a_whole_q_is_named_p50_not_p5e1(tmp_path):
    """A rule `{"statistic": "percentile", "q": 50}` is the p50 a sentence names (`Decimal(50).normalize()` is `5E+1`)."""
    runs = {"runs/alpha.csv": "s\n1\n2\n3\n", "runs/beta.csv": "s\n1\n2\n3\n"}
    found = _stated(_report(tmp_path, runs, [_rule("lat", "percentile", q=50, per=["arm"], method="nearest-rank")],
                            "The p50 of alpha is 9 s."))
    assert [(s, c) for s, c, _ in found] == [("FAIL", "claim-mismatch")], found
    assert "lat[arm=alpha]" in found[0][2]


def test_a_count_over_all_arms_is_never_one_arms_count_nor_a_count_per_arm(tmp_path):
    """A campaign count (4) is not alpha's count, nor the count "each arm" ran: both UNVERIFIED, never FAIL against 4."""
    text = "Alpha handled 2 requests. Each arm ran 2 requests. We ran 4 measured requests."
    found = _stated(_report(tmp_path, RUNS, [_rule("n", "count", unit=None), _rule("mean_s", "mean", per=["arm"])], text))
    assert found == [
        ("UNVERIFIED", "unchecked-claim", "pr.md:1:15: 2 requests is not accounted for: the wording names 'alpha', and the evidence "
                                          "counts no requests for it."),
        ("UNVERIFIED", "unchecked-claim", "pr.md:1:40: 2 requests is not accounted for: no derived value, plan count or gate "
                                          "threshold has this value, and the wording names none."),
        ("PASS", "bound", "pr.md:1:59: 4 is n = 4 (count of 4 receipts with phase=measured).")]


def test_a_count_per_arm_binds_to_the_arm_named_or_to_each_arm_never_to_the_total(tmp_path):
    text = "Alpha handled 3 requests. Each arm ran 2 requests. We ran 4 requests."
    found = _stated(_report(tmp_path, RUNS, [_rule("n_arm", "count", unit=None, per=["arm"])], text))
    assert [(s, c) for s, c, _ in found] == [("FAIL", "claim-mismatch"), ("PASS", "bound"), ("UNVERIFIED", "unbound-claim")]
    assert "it is n_arm[arm=alpha], which the evidence gives as 2 requests" in found[0][2]
    assert found[2][2].endswith("and the evidence counts per arm or server only (n_arm[arm=alpha] = 2; n_arm[arm=beta] = 2).")


def test_a_claim_text_without_a_number_is_one_pass_worded_as_a_bundles(tmp_path):
    """
    The one body (`statements.judge`, issue 36): a profile-read bundle's claim text stating no number is one PASS
    `no-claim-text` worded as a native bundle's prose, and nothing is derived for it (a rule over no records is fine).
    """
    stated = _stated(_report(tmp_path, RUNS, [_rule("mean_s", "mean", per=["arm"])], "No figures in this body."))
    assert stated == [("PASS", "no-claim-text", "the prose (pr.md) states no number, so there is nothing to bind")]


@pytest.mark.parametrize("statistic,sentence,verdict", [
    ("max", "The max latency of alpha is 4 s.", "PASS"), ("max", "The max latency of alpha is 3 s.", "FAIL"),
    ("min", "The min latency of alpha is 2 s.", "PASS"), ("min", "The min latency of alpha is 3 s.", "FAIL"),
])
def test_a_max_or_min_rule_binds_the_words_max_and_min_beside_a_mean_of_the_same_arm(tmp_path, statistic, sentence, verdict):
    """Kills dropping `min`/`max` from `stats.STATED_WORDS`: beside a mean of the arm, only the statistic word picks the value."""
    claims = [_rule("avg", "mean", per=["arm"]), _rule("ext", statistic, per=["arm"])]
    found = _stated(_report(tmp_path, RUNS, claims, sentence))
    assert [status for status, _, _ in found] == [verdict], found
