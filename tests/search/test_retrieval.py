"""Hybrid retrieval: permissions inside SQL, the gate, stale models, the query cache, SQL count."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection

from documents.filters import Filters
from documents.models import Document
from ragsite.errors import NotFoundOrForbidden
from search.services import query_embedding
from search.services.bm25_packed import bm25_packed
from search.services.dense import DENSE_SQL, dense_params
from search.services.fusion import MATCHED_SHARE, keyword_match, matched_share, relative_score_fusion
from search.services.question_reading import question_reading
from search.services.retrieval import retrieve, search_chunks
from search.services.terms import lexical_query
from tests.conftest import dev_reader, ingest_text
from tests.factories import FolderFactory, StaffFactory, UserFactory
from tests.search.bm25_cases import phrasings
from tests.search.bm25_oracle import bm25_oracle, ceiling_oracle

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?"


def dev_folder_id(dev_corpus: dict[str, Any]) -> int:
    return next(iter(dev_corpus.values())).folder_id


PUBLIC_TEXT = "Dynamo hashes every key with MD5 to place it on the ring of storage nodes, public edition."


@pytest.fixture
def public_folder(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Public notes", is_public=True)
    ingest_text(tmp_path, folder, "Public Dynamo note", PUBLIC_TEXT)
    return folder


def test_reader_finds_the_needle_in_every_mode(dev_corpus: dict[str, Any]) -> None:
    user = dev_reader()
    for mode in ("dense", "bm25", "hybrid"):
        result = search_chunks(user=user, query=QUESTION, k=10, mode=mode)
        assert not result.refused
        assert result.best_distance is not None
        assert result.best_distance <= result.threshold
        assert any("MD5 hash on the key" in hit.content for hit in result.hits), mode
        assert all(hit.distance is not None for hit in result.hits), mode
        assert set(result.timings_ms) >= {"embed", "dense", "total"} | ({"bm25"} if mode != "dense" else set())
    hybrid = search_chunks(user=user, query=QUESTION, k=10)
    assert [h.score for h in hybrid.hits] == sorted((h.score for h in hybrid.hits), reverse=True)
    assert all(h.dense_rank is not None or h.bm25_rank is not None for h in hybrid.hits)
    bm25_only = [h for h in hybrid.hits if h.dense_rank is None]
    assert all(h.distance is not None for h in bm25_only)  # distance computed for BM25-only hits too


def test_user_without_access_gets_nothing_and_no_count(dev_corpus: dict[str, Any]) -> None:
    outsider = UserFactory(username="outsider")
    for mode in ("dense", "bm25", "hybrid"):
        result = search_chunks(user=outsider, query=QUESTION, mode=mode)
        assert result.hits == []
        assert result.refused
        assert result.best_distance is None  # not even how close the hidden text is
    # Asking for the dev folder explicitly does not help either: the same answer as a folder that
    # does not exist.
    with pytest.raises(NotFoundOrForbidden) as hidden:
        search_chunks(user=outsider, query=QUESTION, filters=Filters(folder=dev_folder_id(dev_corpus)))
    with pytest.raises(NotFoundOrForbidden) as missing:
        search_chunks(user=outsider, query=QUESTION, filters=Filters(folder=10**9))
    assert str(hidden.value).replace(str(dev_folder_id(dev_corpus)), "N") == str(missing.value).replace(str(10**9), "N")


def test_anonymous_sees_only_public_folders(dev_corpus: dict[str, Any], public_folder: Any) -> None:
    for user in (None, AnonymousUser()):
        result = search_chunks(user=user, query=QUESTION, k=20, mode="hybrid")
        assert result.hits, "the public note is relevant"
        assert {hit.folder_id for hit in result.hits} == {public_folder.pk}
        bm25 = search_chunks(user=user, query="Bigtable SSTable block size", k=20, mode="bm25")
        assert all(hit.folder_id == public_folder.pk for hit in bm25.hits)


def test_staff_see_every_folder(dev_corpus: dict[str, Any], public_folder: Any) -> None:
    staff = StaffFactory(username="boss")
    result = search_chunks(user=staff, query=QUESTION, k=50)
    folders = {hit.folder_id for hit in result.hits}
    assert folders == {public_folder.pk, dev_folder_id(dev_corpus)}


def test_folder_argument_narrows_the_search(dev_corpus: dict[str, Any], public_folder: Any) -> None:
    staff = StaffFactory(username="boss")
    result = search_chunks(user=staff, query=QUESTION, filters=Filters(folder=public_folder.pk), k=50)
    assert result.hits
    assert {hit.folder_id for hit in result.hits} == {public_folder.pk}


def test_unreadable_documents_do_not_change_bm25_scores(
    dev_corpus: dict[str, Any], tmp_path: Path, memoised_pipeline: None
) -> None:
    reader = dev_reader()
    query = "Dynamo MD5 hash key placement"
    before = [(h.chunk_id, h.bm25_score) for h in search_chunks(user=reader, query=query, mode="bm25").hits]
    secret = FolderFactory(name="Secret")
    # Lots of the query's lexemes in a folder the reader cannot see: would shift N, avgdl and n(t).
    ingest_text(tmp_path, secret, "Secret", ("Dynamo MD5 hash key placement. " * 40 + "\n\n") * 5)
    after = [(h.chunk_id, h.bm25_score) for h in search_chunks(user=reader, query=query, mode="bm25").hits]
    # Same chunks, same order, same scores (up to float summation order, which may follow the plan).
    assert [pk for pk, _ in after] == [pk for pk, _ in before]
    assert [score for _, score in after] == pytest.approx([score for _, score in before], abs=1e-9)
    # ... while a caller who reads both folders gets different statistics.
    both = [dev_folder_id(dev_corpus), secret.pk]
    staff_scores = dict(bm25_packed(query, both, 50, configs=question_reading(query, both).configs).hits)
    reader_scores = {pk: score or 0.0 for pk, score in before}
    common = set(staff_scores) & set(reader_scores)
    assert common
    assert any(abs(staff_scores[pk] - reader_scores[pk]) > 1e-6 for pk in common)


def test_stale_model_documents_leave_the_dense_leg_but_stay_in_bm25(
    dev_corpus: dict[str, Any], tmp_path: Path, memoised_pipeline: None
) -> None:
    folder = FolderFactory(name="Mixed models")
    current = ingest_text(tmp_path, folder, "Current", "Zanzibar authorisation tuples for relation checks.")
    stale = ingest_text(tmp_path, folder, "Stale", "Zanzibar consistency tokens named zookies protect snapshots.")
    Document.objects.filter(pk=stale.pk).update(embedding_model="some-old-model")
    query = "Zanzibar zookies"
    dense = retrieve(query=query, folder_ids=[folder.pk], mode="dense")
    assert {h.document_id for h in dense.hits} == {current.pk}
    bm25 = retrieve(query=query, folder_ids=[folder.pk], mode="bm25")
    assert bm25.hits[0].document_id == stale.pk  # it alone holds "zookies"
    assert bm25.hits[0].distance is None  # its vector is from another space
    hybrid = retrieve(query=query, folder_ids=[folder.pk], mode="hybrid")
    stale_hit = next(h for h in hybrid.hits if h.document_id == stale.pk)
    assert stale_hit.dense_rank is None
    assert stale_hit.bm25_rank == 1


def test_gate_refuses_far_queries_and_names_the_threshold(dev_corpus: dict[str, Any], settings: Any) -> None:
    folder_id = dev_folder_id(dev_corpus)
    settings.ANSWER_MAX_DISTANCE = 0.05
    for mode in ("dense", "bm25", "hybrid"):
        result = retrieve(query=QUESTION, folder_ids=[folder_id], mode=mode)
        assert result.refused
        assert result.hits, mode  # the state says they do not answer; what was found is still listed
        assert result.threshold == 0.05
        assert result.best_distance is not None
        assert result.best_distance > 0.05


def test_off_topic_query_is_refused_at_the_default_threshold(dev_corpus: dict[str, Any]) -> None:
    result = retrieve(query="best sourdough bread recipe with rye flour", folder_ids=[dev_folder_id(dev_corpus)])
    assert result.refused
    assert result.best_distance is not None
    assert result.best_distance > result.threshold


def test_repeated_query_skips_the_model(dev_corpus: dict[str, Any]) -> None:
    query_embedding.clear_query_cache()
    spy = mock.Mock(wraps=query_embedding.embed_queries)
    with mock.patch.object(query_embedding, "embed_queries", spy):
        first = retrieve(query="leader election timeout", folder_ids=[dev_folder_id(dev_corpus)])
        second = retrieve(query="leader election timeout", folder_ids=[dev_folder_id(dev_corpus)])
        retrieve(query="  leader election timeout \x00", folder_ids=[dev_folder_id(dev_corpus)])
    assert spy.call_count == 1
    assert [h.chunk_id for h in first.hits] == [h.chunk_id for h in second.hits]


def test_query_cache_is_bounded(settings: Any, db: None) -> None:  # db: the vector column is checked
    settings.QUERY_EMBEDDING_CACHE_SIZE = 2
    query_embedding.clear_query_cache()
    fake = mock.Mock(side_effect=lambda texts: __import__("numpy").ones((1, 384), dtype="float32"))
    with mock.patch.object(query_embedding, "embed_queries", fake):
        for text in ("a", "b", "a", "c", "b"):
            query_embedding.embed_query(text)
    # a, b miss; a hits; c evicts b (least recently used); b misses again.
    assert [c.args[0] for c in fake.call_args_list] == [["a"], ["b"], ["c"], ["b"]]
    query_embedding.clear_query_cache()


def test_no_readable_folder_touches_no_table(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        result = retrieve(query=QUESTION, folder_ids=[])
    assert result.refused
    assert result.hits == []
    assert result.best_distance is None


@pytest.mark.parametrize(("mode", "folder_given"), [("hybrid", False), ("dense", False), ("bm25", True)])
def test_search_issues_a_fixed_number_of_queries(
    dev_corpus: dict[str, Any], django_assert_num_queries: Any, mode: str, folder_given: bool
) -> None:
    user = dev_reader()
    folder_id = dev_folder_id(dev_corpus) if folder_given else None
    search_chunks(user=user, query="warm the query cache", mode=mode)
    # folder ids, savepoint, set_config, dense SELECT, release, the coverage check of the
    # question's words (library and top passages), then, not for dense: savepoint, set_config,
    # packed BM25 SELECT, release, and the lexical candidates' exact distances (no second HNSW
    # probe, as HNSW misses nothing here); hydration; the languages of the library's documents
    # (read once: the text-search configurations, the fusion weights and the word checks follow
    # them).
    # A folder filter adds its access check, its subtree (readable ids and the parent map), the
    # allowed documents and, for the packed leg, their chunk ids; the dense leg then scans those
    # few chunks exactly, without the savepoint, set_config and release around an HNSW probe.
    for query in ("warm the query cache", QUESTION):
        expected = 1 + 4 + 1 + 5 * int(mode != "dense") + 1 + 1
        if folder_given:
            expected += 4 + int(mode != "dense") - 3
        with django_assert_num_queries(expected):
            search_chunks(user=user, query=query, filters=Filters(folder=folder_id), mode=mode, k=10)


def test_dense_leg_uses_the_hnsw_index(dev_corpus: dict[str, Any]) -> None:
    vector = "[" + ",".join(["0.05"] * 384) + "]"
    with connection.cursor() as cursor:
        # Small table: forbid the full scan + sort to see that the query *can* use the index
        # (the ORDER BY expression matches the vector_cosine_ops opclass). At scale the planner
        # picks it on its own: see the plan printed by bench_search.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("EXPLAIN " + DENSE_SQL, dense_params(vector, [dev_folder_id(dev_corpus)], 50))
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "chunk_embedding_hnsw" in plan, plan


def test_invalid_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="mode"):
        retrieve(query="x", folder_ids=[1], mode="fuzzy")
    with pytest.raises(ValueError, match="k must"):
        retrieve(query="x", folder_ids=[1], k=0)


def test_hybrid_fuses_with_the_share_the_keyword_match_gives(dev_corpus: dict[str, Any], settings: Any) -> None:
    """Hybrid's order is the fusion of its two legs with the dense share that BM25's best score over
    the oracle's ceiling gives (tests/search/bm25_oracle.py); over the dev phrasings, technical
    and plain, the share spans its whole range."""
    folder = dev_folder_id(dev_corpus)
    shares = set()
    for text in phrasings():
        result = retrieve(query=text, folder_ids=[folder], k=10, mode="hybrid")
        reading = question_reading(text, [folder])
        keywords = lexical_query(text, reading.variants)
        bm25 = bm25_oracle(keywords, [folder], settings.SEARCH_CANDIDATES_PER_LEG)
        match = keyword_match(bm25, ceiling_oracle(keywords, [folder]))
        share = matched_share(settings.SEARCH_DENSE_SHARE, match)
        assert result.dense_leg is not None
        fused = relative_score_fusion(list(result.dense_leg.ranking), bm25, dense_share=share)
        assert result.candidates == [f.chunk_id for f in fused], text
        shares.add(share)
    assert min(shares) == MATCHED_SHARE
    assert max(shares) == settings.SEARCH_DENSE_SHARE
    assert len(shares) > 10  # and many between
