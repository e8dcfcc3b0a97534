"""
Generate the coverage fixtures: tiny, deterministic MP4 (and one WebM) clips written with PyAV.

Run `python tests/media/make_clips.py DIR` to write every clip of `CLIPS` into
DIR; the tests call `make_all(dir)` into a per-session temporary directory.
The cases follow `shared/docs/media-notes.md` section C1 (24 fps, 32 kHz
stereo AAC, 124 frames = 5.1667 s = 165,333 samples per channel) at 64x48
so a full set is written in about a second. Video and audio content are
functions of the frame/sample index only, and encoders run single-threaded,
so the bytes are the same on every run with the same PyAV/FFmpeg build.

Side effects: writes files into the target directory, nothing else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

__all__ = ["CLIPS", "EXPECTED", "make_all", "write_clip"]

#: What the clips are judged against (media-notes C1).
EXPECTED = {"frames": 124, "fps": "24", "sample_rate": 32000, "channels": 2}
FULL_SAMPLES = 165333  # round(124 / 24 * 32000)
W, H = 64, 48


def _video_frame(i: int, width: int, height: int) -> av.VideoFrame:
    y = np.arange(height, dtype=np.int32)[:, None]
    x = np.arange(width, dtype=np.int32)[None, :]
    planes = [(x * 4 + i * 3) % 256 + 0 * y, (y * 5 + i * 7) % 256 + 0 * x, ((x + y) * 2 + i) % 256]
    rgb = np.stack(planes, axis=-1).astype(np.uint8)
    return av.VideoFrame.from_ndarray(rgb, format="rgb24")


def _audio(n: int, sample_rate: int, channels: int, offset: int = 0, silent: bool = False) -> np.ndarray:
    if silent:
        return np.zeros((channels, n), dtype=np.float32)
    t = (np.arange(n, dtype=np.float64) + offset) / sample_rate
    rows = [0.3 * np.sin(2 * np.pi * (440.0 + 110.0 * c) * t + 0.5 * np.sin(2 * np.pi * 3 * t)) for c in range(channels)]
    return np.asarray(rows, dtype=np.float32)


def write_clip(
    path: Path,
    *,
    frames: int = 124,
    fps: int = 24,
    video_codec: str | None = "libx264",
    video_pts: Iterable[int] | None = None,
    video_time_base: Fraction | None = None,
    audio_codec: str | None = "aac",
    sample_rate: int = 32000,
    channels: int = 2,
    audio_samples: int = FULL_SAMPLES,
    audio_start: int = 0,
    silent: bool = False,
    container_format: str | None = None,
    options: dict[str, str] | None = None,
    tone_offset: int = 0,
    pattern_offset: int = 0,
    width: int = W,
    height: int = H,
) -> Path:
    """
    Write one clip to `path` and return `path`.

    Video (none if `video_codec` is None): `frames` frames of `width`x`height` (default `W`x`H`) at `fps` (pts in units of 1/fps unless
    `video_pts`/`video_time_base` say otherwise; frames whose index is not in
    `video_pts` are not written). Audio (if `audio_codec`): `audio_samples`
    samples per channel at `sample_rate`, first sample at pts `audio_start`
    (in 1/`sample_rate`). `options` are muxer options (`use_editlist`,
    `movflags`). Raises `av.FFmpegError` if an encoder or muxer refuses.
    """
    # bitexact: no random segment UID or writing-application string (Matroska/WebM), so reruns give the same bytes
    with av.open(str(path), "w", format=container_format, options={"fflags": "+bitexact", **(options or {})}) as out:
        vs = out.add_stream(video_codec, rate=fps) if video_codec else None
        tb = video_time_base or Fraction(1, fps)
        if vs is not None:
            vs.width, vs.height, vs.pix_fmt = width, height, "yuv420p"
            vs.codec_context.thread_count = 1
            if video_codec == "libx264":
                vs.codec_context.options = {"preset": "veryfast", "crf": "23"}
            vs.codec_context.time_base = tb
        a_s = None
        if audio_codec:
            a_s = out.add_stream(audio_codec, rate=sample_rate, layout="stereo" if channels == 2 else "mono")
            a_s.codec_context.thread_count = 1
        pts_list = list(video_pts) if video_pts is not None else list(range(frames))
        for k, pts in enumerate(pts_list if vs is not None else []):
            frame = _video_frame(k + pattern_offset, width, height)
            frame.pts = pts
            frame.time_base = tb
            out.mux(vs.encode(frame))
        if vs is not None:
            out.mux(vs.encode(None))
        if a_s is not None:
            size = a_s.codec_context.frame_size or 1024
            fmt = a_s.codec_context.format.name
            pcm = _audio(audio_samples, sample_rate, channels, tone_offset, silent)
            for start in range(0, audio_samples, size):
                chunk = pcm[:, start:start + size]
                if fmt.endswith("p"):
                    frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(chunk.astype(_dtype(fmt))), format=fmt,
                                                       layout=a_s.codec_context.layout.name)
                else:
                    frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(chunk.T.reshape(1, -1).astype(_dtype(fmt))),
                                                       format=fmt, layout=a_s.codec_context.layout.name)
                frame.sample_rate = sample_rate
                frame.pts = audio_start + start
                frame.time_base = Fraction(1, sample_rate)
                out.mux(a_s.encode(frame))
            out.mux(a_s.encode(None))
    return path


def _dtype(fmt: str) -> type:
    return {"flt": np.float32, "fltp": np.float32, "s16": np.int16, "s16p": np.int16, "s32": np.int32, "s32p": np.int32}[fmt]


def _cut(src: Path, dest: Path, fraction: Fraction) -> Path:
    data = src.read_bytes()
    dest.write_bytes(data[: int(len(data) * fraction)])
    return dest


def _gap() -> list[int]:
    return [i for i in range(124) if not 60 <= i <= 71]


def _vfr() -> list[int]:
    # 124 frames on a 1/1000 time base, alternating 40 and 44 ms steps: no constant frame rate.
    pts, t = [], 0
    for i in range(124):
        pts.append(t)
        t += 40 if i % 2 == 0 else 44
    return pts


#: name -> builder(dir) -> path. Names are the ids tests refer to.
CLIPS: dict[str, Callable[[Path], Path]] = {
    "full": lambda d: write_clip(d / "full.mp4"),
    "full_armb": lambda d: write_clip(d / "full_armb.mp4", pattern_offset=50, tone_offset=777),
    "short_audio": lambda d: write_clip(d / "short_audio.mp4", audio_samples=16000),
    "short_audio_armb": lambda d: write_clip(d / "short_audio_armb.mp4", audio_samples=16000, pattern_offset=50),
    "late_audio": lambda d: write_clip(d / "late_audio.mp4", audio_start=32000, audio_samples=FULL_SAMPLES - 32000),
    "shifted_audio": lambda d: write_clip(d / "shifted_audio.mp4", audio_start=16000),
    "drop_tail": lambda d: write_clip(d / "drop_tail.mp4", frames=100),
    "gap": lambda d: write_clip(d / "gap.mp4", video_pts=_gap()),
    "no_audio": lambda d: write_clip(d / "no_audio.mp4", audio_codec=None),
    "no_video": lambda d: write_clip(d / "no_video.mp4", video_codec=None),
    "no_editlist": lambda d: write_clip(d / "no_editlist.mp4", options={"use_editlist": "0"}),
    "src_165888": lambda d: write_clip(d / "src_165888.mp4", audio_samples=165888),
    "mp3": lambda d: write_clip(d / "mp3.mp4", audio_codec="libmp3lame"),
    "mpeg4": lambda d: write_clip(d / "mpeg4.mp4", video_codec="mpeg4"),
    "truncated": lambda d: _cut(write_clip(d / "_faststart.mp4", options={"movflags": "faststart"}), d / "truncated.mp4", Fraction(7, 10)),
    "zero_bytes": lambda d: (d / "zero_bytes.mp4").write_bytes(b"") and d / "zero_bytes.mp4" or d / "zero_bytes.mp4",
    "text": lambda d: (d / "text.mp4").write_text("this is not a video\n" * 40) and d / "text.mp4",
    "vfr": lambda d: write_clip(d / "vfr.mp4", video_pts=_vfr(), video_time_base=Fraction(1, 1000)),
    "absurd_start": lambda d: write_clip(d / "absurd_start.mkv", container_format="matroska",
                                         audio_start=1_700_000_000 * 32000),
    # H-17: VP9 WebM, 48 frames at 24 fps, no audio; the header carries no frame count.
    "h17_webm": lambda d: write_clip(d / "h17_webm.webm", frames=48, video_codec="libvpx-vp9", audio_codec=None,
                                     container_format="webm"),
    # H-18: 10 frames at 30 fps plus 1/3 s (16,000 samples) of silent 48 kHz AAC, no edit list: the
    # untrimmed priming and the B-frame delay make the container read 0.400 s against 0.3333 s expected.
    "h18_noeditlist": lambda d: write_clip(d / "h18_noeditlist.mp4", frames=10, fps=30, sample_rate=48000,
                                           audio_samples=16000, silent=True, options={"use_editlist": "0"}),
}


def make_all(directory: Path, names: Iterable[str] | None = None) -> dict[str, Path]:
    """Write the clips `names` (default: all of `CLIPS`) into `directory`; return name -> path."""
    directory.mkdir(parents=True, exist_ok=True)
    return {name: CLIPS[name](directory) for name in (names or CLIPS)}


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "clips")
    for clip, where in make_all(target).items():
        print(f"{clip}\t{where}")
