"""Fusion rules scored offline: both legs' full rankings kept per phrasing, many rules fused from them.

`collect` indexes a corpus once (strategy E, the production pipeline: evaluation/index.py) and,
per phrasing, keeps what hybrid retrieval fuses: the dense leg mended by the BM25 candidates'
distances, the BM25 leg with its scores (each SEARCH_CANDIDATES_PER_LEG long), the production
weights for the question (`search_weights`), which of those chunks hold the needle, and the
question's lexemes with their idf and the candidates holding each (the evidence a rule may
read). `score` fuses the legs with a rule, as `reciprocal_rank_fusion` does in production, and
measures the first answering rank; `compare` pairs two rules' ranks per phrasing.

Ranks are those of the fused chunk list, before hydration collapses copies of one passage: the
evaluated corpora hold no copies (identical files are indexed once), so they are `evaluate`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from documents.lexical.blocks import BLOCK_BITS, postings_decode
from documents.lexical.reads import lexeme_postings, readable_chunk_count
from documents.models import Chunk
from evaluation.dataset import Query
from evaluation.index import EmbeddingCache, create_folder, extract_corpus, populate, remove_folder
from evaluation.metrics import TOP_K, Rank, contains_needle, reciprocal_rank, sign_test
from evaluation.runner import new_run_id
from search.services.bm25_packed import READ_IN_INDEX_ORDER, bm25_leg
from search.services.dense import candidate_distances, dense_candidates, dense_mended
from search.services.fusion import reciprocal_rank_fusion, search_weights
from search.services.query_embedding import embed_query, vector_literal
from search.services.question_reading import question_reading
from search.services.terms import lexical_query


@dataclass
class Lexeme:
    text: str
    idf: float
    chunks: list[int]  # the phrasing's candidates (either leg) that hold it


@dataclass
class Phrasing:
    id: str  # "<question id>#<phrasing index>"
    text: str
    dense: list[int]  # chunk ids, nearest first (mended)
    distances: list[float]
    bm25: list[int]  # chunk ids, best first
    bm25_scores: list[float]
    answers: list[int]  # candidates holding the needle
    lexemes: list[Lexeme]  # the question's lexemes that some readable chunk holds
    absent: list[str]  # the question's lexemes no readable chunk holds
    n_chunks: int  # readable chunks (BM25's N)
    weights: tuple[float, float]  # production's (dense, BM25) weights when BM25 matches the question well
    # The share of the question BM25's best chunk holds, as production measures it
    # (`LexicalLeg.best_share`); None in files kept before it was (`coverage` of `bm25[0]` is the same).
    best_share: float | None = None

    @classmethod
    def from_json(cls, row: dict[str, object]) -> Phrasing:
        values = dict(row)
        values["lexemes"] = [Lexeme(**lexeme) for lexeme in row["lexemes"]]  # type: ignore[attr-defined]
        values["weights"] = tuple(row["weights"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]

    def coverage(self, chunk_id: int) -> float:
        """The idf-weighted share of the question's lexemes that `chunk_id` holds (0 without lexemes)."""
        total = sum(lexeme.idf for lexeme in self.lexemes)
        held = sum(lexeme.idf for lexeme in self.lexemes if chunk_id in lexeme.chunks)
        return held / total if total else 0.0


Weights = tuple[float, float]
Rule = Callable[[Phrasing], Weights]


def collect(corpus_dirs: Sequence[Path], queries: list[Query]) -> list[Phrasing]:
    """Index `corpus_dirs` once (strategy E) and keep each phrasing's two legs; the folder is removed after."""
    corpus = extract_corpus(list(corpus_dirs))
    folder = create_folder(new_run_id(), "E")
    try:
        populate(folder, corpus, "E", EmbeddingCache())
        contents = dict(Chunk.objects.filter(document__folder=folder).values_list("pk", "content"))
        return [_phrasing(query, [folder.pk], contents) for query in queries]
    finally:
        remove_folder(folder.pk)


def _phrasing(query: Query, folder_ids: list[int], contents: dict[int, str]) -> Phrasing:
    per_leg = settings.SEARCH_CANDIDATES_PER_LEG
    reading = question_reading(query.text, folder_ids)
    found = bm25_leg(query.text, folder_ids, per_leg, configs=reading.configs)
    bm25 = found.candidates
    literal = vector_literal(embed_query(query.text)[0])
    dense = dense_candidates(literal, folder_ids, per_leg, None, 0)
    if bm25 and settings.SEARCH_MEND_DENSE:
        distances = candidate_distances(literal, folder_ids, [pk for pk, _ in bm25], None)
        dense = dense_mended(dense, distances, literal, folder_ids, per_leg, None)
    candidates = {pk for pk, _ in dense} | {pk for pk, _ in bm25}
    lexemes = _lexemes(query.text, folder_ids, reading.configs, candidates)
    return Phrasing(
        id=query.id,
        text=query.text,
        dense=[pk for pk, _ in dense],
        distances=[float(d) for _, d in dense],
        bm25=[pk for pk, _ in bm25],
        bm25_scores=[score for _, score in bm25],
        answers=sorted(pk for pk in candidates if contains_needle(contents[pk], query.question.needle)),
        lexemes=lexemes,
        absent=sorted(set(_query_lexemes(query.text, reading.configs)) - {lexeme.text for lexeme in lexemes}),
        n_chunks=readable_chunk_count(folder_ids),
        weights=search_weights(reading.language, reading.languages_held, keyword_match=1.0),
        best_share=found.best_share,
    )


def _lexemes(text: str, folder_ids: list[int], configs: list[str], candidates: set[int]) -> list[Lexeme]:
    """The question's lexemes as the BM25 leg reads them, each with its idf and the candidates holding it."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(READ_IN_INDEX_ORDER)
        rows = lexeme_postings(lexical_query(text), folder_ids, configs=configs)
    lexemes = []
    for row in rows:
        if not row.postings or not row.blocks or row.counts is None or row.sizes is None:
            continue
        counts = np.asarray(row.counts, dtype=np.int64)
        offsets, _, _ = postings_decode(row.postings, counts, np.asarray(row.sizes, dtype=np.int64))
        ids = (np.repeat(np.asarray(row.blocks, dtype=np.int64), counts) << BLOCK_BITS) + offsets
        held = sorted(int(pk) for pk in ids.tolist() if int(pk) in candidates)
        lexemes.append(Lexeme(row.lexeme, float(row.idf), held))
    return lexemes


# The question's lexemes in every configuration it is read with, as the BM25 leg makes them.
_QUERY_LEXEMES_SQL = """
SELECT array_agg(DISTINCT u.lexeme)
  FROM unnest(%(configs)s::regconfig[]) AS r(config)
 CROSS JOIN LATERAL unnest(to_tsvector(r.config, %(query)s::text)) AS u
"""


def _query_lexemes(text: str, configs: list[str]) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(_QUERY_LEXEMES_SQL, {"query": lexical_query(text), "configs": configs})
        return list(cursor.fetchone()[0] or [])


def save(phrasings: list[Phrasing], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(p) for p in phrasings], ensure_ascii=False) + "\n")


def load(path: Path) -> list[Phrasing]:
    return [Phrasing.from_json(row) for row in json.loads(path.read_text())]


def fused_order(phrasing: Phrasing, weights: Weights) -> list[int]:
    """The hybrid ranking production makes of these two legs with `weights`."""
    fused = reciprocal_rank_fusion([phrasing.dense, phrasing.bm25], k=settings.SEARCH_RRF_K, weights=weights)
    return [f.chunk_id for f in fused]


def answer_rank(order: Sequence[int], answers: Sequence[int]) -> Rank:
    wanted = set(answers)
    return next((rank for rank, pk in enumerate(order[:TOP_K], start=1) if pk in wanted), None)


def score(phrasings: list[Phrasing], rule: Rule) -> list[Rank]:
    """Each phrasing's rank under `rule`, which reads a copy (a rule may narrow a leg)."""
    ranks = []
    for p in phrasings:
        view = replace(p, dense=list(p.dense), bm25=list(p.bm25))
        weights = rule(view)
        ranks.append(answer_rank(fused_order(view, weights), p.answers))
    return ranks


def leg_ranks(phrasings: list[Phrasing], leg: str) -> list[Rank]:
    return [answer_rank(getattr(p, leg), p.answers) for p in phrasings]


@dataclass(frozen=True)
class Paired:
    wins: int  # phrasings `a` ranks better (within TOP_K)
    losses: int
    p: float  # exact two-sided sign test on them


def compare(a: Sequence[Rank], b: Sequence[Rank]) -> Paired:
    """Paired by phrasing on the reciprocal rank: a rank moved inside the top TOP_K is a win or a loss."""
    a_rr, b_rr = [reciprocal_rank(r) for r in a], [reciprocal_rank(r) for r in b]
    test = sign_test([x > y for x, y in zip(a_rr, b_rr, strict=True)], [y > x for x, y in zip(a_rr, b_rr, strict=True)])
    return Paired(test.wins, test.losses, test.p)
