"""
Markdown: CommonMark with GitHub's pipe tables and footnotes, read by pyromark (Python bindings of pulldown-cmark) into the tokens the claim readers walk.

`tokens(text)` returns a flat list of `Token`s named as markdown-it names
them, holding only what the readers of tables and prose
(`verifier.readers.mdtables.table_rows`, `verifier.readers.markdown_doc`, `verifier.readers.claimtext`) read:

- `paragraph_open`, `inline`: a paragraph, or the text of a tight list item
  (pulldown-cmark gives it no paragraph; markdown-it does);
- `heading_open`, `inline`;
- `table_open`, `thead_open`, `tr_open`, `th_open`/`td_open`, `inline`,
  `tr_close`, `thead_close`, `table_close`;
- `html_block` (its `content`: the raw HTML block, leading indentation included);
- `fence`: a fenced code block, its `content` the code and `info` its info
  string (`math`, `mermaid`: GitHub renders some; the readers decide);
- `code_block`: an indented code block (four spaces), its `content` the code
  (markdown-it's name; `verifier.readers.claimtext` states nothing from it, a
  profile's claim document lists it under `literal` as a fenced one).

An `inline` token's `children` are `text` (adjacent runs joined: link texts
and emphasised text included), `code_inline`, `softbreak`, `hardbreak` and
`html_inline` (an inline HTML tag: it states nothing, but `5<br>6` is two
numbers). A footnote reference (`5 ms[^1]`, its label defined somewhere in the
text, as GitHub's footnotes) is an `html_inline` with empty content: github.com
shows a superscript link numbered by order, never the label, so it states
nothing but parts the words; a reference whose label no definition names stays
text, as on github.com. A footnote definition's paragraphs are paragraphs (its
label is not kept). Left out, as no reader states anything from them: images (their
alt text), link targets, thematic breaks, the closing
tokens of paragraphs, headings and cells, and the tokens of lists, list
items and block quotes (their paragraphs are kept).

`Token.map` is `[line]`: the 0-based source line where the token starts (a
table cell: its row's line), what the readers read of markdown-it's `map`;
every opening token, `inline`, `html_block`, `fence` and `code_block` has one (closing
tokens and an `inline`'s children have None).
Before parsing, `\\r\\n` and `\\r` become `\\n` and NUL becomes U+FFFD, as
markdown-it's `normalize` rule does (CommonMark 0.31 section 2.3), so lines
count the same for every reader.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RENDERED_FENCES", "Token", "rendered_fence", "tokens"]


@dataclass(slots=True)
class Token:
    """One token: `type` (markdown-it's name), `map` (`[0-based start line]` or None), `content` (text, code or HTML), `children` (of an `inline`), `info` (of a `fence`)."""

    type: str
    map: list[int] | None = None
    content: str = ""
    children: list[Token] | None = field(default=None)
    info: str = ""


#: Fenced code blocks github.com renders instead of showing as code (math, diagrams, maps): their numbers are shown.
RENDERED_FENCES = frozenset({"math", "mermaid", "geojson", "topojson"})


def rendered_fence(tok: Any) -> bool:
    """Return whether `tok` is a fenced code block github.com renders (its info string's first word, any case, is in `RENDERED_FENCES`)."""
    words = tok.info.split() if tok.type == "fence" else []
    return bool(words) and words[0].lower() in RENDERED_FENCES


_NEWLINES = re.compile(r"\r\n?")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Inline containers: their text is the parent's text, their tags are not kept.
_INLINE_TAGS = frozenset({"Emphasis", "Strong", "Link"})
_OPTIONS: list[Any] = []
#: The events of a table cell (`{"Start": "TableCell"}` compares equal to this one only).
_CELL_START = {"Start": "TableCell"}
_CELL_END = {"End": "TableCell"}


def _name(payload: Any) -> str:
    """Return the tag of a Start/End payload: `'Paragraph'`, or the key of `{'Heading': {...}}`."""
    return payload if isinstance(payload, str) else next(iter(payload))


def _joined(children: list[Token]) -> list[Token]:
    """Return `children` with each run of adjacent `text` tokens made one (one join per run: pulldown-cmark may give a text event per character)."""
    if len(children) < 2:
        return children  # most runs (table cells) are one text event
    out: list[Token] = []
    run: list[str] = []
    for tok in children:
        if tok.type == "text":
            run.append(tok.content)
            continue
        if run:
            out.append(Token("text", None, "".join(run)))
            run = []
        out.append(tok)
    if run:
        out.append(Token("text", None, "".join(run)))
    return out


def tokens(text: str) -> list[Token]:
    """
    Return the tokens of Markdown `text` (CommonMark with GFM tables, as pulldown-cmark reads it); see the module docstring.

    Never raises for a `str` (a lone surrogate is read as U+FFFD).
    """
    import pyromark  # a well-kept CommonMark parser (pulldown-cmark); imported only when Markdown is read

    if not _OPTIONS:
        _OPTIONS.append(pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_FOOTNOTES)
    text = _NEWLINES.sub("\n", text).replace("\x00", "\ufffd")
    if not text.isascii() and _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    breaks = [m.start() for m in re.finditer(b"\n", text.encode("utf-8"))]  # event ranges are UTF-8 byte offsets
    out: list[Token] = []
    children: list[Token] | None = None  # the open inline run
    cell = ("td_open", [0])  # the open row's cell opener type and line: its cells are all on its line
    skipping, depth = "", 0  # inside an image or a code block (nested images counted): nothing stated
    html: list[str] | None = None  # the parts of the open raw HTML block or code block
    html_line = 0
    fence: str | None = None  # the open fenced code block's info string
    block = "html_block"  # the type of the open block `html` collects: `html_block`, `fence` or `code_block`

    def line(offset: int) -> int:
        return bisect.bisect_right(breaks, offset - 1)

    def run(offset: int) -> list[Token]:
        """Open an inline run: inline content straight inside a list item opens one under a paragraph, as markdown-it gives it."""
        nonlocal children
        out.append(Token("paragraph_open", [line(offset)]))
        children = []
        return children

    for event, where in pyromark.events_with_range(text, options=_OPTIONS[0]):
        if event == _CELL_END:  # most events of a table: its cells (never in an image, code or HTML); a cell's end: its run is over
            if children is not None:
                out.append(Token("inline", cell[1], "", children if len(children) < 2 else _joined(children)))
                children = None
            continue
        if event == _CELL_START:  # on its row's line (a padded empty cell's range starts after the row)
            if children is not None:
                out.append(Token("inline", cell[1], "", children if len(children) < 2 else _joined(children)))
            out.append(Token(*cell))
            children = []
            continue
        if type(event) is dict:
            kind, = event  # one key: `{"Text": ...}`, `{"Start": ...}`
            payload = event[kind]
        else:
            kind, payload = event, None
        if depth:
            if (kind == "Start" or kind == "End") and _name(payload) == skipping:
                depth += 1 if kind == "Start" else -1
            continue
        if html is not None:  # a raw HTML block or a code block: its lines (and the indentation pulldown-cmark gives as text)
            if kind == "End":
                out.append(Token(block, [html_line], "".join(html), info=fence or ""))
                html, fence = None, None
            else:
                html.append(payload)
            continue
        if kind == "Text":
            (run(where["start"]) if children is None else children).append(Token("text", None, payload))
        elif kind == "Start" or kind == "End":
            tag = payload if type(payload) is str else next(iter(payload))  # `_name(payload)`
            if tag in _INLINE_TAGS:
                continue  # emphasis and links: their text comes as text events
            if tag == "Image":  # inline content (its End is skipped with its alt text, which states nothing)
                if children is None:
                    run(where["start"])
                skipping, depth = tag, 1
                continue
            if children is not None:  # a block starts or ends: the open run is over, as only inline events come inside one
                out.append(Token("inline", out[-1].map, "", children if len(children) < 2 else _joined(children)))
                children = None
            if kind == "End":
                if tag == "TableHead" or tag == "TableRow":
                    out.append(Token("tr_close"))
                    if tag == "TableHead":
                        out.append(Token("thead_close"))
                elif tag == "Table":
                    out.append(Token("table_close"))
                continue
            start = line(where["start"])
            if tag == "Paragraph" or tag == "Heading":
                out.append(Token(f"{tag.lower()}_open", [start]))
                children = []
            elif tag == "TableHead" or tag == "TableRow":
                if tag == "TableHead":
                    out.append(Token("thead_open", [start]))
                out.append(Token("tr_open", [start]))
                cell = ("th_open" if tag == "TableHead" else "td_open", [start])
            elif tag == "Table":
                out.append(Token("table_open", [start]))
            elif tag == "HtmlBlock":
                html, html_line, block = [], start, "html_block"
            elif tag == "CodeBlock" and isinstance(payload["CodeBlock"], dict):  # fenced: its text and info string (```math)
                html, html_line, fence, block = [], start, payload["CodeBlock"]["Fenced"], "fence"
            elif tag == "CodeBlock":  # indented (four spaces): its text
                html, html_line, block = [], start, "code_block"
        elif kind == "Code":
            (run(where["start"]) if children is None else children).append(Token("code_inline", None, payload))
        elif kind == "SoftBreak" or kind == "HardBreak":
            (run(where["start"]) if children is None else children).append(Token(kind.lower()))
        elif kind == "InlineHtml":  # states nothing itself, but parts the words around it
            (run(where["start"]) if children is None else children).append(Token("html_inline", None, payload))
        elif kind == "FootnoteReference":  # github.com shows it as a superscript link numbered by order, not its label
            (run(where["start"]) if children is None else children).append(Token("html_inline", None, ""))
        elif children is not None:  # a thematic break (or another block-level event): the open run is over
            out.append(Token("inline", out[-1].map, "", _joined(children)))
            children = None
    if children is not None:
        out.append(Token("inline", out[-1].map, "", _joined(children)))
    return out
