"""
Every number a claim document shows is stated: table header cells, captions, Markdown headings, repeated columns and cells past an HTML header.

The class of fault: a renderer shows text that the document shape dropped,
so a number in it was never a claim and a bundle could PASS with it
unexamined (`| 5x faster |` as a table header; `## 73% lower`; two columns
under one header text; an HTML row wider than its header).
"""

from __future__ import annotations

from pathlib import Path

from conftest import make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.readers.claimtext import extract
from verifier.core import verify_path
from verifier.readers.mdtables import column_names
from verifier.readers.html import html_document
from verifier.readers.markdown_doc import markdown_document

RUNS = "s,samples\n2,10\n8,10\n"  # 20 samples in 10 s: 2.0 samples/s
RATE = {"id": "rate", "receipts": "runs", "statistic": "ratio_of_sums", "numerator": "samples", "denominator": "latency",
        "selection": {"phase": "measured"}, "unit": "samples/s", "at": {"file": "RESULTS.md", "pointer": "/tables/Results/0/rate"}}


def _verify(tmp_path: Path, document: str, name: str = "RESULTS.md", pointer: str = "/tables/Results/0/rate", **doc_extra):
    bundle = write_tree(tmp_path / "run", {"runs/a.csv": RUNS, name: document})
    claim = {**RATE, "at": {"file": name, "pointer": pointer}}
    profile = {
        "id": "run", "version": 1, "description": "test profile",
        "detect": {"files": [name]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv",
                              "fields": {"latency": {"pointer": "/s", "unit": "s"}, "phase": {"value": "measured"}},
                              "values": {"samples": {"pointer": "/samples", "unit": "samples"}}}},
        "claims": [claim],
        "claim_documents": [{"file": name, **doc_extra}],
    }
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": profile}))


def _unchecked(report) -> list[tuple[str, str]]:
    return [(f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim")]


TABLE = "## Results\n\n| rate | {head} |\n|---|---|\n| 2.0 samples/s | yes |\n"


def test_a_markdown_table_header_stating_a_number_is_an_unchecked_claim(tmp_path):
    report = _verify(tmp_path, TABLE.format(head="5x faster"))
    assert _claim(report, "rate").status == "PASS"
    assert _unchecked(report) == [("/headers/Results/1#numbers/0", "5x")]
    assert report.verdict != "PASS"


def test_a_markdown_table_header_without_numbers_leaves_the_document_covered(tmp_path):
    report = _verify(tmp_path, TABLE.format(head="faster"))
    assert _unchecked(report) == []
    assert [f.code for f in _by(report, "claims.coverage", "covered")] == ["covered"]


def test_a_header_number_declared_informational_is_accounted_for(tmp_path):
    report = _verify(tmp_path, TABLE.format(head="on 4 GPUs"), informational=[{"pointer": "/headers/*/*#numbers/*", "reason": "configuration"}])
    assert _unchecked(report) == []
    assert "1 declared informational" in _by(report, "claims.coverage", "covered")[0].message


def test_a_header_only_table_still_states_its_header(tmp_path):
    report = _verify(tmp_path, TABLE.format(head="ok") + "\n## Speedup\n\n| 3.9x |\n|---|\n")
    assert _unchecked(report) == [("/headers/Speedup/0", "3.9x")]


def test_a_markdown_heading_stating_a_number_is_an_unchecked_claim(tmp_path):
    report = _verify(tmp_path, "# 73% lower latency\n\n" + TABLE.format(head="ok"))
    assert _unchecked(report) == [("/headings/0/numbers/0", "73%")]
    doc = markdown_document(b"# 73% lower latency\n\ntext 5 ms\n")
    assert doc["prose"] == [{"#line": 3, "text": "text 5 ms", "code": [], "numbers": ["5 ms"]}]  # headings do not move prose indices
    assert doc["headings"] == [{"#line": 1, "text": "73% lower latency", "numbers": ["73%"]}]


def test_two_columns_under_one_header_text_keep_both_cells(tmp_path):
    doc = markdown_document(b"| x | x | x (2) |\n|---|---|---|\n| 1 | 2 | 3 |\n")
    assert doc["tables"]["(top)"] == [{"x": "1", "x (3)": "2", "x (2)": "3", "#line": 3}]
    report = _verify(tmp_path, "## Results\n\n| rate | |  |\n|---|---|---|\n| 2.0 samples/s | 7 | 8 |\n")
    assert _unchecked(report) == [("/tables/Results/0/", "7"), ("/tables/Results/0/(2)", "8")]
    assert column_names(["", ""]) == ["", "(2)"] and column_names(["a", "b"]) == ["a", "b"]


def test_html_header_cells_captions_and_cells_past_the_header_are_stated(tmp_path):
    page = ("<html><body><table><caption>Run of 9 ms</caption><tr><th>rate</th><th>5x</th><th>5x</th></tr>"
            "<tr><td>2.0 samples/s</td><td>1</td><td>2</td><td>4 s</td></tr></table></body></html>")
    doc = html_document(page.encode())
    assert doc["tables"]["Run of 9 ms"] == [{"rate": "2.0 samples/s", "5x": "1", "5x (2)": "2", "(column 4)": "4 s", "#line": 1}]
    assert doc["headers"] == {"Run of 9 ms": ["rate", "5x", "5x"]} and doc["captions"] == {"Run of 9 ms": "Run of 9 ms"}
    short = html_document(b"<table><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr></table>")
    assert short["tables"]["(top)"] == [{"a": "1", "b": "", "#line": 1}]  # a row shorter than its header: the missing cell is empty
    report = _verify(tmp_path, page, name="index.html", pointer="/tables/Run of 9 ms/0/rate")
    assert _claim(report, "rate").status == "PASS"
    unchecked = dict(_unchecked(report))
    for pointer, shown in [("/captions/Run of 9 ms#numbers/0", "9 ms"), ("/headers/Run of 9 ms/1", "5x"), ("/headers/Run of 9 ms/2", "5x"),
                           ("/tables/Run of 9 ms/0/(column 4)", "4 s"), ("/tables/Run of 9 ms/0/5x (2)", "2")]:
        assert unchecked.get(pointer) == shown, (pointer, unchecked)
    assert len(unchecked) == 6  # and the "1" under the first "5x"


def test_claim_text_reads_table_header_cells_and_html_captions():
    found = [(q.number, q.unit, q.phrase) for q in extract("| 5x faster | b |\n|---|---|\n| 1 s | 2 s |\n", "t")]
    assert found == [("5", "x", "x-faster"), ("1", "s", None), ("2", "s", None)]
    html = "<table><caption>at 9 ms</caption><tr><th>7 GiB</th></tr><tr><td>3</td></tr></table>\n"
    assert [(q.number, q.unit) for q in extract(html, "t")] == [("9", "ms"), ("7", "GiB"), ("3", None)]


def test_a_star_matches_any_characters_within_one_pointer_token():
    from verifier.checks.profile_coverage import pointer_matches

    assert pointer_matches("/headers/*/*#numbers/*", "/headers/Results/1#numbers/0")
    assert pointer_matches("/prose/*/numbers/*", "/prose/3/numbers/0")
    assert not pointer_matches("/headers/*", "/headers/Results/1")  # never across a `/`
    assert not pointer_matches("/headers/*/1", "/headers/Results/10")
    assert not pointer_matches("/a.b", "/aXb")  # everything but `*` is itself
    from verifier.checks.profile_coverage import _any_of

    assert _any_of([])("") is False  # no declaration: not even a document that is one bare number (pointer "") is informational
    assert _any_of(["/a/*", "/b"])("/b") and not _any_of(["/a/*", "/b"])("/c")


def test_the_text_of_raw_html_blocks_in_markdown_is_stated(tmp_path):
    readme = TABLE.format(head="ok") + "\n<details><summary>5x faster</summary>\n\nsee below\n\n</details>\n\n<table><tr><th>p 2</th></tr><tr><td>4 s</td></tr></table>\n"
    report = _verify(tmp_path, readme)
    assert _claim(report, "rate").status == "PASS"
    assert sorted(_unchecked(report)) == [("/headers/Results (2)/0#numbers/0", "2"), ("/html/0/numbers/0", "5x"), ("/tables/Results (2)/0/p 2", "4 s")]


def test_an_html_block_the_html_reader_refuses_states_every_number_of_its_source(tmp_path):
    report = _verify(tmp_path, TABLE.format(head="ok") + "\n<div>\n<![\n7 ms\n")
    assert _unchecked(report) == [("/html/0/numbers/0", "7 ms")]


def test_a_markdown_document_without_html_blocks_has_no_html_list():
    from verifier.readers.html import with_html_blocks

    doc = markdown_document(b"text 5 ms\n")
    assert "#html" not in doc and with_html_blocks(doc) == doc and "html" not in doc
    assert markdown_document(b"<div>3 s</div>\n")["#html"] == [{"#line": 1, "source": "<div>3 s</div>\n", "heading": ""}]
    doc = with_html_blocks(markdown_document(b"# H\n\ntext\n\n<div>\n<p>one</p>\n<p>two 2</p>\n<table>\n<tr><th>x</th></tr>\n<tr><td>4</td></tr>\n</table>\n</div>\n"))
    assert [(item["#line"], item["text"]) for item in doc["html"]] == [(6, "one"), (7, "two 2")]  # lines counted in the Markdown file
    assert doc["tables"]["H"] == [{"x": "4", "#line": 10}]


def test_tables_under_one_heading_are_numbered_header_only_ones_included():
    doc = markdown_document(b"## R\n\n| a 1 |\n|---|\n\n| b |\n|---|\n| 2 |\n\n| c |\n|---|\n| 3 |\n")
    assert list(doc["tables"]) == ["R", "R (2)", "R (3)"] and doc["tables"]["R"] == []
    assert doc["headers"] == {"R": ["a 1"], "R (2)": ["b"], "R (3)": ["c"]}
    assert doc["tables"]["R (3)"] == [{"c": "3", "#line": 12}]


def test_columns_whose_header_starts_with_a_hash_are_stated(tmp_path):
    report = _verify(tmp_path, "## Results\n\n| rate | # | #GPUs |\n|---|---|---|\n| 2.0 samples/s | 1 | 8 |\n")
    assert _claim(report, "rate").status == "PASS"
    assert _unchecked(report) == [("/tables/Results/0/#", "1"), ("/tables/Results/0/#GPUs", "8")]
    page = "<table><tr><th>rate</th><th>#GPUs</th></tr><tr><td>2.0 samples/s</td><td>8</td></tr></table>"
    assert _unchecked(_verify(tmp_path / "h", page, name="index.html", pointer="/tables/(top)/0/rate")) == [("/tables/(top)/0/#GPUs", "8")]


def test_a_header_named_like_what_a_reader_adds_is_renamed_not_a_crash(tmp_path):
    doc = markdown_document(b"| #table | #line |\n|---|---|\n| 5 | 6 |\n")
    assert doc["tables"]["(top)"] == [{"#table (2)": "5", "#line (2)": "6", "#line": 3}]
    report = _verify(tmp_path, "## Results\n\n| rate | #table |\n|---|---|\n| 2.0 samples/s | 5 |\n")
    assert report.verdict != "ERROR" and _unchecked(report) == [("/tables/Results/0/#table (2)", "5")]


def test_a_json_claim_document_member_named_with_a_hash_is_stated(tmp_path):
    bundle = write_tree(tmp_path / "run", {"runs/a.csv": RUNS, "summary.json": '{"rate": 2.0, "#gpus": 8}'})
    profile = {"id": "run", "version": 1, "description": "test profile", "detect": {"files": ["summary.json"]},
               "manifest": {"kind": "none", "reason": "no digests"},
               "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv",
                                     "fields": {"latency": {"pointer": "/s", "unit": "s"}, "phase": {"value": "measured"}},
                                     "values": {"samples": {"pointer": "/samples", "unit": "samples"}}}},
               "claims": [{**RATE, "at": {"file": "summary.json", "pointer": "/rate"}}], "claim_documents": [{"file": "summary.json"}]}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": profile}))
    assert _claim(report, "rate").status == "PASS" and _unchecked(report) == [("/#gpus", "8")]


def test_an_html_page_keeps_its_first_title_and_states_later_ones_and_every_caption():
    doc = html_document(b"<head><title>Run 7</title></head><body><svg><title>tip 3</title></svg>"
                        b"<table><caption>a 5</caption><caption>b 6</caption><tr><th>x</th></tr></table></body>")
    assert doc["title"] == "Run 7"
    assert [item["text"] for item in doc["prose"]] == ["tip 3"]
    assert doc["captions"] == {"a 5 b 6": "a 5 b 6"}


def test_an_inline_html_tag_between_two_numbers_keeps_them_two_numbers(tmp_path):
    doc = markdown_document(b"a 5<br>6 ms and <b>7</b> s\n\n| 5<br/>6 ms |\n|---|\n| 1<img src=u>2 |\n")
    assert doc["prose"][0]["numbers"] == ["5", "6 ms", "7 s"]  # never "56 ms"; a tag next to a blank adds none ("7 s")
    assert doc["headers"]["(top)"] == ["5 6 ms"] and doc["tables"]["(top)"][0]["5 6 ms"] == "1 2"
    tags = markdown_document(b"5<b><i>6</i></b> and 7<br>\n8 and 9 <b>1</b>\n")["prose"][0]
    assert tags["text"] == "5 6 and 7 8 and 9 1"  # past two tags to the next word; before a line break the break is the blank
    report = _verify(tmp_path, TABLE.format(head="ok") + "\nwe saw 5<br>6 GPUs\n")
    assert _unchecked(report) == [("/prose/0/numbers/0", "5"), ("/prose/0/numbers/1", "6")]
    assert [(q.number, q.unit) for q in extract("a 5<br>6 ms and <b>7</b> s\n", "t")] == [("5", None), ("6", "ms"), ("7", "s")]


def test_fenced_blocks_github_renders_state_their_numbers_other_fenced_code_blocks_too(tmp_path):
    fences = "\n```math\n5 ms\n```\n\n```python\nsleep(9)\n```\n\n    indented 8\n\n```Mermaid graph\nA[2 s]\n```\n"
    report = _verify(tmp_path, TABLE.format(head="ok") + fences)
    # issue 38: a fenced code block is shown, so its numbers are stated (`literal`); an indented one too, in document order
    assert _unchecked(report) == [("/rendered/0/numbers/0", "5 ms"), ("/rendered/1/numbers/0", "2 s"), ("/literal/0/numbers/0", "9"), ("/literal/1/numbers/0", "8")]
    assert [(q.number, q.unit, q.line) for q in extract(fences, "t")] == [("5", "ms", 3), ("2", "s", 13)]
    assert "rendered" not in markdown_document(b"```python\n9\n```\n") and markdown_document(b"```python\n9\n```\n")["literal"][0]["numbers"] == ["9"]
    assert markdown_document(b"x\n\n```math\n5 ms\n```\n")["rendered"] == [{"#line": 3, "text": "5 ms\n", "numbers": ["5 ms"]}]  # the fence's line


def test_the_value_a_text_field_or_button_shows_is_stated_a_slider_s_is_not():
    page = (b'<p>speed</p><input type="range" min="0" max="15.083333" value="3"><input value="5 ms"><input type="submit" value="Run 6">'
            b'<input placeholder="7 s"><input type="hidden" value="8"><input type="NUMBER" value="9" placeholder="1"><template><input value="2"></template>')
    assert [item["text"] for item in html_document(page)["prose"]] == ["speed", "5 ms", "Run 6", "7 s", "9"]
    cell = html_document(b"<table><tr><th>a</th></tr><tr><td><input value='4 s'></td></tr></table>")
    assert cell["tables"]["(top)"] == [{"a": "4 s", "#line": 1}]


def test_a_markdown_prose_item_lists_its_code_spans():
    """Profiles point at `/prose/N/code/M` (the rankings profile reads a command's flags there)."""
    assert markdown_document(b"run `--rate 5` then `x=7`\n")["prose"][0]["code"] == ["--rate 5", "x=7"]


def test_a_field_s_shown_value_keeps_its_line_and_a_widget_parts_the_words_a_hidden_field_does_not():
    page = html_document(b'<p>x</p>\n\n<input value="5 ms">\n<p>5<input type="checkbox">6 and 7<input type="hidden" value="1">8</p>')
    assert [(item["#line"], item["text"]) for item in page["prose"]] == [(1, "x"), (3, "5 ms"), (4, "5 6 and 78")]


def test_a_footnote_reference_states_nothing_its_definition_does_and_an_undefined_one_is_text(tmp_path):
    doc = markdown_document(b"a 5 ms[^1] b and 6[^note] s\n\n| t |\n|---|\n| 7 ms[^1] |\n\n[^1]: per run of 3 s\n[^note]: x\n")
    assert [p["numbers"] for p in doc["prose"]] == [["5 ms", "6 s"], ["3 s"], []]  # github.com numbers the links by order: 1 is not stated
    assert doc["tables"]["(top)"][0]["t"] == "7 ms"
    assert markdown_document(b"5[^1]6 ms\n\n[^1]: x\n")["prose"][0]["numbers"] == ["5", "6 ms"]  # shown 5\u00b96: never 56
    assert markdown_document(b"see [^9] here\n")["prose"][0]["numbers"] == ["9"]  # no definition: github.com shows the text
    assert [(q.number, q.unit) for q in extract("a 5 ms[^1] b\n\n[^1]: of 3 s\n", "t")] == [("5", "ms"), ("3", "s")]
    report = _verify(tmp_path, TABLE.format(head="ok") + "\nwe saw it[^2].\n\n[^2]: on 4 GPUs\n")
    assert _unchecked(report) == [("/prose/1/numbers/0", "4")]
