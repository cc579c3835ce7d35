"""The lexical index's owner, called by ingestion: what a store writes into the library."""

from __future__ import annotations

from typing import Any

from django.db import connection

from documents.models import Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from tests.factories import DocumentFactory
from tests.search.bm25_oracle import packed_postings_of_chunks, vector_postings


def test_a_store_writes_vectors_lengths_totals_and_each_posting_once_packed(db: Any) -> None:
    document = DocumentFactory(text="Lighthouse keepers log the lamp oil. The ledger lists every lamp lit.")
    stored = document_ingest(document.pk)
    assert stored is not None
    assert stored.status == DocumentStatus.INDEXED, stored.failure_reason
    stored = Document.objects.get(pk=document.pk)
    chunks = list(Chunk.objects.filter(document=stored).values_list("pk", "lexeme_count"))
    assert stored.chunk_count == len(chunks) > 0
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.id, sum(coalesce(array_length(u.positions, 1), 1))
                 FROM documents_chunk AS c CROSS JOIN LATERAL unnest(c.search_vector) AS u
                WHERE c.document_id = %s GROUP BY c.id""",
            [stored.pk],
        )
        positions = dict(cursor.fetchall())
    assert dict(chunks) == positions  # lexeme_count is the chunk's BM25 length, dl
    assert stored.lexeme_total == sum(positions.values())
    packed = packed_postings_of_chunks([pk for pk, _ in chunks])
    chunk_ids = set(dict(chunks))
    assert packed == {p for p in vector_postings([stored.folder_id]) if p[1] in chunk_ids}
    assert {p[2] for p in packed} >= {"lighthous", "lamp", "ledger"}
    # One posting per (chunk, lexeme), in one packed row: nothing else holds them.
    assert len(packed) == len({(p[1], p[2]) for p in packed})
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'search\\_%%lexeme' AND relkind = 'r'")
        assert cursor.fetchone() == (0,)  # no row-per-posting table beside the packed one
