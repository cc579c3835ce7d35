"""The lexical index's owner, called by ingestion: what a store writes into a fresh library."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import Sum

from documents.models import Document, DocumentStatus
from documents.services.ingest import document_ingest
from search.models import Bm25ImpactBasis, ChunkLexeme
from tests.factories import DocumentFactory


def test_the_first_store_into_a_library_without_an_impact_basis_sets_one(db: Any) -> None:
    # A new install (or a flushed database) has no reference length yet: the store sets it from
    # the stored documents, which must be read whole (chunk_count with lexeme_total), never a
    # document half-updated by the same store.
    Bm25ImpactBasis.objects.all().delete()
    document = DocumentFactory(text="Lighthouse keepers log the lamp oil. The ledger lists every lamp lit.")
    # The suite's session fixtures may have committed other documents: the basis is theirs.
    before = Document.objects.exclude(pk=document.pk).aggregate(words=Sum("lexeme_total"), chunks=Sum("chunk_count"))
    expected = before["words"] / before["chunks"] if before["chunks"] else 100.0
    stored = document_ingest(document.pk)
    assert stored is not None
    assert stored.status == DocumentStatus.INDEXED, stored.failure_reason
    basis = Bm25ImpactBasis.objects.get(pk=1)
    # The library as it was before this store (100, the neutral length, when it was empty): this
    # document is not counted, neither its new chunk_count without its lexeme_total nor the reverse.
    assert basis.avgdl == pytest.approx(expected)
    stored = Document.objects.get(pk=document.pk)
    assert stored.lexeme_total > 0
    assert stored.chunk_count > 0
    impacts = list(ChunkLexeme.objects.filter(document_id=document.pk).values_list("impact", flat=True))
    assert impacts
    assert all(0 < impact < 3 for impact in impacts)
