#!/usr/bin/env python3
"""
Build the example bundle `examples/ref2va-5s/` deterministically.

A complete campaign bundle in bundle format v1 (`docs/bundle-format.md`),
modelled on the Ref2VA five-second campaign of
`shared/seeds/ref2va-campaign-review.txt`:

- A/B/B/A: servers A1 (baseline), B1, B2 (candidate), A2 (baseline), two
  warmups and three measured requests per server; eight worker processes per
  server, all exiting 0 (32 worker exits);
- per-server means 396.30, 418.24 (baseline) and 106.66, 109.58 (candidate)
  seconds, so the headline is 407.27 s -> 108.12 s, 73.45 % lower, 3.77x.
  THE LATENCIES ARE SYNTHETIC: they are chosen to reproduce the campaign's
  server means, not measured;
- one small real MP4 per request (64x48, 124 frames at 24 fps, MPEG-4 Part 2, plus
  32 kHz stereo AAC), made with PyAV; the candidate's clips are the
  baseline's with deterministic noise added to video and audio;
- 14 quality comparisons whose SSIM and audio spectral cosine are the real
  scores of these clips, computed here with `verifier.scorers` (LPIPS needs the
  AlexNet backbone weights, which are not available offline, so the example's
  gate does not require it).

Usage: `python examples/make_ref2va.py [OUT_DIR]` (default: next to this
script). Needs the `scoring` extra (scikit-image) for SSIM. Running it twice
gives byte-identical files (checked by `tests/test_example.py`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.scorers.audio import spectral_cosine  # noqa: E402
from verifier.scorers.ssim import ssim_frames  # noqa: E402

GATE = "ref2va-5s-v1"
FPS = 24
FRAMES = 124
RATE = 32000
CHANNELS = 2
SAMPLES = round(Fraction(FRAMES, FPS) * RATE)  # 165333 samples per channel
WIDTH, HEIGHT = 64, 48
SERVERS = [("A1", "baseline"), ("B1", "candidate"), ("B2", "candidate"), ("A2", "baseline")]
SERVER_MEANS = {"A1": Decimal("396.30"), "A2": Decimal("418.24"), "B1": Decimal("106.66"), "B2": Decimal("109.58")}
SPREAD = Decimal("1.20")  # measured values are mean - SPREAD, mean, mean + SPREAD
WARMUP_FACTOR = Decimal("1.25")
WORKERS_PER_SERVER = 8
T0 = datetime(2026, 10, 1, 8, 0, 0, tzinfo=timezone.utc)
GAP = timedelta(seconds=5)
AUDIO_LENGTH_TOLERANCE = 1023  # samples; the gate's stft_mag_cosine_v1 length tolerance


def _ts(t: datetime) -> str:
    return t.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _frames(prompt: int, candidate: bool) -> list[np.ndarray]:
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    out = []
    for i in range(FRAMES):
        r = 128 + 100 * np.sin(x / 3.0 + i / 5 + prompt) * np.cos(y / 4.0)
        g = 128 + 100 * np.sin((x + y) / 5.0 - i / 7 + prompt / 2)
        b = 128 + 90 * np.cos(x / 6.0 - y / 3.0 + i / 9)
        frame = np.stack([r, g, b], axis=-1)
        if candidate:  # a smooth, frame-varying deviation, as a lossy cache would leave
            frame = frame + 8 * np.sin(x / 5 + y / 7 + i / 6)[..., None]
        out.append(np.clip(np.round(frame), 0, 255).astype(np.uint8))
    return out


def _audio(prompt: int, candidate: bool) -> np.ndarray:
    t = np.arange(SAMPLES) / RATE
    f0 = 220.0 * (1 + prompt / 8)
    left = 0.3 * np.sin(2 * np.pi * f0 * t) + 0.1 * np.sin(2 * np.pi * 3 * f0 * t) * (1 + np.sin(2 * np.pi * 0.5 * t))
    right = 0.3 * np.sin(2 * np.pi * f0 * 1.5 * t + 0.3)
    pcm = np.stack([left, right]).astype(np.float32)
    if candidate:
        pcm = pcm + np.random.default_rng(3000 + prompt).normal(0, 0.02, size=pcm.shape).astype(np.float32)
    return pcm


def write_clip(path: Path, frames: list[np.ndarray], pcm: np.ndarray) -> None:
    """Write an MP4 with one H.264 video stream and one AAC stereo stream (deterministic: one thread, fixed options)."""
    with av.open(str(path), "w", format="mp4", options={"movflags": "+faststart"}) as out:
        # MPEG-4 Part 2: libx264 through PyAV 18 gave different bytes run to run when an
        # audio stream was present (seen here, cause not found); mpeg4 output is reproducible.
        video = out.add_stream("mpeg4", rate=FPS)
        video.codec_context.bit_rate = 150_000
        video.width, video.height, video.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        video.codec_context.thread_count = 1
        audio = out.add_stream("aac", rate=RATE, layout="stereo")
        audio.codec_context.bit_rate = 48000
        for index, frame in enumerate(frames):
            vframe = av.VideoFrame.from_ndarray(frame, format="rgb24")
            vframe.pts = index
            vframe.time_base = Fraction(1, FPS)
            for packet in video.encode(vframe):
                out.mux(packet)
        for packet in video.encode():
            out.mux(packet)
        step = 1024
        for start in range(0, pcm.shape[1], step):
            chunk = np.ascontiguousarray(pcm[:, start:start + step])
            aframe = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="stereo")
            aframe.sample_rate = RATE
            aframe.pts = start
            for packet in audio.encode(aframe):
                out.mux(packet)
        for packet in audio.encode():
            out.mux(packet)


def decode(path: Path) -> tuple[list[np.ndarray], np.ndarray]:
    """Return (rgb24 frames, PCM (channels, SAMPLES)) of a clip; the PCM is trimmed to the source's exact sample count."""
    frames, chunks = [], []
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            frames.append(frame.to_ndarray(format="rgb24"))
    with av.open(str(path)) as container:
        for frame in container.decode(audio=0):
            chunks.append(frame.to_ndarray())
    pcm = np.concatenate(chunks, axis=1)[:, :SAMPLES]
    return frames, pcm


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _dump(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def build(out: Path) -> None:
    """Write the whole bundle into `out` (replaced if it exists)."""
    if out.exists():
        shutil.rmtree(out)
    (out / "media").mkdir(parents=True)
    arms = [
        {"id": "baseline", "label": "A", "role": "baseline", "revision": "c7f56f0155953c7d4a77276a2f4fcbd844ab0da2"},
        {"id": "candidate", "label": "B", "role": "candidate", "revision": "098b51f6b96dd160a0959e74e8822422527ff06d"},
    ]
    requests, receipts = [], []
    clock = T0
    clips: dict[str, Path] = {}
    for server, arm in SERVERS:
        mean = SERVER_MEANS[server]
        measured = [mean - SPREAD, mean, mean + SPREAD]
        warmups = [(mean * WARMUP_FACTOR).quantize(Decimal("0.01")), (mean * WARMUP_FACTOR + 3).quantize(Decimal("0.01"))]
        plan_rows = [("warmup", i + 1, v) for i, v in enumerate(warmups)] + [("measured", i + 1, v) for i, v in enumerate(measured)]
        worker_start = clock - timedelta(seconds=60)
        for prompt, (phase, n, elapsed) in enumerate(plan_rows, start=1):
            rid = f"{server}-{'w' if phase == 'warmup' else 'm'}{n}"
            requests.append({"id": rid, "server": server, "phase": phase, "prompt": f"ref2va-prompt-{prompt:02d}"})
            clip = out / "media" / f"{rid}.mp4"
            write_clip(clip, _frames(prompt, arm == "candidate"), _audio(prompt, arm == "candidate"))
            clips[rid] = clip
            start = clock
            end = start + timedelta(microseconds=int(elapsed * 1_000_000))
            receipts.append({
                "kind": "request", "request_id": rid, "arm": arm, "server": server, "phase": phase,
                "started_at": _ts(start), "ended_at": _ts(end), "elapsed_s": elapsed, "outcome": "ok",
                "http_status": 200, "error": None,
                "outputs": [{"path": f"media/{rid}.mp4", "sha256": _sha(clip)}],
            })
            clock = end + GAP
        for w in range(WORKERS_PER_SERVER):
            receipts.append({
                "kind": "worker", "worker_id": f"{server}-worker{w}", "arm": arm, "server": server,
                "pid": 4100 + 10 * len(receipts) + w, "started_at": _ts(worker_start), "ended_at": _ts(clock),
                "exit_code": 0, "signal": None,
            })
        clock += timedelta(minutes=10)

    plan = {
        "format": "verify-plan", "format_version": 1, "campaign": "ref2va-5s-example", "frozen_at": _ts(T0 - timedelta(days=1)),
        "arms": arms, "servers": [{"id": s, "arm": a} for s, a in SERVERS], "arm_order": ["A", "B", "B", "A"],
        "warmups_per_server": 2, "measured_per_server": 3, "requests": requests,
        "expected_output": {"frames": FRAMES, "fps": str(FPS), "sample_rate": RATE, "channels": CHANNELS, "width": WIDTH, "height": HEIGHT},
        "timeouts": {"request_s": 900},
        "notes": "Example bundle: latencies are synthetic (chosen to reproduce the campaign's server means); media and quality scores are real.",
    }

    pairs = [(f"B1-m{i}", f"A1-m{i}") for i in (1, 2, 3)] + [(f"B2-m{i}", f"A2-m{i}") for i in (1, 2, 3)]
    pairs += [(f"B1-w{i}", f"A1-w{i}") for i in (1, 2)] + [(f"B2-w{i}", f"A2-w{i}") for i in (1, 2)]
    pairs += [(f"B2-m{i}", f"B1-m{i}") for i in (1, 2, 3)] + [("B2-w1", "B1-w1")]
    comparisons = []
    decoded = {rid: decode(path) for rid, path in clips.items()}
    for n, (cand, ref) in enumerate(pairs, start=1):
        (fc, ac), (fr, ar) = decoded[cand], decoded[ref]
        ssim, _ = ssim_frames(zip(fr, fc, strict=True))
        cosine = spectral_cosine(ar, ac, rate_x=RATE, rate_y=RATE)
        comparisons.append({
            "id": f"c{n:02d}", "reference": f"media/{ref}.mp4", "candidate": f"media/{cand}.mp4",
            "scores": {"ssim": Decimal(f"{ssim:.6f}"), "audio_cosine": Decimal(f"{cosine:.6f}")},
        })
    import skimage

    from verifier.scorers.audio import PARAMETERS as AUDIO_PARAMETERS
    from verifier.scorers.ssim import ID as SSIM_ID
    from verifier.scorers.ssim import PARAMETERS as SSIM_PARAMETERS

    quality = {
        "format": "verify-quality-index", "format_version": 1,
        # The identity of each scorer used above; the gate pins the same (quality.recorded compares them).
        "scorers": {
            "ssim": {"id": SSIM_ID, "weights": [],
                     "versions": {"scikit-image": skimage.__version__, "numpy": np.__version__, "av": av.__version__},
                     "parameters": SSIM_PARAMETERS},
            "audio_cosine": {"id": "stft_mag_cosine_v1", "weights": [],
                             "versions": {"numpy": np.__version__, "av": av.__version__},
                             "parameters": {**AUDIO_PARAMETERS, "length_tolerance_samples": AUDIO_LENGTH_TOLERANCE}},
        },
        "comparisons": comparisons,
    }
    base = [SERVER_MEANS["A1"], SERVER_MEANS["A2"]]
    cand = [SERVER_MEANS["B1"], SERVER_MEANS["B2"]]
    claims = {
        "format": "verify-claims", "format_version": 1,
        "headline": "407.27 s -> 108.12 s HTTP E2E, 73.45 % lower (3.77x inverse-latency speedup)",
        "claims": [
            *({"id": f"server_mean_s.{s}", "value": SERVER_MEANS[s], "unit": "s"} for s, _ in SERVERS),
            {"id": "arm_mean_s.baseline", "value": Decimal("407.27"), "unit": "s"},
            {"id": "arm_mean_s.candidate", "value": Decimal("108.12"), "unit": "s"},
            {"id": "reduction_pct", "value": Decimal("73.45"), "unit": "%"},
            {"id": "speedup_x", "value": Decimal("3.77"), "unit": "x"},
            {"id": "sd_server_means_s.baseline", "value": Decimal("15.51"), "unit": "s"},
            {"id": "sd_server_means_s.candidate", "value": Decimal("2.06"), "unit": "s"},
            {"id": "count.requests", "value": len(requests)},
            {"id": "count.measured_requests", "value": sum(1 for r in requests if r["phase"] == "measured")},
            {"id": "count.comparisons", "value": len(comparisons)},
            {"id": "count.worker_exits", "value": WORKERS_PER_SERVER * len(SERVERS)},
        ],
    }
    del base, cand
    (out / "README.md").write_text(README, encoding="utf-8")
    _dump_decimal(out / "plan.json", plan)
    (out / "receipts.jsonl").write_text("".join(_encode(r, None) + "\n" for r in receipts), encoding="utf-8")
    _dump_decimal(out / "claims.json", claims)
    _dump_decimal(out / "quality-index.json", quality)
    write_manifest(out, GATE)


#: The bundle's README: every number in it is bound to the evidence by `verify` (check `claims.stated`, docs/claims.md).
README = """\
# Ref2VA five-second campaign (example bundle)

Headline: 407.27 s -> 108.12 s mean HTTP E2E latency, 73.45 % lower (3.77x inverse-latency speedup).

The A/B/B/A campaign ran 2 servers per arm, with 2 warmups and 3 measured requests per server:
20 requests in all, 12 measured requests. All 14 quality comparisons pass the gate, and all
32 worker exits are clean.

| Arm | Mean E2E latency (s) | Sample SD across server means (s) |
|---|---:|---:|
| baseline | 407.27 | 15.51 |
| candidate | 108.12 | 2.06 |

Server means: A1 396.30 s, A2 418.24 s, B1 106.66 s, B2 109.58 s.

The lowest audio cosine is 0.977337 against the 0.80 gate; the lowest SSIM is 0.991703 against
the 0.97 gate. Each output has 124 frames at 24 fps.

The latencies are synthetic (chosen to reproduce the campaign's server means); the media and
their scores are real. Baseline revision `c7f56f0155953c7d4a77276a2f4fcbd844ab0da2`, candidate
revision `098b51f6b96dd160a0959e74e8822422527ff06d`.
"""


def _encode(value: object, indent: int | None) -> str:
    """Return JSON text with `Decimal` written exactly as stated (`396.30` keeps two places)."""
    marker = {}

    def default(obj: object) -> object:
        if isinstance(obj, Decimal):
            key = f"@@dec{len(marker)}@@"
            marker[key] = str(obj)
            return key
        raise TypeError(type(obj))

    text = json.dumps(value, indent=indent, ensure_ascii=False, default=default)
    for key, literal in marker.items():
        text = text.replace(f'"{key}"', literal)
    return text


def _dump_decimal(path: Path, value: object) -> None:
    path.write_text(_encode(value, 2) + "\n", encoding="utf-8")


def write_manifest(bundle: Path, gate: str, external: list[dict[str, object]] | None = None) -> None:
    """Write `bundle/manifest.json` listing every other file with its sha256 and size."""
    files = sorted(p for p in bundle.rglob("*") if p.is_file() and p.name != "manifest.json")
    manifest = {
        "format": "verify-bundle", "format_version": 1, "gate": gate,
        "description": "Example Ref2VA 5 s campaign bundle (synthetic latencies, real media and scores); built by examples/make_ref2va.py",
        "files": [{"path": p.relative_to(bundle).as_posix(), "sha256": _sha(p), "size": p.stat().st_size} for p in files],
        "external": external or [],
    }
    _dump(bundle / "manifest.json", manifest)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "ref2va-5s"
    build(target)
    print(f"wrote {target}")
