"""Search grouped by document (search/services/grouping.py) against plain SQL oracles.

The oracles restate the definition of "matching" (README, "Result list") without the packed
postings, the fusion or the grouping code: a document holds a chunk whose search_vector meets
an OR of the query's lexemes, or a chunk among the exact nearest SEARCH_CANDIDATES_PER_LEG
(a sequential scan, no HNSW) within ANSWER_MAX_DISTANCE.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

import pytest
from django.db import connection, transaction

from search.services.dense import dense_params
from search.services.grouping import group_documents, matching_passages, search_documents, split_marks
from search.services.query_embedding import embed_query, vector_literal
from search.services.question_reading import question_reading
from search.services.terms import lexical_query
from tests.conftest import dev_reader
from tests.factories import UserFactory
from tests.search.bm25_oracle import oracle_lexemes

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUERIES = [
    "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?",
    "What is the default block size inside a Bigtable SSTable?",
    "consensus leader election",
    "bitcoin",
]


def _lexical_oracle(query: str, folder_ids: list[int]) -> set[int]:
    # tsvector has no array overlap: compare the chunk's lexemes as an array.
    sql = """
    SELECT DISTINCT c.document_id
      FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
     WHERE d.folder_id = ANY(%(folders)s) AND tsvector_to_array(c.search_vector) && %(lexemes)s::text[]
    """
    lexemes = sorted(oracle_lexemes(lexical_query(query, question_reading(query, folder_ids).variants), folder_ids))
    with connection.cursor() as cursor:
        cursor.execute(sql, {"lexemes": lexemes, "folders": folder_ids})
        return {row[0] for row in cursor.fetchall()}


def _dense_oracle(query: str, folder_ids: list[int], limit: int, threshold: float) -> set[int]:
    literal = vector_literal(embed_query(query)[0])
    sql = """
    SELECT c.document_id, c.embedding <=> %(vector)s::vector AS distance
      FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
     WHERE d.folder_id = ANY(%(folders)s) AND d.embedding_model = %(model)s AND d.embedding_dims = %(dims)s
       AND c.embedding IS NOT NULL
     ORDER BY distance, c.id LIMIT %(limit)s
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(sql, dense_params(literal, folder_ids, limit))
        return {doc for doc, distance in cursor.fetchall() if distance <= threshold}


def _all_pages(query: str, folder_ids: list[int], page_size: int) -> list[Any]:
    first = group_documents(query=query, folder_ids=folder_ids, page=1, page_size=page_size)
    documents = list(first.documents)
    for page in range(2, first.pages + 1):
        documents += group_documents(query=query, folder_ids=folder_ids, page=page, page_size=page_size).documents
    assert len(documents) == first.total
    return documents


@pytest.mark.parametrize("query", QUERIES)
def test_count_and_documents_equal_the_oracle(dev_corpus: dict[str, Any], settings: Any, query: str) -> None:
    folder_ids = sorted({d.folder_id for d in dev_corpus.values()})
    expected = _lexical_oracle(query, folder_ids) | _dense_oracle(
        query, folder_ids, settings.SEARCH_CANDIDATES_PER_LEG, settings.ANSWER_MAX_DISTANCE
    )
    documents = _all_pages(query, folder_ids, page_size=3)
    ids = [d.document_id for d in documents]
    assert len(ids) == len(set(ids)), "a document listed twice"
    assert set(ids) == expected
    # Best first, each by its best passage; every page is cut from the same order.
    scores = [d.score for d in documents]
    assert scores == sorted(scores, reverse=True)
    assert all(1 <= len(d.passages) <= 3 for d in documents)
    assert all(d.score == d.passages[0].score for d in documents)


def test_threshold_zero_leaves_exactly_the_lexical_documents(dev_corpus: dict[str, Any], settings: Any) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.0
    folder_ids = sorted({d.folder_id for d in dev_corpus.values()})
    for query in QUERIES:
        page = group_documents(query=query, folder_ids=folder_ids, page=1, page_size=50)
        assert page.total == len(_lexical_oracle(query, folder_ids)), query


def test_passages_are_the_fused_order_grouped(dev_corpus: dict[str, Any]) -> None:
    """A document's passages are its own best matching passages, in the fused order."""
    folder_ids = sorted({d.folder_id for d in dev_corpus.values()})
    passages = matching_passages(QUERIES[0], folder_ids)
    owner = {c.pk: c.document_id for d in dev_corpus.values() for c in d.chunks.all()}
    documents = group_documents(query=QUERIES[0], folder_ids=folder_ids, page=1, page_size=50).documents
    for doc in documents:
        own = [pk for pk, _ in passages if owner[pk] == doc.document_id][:3]
        assert [p.chunk_id for p in doc.passages] == own
    best = next(iter(d for d in dev_corpus.values() if d.original_name.endswith("dynamo-amazon-2007.pdf")))
    assert documents[0].document_id == best.pk


def test_snippets_mark_exactly_the_query_lexemes(dev_corpus: dict[str, Any]) -> None:
    query = "What is the default block size inside a Bigtable SSTable?"
    folder_ids = sorted({d.folder_id for d in dev_corpus.values()})
    lexemes = oracle_lexemes(lexical_query(query, question_reading(query, folder_ids).variants), folder_ids)
    page = group_documents(query=query, folder_ids=folder_ids, page=1, page_size=10)
    marked = [p.snippet[a:b] for d in page.documents for p in d.passages for a, b in p.highlights]
    assert marked, "no word highlighted"
    for word in set(marked):
        assert oracle_lexemes(word, folder_ids) & lexemes, word
    top = page.documents[0]
    assert top.title == "bigtable-google-2006"
    assert any("sstable" in w.lower() for w in marked)
    assert top.passages[0].url.startswith(f"/documents/{top.document_id}/view#char=")


def test_pages_partition_the_list_and_a_page_beyond_is_empty(dev_corpus: dict[str, Any]) -> None:
    user = dev_reader()
    whole = search_documents(user=user, query="replication", page=1, page_size=50)
    assert whole.total == len(whole.documents) > 4
    first = search_documents(user=user, query="replication", page=1, page_size=2)
    second = search_documents(user=user, query="replication", page=2, page_size=2)
    assert first.total == second.total == whole.total
    assert [d.document_id for d in first.documents + second.documents] == [d.document_id for d in whole.documents][:4]
    beyond = search_documents(user=user, query="replication", page=first.pages + 1, page_size=2)
    assert beyond.documents == []
    assert beyond.total == whole.total


def test_a_reader_of_nothing_matches_nothing(dev_corpus: dict[str, Any]) -> None:
    outsider = UserFactory(username="grouping-outsider")
    page = search_documents(user=outsider, query="replication", page=1)
    assert page.total == 0
    assert page.documents == []


def test_split_marks() -> None:
    assert split_marks("a \x01bc\x02 d \x01e\x02") == ("a bc d e", [(2, 4), (7, 8)])
    assert split_marks("plain") == ("plain", [])


def test_api_group_document(client: Any, dev_corpus: dict[str, Any]) -> None:
    from tests.conftest import bearer

    reader = dev_reader()
    query = "What is the default block size inside a Bigtable SSTable?"
    response = client.get("/api/search", {"q": query, "group": "document", "page_size": 2}, **bearer(reader))
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {
        "query",
        "group",
        "items",
        "count",
        "next",
        "total",
        "page",
        "page_size",
        "facets",
        "documents",
    }
    expected = search_documents(user=reader, query=query, page=1, page_size=50)
    assert body["count"] == body["total"] == expected.total > 2
    facets = body["facets"]  # the matching documents of every page, not only this page's two
    assert facets["documents"] == sum(f["count"] for f in facets["type"]) == body["count"]
    for value in facets["type"]:
        narrowed = client.get(
            "/api/search", {"q": query, "group": "document", "type": value["value"]}, **bearer(reader)
        )
        assert narrowed.json()["count"] == value["count"]
    assert body["documents"] == body["items"]  # deprecated alias, one release
    assert (body["group"], body["page"], body["page_size"]) == ("document", 1, 2)
    assert [d["document"]["id"] for d in body["items"]] == [d.document_id for d in expected.documents[:2]]
    top = body["items"][0]
    bigtable = dev_corpus["bigtable-google-2006.pdf"]
    assert top["document"] == {
        "id": bigtable.pk,
        "title": "bigtable-google-2006",
        "folder": {"id": bigtable.folder_id, "name": bigtable.folder.name, "path": bigtable.folder.name},
        "type": "pdf",
    }
    assert (top["document_id"], top["title"], top["folder"]) == (
        bigtable.pk,
        "bigtable-google-2006",
        top["document"]["folder"],
    )
    assert top["url"] == top["passages"][0]["url"]
    for passage in top["passages"]:
        assert passage["url"] == (
            f"http://testserver/documents/{bigtable.pk}/view#char={passage['char_start']},{passage['char_end']}"
        )
        assert all(0 <= a < b <= len(passage["snippet"]) for a, b in passage["highlights"])
    assert body["next"] == f"http://testserver/api/search?q={quote_plus(query)}&group=document&page_size=2&page=2"
    second = client.get(body["next"], **bearer(reader))
    assert [d["document"]["id"] for d in second.json()["items"]] == [d.document_id for d in expected.documents[2:4]]
    for bad in ({"page_size": 51}, {"page": 0}, {"mode": "dense"}):
        refused = client.get("/api/search", {"q": query, "group": "document", **bad}, **bearer(reader))
        assert refused.status_code == 422, (bad, refused.content)
    ungrouped = client.get("/api/search", {"q": query}, **bearer(reader)).json()
    assert "items" in ungrouped
    assert "documents" not in ungrouped


def _listed(page: Any) -> list[tuple[int, float, list[int]]]:
    return [(d.document_id, d.score, [p.chunk_id for p in d.passages]) for d in page.documents]


def test_the_answers_dense_leg_gives_the_list_it_would_have_ranked(
    dev_corpus: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search page's list reuses its answer's mended dense ranking (search.services.dense.DenseLeg):
    the same documents, scores and passages as ranking it again, with no dense query of its own."""
    from documents.filters import Filters
    from search.services import grouping
    from search.services.retrieval import search_chunks

    user = dev_reader()
    dynamo = next(d for d in dev_corpus.values() if d.original_name.endswith("dynamo-amazon-2007.pdf"))
    narrowed = Filters(document=dynamo.pk)
    for query in QUERIES:
        legs = {f: search_chunks(user=user, query=query, k=10, filters=f).dense_leg for f in (None, narrowed)}
        assert all(leg is not None and leg.ranking for leg in legs.values())
        ranked_again = {f: _listed(search_documents(user=user, query=query, filters=f)) for f in legs}
        with monkeypatch.context() as patched:
            patched.setattr(grouping, "dense_candidates", _no_dense_query)
            for f, leg in legs.items():
                assert _listed(search_documents(user=user, query=query, filters=f, dense_leg=leg)) == ranked_again[f]
        # Another scope's ranking is not this one's: the list ranks its own.
        assert _listed(search_documents(user=user, query=query, dense_leg=legs[narrowed])) == ranked_again[None]


def _no_dense_query(*args: Any) -> list[tuple[int, float]]:
    raise AssertionError("the dense leg was queried again")
