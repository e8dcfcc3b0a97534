"""
The one Markdown parser (`verifier.grammars.markdown_parser`) gives markdown-it-py's token stream, token for token.

Its plain-text shortcut (an inline run holding no character that can start
inline syntax becomes one `text` token without the inline rule chain) must be
invisible: every Markdown file of the project and of `../shared/`, and
generated input built from the characters that matter, parse to the same
tokens (types, content, maps, levels, children) as
`MarkdownIt("commonmark").enable("table")` gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from verifier.grammars import markdown_parser

REFERENCE = MarkdownIt("commonmark").enable("table")
FILES = sorted({p.resolve() for base in (ROOT, ROOT.parent / "shared") for p in base.rglob("*.md")
                if ".venv" not in p.parts and ".git" not in p.parts})


def _tokens(md: MarkdownIt, text: str) -> list[dict]:
    return [t.as_dict() for t in md.parse(text)]


def test_the_project_and_corpus_hold_markdown_to_compare():
    assert len(FILES) > 50 and any("corpus" in p.parts for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: "/".join(p.parts[-3:]))
def test_every_real_markdown_file_parses_to_the_reference_tokens(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _tokens(markdown_parser(), text) == _tokens(REFERENCE, text)


FRAGMENTS = ["| a | b |\n", "|---|--:|\n", "| 1.5 | `x` |\n", "# h\n", "\n", "> ", "- ", "1. ", "    ", "*", "_", "**", "`", "[", "]",
             "(u)", "<b>", "&amp;", "\\", "  \n", "\t", "x", "12,345", "7.3%", ":", "|", "~", "!", "=", "-", "+", "\r\n", " ", "\u00e9"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_generated_markdown_parses_to_the_reference_tokens(parts):
    text = "".join(parts)
    assert _tokens(markdown_parser(), text) == _tokens(REFERENCE, text)


def test_a_plain_cell_skips_the_inline_rule_chain(monkeypatch):
    md = markdown_parser()
    calls = []
    real = md.inline.parse
    monkeypatch.setattr(md.inline, "parse", lambda src, *a, **k: (calls.append(src), real(src, *a, **k))[1])
    md.parse("| a | b |\n|---|---|\n| 1,234 | plain words |\n| *x* | 7.3% |\n")
    assert sorted(calls) == ["*x*", "7.3%"]  # the other cells are one text token each
