"""
Mutation testing of our own (issue 14): AST mutants of one module, each run against the tests mapped to it.

Usage (from the repository root):
    .venv/bin/python tools/mutate.py MODULE [MODULE ...] [--max N] [--seed S] [--list] [--lines L1,L2]

For each MODULE (a key of `TESTS`, e.g. `verifier/stats.py`) every mutation
site is enumerated (operators below), a deterministic sample of at most N
(default 40) is drawn with seed S, and each mutant is written into a private
copy of the repository (the working tree is never touched) where
`pytest -x -q` runs only the test files mapped to the module. A mutant is
killed when that run fails or exceeds 4x the clean run's time; survivors are
printed with their line and change. `--list` prints the sites only.

Operators: comparison swaps (`<` `<=`, `>` `>=`, `==` `!=`, `in` `not in`,
`is` `is not`), `and` <-> `or`, arithmetic swaps (`+` `-`, `*` `/`, `//`
`/`), an integer constant `n` -> `n + 1`, `True` <-> `False`, an `if`
condition negated, `not x` -> `x`, a `return`/`yield`/`raise`/`continue`
removed (replaced by `pass`), and `max` <-> `min`. Strings (messages,
codes) and docstrings are never mutated.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Module -> the test files that exercise it (chosen so one mutant costs seconds, not minutes).
TESTS: dict[str, list[str]] = {
    "verifier/stats.py": ["tests/test_mutation_kills.py", "tests/test_properties.py", "tests/test_field_failures.py"],
    "verifier/jsonio.py": ["tests/test_mutation_kills.py", "tests/test_hostile_repro.py"],
    "verifier/checks/gate.py": ["tests/test_mutation_kills.py"],
    "verifier/checks/quality.py": ["tests/test_mutation_kills.py"],
    "verifier/checks/plan.py": ["tests/test_mutation_kills.py", "tests/test_field_failures.py"],
    "verifier/checks/integrity.py": ["tests/test_mutation_kills.py", "tests/test_manifest.py"],
    "verifier/checks/derivation.py": ["tests/test_mutation_kills.py", "tests/test_field_failures.py"],
    "verifier/adapters/vllm_bench.py": ["tests/test_vllm_bench.py"],
    "verifier/checks/profile_base.py": ["tests/test_profile_hyperfine.py"],
}

SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                ids.add(id(first))
    return ids


def sites(tree: ast.AST) -> list[tuple[int, str, int]]:
    """Return `(node index in ast.walk order, operator, line)` for every mutation site of `tree`."""
    out = []
    skip = _docstrings(tree)
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    for i, node in enumerate(ast.walk(tree)):
        if id(node) not in in_function or id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            out += [(i, f"cmp{k}", line) for k, op in enumerate(node.ops) if type(op) in SWAPS]
        elif isinstance(node, ast.BoolOp):
            out.append((i, "boolop", line))
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITH:
            out.append((i, "arith", line))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            out.append((i, "const", line))
        elif isinstance(node, ast.If):
            out.append((i, "if-not", line))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((i, "drop-not", line))
        elif isinstance(node, ast.Return | ast.Raise | ast.Continue) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Yield | ast.YieldFrom)):
            out.append((i, "delete", line))
        elif isinstance(node, ast.Name) and node.id in ("max", "min") and isinstance(node.ctx, ast.Load):
            out.append((i, "maxmin", line))
    return out


class _Apply(ast.NodeTransformer):
    def __init__(self, index: int, op: str, order: dict[int, int]) -> None:
        self.index, self.op, self.order = index, op, order

    def visit(self, node: ast.AST) -> ast.AST:  # noqa: C901 - one branch per operator
        if self.order.get(id(node)) != self.index:
            return self.generic_visit(node)
        op = self.op
        if op.startswith("cmp"):
            k = int(op[3:])
            node.ops[k] = SWAPS[type(node.ops[k])]()
        elif op == "boolop":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif op == "arith":
            node.op = ARITH[type(node.op)]()
        elif op == "const":
            node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
        elif op == "if-not":
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif op == "drop-not":
            return node.operand
        elif op == "delete":
            return ast.Pass()
        elif op == "maxmin":
            node.id = "min" if node.id == "max" else "max"
        return node


def mutant(source: str, index: int, op: str) -> str:
    """Return `source` with the mutation `op` applied at node `index` (ast.walk order)."""
    tree = ast.parse(source)
    order = {id(n): i for i, n in enumerate(ast.walk(tree))}
    new = _Apply(index, op, order).visit(copy.copy(tree))
    return ast.unparse(ast.fix_missing_locations(new))


def _copy_repo(dest: Path) -> None:
    for name in ("verifier", "tests", "schemas", "gates", "profiles", "examples"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    for name in ("inventory.json", "pyproject.toml"):
        shutil.copy(ROOT / name, dest / name)


#: Third-party modules imported once in this process, so each forked test run only imports our (mutated) package.
PRELOAD = ("pytest", "hypothesis", "jsonschema", "numpy", "av", "click", "junitparser", "markdown_it", "rfc3339_validator")


def _pytest(repo: Path, tests: list[str], timeout: float) -> tuple[bool, float]:
    """Run `pytest -x -q tests` in `repo` in a forked child (fresh `verifier` import); return (passed, seconds)."""
    start = time.monotonic()
    if not hasattr(os, "fork"):
        try:
            result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests], cwd=repo,
                                    capture_output=True, timeout=timeout)
            return result.returncode == 0, time.monotonic() - start
        except subprocess.TimeoutExpired:
            return False, time.monotonic() - start
    pid = os.fork()
    if pid == 0:  # child: quiet, confined to the copy, exits with pytest's code
        try:
            os.chdir(repo)
            sys.path[:0] = [str(repo), str(repo / "tests")]
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            import pytest

            code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", *tests])
        except BaseException:  # noqa: BLE001 - any failure of the child is a failed run
            code = 99
        os._exit(int(code))
    deadline = start + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0, time.monotonic() - start
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return False, time.monotonic() - start
        time.sleep(0.05)


def main() -> int:
    """Run the mutants of each named module and print per-module and overall scores."""
    parser = argparse.ArgumentParser()
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--max", type=int, default=40)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--lines", help="only sites on these comma-separated lines (re-run survivors after new tests)")
    args = parser.parse_args()
    total = killed_total = 0
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    assert not [m for m in sys.modules if m == "verifier" or m.startswith("verifier.")], "verifier must be imported per run"
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        repo = Path(tmp)
        _copy_repo(repo)
        for module in args.modules:
            tests = TESTS[module]
            source = (ROOT / module).read_text()
            found = sites(ast.parse(source))
            if args.lines:
                found = [site for site in found if site[2] in {int(n) for n in args.lines.split(",")}]
            chosen = sorted(random.Random(args.seed).sample(found, min(args.max, len(found))), key=lambda s: s[2])
            if args.list:
                for index, op, line in chosen:
                    print(f"{module}:{line} {op}")
                continue
            ok, clean = _pytest(repo, tests, 1800)
            if not ok:
                print(f"{module}: the mapped tests fail without any mutant; fix them first")
                return 2
            killed, survivors = 0, []
            for index, op, line in chosen:
                (repo / module).write_text(mutant(source, index, op))
                passed, _ = _pytest(repo, tests, max(60.0, 4 * clean))
                killed += not passed
                if passed:
                    survivors.append(f"{module}:{line} {op}")
                    print(f"  survived {module}:{line} {op}", flush=True)
            (repo / module).write_text(source)
            total += len(chosen)
            killed_total += killed
            print(f"{module}: {killed}/{len(chosen)} killed ({100 * killed / max(1, len(chosen)):.0f} %) of {len(found)} sites; "
                  f"clean run {clean:.1f} s", flush=True)
    if total:
        print(f"overall: {killed_total}/{total} killed ({100 * killed_total / total:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
