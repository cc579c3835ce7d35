"""The search page's "Ranked passages": what the answer's search ranked, as the page lists it.

The page renders it from an answer (citations/services/answer.py) or, when the answer is
streamed by static/js/answer_stream.js, from the page's own search with the answer's `k`: one
template block for both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citations.services.answer import Answer
    from search.services.hydration import SearchHit
    from search.services.retrieval import SearchResult


@dataclass(frozen=True)
class RankedPassages:
    hits: list[SearchHit] = field(default_factory=list)
    sources: int = 0  # the first this many hits are the answer's numbered sources
    total_ms: float = 0.0  # the search's time
    reranker: str | None = None  # the reader that reordered the hits, if one ran


def from_answer(answer: Answer) -> RankedPassages:
    return RankedPassages(answer.passages, len(answer.citations), answer.timings_ms.get("total", 0.0), answer.reranker)


def from_search(result: SearchResult, sources: int) -> RankedPassages:
    """The passages the answer will be written from: none when the gate refuses, as an answer
    (citations.services.answer.retrieve_answer) clears them then."""
    hits = [] if result.refused else result.hits
    return RankedPassages(hits, min(sources, len(hits)), result.timings_ms.get("total", 0.0), result.reranker)
