"""
What the claim-document readers read, pinned by examples written out whole.

`verifier.readers.claimdocs._collect` (every stated number and outcome of a
document, with its pointer and the string it came from),
`read_claim_documents` (claims and outcomes of documents read together, each
number kept as written), `verifier.readers.mdtables.table_rows` on a token stream
whose rows are shorter or longer than the header, and
`verifier.readers.markdown_doc.markdown_document` on a file of tables,
headings, HTML, a rendered fence and list items.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from verifier.readers import mdtables
from verifier.readers.markdown import Token
from verifier.readers import claimdocs
from verifier.readers.markdown_doc import markdown_document

#: Escaped member names, a `#` member, a Markdown prose item, true/false, null, numbers, strings stating none, one or two numbers.
DOCUMENT = {"a": "7.0 ms", "b/c": ["18,812 MiB (32.1%)", None, True, 0, Decimal("396.30")], "t~1": {"#line": 3, "#GPUs": "8"},
            "p": {"#line": 4, "text": "12 GiB", "code": ["7"], "numbers": ["12 GiB"]}, "n": "no number", "v": "v2.6.0", "z": False}


def _collected(base: str, skip: frozenset[str]) -> list[tuple[str, Any, Any, Any]]:
    out: list[tuple[str, Any, Any, Any]] = []
    claimdocs._collect(DOCUMENT, base, out, {}, skip)
    return out


def test_collect_gives_each_stated_number_with_its_pointer_and_source():
    assert _collected("", claimdocs._SHOWN_KEYS) == [
        ("/a", "7.0 ms", (Decimal("7.0"), "ms"), "7.0 ms"),
        ("/b~1c/0#numbers/0", "18,812 MiB", (Decimal("18812"), "MiB"), "18,812 MiB (32.1%)"),
        ("/b~1c/0#numbers/1", "32.1%", (Decimal("32.1"), "%"), "18,812 MiB (32.1%)"),
        ("/b~1c/2", True, None, None),
        ("/b~1c/3", 0, None, None),
        ("/b~1c/4", Decimal("396.30"), None, None),
        ("/t~01/#GPUs", "8", (Decimal("8"), None), None),  # a pointer holding `#` names no string: no source
        ("/p/numbers/0", "12 GiB", (Decimal("12"), "GiB"), "12 GiB"),  # a prose item: its numbers, not its text and code
        ("/z", False, None, None),
    ]


def test_collect_walks_line_members_when_told_to_skip_none():
    assert [(pointer, value) for pointer, value, _parsed, _source in _collected("/tables/x", frozenset())] == [
        ("/tables/x/a", "7.0 ms"), ("/tables/x/b~1c/0#numbers/0", "18,812 MiB"), ("/tables/x/b~1c/0#numbers/1", "32.1%"),
        ("/tables/x/b~1c/2", True), ("/tables/x/b~1c/3", 0), ("/tables/x/b~1c/4", Decimal("396.30")), ("/tables/x/t~01/#line", 3),
        ("/tables/x/t~01/#GPUs", "8"), ("/tables/x/p/#line", 4), ("/tables/x/p/numbers/0", "12 GiB"), ("/tables/x/z", False),
    ]


class _Tree:
    """A stand-in `Tree` holding parsed documents (`read_claim_documents` reads glob, links, blocked and json)."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents, self.blocked = documents, {}

    def glob(self, pattern: str) -> list[str]:
        return [pattern] if pattern in self.documents else []

    def links(self, pattern: str) -> list[str]:
        return []

    def json(self, rel: str) -> Any:
        return self.documents[rel]


def test_documents_read_together_keep_each_number_as_written():
    """Leaves shared by the documents (`7.0`, `7`, `7.00`; "7.0 ms" in JSON and Markdown) each keep their own text; an unknown unit has no quantity."""
    documents = {
        "d0.json": {"x": Decimal("7.0"), "y": 7, "s": "7.0 ms", "flag": True, "n": None},
        "d1.json": [Decimal("7.00"), "7.00 ms", "5 parsecs", "ms 5 ms 5.0 ms", Decimal("-0"), Decimal("1E+2")],
        "e.md": {"tables": {"t": [{"a": "7.0 ms", "#line": 3}]}, "prose": [{"#line": 1, "text": "x 1,000", "code": [], "numbers": ["1,000"]}]},
    }
    read = claimdocs.read_claim_documents(_Tree(documents), [{"file": rel} for rel in documents])
    shown = [(c.id, None if c.quantity is None else (str(c.quantity.value), c.quantity.unit, c.quantity.written), c.words, c.location.file,
              c.location.pointer, str(c.value), c.unit, c.written) for c in read.claims]
    assert shown == [
        ("/x", ("7.0", "1", "7.0"), "x", "d0.json", "/x", "7.0", None, "7.0"),
        ("/y", ("7", "1", "7"), "y", "d0.json", "/y", "7", None, "7"),
        ("/s", ("7.0", "ms", "7.0 ms"), "7.0 ms", "d0.json", "/s", "7.0", "ms", "7.0 ms"),
        ("/0", ("7.00", "1", "7.00"), "0", "d1.json", "/0", "7.00", None, "7.00"),
        ("/1", ("7.00", "ms", "7.00 ms"), "7.00 ms", "d1.json", "/1", "7.00", "ms", "7.00 ms"),
        ("/2", None, "5 parsecs", "d1.json", "/2", "5", "parsecs", "5 parsecs"),
        ("/3#numbers/0", ("5", "ms", "5 ms"), "ms 5 ms 5.0 ms", "d1.json", "/3#numbers/0", "5", "ms", "5 ms"),
        ("/3#numbers/1", ("5.0", "ms", "5.0 ms"), "ms 5 ms 5.0 ms", "d1.json", "/3#numbers/1", "5.0", "ms", "5.0 ms"),
        ("/4", ("-0", "1", "-0"), "4", "d1.json", "/4", "-0", None, "-0"),
        ("/5", ("1E+2", "1", "1E+2"), "5", "d1.json", "/5", "1E+2", None, "1E+2"),
        ("/tables/t/0/a", ("7.0", "ms", "7.0 ms"), "7.0 ms", "e.md", "/tables/t/0/a", "7.0", "ms", "7.0 ms"),
        ("/prose/0/numbers/0", ("1000", "1", "1,000"), "1,000", "e.md", "/prose/0/numbers/0", "1000", None, "1,000"),
    ]
    assert [(o.gate, o.passed, o.covers, o.location.file, o.location.pointer) for o in read.outcomes] == [("flag", True, None, "d0.json", "/flag")]
    assert read.unmapped == ()


def test_rows_shorter_or_longer_than_the_header_are_padded_and_cut():
    """Neither parser gives such rows (GFM pads and cuts them), but a token stream may: missing cells are empty, extra ones dropped."""
    def cell(kind: str, *texts: str) -> list[Token]:
        return [Token(kind, [0]), Token("inline", [0], "", [Token("text", None, t) for t in texts])]

    stream = [Token("table_open", [0]), Token("thead_open", [0]), Token("tr_open", [0]), *cell("th_open", "a"), *cell("th_open", " b "),
              *cell("th_open", "a"), Token("tr_close"), Token("thead_close")]
    for line, cells in enumerate([["1"], ["1", "2", "3", "4"], [], ["x", " y", " 5 "]], start=2):
        stream += [Token("tr_open", [line]), *(tok for text in cells for tok in cell("td_open", text)), Token("tr_close")]
    stream += [Token("tr_open", [9]), *cell("td_open", " p", "q "), Token("tr_close"), Token("table_close")]
    headers: dict = {}
    assert mdtables.table_rows(stream, headers) == [
        {"#table": 1, "#row": 1, "#line": 3, "#heading": "", "a": "1", "b": "", "a (2)": ""},
        {"#table": 1, "#row": 2, "#line": 4, "#heading": "", "a": "1", "b": "2", "a (2)": "3"},
        {"#table": 1, "#row": 3, "#line": 5, "#heading": "", "a": "", "b": "", "a (2)": ""},
        {"#table": 1, "#row": 4, "#line": 6, "#heading": "", "a": "x", "b": "y", "a (2)": "5"},
        {"#table": 1, "#row": 5, "#line": 10, "#heading": "", "a": "pq", "b": "", "a (2)": ""},
    ]
    assert headers == {1: ("", ["a", "b", "a"])}


def test_a_markdown_file_reads_to_its_tables_prose_headings_html_and_rendered_fences():
    text = ("# h 1\n\n| a | a |\n|---|---|\n| x *y* `z` | 1<br>2 |\n| 5 |\n\n# t 1\n\n| #line | b |\n|---|---|\n| 3 | 4 |\n\n"
            "<div>5</div>\n\n```math\n7\n```\n\n- 8\n- ![i](u) 9\n\n    indented 6\n")
    assert markdown_document(text.encode()) == {
        "tables": {"h 1": [{"a": "x y z", "a (2)": "1 2", "#line": 5}, {"a": "5", "a (2)": "", "#line": 6}],  # a repeated header, a short row
                   "t 1": [{"#line (2)": "3", "b": "4", "#line": 12}]},  # a header named like a reader key
        "headers": {"h 1": ["a", "a"], "t 1": ["#line", "b"]},
        "prose": [{"#line": 20, "text": "8", "code": [], "numbers": ["8"]}, {"#line": 21, "text": "9", "code": [], "numbers": ["9"]},  # alt text states nothing
                  {"#line": 23, "text": "indented 6", "code": [], "numbers": ["6"]}],  # a paragraph of the list item
        "headings": [{"#line": 1, "text": "h 1", "numbers": ["1"]}, {"#line": 8, "text": "t 1", "numbers": ["1"]}],
        "rendered": [{"#line": 16, "text": "7\n", "numbers": ["7"]}],
        "#html": [{"#line": 14, "source": "<div>5</div>\n", "heading": "t 1"}],
    }
