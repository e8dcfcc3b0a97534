"""
SSIM of two videos, frame by frame, with the Wang et al. 2004 settings.

Source: Z. Wang, A. C. Bovik, H. R. Sheikh, E. P. Simoncelli, "Image quality
assessment: from error visibility to structural similarity", IEEE TIP 13(4),
2004; computed with `skimage.metrics.structural_similarity` using
`gaussian_weights=True, sigma=1.5, use_sample_covariance=False, K1=0.01,
K2=0.03`, `data_range=255` on uint8 RGB frames, `channel_axis=-1` (the mean of
the per-channel SSIMs). The clip score is the mean over frames. Needs the
`scoring` extra (scikit-image).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

__all__ = ["ID", "PARAMETERS", "ssim_frame", "ssim_frames"]

ID = "ssim-wang2004"

PARAMETERS = {
    "colour": "rgb24",
    "channel_axis": -1,
    "data_range": 255,
    "gaussian_weights": True,
    "sigma": 1.5,
    "use_sample_covariance": False,
    "K1": 0.01,
    "K2": 0.03,
    "reduction": "mean over frames",
}


def ssim_frame(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    """
    Return the SSIM of two uint8 HxWx3 RGB frames with `PARAMETERS` (the mean of the per-channel SSIMs).

    Raises `ValueError` for frames of different shapes or a dtype other than
    uint8 (the data range 255 is only right for uint8, field failure H-13),
    `ImportError` without scikit-image.
    """
    from skimage.metrics import structural_similarity

    if a.shape != b.shape or a.dtype != np.uint8 or b.dtype != np.uint8 or a.ndim != 3:
        raise ValueError(f"shapes/dtypes differ or are not HxWx3 uint8 ({a.shape} {a.dtype} vs {b.shape} {b.dtype})")
    return float(structural_similarity(
        a, b, channel_axis=-1, data_range=255, gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False, K1=0.01, K2=0.03))


def ssim_frames(pairs: Iterable[tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]]) -> tuple[float, int]:
    """
    Return `(mean_ssim, frame_count)` over pairs of uint8 HxWx3 frames.

    Frames are consumed one pair at a time (memory stays flat in clip
    length). Raises `ValueError` for frames of different shapes or dtype, or
    when there are no frames. Raises `ImportError` without scikit-image.
    """
    total, count = 0.0, 0
    for a, b in pairs:
        try:
            total += ssim_frame(a, b)
        except ValueError as exc:
            raise ValueError(f"frame {count}: {exc}") from None
        count += 1
    if count == 0:
        raise ValueError("no frames to score")
    return total / count, count
