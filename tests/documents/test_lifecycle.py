"""Stale indexes, deletion through the admin, and the bulk `ingest` command (issues 2 and 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from documents import chunking
from documents.models import Chunk, Document, DocumentStatus, Folder
from search.services.retrieval import retrieve
from tests.conftest import ingest_file_inline
from tests.factories import DocumentFactory, FolderFactory, StaffFactory
from tests.search.bm25_oracle import packed_postings_of_chunks

NOTE = "# Lighthouse notes\n\nThe lighthouse keeper logs every passing ship in a green ledger.\n"


@pytest.fixture
def indexed_note(db: None, memoised_pipeline: None, tmp_path: Path) -> Document:
    path = tmp_path / "lighthouse.md"
    path.write_text(NOTE)
    document = ingest_file_inline(path, FolderFactory(name="Coast"), title="Lighthouse notes")
    assert document.status == DocumentStatus.INDEXED
    return document


def test_stale_documents_are_counted_filtered_and_reindexed(client: Any, indexed_note: Document, settings: Any) -> None:
    Document.objects.filter(pk=indexed_note.pk).update(embedding_model="old-model", pipeline="C/800/chunker-0")
    client.force_login(StaffFactory(username="curator"))
    index = client.get(reverse("admin:index"))
    assert index.context["stale_document_count"] == 1
    assert b"stale document" in index.content
    stale_list = client.get(reverse("admin:documents_document_changelist") + "?freshness=stale")
    assert list(stale_list.context["cl"].result_list) == [indexed_note]
    current_list = client.get(
        reverse("admin:documents_document_changelist")
        + f"?freshness=current&folder__id__exact={indexed_note.folder_id}"
    )
    assert list(current_list.context["cl"].result_list) == []

    # A stale-model document stays findable by BM25 but leaves the dense leg.
    folder_ids = [indexed_note.folder_id]
    assert retrieve(query="lighthouse keeper ledger", folder_ids=folder_ids, mode="dense").hits == []
    assert retrieve(query="lighthouse keeper ledger", folder_ids=folder_ids, mode="bm25").hits

    call_command("reindex", "--stale")
    indexed_note.refresh_from_db()
    assert indexed_note.embedding_model == settings.EMBEDDING_MODEL
    assert indexed_note.pipeline.startswith(chunking.STRATEGY)
    assert client.get(reverse("admin:index")).context["stale_document_count"] == 0
    dense = retrieve(query="lighthouse keeper ledger", folder_ids=folder_ids, mode="dense")
    assert [hit.document_id for hit in dense.hits] == [indexed_note.pk]


def test_a_document_from_an_older_extractor_is_stale_until_reindexed(indexed_note: Document) -> None:
    from documents.extraction import versions
    from documents.selectors import is_stale, stale_documents

    assert indexed_note.extractor == "ragsite-markdown-2"
    assert not is_stale(indexed_note)
    # Markdown read with its markup (stamp 1) is stale since the text became what a reader sees.
    Document.objects.filter(pk=indexed_note.pk).update(extractor="ragsite-markdown-1")
    indexed_note.refresh_from_db()
    assert is_stale(indexed_note)
    assert list(stale_documents().filter(folder=indexed_note.folder)) == [indexed_note]
    # A PDF stamp names the PyMuPDF binding too; only the layout version decides.
    Document.objects.filter(pk=indexed_note.pk).update(extractor="pymupdf-9.9+ragsite-extract-1")
    assert list(stale_documents().filter(folder=indexed_note.folder)) == [indexed_note]
    current_pdf = f"pymupdf-9.9+{versions.PDF_LAYOUT}"
    Document.objects.filter(pk=indexed_note.pk).update(extractor=current_pdf)
    assert list(stale_documents().filter(folder=indexed_note.folder)) == []
    call_command("reindex", "--stale")  # nothing stale: nothing changes
    indexed_note.refresh_from_db()
    assert indexed_note.extractor == current_pdf


def test_admin_reindex_action_queues_selected_documents(client: Any, indexed_note: Document) -> None:
    client.force_login(StaffFactory(username="curator2"))
    selected = {"action": "reindex", "_selected_action": [indexed_note.pk]}
    url = reverse("admin:documents_document_changelist")
    asked = client.post(url, selected)
    assert b"bulk-action-form" in asked.content
    indexed_note.refresh_from_db()
    assert indexed_note.status == DocumentStatus.INDEXED  # nothing changes before the confirmation
    response = client.post(url, {**selected, "apply": "1"}, follow=True)
    assert response.status_code == 200
    indexed_note.refresh_from_db()
    assert indexed_note.status == DocumentStatus.QUEUED
    assert indexed_note.attempts == 0


def test_admin_delete_removes_file_chunks_statistics_and_search_hits(
    client: Any, indexed_note: Document, django_capture_on_commit_callbacks: Any
) -> None:
    path = Path(indexed_note.file.path)
    chunk_ids = list(Chunk.objects.filter(document_id=indexed_note.pk).values_list("pk", flat=True))
    assert packed_postings_of_chunks(chunk_ids)
    folder_ids = [indexed_note.folder_id]
    assert retrieve(query="lighthouse keeper ledger", folder_ids=folder_ids, mode="bm25").hits
    client.force_login(StaffFactory(username="curator3"))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:documents_document_delete", args=[indexed_note.pk]), {"post": "yes"}, follow=True
        )
    assert response.status_code == 200
    assert not Document.objects.filter(pk=indexed_note.pk).exists()
    assert not Chunk.objects.filter(document_id=indexed_note.pk).exists()
    assert not packed_postings_of_chunks(chunk_ids)
    assert not path.exists()
    result = retrieve(query="lighthouse keeper ledger", folder_ids=folder_ids, mode="hybrid")
    assert result.hits == []


def test_admin_folder_delete_removes_its_documents_files(
    client: Any, indexed_note: Document, django_capture_on_commit_callbacks: Any
) -> None:
    path = Path(indexed_note.file.path)
    client.force_login(StaffFactory(username="curator4"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("admin:documents_folder_delete", args=[indexed_note.folder_id]), {"post": "yes"})
    assert not Folder.objects.filter(pk=indexed_note.folder_id).exists()
    assert not Document.objects.filter(pk=indexed_note.pk).exists()
    assert not path.exists()


def test_ingest_command_inline_summarises_indexed_failed_and_refused(
    db: None, memoised_pipeline: None, tmp_path: Path, capsys: Any
) -> None:
    source = tmp_path / "library"
    source.mkdir()
    (source / "good.md").write_text(NOTE)
    (source / "broken.pdf").write_bytes(b"%PDF-1.7\nand nothing after the header")
    (source / "renamed.pdf").write_bytes(b"not a pdf at all")
    (source / "empty.txt").write_bytes(b"")
    (source / "ignored.xlsx").write_bytes(b"PK\x03\x04")  # .docx is supported since issue 12
    call_command("ingest", str(source), "--folder", "Imported", "--inline")
    out = capsys.readouterr().out
    folder = Folder.objects.get(name="Imported")
    statuses = dict(folder.documents.values_list("original_name", "status"))
    assert statuses == {"good.md": DocumentStatus.INDEXED, "broken.pdf": DocumentStatus.FAILED}
    assert "indexed: 1" in out
    assert "failed: 1" in out
    assert "broken.pdf: The file is not a readable PDF" in out
    assert "renamed.pdf: 'renamed.pdf' is not a PDF: its first kilobyte holds no PDF header (%PDF-)." in out
    assert "empty.txt" in out
    assert "empty" in out


def test_ingest_command_without_inline_queues(db: None, tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "note.md").write_text(NOTE)
    call_command("ingest", str(tmp_path / "note.md"), "--folder", "Queued")
    assert "queued: 1" in capsys.readouterr().out
    assert Document.objects.get(folder__name="Queued").status == DocumentStatus.QUEUED


def test_the_staleness_filter_and_the_one_row_check_agree(db: Any, settings: Any) -> None:
    from documents.extraction import versions
    from documents.selectors import current_pipeline_stamp, is_stale, stale_documents

    current = {
        "status": DocumentStatus.INDEXED,
        "embedding_model": settings.EMBEDDING_MODEL,
        "embedding_dims": settings.EMBEDDING_DIMS,
        "pipeline": current_pipeline_stamp(),
        "extractor": versions.MARKDOWN,
    }
    variants = [
        {},
        {"embedding_model": "old-model"},
        {"embedding_dims": 12},
        {"pipeline": "C/800/chunker-0"},
        {"extractor": "ragsite-markdown-0"},
        {"extractor": f"pymupdf-9.9+{versions.PDF_LAYOUT}"},
        {"status": DocumentStatus.FAILED, "embedding_model": "old-model"},  # only indexed ones are stale
    ]
    folder = FolderFactory(name="Stamps")
    documents = [DocumentFactory(folder=folder, text=f"note {i}", **current | v) for i, v in enumerate(variants)]
    by_filter = set(stale_documents().filter(folder=folder).values_list("pk", flat=True))
    by_row = {d.pk for d in Document.objects.filter(folder=folder) if is_stale(d)}
    assert by_filter == by_row == {d.pk for d in documents[1:5]}
