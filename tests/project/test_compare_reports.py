"""tools/compare_reports.py: two recorded report directories compare IDENTICAL, or show the difference; renames apply."""

import importlib.util
import json
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("compare_reports", Path(__file__).parent.parent.parent / "tools" / "compare_reports.py")
compare_reports = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(compare_reports)


def _recorded(folder: Path, check: str, exit_code: int = 1) -> Path:
    folder.mkdir()
    report = {"verdict": "FAIL", "counts": {"FAIL": 1}, "findings": [{"check": check, "status": "FAIL"}]}
    (folder / "b.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (folder / "b.exit").write_text(f"{exit_code}\n")
    return folder


def test_same_reports_are_identical(tmp_path, capsys):
    assert compare_reports.diff(_recorded(tmp_path / "a", "x.y"), _recorded(tmp_path / "b", "x.y"), {}) == 0
    assert capsys.readouterr().out.startswith("IDENTICAL (1 bundles)")


def test_a_renamed_check_differs_unless_listed(tmp_path, capsys):
    a, b = _recorded(tmp_path / "a", "profile.claims"), _recorded(tmp_path / "b", "derivation.claims")
    assert compare_reports.diff(a, b, {}) == 1
    out = capsys.readouterr().out
    assert '-      "check": "profile.claims"' in out and '+      "check": "derivation.claims"' in out
    assert compare_reports.diff(a, b, compare_reports.load_renames(["profile.claims=derivation.claims"], [])) == 0


def test_exit_code_and_missing_bundle_differ(tmp_path, capsys):
    a, b = _recorded(tmp_path / "a", "x.y", 1), _recorded(tmp_path / "b", "x.y", 3)
    assert compare_reports.diff(a, b, {}) == 1
    assert "exit 1 -> 3" in capsys.readouterr().out
    (b / "c.json").write_text("{}")
    assert compare_reports.diff(a, _recorded(tmp_path / "c", "x.y"), {}) == 0
    assert compare_reports.diff(b, a, {}) == 1


def test_renames_file(tmp_path):
    f = tmp_path / "renames.txt"
    f.write_text("# old new\nprofile.claims derivation.claims\n\nprofile.integrity=integrity.files\n")
    assert compare_reports.load_renames([], [f]) == {"profile.claims": "derivation.claims", "profile.integrity": "integrity.files"}
