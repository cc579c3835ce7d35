"""Request and response shapes of the answer API."""

from __future__ import annotations

from datetime import date
from typing import Literal

from ninja import Field, Schema

from documents.schemas import DocumentRef, FolderRef, deprecated
from search.schemas import (
    ANSWER_TYPE_DESCRIPTION,
    LANGUAGE_DESCRIPTION,
    STATES_DESCRIPTION,
    SUGGESTION_DESCRIPTION,
    UNMET_ANSWER_TYPE_DESCRIPTION,
    AnswerTypeName,
    CopyOut,
)


class AnswerIn(Schema):
    question: str = Field(..., min_length=1, max_length=2000, description="The question, in plain words.")
    folder: int | None = Field(None, description="Only this folder (and its subfolders); it must be readable.")


class CitationOut(Schema):
    n: int = Field(..., description="The number the answer cites as [n].")
    cited: bool = Field(..., description="Whether the answer text actually cites [n].")
    document: DocumentRef
    document_id: int = deprecated("document.id")
    document_title: str = deprecated("document.title")
    document_authors: list[str] = Field(default_factory=list, description="The document's authors, when known.")
    document_published: date | None = Field(None, description="The document's own date, when known.")
    folder: FolderRef = Field(..., description="The document's folder, as `document.folder` (an object since API 2).")
    section: str
    page_start: int
    page_end: int
    char_start: int = Field(..., description="Start of the quote in the document's canonical text (code points).")
    char_end: int = Field(..., description="End (exclusive) of the quote in the canonical text.")
    quote: str = Field(..., description="The chunk's own content, exactly canonical_text[char_start:char_end].")
    distance: float | None = Field(..., description="Cosine distance between the question and the chunk.")
    url: str = Field(..., description="The viewer, opened at the quote: https://host/documents/<id>/view#char=a,b")
    page_url: str | None = Field(
        None, description="For a PDF: the rendered page with the quote highlighted (absolute)."
    )
    file_url: str = Field(..., description="The original file, at #page=N for a PDF (absolute).")
    also_in: list[CopyOut] = Field(
        default_factory=list,
        description="Other copies of the same file (same sha256) in folders you may read; cited once, listed here.",
    )


class AnswerTextPart(Schema):
    text: str = Field(..., description="Answer text, verbatim: a quoted source's own '[22]' stays as it is.")


class AnswerCitePart(Schema):
    cite: int = Field(..., description="A citation marker: source n, described by citations[n-1].")


ANSWER_RULE = (
    "The answer as one string: the parts joined, each citation marker written [n]. A source's own bracketed "
    "reference numbers (a paper's '[22]' or '[1, 34]') are written with white square brackets, U+27E6 and "
    "U+27E7 ('⟦22⟧', '⟦1, 34⟧'), so every ASCII [n] in this string is a marker of citations[n-1] and nothing "
    "else is. Render from `parts` to show the text verbatim."
)


class AnswerOut(Schema):
    id: int | None = Field(
        None,
        description="The answer's row in the question log: send feedback to /api/answers/{id}/feedback. "
        "None when the library keeps no question log (QUESTION_LOG off).",
    )
    answer: str = Field(..., description=ANSWER_RULE)
    parts: list[AnswerTextPart | AnswerCitePart] = Field(
        ...,
        description='The answer as ordered segments, exactly what the search page renders: {"text": …} is '
        "plain text (verbatim, never a link, even when it holds a source's own '[22]'), {\"cite\": n} is a "
        "marker of citations[n-1]. Integrations should render from parts rather than parse `answer`.",
    )
    state: Literal["answered", "caveat", "refused"] = Field(
        ...,
        description=STATES_DESCRIPTION + " A language-model writer that finds no answer in the sources also "
        "makes the answer refused (reason writer_declined).",
    )
    refused: bool = Field(..., description='Equal to state == "refused": no answer, `citations` is empty.')
    reasons: list[str] = Field(
        ...,
        description="Why: nothing_to_search, too_far, unknown_names, rerank_low, writer_declined (refused); "
        "missing_terms, unseen_terms, unmet_answer_type (caveat); other_language (either, listed first).",
    )
    message: str = Field(..., description="The refusal or the caveat as a person reads it; empty when answered.")
    unknown_names: list[str] = Field(..., description="Names in the question that no document you may read mentions.")
    unseen_terms: list[str] = Field(
        default_factory=list,
        description="Years and versions of the question that the library holds but no cited source does.",
    )
    missing_terms: list[str] = Field(
        ..., description="Jargon and years of the question, as typed, that no document you may read contains."
    )
    answer_type: AnswerTypeName | None = Field(None, description=ANSWER_TYPE_DESCRIPTION)
    unmet_answer_type: AnswerTypeName | None = Field(None, description=UNMET_ANSWER_TYPE_DESCRIPTION)
    threshold: float = Field(..., description="The cosine-distance gate the nearest chunk had to pass.")
    best_distance: float | None
    writer: str | None = Field(..., description="The writer that produced the answer (None when refused).")
    uncited: bool = Field(..., description="The answer holds no valid [n] marker.")
    removed_markers: list[int] = Field(..., description="Marker numbers the writer used that match no source.")
    notice: str = Field("", description="E.g. why the configured writer was replaced by the extractive one.")
    suggestion: str | None = Field(None, description=SUGGESTION_DESCRIPTION)
    language: str | None = Field(None, description=LANGUAGE_DESCRIPTION)
    citations: list[CitationOut]


class FeedbackIn(Schema):
    helpful: bool = Field(..., description="true: the answer helped; false: it did not.")
    comment: str = Field("", max_length=2000, description="Optional: what was missing or wrong.")


class FeedbackOut(Schema):
    id: int
    feedback: Literal["helpful", "not_helpful"]
    comment: str
