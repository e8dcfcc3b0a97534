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
from verifier.campaign import campaign_of
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


# cosmic-ray run of record (issue 42): a small bundle (`bundlekit.make_bundle`) under a gate of the test's own, for the
# paths of `collect_all`, `_receipt_values`, `_quality`, `blocked_texts` and `stated` the config's other tests never reach

_KS_CLAIMS = [{"claim": "server_mean_s", "statistic": "mean", "per": "server", "selection": {"phase": "measured"}, "unit": "s"},
              {"claim": "p95_s", "statistic": "percentile", "q": 95.0, "method": "nearest-rank", "per": "server",
               "selection": {"phase": "measured"}, "unit": "s"},
              {"claim": "p50_s", "statistic": "percentile", "q": 50, "method": "linear", "per": "server",
               "selection": {"phase": "measured"}, "unit": "s"}]
_KS_PLAN = {"arm_order": ["A", "B"], "servers_per_arm": 1, "warmups_per_server": 0, "measured_per_server": 2}


def _small(tmp_path: Path, quality: dict | None = None) -> tuple[Path, str]:
    """Return `(bundle, asset root)`: servers A1 (baseline: 10 s ok, 12 s timed out) and B1 (candidate: 5 s, 7 s), gate `ks-v1`."""
    from bundlekit import asset_root, make_bundle

    gate_doc = {"plan": _KS_PLAN, "claims": _KS_CLAIMS, **({"quality": quality} if quality else {})}
    root = asset_root(tmp_path, {"ks-v1": gate_doc})
    bundle = make_bundle(tmp_path / "b", "ks-v1", {"A1": ("baseline", [("measured", 10, "ok"), ("measured", 12, "timeout")]),
                                                   "B1": ("candidate", [("measured", 5, "ok"), ("measured", 7, "ok")])}, {})
    return bundle, root


def _small_run(bundle: Path, root: str, text: str | None = None, *, stated: bool = True) -> tuple[Context, list]:
    ctx = Context(subject=bundle, assets=assets(root), bundle=Bundle(root=bundle), options={"claims_text": ("pr.md", text)} if text else {})
    findings, _ = run_pipeline((*PIPELINE, statements.stated) if stated else PIPELINE, ctx)
    return ctx, [(f.status.value, f.code, f.path, f.message) for f in findings if f.check == "claims.stated"]


def test_an_underivable_rule_adds_nothing_and_a_percentile_is_named_as_the_text_names_it(tmp_path):
    """
    `collect_all`: server A1 (a timed-out request) derives nothing, B1 still does (kills `:101` `continue -> break`);
    a percentile's statistic is `p95`/`p50` as a sentence says it (`:104` `== -> !=`). The gate's `q: 50` was named
    `p5E+1` (`Decimal.normalize`), so "a p50 of 6.0 s" bound to nothing: fixed, this test was red before.
    """
    bundle, root = _small(tmp_path)
    ctx, _ = _small_run(bundle, root, stated=False)
    evidence, pairs, keys, levels = statements.collect_all(ctx)
    derived = [(e.name, e.statistic, e.value, sorted(e.keys)) for e in evidence if e.source == "derived"]
    assert derived == [("server_mean_s.B1", "mean", Decimal(6), ["B1", "candidate"]), ("p95_s.B1", "p95", Decimal(7), ["B1", "candidate"]),
                       ("p50_s.B1", "p50", Decimal(6), ["B1", "candidate"])]
    assert pairs == [] and levels["A1-m2"] == "request" and keys["A1-m2"] == "A1-m2"
    _, found = _small_run(bundle, root, "Server B1 had a p50 of 6.0 s. Server B1 had a p50 of 6.5 s.")
    assert [(s, c) for s, c, _, _ in found] == [("PASS", "bound"), ("FAIL", "claim-mismatch")]


def test_a_scope_with_an_unusable_request_has_counts_but_no_fastest_or_slowest(tmp_path):
    """`_receipt_values` `:182`: a scope holding a timed-out request gets its counts and no time values (`continue -> break`, `or -> and`)."""
    bundle, root = _small(tmp_path)
    ctx, _ = _small_run(bundle, root, stated=False)
    names = [e.name for e in statements._receipt_values(campaign_of(ctx), set())]
    timed = [f"{s}_s" for s in ("min", "max", "first", "last")]
    assert names == ["request.A1-m1.elapsed_s", "request.B1-m1.elapsed_s", "request.B1-m2.elapsed_s",
                     "all.all.count", "all.warmup.count", "all.measured.count",
                     "arm.baseline.all.count", "arm.baseline.warmup.count", "arm.baseline.measured.count",
                     "arm.candidate.all.count", *[f"arm.candidate.all.{t}" for t in timed], "arm.candidate.warmup.count",
                     "arm.candidate.measured.count", *[f"arm.candidate.measured.{t}" for t in timed],
                     "server.A1.all.count", "server.A1.warmup.count", "server.A1.measured.count",
                     "server.B1.all.count", *[f"server.B1.all.{t}" for t in timed], "server.B1.warmup.count",
                     "server.B1.measured.count", *[f"server.B1.measured.{t}" for t in timed]]


def test_gate_thresholds_are_evidence_without_a_quality_index_and_nothing_without_a_quality_section(tmp_path):
    """`_quality`: `:237` `if not quality` flipped, `:241` `in -> not in`, `:245` `in -> not in`; no recorded score without an index."""
    bundle, root = _small(tmp_path / "q", {"thresholds": {"ssim": {"min": 0.97}, "vmaf": {"min": 90, "max": 100}}, "comparisons": 3,
                                           "required_scores": []})
    ctx, _ = _small_run(bundle, root, stated=False)
    found = [(e.name, e.value, e.statistic, sorted(e.topics), e.derivation) for e in statements._quality(ctx, ctx.gate)]
    assert found == [("gate.quality.ssim.min", Decimal("0.97"), "threshold", ["ssim"], "gate ks-v1 quality.thresholds.ssim.min"),
                     ("gate.quality.vmaf.min", Decimal(90), "threshold", ["vmaf"], "gate ks-v1 quality.thresholds.vmaf.min"),
                     ("gate.quality.vmaf.max", Decimal(100), "threshold", ["vmaf"], "gate ks-v1 quality.thresholds.vmaf.max"),
                     ("gate.quality.comparisons", Decimal(3), "count", [], "gate ks-v1 quality.comparisons")]
    bundle, root = _small(tmp_path / "n")
    ctx, _ = _small_run(bundle, root, stated=False)
    assert statements._quality(ctx, ctx.gate) == [] and statements._quality(ctx, {"quality": {}}) == []


def test_readme_files_the_manifest_lists_with_other_bytes_are_counted_not_judged(tmp_path):
    """
    `stated` `:386`-`:391` and `blocked_texts` `:311`: one finding per tampered root README/RESULTS, in name order,
    "1 number" singular (`:388` `== 1`, `:387` `is None` flipped), "its numbers" when not UTF-8; a tampered docs/README.md or NOTES.md is no
    claim text; a blocked file counts as prose with numbers (`:391`: no `no-claim-text` after it, `:392` `not` deleted).
    """
    from bundlekit import edit_json, rehash

    bundle, root = _small(tmp_path)
    for name, text in {"README.md": "x", "RESULTS.md": "x", "results.txt": "x", "docs/README.md": "x", "NOTES.md": "x",
                       "README.markdown": "nothing here"}.items():
        (bundle / name).parent.mkdir(exist_ok=True)
        (bundle / name).write_text(text)
    edit_json(bundle / "claims.json", lambda d: d.update(headline="Faster video generation"))
    rehash(bundle)
    _, found = _small_run(bundle, root)
    assert found == [("PASS", "no-claim-text", None,
                      "the prose (claims.json#/headline, README.markdown, README.md, RESULTS.md, results.txt) states no number, so there is nothing to bind")]
    for name, data in {"README.md": b"It took 1 s.", "RESULTS.md": b"2 s, 3 s and 4 s.", "results.txt": b"\xff 5 s",
                       "docs/README.md": b"6 s", "NOTES.md": b"7 s"}.items():
        (bundle / name).write_bytes(data)
    _, found = _small_run(bundle, root)
    why = "not judged (blocked by integrity.files: its bytes do not match the manifest's sha256 and size)"
    assert found == [("UNVERIFIED", "blocked-by-integrity", "README.md", f"README.md: 1 number {why}"),
                     ("UNVERIFIED", "blocked-by-integrity", "RESULTS.md", f"RESULTS.md: 3 numbers {why}"),
                     ("UNVERIFIED", "blocked-by-integrity", "results.txt", f"results.txt: its numbers {why}")]


class _ListedBundle:
    """A bundle stand-in for `blocked_texts`: a manifest document (or the exception reading it raises), files under `root`."""

    def __init__(self, root: Path, manifest, verified: tuple[str, ...] = ()):
        self.root, self._manifest, self.verified = root, manifest, {n: n for n in verified}

    def raw_document(self, kind: str):
        if isinstance(self._manifest, Exception):
            raise self._manifest
        return self._manifest


def test_blocked_texts_read_only_plain_files_within_the_size_limit_and_survive_a_bad_manifest(tmp_path, monkeypatch):
    """
    `blocked_texts`: an unreadable manifest gives nothing (`:306` the `except` clause replaced), so does one not an
    object (`:309`); entries not objects or paths not strings are skipped, each name once; a symlink, a directory,
    an absent file and a file over the limit are counted as None (`:316` `and not`, `<= -> <`), one at the limit is read.
    """
    monkeypatch.setattr(statements, "MAX_TEXT_BYTES", 12)
    (tmp_path / "README").write_bytes(b"1 s and 2 s.")  # 12 bytes: at the limit
    (tmp_path / "README.txt").write_bytes(b"1 s and 2 s!!")  # 13 bytes
    (tmp_path / "real.md").write_text("5 s")
    (tmp_path / "RESULTS.txt").symlink_to(tmp_path / "real.md")
    (tmp_path / "Results.md").mkdir()
    (tmp_path / "readme.md").write_text("9 s")  # verified: read by `texts`, not here
    files = [{"path": n} for n in ("README", "README", "README.txt", "RESULTS.txt", "Results.md", "RESULTS", "readme.md", "real.md")]
    manifest = {"files": [*files, "README.markdown", {"path": 7}, {"size": 1}]}

    def blocked(m, verified=("readme.md",)):
        return statements.blocked_texts(SimpleNamespace(bundle=_ListedBundle(tmp_path, m, verified)))

    assert blocked(manifest) == [("README", 2), ("README.txt", None), ("RESULTS", None), ("RESULTS.txt", None), ("Results.md", None)]
    assert blocked(ValueError("bad manifest")) == [] and blocked(["README"]) == [] and blocked({"files": None}) == []


def test_a_blocked_readme_over_the_number_limit_says_more_than_the_limit(tmp_path):
    """
    `blocked_texts` counts at most `MAX_QUANTITIES + 1` numbers (`extract(limit=...)` stops there), so a tampered
    README of 2,100 numbers was reported as "2001 numbers not judged": now "more than 2000 numbers"; and a bundle
    whose only claim texts were blocked READMEs said PASS `no-claim-text` and dropped them: now counted (both red
    before). Kills `:387` `> -> >=` (the at-limit case), `:358` `and -> or`, `not` deleted.
    """
    from bundlekit import rehash

    bundle, root = _small(tmp_path)
    (bundle / "README.md").write_text("x")
    (bundle / "RESULTS.md").write_text("x")
    rehash(bundle)
    (bundle / "README.md").write_text(" ".join(f"{i} s." for i in range(2100)))
    (bundle / "RESULTS.md").write_text(" ".join(f"{i} s." for i in range(MAX_QUANTITIES)))
    _, found = _small_run(bundle, root)
    assert [m.split(" not judged")[0] for _, _, _, m in found] == ["README.md: more than 2000 numbers", "RESULTS.md: 2000 numbers"]


def test_a_blocked_readme_that_cannot_be_read_is_counted_as_none(tmp_path, monkeypatch):
    """`blocked_texts` `:318`: an `OSError` reading the file (here: permission) is "its numbers", never a traceback."""
    (tmp_path / "README").write_text("1 s")
    real = Path.read_bytes

    def read_bytes(self):
        if self.name == "README":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert statements.blocked_texts(SimpleNamespace(bundle=_ListedBundle(tmp_path, {"files": [{"path": "README"}]}))) == [("README", None)]
