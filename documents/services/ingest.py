"""How a stored file becomes indexed chunks: extract, chunk, embed, store.

`document_ingest(document_id)` is the whole pipeline. Each stage moves `status` so staff can
watch it; a file that cannot be processed ends `failed` with a reason a person understands.
Re-running is harmless: the store step replaces the document's chunks in one transaction.
Every status move goes through documents.services.status: a run whose document was deleted,
re-queued or finished by someone else meanwhile stops instead of overwriting that state.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from documents import chunking, progress, time_limit
from documents.embedding import count_tokens, embed_texts, embedding_stamp, warm_up
from documents.embedding_http import EmbeddingUnavailable
from documents.extraction.dispatch import extract_document
from documents.extraction.language import chunk_languages
from documents.extraction.metadata import DocumentMetadata
from documents.extraction.types import ExtractedText, ExtractionError
from documents.file_storage.local import local_copy
from documents.lexical.index import lexical_index_replace
from documents.models import PROCESSING_STATUSES, Chunk, Document, DocumentStatus, OcrPage
from documents.selectors import current_pipeline_stamp
from documents.services.contexts import ContextWriterMisconfigured, chunk_contexts_write, chunk_window
from documents.services.metadata import chunk_title, document_metadata_read, metadata_updates
from documents.services.progress import progress_recorder
from documents.services.status import UNFINISHED_STATUSES, document_transition
from documents.services.vector_reuse import embedding_key, vectors_for
from documents.services.worker_failures import (
    document_give_up_if_killed,
    model_out_of_memory_reason,
    not_held_by_another_run,
    out_of_memory_reason,
)
from documents.vector_column import VectorColumnMismatch, vector_column_verify
from ragsite.memory_limit import is_out_of_memory

logger = logging.getLogger(__name__)


# Errors that say "try again later" rather than "this file is bad".
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, ConnectionError, TimeoutError)


# Chunks are inserted this many rows a statement: one statement for all of a long document's
# chunks would build all their parameters (a vector's text is ~4 KB) in memory at once.
STORE_BATCH_ROWS = 500


class IngestFailed(Exception):
    """A permanent, explainable failure: the message becomes the document's failure_reason."""


class IngestSuperseded(Exception):
    """The document left the state this run put it in (deleted, re-queued, finished elsewhere)."""


def document_ingest(
    document_id: int, *, skip_finished: bool = False, redelivered: bool = False, message_id: str = ""
) -> Document | None:
    """Run the whole pipeline for one document; returns it, or None when it no longer exists.

    skip_finished (the queue's task sets it) leaves an indexed or failed document alone: a
    queue message can arrive twice (the broker redelivers a crashed worker's message and
    reconcile queues another) or late, after the document was given up on; re-indexing and
    retrying always set `queued` first.

    redelivered (the task passes the message's flag) says the broker handed this message out
    before and it was never acknowledged: a document still mid-processing was left there by a
    run that died with its process, and once INGEST_MAX_ATTEMPTS are spent it is failed with
    the likely cause instead of being tried again (documents/services/worker_failures.py).

    message_id (the task passes its queue message's id) is recorded as the document's run_id. A
    message finds a document mid-processing under another message's run when it is a duplicate
    of a live one: the broker handed out a lost worker's message while reconcile had queued the
    document again, and the two met. It then leaves that run alone; a run that died is
    reconcile's to find. Without a message_id (inline runs) the document is taken whatever runs it.
    """
    if redelivered and document_give_up_if_killed(document_id, message_id=message_id):
        return Document.objects.filter(pk=document_id).first()
    # The attempt is counted before the work: a worker killed mid-run leaves it counted, which
    # is what reconcile's INGEST_MAX_ATTEMPTS reads.
    started = document_transition(
        document_id,
        to=DocumentStatus.EXTRACTING,
        from_=UNFINISHED_STATUSES if skip_finished else None,
        where=not_held_by_another_run(message_id) if message_id else None,
        attempts=F("attempts") + 1,
        failure_reason="",
        run_id=message_id,
    )
    document = Document.objects.filter(pk=document_id).first()
    if document is None:
        logger.info("document %s was deleted before ingestion; nothing to do", document_id)
        return None
    if not started:
        held = f" by the run of message {document.run_id}" if document.status in PROCESSING_STATUSES else ""
        logger.info(
            "document %s is already %s%s; ignoring a duplicate queue message", document_id, document.status, held
        )
        return document
    if not _warmed_up(document_id):
        return Document.objects.filter(pk=document_id).first()
    out_of_memory = False
    try:
        with time_limit.deadline(settings.INGEST_TIME_LIMIT_SECONDS):
            _run_pipeline(document)
    except (IngestSuperseded, progress.RunSuperseded) as exc:
        logger.info("document %s: %s; this run stops", document_id, exc)
    except (IngestFailed, ExtractionError, ContextWriterMisconfigured, time_limit.TimeLimitExceeded) as exc:
        document_fail(document_id, str(exc))
    except (EmbeddingUnavailable, VectorColumnMismatch) as exc:
        # Nothing of this run was stored; once the server (or the column) is right, a retry succeeds.
        document_fail(document_id, embedding_failure_reason(exc))
    except TRANSIENT_ERRORS:
        raise  # the task retries these with backoff
    except Exception as exc:
        if is_out_of_memory(exc):
            # Failed below, once this block has dropped the exception: its traceback holds the
            # pipeline's frames, and with them whatever filled the memory.
            logger.warning("document %s ran out of memory", document_id, exc_info=True)
            out_of_memory = True
        else:
            # A bug or an input we did not foresee: keep the document (and the rest of the folder)
            # in a clear state rather than stuck, and keep the traceback in the log.
            logger.exception("unexpected error ingesting document %s", document_id)
            document_fail(document_id, unexpected_failure_reason(exc))
    if out_of_memory:
        gc.collect()  # and whatever of it sits in reference cycles, before the next allocations
        document_fail(document_id, out_of_memory_reason())
    return Document.objects.filter(pk=document_id).first()


def _warmed_up(document_id: int) -> bool:
    """`_warm_up`, or False with the document failed when the process cannot even load the model
    within its memory limit (INGEST_MEMORY_LIMIT_MB set too low): a reason that names the setting,
    rather than an error that escapes the task and leaves the document stuck."""
    try:
        _warm_up()
    except Exception as exc:
        if not is_out_of_memory(exc):
            raise
        logger.error("out of memory loading the embedding model (document %s)", document_id, exc_info=True)
    else:
        return True
    gc.collect()
    document_fail(document_id, model_out_of_memory_reason())
    return False


def _warm_up() -> None:
    """What a process loads once (the embedding model and its first run, MuPDF) loads before the
    time limit's clock starts: it is not this file's cost, and an import is no place to be interrupted."""
    import documents.extraction.pdf  # noqa: F401  (PyMuPDF and the OCR module)

    warm_up()


def unexpected_failure_reason(exc: BaseException) -> str:
    detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return (
        f"Processing stopped on an unexpected error ({type(exc).__name__}{': ' + detail if detail else ''}). "
        "Retry it; if it fails again, the file may be malformed: check it opens in a viewer."
    )


def embedding_failure_reason(exc: Exception) -> str:
    message = str(exc).rstrip(".")
    return f"Embedding failed: {message[:1].lower()}{message[1:]}. Retry the document once the embedder works again."


def document_fail(document_id: int, reason: str) -> None:
    logger.warning("document %s failed: %s", document_id, reason)
    with transaction.atomic():
        if document_transition(document_id, to=DocumentStatus.FAILED, failure_reason=reason[:2000], warnings=[]):
            OcrPage.objects.filter(document_id=document_id).delete()


def _advance(document_id: int, to: DocumentStatus, from_: DocumentStatus) -> None:
    if not document_transition(document_id, to=to, from_={from_}):
        raise IngestSuperseded(f"it is no longer {from_}")


def _run_pipeline(document: Document) -> None:
    # Each stage reports its progress (pages read, contexts written, chunks embedded) to the
    # document, throttled to a few writes a second (documents/progress.py).
    report = progress_recorder(document.pk, run_id=document.run_id)
    report(progress.READING, 0, None)  # a PDF's extractor names its page count at once
    # Only the compute stages are `interruptible` by the time limit's alarm, never a database call
    # (progress writes inside them hold the alarm off themselves).
    # The original is read through the storage (FILE_STORAGE): a local copy when it is remote. The
    # copy is a database or network read, so it stays outside the interruptible block.
    with _original(document) as path, time_limit.interruptible():
        extracted = _extract(path, document, report)
        metadata = _metadata(document, extracted, path)
    report.flush()
    _advance(document.pk, DocumentStatus.CHUNKING, from_=DocumentStatus.EXTRACTING)
    report(progress.CHUNKING, 0, None)
    with time_limit.interruptible():
        spans = chunk_extracted(extracted, title=chunk_title(document))
    if not spans:
        raise IngestFailed("The document has no text to index after extraction.")
    # Model-written chunk contexts (CONTEXT_WRITER); a no-op returning `spans` when the writer is off.
    spans = chunk_contexts_write(document, extracted.text, spans, report)
    report.flush()
    vector_column_verify()  # vectors of another size than the column's would be refused at the very end
    _advance(document.pk, DocumentStatus.EMBEDDING, from_=DocumentStatus.CHUNKING)
    # A text embedded before by the same model keeps its vector (a re-index after an extractor
    # change re-embeds only the chunks whose text changed).
    with time_limit.interruptible():
        texts = [chunking.embedded_text(s.context, s.content) for s in spans]
        embedded = vectors_for(texts, embed_texts, report)
    time_limit.check()
    report(progress.STORING, 0, None)
    if embedded.reused:
        logger.info("document %s: %d of %d vectors reused", document.pk, embedded.reused, len(spans))
    stored = document_chunks_replace(
        document.pk,
        extracted,
        spans,
        embedded.vectors,
        stamp=current_pipeline_stamp(),
        keys=embedded.keys,
        metadata=metadata,
    )
    if not stored:
        raise IngestSuperseded("it is no longer embedding")


def _metadata(document: Document, extracted: ExtractedText, path: Path) -> DocumentMetadata | None:
    """The file's title, authors and date; None (the document keeps what it has) when reading them
    fails: metadata is worth less than the text, so it never fails an indexing."""
    try:
        return document_metadata_read(document, extracted, path=path)
    except time_limit.TimeLimitExceeded:
        raise
    except Exception:
        logger.warning("document %s: metadata could not be read", document.pk, exc_info=True)
        return None


def chunk_extracted(extracted: ExtractedText, *, title: str, window: int | None = None) -> list[chunking.ChunkSpan]:
    """The production chunking of extracted text, at the settings' target length.

    `window` is the word-piece budget; by default the encoder window, less the room a context writer keeps.
    """
    return chunking.chunk_document(
        extracted.text,
        title=title,
        sections=extracted.sections,
        page_starts=extracted.page_starts,
        target_chars=settings.CHUNK_TARGET_CHARS,
        count_tokens=count_tokens,
        max_tokens=chunk_window() if window is None else window,
    )


@contextmanager
def _original(document: Document) -> Iterator[Path]:
    missing = "The uploaded file is missing from storage; upload it again."
    if not document.file.name:
        raise IngestFailed(missing)
    with ExitStack() as stack:
        try:
            path = stack.enter_context(local_copy(document.file.storage, document.file.name))
        except FileNotFoundError as exc:
            raise IngestFailed(missing) from exc
        yield path


def _extract(path: Path, document: Document, report: progress.ProgressReport) -> ExtractedText:
    extracted = extract_document(path, document.content_type, report)
    if not extracted.text.strip():
        raise IngestFailed("The file contains no extractable text.")
    return extracted


def document_chunks_replace(
    document_id: int,
    extracted: ExtractedText,
    spans: list[chunking.ChunkSpan],
    vectors: Any,
    *,
    stamp: str,
    keys: list[str] | None = None,
    metadata: DocumentMetadata | None = None,
) -> bool:
    """Replace an embedding document's chunks, lexical index and stamps in one transaction.

    `stamp` is the pipeline stamp of how the spans were chunked (`current_pipeline_stamp()`
    for the configured pipeline). `keys` are the vectors' reuse keys (from `vectors_for`);
    without them they are computed from the spans, for callers that embedded
    `chunking.embedded_text` themselves. `metadata` (extracted from the file) is written except
    the fields staff corrected, read under the same lock as the move. Returns False, storing nothing, when the document
    was deleted or is no longer `embedding`; True when it is stored and `indexed`.
    """
    if keys is None:
        keys = [embedding_key(chunking.embedded_text(s.context, s.content)) for s in spans]
    languages = chunk_languages([span.content for span in spans])
    with transaction.atomic():
        # Locked while `embedding`, nothing else can move it before the guarded move below.
        embedding = Document.objects.select_for_update().filter(pk=document_id, status=DocumentStatus.EMBEDDING)
        edited = embedding.values_list("metadata_edited", flat=True).first()
        if edited is None:
            logger.info("document %s is gone or no longer embedding; its chunks are not stored", document_id)
            return False
        # Any: the values are model fields of several types, passed on as keywords.
        extracted_metadata: dict[str, Any] = metadata_updates(metadata, edited) if metadata is not None else {}
        Chunk.objects.filter(document_id=document_id).delete()
        chunks = (
            Chunk(
                document_id=document_id,
                ordinal=ordinal,
                section=span.section[:1000],
                content=span.content,
                context=span.context,
                char_start=span.char_start,
                char_end=span.char_end,
                page_start=span.page_start,
                page_end=span.page_end,
                token_count=span.token_count,
                embedding=vector,
                embedding_key=key,
                language=language,
            )
            for ordinal, (span, vector, key, language) in enumerate(
                zip(spans, vectors, keys, languages.chunks, strict=True)
            )
        )
        Chunk.objects.bulk_create(chunks, batch_size=STORE_BATCH_ROWS)
        lexical_index_replace(document_id)
        ocr_pages_replace(document_id, extracted)
        # Last: chunk_count changes with the status, in the transaction that stored the chunks
        # and lexeme_total, so BM25's N and avgdl (documents.FolderLength) see both or neither.
        return document_transition(
            document_id,
            to=DocumentStatus.INDEXED,
            from_={DocumentStatus.EMBEDDING},
            warnings=extracted.warnings,
            canonical_text=extracted.text,
            page_starts=extracted.page_starts,
            page_count=extracted.page_count,
            extractor=extracted.extractor,
            embedding_model=embedding_stamp(),
            embedding_dims=settings.EMBEDDING_DIMS,
            pipeline=stamp,
            chunk_count=len(spans),
            language=languages.document,
            failure_reason="",
            indexed_at=timezone.now(),
            **extracted_metadata,
        )


def ocr_pages_replace(document_id: int, extracted: ExtractedText) -> None:
    OcrPage.objects.filter(document_id=document_id).delete()
    OcrPage.objects.bulk_create(
        OcrPage(
            document_id=document_id,
            number=page.number,
            mean_confidence=page.mean_confidence,
            word_count=len(page.words),
            words=[list(word) for word in page.words],
        )
        for page in extracted.ocr_pages
    )
