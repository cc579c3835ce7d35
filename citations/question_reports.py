"""Reads of the question log for staff: the content-gaps report, documents drawing "Not
helpful", and the rows of the CSV export. Who may see them is decided in citations/admin.py."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import QuerySet

from citations.models import Feedback, QuestionLog
from search.services.gate import AnswerState, Reason

EXAMPLES = 3
COMMENTS = 3  # reader comments shown beside one example question
SCAN_LIMIT = 50_000  # the newest gaps read for one report: a bounded page, however long the retention


def same_question(text: str) -> str:
    """The key under which askings of one question are grouped: case and spacing aside."""
    return " ".join(text.casefold().split())


@dataclass
class ExampleQuestion:
    """One question of a gap, however often asked, with what its readers commented."""

    row: QuestionLog  # its newest asking
    asked: int = 1
    comments: list[str] = field(default_factory=list)  # the newest first, each once

    def add_comment(self, row: QuestionLog) -> None:
        comment = row.feedback_comment.strip()
        if comment and comment not in self.comments and len(self.comments) < COMMENTS:
            self.comments.append(comment)


@dataclass
class GapGroup:
    """Refused and caveated questions that share a missing term, or a folder."""

    label: str
    refused: int = 0
    caveat: int = 0
    last_asked: datetime | None = None
    examples: list[ExampleQuestion] = field(default_factory=list)  # distinct questions, the newest first

    @property
    def count(self) -> int:
        return self.refused + self.caveat

    def add(self, row: QuestionLog) -> None:
        """Count `row`; a question asked again joins its example (with its comment), never repeats it."""
        if row.state == AnswerState.REFUSED:
            self.refused += 1
        else:
            self.caveat += 1
        self.last_asked = max(filter(None, [self.last_asked, row.asked_at]))
        key = same_question(row.question)
        example = next((e for e in self.examples if same_question(e.row.question) == key), None)
        if example is None and len(self.examples) < EXAMPLES:
            example = ExampleQuestion(row=row, asked=0)
            self.examples.append(example)
        if example is not None:
            example.asked += 1
            example.add_comment(row)


@dataclass
class ContentGaps:
    by_term: list[GapGroup]
    by_folder: list[GapGroup]
    questions: int  # refused and caveated questions read


def _no_term_label(row: QuestionLog) -> str:
    """Where a question lacks no word, the gate's reason stands in for the term."""
    labels = {value: str(label) for value, label in Reason.choices}
    reason = next((r for r in row.reasons if r in labels), "")
    return f"({labels[reason].lower()})" if reason else "(no missing word)"


def content_gaps(rows: QuerySet[QuestionLog]) -> ContentGaps:
    """Group the refused and caveated questions of `rows` by missing term and by folder, the
    groups with the most questions first."""
    gaps = rows.filter(state__in=[AnswerState.REFUSED, AnswerState.CAVEAT]).order_by("-asked_at", "-pk")
    terms: dict[str, GapGroup] = {}
    folders: dict[str, GapGroup] = {}
    read = 0
    for row in gaps[:SCAN_LIMIT]:
        read += 1
        for term in row.gap_terms or [_no_term_label(row)]:
            terms.setdefault(term.casefold(), GapGroup(label=term)).add(row)
        folder = row.folder_name or "All folders"
        folders.setdefault(folder, GapGroup(label=folder)).add(row)

    def ordered(groups: Iterable[GapGroup]) -> list[GapGroup]:
        return sorted(groups, key=lambda g: (-g.count, g.label.casefold()))

    return ContentGaps(by_term=ordered(terms.values()), by_folder=ordered(folders.values()), questions=read)


@dataclass
class DocumentVerdicts:
    document_id: int
    title: str  # as titled in the newest answer that cited it
    not_helpful: int = 0
    helpful: int = 0


def not_helpful_documents(rows: QuerySet[QuestionLog]) -> list[DocumentVerdicts]:
    """Documents among the top sources of answers judged "Not helpful", the most often first."""
    verdicts: dict[int, DocumentVerdicts] = {}
    judged = rows.exclude(feedback="").order_by("-asked_at", "-pk").values_list("feedback", "top_documents")
    for feedback, documents in judged[:SCAN_LIMIT]:
        for document in documents:
            entry = verdicts.setdefault(document["id"], DocumentVerdicts(document["id"], document["title"]))
            if feedback == Feedback.NOT_HELPFUL:
                entry.not_helpful += 1
            else:
                entry.helpful += 1
    flagged = [v for v in verdicts.values() if v.not_helpful]
    return sorted(flagged, key=lambda v: (-v.not_helpful, v.helpful, v.title.casefold()))


# --- CSV ----------------------------------------------------------------------------------------

HEADER = [
    "id", "asked_at", "asker", "endpoint", "folder", "filters", "state", "reasons", "missing_terms",
    "unknown_names", "top_documents", "latency_ms", "writer", "feedback", "feedback_at", "question",
    "feedback_comment",
]  # fmt: skip


class _Echo:
    def write(self, value: str) -> str:
        return value


def _cell(value: object) -> str:
    """A spreadsheet runs a cell that starts with = + - @ (or a tab/CR) as a formula: quote it."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_lines(rows: QuerySet[QuestionLog], *, with_texts: bool) -> Iterator[str]:
    """The log as CSV lines; the texts (question, comment) only for those allowed to read them."""
    writer = csv.writer(_Echo())
    yield writer.writerow(HEADER)
    for row in rows.select_related("user").iterator(chunk_size=2000):
        documents = "; ".join(f"{d['id']}: {d['title']}" for d in row.top_documents)
        values = [
            row.pk, row.asked_at.isoformat(), row.user.get_username() if row.user else "anonymous", row.endpoint,
            row.folder_name, json.dumps(row.filters, sort_keys=True), row.state, "; ".join(row.reasons),
            "; ".join(row.missing_terms), "; ".join(row.unknown_names), documents, row.latency_ms, row.writer,
            row.feedback, row.feedback_at.isoformat() if row.feedback_at else "",
            row.question if with_texts else "", row.feedback_comment if with_texts else "",
        ]  # fmt: skip
        yield writer.writerow([_cell(v) for v in values])
