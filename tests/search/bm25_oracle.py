r"""The test oracle for BM25: a full scan of the chunks' own lexemes, and the postings they hold.

    score(chunk) = Σ over query lexemes t in the chunk of
                   idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
    idf(t)       = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

tf is the number of positions of t in the chunk's search_vector and dl the chunk's
lexeme_count. N and avgdl come from the documents of the searched folders (sums of
chunk_count and lexeme_total), n(t) is the number of those documents' chunks whose vector
holds t. Everything is read from documents_chunk and documents_document: nothing of the
packed postings (documents.LexemeBlock) or the per-folder lengths (documents.FolderLength) that the
production leg (search/services/bm25_packed.py) reads, so the two agree only if the store is
right. Ties are ordered by chunk id, as the leg orders them. The query lexemes are those of the
keyword query text it is handed, as the leg is (`lexical_query` writes it), read with the
configuration of every language the searched folders' indexed documents are in (by the SQL
function the index is written with; `english` for an undetected language or no document), as
the leg reads them.
"""

from __future__ import annotations

import numpy as np
from django.db import connection

from documents.lexical.blocks import BLOCK_BITS, postings_decode
from documents.lexical.index import K1, B
from documents.lexical.models import LexemeBlock

# The searched documents, and the query's lexemes as every language they are in reads it.
_QUERY_LEXEMES = """
WITH docs AS (
    SELECT d.id, d.chunk_count, d.lexeme_total, d.language, d.indexed_at
      FROM documents_document AS d WHERE d.folder_id = ANY(%(folders)s)
),
configs AS (
    SELECT documents_text_search_config(docs.language) AS config FROM docs WHERE docs.indexed_at IS NOT NULL
    UNION
    SELECT 'english'::regconfig WHERE NOT EXISTS (SELECT 1 FROM docs WHERE docs.indexed_at IS NOT NULL)
),
q AS (
    SELECT array_agg(DISTINCT u.lexeme) AS lexemes
      FROM configs CROSS JOIN LATERAL unnest(to_tsvector(configs.config, %(query)s::text)) AS u
)"""

ORACLE_SQL = f"""{_QUERY_LEXEMES},
stats AS (
    SELECT sum(docs.chunk_count)::float8 AS n_chunks,
           sum(docs.lexeme_total)::float8 / nullif(sum(docs.chunk_count), 0) AS avgdl
      FROM docs
),
postings AS MATERIALIZED (
    SELECT c.id AS chunk_id, u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf,
           c.lexeme_count::float8 AS dl
      FROM documents_chunk AS c
      JOIN docs ON docs.id = c.document_id
     CROSS JOIN LATERAL unnest(c.search_vector) AS u
     WHERE u.lexeme = ANY((SELECT lexemes FROM q)::text[])
),
idf AS MATERIALIZED (
    SELECT f.lexeme, ln(1 + (st.n_chunks - f.n + 0.5) / (f.n + 0.5)) AS idf
      FROM (SELECT lexeme, count(*)::float8 AS n FROM postings GROUP BY lexeme) AS f
     CROSS JOIN stats AS st
)
SELECT p.chunk_id,
       sum(i.idf * (p.tf * ({K1} + 1)) / (p.tf + {K1} * (1 - {B} + {B} * p.dl / st.avgdl))) AS score
  FROM postings AS p
  JOIN idf AS i ON i.lexeme = p.lexeme
 CROSS JOIN stats AS st
 GROUP BY p.chunk_id
 ORDER BY score DESC, p.chunk_id
 LIMIT %(limit)s
"""


def bm25_oracle(query: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `limit` best chunks of `folder_ids` for the keyword query text
    `query`, best first, ties by chunk id."""
    if not folder_ids or limit <= 0 or not query:
        return []
    with connection.cursor() as cursor:
        cursor.execute(ORACLE_SQL, {"query": query, "folders": folder_ids, "limit": limit})
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]


CEILING_SQL = f"""{ORACLE_SQL.split("SELECT p.chunk_id,")[0]}SELECT coalesce(sum(idf.idf), 0) * ({K1} + 1) FROM idf"""


def ceiling_oracle(query: str, folder_ids: list[int]) -> float:
    """The most a chunk could score for `query` in `folder_ids`: idf·(k1 + 1) summed over the query
    lexemes some chunk of them holds (a term's tf·(k1 + 1) / (tf + k1·(…)) stays below k1 + 1)."""
    if not folder_ids or not query:
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute(CEILING_SQL, {"query": query, "folders": folder_ids})
        (value,) = cursor.fetchone() or (0.0,)
    return float(value or 0.0)


def oracle_lexemes(text: str, folder_ids: list[int]) -> set[str]:
    """The lexemes of `text` (taken as it is) as the languages of `folder_ids`' documents read it."""
    with connection.cursor() as cursor:
        cursor.execute(_QUERY_LEXEMES + " SELECT lexemes FROM q", {"query": text, "folders": folder_ids})
        (lexemes,) = cursor.fetchone() or (None,)
    return set(lexemes or [])


Posting = tuple[int, int, str, int, int]  # folder, chunk, lexeme, tf, dl


def packed_postings(folder_ids: list[int]) -> set[Posting]:
    """Every posting the packed rows of these folders hold, decoded."""
    found = set()
    for row in LexemeBlock.objects.filter(folder_id__in=folder_ids):
        data = bytes(row.postings)
        offsets, tfs, lengths = postings_decode(data, np.array([row.chunk_count]), np.array([len(data)]))
        assert len(offsets) == row.chunk_count
        assert list(offsets) == sorted(offsets)
        for offset, tf, dl in zip(offsets.tolist(), tfs.tolist(), lengths.tolist(), strict=True):
            found.add((row.folder_id, (row.block << BLOCK_BITS) + offset, row.lexeme, tf, dl))
    return found


def vector_postings(folder_ids: list[int]) -> set[Posting]:
    """The same postings, read from the stored chunks' search_vector and lexeme_count."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT d.folder_id, c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), c.lexeme_count
                 FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
                CROSS JOIN LATERAL unnest(c.search_vector) AS u
                WHERE d.folder_id = ANY(%s)""",
            [folder_ids],
        )
        return {tuple(row) for row in cursor.fetchall()}  # type: ignore[misc]


def packed_postings_of_chunks(chunk_ids: list[int]) -> set[Posting]:
    """The packed postings of these chunks, wherever they are (none once the chunks are gone)."""
    wanted = set(chunk_ids)
    blocks = sorted({pk >> BLOCK_BITS for pk in wanted})
    folders = list(LexemeBlock.objects.filter(block__in=blocks).values_list("folder_id", flat=True).distinct())
    return {p for p in packed_postings(folders) if p[1] in wanted}


def oracle_configs(folder_ids: list[int]) -> list[str]:
    """The configurations the oracle reads a query with (every language `folder_ids` hold), by its
    own SQL: what the leg under test is handed when it is compared with the oracle."""
    with connection.cursor() as cursor:
        cursor.execute(
            _QUERY_LEXEMES + " SELECT array_agg(config::text ORDER BY config::text) FROM configs",
            {"query": "", "folders": folder_ids},
        )
        (configs,) = cursor.fetchone() or (None,)
    return list(configs or [])
