"""
Tests that the claim-document readers made faster (shared tokens, one walk, one `Quantity` per stated text) read what their former code read.

The former code (as of 7c8c477) is kept here as the spec: `verifier.markdown.tokens`,
`verifier.mdtables.table_rows` and `verifier.readers.markdown_doc.markdown_document`
must give the same tokens (types, lines, contents, children), rows and
documents on every Markdown file of the project and of `../shared/` and on
generated Markdown; `read_claim_documents` the same claims and outcomes
(every `Decimal` compared by its text, so an exponent that differs is seen) on
the corpus claim documents and on generated JSON documents read together.
"""

from __future__ import annotations

import bisect
import dataclasses
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyromark
import pytest
from conftest import CORPUS
from hypothesis import example, given, settings
from test_claimdocs_collect import _document
from test_markdown_parser import DOCUMENTS, FILES, REFERENCE, _id

from verifier import grammars, mdtables, units
from verifier.evidence import Location, Quantity, RecordedOutcome, StatedClaim
from verifier.markdown import _INLINE_TAGS, _NEWLINES, _SURROGATE, Token, _joined, _name, rendered_fence, tokens
from verifier.readers import claimdocs, markdown_doc
from verifier.readers.tree import Tree


def _former_tokens(text: str) -> list[Token]:
    """`verifier.markdown.tokens` as of 7c8c477 (a new Token per cell, text and event)."""
    text = _NEWLINES.sub("\n", text).replace("\x00", "\ufffd")
    if not text.isascii() and _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    breaks = [m.start() for m in re.finditer(b"\n", text.encode("utf-8"))]  # event ranges are UTF-8 byte offsets
    out: list[Token] = []
    children: list[Token] | None = None  # the open inline run
    in_head = False
    row_line = 0
    skipping, depth = "", 0  # inside an image or a code block (nested images counted): nothing stated
    html: list[str] | None = None  # the parts of the open raw HTML block or fenced code block
    html_line = 0
    fence: str | None = None  # the open fenced code block's info string

    def line(offset: int) -> int:
        return bisect.bisect_right(breaks, offset - 1)

    def flush() -> None:
        """End the open inline run, if any: its `inline` token, on its opener's line (the opener is the last token out)."""
        nonlocal children
        if children is not None:
            out.append(Token("inline", out[-1].map, "", _joined(children)))
        children = None

    def run(offset: int) -> list[Token]:
        """Return the open inline run; inline content straight inside a list item opens one under a paragraph, as markdown-it gives it."""
        nonlocal children
        if children is None:
            out.append(Token("paragraph_open", [line(offset)]))
            children = []
        return children

    for event, where in pyromark.events_with_range(text, options=pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_FOOTNOTES):
        if type(event) is dict:
            (kind, payload), = event.items()
        else:
            kind, payload = event, None
        if depth:
            if (kind == "Start" or kind == "End") and _name(payload) == skipping:
                depth += 1 if kind == "Start" else -1
            continue
        if html is not None:  # a raw HTML block or a fenced code block: its lines (and the indentation pulldown-cmark gives as text)
            if kind == "End":
                out.append(Token("html_block", [html_line], "".join(html)) if fence is None else Token("fence", [html_line], "".join(html), info=fence))
                html, fence = None, None
            else:
                html.append(payload)
            continue
        if kind == "Text":
            run(where["start"]).append(Token("text", None, payload))
        elif kind == "Start" or kind == "End":
            tag = _name(payload)
            if tag in _INLINE_TAGS:
                continue  # emphasis and links: their text comes as text events
            if tag == "Image":  # inline content (its End is skipped with its alt text, which states nothing)
                run(where["start"])
                skipping, depth = tag, 1
                continue
            if children is not None:  # a block starts or ends: the open run is over, as only inline events come inside one
                out.append(Token("inline", out[-1].map, "", _joined(children)))  # `flush()`, without its call per cell
                children = None
            if kind == "End":
                if tag == "TableHead" or tag == "TableRow":
                    out.append(Token("tr_close"))
                    if tag == "TableHead":
                        out.append(Token("thead_close"))
                elif tag == "Table":
                    out.append(Token("table_close"))
                continue
            if tag == "TableCell":  # on its row's line (a padded empty cell's range starts after the row)
                out.append(Token("th_open" if in_head else "td_open", [row_line]))
                children = []
                continue
            start = line(where["start"])
            if tag == "Paragraph" or tag == "Heading":
                out.append(Token(f"{tag.lower()}_open", [start]))
                children = []
            elif tag == "TableHead" or tag == "TableRow":
                in_head, row_line = tag == "TableHead", start
                if in_head:
                    out.append(Token("thead_open", [start]))
                out.append(Token("tr_open", [start]))
            elif tag == "Table":
                out.append(Token("table_open", [start]))
            elif tag == "HtmlBlock":
                html, html_line = [], start
            elif tag == "CodeBlock" and isinstance(payload["CodeBlock"], dict):  # fenced: its text and info string (```math)
                html, html_line, fence = [], start, payload["CodeBlock"]["Fenced"]
            elif tag == "CodeBlock":
                skipping, depth = tag, 1
        elif kind == "Code":
            run(where["start"]).append(Token("code_inline", None, payload))
        elif kind == "SoftBreak" or kind == "HardBreak":
            run(where["start"]).append(Token(kind.lower()))
        elif kind == "InlineHtml":
            run(where["start"]).append(Token("html_inline", None, payload))  # states nothing itself, but parts the words around it
        elif kind == "FootnoteReference":  # github.com shows it as a superscript link numbered by order, not its label
            run(where["start"]).append(Token("html_inline", None, ""))
        elif children is not None:  # a thematic break (or another block-level event): the open run is over
            flush()
    flush()
    return out


def _former_table_rows(tokens: list[Any], headers: dict[int, tuple[str, list[str]]] | None = None) -> list[dict[str, Any]]:
    """`verifier.mdtables.table_rows` as of 7c8c477 (a walk with an index, a call per cell)."""
    rows: list[dict[str, Any]] = []
    heading, table, in_head = "", 0, False
    header: list[str] = []
    current: list[str] = []
    line = 0
    body_row = 0
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            heading = mdtables.inline_text(tokens[i + 1])
        elif tok.type == "table_open":
            table += 1
            header, body_row = [], 0
        elif tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            current = []
            line = tok.map[0] + 1
        elif tok.type == "inline" and i > 0 and tokens[i - 1].type in ("th_open", "td_open"):
            current.append(mdtables.inline_text(tok))
        elif tok.type == "tr_close":
            if in_head:
                if headers is not None:
                    headers[table] = (heading, current)
                header = mdtables.column_names(current)
            else:
                body_row += 1
                row: dict[str, Any] = {"#table": table, "#row": body_row, "#line": line, "#heading": heading}
                row.update({h: (current[k] if k < len(current) else "") for k, h in enumerate(header)})
                rows.append(row)
    return rows


def _former_markdown_document(data: bytes) -> dict[str, Any]:
    """`verifier.readers.markdown_doc.markdown_document` as of 7c8c477 (the tokens walked twice)."""
    tokens = mdtables.markdown_tokens(grammars.utf8_text(data))
    found: dict[int, tuple[str, list[str]]] = {}
    rows = _former_table_rows(tokens, found)
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
        cells = {k: v for k, v in row.items() if k not in mdtables.READER_KEYS}  # `column_names` keeps every column out of them
        tables[names[row["#table"]]].append({**cells, "#line": row["#line"]})
    prose = []
    headings: list[dict[str, Any]] = []
    blocks = []
    rendered = []
    for i, tok in enumerate(tokens):  # a table cell's inline follows `th_open`/`td_open`, never a paragraph or heading
        if tok.type == "fence" and rendered_fence(tok):  # the type first: one call per fence, not per token
            rendered.append({"#line": tok.map[0] + 1, "text": tok.content, "numbers": [m.group(0) for m in markdown_doc._NUMBER_IN_TEXT.finditer(tok.content)]})
        elif tok.type == "html_block":
            blocks.append({"#line": tok.map[0] + 1, "source": tok.content, "heading": headings[-1]["text"] if headings else ""})
        elif tok.type == "inline" and tokens[i - 1].type in ("paragraph_open", "heading_open"):  # an inline follows its opening token, never first
            content = mdtables.inline_text(tok)
            item: dict[str, Any] = {"#line": tok.map[0] + 1, "text": content}
            if tokens[i - 1].type == "heading_open":
                item["numbers"] = [m.group(0) for m in markdown_doc._NUMBER_IN_TEXT.finditer(content)]
                headings.append(item)
                continue
            item["code"] = [c.content for c in tok.children or [] if c.type == "code_inline"]
            item["numbers"] = [m.group(0) for m in markdown_doc._NUMBER_IN_TEXT.finditer(content)]
            prose.append(item)
    document = {"tables": tables, "headers": headers, "prose": prose, "headings": headings}
    if rendered:
        document["rendered"] = rendered
    if blocks:
        document["#html"] = blocks
    return document


def _former_claims(rel: str, document: Any, memo: dict[str, Any]) -> tuple[list[StatedClaim], list[RecordedOutcome]]:
    """The claims and outcomes `read_claim_documents` made of one document as of 7c8c477 (its `_claim`: a `Quantity` per claim)."""
    found: list = []
    claimdocs._collect(document, "", found, memo, claimdocs._SHOWN_KEYS if rel.lower().endswith((".md", ".html", ".htm")) else frozenset())
    claims, outcomes = [], []
    for pointer, value, parsed, source in found:
        where = Location(rel, pointer)
        name = pointer.rpartition("/")[2]
        if isinstance(value, bool):
            outcomes.append(RecordedOutcome(name, value, None, where))
        elif not isinstance(value, str):
            number = value if isinstance(value, Decimal) else Decimal(str(value))
            claims.append(StatedClaim(pointer, Quantity(number, "1", str(value)), name, where, number, None, str(value)))
        else:
            base = pointer.partition("#")[0]
            words = source if source is not None else value if base == pointer else claimdocs._string_at(document, base, value)
            number, unit = parsed if parsed is not None else (None, None)
            q = None if number is None or (unit is not None and not units.known(unit)) else Quantity(number, unit or "1", value)
            claims.append(StatedClaim(pointer, q, words, where, number, unit, value))
    return claims, outcomes


def _plain(value: Any) -> Any:
    """`value` with tokens and dataclasses as tuples of their fields and every `Decimal` as its text (`1.0` and `1.00` differ)."""
    if isinstance(value, Decimal):
        return ("Decimal", str(value))
    if isinstance(value, Token) or dataclasses.is_dataclass(value):
        return (type(value).__name__, *(_plain(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _same_markdown(text: str) -> None:
    # issue 38: an indented code block is a `code_block` token (shown, so stated in a profile's claim document); the former reader skipped it
    assert _plain([tok for tok in tokens(text) if tok.type != "code_block"]) == _plain(_former_tokens(text))
    data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")
    ours = markdown_doc.markdown_document(data)
    fenced = ours.pop("literal", [])  # issue 38: code blocks other than rendered ones are shown, so stated (the former reader left them out)
    assert all(set(block) == {"#line", "text", "numbers"} for block in fenced)
    assert _plain(ours) == _plain(_former_markdown_document(data))
    for toks in (tokens(text), REFERENCE.parse(text)):  # table_rows also reads markdown-it's tokens (tests/test_markdown_parser.py)
        ours: dict = {}
        theirs: dict = {}
        assert mdtables.table_rows(toks, ours) == _former_table_rows(toks, theirs) and ours == theirs
        rows = mdtables.table_rows(toks)
        assert all(list(row)[:4] == ["#table", "#row", "#line", "#heading"] for row in rows)  # what markdown_document slices off


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_every_real_markdown_file_reads_as_formerly(path: Path):
    _same_markdown(path.read_text(encoding="utf-8", errors="replace"))


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS)
@example("| a | b |\n|---|---|\n| x *y* `z` | 1<br>2 |\n| 5 |\n| 1 | 2 | 3 |\n")  # a cell of several runs, a short row, a long row
@example("| a | a |\n|---|---|\n| 1 | 2 |\n\n# t 1\n\n| #line | b |\n|---|---|\n| 3 | 4 |\n")  # repeated and reader-key headers
@example("# h\n\n<div>5</div>\n\n```math\n7\n```\n\n- 8\n- ![i](u) 9\n")  # an HTML block, a rendered fence, list items
@example("|a|\n|-|\n|x|\n|x|\n\nx\n")  # one text in several cells and a paragraph
@example("TableCell\n\n| TableCell | `TableCell` |\n|---|---|\n| TableCell | ![TableCell](u) |\n\n    TableCell\n")  # text named like the event
@example("| &nbsp;a&#32; | `&nbsp;` |\n|---|---|\n| &nbsp;1&nbsp; | ` 2 ` |\n")  # one-run cells with blanks to strip
def test_generated_markdown_reads_as_formerly(text):
    _same_markdown(text)


def test_rows_shorter_or_longer_than_the_header_read_as_formerly():
    """Neither parser gives such rows (GFM pads and cuts them), but a token stream may: missing cells are empty, extra ones dropped."""
    def cell(kind: str, *texts: str) -> list[Token]:
        return [Token(kind, [0]), Token("inline", [0], "", [Token("text", None, t) for t in texts])]

    stream = [Token("table_open", [0]), Token("thead_open", [0]), Token("tr_open", [0]), *cell("th_open", "a"), *cell("th_open", " b "),
              *cell("th_open", "a"), Token("tr_close"), Token("thead_close")]
    for line, cells in enumerate([["1"], ["1", "2", "3", "4"], [], ["x", " y", " 5 "]], start=2):
        stream += [Token("tr_open", [line]), *(tok for text in cells for tok in cell("td_open", text)), Token("tr_close")]
    stream += [Token("tr_open", [9]), *cell("td_open", " p", "q "), Token("tr_close"), Token("table_close")]
    ours: dict = {}
    theirs: dict = {}
    assert mdtables.table_rows(stream, ours) == _former_table_rows(stream, theirs) and ours == theirs
    assert mdtables.table_rows(stream)[0] == {"#table": 1, "#row": 1, "#line": 3, "#heading": "", "a": "1", "b": "", "a (2)": ""}


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


def _same_claims(documents: dict[str, Any]) -> int:
    read = claimdocs.read_claim_documents(_Tree(documents), [{"file": rel} for rel in documents])
    memo: dict = {}
    claims: list = []
    outcomes: list = []
    for rel, document in documents.items():
        c, o = _former_claims(rel, document, memo)
        claims += c
        outcomes += o
    assert _plain(list(read.claims)) == _plain(claims) and _plain(list(read.outcomes)) == _plain(outcomes) and not read.unmapped
    return len(claims)


def test_the_corpus_claim_documents_are_read_as_formerly():
    """Each bundle's JSON, CSV and Markdown files read in one call, so their copies of a table share what they state."""
    bundles = 0
    for bundle in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        tree = Tree(bundle)
        documents = {}
        for rel in tree.files():
            if rel.rsplit(".", 1)[-1].lower() in ("json", "csv", "md") and len(tree.read_bytes(rel)) <= 2_000_000:
                try:
                    documents[rel] = tree.json(rel)
                except Exception:  # not strict JSON or not its grammar: not a claim document this test can read
                    continue
        bundles += _same_claims(documents) > 0
    assert bundles >= 5


def test_generated_documents_are_read_as_formerly():
    """Documents sharing leaves (`1.5`, `Decimal('396.30')`, "75%"; `0`, `7` and `Decimal(7)`, `Decimal('7.0')`: one text, or one value written twice)."""
    rng = random.Random(5)
    extra = [Decimal(7), Decimal("7.0"), Decimal("7.00"), Decimal("-0"), Decimal("1E+2"), "7.0 ms", "7.00 ms", "1,000", "ms 5 ms 5.0 ms", "5 parsecs"]
    for _ in range(500):
        docs = {f"d{k}.json": _document(rng, 0) for k in range(3)}
        docs["e.md"] = {"tables": {"t": [{"a": rng.choice(extra), "#line": 3}]}, "prose": [{"#line": 1, "text": "x", "code": [], "numbers": [rng.choice(extra)]}]}
        docs["f.json"] = [rng.choice(extra) for _ in range(4)]
        _same_claims(docs)
