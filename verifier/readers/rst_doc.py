"""
reStructuredText claim documents: an `.rst` file read into the JSON-like shape of a Markdown one, by docutils.

`rst_document` is what `verifier.readers.tree.Tree.json` reads a `.rst` file with, so claim locations, backward
reading and stated-number coverage point into it as into Markdown (`verifier.readers.markdown_doc`): `tables`
(rows of every grid, simple, `csv-table` and `list-table` table, header -> cell, under the section title above it or
the table's own title), `headers`, `prose` (each paragraph and each line block (`| ...` lines, as one item) outside
tables, with its inline literals as `code` and the numbers it states), `headings` (section titles), and `literal`
(each literal, code, doctest (`>>>`) or math block, with the numbers it states: a reviewer sees them, so they are
accounted for). The parser is docutils (the reference implementation of
reStructuredText, `docutils.core.publish_doctree`); nothing is rendered, and with `file_insertion_enabled` and
`raw_enabled` off no `include`, `raw` or `:file:`/`:url:` option reads anything but the bytes given. Without docutils
installed (the `rst` extra), `RstUnavailable` says so.
"""

from __future__ import annotations

import io
from typing import Any

from verifier.formats import textnumbers
from verifier.readers import grammars, mdtables

__all__ = ["RstUnavailable", "rst_document"]

#: docutils settings: read only the bytes given, say nothing, stop at nothing (a broken construct becomes a system message node, skipped).
_SETTINGS = {"file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False, "report_level": 5, "halt_level": 5, "_disable_config": True,
             "input_encoding": "utf-8", "input_encoding_error_handler": "strict", "line_length_limit": 100_000}


class RstUnavailable(RuntimeError):
    """Raised by `rst_document` when docutils is not installed (pip install 'verify-evidence[rst]')."""


def _numbers(text: str) -> list[str]:
    return [text[start:end] for start, end, _number, _unit in textnumbers.numbers_in(text)]


def rst_document(data: bytes) -> dict[str, Any]:
    """
    Return a reStructuredText file as a JSON-like document (see the module docstring for its shape).

    Raises `verifier.readers.grammars.GrammarError` for bytes that are not UTF-8 or that docutils cannot parse (nested too
    deeply: `too-deep`), `RstUnavailable` without docutils. Time: docutils' parse, linear in practice; a 4 MiB page
    (`verifier.readers.tree.MAX_PAGE_BYTES`, the bound before parsing) of lists nested 2000 deep took 14 s here.
    """
    text = grammars.utf8_text(data)
    try:
        from docutils import nodes
        from docutils.core import publish_doctree
    except ImportError:
        raise RstUnavailable("reading a reStructuredText claim document needs docutils (pip install 'verify-evidence[rst]')") from None
    try:
        tree = publish_doctree(text, settings_overrides={**_SETTINGS, "warning_stream": io.StringIO()})
    except RecursionError:  # constructs nested thousands deep (a list in a list in ...): refused, not an error of ours
        raise grammars.GrammarError("too-deep", "its constructs are nested too deeply for the reStructuredText parser") from None
    except Exception as exc:  # noqa: BLE001 - docutils raises its own errors (SystemMessage, ...) for what it cannot parse: the file is unreadable
        raise grammars.GrammarError("unreadable", f"docutils cannot parse it: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None
    tables: dict[str, list[dict[str, Any]]] = {}
    headers: dict[str, list[str]] = {}
    prose: list[dict[str, Any]] = []
    headings: list[dict[str, Any]] = []
    literal: list[dict[str, Any]] = []
    heading = ""

    def line_of(node: Any) -> int:
        while node is not None and node.line is None:
            node = node.parent
        return int(node.line) if node is not None else 0

    def inside(node: Any, kind: type | tuple[type, ...]) -> bool:
        parent = node.parent
        while parent is not None:
            if isinstance(parent, kind):
                return True
            parent = parent.parent
        return False

    shown = (nodes.title, nodes.paragraph, nodes.line_block, nodes.literal_block, nodes.doctest_block, nodes.math_block, nodes.table)
    for node in tree.findall(lambda n: isinstance(n, shown)):
        if isinstance(node, nodes.system_message) or inside(node, nodes.system_message):
            continue
        if isinstance(node, nodes.title) and isinstance(node.parent, nodes.section):
            heading = node.astext()
            headings.append({"#line": line_of(node), "text": heading, "numbers": _numbers(heading)})
        elif isinstance(node, (nodes.paragraph, nodes.line_block)) and not inside(node, (nodes.table, nodes.line_block)):  # a nested line block is in its outer one
            content = " ".join(node.astext().split())
            prose.append({"#line": line_of(node), "text": content, "code": [c.astext() for c in node.findall(nodes.literal)], "numbers": _numbers(content)})
        elif isinstance(node, (nodes.literal_block, nodes.doctest_block, nodes.math_block)) and not inside(node, nodes.table):
            literal.append({"#line": line_of(node), "text": node.astext(), "numbers": _numbers(node.astext())})
        elif isinstance(node, nodes.table):
            titles = [t.astext() for t in node.children if isinstance(t, nodes.title)]
            _table(node, nodes, titles[0] if titles else heading or "(top)", line_of(node), tables, headers)
    document: dict[str, Any] = {"tables": tables, "headers": headers, "prose": prose, "headings": headings}
    if literal:
        document["literal"] = literal
    return document


def _table(node: Any, nodes: Any, base: str, line: int, tables: dict[str, list[dict[str, Any]]], headers: dict[str, list[str]]) -> None:
    """Add one docutils table to `tables` and `headers` under `base` (a taken name gets " (2)", ...): header cells from its `thead`, else its first row."""
    rows = [[" ".join(entry.astext().split()) for entry in row.findall(nodes.entry)] for row in node.findall(nodes.row)]
    head = [row for row in node.findall(nodes.thead)]
    header_rows = len(list(head[0].findall(nodes.row))) if head else 1
    if not rows:
        return
    header = rows[header_rows - 1]
    name, n = base, 1
    while name in tables:
        n += 1
        name = f"{base} ({n})"
    keys = mdtables.column_names(header)
    headers[name] = header
    tables[name] = [{**dict(zip(keys, cells, strict=False)), "#line": line} for cells in rows[header_rows:]]
