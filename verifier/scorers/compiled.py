"""
Compiled kernels (numba) for the two hot loops of re-scoring: SSIM and the LPIPS head.

`ssim_rgb`: the SSIM of `verifier.scorers.ssim`, fused into one compiled loop per frame.

Same definition and the same exactness argument as `ssim.ssim_batch` (see
that module's docstring: the 11-tap Gaussian of scikit-image's
`structural_similarity` computed for the interior only, float64
throughout); what differs is only how the loops run. Per output row, the
11 input rows of the channel are filtered along the height into four row
buffers (x, y, x^2 + y^2, x*y, each product formed from the uint8 inputs
once per tap), the row buffers along the width, and the SSIM map of that
row summed at once, so every intermediate stays in the core's cache
instead of passing through memory as whole float64 planes. Multiply-adds
may be fused (`fastmath={"contract"}`: one rounding instead of two; no
reassociation), so the values differ from the numpy path and from
scikit-image by rounding only (`tests/scorers/test_ssim.py` holds both paths to
1e-9 of scikit-image per frame). Measured on one 832x480 frame pair on a
2-core AMD EPYC: 10 ms, against 28-37 ms for the numpy path.

`lpips_layer_sum`: the sum over pixels of sum_c w_c (a_c - b_c)^2 for one
layer of two frames' normalised AlexNet features, in one pass over both
maps, each difference and product in float64 (the torch path of
`LpipsScorer.distance` squares in float32 and writes two temporaries; the
two agree to about 1e-8, lpips' own float32 forward to well inside 1e-6:
`tests/scorers/test_lpips.py` runs both).

Why code: each is a loop nest numpy and torch cannot express without
materialising whole float64 planes or float32 temporaries; numba (an
optional dependency of the `ssim` and `scoring` extras) compiles it.
Without numba, both callers use their numpy/torch path and `available()`
is False.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["available", "lpips_layer_sum", "ssim_rgb"]

_KERNEL: Any = None  # the compiled `_batch`, once `available()` built it
_CHANNEL: Any = None  # the compiled `_channel_sum`, which `_batch` calls
_HEAD: Any = None  # the compiled `_layer_sum`
_TRIED = False
#: False makes `available()` False, so every caller takes its numpy/torch path (the tests run both paths).
ENABLED = True


def _channel_sum(x: Any, y: Any, weights: Any, c1: float, c2: float) -> float:  # pragma: no cover - runs compiled
    """Return the sum of the SSIM map of one channel (uint8 H x W planes `x`, `y`) over the interior (compiled by `_build`)."""
    h, w = x.shape
    win = weights.shape[0]
    ho, wo = h - win + 1, w - win + 1
    vx, vy, vs, vp = np.empty(w), np.empty(w), np.empty(w), np.empty(w)
    hx, hy, hs, hp = np.empty(wo), np.empty(wo), np.empty(wo), np.empty(wo)
    total = 0.0
    for i in range(ho):
        vx[:] = 0.0
        vy[:] = 0.0
        vs[:] = 0.0
        vp[:] = 0.0
        for k in range(win):
            wk = weights[k]
            rx, ry = x[i + k], y[i + k]
            for j in range(w):
                a = np.float64(rx[j])
                b = np.float64(ry[j])
                vx[j] += wk * a
                vy[j] += wk * b
                vs[j] += wk * (a * a + b * b)
                vp[j] += wk * (a * b)
        hx[:] = 0.0
        hy[:] = 0.0
        hs[:] = 0.0
        hp[:] = 0.0
        for k in range(win):
            wk = weights[k]
            for j in range(wo):
                hx[j] += wk * vx[j + k]
                hy[j] += wk * vy[j + k]
                hs[j] += wk * vs[j + k]
                hp[j] += wk * vp[j + k]
        for j in range(wo):
            num = hx[j] * hy[j]
            sq = hx[j] * hx[j] + hy[j] * hy[j]
            total += (num + c1 / 2) * (hp[j] - num + c2 / 2) / ((hs[j] - sq + c2) * (sq + c1))
    return total


def _batch(x: Any, y: Any, weights: Any, c1: float, c2: float, out: Any) -> None:  # pragma: no cover - runs compiled
    """Write into `out[f]` the mean over channels of each (N, H, W, C) frame pair's SSIM (compiled by `_build`; calls the compiled `_channel_sum`)."""
    n, h, w, c = x.shape
    win = weights.shape[0]
    xs, ys = np.empty((h, w), np.uint8), np.empty((h, w), np.uint8)  # one channel of each frame, contiguous
    for f in range(n):
        acc = 0.0
        for ch in range(c):
            for i in range(h):
                for j in range(w):
                    xs[i, j] = x[f, i, j, ch]
                    ys[i, j] = y[f, i, j, ch]
            acc += 4 * _CHANNEL(xs, ys, weights, c1, c2) / ((h - win + 1) * (w - win + 1))
        out[f] = acc / c


def _layer_sum(a: Any, b: Any, w: Any) -> float:  # pragma: no cover - runs compiled
    """Return sum_p sum_c w[c] (a[p, c] - b[p, c])^2 in float64 for two (pixels, channels) float32 maps (compiled by `_build`)."""
    total = 0.0
    for p in range(a.shape[0]):
        s = 0.0
        for c in range(a.shape[1]):
            d = np.float64(a[p, c]) - np.float64(b[p, c])
            s += np.float64(w[c]) * d * d
        total += s
    return total


def _jit(function: Any, fastmath: set[str]) -> Any:
    """Return `function` compiled lazily by numba (nogil), its machine code cached on disk where numba finds a writable place."""
    import numba

    try:
        return numba.njit(nogil=True, fastmath=fastmath, cache=True)(function)
    except RuntimeError:  # numba found no writable cache location: compile once per process instead
        return numba.njit(nogil=True, fastmath=fastmath, cache=False)(function)


def _build() -> Any:
    """Return the compiled SSIM batch kernel and set the LPIPS head kernel (raises ImportError without numba); each compiles on its first call."""
    global _CHANNEL, _HEAD
    import numba  # noqa: F401 - ImportError here means: no compiled kernels

    # the head's sums may be reassociated (vectorised over channels): float64 sums of at most a few million
    # non-negative terms, where reordering moves the result by about 1e-16 relative
    _HEAD = _jit(_layer_sum, {"contract", "reassoc"})
    _CHANNEL = _jit(_channel_sum, {"contract"})
    return _jit(_batch, {"contract"})


def available() -> bool:
    """Return True when `ENABLED` and numba imports (each kernel is then compiled on its first call, about 1 s, or read from numba's on-disk cache)."""
    global _KERNEL, _TRIED
    if not _TRIED:
        _TRIED = True
        try:
            _KERNEL = _build()
        except ImportError:
            _KERNEL = None
    return ENABLED and _KERNEL is not None


def ssim_rgb(x: npt.NDArray[np.uint8], y: npt.NDArray[np.uint8], weights: npt.NDArray[np.float64],
                c1: float, c2: float) -> npt.NDArray[np.float64]:
    """
    Return the SSIM of each frame pair of two (N, H, W, 3) uint8 RGB stacks, shape (N,), float64.

    `weights` are the filter taps (11 for `ssim.PARAMETERS`), `c1`, `c2` the
    stabilising constants (K1 * L)^2 and (K2 * L)^2. The caller checks the
    inputs (`ssim.ssim_batch`); frames must be at least as large as the
    window. The kernel copies one channel of a frame at a time into two
    H x W buffers of its own; nothing else of frame size is allocated, so a
    long run of batches on worker threads does not fragment the heap
    (copying whole channel-planar stacks per batch made peak RSS grow by
    about 1 MiB per frame on the 14-comparison campaign). Raises
    `RuntimeError` when `available()` is False. Releases the GIL while it
    runs, so threads score batches side by side.
    """
    if not available():
        raise RuntimeError("numba is not installed: the compiled SSIM kernel is unavailable")
    out = np.empty(x.shape[0])
    _KERNEL(x, y, weights, float(c1), float(c2), out)
    return out


def lpips_layer_sum(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], w: npt.NDArray[np.float32]) -> float:
    """
    Return sum over pixels p and channels c of w[c] * (a[p, c] - b[p, c])^2, float64, for two C-contiguous (pixels, C) float32 maps.

    The LPIPS head of one layer before the spatial mean (R. Zhang et al.,
    CVPR 2018, eq. 1; lpips 0.1.4 `NetLinLayer` + `spatial_average`), with
    `w` the layer's linear weights (C,). Raises `RuntimeError` when
    `available()` is False. Releases the GIL.
    """
    if not available():
        raise RuntimeError("numba is not installed: the compiled LPIPS head is unavailable")
    return float(_HEAD(a, b, w))
