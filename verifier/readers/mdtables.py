"""
Markdown pipe tables as records: the rows, headers and inline text the `markdown-table` receipt grammar
(`verifier.readers.grammars.parse`), the claim-document reader (`verifier.readers.markdown_doc`) and the HTML table reader
(`column_names`) read from a token stream of `verifier.readers.markdown.tokens` (CommonMark with GFM tables).
"""

from __future__ import annotations

from typing import Any

__all__ = ["READER_KEYS", "column_names", "inline_text", "markdown_tables", "markdown_tokens", "table_rows"]


def markdown_tables(text: str) -> list[dict[str, Any]]:
    """
    Return every row of every pipe table in Markdown `text` as a dict header -> cell text.

    Each row also holds `#table` (1-based table number), `#row` (1-based
    body row), `#line` (1-based source line) and `#heading` (the text of the
    nearest heading above the table, "" if none). Cell text is the inline
    content with code spans and emphasis reduced to their text and links to
    their label. Parsed by `verifier.readers.markdown` (CommonMark with GFM tables).
    """
    return table_rows(markdown_tokens(text))


def markdown_tokens(text: str) -> list[Any]:
    """Return the block tokens of `text` (`verifier.readers.markdown.tokens`: CommonMark with GFM tables); one parse serves tables and prose."""
    from verifier.readers.markdown import tokens  # late: its parser is imported only when Markdown is read

    return tokens(text)


def table_rows(tokens: list[Any], headers: dict[int, tuple[str, list[str]]] | None = None,
               blocks: list[tuple[str, Any]] | None = None) -> list[dict[str, Any]]:
    """
    Return the table rows of a token stream (see `markdown_tables`); fill `headers`, when given, with table number -> (nearest heading above it, its header cells' text) for every table, in order (a GFM table always has a header row).

    A header cell repeated in one table keys its column as `name (2)`,
    `name (3)`, ... (`column_names`), so no cell of a row is lost; a table
    with a header and no body row has no row but does have its header. A
    row's members: `#table`, `#row`, `#line`, `#heading`, then its cells.
    `blocks`, when given, gets in order what else a document reader reads, so it walks the tokens
    once: `(opener type, inline)` of each paragraph and heading, `(type, token)` of each `fence`, `code_block` and `html_block`.
    """
    rows: list[dict[str, Any]] = []
    heading, table, in_head = "", 0, False
    header: list[str] = []
    current: list[str] = []
    line = 0
    body_row = 0
    before = ""  # the type of the token before `tok`
    for tok in tokens:
        kind = tok.type
        if kind == "inline":
            if before == "td_open" or before == "th_open":
                children = tok.children
                if children and len(children) == 1 and (children[0].type == "text" or children[0].type == "code_inline"):
                    current.append(children[0].content.strip())  # most cells: `inline_text`'s first case, without its call
                else:
                    current.append(inline_text(tok))
            elif before == "heading_open":
                heading = inline_text(tok)
                if blocks is not None:
                    blocks.append((before, tok))
            elif before == "paragraph_open" and blocks is not None:
                blocks.append((before, tok))
        elif kind == "tr_close":
            if in_head:
                if headers is not None:
                    headers[table] = (heading, current)
                header = column_names(current)
            else:
                body_row += 1
                row: dict[str, Any] = {"#table": table, "#row": body_row, "#line": line, "#heading": heading}
                short = len(header) - len(current)  # a row with fewer cells than the header: the missing ones are empty
                row.update(zip(header, current if short <= 0 else current + [""] * short))  # cells beyond the header are dropped
                rows.append(row)
        elif kind == "tr_open":
            current = []
            line = tok.map[0] + 1
        elif kind == "table_open":
            table += 1
            header, body_row = [], 0
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif (kind == "fence" or kind == "html_block" or kind == "code_block") and blocks is not None:
            blocks.append((kind, tok))
        before = kind
    return rows


#: The members a table reader adds to a row (where it is), never a column's key: a header cell with this text is keyed `#line (2)`.
READER_KEYS = frozenset({"#line", "#table", "#row", "#heading"})


def column_names(header: list[str]) -> list[str]:
    """
    Return the keys of a table's columns: each header cell's text, a repeated one as `text (2)`, `text (3)`, ... (never a key already taken).

    Used by the Markdown and HTML table readers, so two columns under one
    header text (often both empty) keep both cells of every row; a header
    that is one of `READER_KEYS` is renamed too (`| #line |` -> `#line (2)`),
    so a cell never overwrites where its row is. Any other header starting
    with `#` (`| # |`, `| #GPUs |`) keeps its text. Linear in the columns.
    """
    out: list[str] = []
    used: set[str] = set()
    taken = set(header) | READER_KEYS
    tried: dict[str, int] = {}  # per header text, the last suffix it took: what it passed stays refused, so the next one starts after it
    for name in header:
        n = tried.get(name, 0) + 1
        key = name if n == 1 else f"{name} ({n})" if name else f"({n})"
        while key in used or key in READER_KEYS or (n > 1 and key in taken):
            n += 1
            key = f"{name} ({n})" if name else f"({n})"
        tried[name] = n
        used.add(key)
        out.append(key)
    return out


def inline_text(tok: Any) -> str:
    """
    Return the text of an `inline` token: its text and code spans, a line break as a blank.

    An inline HTML tag (`5<br>6`, `10<sup>6</sup>`) between two non-blank
    characters reads as a blank, so the numbers on either side stay two
    numbers (as the HTML reader reads an element edge); elsewhere it adds nothing.
    Linear in the children (a run of tags is looked past once, not once per tag).
    """
    children = tok.children or []
    if len(children) == 1 and (children[0].type == "text" or children[0].type == "code_inline"):
        return children[0].content.strip()  # most table cells: one run of text, what the loop below returns for it
    parts: list[str] = []
    ahead: list[str] | None = None  # built at the first tag: `_texts_ahead(children)`
    for k, child in enumerate(children):
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "html_inline" and parts and parts[-1][-1:].strip():
            if ahead is None:
                ahead = _texts_ahead(children)
            if ahead[k + 1][:1].strip():
                parts.append(" ")
    return "".join(parts).strip()


def _texts_ahead(children: list[Any]) -> list[str]:
    """Return, for each index 0..len(children), the content of the first text or code child from there on, past inline HTML tags, empty texts and the opening and closing marks of links and emphasis ("" at the end or a break)."""
    ahead = [""] * (len(children) + 1)
    for k in range(len(children) - 1, -1, -1):
        child = children[k]
        if child.type in ("text", "code_inline") and child.content:
            ahead[k] = str(child.content)
        elif child.type in ("html_inline", "text") or child.type.endswith(("_open", "_close")):  # markdown-it's link_open, em_close, an empty text
            ahead[k] = ahead[k + 1]
    return ahead
