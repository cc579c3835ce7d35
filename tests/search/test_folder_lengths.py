"""Per-folder BM25 length rows (documents.FolderLength) always sum to the documents' own sums.

The packed BM25 leg reads N and avgdl from these rows instead of every document; the reference
reads the documents. Whatever happens to documents — created, ingested, re-indexed, moved,
deleted one by one or with their folder, updated in bulk — and however the rows are compacted,
even while another transaction is still writing, the two agree per folder.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from django.db import connections, transaction
from django.db.models import Sum

from documents.lexical.folder_lengths import folder_lengths_compact
from documents.lexical.models import FolderLength
from documents.models import Document, DocumentStatus, Folder
from documents.services.ingest import document_ingest
from documents.services.library import document_delete, folder_delete
from tests.conftest import ingest_file_inline
from tests.factories import DocumentFactory, FolderFactory

pytestmark = pytest.mark.django_db


def sums_by_folder(rows: Any, chunks: str, lexemes: str) -> dict[int, tuple[int, int]]:
    totals = rows.values("folder_id").annotate(c=Sum(chunks), lx=Sum(lexemes))
    return {t["folder_id"]: (t["c"], t["lx"]) for t in totals if t["c"] or t["lx"]}


def assert_lengths_agree() -> None:
    documents = sums_by_folder(Document.objects.all(), "chunk_count", "lexeme_total")
    assert sums_by_folder(FolderLength.objects.all(), "chunks", "lexemes") == documents


def test_lengths_follow_every_change_to_documents(tmp_path: Path, memoised_pipeline: None) -> None:
    first, second = FolderFactory(name="First"), FolderFactory(name="Second")
    DocumentFactory(folder=first, chunk_count=3, lexeme_total=120)  # insert
    assert_lengths_agree()
    texts = {"ring": "Dynamo places keys on a ring.\n", "gossip": "Nodes gossip about membership.\n"}
    for name, text in texts.items():
        (tmp_path / f"{name}.txt").write_text(text * 40)
    ring = ingest_file_inline(tmp_path / "ring.txt", first, title="Ring")
    gossip = ingest_file_inline(tmp_path / "gossip.txt", second, title="Gossip")
    assert ring.chunk_count
    assert ring.lexeme_total
    assert gossip.chunk_count
    assert_lengths_agree()
    before = FolderLength.objects.count()
    Document.objects.filter(pk=ring.pk).update(status=DocumentStatus.INDEXED)  # no change to the sums
    assert FolderLength.objects.count() == before
    document_ingest(ring.pk)  # re-index
    assert_lengths_agree()
    Document.objects.filter(pk=ring.pk).update(folder=second)  # moved
    assert_lengths_agree()
    Document.objects.update(lexeme_total=7)  # bulk, across folders
    assert_lengths_agree()
    document_delete(document=gossip)
    assert_lengths_agree()
    folder_delete(folder=second)
    assert_lengths_agree()
    assert not FolderLength.objects.filter(folder_id=second.pk).aggregate(c=Sum("chunks"))["c"]


def test_compaction_folds_to_one_row_per_folder_and_drops_empty_folders() -> None:
    kept, emptied = FolderFactory(name="Kept"), FolderFactory(name="Emptied")
    for n in range(4):
        DocumentFactory(folder=kept, text=f"kept {n}", chunk_count=n + 1, lexeme_total=10 * (n + 1))
        DocumentFactory(folder=emptied, text=f"emptied {n}", chunk_count=2, lexeme_total=5)
    Document.objects.filter(folder=emptied).delete()
    assert FolderLength.objects.filter(folder_id=kept.pk).count() >= 4
    assert folder_lengths_compact() == FolderLength.objects.count()
    assert list(
        FolderLength.objects.filter(folder_id__in=[kept.pk, emptied.pk]).values_list("folder_id", "chunks")
    ) == [(kept.pk, 10)]
    assert_lengths_agree()
    folder_lengths_compact()  # idempotent
    assert_lengths_agree()


def _write_and_hold(folder_id: int, written: threading.Event, release: threading.Event) -> None:
    try:
        with transaction.atomic():
            DocumentFactory(folder_id=folder_id, text="held", chunk_count=5, lexeme_total=50)
            written.set()
            assert release.wait(30)
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_compaction_keeps_rows_a_concurrent_transaction_is_still_writing(transactional_db: None) -> None:
    folder = FolderFactory(name="Busy")
    DocumentFactory(folder=folder, text="two", chunk_count=2, lexeme_total=20)
    DocumentFactory(folder=folder, text="three", chunk_count=3, lexeme_total=30)
    written, release = threading.Event(), threading.Event()
    writer = threading.Thread(target=_write_and_hold, args=(folder.pk, written, release))
    writer.start()
    try:
        assert written.wait(30)
        folder_lengths_compact()  # commits while the writer's row is not yet visible
        assert_lengths_agree()
        assert FolderLength.objects.filter(folder_id=folder.pk).count() == 1
    finally:
        release.set()
        writer.join(30)
    assert Document.objects.filter(folder=folder).count() == 3
    assert_lengths_agree()  # the writer's row survived the compaction
    assert FolderLength.objects.filter(folder_id=folder.pk).aggregate(c=Sum("chunks"))["c"] == 10
    assert Folder.objects.filter(pk=folder.pk).exists()
