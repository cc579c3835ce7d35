"""The one serialiser of an answer (AnswerOut), of its parts and of a source (CitationOut), with
URLs absolute for the request: POST /api/answer's JSON and its server-sent events
(citations/event_stream.py) both write through these, so a streamed answer is the JSON one."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from citations.markers import Part
from citations.services.answer import Answer, Citation
from documents.references import references
from search.schemas import copy_out, hit_document, hit_folder_ids


def serialise(result: Answer, request: HttpRequest) -> dict[str, Any]:
    """The one serialiser of an answer (AnswerOut), its URLs absolute for `request`."""
    refs = references(request)
    refs.prime(hit_folder_ids(c.hit for c in result.citations))  # every folder path in one query
    return {
        "id": result.id,
        "answer": result.text,
        "state": result.state,
        "parts": [serialise_part(p) for p in result.parts],
        "refused": result.refused,
        "reasons": result.reasons,
        "message": result.message,
        "unknown_names": result.unknown_names,
        "missing_terms": result.missing_terms,
        "unseen_terms": result.unseen_terms,
        "answer_type": result.answer_type,
        "unmet_answer_type": result.unmet_answer_type,
        "threshold": result.threshold,
        "best_distance": result.best_distance,
        "writer": result.writer,
        "uncited": result.uncited,
        "removed_markers": result.removed_markers,
        "notice": result.notice,
        "suggestion": result.suggestion,
        "language": result.language,
        "citations": [serialise_citation(c, request) for c in result.citations],
    }


def serialise_part(part: Part) -> dict[str, Any]:
    return {"text": part.text} if part.n is None else {"cite": part.n}


def serialise_citation(citation: Citation, request: HttpRequest) -> dict[str, Any]:
    """The one serialiser of a source (CitationOut), its URLs absolute for `request`."""
    hit, refs = citation.hit, references(request)
    document = hit_document(hit, refs)
    return {
        "n": citation.n,
        "cited": citation.cited,
        "document": document,
        "document_id": hit.document_id,
        "document_title": hit.document_title,
        "document_authors": hit.document_authors,
        "document_published": hit.document_published,
        "folder": document["folder"],
        "section": hit.section,
        "page_start": hit.page_start,
        "page_end": hit.page_end,
        "char_start": hit.char_start,
        "char_end": hit.char_end,
        "quote": hit.content,
        "distance": hit.distance,
        "url": refs.url(hit.url),
        "page_url": refs.url(hit.page_url) if hit.page_url is not None else None,
        "file_url": refs.url(hit.file_url),
        "also_in": [copy_out(copy, refs) for copy in hit.also_in],
    }
