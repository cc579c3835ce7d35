"""Request and response shapes of the search API."""

from __future__ import annotations

from typing import Literal

from ninja import Field, Schema
from pydantic import field_validator

from documents.schemas import FolderRef, viewer_url
from search.services.gate import unknown_names_message
from search.services.retrieval import SearchHit, SearchResult

MAX_QUERY_CHARS = 1000
MAX_K = 50


class SearchParams(Schema):
    q: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="The question or keywords (1..1000 chars).")
    folder: int | None = Field(None, description="Search only this folder and its subfolders (404 if unreadable).")
    k: int = Field(10, ge=1, le=MAX_K, description="How many passages to return (1..50).")
    mode: Literal["hybrid", "dense", "bm25"] = Field(
        "hybrid", description="Ranking: hybrid (RRF of both legs), dense (vectors) or bm25 (words)."
    )

    @field_validator("q")
    @classmethod
    def q_not_blank(cls, value: str) -> str:
        value = value.replace("\x00", "").strip()
        if not value:
            raise ValueError("the query is blank; send some words to search for")
        return value


class SearchHitOut(Schema):
    chunk_id: int
    document_id: int
    document_title: str
    folder: FolderRef
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
    score: float = Field(description="Fused reciprocal-rank score (or the single leg's score).")
    url: str = Field(description="Viewer link opening the document at this passage.")

    @staticmethod
    def resolve_folder(obj: SearchHit) -> dict[str, object]:
        return {"id": obj.folder_id, "name": obj.folder_name}

    @staticmethod
    def resolve_url(obj: SearchHit) -> str:
        return viewer_url(obj.document_id, obj.char_start, obj.char_end)


class SearchOut(Schema):
    query: str
    refused: bool = Field(description="True when no passage is close enough to the query: results are empty.")
    threshold: float = Field(description="Largest cosine distance a passage may have to count as an answer.")
    best_distance: float | None = Field(description="Distance of the nearest passage you may read, if any.")
    message: str | None = Field(description="Why the search was refused; null otherwise.")
    unknown_names: list[str] = Field(
        description="Names in the query that no document you may read mentions; any makes the search refused."
    )
    results: list[SearchHitOut]

    @staticmethod
    def resolve_results(obj: SearchResult) -> list[SearchHit]:
        return obj.hits

    @staticmethod
    def resolve_message(obj: SearchResult) -> str | None:
        if not obj.refused:
            return None
        if obj.best_distance is None:
            return "Nothing to search: no indexed passage in the folders you may read."
        if obj.unknown_names:
            return unknown_names_message(obj.unknown_names)
        return (
            f"No passage is close enough to the query: the nearest is at cosine distance "
            f"{obj.best_distance:.3f}, above the threshold {obj.threshold:.3f}. The library does not hold an answer."
        )
