"""bench_search --halfvec: the half-precision HNSW index is used by its query and finds the same neighbours."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from bench import halfvec
from bench.searches import exact_neighbours
from search.services.query_embedding import embed_query, vector_literal

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUERIES = [
    "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?",
    "How does Raft elect a leader after a timeout?",
    "What does a Bigtable tablet server store in an SSTable?",
]


def index_exists() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [halfvec.INDEX])
        return cursor.fetchone() is not None


def test_halfvec_index_serves_its_query_and_finds_the_exact_neighbours(dev_corpus: dict[str, Any]) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id]
    halfvec.build_index()
    try:
        vector = vector_literal(embed_query(QUERIES[0])[0])
        with connection.cursor() as cursor:
            # A small table: forbid the scan + sort to see that the cast query *can* use the index.
            cursor.execute("SET enable_seqscan = off")
            cursor.execute("SET enable_sort = off")
            assert halfvec.uses_index(vector, folders)
            cursor.execute("RESET enable_seqscan")
            cursor.execute("RESET enable_sort")
        got = [pk for pk, _ in halfvec.halfvec_candidates(vector, folders, 10, 100)]
        want = [pk for pk, _ in exact_neighbours(vector, folders, 10)]
        # Half precision moves distances by ~1e-3: the same neighbours, near-ties may swap.
        assert len(set(got) & set(want)) >= 9, (got, want)
        assert got[0] == want[0]
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {halfvec.INDEX}")


def test_compare_reports_both_indexes_per_ef_and_drops_its_index(dev_corpus: dict[str, Any]) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id]
    figures = halfvec.compare(QUERIES, folders, efs=(40, 200))
    assert not index_exists()
    assert figures["halfvec_mb"] > 0
    assert figures["vector_mb"] > 0
    for leg in ("vector", "halfvec"):
        assert set(figures[leg]) == {"40", "200"}
        for ef in ("40", "200"):
            assert 0.9 <= figures[leg][ef]["recall@20"] <= 1.0, (leg, ef, figures[leg][ef])
            assert figures[leg][ef]["ms"]["p50"] > 0
