"""
Markdown claim documents: a Markdown file read into a JSON-like document of everything it shows.

`markdown_document` is what `verifier.readers.tree.Tree` reads a `.md` file
with (and `verifier.readers.html.with_html_blocks` then reads its raw HTML
blocks into); a profile's claim locations and the stated-number coverage
point into its shape. The tables come from `verifier.grammars.table_rows`
(the same reader a `markdown-table` receipt set uses), the tokens from
`verifier.markdown` (pyromark: CommonMark with GFM tables).
"""

from __future__ import annotations

import re
from typing import Any

from verifier import grammars
from verifier.markdown import rendered_fence

_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s?(?:%|x\b|s\b|ms\b|MiB\b|GiB\b|dB\b))?")


def markdown_document(data: bytes) -> dict[str, Any]:
    """
    Return a Markdown file as a JSON-like document claim locations can point into.

    `{"tables": {heading: [row, ...]}, "headers": {heading: [cell, ...]},
    "prose": [{"#line", "text", "code", "numbers"}], "headings": [{"#line",
    "text", "numbers"}]}`: each table's rows (header -> cell text, plus
    `#line`; a repeated header text keys `text (2)`, see `verifier.grammars.column_names`)
    under the nearest heading above it (a repeated heading gets " (2)",
    " (3)", ...), and its header cells' text under the same name (a header
    is shown, so a number in it is stated; a table without body rows has a
    header and an empty row list); each paragraph or list item outside
    tables with its 1-based source line, its text, its code spans in order
    and the numbers it states in order (with a unit written right after
    them: "58,696", "35.4%"); each heading with its line, text and numbers
    (apart from `prose`, so the index of a prose item does not move when a
    heading is added). Code blocks are not prose; a fenced block github.com
    renders (```math, ```mermaid: `verifier.markdown.rendered_fence`) is listed
    under `rendered` (`{"#line", "text", "numbers"}`) when there is one. Raw HTML blocks are listed
    as they stand under `#html` (`{"#line", "source", "heading"}`: its line,
    its source, the heading above it), only when there are some, for
    `verifier.readers.html.with_html_blocks` to read (this module does
    not parse HTML). Raises `GrammarError` for bytes that are not UTF-8.
    """
    tokens = grammars.markdown_tokens(grammars.utf8_text(data))
    found: dict[int, tuple[str, list[str]]] = {}
    rows = grammars.table_rows(tokens, found)
    tables: dict[str, list[dict[str, Any]]] = {}
    headers: dict[str, list[str]] = {}
    names: dict[int, str] = {}  # table number -> its name in `tables`
    for number, (heading, cells) in found.items():
        base = heading or "(top)"
        name, n = base, 1
        while name in tables:
            n += 1
            name = f"{base} ({n})"
        names[number] = name
        tables[name] = []
        headers[name] = cells
    for row in rows:
        cells = {k: v for k, v in row.items() if k not in grammars.READER_KEYS}  # `column_names` keeps every column out of them
        tables[names[row["#table"]]].append({**cells, "#line": row["#line"]})
    prose = []
    headings: list[dict[str, Any]] = []
    blocks = []
    rendered = []
    for i, tok in enumerate(tokens):  # a table cell's inline follows `th_open`/`td_open`, never a paragraph or heading
        if tok.type == "fence" and rendered_fence(tok):  # the type first: one call per fence, not per token
            rendered.append({"#line": tok.map[0] + 1, "text": tok.content, "numbers": [m.group(0) for m in _NUMBER_IN_TEXT.finditer(tok.content)]})
        elif tok.type == "html_block":
            blocks.append({"#line": tok.map[0] + 1, "source": tok.content, "heading": headings[-1]["text"] if headings else ""})
        elif tok.type == "inline" and tokens[i - 1].type in ("paragraph_open", "heading_open"):  # an inline follows its opening token, never first
            content = grammars.inline_text(tok)
            item: dict[str, Any] = {"#line": tok.map[0] + 1, "text": content}
            if tokens[i - 1].type == "heading_open":
                item["numbers"] = [m.group(0) for m in _NUMBER_IN_TEXT.finditer(content)]
                headings.append(item)
                continue
            item["code"] = [c.content for c in tok.children or [] if c.type == "code_inline"]
            item["numbers"] = [m.group(0) for m in _NUMBER_IN_TEXT.finditer(content)]
            prose.append(item)
    document = {"tables": tables, "headers": headers, "prose": prose, "headings": headings}
    if rendered:
        document["rendered"] = rendered
    if blocks:
        document["#html"] = blocks
    return document
