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
"""

from __future__ import annotations

from typing import Any

from django.db import connection

K1 = 1.2
B = 0.75
TEXT_SEARCH_CONFIG = "english"

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


def bm25_params(query: str, folder_ids: list[int], limit: int) -> dict[str, Any]:
    return {"query": query, "folders": folder_ids, "limit": limit}


def bm25_candidates(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `limit` best chunks, best first (ties by chunk id)."""
    if not folder_ids or limit <= 0 or not query:
        return []
    with connection.cursor() as cursor:
        cursor.execute(BM25_SQL, bm25_params(query, folder_ids, limit))
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]
