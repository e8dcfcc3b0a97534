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


# --- cosmic-ray survivors (issue 42): exact messages, timelines and the rules no test above reached ------------------------

from verifier.checks.coverage_rules import _ms  # noqa: E402


def _shown(findings) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in findings]


def test_milliseconds_are_written_at_one_decimal_place():
    """Kills :27 `*`->`/` and each number (1000 -> 999 / 1001, places 1 -> 0 / 2)."""
    assert [_ms(Fraction(1, 10)), _ms(Fraction(-1, 48)), _ms(Fraction(0))] == ["100.0 ms", "-20.8 ms", "0.0 ms"]


def test_a_covered_clip_states_its_whole_timeline():
    """
    Kills :33/:35 the `Fraction(0)` starts and `*`->`/` of the expected samples, :34 AddNot, :46 `-`->`+` (a start
    before 0), :89-:93 the PASS message: the exact expected and observed timelines and the message.
    """
    (f,) = _judge(audio=_audio(first_pts=-1024))
    assert f.expected == {"video": {"start": 0, "end": 1, "frames": 24},
                          "audio": {"start": 0, "end": 1, "samples": 48000, "sample_rate": 48000, "channels": 2}}
    assert f.observed == {"video": {"codec": "h264", "start": 0, "end": 1, "frames": 24, "average_rate": 24},
                          "audio": {"codec": "aac", "start": Fraction(-1024, 48000), "end": 1, "samples": 49024,
                                    "sample_rate": 48000, "channels": 2}}
    assert f.message == ("video 24 frames 0.000 s to 1.000 s; audio 49024 samples/channel -0.021 s to 1.000 s, "
                         "expected 24 frames over 1.000 s")
    assert f.path == "m.mp4"


def test_a_silent_plan_and_a_silent_clip_are_covered_by_the_video_alone():
    """Kills :78 `0`->`-1` and :91 AddNot: no audio stream where none is planned is covered, and the message names only video."""
    silent = dataclasses.replace(EXP, sample_rate=None, channels=None)
    (f,) = _judge(exp=silent, audio=False, n_audio=0)
    assert (f.code, f.message) == ("covered", "video 24 frames 0.000 s to 1.000 s, expected 24 frames over 1.000 s")
    assert f.expected == {"video": {"start": 0, "end": 1, "frames": 24}} and set(f.observed) == {"video"}


def test_demux_problems_stream_counts_and_the_video_rules_say_what_they_found():
    """
    Kills :41 and :108 `+`->`-` (frames counted with the packets without a pts), :72 ZeroIterationForLoop (the demuxer's
    problems), :106 AddNot (corrupt packets), :114 AddNot (packets without a pts), :118 AddNot and `is not`->`is`
    (a broken timestamp step): one FAIL per rule, each message exact.
    """
    video = _video(packets=23, missing_pts=1, corrupt=2, step_problem="pts 20 follows 16", max_pts=44)
    found = _judge(video=video, problems=[("X3", "demux-error", "the demuxer stopped: invalid data")], n_audio=2)
    assert _shown(found) == [
        ("demux-error", "the demuxer stopped: invalid data [X3]"),
        ("stream-count", "has 2 audio streams, expected 1 [S1]"),
        ("corrupt-packet", "video stream 0 has 2 packet(s) flagged corrupt [X1]"),
        ("video-timestamps", "video stream 0 has 1 packet(s) without a pts [V2]"),
        ("video-timestamps", "video stream 0 timestamps leave the constant step of 2 ticks (1/24 s): pts 20 follows 16 [V2]"),
        ("video-end", "video stream 0 ends at 0.958 s, expected 1.000 s (tolerance 20.8 ms) [V4]"),
    ]
    assert found[0].observed["video"]["frames"] == 24 and found[0].path == "m.mp4"


def test_video_format_and_count_messages():
    """Pins the codec, rate, header and frame-count messages (their values and the policy's list)."""
    found = _judge(video=_video(codec="vp9", average_rate=Fraction(25), header_frames=30, packets=23, max_pts=44), n_video=2)
    assert _shown(found) == [
        ("stream-count", "has 2 video streams, expected exactly 1 [S1]"),
        ("codec-not-allowed", f"video stream 0 codec vp9 is not on the gate's list ({', '.join(DEFAULT_POLICY.video_codecs)}) [S1]"),
        ("frame-rate-mismatch", "video stream 0 average rate 25 is not the planned 24 fps [S1]"),
        ("header-count-mismatch", "video stream 0 header says 30 frames but 23 packets were demuxed (truncated?) [X2]"),
        ("video-frame-count", "video stream 0 has 23 frames, expected 24 [V1]"),
        ("video-end", "video stream 0 ends at 0.958 s, expected 1.000 s (tolerance 20.8 ms) [V4]"),
    ]


def test_an_audio_gap_names_the_first_gap_in_seconds():
    """Kills :151 AddNot, :152 both numbers (the first of two gaps), :153/:154 `*`->`/` (ticks to seconds)."""
    found = _judge(audio=_audio(gaps=[(24576, 25600), (40960, 41984)], corrupt=1))
    assert _shown(found) == [
        ("corrupt-packet", "audio stream 1 has 1 packet(s) flagged corrupt [X1]"),
        ("audio-gap", "audio stream 1 packet at 0.533 s should start at 0.512 s where the previous one ended [A5]"),
    ]


def test_audio_tolerances_are_samples_at_the_streams_own_rate():
    """
    Kills :158 `or`->`and` (both): the start tolerance is 1024 samples at the stream's 44.1 kHz (23.2 ms), and at the
    planned rate when the stream states none; the messages give the rates and the tolerance.
    """
    at_44k = _judge(audio=_audio(sample_rate=44100, first_pts=1056))  # 22.0 ms late: within 23.2 ms, beyond 21.3 ms
    assert _shown(at_44k) == [("sample-rate-mismatch", "audio stream 1 sample rate is 44100 Hz, planned 48000 Hz [S1]")]
    unstated = _judge(audio=_audio(sample_rate=0, first_pts=1025))
    assert _shown(unstated) == [
        ("sample-rate-mismatch", "audio stream 1 sample rate is 0 Hz, planned 48000 Hz [S1]"),
        ("audio-start-late", "audio stream 1 starts at 0.021 s, expected 0.000 s (at most 21.3 ms late) [A1]"),
    ]


def test_audio_format_and_timing_messages():
    """Pins the profile, channel, header, timestamp, early start and long end messages."""
    found = _judge(audio=_audio(profile="HE-AAC", channels=1, header_frames=50, first_pts=-2113, last_pts=48000 + 3137 - 1024))
    assert _shown(found) == [
        ("codec-not-allowed", "audio stream 1 aac profile HE-AAC is not on the gate's list (LC) [S1]"),
        ("channel-mismatch", "audio stream 1 has 1 channels, planned 2 [S1]"),
        ("header-count-mismatch", "audio stream 1 header says 50 packets but 47 were demuxed (truncated?) [X2]"),
        ("audio-start-early", "audio stream 1 starts at -0.044 s, expected 0.000 s (at most 44.0 ms early) [A2]"),
        ("audio-end-long", "audio stream 1 ends at 1.065 s, expected 1.000 s (tolerance 65.3 ms long) [A4]"),
    ]
    assert _shown(_judge(audio=_audio(missing_pts=2))) == [
        ("audio-timestamps", "audio stream 1 has 2 packet(s) without a pts of 47 [A1]")]
    assert _shown(_judge(audio=_audio(codec="opus"))) == [
        ("codec-not-allowed", f"audio stream 1 codec opus is not on the gate's list ({', '.join(DEFAULT_POLICY.audio_codecs)}) [S1]")]
