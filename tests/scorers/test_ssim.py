"""
SSIM (`verifier.scorers.ssim`): our separable, batched implementation against scikit-image, the reference.

Each frame's value must equal `skimage.metrics.structural_similarity` with
the gate's parameters (Gaussian sigma 1.5, population covariance, data range
255, channel_axis=-1) to within 1e-9: on random frames of many sizes (down to
the 11x11 window) and extreme contents, on every frame of the example's
decoded clips, and on decoded 832x480 H.264 frames like a campaign's. Speed
is measured in `benchmarks/bench_ssim.py`, never here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from bundlekit import ROOT

from verifier.scorers import ssim

pytest.importorskip("skimage", reason="scikit-image is the reference SSIM (the `ssim` and `test` extras)")
av = pytest.importorskip("av")

TOL = 1e-9


@pytest.fixture(autouse=True, params=["compiled", "numpy"])
def kernel(request, monkeypatch):
    """Every test here runs on both paths of `ssim_batch`: the compiled kernel (numba) and the numpy one."""
    from verifier.scorers import compiled

    if request.param == "compiled" and not compiled.available():
        if os.environ.get("VERIFY_REQUIRE_SCORING"):
            pytest.fail("numba (the `scoring` extra) is not installed, so the compiled SSIM path is untested")
        pytest.skip("numba is not installed: the compiled SSIM path is not tested here")
    monkeypatch.setattr(compiled, "ENABLED", request.param == "compiled")
    return request.param


def test_the_compiled_kernel_is_the_one_used_when_available(kernel, monkeypatch):
    from verifier.scorers import compiled

    calls = []
    real = compiled.ssim_rgb
    monkeypatch.setattr(compiled, "ssim_rgb", lambda *args: calls.append(1) or real(*args))
    a = np.zeros((2, 20, 30, 3), np.uint8)
    ssim.ssim_batch(a, a)
    assert calls == ([1] if kernel == "compiled" else [])
EXAMPLE = ROOT / "examples" / "ref2va-5s"


def _decode(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


def _pairs(rng: np.random.Generator, h: int, w: int) -> list[tuple[np.ndarray, np.ndarray]]:
    noise = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    near = np.clip(noise + rng.normal(0, 6, noise.shape), 0, 255).astype(np.uint8)
    return [
        (noise, rng.integers(0, 256, (h, w, 3), dtype=np.uint8)),  # unrelated noise
        (noise, near),  # small deviation
        (np.full((h, w, 3), 255, np.uint8), np.zeros((h, w, 3), np.uint8)),  # extremes
        (np.full((h, w, 3), 7, np.uint8), np.full((h, w, 3), 7, np.uint8)),  # constant, identical: zero variance
        (noise, noise),  # identical
    ]


@pytest.mark.parametrize("shape", [(11, 11), (11, 40), (40, 11), (12, 13), (48, 64), (100, 37), (33, 170)])
def test_equals_scikit_image_on_random_frames(shape):
    rng = np.random.default_rng(sum(shape))
    for a, b in _pairs(rng, *shape):
        assert abs(ssim.ssim_frame(a, b) - ssim.reference_ssim_frame(a, b)) <= TOL, shape


def test_equals_scikit_image_on_every_frame_of_the_example():
    index = json.loads((EXAMPLE / "quality-index.json").read_text())
    for comp in index["comparisons"][:4]:
        ref, cand = _decode(EXAMPLE / comp["reference"]), _decode(EXAMPLE / comp["candidate"])
        ours = list(ssim.ssim_per_frame(zip(ref, cand, strict=True)))
        theirs = [ssim.reference_ssim_frame(a, b) for a, b in zip(ref, cand, strict=True)]
        assert len(ours) == len(theirs) == 124
        assert max(abs(x - y) for x, y in zip(ours, theirs, strict=True)) <= TOL, comp["id"]
        assert abs(float(np.mean(ours)) - float(comp["scores"]["ssim"])) <= 1e-6  # the recorded value, 6 decimals


def test_equals_scikit_image_on_decoded_campaign_sized_video(tmp_path):
    """Four 832x480 frames encoded with libx264 (yuv420p), decoded to rgb24 as the product does."""
    h, w = 480, 832
    y, x = np.mgrid[0:h, 0:w]
    paths = []
    for name, deviation in (("ref", 0), ("cand", 12)):
        path = tmp_path / f"{name}.mp4"
        with av.open(str(path), "w") as out:
            stream = out.add_stream("libx264", rate=24)
            stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
            stream.codec_context.options = {"preset": "ultrafast", "crf": "28"}
            for i in range(4):
                img = np.stack([128 + 100 * np.sin(x / 23 + i / 5) * np.cos(y / 31), 128 + 100 * np.sin((x + y) / 37 - i),
                                128 + 90 * np.cos(x / 41 - y / 19 + i)], -1) + deviation * np.sin(x / 13 + y / 17)[..., None]
                out.mux(stream.encode(av.VideoFrame.from_ndarray(np.clip(img, 0, 255).astype(np.uint8), format="rgb24")))
            out.mux(stream.encode(None))
        paths.append(path)
    ref, cand = _decode(paths[0]), _decode(paths[1])
    assert len(ref) == len(cand) == 4 and ref[0].shape == (h, w, 3)
    ours = list(ssim.ssim_per_frame(zip(ref, cand)))
    theirs = [ssim.reference_ssim_frame(a, b) for a, b in zip(ref, cand)]
    assert max(abs(p - q) for p, q in zip(ours, theirs)) <= TOL
    assert 0.3 < min(ours) < 0.999  # a real, imperfect match: the comparison is not vacuous


def test_batches_give_the_same_values_as_single_frames():
    rng = np.random.default_rng(3)
    frames = [(rng.integers(0, 256, (20, 30, 3), dtype=np.uint8), rng.integers(0, 256, (20, 30, 3), dtype=np.uint8))
              for _ in range(7)]
    single = [ssim.ssim_frame(a, b) for a, b in frames]
    for budget in (1, 600 * 2, 600 * 3, 10**9):  # 1 frame, 2, 3 or all per batch
        batched = list(ssim.ssim_per_frame(iter(frames), budget=budget))
        assert max(abs(p - q) for p, q in zip(batched, single, strict=True)) <= 1e-15


@pytest.mark.parametrize("a, b, match", [
    (np.zeros((20, 20, 3)), np.zeros((20, 20, 3)), "uint8"),  # floats: no data range is guessed (H-13)
    (np.zeros((20, 20, 3), np.uint8), np.zeros((20, 21, 3), np.uint8), "differ"),
    (np.zeros((20, 20, 4), np.uint8), np.zeros((20, 20, 4), np.uint8), "HxWx3"),
    (np.zeros((10, 20, 3), np.uint8), np.zeros((10, 20, 3), np.uint8), "smaller than the 11x11"),
])
def test_refusals(a, b, match):
    with pytest.raises(ValueError, match=match):
        ssim.ssim_frame(a, b)


def test_a_frame_size_change_mid_stream_is_refused_naming_the_frame():
    ok = np.zeros((20, 20, 3), np.uint8)
    other = np.zeros((24, 20, 3), np.uint8)
    with pytest.raises(ValueError, match="frame 2:"):
        list(ssim.ssim_per_frame([(ok, ok), (ok, ok), (other, other)]))
    with pytest.raises(ValueError, match="no frames"):
        ssim.ssim_frames([])


_SCORE_SCRIPT = """
import sys, numpy as np
from verifier.scorers.audio import spectral_cosine
from verifier.scorers.ssim import ssim_batch
rng = np.random.default_rng(0)
x = rng.normal(size=(2, 165333)); y = x + rng.normal(size=x.shape) * 0.3
a = rng.integers(0, 256, (3, 120, 200, 3), dtype=np.uint8); b = rng.integers(0, 256, a.shape, dtype=np.uint8)
print(repr(spectral_cosine(x, y, rate_x=32000, rate_y=32000)), [repr(float(v)) for v in ssim_batch(a, b)])
"""


@pytest.mark.parametrize("threads", ["2", "4"])
def test_scores_do_not_depend_on_the_number_of_blas_threads(threads):
    """Dask workers run with OPENBLAS_NUM_THREADS=1: the report must be the same bits as a local run's."""
    import os
    import subprocess
    import sys

    out = []
    for n in ("1", threads):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=n, OMP_NUM_THREADS=n, PYTHONPATH=str(ROOT))
        out.append(subprocess.run([sys.executable, "-c", _SCORE_SCRIPT], env=env, capture_output=True, text=True,
                                  check=True).stdout)
    assert out[0] == out[1]


def test_a_workspace_reuses_its_buffers_and_grows_for_a_larger_batch(kernel):
    space = ssim.Workspace()
    small = space.array("planes", (2, 3))
    large = space.array("planes", (4, 5))
    again = space.array("planes", (2, 3))
    assert large.shape == (4, 5) and again.shape == (2, 3) and small.shape == (2, 3)
    assert np.shares_memory(large, again) and not np.shares_memory(small, large)
    rng = np.random.default_rng(3)
    frames = [(rng.integers(0, 256, (24, 40, 3), dtype=np.uint8), rng.integers(0, 256, (24, 40, 3), dtype=np.uint8))
              for _ in range(3)]
    a, b = np.stack([f[0] for f in frames]), np.stack([f[1] for f in frames])
    reused = ssim.Workspace()
    one = ssim.ssim_batch(a[:1], b[:1], workspace=reused)
    three = ssim.ssim_batch(a, b, workspace=reused)  # a larger batch after a smaller one, same workspace
    assert one[0] == three[0] and list(three) == list(ssim.ssim_batch(a, b))
