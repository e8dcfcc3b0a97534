"""
Tests that kill surviving mutants of `verifier/checks/rescore.py` (issue 14), without decoding media.

`rescore` runs on a stand-in bundle: no re-scored metric is PASS
`not-required`; a missing index or coverage section is `Unverifiable`;
absent LPIPS weights are one UNVERIFIED finding and nothing is scored
(the one test that builds the LPIPS scorer, seconds). `_comparison` runs
with coverage facts this run already judged and planned results: media
that are neither bundle files nor verified externals are UNVERIFIED; a side coverage did not pass
blocks scoring; facts judged under another expectation are judged again;
a re-score exactly `tolerance` away still matches.
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import EXAMPLE, ROOT

from verifier.checks import rescore as rs
from verifier.errors import Unverifiable
from verifier.model.evidence import Location, QualityComparison
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context

PRODUCTION = json.loads((ROOT / "gates" / "ref2va-5s-production-v1.json").read_text())


class _Bundle:
    """A stand-in bundle holding the example's plan and, when given, a quality index (read by the native reader, `evidence_of`)."""

    kinds = {"plan": ("plan.json", "plan", False, True), "quality": ("quality-index.json", "quality-index", False, False)}

    def __init__(self, files: dict[str, Path] | None = None, quality: dict | None = None):
        self.files, self.quality = files or {}, quality
        self.modelled: dict[str, Any] = {}

    def path_of(self, name: str) -> Path | None:
        return self.files.get(name)

    def release(self, kind: str) -> None:
        """The native reader frees a parsed document once the model holds it (`Bundle.release`); nothing is kept here."""

    def document(self, kind: str) -> dict:
        if kind == "plan":
            return json.loads((EXAMPLE / "plan.json").read_text())
        if self.quality is None:
            raise Unverifiable("quality-index.json is absent", code="not-in-evidence", path="quality-index.json")
        return self.quality


def _comp(reference: str, candidate: str, scores: dict | None = None, cid: str = "c1") -> QualityComparison:
    return QualityComparison(cid, reference, candidate, {k: Decimal(str(v)) for k, v in (scores or {}).items()}, Location("quality-index.json", "/comparisons/0"))


def _ctx(gate: dict | None, bundle: _Bundle, **options: Any) -> Context:
    return Context(subject=Path("."), assets=None, bundle=bundle, gate=gate, gate_id="g", options=options)


def _codes(findings) -> list[tuple[str, str]]:
    return [(f.status.value, f.code) for f in findings]


def test_no_rescored_metric_is_not_required():
    assert _codes(rs.rescore(_ctx(None, _Bundle()))) == [("PASS", "not-required")]
    assert _codes(rs.rescore(_ctx({"quality": {"thresholds": {}}}, _Bundle()))) == [("PASS", "not-required")]


def test_rescoring_without_an_index_or_a_coverage_section_is_unverifiable():
    gate = {"quality": {"rescore": ["ssim"]}}
    with pytest.raises(Unverifiable) as caught:
        list(rs.rescore(_ctx(gate, _Bundle())))
    assert caught.value.code == "no-quality-index"
    with pytest.raises(Unverifiable) as caught:
        list(rs.rescore(_ctx(gate, _Bundle(quality={"comparisons": []}))))
    assert caught.value.code == "no-coverage-gate"


def test_absent_weights_are_one_unverified_finding_and_nothing_is_scored(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    gate = {**PRODUCTION, "quality": {**PRODUCTION["quality"], "rescore": ["lpips"]}}
    index = {"comparisons": [{"id": "c1", "reference": "media/missing.mp4", "candidate": "media/other.mp4", "scores": {}}]}
    found = list(rs.rescore(_ctx(gate, _Bundle(quality=index), weights_dir=str(tmp_path / "weights"))))
    assert [(f.status.value, f.code) for f in found] == [("UNVERIFIED", "weights-absent")], [f.message for f in found]


def test_ssim_needs_no_weights_and_is_ready():
    gate = {**PRODUCTION, "quality": {**PRODUCTION["quality"], "rescore": ["ssim"]}}
    found = list(rs.rescore(_ctx(gate, _Bundle(quality={"comparisons": []}))))
    assert _codes(found) == [("PASS", "scorer-ready")] and "ssim: scorer" in found[0].message
    assert found[0].observed["id"] == "ssim-wang2004" and "facts" not in found[0].observed  # the identity, as reported


def test_a_cluster_task_scores_its_pair_with_each_files_own_facts(tmp_path):
    # `score_job` (run on a cluster worker) probes both files and gives each its own facts: the audio is trimmed to
    # each file's exact sample count, so swapping them changes the cosine (0.99863 here, 0.99860 swapped)
    import importlib.util
    from fractions import Fraction

    from verifier.scoring import rescore as scoring
    from verifier.checks import coverage

    spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
    clips = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clips)
    ref = clips.write_clip(tmp_path / "ref.mp4", frames=24, audio_samples=32000)
    cand = clips.write_clip(tmp_path / "cand.mp4", frames=24, audio_samples=32700)
    exp, policy = coverage.Expectation(24, Fraction(24), 32000, 2), coverage.DEFAULT_POLICY
    quality = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())["quality"]
    got = rs.score_job((str(ref), str(cand), "ref.mp4", "cand.mp4", exp, policy, ["audio_cosine"], quality, None, "cpu", None, None))
    facts = [coverage.probe(ref, "ref.mp4", exp, policy), coverage.probe(cand, "cand.mp4", exp, policy)]
    assert [scoring.exact_samples(f) for f in facts] == [32000, 32700]
    want = scoring.score_pair(ref, cand, facts[0], facts[1], policy, ["audio_cosine"], scoring.Scorers(quality))
    assert got["audio_cosine"].value == want["audio_cosine"].value


def test_a_medium_is_found_in_the_bundle_or_among_verified_externals():
    ctx = _ctx(None, _Bundle({"a.mp4": Path("/b/a.mp4")}))
    ctx.run.externals_verified = {"x.mp4": "/ext/x.mp4"}
    assert rs._where(ctx, "a.mp4") == Path("/b/a.mp4") and rs._where(ctx, "x.mp4") == Path("/ext/x.mp4")
    assert rs._where(ctx, "y.mp4") is None


def test_digests_come_from_the_manifest_entries_that_state_one():
    ctx = _ctx(None, _Bundle())
    ctx.run.manifest = {"files": [{"path": "r.mp4", "sha256": "AA"}, {"path": "c.mp4"}], "external": [{"path": "x.mp4", "sha256": "bb"}]}
    assert rs._digests(ctx, _comp("r.mp4", "x.mp4")) == ("aa", "bb")
    assert rs._digests(ctx, _comp("r.mp4", "c.mp4")) is None


def test_describe_names_weights_state_and_versions():
    assert rs._describe({"weights": [{"name": "alex.pth", "sha256": "0123456789abcdef"}], "state_sha256": "fedcba9876543210",
                         "versions": {"torch": "2", "numpy": "1"}}) == "alex.pth sha256 0123456789ab...; state sha256 fedcba987654...; numpy 1, torch 2"
    assert rs._describe({"versions": {"numpy": "1"}}) == "numpy 1"


EXP = rs.coverage.Expectation.from_plan(json.loads((EXAMPLE / "plan.json").read_text())["expected_output"])
POL = rs.coverage.DEFAULT_POLICY
OTHER_EXP = dataclasses.replace(EXP, frames=EXP.frames + 1)
OTHER_POL = dataclasses.replace(POL, max_seconds=POL.max_seconds + 1)
PASSED = (Finding(check="coverage.streams", status=Status.PASS, code="covers", message="ok"),)
FAILED = (Finding(check="coverage.streams", status=Status.FAIL, code="audio-short", message="short"),)
COMP = _comp("r.mp4", "c.mp4", {"ssim": 0.5})


def _judged(tmp_path: Path, ref: tuple, cand: tuple, **kw: Any) -> tuple[list, Context]:
    """Run `_comparison` with both media present (garbage bytes: only the earlier coverage facts make them usable)."""
    for name in ("r.mp4", "c.mp4"):
        (tmp_path / name).write_bytes(b"not a video")
    ctx = _ctx(None, _Bundle({"r.mp4": tmp_path / "r.mp4", "c.mp4": tmp_path / "c.mp4"}), device=None)
    ctx.run.coverage_checked = {"r.mp4": ref, "c.mp4": cand}
    scorers = SimpleNamespace(tolerance=lambda metric: 0.25)
    found = list(rs._comparison(ctx, 0, COMP, ["ssim"], scorers, {"thresholds": {}}, EXP, POL, None, 1, **kw))
    return found, ctx


def test_coverage_facts_judged_earlier_under_the_same_expectation_are_reused(tmp_path):
    local: list = []
    found, _ = _judged(tmp_path, (EXP, POL, PASSED, "rfacts"), (EXP, POL, PASSED, "cfacts"), local=local)
    assert found == [] and local == [(0, (tmp_path / "r.mp4", tmp_path / "c.mp4", "rfacts", "cfacts", None))]
    jobs: list = []
    _judged(tmp_path, (EXP, POL, PASSED, "rfacts"), (EXP, POL, PASSED, "cfacts"), jobs=jobs)
    assert jobs[0][1][9] == "cpu" and jobs[0][1][:4] == (str(tmp_path / "r.mp4"), str(tmp_path / "c.mp4"), "r.mp4", "c.mp4")


@pytest.mark.parametrize("ref", [(OTHER_EXP, POL, PASSED, "rfacts"), (EXP, OTHER_POL, PASSED, "rfacts"),
                                 (EXP, POL, FAILED, "rfacts"), (EXP, POL, PASSED, None)],
                         ids=["other-expectation", "other-policy", "coverage-failed", "no-facts"])
def test_a_side_whose_coverage_did_not_pass_here_blocks_scoring(tmp_path, ref):
    local: list = []
    found, _ = _judged(tmp_path, ref, (EXP, POL, PASSED, "cfacts"), local=local)
    assert _codes(found) == [("UNVERIFIED", "blocked-by-coverage")] and found[0].pointer == "/comparisons/0/reference"
    assert local == []


def test_a_medium_neither_in_the_bundle_nor_verified_is_unverified():
    ctx = _ctx(None, _Bundle({"r.mp4": Path("/r.mp4")}))
    ctx.run.coverage_checked = {"r.mp4": (EXP, POL, PASSED, "rfacts")}
    local: list = []
    found = list(rs._comparison(ctx, 0, COMP, ["ssim"], None, {}, EXP, POL, None, 1, local=local))
    assert _codes(found) == [("UNVERIFIED", "scoring-media-not-verified")] and found[0].pointer == "/comparisons/0/candidate"
    assert local == []


@pytest.mark.parametrize("value,code", [(0.75, "rescore-match"), (0.25, "rescore-match"), (0.7500001, "rescore-mismatch")])
def test_a_rescore_exactly_tolerance_away_still_matches(tmp_path, value, code):
    result = SimpleNamespace(value=value, per_frame=[value], cached=False)
    found, _ = _judged(tmp_path, (EXP, POL, PASSED, "rfacts"), (EXP, POL, PASSED, "cfacts"), planned={0: {"ssim": result}})
    assert _codes(found) == [("PASS" if code == "rescore-match" else "FAIL", code)]


# --- cosmic-ray survivors (issue 42): the whole check on a stand-in bundle, scoring replaced by canned results -------------

from verifier.scoring import rescore as scoring  # noqa: E402
from verifier.engine.pipeline import Check  # noqa: E402
from verifier.scorers.weights import WeightsProblem  # noqa: E402

GATE_POLICY = rs.coverage.policy_from_gate(PRODUCTION["coverage"])
TWO = {**PRODUCTION, "quality": {**PRODUCTION["quality"], "rescore": ["audio_cosine", "ssim"]}}
#: c1: audio not recorded (met), ssim recorded and matched; c2: audio refused, ssim recorded but far off;
#: c3: a candidate that is neither a bundle file nor verified; c4: audio not recorded (missed), ssim not recorded (met)
INDEX4 = {"comparisons": [
    {"id": "c1", "reference": "r.mp4", "candidate": "a.mp4", "scores": {"ssim": 0.5}},
    {"id": "c2", "reference": "r.mp4", "candidate": "b.mp4", "scores": {"ssim": 0.97}},
    {"id": "c3", "reference": "r.mp4", "candidate": "x.mp4", "scores": {}},
    {"id": "c4", "reference": "r.mp4", "candidate": "d.mp4", "scores": {}},
]}
CANNED = {
    "a.mp4": {"audio_cosine": scoring.MetricResult(0.9), "ssim": scoring.MetricResult(0.5000004321, [0.5, 0.5000008642], cached=True)},
    "b.mp4": {"audio_cosine": scoring.ScoreRefused("sample-rate-mismatch", "sample rates 32000 and 48000 differ"),
              "ssim": scoring.MetricResult(0.5, [0.25, 0.75])},
    "d.mp4": {"audio_cosine": scoring.MetricResult(0.5), "ssim": scoring.MetricResult(0.98, [0.98])},
}
#: every finding of `rescore` on INDEX4, as (status, code, pointer, message)
EXPECTED4 = [
    ("PASS", "scorer-ready", None, "audio_cosine: scorer stft_mag_cosine_v1 ready with the gate's pins (tolerance 0.000001)"),
    ("PASS", "scorer-ready", None, "ssim: scorer ssim-wang2004 ready with the gate's pins (tolerance 0.000001)"),
    ("PASS", "rescored-threshold-met", "/comparisons/0",
     "comparison c1: audio_cosine not recorded; re-computed 0.900000 meets >= 0.8"),
    ("PASS", "rescore-match", "/comparisons/0/scores/ssim",
     "comparison c1: recorded ssim 0.5 re-computes to 0.5000004 (delta -0.00000043, tolerance 0.000001)"),
    ("FAIL", "sample-rate-mismatch", "/comparisons/1",
     "comparison c2: audio_cosine cannot be computed: sample rates 32000 and 48000 differ"),
    ("FAIL", "rescore-mismatch", "/comparisons/1/scores/ssim",
     "comparison c2: recorded ssim 0.97 but the media re-compute to 0.5000000 (delta 0.47, tolerance 0.000001)"),
    ("UNVERIFIED", "scoring-media-not-verified", "/comparisons/2/candidate",
     "comparison c3: candidate x.mp4 is neither a bundle file nor a supplied external artifact whose sha256 matched the "
     "manifest, so audio_cosine, ssim are not re-computed"),
    ("FAIL", "threshold-missed", "/comparisons/3", "comparison c4: audio_cosine not recorded; re-computed 0.500000 does not meet >= 0.8"),
    ("PASS", "rescored-threshold-met", "/comparisons/3", "comparison c4: ssim not recorded; re-computed 0.980000 meets >= 0.97"),
]


def _stand_in(tmp_path: Path, **options: Any) -> Context:
    """A context whose media r, a, b, d.mp4 are bundle files that passed coverage earlier in the run (x.mp4 is not in the bundle)."""
    files = {n: tmp_path / n for n in ("r.mp4", "a.mp4", "b.mp4", "d.mp4")}
    ctx = _ctx(TWO, _Bundle(files, quality=INDEX4), **options)
    ctx.run.coverage_checked = {n: (EXP, GATE_POLICY, PASSED, f"facts of {n}") for n in files}
    return ctx


def _shown(found: list[Finding]) -> list[tuple]:
    return [(f.status.value, f.code, f.pointer, f.message.rsplit("; ", 1)[0] if f.code == "scorer-ready" else f.message)
            for f in found]


def test_every_comparison_is_judged_per_metric_in_order_after_one_scoring_of_all_pairs(tmp_path, monkeypatch):
    """
    Kills (rescore.py) :84 `or`->`and`, :100 AddNot, :105 and :134/:135/:149/:254 ZeroIterationForLoop, :118 both
    `not` mutants, :122 AddNot and `is not`->`is`, :257 AddNot, :260 and :275 continue->break, :263 `or`->`and`,
    :264 and :266 AddNot, :269 AddNot and `is`->`is not`, :271 and :273 AddNot, :276 `-`->`+`, :278 both numbers,
    :279 AddNot and `<=`->`<`: the exact findings, pointers, messages, derivations, `cached` flags and figures.
    """
    calls: list = []

    def score_pairs(pairs, policy, metrics, scorers, *, progress=None, cache=None):
        calls.append(([(p[0].name, p[1].name, p[2], p[3], p[4]) for p in pairs], policy, list(metrics)))
        return [CANNED[p[1].name] for p in pairs]

    monkeypatch.setattr(rs.scoring, "score_pairs", score_pairs)
    ctx = _stand_in(tmp_path)
    found = list(rs.rescore(ctx))
    assert _shown(found) == EXPECTED4
    assert calls == [([("r.mp4", n, "facts of r.mp4", f"facts of {n}", None) for n in ("a.mp4", "b.mp4", "d.mp4")],
                      GATE_POLICY, ["audio_cosine", "ssim"])]  # one call for every pair that passed coverage
    c1_ssim = found[3]
    assert c1_ssim.derivation == ("ssim re-computed from r.mp4 vs a.mp4: 0.5000004321 = mean of 2 frames (min 0.500000, "
                                  "max 0.500001)")
    assert (c1_ssim.cached, c1_ssim.expected, c1_ssim.observed) == ("score", 0.5000004321, "0.5")
    assert found[2].derivation == "audio_cosine re-computed from r.mp4 vs a.mp4: 0.9" and found[2].cached is None
    assert (found[2].expected, found[2].observed) == ({"min": 0.8}, 0.9)
    assert [f.path for f in found] == [None, None] + ["quality-index.json"] * 7
    assert ctx.run.figures["frames"] == [
        {"comparison": "c1", "metric": "audio_cosine", "threshold": {"min": 0.8}, "scores": []},
        {"comparison": "c1", "metric": "ssim", "threshold": {"min": 0.97}, "scores": [0.5, 0.5000008642]},
        {"comparison": "c2", "metric": "ssim", "threshold": {"min": 0.97}, "scores": [0.25, 0.75]},
        {"comparison": "c4", "metric": "audio_cosine", "threshold": {"min": 0.8}, "scores": []},
        {"comparison": "c4", "metric": "ssim", "threshold": {"min": 0.97}, "scores": [0.98]},
    ]


def test_on_a_cluster_every_pair_is_one_task_and_the_findings_are_the_same(tmp_path, monkeypatch):
    """Kills :122 AddNot and `is not`->`is`, :124/:125 ZeroIterationForLoop: each pair that passed coverage is sent as one task."""
    import verifier.engine.fanout

    sent: list = []

    def map_on_cluster(address, func, items):
        assert address == "tcp://scheduler:8786" and func is rs.score_job
        sent.extend(items)
        return [CANNED[Path(job[1]).name] for job in items]

    monkeypatch.setattr(verifier.engine.fanout, "map_on_cluster", map_on_cluster)
    monkeypatch.setattr(rs.scoring, "score_pairs", lambda *a, **k: pytest.fail("scored locally"))
    found = list(rs.rescore(_stand_in(tmp_path, executor="tcp://scheduler:8786")))
    assert _shown(found) == EXPECTED4
    assert [(Path(j[0]).name, Path(j[1]).name, j[2], j[3], j[6], j[9]) for j in sent] == [
        ("r.mp4", n, "r.mp4", n, ["audio_cosine", "ssim"], "cpu") for n in ("a.mp4", "b.mp4", "d.mp4")]


def test_scorers_that_fail_to_build_while_scoring_leave_every_comparison_unestablished(tmp_path, monkeypatch):
    """Kills :141 ExceptionReplacer: a `WeightsProblem` raised by the scoring itself is one finding with its status and code."""
    def score_pairs(*args, **kw):
        raise WeightsProblem("ERROR", "scorer-identity-changed", "the LPIPS scorer changed")

    monkeypatch.setattr(rs.scoring, "score_pairs", score_pairs)
    found = list(rs.rescore(_stand_in(tmp_path)))
    assert _shown(found)[2:] == [("ERROR", "scorer-identity-changed", None,
                                  "lpips: the LPIPS scorer changed; the re-score of 4 comparison(s) is not established")]


def test_a_scorer_that_is_not_ready_leaves_the_next_one_ready(tmp_path, monkeypatch):
    """Kills :113 continue->break, and :101 `or`->`and` (the run's device, `cpu` when none is given, reaches the scorers)."""
    devices: list = []

    class Scorers(scoring.Scorers):
        def __init__(self, quality, **kw):
            devices.append(kw["device"])
            super().__init__(quality, **kw)

        def ready(self, metric):
            if metric == "audio_cosine":
                raise WeightsProblem("UNVERIFIED", "scoring-extra-missing", "install the scoring extra")
            return super().ready(metric)

    monkeypatch.setattr(rs.scoring, "Scorers", Scorers)
    monkeypatch.setattr(rs.scoring, "score_pairs", lambda pairs, *a, **k: [CANNED[p[1].name] for p in pairs])
    found = list(rs.rescore(_stand_in(tmp_path)))
    assert _shown(found)[:2] == [
        ("UNVERIFIED", "scoring-extra-missing", None,
         "audio_cosine: install the scoring extra; its re-score of 4 comparison(s) is not established"),
        ("PASS", "scorer-ready", None, "ssim: scorer ssim-wang2004 ready with the gate's pins (tolerance 0.000001)")]
    assert found[0].path == "quality-index.json" and found[0].observed == ["c1", "c2", "c3", "c4"] and found[0].expected["id"] == "stft_mag_cosine_v1"
    assert [f.code for f in found[2:]] == ["rescore-match", "rescore-mismatch", "scoring-media-not-verified", "rescored-threshold-met"]
    list(rs.rescore(_stand_in(tmp_path / "d", device="cuda")))
    assert devices == ["cpu", "cuda"]


def test_rescore_is_the_registered_check_that_requires_a_pinned_gate():
    """Kills :73 RemoveDecorator: the pipeline runs `Check` objects (id, requires), not bare functions."""
    assert isinstance(rs.rescore, Check) and (rs.rescore.id, rs.rescore.requires) == ("quality.rescore", ("gate.pinned",))


def test_a_cluster_task_checks_its_scorers_are_ready_before_scoring(tmp_path, monkeypatch):
    """Kills :176 ZeroIterationForLoop: a worker without the pinned LPIPS weights raises their `WeightsProblem`, scoring nothing."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    for name in ("r.mp4", "c.mp4"):
        (tmp_path / name).write_bytes(b"not a video")
    (tmp_path / "weights").mkdir()
    job = (str(tmp_path / "r.mp4"), str(tmp_path / "c.mp4"), "r.mp4", "c.mp4", EXP, GATE_POLICY, ["lpips"], PRODUCTION["quality"],
           str(tmp_path / "weights"), "cpu", None, None)
    with pytest.raises(WeightsProblem) as caught:
        rs.score_job(job)
    assert (caught.value.status, caught.value.code) == ("UNVERIFIED", "weights-absent")
