"""
Markdown claim documents: a Markdown file read into a JSON-like document of everything it shows.

`markdown_document` is what `verifier.readers.tree.Tree` reads a `.md` file
with (and `verifier.readers.html.with_html_blocks` then reads its raw HTML
blocks into); a profile's claim locations and the stated-number coverage
point into its shape. The tables come from `verifier.readers.mdtables.table_rows`
(the same reader a `markdown-table` receipt set uses), the tokens from
`verifier.readers.markdown` (pyromark: CommonMark with GFM tables).
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from verifier.readers import grammars, mdtables
from verifier.readers.markdown import rendered_fence

#: A number stated in prose or a heading, with the unit written right after it. Digits glued to a name are no number
#: ("i7-3770K", "3.50GHz"), nor is one carrying a superscript exponent ("(117.88)⁻¹", "10⁻³": not the plain value).
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])(?<!\w-)[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s?(?:%|x\b|s\b|ms\b|MiB\b|GiB\b|dB\b))?"
                             r"(?![\w⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]|\.\d|\)[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺])")


def markdown_document(data: bytes) -> dict[str, Any]:
    """
    Return a Markdown file as a JSON-like document claim locations can point into.

    `{"tables": {heading: [row, ...]}, "headers": {heading: [cell, ...]},
    "prose": [{"#line", "text", "code", "numbers"}], "headings": [{"#line",
    "text", "numbers"}]}`: each table's rows (header -> cell text, plus
    `#line`; a repeated header text keys `text (2)`, see `verifier.readers.mdtables.column_names`)
    under the nearest heading above it (a repeated heading gets " (2)",
    " (3)", ...), and its header cells' text under the same name (a header
    is shown, so a number in it is stated; a table without body rows has a
    header and an empty row list); each paragraph or list item outside
    tables with its 1-based source line, its text, its code spans in order
    and the numbers it states in order (with a unit written right after
    them: "58,696", "35.4%"); each heading with its line, text and numbers
    (apart from `prose`, so the index of a prose item does not move when a
    heading is added). Code blocks are not prose; a fenced block github.com
    renders (```math, ```mermaid: `verifier.readers.markdown.rendered_fence`) is listed
    under `rendered` (`{"#line", "text", "numbers"}`) when there is one, and
    every other code block, fenced or indented (four spaces), under `literal` in
    document order (the same shape, as `verifier.readers.rst_doc` lists literal
    blocks; `#line` a fence's opening line, an indented block's first line): shown, so stated. Raw HTML blocks are listed
    as they stand under `#html` (`{"#line", "source", "heading"}`: its line,
    its source, the heading above it), only when there are some, for
    `verifier.readers.html.with_html_blocks` to read (this module does
    not parse HTML). Raises `GrammarError` for bytes that are not UTF-8.
    """
    tokens = mdtables.markdown_tokens(grammars.utf8_text(data))
    found: dict[int, tuple[str, list[str]]] = {}
    blocks: list[tuple[str, Any]] = []  # paragraphs, headings, fences and HTML blocks, in order: the tokens are walked once
    rows = mdtables.table_rows(tokens, found, blocks)
    tables: dict[str, list[dict[str, Any]]] = {}
    headers: dict[str, list[str]] = {}
    names: dict[int, list[dict[str, Any]]] = {}  # table number -> its row list in `tables`
    for number, (heading, cells) in found.items():
        base = heading or "(top)"
        name, n = base, 1
        while name in tables:
            n += 1
            name = f"{base} ({n})"
        names[number] = tables[name] = []
        headers[name] = cells
    for row in rows:  # `table_rows` puts its four `READER_KEYS` first, then the cells (`column_names` keeps every column out of them)
        cells = dict(islice(row.items(), 4, None))
        cells["#line"] = row["#line"]
        names[row["#table"]].append(cells)
    prose = []
    headings: list[dict[str, Any]] = []
    html = []
    rendered = []
    literal = []
    for kind, tok in blocks:
        if kind == "paragraph_open":
            content = mdtables.inline_text(tok)
            prose.append({"#line": tok.map[0] + 1, "text": content, "code": [c.content for c in tok.children or [] if c.type == "code_inline"],
                          "numbers": [m.group(0) for m in _NUMBER_IN_TEXT.finditer(content)]})
        elif kind == "heading_open":
            content = mdtables.inline_text(tok)
            headings.append({"#line": tok.map[0] + 1, "text": content, "numbers": [m.group(0) for m in _NUMBER_IN_TEXT.finditer(content)]})
        elif kind == "html_block":
            html.append({"#line": tok.map[0] + 1, "source": tok.content, "heading": headings[-1]["text"] if headings else ""})
        elif rendered_fence(tok):
            rendered.append({"#line": tok.map[0] + 1, "text": tok.content, "numbers": [m.group(0) for m in _NUMBER_IN_TEXT.finditer(tok.content)]})
        elif kind == "fence" or kind == "code_block":  # any other code block: shown as written, so its numbers are stated (as rst's `literal`)
            literal.append({"#line": tok.map[0] + 1, "text": tok.content, "numbers": [m.group(0) for m in _NUMBER_IN_TEXT.finditer(tok.content)]})
    document = {"tables": tables, "headers": headers, "prose": prose, "headings": headings}
    if rendered:
        document["rendered"] = rendered
    if literal:
        document["literal"] = literal
    if html:
        document["#html"] = html
    return document


def row_pointers(raws: list[Any]) -> dict[int, str]:
    """
    Return `id(raw) -> "/tables/<name>/<row index>"` for the Markdown table rows among `raws` (records read with encoding
    `markdown-table` from one file: dicts holding `#table`, `#row`, `#heading`): where `markdown_document` puts that row.

    A table is named by the heading above it, "(top)" with none, " (2)", " (3)", ... for a repeated name, in table order
    (as `markdown_document` names them), escaped as a JSON Pointer token. Only tables with a row among `raws` are seen, so a
    table of no body rows does not shift the numbering here (it holds no record to place). Other records are left out.
    """
    rows = [r for r in raws if isinstance(r, dict) and {"#table", "#row", "#heading"} <= set(r)]
    names: dict[int, str] = {}
    taken: set[str] = set()
    for number, heading in sorted({(int(r["#table"]), str(r["#heading"] or "")) for r in rows}):
        base = heading or "(top)"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base} ({n})"
        taken.add(name)
        names[number] = name.replace("~", "~0").replace("/", "~1")
    return {id(r): f"/tables/{names[int(r['#table'])]}/{int(r['#row']) - 1}" for r in rows}
