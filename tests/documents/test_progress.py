"""Issue 28.1: a processing document's progress within its stage, and the estimate of what is left.

The throttle and the estimate are checked with a clock of the test's own; a real ingest of a
multi-page PDF records every stage with done never above total and leaves nothing behind once
indexed or failed; `GET /api/documents/{id}` shows it while the document is processing.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.utils import timezone

from documents import progress
from documents.context_writer import ChunkRequest, ContextWriter
from documents.extraction import dispatch
from documents.models import Document, DocumentStatus
from documents.progress import ProgressThrottle, eta_seconds, eta_text, progress_of
from documents.services import ingest
from documents.services import progress as progress_service
from documents.services.status import document_transition
from documents.services.upload import IncomingFile, document_upload
from ragsite.llm import ChatEndpoint
from tests.conftest import bearer
from tests.documents.context_model import MODEL, ContextModel, context_server
from tests.factories import DocumentFactory, FolderFactory

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def throttle() -> tuple[ProgressThrottle, list[tuple[str, int, int | None, bool]], Clock]:
    writes: list[tuple[str, int, int | None, bool]] = []
    clock = Clock()

    def write(stage: str, done: int, total: int | None, *, started: bool) -> None:
        writes.append((stage, done, total, started))

    return ProgressThrottle(write, interval=0.5, clock=clock), writes, clock


# --- the throttle -------------------------------------------------------------------------------


def test_throttle_writes_a_stage_start_at_once_then_at_most_every_interval() -> None:
    report, writes, clock = throttle()
    report("reading", 0, 10)
    assert writes == [("reading", 0, 10, True)]
    for page in range(1, 6):  # five pages in 0.4 s: held back
        clock.now += 0.08
        report("reading", page, 10)
    assert writes == [("reading", 0, 10, True)]
    clock.now += 0.15  # 0.55 s since the last write
    report("reading", 6, 10)
    assert writes[-1] == ("reading", 6, 10, False)
    assert len(writes) == 2


def test_throttle_keeps_a_stage_last_count_when_the_next_stage_starts() -> None:
    report, writes, clock = throttle()
    report("reading", 0, 3)
    clock.now += 0.1
    report("reading", 3, 3)  # held back by the throttle...
    report("layout", 0, 3)  # ...and written before the next stage
    assert writes == [("reading", 0, 3, True), ("reading", 3, 3, False), ("layout", 0, 3, True)]


def test_throttle_writes_at_once_the_first_report_that_names_the_total() -> None:
    report, writes, clock = throttle()
    report("reading", 0, None)  # the pipeline starts reading before the PDF is open
    report("reading", 0, 300)  # the extractor knows the page count: shown before the first page
    clock.now += 0.1
    report("reading", 1, 300)
    assert writes == [("reading", 0, None, True), ("reading", 0, 300, False)]


def test_flush_writes_only_what_was_held_back() -> None:
    report, writes, clock = throttle()
    report("embedding", 0, 64)
    report.flush()
    assert writes == [("embedding", 0, 64, True)]
    clock.now += 0.2
    report("embedding", 32, 64)
    report.flush()
    report.flush()
    assert writes == [("embedding", 0, 64, True), ("embedding", 32, 64, False)]


# --- the estimate -------------------------------------------------------------------------------


def test_estimate_is_the_rest_at_the_rate_so_far() -> None:
    # 10 of 100 pages in 20 s: 90 more at 2 s a page, less the 5 s since that was recorded.
    started, updated = T0, T0 + timedelta(seconds=20)
    assert eta_seconds(10, 100, started, updated, updated + timedelta(seconds=5)) == 175
    assert eta_text(175) == "about 3 min left"
    assert eta_text(42) == "about 40 s left"
    assert eta_text(2) == "about 5 s left"
    assert eta_text(None) == ""


@pytest.mark.parametrize(
    ("done", "total", "seconds"),
    [
        (1, 100, 30.0),  # one page says little (the first also loads Tesseract)
        (5, 100, 1.0),  # nor does a second of work
        (5, None, 30.0),  # a stage without a count
        (100, 100, 30.0),  # nothing left
    ],
)
def test_no_estimate_without_enough_signal(done: int, total: int | None, seconds: float) -> None:
    updated = T0 + timedelta(seconds=seconds)
    assert eta_seconds(done, total, T0, updated, updated) is None


def test_an_overdue_estimate_says_a_second_not_a_negative_time() -> None:
    updated = T0 + timedelta(seconds=10)
    assert eta_seconds(5, 10, T0, updated, updated + timedelta(minutes=5)) == 1


def test_progress_is_shown_only_while_processing() -> None:
    row = Document(
        progress_stage="embedding",
        progress_done=30,
        progress_total=120,
        progress_started_at=T0,
        progress_updated_at=T0 + timedelta(seconds=10),
    )
    now = T0 + timedelta(seconds=10)
    shown = progress_of(row, True, now)
    assert shown is not None
    assert (shown.label, shown.percent, shown.eta_seconds) == ("Embedding chunks", 25, 30)
    assert shown.as_dict()["eta"] == "about 30 s left"
    assert progress_of(row, False, now) is None
    assert progress_of(Document(progress_stage=""), True, now) is None
    counted = progress_of(Document(progress_stage="chunking", progress_total=None), True, now)
    assert counted is not None
    assert counted.percent is None


# --- a real ingest ------------------------------------------------------------------------------


def _pdf(path: Path, pages: int) -> Path:
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page()
        page.insert_text((72, 90), f"Chapter {number + 1}", fontsize=18)
        body = " ".join(f"Sentence {i} of page {number + 1} tells the lighthouse keeper's story." for i in range(25))
        page.insert_textbox(pymupdf.Rect(72, 120, 520, 760), body, fontsize=10)
    doc.save(path)
    return path


@pytest.fixture
def recorded_writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int, int | None]]:
    """Every progress write of the run, as the row holds it just after: (status, stage, done, total)."""
    seen: list[tuple[str, str, int, int | None]] = []
    real = progress_service.document_progress_write

    def spy(
        document_id: int, stage: str, done: int, total: int | None, *, started: bool, run_id: str | None = None
    ) -> bool:
        written = real(document_id, stage, done, total, started=started, run_id=run_id)
        row = Document.objects.values_list("status", "progress_stage", "progress_done", "progress_total")
        if written:
            seen.append(row.get(pk=document_id))
        return written

    monkeypatch.setattr(progress_service, "document_progress_write", spy)
    return seen


@pytest.mark.django_db
def test_a_real_ingest_records_each_stage_and_clears_it_when_indexed(
    tmp_path: Path, recorded_writes: list[tuple[str, str, int, int | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real extractor, even after a test of the session memoised it (a remembered one reports no pages).
    monkeypatch.setattr(ingest, "extract_document", dispatch.extract_document)
    path = _pdf(tmp_path / "keeper.pdf", pages=6)
    with path.open("rb") as stream:
        incoming = IncomingFile(name="keeper.pdf", size=path.stat().st_size, stream=stream)
        folder = FolderFactory(name="Coast")
        document = document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)
    ingest.document_ingest(document.pk)
    document.refresh_from_db()
    assert document.status == DocumentStatus.INDEXED, document.failure_reason

    stages = [stage for _, stage, _, _ in recorded_writes]
    assert list(dict.fromkeys(stages)) == ["reading", "layout", "chunking", "embedding", "storing"]
    for status, stage, done, total in recorded_writes:
        assert status == progress_service.STAGE_STATUS[stage]
        assert total is None or 0 <= done <= total, (stage, done, total)
    # Each counted stage's last write is its whole count (the throttle never drops a stage's end).
    last = {stage: (done, total) for _, stage, done, total in recorded_writes}
    assert last["reading"] == last["layout"] == (6, 6)
    assert last["embedding"] == (document.chunk_count, document.chunk_count)
    # Indexed: nothing in progress any more.
    assert (document.progress_stage, document.progress_done, document.progress_total) == ("", 0, None)
    assert document.progress_started_at is None
    assert document.progress_updated_at is None


@pytest.mark.django_db
def test_a_run_whose_document_is_requeued_mid_embedding_stops_at_its_next_batch(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from documents.services.queueing import documents_requeue

    settings.EMBEDDING_BATCH_SIZE = 2
    entry = "the keeper trims the wick, fills the lamp and writes the weather down. " * 12  # a chunk each
    paragraphs = "\n\n".join(f"Entry {n}: {entry}" for n in range(12))
    path = tmp_path / "log.md"
    path.write_text(f"# Log\n\n{paragraphs}\n")
    with path.open("rb") as stream:
        incoming = IncomingFile(name="log.md", size=path.stat().st_size, stream=stream)
        document = document_upload(
            folder=FolderFactory(name="Logs"), incoming=incoming, uploaded_by=None, enqueue=False
        )
    batches: list[int] = []

    def embed_then_requeue(texts: list[str], batch_size: int | None = None) -> Any:
        batches.append(len(texts))
        if len(batches) == 1:  # staff re-queue the document while its first batch embeds
            documents_requeue(Document.objects.filter(pk=document.pk))
        time.sleep(progress.WRITE_INTERVAL_SECONDS)  # the next report is written, not held back
        return real_embed(texts, batch_size)

    real_embed = ingest.embed_texts
    monkeypatch.setattr(ingest, "embed_texts", embed_then_requeue)
    ingest.document_ingest(document.pk)
    document.refresh_from_db()
    assert batches == [2]  # one batch, then the run stopped: no embedding of the rest for nobody
    assert document.status == DocumentStatus.QUEUED
    assert (document.chunk_count, document.failure_reason) == (0, "")


@pytest.mark.django_db
def test_progress_is_cleared_when_the_document_fails_and_not_written_after(tmp_path: Path) -> None:
    document = DocumentFactory(text="Some words.", status=DocumentStatus.EXTRACTING)
    assert progress_service.document_progress_write(document.pk, progress.READING, 3, 9, started=True)
    ingest.document_fail(document.pk, "The file is broken.")
    document.refresh_from_db()
    assert (document.status, document.progress_stage, document.progress_total) == (DocumentStatus.FAILED, "", None)
    # A run that has not noticed yet writes nothing over the failed document.
    assert not progress_service.document_progress_write(document.pk, progress.READING, 4, 9, started=False)
    document.refresh_from_db()
    assert document.progress_stage == ""


@pytest.mark.django_db
def test_every_status_move_clears_the_stage() -> None:
    document = DocumentFactory(text="Some words.", status=DocumentStatus.EXTRACTING)
    progress_service.document_progress_write(document.pk, progress.LAYOUT, 2, 2, started=True)
    assert document_transition(document.pk, to=DocumentStatus.CHUNKING)
    document.refresh_from_db()
    assert document.progress_stage == ""
    assert document.progress_started_at is None


# --- the API --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_shows_progress_while_processing(client: Any, staff_user: Any) -> None:
    document = DocumentFactory(text="Scanned pages.", status=DocumentStatus.EXTRACTING)
    now = timezone.now()
    Document.objects.filter(pk=document.pk).update(
        progress_stage="reading",
        progress_done=12,
        progress_total=48,
        progress_started_at=now - timedelta(seconds=24),
        progress_updated_at=now,
    )
    body = client.get(f"/api/documents/{document.pk}", **bearer(staff_user)).json()
    shown = body["progress"]
    assert {k: shown[k] for k in ("stage", "done", "total", "percent")} == {
        "stage": "reading",
        "done": 12,
        "total": 48,
        "percent": 25,
    }
    assert 70 <= shown["eta_seconds"] <= 72  # 36 pages at 2 s each, less the moments since
    assert shown["updated_at"]
    listed = client.get("/api/documents", **bearer(staff_user)).json()["items"]
    assert listed[0]["progress"]["stage"] == "reading"
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.QUEUED)
    assert client.get(f"/api/documents/{document.pk}", **bearer(staff_user)).json()["progress"] is None


# --- contexts (CONTEXT_WRITER=openai) ---------------------------------------------------------------


def test_the_context_writer_reports_each_result_in_the_callers_thread(settings: Any) -> None:
    text = " ".join(f"Sentence {i} about the harbour's {i % 7} lights." for i in range(60))
    chunks = [ChunkRequest(text[s : s + 200], s, s + 200) for s in range(0, 1800, 200)]
    heard: list[tuple[int, str]] = []
    with context_server(settings, ContextModel(fail=False)) as llm:
        writer = ContextWriter(ChatEndpoint(llm.base_url, MODEL), concurrency=3, retries=0)
        results = writer.write_all(text, chunks, lambda count: heard.append((count, threading.current_thread().name)))
    assert len(results) == len(chunks)
    assert [count for count, _ in heard] == list(range(1, len(chunks) + 1))
    assert {name for _, name in heard} == {threading.current_thread().name}  # never a pool thread
