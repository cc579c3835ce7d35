"""The keyword index's reads: what search asks of the packed postings and the folder lengths.

Every statement is composed with psycopg.sql from one template per query; a variant (only the
allowed blocks) is a composed part, not an edit of another statement's text.

A query is read with the text-search configurations its caller passes as `configs`: those of the
search's question reading (search/services/question_reading.py, once per search), its lexemes the
union of what each configuration makes of it, as each chunk was indexed with its own.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.db import connection
from psycopg import sql
from psycopg.rows import class_row

from ragsite.db import binary_rows, named_rows

# The query's lexemes in every configuration: a lexeme two of them make is listed twice, which
# `= ANY` reads as once (and no sort is planned for it).
_QUERY_LEXEMES = """
    SELECT array_agg(u.lexeme) AS lexemes
      FROM unnest(%(configs)s::regconfig[]) AS r(config)
     CROSS JOIN LATERAL unnest(to_tsvector(r.config, %(query)s::text)) AS u
"""

# Per query lexeme: its postings in the readable folders as one bytea, with idf and avgdl.
_PACKED_TEMPLATE = """
WITH q AS ({query_lexemes}),
stats AS (
    SELECT sum(s.chunks)::float8 AS n_chunks, sum(s.lexemes)::float8 / nullif(sum(s.chunks), 0) AS avgdl
      FROM search_folderlength AS s
     WHERE s.folder_id = ANY(%(folders)s::bigint[])
),
per_lexeme AS (
    SELECT b.lexeme, sum(b.chunk_count)::float8 AS df,
           array_agg(b.block ORDER BY b.folder_id, b.block){only_allowed} AS blocks,
           array_agg(b.chunk_count ORDER BY b.folder_id, b.block){only_allowed} AS counts,
           array_agg(octet_length(b.postings) ORDER BY b.folder_id, b.block){only_allowed} AS sizes,
           string_agg(b.postings, ''::bytea ORDER BY b.folder_id, b.block){only_allowed} AS postings
      FROM search_lexemeblock AS b
     WHERE b.lexeme = ANY((SELECT lexemes FROM q)::text[]) AND b.folder_id = ANY(%(folders)s::bigint[])
     GROUP BY b.lexeme
)
SELECT p.lexeme, ln(1 + (st.n_chunks - p.df + 0.5) / (p.df + 0.5)) AS idf, st.avgdl,
       p.blocks, p.counts, p.sizes, p.postings
  FROM per_lexeme AS p
 CROSS JOIN stats AS st
 ORDER BY p.lexeme
"""


def _packed_sql(only_allowed: sql.Composable) -> str:
    return (
        sql.SQL(_PACKED_TEMPLATE).format(query_lexemes=sql.SQL(_QUERY_LEXEMES), only_allowed=only_allowed).as_string()
    )


PACKED_SQL = _packed_sql(sql.SQL(""))
# Only the allowed chunks' blocks are aggregated: df still counts every readable block.
PACKED_FILTERED_SQL = _packed_sql(sql.SQL(" FILTER (WHERE b.block = ANY(%(blocks)s::int[]))"))

# BM25's N: the readable folders' chunks, from the per-folder rows (a few index entries).
READABLE_CHUNKS_SQL = "SELECT sum(s.chunks) FROM search_folderlength AS s WHERE s.folder_id = ANY(%s::bigint[])"


class LexemePostings(NamedTuple):
    """One query lexeme's row of PACKED_SQL: postings packed as documents/lexical/blocks.py writes them."""

    lexeme: str
    idf: float
    avgdl: float | None  # None when no readable document counts a chunk
    blocks: list[int] | None  # None when a filtered row holds no allowed block
    counts: list[int] | None
    sizes: list[int] | None
    postings: bytes | None


def lexeme_postings(
    query_text: str, folder_ids: list[int], blocks: list[int] | None = None, *, configs: list[str]
) -> list[LexemePostings]:
    """The postings of `query_text`'s lexemes in `folder_ids`, in lexeme order (binary results).

    `blocks`: only these blocks' postings are returned, the statistics staying the folders'.
    `configs`: the text-search configurations the query is read with.
    """
    params: dict[str, Any] = {
        "query": query_text,
        "folders": folder_ids,
        "configs": configs,
    }
    if blocks is None:
        return binary_rows(PACKED_SQL, params, class_row(LexemePostings))
    return binary_rows(PACKED_FILTERED_SQL, params | {"blocks": blocks}, class_row(LexemePostings))


def readable_chunk_count(folder_ids: list[int]) -> int:
    """How many chunks the documents of `folder_ids` hold (BM25's N)."""
    with connection.cursor() as cursor:
        cursor.execute(READABLE_CHUNKS_SQL, [folder_ids])
        (total,) = cursor.fetchone() or (None,)
    return int(total or 0)


# One round trip: per term, whether a readable document and whether one of the top passages holds
# it, as any of the configurations reads it. A term whose words are all stop words in one of the
# languages has no lexeme there and drops out (nothing to check).
_COVERAGE_SQL = """
WITH lexemes AS (
    SELECT t.ord, t.term, r.config, u.lexeme, position('-' IN u.lexeme) > 0 AS compound
      FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
     CROSS JOIN unnest(%(configs)s::regconfig[]) AS r(config)
     CROSS JOIN LATERAL unnest(to_tsvector(r.config, t.term)) AS u
),
-- The top passages' own lexemes, from their few rows (a postings lookup by lexeme would read
-- every posting of a common word in a large library).
passage_lexemes AS (
    SELECT u.lexeme FROM documents_chunk AS c CROSS JOIN LATERAL unnest(c.search_vector) AS u
     WHERE c.id = ANY(%(passages)s)
),
found AS (
    SELECT l.ord, l.term, l.config, l.compound,
           -- A lexeme has packed rows in a folder only for chunks stored there: one index probe.
           EXISTS (SELECT 1
                     FROM search_lexemeblock AS b
                    WHERE b.lexeme = l.lexeme AND b.folder_id = ANY(%(folders)s::bigint[])) AS in_library,
           l.lexeme IN (SELECT lexeme FROM passage_lexemes) AS in_passages
      FROM lexemes AS l
),
-- Identifiers and name phrases: all their lexemes adjacent, as a chunk's search_vector holds them
-- (phraseto_tsquery: the user's text is never read as tsquery syntax).
phrases AS (
    SELECT p.term, p.whole_documents, phraseto_tsquery(r.config, p.term) AS query
      FROM unnest(%(phrases)s::text[], %(whole_documents)s::boolean[]) AS p(term, whole_documents)
     CROSS JOIN unnest(%(configs)s::regconfig[]) AS r(config)
),
per_config AS (
    SELECT ord, term,
           bool_or(compound AND in_library) OR coalesce(bool_and(in_library) FILTER (WHERE NOT compound), false)
               AS in_library,
           bool_or(compound AND in_passages) OR coalesce(bool_and(in_passages) FILTER (WHERE NOT compound), false)
               AS in_passages
      FROM found
     GROUP BY ord, term, config
)
SELECT term, bool_or(in_library) AS in_library, bool_or(in_passages) AS in_passages
  FROM per_config
 GROUP BY ord, term
HAVING count(*) = cardinality(%(configs)s::regconfig[])
UNION ALL
SELECT p.term,
       -- The GIN index finds the chunks holding every lexeme; EXISTS stops at the first readable one.
       bool_or(EXISTS (SELECT 1
                 FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
                WHERE c.search_vector @@ p.query AND d.folder_id = ANY(%(folders)s::bigint[]))),
       bool_or(CASE WHEN p.whole_documents
            THEN EXISTS (SELECT 1
                           FROM documents_chunk AS c
                          WHERE c.search_vector @@ p.query
                            AND c.document_id IN (SELECT document_id FROM documents_chunk WHERE id = ANY(%(passages)s)))
            ELSE EXISTS (SELECT 1
                           FROM documents_chunk AS c
                          WHERE c.id = ANY(%(passages)s) AND c.search_vector @@ p.query)
       END)
  FROM phrases AS p
 WHERE numnode(p.query) > 0
 GROUP BY p.term
"""


class TermOccurrence(NamedTuple):
    """Where one term occurs: in a document of the folders asked, in one of the passages asked."""

    term: str
    in_library: bool
    in_passages: bool


def term_occurrences(
    words: list[str],
    phrases: list[str],
    whole_documents: list[bool],
    folder_ids: list[int],
    passage_ids: list[int],
    *,
    configs: list[str],
) -> list[TermOccurrence]:
    """Where each of `words` (by lexeme) and `phrases` (adjacent lexemes) occurs, in one query.

    A phrase of `whole_documents` counts as in the passages when one of their documents holds
    it. Terms without a lexeme (stop words only) are left out. `configs`: as for `lexeme_postings`.
    """
    params = {
        "configs": configs,
        "terms": words,
        "phrases": phrases,
        "whole_documents": whole_documents,
        "folders": folder_ids,
        "passages": passage_ids,
    }
    return named_rows(_COVERAGE_SQL, params, TermOccurrence)


# A readable document that holds every phrase: the first phrase's chunks through the GIN index,
# then each other phrase in some chunk of the same document.
_ALL_IN_ONE_DOCUMENT_SQL = """
WITH queries AS (
    SELECT p.ord, phraseto_tsquery(r.config, p.phrase) AS query
      FROM unnest(%(phrases)s::text[]) WITH ORDINALITY AS p(phrase, ord)
     CROSS JOIN unnest(%(configs)s::regconfig[]) AS r(config)
)
SELECT EXISTS (
    SELECT 1
      FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
     WHERE d.folder_id = ANY(%(folders)s::bigint[])
       AND EXISTS (SELECT 1 FROM queries AS q WHERE q.ord = 1 AND numnode(q.query) > 0 AND c.search_vector @@ q.query)
       AND NOT EXISTS (
           SELECT 1 FROM generate_series(2, cardinality(%(phrases)s::text[])) AS n(ord)
            WHERE NOT EXISTS (SELECT 1
                                FROM queries AS q JOIN documents_chunk AS o ON o.document_id = d.id
                               WHERE q.ord = n.ord AND numnode(q.query) > 0 AND o.search_vector @@ q.query))
)
"""


def one_document_holds_all(phrases: list[str], folder_ids: list[int], *, configs: list[str]) -> bool:
    """Whether one readable document holds every one of `phrases` (each as adjacent lexemes, in
    any chunk of it). `configs`: as for `lexeme_postings`."""
    if not phrases or not folder_ids:
        return False
    params: dict[str, Any] = {"phrases": phrases, "folders": folder_ids, "configs": configs}
    with connection.cursor() as cursor:
        cursor.execute(_ALL_IN_ONE_DOCUMENT_SQL, params)
        row = cursor.fetchone()
    return bool(row and row[0])


# Per word and configuration: its lexeme (stop words have none and drop out) and how many readable
# chunks hold it, summed over the packed postings' rows of the readable folders; per word, the
# configuration that finds it in most chunks.
_WORDS_HELD_SQL = """
WITH candidates AS (
    SELECT c.word, r.config, u.lexeme
      FROM unnest(%(words)s::text[]) AS c(word)
     CROSS JOIN unnest(%(configs)s::regconfig[]) AS r(config)
     CROSS JOIN LATERAL unnest(to_tsvector(r.config, c.word)) AS u
),
per_config AS (
    SELECT c.word, sum(b.chunk_count) AS chunks
      FROM candidates AS c
      JOIN search_lexemeblock AS b ON b.lexeme = c.lexeme AND b.folder_id = ANY(%(folders)s::bigint[])
     GROUP BY c.word, c.config
)
SELECT word, max(chunks) FROM per_config GROUP BY word
"""


def words_held(words: list[str], folder_ids: list[int], *, configs: list[str]) -> dict[str, int]:
    """How many chunks of the readable folders hold each of `words` (as the index reads it);
    words no such chunk holds are left out. `configs`: as for `lexeme_postings`."""
    if not words or not folder_ids:
        return {}
    params: dict[str, Any] = {
        "words": words,
        "folders": folder_ids,
        "configs": configs,
    }
    with connection.cursor() as cursor:
        cursor.execute(_WORDS_HELD_SQL, params)
        return {word: int(count) for word, count in cursor.fetchall()}
