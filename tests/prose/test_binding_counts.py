"""
A stated count binds to the count of the arm or server its sentence names, never to the first count instance (issue 42).

Profile bundles (`verify --claims-text` through `verify_path(..., profile=,
claims_text=)`) derive one count per arm (`n[arm=alpha]` 2, `n[arm=beta]` 3);
"beta ran 3 requests" was FAIL `claim-mismatch` against alpha's 2. A
sentence naming no arm, where the arms' counts differ, is UNVERIFIED
`unbound-claim` with the candidates listed (as `verifier.prose.subjects` does
for a subject that leaves several values), never a pick of the first.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from conftest import make_assets
from helpers import write_tree

from verifier.prose.binding import Evidence, bind
from verifier.readers.claimtext import extract
from verifier.core import verify_path

AT = {"file": "summary.json", "pointer": "/x"}
FIELDS = {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}
RUNS = {"runs/alpha.csv": "s,server\n2,s1\n4,s1\n", "runs/beta.csv": "s,server\n1,s2\n2,s2\n3,s2\n"}  # 2 and 3 requests
COUNT = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured"}, "per": ["arm"], "at": AT}


def _stated(tmp_path: Path, text: str, claims: list[dict[str, Any]] | None = None) -> list[tuple[str, str, str]]:
    """(status, code, message up to the sentence) of each `claims.stated` finding for `text` on the two-arm profile bundle."""
    sets = {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv", "fields": FIELDS}}
    doc = {"id": "p", "version": 1, "description": "counts per arm", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"}, "receipts": sets, "claims": claims or [COUNT]}
    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": "{}"})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"p": doc}), profile="p", claims_text=("pr.md", text))
    assert not [f.message for f in report.findings if f.status.value == "ERROR"]
    return [(f.status.value, f.code, f.message.split(" Sentence: ")[0]) for f in report.findings if f.check == "claims.stated"]


def test_a_count_named_by_its_arm_binds_to_that_arms_count(tmp_path):
    """The issue's case: beta's 3 requests were compared with alpha's 2 (FAIL); alpha's 2 still binds to alpha."""
    assert _stated(tmp_path, "beta ran 3 requests. alpha ran 2 requests. beta ran 2 requests.") == [
        ("PASS", "bound", "pr.md:1:10: 3 requests is n[arm=beta] = 3 requests (count of 3 receipts with arm=beta, phase=measured)."),
        ("PASS", "bound", "pr.md:1:32: 2 requests is n[arm=alpha] = 2 requests (count of 2 receipts with arm=alpha, phase=measured)."),
        ("FAIL", "claim-mismatch", 'pr.md:1:53: states 2 requests, but "2 " names a count; it is n[arm=beta], which the evidence '
                                   "gives as 3 requests (delta -1 requests, tolerance 0.5 requests; count of 3 receipts with arm=beta, phase=measured).")]


def test_a_count_named_by_the_arms_role_word_binds_to_that_arm(tmp_path):
    """`candidate` names beta through the rule's `candidate`; the arm after the number ("on alpha") names it too."""
    cut = {"id": "cut", "receipts": "runs", "statistic": "relative_reduction_pct", "unit": "%", "baseline": "alpha",
           "candidate": "beta", "selection": {"phase": "measured"}, "at": AT}
    assert _stated(tmp_path, "The candidate ran 3 requests; 2 requests ran on alpha.", [COUNT, cut]) == [
        ("PASS", "bound", "pr.md:1:19: 3 requests is n[arm=beta] = 3 requests (count of 3 receipts with arm=beta, phase=measured)."),
        ("PASS", "bound", "pr.md:1:31: 2 requests is n[arm=alpha] = 2 requests (count of 2 receipts with arm=alpha, phase=measured).")]


def test_a_count_naming_no_arm_where_the_arms_differ_is_unbound_never_the_first(tmp_path):
    """Neither 3 (beta's) nor 5 (the sum, not derived) nor 2 (alpha's) is judged against alpha's count: the candidates are listed."""
    rows = _stated(tmp_path, "The run made 3 requests. The run made 5 requests. The run made 2 requests.")
    assert [(s, c) for s, c, _ in rows] == [("UNVERIFIED", "unbound-claim")] * 3
    assert rows[0][2] == ("pr.md:1:14: 3 requests is not bound: its words name no arm or server and no 'per server' or 'each arm', "
                          "and the evidence counts per arm or server only (n[arm=alpha] = 2; n[arm=beta] = 3).")


def _count(name: str, value: int, arm: str | None) -> Evidence:
    return Evidence(name, Decimal(value), None, "derived", f"count {name}", statistic="count",
                    keys=frozenset({arm} if arm else ()), nouns=r"^(?:[a-z-]+\s+)?requests\b")


def test_bind_counts_of_equal_value_still_bind_and_a_named_server_without_its_own_count_is_unbound():
    """
    Counts per arm bind only to a number whose words name the arm or say "each arm": "The run made 3 requests" where every
    arm made 3 is neither one arm's count nor the total (unbound); `s9` names no count and the two differ: unbound, not the first.

    A count of a more specific noun ("measured requests") is the only candidate even though the per-arm counts' noun matches too.
    """
    same = [_count("n.a", 3, "a"), _count("n.b", 3, "b")]
    q = extract("The run made 3 requests.", "pr.md")
    assert [(o.status, o.code, o.evidence) for o in bind(q, same, [], {"a": "a", "b": "b"})] == [("UNVERIFIED", "unbound-claim", None)]
    q = extract("Each arm made 3 requests.", "pr.md")
    assert [(o.status, o.code, o.evidence) for o in bind(q, same, [], {"a": "a", "b": "b"})] == [("PASS", "bound", "n.a")]
    differ = [_count("n.a", 3, "a"), _count("n.b", 4, "b")]
    q = extract("s9 ran 3 requests.", "pr.md")
    assert [(o.status, o.code, o.message) for o in bind(q, differ, [], {"a": "a", "b": "b", "s9": "s9"})] == [
        ("UNVERIFIED", "unbound-claim", "3 requests is not bound: the subject ('s9') leaves 2 derivations that disagree (n.a = 3; n.b = 4)")]
    q = extract("b ran 4 requests.", "pr.md")
    assert [(o.status, o.code, o.evidence) for o in bind(q, differ, [], {"a": "a", "b": "b"})] == [("PASS", "bound", "n.b")]
    measured = Evidence("n.measured", Decimal(7), None, "derived", "count", statistic="count", nouns=r"^(?:[a-z-]+\s+)?measured\s+(?:http\s+)?requests\b")
    q = extract("The run made 7 measured requests.", "pr.md")  # the most specific noun decides; the per-arm counts are not candidates
    assert [(o.status, o.code, o.evidence) for o in bind(q, [*differ, measured], [], {"a": "a", "b": "b"})] == [("PASS", "bound", "n.measured")]


def test_a_native_count_per_arm_or_server_carries_its_arm_and_server():
    """A native gate's count rule with `per` gives one count per arm (server) carrying that arm (server and arm) in `keys`."""
    import copy

    from conftest import EXAMPLE

    from verifier.formats.bundle import Bundle
    from verifier.checks import derivation, gate, integrity, plan, schema, statements
    from verifier.engine.pipeline import Context, run_pipeline
    from verifier.trust.assets import assets

    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE), options={})
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    ctx.gate = copy.deepcopy(ctx.gate)
    ctx.gate["claims"] += [{"claim": "n_arm", "statistic": "count", "of": "requests", "per": "arm"},
                           {"claim": "n_server", "statistic": "count", "of": "requests", "per": "server"}]
    evidence, _, _ = statements.collect_all(ctx)[:3]
    counts = {e.name: (e.keys, e.level) for e in evidence if e.name.startswith("n_")}
    assert counts == {"n_arm.baseline": (frozenset({"baseline"}), None), "n_arm.candidate": (frozenset({"candidate"}), None),
                      "n_server.A1": (frozenset({"A1", "baseline"}), None), "n_server.A2": (frozenset({"A2", "baseline"}), None),
                      "n_server.B1": (frozenset({"B1", "candidate"}), None), "n_server.B2": (frozenset({"B2", "candidate"}), None)}
    assert {e.name: e.keys for e in evidence if e.name == "count.requests"} == {"count.requests": frozenset()}
