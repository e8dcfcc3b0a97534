#!/usr/bin/env python3
"""
Benchmark: re-scoring one clip pair (LPIPS + SSIM) against the reference loop.

The reference loop is what a reviewer would write: decode each clip fully,
then per frame call LPIPS and then `skimage.metrics.structural_similarity`,
sequentially. The product path (`verifier.scoring.rescore.score_video`) decodes both
clips once, in lockstep, streaming one frame pair at a time, and runs SSIM in
a worker process while LPIPS uses torch's threads here (scikit-image holds
the GIL, so a thread would not help). Both use the same LPIPS module built by
`verifier.scorers.lpips_alex.build` from digest-pinned weights, so the scores
must be identical (checked to 1e-6, printed as the max |diff|).

Clips: two 832x480 clips of `--frames` frames (default 124) at 24 fps with
32 kHz stereo AAC, generated deterministically into a temporary directory
(the candidate is the reference plus a smooth deviation). Weights: the real
backbone from `--weights-dir` if it holds `alexnet-owt-7be5be79.pth` with the
official digest, else a seeded stand-in AlexNet written to the temporary
directory (then the scores are not real LPIPS values, but the work is the
same). Peak memory: each path runs in a fresh process at N and 2N frames and
its peak RSS is printed; streaming keeps it flat in clip length.

Usage: `python benchmarks/bench_rescore.py [--frames 124] [--device cpu|cuda]
[--weights-dir DIR] [--skip-memory]`. Needs the `scoring` extra. Absolute
times are only meaningful on the machine they were taken on; quote absolute
figures only from a GPU run (`--device cuda`, honoured when a GPU exists).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OFFICIAL_BACKBONE = "7be5be791159472b1fbf3c69796f7cb30dca7ad8466c2df70058c37116cdee02"
W, H, FPS, RATE = 832, 480, 24, 32000


def write_clip(path: Path, frames: int, candidate: bool | float, variant: int = 0) -> Path:
    """
    Write a deterministic 832x480 H.264 + AAC clip of `frames` frames.

    `candidate` adds a smooth deviation (True: amplitude 10; a number: that
    amplitude); `variant` shifts the pattern and the tones (another request).
    """
    amplitude = 10.0 if candidate is True else float(candidate)
    import av

    y, x = np.mgrid[0:H, 0:W]
    samples = round(Fraction(frames, FPS) * RATE)
    with av.open(str(path), "w", format="mp4") as out:
        vs = out.add_stream("libx264", rate=FPS)
        vs.width, vs.height, vs.pix_fmt = W, H, "yuv420p"
        vs.codec_context.options = {"preset": "veryfast", "crf": "23"}
        a_s = out.add_stream("aac", rate=RATE, layout="stereo")
        for k in range(frames):
            i = k + 7 * variant  # a different clip per variant
            r = 128 + 100 * np.sin(x / 23.0 + i / 5) * np.cos(y / 31.0)
            g = 128 + 100 * np.sin((x + y) / 37.0 - i / 7)
            b = 128 + 90 * np.cos(x / 41.0 - y / 19.0 + i / 9)
            img = np.stack([r, g, b], axis=-1)
            if amplitude:
                img = img + amplitude * np.sin(x / 13 + y / 17 + i / 6)[..., None]
            frame = av.VideoFrame.from_ndarray(np.clip(np.round(img), 0, 255).astype(np.uint8), format="rgb24")
            frame.pts = k
            out.mux(vs.encode(frame))
        out.mux(vs.encode(None))
        t = np.arange(samples) / RATE
        f0 = 330 + 11 * variant + amplitude / 4
        pcm = np.stack([0.3 * np.sin(2 * np.pi * f0 * t), 0.3 * np.sin(2 * np.pi * 1.5 * f0 * t)]).astype(np.float32)
        for start in range(0, samples, 1024):
            af = av.AudioFrame.from_ndarray(np.ascontiguousarray(pcm[:, start:start + 1024]), format="fltp", layout="stereo")
            af.sample_rate, af.pts = RATE, start
            out.mux(a_s.encode(af))
        out.mux(a_s.encode(None))
    return path


def weights(tmp: Path, weights_dir: str | None) -> tuple[str, str, bool]:
    """Return (weights dir, backbone sha256, real?) — the real backbone if supplied, else a seeded stand-in."""
    if weights_dir and (Path(weights_dir) / "alexnet-owt-7be5be79.pth").is_file():
        sha = hashlib.sha256((Path(weights_dir) / "alexnet-owt-7be5be79.pth").read_bytes()).hexdigest()
        if sha == OFFICIAL_BACKBONE:
            return weights_dir, sha, True
    import torch
    import torchvision

    torch.manual_seed(0)
    torch.save(torchvision.models.alexnet(weights=None).state_dict(), tmp / "alexnet-owt-7be5be79.pth")
    return str(tmp), hashlib.sha256((tmp / "alexnet-owt-7be5be79.pth").read_bytes()).hexdigest(), False


def build(wdir: str, sha: str, device: str):
    """Return the LPIPS scorer from the pinned path (state digest computed on first build, as a run would pin it)."""
    from verifier.scorers import lpips_alex
    from verifier.scorers.weights import WeightPin, WeightsProblem

    pins = [WeightPin("alexnet-owt-7be5be79.pth", sha, "backbone"),
            WeightPin("lpips-v0.1-alex.pth", "df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0", "linear",
                      package_file="lpips/weights/v0.1/alex.pth")]
    try:
        return lpips_alex.build(pins, None, weights_dir=wdir, device=device)
    except WeightsProblem as exc:
        digest = str(exc).split("digests to ")[1].split(":")[0]
        return lpips_alex.build(pins, digest, weights_dir=wdir, device=device)


def reference_loop(ref: Path, cand: Path, scorer) -> tuple[list[float], list[float]]:
    """Decode each clip fully, then per frame: LPIPS (lpips' own forward on the pair), then structural_similarity, sequentially."""
    import av
    from skimage.metrics import structural_similarity

    def decode(p: Path) -> list[np.ndarray]:
        with av.open(str(p)) as c:
            return [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]

    fr, fc = decode(ref), decode(cand)
    lp, ss = [], []
    import torch

    from verifier.scorers.lpips_alex import to_lpips_input

    for a, b in zip(fr, fc, strict=True):
        with torch.inference_mode():
            lp.append(float(scorer.model(to_lpips_input(a), to_lpips_input(b), normalize=False).reshape(-1)[0]))
        ss.append(float(structural_similarity(a, b, channel_axis=-1, data_range=255, gaussian_weights=True, sigma=1.5,
                                              use_sample_covariance=False, K1=0.01, K2=0.03)))
    return lp, ss


def product_path(ref: Path, cand: Path, scorer, frames: int) -> tuple[list[float], list[float]]:
    """`verifier.scoring.rescore.score_pairs` on one pair: decode each file once, stream frames, LPIPS features in one batch."""
    out = product_campaign([(ref, cand)], scorer, frames, ["lpips", "ssim"])[0]
    return out["lpips"].per_frame, out["ssim"].per_frame


def product_campaign(pairs: list[tuple[Path, Path]], scorer, frames: int, metrics: list[str]) -> list[dict]:
    """`verifier.scoring.rescore.score_pairs` over every pair at once (coverage probes included, as a run demuxes each file)."""
    from verifier.scoring import rescore as scoring
    from verifier.checks import coverage

    exp = coverage.Expectation(frames, Fraction(FPS), RATE, 2)
    policy = coverage.DEFAULT_POLICY
    facts = {p: coverage.probe(p, p.name, exp, policy) for pair in pairs for p in pair}
    scorers = scoring.Scorers({"scorers": {"audio_cosine": {"parameters": {"length_tolerance_samples": 1023}}}})
    scorers.lpips = scorer
    return scoring.score_pairs([(a, b, facts[a], facts[b], None) for a, b in pairs], policy, metrics, scorers)


def _hwm_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory_child(args: argparse.Namespace) -> None:
    """
    Run one path on a clip pair in this (fresh) process and print its peak RSS in MiB, measured after the build.

    Building LPIPS (reading and loading the 244 MB backbone) peaks higher than
    scoring, so the peak is reset (Linux `/proc/self/clear_refs` 5) once the
    scorer is built; what remains is the scoring's own peak.
    """
    import gc

    scorer = build(args.wdir, args.sha, args.device)
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass  # not Linux, or not permitted: the figure then includes the build
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.child == "campaign":
        root = Path(args.ref)
        product_campaign([(root / f"{a}.mp4", root / f"{b}.mp4") for a, b in CAMPAIGN], scorer, args.frames,
                         ["lpips", "ssim", "audio_cosine"])
    elif args.child == "product":
        product_path(Path(args.ref), Path(args.cand), scorer, args.frames)
    else:
        reference_loop(Path(args.ref), Path(args.cand), scorer)
    # The SSIM worker is not counted (RUSAGE_CHILDREN would report the parent's pages at fork); it holds at
    # most its window of 4 frame pairs (4 x 2 x 1.2 MB at 832x480).
    print(json.dumps({"peak_rss_mib": _hwm_mib(), "build_peak_rss_mib": base}))


#: The example bundle's comparisons (quality-index.json of examples/ref2va-5s): 20 outputs, 14 comparisons.
CAMPAIGN = [("A1-m1", "B1-m1"), ("A1-m2", "B1-m2"), ("A1-m3", "B1-m3"), ("A2-m1", "B2-m1"), ("A2-m2", "B2-m2"),
            ("A2-m3", "B2-m3"), ("A1-w1", "B1-w1"), ("A1-w2", "B1-w2"), ("A2-w1", "B2-w1"), ("A2-w2", "B2-w2"),
            ("B1-m1", "B2-m1"), ("B1-m2", "B2-m2"), ("B1-m3", "B2-m3"), ("B1-w1", "B2-w1")]
DEVIATION = {"A1": 0.0, "A2": 2.0, "B1": 10.0, "B2": 12.0}
REQUESTS = ("m1", "m2", "m3", "w1", "w2")


def write_campaign(root: Path, frames: int) -> list[tuple[Path, Path]]:
    """Write the 20 outputs of a five-second campaign (arm/server by deviation, request by variant); return the 14 pairs."""
    root.mkdir(parents=True, exist_ok=True)
    paths = {}
    for server, amplitude in DEVIATION.items():
        for variant, request in enumerate(REQUESTS):
            name = f"{server}-{request}"
            paths[name] = write_clip(root / f"{name}.mp4", frames, amplitude, variant)
    return [(paths[a], paths[b]) for a, b in CAMPAIGN]


def reference_campaign(pairs: list[tuple[Path, Path]], scorer, frames: int) -> list[dict[str, list[float] | float]]:
    """The reference loop per comparison (LPIPS, SSIM), plus the audio cosine on each pair's exactly trimmed PCM."""
    import av

    from verifier.scoring import rescore as scoring
    from verifier.checks import coverage
    from verifier.scorers.audio import spectral_cosine

    exp = coverage.Expectation(frames, Fraction(FPS), RATE, 2)

    def pcm(path: Path) -> np.ndarray:
        with av.open(str(path)) as c:
            data = np.concatenate([f.to_ndarray().astype(np.float64) for f in c.decode(audio=0)], axis=1)
        return data[:, :scoring.exact_samples(coverage.probe(path, path.name, exp, coverage.DEFAULT_POLICY))]

    out = []
    for a, b in pairs:
        lp, ss = reference_loop(a, b, scorer)
        out.append({"lpips": lp, "ssim": ss, "audio_cosine": spectral_cosine(pcm(a), pcm(b), rate_x=RATE, rate_y=RATE,
                                                                             length_tolerance=1023)})
    return out


def campaign(args: argparse.Namespace, tmp: Path) -> None:
    """Time the reference loop and `verify`'s scoring on a full campaign in one run; print the ratio and the largest differences."""
    import os

    pairs = write_campaign(tmp / "campaign", args.frames)
    wdir, sha, real = weights(tmp, args.weights_dir)
    import torch

    print(f"campaign: 20 outputs, {len(pairs)} comparisons, {args.frames} frames {W}x{H}, 32 kHz stereo AAC; LPIPS backbone "
          f"{'real' if real else 'seeded stand-in'}; device {args.device}; torch threads {torch.get_num_threads()}; "
          f"cpus {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}", flush=True)
    ref_scorer, new_scorer = build(wdir, sha, args.device), build(wdir, sha, args.device)  # each path its own model
    t0 = time.perf_counter()
    ref = reference_campaign(pairs, ref_scorer, args.frames)
    t_ref = time.perf_counter() - t0
    print(f"reference loop, per comparison (decode all, per frame lpips forward then skimage SSIM; audio cosine): "
          f"{t_ref:.1f} s; load average {os.getloadavg()[0]:.2f}", flush=True)
    t0 = time.perf_counter()
    new = product_campaign(pairs, new_scorer, args.frames, ["lpips", "ssim", "audio_cosine"])
    t_new = time.perf_counter() - t0
    worst = {m: 0.0 for m in ("lpips", "ssim", "audio_cosine")}
    for r, n in zip(ref, new, strict=True):
        for m in ("lpips", "ssim"):
            worst[m] = max(worst[m], max(abs(x - y) for x, y in zip(r[m], n[m].per_frame, strict=True)))
        worst["audio_cosine"] = max(worst["audio_cosine"], abs(r["audio_cosine"] - n["audio_cosine"].value))
    same = worst["lpips"] <= 1e-6 and worst["ssim"] <= 1e-9 and worst["audio_cosine"] <= 1e-9
    print(f"verify (score_pairs: each file decoded once, AlexNet once per frame per file): {t_new:.1f} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"ratio: {t_ref / t_new:.2f}x (target >= 4x); max |diff| LPIPS {worst['lpips']:.1e} (<= 1e-6), SSIM "
          f"{worst['ssim']:.1e} (<= 1e-9), audio cosine {worst['audio_cosine']:.1e} (<= 1e-9): "
          f"{'identical' if same else 'DIFFERENT'}", flush=True)
    if args.skip_memory:
        return
    half = max(2, args.frames // 2)
    write_campaign(tmp / "half", half)
    rows = []
    for n, root in ((half, tmp / "half"), (args.frames, tmp / "campaign")):
        out = subprocess.run([sys.executable, __file__, "--child", "campaign", "--frames", str(n), "--ref", str(root),
                              "--wdir", wdir, "--sha", sha, "--device", args.device], capture_output=True, text=True, check=True)
        rows.append(f"{n} frames {json.loads(out.stdout.strip().splitlines()[-1])['peak_rss_mib']:.0f} MiB")
    print("peak RSS after the build, verify on the whole campaign: " + ", ".join(rows))


def main() -> None:
    """Generate the clips, time both paths, compare scores, measure peak memory at N and 2N frames."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=124)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--weights-dir")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--campaign", action="store_true",
                        help="time a full campaign (20 outputs, 14 comparisons, LPIPS + SSIM + audio cosine) instead of one pair")
    parser.add_argument("--child", choices=["product", "reference", "campaign"], help=argparse.SUPPRESS)
    parser.add_argument("--ref", help=argparse.SUPPRESS)
    parser.add_argument("--cand", help=argparse.SUPPRESS)
    parser.add_argument("--wdir", help=argparse.SUPPRESS)
    parser.add_argument("--sha", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        memory_child(args)
        return
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device is available")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if args.campaign:
            campaign(args, tmp)
            return
        ref, cand = write_clip(tmp / "ref.mp4", args.frames, False), write_clip(tmp / "cand.mp4", args.frames, True)
        wdir, sha, real = weights(tmp, args.weights_dir)
        scorer = build(wdir, sha, args.device)
        print(f"clip pair: {args.frames} frames {W}x{H}; LPIPS backbone: {'real' if real else 'seeded stand-in'} "
              f"(sha256 {sha[:12]}...); device {args.device}; torch threads {torch.get_num_threads()}")
        t0 = time.perf_counter()
        lp_ref, ss_ref = reference_loop(ref, cand, scorer)
        t_ref = time.perf_counter() - t0
        print(f"reference loop (decode all, then per frame LPIPS then SSIM): {t_ref:.2f} s", flush=True)
        t0 = time.perf_counter()
        lp_new, ss_new = product_path(ref, cand, scorer, args.frames)
        t_new = time.perf_counter() - t0
        diff = max(max(abs(a - b) for a, b in zip(lp_ref, lp_new, strict=True)),
                   max(abs(a - b) for a, b in zip(ss_ref, ss_new, strict=True)))
        print(f"verify (decode once, stream, SSIM in a worker process):       {t_new:.2f} s")
        print(f"ratio: {t_ref / t_new:.2f}x; max |score diff| {diff:.1e} ({'identical to 1e-6' if diff <= 1e-6 else 'DIFFERENT'})")
        print(f"means: LPIPS {np.mean(lp_new):.6f}, SSIM {np.mean(ss_new):.6f}")
        if args.skip_memory:
            return
        half = max(2, args.frames // 2)
        r2, c2 = write_clip(tmp / "ref2.mp4", half, False), write_clip(tmp / "cand2.mp4", half, True)
        for child in ("product", "reference"):
            rows = []
            for n, (a, b) in ((half, (r2, c2)), (args.frames, (ref, cand))):
                out = subprocess.run([sys.executable, __file__, "--child", child, "--frames", str(n), "--ref", str(a), "--cand", str(b),
                                      "--wdir", wdir, "--sha", sha, "--device", args.device],
                                     capture_output=True, text=True, check=True)
                m = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append(f"{n} frames {m['peak_rss_mib']:.0f} MiB")
            print(f"peak RSS after the build, {child:9}: " + ", ".join(rows))


if __name__ == "__main__":
    main()
