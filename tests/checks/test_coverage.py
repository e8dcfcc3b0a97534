"""
Coverage (issue 3): each generated clip with its expected verdict and finding codes.

Clips come from `tests/media/make_clips.py`, written once per session into a
temporary directory (about 1.5 s). Cases follow `shared/docs/media-notes.md`
C1/C2, plus field-failure rows H-17 and H-18 and the bad-input list of the
issue. Codes are asserted as exact sets, so a rule that stops firing (or
starts firing on a good clip) turns a test red.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import time
from fractions import Fraction
from pathlib import Path

import pytest
from bundlekit import ROOT, codes, read_lines, rehash, sha, write_lines

from verifier.checks import coverage
from verifier.checks.coverage import DEFAULT_POLICY, Expectation, check_file, cross_arm, policy_from_gate
from verifier.core import verify_media, verify_path
from verifier.model.findings import Status
from verifier.trust.assets import assets

pytestmark = pytest.mark.media

_spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
make_clips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_clips)

GATE = "ref2va-5s-v1"
EXP = Expectation(frames=124, fps=Fraction(24), sample_rate=32000, channels=2)


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> dict[str, Path]:
    return make_clips.make_all(tmp_path_factory.mktemp("clips"))


def media(paths, **kw):
    return verify_media([str(p) for p in paths], **kw)


def file_codes(report) -> set[str]:
    return {f.code for f in report.findings if f.check == "coverage.streams"}


# name -> (verdict, exact set of coverage.streams codes) under the shipped gate ref2va-5s-v1
CASES = {
    "full": ("PASS", {"covered"}),
    "full_armb": ("PASS", {"covered"}),
    "short_audio": ("FAIL", {"audio-end-short"}),
    "short_audio_armb": ("FAIL", {"audio-end-short"}),
    "late_audio": ("FAIL", {"audio-start-late"}),
    "shifted_audio": ("FAIL", {"audio-start-late", "audio-end-long"}),
    "drop_tail": ("FAIL", {"video-frame-count", "video-end"}),
    "gap": ("FAIL", {"frame-rate-mismatch", "video-frame-count", "video-timestamps"}),
    "no_audio": ("FAIL", {"stream-count"}),
    "no_video": ("FAIL", {"stream-count"}),
    "no_editlist": ("FAIL", {"video-start", "video-end"}),
    "src_165888": ("PASS", {"covered"}),
    "mp3": ("FAIL", {"codec-not-allowed"}),
    "mpeg4": ("PASS", {"covered"}),
    "truncated": ("FAIL", {"corrupt-packet", "header-count-mismatch", "video-frame-count", "video-timestamps",
                           "video-end", "audio-end-short"}),
    "zero_bytes": ("FAIL", {"media-unreadable"}),
    "text": ("FAIL", {"media-unreadable"}),
    "vfr": ("FAIL", {"frame-rate-mismatch", "video-timestamps", "video-end"}),
    "absurd_start": ("FAIL", {"media-unreadable"}),  # Matroska is not on the gate's container list
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_clip_under_the_shipped_gate(clips, name):
    verdict, expected = CASES[name]
    report = media([clips[name]], gate_id=GATE)
    assert (report.verdict, file_codes(report)) == (verdict, expected)
    assert int(report.exit_code) == (0 if verdict == "PASS" else 1)
    for f in report.findings:  # every failure names the file and the rule
        assert f.path == str(clips[name])
        if f.status is Status.FAIL:
            assert f.message.rstrip().endswith("]") and "[" in f.message


def test_short_audio_finding_shows_expected_and_observed_per_stream(clips):
    report = media([clips["short_audio"]], gate_id=GATE)
    (f,) = report.findings
    assert "audio stream 1 ends at 0.500 s, expected 5.167 s (tolerance 32.0 ms short) [A3]" in f.message
    assert f.expected["audio"] == {"start": 0, "end": Fraction(31, 6), "samples": Fraction(496000, 3),
                                   "sample_rate": 32000, "channels": 2}
    assert f.observed["audio"]["end"] == Fraction(1, 2) and f.observed["audio"]["samples"] == 16000
    assert f.observed["video"]["frames"] == 124 and f.observed["video"]["end"] == Fraction(31, 6)
    assert f.to_json()["observed"]["audio"]["end"] == "1/2"  # exact in the JSON report too


def test_exact_samples_come_from_timestamps_not_decoding(clips):
    # both decode to 165,888 samples; the packets say 165,333 and 165,888 (media-notes C3)
    full = media([clips["full"]], gate_id=GATE).findings[0]
    genuine = media([clips["src_165888"]], gate_id=GATE).findings[0]
    assert full.observed["audio"]["samples"] == 165333
    assert genuine.observed["audio"]["samples"] == 165888
    assert full.observed["audio"]["start"] == 0 and full.observed["audio"]["end"] == Fraction(165333, 32000)


def test_mp3_passes_when_the_command_line_admits_it(clips):
    report = media([clips["mp3"]], frames=124, fps="24", sample_rate=32000, channels=2, audio_codecs=("mp3",))
    assert report.verdict == "PASS", [f.message for f in report.findings]
    assert report.findings[0].observed["audio"]["samples"] == 165935  # LAME's 602 end padding is not trimmed


def test_mpeg4_fails_when_only_h264_is_admitted(clips):
    report = media([clips["mpeg4"]], gate_id=GATE, video_codecs=("h264",))
    assert file_codes(report) == {"codec-not-allowed"}


def test_truncated_file_fails_per_stream_on_header_counts_and_corruption(clips):
    report = media([clips["truncated"]], gate_id=GATE)
    x2 = sorted(f.message for f in report.findings if f.code == "header-count-mismatch")
    assert len(x2) == 2
    assert x2[0].startswith("audio stream 1 header says 163 packets but ") and x2[0].endswith("[X2]")
    assert x2[1].startswith("video stream 0 header says 124 frames but ") and x2[1].endswith("[X2]")
    (x1,) = [f for f in report.findings if f.code == "corrupt-packet"]
    assert x1.message.startswith("video stream 0 has 1 packet(s) flagged corrupt")


def test_truncated_file_fails_a_full_decode_too(clips):
    report = media([clips["truncated"]], gate_id=GATE, decode=True)
    assert ("coverage.decode", "FAIL", "decode-error") in codes(report)
    assert ("coverage.decode", "PASS", "decoded") in codes(media([clips["full"]], gate_id=GATE, decode=True))


def test_absurd_start_fails_fast_when_matroska_is_admitted(clips):
    t0 = time.monotonic()
    report = media([clips["absurd_start"]], gate_id=GATE, containers=("matroska,webm",))
    assert time.monotonic() - t0 < 5
    assert report.verdict == "FAIL"
    assert {"audio-start-late", "audio-timestamps"} <= file_codes(report)
    late = next(f for f in report.findings if f.code == "audio-start-late")
    # skip samples are samples (1024 / 32000 s), not ticks of the 1 ms time base: the start is exact (issue 13)
    assert "starts at 1700000000.000 s" in late.message


def test_h17_webm_without_header_frame_count_passes(clips):
    # H-17: header frames = 0 means unknown; the demuxed count (48) and the timestamps decide
    report = media([clips["h17_webm"]], frames=48, fps="24", containers=("matroska,webm",), video_codecs=("vp9",))
    assert report.verdict == "PASS", [f.message for f in report.findings]
    (f,) = report.findings
    assert f.observed["video"]["frames"] == 48 and f.observed["video"]["end"] == Fraction(1999, 1000)
    assert "audio" not in f.observed
    wrong = media([clips["h17_webm"]], frames=49, fps="24", containers=("matroska,webm",), video_codecs=("vp9",))
    assert file_codes(wrong) == {"video-frame-count", "video-end"}


def test_h18_no_editlist_judges_each_stream_not_the_container(clips):
    # H-18: the container reads 0.400 s for 10 frames at 30 fps (0.3333 s); video and audio are reported separately
    report = media([clips["h18_noeditlist"]], frames=10, fps="30", sample_rate=48000, channels=2)
    assert report.verdict == "FAIL"
    assert file_codes(report) == {"video-start", "video-end", "audio-end-long"}
    long = next(f for f in report.findings if f.code == "audio-end-long")
    assert long.observed["audio"]["end"] == Fraction(2, 5) and long.observed["video"]["start"] == Fraction(1, 15)
    assert "tolerance 65.3 ms long" in long.message  # 3136 samples at 48 kHz: tolerances scale with the rate


EDITS = {
    # rules no generated clip can break on its own (an MP4 muxer trims negative starts); the facts are edited
    "audio-start-early": lambda f: setattr(f.audio, "skip", -3200),  # starts 0.1 s early, beyond 2112 samples
    "audio-gap": lambda f: f.audio.gaps.append((1024, 2048)),
    "sample-rate-mismatch": lambda f: setattr(f.audio, "sample_rate", 48000),
    "channel-mismatch": lambda f: setattr(f.audio, "channels", 1),
    "codec-not-allowed": lambda f: setattr(f.audio, "profile", "HE-AAC"),
    "frame-rate-mismatch": lambda f: setattr(f.video, "average_rate", Fraction(30000, 1001)),
    "stream-count": lambda f: setattr(f, "n_video", 2),
    "container-not-allowed": lambda f: setattr(f, "format", "matroska,webm"),
}


@pytest.mark.parametrize("code", sorted(EDITS))
def test_rule_fires_on_edited_facts(clips, code):
    facts = coverage.probe(clips["full"], "full.mp4", EXP, DEFAULT_POLICY)
    assert [f.code for f in coverage.judge(facts, EXP, DEFAULT_POLICY)] == ["covered"]
    EDITS[code](facts)
    found = coverage.judge(facts, EXP, DEFAULT_POLICY)
    assert {f.code for f in found} == {code}
    if code == "audio-start-early":
        assert found[0].observed["audio"]["start"] == Fraction(-4224, 32000)


def test_work_is_bounded_per_file(clips):
    few = Expectation(frames=10, fps=Fraction(24), sample_rate=32000, channels=2)
    findings, _ = check_file(clips["full"], "full.mp4", few, DEFAULT_POLICY)
    assert "work-limit" in {f.code for f in findings}
    tiny = dataclasses.replace(DEFAULT_POLICY, max_file_bytes=1000)
    findings, facts = check_file(clips["full"], "full.mp4", EXP, tiny)
    assert [f.code for f in findings] == ["work-limit"] and facts is None


def test_directory_and_symlink_are_fail_not_error(clips, tmp_path):
    (tmp_path / "link.mp4").symlink_to(clips["full"])
    report = media([tmp_path, tmp_path / "link.mp4"], gate_id=GATE)
    assert [(f.status, f.code) for f in report.findings] == [(Status.FAIL, "media-unreadable")] * 2


def test_nested_opens_are_refused(clips, tmp_path):
    playlist = tmp_path / "playlist.mp4"
    playlist.write_text(f"#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:5.2,\n{clips['full']}\n#EXT-X-ENDLIST\n")
    report = media([playlist], gate_id=GATE, containers=("hls",))
    assert report.verdict == "FAIL" and file_codes(report) == {"media-unreadable"}


def test_cross_arm_identical_audio_under_different_video(clips):
    judged = []
    for name, arm in (("short_audio", "A"), ("short_audio_armb", "B"), ("full", "A"), ("full_armb", "B")):
        _, facts = check_file(clips[name], name, EXP, DEFAULT_POLICY)
        judged.append((name, arm, facts))
    found = cross_arm(judged, DEFAULT_POLICY)
    assert [(f.status, f.code) for f in found] == [(Status.FAIL, "identical-audio")]
    assert found[0].observed["files"] == ["short_audio", "short_audio_armb"]
    allowed = cross_arm(judged, dataclasses.replace(DEFAULT_POLICY, identical_audio="allow"))
    assert [(f.status, f.code) for f in allowed] == [(Status.PASS, "identical-audio-allowed")]
    same_video = [(n, a, f) for n, a, f in judged if n == "short_audio"] * 2
    assert cross_arm([(same_video[0][0], "A", same_video[0][2]), ("copy", "B", same_video[1][2])], DEFAULT_POLICY) == []


def test_default_policy_is_the_shipped_gate():
    assert policy_from_gate(assets().gate(GATE)["coverage"]) == DEFAULT_POLICY


def test_cli_media_exit_codes(run, clips):
    ok = run("media", str(clips["full"]), "--frames", "124", "--fps", "24", "--sample-rate", "32000", "--channels", "2")
    assert ok.exit_code == 0
    bad = run("media", str(clips["full"]), str(clips["short_audio"]), "--gate", GATE, "-f", "json")
    assert bad.exit_code == 1
    doc = json.loads(bad.stdout)
    assert doc["verdict"] == "FAIL" and doc["kind"] == "media"
    assert {f["code"] for f in doc["findings"]} == {"covered", "audio-end-short"}
    assert run("media", str(clips["full"]), "--fps", "24").exit_code == 2  # no --frames, no gate
    assert run("media", str(clips["full"]), "--gate", GATE, "--sample-rate", "32000", "--audio-codec", "opus").exit_code == 2


# --- the bundle ------------------------------------------------------------------------------------------


def _replace_media(bundle: Path, names: list[str], **clip) -> None:
    """Rewrite `names` (bundle paths) as generated clips, update receipts' output digests, rehash the manifest."""
    for i, name in enumerate(names):
        make_clips.write_clip(bundle / name, video_codec="mpeg4", pattern_offset=7 * i, **clip)
    receipts = read_lines(bundle / "receipts.jsonl")
    for r in receipts:
        for o in r.get("outputs", []):
            if o["path"] in names:
                o["sha256"] = sha(bundle / o["path"])
    write_lines(bundle / "receipts.jsonl", receipts)
    rehash(bundle)


def test_example_bundle_passes_with_coverage_on():
    report = verify_path(str(ROOT / "examples" / "ref2va-5s"))
    assert report.verdict == "PASS"
    assert ("coverage.streams", "PASS", "covered") in codes(report)
    assert sum(f.code == "covered" for f in report.findings) == 20
    assert "coverage.streams" in [c.check for c in report.roster]


def test_candidate_mp4s_with_half_second_audio_fail_on_coverage(example_copy):
    quality = json.loads((example_copy / "quality-index.json").read_text())
    candidates = sorted({c["candidate"] for c in quality["comparisons"]})
    _replace_media(example_copy, candidates, audio_samples=16000)
    report = verify_path(str(example_copy))
    assert report.verdict == "FAIL"
    failed = {(f.check, f.code) for f in report.findings if f.status is Status.FAIL}
    assert failed == {("coverage.streams", "audio-end-short")}  # integrity, plan, quality all still hold
    assert {f.path for f in report.findings if f.code == "audio-end-short"} == set(candidates)


def test_both_arms_with_the_same_short_track_fail_each_file_and_across_arms(example_copy):
    names = sorted(p.relative_to(example_copy).as_posix() for p in (example_copy / "media").glob("*.mp4"))
    _replace_media(example_copy, names, audio_samples=16000)  # same audio payload, different video per file
    report = verify_path(str(example_copy))
    failed = [f for f in report.findings if f.status is Status.FAIL]
    assert {f.code for f in failed} == {"audio-end-short", "identical-audio"}
    assert sum(f.code == "audio-end-short" for f in failed) == len(names)


def test_plan_expecting_other_output_than_the_gate_fails(example_copy):
    plan = json.loads((example_copy / "plan.json").read_text())
    plan["expected_output"]["frames"] = 100
    (example_copy / "plan.json").write_text(json.dumps(plan, indent=2))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert ("coverage.streams", "FAIL", "gate-plan-mismatch") in codes(report)
    assert ("coverage.streams", "FAIL", "video-frame-count") in codes(report)  # judged against the plan


def test_unrelated_integrity_failure_does_not_block_coverage(example_copy):
    (example_copy / "notes.txt").write_text("unlisted")
    report = verify_path(str(example_copy))
    assert ("integrity.files", "FAIL", "unlisted-file") in codes(report)
    assert ("coverage.streams", "PASS", "covered") in codes(report)


def test_media_failing_integrity_is_not_read(example_copy):
    shutil.copy(example_copy / "media" / "A1-w1.mp4", example_copy / "media" / "A1-m1.mp4")  # no rehash
    report = verify_path(str(example_copy))
    assert codes(report) & {("integrity.files", "FAIL", "sha256-mismatch"), ("integrity.files", "FAIL", "size-mismatch")}
    unread = [f for f in report.findings if f.code == "media-not-verified"]
    assert [(f.status, f.path) for f in unread] == [(Status.UNVERIFIED, "media/A1-m1.mp4")]


def test_a_fifo_named_like_a_clip_is_refused_and_never_hangs(tmp_path):
    """A special file on the command line is refused with one line, exit 2, never opened (issue 42; tests/end_to_end/test_hostile_round2.py)."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "clip.mp4"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "verifier", "media", str(fifo), "--gate", "ref2va-5s-v1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().endswith("is a FIFO (named pipe), not a file or directory; special files are never opened")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_sample_tables_declaring_millions_of_samples_are_refused_before_opening(tmp_path):
    import subprocess
    import sys

    from verifier.checks.coverage import declared_mp4_samples

    clip = (Path(__file__).resolve().parent.parent.parent / "examples" / "ref2va-5s" / "media" / "A1-m1.mp4").read_bytes()
    with open(tmp_path / "x", "wb+") as handle:
        handle.write(clip)
        assert declared_mp4_samples(handle, len(clip)) == 124 + 163  # 124 video frames, 163 AAC packets
    at = clip.index(b"stsz")
    forged = bytearray(clip)
    forged[at + 12:at + 16] = (50_000_000).to_bytes(4, "big")  # stsz sample_count (after version/flags, sample_size)
    path = tmp_path / "forged.mp4"
    path.write_bytes(bytes(forged))
    result = subprocess.run([sys.executable, "-m", "verifier", "media", str(path), "--gate", "ref2va-5s-v1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "work-limit" in result.stdout and "declare 50000" in result.stdout


def test_a_header_of_endless_boxes_is_refused_before_ffmpeg_parses_it(tmp_path):
    import subprocess
    import sys

    clip = (Path(__file__).resolve().parent.parent.parent / "examples" / "ref2va-5s" / "media" / "A1-m1.mp4").read_bytes()
    ftyp_size = int.from_bytes(clip[:4], "big")
    padded = clip[:ftyp_size] + (8).to_bytes(4, "big") * 0 + b"\x00\x00\x00\x08free" * 100_001 + clip[ftyp_size:]
    path = tmp_path / "boxes.mp4"
    path.write_bytes(padded)
    result = subprocess.run([sys.executable, "-m", "verifier", "media", str(path), "--gate", "ref2va-5s-v1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "more than 100000 boxes" in result.stdout


# ---- issue 13: priming/skip samples are samples, the Matroska time base is 1/1000 ----

_MKV = {"frames": 124, "fps": "24", "sample_rate": 32000, "channels": 2, "containers": ("matroska,webm",),
        "video_codecs": ("h264",), "audio_codecs": ("aac",)}


@pytest.mark.parametrize("sample_rate", [32000, 48000])
def test_matroska_aac_starting_at_zero_is_not_late(tmp_path, sample_rate):
    """Skip samples (1024 AAC priming) are converted to seconds by the sample rate, not added to 1 ms ticks (was 'starts at 0.992 s')."""
    write_clip = make_clips.write_clip

    samples = round(124 * sample_rate / 24)
    clip = write_clip(tmp_path / "a.mkv", container_format="matroska", sample_rate=sample_rate, audio_samples=samples)
    import av

    with av.open(str(clip)) as c:
        assert c.streams.audio[0].time_base == Fraction(1, 1000)
    report = verify_media([str(clip)], **{**_MKV, "sample_rate": sample_rate})
    assert report.verdict == "PASS", [f.message for f in report.findings if f.status != "PASS"]


def test_matroska_aac_starting_late_still_fails(tmp_path):
    write_clip = make_clips.write_clip

    clip = write_clip(tmp_path / "late.mkv", container_format="matroska", audio_start=3200, audio_samples=165333 - 3200)
    report = verify_media([str(clip)], **_MKV)
    assert "audio-start-late" in file_codes(report)
