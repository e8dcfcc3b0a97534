"""
Tests that kill surviving mutants of `verifier/checks/coverage.py` (issue 14): [C1] across arms and the facts cache.

`cross_arm` on hand-made facts: the same audio payload in two arms under
different video is FAIL `identical-audio` (PASS `identical-audio-allowed`
when the gate allows it), reported once at the first file; files without an
arm, audio packets or video, one arm only, or one video payload are not a
[C1] case. The facts cache: an entry is keyed by the manifest's sha256 (any
case) of that very file, read back only when it parses as facts.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

from verifier.checks import coverage as cov
from verifier.media.demux import AudioFacts, MediaFacts, VideoFacts
from verifier.media.policy import DEFAULT_POLICY, Expectation
from verifier.engine.pipeline import Context, RunData


def _facts(name: str, audio: bytes | None, video: bytes | None, packets: int = 10) -> MediaFacts:
    v = a = None
    if video is not None:
        v = VideoFacts(index=0, codec="h264", time_base=Fraction(1, 24), average_rate=Fraction(24), header_frames=0, step=Fraction(1))
        v.sha256.update(video)
    if audio is not None:
        a = AudioFacts(index=1, codec="aac", profile="LC", time_base=Fraction(1, 48000), sample_rate=48000, channels=2,
                       header_frames=0, packets=packets)
        a.sha256.update(audio)
    return MediaFacts(name=name, size=1, video=v, audio=a)


def _c1(files, policy=DEFAULT_POLICY) -> list[tuple[str, str, str | None]]:
    return [(f.status.value, f.code, f.path) for f in cov.cross_arm(files, policy)]


def test_the_same_audio_under_different_video_in_two_arms_fails_once_at_the_first_file():
    files = [("b.mp4", "candidate", _facts("b.mp4", b"same", b"v2")), ("a.mp4", "baseline", _facts("a.mp4", b"same", b"v1")),
             ("c.mp4", "candidate", _facts("c.mp4", b"other", b"v3"))]
    found = cov.cross_arm(files, DEFAULT_POLICY)
    assert [(f.status.value, f.code, f.path) for f in found] == [("FAIL", "identical-audio", "a.mp4")]
    import hashlib

    digest = hashlib.sha256(b"same").hexdigest()
    assert f"(sha256 {digest[:12]}...)" in found[0].message and found[0].observed == {"audio_sha256": digest, "files": ["a.mp4", "b.mp4"]}
    allowed = dataclasses.replace(DEFAULT_POLICY, identical_audio="allow")
    assert _c1(files, allowed) == [("PASS", "identical-audio-allowed", "a.mp4")]


def test_what_is_not_a_c1_case():
    assert _c1([("a", "baseline", _facts("a", b"s", b"v1")), ("b", "baseline", _facts("b", b"s", b"v2"))]) == []  # one arm
    assert _c1([("a", "baseline", _facts("a", b"s", b"v")), ("b", "candidate", _facts("b", b"s", b"v"))]) == []  # one video
    assert _c1([("a", None, _facts("a", b"s", b"v1")), ("b", "candidate", _facts("b", b"s", b"v2"))]) == []  # no arm
    assert _c1([("a", "baseline", _facts("a", b"s", b"v1", packets=0)), ("b", "candidate", _facts("b", b"s", b"v2"))]) == []
    assert _c1([("a", "baseline", _facts("a", None, b"v1")), ("b", "candidate", _facts("b", b"s", b"v2"))]) == []
    assert _c1([("a", "baseline", _facts("a", b"s", None)), ("b", "candidate", _facts("b", b"s", b"v2"))]) == []


EXP = Expectation(frames=24, fps=Fraction(24), sample_rate=48000, channels=2)


class _Cache:
    def __init__(self, kept=None):
        self.kept = dict(kept or {})

    def result(self, key):
        return self.kept.get(key)


def test_facts_are_cached_under_the_manifest_sha256_of_that_file():
    ctx = Context(subject=Path("."), assets=None, run=RunData(manifest={"files": [{"path": "a.mp4", "sha256": "AB" * 32}, {"path": "b.mp4"}],
                                                                      "external": [{"path": "x.mp4", "sha256": "cd" * 32}]}))
    key = cov._facts_key(ctx, "a.mp4", EXP, DEFAULT_POLICY)
    assert key is not None and key == cov._facts_key(Context(subject=Path("."), assets=None, run=RunData(manifest={"files": [
        {"path": "a.mp4", "sha256": "ab" * 32}]})), "a.mp4", EXP, DEFAULT_POLICY)
    assert cov._facts_key(ctx, "x.mp4", EXP, DEFAULT_POLICY) not in (None, key)
    assert cov._facts_key(ctx, "b.mp4", EXP, DEFAULT_POLICY) is None and cov._facts_key(ctx, "z.mp4", EXP, DEFAULT_POLICY) is None
    assert cov._facts_key(ctx, "a.mp4", dataclasses.replace(EXP, frames=25), DEFAULT_POLICY) != key


def test_cached_facts_are_read_back_only_when_they_are_facts():
    facts = _facts("a.mp4", b"s", b"v")
    assert cov._cached_facts(None, "k", "a.mp4") is None and cov._cached_facts(_Cache(), None, "a.mp4") is None
    assert cov._cached_facts(_Cache(), "k", "a.mp4") is None
    back = cov._cached_facts(_Cache({"k": (facts.to_json(), True)}), "k", "renamed.mp4")
    assert back is not None and back[1] is True and back[0].name == "renamed.mp4" and back[0].to_json()["video"] == facts.to_json()["video"]
    assert cov._cached_facts(_Cache({"k": ({"size": 1}, True)}), "k", "a.mp4") is None


# --- [S1] an unreadable file, [X3] the decode of the first video and first audio stream only -------------------------

def test_an_unreadable_file_fails_with_the_whole_expected_span_from_zero(tmp_path):
    bad = tmp_path / "x.mp4"
    bad.write_bytes(b"not media at all" * 8)
    good = tmp_path / "g.mp4"
    _two_stream_clip(good, video=[3], audio=[])
    found, facts = cov.check_file(bad, "x.mp4", EXP, DEFAULT_POLICY)
    assert facts is None and [(f.status.value, f.code) for f in found] == [("FAIL", "media-unreadable")]
    assert found[0].expected == {"video": {"start": Fraction(0), "end": EXP.duration, "frames": 24}}
    assert found[0].expected["video"]["start"] == 0 and "[S1]" in found[0].message
    found, facts = cov.check_file(good, "g.mp4", EXP, DEFAULT_POLICY)  # readable: judged, never media-unreadable
    assert facts is not None and "media-unreadable" not in [f.code for f in found]


def _two_stream_clip(path: Path, *, video: list[int], audio: list[int]) -> None:
    """Write an MP4 with one H.264 stream per entry of `video` (its frame count) and one AAC stream per entry of `audio`."""
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        vs = []
        for _ in video:
            s = out.add_stream("libx264", rate=24)
            s.width, s.height, s.pix_fmt = 32, 32, "yuv420p"
            s.codec_context.options = {"threads": "1"}
            vs.append(s)
        aus = [out.add_stream("aac", rate=48000, layout="mono") for _ in audio]
        for s, n in zip(vs, video, strict=True):
            for i in range(n):
                frame = av.VideoFrame.from_ndarray(np.full((32, 32, 3), (i * 40) % 256, dtype=np.uint8), format="rgb24")
                frame.pts = i
                out.mux(s.encode(frame))
            out.mux(s.encode(None))
        for s, n in zip(aus, audio, strict=True):
            frame = av.AudioFrame.from_ndarray(np.zeros((1, n), dtype=np.float32), format="fltp", layout="mono")
            frame.sample_rate, frame.pts = 48000, 0
            out.mux(s.encode(frame))
            out.mux(s.encode(None))


def _decoded_alone(path: Path, **stream) -> int:
    import av

    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(**stream))


def test_decoding_counts_the_first_video_stream_only(tmp_path):
    clip = tmp_path / "two-video.mp4"
    _two_stream_clip(clip, video=[3, 7], audio=[])
    found = cov.decode_errors(clip, "two-video.mp4", DEFAULT_POLICY)
    assert [(f.status.value, f.code, f.observed) for f in found] == [("PASS", "decoded", 3)]


def test_decoding_counts_the_first_audio_stream_only(tmp_path):
    clip = tmp_path / "two-audio.mp4"
    _two_stream_clip(clip, video=[], audio=[2048, 48000])
    first, both = _decoded_alone(clip, audio=0), _decoded_alone(clip, audio=0) + _decoded_alone(clip, audio=1)
    assert first < both
    found = cov.decode_errors(clip, "two-audio.mp4", DEFAULT_POLICY)
    assert [(f.status.value, f.code, f.observed) for f in found] == [("PASS", "decoded", first)]


def test_decoding_past_the_policys_time_is_one_work_limit_failure():
    from conftest import EXAMPLE

    clip = EXAMPLE / "media" / "A1-m1.mp4"
    over = cov.decode_errors(clip, "media/A1-m1.mp4", dataclasses.replace(cov.DEFAULT_POLICY, max_seconds=0))
    assert [(f.status.value, f.code, f.path) for f in over] == [("FAIL", "work-limit", "media/A1-m1.mp4")]
    assert "decoding took longer than the gate's 0 s" in over[0].message


def test_a_file_without_an_arm_does_not_end_the_c1_scan():
    files = [("a.mp4", None, _facts("a.mp4", b"s", b"v0")), ("b.mp4", "baseline", _facts("b.mp4", b"s", b"v1")),
             ("c.mp4", "candidate", _facts("c.mp4", b"s", b"v2"))]
    assert _c1(files) == [("FAIL", "identical-audio", "b.mp4")]


def test_a_decoder_failure_names_the_error_and_its_text_once(tmp_path):
    """The [X3] message gives FFmpeg's error text (`strerror`), not the whole exception with its errno and file name."""
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
    make_clips = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_clips)
    clip = make_clips.CLIPS["truncated"](tmp_path)
    (f,) = cov.decode_errors(clip, "t.mp4", DEFAULT_POLICY)
    assert (f.status.value, f.code) == ("FAIL", "decode-error")
    assert f.message.startswith("the decoder failed after ") and f.message.endswith(" [X3]")
    assert "[Errno" not in f.message and str(clip.name) not in f.message and ": None" not in f.message


# --- which media the bundle check judges: receipts' outputs and the quality index's files ----------------------------

def _quality_files(bundle: Path) -> set[str]:
    import json

    doc = json.loads((bundle / "quality-index.json").read_text())
    return {side for c in doc["comparisons"] for side in (c["reference"], c["candidate"])}


def _streams(report) -> list:
    return [f for f in report.findings if f.check == "coverage.streams"]


def test_unusable_receipts_leave_the_quality_index_media_judged(example_copy):
    from bundlekit import rehash

    from verifier.core import verify_path

    with (example_copy / "receipts.jsonl").open("a") as fh:
        fh.write("{not json\n")
    rehash(example_copy)
    found = _streams(verify_path(str(example_copy)))
    notes = [f for f in found if f.message.startswith("receipt outputs are not checked: ")]
    assert [f.status.value for f in notes] == ["UNVERIFIED"]
    covered = {f.path for f in found if f.code == "covered"}
    assert covered == _quality_files(example_copy) and len(covered) >= 2
    assert "no-media" not in {f.code for f in found}
    assert not any("quality index are not checked" in f.message for f in found)


def test_an_unusable_quality_index_leaves_the_receipts_media_judged(example_copy):
    from bundlekit import rehash

    from verifier.core import verify_path

    (example_copy / "quality-index.json").write_text('{"format": "verify-quality-index", "format_version": 1}')
    rehash(example_copy)
    found = _streams(verify_path(str(example_copy)))
    notes = [f for f in found if f.message.startswith("media named by the quality index are not checked: ")]
    assert [f.status.value for f in notes] == ["UNVERIFIED"]
    assert len({f.path for f in found if f.code == "covered"}) == len(list((example_copy / "media").glob("*.mp4")))


def test_a_bundle_without_a_quality_index_is_judged_on_its_receipts_alone(example_copy):
    from bundlekit import rehash

    from verifier.core import verify_path

    (example_copy / "quality-index.json").unlink()
    rehash(example_copy)
    found = _streams(verify_path(str(example_copy)))
    assert not any("quality index" in f.message for f in found)
    assert len({f.path for f in found if f.code == "covered"}) == len(list((example_copy / "media").glob("*.mp4")))


def test_a_gate_without_coverage_leaves_referenced_media_unverified(example_copy, tmp_path):
    import json

    from bundlekit import asset_root, edit_json, rehash

    from verifier.core import verify_path

    gate = json.loads((Path(__file__).resolve().parent.parent.parent / "gates" / "ref2va-5s-v1.json").read_text())
    gate.pop("coverage")
    gate = {k: v for k, v in gate.items() if k not in ("id", "version", "description")}
    root = asset_root(tmp_path, {"nocov-v1": gate})
    edit_json(example_copy / "manifest.json", lambda m: m.__setitem__("gate", "nocov-v1"))
    rehash(example_copy)
    found = _streams(verify_path(str(example_copy), asset_root=root))
    assert [(f.status.value, f.code) for f in found] == [("UNVERIFIED", "no-coverage-gate")]
    assert "has no coverage section, so the 20 referenced media file(s) are not judged" in found[0].message


def test_a_receipts_output_belongs_to_the_plans_arm_of_its_server_else_to_the_arm_it_names():
    """Kills the arm lookup of `_media_of_bundle`: the plan's arm of the receipt's server wins over the arm the receipt names."""
    from verifier.readers.native import from_documents

    digest = "ab" * 32
    plan = {"arms": [{"id": "base", "label": "A"}, {"id": "cand", "label": "B"}], "servers": [{"id": "s1", "arm": "base"}], "requests": []}
    receipts = [{"kind": "request", "request_id": "r1", "server": "s1", "arm": "cand", "outputs": [{"path": "a.wav", "sha256": digest}]},
                {"kind": "request", "request_id": "r2", "server": "s9", "arm": "cand", "outputs": [{"path": "b.wav", "sha256": digest}]},
                {"kind": "request", "request_id": "r3", "arm": "cand", "outputs": [{"path": "c.wav", "sha256": digest}]}]
    model = from_documents({"plan": plan, "receipts": receipts}, manifest=None, names={})
    ctx = Context(subject=Path("."), assets=None, gate={}, run=RunData(evidence=model))
    media, notes = cov._media_of_bundle(ctx)
    assert media == {"a.wav": "base", "b.wav": "cand", "c.wav": "cand"} and notes == []


def test_a_profile_file_matched_then_gone_is_not_verified_never_read(tmp_path):
    """Kills dropping `bundle.exists(rel)` in `judge_media`'s lookup (issue 36, one body): a file a profile-read bundle matched that is
    no longer there (or no longer a safe regular file) is UNVERIFIED `media-not-verified`, never handed to the demuxer."""
    from verifier.readers.tree import Tree

    ctx = Context(subject=tmp_path, assets=None, bundle=Tree(tmp_path), run=RunData(matched={"v.mp4": ("v.mp4", "ab" * 32)}))
    exp = Expectation.from_plan({"frames": 121, "fps": "24/1", "sample_rate": 32000, "channels": 2})
    found = [(f.status.value, f.code, f.path) for f in cov.judge_media(ctx, [cov.Asked(DEFAULT_POLICY, exp, {"v.mp4": "a"}, {})])]
    assert found == [("UNVERIFIED", "media-not-verified", "v.mp4")]
