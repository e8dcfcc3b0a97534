"""
Campaign re-scoring (`verifier.scoring.batch_scoring`, `LpipsScorer.features`/`distance`): faster, never different.

What must hold: the LPIPS of two frames from their shared AlexNet features
(batched, channels-last, the head as one product per layer) equals lpips' own
`forward` on the pair to 1e-6, for frames of several sizes and for nearly
equal frames; SSIM computed on the worker thread comes back in frame order
and equals scikit-image per frame to 1e-9 however the batches are cut and
however few may wait.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("skimage", reason="SSIM re-scoring needs scikit-image (in the `test` and `scoring` extras)")

from verifier.scoring import batch_scoring  # noqa: E402

from verifier.scoring import rescore as scoring
from verifier.checks import coverage  # noqa: E402
from verifier.scorers import ssim as ssim_scorer  # noqa: E402
from verifier.scorers.ssim import reference_ssim_frame  # noqa: E402
from verifier.trust.assets import assets  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
MEDIA = ROOT / "examples" / "ref2va-5s" / "media"


@pytest.fixture(scope="module")
def lpips_scorer(tmp_path_factory):
    """An LPIPS scorer with a seeded stand-in backbone, built through the pinned path."""
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    pytest.importorskip("lpips")
    import hashlib

    from verifier.scorers import lpips_alex
    from verifier.scorers.weights import WeightPin, WeightsProblem

    d = tmp_path_factory.mktemp("weights")
    torch.manual_seed(0)
    torch.save(torchvision.models.alexnet(weights=None).state_dict(), d / "alexnet-owt-7be5be79.pth")
    pins = [WeightPin("alexnet-owt-7be5be79.pth", hashlib.sha256((d / "alexnet-owt-7be5be79.pth").read_bytes()).hexdigest(),
                      "backbone"),
            WeightPin("lpips-v0.1-alex.pth", "df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0", "linear",
                      package_file="lpips/weights/v0.1/alex.pth")]
    try:
        return lpips_alex.build(pins, None, weights_dir=str(d))
    except WeightsProblem as exc:  # the state digest is computed on the first build, as a run pins it
        return lpips_alex.build(pins, str(exc).split("digests to ")[1].split(":")[0], weights_dir=str(d))


@pytest.mark.parametrize("shape", [(64, 96, 3), (120, 208, 3), (67, 131, 3)])
def test_distance_of_shared_features_equals_lpips_forward_on_the_pair(lpips_scorer, shape):
    rng = np.random.default_rng(shape[0])
    base = rng.integers(0, 256, shape, dtype=np.uint8)
    near = np.clip(base.astype(int) + rng.integers(-2, 3, shape), 0, 255).astype(np.uint8)  # nearly equal: tiny LPIPS
    far = rng.integers(0, 256, shape, dtype=np.uint8)
    frames = [base, near, far]
    features = lpips_scorer.features(frames)
    for i, j in ((0, 1), (0, 2), (1, 2), (2, 2)):
        expected = lpips_scorer.distances([frames[i]], [frames[j]])[0]  # lpips' own forward on the pair
        assert abs(lpips_scorer.distance(features[i], features[j]) - expected) <= 1e-6
    assert lpips_scorer.distance(features[2], features[2]) == 0.0


def test_features_refuse_what_lpips_input_refuses(lpips_scorer):
    with pytest.raises(ValueError, match="uint8 HxWx3"):
        lpips_scorer.features([np.zeros((16, 16, 3), dtype=np.float32)])


def _facts(path: Path):
    exp = coverage.Expectation(frames=124, fps=Fraction(24), sample_rate=32000, channels=2)
    return coverage.probe(path, path.name, exp, coverage.DEFAULT_POLICY)


def _frames(path: Path) -> list[np.ndarray]:
    import av

    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


@pytest.mark.parametrize("batch_pixels, in_flight", [(1, 1), (1 << 14, 2), (ssim_scorer.BATCH_PIXELS, batch_scoring.MAX_IN_FLIGHT)])
def test_ssim_on_the_worker_thread_is_in_frame_order_and_equals_scikit_image(monkeypatch, batch_pixels, in_flight):
    monkeypatch.setattr(ssim_scorer, "BATCH_PIXELS", batch_pixels)  # 1: one frame pair per batch
    monkeypatch.setattr(batch_scoring, "MAX_IN_FLIGHT", in_flight)
    names = [("A1-m1.mp4", "B1-m1.mp4"), ("B1-m1.mp4", "B2-m1.mp4"), ("A2-m2.mp4", "B2-m2.mp4")]
    scorers = scoring.Scorers(assets().gate("ref2va-5s-v1")["quality"])
    scorers.ready("ssim")
    pairs = [(MEDIA / a, MEDIA / b, _facts(MEDIA / a), _facts(MEDIA / b), None) for a, b in names]
    results = scoring.score_pairs(pairs, coverage.DEFAULT_POLICY, ["ssim"], scorers)
    for (a, b), out in zip(names, results, strict=True):
        expected = [reference_ssim_frame(x, y) for x, y in zip(_frames(MEDIA / a), _frames(MEDIA / b), strict=True)]
        got = out["ssim"].per_frame
        assert len(got) == len(expected) == 124
        assert max(abs(x - y) for x, y in zip(got, expected, strict=True)) <= 1e-9
    assert not [t for t in threading.enumerate() if t.name.startswith("verify-ssim")]  # the worker is gone after the run


def test_an_error_inside_the_worker_reaches_the_caller(monkeypatch):
    def broken(a, b, workspace=None):
        raise ValueError("boom")

    monkeypatch.setattr(ssim_scorer, "ssim_batch", broken)
    scorers = scoring.Scorers(assets().gate("ref2va-5s-v1")["quality"])
    scorers.ready("ssim")
    a, b = MEDIA / "A1-m1.mp4", MEDIA / "B1-m1.mp4"
    with pytest.raises(ValueError, match="boom"):
        scoring.score_pairs([(a, b, _facts(a), _facts(b), None)], coverage.DEFAULT_POLICY, ["ssim"], scorers)
    assert not [t for t in threading.enumerate() if t.name.startswith("verify-ssim")]


def test_concurrent_calls_each_use_their_own_worker(monkeypatch):
    """Two `score_many` calls on two threads (as fan-out workers may run them) both finish with scikit-image's values."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(ssim_scorer, "BATCH_PIXELS", 1)
    monkeypatch.setattr(batch_scoring, "MAX_IN_FLIGHT", 1)
    scorers = scoring.Scorers(assets().gate("ref2va-5s-v1")["quality"])
    scorers.ready("ssim")
    names = [("A1-w1.mp4", "B1-w1.mp4"), ("A2-w2.mp4", "B2-w2.mp4")]

    def one(pair):
        a, b = MEDIA / pair[0], MEDIA / pair[1]
        return scoring.score_pairs([(a, b, _facts(a), _facts(b), None)], coverage.DEFAULT_POLICY, ["ssim"], scorers)[0]

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, names))
    for (a, b), out in zip(names, results, strict=True):
        expected = [reference_ssim_frame(x, y) for x, y in zip(_frames(MEDIA / a), _frames(MEDIA / b), strict=True)]
        assert max(abs(x - y) for x, y in zip(out["ssim"].per_frame, expected, strict=True)) <= 1e-9
