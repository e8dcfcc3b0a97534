"""
The profile language's alternatives and exclusions (issue 38 item 4), on a small table of its own.

- a location `where` member given a list of literal texts matches a row
  stating one of them (a table with a second row per run in another unit,
  as MLPerf's power rows: the result row is found by its `Units`);
- a selection value `{"not": [...]}` selects the records whose dimension is
  none of the texts (a record lacking the dimension is left out);
- a claim document's `informational` entry with a `where` declares the
  numbers of the rows stating those texts only.
Each is validated at load and has a PASS and a FAIL input.
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import make_assets
from helpers import by_check, one_claim, write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError

CLAIM = {"id": "t", "receipts": "runs", "statistic": "first", "value": "t", "unit": "s", "selection": {"phase": "measured", "model": {"not": ["c"]}},
         "per": ["model"], "at": {"file": "table.json", "pointer": "", "where": {"Model": "{model}", "Units": ["s", "sec"]}, "then": "/Result"}}
DOC = {"id": "alt", "version": 1, "description": "test profile", "detect": {"files": ["table.json"]}, "manifest": {"kind": "none", "reason": "no digests"},
       "receipts": {"runs": {"glob": "runs/*.json", "encoding": "json", "name": "runs/{model}.json", "fields": {"phase": {"value": "measured"}},
                             "dimensions": {"model": {"from_name": "model"}}, "values": {"t": {"pointer": "/t", "unit": "s"}}}},
       "claims": [CLAIM],
       "claim_documents": [{"file": "table.json", "informational": [{"pointer": "/*/Result", "where": {"Units": ["W", "mJ"]}, "reason": "power rows"}]}]}
RUNS = {"runs/a.json": '{"t": 2.5}', "runs/b.json": '{"t": 4.0}', "runs/c.json": '{"t": 9.0}'}
ROWS = [{"Model": "a", "Result": "2.5", "Units": "s"}, {"Model": "a", "Result": "310", "Units": "W"},
        {"Model": "b", "Result": "4.0", "Units": "sec"}, {"Model": "b", "Result": "12", "Units": "mJ"}]


def _run(tmp_path, rows, doc=DOC):
    files = {**RUNS, "table.json": json.dumps(rows)}
    return verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path / "assets", {"alt": doc}))


def test_a_where_list_finds_the_row_in_one_of_its_units_and_the_other_rows_are_declared(tmp_path):
    report = _run(tmp_path, ROWS)
    assert one_claim(report, "t[model=a]").status == "PASS" and one_claim(report, "t[model=b]").status == "PASS"
    assert not by_check(report, "claims.coverage", "unchecked-claim"), [f.message for f in by_check(report, "claims.coverage", "unchecked-claim")]
    assert by_check(report, "claims.coverage", "covered")[0].observed == {"compared": 2, "informational": 2}


def test_a_where_list_row_stating_another_number_fails(tmp_path):
    rows = copy.deepcopy(ROWS)
    rows[2]["Result"] = "4.1"
    assert one_claim(_run(tmp_path, rows), "t[model=b]").status == "FAIL"


def test_a_row_in_none_of_the_listed_units_is_not_the_claim_s_place_nor_declared(tmp_path):
    rows = copy.deepcopy(ROWS)
    rows[1]["Units"] = "kW"  # neither a result unit nor a declared power unit
    report = _run(tmp_path, rows)
    assert one_claim(report, "t[model=a]").status == "PASS"
    assert [f.pointer for f in by_check(report, "claims.coverage", "unchecked-claim")] == ["/1/Result"]


def test_without_the_list_the_second_row_makes_the_place_ambiguous(tmp_path):
    doc = copy.deepcopy(DOC)
    doc["claims"][0]["at"]["where"].pop("Units")
    assert one_claim(_run(tmp_path, ROWS, doc), "t[model=a]").status != "PASS"


def test_an_excluded_value_is_no_instance_and_its_row_is_left_to_another_claim(tmp_path):
    rows = [*ROWS, {"Model": "c", "Result": "1.0", "Units": "s"}]  # c's row states another member (9.0 would be t): excluded, not FAILed by t
    report = _run(tmp_path, rows)
    assert not [f for f in by_check(report, "derivation.claims") if "[model=c]" in f.message], [f.message for f in by_check(report, "derivation.claims")]
    assert [f.pointer for f in by_check(report, "claims.coverage", "unchecked-claim")] == ["/4/Result"]  # stated, no claim: reported, never hidden
    doc = copy.deepcopy(DOC)
    doc["claims"][0]["selection"].pop("model")  # without the exclusion, c's row FAILs
    assert one_claim(_run(tmp_path / "all", rows, doc), "t[model=c]").status == "FAIL"


def test_a_record_lacking_an_excluded_dimension_is_left_out():
    from verifier.model.evidence import Location, Receipt
    from verifier.readers.select import left_out, select, select_records

    records = [Receipt(dims=dims, quantities={}, location=Location(f"f{i}", None)) for i, dims in enumerate([{"model": "a"}, {"model": "c"}, {}])]
    many = [Receipt(dims={"model": m, "k": "x"}, quantities={}, location=Location(f"g{i}", None)) for i, m in enumerate("abcabcabcabcabcabc")]  # indexed by k
    selection = {"model": {"not": ["c"]}}
    assert [r.dims["model"] for r in select(records[:3], selection)] == ["a"]
    assert [r.dims["model"] for r in select_records(records[:3], {"selection": selection})] == ["a"]
    assert "".join(r.dims["model"] for r in select(many, {"k": "x", **selection})) == "abababababab"
    assert left_out(selection, {"model": "c"}) and not left_out(selection, {"model": "a"})


@pytest.mark.parametrize("change, pointer", [
    (lambda d: d["claims"][0]["at"]["where"].update(Units=["{model}"]), "/claims/0/at/where/Units"),  # alternatives are literal
    (lambda d: d["claims"][0]["at"]["where"].update(Units=[]), "/claims/0/at/where/Units"),  # chooses nothing
    (lambda d: d["claims"][0]["selection"].update(model={"not": []}), "/claims/0/selection/model"),  # excludes nothing
    (lambda d: d["claims"][0]["selection"].update(model={"not": ["c"], "on": ["model"]}), "/claims/0/selection/model"),  # neither exclusion nor join
    (lambda d: d["claims"][0]["selection"].update(model={"not": ["{model}"]}), "/claims/0/selection/model"),  # literal
    (lambda d: d["claim_documents"][0]["informational"][0].update(where={"Units": []}), "/claim_documents/0/informational/0/where/Units"),
    (lambda d: d["claim_documents"][0]["needs_external"].append({"pointer": "/*/Result", "where": {"Units": "W"}, "reason": "r"})
     if "needs_external" in d["claim_documents"][0] else d["claim_documents"][0].update(needs_external=[{"pointer": "/*/Result", "where": {"Units": "W"}, "reason": "r"}]),
     "/claim_documents/0/needs_external/0"),  # a row filter is an informational declaration's only
])
def test_an_alternative_or_exclusion_that_cannot_choose_is_refused_at_load(tmp_path, change, pointer):
    doc = copy.deepcopy(DOC)
    change(doc)
    with pytest.raises(ConfigError, match=rf"alt\.json: invalid profile at {pointer}"):
        _run(tmp_path, ROWS, doc)
