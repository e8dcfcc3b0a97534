"""The package's shape: no import cycle between our modules, no module far over the house limit."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "verifier"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(late: bool = False) -> dict[str, set[str]]:
    """Return module -> the verifier modules it imports at module level (with `late`, inside functions too)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "_assets" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        tree = ast.parse(path.read_text())
        for node in (ast.walk(tree) if late else tree.body):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("verifier"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("verifier"))
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_between_our_modules():
    graph = _top_level_imports()
    # a package __init__ that re-exports its submodules is not a cycle of logic
    graph = {k: {m for m in v if not (k.startswith(m + ".") and graph.get(m) is not None)} for k, v in graph.items()}
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_no_import_cycle_through_late_imports_either():
    # a late import (inside a function) that closes a loop still ties the two modules into one; the loops
    # batch_scoring <-> scoring and cli <-> fastpath were removed this way and must not come back
    graph = _top_level_imports(late=True)
    graph = {k: {m for m in v if not (k.startswith(m + ".") and graph.get(m) is not None)} for k, v in graph.items()}
    assert _cycle(graph) is None, f"import cycle through late imports: {' -> '.join(_cycle(graph) or [])}"


def test_profiles_and_trust_do_not_import_each_other_late_either():
    for path in (PACKAGE / "profiles.py", *sorted((PACKAGE / "readers").glob("*.py"))):
        assert "verifier.trust" not in path.read_text(), f"{path.name} imports verifier.trust"


def test_the_split_modules_stay_under_the_house_limit():
    for rel in ("profiles.py", "profile_lint.py", "evidence.py", "stats.py", "core.py", "checks/profile.py", "checks/profile_claims.py", "checks/profile_gate.py", "checks/integrity.py", "grammars.py", "textnumbers.py", "mdtables.py",
                *(f"readers/{p.name}" for p in (PACKAGE / "readers").glob("*.py"))):
        lines = len((PACKAGE / rel).read_text().splitlines())
        assert lines <= 600, f"verifier/{rel} has {lines} lines"
