"""tools/capture_reports.py: two recordings of a reader's reports compare IDENTICAL once renamed, merged checks aside, or show the difference."""

import importlib.util
import json
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("capture_reports", Path(__file__).parent.parent.parent / "tools" / "capture_reports.py")
capture_reports = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(capture_reports)


def _blocked(check, by):
    return {"check": check, "code": "blocked-by", "message": f"not run because {by} did not pass", "observed": [by], "status": "UNVERIFIED"}


def _recorded(folder: Path, name: str, findings: list, roster: list) -> Path:
    folder.mkdir(exist_ok=True)
    report = {"verdict": "FAIL", "counts": {}, "to_act_on": [], "roster": roster, "findings": findings}
    (folder / name).write_text(json.dumps(report))
    return folder


FAIL = {"check": "old.schema", "code": "schema-violation", "message": "x", "observed": None, "status": "FAIL"}


def test_merged_checks_compare_identical_once_renamed(tmp_path, capsys):
    a = _recorded(tmp_path / "a", "k.json", [FAIL, _blocked("old.counts", "old.schema"), _blocked("old.metrics", "old.schema")],
                  [{"check": "old.counts", "counts": {"UNVERIFIED": 1}}, {"check": "old.metrics", "counts": {"UNVERIFIED": 1}}])
    b = _recorded(tmp_path / "b", "k.json", [{**FAIL, "check": "new.schema"}, _blocked("new.claims", "new.schema")],
                  [{"check": "new.claims", "counts": {"UNVERIFIED": 1}}])
    renames = {"old.schema": "new.schema", "old.counts": "new.claims", "old.metrics": "new.claims"}
    assert capture_reports.diff(a, b, {}) == 1
    capsys.readouterr()
    assert capture_reports.diff(a, b, renames) == 0
    assert capsys.readouterr().out.startswith("IDENTICAL (1 reports)")


def test_another_message_or_an_unpaired_report_differs(tmp_path, capsys):
    a = _recorded(tmp_path / "a", "k.json", [FAIL], [])
    assert capture_reports.diff(a, _recorded(tmp_path / "b", "k.json", [{**FAIL, "message": "y"}], []), {}) == 1
    assert '"message": "y"' in capsys.readouterr().out
    assert capture_reports.diff(a, _recorded(tmp_path / "c", "other-key.json", [FAIL], []), {}) == 0  # paired by content
    assert capture_reports.diff(a, _recorded(tmp_path / "c", "more.json", [{**FAIL, "code": "z"}], []), {}) == 1


def test_a_blocked_by_naming_only_checks_merged_into_its_own_is_dropped(tmp_path):
    """Old surplus check blocked by the two checks merged with it (all three now one): no finding of the merged check."""
    twice = {**_blocked("old.surplus", "old.replay, old.engine"), "observed": ["old.replay", "old.engine"]}
    a = _recorded(tmp_path / "a", "k.json", [FAIL, twice], [])
    b = _recorded(tmp_path / "b", "k.json", [FAIL], [])
    assert capture_reports.diff(a, b, {"old.surplus": "new.claims", "old.replay": "new.claims", "old.engine": "new.claims"}) == 0
    assert capture_reports.diff(a, b, {"old.surplus": "new.claims", "old.replay": "new.claims"}) == 1  # old.engine stays another check


def test_two_claims_texts_on_one_bundle_are_two_recordings(tmp_path, monkeypatch):
    """A tuple keyword argument (`claims_text`: name, text) is part of the key: two texts on one bundle no longer collide (helper-78)."""
    import verifier.core as core

    monkeypatch.setenv("CAPTURE_REPORTS", str(tmp_path / "out"))
    monkeypatch.setattr(core, "verify_path", lambda path, *a, **kw: type("R", (), {"kind": "bundle-v1"})())
    monkeypatch.setattr("verifier.report.json_report.render", lambda report: "{}")
    capture_reports.pytest_configure(None)
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / "x").write_text("1")
    for text in ("cut 10 %", "cut 20 %"):
        core.verify_path(str(bundle), claims_text=(str(tmp_path / "pr.md"), text))
    assert len(list((tmp_path / "out").iterdir())) == 2
