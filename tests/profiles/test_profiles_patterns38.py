"""Issue 38, the rest: indented code blocks are stated like fenced ones, reStructuredText claim documents are rST, and one declared pattern set makes identifiers informational."""

from __future__ import annotations

import pytest
from conftest import make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree
from test_profiles_trial38 import SLOPE, _est_doc

from verifier.core import verify_path

# ---------------------------------------------------------------- indented code blocks (4 spaces) are shown, so stated

INDENTED = "# Results\n\nRun it:\n\n    Benchmark  Score\n    sum        2.0 ms\n\nthen\n\n```text\nmax 7.5\n```\n"


def test_numbers_in_an_indented_code_block_are_stated_like_a_fenced_one():
    from verifier.readers.markdown_doc import markdown_document
    doc = markdown_document(INDENTED.encode())
    assert [(b["#line"], b["numbers"]) for b in doc["literal"]] == [(5, ["2.0 ms"]), (10, ["7.5"])], doc


def test_an_indented_code_block_number_is_derived_and_the_rest_is_unchecked(tmp_path):
    claim = {k: v for k, v in SLOPE.items() if k != "per"} | {"value": "mean", "id": "mean", "at": {"file": "README.md", "pointer": "/literal/0/numbers/0"}}
    files = {"README.md": INDENTED, "est/a.json": '{"mean": 0.002}', "summary.json": "{}"}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "README.md"}]}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    assert _claim(report, "mean").status == "PASS"
    assert [f.pointer for f in _by(report, "claims.coverage", "unchecked-claim")] == ["/literal/1/numbers/0"]
    files["est/a.json"] = '{"mean": 0.003}'  # the indented block's 2.0 ms no longer re-derives
    report = verify_path(str(write_tree(tmp_path / "c", files)), asset_root=make_assets(tmp_path / "c", {"est": doc}))
    assert _claim(report, "mean").status == "FAIL"


def test_an_indented_code_block_is_still_no_claim_of_a_native_claim_text():
    from verifier.readers.claimtext import extract
    assert [str(q.value) for q in extract("Mean 3 s.\n\n    run --steps 50\n", "README.md")] == ["3"]


# ---------------------------------------------------------------- reStructuredText: read as rST (never JSON), every shown block stated

RST = """Results
=======

Run it::

   bench --runs 5

| Mean 1.0 s
|     on 2 GPUs

>>> mean([1.0, 1.0])
1.0

.. math::

   t = 3.5
"""


def test_a_restructuredtext_document_shows_literal_doctest_math_and_line_blocks():
    from verifier.readers.rst_doc import rst_document
    doc = rst_document(RST.encode())
    assert [(b["#line"], b["numbers"]) for b in doc["literal"]] == [(6, ["5"]), (11, ["1.0", "1.0", "1.0"]), (14, ["3.5"])]  # math: its directive line, doc["literal"]
    assert [p["numbers"] for p in doc["prose"]] == [[], ["1.0 s", "2"]], doc["prose"]


def test_a_restructuredtext_claim_document_is_read_as_rst_never_as_json(tmp_path):
    claim = {k: v for k, v in SLOPE.items() if k != "per"} | {"value": "mean", "id": "mean", "at": {"file": "RESULTS.rst", "pointer": "/prose/1/numbers/0"}}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "RESULTS.rst"}]}
    for mean, status in (("1.0", "PASS"), ("1.1", "FAIL")):
        files = {"RESULTS.rst": RST, "est/a.json": f'{{"mean": {mean}}}', "summary.json": "{}"}
        report = verify_path(str(write_tree(tmp_path / status / "b", files)), asset_root=make_assets(tmp_path / status, {"est": doc}))
        assert _claim(report, "mean").status == status
        assert not [f for f in report.findings if "JSON" in f.message and "RESULTS.rst" in f.message], [f.message for f in report.findings]
    unchecked = [f.pointer for f in _by(report, "claims.coverage", "unchecked-claim")]
    assert unchecked == ["/prose/1/numbers/1", "/literal/0/numbers/0", "/literal/1/numbers/0", "/literal/1/numbers/1", "/literal/1/numbers/2",
                         "/literal/2/numbers/0"], unchecked


# ---------------------------------------------------------------- one declared pattern set makes identifiers and "no value" texts informational

SUMMARY = ('{"model": "llama-3-8b", "engine": "vLLM 0.6.3", "started": "2026-09-14T10:00:00Z", "commit": "abc1234f", '
           '"tp8": "N/A (OOM at 64)", "note": "25.1 tok/s on vLLM 0.6.3", "mean": "2.0 s"}')  # the JSON reader states no number glued to a word
NOTES = "# Notes\n\nWe ran with seed 1101 on llama-3-8b and saw 2.0 ms.\n\nvLLM 0.6.3 at commit 1a2b3c4d5, 2026-09-14, from 10:42.\n"
SET = {"classes": ["not-applicable", "date", "time-of-day", "version", "commit", "identifier"],
       "regexes": [{"regex": r"(?i)seed \d+", "reason": "the generation seed: configuration"}]}


def _patterns_report(tmp_path, pattern_set):
    claim = {k: v for k, v in SLOPE.items() if k != "per"} | {"value": "mean", "id": "mean", "at": {"file": "summary.json", "pointer": "/mean"}}
    files = {"summary.json": SUMMARY, "NOTES.md": NOTES, "est/a.json": '{"mean": 2.0}'}
    doc = _est_doc([claim]) | {"claim_documents": [{"file": "summary.json"}, {"file": "NOTES.md"}]}
    if pattern_set is not None:
        doc["informational"] = pattern_set
    return verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))


def test_without_a_pattern_set_every_identifier_number_is_unchecked(tmp_path):
    report = _patterns_report(tmp_path, None)
    unchecked = sorted((f.path, f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim"))
    # the Markdown prose reader states no digits glued to a name or a version (`llama-3-8b`, `0.6.3`, `1a2b3c4d5`, `-09`: issue 38 D9)
    assert unchecked == [("NOTES.md", "/prose/0/numbers/0", "1101"), ("NOTES.md", "/prose/0/numbers/1", "2.0 ms"),
                         ("NOTES.md", "/prose/1/numbers/0", "2026"), ("NOTES.md", "/prose/1/numbers/1", "10"), ("NOTES.md", "/prose/1/numbers/2", "42"),
                         ("summary.json", "/note#numbers/0", "25.1 tok/s"), ("summary.json", "/started#numbers/0", "2026"),
                         ("summary.json", "/started#numbers/1", "09"), ("summary.json", "/started#numbers/2", "00"), ("summary.json", "/tp8#numbers/0", "64")], unchecked


def test_one_pattern_set_accounts_for_identifiers_in_every_claim_document_and_nothing_else(tmp_path):
    report = _patterns_report(tmp_path, SET)
    unchecked = sorted((f.path, f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim"))
    # the measurement inside the note and the README's 2.0 ms stay claims; the version beside it, the model's digits, the date,
    # the commit, the number inside an N/A cell and the seed (the profile's own regex) are informational
    assert unchecked == [("NOTES.md", "/prose/0/numbers/1", "2.0 ms"), ("summary.json", "/note#numbers/0", "25.1 tok/s")], unchecked
    assert _claim(report, "mean").status == "PASS"


ALL = ["/prose/0/numbers/0", "/prose/0/numbers/1", *(f"/prose/1/numbers/{i}" for i in range(3)), "/note#numbers/0", "/started#numbers/0", "/started#numbers/1", "/started#numbers/2", "/tp8#numbers/0"]


@pytest.mark.parametrize(("pattern_set", "held"), [
    ({"classes": ["version"]}, []),  # the prose reader already states no version, commit or glued digit (D9)
    ({"classes": ["commit"]}, []),
    ({"classes": ["date"]}, ["/prose/1/numbers/0", "/started#numbers/0", "/started#numbers/1", "/started#numbers/2"]),
    ({"classes": ["identifier"]}, []),
    ({"classes": ["not-applicable"]}, ["/tp8#numbers/0"]),
    ({"classes": ["time-of-day"]}, ["/prose/1/numbers/1", "/prose/1/numbers/2"]),
    ({"regexes": [{"regex": r"(?i)seed \d+", "reason": "the seed"}]}, ["/prose/0/numbers/0"]),
])
def test_each_class_holds_only_its_own_numbers(tmp_path, pattern_set, held):
    report = _patterns_report(tmp_path, pattern_set)
    unchecked = [f.pointer for f in _by(report, "claims.coverage", "unchecked-claim")]
    assert sorted(unchecked) == sorted(p for p in ALL if p not in held), unchecked



def test_the_schema_classes_are_the_one_vocabulary():
    import json as _json
    from pathlib import Path

    from verifier.readers.informational import CLASSES
    schema = _json.loads((Path(__file__).resolve().parent.parent.parent / "schemas" / "profile.schema.json").read_text())
    assert schema["properties"]["informational"]["properties"]["classes"]["items"]["enum"] == list(CLASSES)


def test_a_regex_re2_refuses_stops_at_load_naming_file_and_pointer(tmp_path, run):
    import json as _json
    for regex, said in ((r"(seed) \1", "backreferences"), (r"(?<=seed )\d+", "lookarounds"), (r"seed (\d+", "not an RE2 regex")):
        draft = tmp_path / "draft.json"
        doc = _est_doc([]) | {"id": "draft-est", "informational": {"regexes": [{"regex": r"\d+ GPUs", "reason": "ok"}, {"regex": regex, "reason": "seed"}]}}
        draft.write_text(_json.dumps(doc))
        bundle = write_tree(tmp_path / "b", {"summary.json": "{}", "est/a.json": '{"mean": 1.0}'})
        result = run("profile", "check", str(bundle), "--profile", str(draft))
        assert result.exit_code == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(draft) in lines[0] and "/informational/regexes/1/regex" in lines[0] and said in lines[0], result.stderr


def test_an_unknown_class_is_refused_at_load(tmp_path, run):
    import json as _json
    draft = tmp_path / "draft.json"
    draft.write_text(_json.dumps(_est_doc([]) | {"id": "draft-est", "informational": {"classes": ["hash"]}}))
    result = run("profile", "check", str(write_tree(tmp_path / "b", {"summary.json": "{}"})), "--profile", str(draft))
    assert result.exit_code == 2 and "/informational/classes/0" in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_number_is_placed_in_its_items_text_by_the_reader_that_stated_it(tmp_path):
    # rST prose numbers are `numbers_in`'s (no digits glued to a word), Markdown's its own: the 2.0 ms of an rST item is its
    # number 0, which Markdown's reading would place on the 3 of llama-3-8b (an identifier), so it must stay a claim
    files = {"RESULTS.rst": "Results\n=======\n\nWe ran llama-3-8b and saw 2.0 ms.\n", "summary.json": "{}", "est/a.json": '{"mean": 1.0}'}
    doc = _est_doc([]) | {"claim_documents": [{"file": "RESULTS.rst"}], "informational": {"classes": ["identifier"]}}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": doc}))
    assert [(f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim")] == [("/prose/0/numbers/0", "2.0 ms")]


# ---------------------------------------------------------------- a shipped profile: the fasth3 page's per-position list became one pattern set


def test_the_comparison_profile_holds_its_page_configuration_by_pattern_wherever_it_stands():
    from conftest import profile_document

    from verifier.readers.claimdocs import stated_numbers
    from verifier.readers.html import html_document
    from verifier.readers.informational import compile_patterns, informational_numbers

    patterns = compile_patterns(profile_document("vllm-omni-rankings-comparison")["informational"])
    # the page's texts, in another order than the corpus page (where they were declared by position: /prose/3/numbers/0, ...)
    page = html_document("<p>FastH3 · 2026-09-14</p><p>0.25×</p><p>17.451 / 17.396 s</p><p>茶馆 · seed 1101 362 帧 · 4 步</p><p>00:00.00</p>"
                         "<p>当前视频：正式请求 1 17.451 s</p><p>在线 W8A8 · 分组 256</p><p>两边展示各自第 1 次正式请求</p><p>00:15.08</p>".encode())
    found = [(p, v) for p, v in stated_numbers(page) if isinstance(v, str)]
    held = informational_numbers(page, found, patterns)
    shown = {dict(found)[p] for p in held}
    assert sorted(dict(found)[p] for p in held) == sorted(["2026", "09", "14", "0.25×", "1101", "4", "00", "00.00", "1", "256", "1"]), shown
    assert all(p not in held for p, v in found if v in ("17.451", "17.396 s", "362 帧", "17.451 s", "00:15.08", "15.08"))


# ---------------------------------------------------------------- a `where` matching several elements is the profile's fault, never FAIL claim-missing

ROWS = {"rows": [{"arm": "baseline", "run": 1, "mean": 1.2}, {"arm": "baseline", "run": 2, "mean": 9.0}, {"arm": "candidate", "run": 1, "mean": 1.0}]}


def _where_several(tmp_path, where: dict):
    import json as _json

    from test_profiles_authoring import RUNS, _doc
    claim = {"id": "mean", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
             "at": {"file": "summary.json", "pointer": "/rows", "where": where, "then": "/mean"}}
    bundle = write_tree(tmp_path / "run", {**RUNS, "summary.json": _json.dumps(ROWS)})
    return bundle, _doc([claim])


def test_a_where_matching_several_elements_is_unverified_ambiguous_not_claim_missing(tmp_path):
    bundle, doc = _where_several(tmp_path, {"arm": "{arm}"})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    found = _claim(report, "mean[arm=baseline]")
    assert (found.status, found.code) == ("UNVERIFIED", "ambiguous-location") and "2 elements of /rows match" in found.message, found.message
    assert _claim(report, "mean[arm=candidate]").status == "PASS"
    bundle, doc = _where_several(tmp_path / "one", {"arm": "{arm}", "run": "1"})  # a member that tells them apart: one element, compared
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path / "one", {"run": doc}))
    assert [f.status for f in _by(report, "derivation.claims")] == ["PASS", "PASS"]


def test_profile_check_names_a_where_matching_several_elements_as_an_authoring_problem(tmp_path, run):
    import json as _json
    bundle, doc = _where_several(tmp_path, {"arm": "{arm}"})
    draft = tmp_path / "draft.json"
    draft.write_text(_json.dumps(doc | {"id": "draft-run"}))
    result = run("profile", "check", str(bundle), "--profile", str(draft))
    line = next(line for line in result.stdout.splitlines() if "claims/0 (mean)" in line)
    assert result.exit_code == 1 and "`where` matches several elements for 1 instance" in line and "an authoring problem" in line, result.stdout


# ---------------------------------------------------------------- Why: "geometric mean of ratios"; "a template that binds the wrong columns"

RATIOS = {"runs/baseline.json": '{"benchmarks": [{"name": "a", "new": 2.0, "old": 1.0}, {"name": "b", "new": 9.0, "old": 1.0}, {"name": "c", "new": 1.0, "old": 3.0}]}'}


def test_a_geometric_mean_of_per_record_ratios(tmp_path):
    import json as _json

    from scipy.stats import gmean
    from test_profiles_authoring import _json_doc
    expected = gmean([2.0, 9.0, 1.0 / 3.0])  # 1.817..., not the ratio of the means (4.0 / 1.667 = 2.4) nor their mean ratio (3.78)
    claim = {"id": "gm", "receipts": "runs", "statistic": "geometric_mean", "value": "r", "selection": {"phase": "measured"}, "unit": "x",
             "at": {"file": "summary.json", "pointer": "/gm"}}
    runs = {"values": {"r": {"pointer": "/new", "unit": "1", "divide_by": {"pointer": "/old"}}}}
    for stated, status in ((round(expected, 4), "PASS"), (2.4, "FAIL"), (round((2.0 + 9.0 + 1 / 3) / 3, 4), "FAIL")):
        bundle = write_tree(tmp_path / f"{stated}" / "run", {**RATIOS, "summary.json": _json.dumps({"gm": stated})})
        report = verify_path(str(bundle), asset_root=make_assets(tmp_path / f"{stated}", {"run": _json_doc([claim], runs)}))
        assert _claim(report, "gm").status == status, (stated, _claim(report, "gm").message)


def test_profile_check_names_a_where_binding_the_wrong_columns(tmp_path, run):
    import json as _json

    from test_profiles_authoring import RUNS, _doc
    table = "# Results\n\n| Arm | Mean s |\n|---|---|\n| baseline | 1.2 |\n| candidate | 1.0 |\n"
    claim = {"id": "mean", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
             "at": {"file": "RESULTS.md", "pointer": "/tables/Results", "where": {"Mean s": "{arm}"}, "then": "/Arm"}}  # the columns swapped
    bundle = write_tree(tmp_path / "run", {**RUNS, "RESULTS.md": table, "summary.json": "{}"})
    draft = tmp_path / "draft.json"
    draft.write_text(_json.dumps(_doc([claim]) | {"id": "draft-run"}))
    result = run("profile", "check", str(bundle), "--profile", str(draft))
    line = next(line for line in result.stdout.splitlines() if "claims/0 (mean)" in line)
    assert result.exit_code == 1 and "stated for 0 of 2" in line and "0 elements of /tables/Results match {'Mean s': 'baseline'}" in line and \
        "an authoring problem" in line, line
    claim["at"] |= {"where": {"Arm": "{arm}"}, "then": "/Mean s"}
    draft.write_text(_json.dumps(_doc([claim]) | {"id": "draft-run"}))
    assert run("profile", "check", str(bundle), "--profile", str(draft)).exit_code == 0


# ---------------------------------------------------------------- Bad input: a profile never reads outside the folder, runs code, or takes unbounded time

DEEP = "/".join(["a" * 10] * 12)  # a 131-character path


def _timed(call) -> float:
    import time
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_a_glob_of_many_wildcards_is_matched_in_linear_time():
    from verifier.readers.tree import glob_regex
    pattern = "**/" * 8 + "*a" * 8 + "b"  # Python's backtracking re: 2.9 s on this one path (ten of each: 12 s)
    assert _timed(lambda: glob_regex(pattern).fullmatch(DEEP)) < 0.5
    assert glob_regex("runs/**/*.json").fullmatch("runs/x/y/a.json") and not glob_regex("runs/*.json").fullmatch("runs/x/a.json")


def test_a_pointer_pattern_and_a_name_template_of_many_wildcards_are_matched_in_linear_time():
    from verifier.checks.profile_coverage import pointer_matches
    from verifier.readers.records import _name_values
    assert _timed(lambda: pointer_matches("/" + "*a" * 7 + "b", "/" + "a" * 50)) < 0.5  # backtracking re: 1.7 s (eight and 60: 43 s)
    template = "-".join(f"{{p{i}}}" for i in range(6)) + ".csv"  # backtracking re: 1.8 s (seven: 24 s)
    assert _timed(lambda: _name_values(template, "-".join(["x"] * 60) + ".json")) < 0.5
    assert _name_values("runs/{arm}-{phase}.csv", "runs/a-b-c.csv") == {"arm": "a", "phase": "b-c"}  # leftmost-first, as before


@pytest.mark.parametrize("pattern", [r"(\d+)_\1", r"(?=\d)\d+"])
def test_a_name_pattern_re2_refuses_is_refused_at_load(pattern):
    from test_profiles_authoring import SCHEMA, _refused
    doc = _est_doc([])
    doc["receipts"]["est"]["name_patterns"] = {"k": pattern}
    line = _refused(doc, "/receipts/est/name_patterns/k", "not a regular expression RE2 accepts")
    assert SCHEMA and "\n" not in line


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda d: d["receipts"]["est"].__setitem__("glob", "/etc/*.json"), "/receipts/est/glob"),
    (lambda d: d["claims"].append({**SLOPE, "at": {"file": "/etc/passwd", "pointer": "/{k}"}}), "/claims/0/at/file"),
    (lambda d: d["detect"].__setitem__("files", ["../summary.json"]), "/detect/files/0"),
])
def test_an_absolute_path_or_a_parent_segment_is_refused_at_load(edit, pointer):
    from test_profiles_authoring import _refused
    doc = _est_doc([])
    edit(doc)
    _refused(doc, pointer)


def test_a_directory_symlinked_out_of_the_folder_is_never_read(tmp_path):
    import os
    outside = write_tree(tmp_path / "outside", {"a.json": '{"mean": 2.0}'})
    bundle = write_tree(tmp_path / "b", {"summary.json": '{"a": 2.0}'})
    os.symlink(outside, bundle / "est")
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    assert not [f for f in report.findings if f.status == "PASS" and f.check in ("derivation.claims", "schema.documents")], [f.message for f in report.findings]
    assert [f.code for f in _by(report, "schema.documents")] == ["no-receipts"]


def test_a_placeholder_filled_from_the_evidence_never_names_a_file_outside(tmp_path):
    write_tree(tmp_path / "outside", {"secret.json": '{"v": 2.0}'})
    claim = {**SLOPE, "value": "mean", "id": "mean", "at": {"file": "{k}.json", "pointer": "/v"}}
    doc = _est_doc([claim])
    doc["receipts"]["est"] |= {"name": "est/{n}.json", "dimensions": {"k": {"pointer": "/k"}, "n": {"from_name": "n"}}}
    bundle = write_tree(tmp_path / "b", {"summary.json": "{}", "est/a.json": '{"mean": 2.0, "k": "../outside/secret"}'})
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"est": doc}))
    found = _claim(report, "mean[k=../outside/secret]")
    assert found.status != "PASS" and "2" not in (found.message.split(":")[-1]), found.message


def test_profile_check_counts_what_each_pattern_holds_and_names_one_holding_nothing(tmp_path, run):
    import json as _json
    claim = {k: v for k, v in SLOPE.items() if k != "per"} | {"value": "mean", "id": "mean", "at": {"file": "summary.json", "pointer": "/mean"}}
    files = {"summary.json": SUMMARY, "NOTES.md": NOTES, "est/a.json": '{"mean": 2.0}'}
    pattern_set = {"classes": ["date", "not-applicable"], "regexes": [{"regex": r"seed \d+", "reason": "seed"}, {"regex": r"sede \d+", "reason": "a typo"}]}
    doc = _est_doc([claim]) | {"id": "draft-est", "claim_documents": [{"file": "summary.json"}, {"file": "NOTES.md"}], "informational": pattern_set}
    draft = tmp_path / "draft.json"
    draft.write_text(_json.dumps(doc))
    result = run("profile", "check", str(write_tree(tmp_path / "b", files)), "--profile", str(draft))
    lines = {line.split(":")[0].strip(): line for line in result.stdout.splitlines() if "informational/" in line}
    assert "holds 1 stated number of 11" in lines["informational/classes (not-applicable)"], result.stdout
    assert "holds 4 stated numbers of 11" in lines["informational/classes (date)"]
    assert "holds 1 stated number of 11" in lines["informational/regexes/0"] and "matches nothing" not in lines["informational/regexes/0"]
    assert "holds 0 stated numbers" in lines["informational/regexes/1"] and "matches nothing" in lines["informational/regexes/1"]
    assert result.exit_code == 1


def test_the_not_applicable_class_makes_a_claim_instance_writing_n_a_with_a_note_state_no_number(tmp_path):
    from test_profiles_trial38 import OPTIONAL
    claim = {**SLOPE, "value": "mean", "id": "mean"}
    files = {**OPTIONAL, "summary.json": '{"a": "N/A (OOM at 64)", "b": "not significant (p = 0.21)"}'}
    report = verify_path(str(write_tree(tmp_path / "b", files)), asset_root=make_assets(tmp_path, {"est": _est_doc([claim])}))
    assert sorted(f.code for f in _by(report, "derivation.claims")) == ["claim-not-stated", "claim-not-stated"]  # undeclared: each a text, not a number
    doc = _est_doc([claim]) | {"informational": {"classes": ["not-applicable"]}, "claim_documents": [{"file": "summary.json"}]}
    report = verify_path(str(write_tree(tmp_path / "c", files)), asset_root=make_assets(tmp_path / "c", {"est": doc}))
    (found,) = _by(report, "derivation.claims")
    assert (found.status, found.code) == ("UNVERIFIED", "claim-unstated") and "mean[k=a], mean[k=b]" in found.message, found.message
    assert [f.code for f in _by(report, "claims.coverage")] == ["covered"]  # the 64 and the 0.21 inside them are informational
