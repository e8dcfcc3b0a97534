"""
The coverage rules: one demuxed file's `MediaFacts` against the expected timeline and the gate's policy.

Rule ids in brackets are those of `verifier.checks.coverage` (its module
docstring lists them, after `shared/docs/media-notes.md` C5). Pure functions
of the facts: nothing here reads a file.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verifier.media.demux import AudioFacts, MediaFacts, VideoFacts, audio_span, video_span
from verifier.media.demux import seconds as _s
from verifier.media.policy import Expectation, Policy
from verifier.model.findings import Finding, Status
from verifier.model.numtext import quantity

__all__ = ["CHECK", "judge"]

CHECK = "coverage.streams"


def _ms(t: Fraction) -> str:
    """Return seconds `t` as milliseconds at one decimal place (`numtext.quantity`: `32.0 ms`, never `-0.0` or an exponent)."""
    return quantity(float(t) * 1000, "ms", places=1)



def _timeline(facts: MediaFacts, exp: Expectation) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (expected, observed) per stream: start, end (exact seconds), frames / samples per channel."""
    expected: dict[str, Any] = {"video": {"start": Fraction(0), "end": exp.duration, "frames": exp.frames}}
    if exp.sample_rate:
        expected["audio"] = {"start": Fraction(0), "end": exp.duration, "samples": exp.duration * exp.sample_rate,
                             "sample_rate": exp.sample_rate, "channels": exp.channels}
    observed: dict[str, Any] = {}
    v = facts.video
    if v is not None:
        start, end = video_span(v)
        observed["video"] = {"codec": v.codec, "start": start, "end": end, "frames": v.packets + v.missing_pts,
                             "average_rate": v.average_rate}
    a = facts.audio
    if a is not None:
        start, end = audio_span(a)
        samples = (end - start) * a.sample_rate if start is not None and end is not None and a.sample_rate else None
        observed["audio"] = {"codec": a.codec, "start": start, "end": end, "samples": samples,
                             "sample_rate": a.sample_rate, "channels": a.channels}
    return expected, observed


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
    start, end = video_span(v)
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
