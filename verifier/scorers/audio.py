"""
Audio spectral cosine, definition `stft_mag_cosine_v1`.

Source: `shared/docs/media-notes.md` section D. Inputs are PCM arrays of
shape (channels, samples) at the same sample rate, already trimmed to the
exact sample count the coverage check derives from packet timestamps. Each
channel's mean (DC) is removed, the channels are averaged to mono, frames of
`N_FFT` = 1024 samples are taken every `HOP` = 256 samples (no centring, no
padding, full frames only), each frame is multiplied by a periodic Hann window
and S = |rfft(frame)| (513 bins). The score is the cosine between the
flattened (time x frequency) magnitude matrices, <Sx, Sy>_F / (|Sx|_F |Sy|_F),
clipped to [0, 1].

The score is invariant to gain and polarity, and unrelated broadband noise
scores about 0.78, so it is a similarity floor, not a semantic measure.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from verifier.scorers import parameters

__all__ = ["DEFINITION", "HOP", "N_FFT", "PARAMETERS", "AudioRefused", "spectral_cosine"]

DEFINITION = "stft_mag_cosine_v1"
N_FFT = 1024
HOP = 256
#: The definition's fixed parameters, as a gate pins them (`length_tolerance_samples` is the gate's own choice).
PARAMETERS = parameters.AUDIO_COSINE
#: Minimum RMS (full scale 1.0) below which a signal counts as silence and is refused.
ENERGY_FLOOR = 1e-6


class AudioRefused(ValueError):
    """Raised when the inputs cannot be scored: `code` is `sample-rate-mismatch`, `length-mismatch`, `too-short`, `silence` or `non-finite`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _spectrogram(pcm: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    centred = pcm - pcm.mean(axis=1, keepdims=True)
    mono = centred.mean(axis=0)
    frames = 1 + (mono.shape[0] - N_FFT) // HOP
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(frames)[:, None]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)  # periodic Hann
    return np.abs(np.fft.rfft(mono[index] * window, axis=1))


def spectral_cosine(x: npt.ArrayLike, y: npt.ArrayLike, *, rate_x: int, rate_y: int, length_tolerance: int = 0) -> float:
    """
    Return the `stft_mag_cosine_v1` score of PCM `x` against `y` (each (channels, samples), any float scale).

    Sample counts may differ by at most `length_tolerance`; the shorter signal
    is then zero-padded (never the longer one truncated: truncate-to-min
    would hide a short track). Raises `AudioRefused` for differing sample
    rates, counts differing by more than the tolerance, fewer than `N_FFT`
    samples, non-finite samples, or silence (RMS below `ENERGY_FLOOR`).
    """
    a = np.atleast_2d(np.asarray(x, dtype=np.float64))
    b = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if rate_x != rate_y:
        raise AudioRefused("sample-rate-mismatch", f"sample rates differ ({rate_x} vs {rate_y} Hz); resample first")
    if abs(a.shape[1] - b.shape[1]) > length_tolerance:
        raise AudioRefused("length-mismatch", f"sample counts differ ({a.shape[1]} vs {b.shape[1]}) by more than the "
                                              f"tolerance of {length_tolerance} samples; nothing is truncated")
    if min(a.shape[1], b.shape[1]) < N_FFT:
        raise AudioRefused("too-short", f"{min(a.shape[1], b.shape[1])} samples is fewer than one {N_FFT}-sample frame")
    for name, pcm in (("reference", a), ("candidate", b)):
        if not np.isfinite(pcm).all():
            raise AudioRefused("non-finite", f"{name} audio has NaN or infinite samples")
        if float(np.sqrt(np.mean(np.square(pcm - pcm.mean(axis=1, keepdims=True))))) < ENERGY_FLOOR:
            raise AudioRefused("silence", f"{name} audio is silent (RMS below {ENERGY_FLOOR})")
    if a.shape[0] != b.shape[0]:
        raise AudioRefused("channel-mismatch", f"channel counts differ ({a.shape[0]} vs {b.shape[0]})")
    longest = max(a.shape[1], b.shape[1])
    a = np.pad(a, ((0, 0), (0, longest - a.shape[1])))
    b = np.pad(b, ((0, 0), (0, longest - b.shape[1])))
    sx, sy = _spectrogram(a), _spectrogram(b)
    # numpy's pairwise sums, not BLAS dot products: a threaded BLAS splits a dot product by thread count, so the
    # last bits would depend on OPENBLAS_NUM_THREADS (Dask workers run with 1) and reports would differ by machine load
    score = float(np.sum(sx * sy) / (np.sqrt(np.sum(sx * sx)) * np.sqrt(np.sum(sy * sy))))
    return min(max(score, 0.0), 1.0)
