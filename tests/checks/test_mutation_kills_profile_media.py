"""
Tests that kill surviving mutants of `verifier/checks/profile_media.py` (issue 42, cosmic-ray run of record).

`streams` runs on a `Context` of hand-made records of one receipt set whose
`media` mapping expects a shape and names the shipped gate `ref2va-5s-v1`;
no output is supplied, so every file is UNVERIFIED `media-not-verified`
(never demuxed) and the test stays fast. Pinned: a record naming no output
(or no digest, or no readable shape) is reported and never stops the
records after it; a digest listed under several names, none supplied, names
the first; the records that name a file are shown, three at most, then a
count; `expected_of` takes 1 as a whole number and names a rate or a
whole number in its message.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT
from helpers import profile_evidence, profile_receipt

from verifier.checks.coverage import streams
from verifier.checks.profile_media import expected_of
from verifier.engine.pipeline import Context, RunData

GATE = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
MAPPING = {"frames": {"pointer": "/frames"}, "fps": {"pointer": "/fps"}, "sample_rate": {"value": 32000}, "channels": {"value": 2}}
SHA = "ab" * 32


def _rec(i: int, **raw):
    return profile_receipt("runs.json", f"/{i}", {"frames": 121, "fps": "24/1", **raw}, dims={"arm": "a"})


def _streams(records: list, listed_names: dict | None = None) -> list[tuple[str, str, str | None, str | None, str, object]]:
    profile = {"id": "p", "receipts": {"runs": {"listed_digest": {"pointer": "/sha256"},
                                                "media": {"pointer": "/output", "expected": MAPPING, "coverage_gate": "g"}}}}
    ctx = Context(subject=Path("."), assets=None, bundle=None, options={"profile": profile, "coverage_gates": {"g": GATE}},
                  run=RunData(**{**profile_evidence(runs=records), "listed_names": listed_names or {}}))
    return [(f.status.value, f.code, f.path, f.pointer, f.message, f.observed) for f in streams(ctx)]


def test_a_record_without_an_output_digest_or_shape_is_reported_and_the_records_after_it_are_judged():
    """
    Kills `:128` `except KeyError` replaced (a record without an output member), `:132` `r.pointer + mapping["pointer"]`
    -> `-`, `:133` and `:140` `continue` -> `break`, `:172` `except KeyError` replaced (a record without the digest
    member `listed_digest` maps).
    """
    records = [_rec(0), _rec(1, output=7), _rec(2, output="out/b.mp4", frames="many"), _rec(3, output="out/c.mp4")]
    assert _streams(records) == [
        ("UNVERIFIED", "media-absent", "runs.json", "/0/output", "runs.json /0: names no output at /output", None),
        ("UNVERIFIED", "media-absent", "runs.json", "/1/output", "runs.json /1: names no output at /output", 7),
        ("UNVERIFIED", "expected-unreadable", "runs.json", "/2",
         "runs.json /2: the expected shape of out/b.mp4 cannot be read: frames is 'many', not a number", None),
        ("UNVERIFIED", "media-not-verified", "out/c.mp4", None,
         "out/c.mp4 is referenced but is neither a bundle file nor a supplied external artifact whose sha256 matched the manifest, "
         "so it is not read (named by runs.json /3)", None),
    ]


def test_a_digest_listed_under_several_names_none_supplied_names_the_first():
    """Kills `:113` `names[0]` -> `names[-1]`: the record's output is the first name its digest is listed under."""
    found = _streams([_rec(0, output="outputs/x.mp4", sha256=SHA.upper())], {SHA: ["videos/a.mp4", "videos/b.mp4"]})
    assert [(f[1], f[2]) for f in found] == [("media-not-verified", "videos/a.mp4")]


@pytest.mark.parametrize(("count", "named"), [
    (3, "runs.json /0, runs.json /1, runs.json /2"),
    (4, "runs.json /0, runs.json /1, runs.json /2 and 1 more"),
    (6, "runs.json /0, runs.json /1, runs.json /2 and 3 more"),
])
def test_the_records_naming_a_file_are_shown_three_then_counted(count, named):
    """Kills every mutant of `_named_by`'s `:156` (the `if` negated, `> 3` -> `>= 3` / `> 2` / `> 4`, `[:3]` -> `[:2]` / `[:4]`, `- 3` -> `+ 3` / `- 2` / `- 4`)."""
    (found,) = _streams([_rec(i, output="out/v.mp4") for i in range(count)])
    assert found[4].endswith(f"so it is not read (named by {named})")


def test_a_whole_number_of_one_is_positive_and_each_fault_names_its_kind():
    """Kills `:84` `number <= 0` -> `<= 1` (mono audio, one frame) and `:85` `name == 'fps'` negated or `!=` (the kind named)."""
    one = {"frames": {"value": 1}, "fps": {"value": 1}, "sample_rate": {"value": 8000}, "channels": {"value": 1}}
    exp = expected_of({}, one)
    assert (exp.frames, exp.fps, exp.sample_rate, exp.channels) == (1, 1, 8000, 1)
    with pytest.raises(ValueError, match=r"^fps is '-24/1', not a positive rate$"):
        expected_of({"frames": 121, "fps": "-24/1"}, MAPPING)
    with pytest.raises(ValueError, match=r"^frames is Decimal\('0'\), not a positive whole number$"):
        expected_of({"frames": Decimal(0), "fps": 24}, MAPPING)
