"""
Tests that kill surviving mutants of `verifier/checks/quality.py`, `verifier/checks/gate.py` and
`verifier/readers/manifests.py` (issue 14).

quality.recorded on a stand-in bundle: a recorded scorer identity equal to
the gate's pin is PASS `scorer-identity-pinned`; a score the gate sets no
threshold for is not judged (and no ERROR). gate.pinned names the gate's
sha256 by its first 12 hex digits. Manifest listings: an entry listed twice
with the same digest is one entry unless the format says duplicates fail;
a map or list of the wrong type is `manifest-unreadable`; an entry needs a
path, a digest and (when sized) an integer size.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT
from helpers import make_assets, write_bundle

from verifier.checks.quality import recorded
from verifier.core import verify_path
from verifier.engine.pipeline import Context, RunData
from verifier.readers.manifests import Listing, read_listing
from verifier.readers.native import from_documents

GATE = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
INDEX = json.loads((EXAMPLE / "quality-index.json").read_text())


def _recorded(index: dict, gate_quality: dict) -> list[tuple[str, str, str | None]]:
    files = [{"path": c[side]} for c in index["comparisons"] for side in ("reference", "candidate")]
    docs = {"quality": index, "plan": json.loads((EXAMPLE / "plan.json").read_text()),
            "receipts": [json.loads(x) for x in (EXAMPLE / "receipts.jsonl").read_text().splitlines()]}
    model = from_documents(docs, manifest={"files": files, "external": []}, names={})  # what the native reader builds
    ctx = Context(subject=Path("."), assets=None, bundle=None, gate={"quality": gate_quality},
                  run=RunData(manifest={"files": files, "external": []}, evidence=model))
    return [(f.status.value, f.code, f.pointer) for f in recorded(ctx)]


def test_recorded_scorer_identities_equal_to_the_pins_pass():
    found = _recorded(INDEX, GATE["quality"])
    assert [f for f in found if f[1].startswith("scorer-identity")] == [
        ("PASS", "scorer-identity-pinned", "/scorers/audio_cosine"), ("PASS", "scorer-identity-pinned", "/scorers/ssim")]


def test_a_score_without_a_threshold_is_not_judged():
    index = {**INDEX, "comparisons": [{**c, "scores": {**c["scores"], "vmaf": 12}} for c in INDEX["comparisons"]]}
    quality = {**GATE["quality"], "scorers": {}}
    found = _recorded(index, quality)
    assert not [f for f in found if f[0] in ("FAIL", "ERROR")], found
    assert len([f for f in found if f[1] == "threshold-met"]) == len(INDEX["comparisons"])


def test_the_pinned_gate_is_named_with_twelve_digits_of_its_sha256(tmp_path):
    assets = make_assets(tmp_path / "assets")
    report = verify_path(str(write_bundle(tmp_path / "b")), asset_root=str(assets))
    (f,) = [f for f in report.findings if f.check == "gate.pinned"]
    sha = f.observed["sha256"]
    assert f"(sha256 {sha[:12]}...)" in f.message and len(sha) == 64


SPEC = {"kind": "files-map", "file": "digests.json", "pointer": "/files", "sha256": "sha256", "size": "bytes"}
A, B = "a" * 64, "b" * 64


def test_an_entry_listed_twice_is_one_entry_unless_its_digests_differ_or_duplicates_fail():
    listing = Listing(file="digests.json")
    listing.add(SPEC, "x.txt", A, 1, "/0", "/0/path")
    listing.add(SPEC, "x.txt", A, 1, "/1", "/1/path")
    assert list(listing.entries) == ["x.txt"] and listing.problems == [] and listing.entries["x.txt"].pointer == "/0"
    listing.add(SPEC, "x.txt", B, 1, "/2", "/2/path")
    assert [p[0] for p in listing.problems] == ["duplicate-entry"]
    strict = Listing(file="digests.json")
    strict.add({**SPEC, "duplicates": "fail"}, "x.txt", A, 1, "/0", "/0/path")
    strict.add({**SPEC, "duplicates": "fail"}, "x.txt", A, 1, "/1", "/1/path")
    assert [p[0] for p in strict.problems] == ["duplicate-entry"]
    listing.add(SPEC, "digests.json", A, 1, "/3", "/3/path")
    assert listing.problems[-1][1] == "digests.json lists itself"


@pytest.mark.parametrize("spec,content", [(SPEC, {"files": []}), ({**SPEC, "kind": "entries", "path": "p"}, {"files": {}}),
                                          (SPEC, {"other": {}}), (SPEC, {"files": 5}),
                                          ({**SPEC, "kind": "entries", "path": "p"}, {"files": {"x.txt": {"p": "x.txt"}}}),
                                          ({**SPEC, "kind": "entries", "path": "p"}, {"files": 5})])
def test_a_table_of_the_wrong_type_or_absent_is_unreadable(spec, content):
    listing = read_listing(spec, content)
    assert [p[0] for p in listing.problems] == ["manifest-unreadable"] and listing.entries == {}


@pytest.mark.parametrize("entry,ok", [({"sha256": A, "bytes": 1}, True), ({"sha256": A}, False), ({"sha256": A, "bytes": True}, False),
                                      ({"sha256": A, "bytes": "1"}, False), ({"bytes": 1}, False)])
def test_an_entry_needs_a_digest_and_an_integer_size(entry, ok):
    listing = read_listing(SPEC, {"files": {"x.txt": entry}})
    assert (list(listing.entries) == ["x.txt"]) is ok and ([p[0] for p in listing.problems] == ([] if ok else ["manifest-entry"]))
    unsized = read_listing({k: v for k, v in SPEC.items() if k != "size"}, {"files": {"x.txt": {"sha256": A, "bytes": True}}})
    assert list(unsized.entries) == ["x.txt"]
