"""Request and response shapes of the search API."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import field_validator, model_validator

from documents.references import References, references
from documents.schemas import DocumentRef, FilterParams, FolderRef, deprecated
from search.services.facets import FacetValue
from search.services.grouping import MAX_PAGE_SIZE, DocumentMatch, DocumentPage
from search.services.hydration import Location, SearchHit
from search.services.retrieval import SearchResult

STATES_DESCRIPTION = (
    "answered: the passages are close and every name, piece of jargon and year of the question occurs in the "
    "library. caveat: results are shown, but `message` says which words of the question (`missing_terms`) no "
    "document you may read contains, which year or version of it no top passage holds (`unseen_terms`), "
    "or which kind of fact it asks for that no top passage states (`unmet_answer_type`), so the passages "
    "are only the closest the library holds. refused: nothing "
    "readable is close enough, the question names something no readable document mentions (`unknown_names`), or "
    "the reader scored every passage below its minimum; `message` says why. The state says whether the "
    "passages answer the question, not which are listed: a search lists what it found in every state."
)

AnswerTypeName = Literal[
    "year",
    "money",
    "count",
    "duration",
    "data_size",
    "power",
    "percentage",
    "version",
    "person",
    "place",
    "key",
    "default",
    "path",
    "port",
    "extension",
    "colour",
]
ANSWER_TYPE_DESCRIPTION = (
    'The kind of fact the question asks for, when its wording says so ("what year", "how much did … cost", '
    '"how many", "how many milliseconds", "how much memory", "how much power", "what percentage", "which version", '
    '"who", "where is … located", "which keyboard shortcut", "in which folder", "which port", "what file '
    'extension", "what colour", "what is the default font" when a default is no number); null otherwise.'
)
UNMET_ANSWER_TYPE_DESCRIPTION = (
    "`answer_type` again when none of the top passages states such a fact where it mentions the question's "
    'subject (a caveat: "The question asks for a year or date; none of the closest passages states one …"); '
    "null when one does or the question asks for no particular kind."
)
SUGGESTION_DESCRIPTION = (
    "The question with each word that no document you may read holds replaced by the word one edit away "
    '(a letter deleted, inserted, replaced or two swapped) that most readable passages hold: "Did you mean …?"; '
    "null when every word is held, none has such a neighbour, or the question is in another language."
)
LANGUAGE_DESCRIPTION = (
    "The ISO 639-1 code of the question's language when it holds words no readable document holds and is "
    "surely none of the languages the readable documents are in (`message` then names those); null otherwise."
)
MAX_QUERY_CHARS = 1000
MAX_K = 50  # the API's limit; retrieval itself allows up to pgvector's ef_search ceiling


class SearchParams(FilterParams):
    q: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description=f"The question or keywords (1..{MAX_QUERY_CHARS} chars)."
    )
    folder: int | None = Field(None, description="Search only this folder and its subfolders (404 if unreadable).")
    document: int | None = Field(None, description="Search within this one document (404 if unreadable).")
    k: int = Field(10, ge=1, le=MAX_K, description=f"How many passages to return (1..{MAX_K}).")
    mode: Literal["hybrid", "dense", "bm25"] = Field(
        "hybrid", description="Ranking: hybrid (both legs fused), dense (vectors) or bm25 (words)."
    )
    group: Literal["passage", "document"] = Field(
        "passage",
        description="passage: the ranked passages and the answer gate's verdict (SearchOut). document: every "
        "matching document once, best first, a page at a time, with its best passages (DocumentSearchOut; "
        "hybrid only, `k` unused).",
    )
    page: int = Field(1, ge=1, le=100_000, description="With group=document: which page of documents (from 1).")
    page_size: int = Field(
        10, ge=1, le=MAX_PAGE_SIZE, description=f"With group=document: documents per page (1..{MAX_PAGE_SIZE})."
    )

    @field_validator("q")
    @classmethod
    def q_not_blank(cls, value: str) -> str:
        value = value.replace("\x00", "").strip()
        if not value:
            raise ValueError("the query is blank; send some words to search for")
        return value

    @model_validator(mode="after")
    def grouped_is_hybrid(self) -> SearchParams:
        if self.group == "document" and self.mode != "hybrid":
            raise ValueError("group=document ranks documents by both legs: leave mode out or send mode=hybrid")
        return self


def hit_document(hit: SearchHit, refs: References) -> dict[str, Any]:
    """The document reference of a hit (documents/references.py)."""
    return refs.document(hit.document_id, hit.document_title, hit.folder_id, hit.folder_name, hit.content_type)


class CopyOut(Schema):
    """Another readable copy of the same file (same sha256), in /api/search and /api/answer alike."""

    document: DocumentRef
    document_id: int = deprecated("document.id")
    folder_id: int = deprecated("document.folder.id")
    folder: FolderRef = deprecated("document.folder")


def copy_out(copy: Location, refs: References) -> dict[str, Any]:
    """The one serialiser of a copy (CopyOut)."""
    document = refs.document(copy.document_id, copy.document_title, copy.folder_id, copy.folder_name, copy.content_type)
    return {
        "document": document,
        "document_id": copy.document_id,
        "folder_id": copy.folder_id,
        "folder": document["folder"],
    }


def hit_folder_ids(hits: Iterable[SearchHit]) -> set[int]:
    """Every folder the hits name, their copies' too: what References.prime reads in one query."""
    hits = list(hits)
    return {hit.folder_id for hit in hits} | {copy.folder_id for hit in hits for copy in hit.also_in}


class SearchHitOut(Schema):
    chunk_id: int
    document: DocumentRef
    document_id: int = deprecated("document.id")
    document_title: str = deprecated("document.title")
    document_authors: list[str] = Field(description="The document's authors, when known.")
    document_published: date | None = Field(description="The document's own date, when known.")
    folder: FolderRef = deprecated("document.folder")
    section: str
    content: str = Field(description="The passage's own words (never the retrieval context prefix).")
    char_start: int = Field(description="Offset of the passage in the document's canonical text.")
    char_end: int
    page_start: int
    page_end: int
    distance: float | None = Field(description="Cosine distance to the query; null for a stale-model document.")
    dense_rank: int | None = Field(description="1-based rank in the dense leg; null if only BM25 found it.")
    bm25_rank: int | None = Field(description="1-based rank in the BM25 leg; null if only the dense leg found it.")
    bm25_score: float | None
    score: float = Field(description="Fused score, 0 to 1 (or the single leg's own score).")
    rerank_score: float | None = Field(description="The reader's relevance score, when a reranker ran; else null.")
    url: str = Field(description="Viewer link opening the document at this passage (absolute).")
    also_in: list[CopyOut] = Field(
        description="Other copies of the same file (same sha256) in folders you may read; the passage is shown once."
    )

    @staticmethod
    def resolve_document(obj: SearchHit, context: dict[str, Any]) -> dict[str, Any]:
        return hit_document(obj, references(context["request"]))

    @staticmethod
    def resolve_folder(obj: SearchHit, context: dict[str, Any]) -> dict[str, Any]:
        return references(context["request"]).folder(obj.folder_id, obj.folder_name)

    @staticmethod
    def resolve_url(obj: SearchHit, context: dict[str, Any]) -> str:
        return references(context["request"]).url(obj.url)

    @staticmethod
    def resolve_also_in(obj: SearchHit, context: dict[str, Any]) -> list[dict[str, Any]]:
        refs = references(context["request"])
        return [copy_out(copy, refs) for copy in obj.also_in]


class FacetValueOut(Schema):
    value: str = Field(description="What the filter parameter takes: a type, a tag name, a year, a folder id.")
    label: str
    count: int = Field(description="Documents found with this value.")

    @staticmethod
    def resolve_value(obj: FacetValue) -> str:
        return obj.value


class FacetsOut(Schema):
    documents: int = Field(description="Distinct documents counted (what is counted: the field's description).")
    type: list[FacetValueOut]
    tag: list[FacetValueOut]
    language: list[FacetValueOut] = Field(
        description="The documents' main language (ISO 639-1); documents not yet detected are not counted."
    )
    year: list[FacetValueOut] = Field(description="Year of `published`; documents without a date are not counted.")
    folder: list[FacetValueOut]


FACETS_DESCRIPTION = (
    "Counts beside the filters over the documents this search found — those owning at least one passage either "
    "leg ranked (the candidates, not only the `k` returned) — among indexed documents you may read that pass "
    "every filter given. Each document counts once per value it has."
)
DOCUMENT_FACETS_DESCRIPTION = (
    "Counts beside the filters over the matching documents of every page (`documents` equals `count`): a "
    "value's count is how many documents its filter would list. Each document counts once per value it has."
)


class SearchOut(Schema):
    query: str
    state: Literal["answered", "caveat", "refused"] = Field(description=STATES_DESCRIPTION)
    refused: bool = Field(
        description='Equal to state == "refused": no passage answers the question; `items` still lists what '
        "was found (the words of a keyword search, the nearest passages), best first."
    )
    threshold: float = Field(description="Largest cosine distance a passage may have to count as an answer.")
    best_distance: float | None = Field(description="Distance of the nearest passage you may read, if any.")
    message: str | None = Field(description="Why the search was refused, or the caveat; null when answered.")
    unknown_names: list[str] = Field(
        description="Names in the query that no document you may read mentions; any makes the search refused."
    )
    missing_terms: list[str] = Field(
        description="Jargon and years of the query, as typed, that no document you may read contains: a caveat."
    )
    unseen_terms: list[str] = Field(
        description="Years and versions of the query that the library holds but none of the top passages "
        "does: a caveat."
    )
    answer_type: AnswerTypeName | None = Field(description=ANSWER_TYPE_DESCRIPTION)
    unmet_answer_type: AnswerTypeName | None = Field(description=UNMET_ANSWER_TYPE_DESCRIPTION)
    reranker: str | None = Field(description="The reader that reordered the results (RERANKER), or null.")
    notice: str = Field(description="E.g. why the configured reranker was not used; empty otherwise.")
    filter_matches: int | None = Field(
        description="With filters: how many documents you may read pass them (0: nothing was searched); else null."
    )
    facets: FacetsOut | None = Field(description=FACETS_DESCRIPTION)
    suggestion: str | None = Field(description=SUGGESTION_DESCRIPTION)
    language: str | None = Field(description=LANGUAGE_DESCRIPTION)
    items: list[SearchHitOut] = Field(
        description="The passages found under your access, best first, one ranked page of `k`, in every `state`."
    )
    count: int = Field(description="How many passages `items` holds (at most `k`).")
    next: str | None = Field(
        description="Always null: the ranking is cut at `k` (ask again with a larger `k`, up to 50, for more)."
    )
    results: list[SearchHitOut] = deprecated("items")

    @staticmethod
    def resolve_items(obj: SearchResult) -> list[SearchHit]:
        return obj.hits

    @staticmethod
    def resolve_count(obj: SearchResult) -> int:
        return len(obj.hits)

    @staticmethod
    def resolve_next(obj: SearchResult) -> None:
        return None

    @staticmethod
    def resolve_results(obj: SearchResult) -> list[SearchHit]:
        return obj.hits

    @staticmethod
    def resolve_message(obj: SearchResult) -> str | None:
        return obj.message or None


MATCHING_DESCRIPTION = (
    "A document matches when one of its chunks holds a word (lexeme) of the query, or is among the dense leg's "
    "nearest candidates within `threshold` of the answer gate; it ranks by its best such passage (fused score). "
    "The list does not depend on the gate's verdict: a refused question still lists the documents holding its words."
)


class DocumentPassageOut(Schema):
    chunk_id: int
    section: str
    char_start: int = Field(description="Offset of the passage in the document's canonical text.")
    char_end: int
    page_start: int
    page_end: int
    score: float = Field(description="Fused score of the passage.")
    snippet: str = Field(description="Plain text: a fragment of the passage around the query's words.")
    highlights: list[tuple[int, int]] = Field(
        description="[start, end) offsets in `snippet` of the words that match the query's lexemes (as BM25 does)."
    )
    url: str = Field(description="Viewer link opening the document at this passage (absolute).")

    @staticmethod
    def resolve_url(obj: SearchHit, context: dict[str, Any]) -> str:
        return references(context["request"]).url(obj.url)


class DocumentMatchOut(Schema):
    document: DocumentRef
    document_id: int = deprecated("document.id")
    title: str = deprecated("document.title")
    folder: FolderRef = deprecated("document.folder")
    content_type: str
    page_count: int
    indexed_at: datetime | None
    authors: list[str] = Field(description="As extraction read them or staff corrected them; may be empty.")
    published: date | None = Field(description="Publication date, when known.")
    tags: list[str]
    score: float = Field(description="The fused score of the document's best passage: the list's order.")
    url: str = Field(description="Viewer link opening the document at its best passage (absolute).")
    passages: list[DocumentPassageOut] = Field(description="The document's best one to three passages, best first.")

    @staticmethod
    def resolve_document(obj: DocumentMatch, context: dict[str, Any]) -> dict[str, Any]:
        return hit_document(obj.passages[0], references(context["request"]))

    @staticmethod
    def resolve_folder(obj: DocumentMatch, context: dict[str, Any]) -> dict[str, Any]:
        return references(context["request"]).folder(obj.folder_id, obj.folder_name)

    @staticmethod
    def resolve_url(obj: DocumentMatch, context: dict[str, Any]) -> str:
        return references(context["request"]).url(obj.passages[0].url)


class DocumentSearchOut(Schema):
    query: str
    group: Literal["document"] = "document"
    items: list[DocumentMatchOut] = Field(description="This page's documents, best first (empty past the last).")
    count: int = Field(description="How many documents match, over all pages. " + MATCHING_DESCRIPTION)
    next: str | None = Field(
        description="The next page's absolute URL (same parameters, `page` moved on); null on the last."
    )
    page: int
    page_size: int
    facets: FacetsOut | None = Field(description=DOCUMENT_FACETS_DESCRIPTION)
    total: int = deprecated("count")
    documents: list[DocumentMatchOut] = deprecated("items")

    @staticmethod
    def resolve_group(obj: DocumentPage) -> str:
        return "document"

    @staticmethod
    def resolve_items(obj: DocumentPage) -> list[DocumentMatch]:
        return obj.documents

    @staticmethod
    def resolve_count(obj: DocumentPage) -> int:
        return obj.total

    @staticmethod
    def resolve_next(obj: DocumentPage, context: dict[str, Any]) -> str | None:
        return references(context["request"]).next_page({"page": obj.page + 1}) if obj.has_next else None
