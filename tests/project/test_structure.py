"""
The package's shape: no import cycle between our modules, and the folders' layers.

Folder-level rules (issue 36, "folders by concept"): each subfolder of
`verifier/` is one node; the few top-level modules (`errors`, `core`,
`cli`, `fastpath`) are nodes of their own. Imports inside functions count
(they tie modules as much as module-level ones); a module's import of its
own parent package does not (`verifier/__init__.py` re-exports `core`
lazily, and `cache/warm`, `discovery/report` read `verifier.__version__`).
`docs/architecture.md`, "Package layout", gives the layers; no folder lies
on an import cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent.parent / "verifier"


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
    for path in (*sorted((PACKAGE / "profiles").glob("*.py")), *sorted((PACKAGE / "readers").glob("*.py"))):
        assert "verifier.trust.assets" not in path.read_text(), f"{path.name} imports verifier.trust.assets"


#: The folders by layer: a folder reaches, through any chain of imports, only folders of a lower layer (and itself).
#: The model depends on nothing; the engine, the format parsers and the reporters on the model only; the cache and media
#: on the formats; schema validation and the scorers on the cache; the readers on those (never a check, a profile or a
#: report); prose binding, the profile language and the receipt readers (adapters) on the readers; trust on the profile
#: language; the checks and discovery on all of those (never each other, never a command); commands at the top.
LAYERS = (("model",), ("engine", "formats", "report"), ("cache", "media"), ("schema", "scorers"), ("readers", "scoring"),
          ("adapters", "profiles", "prose"), ("trust",), ("checks", "discovery"), ("commands",))


def _node(module: str) -> str:
    """`verifier.readers.tree` -> `readers/`; a top-level module is a node of its own (`verifier.core` -> `verifier.core`)."""
    parts = module.split(".")
    return f"{parts[1]}/" if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else module


def _folder_graph() -> dict[str, set[str]]:
    """Return node -> the nodes it imports (module level and inside functions), a folder's modules merged into one node."""
    graph: dict[str, set[str]] = {}
    for module, imported in _top_level_imports(late=True).items():
        graph.setdefault(_node(module), set()).update(
            _node(m) for m in imported if not module.startswith(m + ".") and _node(m) != _node(module))
    return graph


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


#: What stays outside the folders: the package's entry points and what composes every folder (`core` chooses a reader
#: and runs its checks, `cli` the commands, `fastpath` the `verify` entry point that replays an unchanged run) and the
#: exceptions every folder raises (`errors`). A new module goes into the folder of its concept.
TOP_LEVEL = {"__init__.py", "__main__.py", "errors.py", "core.py", "cli.py", "fastpath.py"}


def test_only_entry_points_composition_and_errors_stay_top_level():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in TOP_LEVEL)
    assert not loose, f"verifier/ top-level modules outside a concept folder: {loose} (docs/architecture.md, Package layout)"


def test_the_layers_name_every_folder():
    assert sorted(f for layer in LAYERS for f in layer) == _folders()


def test_a_folder_reaches_only_folders_of_a_lower_layer():
    """`readers/` never reaches `checks/` or `report/`, `report/` no folder at all, `adapters/` never `checks/` (its rule packs import it), `checks/` never `discovery/`, ..."""
    graph = _folder_graph()
    for at, layer in enumerate(LAYERS):
        below = {f"{f}/" for lower in LAYERS[:at] for f in lower}
        for folder in layer:
            reached = {n for n in _reached(graph, f"{folder}/") if n.endswith("/")} - {f"{folder}/"}
            assert reached <= below, f"verifier/{folder}/ reaches {sorted(reached - below)}: {_path(graph, f'{folder}/', (reached - below))}"


def _folders() -> list[str]:
    return sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def test_no_folder_lies_on_an_import_cycle():
    """Every folder, imports inside functions counted: the loops `readers/` <-> `grammars`, `checks/` <-> `scoring`, `discovery/` <-> `core` are gone."""
    graph = _folder_graph()
    for folder in _folders():
        assert f"{folder}/" not in _reached(graph, f"{folder}/"), f"verifier/{folder}/ is on a cycle: {_path(graph, f'{folder}/', {f'{folder}/'})}"
    assert _cycle(graph) is None, f"import cycle between folders and top-level modules: {' -> '.join(_cycle(graph) or [])}"


def _path(graph: dict[str, set[str]], start: str, targets: set[str]) -> str:
    """Return one shortest chain of imports from `start` to one of `targets`, for the failure message."""
    before: dict[str, str] = {}
    todo = [start]
    while todo:
        at = todo.pop(0)
        for nxt in sorted(graph.get(at, ())):
            if nxt in targets:
                chain = [nxt, at]
                while chain[-1] != start:
                    chain.append(before[chain[-1]])
                return " -> ".join(reversed(chain))
            if nxt not in before and nxt != start:
                before[nxt] = at
                todo.append(nxt)
    return ""


def _registers_a_check(tree: ast.AST) -> list[str]:
    """Return how a module registers or composes checks: a `check`/`Check` imported from `verifier.engine.pipeline`, a call of
    `check(...)`, `Check(...)` or `pipeline.check(...)`, a module-level `CHECKS`; each as `line: what`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "verifier.engine.pipeline":
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name in ("check", "Check")]
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in ("check", "Check"):
                found.append(f"{node.lineno}: calls {name}(...)")
    found += [f"{n.lineno}: defines CHECKS" for n in getattr(tree, "body", ()) if isinstance(n, ast.Assign)
              for t in n.targets if isinstance(t, ast.Name) and t.id == "CHECKS"]
    return found


def test_the_receipt_readers_register_no_check():
    """
    Issue 36: an adapter is a reader onto the evidence model; its producer's checks (`matrix.*`, `telemetry.*`, `vllm.*`)
    and rules (`gate.rules`) are its rule pack in `verifier/checks/packs/`, which `core.receipt_pipeline` composes with it.
    """
    offenders = {path.name: hits for path in sorted((PACKAGE / "adapters").glob("*.py"))
                 if (hits := _registers_a_check(ast.parse(path.read_text())))}
    assert not offenders, f"verifier/adapters/ registers checks (move them into the producer's rule pack, verifier/checks/packs/): {offenders}"
    assert _registers_a_check(ast.parse((PACKAGE / "checks" / "packs" / "http_matrix.py").read_text()))  # the scan sees a registration
