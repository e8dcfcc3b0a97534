"""`textnumbers.numbers_in` skips an ASCII text to its first possible number start (`_STARTS`): pinned equal to the full scan it replaced."""

from __future__ import annotations

import random
import re
from decimal import Decimal, InvalidOperation

from verifier import textnumbers, units
from verifier.textnumbers import numbers_in

_DIGIT = re.compile(r"\d")


def _numbers_in_as_it_was(text: str) -> list[tuple[int, int, Decimal, str | None]]:
    """The former `numbers_in`: a digit search, then `_EMBEDDED` over the whole text."""
    if not _DIGIT.search(text):
        return []
    out = []
    for m in textnumbers._EMBEDDED.finditer(text):
        word = m["unit"]
        if word is not None and m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] == "_"):
            word = None
        unit = word if word is not None and units.known(word) else None
        end = m.end() if unit is not None else m.end("number")
        if unit is None and end < len(text) and (text[end].isalnum() or text[end] == "_"):
            continue
        try:
            number = Decimal(m["number"].replace(",", ""))
        except InvalidOperation:
            continue
        out.append((m.start("number"), end, number, unit))
    return out


REAL = [
    "./open/MLCommons/results/gh_action-reference-cpu-pytorch_v2.6.0-default_config/mixtral-8x7b/offline/performance/run_1",
    "ROUGE1: 31.4286  ROUGE2: 5.8824  ROUGEL: 28.5714  TOKENS_PER_SAMPLE: 152.0  gsm8k_accuracy: 100.0  mbxp_accuracy: 0.0",
    "AMD EPYC 7763 64-Core Processor", "Ubuntu 24.04 (linux-6.11.0-1018-azure-glibc2.39)", "v5.0", "fp32", "mAP: 49.593",
    "CLIP_SCORE: 16.368897303938866  FID_SCORE: 237.82578527053812", "18,812 MiB (32.1%)", "144 VAE decoder linears",
    "ConvRot-256", "W8A8", "3em", "0-9", "l0_9", "2026.09.14", "-5 and +3", "x -5", "a-5", "3-5", " (darwin-24.6.0)", "0", "-0.5e3%",
    "12 ms/token", "1,234,567.5 s", "1,23 x", "٣ ms", "5 µs", "10 × 3", "x\u00a05", "é7 ms", "7é", ".5", "_5", "5_",
]


def test_real_and_edge_cells_read_as_before():
    for text in REAL:
        assert numbers_in(text) == _numbers_in_as_it_was(text), text


def test_random_cells_read_as_before():
    rng = random.Random(11)
    pieces = ["0", "1", "7", "12", "3.5", "1,234", "e3", "E-2", ".", ",", "-", "+", " ", "  ", "_", "a", "x", "ms", "MiB", "%", "/", "(", ")",
              ":", "v", "\t", "\n", "é", "٣", "µs", "\u00a0", "\u2028", "#", "~"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        assert numbers_in(text) == _numbers_in_as_it_was(text), repr(text)
    for _ in range(5000):  # every ASCII character before and after a number
        text = "".join(rng.choice([chr(rng.randrange(128)), rng.choice(pieces[:6])]) for _ in range(rng.randrange(0, 10)))
        assert numbers_in(text) == _numbers_in_as_it_was(text), repr(text)
