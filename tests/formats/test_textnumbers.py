"""
`verifier.formats.textnumbers.numbers_in` pinned by examples (input -> every `(start, end, number, unit)` written out) and by properties.

Properties (hypothesis): the numbers found are in order and do not overlap;
each one's span is a stated quantity that `quantity` reads back as the same
number and unit; no number is glued to a word, a dot or an underscore before
it; a text without a digit states none; numbers written between words are
all found, in order.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.model import units
from verifier.formats.textnumbers import numbers_in, quantity

#: Real strings of the corpus (MLPerf paths, accuracy lines, system descriptions, memory cells) and edge cases: the
#: numbers each states, as `(start, end, number as text, unit)`.
EXAMPLES = [
    ("./open/MLCommons/results/gh_action-reference-cpu-pytorch_v2.6.0-default_config/mixtral-8x7b/offline/performance/run_1", []),
    ("ROUGE1: 31.4286  ROUGE2: 5.8824  ROUGEL: 28.5714  TOKENS_PER_SAMPLE: 152.0  gsm8k_accuracy: 100.0  mbxp_accuracy: 0.0",
     [(8, 15, "31.4286", None), (25, 31, "5.8824", None), (41, 48, "28.5714", None), (69, 74, "152.0", None), (92, 97, "100.0", None),
      (114, 117, "0.0", None)]),
    ("AMD EPYC 7763 64-Core Processor", [(9, 13, "7763", None), (14, 16, "64", None)]),
    ("Ubuntu 24.04 (linux-6.11.0-1018-azure-glibc2.39)", [(7, 12, "24.04", None), (27, 31, "1018", None)]),
    ("v5.0", []), ("fp32", []), ("ConvRot-256", []), ("W8A8", []), ("3em", []), ("l0_9", []), ("2026.09.14", []), ("a-5", []),
    (" (darwin-24.6.0)", []), ("é7 ms", []), ("7é", []), (".5", []), ("_5", []), ("5_", []), ("", []), ("no number", []),
    ("mAP: 49.593", [(5, 11, "49.593", None)]),
    ("CLIP_SCORE: 16.368897303938866  FID_SCORE: 237.82578527053812", [(12, 30, "16.368897303938866", None), (43, 61, "237.82578527053812", None)]),
    ("18,812 MiB (32.1%)", [(0, 10, "18812", "MiB"), (12, 17, "32.1", "%")]),
    ("144 VAE decoder linears", [(0, 3, "144", None)]),  # "VAE" is no unit `verifier.model.units` knows
    ("0-9", [(0, 1, "0", None), (2, 3, "9", None)]),
    ("3-5", [(0, 1, "3", None), (2, 3, "5", None)]),
    ("-5 and +3", [(0, 2, "-5", None), (7, 9, "3", None)]),  # a sign after a blank or at the start belongs to the number
    ("x -5", [(2, 4, "-5", None)]),
    ("x\t-5", [(2, 4, "-5", None)]),
    ("x(-5)", [(3, 4, "5", None)]),  # a sign not after a blank is not the number's
    ("0", [(0, 1, "0", None)]),
    ("-0.5e3%", [(0, 7, "-5E+2", "%")]),
    ("12 ms/token", [(0, 11, "12", "ms/token")]),
    ("1,234,567.5 s", [(0, 13, "1234567.5", "s")]),
    ("1,23 x", [(0, 1, "1", None), (2, 6, "23", "x")]),  # a comma not before three digits separates two numbers
    ("1,2345", [(0, 1, "1", None), (2, 6, "2345", None)]),
    ("12,345,67", [(0, 6, "12345", None), (7, 9, "67", None)]),
    ("\u0663 ms", [(0, 4, "3", "ms")]),  # an Arabic-Indic digit
    ("5 µs", [(0, 4, "5", "µs")]),
    ("5 µs later", [(0, 4, "5", "µs")]),
    ("10 × 3", [(0, 4, "10", "×"), (5, 6, "3", None)]),
    ("x\u00a05", [(2, 3, "5", None)]),
    ("10⁻³ s", []), ("(117.88)⁻¹", []),  # a superscript exponent: not the plain number
    ("x " * 200 + "took 5 ms", [(405, 409, "5", "ms")]),
]


@pytest.mark.parametrize("text, expected", EXAMPLES, ids=[repr(t[:40]) for t, _ in EXAMPLES])
def test_the_numbers_each_example_states(text, expected):
    assert [(start, end, str(number), unit) for start, end, number, unit in numbers_in(text)] == expected


#: Characters around and inside numbers: digits, signs, separators, exponents, units, names, blanks of several kinds.
TEXTS = st.lists(st.sampled_from(["0", "1", "7", "12", "3.5", "1,234", "e3", "E-2", ".", ",", "-", "+", " ", "  ", "_", "a", "x", "ms",
                                  "MiB", "%", "/", "(", ")", ":", "v", "\t", "\n", "é", "\u0663", "µs", "\u00a0", "\u2028", "⁻", "×", "#"]),
                 max_size=14).map("".join) | st.text(max_size=20)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
@example("-5 and +3")
@example("12 ms/token 1,234 MiB")
def test_numbers_are_in_order_apart_and_read_back_from_their_spans(text):
    found = numbers_in(text)
    ends = [0]
    for start, end, number, unit in found:
        assert ends[-1] <= start < end <= len(text)  # in order, not overlapping
        ends.append(end)
        assert quantity(text[start:end]) == (number, unit)  # the span is the number (and its unit) as written
        assert unit is None or units.known(unit)
        assert start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "._")  # not glued to a name before it
    if not any(c.isdigit() for c in text):
        assert found == []


@settings(max_examples=500, deadline=None)
@given(st.lists(st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-10**9, max_value=10**9), min_size=1, max_size=5),
       st.sampled_from([" and ", ", ", "; ", " | ", " or "]), st.sampled_from(["", " ms", " MiB", "%"]))
def test_numbers_written_between_words_are_all_found_in_order(numbers, between, unit):
    text = "took " + between.join(f"{n}{unit}" for n in numbers) + " in all"
    found = numbers_in(text)
    assert [n for _s, _e, n, _u in found] == numbers
    assert all(u == (unit.strip() or None) for _s, _e, _n, u in found)
