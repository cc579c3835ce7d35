"""What most PostgreSQL RAG stacks do for the lexical leg: ts_rank_cd over the GIN index.

Kept as a yardstick only (bench_search times it, `evaluate` scores it as the "ts_rank_cd" leg);
search uses BM25 (search/services/bm25_packed.py). The query is an OR of the query's lexemes
(plainto_tsquery's AND and phrase operators turned into OR, its quoted lexemes untouched), the
rows are filtered with `@@` through the GIN index on search_vector, then ranked by
ts_rank_cd (cover density, no corpus statistics) inside the caller's folders. The query is read
with the configurations BM25 reads it with (search/services/question_reading.py).
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from search.services.question_reading import question_reading

# plainto_tsquery's operators (& and phrase <->, <N>) sit between quoted lexemes, with spaces.
_OPERATORS = "' (&|<->|<[0-9]+>) '"
# Any of the query's lexemes in any configuration, as a tsquery (bench/lexical.py filters its BM25
# reference with it too); NULL, matching nothing, when the query has none.
OR_QUERY = f"""(SELECT string_agg(nullif(regexp_replace(plainto_tsquery(r.config, %(query)s)::text,
                                                      {_OPERATORS}, ' | ', 'g'), ''), ' | ')
                  FROM unnest(%(configs)s::regconfig[]) AS r(config))::tsquery"""
TS_RANK_CD_SQL = f"""
WITH q AS (
    SELECT {OR_QUERY} AS query
)
SELECT c.id, ts_rank_cd(c.search_vector, q.query) AS rank
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
 CROSS JOIN q
 WHERE d.folder_id = ANY(%(folders)s) AND c.search_vector @@ q.query
 ORDER BY rank DESC, c.id
 LIMIT %(limit)s
"""


def ts_rank_cd_params(query: str, folder_ids: list[int], limit: int, configs: list[str]) -> dict[str, Any]:
    return {"query": query, "folders": folder_ids, "limit": limit, "configs": configs}


def ts_rank_cd_candidates(query: str, folder_ids: list[int], limit: int, configs: list[str]) -> list[tuple[int, float]]:
    """(chunk id, ts_rank_cd) of the `limit` best chunks matching any query lexeme in `configs`, best first."""
    if not folder_ids or limit <= 0 or not query.strip():
        return []
    with connection.cursor() as cursor:
        cursor.execute(TS_RANK_CD_SQL, ts_rank_cd_params(query.replace("\x00", ""), folder_ids, limit, configs))
        return [(int(pk), float(rank)) for pk, rank in cursor.fetchall()]


def ts_rank_cd_contents(query: str, folder_ids: list[int], limit: int) -> list[str]:
    """The contents of the ts_rank_cd leg's hits, best first (what `evaluate` ranks needles in)."""
    from documents.models import Chunk

    configs = question_reading(query, folder_ids).configs
    ids = [pk for pk, _ in ts_rank_cd_candidates(query, folder_ids, limit, configs)]
    contents = dict(Chunk.objects.filter(pk__in=ids).values_list("pk", "content"))
    return [contents[pk] for pk in ids if pk in contents]
