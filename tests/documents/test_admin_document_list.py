"""Issue 28, "a readable list": the admin's document list shows what staff act on (folder path,
type, status, pages, chunks, human sizes, warnings and failure reasons with their full text in a
tooltip, tags) and leaves the version stamps to the document's page; it filters by status, type,
folder, tag and date; and every bulk action shows a confirmation page before anything changes.

Moving documents keeps search right: after a move through the admin, search in the target folder
ranks and scores exactly as after a fresh ingest of the same files there, and the old folder no
longer finds them.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from documents.lexical.index import lexical_index_refolder
from documents.models import Chunk, Document, DocumentStatus, Tag
from search.services.retrieval import retrieve
from tests.conftest import ingest_text
from tests.factories import DocumentFactory, FolderFactory, StaffFactory, UserFactory
from tests.search.bm25_oracle import packed_postings, vector_postings
from tests.search.test_folder_lengths import assert_lengths_agree

LIST = "/admin/documents/document/"
REASON = "The file is not a PDF: it starts with a ZIP header. " * 6  # longer than a cell shows


def _messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def _ids(response: Any, among: set[int] | None = None) -> set[int]:
    """The listed documents' ids (`among`: only those; the session's dev corpus may be listed too)."""
    listed = {d.pk for d in response.context["cl"].result_list}
    return listed if among is None else listed & among


@pytest.fixture
def staff(client: Any, db: None) -> Any:
    user = StaffFactory(username="librarian")
    client.force_login(user)
    return user


def test_the_list_shows_paths_types_sizes_and_reasons_and_leaves_stamps_to_the_page(client: Any, staff: Any) -> None:
    parent = FolderFactory(name="Legal")
    child = FolderFactory(name="Contracts", parent=parent)
    text = "x" * 1_234_567
    pdf = DocumentFactory(folder=child, title="Lease", text=text, content_type="application/pdf", indexed=True)
    Document.objects.filter(pk=pdf.pk).update(
        page_count=12, chunk_count=40, extractor="pymupdf-9+ragsite-extract-9", pipeline="F/800/chunker-9"
    )
    notes = DocumentFactory(folder=parent, title="Notes", content_type="text/markdown", text="# Notes")
    Document.objects.filter(pk=notes.pk).update(
        status=DocumentStatus.FAILED,
        failure_reason=REASON,
        warnings=["Page 3 could not be read: damaged.", "Page 7 was read by OCR with low confidence."],
    )
    pdf.tags.add(Tag.objects.create(name="Leases"))

    page = client.get(LIST)
    html = page.content.decode()
    for title in ("Title", "Folder", "Type", "Status", "Pages", "Chunks", "Size", "Warnings", "Failure reason"):
        assert f">{title}<" in html or f">{title}</a>" in html, title
    assert "Stamps" not in html
    assert "pymupdf-9" not in html
    assert "chunker-9" not in html
    assert "Legal / Contracts" in html
    assert ">PDF<" in html
    assert ">Markdown<" in html
    assert "1.2\xa0MB" in html  # filesizeformat, not 1234567
    assert reverse("admin:documents_document_change", args=[pdf.pk]) in html  # the title links to the page
    assert "Leases" in html
    # The reason is cut in the cell, whole in its tooltip.
    assert f'title="{REASON}"' in html.replace("&#x27;", "'")
    assert REASON[:90].rstrip() + "…" in html
    assert ">2 warnings<" in html
    assert 'title="Page 3 could not be read: damaged.\nPage 7 was read by OCR with low confidence."' in html

    change = client.get(reverse("admin:documents_document_change", args=[pdf.pk])).content.decode()
    assert ">Versions<" in change
    assert "pymupdf-9+ragsite-extract-9" in change
    assert "F/800/chunker-9" in change
    assert "Stale: indexed with other settings" in change
    assert "1.2\xa0MB" in change


def test_filters_by_status_type_folder_tag_date_and_search(client: Any, staff: Any) -> None:
    first, second = FolderFactory(name="First"), FolderFactory(name="Second")
    pdf = DocumentFactory(folder=first, title="Alpha", content_type="application/pdf", indexed=True, text="a")
    markdown = DocumentFactory(folder=second, title="Beta", content_type="text/markdown", text="b")
    legacy = DocumentFactory(folder=second, title="Gamma", content_type="text/x-markdown", text="c")
    Document.objects.filter(pk=legacy.pk).update(status=DocumentStatus.FAILED, original_name="old-minutes.md")
    Document.objects.filter(pk=pdf.pk).update(created_at=timezone.now() - datetime.timedelta(days=400))
    markdown.tags.add(Tag.objects.create(name="Minutes"))

    mine = {pdf.pk, markdown.pk, legacy.pk}
    assert _ids(client.get(LIST, {"status__exact": "failed"}), mine) == {legacy.pk}
    assert _ids(client.get(LIST, {"type": "markdown"}), mine) == {markdown.pk, legacy.pk}  # both media types
    assert _ids(client.get(LIST, {"type": "pdf"}), mine) == {pdf.pk}
    assert _ids(client.get(LIST, {"folder__id__exact": second.pk}), mine) == {markdown.pk, legacy.pk}
    tag = Tag.objects.get(name="Minutes")
    assert _ids(client.get(LIST, {"tags__id__exact": tag.pk}), mine) == {markdown.pk}
    # As the sidebar's "Past 7 days" link writes it: midnight, with the time zone (a bare date is naive).
    since = str(timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0) - datetime.timedelta(days=7))
    assert _ids(client.get(LIST, {"created_at__gte": since}), mine) == {markdown.pk, legacy.pk}
    assert pdf.pk in _ids(client.get(LIST, {"indexed_at__isnull": "False"}), mine)
    assert _ids(client.get(LIST, {"q": "old-minutes"}), mine) == {legacy.pk}  # the original file name
    assert _ids(client.get(LIST, {"q": "Alpha"}), mine) == {pdf.pk}
    # The sidebar names formats and folders as people do.
    html = client.get(LIST).content.decode()
    assert "?type=markdown" in html
    assert ">Web page<" in html
    assert ">First<" in html
    assert ">Second<" in html


def test_retry_asks_first_then_queues_only_the_failed_ones(
    client: Any, staff: Any, django_capture_on_commit_callbacks: Any
) -> None:
    folder = FolderFactory(name="Inbox")
    failed = DocumentFactory(folder=folder, title="Broken scan", text="1")
    fine = DocumentFactory(folder=folder, title="Fine note", text="2", indexed=True)
    Document.objects.filter(pk=failed.pk).update(status=DocumentStatus.FAILED, failure_reason="Damaged.", attempts=3)
    selected = {"action": "retry_failed", "_selected_action": [failed.pk, fine.pk]}

    page = client.post(LIST, selected)
    html = page.content.decode()
    assert "bulk-action-form" in html
    assert "Broken scan" in html
    assert "Fine note" in html.split('id="bulk-action-skipped"')[1]  # named as left alone
    assert Document.objects.get(pk=failed.pk).status == DocumentStatus.FAILED

    with django_capture_on_commit_callbacks() as queued:
        done = client.post(LIST, {**selected, "apply": "1"}, follow=True)
    assert "Queued 1 failed document(s) again." in _messages(done)
    retried = Document.objects.get(pk=failed.pk)
    assert (retried.status, retried.failure_reason, retried.attempts) == (DocumentStatus.QUEUED, "", 0)
    assert Document.objects.get(pk=fine.pk).status == DocumentStatus.INDEXED
    assert len(queued) == 1  # one ingest task, sent once the transaction commits


def test_reindex_asks_first_then_queues(client: Any, staff: Any, django_capture_on_commit_callbacks: Any) -> None:
    documents = [DocumentFactory(title=f"Report {n}", text=f"r{n}", indexed=True) for n in range(2)]
    selected = {"action": "reindex", "_selected_action": [d.pk for d in documents]}
    page = client.post(LIST, selected)
    assert "Report 0" in page.content.decode()
    assert "Report 1" in page.content.decode()
    reports = Document.objects.filter(pk__in=[d.pk for d in documents])
    assert set(reports.values_list("status", flat=True)) == {DocumentStatus.INDEXED}
    with django_capture_on_commit_callbacks() as queued:
        done = client.post(LIST, {**selected, "apply": "1"}, follow=True)
    assert "Queued 2 document(s) for re-indexing." in _messages(done)
    assert set(reports.values_list("status", flat=True)) == {DocumentStatus.QUEUED}
    assert len(queued) == 2


def test_move_asks_for_a_writable_folder_then_moves_and_skips_a_duplicate(client: Any, staff: Any) -> None:
    source, target = FolderFactory(name="Drafts"), FolderFactory(name="Published")
    moving = DocumentFactory(folder=source, title="Memo", text="memo")
    twin = DocumentFactory(folder=source, title="Minutes copy", text="minutes")
    DocumentFactory(folder=target, title="Minutes", text="minutes")  # the same file is already there
    selected = {"action": "move_to_folder", "_selected_action": [moving.pk, twin.pk]}

    page = client.post(LIST, selected)
    html = page.content.decode()
    assert "bulk-action-form" in html
    assert "Memo" in html
    assert "Published" in html
    assert Document.objects.get(pk=moving.pk).folder_id == source.pk

    unchosen = client.post(LIST, {**selected, "apply": "1"})
    assert "This field is required" in unchosen.content.decode()
    assert Document.objects.get(pk=moving.pk).folder_id == source.pk

    done = client.post(LIST, {**selected, "apply": "1", "folder": target.pk}, follow=True)
    said = _messages(done)
    assert "Moved 1 document(s) to “Published”." in said
    assert any("already holds the same file: Minutes copy" in m for m in said)
    assert Document.objects.get(pk=moving.pk).folder_id == target.pk
    assert Document.objects.get(pk=twin.pk).folder_id == source.pk


def test_bulk_tags_through_the_shared_confirmation(client: Any, staff: Any) -> None:
    documents = [DocumentFactory(title=f"Paper {n}", text=f"p{n}") for n in range(2)]
    selected = {"_selected_action": [d.pk for d in documents]}
    page = client.post(LIST, {"action": "add_tag", **selected})
    assert "bulk-action-form" in page.content.decode()
    assert "Paper 1" in page.content.decode()
    assert not Tag.objects.exists()
    client.post(LIST, {"action": "add_tag", "apply": "1", "tag": "Reviewed", **selected})
    assert Tag.objects.get(name="Reviewed").documents.count() == 2
    removal = client.post(LIST, {"action": "remove_tag", **selected})
    assert "Reviewed" in removal.content.decode()  # the tags to choose from are named
    client.post(LIST, {"action": "remove_tag", "apply": "1", "tag": "reviewed", **selected})
    assert Tag.objects.get(name="Reviewed").documents.count() == 0


def test_delete_asks_first_naming_documents_not_chunks_then_uses_the_service(
    client: Any, staff: Any, tmp_path: Path, memoised_pipeline: None, django_capture_on_commit_callbacks: Any
) -> None:
    folder = FolderFactory(name="Old")
    document = ingest_text(tmp_path, folder, "Old rules", "The old rules say every gate closes at dusk.\n" * 30)
    path = Path(document.file.path)
    assert Chunk.objects.filter(document=document).exists()
    selected = {"action": "delete_selected", "_selected_action": [document.pk]}

    page = client.post(LIST, selected)
    html = page.content.decode()
    assert "Old rules (Old, Indexed)" in html
    assert "Chunk:" not in html  # a summary count, not every chunk listed
    assert Document.objects.filter(pk=document.pk).exists()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(LIST, {**selected, "post": "yes"})
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    assert not path.exists()  # the service removed the file once the delete committed


def test_staff_without_change_permission_cannot_run_the_actions(client: Any, db: None) -> None:
    viewer = UserFactory(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_document"))
    client.force_login(viewer)
    source, target = FolderFactory(name="Here"), FolderFactory(name="There")
    document = DocumentFactory(folder=source, title="Kept", text="kept")
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.FAILED)
    assert client.get(LIST).status_code == 200  # they may look
    for action in ("retry_failed", "reindex", "move_to_folder", "add_tag", "remove_tag", "delete_selected"):
        data = {"action": action, "apply": "1", "post": "yes", "folder": target.pk, "tag": "X"}
        response = client.post(LIST, {**data, "_selected_action": [document.pk]}, follow=True)
        assert "bulk-action-form" not in response.content.decode()
    kept = Document.objects.get(pk=document.pk)
    assert (kept.folder_id, kept.status) == (source.pk, DocumentStatus.FAILED)
    assert not Tag.objects.exists()


TEXTS = {
    "Ring notes": "Dynamo places every key on a consistent hashing ring of virtual nodes.\n"
    "Each node owns the arc before it, and replicas follow clockwise.\n" * 8,
    "Gossip notes": "Nodes gossip about membership every second and mark silent peers as suspect.\n" * 9,
    "Clock notes": "Vector clocks order versions; siblings are merged by the reader on a conflict.\n" * 7,
}
QUERIES = ["consistent hashing ring", "which node owns a key", "vector clocks merge siblings", "gossip membership"]


def _ranking(folder_ids: list[int], query: str, mode: str) -> list[tuple[str, float]]:
    hits = retrieve(query=query, folder_ids=folder_ids, k=20, mode=mode).hits
    return [(hit.document_title, round(hit.score, 9)) for hit in hits]


def test_a_moved_document_is_found_as_if_ingested_in_its_new_folder(
    client: Any, staff: Any, tmp_path: Path, memoised_pipeline: None
) -> None:
    source, target, fresh = FolderFactory(name="Source"), FolderFactory(name="Target"), FolderFactory(name="Fresh")
    moved = ingest_text(tmp_path, source, "Ring notes", TEXTS["Ring notes"])
    ingest_text(tmp_path, source, "Gossip notes", TEXTS["Gossip notes"])
    ingest_text(tmp_path, target, "Clock notes", TEXTS["Clock notes"])
    for title in ("Ring notes", "Clock notes"):  # the target's documents, uploaded there afresh
        ingest_text(tmp_path, fresh, title, TEXTS[title])

    action = {"action": "move_to_folder", "_selected_action": [moved.pk], "apply": "1", "folder": target.pk}
    client.post(LIST, action)
    assert Document.objects.get(pk=moved.pk).folder_id == target.pk

    for query in QUERIES:
        for mode in ("bm25", "dense", "hybrid"):
            assert _ranking([target.pk], query, mode) == _ranking([fresh.pk], query, mode), (query, mode)
    assert "Ring notes" not in {title for title, _ in _ranking([source.pk], "consistent hashing ring", "hybrid")}
    # The stores behind those rankings: postings filed under the new folder, lengths moved with them.
    for folder in (source, target):
        assert packed_postings([folder.pk]) == vector_postings([folder.pk])
    assert_lengths_agree()


def test_a_folder_change_without_the_lexical_index_leaves_postings_behind(
    db: None, tmp_path: Path, memoised_pipeline: None
) -> None:
    """Why the move calls `lexical_index_refolder`: the packed postings are filed by folder."""
    source, target = FolderFactory(name="From"), FolderFactory(name="To")
    document = ingest_text(tmp_path, source, "Ring notes", TEXTS["Ring notes"])
    Document.objects.filter(pk=document.pk).update(folder=target)  # a bare UPDATE
    assert packed_postings([target.pk]) != vector_postings([target.pk])
    lexical_index_refolder([document.pk])
    assert packed_postings([target.pk]) == vector_postings([target.pk])
    assert packed_postings([source.pk]) == vector_postings([source.pk]) == set()


def test_the_list_reads_a_fixed_number_of_queries_whatever_its_length(
    client: Any, staff: Any, django_assert_max_num_queries: Any
) -> None:
    """Folder paths, types, tags and sizes come from a few queries a page, never one a row."""
    folder = FolderFactory(name="Shelf", parent=FolderFactory(name="Room"))
    tag = Tag.objects.create(name="Shelved")

    def shelve(count: int) -> None:
        for n in range(count):
            DocumentFactory(folder=folder, title=f"Book {Document.objects.count()}", text=f"b{n}-{count}").tags.add(tag)

    shelf = {"folder__id__exact": folder.pk}  # the session's dev corpus may be in the database too
    shelve(2)
    with django_assert_max_num_queries(40) as few:
        client.get(LIST, shelf)
    shelve(30)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(client.get(LIST, shelf).context["cl"].result_list) == 32


def test_select_all_retries_every_failed_document_of_the_filtered_list(client: Any, staff: Any) -> None:
    """ "Select all N" posts no ids: the confirmation posts the whole filtered list back as such."""
    inbox, archive = FolderFactory(name="Inbox"), FolderFactory(name="Archive")
    failed = [DocumentFactory(folder=inbox, title=f"Scan {n}", text=f"s{n}") for n in range(3)]
    elsewhere = DocumentFactory(folder=archive, title="Old scan", text="old")
    Document.objects.update(status=DocumentStatus.FAILED, failure_reason="Damaged.")
    filtered = f"{LIST}?folder__id__exact={inbox.pk}"
    selection = {"action": "retry_failed", "select_across": "1", "_selected_action": [failed[0].pk]}

    page = client.post(filtered, selection)
    html = page.content.decode()
    assert 'name="select_across" value="1"' in html
    assert all(d.title in html for d in failed)
    assert "Old scan" not in html

    client.post(filtered, {**selection, "apply": "1"})  # as the page posts it back
    assert {d.status for d in Document.objects.filter(folder=inbox)} == {DocumentStatus.QUEUED}
    assert Document.objects.get(pk=elsewhere.pk).status == DocumentStatus.FAILED
