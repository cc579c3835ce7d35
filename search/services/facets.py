"""Facet counts beside a search's filters: by type, tag, language, year (of `published`) and folder.

What is counted is what the response lists, so a count says how many documents a facet's link
will list:
- the result list (the search page, `/api/search?group=document`): its matching documents, every
  page of them (`document_facets`, search/services/grouping.py);
- a passage search (`/api/search`): the documents owning at least one of the passages its two
  legs ranked, up to SEARCH_CANDIDATES_PER_LEG each, fused (`facet_counts`).
Both are under the permission filter and every active filter, since both legs already keep to
them (search/services/scope.py). Each document counts once per value it has (a document with two
tags counts under both; one without a date under no year). A document the reader may not read,
or one not indexed, is never counted: the query keeps to the readable folders and indexed
documents again, so no count can reveal one. One query over the ids: a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import connection
from psycopg import sql

from documents.extraction.formats import FORMAT_BY_MEDIA_TYPE
from documents.filters import TYPE_LABELS, language_label
from documents.selectors import visible_folder_paths

if TYPE_CHECKING:
    from documents.selectors import AnyUser


@dataclass(frozen=True)
class FacetValue:
    value: str  # what the filter parameter takes: a type key, a tag name, a year, a folder id
    label: str
    count: int


@dataclass
class Facets:
    documents: int = 0  # distinct documents counted
    type: list[FacetValue] = field(default_factory=list)
    tag: list[FacetValue] = field(default_factory=list)
    language: list[FacetValue] = field(default_factory=list)
    year: list[FacetValue] = field(default_factory=list)
    folder: list[FacetValue] = field(default_factory=list)


# The documents counted: those owning the chunks a search ranked, or those a result list matched.
_FOUND_BY_CHUNKS = """
    SELECT DISTINCT d.id, d.content_type, d.folder_id, d.language, extract(year FROM d.published)::int AS year
      FROM documents_chunk AS c
      JOIN documents_document AS d ON d.id = c.document_id
     WHERE c.id = ANY(%(ids)s::bigint[])
       AND d.folder_id = ANY(%(folders)s::bigint[])
       AND d.indexed_at IS NOT NULL
"""
_FOUND_BY_DOCUMENTS = """
    SELECT d.id, d.content_type, d.folder_id, d.language, extract(year FROM d.published)::int AS year
      FROM documents_document AS d
     WHERE d.id = ANY(%(ids)s::bigint[])
       AND d.folder_id = ANY(%(folders)s::bigint[])
       AND d.indexed_at IS NOT NULL
"""
_COUNTS = """
WITH found AS ({found})
SELECT 'all', '', count(*) FROM found
UNION ALL
SELECT 'type', content_type, count(*) FROM found GROUP BY content_type
UNION ALL
SELECT 'tag', t.name, count(*)
  FROM found JOIN documents_document_tags AS dt ON dt.document_id = found.id JOIN documents_tag AS t ON t.id = dt.tag_id
 GROUP BY t.name
UNION ALL
SELECT 'language', language, count(*) FROM found WHERE language <> '' GROUP BY language
UNION ALL
SELECT 'year', year::text, count(*) FROM found WHERE year IS NOT NULL GROUP BY year
UNION ALL
SELECT 'folder', folder_id::text, count(*) FROM found GROUP BY folder_id
"""


def _counts_sql(found: str) -> str:
    """The counts over the documents `found` selects."""
    return sql.SQL(_COUNTS).format(found=sql.SQL(found)).as_string()


COUNTS_BY_CHUNKS_SQL = _counts_sql(_FOUND_BY_CHUNKS)
COUNTS_BY_DOCUMENTS_SQL = _counts_sql(_FOUND_BY_DOCUMENTS)


def facet_counts(*, user: AnyUser, chunk_ids: list[int], folder_ids: list[int]) -> Facets:
    """Counts over the documents owning `chunk_ids` (a search's candidates) in `folder_ids`."""
    return _counted(COUNTS_BY_CHUNKS_SQL, chunk_ids, folder_ids, user)


def document_facets(*, user: AnyUser, document_ids: list[int], folder_ids: list[int]) -> Facets:
    """Counts over `document_ids` (a result list's matching documents, every page) in `folder_ids`."""
    return _counted(COUNTS_BY_DOCUMENTS_SQL, document_ids, folder_ids, user)


def _counted(statement: str, ids: list[int], folder_ids: list[int], user: AnyUser) -> Facets:
    facets = Facets()
    if not ids or not folder_ids:
        return facets
    with connection.cursor() as cursor:
        cursor.execute(statement, {"ids": ids, "folders": folder_ids})
        rows = cursor.fetchall()
    by_type: dict[str, int] = {}
    for kind, value, count in rows:
        if kind == "all":
            facets.documents = count
        elif kind == "type":  # media types of one format (application/x-pdf, …) count as one
            key = FORMAT_BY_MEDIA_TYPE[value].key if value in FORMAT_BY_MEDIA_TYPE else value
            by_type[key] = by_type.get(key, 0) + count
        elif kind == "tag":
            facets.tag.append(FacetValue(value, value, count))
        elif kind == "language":
            facets.language.append(FacetValue(value, language_label(value), count))
        elif kind == "year":
            facets.year.append(FacetValue(value, value, count))
        else:
            facets.folder.append(FacetValue(value, "", count))
    facets.type = [FacetValue(key, str(TYPE_LABELS.get(key, key)), count) for key, count in by_type.items()]
    paths = visible_folder_paths(user=user, folder_ids=[int(f.value) for f in facets.folder])
    facets.folder = [FacetValue(f.value, paths.get(int(f.value), ""), f.count) for f in facets.folder]
    for values in (facets.type, facets.tag, facets.language, facets.folder):
        values.sort(key=lambda f: (-f.count, f.label.lower()))
    facets.year.sort(key=lambda f: f.value, reverse=True)
    return facets
