"""Documents, not passages: every matching document once, best first, with its best passages.

What "matching" means (docs/readers.md): a readable, indexed document matches a query when

- one of its chunks holds a lexeme of the query (the lexemes BM25 matches: to_tsvector with the
  configurations search/services/question_reading.py chooses), or
- one of its chunks is among the dense leg's candidates (SEARCH_CANDIDATES_PER_LEG nearest,
  mended as retrieval mends them) within the answer gate's distance (ANSWER_MAX_DISTANCE).

Those chunks are a document's matching passages. Each is scored by relative score fusion of
the dense candidates and the full BM25 ranking (every chunk holding a query lexeme, not only
the leg's top), with retrieval's dense share and each leg scaled over the candidates retrieval
fuses, so the chunks retrieval ranks agree with its order.
A document ranks by its best matching passage; ties go to the lower document id. `total` counts
exactly the documents so defined: it comes from the same chunk lists the page is cut from.

Cost per call: the query vector (search.services.query_embedding caches it, so a page that has
just answered the same question does not run the model again), the dense leg and its mending
(neither when the caller passes the `DenseLeg` its answer's search has just ranked for the same
question and scope), the BM25 postings of the query's lexemes (one statement, every posting, as
the lexical leg reads them), one query mapping the matching chunks to their documents, and one
query for the page's documents and their snippets (ts_headline over the chunks shown only).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection
from psycopg import sql

from documents.filters import Filters
from documents.selectors import tag_names_of, visible_folder_paths
from search.services.bm25_packed import bm25_packed
from search.services.dense import DenseLeg, candidate_distances, dense_candidates, dense_mended
from search.services.facets import Facets, document_facets
from search.services.fusion import keyword_match, relative_score_fusion, search_dense_share
from search.services.hydration import HIT_COLUMNS, HIT_FROM, SearchHit, fetch_rows, hit_from_row
from search.services.query_embedding import clean_query, embed_query, vector_literal
from search.services.question_reading import QuestionReading, question_reading
from search.services.scope import Scope, search_scope
from search.services.terms import lexical_query

if TYPE_CHECKING:
    from documents.selectors import AnyUser

MAX_PAGE_SIZE = 50
PASSAGES_PER_DOCUMENT = 3
# Every chunk holding a query lexeme: the packed leg scores them all anyway; this only lifts its cut.
_ALL = 2**31 - 1


@dataclass
class DocumentMatch:
    document_id: int
    title: str
    folder_id: int
    folder_name: str
    folder_path: str  # as the reader may see it (documents.selectors.visible_folder_paths)
    content_type: str
    page_count: int
    indexed_at: datetime | None
    score: float
    authors: list[str] = field(default_factory=list)
    published: date | None = None
    tags: list[str] = field(default_factory=list)
    passages: list[SearchHit] = field(default_factory=list)  # with snippets, no content

    @property
    def is_pdf(self) -> bool:
        return self.content_type == "application/pdf"


@dataclass
class DocumentPage:
    query: str
    total: int  # matching documents, all pages
    page: int
    page_size: int
    documents: list[DocumentMatch] = field(default_factory=list)
    facets: Facets | None = None  # over the matching documents of every page, when asked for
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def first_rank(self) -> int:
        return (self.page - 1) * self.page_size + 1


def search_documents(
    *,
    user: AnyUser,
    query: str,
    filters: Filters | None = None,
    page: int = 1,
    page_size: int = 10,
    dense_leg: DenseLeg | None = None,
    facets: bool = False,
) -> DocumentPage:
    """`group_documents` over what `user` may read, narrowed by `filters` inside both legs' SQL
    (search/services/scope.py); a filter's folder or document the user may not read raises
    NotFoundOrForbidden. Filters that match no document match nothing (never everything).
    `dense_leg`: a search's ranking of this question, used when it is for this scope; `facets`:
    count the matching documents beside the filters too (one more query)."""
    scope = search_scope(user, filters)
    if scope.documents == []:
        return DocumentPage(query=clean_query(query), total=0, page=page, page_size=page_size,
                            facets=Facets() if facets else None)  # fmt: skip
    return group_documents(query=query, folder_ids=scope.folder_ids, page=page, page_size=page_size, user=user,
                           scope=scope, dense_leg=dense_leg, facets=facets)  # fmt: skip


def group_documents(
    *,
    query: str,
    folder_ids: list[int],
    page: int = 1,
    page_size: int = 10,
    user: AnyUser = None,
    scope: Scope | None = None,
    dense_leg: DenseLeg | None = None,
    facets: bool = False,
) -> DocumentPage:
    """Page `page` of the documents matching `query` in `folder_ids` (the caller vouches they are
    readable; `user` only decides how folder paths are shown); with `facets`, the counts of every
    page's documents (search/services/facets.py)."""
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page must be 1 or more and page_size 1..{MAX_PAGE_SIZE}, not {page} and {page_size}")
    started = time.perf_counter()
    text = clean_query(query)
    result = DocumentPage(query=text, total=0, page=page, page_size=page_size, facets=Facets() if facets else None)
    if not text or not folder_ids:
        return result
    reading = question_reading(text, folder_ids)
    ranked = matching_documents(text, folder_ids, scope, dense_leg, reading=reading)
    result.total = len(ranked)
    if facets:
        ids = [d.document_id for d in ranked]
        result.facets = document_facets(user=user, document_ids=ids, folder_ids=folder_ids)
    chosen = ranked[(page - 1) * page_size : page * page_size]
    result.documents = _hydrate(text, chosen, folder_ids, user, reading)
    result.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
    return result


@dataclass
class _Ranked:
    document_id: int
    score: float
    chunks: list[tuple[int, float]]  # (chunk id, fused score), best first


def matching_passages(
    text: str,
    folder_ids: list[int],
    scope: Scope | None = None,
    dense_leg: DenseLeg | None = None,
    *,
    reading: QuestionReading | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, fused score) of every matching passage (module docstring), best first; `scope`'s
    document filter applies inside both legs; `reading`: the question's languages and
    configurations (search/services/question_reading.py), read here when not given."""
    reading = reading or question_reading(text, folder_ids)
    documents = scope.documents if scope is not None else None
    chunk_count = scope.chunk_count if scope is not None else 0
    keywords = lexical_query(text, reading.variants)
    lexical, ceiling = bm25_packed(keywords, folder_ids, _ALL, documents, chunk_count, configs=reading.configs)
    per_leg = settings.SEARCH_CANDIDATES_PER_LEG
    literal = vector_literal(embed_query(text)[0])
    if dense_leg is not None and dense_leg.serves(literal, folder_ids, documents, per_leg):
        dense = list(dense_leg.ranking)
    else:
        dense = _dense_leg(literal, folder_ids, scope, lexical[:per_leg])
    threshold = settings.ANSWER_MAX_DISTANCE
    eligible = {pk for pk, _ in lexical} | {pk for pk, distance in dense if distance <= threshold}
    fused = relative_score_fusion(
        dense,
        lexical,
        dense_share=search_dense_share(text, reading.language, reading.languages_held, keyword_match(lexical, ceiling)),
        depth=per_leg,  # each leg scaled over what retrieval fuses, so the two orders agree
    )
    return [(f.chunk_id, f.score) for f in fused if f.chunk_id in eligible]


def _dense_leg(
    literal: str, folder_ids: list[int], scope: Scope | None, top: list[tuple[int, float]]
) -> list[tuple[int, float]]:
    """The dense leg, mended as retrieval mends it: with the distances of the lexical leg's `top`."""
    documents = scope.documents if scope is not None else None
    per_leg = settings.SEARCH_CANDIDATES_PER_LEG
    dense = dense_candidates(literal, folder_ids, per_leg, documents, scope.chunk_count if scope is not None else 0)
    if top and settings.SEARCH_MEND_DENSE:
        distances = candidate_distances(literal, folder_ids, [pk for pk, _ in top], documents)
        dense = dense_mended(dense, distances, literal, folder_ids, per_leg, documents)
    return dense


def matching_documents(
    text: str,
    folder_ids: list[int],
    scope: Scope | None = None,
    dense_leg: DenseLeg | None = None,
    *,
    reading: QuestionReading | None = None,
) -> list[_Ranked]:
    """Every matching document once, by its best matching passage (ties: lower document id)."""
    passages = matching_passages(text, folder_ids, scope, dense_leg, reading=reading)
    if not passages:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, document_id FROM documents_chunk WHERE id = ANY(%s::bigint[])", [[pk for pk, _ in passages]]
        )
        owner = dict(cursor.fetchall())
    documents: dict[int, _Ranked] = {}
    for chunk_id, score in passages:  # best first: a document's first passage is its best
        document_id = owner.get(chunk_id)
        if document_id is None:  # deleted meanwhile
            continue
        entry = documents.setdefault(document_id, _Ranked(document_id, score, []))
        entry.chunks.append((chunk_id, score))
    return sorted(documents.values(), key=lambda d: (-d.score, d.document_id))


# The page's documents and their shown passages in one round trip. Snippets are ts_headline
# fragments over the chunk's own words, read with its language's configuration, marking the
# query's lexemes (an OR of them, built from the same to_tsvector calls as the BM25 leg, each
# quoted as a tsquery literal so no character of the query is read as an operator). The markers
# are control characters removed from the text first.
_PAGE_SQL = (
    sql.SQL("""
WITH q AS (
    SELECT string_agg('''' || replace(replace(u.lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery AS query
      FROM (SELECT DISTINCT v.lexeme
              FROM unnest(%(configs)s::regconfig[]) AS r(config)
             CROSS JOIN LATERAL unnest(to_tsvector(r.config, %(query)s::text)) AS v) AS u
)
SELECT {hit_columns},
       CASE WHEN q.query IS NULL THEN left(translate(c.content, E'\\x01\\x02', '  '), 300)
            ELSE ts_headline(documents_text_search_config(coalesce(nullif(c.language, ''), d.language)),
                             translate(c.content, E'\\x01\\x02', '  '), q.query,
                             'StartSel=' || chr(1) || ', StopSel=' || chr(2) ||
                             ', MaxWords=40, MinWords=18, MaxFragments=2, FragmentDelimiter=" … "')
       END AS marked,
       coalesce(d.page_count, 0) AS page_count, d.indexed_at
  FROM {hit_from}
 CROSS JOIN q
 WHERE c.id = ANY(%(ids)s::bigint[]) AND d.folder_id = ANY(%(folders)s::bigint[])
""")
    .format(hit_columns=sql.SQL(HIT_COLUMNS), hit_from=sql.SQL(HIT_FROM))
    .as_string()
)


def _hydrate(
    text: str, chosen: list[_Ranked], folder_ids: list[int], user: AnyUser, reading: QuestionReading
) -> list[DocumentMatch]:
    shown = {pk: score for d in chosen for pk, score in d.chunks[:PASSAGES_PER_DOCUMENT]}
    if not shown:
        return []
    params = {
        "query": lexical_query(text, reading.variants),
        "ids": list(shown),
        "folders": folder_ids,
        "configs": reading.configs,
    }
    rows = {row["chunk_id"]: row for row in fetch_rows(_PAGE_SQL, params)}
    paths = visible_folder_paths(user=user, folder_ids={row["folder_id"] for row in rows.values()})
    tags = tag_names_of({row["document_id"] for row in rows.values()})
    matches: list[DocumentMatch] = []
    for ranked in chosen:
        own = [rows[pk] for pk, _ in ranked.chunks[:PASSAGES_PER_DOCUMENT] if pk in rows]
        if not own:  # deleted between ranking and hydration
            continue
        passages = [_passage(row, shown[row["chunk_id"]]) for row in own]
        best = passages[0]
        match = DocumentMatch(
            document_id=ranked.document_id,
            title=best.document_title,
            folder_id=best.folder_id,
            folder_name=best.folder_name,
            folder_path=paths.get(best.folder_id, ""),
            content_type=best.content_type,
            page_count=own[0]["page_count"],
            indexed_at=own[0]["indexed_at"],
            score=ranked.score,
            authors=best.document_authors,
            published=best.document_published,
            tags=tags.get(ranked.document_id, []),
            passages=passages,
        )
        matches.append(match)
    return matches


def _passage(row: dict[str, Any], score: float) -> SearchHit:
    snippet, highlights = split_marks(row["marked"] or "")
    return hit_from_row(row, score=score, snippet=snippet, highlights=highlights)


def split_marks(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """ts_headline's output (\\x01 word \\x02) as plain text and the [start, end) of each marked word."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    length, opened = 0, None
    for ch in marked:
        if ch == "\x01":
            opened = length
        elif ch == "\x02":
            if opened is not None and opened < length:
                spans.append((opened, length))
            opened = None
        else:
            text.append(ch)
            length += 1
    return "".join(text), spans
