"""The question set (in-domain, with needles) and the out-of-domain query set, read from JSONL."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.metrics import normalised_needle


class DatasetError(ValueError):
    """A questions or OOD file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Question:
    id: str
    needle: str
    queries: tuple[str, ...]  # phrasings; each is one paired unit in the sign tests
    kind: str
    doc: str = ""


@dataclass(frozen=True)
class Query:
    """One phrasing of one question: the unit of pairing."""

    id: str  # "<question id>#<phrasing index>"
    text: str
    question: Question


@dataclass(frozen=True)
class OodQuery:
    id: str
    text: str
    kind: str


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    rows = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{path}:{number}: expected a JSON object")
        rows.append((number, row))
    if not rows:
        raise DatasetError(f"{path} holds no questions")
    return rows


def load_questions(path: Path) -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    for number, row in _lines(path):
        where = f"{path}:{number}"
        queries = row.get("queries")
        if not isinstance(queries, list) or not queries or not all(isinstance(q, str) and q.strip() for q in queries):
            raise DatasetError(f"{where}: 'queries' must be a non-empty list of strings")
        qid, needle = str(row.get("id", "")), row.get("needle")
        if not qid or qid in seen:
            raise DatasetError(f"{where}: missing or repeated id {qid!r}")
        if not isinstance(needle, str):
            raise DatasetError(f"{where}: 'needle' must be a string")
        try:
            normalised_needle(needle)
        except ValueError as exc:
            raise DatasetError(f"{where}: {exc}") from exc
        seen.add(qid)
        kind = str(row.get("kind") or "unspecified")
        questions.append(Question(qid, needle, tuple(queries), kind, str(row.get("doc", ""))))
    return questions


def flatten(questions: list[Question]) -> list[Query]:
    return [Query(f"{q.id}#{i}", text, q) for q in questions for i, text in enumerate(q.queries)]


def load_ood(path: Path) -> list[OodQuery]:
    queries: list[OodQuery] = []
    for number, row in _lines(path):
        text = row.get("query")
        if not isinstance(text, str) or not text.strip():
            raise DatasetError(f"{path}:{number}: 'query' must be a non-empty string")
        queries.append(OodQuery(str(row.get("id") or f"ood{number}"), text, str(row.get("kind") or "unspecified")))
    return queries
