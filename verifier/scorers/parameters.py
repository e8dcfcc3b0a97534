"""
The fixed parameters of each scorer, as a gate pins them (`quality.scorers.<metric>.parameters`).

Plain data, importable without numpy or torch, so a run can compare a
gate's pins with what this verifier computes before (or without) loading
any scorer. Each scorer module exposes its own as `PARAMETERS`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AUDIO_COSINE", "BY_METRIC", "LPIPS", "SSIM"]

#: `verifier.scorers.lpips_alex` (media-notes A4).
LPIPS: dict[str, Any] = {
    "net": "alex",
    "version": "0.1",
    "lpips": True,
    "spatial": False,
    "use_dropout": True,
    "colour": "rgb24",
    "layout": "NCHW float32",
    "input_range": "[-1, 1]: uint8 v -> v / 127.5 - 1, normalize=False",
    "resize": "none (native resolution)",
    "reduction": "mean over frames",
}

#: `verifier.scorers.ssim` (scikit-image's structural_similarity with the Wang et al. settings).
SSIM: dict[str, Any] = {
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

#: `verifier.scorers.audio`, definition stft_mag_cosine_v1 (`length_tolerance_samples` is the gate's own choice).
AUDIO_COSINE: dict[str, Any] = {
    "n_fft": 1024,
    "hop": 256,
    "window": "periodic hann",
    "dc": "each channel's mean removed",
    "downmix": "mono (mean over channels)",
    "framing": "full frames only, no centring or padding",
    "magnitude": "|rfft|, 513 bins",
    "score": "cosine of the flattened time x frequency magnitudes, clipped to [0, 1]",
    "length": "exact sample counts from coverage (packet timestamps); never truncated to the shorter signal",
}

BY_METRIC: dict[str, dict[str, Any]] = {"lpips": LPIPS, "ssim": SSIM, "audio_cosine": AUDIO_COSINE}
