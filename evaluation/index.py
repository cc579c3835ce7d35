"""Per-strategy indexes of an evaluation corpus, built with the production pipeline pieces.

Each strategy gets its own top-level Folder named `__eval__ <run id> <strategy>`; queries are
restricted to that folder id, so users' documents are never read, and removing the folder
removes its documents, chunks and BM25 statistics by cascade. Files are extracted once per run
and every distinct embedded text is encoded once per run (strategies share many texts).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.db import DatabaseError, connection

from documents import chunking
from documents.embedding import count_tokens, count_tokens_batch, embed_texts, window_tokens
from documents.extraction.dispatch import extract_document
from documents.extraction.formats import CONTENT_TYPES_BY_SUFFIX
from documents.extraction.types import ExtractedText, ExtractionError
from documents.models import Chunk, Document, DocumentStatus, Folder
from documents.services.contexts import chunk_window
from documents.services.ingest import document_chunks_replace
from documents.services.status import document_transition
from documents.services.upload import content_type_for, title_from_name
from evaluation import chunkers
from evaluation.contexts import base_strategy
from evaluation.textnorm import normalise_for_match

if TYPE_CHECKING:
    from evaluation.contexts import ContextBook

logger = logging.getLogger(__name__)

EVAL_FOLDER_PREFIX = "__eval__"
Tick = Callable[[int], object]  # progress callback: number of steps done


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    title: str
    content_type: str
    size: int
    sha256: str
    extracted: ExtractedText
    normalised_text: str  # for telling "lost in extraction" from "cut by chunking"


@dataclass
class Corpus:
    files: list[CorpusFile]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    seconds: float = 0.0


def corpus_paths(dirs: list[Path]) -> list[Path]:
    paths: list[Path] = []
    for directory in dirs:
        if directory.is_file():
            paths.append(directory)
            continue
        paths.extend(
            sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix.lower() in CONTENT_TYPES_BY_SUFFIX)
        )
    return paths


def extract_corpus(dirs: list[Path], tick: Tick | None = None) -> Corpus:
    """Extract every supported file once; identical bytes are indexed once, unreadable files are skipped."""
    started = time.perf_counter()
    corpus = Corpus(files=[])
    seen: dict[str, str] = {}
    for path in corpus_paths(dirs):
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            corpus.skipped.append((path.name, f"same bytes as {seen[digest]}"))
        else:
            seen[digest] = path.name
            content_type = content_type_for(path.name)
            try:
                extracted = extract_document(path, content_type)
            except ExtractionError as exc:
                corpus.skipped.append((path.name, str(exc)))
            except Exception as exc:  # as in ingestion: one broken file must not stop the run
                logger.exception("extracting %s failed", path)
                corpus.skipped.append((path.name, f"{type(exc).__name__}: {exc}"))
            else:
                title = title_from_name(path.name)  # what an upload without a title gets
                norm = normalise_for_match(extracted.text)
                corpus.files.append(CorpusFile(path, title, content_type, len(data), digest, extracted, norm))
        if tick:
            tick(1)
    corpus.seconds = time.perf_counter() - started
    return corpus


class EmbeddingCache:
    """Vectors by exact embedded text, so a text shared by two strategies is encoded once."""

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}
        self.encoded = 0
        self.reused = 0
        self.seconds = 0.0

    def vectors(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        self.reused += len(texts) - len(missing)
        if missing:
            started = time.perf_counter()
            for text, vector in zip(missing, embed_texts(missing), strict=True):
                self._vectors[text] = vector
            self.encoded += len(missing)
            self.seconds += time.perf_counter() - started
        if not texts:
            return np.zeros((0, settings.EMBEDDING_DIMS), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


@dataclass
class IndexStats:
    chunks: int = 0
    over_window: int = 0
    max_tokens: int = 0
    contents: list[str] = field(default_factory=list)  # normalised chunk contents, for destroyed answers
    failed: list[tuple[str, str]] = field(default_factory=list)  # documents that yielded no chunks
    seconds: float = 0.0


def folder_name(run_id: str, strategy: str) -> str:
    return f"{EVAL_FOLDER_PREFIX} {run_id} {strategy}"


def create_folder(run_id: str, strategy: str) -> Folder:
    # Not public and no readers: only the harness, which passes the id to retrieve, sees it.
    return Folder.objects.create(name=folder_name(run_id, strategy), parent=None)


def populate(
    folder: Folder,
    corpus: Corpus,
    strategy: str,
    cache: EmbeddingCache,
    tick: Tick | None = None,
    contexts: ContextBook | None = None,
) -> IndexStats:
    """Chunk, embed and store every corpus file into `folder` as the ingest pipeline does.

    With `contexts` ("E+ctx"), chunks leave room for a written context and get one from the book.
    """
    started = time.perf_counter()
    stats = IndexStats()
    label, strategy = strategy, base_strategy(strategy)
    for item in corpus.files:
        document = _document(folder, item)
        window = chunk_window(contextual=contexts is not None)  # never the production CONTEXT_WRITER's
        spans = chunkers.chunk_document(
            item.extracted.text, title=document.title, sections=item.extracted.sections,
            page_starts=item.extracted.page_starts, strategy=strategy, target_chars=settings.CHUNK_TARGET_CHARS,
            count_tokens=count_tokens, max_tokens=window,
        )  # fmt: skip
        if spans and contexts is not None:
            spans = contexts.apply(label, item.extracted.text, spans)
        if spans:
            document_transition(document.pk, to=DocumentStatus.EMBEDDING, from_={DocumentStatus.CHUNKING})
            vectors = cache.vectors([chunking.embedded_text(s.context, s.content) for s in spans])
            # The production store (chunks + lexical index), stamped with the strategy used here.
            stamp = chunkers.pipeline_stamp(strategy, settings.CHUNK_TARGET_CHARS)
            document_chunks_replace(document.pk, item.extracted, spans, vectors, stamp=stamp)
        else:
            stats.failed.append((item.path.name, "no chunks"))
            document_transition(document.pk, to=DocumentStatus.FAILED, failure_reason="no chunks")
        if tick:
            tick(1)
    _measure(folder, stats)
    stats.seconds = time.perf_counter() - started
    return stats


def _document(folder: Folder, item: CorpusFile) -> Document:
    # The file is not copied into storage: nothing reads it after extraction, and the name points
    # nowhere a real upload could live, so deleting the row can never remove a user's file.
    return Document.objects.create(
        folder=folder,
        title=item.title,
        file=f"{EVAL_FOLDER_PREFIX}/{folder.pk}/{item.path.name}",
        original_name=item.path.name,
        content_type=item.content_type,
        size=item.size,
        sha256=item.sha256,
        page_count=item.extracted.page_count,
        status=DocumentStatus.CHUNKING,
    )


def _measure(folder: Folder, stats: IndexStats) -> None:
    """Read back what was stored: chunk count, token counts recounted, normalised contents."""
    rows = list(Chunk.objects.filter(document__folder=folder).values_list("context", "content"))
    tokens = count_tokens_batch([chunking.embedded_text(context, content) for context, content in rows])
    stats.chunks = len(rows)
    stats.over_window = sum(1 for t in tokens if t > window_tokens())
    stats.max_tokens = max(tokens, default=0)
    stats.contents = [normalise_for_match(content) for _, content in rows]


def remove_folder(folder_id: int) -> None:
    """Delete an eval folder and everything in it; retried once on a fresh connection.

    Called from `finally`, possibly right after Ctrl-C interrupted a query, when the
    connection may be unusable.
    """
    for attempt in (1, 2):
        try:
            Folder.objects.filter(pk=folder_id, name__startswith=EVAL_FOLDER_PREFIX).delete()
            return
        except DatabaseError:
            if attempt == 2:
                raise
            logger.warning("removing eval folder %s failed; retrying on a new connection", folder_id)
            connection.close()


def remove_leftovers() -> int:
    """Delete top-level eval folders left by runs that were killed outright; returns how many."""
    leftovers = Folder.objects.filter(parent=None, name__startswith=f"{EVAL_FOLDER_PREFIX} ")
    count = leftovers.count()
    for pk in leftovers.values_list("pk", flat=True):
        remove_folder(pk)
    return count
