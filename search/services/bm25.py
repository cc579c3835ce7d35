r"""Lexical leg: Okapi BM25 computed in PostgreSQL from stored lexemes and statistics.

    score(chunk) = Σ over query lexemes t in the chunk of
                   idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
    idf(t)       = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

tf is the number of positions of t in the chunk's `search_vector`, dl the chunk's
`lexeme_count`. N, avgdl and n(t) are sums over the documents of the folders being searched
(Document.chunk_count / lexeme_total, DocumentLexeme.chunk_frequency), so a caller's scores
depend only on text that caller may read.

The score is summed over postings (search.ChunkLexeme: lexeme, chunk, document, tf, dl),
read from the covering index on lexeme for the query's lexemes only; chunk vectors are never
read. Only the `limit` best chunk ids leave the query.

Query text is never parsed as tsquery syntax: its lexemes come from to_tsvector('english',
query), exactly as the chunks' lexemes were made, and are compared as plain text values.
Any input — operators, quotes, backslashes, stop words only — therefore yields either lexemes
or nothing. Identifiers tokenise the same way on both sides ('TS-999' → 'ts' and '-999'), so
they match.

Two ways to the same top k
--------------------------
`BM25_SQL` (the reference, `bm25_reference`) reads every posting of every query lexeme: its
cost grows with the library. `BM25_TOPK_SQL` (`bm25_topk`; search uses it when
SEARCH_BM25_POSTINGS_PER_LEXEME > 0) returns the same ids and scores while reading first only a
prefix of each lexeme's postings.
It is MaxScore (Turtle & Flood 1995) in one SQL statement, so every step sees one snapshot:

1. Each posting stores impact h = tf·(k1+1) / (tf + k1·(1 − b + b·dl/A)), BM25's tf part
   under a reference length A (search_bm25impactbasis.avgdl; see documents/lexical_index.py for how A and
   the impacts change together). The postings index is ordered (lexeme, impact DESC).
2. Per query lexeme t, read the M best-impact postings of readable documents. Let h_M(t) be
   the M-th impact; if fewer than M exist, t is exhausted (every posting of t was read).
3. Score every chunk read in step 2 exactly, with the readable folders' N, avgdl (a) and
   n(t), reading its postings of the query lexemes by primary key. θ = the k-th best of those
   exact scores (0 with fewer than k): the true k-th score is at least θ. (To save probes, a
   chunk whose read part plus the bounds (step 4) of its unread lexemes stays below θ0, the
   k-th best read part, is not probed: its score is below θ0 ≤ θ.)
4. Bound what an unread posting of t can add under the readable folders' statistics. With
   K = k1·(1 − b + b·dl/A), K_a = k1·(1 − b + b·dl/a), c = k1·(1 − b) and r = A/a:
   K_a = r·K + (1 − r)·c. If r ≥ 1 then K_a ≥ K and the tf part is at most h ≤ h_M(t).
   If r < 1 then K_a ≥ r·K, and h ≤ h_M means K/tf ≥ u_M = (k1+1)/h_M − 1, so the tf part is
   at most (k1+1) / (1 + r·u_M). Both cases: bound(t) = idf(t)·(k1+1) / (1 + min(r,1)·u_M)
   (0 for an exhausted t). This holds for any A and any folder subset, so neither a stale A
   nor a caller reading one small folder can make it wrong; they only make it looser.
5. A chunk not read in step 2 has every posting unread, so its score is at most the sum of
   bound(t) over the lexemes it contains. Sort lexemes by bound, ascending; the longest
   prefix whose bounds sum to less than θ (with a 1e-9 relative margin for rounding) are
   "non-essential": a chunk holding only those scores below θ and cannot be in the top k,
   ties included. Every other ("essential") lexeme's readable postings are read in full;
   an unread chunk's essential part is then known exactly and its non-essential part is at
   most the non-essential bounds' sum, so only chunks where the two reach θ are scored
   exactly as in step 3 (the others score below θ).
6. The top k of all exactly scored chunks is the answer: every chunk that could reach it was
   scored exactly, with the same formula as the reference.

When step 5 finds no essential lexeme, the first M postings were enough (`exact_early`, what
bench_search counts). Otherwise the statement still returns the exact answer, reading more.
Measured (BENCHMARKS.md, issue 11): on natural questions of ~10 lexemes the bounds seldom
prune and the per-chunk probes cost more than the sequential full scan, so the setting's
default (0) keeps the full scan; the bounded path stays exact and tested for when it pays.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection

from documents.lexical_index import K1, TEXT_SEARCH_CONFIG, B

BM25_SQL = f"""
WITH q AS (
    SELECT array_agg(u.lexeme) AS lexemes FROM unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', %(query)s)) AS u
),
docs AS (
    SELECT d.id, d.chunk_count, d.lexeme_total FROM documents_document AS d WHERE d.folder_id = ANY(%(folders)s)
),
stats AS (
    SELECT sum(docs.chunk_count)::float8 AS n_chunks,
           sum(docs.lexeme_total)::float8 / nullif(sum(docs.chunk_count), 0) AS avgdl
      FROM docs
),
idf AS (
    SELECT f.lexeme, ln(1 + (st.n_chunks - f.n + 0.5) / (f.n + 0.5)) AS idf
      FROM (SELECT dl.lexeme, sum(dl.chunk_frequency)::float8 AS n
              FROM search_documentlexeme AS dl
              JOIN docs ON docs.id = dl.document_id
             WHERE dl.lexeme = ANY((SELECT lexemes FROM q)::text[])
             GROUP BY dl.lexeme) AS f
     CROSS JOIN stats AS st
),
-- OFFSET 0 fences the postings scan: it reads the query lexemes' postings from the covering
-- index on lexeme, and the readable documents' ones are then kept by hash join. (Left to
-- itself, the planner may probe the primary key (document_id, …) once per readable document —
-- 2 s instead of ~0.1 s at 100k chunks.) Not MATERIALIZED: that spills 60k rows to temp.
postings AS (
    SELECT p.chunk_id, p.document_id, p.lexeme, p.tf::float8 AS tf, p.dl::float8 AS dl
      FROM search_chunklexeme AS p
     WHERE p.lexeme = ANY((SELECT lexemes FROM q)::text[])
    OFFSET 0
)
SELECT p.chunk_id,
       sum(i.idf * (p.tf * ({K1} + 1)) / (p.tf + {K1} * (1 - {B} + {B} * p.dl / st.avgdl))) AS score
  FROM postings AS p
  JOIN docs ON docs.id = p.document_id
  JOIN idf AS i ON i.lexeme = p.lexeme
 CROSS JOIN stats AS st
 GROUP BY p.chunk_id
 ORDER BY score DESC, p.chunk_id
 LIMIT %(limit)s
"""


_EXACT_SCORE = (
    f"i.idf * (p.tf::float8 * ({K1} + 1)) / (p.tf::float8 + {K1} * (1 - {B} + {B} * p.dl::float8 / st.avgdl))"
)
# Exact scores of some chunks (`{chunks}`: chunk_id, document_id), their postings read by primary key.
# LATERAL makes it one index probe per chunk: left free, the planner may hash-join every posting
# of the query's lexemes instead, which is the full scan this statement exists to avoid.
_SCORE_CHUNKS = f"""
    SELECT c.chunk_id, s.score
      FROM {{chunks}} AS c
     CROSS JOIN LATERAL (
        SELECT sum({_EXACT_SCORE}) AS score
          FROM search_chunklexeme AS p
          JOIN idf AS i ON i.lexeme = p.lexeme
         CROSS JOIN stats AS st
         WHERE p.document_id = c.document_id AND p.chunk_id = c.chunk_id
           AND p.lexeme = ANY((SELECT lexemes FROM q)::text[])) AS s
"""
_RATIO = "coalesce(least((SELECT avgdl FROM search_bm25impactbasis WHERE id = 1) / st.avgdl, 1.0), 0.0)"

BM25_TOPK_SQL = (
    BM25_SQL.split("-- OFFSET 0")[0]
    + f"""
-- 2. The M best-impact readable postings of each lexeme.
head AS (
    SELECT i.lexeme, t.chunk_id, t.document_id, t.impact, t.tf, t.dl
      FROM idf AS i
     CROSS JOIN LATERAL (
        SELECT p.chunk_id, p.document_id, p.impact, p.tf, p.dl
          FROM search_chunklexeme AS p
         -- IS TRUE keeps the folder check a hashed filter on the impact-ordered index scan,
         -- which can then stop after M rows (a semi-join would read and sort every posting).
         WHERE p.lexeme = i.lexeme AND (p.document_id IN (SELECT id FROM docs)) IS TRUE
         ORDER BY p.impact DESC
         LIMIT %(per_lexeme)s) AS t
),
-- 4. What an unread posting of each lexeme can add (0 once its postings are all read).
bounds AS (
    SELECT i.lexeme,
           CASE WHEN count(h.chunk_id) < %(per_lexeme)s THEN 0.0
                ELSE i.idf * ({K1} + 1) / (1 + {_RATIO} * (({K1} + 1) / min(h.impact) - 1)) END AS bound
      FROM idf AS i
      LEFT JOIN head AS h ON h.lexeme = i.lexeme
     CROSS JOIN stats AS st
     GROUP BY i.lexeme, i.idf, st.avgdl
),
-- 3. What each chunk read so far scores from the postings read (exact), and at most from the
-- rest (its other lexemes' postings are unread: bound(t) each). θ0, the k-th best partial
-- score, is at most the true k-th score: chunks that cannot reach θ0 need no exact score.
seen AS (
    SELECT p.chunk_id, p.document_id, sum({_EXACT_SCORE}) AS partial, sum(b.bound) AS own_bound
      FROM head AS p
      JOIN idf AS i ON i.lexeme = p.lexeme
      JOIN bounds AS b ON b.lexeme = p.lexeme
     CROSS JOIN stats AS st
     GROUP BY p.chunk_id, p.document_id
),
theta0 AS (
    SELECT coalesce((SELECT partial FROM seen ORDER BY partial DESC OFFSET %(limit)s - 1 LIMIT 1), 0.0) AS theta
),
probed AS (
    SELECT s.chunk_id, s.document_id
      FROM seen AS s CROSS JOIN theta0
     WHERE s.partial + (SELECT sum(bound) FROM bounds) - s.own_bound >= theta0.theta * (1 - 1e-9)
),
seen_scores AS ({_SCORE_CHUNKS.format(chunks="probed")}),
-- θ: the k-th best exact score so far (≥ θ0; the chunks not probed score below θ0).
theta AS (
    SELECT coalesce((SELECT score FROM seen_scores ORDER BY score DESC, chunk_id
                      OFFSET %(limit)s - 1 LIMIT 1), 0.0) AS theta
),
-- 5. Lexemes whose unread postings could still lift a chunk to θ: read those in full.
reach AS (SELECT lexeme, bound, sum(bound) OVER (ORDER BY bound, lexeme) AS reach FROM bounds),
essential AS (
    SELECT r.lexeme FROM reach AS r CROSS JOIN theta WHERE r.bound > 0 AND r.reach >= theta.theta * (1 - 1e-9)
),
-- An unread chunk's non-essential lexemes add at most their bounds' sum (< θ).
rest AS (SELECT coalesce(sum(bound), 0.0) AS bound FROM bounds WHERE lexeme NOT IN (SELECT lexeme FROM essential)),
tail_partial AS (
    SELECT p.chunk_id, p.document_id, sum({_EXACT_SCORE}) AS partial
      FROM essential AS e
      JOIN search_chunklexeme AS p ON p.lexeme = e.lexeme
      JOIN idf AS i ON i.lexeme = p.lexeme
     CROSS JOIN stats AS st
     WHERE p.document_id IN (SELECT id FROM docs)
       AND NOT EXISTS (SELECT 1 FROM seen WHERE seen.chunk_id = p.chunk_id)
     GROUP BY p.chunk_id, p.document_id
),
-- Only chunks that could still reach θ are scored exactly (their other lexemes by primary key).
tail AS (
    SELECT t.chunk_id, t.document_id
      FROM tail_partial AS t CROSS JOIN rest CROSS JOIN theta
     WHERE t.partial + rest.bound >= theta.theta * (1 - 1e-9)
),
tail_scores AS ({_SCORE_CHUNKS.format(chunks="tail")})
SELECT s.chunk_id, s.score, NOT EXISTS (SELECT 1 FROM essential) AS exact_early
  FROM (SELECT * FROM seen_scores UNION ALL SELECT * FROM tail_scores) AS s
 ORDER BY s.score DESC, s.chunk_id
 LIMIT %(limit)s
"""
)
# How many postings per lexeme the first pass reads (settings.SEARCH_BM25_POSTINGS_PER_LEXEME).
DEFAULT_PER_LEXEME = 200


def bm25_params(query: str, folder_ids: list[int], limit: int, per_lexeme: int = DEFAULT_PER_LEXEME) -> dict[str, Any]:
    return {"query": query, "folders": folder_ids, "limit": limit, "per_lexeme": per_lexeme}


def bm25_reference(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """The full postings scan: every posting of every query lexeme. Tests compare against it."""
    if not folder_ids or limit <= 0 or not query:
        return []
    with connection.cursor() as cursor:
        cursor.execute(BM25_SQL, bm25_params(query, folder_ids, limit))
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]


def bm25_topk(query: str, folder_ids: list[int], limit: int, per_lexeme: int) -> tuple[list[tuple[int, float]], bool]:
    """The reference's answer from a prefix of the postings, and whether the first M sufficed."""
    if not folder_ids or limit <= 0 or not query:
        return [], True
    with connection.cursor() as cursor:
        cursor.execute(BM25_TOPK_SQL, bm25_params(query, folder_ids, limit, per_lexeme))
        rows = cursor.fetchall()
    return [(int(pk), float(score)) for pk, score, _ in rows], all(row[2] for row in rows)


def bm25_candidates(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `limit` best chunks, best first (ties by chunk id).

    Both paths return the same ids and scores; SEARCH_BM25_POSTINGS_PER_LEXEME = 0 picks the
    full scan, M > 0 the bounded statement (which one is faster is measured by bench_search).
    """
    per_lexeme = int(settings.SEARCH_BM25_POSTINGS_PER_LEXEME)
    if per_lexeme <= 0:
        return bm25_reference(query, folder_ids, limit)
    return bm25_topk(query, folder_ids, limit, max(per_lexeme, limit))[0]
