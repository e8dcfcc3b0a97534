"""
Tests that kill surviving mutants of `verifier/checks/coverage_rules.py` (issue 14): each coverage rule at its boundary.

`judge` is a pure function of demuxed facts, so the facts are written by
hand: a 1 s clip of 24 frames at 24 fps (time base 1/48) and 48 kHz stereo
AAC-LC audio (time base 1/48000). Each rule holds exactly at its tolerance
(`shared/docs/media-notes.md` C5: video start/end within half a frame,
audio start 1024 samples late or 2112 early, end 1024 short or 3136 long)
and fails one tick past it; messages state tolerances in milliseconds.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from verifier.checks.coverage_rules import judge
from verifier.media.demux import AudioFacts, MediaFacts, VideoFacts
from verifier.media.policy import DEFAULT_POLICY, Expectation

EXP = Expectation(frames=24, fps=Fraction(24), sample_rate=48000, channels=2)
MP4 = DEFAULT_POLICY.containers[0]


def _video(**change) -> VideoFacts:
    base = VideoFacts(index=0, codec="h264", time_base=Fraction(1, 48), average_rate=Fraction(24), header_frames=24, step=Fraction(2),
                      packets=24, min_pts=0, max_pts=46, last_duration=2)
    return dataclasses.replace(base, **change)


def _audio(**change) -> AudioFacts:
    base = AudioFacts(index=1, codec="aac", profile="LC", time_base=Fraction(1, 48000), sample_rate=48000, channels=2,
                      header_frames=47, packets=47, first_pts=0, last_pts=48000 - 1024, last_duration=1024)
    return dataclasses.replace(base, **change)


def _judge(video=None, audio=None, exp: Expectation = EXP, **facts) -> list:
    v = _video() if video is None else video
    a = _audio() if audio is None else audio
    f = MediaFacts(name="m.mp4", size=1, format=MP4, n_video=1, n_audio=1, video=v or None, audio=a or None)
    return judge(dataclasses.replace(f, **facts), exp, DEFAULT_POLICY)


def _codes(findings) -> list[str]:
    return [f.code for f in findings]


def test_a_clip_on_the_plan_is_covered_with_the_expected_timeline():
    (f,) = _judge()
    assert (f.status, f.code) == ("PASS", "covered")
    assert f.expected["audio"]["samples"] == 48000 and f.expected["video"]["frames"] == 24
    assert f.observed["audio"]["samples"] == 48000 and f.observed["video"]["end"] == 1


@pytest.mark.parametrize("facts,code", [({"format": "matroska,webm"}, "container-not-allowed"), ({"n_video": 2}, "stream-count"),
                                        ({"n_audio": 2}, "stream-count")])
def test_container_and_stream_counts(facts, code):
    assert _codes(_judge(**facts)) == [code]


def test_audio_where_the_plan_expects_none_is_a_stream_count_failure_only():
    silent = dataclasses.replace(EXP, sample_rate=None, channels=None)
    assert _codes(_judge(exp=silent, audio=_audio(sample_rate=44100, channels=1))) == ["stream-count"]


def test_video_rate_codec_and_header():
    assert _codes(_judge(video=_video(average_rate=Fraction(25)))) == ["frame-rate-mismatch"]
    assert _codes(_judge(video=_video(codec="vp9"))) == ["codec-not-allowed"]
    assert _codes(_judge(video=_video(header_frames=0))) == ["covered"]  # no header count: nothing to compare


def test_a_video_stream_without_packets_has_no_end_to_judge():
    assert _codes(_judge(video=_video(packets=0, min_pts=None, max_pts=None, last_duration=None, header_frames=0))) == ["video-frame-count"]


@pytest.mark.parametrize("min_pts,ok", [(1, True), (2, False), (-1, True)])
def test_video_may_start_half_a_frame_off(min_pts, ok):
    found = _judge(video=_video(min_pts=min_pts, max_pts=46 + min_pts))
    assert _codes(found) == (["covered"] if ok else ["video-start", "video-end"])
    if not ok:
        assert "tolerance 20.8 ms" in found[0].message


@pytest.mark.parametrize("change,codes", [({"profile": "HE-AAC"}, ["codec-not-allowed"]), ({"sample_rate": 44100}, ["sample-rate-mismatch"]),
                                          ({"channels": 1}, ["channel-mismatch"]), ({"header_frames": 0}, ["covered"]),
                                          ({"header_frames": 46}, ["header-count-mismatch"]),
                                          ({"first_pts": None}, ["audio-timestamps"]), ({"missing_pts": 1}, ["audio-timestamps"])])
def test_audio_format_header_and_timestamps(change, codes):
    assert _codes(_judge(audio=_audio(**change))) == codes


def test_an_unadmitted_audio_codec_fails_once_and_is_not_timed():
    assert _codes(_judge(audio=_audio(codec="opus", first_pts=5000))) == ["codec-not-allowed"]


@pytest.mark.parametrize("first,codes", [(1024, ["covered"]), (1025, ["audio-start-late"]), (-2112, ["covered"]),
                                         (-2113, ["audio-start-early"])])
def test_audio_may_start_1024_samples_late_or_2112_early(first, codes):
    assert _codes(_judge(audio=_audio(first_pts=first, last_pts=48000 - 1024 + 0))) == codes


@pytest.mark.parametrize("end,codes", [(48000 - 1024, ["covered"]), (48000 - 1025, ["audio-end-short"]), (48000 + 3136, ["covered"]),
                                       (48000 + 3137, ["audio-end-long"])])
def test_audio_may_end_1024_samples_short_or_3136_long(end, codes):
    found = _judge(audio=_audio(last_pts=end - 1024))
    assert _codes(found) == codes
    if codes == ["audio-end-short"]:
        assert "tolerance 21.3 ms short" in found[0].message


def test_an_audio_end_without_a_duration_is_unknown_not_short():
    found = _judge(audio=_audio(last_duration=None, last_pts=100))
    assert _codes(found) == ["audio-timestamps"] and found[0].observed["audio"]["samples"] is None
