"""
HTML claim documents: a page read into the document shape of a Markdown file, so claim locations and coverage point into it alike.

Parsed with the standard library's `html.parser` (the HTML tokenizer
Python maintains, also the default back end of Beautiful Soup): nothing
is rendered or run. A page reads as

    {"title": "...", "tables": {name: [row, ...]}, "headers": {name: [cell, ...]},
     "captions": {name: "..."}, "prose": [{"#line", "text", "code", "numbers"}, ...]}

- `prose`: one item per run of text inside one block (`p`, `div`, `li`,
  `h1`-`h6`, `header`, `section`, `summary`, ...; see `BLOCKS`), in
  document order, with inline elements (`span`, `strong`, `b`, `code`, `a`,
  ...) joined into it (a blank at each element edge between two words) and
  `<br>` read as a blank. `numbers` lists every number the text states, as
  written with its unit (`verifier.formats.textnumbers.numbers_in`: "17.4168 s",
  "7.72%"), `code` the text of its `<code>` elements. `#line` is the
  1-based source line where the text starts.
- `tables`: each `<table>`'s body rows as header -> cell text (the header is
  the `<thead>` row, else the first row), under its `<caption>`, else the
  nearest heading above it, else "(top)" (a repeated name gets " (2)", ...).
  A repeated header text keys `text (2)` (`verifier.readers.mdtables.column_names`)
  and a cell past the header's last `(column N)`, so no shown cell is lost.
  Table text is not prose.
- `headers`: each table's header cells, `captions` its caption (tables with
  one), under the same name: both are shown, so their numbers are stated.
- `title`: the first `<title>` text (a later `<title>`, such as an SVG's, is
  a prose item: its numbers are stated too).

Only text content is read: attribute values (`<input max="15.083333">`,
`<meta content>`) and the contents of `<script>`, `<style>` and `<template>`
are not stated text, except what a form field shows: the `value` of a text
field or button `<input>` (else an empty field's `placeholder`), read as a
run of text of its own. Bytes that are not UTF-8 raise `GrammarError`.
"""

from __future__ import annotations

import html.parser
import re
from typing import Any

from verifier.readers.grammars import GrammarError
from verifier.formats.textnumbers import numbers_in
from verifier.readers.mdtables import column_names

__all__ = ["BLOCKS", "html_document", "with_html_blocks"]

#: Elements that end a run of prose text (block-level and form controls); every other element is inline and joins the text around it.
BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "button", "caption", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr",
    "html", "legend", "li", "main", "menu", "nav", "noscript", "ol", "option", "output", "p", "pre", "section", "select",
    "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "video", "audio", "label", "textarea",
})
#: Elements whose contents are not stated text.
_SKIPPED = frozenset({"script", "style", "template"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_BLANKS = re.compile(r"\s+")
#: Marks an inline element's start or end inside a run of text: a boundary between two words.
_EDGE = "\x00"
_EDGES_BETWEEN_WORDS = re.compile(r"(?<=\S)\x00+(?=[^\s\x00])")


def _words(text: str) -> str:
    """
    Return `text` with each inline element edge between two non-blank characters read as a blank, and dropped elsewhere.

    `<span>seed 1101</span><span>362 帧</span>` states 1101 and 362, never 1101362.
    """
    return _EDGES_BETWEEN_WORDS.sub(" ", text).replace(_EDGE, "")


#: `<input>` types whose `value` the page shows as text (a field's contents, a button's label); a slider, a hidden field,
#: a check box and the like show none.
_SHOWN_VALUE = frozenset({"text", "search", "email", "url", "tel", "number", "submit", "button", "reset"})


def _shown_value(attrs: dict[str, str | None]) -> str:
    """Return the text an `<input>` shows: its `value` for the `_SHOWN_VALUE` types (no `type` is a text field), else for an empty field its `placeholder`, else ""."""
    kind = (attrs.get("type") or "text").strip().lower()
    if kind not in _SHOWN_VALUE:
        return ""
    value = attrs.get("value") or ""
    if value or kind in ("submit", "button", "reset"):
        return value
    return attrs.get("placeholder") or ""


class _Reader(html.parser.HTMLParser):
    """Collects prose runs, table rows, headings and the title of one page (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.prose: list[dict[str, Any]] = []
        self.tables: list[tuple[str, list[dict[str, Any]]]] = []
        self.title = ""
        self._text: list[str] = []
        self._code: list[str] = []
        self._line = 0
        self._skip = 0
        self._in_code = 0
        self._in_title = False
        self._heading = ""
        self._heading_text: list[str] | None = None
        self._table: dict[str, Any] | None = None  # the innermost open table: caption, header, rows, the current row and cell
        self._outer: list[dict[str, Any]] = []

    # text runs -------------------------------------------------------
    def _flush(self) -> None:
        """End the current run of text: it becomes the title, a table cell or caption, or a prose item."""
        text = _BLANKS.sub(" ", _words("".join(self._text))).strip()
        code = [c for c in (_BLANKS.sub(" ", c).strip() for c in self._code) if c]
        self._text, self._code = [], []
        if not text:
            return
        if self._in_title and not self.title:
            self.title = text  # the first `<title>` is the page's; a later one (an SVG's tooltip, a stray copy) is prose below
        elif self._table is not None and self._table["cell"] is not None:
            self._table["cell"].append(text)
        elif self._table is not None and self._table["in_caption"]:
            self._table["caption"] = f"{self._table['caption']} {text}".strip()  # a second caption (or run of one) is shown too
        else:
            numbers = [text[start:end] for start, end, _number, _unit in numbers_in(text)]
            self.prose.append({"#line": self._line, "text": text, "code": code, "numbers": numbers})

    def _edge(self) -> None:
        """Mark an inline element's edge in the current run (and the open heading)."""
        if self._text:
            self._text.append(_EDGE)
        if self._heading_text is not None:
            self._heading_text.append(_EDGE)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open an element: a block ends the current run of text; tables, cells, headings and code are tracked; a field's shown value is a run of its own."""
        if tag in _SKIPPED:
            self._skip += 1
            return
        if tag == "input":
            fields = dict(attrs)
            shown = "" if self._skip else _shown_value(fields)
            if shown:
                self._flush()
                self._line = self.getpos()[0]
                self._text.append(shown)
                self._flush()
            elif (fields.get("type") or "").strip().lower() != "hidden":
                self._edge()  # a check box or slider is drawn between the words beside it: 5<input type=checkbox>6 is two numbers
            return
        if tag == "br":
            self._text.append(" ")
            return
        if tag in BLOCKS:
            self._flush()
        else:
            self._edge()
        if tag == "title":
            self._in_title = True
        elif tag in _HEADINGS:
            self._heading_text = []
        elif tag == "code":
            self._in_code += 1
            self._code.append("")
        elif tag == "table":
            if self._table is not None:
                self._outer.append(self._table)
            self._table = {"caption": "", "in_caption": False, "header": None, "rows": [], "row": None, "cell": None,
                           "head": False, "heading": self._heading, "line": self.getpos()[0]}
        elif self._table is not None:
            self._table_start(tag)

    def _table_start(self, tag: str) -> None:
        table = self._table
        assert table is not None
        if tag == "caption":
            table["in_caption"] = True
        elif tag == "thead":
            table["head"] = True
        elif tag == "tr":
            table["row"] = {"cells": [], "head": table["head"], "line": self.getpos()[0]}
        elif tag in ("td", "th"):
            if table["row"] is None:
                table["row"] = {"cells": [], "head": table["head"], "line": self.getpos()[0]}
            table["cell"] = []

    def handle_endtag(self, tag: str) -> None:
        """Close an element: a block ends the current run of text; a cell, row or table is completed."""
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if tag in BLOCKS:
            self._flush()
        else:
            self._edge()
        if tag == "title":
            self._in_title = False
        elif tag in _HEADINGS and self._heading_text is not None:
            self._heading = _BLANKS.sub(" ", _words("".join(self._heading_text))).strip()
            self._heading_text = None
        elif tag == "code":
            self._in_code = max(0, self._in_code - 1)
        elif self._table is not None:
            self._table_end(tag)

    def _table_end(self, tag: str) -> None:
        table = self._table
        assert table is not None
        if tag == "caption":
            table["in_caption"] = False
        elif tag == "thead":
            table["head"] = False
        elif tag in ("td", "th") and table["cell"] is not None:
            if table["row"] is not None:
                table["row"]["cells"].append(" ".join(table["cell"]))
            table["cell"] = None
        elif tag == "tr" and table["row"] is not None:
            row, table["row"] = table["row"], None
            if table["header"] is None and (row["head"] or not table["rows"]):
                table["header"] = row["cells"]
            else:
                table["rows"].append(row)
        elif tag == "table":
            header = table["header"] or []
            width = max([len(header)] + [len(r["cells"]) for r in table["rows"]])
            keys = column_names(header + [f"(column {k + 1})" for k in range(len(header), width)])  # a cell past the header is shown too
            rows = [{**{h: (r["cells"][k] if k < len(r["cells"]) else "") for k, h in enumerate(keys)}, "#line": r["line"]} for r in table["rows"]]
            self.tables.append((table["caption"] or table["heading"] or "(top)", rows, header, table["caption"]))
            self._table = self._outer.pop() if self._outer else None

    def handle_data(self, data: str) -> None:
        """Add text to the current run (and to the open code element and heading)."""
        if self._skip:
            return
        if not "".join(self._text).replace(_EDGE, "").strip():
            self._line = self.getpos()[0]
        self._text.append(data)
        if self._in_code:
            self._code[-1] += data
        if self._heading_text is not None:
            self._heading_text.append(data)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """A self-closed element (`<br/>`, `<img/>`): as its start tag, with no contents."""
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)


def html_document(data: bytes) -> dict[str, Any]:
    """Return an HTML page as `{"title", "tables", "prose"}` (see the module docstring); raises `GrammarError` for bytes that are not UTF-8 or markup `html.parser` refuses."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GrammarError("not-utf8", f"not UTF-8 at byte offset {exc.start}") from None
    reader = _Reader()
    try:
        reader.feed(text)
        reader.close()
    except AssertionError as exc:  # html.parser asserts on a marked section it does not know (`<![foo[`): the page is not read
        raise GrammarError("bad-html", f"not HTML the reader can parse: {exc}") from None
    reader._flush()  # noqa: SLF001 - text after the last block
    tables: dict[str, list[dict[str, Any]]] = {}
    headers: dict[str, list[str]] = {}
    captions: dict[str, str] = {}
    for base, rows, header, caption in reader.tables:
        name, n = base, 1
        while name in tables:
            n += 1
            name = f"{base} ({n})"
        tables[name], headers[name] = rows, header
        if caption:
            captions[name] = caption
    return {"title": reader.title, "tables": tables, "headers": headers, "captions": captions, "prose": reader.prose}


def with_html_blocks(document: dict[str, Any]) -> dict[str, Any]:
    """
    Return a `verifier.readers.markdown_doc.markdown_document` with the text its raw HTML blocks render read in, and its `#html` list removed.

    GitHub shows the text of `<div>`, `<details>`, `<summary>`, `<table>`
    ... blocks in a Markdown file, so their numbers are stated: each block
    is read by `html_document`; its prose items go to `html` (the prose item
    shape, lines counted in the Markdown file) and its tables to `tables`,
    `headers` and `captions` under their caption or heading inside the
    block, else the Markdown heading above it (a name already taken gets
    " (2)", ...: a Markdown table keeps its name). A block `html.parser`
    refuses is one `html` item of its whole source, tags included, so no
    number is dropped. A document without `#html` is returned as it is.
    """
    blocks = document.pop("#html", None)
    if not blocks:
        return document
    items: list[dict[str, Any]] = []
    for block in blocks:
        first, source = block["#line"], block["source"]
        try:
            page = html_document(source.encode("utf-8", "replace"))
        except GrammarError:
            items.append({"#line": first, "text": source, "code": [], "numbers": [source[start:end] for start, end, _n, _u in numbers_in(source)]})
            continue
        items.extend({**item, "#line": first + item["#line"] - 1} for item in page["prose"])
        for name, rows in page["tables"].items():
            base = (block["heading"] or "(top)") if name == "(top)" else name
            key, n = base, 1
            while key in document["tables"]:
                n += 1
                key = f"{base} ({n})"
            document["tables"][key] = [{**row, "#line": first + row["#line"] - 1} for row in rows]
            document["headers"][key] = page["headers"][name]
            if name in page["captions"]:
                document.setdefault("captions", {})[key] = page["captions"][name]
    document["html"] = items
    return document
