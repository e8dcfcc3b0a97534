"""Issue 38, the newcomer trial (jmh-java21, ecs-bench): each authoring mistake it made is named at load or by `profile check`, never as evidence."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.core import verify_path


def _est_doc(claims: list[dict], **receipts_extra) -> dict:
    """Return a profile `est` reading `est/{k}.json` (one object per file: an optional `slope`, a `mean`) with `claims`."""
    return {
        "id": "est", "version": 1, "description": "test profile",
        "detect": {"files": ["summary.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"est": {"glob": "est/*.json", "encoding": "json", "name": "est/{k}.json",
                             "fields": {"phase": {"value": "measured"}}, "dimensions": {"k": {"from_name": "k"}},
                             "values": {"slope": {"pointer": "/slope", "unit": "s", "optional": True}, "mean": {"pointer": "/mean", "unit": "s"}},
                             **receipts_extra}},
        "claims": claims,
    }


SLOPE = {"id": "slope", "receipts": "est", "statistic": "first", "value": "slope", "selection": {"phase": "measured"}, "per": ["k"], "unit": "s",
         "at": {"file": "summary.json", "pointer": "/{k}"}}
OPTIONAL = {"summary.json": '{"a": 2.0, "b": 3.0}', "est/a.json": '{"slope": 2.0, "mean": 1.0}', "est/b.json": '{"mean": 3.0}'}


def _check(run, tmp_path: Path, files: dict[str, str], doc: dict):
    """Return the CLI result of `verify profile check` over `files` with the draft `doc`."""
    bundle = write_tree(tmp_path / "bundle", files)
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(doc | {"id": "draft-" + doc["id"]}))
    return run("profile", "check", str(bundle), "--profile", str(draft))


# ---------------------------------------------------------------- D1. an optional value absent is underivable, never FAIL

def test_an_optional_value_absent_on_the_receipts_of_a_claim_is_unverified_naming_it(tmp_path):
    report = verify_path(str(write_tree(tmp_path / "b", OPTIONAL)), asset_root=make_assets(tmp_path, {"est": _est_doc([SLOPE])}))
    absent = _claim(report, "slope[k=b]")
    assert absent.status == "UNVERIFIED" and absent.code == "value-absent", (absent.status, absent.code, absent.message)
    assert "slope" in absent.message and "est/b.json" in absent.message and "''" not in absent.message, absent.message
    assert _claim(report, "slope[k=a]").status == "PASS"


def test_a_required_value_absent_is_still_fail(tmp_path):
    doc = _est_doc([{**SLOPE, "value": "mean", "id": "mean"}])
    files = {**OPTIONAL, "summary.json": '{"a": 1.0, "b": 3.0}', "est/b.json": '{"slope": 1.0}'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    missing = _claim(report, "mean[k=b]")
    assert missing.status == "FAIL" and missing.code == "incomplete-denominator" and "est/b.json" in missing.message, missing.message


def test_profile_check_says_an_optional_value_is_absent_on_a_claims_receipts(tmp_path, run):
    result = _check(run, tmp_path, OPTIONAL, _est_doc([SLOPE]))
    assert result.exit_code == 1, result.stdout
    assert "value slope is absent on 1 of 2 receipts of claim slope" in result.stdout, result.stdout


# ---------------------------------------------------------------- D2. a file whose records `where` leaves out was read

def test_a_file_whose_records_the_where_leaves_out_was_read_and_contributes_nothing(tmp_path, run):
    files = {**OPTIONAL, "summary.json": '{"a": 2.0}'}
    doc = _est_doc([SLOPE], where={"slope": {"present": True}})
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    assert not _by(report, "schema.documents", "no-records"), [f.message for f in _by(report, "schema.documents")]
    assert [f.path for f in _by(report, "schema.documents", "mapped")] == ["est/a.json"]  # never a PASS over no record
    assert _claim(report, "slope[k=a]").status == "PASS"
    assert not [f for f in _by(report, "derivation.claims") if f.code == "incomplete-denominator"]
    result = _check(run, tmp_path / "c", files, doc)
    line = next(x for x in result.stdout.splitlines() if "receipts.est:" in x)
    assert "names 2 files, 1 record read (1 file whose every record `where` leaves out)" in line, line
    assert "selects 1 receipt, 1 instance" in result.stdout and result.exit_code == 0, result.stdout


def test_a_file_holding_no_records_at_all_is_still_no_records(tmp_path):
    files = {**OPTIONAL, "summary.json": '{"a": 2.0}', "est/b.json": "[]"}
    doc = _est_doc([SLOPE], records="")
    doc["receipts"]["est"]["where"] = {"slope": {"present": True}}
    report = verify_path(str(write_tree(tmp_path / "b", {**files, "est/a.json": '[{"slope": 2.0, "mean": 1.0}]'})), asset_root=make_assets(tmp_path, {"est": doc}))
    assert [f.path for f in _by(report, "schema.documents", "no-records")] == ["est/b.json"]


# ---------------------------------------------------------------- D3. a claim at `#numbers/0` of a string that is wholly one number accounts for it

def test_a_claim_at_number_0_of_a_string_wholly_one_number_covers_it(tmp_path):
    claim = {**SLOPE, "value": "mean", "id": "mean", "at": {"file": "summary.json", "pointer": "/{k}", "number": 0}}
    files = {**OPTIONAL, "summary.json": '{"a": "1.0s", "b": "3.0 s (fast)"}', "est/a.json": '{"mean": 1.0}'}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "summary.json"}]}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    assert _claim(report, "mean[k=a]").status == "PASS" and _claim(report, "mean[k=b]").status == "PASS"
    assert [f.code for f in _by(report, "claims.coverage")] == ["covered"], [f.message for f in _by(report, "claims.coverage")]


# ---------------------------------------------------------------- D4. "-", "N/A" and the like state no number

def test_a_dash_cell_read_backwards_states_nothing(tmp_path):
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    files = {**OPTIONAL, "summary.json": '{"a": 1.0, "b": 3.0, "c": "-", "d": "N/A"}'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    said = [f.message for f in _by(report, "derivation.claims") if f.status != "PASS"]
    assert not said, said


def test_a_claim_instance_stating_n_a_is_one_unstated_finding_and_the_set_extends(tmp_path):
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    files = {**OPTIONAL, "summary.json": '{"a": "n/a", "b": "—"}'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    found = [(f.status, f.code) for f in _by(report, "derivation.claims")]
    assert found == [("UNVERIFIED", "claim-unstated")], [f.message for f in _by(report, "derivation.claims")]
    assert "state no number" in _by(report, "derivation.claims")[0].message
    files["summary.json"] = '{"a": "not significant", "b": "—"}'
    report = verify_path(str(write_tree(tmp_path / "c", files)), asset_root=make_assets(tmp_path / "c", {"est": _est_doc([claim])}))
    assert sorted(f.code for f in _by(report, "derivation.claims")) == ["claim-not-stated", "claim-unstated"]
    doc = _est_doc([claim]) | {"no_number": ["Not significant"]}
    report = verify_path(str(write_tree(tmp_path / "d", files)), asset_root=make_assets(tmp_path / "d", {"est": doc}))
    assert [f.code for f in _by(report, "derivation.claims")] == ["claim-unstated"], [f.message for f in _by(report, "derivation.claims")]


# ---------------------------------------------------------------- D5. an informational pattern that matches no stated number is named

def test_profile_check_names_an_informational_pattern_matching_no_stated_number(tmp_path, run):
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    files = {**OPTIONAL, "summary.json": '{"a": 1.0, "b": 3.0, "seed": 7}', "est/a.json": '{"mean": 1.0}'}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "summary.json", "informational": [
        {"pointer": "/seed", "reason": "the seed"}, {"pointer": "/sed", "reason": "a typo"}]}]}
    result = _check(run, tmp_path, files, doc)
    assert result.exit_code == 1, result.stdout
    line = next(x for x in result.stdout.splitlines() if "claim_documents/0/informational/1" in x)
    assert "'/sed' matches no stated number" in line, line
    assert "informational/0" not in result.stdout, result.stdout


# ---------------------------------------------------------------- D7. messages say what the author wrote and what to write

def test_a_pointer_without_its_slash_says_it_must_start_with_one():
    import pytest
    from conftest import ROOT

    from verifier.errors import ConfigError
    from verifier.profiles.language import load_profile
    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    doc = _est_doc([{**SLOPE, "at": {"file": "summary.json", "pointer": "{k}"}}])
    with pytest.raises(ConfigError) as info:
        load_profile(doc, schema, origin="draft.json")
    assert "it must start with '/'" in str(info.value), str(info.value)
    doc = _est_doc([SLOPE])
    doc["receipts"]["est"]["values"]["mean"]["pointer"] = "mean"
    with pytest.raises(ConfigError) as info:
        load_profile(doc, schema, origin="draft.json")
    assert "it must start with '/'" in str(info.value), str(info.value)


def test_profile_check_names_the_filled_place_and_an_absent_file(tmp_path, run):
    doc = _est_doc([{**SLOPE, "at": {"file": "sumary/{k}.json", "pointer": "/{k}"}}])
    result = _check(run, tmp_path, OPTIONAL, doc)
    line = next(x for x in result.stdout.splitlines() if "claims/0" in x)
    assert "first not found: sumary/a.json /a: absent (no such file in this folder)" in line, line


def test_an_empty_pointer_is_written_as_the_document_root(tmp_path):
    claim = {**SLOPE, "at": {"file": "summary.json", "pointer": "", "where": {"id": "{k}"}, "then": "/v"}}
    files = {**OPTIONAL, "summary.json": '[{"id": "a", "v": 2.0}, {"id": "a", "v": 2.0}]'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    message = _claim(report, "slope[k=a]").message
    assert 'elements of "" match' in message, message


# ---------------------------------------------------------------- D6. profile check previews the places verify will report `not-derivable`

def test_profile_check_previews_the_stated_places_no_instance_derives(tmp_path, run):
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    files = {**OPTIONAL, "summary.json": '{"a": 1.0, "b": 3.0, "c": 4.5, "d": "-"}'}
    doc = _est_doc([claim]) | {"receipts": {"est": {**_est_doc([])["receipts"]["est"], "name": "est/{k}.json"}}}
    result = _check(run, tmp_path, files, doc)
    line = next(x for x in result.stdout.splitlines() if "claims/0" in x)
    assert "1 stated place no instance derives (verify reports it UNVERIFIED `not-derivable` or `receipt-absent`; first: summary.json /c states 4.5 for k=c)" in line, line


# ---------------------------------------------------------------- G1. a location `where` compares a nested member by its JSON Pointer

JMH = ('[{"benchmark": "x.Sum", "params": {"n": "10"}, "primaryMetric": {"score": 2.0}},'
       ' {"benchmark": "x.Sum", "params": {"n": "20"}, "primaryMetric": {"score": 3.0}}]')


def test_a_location_where_compares_a_nested_member_by_pointer(tmp_path):
    claim = {**SLOPE, "value": "mean", "id": "mean",
             "at": {"file": "summary.json", "pointer": "", "where": {"benchmark": "x.Sum", "/params/n": "{k}"}, "then": "/primaryMetric/score"}}
    files = {"summary.json": JMH, "est/10.json": '{"mean": 2.0}', "est/20.json": '{"mean": 3.0}'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    assert _claim(report, "mean[k=10]").status == "PASS" and _claim(report, "mean[k=20]").status == "PASS"
    files["summary.json"] = JMH.replace("3.0", "3.5")
    report = verify_path(str(write_tree(tmp_path / "c", files)), asset_root=make_assets(tmp_path / "c", {"est": _est_doc([claim])}))
    assert _claim(report, "mean[k=20]").status == "FAIL"
    files["summary.json"] = JMH.replace('"20"', '"30"')  # a stated row no receipt backs, read backwards through the nested member
    report = verify_path(str(write_tree(tmp_path / "d", files)), asset_root=make_assets(tmp_path / "d", {"est": _est_doc([claim])}))
    assert [f.code for f in _by(report, "derivation.claims") if f.status != "PASS"] == ["claim-missing", "receipt-absent"], \
        [f.message for f in _by(report, "derivation.claims")]


# ---------------------------------------------------------------- G6. numbers in Markdown code blocks are shown, so they are stated

README = "# Results\n\nRun it:\n\n```\nBenchmark  Score\nsum        2.0 ms\n```\n\n```text\nmax 7.5\n```\n"


def test_numbers_in_markdown_code_blocks_are_stated_and_addressable(tmp_path):
    from verifier.readers.markdown_doc import markdown_document
    doc = markdown_document(README.encode())
    assert [(b["text"].strip().splitlines()[-1], b["numbers"]) for b in doc["literal"]] == [("sum        2.0 ms", ["2.0 ms"]), ("max 7.5", ["7.5"])], doc
    claim = {k: v for k, v in SLOPE.items() if k != "per"} | {"value": "mean", "id": "mean", "at": {"file": "README.md", "pointer": "/literal/0/numbers/0"}}
    files = {"README.md": README, "est/a.json": '{"mean": 0.002}', "summary.json": "{}"}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "README.md"}]}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    assert _claim(report, "mean").status == "PASS"
    unchecked = [f.pointer for f in _by(report, "claims.coverage", "unchecked-claim")]
    assert unchecked == ["/literal/1/numbers/0"], unchecked
