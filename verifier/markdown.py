"""
Markdown: CommonMark with GitHub's pipe tables, read by pyromark (Python bindings of pulldown-cmark) into block tokens.

`tokens(text)` returns the block structure as a flat list of `Token`s named
as markdown-it names them (`paragraph_open`, `inline`, `heading_open`,
`table_open`, `thead_open`, `tr_open`, `th_open`, `td_open`, `html_block`,
`fence`, ... and their `_close`), so the readers of tables and prose
(`verifier.grammars.markdown_document`, `verifier.claimtext`) walk one
shape. An `inline` token's `children` are `text` (adjacent text runs
joined), `code_inline`, `softbreak`, `hardbreak`, `html_inline`,
`link_open`/`link_close`, `em_open`/`em_close`, `strong_open`/`strong_close`
and `image` (its alt text is not a child: an image states nothing).
`Token.map` is `[first line, last line + 1]`, 0-based, of the block (for a
table cell, its row's line), as markdown-it's `map`.

Differences from markdown-it's stream that no reader here depends on:
`tbody_open`/`tbody_close`, `list_item` nesting levels and `hidden` flags
are not produced. A tight list item's text (pulldown-cmark gives it no
paragraph) gets a `paragraph_open`, `inline`, `paragraph_close` around it, as
markdown-it gives every list item's text.

Before parsing, `\\r\\n` and `\\r` become `\\n` and NUL becomes U+FFFD (what
markdown-it's `normalize` rule does, CommonMark section 2.3), so lines count
the same way for every reader.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Token", "tokens"]


@dataclass(slots=True)
class Token:
    """One block or inline token: `type` (markdown-it's name), `map` (0-based `[start, end)` source lines or None), `content`, `children` (of an `inline`)."""

    type: str
    map: list[int] | None = None
    content: str = ""
    children: list[Token] | None = field(default=None)


_NEWLINES = re.compile(r"\r\n?")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Block containers whose start closes a tight list item's text run (its synthetic paragraph).
_BLOCKS = {"Paragraph", "Heading", "BlockQuote", "CodeBlock", "HtmlBlock", "List", "Table", "Rule", "Item"}
#: Inline containers and their markdown-it open token names.
_INLINE = {"Emphasis": "em", "Strong": "strong", "Link": "link"}
_OPTIONS: list[Any] = []


def _name(event: Any) -> str:
    """Return the tag name of a Start/End payload: `'Paragraph'` or the key of `{'Heading': {...}}`."""
    return event if isinstance(event, str) else next(iter(event))


def tokens(text: str) -> list[Token]:
    """
    Return the block tokens of Markdown `text` (CommonMark 0.31 with GFM tables, as pulldown-cmark reads it); see the module docstring.

    Never raises for any `str` (lone surrogates are read as U+FFFD).
    """
    import pyromark  # a well-kept CommonMark parser (pulldown-cmark); imported only when Markdown is read

    if not _OPTIONS:
        _OPTIONS.append(pyromark.Options.ENABLE_TABLES)
    text = _NEWLINES.sub("\n", text).replace("\x00", "\ufffd")
    if not text.isascii() and _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    data = text.encode("utf-8")
    breaks = [m.start() for m in re.finditer(b"\n", data)]
    out: list[Token] = []
    children: list[Token] | None = None  # the open inline run, if any
    inline_line = 0
    synthetic = False  # the open run is a tight list item's text (no paragraph event)
    in_head = False
    skip, skipping = 0, ""  # depth inside the image or code block named by `skipping`
    block_text: list[str] = []
    block_line = row_line = 0
    in_html = False

    def line(offset: int) -> int:
        return bisect.bisect_right(breaks, offset - 1)

    def flush() -> None:
        nonlocal children, synthetic
        if children is not None:
            out.append(Token("inline", [inline_line, inline_line + 1], "", children))
            if synthetic:
                out.append(Token("paragraph_close"))
        children, synthetic = None, False

    def child(token: Token) -> None:
        nonlocal children, synthetic, inline_line
        if children is None:  # text straight inside a list item: markdown-it wraps it in a paragraph
            out.append(Token("paragraph_open", [inline_line, inline_line + 1]))
            children, synthetic = [], True
        if token.type == "text" and children and children[-1].type == "text":
            children[-1].content += token.content
        else:
            children.append(token)

    for event, where in pyromark.events_with_range(text, options=_OPTIONS[0]):
        if type(event) is dict:
            kind, payload = next(iter(event.items()))
        else:
            kind, payload = event, None
        if skip:  # inside an image (its alt text states nothing) or a code block (not prose)
            if kind == "Start" and _name(payload) == skipping:
                skip += 1
            elif kind == "End" and _name(payload) == skipping:
                skip -= 1
                if skip == 0 and skipping == "CodeBlock":
                    out.append(Token("fence", [block_line, line(where["end"] - 1) + 1], "".join(block_text)))
            elif kind == "Text" and skipping == "CodeBlock":
                block_text.append(payload)
            continue
        if in_html:  # a raw HTML block: its lines (and the indentation pulldown-cmark gives as text) are its content
            if kind in ("Html", "Text"):
                block_text.append(payload)
                continue
            if kind == "End" and _name(payload) == "HtmlBlock":
                in_html = False
                out.append(Token("html_block", [block_line, line(where["end"] - 1) + 1], "".join(block_text)))
            continue
        if kind == "Text":
            if children is None:
                inline_line = line(where["start"])
            child(Token("text", None, payload))
        elif kind == "Code":
            if children is None:
                inline_line = line(where["start"])
            child(Token("code_inline", None, payload))
        elif kind in ("SoftBreak", "HardBreak"):
            child(Token(kind.lower()))
        elif kind == "InlineHtml":
            if children is None:
                inline_line = line(where["start"])
            child(Token("html_inline", None, payload))
        elif kind == "Start":
            tag = _name(payload)
            start = line(where["start"])
            if tag in _INLINE:
                if children is None:
                    inline_line = start
                child(Token(f"{_INLINE[tag]}_open"))
                continue
            if tag == "Image":
                if children is None:
                    inline_line = start
                child(Token("image"))
                skip, skipping = 1, "Image"
                continue
            if synthetic and tag in _BLOCKS:
                flush()
            if tag == "Paragraph":
                out.append(Token("paragraph_open", [start, line(where["end"] - 1) + 1]))
                children, inline_line = [], start
            elif tag == "Heading":
                out.append(Token("heading_open", [start, start + 1]))
                children, inline_line = [], start
            elif tag == "Table":
                out.append(Token("table_open", [start, line(where["end"] - 1) + 1]))
            elif tag == "TableHead":
                in_head, row_line = True, start
                out.append(Token("thead_open", [start, start + 1]))
                out.append(Token("tr_open", [start, start + 1]))
            elif tag == "TableRow":
                row_line = start
                out.append(Token("tr_open", [start, start + 1]))
            elif tag == "TableCell":  # a cell is on its row's line (a padded empty cell's range starts after the row)
                out.append(Token("th_open" if in_head else "td_open", [row_line, row_line + 1]))
                children, inline_line = [], row_line
            elif tag == "HtmlBlock":
                block_text, block_line, in_html = [], start, True
            elif tag == "CodeBlock":
                block_text, block_line, skip, skipping = [], start, 1, "CodeBlock"
            elif tag == "List":
                out.append(Token("ordered_list_open" if payload[tag] is not None else "bullet_list_open", [start, start + 1]))
            elif tag == "Item":
                out.append(Token("list_item_open", [start, start + 1]))
                inline_line = start
            elif tag == "BlockQuote":
                out.append(Token("blockquote_open", [start, start + 1]))
            else:
                out.append(Token(f"{tag.lower()}_open", [start, start + 1]))
        elif kind == "End":
            tag = _name(payload)
            if tag in _INLINE:
                child(Token(f"{_INLINE[tag]}_close"))
                continue
            if tag == "Paragraph":
                flush()
                out.append(Token("paragraph_close"))
            elif tag == "Heading":
                flush()
                out.append(Token("heading_close"))
            elif tag == "TableCell":
                if children is None:
                    children = []
                flush()
                out.append(Token("th_close" if in_head else "td_close"))
            elif tag == "TableHead":
                out.append(Token("tr_close"))
                out.append(Token("thead_close"))
                in_head = False
            elif tag == "TableRow":
                out.append(Token("tr_close"))
            elif tag == "Table":
                out.append(Token("table_close"))
            elif tag == "Item":
                flush()
                out.append(Token("list_item_close"))
            elif tag == "List":
                flush()
                out.append(Token("list_close"))
            elif tag == "BlockQuote":
                out.append(Token("blockquote_close"))
            else:
                out.append(Token(f"{tag.lower()}_close"))
        elif kind == "Rule":
            if synthetic:
                flush()
            out.append(Token("hr", [line(where["start"]), line(where["start"]) + 1]))
    flush()
    return out
