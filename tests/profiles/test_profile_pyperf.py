"""The shipped `pyperf` profile on real pyperf output (`tests/data/pyperf/SOURCE.md`): three suites' JSON and the `compare_to` table pyperf printed for them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.profiles.language import Tree, candidates

DATA = ROOT / "tests" / "data" / "pyperf"
SUITES = ("mult_list_py36", "mult_list_py37", "mult_list_py38")
BENCHES = ("[1]*1000", "[1,2]*1000", "[1,2,3]*1000")
#: (suite, benchmark) -> the row and column of README.md stating its mean; pyperf's table says "not significant" for py38's [1]*1000
STATED = {(s, b): (row, s) for row, b in enumerate(BENCHES) for s in SUITES if (s, b) != ("mult_list_py38", "[1]*1000")}


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code in ("derived", "claim-mismatch")}


def _label(suite: str, bench: str) -> str:
    return f"mean[file={suite}.json][suite={suite}][arm={bench}]"


def _copy(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    shutil.copytree(DATA, out, ignore=shutil.ignore_patterns("SOURCE.md"))
    return out


def _edit_cell(folder: Path, row: int, column: str, new: str) -> None:
    """Replace the first number of one cell of README.md's table (row 0 is the first body row)."""
    lines = (folder / "README.md").read_text().splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    cells = lines[2 + row].strip("|").split("|")
    i = header.index(column)
    old = cells[i].split()[0]
    cells[i] = cells[i].replace(old, new, 1)
    lines[2 + row] = "|" + "|".join(cells) + "|"
    (folder / "README.md").write_text("\n".join(lines) + "\n")


def test_real_output_rederives_every_mean_the_compare_table_states(run):
    report = verify_path(str(DATA))
    assert report.kind == "profile:pyperf"
    claims = _claims(report)
    assert sorted(claims) == sorted(_label(s, b) for s, b in STATED) and all(f.status == "PASS" for f in claims.values())
    (unstated,) = [f for f in report.findings if f.code == "claim-unstated"]
    assert unstated.status == "UNVERIFIED" and _label("mult_list_py38", "[1]*1000") in unstated.message  # "not significant": no number stated
    # every suite's first run is a calibration run with `warmups` only (`then_optional`): no missing-field
    receipts = [f for f in report.findings if f.check == "schema.documents"]
    assert len(receipts) == 3 and all(f.status == "PASS" and "180 records" in f.message for f in receipts)
    # the `Nx faster/slower` ratios and the geometric means are relative to the first column: stated, never passed
    ratios = [f for f in report.findings if f.code == "unchecked-claim"]
    assert len(ratios) == 5 and all(f.pointer.endswith("#numbers/1") for f in ratios)
    assert not any(f.status in ("FAIL", "ERROR") for f in report.findings)
    assert report.verdict == "INCOMPLETE" and run(str(DATA)).exit_code == 3


@pytest.mark.parametrize("suite, bench", sorted(STATED))
def test_each_changed_mean_in_the_table_fails_naming_it(tmp_path, suite, bench):
    folder = _copy(tmp_path)
    row, column = STATED[(suite, bench)]
    old = (folder / "README.md").read_text().splitlines()[2 + row].split("|")[1 + SUITES.index(column) + 1].split()[0]
    _edit_cell(folder, row, column, f"{float(old) + 0.01:.2f}")  # one unit of the last place pyperf prints
    report = verify_path(str(folder))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [_label(suite, bench)] and report.verdict == "FAIL", failed


def test_a_changed_value_in_the_json_fails_the_mean_of_its_benchmark(tmp_path):
    folder = _copy(tmp_path)
    doc = json.loads((folder / "mult_list_py37.json").read_text())
    run = doc["benchmarks"][1]["runs"][1]
    run["values"][0] *= 1.2  # 60 values: the mean moves by 0.3 % (5.28 us -> 5.30 us)
    (folder / "mult_list_py37.json").write_text(json.dumps(doc))
    failed = [label for label, f in _claims(verify_path(str(folder))).items() if f.status == "FAIL"]
    assert failed == [_label("mult_list_py37", "[1,2]*1000")]


def test_the_warmups_are_not_measured(tmp_path):
    # a value moved from `warmups` into `values` changes the mean: warmups are never read as receipts
    folder = _copy(tmp_path)
    doc = json.loads((folder / "mult_list_py36.json").read_text())
    bench = doc["benchmarks"][0]
    warm = [pair[1] for run in bench["runs"] for pair in run.get("warmups", [])]
    bench["runs"][1]["values"] += [max(warm) * 1.05] * 20
    (folder / "mult_list_py36.json").write_text(json.dumps(doc))
    failed = [label for label, f in _claims(verify_path(str(folder))).items() if f.status == "FAIL"]
    assert failed == [_label("mult_list_py36", "[1]*1000")]


def test_is_detected_given_the_folder_its_parent_or_two_levels_up_never_deeper(tmp_path):
    folder = _copy(tmp_path / "a")
    assert verify_path(str(folder)).kind == "profile:pyperf"
    assert verify_path(str(tmp_path / "a")).kind == "profile:pyperf"
    (tmp_path / "c" / "b" / "bench" / "out").mkdir(parents=True)
    shutil.copy(DATA / "mult_list_py36.json", tmp_path / "c" / "b" / "bench" / "out" / "mult_list_py36.json")
    assert "pyperf" in candidates(_shipped(), Tree(root=tmp_path / "c" / "b"))
    assert "pyperf" not in candidates(_shipped(), Tree(root=tmp_path / "c"))  # three directories down: out of reach


def test_a_suite_one_folder_down_keeps_its_file_name_as_the_column(tmp_path):
    folder = _copy(tmp_path)
    (folder / "json").mkdir()
    for suite in SUITES:
        shutil.move(folder / f"{suite}.json", folder / "json" / f"{suite}.json")
    claims = {label: f for label, f in _claims(verify_path(str(folder))).items()}
    assert len(claims) == 8 and all(f.status == "PASS" for f in claims.values())
    assert all(label.startswith("mean[file=json/") for label in claims)


def test_not_detected_for_other_tools_json(tmp_path):
    for tool in ("pytest-benchmark", "google-benchmark", "jmh", "hyperfine", "lm-eval"):
        assert "pyperf" not in candidates(_shipped(), Tree(root=ROOT / "tests" / "data" / tool)), tool
    (tmp_path / "x.json").write_text(json.dumps({"version": "1.0", "metadata": {}, "benchmarks": [{"name": "a", "value": 1}]}))
    assert "pyperf" not in candidates(_shipped(), Tree(root=tmp_path))
