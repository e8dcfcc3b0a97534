"""The shipped `asv` profile on real airspeed velocity results (`tests/data/asv/SOURCE.md`): two commits' result files (format 2) and a results table stating them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.profiles.language import Tree, candidates

DATA = ROOT / "tests" / "data" / "asv"
MACHINE = "Noortheens-MacBook-Air.local"
FILES = {"2cadb710": "2cadb710-virtualenv-py3.12.json", "f772d735": "f772d735-virtualenv-py3.12.json"}
TIME, MEM, PEAK = "benchmarks.TimeSuite.time_parser_init", "benchmarks.MemSuite.mem_parser_init", "benchmarks.PeakMemSuite.peakmem_parser_init_"
#: the results table (our claim document: asv publishes none), each cell asv's result at three significant digits
TABLE = f"""| Benchmark | Parameters | 2cadb710 | f772d735 |
|---|---|---|---|
| {TIME} |  | 392μs | 946μs |
| {MEM} |  | 0 | 0 |
| {PEAK} |  | 25.5MB | 25.8MB |
"""
#: (claim id, commit, benchmark) -> (row, the cell's changed text)
CELLS = {("time", "2cadb710", TIME): (0, "393μs"), ("time", "f772d735", TIME): (0, "945μs"),
         ("memory", "2cadb710", MEM): (1, "1"), ("memory", "f772d735", MEM): (1, "1"),
         ("memory", "2cadb710", PEAK): (2, "25.6MB"), ("memory", "f772d735", PEAK): (2, "25.7MB")}


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _label(claim: str, commit: str, bench: str) -> str:
    return f"{claim}[commit={commit}][benchmark={bench}][params=]"


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code in ("derived", "claim-mismatch")}


def _folder(tmp_path: Path, table: str = TABLE) -> Path:
    out = tmp_path / "bench"
    shutil.copytree(DATA, out, ignore=shutil.ignore_patterns("SOURCE.md"))
    (out / "README.md").write_text(table)
    return out


def test_real_results_rederive_every_number_the_table_states(tmp_path, run):
    folder = _folder(tmp_path)
    report = verify_path(str(folder))
    assert report.kind == "profile:asv"
    claims = _claims(report)
    assert sorted(claims) == sorted(_label(c, commit, b) for c, commit, b in CELLS) and all(f.status == "PASS" for f in claims.values())
    receipts = [f for f in report.findings if f.check == "schema.documents"]
    assert receipts and all(f.status == "PASS" for f in receipts)
    assert not any(f.status in ("FAIL", "ERROR") for f in report.findings)
    assert report.verdict == "INCOMPLETE" and run(str(folder)).exit_code == 3  # no manifest: asv writes no digests


@pytest.mark.parametrize("claim, commit, bench", sorted(CELLS))
def test_each_changed_number_in_the_table_fails_naming_it(tmp_path, claim, commit, bench):
    row, new = CELLS[(claim, commit, bench)]
    lines = TABLE.splitlines()
    cells = lines[2 + row].split("|")
    column = 3 if commit == "2cadb710" else 4
    cells[column] = f" {new} "
    lines[2 + row] = "|".join(cells)
    report = verify_path(str(_folder(tmp_path, "\n".join(lines) + "\n")))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [_label(claim, commit, bench)] and report.verdict == "FAIL", failed


def test_a_changed_result_in_the_json_fails_the_cell_of_its_commit(tmp_path):
    folder = _folder(tmp_path)
    path = folder / "results" / MACHINE / FILES["f772d735"]
    doc = json.loads(path.read_text())
    doc["results"][TIME][0][0] *= 1.01  # 946 us -> 956 us
    path.write_text(json.dumps(doc))
    failed = [label for label, f in _claims(verify_path(str(folder))).items() if f.status == "FAIL"]
    assert failed == [_label("time", "f772d735", TIME)]


def test_the_columns_are_read_by_result_columns_not_by_position_alone(tmp_path):
    # the same file with its columns reordered (result last): read by the names `result_columns` gives, the claims hold
    folder = _folder(tmp_path)
    for name in FILES.values():
        path = folder / "results" / MACHINE / name
        doc = json.loads(path.read_text())
        doc["results"] = {k: [*v[1:5], v[0]] for k, v in doc["results"].items()}
        doc["result_columns"] = [*doc["result_columns"][1:5], "result"]
        path.write_text(json.dumps(doc))
    claims = _claims(verify_path(str(folder)))
    assert len(claims) == 6 and all(f.status == "PASS" for f in claims.values())


def test_is_detected_given_results_or_its_parent_never_deeper(tmp_path):
    folder = _folder(tmp_path / "a")
    assert "asv" in candidates(_shipped(), Tree(root=folder))
    assert "asv" in candidates(_shipped(), Tree(root=folder / "results"))
    assert "asv" not in candidates(_shipped(), Tree(root=tmp_path / "a"))  # results two directories down: out of reach
    claims = _claims(verify_path(str(folder / "results")))  # given results/ itself: no README beside it, the results are still read
    assert claims == {}


def test_the_profile_does_not_claim_this_repository_or_other_tools_output():
    assert "asv" not in candidates(_shipped(), Tree(root=ROOT))
    for tool in ("pyperf", "pytest-benchmark", "google-benchmark", "jmh", "hyperfine", "lm-eval", "criterion", "mlperf-training"):
        assert "asv" not in candidates(_shipped(), Tree(root=ROOT / "tests" / "data" / tool)), tool


def _with_samples(folder: Path, samples: list[float]) -> None:
    """Give the 2cadb710 file's time benchmark the `samples` column `asv run --record-samples` writes (one list per combination)."""
    path = folder / "results" / MACHINE / FILES["2cadb710"]
    doc = json.loads(path.read_text())
    entry = doc["results"][TIME]
    assert doc["result_columns"][len(entry)] == "samples"
    entry.append([samples])
    path.write_text(json.dumps(doc))


def test_recorded_samples_rederive_the_cell_as_their_median(tmp_path):
    folder = _folder(tmp_path)
    _with_samples(folder, [0.00038, 0.00039153393892640316, 0.000395, 0.0004, 0.00037])  # median: asv's result
    claims = _claims(verify_path(str(folder)))
    assert claims[_label("time_samples", "2cadb710", TIME)].status == "PASS" and all(f.status == "PASS" for f in claims.values())
    assert _label("time_samples", "f772d735", TIME) not in claims  # no samples recorded there: nothing to re-derive


def test_a_result_that_is_not_the_median_of_its_samples_fails(tmp_path):
    folder = _folder(tmp_path)
    _with_samples(folder, [0.00038, 0.00041, 0.000395, 0.0004, 0.00037])  # median 0.000395: 395us, the table (and `result`) say 392us
    failed = [label for label, f in _claims(verify_path(str(folder))).items() if f.status == "FAIL"]
    assert failed == [_label("time_samples", "2cadb710", TIME)]
