"""
Tests that kill surviving mutants of `verifier/checks/statements.py` (issue 14): what stated numbers bind to.

`collect` is read on the shipped example after the reduced pipeline (no
media): the words `baseline`/`candidate` name the arms with those roles,
each gate claim rule gives one evidence value per instance (a count never
also as a latency), a server statistic belongs to its server and its arm,
only the arm mean of server means is the headline (`primary`, first pair).
`_plan_counts`, `texts`, `_finding` and the too-long rule are tested on
hand-made inputs at their boundaries.
"""

from __future__ import annotations

import copy
from collections import Counter
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from bundlekit import edit_json, rehash
from conftest import EXAMPLE

from verifier.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.claimtext import MAX_QUANTITIES
from verifier.pipeline import Context, run_pipeline
from verifier.readers.native import evidence_of, from_documents
from verifier.trust import assets

PIPELINE = (integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims)


def _ctx(bundle: Path, **options) -> Context:
    ctx = Context(subject=bundle, assets=assets(), bundle=Bundle(root=bundle), options=options)
    run_pipeline(PIPELINE, ctx)
    return ctx


RENAMED = {"baseline": "arm-a", "candidate": "arm-b"}  # arm ids that are not their role words


def _collect(servers: dict[str, str] | None = None, renamed: dict[str, str] = RENAMED):
    """Return `(evidence by name, evidence, pairs, keys)` of the example with its arms renamed `arm-a`, `arm-b` (and `servers`)."""
    servers = servers or {}
    ctx = _ctx(EXAMPLE)
    plan_doc = copy.deepcopy(ctx.bundle.document("plan"))
    for arm in plan_doc["arms"]:
        arm["id"] = renamed[arm["id"]]
    for server in plan_doc["servers"]:
        server["arm"] = renamed[server["arm"]]
        server["id"] = servers.get(server["id"], server["id"])
    receipts = [{**r, "arm": renamed[r["arm"]], "server": servers.get(r["server"], r["server"])} if "arm" in r else
                {**r, "server": servers.get(r["server"], r["server"])} if "server" in r else r for r in ctx.bundle.document("receipts")]
    native = evidence_of(ctx)  # the run's model, with the renamed plan and receipts read by the same reader
    documents = {"plan": plan_doc, "receipts": receipts, "claims": ctx.bundle.document("claims"), "quality": ctx.bundle.document("quality")}
    ctx.data["evidence"] = from_documents(documents, manifest=ctx.data.get("manifest"), names={}, gate=native.gate)
    ctx.data.pop("campaign", None)
    ctx.gate = copy.deepcopy(ctx.gate)
    for rule in ctx.gate["claims"]:
        rule.update({side: renamed[rule[side]] for side in ("baseline", "candidate") if side in rule})
    evidence, pairs, keys = statements.collect(ctx)
    return {e.name: e for e in evidence}, evidence, pairs, keys


@pytest.fixture  # per test, not per module: the map attributes a fixture's lines to the test that ran it
def collected():
    return _collect()


def test_server_statistics_form_no_pair_even_where_a_server_shares_its_arms_id():
    _, evidence, pairs, _ = _collect(renamed={"baseline": "A1", "candidate": "B1"})  # servers A1, A2 | B1, B2
    assert {"server_mean_s.A1", "server_mean_s.B1", "arm_mean_s.A1", "arm_mean_s.B1"} <= {e.name for e in evidence}
    assert [p.name for p in pairs] == ["arm_mean_s", "sd_server_means_s"]  # only arm statistics pair up


def test_role_words_name_the_arms_with_those_roles(collected):
    keys = collected[3]
    assert keys["baseline"] == "arm-a" and keys["candidate"] == "arm-b" and keys["arm-a"] == "arm-a"
    assert {keys[s] for s in ("A1", "A2", "B1", "B2")} == {"A1", "A2", "B1", "B2"}
    assert None not in keys


def test_each_rule_instance_gives_one_evidence_value(collected):
    by_name, evidence, _, _ = collected
    assert [n for n, k in Counter(e.name for e in evidence).items() if k > 1] == []
    assert by_name["count.measured_requests"].statistic == "count" and by_name["count.measured_requests"].unit is None
    assert by_name["reduction_pct"].statistic == "relative_reduction_pct" and by_name["reduction_pct"].unit == "%"
    assert by_name["speedup_x"].topics == frozenset({"speedup"}) and by_name["reduction_pct"].topics == frozenset({"reduction"})


def test_a_measured_request_count_needs_the_word_measured(collected):
    import re

    by_name = collected[0]
    measured, every = by_name["count.measured_requests"].nouns, by_name["count.requests"].nouns
    assert re.search(measured, "measured requests") and not re.search(measured, "requests")
    assert re.search(every, "requests") and not re.search(every, "measured requests")


def test_server_statistics_belong_to_their_server_and_arm_and_only_the_arm_mean_is_primary(collected):
    by_name, evidence, pairs, _ = collected
    server = [e for e in evidence if e.name.startswith("server_mean_s")]
    assert server and all(len(e.keys) == 2 for e in server)
    assert {e.keys for e in server} == {frozenset({"A1", "arm-a"}), frozenset({"A2", "arm-a"}),
                                       frozenset({"B1", "arm-b"}), frozenset({"B2", "arm-b"})}
    arm = [e for e in evidence if e.name.startswith("arm_mean_s")]
    assert len(arm) == 2 and all(e.primary and len(e.keys) == 1 for e in arm)
    assert [e.name for e in evidence if e.primary] == [e.name for e in arm]
    assert [p.name for p in pairs] == ["arm_mean_s", "sd_server_means_s"] and pairs[0].primary and not pairs[1].primary
    assert pairs[0].base.keys == frozenset({"arm-a"}) and pairs[0].cand.keys == frozenset({"arm-b"})


def test_recorded_score_extremes_name_their_comparison(collected):
    by_name = collected[0]
    assert by_name["quality.ssim.min"].derivation == "lowest recorded ssim (c01 of 14)"
    assert by_name["quality.ssim.min"].value == Decimal("0.991703") and by_name["quality.ssim.max"].value == 1


def _plan(servers_per_arm: tuple[int, ...], fps: str):
    arms = [{"id": f"a{i}"} for i in range(len(servers_per_arm))]
    servers = [{"id": f"s{i}{j}", "arm": f"a{i}"} for i, n in enumerate(servers_per_arm) for j in range(n)]
    plan = {"arms": arms, "servers": servers, "warmups_per_server": 1, "measured_per_server": 2,
            "expected_output": {"frames": 25, "fps": fps}}
    return from_documents({"plan": plan}, manifest=None, names={}).plan  # the model's Plan, as the reader builds it


@pytest.mark.parametrize("shape,per_arm", [((1, 1, 1), 1), ((2, 2, 2), 2), ((1, 2), None), ((1, 1, 2), None)])
def test_servers_per_arm_is_stated_only_when_every_arm_has_as_many(shape, per_arm):
    found = {e.name: e.value for e in statements._plan_counts(_plan(shape, "25"))}
    assert found.get("plan.servers_per_arm") == per_arm
    assert found["plan.servers"] == sum(shape) and found["plan.warmups"] == sum(shape)


@pytest.mark.parametrize("fps,value", [("25", Decimal(25)), ("12.5", Decimal("12.5")), ("30000/1001", Decimal(30000 / 1001))])
def test_expected_fps_is_exact_for_integers_and_the_float_of_a_fraction(fps, value):
    found = {e.name: e.value for e in statements._plan_counts(_plan((1, 1), fps))}
    assert found["plan.expected_output.fps"] == value


class _FakeBundle:
    def __init__(self, root: Path, names: list[str], claims: dict):
        self.root, self.verified, self._claims = root, {n: n for n in names}, claims

    def document(self, kind: str) -> dict:
        return self._claims

    def path_of(self, name: str) -> Path:
        return self.root / name


def test_claim_texts_are_root_readme_and_results_files_only(tmp_path):
    for name in ("README.md", "docs/README.md", "results.txt", "NOTES.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"text of {name}")
    claims = {"headline": "h", "claims": [{"id": "c", "text": "t"}, {"id": 1}]}
    ctx = Context(subject=tmp_path, assets=None, bundle=_FakeBundle(tmp_path, ["README.md", "docs/README.md", "results.txt", "NOTES.md"], claims),
                  options={"claims_text": ("pr.md", "pr body")}, data={"evidence": from_documents({"claims": claims}, manifest=None, names={})})
    assert statements.texts(ctx) == [("claims.json#/headline", "claims.json", "h"), ("claims.json#/claims/0/text", "claims.json", "t"),
                                     ("README.md", "README.md", "text of README.md"), ("results.txt", "results.txt", "text of results.txt"),
                                     ("pr.md", None, "pr body")]


def _outcome(sentence: str):
    q = SimpleNamespace(where=lambda: "README.md:1:1", stated="3 s", sentence=sentence, source="README.md", line=1, column=1,
                        value=Decimal(3))
    return SimpleNamespace(quantity=q, status="PASS", code="bound", evidence="e", formula="f", derived=None, tolerance=None,
                           extra={}, message="ok")


@pytest.mark.parametrize("length,shown", [(160, 160), (161, 160), (200, 160)])
def test_a_sentence_longer_than_160_characters_is_cut_to_157_and_an_ellipsis(length, shown):
    sentence = "x" * length
    message = statements._finding(_outcome(sentence), "README.md").message
    quoted = message.split('Sentence: "')[1][:-1]
    assert len(quoted) == shown and (quoted.endswith("...") == (length > 160))


def _stated_findings(bundle: Path, text: str | None):
    ctx = Context(subject=bundle, assets=assets(), bundle=Bundle(root=bundle), options={"claims_text": ("pr.md", text)} if text else {})
    findings, _ = run_pipeline((*PIPELINE, statements.stated), ctx)
    return [f for f in findings if f.check == "claims.stated" and not f.code.startswith("recorded")]


def test_no_claim_text_passes_once_and_too_many_numbers_are_one_unverified_finding(tmp_path):
    import shutil

    bundle = tmp_path / "b"
    shutil.copytree(EXAMPLE, bundle, symlinks=True)
    (bundle / "README.md").unlink()
    edit_json(bundle / "claims.json", lambda d: (d.pop("headline", None), d.pop("notes", None),
                                                 [c.pop("text", None) for c in d.get("claims", [])]))
    rehash(bundle)
    assert [(f.status, f.code) for f in _stated_findings(bundle, None)] == [("PASS", "no-claim-text")]
    assert [(f.status, f.code) for f in _stated_findings(bundle, "4 servers")] == [("PASS", "plan-count")]
    many = " ".join(f"{i} s." for i in range(MAX_QUANTITIES + 1))
    assert [(f.status, f.code) for f in _stated_findings(bundle, many)] == [("UNVERIFIED", "claim-text-too-long")]
    at_limit = _stated_findings(bundle, " ".join(f"{i} s." for i in range(20)))
    assert len(at_limit) == 20 and "claim-text-too-long" not in {f.code for f in at_limit}
