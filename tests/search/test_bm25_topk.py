"""Bounded BM25 top-k (MaxScore over impact-ordered postings) against the full postings scan.

The full scan (`bm25_reference`, the SQL search used before) is the reference: same ids, same
scores within 1e-6, on the dev questions and on random queries, for several folder mixes —
among them a reader of one small folder of a large library, whose avgdl and df differ from the
library's — and with the impacts' reference length far below and far above the real one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from documents.lexical_index import impact_basis_refresh
from documents.models import Document
from documents.services.library import folder_delete
from search.models import Bm25ImpactBasis
from search.services.bm25 import bm25_candidates, bm25_reference, bm25_topk
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory
from tests.search.bm25_cases import assert_same_top, folder_mixes, phrasings, random_queries

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]


def set_reference_length(avgdl: float) -> None:
    """Store impacts under another reference length, as an old refresh would have left them."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE search_bm25impactbasis SET avgdl = %s WHERE id = 1", [avgdl])
        cursor.execute(
            """UPDATE search_chunklexeme SET impact = tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / %s))""", [avgdl]
        )


def test_topk_equals_full_scan_on_dev_questions_for_every_folder_mix(
    dev_corpus: dict[str, Any], small_folder: Any
) -> None:
    pruned = full = 0
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in phrasings():
            for limit, per_lexeme in ((50, 200), (10, 5)):
                want = bm25_reference(text, folders, limit)
                got, was_pruned = bm25_topk(text, folders, limit, per_lexeme)
                assert_same_top(got, want, f"{mix} M={per_lexeme} {text}")
                pruned, full = pruned + was_pruned, full + (not was_pruned)
            assert_same_top(bm25_candidates(text, folders, 50), bm25_reference(text, folders, 50), text)
    # Both ways to the answer were exercised: some lexemes' postings were set aside, and none were.
    assert pruned, (pruned, full)
    assert full, (pruned, full)


@pytest.mark.parametrize("reference_factor", [None, 0.25, 4.0])
def test_topk_equals_full_scan_on_random_queries(
    dev_corpus: dict[str, Any], small_folder: Any, reference_factor: float | None
) -> None:
    if reference_factor is not None:
        set_reference_length(Bm25ImpactBasis.objects.get(pk=1).avgdl * reference_factor)
    queries = random_queries(60, seed=11)
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in queries:
            want = bm25_reference(text, folders, 50)
            for per_lexeme in (3, 40, 200):
                got, _ = bm25_topk(text, folders, 50, per_lexeme)
                assert_same_top(got, want, f"{mix} A×{reference_factor} M={per_lexeme} {text}")


def impacts_match_their_basis() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT count(*) FROM search_chunklexeme p, search_bm25impactbasis b
                WHERE b.id = 1 AND abs(p.impact - p.tf * 2.2 / (p.tf + 1.2 * (0.25 + 0.75 * p.dl / b.avgdl))) > 1e-12"""
        )
        row = cursor.fetchone()
    assert row is not None
    return row[0] == 0


def test_impacts_follow_ingest_refresh_and_delete(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    from documents.services.ingest import document_ingest
    from search.models import ChunkLexeme

    dev = next(iter(dev_corpus.values())).folder_id
    set_reference_length(7.0)  # far from any real length: searches stay exact, only slower
    document = Document.objects.get(folder=small_folder, title="Ring notes")
    document_ingest(document.pk)  # re-ingest: new postings under the stored reference
    assert impacts_match_their_basis()
    text = "Dynamo MD5 ring quorum replicas"
    assert_same_top(
        bm25_candidates(text, [dev, small_folder.pk], 50), bm25_reference(text, [dev, small_folder.pk], 50), text
    )
    avgdl = impact_basis_refresh()
    total = sum(Document.objects.values_list("lexeme_total", flat=True))
    chunks = sum(Document.objects.values_list("chunk_count", flat=True))
    assert avgdl == pytest.approx(total / chunks)
    assert impacts_match_their_basis()
    assert_same_top(
        bm25_candidates(text, [dev, small_folder.pk], 50), bm25_reference(text, [dev, small_folder.pk], 50), text
    )
    folder_delete(folder=small_folder)  # a folder's deletion takes its documents' postings along
    assert not ChunkLexeme.objects.filter(document__folder_id=small_folder.pk).exists()
    assert not ChunkLexeme.objects.filter(document_id=document.pk).exists()
    assert_same_top(bm25_candidates(text, [dev], 50), bm25_reference(text, [dev], 50), text)


def test_missing_basis_row_is_recreated_by_ingest(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = FolderFactory(name="Fresh")
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("Merkle trees let replicas compare their keys cheaply during anti-entropy.\n")
    second.write_text("Fresh text about merkle trees, hinted handoff and sloppy quorums in a large ring.\n")
    ingest_file_inline(first, folder, title="First")
    # As after a careless admin: the next ingest sets a new reference and re-bases every
    # stored impact (the first document's too) on it, so none outlives its reference.
    set_reference_length(3.0)
    Bm25ImpactBasis.objects.all().delete()
    ingest_file_inline(second, folder, title="Second")
    assert Bm25ImpactBasis.objects.get(pk=1).avgdl > 3.0
    assert impacts_match_their_basis()
    for text in ("merkle trees", "replicas quorums ring"):
        assert_same_top(bm25_candidates(text, [folder.pk], 5), bm25_reference(text, [folder.pk], 5), text)
