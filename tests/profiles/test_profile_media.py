"""
Issue 10: the coverage family serves a profile: output media its receipts name are judged by the native coverage rules.

The real vllm-omni PR #6540 evidence (corpus, read through a copy) names each
output MP4 in its records with the shape it recorded (`/validation`: frames,
fps, sample rate, channels) and lists the MP4s, published under another path,
in `SHA256SUMS.txt`. With the profile's media mapping given an `expected`
shape and a `coverage_gate`, a supplied clip is judged under `coverage.streams`
exactly as the native pipeline judges it: a clip that covers its record's
shape PASSes, a truncated audio track or a record expecting other frames
FAILs with the native codes, an output not supplied is UNVERIFIED.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ROOT, copy_bundle, make_assets, profile_document

from verifier.checks.coverage import check_file, policy_from_gate
from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.media.policy import Expectation

_spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
make_clips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_clips)  # type: ignore[union-attr]

PID = "vllm-omni-pr6540"
SET = "runs-by-duration"
RECORD = "10s-measured-1"  # artifacts/results.json, 6th record: 241 frames at 24/1, 32 kHz stereo, published as videos/10s-measured-1.mp4
SHAPE = {"frames": {"pointer": "/validation/frames"}, "fps": {"pointer": "/validation/fps"},
         "sample_rate": {"pointer": "/validation/audio_sample_rate"}, "channels": {"pointer": "/validation/audio_channels"}}
FRAMES = 241
FULL = round(Fraction(FRAMES, 24) * 32000)  # samples per channel that cover 241 frames at 24 fps


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pr6540-clips")
    return {"covers": make_clips.write_clip(d / "covers.mp4", frames=FRAMES, audio_samples=FULL),
            "short_audio": make_clips.write_clip(d / "short_audio.mp4", frames=FRAMES, audio_samples=16000)}


def _profile(**media) -> dict:
    doc = copy.deepcopy(profile_document(PID))
    doc["receipts"][SET]["media"] = {"pointer": "/output", "expected": SHAPE, "coverage_gate": "ref2va-5s-v1", **media}
    doc["receipts"]["runs"]["media"] = {"pointer": "/output"}  # the other set: presence only, so both parts of coverage.streams run
    return doc


def _bundle(tmp_path: Path, clip: Path | None, frames: int | None = None, *, listed: bool = True) -> Path:
    """
    Copy the corpus folder; supply `clip` as the record's published MP4 (re-listing its digest, as a producer re-publishing would).

    With `listed` False the clip is put where the record says the run wrote
    it (`outputs/`), a file the manifest does not list, and the list is left as published.
    """
    bundle = copy_bundle("vllm-omni-pr6540", tmp_path)
    if clip is None:
        return bundle
    data = clip.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    (bundle / ("videos" if listed else "outputs")).mkdir()
    (bundle / ("videos" if listed else "outputs") / f"{RECORD}.mp4").write_bytes(data)
    results = bundle / "artifacts" / "results.json"
    doc = json.loads(results.read_text())
    (record,) = [r for r in doc["records"] if r["name"] == RECORD]
    old = record["sha256"]
    record["sha256"], record["bytes"] = sha, len(data)
    if frames is not None:
        record["validation"]["frames"] = frames
    results.write_text(json.dumps(doc, indent=2))
    sums = bundle / "SHA256SUMS.txt"
    if listed:
        sums.write_text(sums.read_text().replace(old, sha, 1))
    return bundle


def _coverage(report) -> list[tuple[str, str, str | None]]:
    """The judged findings of `coverage.streams` (`profile_media.asked`), not those saying only whether an output is there (`_presence`)."""
    return [(f.status.value, f.code, f.path) for f in report.findings if f.check == "coverage.streams" and f not in _presence(report)]


def _presence(report) -> list:
    """The findings of `coverage.streams` on the outputs of a set that maps no expected shape (`profile_media.present`)."""
    return [f for f in report.findings if f.check == "coverage.streams" and f.message.endswith(("so decode and coverage checks cannot run",
                                                                                                "so decode and coverage checks are not run"))]


def _native_codes(clip: Path, frames: int = FRAMES) -> set[tuple[str, str]]:
    gate = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
    findings, _facts = check_file(clip, "x.mp4", Expectation(frames=frames, fps=Fraction(24), sample_rate=32000, channels=2),
                                  policy_from_gate(gate["coverage"]))
    return {(f.status.value, f.code) for f in findings}


def test_a_supplied_clip_that_covers_its_records_shape_passes_under_the_native_id(tmp_path, clips):
    report = verify_path(str(_bundle(tmp_path, clips["covers"])), asset_root=make_assets(tmp_path, {PID: _profile()}))
    mine = [(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"]
    assert mine and {s for s, _ in mine} == {"PASS"}
    assert set(mine) == _native_codes(clips["covers"])  # the very findings the native loop gives this file
    others = [(s, c) for s, c, p in _coverage(report) if p != f"videos/{RECORD}.mp4"]
    assert others and set(others) == {("UNVERIFIED", "media-not-verified")}  # published elsewhere, not supplied
    assert {f.path for f in _presence(report)} == {f"artifacts/{d}/results.json" for d in ("alignment-after", "alignment-before", "alignment-rebased", "native-2k")}
    assert all(f.status == "UNVERIFIED" and f.code == "media-absent" for f in _presence(report))  # the other set's, not artifacts/results.json: judged
    assert report.verdict == "INCOMPLETE"


@pytest.mark.parametrize("clip,frames", [("short_audio", None), ("covers", 240)])
def test_a_truncated_audio_track_or_a_record_expecting_other_frames_fails_as_natively(tmp_path, clips, clip, frames):
    report = verify_path(str(_bundle(tmp_path, clips[clip], frames)), asset_root=make_assets(tmp_path, {PID: _profile()}))
    mine = {(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"}
    native = _native_codes(clips[clip], frames or FRAMES)
    assert ("FAIL" in {s for s, _ in native}) and mine == native
    assert report.verdict == "FAIL"


def test_a_clip_the_manifest_does_not_list_is_not_read(tmp_path, clips):
    report = verify_path(str(_bundle(tmp_path, clips["short_audio"], listed=False)), asset_root=make_assets(tmp_path, {PID: _profile()}))
    mine = [(s, c) for s, c, p in _coverage(report) if p == f"outputs/{RECORD}.mp4"]
    assert mine == [("UNVERIFIED", "media-not-verified")]  # a broken clip, but never demuxed: its bytes match no listed digest


def test_an_expected_shape_the_record_cannot_give_is_unverified(tmp_path, clips):
    doc = _profile(expected={**SHAPE, "frames": {"pointer": "/validation/no_such_member"}})
    report = verify_path(str(_bundle(tmp_path, clips["covers"])), asset_root=make_assets(tmp_path, {PID: doc}))
    codes = {c for s, c, _ in _coverage(report) if s == "UNVERIFIED"}
    assert "expected-unreadable" in codes and not [c for s, c, _ in _coverage(report) if s == "PASS"]


def test_the_shipped_profile_judges_the_media_and_without_an_expected_shape_keeps_presence_only(tmp_path):
    shipped = verify_path(str(_bundle(tmp_path, None)))
    assert {(s, c) for s, c, _p in _coverage(shipped)} == {("UNVERIFIED", "media-not-verified")}  # the MP4s are published elsewhere
    assert not _presence(shipped) and shipped.verdict == "INCOMPLETE"
    doc = copy.deepcopy(profile_document(PID))
    for spec in doc["receipts"].values():
        if "media" in spec:
            spec["media"] = {"pointer": spec["media"]["pointer"]}
    report = verify_path(str(_bundle(tmp_path / "bare", None)), asset_root=make_assets(tmp_path, {PID: doc}))
    assert not _coverage(report) and {f.code for f in _presence(report)} == {"media-absent"}  # presence only, under the coverage family's one id
    assert [i.check for i in report.roster if i.check.startswith("coverage.")] == ["coverage.streams"]


def test_a_coverage_gate_that_is_unknown_or_states_no_policy_stops_the_run(tmp_path):
    from verifier.trust.assets import write_inventory

    bundle = _bundle(tmp_path, None)
    with pytest.raises(ConfigError, match="unknown gate 'no-such-gate'"):
        verify_path(str(bundle), asset_root=make_assets(tmp_path / "a", {PID: _profile(coverage_gate="no-such-gate")}))
    root = Path(make_assets(tmp_path / "b", {PID: _profile(coverage_gate="bare-v1")}))
    gate = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
    del gate["coverage"]
    (root / "gates" / "bare-v1.json").write_text(json.dumps({**gate, "id": "bare-v1"}))
    write_inventory(root)
    with pytest.raises(ConfigError, match="coverage_gate 'bare-v1' has no coverage section"):
        verify_path(str(bundle), asset_root=str(root))


MAPPING = {"frames": {"pointer": "/frames"}, "fps": {"pointer": "/fps"}, "sample_rate": {"value": 32000}, "channels": {"value": 2}}


@pytest.mark.parametrize("raw,fault", [
    ({"frames": 121, "fps": "24/1"}, None), ({"frames": 121, "fps": "30000/1001"}, None), ({"frames": "121", "fps": 24}, None),
    ({"frames": 121, "fps": 0}, "fps"), ({"frames": 121, "fps": True}, "fps"), ({"frames": 121, "fps": "x"}, "fps"),
    ({"frames": 121}, "fps"), ({"frames": "1.5", "fps": 24}, "frames"), ({"frames": 0, "fps": 24}, "frames"),
])
def test_expected_of_reads_whole_counts_and_positive_rates(raw, fault):
    from verifier.checks.profile_media import expected_of

    if fault is None:
        exp = expected_of(raw, MAPPING)
        assert (exp.frames, exp.fps, exp.sample_rate, exp.channels) == (121, Fraction(str(raw["fps"])), 32000, 2)
    else:
        with pytest.raises(ValueError, match=fault):
            expected_of(raw, MAPPING)


def test_two_records_of_identical_bytes_that_expect_different_shapes_are_each_judged(tmp_path, clips):
    bundle = _bundle(tmp_path, clips["covers"])
    results = bundle / "artifacts" / "results.json"
    doc = json.loads(results.read_text())
    (mine,) = [r for r in doc["records"] if r["name"] == RECORD]
    (other,) = [r for r in doc["records"] if r["name"] == "10s-measured-2"]  # after RECORD: a first-record-wins rule would miss it
    other["sha256"], other["bytes"] = mine["sha256"], mine["bytes"]
    other["validation"]["frames"] = FRAMES - 1
    results.write_text(json.dumps(doc, indent=2))
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile()}))
    judged = {(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"}
    assert ("PASS", "covered") in judged and ("FAIL", "video-frame-count") in judged and report.verdict == "FAIL"


def test_profile_explain_runs_the_coverage_family_on_the_real_evidence():
    from conftest import CORPUS

    from verifier.commands.explain import explain

    out, code = explain(PID, str(CORPUS / "vllm-omni-pr6540"))
    assert code == 0 and "verifier-error" not in out and "media-not-verified" in out


def test_an_unknown_coverage_gate_names_the_profile_and_the_pointer(tmp_path):
    with pytest.raises(ConfigError, match=r"profile vllm-omni-pr6540: invalid profile at /receipts/\*/media/coverage_gate: unknown gate"):
        verify_path(str(_bundle(tmp_path, None)), asset_root=make_assets(tmp_path, {PID: _profile(coverage_gate="nope")}))


def _published_elsewhere(tmp_path: Path, clip: Path) -> tuple[Path, Path]:
    """Return `(bundle, artifacts)`: the copy lists `clip` as the record's published MP4 but does not hold it; `artifacts` holds it at its listed path."""
    bundle = _bundle(tmp_path, clip)
    artifacts = tmp_path / "published"
    (artifacts / "videos").mkdir(parents=True)
    (bundle / "videos" / f"{RECORD}.mp4").rename(artifacts / "videos" / f"{RECORD}.mp4")
    (bundle / "videos").rmdir()
    return bundle, artifacts


def _integrity(report, path: str) -> set[tuple[str, str]]:
    return {(f.status.value, f.code) for f in report.findings if f.check == "integrity.files" and f.path == path}


@pytest.mark.parametrize("clip,verdict", [("covers", "INCOMPLETE"), ("short_audio", "FAIL")])
def test_media_published_elsewhere_and_supplied_by_artifacts_are_judged_as_if_in_the_bundle(tmp_path, clips, clip, verdict):
    bundle, artifacts = _published_elsewhere(tmp_path, clips[clip])
    assets = make_assets(tmp_path, {PID: _profile()})
    before = sorted((p.relative_to(bundle), p.stat().st_mtime_ns) for p in bundle.rglob("*"))
    absent = verify_path(str(bundle), asset_root=assets)
    assert _integrity(absent, f"videos/{RECORD}.mp4") == {("UNVERIFIED", "external-not-supplied")}
    assert {(s, c) for s, c, p in _coverage(absent) if p == f"videos/{RECORD}.mp4"} == {("UNVERIFIED", "media-not-verified")}
    report = verify_path(str(bundle), asset_root=assets, artifacts=str(artifacts))
    assert _integrity(report, f"videos/{RECORD}.mp4") == {("PASS", "external-match")}
    mine = {(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"}
    assert mine == _native_codes(clips[clip]) and report.verdict == verdict  # judged exactly as a clip inside the bundle is
    others = {(s, c) for s, c, p in _coverage(report) if p != f"videos/{RECORD}.mp4"}
    assert others == {("UNVERIFIED", "media-not-verified")}  # not under DIR either
    assert sorted((p.relative_to(bundle), p.stat().st_mtime_ns) for p in bundle.rglob("*")) == before  # never written


def test_a_supplied_file_whose_bytes_contradict_the_listing_fails_and_is_never_demuxed(tmp_path, clips):
    bundle, artifacts = _published_elsewhere(tmp_path, clips["covers"])
    (artifacts / "videos" / f"{RECORD}.mp4").write_bytes(clips["short_audio"].read_bytes())  # other bytes than SHA256SUMS lists
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile()}), artifacts=str(artifacts))
    assert _integrity(report, f"videos/{RECORD}.mp4") == {("FAIL", "external-mismatch")}
    assert {(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"} == {("UNVERIFIED", "media-not-verified")}
    assert report.verdict == "FAIL"


def test_a_directory_that_lacks_a_listed_file_says_where_it_looked(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    report = verify_path(str(_bundle(tmp_path, None)), artifacts=str(empty))
    found = [f for f in report.findings if f.check == "integrity.files" and f.code == "external-not-supplied"]
    assert found and all(f"not found at {empty / f.path}" in f.message for f in found) and report.verdict == "INCOMPLETE"


def test_bytes_that_change_after_they_matched_fail_integrity_unchanged(tmp_path, clips, monkeypatch):
    from verifier.checks import coverage

    bundle, artifacts = _published_elsewhere(tmp_path, clips["short_audio"])
    supplied = artifacts / "videos" / f"{RECORD}.mp4"
    real = coverage.check_file

    def swapped(path, *args, **kw):  # another process swaps the file between the hash and the demux
        supplied.write_bytes(clips["covers"].read_bytes())
        return real(path, *args, **kw)

    monkeypatch.setattr(coverage, "check_file", swapped)
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile()}), artifacts=str(artifacts))
    changed = [f for f in report.findings if f.check == "integrity.unchanged"]
    assert [(f.status.value, f.code, f.path) for f in changed] == [("FAIL", "changed-during-verification", f"videos/{RECORD}.mp4")]
    assert report.verdict == "FAIL"


def test_a_symlink_under_the_artifacts_directory_is_followed_and_its_bytes_checked(tmp_path, clips):
    bundle, artifacts = _published_elsewhere(tmp_path, clips["covers"])
    supplied = artifacts / "videos" / f"{RECORD}.mp4"
    elsewhere = tmp_path / "download-cache" / "clip.mp4"
    elsewhere.parent.mkdir()
    supplied.rename(elsewhere)
    supplied.symlink_to(elsewhere)
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile()}), artifacts=str(artifacts))
    assert _integrity(report, f"videos/{RECORD}.mp4") == {("PASS", "external-match")}
    assert {(s, c) for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"} == _native_codes(clips["covers"])
    assert [f.status.value for f in report.findings if f.check == "integrity.unchanged"] == ["PASS"]


def test_identical_bytes_supplied_under_another_listed_name_are_judged(tmp_path, clips):
    bundle, artifacts = _published_elsewhere(tmp_path, clips["covers"])
    sums = bundle / "SHA256SUMS.txt"
    sha = hashlib.sha256(clips["covers"].read_bytes()).hexdigest()
    sums.write_text(sums.read_text() + f"{sha}  videos/a-copy.mp4\n")  # sorts after videos/10s-...: not the digest's first name
    (artifacts / "videos" / f"{RECORD}.mp4").rename(artifacts / "videos" / "a-copy.mp4")
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {PID: _profile()}), artifacts=str(artifacts))
    assert {(s, c) for s, c, p in _coverage(report) if p == "videos/a-copy.mp4"} == _native_codes(clips["covers"])
    assert not [p for s, c, p in _coverage(report) if p == f"videos/{RECORD}.mp4"]  # the record's bytes were judged once, as supplied


def test_each_media_finding_names_the_records_that_named_the_file(tmp_path, clips):
    report = verify_path(str(_bundle(tmp_path, clips["short_audio"])), asset_root=make_assets(tmp_path, {PID: _profile()}))
    doc = json.loads((tmp_path / "vllm-omni-pr6540" / "artifacts" / "results.json").read_text())
    index = [r["name"] for r in doc["records"]].index(RECORD)
    mine = [f for f in report.findings if f.check == "coverage.streams" and f.path == f"videos/{RECORD}.mp4"]
    assert mine and all(f"artifacts/results.json /records/{index}" in f.message for f in mine)
    absent = [f for f in report.findings if f.check == "coverage.streams" and f.code == "media-not-verified"]
    assert absent and all("named by " in f.message and "artifacts/" in f.message for f in absent)


def test_profile_explain_takes_the_artifacts_its_hint_names(tmp_path, clips):
    from click.testing import CliRunner

    from verifier.cli import main

    bundle, artifacts = _published_elsewhere(tmp_path, clips["covers"])
    profile = tmp_path / "mine.json"
    profile.write_text(json.dumps({**_profile(), "id": "pr6540-draft"}))
    without = CliRunner().invoke(main, ["profile", "explain", str(profile), str(bundle)])
    assert without.exit_code == 0 and "use --artifacts DIR" in without.output
    result = CliRunner().invoke(main, ["profile", "explain", str(profile), str(bundle), "--artifacts", str(artifacts)])
    assert result.exit_code == 0, result.output
    assert f"external {'videos/' + RECORD}.mp4 supplied and matches" in result.output and "covered" in result.output


def test_profile_explain_names_the_record_members_no_mapping_reads():
    from conftest import CORPUS

    from verifier.commands.explain import explain, unread_members

    out, code = explain(PID, str(CORPUS / "vllm-omni-pr6540"))
    block = out.split("artifacts/results.json:", 1)[1].split("\n", 1)[1]
    line = next(x for x in block.splitlines() if "not read by the profile" in x)
    for member in ("/bytes", "/validation/width", "/validation/video_codec", "/peak_memory_mb_reported"):
        assert member in line  # stated by every record, compared by nothing
    for member in ("/wall_s", "/sha256", "/validation/frames", "/stage_durations_raw/stage_0_gen_ms"):
        assert member not in line  # mapped fields, digests, expected shapes and identity terms are read
    profile = {"receipts": {"s": {"fields": {"latency": {"pointer": "/a/b"}, "arm": {"pointer": "/h"}}, "where": {"/k": "v"},
                                  "unnest": {"array": "/t", "parallel": {"code": "/codes"}}},
                            "other": {"fields": {"latency": {"pointer": "/e"}}}},  # another set's pointer reads not this set's /e
               "identities": [{"receipts": ["s"], "left": {"pointer": "/c"}, "terms": [{"pointer": "/d/0"}]}],
               "claims": [{"receipts": "s", "at": {"file": "x.json", "pointer": "/e"}},
                          {"receipts": "other", "selection": {"gpu": {"receipts": "s", "pointer": "/j", "on": ["x"]}}}]}  # a join reads /j of s
    raw = {"a": {"b": 1, "z": 2}, "c": 3, "d": [4, 5], "e": 6, "f": None, "g": 7, "h": {"x": 1}, "t": [1, 2], "codes": [0, 0], "#line": 9,
           "k": "v", "j": 2, "#GPUs": 8, "#table": 1, "#conflicts": {"k": [1, 2]}, "m": {"#line": 4}}
    assert unread_members(profile, "s", [("/rows/0", raw)], {"/rows/0/g"}) == ["/a/z", "/d/1", "/e", "/f", "/#GPUs", "/m/#line"]
    # /g: a claim document states it; #line, #table, #conflicts at the top: a reader added them; #GPUs and a nested #line: the file's
    # a claim's `at` points into its claim file, not the record: /e stays unread


def test_profile_explain_counts_unnested_arrays_and_stated_claims_as_read():
    from conftest import CORPUS

    from verifier.commands.explain import explain

    out, _code = explain("hyperfine", str(CORPUS / "hyperfine-3em"))
    lines = [x for x in out.splitlines() if "not read by the profile" in x]
    assert not lines, lines  # /times and /exit_codes are unnested, /mean... are claims its claim documents state


def test_profile_explain_prints_control_and_bidi_characters_of_file_names_escaped(tmp_path):
    from verifier.commands.explain import explain

    bundle = copy_bundle("vllm-omni-pr6540", tmp_path)
    (bundle / "cr\rname.txt").write_text("x")
    (bundle / "new\nline.txt").write_text("x")
    (bundle / "bidi\u202egnp.txt").write_text("x")
    out, code = explain(PID, str(bundle))
    assert code == 0 and "\r" not in out and "\u202e" not in out
    assert "cr\\rname.txt" in out and "new\\nline.txt" in out and "bidi\\u202egnp.txt" in out
    assert any(line.startswith("new\\nline.txt: ") for line in out.splitlines())  # the name on one line, not split over two
