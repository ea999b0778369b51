"""Imports run one way: core, env, agents, training, then the CLI and the web page; no module imports itself back.

The graph is read from the sources (every ``import`` and ``from ... import``, those inside functions too), so a
lazy import that closes a circle counts. A module's own packages (``agents`` for ``agents.search``) are not
edges: Python runs a package's ``__init__`` before its modules whatever they import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the layers, lowest first; a module may import its own layer and the ones below
LAYERS = [("president_env.core",), ("president_env",), ("agents",), ("training",), ("president_cli", "president_web")]


def _modules() -> dict[str, Path]:
    mods = {}
    for top in ("president_env", "agents", "training", "president_cli", "president_web"):
        for f in (ROOT / top).rglob("*.py"):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    return mods


def _imported(mod: str, path: Path, node: ast.Import | ast.ImportFrom, mods: dict[str, Path]) -> set[str]:
    """The project's modules an import statement names (the deepest module of each dotted name)."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = mod.split(".") + (["__init__"] if path.name == "__init__.py" else [])
            base = base[: len(base) - node.level]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = node.module or ""
        names = [name] + [f"{name}.{a.name}" for a in node.names]
    else:
        names = [a.name for a in node.names]
    out = set()
    for n in names:
        while n and n not in mods:
            n = n.rpartition(".")[0]
        if n and n != mod and not mod.startswith(n + "."):
            out.add(n)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[mod] |= _imported(mod, path, node, mods)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}          # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def layer(mod: str) -> int:
    """The layer of ``mod``: that of its longest matching package (``president_env.core`` before ``president_env``)."""
    matches = [(len(p), i) for i, prefixes in enumerate(LAYERS) for p in prefixes
               if mod == p or mod.startswith(p + ".")]
    assert matches, f"{mod} is in no layer"
    return max(matches)[1]


def test_no_module_imports_itself_back():
    assert find_cycle(import_graph()) is None


def test_imports_run_down_the_layers():
    upward = sorted(f"{a} -> {b}" for a, bs in import_graph().items() for b in bs if layer(b) > layer(a))
    assert upward == []


def test_search_does_not_import_the_registry():
    """The circle the guide named (agents.registry <-> agents.search): the registry builds the agents a search's
    settings name, and search takes them built."""
    graph = import_graph()
    assert "agents.search" in graph["agents.registry"]
    assert "agents.registry" not in graph["agents.search"]


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": set(), "c": {"c2"}, "c2": {"c"}}, ["c", "c2", "c"]),
    ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
])
def test_the_cycle_finder_finds_circles(graph, cycle):
    assert find_cycle(graph) == cycle


def test_a_lazy_import_counts(tmp_path):
    """An import inside a function is an edge (the registry <-> search circle was two of those)."""
    tree = ast.parse("def f():\n    from .registry import make_agent\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    mods = {"agents": Path("agents/__init__.py"), "agents.registry": Path("agents/registry.py"),
            "agents.search": Path("agents/search.py")}
    assert _imported("agents.search", mods["agents.search"], node, mods) == {"agents.registry"}
