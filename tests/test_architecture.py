"""The import structure of the oracle: no import cycles in ``reference/`` and no imports hidden in functions.

The layer order itself is the import-linter contract in ``pyproject.toml`` (``lint-imports``); its
``acyclic_siblings`` contract sees cycles between sibling modules and packages, this test also sees
the ones through a package's ``__init__`` and ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Set
from pathlib import Path

import grimp

import reference

PROJECT_PACKAGES = ("reference", "seeds", "strategies", "harness", "conformance", "schemas", "tests", "bench")


def _import_graph() -> Mapping[str, Set[str]]:
    graph = grimp.build_graph("reference", exclude_type_checking_imports=False, cache_dir=None)
    return {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}


def strongly_connected_components(edges: Mapping[str, Set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; every component, each sorted, in a deterministic order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in edges:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_scc_finds_cycles_and_only_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    cyclic = [c for c in strongly_connected_components(edges) if len(c) > 1]
    assert cyclic == [["a", "b", "c"]]


def test_reference_has_no_import_cycles() -> None:
    cycles = [c for c in strongly_connected_components(_import_graph()) if len(c) > 1]
    assert not cycles, f"import cycles in reference/: {cycles}"


def _function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if id(node) not in top_level and any(name.split(".")[0] in PROJECT_PACKAGES for name in names):
            found.append(f"{path}:{node.lineno}")
    return found


def test_reference_imports_only_at_module_level() -> None:
    root = Path(reference.__file__).parent
    found = [hit for path in sorted(root.rglob("*.py")) for hit in _function_level_imports(path)]
    assert not found, f"imports inside functions or under TYPE_CHECKING: {found}"
