"""No import cycle among the project's own modules, in-function imports included.

The graph is read from the source with `ast`, so an import hidden inside a function (which
only runs later, and so hides a loop from Python) counts like one at the top of a module;
so do imports under `if TYPE_CHECKING:`. What counts as an edge:

- `import a.b.c` imports the module a.b.c;
- `from a.b import name` imports a.b.name when that is a module of the project, else a.b;
- relative imports are resolved against the importing module's package;
- `importlib.import_module("a.b")`, Django's `import_string("a.b.name")` and `__import__("a.b")`
  with a literal name import a.b (or a.b.name when that is a module) like a statement does;
- importing a.b.c also imports the packages a and a.b: Python runs their `__init__.py`
  first, so a package's `__init__` imports count, and a module that imports its own
  package's `__init__` which imports the module back is a cycle.

Only the project's apps are walked (not tests, not migrations, which Django loads in its
own order and which must not import application code).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ragsite", "documents", "search", "citations", "bench", "evaluation")

Graph = dict[str, set[str]]
# An import: its node (for the line), the module it imports from, the name it imports (or None).
Import = tuple[ast.stmt | ast.expr, str, str | None]


def project_modules(migrations: bool = False) -> dict[str, Path]:
    """Module name -> file of every module of the project's apps (their migrations when asked)."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts and not migrations:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


# Calls that import the module their literal first argument names.
DYNAMIC_IMPORTS = ("import_module", "import_string", "__import__")


def import_statements(
    tree: ast.AST, module: str, is_package: bool
) -> Iterator[tuple[ast.stmt | ast.expr, str, str | None]]:
    """Every import anywhere in the tree, as (node, absolute module, name imported from it or None).

    `import a.b` gives ("a.b", None), `from a.b import c` gives ("a.b", "c"), relative imports
    come resolved against the module's package, and a dynamic import of a literal name gives
    its dotted path (split like `from` for import_string, whose last part is an attribute).
    """
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield from ((node, base, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and _called_name(node.func) in DYNAMIC_IMPORTS:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and not first.value.startswith("."):
                if _called_name(node.func) == "import_string":
                    path, _, attribute = first.value.rpartition(".")
                    yield node, path, attribute
                else:
                    yield node, first.value, None


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def imported_modules(tree: ast.AST, module: str, is_package: bool, modules: Collection[str]) -> Iterator[str]:
    """The project modules that imports anywhere in the tree name."""
    for _, base, name in import_statements(tree, module, is_package):
        if name is not None and f"{base}.{name}" in modules:
            yield f"{base}.{name}"
        elif base in modules:
            yield base


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def import_graph() -> Graph:
    modules = project_modules()
    graph: Graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets: set[str] = set()
        for name in imported_modules(tree, module, path.name == "__init__.py", modules):
            targets.add(name)
            # The packages above it run first, except the importer's own, which already are.
            parts = name.split(".")
            targets.update(p for i in range(1, len(parts)) if not _within(module, p := ".".join(parts[:i])))
        graph[module] = targets - {module}
    return graph


def find_cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the number of modules
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_in(graph, component) for component in components]


def _cycle_in(graph: Graph, component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself, inside the component."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        next_frontier = []
        for node in frontier:
            for target in sorted(graph[node] & component):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    next_frontier.append(target)
        frontier = next_frontier
    raise AssertionError(f"no cycle through {start}")  # unreachable for a strongly connected component


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_walk_sees_in_function_and_package_imports() -> None:
    # The rules above, on the modules they were written for: an in-function import and a
    # package __init__ are edges like any other.
    graph = {"a": {"a.b"}, "a.b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycles(graph) == [["a", "a.b", "c", "a"]]
    source = "def f():\n    from documents.models import Document\n    from . import c\n"
    found = imported_modules(ast.parse(source), "p.q", False, {"documents.models", "p.c"})
    assert sorted(found) == ["documents.models", "p.c"]
    graph = import_graph()
    assert "documents.models" in graph["documents.services.ingest"]
    assert all(module in graph for module in ("ragsite", "documents.extraction", "citations.writers"))
