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
from verifier.evidence import FileEntry, Receipt
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
    found = read_sites(_Bounds(files), {"receipts": {}, "gate": {"rules": [rule]}}, [dataclasses.replace(r, receipt_set="runs") for r in records])
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
    from verifier.pipeline import Context

    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv", "name": "runs/{arm}.csv"}}, "claims": [claim]}
    data = profile_evidence(runs=records)
    model = data["evidence"]
    data["evidence"] = dataclasses.replace(model, sites=read_sites(tree, profile, model.receipts),
                                           files=tuple(FileEntry(rel, None, None) for rel in [*tree.files, *tree.blocked]))  # as schema.receipts lists the tree
    ctx = Context(subject=Path("."), assets=None, bundle=tree, options={"profile": profile}, data=data)
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
    from verifier.pipeline import Context

    records = [_rec("a", "2"), profile_receipt("runs/b.csv", "", dims={"arm": "b", "model": "m1"}, unread="blocked")]
    claim = {**INDEXED, "per": ["model", "arm"], "at": {"file": "s.json", "pointer": "/{model}/{arm}"}}
    tree = _Tree({"s.json": {"m1": {"a": Decimal(2)}}}, {"runs/b.csv": "its sha256 differs from the manifest"})
    profile = {"id": "run", "receipts": {"runs": {"glob": "runs/*.csv"}}, "claims": [claim]}
    data = profile_evidence(runs=records)
    data["evidence"] = dataclasses.replace(data["evidence"], sites=read_sites(tree, profile, data["evidence"].receipts))
    found = [f for f in claims(Context(subject=Path("."), assets=None, bundle=tree, options={"profile": profile}, data=data))
             if f.status.value == "UNVERIFIED"]
    assert [f.code for f in found] == ["blocked-by-integrity"]
    assert "no readable receipt has arm=b: its receipts were not read (not parsed: runs/b.csv)" in found[0].message
