"""
Demuxing a media file, no decoding: the `MediaFacts` coverage judges and scoring relies on.

Each file is opened read-only under the gate's container allowlist
(`open_media`: no symlink followed, no nested open of another file or URL on
the input's behalf, MP4 sample tables bounded before FFmpeg indexes them) and
its packets are read once (`probe`). All times are exact `fractions.Fraction`
seconds built from integer timestamps and time bases; the [V2] step check
runs while demuxing over a small reorder window, so memory stays constant.
Facts serialise to plain JSON (`MediaFacts.to_json`, `MediaFacts.from_json`)
so the warm re-verify cache (`docs/cache.md`) can keep them by the file's sha256.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import math
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifier.formats.bundle import open_regular
from verifier.media.policy import Expectation, Policy

__all__ = ["MAX_BOXES", "REORDER_WINDOW", "AudioFacts", "MediaFacts", "MediaUnreadable", "UNKNOWN_CODEC", "VideoFacts", "audio_span",
           "declared_mp4_samples", "open_media", "probe", "seconds", "video_span"]


#: Packets held to put decode order back into presentation order. H.264 reorders at most 16
#: frames (max_num_reorder_frames), so 32 is enough; memory stays constant in clip length.
REORDER_WINDOW = 32

#: The codec name of a stream whose codec FFmpeg has no decoder for (PyAV gives it no codec context).
UNKNOWN_CODEC = "unknown"


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
            self.step_problem = (f"frame {k} at pts {pts} ({seconds(pts * self.time_base)}); the previous is at pts "
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

    def to_json(self) -> dict[str, Any]:
        """
        Return the facts of a finished demux as plain JSON (fractions as "p/q" strings, payload digests as hex).

        `from_json` reads it back; the two round-trip to facts that judge,
        figure and score alike (tests hold them equal).
        """
        out: dict[str, Any] = {"name": self.name, "size": self.size, "format": self.format, "n_video": self.n_video,
                               "n_audio": self.n_audio, "problems": [list(p) for p in self.problems]}
        for kind, facts in (("video", self.video), ("audio", self.audio)):
            if facts is None:
                out[kind] = None
                continue
            item: dict[str, Any] = {}
            for name in _FIELDS[kind]:
                value = getattr(facts, name)
                if isinstance(value, Fraction):
                    value = str(value)
                elif name == "sha256":
                    value = value.hexdigest()
                elif name == "gaps":
                    value = [list(g) for g in value]
                item[name] = value
            out[kind] = item
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str) -> MediaFacts:
        """Return the facts `to_json` wrote, named `name`; raises `KeyError`, `TypeError` or `ValueError` for anything else."""
        facts = cls(name=name, size=int(data["size"]), format=data["format"], n_video=int(data["n_video"]),
                    n_audio=int(data["n_audio"]), problems=[(str(r), str(c), str(m)) for r, c, m in data["problems"]])
        for kind, klass in (("video", VideoFacts), ("audio", AudioFacts)):
            item = data[kind]
            if item is None:
                continue
            if set(item) != set(_FIELDS[kind]):
                raise ValueError(f"{kind} facts hold {sorted(item)}, not {sorted(_FIELDS[kind])}")
            values = {k: (Fraction(v) if k in _FRACTIONS and v is not None else v) for k, v in item.items()}
            values["sha256"] = _Finished(str(item["sha256"]))
            if kind == "audio":
                values["gaps"] = [(int(a), int(b)) for a, b in item["gaps"]]
            setattr(facts, kind, klass(**values))
        return facts


class _Finished:
    """Stands for the hashlib object of a finished payload digest read back from JSON: only `hexdigest()`."""

    def __init__(self, hexdigest: str) -> None:
        if len(hexdigest) != 64:
            raise ValueError(f"not a sha256: {hexdigest!r}")
        self._hex = hexdigest

    def hexdigest(self) -> str:
        """Return the hex digest."""
        return self._hex


#: The public fields `MediaFacts.to_json` keeps per stream (the reorder heap of `VideoFacts` is empty after `finish`).
_FIELDS = {
    "video": ("index", "codec", "time_base", "average_rate", "header_frames", "step", "packets", "min_pts", "max_pts",
              "last_duration", "corrupt", "missing_pts", "step_problem", "sha256"),
    "audio": ("index", "codec", "profile", "time_base", "sample_rate", "channels", "header_frames", "packets", "first_pts",
              "skip", "leading", "last_pts", "last_duration", "discard", "gaps", "unknown_duration", "corrupt",
              "missing_pts", "sha256"),
}
_FRACTIONS = frozenset({"time_base", "average_rate", "step"})


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
            # metadata_errors: a tag not in UTF-8 (the container's or a stream's) would make PyAV raise
            # UnicodeDecodeError while opening; no tag is read here, so it is decoded with replacement.
            container = av.open(handle, "r", io_open=_refuse_nested_open, metadata_errors="replace",
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
        cc = s.codec_context  # None for a codec FFmpeg cannot decode: no profile, rate or channels to report
        facts.audio = AudioFacts(index=s.index, codec=_codec_name(s), profile=cc.profile if cc else None,
                                 time_base=Fraction(s.time_base), sample_rate=int(cc.sample_rate or 0) if cc else 0,
                                 channels=int(cc.channels or 0) if cc else 0, header_frames=int(s.frames or 0))
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
    # PyAV gives no codec context to a stream whose codec id FFmpeg has no decoder for (an unknown
    # Matroska CodecID, say): such a codec is on no gate's list, so "unknown" FAILs `codec-not-allowed`.
    if stream.codec_context is None:
        return UNKNOWN_CODEC
    codec = stream.codec_context.codec
    return str(getattr(codec, "canonical_name", None) or codec.name)


def seconds(t: Fraction | None) -> str:
    """Return exact seconds as a 3-decimal string for messages (the finding carries the exact fraction)."""
    return "?" if t is None else f"{float(t):.3f} s"



def video_span(v: VideoFacts) -> tuple[Fraction | None, Fraction | None]:
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
