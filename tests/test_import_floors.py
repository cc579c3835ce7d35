"""Imports follow the floors: `ragsite` <- `documents` <- `search` <- `citations` <- `bench` <- `evaluation`.

A module imports only its own package and the floors below it: `documents` never imports
`search` or `citations`, `search` never imports `citations`, `ragsite` imports none of them.
Every import counts, wherever it is (module level, inside a function, under
`if TYPE_CHECKING:`, a dynamic import of a literal name), read with `ast` the way
tests/test_import_cycles.py reads them (`import_statements`). Migrations belong to their app.

The benchmarks (`bench`) and the evaluation harness (`evaluation`) stand above the product:
they may import all of it, and no product package imports them. `evaluation` is the higher
of the two because it scores the benchmarks' ts_rank_cd baseline (bench/peer_lexical.py) as
one of its legs; no benchmark needs the evaluation.

Only the composition roots below, which wire every app into one site, may import any floor.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_cycles import PACKAGES, ROOT, import_statements, project_modules

# Lowest first; a package may import its own floor and the ones below.
FLOORS = {"ragsite": 0, "documents": 1, "search": 2, "citations": 3, "bench": 4, "evaluation": 5}

COMPOSITION_ROOTS = {
    # The API: every app's router, and domain errors mapped to statuses once.
    "ragsite/api.py",
    # The URL tree: every app's pages and the API.
    "ragsite/urls.py",
    # The program's entry point (`make run`, `make test`): it prepares the whole site, the
    # search kernel's compile cache included, then starts every process.
    "ragsite/launcher.py",
    # The web server's entry point: each web worker loads the models a question uses before its
    # first request (citations/warm.py).
    "ragsite/wsgi.py",
}


def floor_violations(source: str, path: str) -> list[str]:
    """`path:line: imports X` for each import in the source (of the repository file `path`)
    that reaches a floor above the file's own package."""
    parts = Path(path).with_suffix("").parts
    is_package = parts[-1] == "__init__"
    module = ".".join(parts[:-1] if is_package else parts)
    own = FLOORS[parts[0]]
    found = []
    for node, base, name in import_statements(ast.parse(source, filename=path), module, is_package):
        floor = FLOORS.get(base.partition(".")[0])
        if floor is not None and floor > own:
            imported = f"{base}.{name}" if name else base
            found.append(f"{path}:{node.lineno}: imports {imported}, a floor above {parts[0]}")
    return found


def test_imports_follow_the_floors() -> None:
    violations = []
    for path in project_modules(migrations=True).values():
        relative = path.relative_to(ROOT).as_posix()
        if relative not in COMPOSITION_ROOTS:
            violations += floor_violations(path.read_text(encoding="utf-8"), relative)
    assert not violations, "imports against the floors:\n" + "\n".join(violations)


def test_every_package_has_a_floor_and_every_root_exists() -> None:
    # A new top-level package must be given its floor to be checked at all.
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    assert packages == set(FLOORS) == set(PACKAGES)
    assert all((ROOT / root).is_file() for root in COMPOSITION_ROOTS)


def test_the_check_reports_every_kind_of_import_upwards() -> None:
    source = """\
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ragsite.errors import NotFound
from documents.models import Document
from . import selectors
from search.services import bm25

if TYPE_CHECKING:
    import citations.schemas


def answer() -> None:
    from citations.services.answer import answer_build
    importlib.import_module("search.services.dense")
    import_string("citations.writers.Writer")
"""
    assert floor_violations(source, "documents/example.py") == [
        "documents/example.py:9: imports search.services.bm25, a floor above documents",
        "documents/example.py:12: imports citations.schemas, a floor above documents",
        "documents/example.py:16: imports citations.services.answer.answer_build, a floor above documents",
        "documents/example.py:17: imports search.services.dense, a floor above documents",
        "documents/example.py:18: imports citations.writers.Writer, a floor above documents",
    ]
    # The same imports are all allowed from the top of the product and above it, and nothing is
    # allowed up from ragsite; no product package may import the benchmarks or the evaluation.
    assert floor_violations(source, "citations/example.py") == []
    assert floor_violations(source, "bench/example.py") == []
    assert floor_violations("from bench.peer_lexical import ts_rank_cd_contents\n", "evaluation/x.py") == []
    assert floor_violations("from evaluation.metrics import recall_at\n", "citations/x.py") == [
        "citations/x.py:1: imports evaluation.metrics.recall_at, a floor above citations"
    ]
    assert floor_violations("import evaluation.gate\n", "bench/x.py") == [
        "bench/x.py:1: imports evaluation.gate, a floor above bench"
    ]
    assert floor_violations("def f():\n    from documents import selectors\n", "ragsite/x.py") == [
        "ragsite/x.py:2: imports documents.selectors, a floor above ragsite"
    ]
