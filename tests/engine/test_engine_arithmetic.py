"""
Every comparison of a stated or recorded number with a derived one goes through the engine (`stats.compare`/`tolerance`).

An AST scan of the package outside the engine modules (`stats.py`, `estimators.py`, `derive.py`,
`units.py`) for the shapes a hand-made derivation or tolerance takes:

- `context-arith`: `CONTEXT.divide(...)` / `.multiply` / `.subtract` / `.add` /
  `.sqrt` (Decimal arithmetic in the engine's context);
- `half_unit`: a call of `half_unit` (the start of a tolerance);
- `abs-diff-compare`: `abs(a - b) <= x` (or `<`, `>`, `>=`): a hand-rolled tolerance test;
- `tolerance-arith`: a name holding `tol` assigned the result of arithmetic.

What must stay is listed in `ALLOWED` with how many times and why; a new
occurrence, or one gone from a listed place, fails (keep the list true).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent.parent / "verifier"
ENGINE = {"engine/stats.py", "engine/estimators.py", "engine/derive.py", "model/units.py"}
_ARITH = {"divide", "multiply", "subtract", "add", "sqrt", "power", "fma"}

_CONVERSION = "converts a number read from a file into the base unit of its dimension (the unit registry's exact scale): reading, no comparison"
_MEDIA = "media timeline positions (pts, samples) against the gate's coverage tolerances (docs/coverage.md): not a stated number against a derivation"
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("adapters/telemetry.py", "half_unit"): (1, "the rate's duration as stdout printed it, handed to stats.compare as `input_error`"),
    ("checks/coverage_rules.py", "abs-diff-compare"): (1, _MEDIA),
    ("discovery/search.py", "half_unit"): (1, "a float pre-screen that only rules out candidates far outside any bound before stats.compare judges the rest: it can leave a number unbound, never bind one"),
    ("checks/profile.py", "context-arith"): (1, _CONVERSION),
    ("checks/profile_claims.py", "context-arith"): (6, "converts a derived value from its base unit to the claim's stated unit before stats.compare (a pure number's factor: 1, x or % with 100); "
                                                       "and a claim's `times`: the derived value times the factor the bundle states (MLPerf Training's scaling_factor)"),
    ("media/demux.py", "abs-diff-compare"): (2, _MEDIA),
    ("commands/profile_check.py", "abs-diff-compare"): (1, "a hint of `verify profile check` on claims that already FAILed stats.compare: whether stated and derived are a factor of 100 apart (a `%` unit for `x`); it judges nothing"),
    ("readers/pointers.py", "context-arith"): (1, "reads a rational string such as \"24/1\" as its number"),
    ("readers/records.py", "context-arith"): (4, _CONVERSION + "; and a mapping's `divide_by` (time / iterations) or `subtract` (run_stop - run_start), the value per record a statistic then takes"),
    ("scorers/audio.py", "abs-diff-compare"): (1, "sample counts of two audio signals against the scorer's length tolerance: not a stated number"),
}


def _name(node: ast.AST) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def found() -> Counter:
    """Return (module, shape) -> occurrences outside the engine modules."""
    hits: Counter = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ENGINE or "_assets" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr in _ARITH and _name(node.func.value) in ("CONTEXT", "RUN_CONTEXT"):
                    hits[(rel, "context-arith")] += 1
                if _name(node.func) == "half_unit":
                    hits[(rel, "half_unit")] += 1
            elif isinstance(node, ast.Compare):
                left = node.left
                if (isinstance(left, ast.Call) and _name(left.func) == "abs" and left.args and isinstance(left.args[0], ast.BinOp)
                        and isinstance(left.args[0].op, ast.Sub) and isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
                    hits[(rel, "abs-diff-compare")] += 1
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.BinOp):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if "tol" in (_name(target) or "").lower():
                        hits[(rel, "tolerance-arith")] += 1
    return hits


def test_no_arithmetic_or_tolerance_outside_the_engine_but_the_listed():
    hits = found()
    new = {k: n for k, n in hits.items() if n > ALLOWED.get(k, (0, ""))[0]}
    assert not new, f"arithmetic or a tolerance outside the engine (move it into verifier/engine/stats.py, or list it with a reason): {new}"
    stale = {k: (ALLOWED[k][0], hits.get(k, 0)) for k in ALLOWED if hits.get(k, 0) < ALLOWED[k][0]}
    assert not stale, f"ALLOWED lists more than the package holds (keep it true): {stale}"


def test_the_scan_sees_each_shape(tmp_path, monkeypatch):
    (tmp_path / "x.py").write_text("tol = a * 2\nif abs(a - b) <= t:\n    pass\nstats.CONTEXT.divide(a, b)\nhalf_unit(a)\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path)
    assert found() == {("x.py", "tolerance-arith"): 1, ("x.py", "abs-diff-compare"): 1, ("x.py", "context-arith"): 1, ("x.py", "half_unit"): 1}


def test_two_printings_agree_within_half_a_unit_of_the_coarser_place():
    from decimal import Decimal

    from verifier.engine import stats

    assert stats.agree(Decimal("637.54"), Decimal("637.535"))  # LoadGen's summary and its log
    assert stats.agree(Decimal("35342.64"), Decimal("35342.6"))
    assert not stats.agree(Decimal("637.54"), Decimal("637.53"))


def test_spread_and_identity_in_the_engine():
    from decimal import Decimal

    import pytest

    from verifier.engine import stats

    assert stats.spread([Decimal(3), Decimal(1), Decimal(2)]) == (1, 2, 3, 1)
    assert stats.spread([Decimal(0), Decimal(1), Decimal(0)])[3] is None
    left, right, tol = stats.identity("percentage", Decimal("76.000"), [Decimal(380), Decimal(500)], [(Decimal("76.000"), False, None), (Decimal(380), False, None), (Decimal(500), False, None)])
    assert (left, right, tol) == (Decimal("76.000"), 76, Decimal("0.0005"))  # the part and whole are counts: only the percentage's place counts
    assert stats.identity("difference", Decimal("1.5"), [Decimal(3), Decimal("1.5")], [(None, False, None)] * 3)[1:] == (Decimal("1.5"), 0)
    with pytest.raises(stats.Undefined):
        stats.identity("ratio", Decimal(1), [Decimal(1), Decimal(0)], [])
