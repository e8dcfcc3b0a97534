"""
Decoding a media file once for every scorer: video frames as they come, audio PCM collected on the way.

One demux pass over the first video and the first audio stream (through
`demux.open_media`, with its hostile-input protections) feeds both
decoders: `DecodedFile.frames()` yields each video frame as a uint8
HxWx3 RGB array (FFmpeg's swscale, one converter kept for the stream: the
same pixels as `frame.to_ndarray(format="rgb24")`), and the audio frames
met meanwhile are kept as float64 PCM for `pcm()`. Video memory is one
frame at a time (flat in clip length); audio is held whole (the spectral
cosine removes each channel's mean over the whole signal first), 2.6 MB per
5 s of 32 kHz stereo.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.media.demux import open_media
from verifier.media.policy import Policy

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DecodeFailed", "DecodedFile"]


class DecodeFailed(Exception):
    """Raised when a decoder fails: `code` is the finding code (`decode-error`, `no-audio`), `stream` "video" or "audio"."""

    def __init__(self, code: str, message: str, stream: str) -> None:
        super().__init__(message)
        self.code = code
        self.stream = stream


class DecodedFile:
    """
    Represents one media file decoded once: iterate `frames()` (video), then read `pcm()` (audio).

    `video` / `audio` say which streams are decoded (the other is skipped
    without decoding). With `video` False, `frames()` yields nothing and
    only collects the audio. Raises `DecodeFailed` from `frames()` when a
    decoder or the demuxer fails, and `MediaUnreadable` when the file cannot
    be opened.
    """

    def __init__(self, path: Path, policy: Policy, *, video: bool, audio: bool) -> None:
        self.path = path
        self.policy = policy
        self.video = video
        self.audio = audio
        self._chunks: list[Any] = []
        self._rate = 0
        self.done = False

    def frames(self) -> Iterator[npt.NDArray[np.uint8]]:
        """Yield every decoded video frame as uint8 HxWx3 RGB, in presentation order; collects the audio PCM meanwhile."""
        import av
        import numpy as np
        from av.video.reformatter import VideoReformatter

        with open_media(self.path, self.policy) as (container, _size):
            vs = container.streams.video[0] if self.video and container.streams.video else None
            aus = container.streams.audio[0] if self.audio and container.streams.audio else None
            streams = [s for s in (vs, aus) if s is not None]
            if not streams:
                self.done = True
                return
            reformatter = VideoReformatter()
            current = "video" if vs is not None else "audio"
            try:
                for packet in container.demux(streams):
                    current = "video" if vs is not None and packet.stream_index == vs.index else "audio"
                    for frame in packet.decode():
                        if current == "video":
                            yield reformatter.reformat(frame, format="rgb24").to_ndarray()
                        else:
                            self._rate = frame.sample_rate
                            data = frame.to_ndarray()
                            if not frame.format.is_planar:
                                data = data.reshape(-1, len(frame.layout.channels)).T
                            self._chunks.append(data.astype(np.float64))
            except av.FFmpegError as exc:
                raise DecodeFailed("decode-error", f"{self.path.name}: the {current} decoder failed: {exc.strerror or exc}",
                                   current) from None
        self.done = True

    def pcm(self) -> tuple[npt.NDArray[np.float64], int]:
        """Return the decoded audio as float64 (channels, samples) and its sample rate; decodes what `frames()` did not reach."""
        import numpy as np

        if not self.done:  # never iterated, or stopped early: one audio-only pass from the start
            self._chunks.clear()
            self.video = False
            for _frame in self.frames():
                pass
        if not self._chunks:
            raise DecodeFailed("no-audio", f"{self.path.name}: no audio was decoded", "audio")
        return np.concatenate(self._chunks, axis=1), self._rate
