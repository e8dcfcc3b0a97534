"""
Tests that kill surviving mutants of `verifier/checks/profile_claims.py` (issue 14): claims and gate rules of a profile.

Each test pins one documented rule at its boundary on a tiny profile run
(`runs/{arm}.csv` receipts, a `summary.json` of stated numbers) or on the
rule helpers with hand-made records: a claim the bundle does not state is
FAIL `claim-missing`; a stated unit of another dimension is FAIL
`unit-mismatch` naming both dimensions (never an ERROR); an absent `at.unit`
falls back to the unit inside the stated value; a list selection keeps the
records whose dimension is in the list; a `per` gate rule with one instance
still reports its observation per instance.
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path

from conftest import make_assets
from helpers import by_check, one_claim, profile_evidence, profile_receipt, write_tree

from verifier.checks.profile_claims import select_records
from verifier.checks.profile_gate import _threshold
from verifier.core import verify_path
from verifier.model.evidence import FileEntry, Receipt
from verifier.readers.select import rule_instances
from verifier.readers.sites import read_sites

RUNS = {"runs/a.csv": "s\n2\n4\n", "runs/b.csv": "s\n1\n"}


def _run(tmp_path: Path, summary: dict, claims: list[dict], runs: dict[str, str] = RUNS, **extra):
    """Verify a bundle of `runs` and `summary.json` under a profile with `claims`; return the report."""
    bundle = write_tree(tmp_path / "run", {**runs, "summary.json": json.dumps(summary)})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"},
                                            "phase": {"value": "measured"}}}},
           "claims": claims, **extra}
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))


def _claim(cid: str, pointer: str, **kw) -> dict:
    return {"id": cid, "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "arm": "a"},
            "unit": "s", "at": {"file": "summary.json", "pointer": pointer}, **kw}


def test_a_claim_the_bundle_does_not_state_fails_claim_missing(tmp_path):
    report = _run(tmp_path, {"mean": 3}, [_claim("m", "/mean"), _claim("gone", "/absent")])
    assert (one_claim(report, "m").status, one_claim(report, "m").code) == ("PASS", "derived")
    missing = one_claim(report, "gone")
    assert (missing.status, missing.code) == ("FAIL", "claim-missing") and "/absent" in missing.message


def test_a_count_stated_in_seconds_is_a_unit_mismatch_naming_both_dimensions_not_an_error(tmp_path):
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured", "arm": "a"},
             "at": {"file": "summary.json", "pointer": "/n"}}
    report = _run(tmp_path, {"n": "2 s"}, [count])
    f = one_claim(report, "n")
    assert (f.status, f.code) == ("FAIL", "unit-mismatch"), f.message
    assert "(time)" in f.message and "derived in 1 (dimensionless)" in f.message
    assert report.verdict == "FAIL"
    good = _run(tmp_path / "good", {"n": "2"}, [count])
    assert one_claim(good, "n").status == "PASS"


def test_a_unit_location_the_bundle_lacks_falls_back_to_the_unit_in_the_value(tmp_path):
    at = {"file": "summary.json", "pointer": "/mean", "unit": "/unit"}
    claim = {**_claim("m", "/mean"), "at": at}
    assert one_claim(_run(tmp_path, {"mean": "3000 ms"}, [claim]), "m").status == "PASS"  # no /unit: the value's ms
    wrong = one_claim(_run(tmp_path / "w", {"mean": "3000 ms", "unit": "s"}, [claim]), "m")  # /unit says s: 3000 s
    assert (wrong.status, wrong.code) == ("FAIL", "claim-mismatch")
    assert one_claim(_run(tmp_path / "s", {"mean": 3, "unit": "s"}, [claim]), "m").status == "PASS"


def _rec(arm: str, latency: str, model: str = "m1") -> Receipt:
    return profile_receipt(f"runs/{arm}.csv", "/0", {"arm": arm, "s": latency}, dims={"arm": arm, "phase": "measured", "model": model},
                           latency=Decimal(latency))


def test_select_records_keeps_the_records_in_a_list_selection():
    records = [_rec("a", "1", "m1"), _rec("a", "2", "m2"), _rec("b", "3", "m3")]
    assert select_records(records, {"selection": {"model": ["m1", "m3"]}}) == [records[0], records[2]]
    assert select_records(records, {"selection": {"model": "m2"}}) == [records[1]]
    assert select_records(records, {"selection": {"arm": "a"}, "baseline": "a"}) == records  # arm ignored for arm rules
    assert select_records(records, {"selection": {"gpu": {"receipts": "jobs"}}}) == records  # joins: per instance


def test_a_per_rule_with_one_instance_reports_its_observation_per_instance():
    rule = {"id": "g", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "max": 5}
    met, text, observed = _threshold(rule, [_rec("a", "2"), _rec("a", "4")])
    assert met and observed == {"arm=a": "3"} and text.startswith("arm=a: mean = 3")
    met, _, observed = _threshold({**rule, "per": []}, [_rec("a", "2"), _rec("a", "4")])
    assert met and observed == "3"  # no `per`: the one value
    met, _, observed = _threshold({**rule, "max": 2.5}, [_rec("a", "2"), _rec("a", "4"), _rec("b", "2")])
    assert not met and observed == {"arm=a": "3", "arm=b": "2"}
    assert by_check  # (re-exported helper used by sibling kill files)


# --- a value that is no number; the gate's findings and recorded outcome; bounds stated per instance ------------------

def test_a_stated_value_that_is_no_number_is_unverified_claim_not_stated(tmp_path):
    from verifier.checks.profile_claims import _stated

    assert _stated("n/a") == (None, None) and _stated("3 s") == (Decimal(3), "s") and _stated(Decimal("3")) == (Decimal(3), None)
    f = one_claim(_run(tmp_path, {"mean": "fast"}, [_claim("m", "/mean")]), "m")  # "n/a" is in the declared no-number set (claim-unstated)
    assert (f.status, f.code) == ("UNVERIFIED", "claim-not-stated") and "'fast', not a number" in f.message
    assert one_claim(_run(tmp_path / "ok", {"mean": "3 s"}, [_claim("m", "/mean")]), "m").status == "PASS"


def _gate_findings(tmp_path: Path, gate: dict, summary: dict) -> list:
    report = _run(tmp_path, summary, [_claim("m", "/mean")], gate=gate)
    return [f for f in report.findings if f.check == "gate.rules"]


RULE = {"id": "mean-under-6s", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s", "max": 6}


def test_gate_findings_are_placed_at_the_gates_declared_source(tmp_path):
    found = _gate_findings(tmp_path, {"source": "summary.json#/acceptance", "rules": [RULE]}, {"mean": 3})
    assert [(f.status.value, f.code, f.path, f.pointer) for f in found] == [("PASS", "rule-met", "summary.json", "/acceptance")]
    bare = _gate_findings(tmp_path / "bare", {"rules": [RULE]}, {"mean": 3})
    assert [(f.code, f.path, f.pointer) for f in bare] == [("rule-met", None, None)]


def test_a_recorded_outcome_is_not_compared_when_a_rule_cannot_be_judged(tmp_path):
    empty = {**RULE, "id": "nothing", "selection": {"phase": "measured", "arm": "zzz"}}  # selects no receipt: underivable
    recorded = {"file": "summary.json", "pointer": "/gate"}
    found = _gate_findings(tmp_path, {"rules": [RULE, empty], "recorded": recorded}, {"mean": 3, "gate": True})
    assert [(f.status.value, f.code) for f in found] == [("PASS", "rule-met"), ("UNVERIFIED", "empty-selection"),
                                                         ("UNVERIFIED", "recorded-not-compared")]
    judged = _gate_findings(tmp_path / "judged", {"rules": [RULE], "recorded": recorded}, {"mean": 3, "gate": True})
    assert [(f.status.value, f.code) for f in judged] == [("PASS", "rule-met"), ("PASS", "recorded-agrees")]


class _Bounds:
    def __init__(self, files: dict[str, str]):
        self.files = files

    def read_bytes(self, rel: str) -> bytes:
        if rel not in self.files:
            raise FileNotFoundError(rel)
        return self.files[rel].encode()


def _bounds(files: dict[str, str], rule: dict, records: list[Receipt]) -> dict:
    """Return the `bounds` sites the claim-site reader finds for `rule` over `files`, by instance key (what gate.rules hands `_stated_bounds`)."""
    profile, receipts = {"receipts": {}, "gate": {"rules": [rule]}}, [dataclasses.replace(r, receipt_set="runs") for r in records]
    found = read_sites(_Bounds(files), {}, rule_instances(profile, receipts), profile)
    return {site.key: site for site in found}


BOUNDS_RULE = {"id": "within", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"],
               "bounds_at": {"file": "{arm}.md", "line_naming": "latency"}}


def test_stated_bounds_one_instance_outside_its_bounds_makes_the_rule_not_met():
    from verifier.checks.profile_gate import _stated_bounds

    records = [_rec("a", "2"), _rec("b", "5")]
    met, text, observed = _stated_bounds(_bounds({"a.md": "latency >= 1", "b.md": "latency <= 4"}, BOUNDS_RULE, records), BOUNDS_RULE, records)
    assert not met and observed["arm=b"]["met"] is False and observed["arm=a"]["met"] is True
    assert text.startswith("arm=b: mean = 5 (does not meet <= 4") and "arm=a" not in text and text.endswith("(2 judged, 1 not met)")
    met, text, _ = _stated_bounds(_bounds({"a.md": "latency >= 3", "b.md": "latency <= 6"}, BOUNDS_RULE, records), BOUNDS_RULE, records)  # the first fails
    assert not met and text.startswith("arm=a: mean = 2 (does not meet >= 3")


def test_stated_bounds_all_met_show_the_first_instance_and_the_count():
    from verifier.checks.profile_gate import _stated_bounds

    met, text, _ = _stated_bounds(_bounds({"a.md": "latency >= 1", "b.md": "latency <= 6"}, BOUNDS_RULE, [_rec("a", "2"), _rec("b", "5")]), BOUNDS_RULE, [_rec("a", "2"), _rec("b", "5")])
    assert met and text.startswith("arm=a: mean = 2 (meets >= 1 stated in a.md)") and "arm=b" not in text
    assert text.endswith("(2 judged, 0 not met)")


# --- claims over a stand-in tree: which file a blocked value is in ------------------------------------------------------

class _Tree:
    def __init__(self, files: dict[str, object], blocked: dict[str, str] | None = None):
        self.files, self.blocked, self._cache = files, blocked or {}, {}

    def exists(self, rel: str) -> bool:
        return rel in self.files or rel in self.blocked

    def json(self, rel: str):
        if rel in self.blocked or rel not in self.files:
            raise FileNotFoundError(rel)
        return self.files[rel]

    def glob(self, pattern: str) -> list[str]:
        return sorted(f for f in [*self.files, *self.blocked] if Path(f).match(pattern))


def _claims_on(tree: _Tree, claim: dict, records: list[Receipt]) -> list[tuple[str, str, str | None, str | None]]:
    from verifier.checks.profile_claims import claims
    from verifier.engine.pipeline import Context, RunData

    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv", "name": "runs/{arm}.csv"}}, "claims": [claim]}
    data = profile_evidence(runs=records)
    model = data["evidence"]
    data["evidence"] = dataclasses.replace(model, sites=read_sites(tree, tree.files, rule_instances(profile, model.receipts), profile),
                                           files=tuple(FileEntry(rel, None, None) for rel in [*tree.files, *tree.blocked]))  # as schema.documents lists the tree
    ctx = Context(subject=Path("."), assets=None, bundle=tree, options={"profile": profile}, run=RunData(**data))
    return [(f.status.value, f.code, f.path, f.pointer) for f in claims(ctx)]


INDEXED = {"id": "m", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
           "at": {"file": "out/{arm}.json", "pointer": "/mean"}}
ARMS = [_rec("a", "2"), _rec("a", "4"), _rec("b", "1")]


def test_a_claim_whose_file_is_blocked_is_unverified_at_that_file_only():
    files = {"out/a.json": {"mean": Decimal(3)}, "out/b.json": {"mean": Decimal(1)}}
    found = _claims_on(_Tree(files, {"out/b.json": "its sha256 differs from the manifest"}), INDEXED, ARMS)
    assert found == [("PASS", "derived", "out/a.json", "/mean"), ("UNVERIFIED", "blocked-by-integrity", "out/b.json", None)]
    assert _claims_on(_Tree(files), INDEXED, ARMS) == [("PASS", "derived", "out/a.json", "/mean"), ("PASS", "derived", "out/b.json", "/mean")]


def test_an_index_placeholder_in_a_claim_file_names_the_file_by_rank():
    # `{arm.index}` in a claim's file takes the arm's 0-based rank (a -> 0, b -> 1), as in its pointer; an unrelated
    # blocked file whose name is the placeholder's bare name ("arm.index") is never blamed
    claim = {**INDEXED, "at": {"file": "out/{arm.index}.json", "pointer": "/mean"}}
    files = {"out/0.json": {"mean": Decimal(3)}, "out/1.json": {"mean": Decimal(1)}}
    found = _claims_on(_Tree(files, {"out/arm.index.json": "its sha256 differs from the manifest"}), claim, ARMS)
    assert found == [("PASS", "derived", "out/0.json", "/mean"), ("PASS", "derived", "out/1.json", "/mean")]
    wrong = _claims_on(_Tree({**files, "out/1.json": {"mean": Decimal(2)}}), claim, ARMS)
    assert [f[:3] for f in wrong] == [("PASS", "derived", "out/0.json"), ("FAIL", "claim-mismatch", "out/1.json")]
    blocked = _claims_on(_Tree(files, {"out/1.json": "its sha256 differs from the manifest"}), claim, ARMS)
    assert blocked == [("PASS", "derived", "out/0.json", "/mean"), ("UNVERIFIED", "blocked-by-integrity", "out/1.json", None)]


def test_a_blocked_claim_file_an_instance_reported_is_not_reported_again():
    # the claim file is a receipt file (the set's glob lists it): instance b reports it blocked, the backward reading does not repeat it
    claim = {**INDEXED, "at": {"file": "runs/{arm}.csv", "pointer": "/mean"}}
    found = _claims_on(_Tree({"runs/a.csv": {"mean": Decimal(3)}}, {"runs/b.csv": "its sha256 differs from the manifest"}), claim, ARMS)
    assert found == [("PASS", "derived", "runs/a.csv", "/mean"), ("UNVERIFIED", "blocked-by-integrity", "runs/b.csv", None)]


def test_a_blocked_claim_file_is_reported_when_no_instance_was_derived():
    # every receipt is an unread stand-in that knows no arm, so the claim has no instance; its blocked file is still named
    unread = [profile_receipt("runs/a.csv", "", dims={"phase": "measured"}, unread="blocked")]
    claim = {**INDEXED, "at": {"file": "summary.json", "pointer": "/mean/{arm}"}}
    blocked = _claims_on(_Tree({}, {"summary.json": "its sha256 differs from the manifest"}), claim, unread)
    assert blocked == [("UNVERIFIED", "blocked-by-integrity", "summary.json", None)]
    assert _claims_on(_Tree({"summary.json": {"mean": {}}}), claim, unread) == []  # readable and stating nothing: nothing to say


def test_stated_bounds_of_one_judged_instance_need_no_count_unless_some_were_not_judged():
    from verifier.checks.profile_gate import _stated_bounds

    met, text, _ = _stated_bounds(_bounds({"a.md": "latency >= 1"}, BOUNDS_RULE, [_rec("a", "2")]), BOUNDS_RULE, [_rec("a", "2")])
    assert met and text.startswith("arm=a: mean = 2 (meets >= 1 stated in a.md)") and "judged" not in text, text
    skip = {**BOUNDS_RULE, "bounds_at": {**BOUNDS_RULE["bounds_at"], "unstated": "skip"}}
    met, text, _ = _stated_bounds(_bounds({"a.md": "latency >= 1"}, skip, [_rec("a", "2"), _rec("b", "5")]), skip, [_rec("a", "2"), _rec("b", "5")])  # b.md absent: skipped
    assert met and text.endswith("(1 judged, 0 not met; 1 run(s) quote no range and are not judged)")


# --- survivors of the complete run at b2dd20d ------------------------------------------------------------------------

def test_a_margin_target_stated_in_another_unit_of_its_dimension_is_converted():
    # mean(a) = 3 s, target "4000 ms" = 4 s: the margin is -1 s (unconverted it would be -3997)
    claim = {**INDEXED, "minus": {"file": "target.json", "pointer": "/target"}}
    files = {"out/a.json": {"mean": Decimal(-1)}, "out/b.json": {"mean": Decimal(-3)}, "target.json": {"target": "4000 ms"}}
    assert _claims_on(_Tree(files), claim, ARMS) == [("PASS", "derived", "out/a.json", "/mean"), ("PASS", "derived", "out/b.json", "/mean")]


def test_a_value_at_an_already_judged_instance_is_not_reported_again():
    # two rows match arm a: one row the file states twice is FAIL claim-missing once (the evidence's fault; rows that differ
    # elsewhere would be the profile's, UNVERIFIED ambiguous-location), and nothing more for those rows
    claim = {**INDEXED, "at": {"file": "t.json", "pointer": "/rows", "where": {"arm": "{arm}"}, "then": "/mean"}}
    rows = [{"arm": "a", "mean": Decimal(3)}, {"arm": "a", "mean": Decimal(3)}, {"arm": "b", "mean": Decimal(1)}]
    found = _claims_on(_Tree({"t.json": {"rows": rows}}), claim, ARMS)
    assert [f[:2] for f in found] == [("FAIL", "claim-missing"), ("PASS", "derived")]
    rows[1] = {"arm": "a", "mean": Decimal(3), "run": 2}
    found = _claims_on(_Tree({"t.json": {"rows": rows}}), claim, ARMS)
    assert [f[:2] for f in found] == [("UNVERIFIED", "ambiguous-location"), ("PASS", "derived")]


def test_a_value_stated_for_what_the_selection_leaves_out_is_not_this_claims():
    # the claim selects model m1; the file also states model m2's mean, which is another claim's value, not unchecked here
    claim = {**INDEXED, "selection": {"phase": "measured", "model": "m1"}, "per": ["model", "arm"],
             "at": {"file": "summary.json", "pointer": "/mean/{model}/{arm}"}}
    records = [_rec("a", "2"), _rec("a", "4"), _rec("a", "9", "m2")]
    files = {"summary.json": {"mean": {"m1": {"a": Decimal(3)}, "m2": {"a": Decimal(9)}}}}
    assert _claims_on(_Tree(files), claim, records) == [("PASS", "derived", "summary.json", "/mean/m1/a")]
    stray = {"summary.json": {"mean": {"m1": {"a": Decimal(3), "c": Decimal(5)}}}}  # stated for m1, which it selects, but no receipt
    assert [f[:2] for f in _claims_on(_Tree(stray), claim, records)] == [("PASS", "derived"), ("UNVERIFIED", "not-derivable")]


def test_an_unranked_instance_names_only_the_values_no_readable_receipt_has():
    # model m1 has a readable receipt, arm b only an unread stand-in (no phase: outside the ranked selection): the finding
    # names arm=b, not model=m1 (a mutant naming every dimension of the key survived every other test)
    from verifier.checks.profile_claims import claims
    from verifier.engine.pipeline import Context, RunData

    records = [_rec("a", "2"), profile_receipt("runs/b.csv", "", dims={"arm": "b", "model": "m1"}, unread="blocked")]
    claim = {**INDEXED, "per": ["model", "arm"], "at": {"file": "s.json", "pointer": "/{model}/{arm}"}}
    tree = _Tree({"s.json": {"m1": {"a": Decimal(2)}}}, {"runs/b.csv": "its sha256 differs from the manifest"})
    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv"}}, "claims": [claim]}
    data = profile_evidence(runs=records)
    data["evidence"] = dataclasses.replace(data["evidence"], sites=read_sites(tree, tree.files, rule_instances(profile, data["evidence"].receipts), profile))
    found = [f for f in claims(Context(subject=Path("."), assets=None, bundle=tree, options={"profile": profile}, run=RunData(**data)))
             if f.status.value == "UNVERIFIED"]
    assert [f.code for f in found] == ["blocked-by-integrity"]
    assert "no readable receipt has arm=b: its receipts were not read (not parsed: runs/b.csv)" in found[0].message


# --- issue 42 (cosmic-ray, written ahead of the run of record): what the config's other test files never reach ----------

def _claim_findings(report) -> list[tuple]:
    return [(f.status.value, f.code, f.path, f.pointer, f.message) for f in by_check(report, "derivation.claims")]


PICK = {"id": "best", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "pick": "max",
        "unit": "s", "at": {"file": "summary.json", "pointer": "/best"}}


def test_a_comparison_in_words_names_the_largest_or_the_smallest_instance(tmp_path):
    """Kills `_pick`: `rule["pick"] == "max"` flipped (extreme, ranking order, word), `named == winners[0]`, the `named not in values` tail, `len(winners) > 1`, the `_convert` of each value."""
    def one(name: str, summary: dict, rule: dict) -> tuple:
        (f,) = by_check(_run(tmp_path / name, summary, [rule]), "derivation.claims")
        return f.status.value, f.code, f.path, f.pointer, f.message, f.expected, f.observed, f.derivation

    assert one("max-ok", {"best": "a"}, PICK) == ("PASS", "derived", "summary.json", "/best", "best: summary.json#/best names a; the largest is a (3)",
                                                  "a", "a", "mean of latency per arm (largest first): a 3, b 1")
    assert one("max-bad", {"best": "b"}, PICK)[:5] == ("FAIL", "claim-mismatch", "summary.json", "/best",
                                                      "best: summary.json#/best names b; the largest is a (3), b has 1")
    assert one("min-ok", {"best": "b"}, {**PICK, "pick": "min"}) == ("PASS", "derived", "summary.json", "/best", "best: summary.json#/best names b; the smallest is b (1)",
                                                                    "b", "b", "mean of latency per arm (smallest first): b 1, a 3")
    assert one("min-bad", {"best": "a"}, {**PICK, "pick": "min"})[4:7] == ("best: summary.json#/best names a; the smallest is b (1), a has 3", "a", "b")
    ms = one("ms", {"best": "c"}, {**PICK, "unit": "ms"})  # a name no instance has: no "has" tail; values in the rule's unit
    assert ms[4:] == ("best: summary.json#/best names c; the largest is a (3000)", "c", "a", "mean of latency per arm (largest first): a 3000, b 1000")
    tie = by_check(_run(tmp_path / "tie2", {"best": "a"}, [PICK], runs={"runs/a.csv": "s\n2\n", "runs/b.csv": "s\n2\n"}), "derivation.claims")
    assert [(f.status.value, f.code, f.message, f.expected, f.observed) for f in tie] == [
        ("FAIL", "tie", "best: summary.json#/best names a, but a, b share the largest value", ["a", "b"], "a")]


def test_a_comparison_in_words_that_cannot_be_ranked_is_unverified_or_missing(tmp_path):
    """Kills `_pick`: each `site.problem` branch (`==` flipped, `is not None` flipped), the `return` after an underivable instance, `if not values`."""
    runs = {**RUNS, "bad.json": "{"}
    found = _claim_findings(_run(tmp_path / "u", {}, [{**PICK, "at": {"file": "bad.json", "pointer": "/best"}}], runs=runs))
    assert found == [("UNVERIFIED", "claim-unreadable", "bad.json", None, "best: claim file cannot be read: not valid JSON: "
                      "Expecting property name enclosed in double quotes at line 1 column 2")]
    assert _claim_findings(_run(tmp_path / "m", {}, [PICK])) == [
        ("FAIL", "claim-missing", "summary.json", None, "best: the bundle states no name at the mapped location ('/best')")]
    rows = {"rows": [{"k": "1", "name": "a"}, {"k": "1", "name": "a", "run": 2}]}
    amb = _claim_findings(_run(tmp_path / "amb", rows, [{**PICK, "at": {"file": "summary.json", "pointer": "/rows", "where": {"k": "1"}, "then": "/name"}}]))
    assert [f[:4] for f in amb] == [("UNVERIFIED", "ambiguous-location", "summary.json", None)]
    assert amb[0][4].startswith("best: the profile's location is ambiguous (") and amb[0][4].endswith("): a location names one place")
    sd = _claim_findings(_run(tmp_path / "sd", {"best": "a"}, [{**PICK, "statistic": "sd"}]))  # arm b has one value: no SD
    assert sd == [("UNVERIFIED", "empty-selection", "summary.json", "/best", "best: arm=b cannot be derived (a sample SD needs at least two values, "
                   "values of latency (arm=b, phase=measured) has 1), so the ranking is not known")]
    none = _claim_findings(_run(tmp_path / "none", {"best": "a"}, [{**PICK, "selection": {"phase": "measured", "arm": "zz"}}]))
    assert none == [("UNVERIFIED", "empty-selection", "summary.json", "/best", "best: no arm matches {'phase': 'measured', 'arm': 'zz'}")]


def test_a_rule_whose_receipt_set_reads_nothing_is_unverified_no_receipts(tmp_path):
    """Kills `if not records` (not dropped / negated) and the `continue` after it (-> break would drop the next rule)."""
    found = _claim_findings(_run(tmp_path, {"mean": 3}, [_claim("m", "/mean"), _claim("n", "/mean")], runs={"other.txt": "x"}))
    assert found == [("UNVERIFIED", "no-receipts", None, None, f"{c}: receipt set runs yielded no records, so the claim cannot be derived") for c in "mn"]


SKIP = {"id": "m", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
        "at": {"file": "summary.json", "pointer": "/mean/{arm}"}, "unstated": "skip"}


def _arms(letters: str) -> dict[str, str]:
    return {f"runs/{c}.csv": "s\n2\n" for c in letters}


def test_instances_a_format_states_for_some_runs_only_are_counted_in_one_finding(tmp_path):
    """Kills the `unstated: skip` branch (`==` flipped, `and` -> `or`, `continue` -> `break`), the five labels shown (`[:5]`, `> 5`, `- 5`) and the finding's path (one file or the rule's)."""
    six = _claim_findings(_run(tmp_path / "six", {"mean": {"a": 2}}, [SKIP], runs=_arms("abcdefg")))
    assert six == [("PASS", "derived", "summary.json", "/mean/a", "m[arm=a]: stated 2 s, derived 2 s (tolerance 0.5 s)"),
                   ("UNVERIFIED", "claim-unstated", "summary.json", None, "m: 6 instance(s) state no value at the mapped location, which the profile allows "
                    "(`unstated: skip`), so they are not claimed: m[arm=b], m[arm=c], m[arm=d], m[arm=e], m[arm=f] and 1 more")]
    five = _claim_findings(_run(tmp_path / "five", {"mean": {"a": 2}}, [SKIP], runs=_arms("abcdef")))
    assert five[1][4].endswith("so they are not claimed: m[arm=b], m[arm=c], m[arm=d], m[arm=e], m[arm=f]")
    fail = _claim_findings(_run(tmp_path / "fail", {"mean": {"a": 2}}, [{**SKIP, "unstated": "fail"}], runs=_arms("ab")))
    assert [f[:2] for f in fail] == [("PASS", "derived"), ("FAIL", "claim-missing")]
    per_file = {**SKIP, "at": {"file": "out/{arm}.json", "pointer": "/mean"}}
    one_file = _claim_findings(_run(tmp_path / "f1", {}, [per_file], runs={**_arms("a"), "out/a.json": '{"x": 3}'}))
    assert one_file == [("UNVERIFIED", "claim-unstated", "out/a.json", None, "m: 1 instance(s) state no value at the mapped location, which the profile "
                         "allows (`unstated: skip`), so they are not claimed: m[arm=a]")]
    two_files = _claim_findings(_run(tmp_path / "f2", {}, [per_file], runs={**_arms("ab"), "out/a.json": '{"x": 3}', "out/b.json": '{"x": 3}'}))
    assert [f[:3] for f in two_files] == [("UNVERIFIED", "claim-unstated", "out/{arm}.json")] and "2 instance(s)" in two_files[0][4]


def test_instances_writing_a_no_number_text_are_counted_in_one_finding(tmp_path):
    """Kills the no-number branch (`and`/`or`, `said_na and` -> `or`, `continue` -> `break`), `.strip()`, the five texts and labels shown (`[:5]`, `> 5`, `- 5`)."""
    rule = {**SKIP, "unstated": "fail"}
    texts = {"a": "N/A", "b": " n/a ", "c": "-", "d": "-", "e": "na", "f": "\u2014", "g": "n.a."}
    found = _claim_findings(_run(tmp_path / "seven", {"mean": texts}, [rule], runs=_arms("abcdefg")))
    assert found == [("UNVERIFIED", "claim-unstated", "summary.json", None, "m: 7 instance(s) state no number at the mapped location (they write '-', 'N/A', "
                      "'n.a.', 'n/a', 'na': a text of the no-number set, `NO_NUMBER` and the profile's `no_number`), so they are not claimed: "
                      "m[arm=a], m[arm=b], m[arm=c], m[arm=d], m[arm=e] and 2 more")]
    five = _claim_findings(_run(tmp_path / "five", {"mean": {**{c: "-" for c in "abcde"}, "f": 2}}, [rule], runs=_arms("abcdef")))
    assert [f[:2] for f in five] == [("PASS", "derived"), ("UNVERIFIED", "claim-unstated")]
    assert five[1][4].endswith("(they write '-': a text of the no-number set, `NO_NUMBER` and the profile's `no_number`), so they are not claimed: "
                               "m[arm=a], m[arm=b], m[arm=c], m[arm=d], m[arm=e]")
    six = _claim_findings(_run(tmp_path / "six", {"mean": {c: "-" for c in "abcdef"}}, [rule], runs=_arms("abcdef")))
    assert six[0][4].endswith("so they are not claimed: m[arm=a], m[arm=b], m[arm=c], m[arm=d], m[arm=e] and 1 more")
    said = {"mean": {"a": "N/A (OOM at 64)", "b": 2}}
    classed = _claim_findings(_run(tmp_path / "na", said, [rule], runs=_arms("ab"), informational={"classes": ["not-applicable"]}))
    assert [f[:2] for f in classed] == [("PASS", "derived"), ("UNVERIFIED", "claim-unstated")] and "'N/A (OOM at 64)'" in classed[1][4]
    bare = _claim_findings(_run(tmp_path / "bare", said, [rule], runs=_arms("ab")))  # no `not-applicable` class: a text that is no number
    assert bare == [("UNVERIFIED", "claim-not-stated", "summary.json", "/mean/a", "m[arm=a]: summary.json#/mean/a holds 'N/A (OOM at 64)', not a number"),
                    ("PASS", "derived", "summary.json", "/mean/b", "m[arm=b]: stated 2 s, derived 2 s (tolerance 0.5 s)")]


def test_an_optional_claim_document_the_tree_lacks_claims_nothing(tmp_path):
    """Kills `_absent_optional_documents` (`doc.get("optional") and` -> `or`, `not in linked`, `not files_matching`) and the `continue` for such a rule."""
    located = {**_claim("o", "/mean"), "at": {"file": "opt.json", "pointer": "/mean"}}
    claims = [located, _claim("m", "/mean")]
    absent = _claim_findings(_run(tmp_path / "absent", {"mean": 3}, claims, claim_documents=[{"file": "opt.json", "optional": True}]))
    assert [f[:2] for f in absent] == [("PASS", "derived")] and absent[0][4].startswith("m: ")
    present = _claim_findings(_run(tmp_path / "present", {"mean": 3}, claims, runs={**RUNS, "opt.json": '{"mean": 4}'},
                                   claim_documents=[{"file": "opt.json", "optional": True}]))
    assert [f[:3] for f in present] == [("FAIL", "claim-mismatch", "opt.json"), ("PASS", "derived", "summary.json")]
    required = _claim_findings(_run(tmp_path / "required", {"mean": 3}, claims, claim_documents=[{"file": "opt.json"}]))
    assert [f[:3] for f in required] == [("UNVERIFIED", "claim-unreadable", "opt.json"), ("PASS", "derived", "summary.json")]


def test_a_margin_whose_target_is_not_a_number_of_its_dimension_is_not_compared(tmp_path):
    """Kills `_target`: `site is None or site.problem is not None`, `site.detail if site is not None`, `number is None`, `written != unit`, and the caller's FAIL/UNVERIFIED by `exc.fail`."""
    claim = _claim("m", "/mean", minus={"file": "summary.json", "pointer": "/target"})

    def found(name: str, summary: dict) -> list[tuple]:
        return [(f.status.value, f.code, f.message, f.observed, f.derivation) for f in by_check(_run(tmp_path / name, summary, [claim]), "derivation.claims")]

    assert found("ok", {"mean": -1, "target": 4}) == [("PASS", "derived", "m: stated -1 s, derived -1 s (tolerance 0.5 s)", "-1",
                                                       "mean of 2 values of latency (arm=a, phase=measured); minus the target 4 s stated at summary.json#/target")]
    assert found("same-unit", {"mean": -1, "target": "4 s"})[0][:2] == ("PASS", "derived")
    assert found("absent", {"mean": -1}) == [("UNVERIFIED", "target-not-stated", "m: the target of its margin is not stated at summary.json /target ('/target')",
                                              "-1", None)]
    assert found("text", {"mean": -1, "target": "soon"}) == [("UNVERIFIED", "target-not-stated",
                                                             "m: the target of its margin at summary.json#/target is 'soon', not a number", "-1", None)]
    assert found("bytes", {"mean": -1, "target": "4 GB"}) == [("FAIL", "unit-mismatch",
                                                              "m: the target at summary.json#/target is stated in GB, not of the dimension of s", "-1", None)]


def test_a_factor_the_bundle_states_multiplies_the_statistic(tmp_path):
    """Kills `_factor` (`site is not None and site.problem is None`, `number is not None and number.is_finite()`, `"absent" in times and ... not exists`, `site.detail if site is not None`) and the `times` branch (`in`, the product, its text, `continue`)."""
    times = {"at": {"file": "scaling.json", "pointer": "/f"}}

    def found(name: str, claimed, scaling: str | None, **kw) -> list[tuple]:
        runs = {**RUNS, **({"scaling.json": scaling} if scaling is not None else {})}
        report = _run(tmp_path / name, {"mean": claimed}, [_claim("m", "/mean", times={**times, **kw})], runs=runs)
        return [(f.status.value, f.code, f.message, f.derivation) for f in by_check(report, "derivation.claims")]

    assert found("stated", 6, '{"f": 2}') == [("PASS", "derived", "m: stated 6 s, derived 6 s (tolerance 0.5 s)",
                                              "mean of 2 values of latency (arm=a, phase=measured); times the factor 2 stated at scaling.json /f")]
    assert found("stated-default", 6, '{"f": 2}', absent="1.5")[0][:2] == ("PASS", "derived")  # a stated factor wins over the default
    assert found("text", 6, '{"f": "two"}') == [("UNVERIFIED", "factor-not-stated", "m: the factor at scaling.json /f is 'two', not a number", None)]
    assert found("default", 4.5, None, absent="1.5") == [("PASS", "derived", "m: stated 4.5 s, derived 4.5 s (tolerance 0.05 s)",
                                                          "mean of 2 values of latency (arm=a, phase=measured); times the factor 1.5 (the default: scaling.json is absent)")]
    assert found("no-default", 3, None) == [("UNVERIFIED", "factor-not-stated", "m: the factor is not stated at scaling.json /f (scaling.json)", None)]
    assert found("present-unstated", 3, '{"g": 2}', absent="1.5") == [("UNVERIFIED", "factor-not-stated", "m: the factor is not stated at scaling.json /f ('/f')", None)]


TWO_VALUES = {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                       "fields": {"arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
                       "values": {"latency": {"pointer": "/s", "unit": "s"}, "rate": {"pointer": "/r", "unit": "tokens/s"},
                                  "took": {"pointer": "/t", "unit": "ms"}}}}
TWO_RUNS = {"runs/a.csv": "s,r,t\n2,7,5\n", "runs/b.csv": "s,r,t\n1,9,4\n4,9,4\n"}


def test_a_figure_of_another_value_of_the_one_receipt_is_a_unit_mismatch(tmp_path):
    """Kills `_other_value`: `statistic not in ("first", "last")`, `len(chosen) != 1`, the skips (`name == value`, `value is None`, same dimension: `or`/`and`, `==`), the scale (`/` -> `*`), `if other is not None`."""
    def found(name: str, claimed, **kw) -> list[tuple]:
        claim = {**_claim("m", "/mean"), "value": "latency", **kw}
        report = _run(tmp_path / name, {"mean": claimed}, [claim], runs=TWO_RUNS, receipts=TWO_VALUES)
        return [(f.status.value, f.code, f.message, f.expected, f.observed) for f in by_check(report, "derivation.claims")]

    for stat in ("first", "last"):
        assert found(stat, 7, statistic=stat) == [("FAIL", "unit-mismatch", "m: summary.json#/mean states 7 s, but 7 is the receipt's rate (7 tokens/s), "
                                                   "not its latency (2 s): a tokens/s figure stated as s", "2 s", "7 s")]
    assert found("mean", 7)[0][:2] == ("FAIL", "claim-mismatch")  # a statistic over several receipts: no one receipt to quote
    assert found("two", 9, statistic="last", selection={"phase": "measured", "arm": "b"})[0][:2] == ("FAIL", "claim-mismatch")  # two receipts
    assert found("same-dimension", 5, statistic="first")[0][:2] == ("FAIL", "claim-mismatch")  # took is 5 ms: a time, no unit mixed up
    rate = found("scaled", 5, statistic="first", value="rate", unit="tokens/s")  # took, 5 ms, stated as tokens/s: shown in ms, not in s
    assert rate == [("FAIL", "unit-mismatch", "m: summary.json#/mean states 5 tokens/s, but 5 is the receipt's took (5 ms), not its rate (7 tokens/s): "
                     "a ms figure stated as tokens/s", "7 tokens/s", "5 tokens/s")]


def test_a_misspelled_arm_is_the_profiles_fault_an_arm_missing_in_one_instance_the_evidences():
    """Kills `_dead_arms` (`k != "arm"`, `not isinstance`, the per-instance `any`, `arm_name(...) == arm`, `[:12]`, `> 12`, `if have`) and the caller's `exc.code == "empty-selection" and "baseline" in rule`, `arm is not None`."""
    from verifier.checks.profile_claims import _dead_arms

    records = [_rec("a", "2", "m1"), _rec("b", "1", "m1"), _rec("a", "4", "m2")]
    rule = {"id": "r", "receipts": "runs", "statistic": "speedup", "selection": {"phase": "measured", "arm": "a"}, "per": ["model"], "baseline": "a",
            "candidate": "b", "at": {"file": "s.json", "pointer": "/{model}"}}
    assert _dead_arms(rule, records) == {} and _dead_arms({**rule, "candidate": "c"}, records) == {"c": "'a', 'b'"}
    twelve = [_rec(f"x{i:02d}", "1") for i in range(12)]
    listed = ", ".join(f"'x{i:02d}'" for i in range(12))
    assert _dead_arms({**rule, "per": [], "candidate": "x00"}, twelve) == {"a": listed}
    assert _dead_arms({**rule, "per": [], "candidate": "x00"}, [*twelve, _rec("x12", "1")]) == {"a": listed + " (13 in all)"}
    armless = [profile_receipt("runs/a.csv", "/0", dims={"phase": "measured", "model": "m1"}, latency=Decimal(1))]
    assert _dead_arms({**rule, "per": []}, armless) == {"a": "no arm values", "b": "no arm values"}
    tree = _Tree({"s.json": {"m1": Decimal(2), "m2": Decimal(2)}})
    assert _claims_on(tree, rule, records) == [("PASS", "derived", "s.json", "/m1"), ("FAIL", "empty-selection", "s.json", "/m2")]
    assert _claims_on(tree, {**rule, "candidate": "c"}, records) == [("UNVERIFIED", "empty-selection", "s.json", "/m1"), ("UNVERIFIED", "empty-selection", "s.json", "/m2")]


def test_a_misspelled_arm_names_the_arms_the_records_have(tmp_path):
    """Kills the message of a dead arm and `dead[rule_id]` kept per rule (`not in`), and the `continue` after it."""
    rel = {"id": "rel", "receipts": "runs", "statistic": "relative_change_pct", "selection": {"phase": "measured"}, "baseline": "a", "candidate": "bb",
           "at": {"file": "summary.json", "pointer": "/rel"}}
    found = [(f.status.value, f.code, f.message, f.observed) for f in by_check(_run(tmp_path, {"rel": -50}, [rel]), "derivation.claims")]
    assert found == [("UNVERIFIED", "empty-selection", "rel: no receipts match arm=bb, phase=measured; arm 'bb' selects no receipt in any of the rule's "
                      "instances (misspelled arm? the records have 'a', 'b')", "-50")]


def test_steps_count_the_producers_roundings_of_a_value():
    """Kills `_steps`: `isinstance` negated, `key in mapping`, the conversion's `+ 1` (`and`/`or`, `!=` -> `==`, `1` -> `0`/`2`)."""
    from verifier.checks.profile_claims import _steps

    profile = {"receipts": {"r": {"values": {"v": {"pointer": "/x", "unit": "ns", "divide_by": {"pointer": "/n"}, "subtract": {"pointer": "/y"}},
                                             "w": {"pointer": "/w", "unit": "ns", "unit_from": "/u"}, "p": {"pointer": "/p"}}}}}
    assert _steps(profile, {"receipts": "r", "value": "v"}, "us") == 3 and _steps(profile, {"receipts": "r", "value": "v"}, "ns") == 2
    assert _steps(profile, {"receipts": "r", "value": "v"}, None) == 2 and _steps(profile, {"receipts": "r", "value": "w"}, "us") == 2
    assert _steps(profile, {"receipts": "r", "value": "p"}, "us") == 0
    assert _steps(profile, {"receipts": "r"}, "us") == 0 and _steps(profile, {"receipts": "zz", "value": "v"}, "us") == 0 and _steps({}, {"receipts": "r"}, "s") == 0


def test_scale_and_convert_put_a_derived_value_in_the_rules_unit():
    """Kills `_scale`/`_convert`: `in COUNT_RESULTS or unit is None`, the ratio/percent branch (`or`, `in`), `factor == 1`, `/` -> `*`."""
    from verifier.checks.profile_claims import _convert, _scale

    cases = {("mean", "ms"): ("1E+3", "1.5E+3"), ("mean", None): ("1", "1.5"), ("count", "ms"): ("1", "1.5"), ("speedup", "%"): ("100", "150.0"),
             ("speedup", "x"): ("1", "1.5"), ("relative_change_pct", "1"): ("0.01", "0.015"), ("relative_change_pct", "%"): ("1", "1.5"),
             ("mean", "min"): ("0.016666666666666666666666666666666666666666666666667", "0.025")}
    assert {args: (str(_scale(*args)), str(_convert(Decimal("1.5"), *args))) for args in cases} == cases


def test_a_gate_rule_for_a_benchmark_the_tree_does_not_hold_is_skipped_only_then(tmp_path):
    """Kills `_held`: the same-glob `any` (`==` -> `!=`, `return False` dropped) and the other-glob `any` (`!=` -> `==`)."""
    def rset(glob: str, name: str, where: dict | None = None) -> dict:
        fields = {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}
        return {"glob": glob, "encoding": "csv", "name": name, "fields": fields, **({"where": where} if where else {})}

    receipts = {"runs": rset("runs/*.csv", "runs/{arm}.csv", {"/kind": "x"}), "runs2": rset("runs/*.csv", "runs/{arm}.csv", {"/kind": "y"}),
                "logs": rset("logs/*.csv", "logs/{arm}.csv")}
    rule = {"id": "c-fast", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "arm": "c"}, "unit": "s", "max": 6, "unmatched": "skip"}

    def gate(name: str, files: dict[str, str]) -> list[tuple]:
        report = _run(tmp_path / name, {"mean": 3}, [_claim("m", "/mean")], runs={"runs/a.csv": "s,kind\n2,x\n4,x\n", **files}, receipts=receipts,
                      gate={"rules": [rule]})
        return [(f.status.value, f.code, f.message) for f in by_check(report, "gate.rules")]

    assert gate("nothing", {})[0][1] == "no-findings"  # no receipt of c anywhere: the rule does not apply
    assert gate("held", {"logs/c.csv": "s\n1\n"}) == [("UNVERIFIED", "empty-selection",
                                                     "c-fast (over arm=c, phase=measured): cannot be judged: no receipts match arm=c, phase=measured")]
    assert gate("sibling", {"runs/c.csv": "s,kind\n1,y\n", "logs/c.csv": "s\n1\n"})[0][1] == "no-findings"  # its files are there, another `where` took them
    assert gate("own", {"runs/c.csv": "s,kind\n1,x\n"})[0][:2] == ("PASS", "rule-met")


def test_an_underivable_claim_without_arms_is_fail_or_unverified_by_its_cause(tmp_path):
    """Kills `exc.code == "empty-selection" and "baseline" in rule` (-> `or`: a rule without arms has no dead arm to look for), `Status.FAIL if exc.fail`, the `continue` after it."""
    claims = [{**_claim("m", "/mean"), "selection": {"phase": "measured", "arm": "zz"}},
              {**_claim("s", "/n"), "statistic": "sd", "selection": {"phase": "measured", "arm": "b"}}]
    assert _claim_findings(_run(tmp_path, {"mean": 3, "n": 3}, claims)) == [
        ("FAIL", "empty-selection", "summary.json", "/mean", "m: no receipts match arm=zz, phase=measured"),
        ("UNVERIFIED", "empty-selection", "summary.json", "/n", "s: a sample SD needs at least two values, values of latency (arm=b, phase=measured) has 1")]


def test_a_factor_file_named_per_instance_and_the_digits_of_a_mismatch(tmp_path):
    """Kills `_factor`'s `fill_named(...) if site is not None` (`is`: the file's template unfilled) and the digits shown for a mismatch in a unit (`-len(unit) - 1` -> `+len(unit)`)."""
    rule = {**SKIP, "unstated": "fail", "times": {"at": {"file": "scale/{arm}.json", "pointer": "/f"}, "absent": "2"}}
    found = by_check(_run(tmp_path / "f", {"mean": {"a": 6, "b": 4}}, [rule], runs={**RUNS, "scale/b.json": '{"f": 4}'}), "derivation.claims")
    assert [(f.code, f.derivation) for f in found] == [
        ("derived", "mean of 2 values of latency (arm=a, phase=measured); times the factor 2 (the default: scale/a.json is absent)"),
        ("derived", "mean of 1 values of latency (arm=b, phase=measured); times the factor 4 stated at scale/b.json /f")]
    for unit, message in (("ms", "m: stated 7 ms, derived 3000 ms (delta -2993 ms, tolerance 0.5 ms)"), ("s", "m: stated 7 s, derived 3 s (delta 4 s, tolerance 0.5 s)")):
        assert _claim_findings(_run(tmp_path / unit, {"mean": 7}, [{**_claim("m", "/mean"), "unit": unit}])) == [
            ("FAIL", "claim-mismatch", "summary.json", "/mean", message)]


def test_a_stated_factor_counts_as_examined_and_a_dead_arm_is_judged_within_the_selection(tmp_path):
    """Kills `_factor`'s examined place (`pointer or ""` -> `and`: the factor reported unchecked) and `_dead_arms`' selection (`not isinstance` -> `isinstance`: the rule's phase ignored)."""
    from verifier.checks.profile_claims import _dead_arms

    claim = _claim("m", "/mean", times={"at": {"file": "scaling.json", "pointer": "/f"}})
    report = _run(tmp_path, {"mean": 6}, [claim], runs={**RUNS, "scaling.json": '{"f": 2, "g": 3}'}, claim_documents=[{"file": "scaling.json"}])
    assert [(f.path, f.pointer) for f in by_check(report, "claims.coverage", "unchecked-claim")] == [("scaling.json", "/g")]
    warm = profile_receipt("runs/c.csv", "/0", dims={"arm": "c", "phase": "warmup", "model": "m1"}, latency=Decimal(1))
    records = [_rec("a", "2", "m1"), warm]
    rule = {"id": "r", "receipts": "runs", "statistic": "speedup", "selection": {"phase": "measured"}, "per": [], "baseline": "a", "candidate": "c",
            "at": {"file": "s.json", "pointer": "/x"}}
    assert _dead_arms(rule, records) == {"c": "'a', 'c'"}  # c has only a warmup receipt: none in the rule's selection


def test_an_instance_judged_early_leaves_the_next_instances_judged(tmp_path):
    """Kills the `continue` after an underivable instance (:209) and after another value's unit-mismatch (:253) turned into `break`."""
    sd = {**SKIP, "unstated": "fail", "statistic": "sd"}
    found = _claim_findings(_run(tmp_path / "sd", {"mean": {"a": 1, "b": "1.41"}}, [sd], runs={"runs/a.csv": "s\n2\n", "runs/b.csv": "s\n1\n3\n"}))
    assert [f[:4] for f in found] == [("UNVERIFIED", "empty-selection", "summary.json", "/mean/a"), ("PASS", "derived", "summary.json", "/mean/b")]
    first = {**SKIP, "unstated": "fail", "statistic": "first", "value": "latency"}
    report = _run(tmp_path / "first", {"mean": {"a": 7, "b": 1}}, [first], runs=TWO_RUNS, receipts=TWO_VALUES)
    assert [f[:4] for f in _claim_findings(report)] == [("FAIL", "unit-mismatch", "summary.json", "/mean/a"), ("PASS", "derived", "summary.json", "/mean/b")]


def test_a_join_in_a_claims_selection_restricts_each_instance_to_the_joined_values():
    """Kills `plain = not any(isinstance(v, dict) ...)` (`not` deleted: the join passed to the derivation unresolved, every row averaged)."""
    from verifier.checks.profile_claims import claims
    from verifier.engine.pipeline import Context, RunData

    def tele(gpu: str, s: str) -> Receipt:
        return profile_receipt("runs/t.csv", f"/{gpu}", {"s": s}, dims={"job": "a", "gpu": gpu, "phase": "measured"}, latency=Decimal(s))

    claim = {"id": "m", "receipts": "runs", "statistic": "mean", "per": ["job"], "unit": "s", "at": {"file": "s.json", "pointer": "/{job}"},
             "selection": {"phase": "measured", "gpu": {"receipts": "jobs", "pointer": "/gpus", "on": ["job"], "split": ","}}}
    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv"}, "jobs": {"glob": "jobs.json"}}, "claims": [claim]}
    tree = _Tree({"s.json": {"a": Decimal(3)}})
    data = profile_evidence(runs=[tele("0", "2"), tele("1", "4"), tele("2", "100")],
                            jobs=[profile_receipt("jobs.json", "/a", {"job": "a", "gpus": "0,1"}, dims={"job": "a"})])
    data["evidence"] = dataclasses.replace(data["evidence"], sites=read_sites(tree, tree.files, rule_instances(profile, data["evidence"].receipts), profile))
    found = [(f.status.value, f.code, f.derivation) for f in claims(Context(subject=Path("."), assets=None, bundle=tree, options={"profile": profile}, run=RunData(**data)))]
    assert found == [("PASS", "derived", "mean of 2 values of latency (gpu=in 0,1, job=a, phase=measured)")]


def test_rules_after_a_comparison_in_words_and_instances_after_a_missing_target_are_judged(tmp_path):
    """Kills the `continue` after `_pick` (:156) and after a target that is not stated (:218) turned into `break`."""
    rules = [PICK, _claim("m", "/mean")]
    assert [f[:2] + f[4:] for f in _claim_findings(_run(tmp_path / "p", {"best": "a", "mean": 3}, rules))] == [
        ("PASS", "derived", "best: summary.json#/best names a; the largest is a (3)"), ("PASS", "derived", "m: stated 3 s, derived 3 s (tolerance 0.5 s)")]
    margin = {**SKIP, "unstated": "fail", "minus": {"file": "summary.json", "pointer": "/target/{arm}"}}
    assert _claim_findings(_run(tmp_path / "t", {"mean": {"a": -1, "b": -1}, "target": {"b": 2}}, [margin])) == [
        ("UNVERIFIED", "target-not-stated", "summary.json", "/mean/a", "m[arm=a]: the target of its margin is not stated at summary.json /target/{arm} ('/target/a')"),
        ("PASS", "derived", "summary.json", "/mean/b", "m[arm=b]: stated -1 s, derived -1 s (tolerance 0.5 s)")]


def test_a_receipt_lacking_another_value_is_no_unit_mismatch_and_a_templated_arm_is_looked_for_in_its_instance(tmp_path):
    """Kills `_other_value`'s `or value is None` (-> `and`: a missing value divided) and `_dead_arms`' `k != "arm"` (-> `==`: the instance's other dimensions dropped)."""
    import copy

    from verifier.checks.profile_claims import _dead_arms

    optional = copy.deepcopy(TWO_VALUES)
    optional["runs"]["values"]["rate"]["optional"] = True
    first = {**_claim("m", "/mean"), "statistic": "first", "value": "latency"}
    assert _claim_findings(_run(tmp_path, {"mean": 7}, [first], runs={"runs/a.csv": "s,r,t\n2,,5\n"}, receipts=optional)) == [
        ("FAIL", "claim-mismatch", "summary.json", "/mean", "m: stated 7 s, derived 2 s (delta 5 s, tolerance 0.5 s)")]
    rule = {"id": "r", "receipts": "runs", "statistic": "speedup", "selection": {"phase": "measured"}, "per": ["model"], "baseline": "a", "candidate": "{model}",
            "at": {"file": "s.json", "pointer": "/{model}"}}
    records = [_rec("a", "2", "m1"), _rec("m1", "1", "m2"), _rec("a", "2", "m2"), _rec("m2", "1", "m2")]  # arm m1 only in model m2
    assert _dead_arms(rule, records) == {"m1": "'a', 'm1', 'm2'"}


def test_an_optional_claim_document_present_as_a_symbolic_link_is_not_absent(tmp_path):
    """Kills `_absent_optional_documents`' `u.where is not None` (-> `is`: a linked document taken for absent, its claims dropped)."""
    import os

    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": json.dumps({"mean": 3}), "elsewhere/opt.json": '{"mean": 3}'})
    os.symlink("elsewhere/opt.json", bundle / "opt.json")
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]}, "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}},
           "claims": [{**_claim("o", "/mean"), "at": {"file": "opt.json", "pointer": "/mean"}}, _claim("m", "/mean")],
           "claim_documents": [{"file": "opt.json", "optional": True}]}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    assert [f[:3] for f in _claim_findings(report)] == [("UNVERIFIED", "claim-unreadable", "opt.json"), ("PASS", "derived", "summary.json")]


def test_instances_after_an_unstated_factor_or_a_unit_of_another_dimension_are_judged(tmp_path):
    """Kills the `continue` after a factor that is not stated (:225) and after a stated unit of another dimension (:236) turned into `break`."""
    rule = {**SKIP, "unstated": "fail", "times": {"at": {"file": "scale/{arm}.json", "pointer": "/f"}}}
    found = _claim_findings(_run(tmp_path / "f", {"mean": {"a": 6, "b": 2}}, [rule], runs={**RUNS, "scale/a.json": '{"f": "two"}', "scale/b.json": '{"f": 2}'}))
    assert [f[:4] for f in found] == [("UNVERIFIED", "factor-not-stated", "summary.json", "/mean/a"), ("PASS", "derived", "summary.json", "/mean/b")]
    found = _claim_findings(_run(tmp_path / "u", {"mean": {"a": "3 GB", "b": 1}}, [{**SKIP, "unstated": "fail"}]))
    assert [f[:4] for f in found] == [("FAIL", "unit-mismatch", "summary.json", "/mean/a"), ("PASS", "derived", "summary.json", "/mean/b")]


def test_a_count_mismatch_shows_the_derived_count_without_a_unit(tmp_path):
    """Kills `compared[0]` -> `compared[1]`/`[-1]` (:245, the branch of a claim with no unit: the delta text shown as the derived value)."""
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured", "arm": "a"}, "at": {"file": "summary.json", "pointer": "/n"}}
    assert _claim_findings(_run(tmp_path, {"n": 5}, [count])) == [("FAIL", "claim-mismatch", "summary.json", "/n", "n: stated 5, derived 2 (delta 3, tolerance 0.5)")]


def test_an_arm_in_the_selection_of_an_arm_rule_does_not_hide_the_other_arms_instances():
    """Kills `_dead_arms`' `k != "arm" and not isinstance(v, dict)` (-> `or`: the selection's arm kept, instances of the other arm lost)."""
    from verifier.checks.profile_claims import _dead_arms

    rule = {"id": "r", "receipts": "runs", "statistic": "speedup", "selection": {"phase": "measured", "arm": "a"}, "per": ["model"], "baseline": "a",
            "candidate": "b", "at": {"file": "s.json", "pointer": "/{model}"}}
    assert _dead_arms(rule, [_rec("a", "2", "m1"), _rec("b", "1", "m3")]) == {}  # b has model m3's instance


def test_a_dimensionless_claim_shows_no_unit_one(tmp_path):
    """A claim whose unit is the dimensionless "1" reads "stated 3, derived 3", not "stated 3 1, derived 3 1"."""
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured"}, "unit": "1",
             "at": {"file": "summary.json", "pointer": "/n"}}
    ((status, code, _, _, message),) = _claim_findings(_run(tmp_path, {"n": 3}, [count]))
    assert (status, code) == ("PASS", "derived") and message.startswith("n: stated 3, derived 3 (")
    ((status, code, _, _, message),) = _claim_findings(_run(tmp_path / "bad", {"n": 4}, [count]))
    assert (status, code) == ("FAIL", "claim-mismatch") and message.startswith("n: stated 4, derived 3 (")


def test_a_claims_declared_tolerance_is_its_bound(tmp_path):
    """Kills dropping the rule's `tolerance` from the judge's bound: mean of arm a is 3 s; 3.4 holds within 0.5, 3.6 does not."""
    report = _run(tmp_path, {"near": 3.4, "far": 3.6, "tight": 3.4},
                  [_claim("near", "/near", tolerance="0.5"), _claim("far", "/far", tolerance="0.5"), _claim("tight", "/tight")])
    assert [one_claim(report, c).status for c in ("near", "far", "tight")] == ["PASS", "FAIL", "FAIL"]
    assert "tolerance 0.5 s" in one_claim(report, "near").message, one_claim(report, "near").message


def test_a_stated_unit_the_statistic_cannot_be_written_in_is_a_unit_mismatch_not_an_error(tmp_path):
    """A speedup stated in ms, a mean in an unknown unit: FAIL `unit-mismatch` naming the dimensions (the judge converts before it bounds)."""
    speedup = {"id": "sp", "receipts": "runs", "statistic": "speedup", "baseline": "a", "candidate": "b", "selection": {"phase": "measured"},
               "unit": "x", "at": {"file": "summary.json", "pointer": "/sp"}}
    report = _run(tmp_path, {"sp": "3 ms", "m": "3 Tasks/s"}, [speedup, _claim("m", "/m")])
    assert not [f for f in report.findings if f.status == "ERROR"], [f.message[:200] for f in report.findings if f.status == "ERROR"]
    for cid, words in (("sp", "(time)"), ("m", "(unknown unit)")):
        f = one_claim(report, cid)
        assert (f.status, f.code) == ("FAIL", "unit-mismatch") and words in f.message, f.message
