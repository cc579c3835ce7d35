r"""Lexical leg: Okapi BM25 computed in PostgreSQL from stored lexemes and statistics.

    score(chunk) = Σ over query lexemes t in the chunk of
                   idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
    idf(t)       = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

tf is the number of positions of t in the chunk's `search_vector`, dl the chunk's
`lexeme_count`. N, avgdl and n(t) are sums over the documents of the folders being searched
(Document.chunk_count / lexeme_total, DocumentLexeme.chunk_frequency), so a caller's scores
depend only on text that caller may read.

Query text is never parsed as tsquery syntax: its lexemes come from to_tsvector('english',
query), exactly as the chunks' lexemes were made, and the OR-tsquery that drives the GIN index
is assembled from those lexemes with each one quoted (' doubled, \ escaped). Any input —
operators, quotes, backslashes, stop words only — therefore yields either lexemes or nothing.
Identifiers tokenise the same way on both sides ('TS-999' → 'ts' and '-999'), so they match.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

K1 = 1.2
B = 0.75
TEXT_SEARCH_CONFIG = "english"

# `hits` keeps only the query's lexemes of each candidate: setweight marks them 'A' (stored
# vectors carry the default weight D) and ts_filter drops the rest. That costs two binary
# searches per lexeme instead of unnesting every lexeme of every candidate chunk.
BM25_SQL = rf"""
WITH q AS (
    SELECT array_agg(u.lexeme) AS lexemes,
           nullif(array_to_string(array_agg(
               '''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || ''''), ' | '), '')::tsquery AS tsq
      FROM unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', %(query)s)) AS u
),
stats AS (
    SELECT sum(d.chunk_count)::float8 AS n_chunks,
           sum(d.lexeme_total)::float8 / nullif(sum(d.chunk_count), 0) AS avgdl
      FROM documents_document AS d
     WHERE d.folder_id = ANY(%(folders)s)
),
idf AS (
    SELECT f.lexeme, ln(1 + (st.n_chunks - f.n + 0.5) / (f.n + 0.5)) AS idf
      FROM (SELECT dl.lexeme, sum(dl.chunk_frequency)::float8 AS n
              FROM search_documentlexeme AS dl
              JOIN documents_document AS d ON d.id = dl.document_id
             WHERE d.folder_id = ANY(%(folders)s) AND dl.lexeme = ANY((SELECT lexemes FROM q)::text[])
             GROUP BY dl.lexeme) AS f
     CROSS JOIN stats AS st
),
matches AS (
    SELECT c.id, c.lexeme_count,
           ts_filter(setweight(c.search_vector, 'A', (SELECT lexemes FROM q)), '{{a}}') AS hits
      FROM documents_chunk AS c
      JOIN documents_document AS d ON d.id = c.document_id
     WHERE d.folder_id = ANY(%(folders)s)
       AND c.search_vector @@ (SELECT tsq FROM q)
)
SELECT m.id,
       sum(i.idf * (t.tf * ({K1} + 1)) / (t.tf + {K1} * (1 - {B} + {B} * m.lexeme_count::float8 / st.avgdl))) AS score
  FROM matches AS m
 CROSS JOIN LATERAL (
       SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf FROM unnest(m.hits) AS u
 ) AS t
  JOIN idf AS i ON i.lexeme = t.lexeme
 CROSS JOIN stats AS st
 GROUP BY m.id
 ORDER BY score DESC, m.id
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
