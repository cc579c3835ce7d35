"""Relative score fusion: each leg's scores scaled to [0, 1] over the candidates it hands over,
then summed with a share per leg.

Dense distances and BM25 scores live on unrelated scales. Scaled by each leg's own best and worst
candidate (min-max), they become comparable within one question, and unlike ranks they keep how far
apart the candidates are: a BM25 hit far above the rest (an exact identifier, a rare name) keeps
that lead, and a dense hit much nearer than the next keeps its own, where rank fusion credits a
first place won by a hair the same as one won by a mile (the comparison with the weighted
reciprocal rank fusion it replaced: docs/history/evaluation-changes.md, change 52).

The dense leg's share follows how much of the question the keyword leg's best passage matches
(`keyword_match`): a question in the library's own terms finds them in one passage, and BM25 then
ranks the passage that answers first more often than the encoder does; a question in a reader's
everyday words matches a few of them here and there, and BM25's order is then mostly noise
(`matched_share`).

The dense leg counts only while the encoder reads what it compares. The local MiniLM reads
English; a question or library in a language it does not read (`EMBEDDING_LANGUAGES` names those
it does) gets the keyword leg in the lead (`dense_share`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.conf import settings

from documents.languages import base_language


@dataclass
class Fused:
    chunk_id: int
    score: float
    ranks: list[int | None] = field(default_factory=list)  # 1-based rank per leg (dense, BM25), None if absent

    @property
    def best_rank(self) -> int:
        return min(r for r in self.ranks if r is not None)


def _leg_scores(leg: Sequence[tuple[int, float]], depth: int) -> dict[int, tuple[int, float]]:
    """chunk id -> (1-based rank, scaled score) for a leg listed best first as (id, higher-is-better
    value); the scale spans the first `depth` entries, and an entry past them (as low or lower) scores
    0. An id listed twice keeps its first, better, place."""
    first: dict[int, tuple[int, float]] = {}
    for rank, (chunk_id, value) in enumerate(leg, start=1):
        first.setdefault(chunk_id, (rank, value))
    head = [value for rank, value in first.values() if rank <= depth]
    if not head:
        return {}
    low, high = min(head), max(head)
    spread = high - low
    if spread == 0:  # nothing in the leg's head tells its candidates apart
        return {pk: (rank, 1.0 if rank <= depth else 0.0) for pk, (rank, _) in first.items()}
    return {pk: (rank, min(1.0, max(0.0, (value - low) / spread))) for pk, (rank, value) in first.items()}


def relative_score_fusion(
    dense: Sequence[tuple[int, float]],
    bm25: Sequence[tuple[int, float]],
    *,
    dense_share: float,
    depth: int | None = None,
) -> list[Fused]:
    """Fuse the dense leg, (chunk id, cosine distance) nearest first, and the BM25 leg, (chunk id,
    score) best first: each chunk scores `dense_share` times its scaled dense score plus the rest times
    its scaled BM25 score, a leg that does not list it adding nothing. Sorted by score (ties below).

    `depth`: each leg's scale spans its first `depth` candidates (default: all), so a longer list
    handed over (the grouped result list takes every BM25 match) orders its head as retrieval does.

    Ties: a chunk BM25 lists first, then the better best rank, then the smaller id. The order is
    deterministic: callers (pagination, tests, caches) need a stable order, and equal scores happen
    (two chunks each first in one leg, at even shares; every dense-only chunk at a dense share of 0).
    """
    if not 0.0 <= dense_share <= 1.0:
        raise ValueError(f"the dense leg's share must lie in [0, 1], not {dense_share}")
    bm25_depth = depth or len(bm25)
    near = _leg_scores([(pk, -distance) for pk, distance in dense], depth or len(dense))
    words = _leg_scores(bm25, bm25_depth)
    fused = []
    for chunk_id in near.keys() | words.keys():
        dense_rank, dense_score = near.get(chunk_id, (None, 0.0))
        bm25_rank, bm25_score = words.get(chunk_id, (None, 0.0))
        score = dense_share * dense_score + (1.0 - dense_share) * bm25_score
        fused.append(Fused(chunk_id=chunk_id, score=score, ranks=[dense_rank, bm25_rank]))
    # At equal scores a chunk among BM25's candidates (it holds a word of the question) comes first:
    # with the dense share at 0, BM25's weakest candidates and the dense leg's own all score 0.
    fused.sort(key=lambda f: (-f.score, f.ranks[1] is None or f.ranks[1] > bm25_depth, f.best_rank, f.chunk_id))
    return fused


# The dense leg's share when the encoder does not read the question's or the library's language:
# its vectors of such text lie close whatever they say, so BM25 alone orders its candidates and the
# chunks only the dense leg finds follow them. On the nine Portuguese dev sets every share above 0
# ranks one set or more below BM25 alone (docs/history/evaluation-changes.md, change 52).
KEYWORD_LEADS_SHARE = 0.0


# The keyword leg's best passage matches little of the question up to MATCHED_LITTLE of its ceiling
# (the dense leg keeps SEARCH_DENSE_SHARE) and much of it from MATCHED_MUCH on (MATCHED_SHARE);
# the share falls in a straight line between (docs/history/evaluation-changes.md, change 63).
MATCHED_LITTLE = 0.3
MATCHED_MUCH = 0.5
MATCHED_SHARE = 0.2


def keyword_match(bm25: Sequence[tuple[int, float]], ceiling: float) -> float:
    """How much of the question the keyword leg's best passage matches, 0 to 1: its BM25 score over
    the leg's `ceiling` (search/services/bm25_packed.py, `KeywordLeg`); 0 when the leg found nothing."""
    if not bm25 or ceiling <= 0:
        return 0.0
    return min(1.0, max(0.0, bm25[0][1] / ceiling))


def matched_share(share: float, match: float) -> float:
    """The dense leg's share for a keyword match of `match`: `share` up to MATCHED_LITTLE, MATCHED_SHARE
    (or `share`, were it lower) from MATCHED_MUCH on, in a straight line between."""
    least = min(share, MATCHED_SHARE)
    matched = min(1.0, max(0.0, (match - MATCHED_LITTLE) / (MATCHED_MUCH - MATCHED_LITTLE)))
    return share - (share - least) * matched


def is_one_word(text: str) -> bool:
    """A search for one word or name ("MD5", "pg_dump", "SHA-256"): a keyword search. The encoder's
    vector of a lone word says little of the passages that use it; on one-word searches drawn from
    the answering sentences, BM25 alone ranks the answer higher than any fusion with the dense leg
    (docs/history/evaluation-changes.md, change 52)."""
    return len(text.split()) == 1


def reads(language: str | None, encoder_languages: Iterable[str]) -> bool:
    """Whether an encoder of `encoder_languages` (codes such as "en" or "pt-BR") reads `language` (None or
    "": a language not known, which it is not known to read)."""
    if not language:
        return False
    return base_language(language) in {base_language(code) for code in encoder_languages}


def dense_share(
    *,
    question_language: str | None,
    library_language: str | None,
    encoder_languages: Iterable[str],
    share: float,
    one_word: bool = False,
    keyword_match: float = 0.0,
) -> float:
    """The dense leg's share: KEYWORD_LEADS_SHARE when the encoder does not read the question's or
    the library's main language (None: not known, nothing against it) or the search is one word,
    else `share` as the keyword leg's match of the question lowers it (`matched_share`; 0: it
    matched nothing)."""
    unread = [lang for lang in (question_language, library_language) if lang and not reads(lang, encoder_languages)]
    return KEYWORD_LEADS_SHARE if unread or one_word else matched_share(share, keyword_match)


def search_dense_share(text: str, question_language: str, languages_held: Sequence[str], match: float) -> float:
    """The dense leg's share in a hybrid search of `text`, for the question's language and the
    readable library's languages (main first), the keyword leg's `match` of the question
    (`keyword_match`), the configured encoder's languages and `SEARCH_DENSE_SHARE`. Retrieval and the
    grouped result list both fuse with it, so their orders agree."""
    return dense_share(
        one_word=is_one_word(text),
        question_language=question_language,
        library_language=languages_held[0] if languages_held else None,
        encoder_languages=settings.EMBEDDING_LANGUAGES,
        share=settings.SEARCH_DENSE_SHARE,
        keyword_match=match,
    )
