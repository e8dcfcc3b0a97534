"""
What a media file is judged against: the expected timeline (`Expectation`) and the gate's coverage policy.

`Asked` is what a reader asks the coverage family to judge: files, each to
cover one `Expectation` under one `Policy`.

`Policy` holds the allowlists, tolerances and work limits of a gate's
`coverage` section (`policy_from_gate`); `DEFAULT_POLICY` is the policy of
`verify media` without `--gate` (the numbers of `ref2va-5s-v1`). Tolerances
follow from codec facts (`shared/docs/media-notes.md` section C).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from verifier.errors import ConfigError

__all__ = ["AAC_LC", "DEFAULT_POLICY", "KNOWN_AUDIO_RULES", "KNOWN_CONTAINERS", "MP3", "Asked", "AudioCodecRule", "Expectation",
           "Policy", "policy_from_gate"]


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


class Asked(NamedTuple):
    """Represents files a reader asks coverage to judge: `media` name -> arm or None, each to cover `expected` under `policy`; `named` name -> records naming it."""

    policy: Policy
    expected: Expectation
    media: dict[str, str | None]
    named: dict[str, list[str]]


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
            **{name: limits[name] for name in ("max_file_bytes", "max_packets_factor", "max_seconds") if name in limits},
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
