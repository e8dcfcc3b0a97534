"""
Coverage: every output media file spans the plan's expected timeline, per stream.

Each file is judged on its own against the expected frame count N, frame rate
and audio format the plan declares, never against the other arm (two arms
that carry the same truncated 0.5 s track agree with each other). The file is
demuxed with PyAV and nothing is decoded; all times are exact
`fractions.Fraction` seconds built from integer timestamps and time bases.
The measured facts these rules rest on are in
`shared/docs/media-notes.md` section C (rule ids in brackets are its C5 table,
plus A5, a gap check for audio that mirrors V2):

- [S1] exactly one video stream and the expected audio streams (one, or none
  when no audio is expected; other stream types are not judged), container
  and codecs on the gate's allowlists, `average_rate == fps`, `sample_rate`
  and channel count as planned;
- [X1] no packet flagged corrupt; [X2] the header frame count of each stream
  equals the demuxed packet count (a header count of 0 means "unknown", H-17);
- [V1] exactly N video packets; [V2] video timestamps on the constant step
  1/fps (each within less than one tick of `start + i/fps`, so a coarse time
  base such as WebM's 1/1000 passes and a gap or duplicate does not; checked
  while demuxing over a small reorder window, so memory stays constant);
  [V3] start within the gate's tolerance (half a frame) of 0; [V4] end (last
  pts plus its duration) within half a frame of N/fps;
- [A1]/[A2] audio start = first pts (in time-base ticks) + skip-samples side
  data (in samples, divided by the sample rate) no later than
  one codec frame and no earlier than the largest standard priming;
  [A3]/[A4] audio end = last pts + last duration - discard (samples) no shorter than one
  codec frame and no longer than priming plus one frame, against N/fps;
  [A5] audio packets are contiguous (each starts where the previous ended,
  within one tick when the time base is coarser than a sample, as in Matroska).
  Tolerances are samples per codec in the gate, divided by the sample rate.
  Unlike the C5 sketch, A1-A4 measure from the expected 0 and N/fps, not from
  the observed video start and end, so a short video does not excuse (or
  fail) its audio: each stream is judged on its own;
- [C1] across arms: the same audio payload (sha256 of the audio packets) in
  two arms whose video payloads differ is reported; the gate decides FAIL;
- [X3] `decode_errors` (used where a full decode is run anyway, e.g.
  `verify media --decode`) FAILs a file whose decoder raises.

Work per file is bounded by the gate's `limits` (bytes, packets, seconds) so
an absurd file ends in a FAIL, not a hang. Inputs are hostile: only the
gate's container formats are probed, and FFmpeg may not open any other file
or URL on the input's behalf (HLS or concat playlists named `.mp4`).
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import math
import os
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError, Unverifiable
from verifier.bundle import open_regular
from verifier.model import Finding, Status
from verifier.pipeline import Context, check

__all__ = [
    "DEFAULT_POLICY",
    "AudioCodecRule",
    "audio_span",
    "declared_mp4_samples",
    "open_media",
    "Expectation",
    "MediaFacts",
    "Policy",
    "cross_arm",
    "decode_errors",
    "judge",
    "policy_from_gate",
    "probe",
    "streams",
]

CHECK = "coverage.streams"
DECODE_CHECK = "coverage.decode"


# --------------------------------------------------------------------------- expectations and policy


@dataclass(frozen=True, slots=True)
class Expectation:
    """
    Represents the expected timeline of one output file.

    `frames` is N (video frames), `fps` the exact frame rate, `sample_rate`
    (Hz) and `channels` the audio format; `sample_rate is None` means the file
    must carry no audio stream. The expected span is [0, N/fps] seconds.
    """

    frames: int
    fps: Fraction
    sample_rate: int | None
    channels: int | None

    @property
    def duration(self) -> Fraction:
        """Return N/fps in exact seconds."""
        return self.frames / self.fps

    @classmethod
    def from_plan(cls, expected_output: dict[str, Any]) -> Expectation:
        """Return the expectation of a schema-valid plan `expected_output` object (fps like "24" or "30000/1001")."""
        return cls(frames=int(expected_output["frames"]), fps=Fraction(expected_output["fps"]),
                   sample_rate=int(expected_output["sample_rate"]), channels=int(expected_output["channels"]))

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form shown in findings (`fps` as an exact fraction string)."""
        return {"frames": self.frames, "fps": str(self.fps), "sample_rate": self.sample_rate, "channels": self.channels}


@dataclass(frozen=True, slots=True)
class AudioCodecRule:
    """
    Represents the tolerances of one admitted audio codec, all in samples per channel.

    `frame_samples` is the codec frame; `late_start` / `early_start` bound the
    audio start after / before 0, `short_end` / `long_end` its end before /
    after N/fps. `profiles`, when set, lists the admitted codec profiles (the
    tolerances of AAC-LC do not hold for HE-AAC, whose output frames are 2048).
    """

    frame_samples: int
    late_start: int
    early_start: int
    short_end: int
    long_end: int
    profiles: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    """
    Represents how coverage is judged: allowlists, tolerances and work limits (the gate's `coverage` section).

    `containers` are FFmpeg demuxer names as PyAV reports them
    (`container.format.name`); `video_codecs` and the keys of `audio_codecs`
    are FFmpeg codec names (`codec.canonical_name`). `video_start_frames` and
    `video_end_frames` are tolerances in frames. `identical_audio` is "fail"
    or "allow". Limits: `max_file_bytes`, `max_packets_factor` (a file may
    hold at most this many times its expected packet count, plus 16),
    `max_seconds` of wall time per file.
    """

    containers: tuple[str, ...]
    video_codecs: tuple[str, ...]
    audio_codecs: dict[str, AudioCodecRule]
    video_start_frames: Fraction = Fraction(1, 2)
    video_end_frames: Fraction = Fraction(1, 2)
    identical_audio: str = "fail"
    max_file_bytes: int = 256 * 1024 * 1024
    max_packets_factor: int = 4
    max_seconds: float = 20.0


def policy_from_gate(section: dict[str, Any]) -> Policy:
    """
    Return the `Policy` of a gate's `coverage` section (schema-valid, see `schemas/gate.schema.json`).

    Raises `ConfigError` when a tolerance is not a valid fraction.
    """
    try:
        video, audio, limits = section["video"], section["audio"], section.get("limits", {})
        rules = {
            name: AudioCodecRule(
                frame_samples=r["frame_samples"], late_start=r["late_start_samples"], early_start=r["early_start_samples"],
                short_end=r["short_end_samples"], long_end=r["long_end_samples"],
                profiles=tuple(r["profiles"]) if "profiles" in r else None)
            for name, r in audio["codecs"].items()
        }
        return Policy(
            containers=tuple(section["containers"]),
            video_codecs=tuple(video["codecs"]),
            audio_codecs=rules,
            video_start_frames=Fraction(video["start_tolerance_frames"]),
            video_end_frames=Fraction(video["end_tolerance_frames"]),
            identical_audio=section["identical_audio_across_arms"],
            max_file_bytes=limits.get("max_file_bytes", Policy.max_file_bytes),
            max_packets_factor=limits.get("max_packets_factor", Policy.max_packets_factor),
            max_seconds=limits.get("max_seconds", Policy.max_seconds),
        )
    except (KeyError, ValueError, ZeroDivisionError) as exc:
        raise ConfigError(f"gate coverage section is unusable: {exc!r}") from None


#: The policy of `verify media` without `--gate`: the same numbers as the
#: shipped gate `ref2va-5s-v1` (a test holds them equal), plus MP3 and the
#: Matroska/WebM demuxer so single clips of other producers can be checked
#: once their codecs are admitted on the command line.
AAC_LC = AudioCodecRule(frame_samples=1024, late_start=1024, early_start=2112, short_end=1024, long_end=2112 + 1024,
                        profiles=("LC",))
MP3 = AudioCodecRule(frame_samples=1152, late_start=1152, early_start=1105, short_end=1152, long_end=1105 + 1152)
DEFAULT_POLICY = Policy(
    containers=("mov,mp4,m4a,3gp,3g2,mj2",),
    video_codecs=("h264", "mpeg4"),
    audio_codecs={"aac": AAC_LC},
)
KNOWN_AUDIO_RULES = {"aac": AAC_LC, "mp3": MP3}
KNOWN_CONTAINERS = ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm")


# --------------------------------------------------------------------------- demux


#: Packets held to put decode order back into presentation order. H.264 reorders at most 16
#: frames (max_num_reorder_frames), so 32 is enough; memory stays constant in clip length.
REORDER_WINDOW = 32


@dataclass
class VideoFacts:
    """
    Represents what demuxing observed of the first video stream (timestamps in ticks of `time_base`).

    `step` is the expected ticks per frame (1/(fps*time_base), exact). The
    [V2] constant-step check runs while demuxing over a `REORDER_WINDOW`
    min-heap, so memory does not grow with the clip; `step_problem` holds
    the first departure found (None if none).
    """

    index: int
    codec: str
    time_base: Fraction
    average_rate: Fraction | None
    header_frames: int
    step: Fraction
    packets: int = 0  # packets with a pts
    min_pts: int | None = None
    max_pts: int | None = None
    last_duration: int | None = None  # duration of the packet with the largest pts
    corrupt: int = 0
    missing_pts: int = 0
    step_problem: str | None = None
    sha256: Any = field(default_factory=hashlib.sha256)
    _heap: list[int] = field(default_factory=list)
    _emitted: int = 0
    _first: int = 0
    _prev: int | None = None

    def add(self, pts: int, duration: int | None) -> None:
        """Record one packet's `pts` and `duration` (ticks), in decode order."""
        self.packets += 1
        if self.min_pts is None or pts < self.min_pts:
            self.min_pts = pts
        if self.max_pts is None or pts > self.max_pts:
            self.max_pts, self.last_duration = pts, duration
        heapq.heappush(self._heap, pts)
        if len(self._heap) > REORDER_WINDOW:
            self._emit(heapq.heappop(self._heap))

    def finish(self) -> None:
        """Run the step check over the packets still held (call once, after the last packet)."""
        while self._heap:
            self._emit(heapq.heappop(self._heap))

    def _emit(self, pts: int) -> None:
        # V2: the k-th pts in presentation order must lie within less than one tick of first + k*step.
        # With a time base that divides the frame step (1/12288 at 24 fps: 512 ticks) that is "equal".
        k = self._emitted
        self._emitted += 1
        if k == 0:
            self._first = pts
        elif self.step_problem is None and self._prev is not None and pts < self._prev:
            self.step_problem = f"pts {pts} arrives more than {REORDER_WINDOW} frames out of order"
        elif self.step_problem is None and abs(pts - self._first - k * self.step) >= 1:
            self.step_problem = (f"frame {k} at pts {pts} ({_s(pts * self.time_base)}); the previous is at pts "
                                 f"{self._prev}, a step of {pts - (self._prev or 0)} ticks")
        self._prev = pts


@dataclass
class AudioFacts:
    """Represents what demuxing observed of the first audio stream (timestamps in ticks of `time_base`)."""

    index: int
    codec: str
    profile: str | None
    time_base: Fraction
    sample_rate: int
    channels: int
    header_frames: int
    packets: int = 0
    first_pts: int | None = None
    skip: int = 0  # sum of skip_start over the leading packets carrying SKIP_SAMPLES side data
    leading: bool = True  # still within the leading run of packets carrying skip side data
    last_pts: int | None = None
    last_duration: int | None = None
    discard: int = 0  # discard_end of the last packet
    gaps: list[tuple[int, int]] = field(default_factory=list)  # (expected pts, observed pts), first few
    unknown_duration: int = 0
    corrupt: int = 0
    missing_pts: int = 0
    sha256: Any = field(default_factory=hashlib.sha256)


@dataclass
class MediaFacts:
    """
    Represents one demuxed file: container format, stream counts, and the facts of its first video/audio stream.

    `problems` holds (rule, code, message) triples found while reading (work
    limits reached, demuxer errors mid-file); `size` is the file size in bytes.
    """

    name: str
    size: int
    format: str | None = None
    n_video: int = 0
    n_audio: int = 0
    video: VideoFacts | None = None
    audio: AudioFacts | None = None
    problems: list[tuple[str, str, str]] = field(default_factory=list)


class MediaUnreadable(Exception):
    """Raised by `probe` when the file cannot be read as media at all; `code` is the finding code."""

    def __init__(self, message: str, code: str = "media-unreadable") -> None:
        super().__init__(message)
        self.code = code


def _refuse_nested_open(url: str, flags: int, options: dict[str, Any]) -> Any:
    # FFmpeg asks for this when a demuxer wants a second file (HLS, concat, DASH, mov
    # references): evidence may not make us read anything but itself.
    raise PermissionError(f"refused to open {url!r} on behalf of the input")


def probe(path: Path, name: str, expectation: Expectation, policy: Policy) -> MediaFacts:
    """
    Demux the file at `path` (no decoding) and return its `MediaFacts`.

    `name` is how findings name the file (bundle-relative or as given).
    Reading stops at the policy's limits: `max_file_bytes` before opening;
    `max_packets_factor` times the expected packet count (N video packets
    plus N/fps*sr/1024 audio packets) plus 16; `max_seconds` of wall time.
    A limit reached or a demuxer error mid-file is recorded in `problems`.
    Raises `MediaUnreadable` when the file is not a regular file, is over the
    size limit, or cannot be opened as one of the policy's containers.
    Side effects: opens and reads the file (read-only, `O_NOFOLLOW`), runs
    FFmpeg's demuxer.
    """
    sr = expectation.sample_rate or 0
    expected_packets = expectation.frames + math.ceil(expectation.duration * sr / 1024)
    # The demux loop stops at `max_packets_factor` x the expected packets; this bound only keeps FFmpeg from
    # building an index for an absurd sample table (millions of entries) before that loop can run.
    index_limit = max(64 * (policy.max_packets_factor * expected_packets + 16), 1_000_000)
    with open_media(path, policy, max_samples=index_limit) as (container, size):
        facts = MediaFacts(name=name, size=size)
        _demux(container, facts, expectation, policy)
        return facts


_CONTAINER_BOXES = (b"moov", b"trak", b"mdia", b"minf", b"stbl")
MAX_BOXES = 100_000  # far above any real MP4's header; FFmpeg would parse every one of them, slowly


def declared_mp4_samples(handle: Any, size: int) -> int | None:
    """
    Return the number of samples an ISO BMFF (MP4/MOV) file's sample tables declare, or None if it is not one.

    Walks box headers only (ISO/IEC 14496-12 section 4.2: 32-bit size, or 1
    then a 64-bit size; 0 = to the end), descending moov/trak/mdia/minf/stbl,
    and sums `sample_count` of every `stsz` and `stz2` box (sections 8.7.3.2
    and 8.7.3.3). Reads a few bytes per box, whatever the table sizes, so a
    file whose 4 KB header claims 50 million samples is caught before FFmpeg
    builds an index for them. Leaves the handle's position at 0. Raises
    `ValueError` past `MAX_BOXES` boxes (a header built to exhaust the demuxer).
    """
    total, found = 0, False
    stack = [(0, size)]
    seen = 0
    while stack:
        start, end = stack.pop()
        offset = start
        while offset + 8 <= end:
            seen += 1
            if seen > MAX_BOXES:
                raise ValueError(f"more than {MAX_BOXES} boxes before the sample tables")
            handle.seek(offset)
            head = handle.read(16)
            if len(head) < 8:
                break
            box_size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            header = 8
            if box_size == 1 and len(head) >= 16:
                box_size, header = int.from_bytes(head[8:16], "big"), 16
            elif box_size == 0:
                box_size = end - offset
            if box_size < header or offset + box_size > end:
                break
            if kind in _CONTAINER_BOXES:
                stack.append((offset + header, offset + box_size))
                found = found or kind == b"moov"
            elif kind in (b"stsz", b"stz2") and box_size >= header + 12:
                handle.seek(offset + header)
                body = handle.read(12)
                total += int.from_bytes(body[8:12], "big")
            offset += box_size
    handle.seek(0)
    return total if found else None



@contextlib.contextmanager
def open_media(path: Path, policy: Policy, max_samples: int | None = None) -> Iterator[tuple[Any, int]]:
    """
    Yield `(container, size)` for `path` opened read-only under the policy's container allowlist; raise `MediaUnreadable`.

    With `max_samples`, an MP4/MOV whose sample tables declare more samples
    is refused (`work-limit`) before FFmpeg opens it (`declared_mp4_samples`).
    """
    import av  # PyAV is a heavy import; only media checks need it

    if not os.path.lexists(path):
        raise MediaUnreadable("cannot be opened: No such file or directory")
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise MediaUnreadable("is not a regular file")
    try:
        fd = open_regular(path)  # O_NONBLOCK open: a FIFO swapped in after the lstat cannot hang it
    except OSError as exc:
        raise MediaUnreadable(f"cannot be opened: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    with os.fdopen(fd, "rb") as handle:
        if st.st_size == 0:
            raise MediaUnreadable("is empty (0 bytes), so it holds no streams")
        if st.st_size > policy.max_file_bytes:
            raise MediaUnreadable(f"has {st.st_size} bytes, over the gate's limit of {policy.max_file_bytes}",
                                  code="work-limit")
        try:
            declared = declared_mp4_samples(handle, st.st_size) if max_samples is not None else None
        except ValueError as exc:
            raise MediaUnreadable(f"{exc}; not opened", code="work-limit") from None
        if declared is not None and declared > max_samples:
            raise MediaUnreadable(f"its sample tables declare {declared} samples, over the limit of {max_samples} "
                                  f"for the expected clip; not opened", code="work-limit")
        try:
            container = av.open(handle, "r", io_open=_refuse_nested_open,
                                container_options={"format_whitelist": ",".join(policy.containers),
                                                   "protocol_whitelist": "file"})
        except av.FFmpegError as exc:
            allowed = " or ".join(policy.containers)
            raise MediaUnreadable(f"cannot be read as {allowed}: {exc.strerror or exc}") from None
        with container:
            yield container, st.st_size


def _demux(container: Any, facts: MediaFacts, expectation: Expectation, policy: Policy) -> None:
    import av

    facts.format = container.format.name
    videos, audios = list(container.streams.video), list(container.streams.audio)
    facts.n_video, facts.n_audio = len(videos), len(audios)
    chosen = []
    if videos:
        s = videos[0]
        time_base = Fraction(s.time_base)
        facts.video = VideoFacts(index=s.index, codec=_codec_name(s), time_base=time_base,
                                 average_rate=Fraction(s.average_rate) if s.average_rate else None,
                                 header_frames=int(s.frames or 0), step=1 / (expectation.fps * time_base))
        chosen.append(s)
    if audios:
        s = audios[0]
        cc = s.codec_context
        facts.audio = AudioFacts(index=s.index, codec=_codec_name(s), profile=cc.profile, time_base=Fraction(s.time_base),
                                 sample_rate=int(cc.sample_rate or 0), channels=int(cc.channels or 0),
                                 header_frames=int(s.frames or 0))
        chosen.append(s)
    if not chosen:
        return
    sr = expectation.sample_rate or 0
    expected_packets = expectation.frames + math.ceil(expectation.duration * sr / 1024)
    budget = policy.max_packets_factor * expected_packets + 16
    deadline = time.monotonic() + policy.max_seconds
    seen = 0
    try:
        for packet in container.demux(chosen):
            if packet.size == 0:
                continue  # demuxer flush packets carry no data
            seen += 1
            if seen > budget:
                facts.problems.append(("limit", "work-limit",
                                       f"holds more than {budget} packets ({policy.max_packets_factor}x the "
                                       f"{expected_packets} expected, plus 16); reading stopped there"))
                break
            if seen % 256 == 0 and time.monotonic() > deadline:
                facts.problems.append(("limit", "work-limit",
                                       f"demuxing took longer than the gate's {policy.max_seconds} s; reading stopped "
                                       f"after {seen} packets"))
                break
            v, a = facts.video, facts.audio
            if v is not None and packet.stream_index == v.index:
                v.corrupt += bool(packet.is_corrupt)
                v.sha256.update(bytes(packet))
                if packet.pts is None:
                    v.missing_pts += 1
                    continue
                v.add(packet.pts, packet.duration)
            elif a is not None and packet.stream_index == a.index:
                _audio_packet(a, packet)
    except av.FFmpegError as exc:
        facts.problems.append(("X1", "demux-error", f"the demuxer failed mid-file: {exc.strerror or exc}"))
    if facts.video is not None:
        facts.video.finish()


def _audio_packet(a: AudioFacts, packet: Any) -> None:
    a.corrupt += bool(packet.is_corrupt)
    a.sha256.update(bytes(packet))
    a.packets += 1
    skip = discard = 0
    has_skip = False
    for sd in packet.iter_sidedata():
        if sd.data_type == "skip_samples":
            data = bytes(memoryview(sd))
            if len(data) >= 8:
                has_skip = True
                skip = int.from_bytes(data[0:4], "little")
                discard = int.from_bytes(data[4:8], "little")
    if packet.pts is None:
        a.missing_pts += 1
        return
    if a.leading and has_skip:
        a.skip += skip
    else:
        a.leading = False
    if a.first_pts is None:
        a.first_pts = packet.pts
    elif a.last_pts is not None and a.last_duration and abs(packet.pts - a.last_pts - a.last_duration) > _slack(a) and len(a.gaps) < 5:
        a.gaps.append((a.last_pts + a.last_duration, packet.pts))
    if not packet.duration:
        a.unknown_duration += 1
    a.last_pts, a.last_duration, a.discard = packet.pts, packet.duration, discard


def _codec_name(stream: Any) -> str:
    codec = stream.codec_context.codec
    return str(getattr(codec, "canonical_name", None) or codec.name)


# --------------------------------------------------------------------------- judging


def _s(t: Fraction | None) -> str:
    """Return exact seconds as a 3-decimal string for messages (the finding carries the exact fraction)."""
    return "?" if t is None else f"{float(t):.3f} s"


def _ms(t: Fraction) -> str:
    return f"{float(t) * 1000:.1f} ms"


def _timeline(facts: MediaFacts, exp: Expectation) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (expected, observed) per stream: start, end (exact seconds), frames / samples per channel."""
    expected: dict[str, Any] = {"video": {"start": Fraction(0), "end": exp.duration, "frames": exp.frames}}
    if exp.sample_rate:
        expected["audio"] = {"start": Fraction(0), "end": exp.duration, "samples": exp.duration * exp.sample_rate,
                             "sample_rate": exp.sample_rate, "channels": exp.channels}
    observed: dict[str, Any] = {}
    v = facts.video
    if v is not None:
        start, end = _video_span(v)
        observed["video"] = {"codec": v.codec, "start": start, "end": end, "frames": v.packets + v.missing_pts,
                             "average_rate": v.average_rate}
    a = facts.audio
    if a is not None:
        start, end = audio_span(a)
        samples = (end - start) * a.sample_rate if start is not None and end is not None and a.sample_rate else None
        observed["audio"] = {"codec": a.codec, "start": start, "end": end, "samples": samples,
                             "sample_rate": a.sample_rate, "channels": a.channels}
    return expected, observed


def _video_span(v: VideoFacts) -> tuple[Fraction | None, Fraction | None]:
    if v.min_pts is None or v.max_pts is None:
        return None, None
    start = v.min_pts * v.time_base
    end = (v.max_pts + v.last_duration) * v.time_base if v.last_duration else None
    return start, end


def _slack(a: AudioFacts) -> int:
    """
    Return the ticks by which contiguous audio packets may miss each other: 0, or 1 in a time base coarser than a sample.

    In Matroska/WebM (1/1000 s) a 1024-sample frame at 48 kHz lasts 21.33 ms:
    each pts and duration is rounded to a whole tick, so pts[k+1] - pts[k] -
    duration[k] is a sum of three roundings of at most half a tick, i.e. at
    most one tick. A missing frame is far more than one tick.
    """
    return 1 if a.sample_rate and a.time_base > Fraction(1, a.sample_rate) else 0


def audio_span(a: AudioFacts) -> tuple[Fraction | None, Fraction | None]:
    """
    Return the exact audio `(start, end)` in seconds, or `(None, None)` without packets.

    start = first pts x time base + skip-samples of the leading packets / sample rate;
    end = (last pts + last duration) x time base - discard_end / sample rate
    (`shared/docs/media-notes.md` C4); never from decoded sample counts.
    Skip and discard are counted in samples (FFmpeg `AV_PKT_DATA_SKIP_SAMPLES`),
    pts in ticks of the stream time base: they coincide only when the time base
    is 1/sample_rate (MP4), not in Matroska/WebM (1/1000).
    """
    if a.first_pts is None or a.last_pts is None:
        return None, None
    rate = Fraction(a.sample_rate) if a.sample_rate else None
    if rate is None and (a.skip or a.discard):
        return None, None  # samples to skip, but no rate to convert them: the span is unknown
    start = a.first_pts * a.time_base + (Fraction(a.skip) / rate if a.skip else 0)
    end = ((a.last_pts + a.last_duration) * a.time_base - (Fraction(a.discard) / rate if a.discard else 0)
           if a.last_duration else None)  # no duration: end unknown
    return start, end


def judge(facts: MediaFacts, exp: Expectation, policy: Policy) -> list[Finding]:
    """
    Return the findings of one demuxed file: one FAIL per rule broken, or one PASS `covered`.

    Every finding names the file (`path`) and carries, in `expected` and
    `observed`, the per-stream start, end (exact seconds), frames and samples.
    FAIL codes: `container-not-allowed`, `stream-count`, `codec-not-allowed`,
    `frame-rate-mismatch`, `sample-rate-mismatch`, `channel-mismatch`,
    `corrupt-packet`, `header-count-mismatch`, `demux-error`, `work-limit`,
    `video-frame-count`, `video-timestamps`, `video-start`, `video-end`,
    `audio-timestamps`, `audio-gap`, `audio-start-late`, `audio-start-early`,
    `audio-end-short`, `audio-end-long`.
    """
    expected, observed = _timeline(facts, exp)
    out: list[Finding] = []

    def fail(rule: str, code: str, message: str) -> None:
        out.append(Finding(check=CHECK, status=Status.FAIL, code=code, message=f"{message} [{rule}]",
                           path=facts.name, expected=expected, observed=observed))

    for rule, code, message in facts.problems:
        fail(rule, code, message)
    if facts.format not in policy.containers:
        fail("S1", "container-not-allowed", f"container {facts.format} is not on the gate's list ({', '.join(policy.containers)})")
    if facts.n_video != 1:
        fail("S1", "stream-count", f"has {facts.n_video} video streams, expected exactly 1")
    want_audio = 1 if exp.sample_rate else 0
    if facts.n_audio != want_audio:
        fail("S1", "stream-count", f"has {facts.n_audio} audio streams, expected {want_audio}")

    v = facts.video
    if v is not None:
        _judge_video(v, exp, policy, fail)
    a = facts.audio
    if a is not None and exp.sample_rate:
        _judge_audio(a, exp, policy, fail)

    if not out:
        parts = [f"video {observed['video']['frames']} frames {_s(observed['video']['start'])} to {_s(observed['video']['end'])}"]
        if "audio" in observed:
            o = observed["audio"]
            parts.append(f"audio {o['samples']} samples/channel {_s(o['start'])} to {_s(o['end'])}")
        out.append(Finding(check=CHECK, status=Status.PASS, code="covered",
                           message=f"{'; '.join(parts)}, expected {exp.frames} frames over {_s(exp.duration)}",
                           path=facts.name, expected=expected, observed=observed))
    return out


def _judge_video(v: VideoFacts, exp: Expectation, policy: Policy, fail: Any) -> None:
    where = f"video stream {v.index}"
    if v.codec not in policy.video_codecs:
        fail("S1", "codec-not-allowed", f"{where} codec {v.codec} is not on the gate's list ({', '.join(policy.video_codecs)})")
    if v.average_rate != exp.fps:
        fail("S1", "frame-rate-mismatch", f"{where} average rate {v.average_rate} is not the planned {exp.fps} fps")
    if v.corrupt:
        fail("X1", "corrupt-packet", f"{where} has {v.corrupt} packet(s) flagged corrupt")
    count = v.packets + v.missing_pts
    if v.header_frames and v.header_frames != count:
        fail("X2", "header-count-mismatch",
             f"{where} header says {v.header_frames} frames but {count} packets were demuxed (truncated?)")
    if count != exp.frames:
        fail("V1", "video-frame-count", f"{where} has {count} frames, expected {exp.frames}")
    if v.missing_pts:
        fail("V2", "video-timestamps", f"{where} has {v.missing_pts} packet(s) without a pts")
    if not v.packets:
        return
    if v.step_problem is not None:  # found while demuxing, see `VideoFacts._emit`
        fail("V2", "video-timestamps",
             f"{where} timestamps leave the constant step of {v.step} ticks (1/{exp.fps} s): {v.step_problem}")
    start, end = _video_span(v)
    tol_start, tol_end = policy.video_start_frames / exp.fps, policy.video_end_frames / exp.fps
    if start is not None and abs(start) > tol_start:
        fail("V3", "video-start", f"{where} starts at {_s(start)}, expected 0.000 s (tolerance {_ms(tol_start)})")
    if end is None:
        fail("V4", "video-end", f"{where}: the last packet has no duration, so the end cannot be established")
    elif abs(end - exp.duration) > tol_end:
        fail("V4", "video-end", f"{where} ends at {_s(end)}, expected {_s(exp.duration)} (tolerance {_ms(tol_end)})")


def _judge_audio(a: AudioFacts, exp: Expectation, policy: Policy, fail: Any) -> None:
    where = f"audio stream {a.index}"
    rule = policy.audio_codecs.get(a.codec)
    if rule is None:
        fail("S1", "codec-not-allowed", f"{where} codec {a.codec} is not on the gate's list ({', '.join(policy.audio_codecs)})")
    elif rule.profiles is not None and a.profile not in rule.profiles:
        fail("S1", "codec-not-allowed",
             f"{where} {a.codec} profile {a.profile} is not on the gate's list ({', '.join(rule.profiles)})")
    if a.sample_rate != exp.sample_rate:
        fail("S1", "sample-rate-mismatch", f"{where} sample rate is {a.sample_rate} Hz, planned {exp.sample_rate} Hz")
    if a.channels != exp.channels:
        fail("S1", "channel-mismatch", f"{where} has {a.channels} channels, planned {exp.channels}")
    if a.corrupt:
        fail("X1", "corrupt-packet", f"{where} has {a.corrupt} packet(s) flagged corrupt")
    if a.header_frames and a.header_frames != a.packets:
        fail("X2", "header-count-mismatch",
             f"{where} header says {a.header_frames} packets but {a.packets} were demuxed (truncated?)")
    if a.missing_pts or a.first_pts is None:
        fail("A1", "audio-timestamps", f"{where} has {a.missing_pts} packet(s) without a pts of {a.packets}")
        return
    if a.gaps:
        exp_pts, got_pts = a.gaps[0]
        fail("A5", "audio-gap", f"{where} packet at {_s(got_pts * a.time_base)} should start at "
                                f"{_s(exp_pts * a.time_base)} where the previous one ended")
    start, end = audio_span(a)
    if rule is None or start is None:
        return  # the gate states no tolerances for an unadmitted codec; it already FAILs [S1]
    sr = Fraction(a.sample_rate or exp.sample_rate or 1)
    late, early = rule.late_start / sr, rule.early_start / sr
    if start > late:
        fail("A1", "audio-start-late", f"{where} starts at {_s(start)}, expected 0.000 s (at most {_ms(late)} late)")
    if start < -early:
        fail("A2", "audio-start-early", f"{where} starts at {_s(start)}, expected 0.000 s (at most {_ms(early)} early)")
    if end is None:
        fail("A3", "audio-timestamps", f"{where}: the last packet has no duration, so the end cannot be established")
        return
    short, long = rule.short_end / sr, rule.long_end / sr
    if end < exp.duration - short:
        fail("A3", "audio-end-short", f"{where} ends at {_s(end)}, expected {_s(exp.duration)} (tolerance {_ms(short)} short)")
    if end > exp.duration + long:
        fail("A4", "audio-end-long", f"{where} ends at {_s(end)}, expected {_s(exp.duration)} (tolerance {_ms(long)} long)")


def check_file(path: Path, name: str, exp: Expectation, policy: Policy) -> tuple[list[Finding], MediaFacts | None]:
    """
    Return `(findings, facts)` for the media file at `path`, named `name` in findings.

    Never raises for bad media: an unreadable, empty or non-media file is one
    FAIL (`media-unreadable`, or `work-limit` when over the size limit), with
    `facts` None. Side effects: reads the file with FFmpeg's demuxer.
    """
    try:
        facts = probe(path, name, exp, policy)
    except MediaUnreadable as exc:
        return [Finding(check=CHECK, status=Status.FAIL, code=exc.code,
                        message=f"{exc} [S1]", path=name,
                        expected={"video": {"start": Fraction(0), "end": exp.duration, "frames": exp.frames}},
                        observed=None)], None
    return judge(facts, exp, policy), facts


def cross_arm(files: Sequence[tuple[str, str | None, MediaFacts]], policy: Policy) -> list[Finding]:
    """
    Return [C1] findings for the same audio payload in different arms whose video payloads differ.

    `files` holds `(name, arm, facts)`; files without an arm or without audio
    are ignored. Per audio payload digest shared by two or more arms with more
    than one video payload: one FAIL `identical-audio` when the policy says
    "fail", else one PASS `identical-audio-allowed` saying so. Nothing is
    emitted when no payload is shared.
    """
    by_audio: dict[str, list[tuple[str, str, str]]] = {}
    for name, arm, facts in files:
        if arm is None or facts.audio is None or facts.video is None or not facts.audio.packets:
            continue
        by_audio.setdefault(facts.audio.sha256.hexdigest(), []).append((name, arm, facts.video.sha256.hexdigest()))
    out = []
    for digest, members in sorted(by_audio.items()):
        arms = sorted({m[1] for m in members})
        videos = {m[2] for m in members}
        if len(arms) < 2 or len(videos) < 2:
            continue
        names = sorted(m[0] for m in members)
        status = Status.FAIL if policy.identical_audio == "fail" else Status.PASS
        code = "identical-audio" if status is Status.FAIL else "identical-audio-allowed"
        out.append(Finding(check=CHECK, status=status, code=code,
                           message=f"arms {', '.join(arms)} carry the same audio payload (sha256 {digest[:12]}...) "
                                   f"under different video in {len(names)} files: {', '.join(names)} [C1]",
                           path=names[0], expected="different audio per arm", observed={"audio_sha256": digest, "files": names}))
    return out


def decode_errors(path: Path, name: str, policy: Policy) -> list[Finding]:
    """
    Fully decode the first video and audio stream of the file at `path`; return [X3] findings.

    One FAIL `decode-error` when FFmpeg raises while decoding (e.g. a
    truncated file: `InvalidDataError`), `media-unreadable` when it cannot be
    opened, `work-limit` past the policy's `max_seconds`, else one PASS
    `decoded`. Used where a full decode is run anyway (scoring, `verify media
    --decode`); coverage itself never decodes. Side effects: decodes the
    whole file (CPU-bound).
    """
    import av

    deadline = time.monotonic() + policy.max_seconds
    frames = 0
    try:
        with open_media(path, policy) as (container, _size):
            chosen = [*container.streams.video[:1], *container.streams.audio[:1]]
            for packet in container.demux(chosen):
                frames += len(packet.decode())
                if time.monotonic() > deadline:
                    return [Finding(check=DECODE_CHECK, status=Status.FAIL, code="work-limit", path=name,
                                    message=f"decoding took longer than the gate's {policy.max_seconds} s [X3]")]
    except MediaUnreadable as exc:
        return [Finding(check=DECODE_CHECK, status=Status.FAIL, code=exc.code, path=name, message=f"{exc} [X3]")]
    except av.FFmpegError as exc:
        return [Finding(check=DECODE_CHECK, status=Status.FAIL, code="decode-error", path=name,
                        message=f"the decoder failed after {frames} frames: {type(exc).__name__}: {exc.strerror or exc} [X3]")]
    return [Finding(check=DECODE_CHECK, status=Status.PASS, code="decoded", path=name,
                    message=f"{frames} frames decoded without a decoder error [X3]", observed=frames)]


# --------------------------------------------------------------------------- the bundle check


def _media_of_bundle(ctx: Context) -> tuple[dict[str, str | None], list[Finding]]:
    """Return (bundle path -> arm label or None, findings about unusable sources) for every referenced media file."""
    media: dict[str, str | None] = {}
    notes: list[Finding] = []
    from verifier.checks.plan import campaign_of

    try:
        c = campaign_of(ctx)
    except Unverifiable as exc:
        notes.append(Finding(check=CHECK, status=Status.UNVERIFIED, code=exc.code, path=exc.path,
                             message=f"receipt outputs are not checked: {exc}"))
    else:
        for rs in c.requests.values():
            for r in rs:
                arm = c.arm_of_server.get(r["server"], r.get("arm"))
                for o in r["outputs"]:
                    media.setdefault(o["path"], arm)
    if ctx.bundle.has("quality"):
        try:
            index = ctx.bundle.document("quality")
        except Unverifiable as exc:
            notes.append(Finding(check=CHECK, status=Status.UNVERIFIED, code=exc.code, path=exc.path,
                                 message=f"media named by the quality index are not checked: {exc}"))
        else:
            for comp in index["comparisons"]:
                for side in ("reference", "candidate"):
                    media.setdefault(comp[side], None)
    return media, notes


@check("coverage.streams", title="Each output media file covers the planned timeline, per stream (PyAV demux, exact)",
       requires=("gate.pinned",))
def streams(ctx: Context) -> Iterator[Finding]:
    """
    Judge every media file the receipts and the quality index reference against the plan's expected output.

    The plan's expected output must equal the one the gate froze, if any
    (FAIL `gate-plan-mismatch`); a gate with coverage but no referenced media
    is FAIL `no-media`; a gate without coverage is PASS `not-required` when
    no media are referenced, else UNVERIFIED `no-coverage-gate`. Only bundle
    files and supplied external artifacts whose sha256 matched the manifest
    are read; any other referenced file is UNVERIFIED `media-not-verified`
    (external and not supplied, or failed integrity, which that check
    reports). Per file the
    findings of `judge`; then [C1] `cross_arm` over files whose arm the
    receipts name. Raises `Unverifiable` when the plan is unusable, or the
    gate has no `coverage` section while media are referenced. Raises
    `ConfigError` when the gate's coverage section is unusable. Side
    effects: demuxes each media file.
    """
    section = (ctx.gate or {}).get("coverage")
    if section is None:
        media, notes = _media_of_bundle(ctx)
        yield from notes
        if media:
            raise Unverifiable(f"gate {ctx.gate_id} has no coverage section, so the {len(media)} referenced media "
                               f"file(s) are not judged", code="no-coverage-gate")
        yield Finding(check=CHECK, status=Status.PASS, code="not-required",
                      message=f"gate {ctx.gate_id} requires no media coverage and no receipt or comparison names a media file")
        return
    policy = policy_from_gate(section)
    planned = ctx.bundle.document("plan")["expected_output"]
    exp = Expectation.from_plan(planned)
    frozen = section.get("expected_output")
    if frozen is not None and Expectation.from_plan(frozen) != exp:
        yield Finding(check=CHECK, status=Status.FAIL, code="gate-plan-mismatch", path="plan.json", pointer="/expected_output",
                      message=f"the plan expects {planned}, the gate {ctx.gate_id} froze {frozen}; media are judged against the plan",
                      expected=Expectation.from_plan(frozen).to_json(), observed=exp.to_json())
    media, notes = _media_of_bundle(ctx)
    yield from notes
    if not media:
        yield Finding(check=CHECK, status=Status.FAIL, code="no-media",
                      message=f"gate {ctx.gate_id} requires media coverage, but no receipt output or quality comparison names a media file",
                      path="receipts.jsonl")
    externals = ctx.data.get("externals_verified", {})
    judged: list[tuple[str, str | None, MediaFacts]] = []
    for name in sorted(media):
        where = ctx.bundle.path_of(name) or externals.get(name)
        if where is None:
            yield Finding(check=CHECK, status=Status.UNVERIFIED, code="media-not-verified", path=name,
                          message=f"{name} is referenced but is neither a bundle file nor a supplied external artifact "
                                  f"whose sha256 matched the manifest, so it is not read")
            continue
        findings, facts = check_file(Path(where), name, exp, policy)
        ctx.data.setdefault("coverage_checked", {})[name] = (exp, policy, findings, facts)  # re-used by quality.rescore
        yield from findings
        if facts is not None:
            judged.append((name, media[name], facts))
    yield from cross_arm(judged, policy)
