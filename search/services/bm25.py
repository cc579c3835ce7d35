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

Three ways to the same top k
----------------------------
`BM25_SQL` (the reference, `bm25_reference`) reads every posting of every query lexeme: its
cost grows with the library. The default path, search/services/bm25_packed.py, reads the same
postings packed (a few values per lexeme instead of one row per posting) and sums them in a
compiled loop: still every posting, at a fraction of the cost per posting. `BM25_TOPK_SQL`
(`bm25_topk`; search uses it when SEARCH_BM25_PATH=maxscore) returns the same ids and scores
with MaxScore (Turtle & Flood 1995) in one SQL statement, so every step sees one snapshot:

1. Each posting stores impact h = tf·(k1+1) / (tf + k1·(1 − b + b·dl/A)), BM25's tf part
   under a reference length A (search_bm25impactbasis.avgdl; see documents/lexical_index.py for how A and
   the impacts change together). The postings index is ordered (lexeme, impact DESC).
2. Per query lexeme t, read the M best-impact postings of readable documents (`head`). The
   first is t's best impact h_1(t).
3. Bound what any posting of t can add under the readable folders' statistics. With
   K = k1·(1 − b + b·dl/A), K_a = k1·(1 − b + b·dl/a), c = k1·(1 − b) and r = A/a:
   K_a = r·K + (1 − r)·c. If r ≥ 1 then K_a ≥ K and the tf part is at most h ≤ h_1(t).
   If r < 1 then K_a ≥ r·K, and h ≤ h_1 means K/tf ≥ u = (k1+1)/h_1 − 1, so the tf part is
   at most (k1+1) / (1 + r·u). Both cases: ub(t) = idf(t)·(k1+1) / (1 + min(r,1)·u). This
   holds for any A and any folder subset, so neither a stale A nor a caller reading one small
   folder can make it wrong; they only make it looser.
4. θ: the k-th best exact score of the 2k chunks with the best partial scores in the heads
   (scored exactly by primary-key probes). k chunks score at least θ, so the answer's k-th
   score is at least θ (0 with fewer than k chunks).
5. Sort lexemes by ub, ascending; the longest prefix whose ub sum stays below θ (with a 1e-9
   relative margin for rounding) is "non-essential": a chunk holding only those scores below
   θ and is not in the top k, ties included. The essential lexemes' readable postings are
   scored and summed per chunk; a chunk's non-essential part is at most the non-essential ub
   sum, so only chunks where the two reach θ are candidates.
6. The candidates' non-essential part is summed from those lexemes' postings (a hashed
   filter on the candidate ids, no aggregate over other chunks): candidates are scored
   exactly, with the same formula as the reference, and their top k is the answer.

bench_search counts how often step 5 found a non-essential lexeme (`pruned`).
Measured (BENCHMARKS.md, issue 11): on natural questions of ~10 lexemes with k = 50 the bounds
set aside 1–4 common lexemes, whose postings must still be read for the candidates, so this
statement costs about what the full scan costs, and the packed path is several times faster
than both (BENCHMARKS.md, issue 11 third round), so it is not the default.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection

from documents.lexical_index import K1, TEXT_SEARCH_CONFIG, B
from search.services.bm25_packed import bm25_packed

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
-- MATERIALIZED: computed once per lexeme (inlined, ln() would run once per posting).
idf AS MATERIALIZED (
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
-- 3. What any readable posting of each lexeme can add.
ub AS (
    SELECT i.lexeme, i.idf * ({K1} + 1) / (1 + {_RATIO} * (({K1} + 1) / max(h.impact) - 1)) AS bound
      FROM idf AS i
      JOIN head AS h ON h.lexeme = i.lexeme
     CROSS JOIN stats AS st
     GROUP BY i.lexeme, i.idf, st.avgdl
),
-- 4. θ from exact scores of the chunks whose head postings add up most.
seen AS (
    SELECT p.chunk_id, p.document_id, sum({_EXACT_SCORE}) AS partial
      FROM head AS p
      JOIN idf AS i ON i.lexeme = p.lexeme
     CROSS JOIN stats AS st
     GROUP BY p.chunk_id, p.document_id
),
probed AS (SELECT chunk_id, document_id FROM seen ORDER BY partial DESC, chunk_id LIMIT %(probe)s),
probed_scores AS ({_SCORE_CHUNKS.format(chunks="probed")}),
theta AS (
    SELECT coalesce((SELECT score FROM probed_scores ORDER BY score DESC, chunk_id
                      OFFSET %(limit)s - 1 LIMIT 1), 0.0) AS theta
),
-- 5. Non-essential lexemes: together they cannot lift a chunk to θ.
reach AS (SELECT lexeme, bound, sum(bound) OVER (ORDER BY bound, lexeme) AS reach FROM ub),
nonessential AS MATERIALIZED (
    SELECT r.lexeme, r.bound FROM reach AS r CROSS JOIN theta WHERE r.reach < theta.theta * (1 - 1e-9)
),
essential_part AS MATERIALIZED (
    SELECT p.chunk_id, sum({_EXACT_SCORE}) AS partial
      FROM search_chunklexeme AS p
      JOIN idf AS i ON i.lexeme = p.lexeme
     CROSS JOIN stats AS st
     -- An array, not NOT IN: the lexemes must be the index condition, not a filter on every posting.
     WHERE p.lexeme = ANY((SELECT array_agg(u.lexeme) FROM ub AS u
                            WHERE u.lexeme NOT IN (SELECT lexeme FROM nonessential))::text[])
       AND (p.document_id IN (SELECT id FROM docs)) IS TRUE
     GROUP BY p.chunk_id
),
candidates AS MATERIALIZED (
    SELECT e.chunk_id, e.partial
      FROM essential_part AS e CROSS JOIN theta
     WHERE e.partial + (SELECT coalesce(sum(bound), 0.0) FROM nonessential) >= theta.theta * (1 - 1e-9)
),
-- 6. The candidates' non-essential part, exactly.
rest AS (
    SELECT p.chunk_id, sum({_EXACT_SCORE}) AS partial
      FROM search_chunklexeme AS p
      JOIN idf AS i ON i.lexeme = p.lexeme
     CROSS JOIN stats AS st
     WHERE p.lexeme = ANY((SELECT array_agg(lexeme) FROM nonessential)::text[])
       AND (p.chunk_id IN (SELECT chunk_id FROM candidates)) IS TRUE
     GROUP BY p.chunk_id
)
SELECT c.chunk_id, c.partial + coalesce(r.partial, 0.0) AS score, EXISTS (SELECT 1 FROM nonessential) AS pruned
  FROM candidates AS c
  LEFT JOIN rest AS r ON r.chunk_id = c.chunk_id
 ORDER BY score DESC, c.chunk_id
 LIMIT %(limit)s
"""
)
# How many postings per lexeme the first pass reads (settings.SEARCH_BM25_POSTINGS_PER_LEXEME).
DEFAULT_PER_LEXEME = 50


def bm25_params(query: str, folder_ids: list[int], limit: int, per_lexeme: int = DEFAULT_PER_LEXEME) -> dict[str, Any]:
    # θ comes from exact scores of twice as many chunks as the answer holds.
    return {"query": query, "folders": folder_ids, "limit": limit, "per_lexeme": per_lexeme, "probe": 2 * limit}


def bm25_reference(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """The full postings scan: every posting of every query lexeme. Tests compare against it."""
    if not folder_ids or limit <= 0 or not query:
        return []
    with connection.cursor() as cursor:
        cursor.execute(BM25_SQL, bm25_params(query, folder_ids, limit))
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]


def bm25_topk(query: str, folder_ids: list[int], limit: int, per_lexeme: int) -> tuple[list[tuple[int, float]], bool]:
    """The reference's answer by MaxScore, and whether any lexeme's postings were set aside."""
    if not folder_ids or limit <= 0 or not query:
        return [], False
    with connection.cursor() as cursor:
        cursor.execute(BM25_TOPK_SQL, bm25_params(query, folder_ids, limit, per_lexeme))
        rows = cursor.fetchall()
    return [(int(pk), float(score)) for pk, score, _ in rows], bool(rows) and bool(rows[0][2])


def maxscore_postings_per_lexeme(limit: int) -> int:
    """M for the bounded statement: SEARCH_BM25_POSTINGS_PER_LEXEME (DEFAULT_PER_LEXEME if 0), at least `limit`."""
    return max(int(settings.SEARCH_BM25_POSTINGS_PER_LEXEME) or DEFAULT_PER_LEXEME, limit)


def bm25_candidates(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `limit` best chunks, best first (ties by chunk id).

    Every path returns the same ids and scores. SEARCH_BM25_PATH picks one: "packed" (the
    default, search/services/bm25_packed.py), "scan" (the reference full scan) or "maxscore"
    (the bounded statement with SEARCH_BM25_POSTINGS_PER_LEXEME postings per lexeme first).
    Which is fastest is measured by bench_search.
    """
    path = settings.SEARCH_BM25_PATH
    if path == "maxscore":
        return bm25_topk(query, folder_ids, limit, maxscore_postings_per_lexeme(limit))[0]
    if path == "scan":
        return bm25_reference(query, folder_ids, limit)
    return bm25_packed(query, folder_ids, limit)
