"""Issue 26: metadata written at ingestion, staff corrections that survive a real re-index, tags in
the admin one by one and in bulk, the API's document fields, and `backfill_metadata`."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from documents.models import Chunk, Document, DocumentStatus, Tag
from documents.services.ingest import document_ingest
from documents.services.metadata import document_metadata_correct, documents_tag, tag_get_or_create
from documents.services.queueing import documents_requeue
from documents.services.upload import IncomingFile, document_upload
from tests.conftest import bearer, wait_for
from tests.corpus import DEV_DIR, require_corpus
from tests.factories import DocumentFactory, FolderFactory, StaffFactory, UserFactory

BITCOIN = "Bitcoin: A Peer-to-Peer Electronic Cash System"


def _upload(path: Path, folder: Any, *, title: str = "", enqueue: bool = False) -> Document:
    with path.open("rb") as stream:
        incoming = IncomingFile(name=path.name, size=path.stat().st_size, stream=stream)
        return document_upload(folder=folder, incoming=incoming, uploaded_by=None, title=title, enqueue=enqueue)


def _change_form_data(client: Any, document: Document, **changes: Any) -> dict[str, Any]:
    """The admin change form as the page renders it (inline management forms too), with `changes`."""
    response = client.get(reverse("admin:documents_document_change", args=[document.pk]))
    assert response.status_code == 200
    form = response.context["adminform"].form
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        if name == "reread":
            continue  # a choice to tick, never ticked unless `changes` says so
        value = form.initial.get(name, field.initial)
        if name == "authors":
            value = ", ".join(value or [])
        elif name == "tags":
            value = [tag.pk for tag in value or []]
        elif name == "published":
            value = value.isoformat() if value else ""
        data[name] = value if value is not None else ""
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data.update({f"{management.prefix}-{k}": v for k, v in management.initial.items()})
        for form_ in inline.formset.forms:
            data.update({f"{form_.prefix}-{k}": v for k, v in form_.initial.items() if k in ("id", "document")})
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


@pytest.mark.corpus
def test_ingestion_writes_the_files_metadata_and_keeps_a_title_given_at_upload(
    db: None, memoised_pipeline: None
) -> None:
    require_corpus()
    folder = FolderFactory(name="Papers")
    document = _upload(DEV_DIR / "bitcoin-nakamoto-2008.pdf", folder)
    assert document.title == "bitcoin-nakamoto-2008"  # until it is read
    document_ingest(document.pk)
    document.refresh_from_db()
    assert document.status == DocumentStatus.INDEXED
    assert (document.title, document.authors, document.published) == (
        BITCOIN,
        ["Satoshi Nakamoto"],
        datetime.date(2009, 3, 24),
    )
    assert document.metadata_edited == []
    # Chunk headers keep the file's name: extracting titles does not change what is embedded.
    assert Chunk.objects.filter(document=document).first().context.startswith("bitcoin-nakamoto-2008")

    named = _upload(DEV_DIR / "dynamo-amazon-2007.pdf", folder, title="Dynamo paper")
    document_ingest(named.pk)
    named.refresh_from_db()
    assert (named.title, named.metadata_edited) == ("Dynamo paper", ["title"])
    assert named.authors[0] == "Giuseppe DeCandia"


@pytest.mark.worker
@pytest.mark.slow
def test_a_staff_correction_survives_a_reindex_by_the_real_worker(celery_worker_process: Any, client: Any) -> None:
    require_corpus()
    folder = FolderFactory(name="Papers")
    document = _upload(DEV_DIR / "bitcoin-nakamoto-2008.pdf", folder, enqueue=True)
    log = celery_worker_process.log

    def indexed_after(moment: Any) -> Document | None:
        found = Document.objects.get(pk=document.pk)
        ready = found.status == DocumentStatus.INDEXED and (moment is None or found.indexed_at > moment)
        return found if ready else None

    first = wait_for(lambda: indexed_after(None), what=lambda: f"the first indexing\n{log()}")
    assert first.title == BITCOIN

    client.force_login(StaffFactory(username="librarian"))
    data = _change_form_data(client, first, title="Bitcoin whitepaper", authors="Satoshi Nakamoto, Hal Finney")
    response = client.post(reverse("admin:documents_document_change", args=[first.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    corrected = Document.objects.get(pk=first.pk)
    assert corrected.title == "Bitcoin whitepaper"
    assert corrected.authors == ["Satoshi Nakamoto", "Hal Finney"]
    assert sorted(corrected.metadata_edited) == ["authors", "title"]

    assert documents_requeue(Document.objects.filter(pk=first.pk)) == 1
    again = wait_for(lambda: indexed_after(first.indexed_at), what=lambda: f"the re-index\n{log()}")
    assert (again.title, again.authors) == ("Bitcoin whitepaper", ["Satoshi Nakamoto", "Hal Finney"])
    assert again.published == datetime.date(2009, 3, 24)  # not corrected: still read from the file
    # A title a person chose names the chunks, as an upload's title always did.
    assert Chunk.objects.filter(document=again).first().context.startswith("Bitcoin whitepaper")


def test_admin_bulk_tags_ask_for_confirmation_then_apply(client: Any, db: None) -> None:
    folder = FolderFactory(name="Notes")
    first, second, other = (DocumentFactory(folder=folder, indexed=True, text=f"Note {n}.") for n in range(3))
    client.force_login(StaffFactory(username="tagger"))
    url = reverse("admin:documents_document_changelist")
    selected = {"_selected_action": [first.pk, second.pk]}

    page = client.post(url, {"action": "add_tag", **selected})
    assert page.status_code == 200
    assert b"bulk-action-form" in page.content
    assert not Tag.objects.exists()  # nothing changes before the confirmation

    done = client.post(url, {"action": "add_tag", "apply": "1", "tag": "Ledger", **selected}, follow=True)
    assert "Added tag “Ledger” to 2 document(s)." in [str(m) for m in done.context["messages"]]
    assert sorted(Tag.objects.get(name="Ledger").documents.values_list("pk", flat=True)) == [first.pk, second.pk]
    assert not other.tags.exists()
    client.post(url, {"action": "add_tag", "apply": "1", "tag": "ledger", "_selected_action": [other.pk]})
    assert Tag.objects.count() == 1  # one tag whatever the case
    listing = client.get(url).content.decode()
    assert "Ledger" in listing
    assert first.title in listing

    client.post(url, {"action": "remove_tag", "apply": "1", "tag": "LEDGER", **selected})
    assert list(Tag.objects.get(name="Ledger").documents.values_list("pk", flat=True)) == [other.pk]
    missing = client.post(url, {"action": "remove_tag", "apply": "1", "tag": "Nope", **selected})
    assert "There is no tag named" in missing.content.decode()


def test_admin_edits_tags_one_by_one_and_can_hand_a_field_back_to_extraction(client: Any, db: None) -> None:
    document = DocumentFactory(folder=FolderFactory(name="Notes"), indexed=True)
    tag = tag_get_or_create("Harbour")
    client.force_login(StaffFactory(username="editor"))
    url = reverse("admin:documents_document_change", args=[document.pk])
    data = _change_form_data(client, document, tags=[tag.pk], published="1999-12-31")
    assert client.post(url, data).status_code == 302
    document.refresh_from_db()
    assert [t.name for t in document.tags.all()] == ["Harbour"]
    assert (document.published, document.metadata_edited) == (datetime.date(1999, 12, 31), ["published"])
    data = _change_form_data(client, document, reread=["published"])
    assert client.post(url, data).status_code == 302
    document.refresh_from_db()
    assert document.metadata_edited == []


def test_api_documents_carry_authors_date_and_tags(client: Any, db: None) -> None:
    reader = UserFactory(username="reader")
    document = DocumentFactory(folder=FolderFactory(name="Shelf", readers=[reader]), indexed=True)
    document_metadata_correct(document.pk, {"authors": ["Grace Hopper"], "published": datetime.date(1952, 5, 1)})
    documents_tag(Document.objects.filter(pk=document.pk), tag_get_or_create("Compilers"), add=True)
    detail = client.get(f"/api/documents/{document.pk}", **bearer(reader)).json()
    assert (detail["authors"], detail["published"], detail["tags"]) == (["Grace Hopper"], "1952-05-01", ["Compilers"])
    assert detail["metadata_edited"] == ["authors", "published"]
    listed = client.get("/api/documents", **bearer(reader)).json()["items"]
    assert [(d["id"], d["tags"]) for d in listed] == [(document.pk, ["Compilers"])]


@pytest.mark.corpus
def test_backfill_reads_metadata_without_reindexing_and_keeps_corrections(db: None, memoised_pipeline: None) -> None:
    require_corpus()
    folder = FolderFactory(name="Old library")
    old = _upload(DEV_DIR / "raft-consensus-2014.pdf", folder)
    document_ingest(old.pk)
    stem = "raft-consensus-2014"
    Document.objects.filter(pk=old.pk).update(title=stem, authors=[], published=None)  # as indexed before issue 26
    corrected = _upload(DEV_DIR / "tor-onion-router-2004.pdf", folder)
    document_ingest(corrected.pk)
    document_metadata_correct(corrected.pk, {"title": "Tor design"})
    docs = FolderFactory(name="Prometheus")
    page = _upload(DEV_DIR / "prometheus-storage.md", docs)
    document_ingest(page.pk)
    indexed_at = Document.objects.get(pk=old.pk).indexed_at
    vectors = _chunk_vectors(old.pk, page.pk)

    call_command("backfill_metadata", verbosity=0)
    old.refresh_from_db()
    assert old.title == "In Search of an Understandable Consensus Algorithm"
    assert old.authors == ["Diego Ongaro", "John Ousterhout"]
    assert old.published == datetime.date(2013, 3, 25)  # the page's "October 7, 2013"; the file's day that year
    assert old.indexed_at == indexed_at  # not re-indexed
    assert Document.objects.get(pk=corrected.pk).title == "Tor design"
    # A page of a documentation set is named with its set (here its folder's name).
    assert Document.objects.get(pk=page.pk).title == "Prometheus: Storage"
    assert _chunk_vectors(old.pk, page.pk) == vectors  # re-reading metadata embedded nothing again


def _chunk_vectors(*document_ids: int) -> list[tuple[int, str, str, list[float]]]:
    chunks = Chunk.objects.filter(document_id__in=document_ids).order_by("pk")
    return [(c.pk, c.embedding_key, c.context, [float(x) for x in c.embedding]) for c in chunks]


@pytest.mark.corpus
def test_backfill_names_a_scan_from_the_words_ocr_stored_without_reading_it_again(
    db: None, memoised_pipeline: None, tmp_path: Path
) -> None:
    from documents.extraction import ocr
    from tests.documents.scan_builders import scanned_pdf

    require_corpus()
    scan = tmp_path / "scan-0001.pdf"
    scan.write_bytes(scanned_pdf(DEV_DIR / "raft-consensus-2014.pdf", [0]))
    document = _upload(scan, FolderFactory(name="Scans"))
    document_ingest(document.pk)
    document.refresh_from_db()
    assert document.title == "In Search of an Understandable Consensus Algorithm"  # read at ingestion
    Document.objects.filter(pk=document.pk).update(title="scan 0001", authors=[], published=None)
    pages_read = ocr.STATS.pages

    call_command("backfill_metadata", str(document.pk), verbosity=0)
    document.refresh_from_db()
    assert (document.title, document.authors) == (
        "In Search of an Understandable Consensus Algorithm",
        ["Diego Ongaro", "John Ousterhout"],
    )
    assert document.published == datetime.date(2013, 10, 7)
    assert ocr.STATS.pages == pages_read  # the stored words, not a second OCR
