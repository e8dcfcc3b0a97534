"""
Discovery reads a text's numbers as the claim text reader does: a number written inside a date, a clock
reading, a reference, a model-size name or a no-value text is an identifier, counted and not listed as a stated
number (first contact with llmperf-leaderboard's summaries, `"version": "2023-08-31"`: three "unexplained"
findings a file for one date).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.core import verify_path


def _directory(tmp_path: Path, extra: dict[str, str]) -> Path:
    """A run's per-request records and a summary that states their mean (12.5 ms) beside `extra` text members."""
    (tmp_path / "runs.json").write_text(json.dumps({"runs": [{"server": 1, "latency_ms": v} for v in (10, 12, 13, 15)]}))
    (tmp_path / "summary.json").write_text(json.dumps({"mean_latency_ms": 12.5, **extra}))
    return tmp_path


def _findings(report, path: str = "summary.json") -> dict[str, tuple[str, str]]:
    return {f.pointer: (f.status.value, f.code) for f in report.findings if f.check == "discovery.claims" and f.path == path}


IDENTIFIERS = {
    "date": ("version", "2023-08-31", 3),
    "time-of-day": ("started", "12:46", 2),
    "reference": ("source", "results of (#8)", 1),
    "identifier": ("model_size", "70b", 1),
    "not-applicable": ("p99_note", "N/A (OOM at 64)", 1),
}


@pytest.mark.parametrize("rule", sorted(IDENTIFIERS))
def test_a_number_inside_an_identifier_is_counted_not_listed(tmp_path, rule):
    member, text, count = IDENTIFIERS[rule]
    report = verify_path(str(_directory(tmp_path, {member: text})))
    found = _findings(report)
    assert not [p for p in found if p.startswith(f"/{member}")], found
    assert "/mean_latency_ms" in found, found  # the quantity beside it is still a stated number
    [summary] = [f for f in report.findings if f.code == "no-profile"]
    assert f"; {count} more written inside a date, version, id or the like, not counted as stated" in summary.message
    assert report.verdict == "INCOMPLETE"


def test_a_number_beside_an_identifier_in_one_text_is_still_stated(tmp_path):
    """`run of 2023-08-31: 12.5 ms`: the date's three numbers are identifiers, the 12.5 after it is a stated number."""
    report = verify_path(str(_directory(tmp_path, {"note": "run of 2023-08-31: mean 12.5 ms"})))
    [note] = [f for f in report.findings if f.check == "discovery.claims" and f.path == "summary.json" and f.pointer == "/note"]
    assert "stated 12.5 ms (number 3 inside the text there" in note.message, note.message  # the date's numbers are 0, 1 and 2
    [summary] = [f for f in report.findings if f.code == "no-profile"]
    assert "; 3 more written inside a date" in summary.message


def test_no_identifier_no_count(tmp_path):
    report = verify_path(str(_directory(tmp_path, {"label": "baseline"})))
    [summary] = [f for f in report.findings if f.code == "no-profile"]
    assert "written inside a date" not in summary.message
