"""
Re-scoring without torch (issue 4): SSIM and audio cosine from the media, scorer identity, refusals.

Runs in the light venv and in CI (`.[test]` includes scikit-image); tests that
need scikit-image skip with the reason when it is absent. LPIPS with weights
is `test_lpips.py` (needs torch).
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from bundlekit import ROOT, asset_root, codes, edit_json, rehash

from verifier.checks import coverage
from verifier.core import verify_path
from verifier.scorers.audio import AudioRefused, spectral_cosine
from verifier.trust.assets import assets

skimage = pytest.importorskip("skimage", reason="SSIM re-scoring needs scikit-image (in the `test` and `scoring` extras)")

from verifier.scoring import rescore as scoring  # noqa: E402
from verifier.scorers.ssim import ssim_frame  # noqa: E402

OFFICIAL_BACKBONE = "7be5be791159472b1fbf3c69796f7cb30dca7ad8466c2df70058c37116cdee02"
OFFICIAL_LINEAR = "df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0"
MEDIA = ROOT / "examples" / "ref2va-5s" / "media"


def torch_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


# --- the shipped gates ---------------------------------------------------------------

def test_production_gate_pins_the_official_lpips_digests():
    gate = assets().gate("ref2va-5s-production-v1")
    pin = gate["quality"]["scorers"]["lpips"]
    assert {(w["name"], w["sha256"]) for w in pin["weights"]} == {
        ("alexnet-owt-7be5be79.pth", OFFICIAL_BACKBONE), ("lpips-v0.1-alex.pth", OFFICIAL_LINEAR)}
    assert pin["state_sha256"] is None  # not computable without the real backbone; nothing LPIPS can PASS until pinned
    assert gate["quality"]["rescore"] == ["lpips", "ssim", "audio_cosine"]
    inventory = json.loads((ROOT / "inventory.json").read_text())
    assert {(w["name"], w["sha256"]) for w in inventory["scorer_weights"]} == {
        ("alexnet-owt-7be5be79.pth", OFFICIAL_BACKBONE), ("lpips-v0.1-alex.pth", OFFICIAL_LINEAR)}


def test_demo_and_production_gates_differ_only_in_quality():
    demo, prod = assets().gate("ref2va-5s-v1"), assets().gate("ref2va-5s-production-v1")
    for key in ("plan", "claims", "coverage"):
        assert demo[key] == prod[key]
    assert "lpips" not in demo["quality"]["rescore"]


def test_inventory_scorer_weights_must_match_the_gates(tmp_path):
    from verifier.errors import PinMismatch
    from verifier.trust.assets import Assets

    root = Path(asset_root(tmp_path))
    inv = json.loads((root / "inventory.json").read_text())
    inv["scorer_weights"][0]["sha256"] = "0" * 64
    (root / "inventory.json").write_text(json.dumps(inv))
    with pytest.raises(PinMismatch, match="scorer_weights"):
        Assets(root)


# --- the example: recorded scores are the real ones and re-score on every run -----------

def test_example_re_scores_ssim_and_audio_cosine(example_copy):
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS"
    matches = [f for f in report.findings if f.check == "quality.rescore" and f.code == "rescore-match"]
    assert len(matches) == 28  # 14 comparisons x (ssim, audio_cosine)
    assert {f.code for f in report.findings if f.check == "quality.recorded"} == {"threshold-met", "scorer-identity-pinned", "pairs-complete"}


def test_example_judged_by_the_production_gate_is_incomplete_naming_what_to_supply(example_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty-cache"))
    edit_json(example_copy / "manifest.json", lambda m: m.update(gate="ref2va-5s-production-v1"))
    report = verify_path(str(example_copy), weights_dir=str(tmp_path))
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    [lp] = [f for f in report.findings if f.status == "UNVERIFIED"]
    assert lp.check == "quality.rescore"
    if torch_installed():
        assert lp.code == "weights-absent"
        assert "alexnet-owt-7be5be79.pth" in lp.message and OFFICIAL_BACKBONE in lp.message
    else:
        assert lp.code == "scoring-extra-missing" and "`scoring` extra" in lp.message


def test_recorded_ssim_differing_from_the_media_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][3]["scores"].update(ssim=Decimal("0.991803")))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    failed = [(f.check, f.code, f.pointer) for f in report.findings if f.status == "FAIL"]
    assert failed == [("quality.rescore", "rescore-mismatch", "/comparisons/3/scores/ssim")]


def test_recorded_audio_cosine_differing_from_the_media_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][0]["scores"].update(audio_cosine=Decimal("0.99")))
    rehash(example_copy)
    assert ("quality.rescore", "FAIL", "rescore-mismatch") in codes(verify_path(str(example_copy)))


def test_recorded_scorer_identity_without_data_range_fails_h13(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["scorers"]["ssim"]["parameters"].pop("data_range"))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    [bad] = [f for f in report.findings if f.status == "FAIL"]
    assert (bad.check, bad.code, bad.pointer) == ("quality.recorded", "scorer-identity-differs", "/scorers/ssim")


def test_recorded_scorer_identity_missing_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["scorers"].pop("audio_cosine"))
    rehash(example_copy)
    assert ("quality.recorded", "FAIL", "scorer-identity-differs") in codes(verify_path(str(example_copy)))


def test_coverage_failure_blocks_scoring(example_copy):
    # B1-m1 replaced by a copy of itself cut short: coverage fails, so its comparison is not scored
    data = (example_copy / "media" / "B1-m1.mp4").read_bytes()
    (example_copy / "media" / "B1-m1.mp4").write_bytes(data[: len(data) * 6 // 10])
    rehash(example_copy)
    report = verify_path(str(example_copy))
    blocked = [f for f in report.findings if f.code == "blocked-by-coverage"]
    assert [f.pointer for f in blocked] == ["/comparisons/0/candidate", "/comparisons/10/reference"]  # B1-m1 is in both
    assert all(f.status == "UNVERIFIED" for f in blocked)


def test_external_media_not_supplied_is_unverified(example_copy):
    manifest = json.loads((example_copy / "manifest.json").read_text())
    entry = next(e for e in manifest["files"] if e["path"] == "media/B1-m2.mp4")
    manifest["files"].remove(entry)
    manifest["external"].append({"path": entry["path"], "sha256": entry["sha256"], "size": entry["size"],
                                 "source": "s3://bucket/B1-m2.mp4", "reason": "kept elsewhere"})
    (example_copy / "manifest.json").write_text(json.dumps(manifest))
    (example_copy / "media" / "B1-m2.mp4").unlink()
    report = verify_path(str(example_copy))
    rescored = [f for f in report.findings if f.check == "quality.rescore" and f.status != "PASS"]
    assert {(f.status, f.code) for f in rescored} == {("UNVERIFIED", "scoring-media-not-verified")}
    assert report.verdict != "PASS"


def test_quality_index_naming_a_file_not_in_the_manifest_is_never_pass(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][0].update(candidate="media/elsewhere.mp4"))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert ("quality.recorded", "FAIL", "media-not-in-bundle") in codes(report)
    assert report.verdict == "FAIL"


# --- SSIM (H-13) ----------------------------------------------------------------------

def _h13_pair() -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:16, 0:16]
    a = (100 + 2 * (x % 4)).astype(np.uint8)
    b = np.where((y + x) % 2 == 1, a.astype(int) + 3, a.astype(int) - 3).astype(np.uint8)
    return a, b


def test_h13_ssim_data_range():
    from skimage.metrics import structural_similarity

    a, b = _h13_pair()
    # The row's figures use scikit-image's default window (7x7 uniform, sample covariance):
    assert structural_similarity(a, b, data_range=255) == pytest.approx(0.8814, abs=5e-5)
    assert structural_similarity(a / 255, b / 255, data_range=1.0) == pytest.approx(0.8814, abs=5e-5)
    assert structural_similarity(a / 255, b / 255, data_range=2) == pytest.approx(0.9637, abs=5e-5)  # the old guess
    with pytest.raises(ValueError, match="data_range"):
        structural_similarity(a / 255, b / 255)  # newer releases refuse to guess
    # The gate's scorer (Wang 2004: Gaussian sigma 1.5, no sample covariance) on the same pair, as RGB:
    ours = ssim_frame(np.stack([a] * 3, -1), np.stack([b] * 3, -1))
    assert ours == pytest.approx(0.88360, abs=5e-5) and ours < 0.90  # a gate "SSIM >= 0.90" FAILs it
    with pytest.raises(ValueError):
        ssim_frame(np.stack([a / 255] * 3, -1), np.stack([b / 255] * 3, -1))  # floats: no data range is guessed


# --- audio cosine (H-16 and the refusals) -----------------------------------------------

def _tone(n=40000, rate=32000, channels=2, f=440.0):
    t = np.arange(n) / rate
    return np.stack([0.3 * np.sin(2 * np.pi * f * (1 + c / 4) * t) for c in range(channels)])


@pytest.mark.parametrize(("x", "y", "kw", "code"), [
    (_tone(), _tone(), {"rate_x": 32000, "rate_y": 44100}, "sample-rate-mismatch"),  # H-16: never compared unresampled
    (_tone(), np.zeros((2, 40000)), {}, "silence"),
    (_tone(), np.where(np.arange(40000) == 7, np.nan, _tone()), {}, "non-finite"),
    (_tone(1000), _tone(1000), {}, "too-short"),
    (_tone(), _tone(38000), {"length_tolerance": 1023}, "length-mismatch"),  # never truncated to the shorter
])
def test_audio_cosine_refusals(x, y, kw, code):
    kw = {"rate_x": 32000, "rate_y": 32000, **kw}
    with pytest.raises(AudioRefused) as exc:
        spectral_cosine(x, y, **kw)
    assert exc.value.code == code


def test_h16_identical_clips_at_the_same_rate_score_one_and_blind_spots_are_real():
    x = _tone()
    assert spectral_cosine(x, x, rate_x=44100, rate_y=44100) == pytest.approx(1.0, abs=1e-6)
    assert spectral_cosine(x, -0.01 * x, rate_x=32000, rate_y=32000) == pytest.approx(1.0, abs=1e-9)  # gain, polarity
    assert spectral_cosine(x, x[::-1], rate_x=32000, rate_y=32000) == pytest.approx(1.0, abs=1e-9)  # channel swap
    r = np.random.default_rng(0)
    noise = spectral_cosine(r.normal(size=(2, 165333)), r.normal(size=(2, 165333)), rate_x=32000, rate_y=32000)
    assert 0.75 < noise < 0.80  # unrelated noise scores about 0.78: 0 is not the baseline
    assert spectral_cosine(x, x[:, :-500], rate_x=32000, rate_y=32000, length_tolerance=1023) < 1.0  # zero-padded


def _write(path: Path, **kw) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    size = kw.pop("size", None)
    if size:
        kw["width"], kw["height"] = size
    return mod.write_clip(path, **kw)


def _facts(path: Path, exp: coverage.Expectation):
    return coverage.probe(path, path.name, exp, coverage.DEFAULT_POLICY)


def _scorers():
    return scoring.Scorers(assets().gate("ref2va-5s-v1")["quality"])


def test_h16_audio_at_another_sample_rate_is_refused_by_the_scorer(tmp_path):
    a = _write(tmp_path / "a.mp4")
    b = _write(tmp_path / "b.mp4", sample_rate=44100, audio_samples=227850)
    exp = coverage.Expectation(frames=124, fps=Fraction(24), sample_rate=32000, channels=2)
    with pytest.raises(scoring.ScoreRefused) as exc:
        scoring.score_audio(a, b, _facts(a, exp), _facts(b, exp), coverage.DEFAULT_POLICY, 1023)
    assert exc.value.code == "sample-rate-mismatch"


def test_frames_of_different_sizes_are_refused(tmp_path):
    a = _write(tmp_path / "a.mp4", frames=12)
    b = _write(tmp_path / "b.mp4", frames=12, size=(80, 48))
    exp = coverage.Expectation(frames=12, fps=Fraction(24), sample_rate=32000, channels=2)
    result = scoring.score_pair(a, b, _facts(a, exp), _facts(b, exp), coverage.DEFAULT_POLICY, ["ssim"], _scorers())
    assert isinstance(result["ssim"], scoring.ScoreRefused) and result["ssim"].code == "frame-size-mismatch"


def test_frame_counts_must_match_before_any_frame_is_compared(tmp_path, monkeypatch):
    a = _write(tmp_path / "a.mp4", frames=12)
    b = _write(tmp_path / "b.mp4", frames=10)
    exp = coverage.Expectation(frames=12, fps=Fraction(24), sample_rate=32000, channels=2)
    compared = []
    from verifier.scorers import ssim as ssim_scorer

    monkeypatch.setattr(ssim_scorer, "ssim_batch", lambda x, y, workspace=None: compared.append(1) or np.ones(len(x)))
    result = scoring.score_pair(a, b, _facts(a, exp), _facts(b, exp), coverage.DEFAULT_POLICY, ["ssim"], _scorers())
    assert result["ssim"].code == "frame-count-mismatch" and compared == []


def test_zero_frames_are_refused(tmp_path):
    a = _write(tmp_path / "a.mp4", frames=12)
    exp = coverage.Expectation(frames=12, fps=Fraction(24), sample_rate=32000, channels=2)
    facts = _facts(a, exp)
    facts.video.packets, facts.video.missing_pts = 0, 0
    result = scoring.score_pair(a, a, facts, facts, coverage.DEFAULT_POLICY, ["ssim"], _scorers())
    assert result["ssim"].code == "no-frames"


# --- verify score --------------------------------------------------------------------

def test_verify_score_prints_metrics_and_exits_by_verdict(run):
    result = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1")
    assert result.exit_code == 0, result.stdout
    assert "ssim = 0.991703 (meets >= 0.97)" in result.stdout and "audio_cosine = 0.982240" in result.stdout
    assert "per frame" not in result.stdout
    verbose = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1", "-v")
    assert "per frame (124)" in verbose.stdout


def test_verify_score_production_gate_is_incomplete_without_lpips(run, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    result = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-production-v1",
                 "--weights-dir", str(tmp_path))
    assert result.exit_code == 3
    assert ("weights-absent" if torch_installed() else "scoring-extra-missing") in result.stdout


def test_verify_score_below_threshold_fails(run, tmp_path):
    a = _write(tmp_path / "a.mp4")
    b = _write(tmp_path / "b.mp4", pattern_offset=60)
    result = run("score", str(a), str(b), "--gate", "ref2va-5s-v1")
    assert result.exit_code == 1
    assert "ssim = " in result.stdout and "threshold-missed" in result.stdout


def test_verify_score_coverage_failure_blocks_scoring(run, tmp_path):
    a = _write(tmp_path / "a.mp4")
    b = _write(tmp_path / "b.mp4", audio_samples=16000)
    result = run("score", str(a), str(b), "--gate", "ref2va-5s-v1")
    assert result.exit_code == 1  # the coverage FAIL; scoring is blocked, not guessed
    assert "quality.score [blocked-by]" in result.stdout


def test_device_cuda_without_a_gpu_is_a_usage_error(run):
    result = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1", "--device", "cuda")
    if torch_installed():
        import torch

        if torch.cuda.is_available():
            pytest.skip("a GPU is present")
    assert result.exit_code == 2


def test_device_cuda_on_a_bundle_without_a_gpu_is_a_usage_error_naming_it(run):
    if torch_installed():
        import torch

        if torch.cuda.is_available():
            pytest.skip("a GPU is present")
    result = run(str(MEDIA.parent), "--device", "cuda")
    assert result.exit_code == 2
    assert "--device cuda" in result.stderr and ("no CUDA device" in result.stderr or "needs torch" in result.stderr)
    assert "Traceback" not in result.stderr


def test_verify_score_json_report_validates(run):
    from verifier.trust.assets import schema_validator

    result = run("score", "-f", "json", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1")
    document = json.loads(result.stdout)
    schema_validator(assets().schema("report")).validate(document)
    assert document["kind"] == "score" and document["verdict"] == "PASS"
    assert [r["check"] for r in document["roster"]] == ["coverage.streams", "quality.score"]


def test_progress_shows_only_on_a_tty():
    import io

    class TTY(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = TTY(), io.StringIO()
    for stream in (tty, pipe):
        progress = scoring.Progress(stream)
        progress("re-scoring c01 (1/14) frame 1/124")
        progress("re-scoring c01 (1/14) frame 5/124")
        progress.done()
    assert "\rre-scoring c01 (1/14) frame 5/124" in tty.getvalue() and pipe.getvalue() == ""


def test_without_scikit_image_the_example_still_re_scores_ssim(example_copy, monkeypatch):
    import sys

    from verifier.core import verify_path

    monkeypatch.setitem(sys.modules, "skimage", None)  # import skimage now raises ImportError
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS"  # SSIM is computed with numpy alone; scikit-image is the tests' reference
    assert sum(f.code == "rescore-match" for f in report.findings) == 28
    ready = [f for f in report.findings if f.code == "scorer-ready" and f.message.startswith("ssim")]
    assert ready and "scikit-image" not in json.dumps(ready[0].observed)


@pytest.mark.parametrize("kind", ["fifo", "dir", "dangling"])
def test_a_weights_dir_entry_that_is_not_a_regular_file_is_refused_not_skipped(tmp_path, kind):
    import os

    from verifier.scorers.weights import WeightPin, WeightsProblem, locate

    pin = WeightPin(name="alexnet-owt-7be5be79.pth", sha256="7be5be79" + "0" * 56, role="backbone")
    entry = tmp_path / pin.name
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "dir":
        entry.mkdir()
    else:
        entry.symlink_to(tmp_path / "nowhere")
    with pytest.raises(WeightsProblem) as problem:
        locate(pin, str(tmp_path))
    assert problem.value.code == "weights-not-regular-file"


def test_scorer_identity_compares_types_too():
    from verifier.scoring.rescore import identity_differences

    pin = {"id": "ssim-wang2004", "weights": [], "versions": {}, "parameters": {"gaussian_weights": True, "sigma": 1.5}}
    assert identity_differences(dict(pin), pin) == []
    assert identity_differences({**pin, "parameters": {"gaussian_weights": 1, "sigma": 1.5}}, pin)


def test_verify_score_writes_report_files_like_verify_check(run, tmp_path):
    """`verify score --report FORMAT=PATH` writes the same report as stdout in that format (newcomer defect)."""
    out = tmp_path / "score.json"
    sarif = tmp_path / "score.sarif"
    result = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1",
                 "--report", f"json={out}", "--report", f"sarif={sarif}")
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["kind"] == "score" and document["verdict"] == "PASS"
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert "ssim = 0.991703" in result.stdout  # stdout keeps its text report with PASS metrics
    bad = run("score", str(MEDIA / "A1-m1.mp4"), str(MEDIA / "B1-m1.mp4"), "--gate", "ref2va-5s-v1",
              "--report", f"json={tmp_path / 'missing' / 'x.json'}")
    assert bad.exit_code == 2 and "does not exist" in bad.stderr
