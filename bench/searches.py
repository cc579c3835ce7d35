"""Search benchmark: build ~10k / ~100k chunk indexes from real corpus text and time searches.

How the index is built (also printed by the command and recorded in BENCHMARKS.md):
the corpus files are extracted, chunked and embedded once with the real pipeline functions
(cached in var/bench/ keyed by file names, sizes and pipeline stamp); then, in a separate
throw-away database (created with Django's test-database machinery, all migrations applied,
dropped at the end), copies of every source document are inserted under distinct titles
("<title> #<copy>") in one folder: documents with bulk_create, chunks with COPY (identical
chunk texts reuse the same vector), then documents.lexical.index.lexical_index_replace
per document (search_vector, lexeme_count, lexeme_total) as ingestion does. The HNSW and GIN
indexes are dropped before loading and rebuilt afterwards, and the packed postings built once
(documents/bulk_indexes.py).
"""

from __future__ import annotations

import hashlib
import math
import pickle
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from documents.embedding import embedding_stamp
from documents.extraction.formats import CONTENT_TYPES_BY_SUFFIX
from documents.lexical.index import lexical_index_replace
from documents.models import Document, DocumentStatus, Folder
from search.services.dense import DENSE_SQL, dense_params
from search.services.query_embedding import embed_query, vector_literal
from search.services.retrieval import retrieve

CHUNK_COLUMNS = (
    "document_id",
    "ordinal",
    "section",
    "content",
    "context",
    "char_start",
    "char_end",
    "page_start",
    "page_end",
    "token_count",
    "embedding",
    "lexeme_count",
    "embedding_key",  # empty: benchmark vectors are never reused by a re-index
)


@dataclass
class SourceDocument:
    title: str
    name: str
    content_type: str
    text: str
    page_starts: list[int]
    page_count: int | None
    # Chunk rows without document_id/lexeme_count; the vector is pgvector text.
    chunks: list[tuple[Any, ...]] = field(default_factory=list)


def load_sources(
    dirs: Iterable[Path], cache_dir: Path, log: Callable[[str], None], limit: int | None = None
) -> list[SourceDocument]:
    """Extract, chunk and embed every corpus file (the first `limit` by path) once; cached on disk."""
    from documents.chunking import pipeline_stamp

    files = sorted(p for d in dirs for p in Path(d).iterdir() if p.suffix in CONTENT_TYPES_BY_SUFFIX)[:limit]
    stamp = pipeline_stamp(settings.CHUNK_TARGET_CHARS) + embedding_stamp()
    cache_dir.mkdir(parents=True, exist_ok=True)
    sources = []
    for path in files:
        key = hashlib.sha256(f"{path.name}:{path.stat().st_size}:{stamp}".encode()).hexdigest()[:16]
        cache = cache_dir / f"search-source-{key}.pickle"
        if cache.exists():
            sources.append(pickle.loads(cache.read_bytes()))  # our own file, written below
            continue
        started = time.perf_counter()
        try:
            source = _source(path)
        except Exception as exc:  # a file our extractors cannot read is reported, not fatal
            log(f"  skipped {path.name}: {type(exc).__name__}: {exc}")
            continue
        cache.write_bytes(pickle.dumps(source))
        sources.append(source)
        log(f"  {path.name}: {len(source.chunks)} chunks in {time.perf_counter() - started:.1f} s (now cached)")
    return sources


def _source(path: Path) -> SourceDocument:
    from documents import chunking
    from documents.embedding import embed_texts
    from documents.extraction.dispatch import extract_document
    from documents.services.ingest import chunk_extracted

    content_type = CONTENT_TYPES_BY_SUFFIX[path.suffix]
    extracted = extract_document(path, content_type)
    spans = chunk_extracted(extracted, title=path.stem)
    vectors = embed_texts([chunking.embedded_text(s.context, s.content) for s in spans])
    source = SourceDocument(path.stem, path.name, content_type, extracted.text, extracted.page_starts, None)
    source.page_count = extracted.page_count
    for ordinal, (s, vector) in enumerate(zip(spans, vectors, strict=True)):
        row = (ordinal, s.section[:1000], s.content, s.context, s.char_start, s.char_end)
        source.chunks.append((*row, s.page_start, s.page_end, s.token_count, vector_literal(vector)))
    return source


def add_copies(folder: Folder, sources: list[SourceDocument], first_copy: int, copies: int) -> int:
    """Insert copies first_copy..first_copy+copies-1 of every source; returns chunks inserted."""
    documents = Document.objects.bulk_create(
        _document(folder, source, copy) for copy in range(first_copy, first_copy + copies) for source in sources
    )
    by_name = {source.name: source for source in sources}
    inserted = 0
    raw = connection.connection
    assert raw is not None
    with raw.cursor() as cursor, cursor.copy(f"COPY documents_chunk ({', '.join(CHUNK_COLUMNS)}) FROM STDIN") as copy:
        for document in documents:
            for row in by_name[document.original_name].chunks:
                copy.write_row((document.pk, *row, 0, ""))
                inserted += 1
    for document in documents:
        with transaction.atomic():
            lexical_index_replace(document.pk, blocks=False)  # packed postings: after the load
    return inserted


def _document(folder: Folder, source: SourceDocument, copy: int) -> Document:
    digest = hashlib.sha256(f"{source.name}#{copy}".encode()).hexdigest()
    return Document(
        folder=folder,
        title=f"{source.title} #{copy}",
        file=f"bench/{source.name}",
        original_name=source.name,  # the key back to the source in add_copies
        content_type=source.content_type,
        size=len(source.text),
        sha256=digest,
        page_count=source.page_count,
        status=DocumentStatus.INDEXED,
        indexed_at=timezone.now(),  # readers' filters, facets and browse list indexed documents only
        embedding_model=embedding_stamp(),
        embedding_dims=settings.EMBEDDING_DIMS,
        chunk_count=len(source.chunks),
        page_starts=source.page_starts,
    )


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99), "mean": statistics.fmean(ordered)}


def time_embedding(queries: list[str]) -> list[float]:
    """Milliseconds to embed each query with a warm model and a cold cache."""
    from search.services.query_embedding import clear_query_cache

    embed_query("warm up the model")
    clear_query_cache()
    samples = []
    for text in queries:
        started = time.perf_counter()
        embed_query(text)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def time_searches(queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Per mode, per stage: milliseconds of each search (query vectors cached: embedding apart)."""
    samples: dict[str, dict[str, list[float]]] = {}
    for name in SEARCH_RUNS:
        mode, concurrent = name.removesuffix("_sequential"), not name.endswith("_sequential")
        with override_settings(SEARCH_CONCURRENT_LEGS=concurrent):
            samples[name] = _time_mode(queries, folder_ids, rounds, mode)
    return samples


# "hybrid_sequential": the legs one after the other on one connection, to compare in the same run.
SEARCH_RUNS = ("dense", "bm25", "hybrid", "hybrid_sequential")
STAGES = ("dense", "bm25", "bm25_wait", "distances", "mend", "terms", "terms_wait", "fuse", "hydrate")


def _time_mode(queries: list[str], folder_ids: list[int], rounds: int, mode: str) -> dict[str, list[float]]:
    retrieve(query=queries[0], folder_ids=folder_ids, k=10, mode=mode)  # warm plans and caches
    stages: dict[str, list[float]] = {}
    for _ in range(rounds):
        for text in queries:
            started = time.perf_counter()
            result = retrieve(query=text, folder_ids=folder_ids, k=10, mode=mode)
            wall = (time.perf_counter() - started) * 1000
            for stage in STAGES:
                stages.setdefault(stage, []).append(result.timings_ms.get(stage, 0.0))
            stages.setdefault("total", []).append(wall)
    return stages


def rerank_standin(var_dir: Path) -> Path:
    """A cross-encoder of the size of ms-marco-MiniLM-L-6-v2 (6 layers, 384 wide), built from the
    installed MiniLM encoder plus an untrained one-score head: its scores mean nothing, its
    latency is that of the reader most deployments start with (no weights ship with this machine)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from documents.embedding import model_path

    folder = var_dir / "bench" / "rerank-standin"
    if not (folder / "config.json").is_file():
        source = str(model_path())
        AutoModelForSequenceClassification.from_pretrained(source, num_labels=1).save_pretrained(folder)
        AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return folder


def time_rerank(queries: list[str], folder_ids: list[int], model_dir: Path) -> list[float]:
    """Milliseconds the reader stage adds to a hybrid search (RERANK_CANDIDATES passages per query)."""
    with override_settings(RERANKER="cross-encoder", RERANKER_MODEL=str(model_dir)):
        retrieve(query=queries[0], folder_ids=folder_ids, k=10)  # load the model once
        return [retrieve(query=text, folder_ids=folder_ids, k=10).timings_ms.get("rerank", 0.0) for text in queries]


def exact_neighbours(vector: str, folder_ids: list[int], k: int) -> list[tuple[int, float]]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")  # no HNSW: a full scan and an exact sort
        cursor.execute(DENSE_SQL, dense_params(vector, folder_ids, k))
        return [(int(pk), float(distance)) for pk, distance in cursor.fetchall()]


def explain(sql: str, params: dict[str, Any], *, hnsw: bool = False, setup: str = "") -> str:
    """The executed plan (EXPLAIN ANALYZE), with the dense leg's scan settings or a setup statement when asked."""
    with transaction.atomic(), connection.cursor() as cursor:
        if setup:
            cursor.execute(setup)
        if hnsw:
            cursor.execute("SET LOCAL hnsw.ef_search = 100")
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())
