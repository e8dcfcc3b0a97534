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

from verifier.formats.bundle import Bundle
from verifier.readers.campaign import campaign_of
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import MAX_QUANTITIES
from verifier.engine.pipeline import Context, RunData, run_pipeline
from verifier.readers.native import evidence_of, from_documents
from verifier.trust.assets import assets

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
    ctx.run.evidence = from_documents(documents, manifest=ctx.run.manifest, names={}, gate=native.gate)
    ctx.run.campaign = None
    ctx.gate = copy.deepcopy(ctx.gate)
    for rule in ctx.gate["claims"]:
        rule.update({side: renamed[rule[side]] for side in ("baseline", "candidate") if side in rule})
    evidence, pairs, keys = statements.collect_all(ctx)[:3]
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
                  options={"claims_text": ("pr.md", "pr body")}, run=RunData(evidence=from_documents({"claims": claims}, manifest=None, names={})))
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
    """`_receipt_values` `:182`/`:183`: a scope holding a timed-out request gets its counts and no time values (`continue -> break`, `or -> and`)."""
    bundle, root = _small(tmp_path)
    ctx, _ = _small_run(bundle, root, stated=False)
    values = statements._receipt_values(campaign_of(ctx), set())
    names = [e.name for e in values]
    # ordered by start time although a request failed (`:167` `row[4] -> row[5]`)
    assert [e.derivation for e in values if e.name == "arm.candidate.all.first_s"] == ["first (by start time) of 2 elapsed seconds (arm candidate)"]
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


def test_receipt_values_by_scope_and_phase_in_start_order_with_the_plans_arm(tmp_path):
    """
    `_receipt_values` on two servers with a warmup each, B1's measured requests swapped in the file and B1's warmup
    receipt naming the wrong arm: values per scope (`:173` each index, `is`, `and`/`or`), the plan's arm wins
    (`:159` `or -> and`), first/last by start time (`:162` `or -> and`, `:167`, `:168` `if ordered` flipped, `:186`),
    counts the gate derives are not repeated (`:178`), each value keyed by its scope (`:177`) with its phase (`:166`).
    """
    from bundlekit import asset_root, make_bundle, read_lines, rehash, write_lines

    root = asset_root(tmp_path, {"kr-v1": {"plan": {**_KS_PLAN, "warmups_per_server": 1},
                                           "claims": [{"claim": "count.requests", "statistic": "count", "of": "requests"}]}})
    bundle = make_bundle(tmp_path / "b", "kr-v1", {"A1": ("baseline", [("warmup", 20, "ok"), ("measured", 10, "ok"), ("measured", 12, "ok")]),
                                                   "B1": ("candidate", [("warmup", 9, "ok"), ("measured", 5, "ok"), ("measured", 7, "ok")])},
                         {"count.requests": 6})
    rows = read_lines(bundle / "receipts.jsonl")
    rows[4], rows[5] = rows[5], rows[4]  # B1-m2 before B1-m1 in the file
    rows[3]["arm"] = "baseline"  # B1-w1 says baseline; the plan says B1 is a candidate server
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)
    ctx, _ = _small_run(bundle, root, stated=False)
    evidence = statements._receipt_values(campaign_of(ctx), {("count", "all", None)})
    got: dict[str, list[str]] = {}
    for e in evidence:
        scope, stat = e.name.rsplit(".", 1)
        got.setdefault(scope, []).append(f"{stat}={e.value}")
    assert {k: " ".join(v) for k, v in got.items()} == {
        "request.A1-w1": "elapsed_s=20", "request.A1-m1": "elapsed_s=10", "request.A1-m2": "elapsed_s=12",
        "request.B1-w1": "elapsed_s=9", "request.B1-m2": "elapsed_s=7", "request.B1-m1": "elapsed_s=5",
        "all.all": "min_s=5 max_s=20 first_s=20 last_s=7",
        "all.warmup": "count=2 min_s=9 max_s=20 first_s=20 last_s=9",
        "all.measured": "count=4 min_s=5 max_s=12 first_s=10 last_s=7",
        "arm.baseline.all": "count=3 min_s=10 max_s=20 first_s=20 last_s=12",
        "arm.baseline.warmup": "count=1 min_s=20 max_s=20 first_s=20 last_s=20",
        "arm.baseline.measured": "count=2 min_s=10 max_s=12 first_s=10 last_s=12",
        "arm.candidate.all": "count=3 min_s=5 max_s=9 first_s=9 last_s=7",
        "arm.candidate.warmup": "count=1 min_s=9 max_s=9 first_s=9 last_s=9",
        "arm.candidate.measured": "count=2 min_s=5 max_s=7 first_s=5 last_s=7",
        "server.A1.all": "count=3 min_s=10 max_s=20 first_s=20 last_s=12",
        "server.A1.warmup": "count=1 min_s=20 max_s=20 first_s=20 last_s=20",
        "server.A1.measured": "count=2 min_s=10 max_s=12 first_s=10 last_s=12",
        "server.B1.all": "count=3 min_s=5 max_s=9 first_s=9 last_s=7",
        "server.B1.warmup": "count=1 min_s=9 max_s=9 first_s=9 last_s=9",
        "server.B1.measured": "count=2 min_s=5 max_s=7 first_s=5 last_s=7",
    }
    by_name = {e.name: e for e in evidence}
    assert by_name["request.B1-w1.elapsed_s"].keys == frozenset({"B1-w1", "B1", "candidate"})
    assert [(by_name[n].phase, by_name[n].level) for n in ("request.A1-w1.elapsed_s", "request.A1-m1.elapsed_s", "all.all.min_s")] == \
        [("warmup", "request"), ("measured", "request"), (None, "all")]
    assert by_name["all.warmup.count"].keys == frozenset() and by_name["arm.candidate.measured.first_s"].keys == frozenset({"candidate"})
    assert by_name["server.B1.measured.first_s"].derivation == "first (by start time) of 2 elapsed seconds (server B1, measured)"
    assert by_name["all.warmup.count"].derivation == "count of request receipts (all requests, warmup)"
    assert by_name["arm.baseline.all.count"].derivation == "count of request receipts (arm baseline)"


def test_the_example_counts_the_gate_derives_are_not_repeated_from_the_receipts(collected):
    """`collect_all` `:113` (`level="all"` for a count rule without `per`, `not` deleted), `:134` `== "all"`, `:178`."""
    by_name = collected[0]
    assert [(n, by_name[n].level, by_name[n].phase) for n in ("count.requests", "count.measured_requests")] == \
        [("count.requests", "all", None), ("count.measured_requests", "all", "measured")]
    assert "all.all.count" not in by_name and "all.measured.count" not in by_name and by_name["all.warmup.count"].value == 8


def test_recorded_scores_give_the_lowest_and_highest_by_value_naming_their_comparison():
    """`_quality` `:254` (a missing score left out), `:258`/`:259` `v[1]` (by value, not by id), `:260`/`:262` each index."""
    doc = {"format": "verify-quality-index", "format_version": 1, "scorers": {}, "comparisons": [
        {"id": f"c{i}", "reference": f"media/a{i}.mp4", "candidate": f"media/b{i}.mp4", "scores": scores}
        for i, scores in enumerate(({"ssim": 0.97, "lpips": 0.1}, {"ssim": 0.95, "lpips": None}, {"ssim": 0.99, "lpips": 0.3},
                                    {"ssim": 0.98, "lpips": 0.2}), start=1)]}
    ctx = SimpleNamespace(run=RunData(evidence=from_documents({"quality": doc}, manifest=None, names={})), gate_id="g-v1")
    found = [(e.name, e.value, e.statistic, e.derivation) for e in statements._quality(ctx, {"quality": {"thresholds": {}, "required_scores": []}})]
    assert found == [
        ("quality.ssim.min", Decimal("0.95"), "min", "lowest recorded ssim (c2 of 4)"),
        ("quality.ssim.max", Decimal("0.99"), "max", "highest recorded ssim (c3 of 4)"),
        *[(f"quality.ssim.c{i}", Decimal(v), None, f"ssim of comparison c{i}") for i, v in ((1, "0.97"), (2, "0.95"), (3, "0.99"), (4, "0.98"))],
        ("quality.lpips.min", Decimal("0.1"), "min", "lowest recorded lpips (c1 of 3)"),
        ("quality.lpips.max", Decimal("0.3"), "max", "highest recorded lpips (c3 of 3)"),
        *[(f"quality.lpips.c{i}", Decimal(v), None, f"lpips of comparison c{i}") for i, v in ((1, "0.1"), (3, "0.3"), (4, "0.2"))],
    ]


def test_plan_duration_channels_and_timeouts_are_evidence():
    """`_plan_counts` `:217`/`:218` (frames / fps, exactly), `:222` channels only when stated, `:226` a timeout's unit from `_s`."""
    plan = {"arms": [{"id": "a"}], "servers": [{"id": "s", "arm": "a"}], "warmups_per_server": 1, "measured_per_server": 2,
            "expected_output": {"frames": 25, "fps": "10", "channels": 2}, "timeouts": {"request_s": 600, "retries": 3}}
    found = {e.name: (e.value, e.unit) for e in statements._plan_counts(from_documents({"plan": plan}, manifest=None, names={}).plan)}
    assert found["plan.expected_output.duration_s"] == (Decimal("2.5"), "s") and found["plan.expected_output.channels"] == (Decimal(2), None)
    assert found["plan.timeouts.request_s"] == (Decimal(600), "s") and found["plan.timeouts.retries"] == (Decimal(3), None)
    del plan["expected_output"]["channels"]
    found = {e.name for e in statements._plan_counts(from_documents({"plan": plan}, manifest=None, names={}).plan)}
    assert "plan.expected_output.channels" not in found and "plan.expected_output.frames" in found


def test_a_finding_with_a_derived_value_carries_it_the_delta_and_the_tolerance():
    """`_finding` `:330` `is not -> is`, `:332` `- -> +`, `:338` (expected)."""
    q = SimpleNamespace(where=lambda: "README.md:1:1", stated="3 s", sentence="It took 3 s.", source="README.md", line=1, column=9,
                        value=Decimal(3))
    o = SimpleNamespace(quantity=q, status="FAIL", code="claim-mismatch", evidence="e", formula="f", derived=Decimal("2.5"),
                        tolerance=Decimal("0.05"), extra={"note": "n"}, message="states 3 s")
    f = statements._finding(o, "README.md")
    assert (f.status, f.expected, f.message) == ("FAIL", "2.5", 'README.md:1:1: states 3 s. Sentence: "It took 3 s."')
    assert {k: f.observed[k] for k in ("claimed", "derived", "delta", "tolerance", "note", "column")} == \
        {"claimed": "3", "derived": "2.5", "delta": "0.5", "tolerance": "0.05", "note": "n", "column": 9}


def test_claim_texts_are_cut_at_the_byte_limit_in_utf8_bytes(tmp_path, monkeypatch):
    """
    `texts` with the limit at 12 bytes: a headline of 4 emoji (16 bytes, 4 characters) is too large (`:275` `4 -> 3`,
    `* -> /`, the condition negated), 12 ASCII bytes are not (`:276` `<= -> <`); a root README of 12 bytes is read,
    one of 13 is too large and the next file is still read (`:281` `> -> >=`, `:283` `continue -> break`), one not
    UTF-8 names its first bad byte (`:286` the `except` clause replaced).
    """
    monkeypatch.setattr(statements, "MAX_TEXT_BYTES", 12)
    files = {"README.md": b"1 s and 2 s.", "RESULTS.md": b"1 s and 2 s!!", "results.txt": b"ok \xff"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    claims = {"headline": "\U0001f600" * 4, "notes": "twelve bytes", "claims": [{"id": "c", "text": "thirteen byte"}]}
    ctx = Context(subject=tmp_path, assets=None, bundle=_FakeBundle(tmp_path, list(files), claims), options={},
                  run=RunData(evidence=from_documents({"claims": claims}, manifest=None, names={})))
    assert statements.texts(ctx) == [
        ("claims.json#/headline", "claims.json", "\x00too-large:16"), ("claims.json#/notes", "claims.json", "twelve bytes"),
        ("claims.json#/claims/0/text", "claims.json", "\x00too-large:13"),
        ("README.md", "README.md", "1 s and 2 s."), ("RESULTS.md", "RESULTS.md", "\x00too-large:13"), ("results.txt", "results.txt", "\x00not-utf8:3")]


def test_each_refused_claim_text_is_one_finding_and_the_next_text_is_still_read(tmp_path, monkeypatch):
    """
    `stated`: a README over 4 MiB (`:371` the byte count and `2**20`), a RESULTS.md over the number limit (here 3:
    `:376` `> -> >=` at 3), a results.txt not UTF-8 (`:366` its offset), each followed by the next text (`:368`,
    `:373`, `:380` `continue -> break`); a text parsed now is not marked as read from the cache (`:383`).
    """
    from bundlekit import rehash

    monkeypatch.setattr(statements, "MAX_QUANTITIES", 3)
    bundle, root = _small(tmp_path)
    (bundle / "README.md").write_bytes(b"x" * (4 * 2**20 + 1))
    (bundle / "RESULTS.md").write_text("1 s, 2 s, 3 s and 4 s.")
    (bundle / "Results.txt").write_text("There are 2 servers, 1 per arm, 2 arms.")  # exactly 3 numbers: read
    (bundle / "results.txt").write_bytes(b"ok \xff")
    rehash(bundle)
    ctx = Context(subject=bundle, assets=assets(root), bundle=Bundle(root=bundle), options={"claims_text": ("pr.md", "We ran 2 servers.")})
    findings, _ = run_pipeline((*PIPELINE, statements.stated), ctx)
    found = [(f.status.value, f.code, f.path, f.message if not f.code.startswith(("plan", "bound")) else f.observed["stated"], f.cached)
             for f in findings if f.check == "claims.stated"]
    assert found == [
        ("UNVERIFIED", "claim-text-too-large", "README.md",
         "README.md is 4194305 bytes, more than the 4 MiB a claim text may hold; none of its numbers is checked", None),
        ("UNVERIFIED", "claim-text-too-long", "RESULTS.md", "RESULTS.md states more than the 3 numbers a claim text may state; none is checked", None),
        ("PASS", "plan-count", "Results.txt", "2", None), ("PASS", "plan-count", "Results.txt", "1", None),
        ("PASS", "plan-count", "Results.txt", "2", None),
        ("FAIL", "claim-text-not-utf8", "results.txt", "results.txt is not UTF-8 (first bad byte at offset 3), so its claims cannot be read", None),
        ("PASS", "plan-count", None, "2", None),
    ]


def test_two_baseline_arms_form_no_pair_and_a_request_id_never_shadows_an_arm(tmp_path):
    """
    `collect_all` `:130` (`and -> or`: a statistic of two baseline arms has no candidate to pair with) and `:136`
    (`and -> or`: a request whose id is already a key, here the arm id `baseline`, keeps the arm's meaning).
    """
    from bundlekit import asset_root, edit_json, make_bundle, read_lines, rehash, write_lines

    root = asset_root(tmp_path, {"ka-v1": {"plan": {**_KS_PLAN, "measured_per_server": 1}, "claims": [
        {"claim": "arm_mean_s", "statistic": "mean_of_server_means", "per": "arm", "selection": {"phase": "measured"}, "unit": "s"}]}})
    arms = [{"id": "baseline", "label": "A", "role": "baseline", "revision": "r1"}, {"id": "candidate", "label": "B", "role": "baseline", "revision": "r2"}]
    bundle = make_bundle(tmp_path / "b", "ka-v1", {"A1": ("baseline", [("measured", 10, "ok")]), "B1": ("candidate", [("measured", 5, "ok")])}, {},
                         plan_extra={"arms": arms})
    edit_json(bundle / "plan.json", lambda d: d["requests"][0].update(id="baseline"))
    rows = read_lines(bundle / "receipts.jsonl")
    rows[0]["request_id"] = "baseline"
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)
    ctx, _ = _small_run(bundle, root, stated=False)
    evidence, pairs, keys, levels = statements.collect_all(ctx)
    assert [e.name for e in evidence if e.source == "derived"] == ["arm_mean_s.baseline", "arm_mean_s.candidate"] and pairs == []
    assert keys == {"baseline": "candidate", "candidate": "candidate", "A1": "A1", "B1": "B1", "B1-m1": "B1-m1"}
    assert levels == {"baseline": "arm", "candidate": "arm", "A1": "server", "B1": "server", "B1-m1": "request"}


def test_a_plan_without_per_server_counts_states_none():
    """`_plan_counts` `:195`: a plan whose reader gives no per-server counts has 0 warmups and 0 measured requests per server."""
    from verifier.model.evidence import Plan

    found = {e.name: e.value for e in statements._plan_counts(Plan(arms={}, servers={}, per_server={}))}
    assert (found["plan.warmups_per_server"], found["plan.measured_per_server"], found["plan.warmups"]) == (0, 0, 0)


def test_count_and_speedup_rules_per_server_or_arm_give_one_value_per_instance(tmp_path):
    """`collect_all` `:114` and `:118` (`continue -> break`): a count rule per server and a speedup rule per arm give every instance."""
    from bundlekit import asset_root, make_bundle

    root = asset_root(tmp_path, {"kp-v1": {"plan": _KS_PLAN, "claims": [
        {"claim": "count.measured", "statistic": "count", "of": "requests", "per": "server", "selection": {"phase": "measured"}},
        {"claim": "speedup_x", "statistic": "speedup", "baseline": "baseline", "candidate": "candidate", "per": "arm", "unit": "x"}]}})
    bundle = make_bundle(tmp_path / "b", "kp-v1", {"A1": ("baseline", [("measured", 10, "ok"), ("measured", 12, "ok")]),
                                                   "B1": ("candidate", [("measured", 5, "ok"), ("measured", 7, "ok"), ("measured", 6, "ok")])}, {})
    ctx, _ = _small_run(bundle, root, stated=False)
    derived = [(e.name, e.value) for e in statements.collect_all(ctx)[0] if e.source == "derived"]
    assert [n for n, _ in derived] == ["count.measured.A1", "count.measured.B1", "speedup_x.baseline", "speedup_x.candidate"]
    assert [v for _, v in derived][:2] == [2, 3] and str(derived[2][1]).startswith("1.83333333333")


def test_the_values_to_bind_are_derived_once_and_only_when_a_text_states_a_number(tmp_path, monkeypatch):
    """`collect_all` (per-request values of every receipt: the cost of a large campaign) runs only for prose that states a
    number, once for all texts; a bundle whose prose states none never derives them (issue 40)."""
    import shutil

    bundle = tmp_path / "b"
    shutil.copytree(EXAMPLE, bundle, symlinks=True)
    (bundle / "README.md").write_text("# Results\n\nNo figures here.\n")
    edit_json(bundle / "claims.json", lambda d: (d.pop("headline", None), d.pop("notes", None),
                                                 [c.pop("text", None) for c in d.get("claims", [])]))
    rehash(bundle)
    calls = []
    real = statements.collect_all
    monkeypatch.setattr(statements, "collect_all", lambda ctx: calls.append(1) or real(ctx))
    assert [(f.status, f.code) for f in _stated_findings(bundle, "no numbers either")] == [("PASS", "no-claim-text")]
    assert calls == []
    # a text without a number does not end the reading: the claim text after the README is bound (`:384` continue -> break)
    assert [(f.status, f.code) for f in _stated_findings(bundle, "2 arms")] == [("PASS", "plan-count")]
    assert calls == [1]
    calls.clear()
    (bundle / "README.md").write_text("# Results\n\nThe plan has 4 servers.\n")
    rehash(bundle)
    assert [(f.status, f.code) for f in _stated_findings(bundle, "2 arms")] == [("PASS", "plan-count"), ("PASS", "plan-count")]
    assert calls == [1]
