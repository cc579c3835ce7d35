"""Weighted reciprocal rank fusion: combine ranked lists by their ranks, never by raw scores.

Dense distances and BM25 scores live on unrelated scales; ranks are comparable. A chunk
ranked r in leg i earns w_i / (k + r) from that leg; its fused score is the sum.

The defaults are measured (docs/EVALUATION.md, change log): the classic k = 60 with equal
weights let BM25's noise on plain-language questions push the dense leg's good hits out of
the first four. A smaller k makes a leg's top ranks count more than its tail, and BM25 at
half the dense weight still lifts a chunk both legs agree on, while a BM25-only first hit
still lands about 12th — an exact identifier or error message stays on the first page.

Those weights hold while the encoder reads what it compares. The local MiniLM reads English; a
question or library in a language it does not read (`EMBEDDING_LANGUAGES` names those it does)
gets the keyword leg in the lead (`leg_weights`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.conf import settings

from documents.languages import base_language

RRF_K = 60  # the textbook constant; production passes settings.SEARCH_RRF_K


@dataclass
class Fused:
    chunk_id: int
    score: float
    ranks: list[int | None] = field(default_factory=list)  # 1-based rank per leg, None if absent

    @property
    def best_rank(self) -> int:
        return min(r for r in self.ranks if r is not None)


def best_ranks(leg: Sequence[int]) -> dict[int, int]:
    """1-based rank of each id; an id listed twice keeps its better (first) rank."""
    ranks: dict[int, int] = {}
    for position, chunk_id in enumerate(leg, start=1):
        ranks.setdefault(chunk_id, position)
    return ranks


def reciprocal_rank_fusion(
    legs: Sequence[Sequence[int]], *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[Fused]:
    """Fuse ranked id lists (best first); result sorted by score, then best rank, then id.

    `weights` (one per leg, default all 1.0) scale each leg's contribution.

    The tie-break makes the order deterministic: equal scores happen whenever two chunks hold
    mirrored ranks in two legs, and callers (pagination, tests, caches) need a stable order.
    """
    leg_weights = [1.0] * len(legs) if weights is None else list(weights)
    if len(leg_weights) != len(legs):
        raise ValueError(f"{len(legs)} legs but {len(leg_weights)} weights")
    per_leg = [best_ranks(leg) for leg in legs]
    ids = {chunk_id for ranks in per_leg for chunk_id in ranks}
    fused = []
    for chunk_id in ids:
        ranks = [ranks.get(chunk_id) for ranks in per_leg]
        score = sum(w / (k + r) for w, r in zip(leg_weights, ranks, strict=True) if r is not None)
        fused.append(Fused(chunk_id=chunk_id, score=score, ranks=ranks))
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.chunk_id))
    return fused


# The weights when the encoder does not read the question's or the library's language: its
# vectors of such text lie close whatever they say, so the keyword leg leads. At k = 10 a chunk only
# the dense leg finds earns at most 0.03 / 11, less than BM25's 50th hit (1 / 60): it comes after
# every BM25 hit; and 0.03 / 11 is less than the step between any two of BM25's first nine ranks
# (the smallest, eighth to ninth: 1 / 18 - 1 / 19), so the dense leg never reorders those, only the
# tail. Measured on the two Portuguese sets (docs/EVALUATION.md): a dense weight of 0.05 or more
# ranks below BM25 alone on one of them.
KEYWORD_LEADS_WEIGHTS = (0.03, 1.0)


def leg_weights(
    *,
    question_language: str | None,
    library_language: str | None,
    encoder_languages: Iterable[str],
    bm25_weight: float,
) -> tuple[float, float]:
    """(dense, BM25) weights: `bm25_weight` beside a dense 1.0 when the encoder reads both the
    question's and the library's main language (None: not known, nothing against it), else
    KEYWORD_LEADS_WEIGHTS."""
    read = {base_language(code) for code in encoder_languages}
    unread = [lang for lang in (question_language, library_language) if lang and base_language(lang) not in read]
    return KEYWORD_LEADS_WEIGHTS if unread else (1.0, bm25_weight)


def search_weights(question_language: str, languages_held: Sequence[str]) -> tuple[float, float]:
    """(dense, BM25) weights of a hybrid search, for the question's language and the readable
    library's languages (main first), with the configured encoder's languages and BM25 weight.
    Retrieval and the grouped result list both fuse with these, so their orders agree."""
    return leg_weights(
        question_language=question_language,
        library_language=languages_held[0] if languages_held else None,
        encoder_languages=settings.EMBEDDING_LANGUAGES,
        bm25_weight=settings.SEARCH_BM25_WEIGHT,
    )
