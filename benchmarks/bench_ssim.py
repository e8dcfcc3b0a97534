#!/usr/bin/env python3
"""
Benchmark: SSIM per frame, `verifier.scorers.ssim` against scikit-image's `structural_similarity`.

Both compute the gate's SSIM (Wang et al. 2004: Gaussian sigma 1.5, 11x11,
population covariance, data range 255, mean of the per-channel values) on the
same uint8 RGB frame pairs; the script prints, per frame size, the CPU time per
frame of each (the minimum over `--reps` rounds of process CPU time, which
load on a shared machine disturbs less than wall time), the ratio, the wall
time of ours, and the largest per-frame |difference| (must be <= 1e-9).

Frames: `--frames` pairs of random noise against a noisy copy, at 832x480
(a campaign's clips) and at 64x48 (the example's). Ours scores a clip's frames
in batches (`ssim.BATCH_PIXELS`), as the product does; scikit-image one frame
at a time. numpy's BLAS threads are whatever the environment gives
(`OPENBLAS_NUM_THREADS=1` for a one-core figure).

Usage: python benchmarks/bench_ssim.py [--frames 8] [--reps 3]. Needs scikit-image (the `ssim` extra).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.scorers import ssim  # noqa: E402


def _cpu_ms(fn, reps: int) -> tuple[float, float]:
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        best_cpu, best_wall = min(best_cpu, time.process_time() - c0), min(best_wall, time.perf_counter() - w0)
    return best_cpu * 1e3, best_wall * 1e3


def main() -> None:
    """Time both implementations per frame at two frame sizes and check they agree."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"cpus {os.cpu_count()}; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
          f"load average {os.getloadavg()[0]:.2f}")
    for h, w, n in ((480, 832, args.frames), (48, 64, 124)):
        a = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
        b = np.clip(a + rng.normal(0, 9, a.shape), 0, 255).astype(np.uint8)
        theirs: list[float] = []
        ours: list[float] = []
        ref_cpu, _ = _cpu_ms(lambda: theirs.__init__(ssim.reference_ssim_frame(x, y) for x, y in zip(a, b)), args.reps)
        new_cpu, new_wall = _cpu_ms(lambda: ours.__init__(ssim.ssim_per_frame(zip(a, b))), args.reps)
        diff = max(abs(p - q) for p, q in zip(ours, theirs, strict=True))
        print(f"{w}x{h}, {n} frames: scikit-image {ref_cpu / n:.2f} ms CPU/frame; ours {new_cpu / n:.2f} ms CPU/frame "
              f"({new_wall / n:.2f} ms wall); ratio {ref_cpu / new_cpu:.2f}x; max |diff| {diff:.1e} "
              f"({'<= 1e-9' if diff <= 1e-9 else 'DIFFERENT'})")


if __name__ == "__main__":
    main()
