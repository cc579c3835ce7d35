"""The bad-input catalogue: whatever is uploaded ends in a clear state with a readable reason.

Files go in through the admin upload (or the upload service) and through the real pipeline
(`document_ingest` inline; one batch through a real Celery worker). After each test, files
under MEDIA_ROOT correspond exactly to Document rows and failed documents hold no chunks.
"""

from __future__ import annotations

import re
import time
import unicodedata
from io import BytesIO
from pathlib import Path
from typing import Any

import psutil
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import QuerySet
from django.test import Client
from django.urls import reverse

from documents.chunking import embedded_text
from documents.embedding import ENCODER_WINDOW_TOKENS, count_tokens
from documents.models import Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from documents.services.upload import (
    DuplicateDocument,
    EmptyFile,
    FileTooLarge,
    IncomingFile,
    UnsupportedFile,
    document_upload,
)
from tests.conftest import DEV_FOLDER_NAME, bearer, wait_for
from tests.corpus import DEV_DIR, require_corpus
from tests.documents import bad_inputs as bad
from tests.factories import FolderFactory, StaffFactory, UserFactory

UPLOAD_URL = "admin:documents_document_upload"
FINISHED = (DocumentStatus.INDEXED, DocumentStatus.FAILED)
STORED_NAME = re.compile(r"^[0-9a-f]{32}(\.[a-z0-9]+)?$")


@pytest.fixture
def media(settings: Any, tmp_path: Path) -> Path:
    """A fresh MEDIA_ROOT, so that orphan checks see only this test's files."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def folder(db: None) -> Any:
    return FolderFactory(name="Inbox")


@pytest.fixture
def staff_client(client: Any, db: None) -> Any:
    client.force_login(StaffFactory(username="librarian"))
    return client


def admin_upload(client: Any, folder: Any, files: list[tuple[str, bytes]]) -> list[str]:
    """POST files to the admin upload; returns the messages shown to the user."""
    response = client.post(
        reverse(UPLOAD_URL),
        {"folder": folder.pk, "files": [SimpleUploadedFile(name, data) for name, data in files]},
        follow=True,
    )
    assert response.status_code == 200, response.content[:500]
    return [str(m) for m in response.context["messages"]]


def upload(folder: Any, name: str, data: bytes) -> Document:
    incoming = IncomingFile(name=name, size=len(data), stream=BytesIO(data))
    return document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)


def upload_and_ingest(folder: Any, name: str, data: bytes) -> Document:
    document = document_ingest(upload(folder, name, data).pk)
    assert document is not None
    return document


def assert_failed(document: Document, *words: str) -> None:
    assert document.status == DocumentStatus.FAILED, document.status
    reason = document.failure_reason
    for word in words:
        assert word.lower() in reason.lower(), reason
    assert "Traceback" not in reason, reason
    assert 'File "' not in reason, reason
    assert not Chunk.objects.filter(document=document).exists()


def assert_indexed(document: Document) -> list[Chunk]:
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    chunks = list(Chunk.objects.filter(document=document).order_by("ordinal"))
    assert document.chunk_count == len(chunks) > 0
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert chunk.content == document.canonical_text[chunk.char_start : chunk.char_end]
        assert chunk.token_count <= ENCODER_WINDOW_TOKENS
        assert chunk.embedding is not None
    return chunks


def this_tests_documents() -> QuerySet[Document]:
    """Documents other than the session's shared dev-corpus index (which other tests may have built)."""
    return Document.objects.exclude(folder__name=DEV_FOLDER_NAME)


def assert_no_orphans(media: Path) -> None:
    """Every file under MEDIA_ROOT belongs to a row and every row's file exists; every
    document is finished (or still queued, never stuck half-way), failed ones hold no chunks."""
    on_disk = {p.resolve() for p in media.rglob("*") if p.is_file()} if media.exists() else set()
    documents = list(this_tests_documents())
    in_db = {Path(d.file.path).resolve() for d in documents}
    assert on_disk == in_db
    for document in documents:
        assert Path(document.file.path).resolve().is_relative_to((media / "documents").resolve())
        assert document.status in (*FINISHED, DocumentStatus.QUEUED)
        if document.status == DocumentStatus.FAILED:
            assert document.failure_reason
            assert not Chunk.objects.filter(document=document).exists()


# --- rejected at upload ------------------------------------------------------------------


def test_empty_file_is_rejected_at_upload_and_nothing_is_stored(staff_client, folder, media):
    messages = admin_upload(staff_client, folder, [("empty.pdf", b"")])

    assert any("empty" in m for m in messages), messages
    with pytest.raises(EmptyFile) as caught:
        upload(folder, "empty.txt", b"")
    assert "empty" in caught.value.message
    assert not this_tests_documents().exists()
    assert_no_orphans(media)


def test_file_over_the_upload_limit_is_rejected_with_413_and_nothing_is_stored(staff_client, folder, media, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    data = b"A line of text that will be repeated until it is too large.\n" * 40

    messages = admin_upload(staff_client, folder, [("big.txt", data)])

    assert any("upload limit" in m for m in messages), messages
    with pytest.raises(FileTooLarge):
        upload(folder, "big.txt", data)
    assert not this_tests_documents().exists()
    assert_no_orphans(media)


def test_same_bytes_uploaded_twice_are_stored_once(staff_client, folder, media):
    data = bad.markdown_without_headings()
    admin_upload(staff_client, folder, [("notes.md", data)])
    messages = admin_upload(staff_client, folder, [("notes-copy.md", data)])

    assert any("already in folder" in m for m in messages), messages
    with pytest.raises(DuplicateDocument):
        upload(folder, "third-copy.md", data)
    assert Document.objects.filter(folder=folder).count() == 1
    assert_no_orphans(media)


NO_PDF_HEADER = "is not a PDF: its first kilobyte holds no PDF header (%PDF-). "
NOT_A_ZIP = "is not a Word document (.docx): it does not start as a zip archive, as every .docx does. "

# Files whose first bytes make their name's promise impossible: name, builder, the refusal.
NOT_WHAT_THEIR_NAME_SAYS = {
    "text-as-pdf": (
        "minutes.pdf",
        bad.text_named_pdf,
        NO_PDF_HEADER + "It looks like plain text; upload it with a .txt name.",
    ),
    "html-as-pdf": (
        "invoice.pdf",
        bad.html_named_pdf,
        NO_PDF_HEADER + "It is a web page (HTML); upload it with an .html name.",
    ),
    "program-as-pdf": ("setup.pdf", bad.program_named_pdf, NO_PDF_HEADER + "It is a program, not a document."),
    "late-header-pdf": (
        "late.pdf",
        bad.pdf_header_after_a_kilobyte,
        NO_PDF_HEADER + "The file may be damaged or of another type.",
    ),
    "text-as-docx": (
        "report.docx",
        bad.text_named_docx,
        NOT_A_ZIP + "It looks like plain text; upload it with a .txt name.",
    ),
    "old-doc-as-docx": (
        "report.docx",
        bad.old_binary_doc_named_docx,
        NOT_A_ZIP + "It is an old binary Word (.doc) file; save it as .docx in Word and upload that.",
    ),
}


@pytest.mark.parametrize("case", NOT_WHAT_THEIR_NAME_SAYS.values(), ids=NOT_WHAT_THEIR_NAME_SAYS.keys())
def test_a_file_that_cannot_be_what_its_name_says_is_refused_at_upload(staff_client, folder, media, case):
    name, build_file, reason = case
    message = f"'{name}' {reason} It was not stored."
    data = build_file()

    with pytest.raises(UnsupportedFile) as caught:
        upload(folder, name, data)
    assert caught.value.message == message
    assert message in admin_upload(staff_client, folder, [(name, data)])
    writer = UserFactory(username="api-writer")
    folder.writer_users.add(writer)
    response = Client().post(
        "/api/documents", {"file": SimpleUploadedFile(name, data), "folder": folder.pk}, **bearer(writer)
    )
    assert (response.status_code, response.json()) == (415, {"detail": message, "errors": []})
    assert not this_tests_documents().exists()
    assert_no_orphans(media)


def test_a_pdf_header_anywhere_in_the_first_kilobyte_is_accepted(folder, media):
    data = b"%" + b"x" * 1017 + b"\n" + bad.small_pdf()
    assert data.index(b"%PDF-") + len(b"%PDF-") == 1024  # the header's last byte is the kilobyte's

    document = upload_and_ingest(folder, "prefixed.pdf", data)

    assert_indexed(document)
    assert_no_orphans(media)


# --- processed and failed with a reason --------------------------------------------------


def test_truncated_pdf_fails_clearly(folder, media):
    document = upload_and_ingest(folder, "cut-short.pdf", bad.truncated_pdf())

    assert_failed(document, "not a readable PDF")
    assert_no_orphans(media)


def test_pdf_with_corrupt_xref_is_repaired_and_indexed(folder, media):
    document = upload_and_ingest(folder, "bad-xref.pdf", bad.broken_xref_pdf())

    assert_indexed(document)
    assert document.page_count == 3
    assert "Body text of page 1" in document.canonical_text
    assert_no_orphans(media)


def test_password_protected_pdf_fails_asking_for_an_unencrypted_copy(folder, media):
    document = upload_and_ingest(folder, "secret.pdf", bad.encrypted_pdf())

    assert_failed(document, "password", "unencrypted")
    assert_no_orphans(media)


def test_image_only_pdf_fails_with_no_extractable_text(folder, media):
    document = upload_and_ingest(folder, "scan.pdf", bad.image_only_pdf())

    assert_failed(document, "no extractable text")
    assert_no_orphans(media)


def test_extractor_crash_fails_with_a_readable_reason(folder, media, monkeypatch):
    def explode(path: Path, report: Any = None) -> Any:
        raise RuntimeError('cannot parse content stream\nTraceback (most recent call last):\n  File "x.py"')

    monkeypatch.setattr("documents.extraction.pdf.extract_pdf", explode)
    document = upload_and_ingest(folder, "crashes.pdf", bad.small_pdf())

    assert_failed(document, "unexpected error", "cannot parse content stream", "retry")
    assert_no_orphans(media)


# --- damaged, hostile and slow files (issue 12) ---------------------------------------------


def test_truncated_raft_paper_fails_naming_the_damage(folder, media):
    require_corpus()
    document = upload_and_ingest(folder, "raft-cut.pdf", bad.raft_truncated(DEV_DIR / "raft-consensus-2014.pdf"))

    assert_failed(document, "The file looks truncated: 16 of 17 pages are unreadable (pages 2–17)")
    assert_failed(document, "upload the complete file")
    assert_no_orphans(media)


def test_pdf_that_lost_a_page_is_indexed_with_a_warning_naming_it(folder, media):
    document = upload_and_ingest(folder, "lost-page.pdf", bad.pdf_with_a_lost_page(pages=6, lost=4))

    assert_indexed(document)
    assert document.page_count == 6
    assert document.warnings == [
        "Page 4 of 6 could not be read (the file is truncated or damaged): missing from search; "
        "upload a complete copy to index them."
    ]
    assert "Body text of page 3" in document.canonical_text
    assert "Body text of page 4" not in document.canonical_text
    assert "Body text of page 5" in document.canonical_text
    assert_no_orphans(media)


def test_pdf_image_claiming_gigabytes_is_refused_before_decoding(folder, media, monkeypatch):
    monkeypatch.setattr("documents.extraction.pdf.PageReader", _no_page_may_be_read)
    document = upload_and_ingest(folder, "bomb-image.pdf", bad.image_bomb_pdf(side=200_000))

    assert_failed(document, "an image that would need 111.8 GB of memory", "decompression bomb")
    assert_no_orphans(media)


def test_pdf_content_stream_inflating_to_a_gigabyte_is_refused_before_decoding(folder, media, monkeypatch):
    monkeypatch.setattr("documents.extraction.pdf.PageReader", _no_page_may_be_read)
    data = bad.content_stream_bomb_pdf(gigabytes=1.0)
    assert len(data) < 2_000_000

    document = upload_and_ingest(folder, "bomb-stream.pdf", data)

    assert_failed(document, "a compressed stream that inflates to more than 512.0 MB", "decompression bomb")
    assert_no_orphans(media)


def _no_page_may_be_read(doc: Any) -> Any:
    raise AssertionError("a page was read before the bomb check refused the file")


def test_ocr_past_the_time_limit_fails_and_the_next_document_goes_on(folder, media, settings):
    settings.INGEST_TIME_LIMIT_SECONDS = 1
    slow = bad.slow_scan_pdf()
    started = time.monotonic()

    document = upload_and_ingest(folder, "slow-scan.pdf", slow)

    assert time.monotonic() - started < 15
    assert_failed(document, "took longer than the time limit (1 s, INGEST_TIME_LIMIT_SECONDS)")
    assert not [p for p in psutil.Process().children(recursive=True) if "tesseract" in p.name()]
    assert_indexed(upload_and_ingest(folder, "report.pdf", bad.small_pdf()))
    assert_no_orphans(media)


def test_time_limit_stops_python_code_anywhere_in_the_pipeline(folder, media, settings, monkeypatch):
    settings.INGEST_TIME_LIMIT_SECONDS = 1

    def endless_chunking(*args: Any, **kwargs: Any) -> Any:
        while True:  # a pathological input that never finishes
            time.sleep(0.01)

    monkeypatch.setattr("documents.services.ingest.chunk_extracted", endless_chunking)
    started = time.monotonic()

    document = upload_and_ingest(folder, "notes.md", bad.markdown_without_headings())

    assert time.monotonic() - started < 10
    assert_failed(document, "took longer than the time limit")
    assert_no_orphans(media)


# --- odd but valid: indexed ---------------------------------------------------------------


@pytest.mark.slow
def test_thousand_page_pdf_is_indexed(folder, media, tmp_path):
    path = bad.write_many_pages_pdf(tmp_path / "long.pdf", pages=1000, paragraphs=1)
    document = upload_and_ingest(folder, "long-report.pdf", path.read_bytes())

    chunks = assert_indexed(document)
    assert document.page_count == 1000
    assert len(document.page_starts) == 1000
    assert chunks[-1].page_end == 1000
    assert "Paragraph 999." in chunks[-1].content
    assert_no_orphans(media)


@pytest.mark.slow
def test_megabytes_of_text_in_one_paragraph_fit_the_encoder_window(folder, media):
    data = bad.huge_paragraph_text(megabytes=2.0)
    document = upload_and_ingest(folder, "one-paragraph.txt", data)

    chunks = assert_indexed(document)
    assert len(document.canonical_text) == len(data)
    assert chunks[0].char_start == 0
    assert chunks[-1].char_end == len(document.canonical_text)
    for chunk in chunks[:: max(1, len(chunks) // 50)]:  # re-count a sample with the real tokenizer
        assert count_tokens(embedded_text(chunk.context, chunk.content)) <= ENCODER_WINDOW_TOKENS
    assert_no_orphans(media)


@pytest.mark.slow
def test_pdf_page_packed_with_tiny_text_fits_the_encoder_window(folder, media):
    document = upload_and_ingest(folder, "dense.pdf", bad.tiny_text_pdf())

    chunks = assert_indexed(document)
    assert document.page_count == 1
    assert len(document.canonical_text) > 300_000
    assert all(c.page_start == c.page_end == 1 for c in chunks)
    for chunk in chunks[:: max(1, len(chunks) // 50)]:
        assert count_tokens(embedded_text(chunk.context, chunk.content)) <= ENCODER_WINDOW_TOKENS
    assert_no_orphans(media)


def test_cp1252_text_is_decoded_by_detection(folder, media):
    document = upload_and_ingest(folder, "legacy.txt", bad.cp1252_text())

    assert_indexed(document)
    assert document.canonical_text.startswith(bad.CP1252_TEXT)
    assert "\ufffd" not in document.canonical_text
    assert_no_orphans(media)


def test_markdown_without_headings_is_indexed(folder, media):
    document = upload_and_ingest(folder, "notes.md", bad.markdown_without_headings())

    chunks = assert_indexed(document)
    assert all(c.section == "" for c in chunks)
    assert_no_orphans(media)


# --- hostile file names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("a/b\\c.md", "c.md"),
        ("..\\..\\..hidden.md", "hidden.md"),
        ("re\x00po\x1b[31mrt\r\n.txt", "repo[31mrt.txt"),
        ("документ.md", "документ.md"),
        ("論文.pdf", "論文.pdf"),
    ],
)
def test_hostile_file_names_are_stored_under_a_random_name(folder, media, name, expected):
    data = bad.small_pdf() if name.endswith(".pdf") else f"Text uploaded as {name!r}.".encode()
    document = upload_and_ingest(folder, name, data)

    assert_indexed(document)
    stored = Path(document.file.path)
    assert stored.parent == media / "documents"
    assert STORED_NAME.match(stored.name), stored.name
    assert document.original_name == expected
    assert not any(unicodedata.category(ch)[0] == "C" for ch in document.original_name)
    assert "/" not in document.original_name
    assert "\\" not in document.original_name
    assert not document.original_name.startswith(".")
    assert_no_orphans(media)


def test_names_that_are_only_dots_or_separators_are_rejected_cleanly(folder, media):
    for name in ("..", "../", "/\\"):
        with pytest.raises(UnsupportedFile):
            upload(folder, name, b"some text")
    assert not this_tests_documents().exists()
    assert_no_orphans(media)


def test_hostile_names_through_the_admin_upload(staff_client, folder, media):
    admin_upload(
        staff_client, folder, [("../../etc/passwd.txt", b"root:x:0:0"), ("論文.md", "# 論文\n\n本文です。".encode())]
    )

    names = sorted(this_tests_documents().values_list("original_name", flat=True))
    assert names == ["passwd.txt", "論文.md"]
    for document in this_tests_documents():
        assert Path(document.file.path).parent == media / "documents"
    assert_no_orphans(media)


# --- a mixed batch through a real worker --------------------------------------------------


BAD_BATCH = {
    "cut-short.pdf": ("not a readable PDF", bad.truncated_pdf),
    "secret.pdf": ("password", bad.encrypted_pdf),
    "scan.pdf": ("no extractable text", bad.image_only_pdf),
}
GOOD_BATCH = {"report.pdf": bad.small_pdf, "notes.md": bad.markdown_without_headings}


@pytest.mark.worker
@pytest.mark.slow
def test_mixed_batch_through_a_real_worker(celery_worker_process, client, settings):
    folder = FolderFactory(name="Batch")
    client.force_login(StaffFactory(username="batch-librarian"))
    files = [(name, build()) for name, (_, build) in BAD_BATCH.items()]
    files += [(name, build()) for name, build in GOOD_BATCH.items()]
    files.insert(2, ("empty.txt", b""))
    files.insert(4, ("minutes.pdf", bad.text_named_pdf()))

    messages = admin_upload(client, folder, files)

    assert any("empty" in m for m in messages), messages
    assert any(m.startswith("'minutes.pdf' is not a PDF") for m in messages), messages
    assert Document.objects.filter(folder=folder).count() == len(BAD_BATCH) + len(GOOD_BATCH)

    def all_finished() -> bool:
        return not Document.objects.filter(folder=folder).exclude(status__in=FINISHED).exists()

    def state() -> str:
        rows = Document.objects.filter(folder=folder).values_list("original_name", "status")
        return f"every document to finish: {list(rows)}\n{celery_worker_process.log()[-5000:]}"

    wait_for(all_finished, timeout=600, what=state)
    for name, (words, _) in BAD_BATCH.items():
        assert_failed(Document.objects.get(folder=folder, original_name=name), words)
    for name in GOOD_BATCH:
        assert_indexed(Document.objects.get(folder=folder, original_name=name))
    assert_no_orphans(Path(settings.MEDIA_ROOT))
