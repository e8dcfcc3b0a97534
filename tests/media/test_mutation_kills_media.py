"""
Tests that kill surviving mutants of the media facts (issue 14): the MP4 box walk and audio packets.

The box walk (`declared_mp4_samples`) is held to ISO/IEC 14496-12 section
4.2 on hand-built headers: a 32-bit size, a size of 1 followed by a 64-bit
size, a size of 0 meaning "to the end of the enclosing span", and the
`MAX_BOXES` bound counted exactly. The audio packet bookkeeping
(`_audio_packet`) is held to its documented meaning with stand-in packets:
only the leading run of packets carrying skip side data adds to the priming
skip, and every packet without a duration is counted once.
"""

from __future__ import annotations

import io
from fractions import Fraction

import pytest

from verifier.media import demux
from verifier.media.demux import AudioFacts, declared_mp4_samples


def box(kind: bytes, payload: bytes = b"", *, size: int | None = None, wide: bool = False) -> bytes:
    """One ISO BMFF box: 32-bit size (or 1 + 64-bit size when `wide`; `size` overrides the stated size)."""
    if wide:
        return (1).to_bytes(4, "big") + kind + (16 + len(payload) if size is None else size).to_bytes(8, "big") + payload
    return (8 + len(payload) if size is None else size).to_bytes(4, "big") + kind + payload


def stsz(count: int) -> bytes:
    """An `stsz` box: version/flags, sample_size 0, sample_count `count` (ISO/IEC 14496-12 8.7.3.2)."""
    return box(b"stsz", b"\0\0\0\0" + b"\0\0\0\0" + count.to_bytes(4, "big"))


def movie(*tables: bytes, moov_size: int | None = None) -> bytes:
    return box(b"moov", box(b"trak", box(b"mdia", box(b"minf", box(b"stbl", b"".join(tables))))), size=moov_size)


def samples(data: bytes) -> int | None:
    handle = io.BytesIO(data)
    handle.seek(5)
    found = declared_mp4_samples(handle, len(data))
    assert handle.tell() == 0  # leaves the position at 0 for the demuxer
    return found


def test_sample_tables_are_summed_inside_the_movie_box():
    assert samples(box(b"ftyp", b"isom") + movie(stsz(7), stsz(5))) == 12


def test_no_movie_box_is_not_an_mp4():
    assert samples(box(b"ftyp", b"isom") + box(b"free", b"x" * 8)) is None


def test_a_box_of_size_zero_runs_to_the_end_of_its_span():
    assert samples(box(b"ftyp", b"isom") + movie(stsz(9), moov_size=0)) == 9


def test_a_wide_box_takes_its_size_from_the_64_bit_field():
    inner = box(b"trak", box(b"mdia", box(b"minf", box(b"stbl", stsz(4)))))
    assert samples(box(b"moov", inner, wide=True)) == 4


def test_a_box_larger_than_its_span_stops_the_walk():
    assert samples(box(b"ftyp", b"isom") + box(b"moov", box(b"trak"), size=10_000)) is None


def test_the_box_bound_counts_exactly(monkeypatch):
    monkeypatch.setattr(demux, "MAX_BOXES", 7)  # moov, trak, mdia, minf, stbl, stsz = 6 boxes, plus ftyp = 7
    assert samples(box(b"ftyp", b"isom") + movie(stsz(3))) == 3
    with pytest.raises(ValueError, match="more than 7 boxes"):
        samples(box(b"ftyp", b"isom") + box(b"free") + movie(stsz(3)))


class Packet:
    def __init__(self, pts: int | None, duration: int | None, skip: int | None = None, discard: int = 0) -> None:
        self.pts, self.duration, self.is_corrupt = pts, duration, False
        self._side = [] if skip is None else [skip, discard]

    def iter_sidedata(self):
        return iter([SideData(*self._side)] if self._side else [])

    def __bytes__(self) -> bytes:
        return b"p"


class SideData(bytes):
    """PyAV's SKIP_SAMPLES side data as bytes: skip_start and discard_end, 32-bit little-endian, then two reasons."""

    data_type = "skip_samples"

    def __new__(cls, skip: int, discard: int) -> SideData:
        return super().__new__(cls, skip.to_bytes(4, "little") + discard.to_bytes(4, "little") + b"\0\0")


def _audio() -> AudioFacts:
    return AudioFacts(index=1, codec="aac", profile="LC", time_base=Fraction(1, 48000), sample_rate=48000, channels=2,
                      header_frames=0)


def test_only_the_leading_skip_packets_add_to_the_priming_skip():
    a = _audio()
    for packet in (Packet(0, 1024, skip=1024), Packet(1024, 1024, skip=600), Packet(2048, 1024), Packet(3072, 1024, skip=512)):
        demux._audio_packet(a, packet)
    assert a.skip == 1624 and a.leading is False
    assert a.packets == 4 and a.first_pts == 0 and a.last_pts == 3072


def test_every_packet_without_a_duration_is_counted_once():
    a = _audio()
    for packet in (Packet(0, None), Packet(1024, 0), Packet(2048, 1024), Packet(None, None)):
        demux._audio_packet(a, packet)
    assert a.unknown_duration == 2 and a.missing_pts == 1


# --- [V2] the video step check while demuxing, and the facts' JSON form -------------------------------------------------

def _stepped(pts_list: list[int]) -> demux.VideoFacts:
    v = demux.VideoFacts(index=0, codec="h264", time_base=Fraction(1, 48), average_rate=Fraction(24), header_frames=0, step=Fraction(2))
    for pts in pts_list:
        v.add(pts, 2)
    v.finish()
    return v


def test_a_constant_step_from_a_nonzero_first_pts_holds():
    v = _stepped([10 + 2 * k for k in range(40)])
    assert v.step_problem is None and (v.min_pts, v.max_pts, v.packets) == (10, 88, 40)


def test_a_missing_frame_breaks_the_step():
    v = _stepped([2 * k for k in range(10)] + [2 * k for k in range(11, 20)])
    assert v.step_problem is not None and v.step_problem.startswith("frame 10 at pts 22")


def test_a_frame_beyond_the_reorder_window_is_out_of_order():
    late = [2 * k for k in range(1, demux.REORDER_WINDOW + 3)] + [0]
    v = _stepped(late)
    assert v.step_problem is not None and "out of order" in v.step_problem
    assert _stepped(list(reversed([2 * k for k in range(demux.REORDER_WINDOW)]))).step_problem is None  # within the window


def test_facts_round_trip_through_json_and_refuse_other_fields():
    facts = demux.MediaFacts(name="m.mp4", size=3, format="mp4", n_video=1, n_audio=0, video=_stepped([0, 2, 4]))
    again = demux.MediaFacts.from_json(facts.to_json(), "m.mp4")
    assert again.to_json() == facts.to_json() and again.video.max_pts == 4
    broken = facts.to_json()
    broken["video"]["extra"] = 1
    with pytest.raises(ValueError):
        demux.MediaFacts.from_json(broken, "m.mp4")


def test_only_a_movie_box_makes_an_mp4():
    assert samples(box(b"ftyp", b"isom") + box(b"moov")) == 0  # a movie box without tables declares 0 samples
    stray = box(b"trak", box(b"mdia", box(b"minf", box(b"stbl", stsz(4)))))
    assert samples(box(b"ftyp", b"isom") + stray) is None  # tables outside a movie box: not an MP4 movie


# --- the gate's coverage policy and the expected timeline ---------------------------------------------------------------

def test_the_expected_timeline_and_the_gate_policy_are_read_exactly():
    from verifier.errors import ConfigError
    from verifier.media.policy import Expectation, policy_from_gate

    exp = Expectation.from_plan({"frames": 150, "fps": "30000/1001", "sample_rate": 48000, "channels": 2})
    assert exp.duration == Fraction(1001, 200) and exp.to_json() == {"frames": 150, "fps": "30000/1001", "sample_rate": 48000, "channels": 2}
    section = {"containers": ["mp4"], "video": {"codecs": ["h264"], "start_tolerance_frames": "1/2", "end_tolerance_frames": "1"},
               "audio": {"codecs": {"aac": {"frame_samples": 1024, "late_start_samples": 1, "early_start_samples": 2, "short_end_samples": 3,
                                            "long_end_samples": 4, "profiles": ["LC"]}}},
               "identical_audio_across_arms": "fail", "limits": {"max_seconds": 5}}
    policy = policy_from_gate(section)
    assert (policy.video_start_frames, policy.video_end_frames, policy.max_seconds, policy.max_packets_factor) == (Fraction(1, 2), 1, 5, 4)
    assert policy.audio_codecs["aac"].long_end == 4 and policy.audio_codecs["aac"].profiles == ("LC",)
    with pytest.raises(ConfigError, match="gate coverage section is unusable"):
        policy_from_gate({**section, "video": {**section["video"], "start_tolerance_frames": "1/0"}})
    with pytest.raises(ConfigError):
        policy_from_gate({k: v for k, v in section.items() if k != "containers"})


def test_a_demuxer_failing_mid_file_is_a_problem_naming_ffmpegs_error():
    import av

    from conftest import EXAMPLE
    from verifier.media.policy import DEFAULT_POLICY, Expectation

    clip = sorted((EXAMPLE / "media").glob("*.mp4"))[0]

    class Failing:  # the real container, whose demuxer fails after three packets
        def __init__(self, real):
            self.real = real

        def __getattr__(self, name):
            return getattr(self.real, name)

        def demux(self, *streams):
            for k, packet in enumerate(self.real.demux(*streams)):
                if k == 3:
                    raise av.error.InvalidDataError(1094995529, "Invalid data found when processing input")
                yield packet

    facts = demux.MediaFacts(name=clip.name, size=clip.stat().st_size)
    exp = Expectation(frames=124, fps=Fraction(24), sample_rate=32000, channels=2)
    with av.open(str(clip)) as container:
        demux._demux(Failing(container), facts, exp, DEFAULT_POLICY)
    assert facts.problems == [("X1", "demux-error", "the demuxer failed mid-file: Invalid data found when processing input")]


def test_a_repeated_pts_breaks_the_step_and_only_an_earlier_one_is_out_of_order():
    # pts 4 twice (one frame lost in its place): the step check names frame 3, not an ordering problem
    v = _stepped([0, 2, 4, 4, 6])
    assert v.step_problem is not None and v.step_problem.startswith("frame 3 at pts 4") and "out of order" not in v.step_problem
    late = [2 * k for k in range(1, demux.REORDER_WINDOW + 3)] + [2]  # pts 2 again after the window: earlier than the previous
    v = _stepped(late)
    assert v.step_problem is not None and "out of order" in v.step_problem
