"""Mending the dense ranking with the lexical leg's candidates (search.services.dense.dense_mended).

HNSW can miss a whole clump of near neighbours at a million chunks; on the small dev library it
does not, so these tests hand the function an HNSW result with the nearest chunks taken out (what
a missed clump looks like) and check it gets the exact ranking back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.test import override_settings

from bench.searches import exact_neighbours
from search.services import retrieval
from search.services.dense import candidate_distances, dense_candidates, dense_mended
from search.services.query_embedding import embed_query, vector_literal
from search.services.retrieval import retrieve
from tests.conftest import ingest_text
from tests.factories import FolderFactory

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?"


def _dev_folder_ids(dev_corpus: dict[str, Any]) -> list[int]:
    return sorted({doc.folder_id for doc in dev_corpus.values()})


def _question_vector() -> str:
    return vector_literal(embed_query(QUESTION)[0])


def _assert_same_ranking(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> None:
    assert [pk for pk, _ in got] == [pk for pk, _ in want]
    assert all(abs(a - b) < 1e-6 for (_, a), (_, b) in zip(got, want, strict=True))


def test_a_missed_clump_comes_back_exactly(dev_corpus: dict[str, Any], django_assert_num_queries: Any) -> None:
    folders, vector = _dev_folder_ids(dev_corpus), _question_vector()
    exact = exact_neighbours(vector, folders, 20)
    hnsw_missed_the_head = exact[3:]  # the three nearest never reached, as in a missed clump
    seed = exact[1][0]  # the lexical leg holds one of them, not even the nearest
    with django_assert_num_queries(1):
        candidates = candidate_distances(vector, folders, [seed, exact[10][0]])
    assert sorted(candidates) == sorted([exact[1], exact[10]])
    # the probe from the seed: savepoint, scan settings, probe, release
    with django_assert_num_queries(4):
        mended = dense_mended(hnsw_missed_the_head, candidates, vector, folders, 20)
    _assert_same_ranking(mended, exact)


def test_candidates_already_ranked_cost_nothing(dev_corpus: dict[str, Any], django_assert_num_queries: Any) -> None:
    folders, vector = _dev_folder_ids(dev_corpus), _question_vector()
    dense = dense_candidates(vector, folders, 20)
    with django_assert_num_queries(0):
        assert dense_mended(dense, dense[:5], vector, folders, 20) == dense
        assert candidate_distances(vector, folders, []) == []


def test_farther_candidates_join_without_a_probe(dev_corpus: dict[str, Any], django_assert_num_queries: Any) -> None:
    folders, vector = _dev_folder_ids(dev_corpus), _question_vector()
    exact = exact_neighbours(vector, folders, 30)
    with django_assert_num_queries(0):
        mended = dense_mended(exact[:20], exact[25:], vector, folders, 20)
        # With room left, a farther candidate joins at its exact place.
        room = dense_mended(exact[:10], [exact[12]], vector, folders, 20)
    _assert_same_ranking(mended, exact[:20])
    _assert_same_ranking(room, [*exact[:10], exact[12]])


def test_candidates_outside_the_readable_folders_get_no_distance(
    dev_corpus: dict[str, Any], tmp_path: Path, memoised_pipeline: None
) -> None:
    folders, vector = _dev_folder_ids(dev_corpus), _question_vector()
    private = FolderFactory(name="Private notes")
    doc = ingest_text(tmp_path, private, "Private Dynamo note", "Dynamo hashes the key with MD5, private edition.")
    hidden = [chunk.pk for chunk in doc.chunks.all()]
    assert candidate_distances(vector, folders, hidden) == []
    assert candidate_distances(vector, [private.pk], hidden) != []


def test_retrieve_mends_the_dense_leg_with_the_lexical_candidates(dev_corpus: dict[str, Any]) -> None:
    folders = _dev_folder_ids(dev_corpus)
    exact = exact_neighbours(_question_vector(), folders, 50)
    nearest = exact[0][0]

    def hnsw_missing_the_nearest(
        vector: str, folder_ids: list[int], limit: int, *scope: Any
    ) -> list[tuple[int, float]]:
        return [row for row in dense_candidates(vector, folder_ids, limit, *scope) if row[0] != nearest]

    with mock.patch.object(retrieval, "dense_candidates", hnsw_missing_the_nearest):
        mended = retrieve(query=QUESTION, folder_ids=folders, k=10)
        with override_settings(SEARCH_MEND_DENSE=False):
            unmended = retrieve(query=QUESTION, folder_ids=folders, k=10)
    assert "mend" in mended.timings_ms
    assert "mend" not in unmended.timings_ms
    assert mended.best_distance == pytest.approx(exact[0][1], abs=1e-6)
    assert unmended.best_distance is not None
    assert unmended.best_distance > exact[0][1]
    by_id = {hit.chunk_id: hit for hit in mended.hits}
    assert by_id[nearest].dense_rank == 1


def test_the_benchmark_reports_mended_recall(dev_corpus: dict[str, Any]) -> None:
    from bench.lexical import hnsw_recall_by_ef

    questions = [QUESTION, "How does Raft choose a leader when the old one fails?"]
    figures = hnsw_recall_by_ef(questions, _dev_folder_ids(dev_corpus), efs=(40,))
    # A few thousand chunks: HNSW at ef 40 finds the exact top 20, so mending keeps it.
    assert figures["40"]["recall"] == 1.0
    assert figures["40"]["mended"] == 1.0
