"""
Tests that kill mutants of `verifier/readers/claimtext.py` (issue 42, cosmic-ray): every number a claim text states, by example.

Written ahead of the run of record so its session stops at the first red test
(`tools/cosmic-ray/readers_claimtext.toml` runs this file first): each test reads a
small text with `extract` (or `read_claim_text`) and pins what each number is
read as: its digits and value, unit, phrase, identifier rule, arrow role and
partner, line and column, table context, the words around it, its clause
tail and its offset in the normalised sentence. Columns are pinned only where
no equal number stands within eight characters before it (`_column` searches
from eight characters before the number's place).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.readers import claimtext as ct
from verifier.readers.claimtext import ClaimTextError, extract, read_claim_text


def _rows(text: str) -> list[tuple]:
    """Return `(number, value, unit, phrase, informational, role, partner, line, column)` of each number `extract` reads in `text`."""
    return [(q.number, str(q.value), q.unit, q.phrase, q.informational, q.role, q.partner, q.line, q.column) for q in extract(text, "t.md")]


def test_a_sentence_of_an_arrow_a_relative_change_and_a_speedup():
    """Kills the arrow pairing (`role`, `partner` offsets), `_phrase` (`==` on the unit kind, `need == kind`), the clause words (`before`, `after`, `noun`, `tail`, `start`), `index`."""
    text = "Latency fell from 407.27 s to 108.12 s, 73.45 % lower; throughput rose 3.77x faster."
    assert _rows(text) == [("407.27", "407.27", "s", None, None, "from", 1, 1, 19), ("108.12", "108.12", "s", None, None, "to", 0, 1, 31),
                           ("73.45", "73.45", "%", "pct-less", None, None, None, 1, 41), ("3.77", "3.77", "x", "x-faster", None, None, None, 1, 72)]
    found = extract(text, "t.md")
    assert [(q.before, q.after, q.noun, q.tail, q.start, q.index) for q in found] == [
        ("latency fell from ", " to ", "to", "to 108.12 s", 18, 0), (" to ", ", ", "", "", 30, 1),
        (", ", " lower; throughput rose ", "lower", "lower", 40, 2), (" lower; throughput rose ", " faster.", "faster", "faster.", 71, 3)]
    assert {q.sentence for q in found} == {text} and {q.source for q in found} == {"t.md"} and {q.context for q in found} == {""}


def test_the_words_of_a_count_and_a_clause_tail():
    """Kills `noun` (first four words of the clause after it: `[:4]`), `tail` (up to `,`/`;`), `start` (offset in the normalised sentence)."""
    text = "The candidate served 26 measured requests per arm over three long hours of the day, with 5 s p95; the end"
    found = extract(text, "t")
    assert [(q.number, q.before, q.after, q.noun, q.tail, q.start) for q in found] == [
        ("26", "the candidate served ", " measured requests per arm over three long hours of the day, with ", "measured requests per arm",
         "measured requests per arm over three long hours of the day", 21),
        ("5", " measured requests per arm over three long hours of the day, with ", " p95; the end", "p", "p95", 89)]
    long = extract("Got 3 " + "a" * 300 + " end", "t")
    assert [(q.number, q.tail) for q in long] == [("3", "a" * 239)]  # no clause end: 240 characters after the number
    assert extract("Got 3 " + "a" * 100 + ", b", "t")[0].tail == "a" * 100
    spaced = extract("Got  3   s\tand\n\n   4 s", "t")
    assert [(q.number, q.sentence, q.start, q.line, q.column) for q in spaced] == [("3", "Got 3 s and", 4, 1, 6), ("4", "4 s", 0, 3, 4)]


def test_identifiers_are_informational_and_keep_no_unit():
    """Kills `_rule_spans` (date, time, version, reference, commit, identifier, percentile, hyphen-glued), `span == taken`, `unit = None`, `_informational`'s widest span."""
    text = "p95 was 12 ms on 2026-01-02 at 10:30, v1.2.3 (see #42, PR 7), commit abc1234 and gpt-4 with ref2va-5s."
    assert _rows(text) == [("12", "12", "ms", None, None, None, None, 1, 9), ("2026-01-02", "2026", None, None, "date", None, None, 1, 18),
                           ("10:30", "10", None, None, "time-of-day", None, None, 1, 32), ("7", "7", None, None, "reference", None, None, 1, 59),
                           ("4", "4", None, None, "identifier", None, None, 1, 86), ("5s", "5", None, None, "identifier", None, None, 1, 100)]
    assert _rows("It is 3rd of 910B1 items; \u22125 s and -2.5% and +3 ms.") == [
        ("3rd", "3", None, None, "identifier", None, None, 1, 7), ("910B1", "910", None, None, "identifier", None, None, 1, 14),
        ("-5", "-5", "s", None, None, None, None, 1, 28), ("-2.5", "-2.5", "%", None, None, None, None, 1, 37), ("3", "3", "ms", None, None, None, None, 1, 47)]
    spans = ct.identifier_spans("on 2026-01-02T10:30:00Z p50 and 1.2.3 and deadbeef1")
    assert spans == [(3, 23, "date"), (8, 10, "identifier"), (11, 16, "identifier"), (20, 23, "identifier"), (24, 27, "percentile-name"),
                     (32, 37, "version"), (42, 51, "commit")]
    assert [q.informational for q in extract("on 2026-01-02T10:30:00Z it ran", "t")] == ["date"]  # one date, not a date, a time and more


def test_numbers_in_exponent_notation_are_read_as_their_value():
    """Kills the exponent words (`_EXPONENT_WORD` branch: `not e["unit"] or`, `len(word) < 7`, `word[1] in "eE"`, the unit after), `_value`'s held exponent (`< 4`, the sign, `bound + places`)."""
    assert _rows("Mean 9.0e1 s and 1.0812E+2 s.") == [("9.0e1", "90", "s", None, None, None, None, 1, 6), ("1.0812E+2", "108.12", "s", None, None, None, None, 1, 18)]
    assert _rows("Took 1e2s.") == [("1e2", "1E+2", "s", None, None, None, None, 1, 6)]
    assert _rows("A 1e2 run.") == [("1e2", "1E+2", None, None, None, None, None, 1, 3)]
    assert _rows("Id 1234e56 here.") == [("1234e56", "1.234E+59", None, None, "commit", None, None, 1, 4)]  # seven characters, no unit: a commit
    assert _rows("Took 1234e56 s.") == [("1234e56", "1.234E+59", "s", None, None, None, None, 1, 6)]  # a unit after it: a number
    assert _rows("Took 1e99999 here.") == [("1e99999", "1E+1000", None, None, None, None, None, 1, 6)]  # `1e` starts it: a number
    assert _rows("Took 12e4567 here.")[0][4] == "commit"
    assert _rows("Id 1234e56" + " " * 63 + "s")[0][2:5] == ("s", None, None) and _rows("Id 1234e56" + " " * 64 + "s")[0][2:5] == (None, None, "commit")  # 64 characters on
    assert [(q.number, q.informational) for q in extract("a" + " " * 11 + "1-2 s", "t")] == [("1", None), ("2", "identifier")]  # a letter 12 characters before
    assert [(q.number, q.unit, q.informational) for q in extract("a" + " " * 12 + "1-2 s", "t")] == [("1", None, None), ("2", "s", None)]
    assert [(q.number, q.informational) for q in extract("9 b-4 s", "t")] == [("9", None), ("4", "identifier")]  # the letter the hyphen follows
    assert [(q.number, q.unit, q.informational) for q in extract("took 8GB of memory and 5pct", "t")] == [("8", "GB", None), ("5", "%", None)]  # a registry unit glued on
    assert [(q.number, q.unit, q.informational) for q in extract("took 1.5abc and 2.5ms and 3.5 abc", "t")] == [
        ("1.5", None, "identifier"), ("2.5", "ms", None), ("3.5", None, None)]  # digits glued to letters that are no unit
    assert _rows("Zero 0e99999999999, 1e999999 s and 5e-99999 ms.") == [
        ("0e99999999999", "0E+1000", None, None, None, None, None, 1, 6), ("1e999999", "1E+1000", "s", None, None, None, None, 1, 21),
        ("5e-99999", "5E-1000", "ms", None, None, None, None, 1, 36)]
    assert [str(ct._value(lit)) for lit in ("1e999", "1e0999", "1e1001", "2.5e1234", "1.5e-1234", "12", "1.50")] == [
        "1E+999", "1E+999", "1E+1000", "2.5E+1000", "1.5E-1000", "12", "1.50"]


def test_units_written_after_a_number():
    """Kills `_unit_after`: `%`/`x`/`×` (`!=`, `and`/`or`), `-second` forms, rates and `per`, the unit words, the refused registry units (`not in`)."""
    assert [(q.number, q.unit) for q in extract("a 5-second clip, 3 tokens/s, 4 samples per second, 5 items, 2 b, 7 steps, 1.5 times, 2 fold", "t")] == [
        ("5", "second"), ("3", "tokens/s"), ("4", "samples per second"), ("5", None), ("2", None), ("7", None), ("1.5", "x"), ("2", "x")]
    assert [(q.number, q.unit) for q in extract("3 \u00d7; 4 x; 5 xl; 6 sec; 7 percent; 8 GB; 9 s/it; 10 X; 11X; 12x2; 13 pct; 14 ms-ish", "t")] == [
        ("3", "x"), ("4", "x"), ("5", None), ("6", "s"), ("7", "%"), ("8", "GB"), ("9", "s/it"), ("10", "x"), ("11", "x"), ("12x2", None), ("13", "%"),
        ("14", "ms")]
    assert [(q.number, q.unit) for q in extract("5 % per run, 3 x\u00b5s, 3 X\u00b5s", "t")] == [("5", "%"), ("3", None), ("3", None)]  # x glued to letters: no unit
    assert ct._unit_after(" Seconds later") == ("s", 8) and ct._unit_after("-ms run") == ("ms", 3) and ct._unit_after(" count") == (None, 0)
    assert ct._unit_after(" tokens per second") == ("tokens per second", 18) and ct._unit_after(" score") == (None, 0)
    assert ct._unit_after(" GB of memory") == ("GB", 3) and ct._unit_after("") == (None, 0) and ct._unit_after(" x") == ("x", 2)


def test_phrases_before_and_after_a_relative_number():
    """Kills `_phrase`: each pattern list, `need == kind` (`!=`), the `%`/`x` kind, `r["rule"] is None`."""
    cases = {"5% faster": "pct-faster", "5 % lower": "pct-less", "5% slower": "pct-slower", "5% higher": "pct-more", "2x as fast": "x-as-fast",
             "2x faster": "x-faster", "2x slower": "x-slower", "2x less": "x-less", "2x speedup": "speedup", "cut latency by 5%": "pct-less",
             "a reduction of 5%": "pct-less", "rose by 5%": "pct-more", "faster by 5%": "pct-faster", "a speedup of 2x": "speedup",
             "5 s faster": None, "5 lower": None, "2% as fast": None, "speedup of 5%": None, "reduced by 2x": None}
    assert {text: extract(text, "t")[-1].phrase for text in cases} == cases
    assert ct._phrase(None, "cut by", "lower") is None and ct._phrase("%", "", "") is None


def test_arrows_pair_two_numbers_of_compatible_units():
    """Kills `_pair`: `a["rule"] or ...`, `not arrow`, `to` needing `from` (`==`, `not re.search`), unit compatibility (`and`, `not`), the unit shared backwards (`is None`/`is not None`)."""
    text = "A 407.27 -> 108.12 s. B 5 s \u2192 6 ms. C 5 s => 6 %. D went to 5 s to 6 s. E from 3 to 4 s. F 1 \u27f6 2 x."
    assert [(q.number, q.unit, q.role, q.partner) for q in extract(text, "t")] == [
        ("407.27", "s", "from", 1), ("108.12", "s", "to", 0), ("5", "s", "from", 3), ("6", "ms", "to", 2), ("5", "s", None, None), ("6", "%", None, None),
        ("5", "s", None, None), ("6", "s", None, None), ("3", "s", "from", 9), ("4", "s", "to", 8), ("1", "x", "from", 11), ("2", "x", "to", 10)]
    assert [(q.number, q.unit, q.role) for q in extract("From 3 ms to 4 s and 5 to 6.", "t")] == [("3", "ms", "from"), ("4", "s", "to"), ("5", None, None), ("6", None, None)]
    assert [(q.number, q.role) for q in extract("on 2026-01-02 -> 5 s then 6 tokens/s -> 7 ms", "t")] == [("2026-01-02", None), ("5", None), ("6", None), ("7", None)]
    assert [(q.number, q.role) for q in extract("PR 7 -> 5 s and 5 s -> 10:30 today", "t")] == [("7", None), ("5", None), ("5", None), ("10:30", None)]  # an identifier at either end
    assert [(q.number, q.unit, q.role) for q in extract("3 s -> 4 and 5 -> 6 s", "t")] == [("3", "s", "from"), ("4", None, "to"), ("5", "s", "from"), ("6", "s", "to")]
    assert [(q.number, q.role) for q in extract("3 foo -> 4 s", "t")] == [("3", None), ("4", None)]  # words between: no arrow


def test_markdown_tables_give_each_cell_its_row_label_and_header():
    """Kills `_parse_segments`' table branch (`not in_head and row`, `col < len(header)`, `col == 0`, the header cells) and `_header_unit` (column first, then row label)."""
    text = "| Model | Mean E2E (s) | Speedup [x] |\n|---|---|---|\n| a1 | 4.5 | 1.2 |\n| b 7 | 3 | 2 |\n"
    found = extract(text, "t.md")
    assert [(q.number, q.unit, q.line, q.column, q.context) for q in found] == [
        ("4.5", "s", 3, 8, "a1 | Mean E2E (s)"), ("1.2", "x", 3, 14, "a1 | Speedup [x]"), ("7", None, 4, 5, "Model"), ("3", "s", 4, 9, "b 7 | Mean E2E (s)"),
        ("2", "x", 4, 13, "b 7 | Speedup [x]")]
    assert found[0].words == "a1 | mean e2e (s)  " and found[0].stated == "4.5 s" and found[0].where() == "t.md:3:8"
    extra = extract("| A (ms) | B |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |\n", "t.md")  # a cell past the header, a short row
    assert [(q.number, q.unit, q.context) for q in extra] == [("1", "ms", "A (ms)"), ("2", None, "1 | B"), ("4", "ms", "A (ms)")]
    heads = extract("| Run 5 s | B |\n|---|---|\n| x | 6 |\n", "t.md")  # a number in a header cell is stated
    assert [(q.number, q.unit, q.line, q.context) for q in heads] == [("5", "s", 1, ""), ("6", None, 3, "x | B")]
    assert [(q.number, q.unit) for q in extract("| A | B |\n|---|---|\n| x (ms) | 2 |\n", "t")] == [("2", "ms")]  # the row label's unit
    assert ct._header_unit("row (ms) | col") == "ms" and ct._header_unit("row | Mean [%]") == "%" and ct._header_unit("a | b") is None
    assert ct._header_unit("Speed (tokens/s)") == "tokens/s" and ct._header_unit("(foo)") is None


def test_html_blocks_and_rendered_fences_are_stated_text():
    """Kills `_html_segments` (prose lines, caption and headers, row label context, `#line`, the refused block kept whole) and the ```math fence's lines."""
    html = "<details><summary>Run 3 of 4</summary>\n\n<table><caption>Cap 9</caption><tr><th>Arm</th><th>Mean (ms)</th></tr>\n<tr><td>A 1</td><td>5</td></tr></table>\n</details>\n"
    assert [(q.number, q.unit, q.line, q.column, q.context) for q in extract(html, "t")] == [
        ("3", None, 1, 23, ""), ("4", None, 1, 28, ""), ("9", None, 3, 21, ""), ("1", None, 4, 11, "Arm"), ("5", "ms", 4, 21, "A 1 | Mean (ms)")]
    refused = "<div>\n<![ x ]> 12 s\n13 ms\n</div>\n"
    assert [(q.number, q.unit, q.line, q.column) for q in extract(refused, "t")] == [("12", "s", 2, 10), ("13", "ms", 3, 1)]
    assert [(q.number, q.line, q.column) for q in extract("```math\nx = 5\ny = 6\n```\n", "t")] == [("5", 2, 5), ("6", 3, 5)]
    assert extract("```\n14 s\n```\n", "t") == [] and extract("```python\n14 s\n```\n", "t") == []


def test_code_comments_and_link_targets_are_not_claims_inline_breaks_are_lines():
    """Kills `_inline` (softbreak/hardbreak line starts, the code span piece, `html_inline` after a non-blank: `and`, `[-1:]`) and URL masking."""
    text = "Took `12 s` and 13 s.\n\n```\n14 s\n```\n\n    15 s\n\n<!-- 16 s -->\n[17 s](http://x/18)\n"
    assert [(q.number, q.unit, q.line, q.column) for q in extract(text, "t")] == [("13", "s", 1, 17), ("17", "s", 10, 2)]
    assert [(q.number, q.line, q.column) for q in extract("a 5<br>6 b and 7 <b>8</b>", "t")] == [("5", 1, 3), ("6", 1, 8), ("7", 1, 16), ("8", 1, 21)]
    assert [(q.number, q.line, q.column) for q in extract("Line one 1 s\nline two 2 s  \nthree 3 s", "t")] == [("1", 1, 10), ("2", 2, 10), ("3", 3, 7)]
    assert [(q.number, q.line) for q in extract("# Result 5 s\n\n- item 6 ms\n- item 7 %\n", "t")] == [("5", 1), ("6", 3), ("7", 4)]
    assert [(q.number, q.column) for q in extract("See https://x.org/12 and www.a.com/3 then 4 s.", "t")] == [("4", 43)]
    assert [q.before for q in extract("a `x` 5 s", "t")] == ["a \u2039code\u203a "]


def test_sentences_and_pieces_of_an_overlong_sentence():
    """Kills `_split_sentences` and `_pieces`: `<= MAX_SENTENCE_CHARS`, the cut at the last blank, newline or tab (`max`, `start + 1`), a word longer than a piece kept whole."""
    assert ct._split_sentences("One 1 s. Two 2 s!  (Three) 3; four\n\n\nfive 5. lower 6") == [
        (0, "One 1 s."), (9, "Two 2 s!"), (19, "(Three) 3; four"), (37, "five 5. lower 6")]
    assert ct._pieces("a" * 4096) == [(0, "a" * 4096)]
    assert [(o, len(p)) for o, p in ct._pieces("a" * 4096 + " b")] == [(0, 4096), (4096, 2)]
    assert [(o, len(p)) for o, p in ct._pieces("a" * 5000 + " 7 s")] == [(0, 5000), (5000, 4)]
    assert [(o, len(p)) for o, p in ct._pieces("a" * 5000)] == [(0, 5000), (5000, 0)]
    for sep in " \n\t":
        assert [(o, len(p)) for o, p in ct._pieces(f"abc{sep}" * 1100)] == [(0, 4095), (4095, 305)]
    s = "a" * 100 + " " + "b" * 3995 + " " + "c" * 99  # after the first cut, exactly MAX_SENTENCE_CHARS left: one piece
    assert [(o, len(p)) for o, p in ct._pieces(s)] == [(0, 100), (100, 4096)]
    assert [(o, len(p)) for o, p in ct._pieces("ab\ncd " * 700)][0] == (0, 4094)  # the last of blank and newline before the cut
    s = "w " * 2047 + "5 s"
    assert [(q.number, q.start, len(q.sentence)) for q in extract(s, "t")] == [("5", 4094, 4095)]
    s = "w " * 2046 + "5 s"
    assert [(q.number, q.start, len(q.sentence)) for q in extract(s, "t")] == [("5", 4092, 4095)]


def test_a_limit_stops_reading_after_one_number_too_many():
    """Kills `limit` (`is not None and`, `len(found) + len(raw) > limit`, the `break` and the `return` after a segment)."""
    assert [q.number for q in extract("1 2 3 4 5", "t", limit=2)] == ["1", "2", "3"]
    assert [q.number for q in extract("1 2\n\n3 4\n\n5", "t", limit=2)] == ["1", "2", "3"]
    assert [q.number for q in extract("1 2\n\n3 4\n\n5", "t", limit=3)] == ["1", "2", "3", "4"]
    assert len(extract("1 2 3", "t")) == 3 and len(extract("1 2 3", "t", limit=3)) == 3


def test_read_claim_text_refuses_with_one_line_naming_the_file():
    """Kills `read_claim_text`: each refusal and its message, the BOM dropped, `> MAX_QUANTITIES` (2000 read, 2001 refused), `not any(... is None)`."""
    assert read_claim_text(b"\xef\xbb\xbf5 s", "x.md") == "5 s"
    refused = {b"ab\xff5": "x.md: claim text is not UTF-8 (byte 0xff at offset 2)", b"  \n": "x.md: claim text is empty",
               b"5 s\x00": "x.md: claim text holds a NUL character, so it is not text",
               b"see `5 s` and 2026-01-02": "x.md: claim text states no number outside code spans, URLs and identifiers, so there is nothing to check",
               ("1 " * 2001).encode(): "x.md: claim text states more than the 2000 numbers a claim text may state"}
    for data, message in refused.items():
        with pytest.raises(ClaimTextError) as caught:
            read_claim_text(data, "x.md")
        assert str(caught.value) == message
    assert read_claim_text(("1 " * 2000).encode(), "x.md") == "1 " * 2000
    assert read_claim_text(b"on 2026-01-02 took 5 s", "x.md") == "on 2026-01-02 took 5 s"
    assert ct.MAX_QUANTITIES == 2000


class _Cache:
    """A stand-in for `verifier.cache.warm.Cache`: entries given are an earlier run's, entries stored are this run's (`result` -> `(value, earlier)`)."""

    def __init__(self, earlier: dict | None = None):
        self.earlier, self.now = dict(earlier or {}), {}

    def result(self, key: str):
        if key in self.now:
            return self.now[key], False
        return (self.earlier[key], True) if key in self.earlier else None

    def store_result(self, key: str, value) -> None:
        self.now[key] = value


def test_a_warm_cache_gives_the_segments_of_an_earlier_run():
    """Kills `_segments`: `cache is not None`, `found is not None`, the reuse flag (`earlier and reused is not None`), the foreign entry parsed again, `key is not None` on store."""
    text = "Took 5 s\nand 6 ms"
    cold, reused = _Cache(), set()
    assert [(q.number, q.line, q.column) for q in extract(text, "a.md", cache=cold, reused=reused)] == [("5", 1, 6), ("6", 2, 5)]
    assert reused == set() and list(cold.now.values()) == [[["Took 5 s\nand 6 ms", 1, "", [9]]]]
    extract(text, "b.md", cache=cold, reused=reused)  # stored this run: no earlier run's parse
    assert reused == set()
    warm, reused = _Cache(cold.now), set()
    assert [(q.number, q.line, q.column) for q in extract(text, "c.md", cache=warm, reused=reused)] == [("5", 1, 6), ("6", 2, 5)]
    assert reused == {"c.md"} and warm.now == {}
    key = next(iter(cold.now))
    stored = _Cache({key: [["Took 9 s", "4", "", ["1"]]]})  # what the entry says is what is read (its numbers as text too)
    assert [(q.number, q.line) for q in extract(text, "d.md", cache=stored)] == [("9", 5)]  # line 4 of the entry, past its line start at 1
    foreign, reused = _Cache({key: [["x"]]}), set()
    assert [(q.number, q.line) for q in extract(text, "e.md", cache=foreign, reused=reused)] == [("5", 1), ("6", 2)] and reused == set()
    assert list(foreign.now.values()) == [[["Took 5 s\nand 6 ms", 1, "", [9]]]]
    assert extract(text, "f.md", reused=reused) and reused == set()


def test_columns_of_a_number_on_its_source_line():
    """Kills `_column`: `1 <= line <= len(lines)`, the line start (`s <= absolute`), `within - 8`, the fallback `find` and its `>= 0`."""
    assert ct._column(["abc"], 2, "5", "", 0, []) == 1 and ct._column(["abc"], 0, "5", "", 0, []) == 1
    assert ct._column(["787"], 1, "7", "", 0, []) == 1 and ct._column(["x7a7b"], 1, "7", "", 9, []) == 2  # the fallback find, 8 characters back
    assert ct._column(["abc"], 1, "7", "", 0, []) == 1  # on the line, but not found there at all
    assert ct._column(["a5b"], 1, "5", "", 0, []) == 2 and ct._column(["A2 2"], 1, "2", "", 3, []) == 4
    assert ct._column(["x", "ab 7"], 2, "7", "x\nab 7", 5, [2]) == 4
    assert ct._column(["a7 7x"], 1, "7", "", 4, []) == 4  # no lone 7 at or after: the first 7 at or after the place
    assert ct._column(["1 2 3 4 5 6 7 8 9 1"], 1, "1", "", 18, []) == 19
    assert ct._column(["1 2 3 4 5 6 7 8 9 1"], 1, "1", "", 10, []) == 19


def test_quantity_shows_its_number_its_words_and_its_place():
    """Kills `Quantity.stated` (unit or not), `words` (context first), `where`."""
    q = extract("It took 7 s", "t.md")[0]
    assert (q.stated, q.words, q.where()) == ("7 s", " it took  ", "t.md:1:9")
    assert extract("It took 7 here", "t.md")[0].stated == "7"
    assert extract("Took 7 times", "t.md")[0].stated == "7 x"
    assert Decimal(extract("a 1,234.5 s", "t")[0].value) == Decimal("1234.5") and extract("a 1,234.5 s", "t")[0].number == "1,234.5"


def test_a_quantity_is_immutable_and_hashable_and_starts_at_index_zero():
    """Kills `@dataclass(frozen=True)` -> `frozen=False` (assignable, unhashable) and the `index`/`start` defaults (`0` -> `1`)."""
    import dataclasses

    q = extract("It took 7 s", "t.md")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.value = Decimal(8)  # type: ignore[misc]
    assert len({q, dataclasses.replace(q)}) == 1
    bare = ct.Quantity(value=Decimal(7), number="7", unit="s", phrase=None, before="", after="", noun="", sentence="7 s", source="t", line=1, column=1)
    assert (bare.index, bare.start, bare.role, bare.partner, bare.informational, bare.context, bare.tail) == (0, 0, None, None, None, "", "")


def test_more_boundaries_of_units_identifiers_tables_and_positions():
    """
    Kills, in `_unit_after`, the first word of a two-word candidate (`not` added); `len(word) < 7` -> `< 6` of an exponent word;
    the table header unit only for a cell stating none (`and` -> `or`); `_pair`'s `continue` after a pair with no arrow (-> `break`);
    the clause bound `+ 240` -> `+ 239`; `_column`'s fallback `within - 8` -> `- 9`; a tag right after a one-character piece
    (`[-1:]` -> `[+1:]`); the piece offset `s + at` (-> `-`) on a later line; the cut at a newline or tab right after the last cut
    (`start + 1` -> `+ 2`).
    """
    assert [(q.number, q.unit) for q in extract("3 tokens / foo and 4 GB of", "t")] == [("3", "tokens"), ("4", "GB")]
    assert [(q.number, q.informational, str(q.value)) for q in extract("A 12e456 here", "t")] == [("12e456", None, "1.2E+457")]
    assert [(q.number, q.unit, q.context) for q in extract("| A | Mean (s) |\n|---|---|\n| x | 5 ms |\n", "t")] == [("5", "ms", "x | Mean (s)")]
    assert [(q.number, q.role) for q in extract("took 5 s and 6 s -> 7 s", "t")] == [("5", None), ("6", "from"), ("7", "to")]
    assert [q.tail for q in extract("Got 3 " + "a" * 238 + ", b", "t")] == ["a" * 238]  # the comma 239 characters on ends the clause
    assert ct._column(["x7ab7b"], 1, "7", "", 10, []) == 5
    assert [q.number for q in extract("5<b>6</b> s", "t")] == ["5", "6"]
    assert [(q.number, q.line, q.column) for q in extract(("w " * 1000 + "\n") * 3 + "5 s", "t")] == [("5", 4, 1)]
    for sep in " \n\t":
        s = "a" * 4095 + " " + sep + "b" * 5000 + " c"
        assert [(o, len(p)) for o, p in ct._pieces(s)] == [(0, 4095), (4095, 1), (4096, 5001), (9097, 2)]
    assert [(q.number, str(q.value)) for q in extract("-0.5 s and \u22120.5 s and -2 s", "t")] == [("-0.5", "-0.5"), ("-0.5", "-0.5"), ("-2", "-2")]  # a sign under 1
    assert ct._column(["7 abcdef 7"], 1, "7", "", 9, []) == 10 and ct._column([" 7 abcdefg 7"], 1, "7", "", 9, []) == 2  # the line starts at 0
    assert ct._column(["x", "7" + " x" * 10 + " 7"], 2, "7", "", 21, [21]) == 1  # a number right at a line start: that line's start
    assert [(q.number, q.line, q.column) for q in extract("a" * 20 + "\n7" + " x" * 10 + " 7", "t")] == [("7", 2, 1), ("7", 2, 23)]
    assert [(q.number, q.informational) for q in extract("took 1e2 s then 1234567abc", "t")] == [("1e2", None), ("1234567abc", "commit")]  # words after it
    assert [q.number for q in extract("a `c`5<b>6</b>", "t")] == ["5", "6"]  # the last piece before the tag, not the first


def test_arrows_chain_tags_first_and_the_unit_window():
    """
    Kills `_pair`'s `a.get("role") or b.get("role")` (-> `and`: a `to` end paired again), the `continue` after a `to` with no `from` and after
    incompatible units (-> `break`); `_inline`'s `html_inline and parts` when the tag comes first (-> `or`: an empty list indexed);
    the unit window `+ 64` of `extract` (`+ 63`, `+ 65`); `_column`'s `1 <= line` and its 8-character slack (`within - 7`, `- 9`).
    """
    assert [(q.number, q.role, q.partner) for q in extract("3 -> 4 -> 5 s", "t")] == [("3", "from", 1), ("4", "to", 0), ("5", None, None)]
    for text in ("went to 5 s to 6 s and 7 s -> 8 s", "5 s => 6 % and 7 s -> 8 s"):
        assert [(q.number, q.role) for q in extract(text, "t")] == [("5", None), ("6", None), ("7", "from"), ("8", "to")], text
    assert [(q.number, q.unit) for q in extract("<b>5</b> s", "t")] == [("5", "s")]
    assert [(q.number, q.unit) for q in extract("took 5" + " " * 63 + "s", "t")] == [("5", "s")]
    assert [(q.number, q.unit) for q in extract("took 5" + " " * 64 + "s", "t")] == [("5", None)]
    assert ct._column(["a", "x 5"], 0, "5", "", 0, []) == 1
    assert ct._column(["7 abcdef 7"], 1, "7", "", 8, []) == 1 and ct._column(["7 abcdefg 7"], 1, "7", "", 9, []) == 11
    assert [(q.number, q.unit) for q in extract("5 GB per foo", "t")] == [("5", None)]  # a rate per no known unit is no GB (`" " in ... and " per " not in`)
