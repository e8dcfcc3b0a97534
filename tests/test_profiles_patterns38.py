"""Issue 38, the rest: indented code blocks are stated like fenced ones, reStructuredText claim documents are rST, and one declared pattern set makes identifiers informational."""

from __future__ import annotations

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
    assert [f.pointer for f in _by(report, "profile.coverage", "unchecked-claim")] == ["/literal/1/numbers/0"]
    files["est/a.json"] = '{"mean": 0.003}'  # the indented block's 2.0 ms no longer re-derives
    report = verify_path(str(write_tree(tmp_path / "c", files)), asset_root=make_assets(tmp_path / "c", {"est": doc}))
    assert _claim(report, "mean").status == "FAIL"


def test_an_indented_code_block_is_still_no_claim_of_a_native_claim_text():
    from verifier.claimtext import extract
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
    unchecked = [f.pointer for f in _by(report, "profile.coverage", "unchecked-claim")]
    assert unchecked == ["/prose/1/numbers/1", "/literal/0/numbers/0", "/literal/1/numbers/0", "/literal/1/numbers/1", "/literal/1/numbers/2",
                         "/literal/2/numbers/0"], unchecked
