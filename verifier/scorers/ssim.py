"""
SSIM of two videos, frame by frame, with the Wang et al. 2004 settings.

Source: Z. Wang, A. C. Bovik, H. R. Sheikh, E. P. Simoncelli, "Image quality
assessment: from error visibility to structural similarity", IEEE TIP 13(4),
2004. The definition is scikit-image's `structural_similarity` with
`gaussian_weights=True, sigma=1.5, use_sample_covariance=False, K1=0.01,
K2=0.03`, `data_range=255` on uint8 RGB frames, `channel_axis=-1` (the mean of
the per-channel SSIMs); the clip score is the mean over frames.

This module computes the same numbers with its own separable filtering
(`ssim_batch`), several times faster per frame and batched over frames:
with numba installed, one compiled loop per frame
(`verifier.scorers.compiled.ssim_rgb`, same arithmetic, fused), else the
numpy path described below;
`reference_ssim_frame` calls scikit-image itself, and the tests hold the two
equal to 1e-9 per frame (example, random and decoded frames).

Why it is exact: scikit-image filters each of ux, uy, uxx, uyy, uxy with
`scipy.ndimage.gaussian_filter` (11 taps: radius int(3.5 * 1.5 + 0.5) = 5,
weights exp(-x^2 / (2 sigma^2)) normalised, mode `reflect`) and averages the
SSIM map after cropping a border of (11 - 1) / 2 = 5 pixels. Every pixel
left after the crop takes its 11x11 window entirely from inside the frame,
so the boundary mode never enters the result: the filter is computed here
for the interior only ("valid"), along the height and then the width, as
products with a banded matrix of the 11 weights over blocks of 16 outputs
(numpy's BLAS does the arithmetic; each output reads its 11 inputs). By linearity uxx + uyy is filtered as one map (x^2 + y^2), four
filtered maps per channel instead of five. All arithmetic is float64; the
differences from scikit-image are rounding (measured below 1e-15).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import numpy.typing as npt

from verifier.scorers import compiled, parameters

__all__ = ["BATCH_PIXELS", "ID", "PARAMETERS", "WINDOW", "Workspace", "reference_ssim_frame", "ssim_batch",
           "ssim_frame", "ssim_frames", "ssim_per_frame"]

ID = "ssim-wang2004"

PARAMETERS = parameters.SSIM

_SIGMA = 1.5
_TRUNCATE = 3.5  # scikit-image's choice for gaussian_weights, giving Wang et al.'s 11-tap window
_RADIUS = int(_TRUNCATE * _SIGMA + 0.5)  # scipy.ndimage's radius rule: 5
#: The side of the Gaussian window and of scikit-image's border crop (2 * radius + 1 = 11); smaller frames are refused.
WINDOW = 2 * _RADIUS + 1
_C1 = (0.01 * 255) ** 2
_C2 = (0.03 * 255) ** 2
_BLOCK = 16  # output rows (columns) per banded matrix product: measured fastest of 8, 16, 32, 64 at 832x480
_CHUNK = 1 << 16  # elements per array in the final element-wise step (stays in cache)
#: Frames are scored in batches of at most this many pixels (per side), so memory stays bounded whatever the clip length.
BATCH_PIXELS = 1 << 19


def _kernel() -> npt.NDArray[np.float64]:
    """Return the 11 Gaussian weights exactly as `scipy.ndimage._gaussian_kernel1d(1.5, 0, 5)` computes them."""
    x = np.arange(-_RADIUS, _RADIUS + 1)
    phi = np.exp(-0.5 / (_SIGMA * _SIGMA) * x ** 2)
    return phi / phi.sum()  # type: ignore[no-any-return]


_WEIGHTS = _kernel()
_BANDS: dict[int, npt.NDArray[np.float64]] = {}


def _band(rows: int) -> npt.NDArray[np.float64]:
    """Return the (rows, rows + 10) banded matrix whose row i holds the weights at columns i..i+10."""
    if rows not in _BANDS:
        band = np.zeros((rows, rows + 2 * _RADIUS))
        for i in range(rows):
            band[i, i:i + WINDOW] = _WEIGHTS
        _BANDS[rows] = band
    return _BANDS[rows]


class Workspace:
    """
    Holds the float64 scratch planes of `ssim_batch` between calls, so a long run of batches reuses them.

    A fresh 36 MB array per plane and frame (832x480) is a fresh mapping the
    kernel zeroes page by page on first write; measured on a 2-core AMD EPYC,
    that was a quarter of `ssim_batch`'s time (37 ms against 28 ms per frame
    pair with the arrays reused). One workspace per thread: it is not locked.
    It holds at most the largest batch it has seen (three buffers of about
    4 x N x 3 x H x W float64 values each, bounded by `BATCH_PIXELS`) until
    it is dropped.
    """

    def __init__(self) -> None:
        self._buffers: dict[str, npt.NDArray[np.float64]] = {}

    def array(self, name: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
        """Return an uninitialised C-contiguous float64 array of `shape`, a view of the buffer `name` (grown when too small)."""
        size = int(np.prod(shape))
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(size)
        return buffer[:size].reshape(shape)


class _Fresh(Workspace):
    """The workspace of a call given none: every array newly allocated and freed once the call drops it."""

    def array(self, name: str, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:  # noqa: ARG002 - nothing is kept by name
        """Return a new uninitialised float64 array of `shape`."""
        return np.empty(shape)


def _check(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8], ndim: int) -> None:
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
        raise ValueError(f"frames must be numpy arrays, got {type(a).__name__} and {type(b).__name__}")
    if a.shape != b.shape or a.dtype != np.uint8 or b.dtype != np.uint8 or a.ndim != ndim or a.shape[-1] != 3:
        raise ValueError(f"shapes/dtypes differ or are not {'N' if ndim == 4 else ''}HxWx3 uint8 "
                         f"({a.shape} {a.dtype} vs {b.shape} {b.dtype})")
    if min(a.shape[-3], a.shape[-2]) < WINDOW:
        raise ValueError(f"a {a.shape[-2]}x{a.shape[-3]} frame is smaller than the {WINDOW}x{WINDOW} SSIM window")


def ssim_batch(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8],
               workspace: Workspace | None = None) -> npt.NDArray[np.float64]:
    """
    Return the SSIM of each frame pair of two (N, H, W, 3) uint8 RGB stacks, shape (N,), float64.

    Equal to scikit-image's `structural_similarity` with `PARAMETERS` (see
    the module docstring) to rounding. Memory: about 12 float64 planes of
    N x H x W at the peak (keep N x H x W bounded, e.g. by `BATCH_PIXELS`).
    Raises `ValueError` for stacks of different shapes, a dtype other than
    uint8 (the data range 255 is only right for uint8, field failure H-13),
    not N x H x W x 3, or frames smaller than the 11x11 window. Needs only
    numpy (the matrix products run on its BLAS); runs the compiled kernel
    (`compiled.ssim_rgb`) instead when numba is installed. With a `workspace`, the
    three float64 scratch stacks are taken from it (and stay in it) instead of
    being allocated per call; the values are the same either way.
    """
    _check(a, b, 4)
    if compiled.available():
        return compiled.ssim_rgb(a, b, _WEIGHTS, _C1, _C2)
    space = workspace if workspace is not None else _Fresh()
    n, h, w, c = a.shape
    ho, wo = h - 2 * _RADIUS, w - 2 * _RADIUS
    # planes[q, n, c]: q = x, y, x^2 + y^2, x*y, channel-planar so both passes run along image axes
    planes = space.array("planes", (4, n, c, h, w))
    x, y = planes[0], planes[1]
    x[...] = a.transpose(0, 3, 1, 2)
    y[...] = b.transpose(0, 3, 1, 2)
    np.multiply(x, x, out=planes[2])
    np.multiply(y, y, out=planes[3])
    planes[2] += planes[3]
    np.multiply(x, y, out=planes[3])
    flat = planes.reshape(-1, h, w)
    del x, y
    # height: valid part of the 11-tap filter as banded matrix products over blocks of output rows
    tall = space.array("tall", (flat.shape[0], ho, w))
    for top in range(0, ho, _BLOCK):
        size = min(_BLOCK, ho - top)
        np.matmul(_band(size), flat[:, top:top + size + 2 * _RADIUS, :], out=tall[:, top:top + size, :])
    del planes, flat
    # width: the same on the transposed view; the result is laid out (map, column, row), which the mean ignores
    across = tall.transpose(0, 2, 1)
    filtered = space.array("filtered", (tall.shape[0], wo, ho))
    for left in range(0, wo, _BLOCK):
        size = min(_BLOCK, wo - left)
        np.matmul(_band(size), across[:, left:left + size + 2 * _RADIUS, :], out=filtered[:, left:left + size, :])
    del tall, across
    # SSIM map = (2 ux uy + C1)(2 (uxy - ux uy) + C2) / ((ux^2 + uy^2 + C1)(uxx + uyy - ux^2 - uy^2 + C2)),
    # computed as 4 (ux uy + C1/2)(uxy - ux uy + C2/2) / (...) (exact: powers of two), in cache-sized chunks
    maps = filtered.reshape(4, n * c * wo, ho)
    sums = np.empty(n * c * wo)
    step = max(1, _CHUNK // ho)
    for r0 in range(0, maps.shape[1], step):
        ux, uy, uss, uxy = maps[:, r0:r0 + step]
        num = ux * uy
        sq = np.square(ux)
        sq += np.square(uy, out=ux)
        cov = np.subtract(uxy, num, out=uxy)
        cov += _C2 / 2
        num += _C1 / 2
        num *= cov
        den = np.subtract(uss, sq, out=uss)
        den += _C2
        sq += _C1
        den *= sq
        num /= den
        num.sum(axis=1, out=sums[r0:r0 + step])
    # per channel: mean over the cropped map (scikit-image's crop(S, 5).mean()); per frame: mean over channels
    return 4 * sums.reshape(n, c, wo).sum(axis=2).mean(axis=1) / (wo * ho)  # type: ignore[no-any-return]


def ssim_frame(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    """
    Return the SSIM of two uint8 HxWx3 RGB frames with `PARAMETERS` (the mean of the per-channel SSIMs).

    Raises `ValueError` for frames of different shapes, a dtype other than
    uint8 (field failure H-13), not HxWx3, or smaller than 11x11.
    """
    _check(a, b, 3)
    return float(ssim_batch(a[None], b[None])[0])


def reference_ssim_frame(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    """
    Return scikit-image's `structural_similarity` of two uint8 HxWx3 frames with `PARAMETERS`: the reference for `ssim_frame`.

    Raises `ValueError` as `ssim_frame` does, `ImportError` without scikit-image.
    """
    from skimage.metrics import structural_similarity

    _check(a, b, 3)
    return float(structural_similarity(
        a, b, channel_axis=-1, data_range=255, gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False, K1=0.01, K2=0.03))


def _batches(pairs: Iterable[tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]],
             budget: int) -> Iterator[tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]]:
    ref: list[npt.NDArray[np.uint8]] = []
    cand: list[npt.NDArray[np.uint8]] = []
    for count, (a, b) in enumerate(pairs):
        try:
            _check(a, b, 3)
            if ref and a.shape != ref[0].shape:
                raise ValueError(f"frame size {a.shape} differs from the previous frames' {ref[0].shape}")
        except ValueError as exc:
            raise ValueError(f"frame {count}: {exc}") from None
        ref.append(a)
        cand.append(b)
        if (len(ref) + 1) * a.shape[0] * a.shape[1] > budget:
            yield np.stack(ref), np.stack(cand)
            ref, cand = [], []
    if ref:
        yield np.stack(ref), np.stack(cand)


def ssim_per_frame(pairs: Iterable[tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]],
                   budget: int = BATCH_PIXELS) -> Iterator[float]:
    """
    Yield the SSIM of each pair of uint8 HxWx3 frames, in order, computing them in batches of at most `budget` pixels.

    Frames are consumed lazily (a batch at a time: memory stays flat in clip
    length). Raises `ValueError` naming the frame index as `ssim_frame` does.
    """
    for a, b in _batches(pairs, budget):
        yield from (float(v) for v in ssim_batch(a, b))


def ssim_frames(pairs: Iterable[tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]]) -> tuple[float, int]:
    """
    Return `(mean_ssim, frame_count)` over pairs of uint8 HxWx3 frames.

    Frames are consumed a batch at a time (memory stays flat in clip
    length). Raises `ValueError` for frames of different shapes or dtype, or
    when there are no frames.
    """
    values = list(ssim_per_frame(pairs))
    if not values:
        raise ValueError("no frames to score")
    return float(np.mean(np.asarray(values, dtype=np.float64))), len(values)
