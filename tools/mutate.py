"""
Mutation testing of our own (issue 14): AST mutants of one module, each run against the tests that execute its line.

Usage (from the repository root, under `nice -n 10`):
    .venv/bin/python tools/mutate.py --map [TEST_FILE ...]
    .venv/bin/python tools/mutate.py MODULE [MODULE ...] | --all  [--max N] [--seed S] [--list] [--lines L1,L2]

`--map` runs the test suite once in a private copy of the repository under
coverage.py, switching the coverage context at every test, and writes
`.mutation/map.json`: for each module of `MODULES`, the sha256 of its source
and, per line, the node ids of the tests that executed it, plus each test's
duration. With test files named, only those are run and their entries
replace the old ones (after writing tests that kill survivors). A module
whose source changed since it was mapped is refused until `--map` is re-run.

A run enumerates every mutation site of each MODULE (operators below),
draws a deterministic sample of at most N (default 25) with seed S, writes
each mutant into the private copy (the working tree is never touched) and
runs `pytest -x` on the tests that executed the mutated statement (every
case of the kill tests and of a test file named after the module first,
then the first case of every other test function before any second one,
the fastest first within each) up to `--budget` mapped seconds of them (default 30; always at
least one), in a forked child that imports the (mutated) package afresh.
A mutant is killed when that run fails (a run that cannot start, e.g. a test module whose import fails under the
mutant so its node ids are not found, only if the same tests pass on the unmutated module), or exceeds 3x the tests' mapped
time (at least 30 s) and then 10x on a second run (a hang, not a loaded
machine: the first timeout alone once counted as a kill, which under load
passed off survivors as kills); a site no test executes survives without a
run ("not covered"). A
survivor listed in `tools/equivalent_mutants.txt` (module, operator and the
statement's source text, with the reason no test can tell it apart) is
counted as equivalent and left out of the score. `--list` prints the sites
only; `--lines` keeps the sites on those lines.

Operators: comparison swaps (`<` `<=`, `>` `>=`, `==` `!=`, `in` `not in`,
`is` `is not`), `and` <-> `or`, arithmetic swaps (`+` `-`, `*` `/`, `//`
`/`), an integer constant `n` -> `n + 1`, `True` <-> `False`, an `if`
condition negated, `not x` -> `x`, a `return`/`yield`/`raise`/`continue`
removed (replaced by `pass`), and `max` <-> `min`, all inside functions.
Strings (messages, codes) and docstrings are never mutated.

Why not mutmut: mutmut 3 never mutates a decorated function (its
`file_mutation.py` skips every `FunctionDef` with a decorator other than
`staticmethod`/`classmethod`), and every check of `verifier/checks/` is the
body of an `@check(...)` function, so the bodies under test get no mutant.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / ".mutation" / "map.json"  # --map-file chooses another
EQUIVALENTS = ROOT / "tools" / "equivalent_mutants.txt"

#: The modules under mutation: every check module, the media facts and policy coverage judges, the statistics and the
#: loaders (issue 14).
MODULES: list[str] = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "verifier" / "checks").glob("*.py")
                            if p.name != "__init__.py") + [
    "verifier/media/demux.py", "verifier/media/policy.py",  # the coverage family's facts and policy (moved out of checks/coverage.py)
    "verifier/stats.py", "verifier/estimators.py", "verifier/numtext.py", "verifier/sweep.py", "verifier/jsonio.py", "verifier/manifest.py", "verifier/readers/manifests.py", "verifier/bundle.py",
    "verifier/profiles.py", "verifier/profile_lint.py", "verifier/markdown.py", "verifier/grammars.py", "verifier/mdtables.py", "verifier/readers/html.py",
    "verifier/readers/markdown_doc.py", "verifier/claimtext.py", "verifier/readers/claimdocs.py", "verifier/readers/rst_doc.py",
    "verifier/profile_check.py"]

#: Test files the map never runs, for their cost: minutes each (a wheel build, pre-commit environments, a browser, a
#: dask cluster, torch), or one test over hundreds of bundles or fuzzed inputs that every mutant would pay in full.
MAP_SKIP = ("tests/test_wheel.py", "tests/test_precommit.py", "tests/test_html_report.py", "tests/test_fanout.py",
            "tests/test_lpips.py", "tests/test_fuzz.py", "tests/test_hostile_corpus.py")

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



def _copy_repo(dest: Path) -> Path:
    """Copy the repository's files (tracked and untracked, not ignored) to `dest/repo`, with `dest/shared` beside it."""
    repo = dest / "repo"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() or source.is_symlink():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name, follow_symlinks=False)
    if (ROOT.parent / "shared").exists():
        (dest / "shared").symlink_to((ROOT.parent / "shared").resolve())
    return repo


#: Third-party modules imported once in this process, so each forked test run only imports our (mutated) package.
PRELOAD = ("pytest", "hypothesis", "jsonschema", "numpy", "av", "click", "junitparser", "markdown_it", "rfc3339_validator",
           "coverage")


def _fork(repo: Path, job, timeout: float) -> tuple[int, float]:
    """Run `job()` (returns an exit code) in a forked child confined to `repo`; return (exit code or -9, seconds)."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child: quiet, confined to the copy
        try:
            # no __pycache__ in the copy: a .pyc is keyed by the source's mtime in whole seconds and its size, so two
            # mutants of one size written within a second could otherwise run the first one's bytecode twice
            sys.dont_write_bytecode = True
            os.chdir(repo)
            sys.path[:0] = [str(repo), str(repo / "tests")]
            if not os.environ.get("MUTATE_VERBOSE"):  # MUTATE_VERBOSE=1 shows each pytest run
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
            code = job()
        except BaseException:  # noqa: BLE001 - any failure of the child is a failed run
            code = 99
        os._exit(int(code))
    deadline = start + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), time.monotonic() - start
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return -9, time.monotonic() - start
        time.sleep(0.05)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_map(repo: Path, files: list[str], map_path: Path = MAP) -> None:
    """Run `files` (default: every test file but `MAP_SKIP`) under coverage in `repo`; merge into `.mutation/map.json`."""
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    chosen = files or sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                             if str(p.relative_to(ROOT)) not in MAP_SKIP)

    def job() -> int:
        import coverage
        import pytest

        cov = coverage.Coverage(data_file=None, include=[str(repo / m) for m in MODULES])
        durations: dict[str, float] = {}

        class Contexts:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_protocol(self, item, nextitem):  # noqa: ARG002 - pytest's hook signature
                cov.switch_context(item.nodeid)
                start = time.monotonic()
                yield
                durations[item.nodeid] = time.monotonic() - start

        cov.start()
        code = pytest.main(["-q", "-p", "no:cacheprovider", *chosen], plugins=[Contexts()])
        cov.stop()
        data = cov.get_data()
        lines = {}
        for module in MODULES:
            by_line = data.contexts_by_lineno(str(repo / module))
            lines[module] = {str(n): sorted(c for c in ctx if c) for n, ctx in by_line.items() if any(ctx)}
        out.write_text(json.dumps({"lines": lines, "durations": durations, "code": int(code)}))
        return 0

    code, seconds = _fork(repo, job, 4 * 3600)
    result = json.loads(out.read_text()) if code == 0 and out.stat().st_size else None
    out.unlink()
    if result is None or result["code"] not in (0, 1):
        sys.exit(f"mutate: the map run failed (child exit {code}, pytest exit {result and result['code']})")
    old = json.loads(map_path.read_text()) if map_path.exists() and files else {"modules": {}, "durations": {}}
    ran = set(result["durations"])
    for module in MODULES:
        entry = old["modules"].get(module, {"sha256": _sha(repo / module), "lines": {}})
        stale = entry["sha256"] != _sha(repo / module)  # lines of a changed module no longer say which test runs what
        keep = {} if stale else {n: [t for t in ts if t.split("::")[0] not in chosen] for n, ts in entry["lines"].items()}
        for n, ts in result["lines"][module].items():
            keep[n] = sorted(set(keep.get(n, [])) | set(ts))
        old["modules"][module] = {"sha256": _sha(repo / module), "lines": {n: ts for n, ts in keep.items() if ts}}
    old["durations"] = {t: d for t, d in old["durations"].items() if t.split("::")[0] not in chosen} | result["durations"]
    map_path.parent.mkdir(exist_ok=True)
    map_path.write_text(json.dumps(old, sort_keys=True))
    print(f"map: {len(ran)} tests from {len(chosen)} files in {seconds:.0f} s (pytest exit {result['code']}) -> {map_path}")


def _statement_lines(tree: ast.AST) -> dict[int, range]:
    """Map each node (by ast.walk index) to the lines of its innermost enclosing statement (the header of a block)."""
    spans: dict[int, range] = {}
    order = {id(n): i for i, n in enumerate(ast.walk(tree))}

    def visit(node: ast.AST, span: range) -> None:
        if isinstance(node, ast.stmt):
            compound = any(isinstance(getattr(node, f, None), list) and getattr(node, f) and
                           isinstance(getattr(node, f)[0], ast.stmt) for f in ("body", "orelse", "finalbody", "handlers"))
            end = node.lineno if compound else (node.end_lineno or node.lineno)
            span = range(node.lineno, end + 1)
        spans[order[id(node)]] = span
        for child in ast.iter_child_nodes(node):
            visit(child, span)

    visit(tree, range(0))
    return spans


def _near(module: str, test: str) -> bool:
    """Is `test` written for `module`: the kill tests, or a test file named after a word of the module's name?"""
    name = test.split("::")[0]
    if name.startswith("tests/test_mutation_kills"):
        return True
    return any(len(word) >= 4 and word[:5] in Path(name).stem for word in Path(module).stem.split("_"))


def _ordered(module: str, tests: set[str], durations: dict[str, float]) -> list[str]:
    """
    Order covering tests: every case of the near tests (a kill test's cases are its boundaries), then the first
    case of every other test function before any second one; fast first within each.
    """
    seen: dict[str, int] = {}
    rank = {}
    for t in sorted(tests, key=lambda t: (not _near(module, t), durations.get(t, 60.0), t)):
        function = t.split("[")[0]
        rank[t] = 0 if _near(module, t) else seen.get(function, 0)
        seen[function] = rank[t] + 1
    return sorted(tests, key=lambda t: (rank[t], not _near(module, t), durations.get(t, 60.0), t))


def _equivalents() -> dict[tuple[str, str, str], str]:
    """Read `tools/equivalent_mutants.txt`: `module | operator | statement source | reason` per line."""
    found = {}
    if EQUIVALENTS.exists():
        for raw in EQUIVALENTS.read_text().splitlines():
            if raw.strip() and not raw.startswith("#"):
                module, op, rest = (part.strip() for part in raw.split(" | ", 2))
                text, reason = (part.strip() for part in rest.rsplit(" | ", 1))  # the text may hold " | ", the reason not
                found[(module, op, text)] = reason
    return found


def main() -> int:  # noqa: C901 - one loop over modules and mutants, with its tallies
    """Build the map, or run the sampled mutants of each named module and print per-module and overall scores."""
    parser = argparse.ArgumentParser()
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--all", action="store_true", help="every module of MODULES")
    parser.add_argument("--map", action="store_true", help="(re)build the line -> tests map; modules name test files")
    parser.add_argument("--max", type=int, default=25)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--map-file", type=Path, default=MAP,
                        help="the map to build or use (e.g. one of the kill tests alone, to re-run survivors against them)")
    parser.add_argument("--budget", type=float, default=30.0,
                        help="mapped seconds of covering tests a mutant runs at most (at least one test)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--lines", help="only sites on these comma-separated lines (re-run survivors after new tests)")
    args = parser.parse_args()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    assert not [m for m in sys.modules if m == "verifier" or m.startswith("verifier.")], "verifier must be imported per run"
    equivalents = _equivalents()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        repo = _copy_repo(Path(tmp))
        if args.map:
            build_map(repo, args.modules, args.map_file.resolve())
            return 0
        mapping = json.loads(args.map_file.read_text()) if args.map_file.exists() else {"modules": {}, "durations": {}}
        durations = mapping["durations"]
        for module in (MODULES if args.all else args.modules):
            source = (repo / module).read_text()  # the copy: one snapshot of the tree for the whole run
            entry = mapping["modules"].get(module)
            if not args.list and (entry is None or entry["sha256"] != _sha(repo / module)):
                print(f"{module}: changed since it was mapped; run `tools/mutate.py --map` first")
                return 2
            tree = ast.parse(source)
            spans = _statement_lines(tree)
            lines_of = source.splitlines()
            found = sites(tree)
            if args.lines:
                found = [site for site in found if site[2] in {int(n) for n in args.lines.split(",")}]
            chosen = sorted(random.Random(args.seed).sample(found, min(args.max, len(found))), key=lambda s: s[2])
            if args.list:
                for index, op, line in chosen:
                    print(f"{module}:{line} {op}")
                continue
            killed, equivalent, trimmed, survivors, began = 0, 0, 0, [], time.monotonic()
            for index, op, line in chosen:
                span = spans[index]
                covering = _ordered(module, {t for n in span for t in entry["lines"].get(str(n), [])}, durations)
                tests = [t for k, t in enumerate(covering)
                         if k == 0 or sum(durations.get(u, 60.0) for u in covering[:k + 1]) <= args.budget]
                trimmed += len(tests) < len(covering)
                text = " ".join(lines_of[n - 1].strip() for n in span)
                if tests:
                    (repo / module).write_text(mutant(source, index, op))
                    budget = max(30.0, 3 * sum(durations.get(t, 60.0) for t in tests))
                    run = lambda tests=tests: __import__("pytest").main(["-x", "-q", "-p", "no:cacheprovider", *tests])  # noqa: E731
                    code, seconds = _fork(repo, run, budget)
                    if code == -9:  # over time: a hang, or only a machine under load? once more with 10x the allowance
                        code, seconds = _fork(repo, run, 10 * budget)
                        print(f"  {'killed (timeout twice)' if code == -9 else 're-run after a timeout'} {module}:{line} {op}: "
                              f"{seconds:.0f} s, pytest exit {code}", flush=True)
                    (repo / module).write_text(source)
                    if code in (3, 4, 5, 99):  # internal error, node id not found, no tests: a kill only if the mutant did it
                        clean, _ = _fork(repo, run, 10 * budget)  # the same tests on the unmutated module
                        if clean == 0:  # e.g. a test module's import fails under the mutant, so its node ids are not found
                            print(f"  killed (the mutant breaks the run: pytest exit {code}, 0 without it) {module}:{line} {op}",
                                  flush=True)
                            code = 1
                        else:
                            print(f"  broken run (pytest exit {code}, {clean} without the mutant) {module}:{line} {op}", flush=True)
                    if code not in (0, 3, 4, 5, 99):
                        killed += 1
                        continue
                why = ("passed" if len(tests) == len(covering) else f"passed {len(tests)} of {len(covering)} covering tests"
                       ) if tests else "not covered"
                if (module, op, text) in equivalents:
                    equivalent += 1
                    print(f"  equivalent {module}:{line} {op}: {equivalents[(module, op, text)]}", flush=True)
                else:
                    survivors.append((line, op, why, text))
                    print(f"  survived ({why}) {module}:{line} {op}: {text[:110]}", flush=True)
            scored = len(chosen) - equivalent
            rows.append((module, len(found), len(chosen), killed, equivalent))
            print(f"{module}: {killed}/{scored} killed ({100 * killed / max(1, scored):.0f} %), {equivalent} equivalent, "
                  f"of {len(found)} sites; {trimmed} ran only part of their covering tests; {time.monotonic() - began:.0f} s",
                  flush=True)
    if rows:
        print("\n| module | sites | mutants run | killed | equivalent | score |\n|---|---:|---:|---:|---:|---:|")
        for module, n_sites, ran, killed, equivalent in rows:
            print(f"| `{module}` | {n_sites} | {ran} | {killed} | {equivalent} | {100 * killed / max(1, ran - equivalent):.0f} % |")
        ran, killed, equivalent = (sum(r[i] for r in rows) for i in (2, 3, 4))
        print(f"| **overall** | {sum(r[1] for r in rows)} | **{ran}** | **{killed}** | {equivalent} | "
              f"**{100 * killed / max(1, ran - equivalent):.1f} %** |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
