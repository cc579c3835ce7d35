"""Every repository path, `module.function` and command that the docs and the code's comments
name exists.

What is read: README.md, BENCHMARKS.md, docs/*.md, and the comments (`tokenize`) and docstrings
(`ast`) of every module of the repository's packages, tests included. Not read: docs/history/
and migrations, which record what was true in their day, and this file, whose examples name
nothing on purpose.

What counts as a reference (everything else is prose and is not checked):
- a path whose first segment is a top-level file or directory of the repository
  (`documents/extraction/limits.py`, `templates/search.html`, `docs/OCR.md`, `search/`) or the
  name of one of its subdirectories (`extraction/sniff.py`, `img/gate-sweep-dev.png`): it must
  exist as written or with `.py` added; a `*` glob must match. Outside a code span, a word of
  three letters or fewer after a single `/` is prose ("documents/s", "css/js").
- a module's bare name (`bm25_packed.py`): some file has that name;
- a migration the way Django names it, `search/0004` or `search/0004_issue11_document_lexeme_covering`;
- a dotted name whose first segment is a package of the repository, or the name of one of its
  modules that no installed module shadows (`documents.services.status.document_transition`,
  `terms.question_terms`, `documents.FolderLength` as a model label): its longest module prefix
  must exist, the next name must be defined at that module's top level, and an attribute of a
  class must be defined in the class (unless the class inherits);
- a name given with a module's path, "`documents/access.py`'s `access_folder_readable`",
  "`documents/admin.py: upload_view`", "search/services/bm25_packed.py: bm25_packed": the file must
  define it (in prose, a name without backticks counts when it has a `_` or is CamelCase);
- a private name (`_run_pipeline`), or a call in a code span (`current_pipeline_stamp()`): some
  module of the repository defines it (or, for a call, calls it: `ts_rank_cd()` is PostgreSQL's);
- `manage.py <command>`: a command Django knows; `make <target>` in a code span: a Makefile
  target.

Names of the repository's modules in prose also count (`answer.text` reads as `answer`'s `text`):
write such a phrase another way.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import os
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git_ignored(root: Path) -> tuple[set[str], set[str]]:
    """The names and the root-anchored paths that .gitignore keeps out of the repository."""
    names: set[str] = set()
    paths: set[str] = set()
    for line in (root / ".gitignore").read_text(encoding="utf-8").splitlines():
        entry = line.strip().rstrip("/")
        if entry and not entry.startswith("#") and "*" not in entry:
            (paths if entry.startswith("/") else names).add(entry.lstrip("/"))
    return names, paths


# What `git status` never shows is not part of the repository: `var/pg` exists only at run time.
IGNORED, IGNORED_PATHS = _git_ignored(ROOT)
DOCUMENTS = ("README.md", "BENCHMARKS.md", "docs/*.md")

# Files a name such as `documents.jsonl` or `search.html` names (never a module and an attribute).
EXTENSIONS = {
    "py", "md", "html", "txt", "json", "jsonl", "css", "js", "pdf", "png", "docx", "npy", "toml", "yml",
    "yaml", "csv", "xml", "sql", "sh", "log", "gz", "zip", "tar", "svg", "jpg", "tif", "tiff",
}  # fmt: skip
# Host names (`library.example.org`), not a module and its attributes.
HOST_SUFFIXES = {"org", "com", "net", "io", "dev", "local", "localhost", "internal"}
# `manage.py command` and `manage.py process` are prose about commands, not one command.
NOT_COMMANDS = {"command", "commands", "process", "processes"}

CODE_SPAN = re.compile(r"`[^`]+`")
# A path: a segment, a slash, more; never the tail of a URL, an address or a longer path.
PATH = re.compile(r"(?<![\w./@:~<>{}$-])[A-Za-z_][\w.-]*/[\w./*-]*")
MIGRATION = re.compile(r"(\w+)/(\d{4})(_\w+)?")
DOTTED = re.compile(r"(?<![\w./@:~$-])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# "`documents/access.py`'s `name`", "`documents/admin.py: name`", "documents/x.py::name".
NAMED_IN_FILE = re.compile(r"([\w./*-]+\.py)`?('s |: ?|::)(`?)([A-Za-z_]\w*)")
# A private name, `_name`; one after a slash is a file of a path (a template partial), which PATH checks.
PRIVATE = re.compile(r"(?<![\w.*/])_[A-Za-z]\w*")
CALL = re.compile(r"(?<![\w.])([a-z]\w*_\w*)\(")
# A module's bare name, `bm25_packed.py` (other bare names are as often the corpus's or output's).
FILE_NAME = re.compile(r"(?<![\w./@:~$-])\w+\.py\b")
MANAGE = re.compile(r"manage\.py\s+([a-z][\w-]*)")
MAKE = re.compile(r"^make\s+([a-z][\w-]*)")


@dataclass(frozen=True)
class Line:
    """One line of a document, comment or docstring: `where` is file:line, `origin` the file."""

    where: str
    text: str
    origin: Path


@dataclass
class Module:
    """What one file defines: its top-level names, each class's own names, every name anywhere."""

    top: set[str] = field(default_factory=set)
    classes: dict[str, tuple[set[str], bool]] = field(default_factory=dict)
    anywhere: set[str] = field(default_factory=set)


def _bound_names(node: ast.stmt) -> Iterator[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    elif isinstance(node, ast.Import | ast.ImportFrom):
        yield from ((alias.asname or alias.name).partition(".")[0] for alias in node.names)
    # Names bound under `if`, `try` and `with` at this level belong to it as well.
    for block in ("body", "orelse", "finalbody", "handlers"):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for child in getattr(node, block, []):
                if isinstance(child, ast.stmt):
                    yield from _bound_names(child)
                elif isinstance(child, ast.ExceptHandler):
                    for inner in child.body:
                        yield from _bound_names(inner)


def module_definitions(source: str) -> Module:
    tree = ast.parse(source)
    module = Module()
    for node in tree.body:
        module.top.update(_bound_names(node))
        if isinstance(node, ast.ClassDef):
            own = {name for child in node.body for name in _bound_names(child)}
            module.classes[node.name] = (own, bool(node.bases))
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            module.anywhere.update(_bound_names(node))
        if isinstance(node, ast.arg):
            module.anywhere.add(node.arg)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            module.anywhere.add(node.attr)
    return module


class Repository:
    """The files, modules, commands and Make targets that a reference may name."""

    def __init__(self, root: Path, commands: Iterable[str]) -> None:
        self.root = root
        self.top = {path.name for path in root.iterdir() if _tracked(path.name)}
        self.packages = {name for name in self.top if (root / name / "__init__.py").is_file()}
        self.directories: dict[str, list[Path]] = {}
        self.file_names: set[str] = set()
        self.modules: dict[str, Path] = {}
        for directory, subdirectories, files in os.walk(root):
            here = Path(directory)
            subdirectories[:] = sorted(
                name
                for name in subdirectories
                if _tracked(name) and (here / name).relative_to(root).as_posix() not in IGNORED_PATHS
            )
            if here != root:
                self.directories.setdefault(here.name, []).append(here)
            self.file_names.update(files)
            parts = here.relative_to(root).parts
            if parts and parts[0] in self.packages:
                for name in sorted(files):
                    if name.endswith(".py"):
                        dotted = [*parts, name.removesuffix(".py")]
                        self.modules[".".join(dotted[:-1] if dotted[-1] == "__init__" else dotted)] = here / name
        # A module's own name (`terms`, `gate`) refers to it unless something installed has that name.
        self.stems: dict[str, list[str]] = {}
        for dotted in self.modules:
            stem = dotted.rpartition(".")[2]
            if "." in dotted and not _installed_elsewhere(stem, root):
                self.stems.setdefault(stem, []).append(dotted)
        self.commands = set(commands)
        self.make_targets = set(re.findall(r"^([\w-]+):", (root / "Makefile").read_text(), flags=re.M))
        self._definitions: dict[Path, Module] = {}
        self._everywhere: set[str] | None = None
        self._calls: set[str] | None = None

    def definitions(self, path: Path) -> Module:
        if path not in self._definitions:
            self._definitions[path] = module_definitions(path.read_text(encoding="utf-8"))
        return self._definitions[path]

    def defined_anywhere(self, name: str) -> bool:
        if self._everywhere is None:
            self._everywhere = set().union(*(self.definitions(p).anywhere for p in self._sources()))
        return name in self._everywhere

    def called(self, name: str) -> bool:
        """Whether the code calls `name`, in Python (`np.searchsorted(...)`) or in SQL (`ts_rank_cd(...)`)."""
        if self._calls is None:
            pattern = re.compile(r"\b([a-z]\w*_\w*)\(")
            self._calls = {call for p in self._sources() for call in pattern.findall(p.read_text(encoding="utf-8"))}
        return name in self._calls

    def _sources(self) -> list[Path]:
        # Not this file: its examples define and call what must stay undefined.
        return [path for path in self.modules.values() if path != Path(__file__).resolve()]

    # Paths.

    def path_exists(self, text: str, origin: Path) -> bool:
        text = text.split("#")[0]
        migration = MIGRATION.fullmatch(text)
        if migration and migration[1] in self.packages:
            app, number, name = migration.groups()
            return any((self.root / app / "migrations").glob(f"{number}{name or '_*'}.py"))
        first = text.split("/")[0]
        if first in self.top:
            bases = [self.root]
        elif (origin.parent / first).is_dir():
            bases = [origin.parent]
        else:
            bases = [directory.parent for directory in self.directories.get(first, [])]
        for base in bases:
            if "*" in text:
                if any(base.glob(text)):
                    return True
            elif (base / text).exists() or (base / f"{text.rstrip('/')}.py").is_file():
                return True
        return False

    def names_a_path(self, text: str, origin: Path) -> bool:
        first = text.split("/")[0]
        if first in IGNORED or any(f"{text}/".startswith(f"{path}/") for path in IGNORED_PATHS):
            return False
        return first in self.top or first in self.directories or (origin.parent / first).is_dir()

    def file(self, text: str, origin: Path) -> Path | None:
        for base in [self.root, origin.parent, *(d.parent for d in self.directories.get(text.split("/")[0], []))]:
            if (base / text).is_file():
                return base / text
        return None

    # Dotted names.

    def names_a_module(self, dotted: str) -> bool:
        parts = dotted.split(".")
        if parts[-1] in EXTENSIONS or parts[-1] in HOST_SUFFIXES:
            return False
        return parts[0] in self.packages or parts[0] in self.stems

    def dotted_problem(self, dotted: str) -> str | None:
        """Why `dotted` names nothing in the repository, or None when it names something."""
        parts = dotted.split(".")
        if parts[0] in self.packages:
            candidates = [(parts[0], parts[1:])]
        else:
            candidates = [(stem_module, parts[1:]) for stem_module in self.stems[parts[0]]]
        problems = []
        for module, rest in candidates:
            while rest and f"{module}.{rest[0]}" in self.modules:
                module, rest = f"{module}.{rest[0]}", rest[1:]
            problem = self._attribute_problem(module, rest)
            if problem is None:
                return None
            problems.append(problem)
        return "; ".join(problems)

    def _attribute_problem(self, module: str, rest: list[str]) -> str | None:
        if not rest:
            return None
        found = self.definitions(self.modules[module])
        if rest[0] not in found.top:
            # An app's model goes by the app's label: `documents.FolderLength`.
            if f"{module}.models" in self.modules and rest[0] in self.definitions(self.modules[f"{module}.models"]).top:
                return self._attribute_problem(f"{module}.models", rest)
            return f"{module} has no {rest[0]}"
        if len(rest) > 1 and rest[0] in found.classes:
            own, inherits = found.classes[rest[0]]
            if rest[1] not in own and not inherits:
                return f"{module}.{rest[0]} has no {rest[1]}"
        return None


def _tracked(name: str) -> bool:
    return name not in IGNORED and not name.startswith(".")


def _installed_elsewhere(name: str, root: Path) -> bool:
    if name in sys.stdlib_module_names:
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and not str(spec.origin or "").startswith(str(root))


def _looks_like_code(word: str) -> bool:
    # name_like_this, NAME_LIKE_THIS, CamelCase; not "the", "Search", "OR".
    return "_" in word or (word[0].isupper() and not word.istitle() and not word.isupper())


def code_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in CODE_SPAN.finditer(text)]


def problems_in(line: Line, repository: Repository) -> list[str]:
    """`file:line: reference: why` for each reference on the line that names nothing."""
    found: list[str] = []
    text, origin = line.text, line.origin
    spans = code_spans(text)

    def in_span(start: int, end: int | None = None) -> bool:
        return any(a < start and (end or start) < b for a, b in spans)

    def report(reference: str, why: str) -> None:
        found.append(f"{line.where}: {reference}: {why}")

    for match in PATH.finditer(text):
        path = match[0].rstrip(".")
        if not repository.names_a_path(path, origin):
            continue
        tail = path.split("/")
        if not in_span(match.start()) and len(tail) == 2 and 0 < len(tail[1]) <= 3 and tail[1].isalpha():
            continue
        if not repository.path_exists(path, origin):
            report(path, "no such file or directory")
    for match in FILE_NAME.finditer(text):
        if match[0] not in repository.file_names:
            report(match[0], "no file of the repository has this name")
    for match in DOTTED.finditer(text):
        if repository.names_a_module(match[0]):
            problem = repository.dotted_problem(match[0])
            if problem:
                report(match[0], problem)
    for match in NAMED_IN_FILE.finditer(text):
        path, joint, tick, name = match.groups()
        # "versions.py's extractor rule" and "tasks.py: the task" are prose; `name` and name_like_this are not.
        if tick or joint == "::" or in_span(match.start(), match.end()) or _looks_like_code(name):
            defined_in = repository.file(path, origin)
            if defined_in is not None and name not in repository.definitions(defined_in).anywhere:
                report(f"{path}: {name}", f"{path} defines no {name}")
    for match in PRIVATE.finditer(text):
        name = match[0]
        # In a comment, `_name` needs no backticks to be code.
        in_code = in_span(match.start()) or origin.suffix == ".py"
        if in_code and not name.endswith("__") and not repository.defined_anywhere(name):
            report(name, "no module of the repository defines it")
    for a, b in spans:
        span = text[a + 1 : b - 1]
        for match in CALL.finditer(span):
            if not repository.defined_anywhere(match[1]) and not repository.called(match[1]):
                report(f"{match[1]}()", "no module of the repository defines it")
        make = MAKE.match(span)
        if make and make[1] not in repository.make_targets:
            report(f"make {make[1]}", "no such target in the Makefile")
    for match in MANAGE.finditer(text):
        if match[1] not in NOT_COMMANDS and match[1] not in repository.commands:
            report(f"manage.py {match[1]}", "no such management command")
    return found


# Where references are read.


def markdown_lines(path: Path) -> Iterator[Line]:
    relative = path.relative_to(ROOT).as_posix()
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield Line(f"{relative}:{number}", text, path)


def comment_lines(source: str, path: Path) -> Iterator[Line]:
    """The comments and docstrings of one module (`source`, the text of `path`), line by line."""
    relative = path.relative_to(ROOT).as_posix()
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.add((first.value.lineno, first.value.col_offset))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and token.start in docstrings):
            for offset, text in enumerate(token.string.splitlines()):
                yield Line(f"{relative}:{token.start[0] + offset}", text, path)


def documented_lines(repository: Repository) -> Iterator[Line]:
    for pattern in DOCUMENTS:
        for path in sorted(ROOT.glob(pattern)):
            yield from markdown_lines(path)
    for module, path in sorted(repository.modules.items()):
        # Migrations are left alone, and so is this file, whose examples name nothing on purpose.
        if "migrations" not in module.split(".") and path != Path(__file__).resolve():
            yield from comment_lines(path.read_text(encoding="utf-8"), path)


@cache
def repository() -> Repository:
    from django.core.management import get_commands

    return Repository(ROOT, get_commands())


def test_every_named_path_module_and_command_exists() -> None:
    problems = [problem for line in documented_lines(repository()) for problem in problems_in(line, repository())]
    assert not problems, "references to nothing:\n" + "\n".join(problems)


def _problems(text: str, origin: str = "docs/DESIGN.md") -> list[str]:
    return problems_in(Line("x:1", text, ROOT / origin), repository())


def test_a_broken_path_or_module_function_is_reported() -> None:
    text = (
        "The top k is read by `search/services/bm25_topk.py`, then `search.services.gate.decide_all` "
        "and `documents.services.statistics.document_statistics_replace` run; see docs/NOPE.md."
    )
    assert _problems(text) == [
        "x:1: search/services/bm25_topk.py: no such file or directory",
        "x:1: docs/NOPE.md: no such file or directory",
        "x:1: search.services.gate.decide_all: search.services.gate has no decide_all",
        "x:1: documents.services.statistics.document_statistics_replace: documents.services has no statistics",
    ]


def test_each_kind_of_reference_is_checked() -> None:
    broken = {
        "`extraction/nope.py`": "extraction/nope.py: no such file or directory",
        "# written by services/statistics": "services/statistics: no such file or directory",
        "migration search/0099_gone": "search/0099_gone: no such file or directory",
        "`gate.decide_all`": "gate.decide_all: evaluation.gate has no decide_all; "
        "search.services.gate has no decide_all",
        "`search.FolderLengths`": "search.FolderLengths: search has no FolderLengths",
        "`ragsite.llm.ChatUsage.nope`": "ragsite.llm.ChatUsage.nope: ragsite.llm.ChatUsage has no nope",
        "the packed leg (`bm25_topk.py`)": "bm25_topk.py: no file of the repository has this name",
        "`documents/access.py`'s `access_nothing`": "documents/access.py: access_nothing: "
        "documents/access.py defines no access_nothing",
        "`documents/admin.py: no_view`": "documents/admin.py: no_view: documents/admin.py defines no no_view",
        "(search/services/bm25_packed.py: bm25_nothing)": "search/services/bm25_packed.py: bm25_nothing: "
        "search/services/bm25_packed.py defines no bm25_nothing",
        "then `_check_terms`": "_check_terms: no module of the repository defines it",
        "`stamp=pipeline_stamp_now()`": "pipeline_stamp_now(): no module of the repository defines it",
        "run `make bench-nothing`": "make bench-nothing: no such target in the Makefile",
        "manage.py bench_nothing --size 10": "manage.py bench_nothing: no such management command",
    }
    for text, problem in broken.items():
        assert _problems(text) == [f"x:1: {problem}"], text


def test_comments_and_docstrings_are_read_and_code_is_not() -> None:
    source = '''"""Module docstring naming search/services/bm25_topk.py."""

import os

ANSWER = "search/services/not_a_reference.py"  # a comment naming `_check_terms`


def f() -> None:
    """First line.

    Third line names gate.decide_all."""
    return os.sep and "services/nothing"
'''
    lines = comment_lines(source, ROOT / "search/services/example.py")
    assert [problem for line in lines for problem in problems_in(line, repository())] == [
        "search/services/example.py:1: search/services/bm25_topk.py: no such file or directory",
        "search/services/example.py:5: _check_terms: no module of the repository defines it",
        "search/services/example.py:11: gate.decide_all: evaluation.gate has no decide_all; "
        "search.services.gate has no decide_all",
    ]


def test_what_exists_and_what_is_prose_pass() -> None:
    fine = [
        "`documents/extraction/limits.py`, templates/search.html, docs/OCR.md, `search/`, `citations/writers`",
        "`bm25_packed.py`, `bench/management/commands/bench_*`, out.md, prometheus-storage.md",
        "`extraction/sniff.py` and ![plot](img/gate-sweep-dev.png) (relative to docs/)",
        "migrations search/0004_issue11_document_lexeme_covering and search/0008",
        "`documents.services.status.document_transition`, `documents.FolderLength`, `terms.question_terms`",
        "`ragsite.llm.ChatUsage.prompt_tokens`, `documents.models.Document.objects` (inherited)",
        "`documents/access.py`'s `access_folder_readable`; `documents/admin.py: upload_view`",
        "versions.py's extractor rule pair; documents/tasks.py: the task; ragsite/db.py: binary_rows",
        "`documents/extraction/limits.py`: a limit; `bench/peer_lexical.py`: OR of the words",
        "`manage.py evaluate`, `make bench-search`, `_run_pipeline`, `current_pipeline_stamp()`",
        # Prose, URLs, settings, the standard library and third-party modules name nothing here.
        "0.10 documents/s, css/js, and/or, p50/p95, https://example.org/search/x.py, /api/search, `/documents/<id>/`",
        "`var/pg`, `eval/out/dev.json`, test-artifacts/ (git-ignored: made at run time)",
        "`pymupdf.Page.get_text`, `os.path.join`, `django.conf.settings`, `ts_rank_cd()`",
        "documents.jsonl, search.html, e.g. i.e. `SEARCH_BM25_PATH`, every manage.py command",
    ]
    for text in fine:
        assert _problems(text) == [], text
