"""`Tree.glob` (a literal pattern looked up, a wildcard one tried on paths with its literal start and end) selects exactly what its regex (`glob_regex`) fully matches."""

from __future__ import annotations

import random
from pathlib import Path

from verifier.readers.tree import Tree, _glob_parts, glob_regex

PIECES = ["a", "b", "ab", ".", "/", "*", "?", "**/", "**", ".json", "[", "x/", "a/", "\\", "é", "\n"]


def _pattern(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


def _path(rng: random.Random) -> str:
    return "/".join("".join(rng.choice(["a", "b", "ab", ".json", ".", "x", "[", "é", "\\", "*", "?"]) for _ in range(rng.randint(1, 3)))
                    for _ in range(rng.randint(1, 4)))


def test_glob_selects_what_the_regex_fully_matches_on_random_patterns_and_paths():
    rng = random.Random(20)
    for _ in range(3000):
        files = {_path(rng) for _ in range(rng.randint(0, 12))}
        patterns = [_pattern(rng) for _ in range(3)] + [rng.choice(sorted(files))] if files else [_pattern(rng)]
        for pattern in patterns + [p.replace("*", "") for p in patterns]:
            regex = glob_regex(pattern)
            expected = [f for f in sorted(files) if regex.fullmatch(f)]
            assert Tree(root=Path("/nonexistent"), only=frozenset(files)).glob(pattern) == expected, (pattern, files)
            head, tail, compiled = _glob_parts(pattern)
            assert all(f.startswith(head) and f.endswith(tail) for f in expected), (pattern, head, tail)


def test_glob_of_a_walked_tree_is_the_regex_selection_and_stays_so_when_asked_again(tmp_path):
    for rel in ["a.json", "d/a.json", "d/e/b.json", "d/e/b.jsonx", ".hidden.json", "d/.h/c.json", "summary.json", "x/summary.json"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    tree = Tree(root=tmp_path)
    for pattern in ["**/*.json", "*.json", "summary.json", "d/**/b.json", "**/summary.json", "d/e/b.json", "nope.json", "d/?/b.json", "d/*/b.json*"]:
        expected = [f for f in tree.files() if glob_regex(pattern).fullmatch(f)]
        assert tree.glob(pattern) == expected == tree.glob(pattern), pattern
