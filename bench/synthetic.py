"""Distinct synthetic passages for bench_search: runs of real sentences, vectors from sentence vectors.

Why this is realistic enough to time search on: every passage is a contiguous run of real
sentences of one corpus document (the run length drawn from how many sentences real chunks
hold), so words, their frequencies, co-occurrences and chunk lengths follow the corpus; its
context (title and section) is the real chunk's where the run starts. Its vector is the
normalised mean of its sentences' vectors, each sentence embedded once with the real model
(cached in var/bench/). `mean_vector_fidelity` measures, on the real chunks, how close such a
mean is to the vector the model gives the whole chunk. No two passages share their text, so
neither the HNSW graph nor BM25 meets the exact ties that copies of the corpus made.
"""

from __future__ import annotations

import hashlib
import random
import re
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from bench.searches import CHUNK_COLUMNS, SourceDocument
from documents.embedding import embedding_stamp
from documents.lexical.index import lexical_index_replace
from documents.models import Document, DocumentStatus, Folder
from search.services.query_embedding import vector_literal

if TYPE_CHECKING:
    import numpy as np

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'\[])")
MIN_SENTENCE_CHARS = 12
PASSAGES_PER_DOCUMENT = 100


@dataclass
class Sentence:
    text: str
    row: int  # index into SentenceBank.vectors
    chunk: tuple[Any, ...]  # the real chunk row it comes from (section, context, pages)


@dataclass
class SentenceBank:
    by_source: list[list[Sentence]]
    vectors: np.ndarray
    run_lengths: list[int]  # sentences per real chunk: what passage lengths are drawn from
    titles: list[str]


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if len(s.strip()) >= MIN_SENTENCE_CHARS]


def build_bank(sources: list[SourceDocument], cache_dir: Path, log: Callable[[str], None]) -> SentenceBank:
    """Every distinct sentence of the sources, embedded once (vectors cached on disk)."""
    import numpy as np

    from documents.embedding import embed_texts

    by_source: list[list[Sentence]] = []
    index: dict[str, int] = {}
    run_lengths = []
    for source in sources:
        sentences = []
        for chunk in source.chunks:
            parts = split_sentences(chunk[2])
            run_lengths.append(max(1, len(parts)))
            sentences += [Sentence(s, index.setdefault(s, len(index)), chunk) for s in parts]
        by_source.append(sentences)
    texts = list(index)
    key = hashlib.sha256(("\n".join(texts) + embedding_stamp()).encode()).hexdigest()[:16]
    cache = cache_dir / f"sentences-{key}.npy"
    if cache.exists():
        vectors = np.load(cache)
    else:
        log(f"embedding {len(texts)} distinct sentences once (cached in {cache.name})")
        vectors = embed_texts(texts)
        np.save(cache, vectors)
    return SentenceBank(by_source, vectors, run_lengths, [s.title for s in sources])


def mean_vector(bank: SentenceBank, rows: list[int]) -> np.ndarray:
    import numpy as np

    mean = bank.vectors[rows].mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)


def mean_vector_fidelity(sources: list[SourceDocument], bank: SentenceBank, sample: int = 1000) -> dict[str, float]:
    """Cosine between real chunk vectors and the mean of their sentences' vectors (and, as a
    floor, between real vectors of random chunk pairs)."""
    import numpy as np

    rng = random.Random(7)
    index = {s.text: s.row for sentences in bank.by_source for s in sentences}
    chunks = [c for source in sources for c in source.chunks]
    picked = rng.sample(chunks, min(sample, len(chunks)))
    real = [_parse_vector(c[9]) for c in picked]
    cosines = []
    for chunk, vector in zip(picked, real, strict=True):
        rows = [index[s] for s in split_sentences(chunk[2]) if s in index]
        if rows:
            cosines.append(float(np.dot(mean_vector(bank, rows), vector)))
    pairs = [float(np.dot(real[i], real[j])) for i, j in (rng.sample(range(len(real)), 2) for _ in range(len(real)))]
    ordered = sorted(cosines)
    return {
        "chunks": len(cosines),
        "mean": statistics.fmean(cosines),
        "p5": ordered[len(ordered) // 20],
        "p50": statistics.median(cosines),
        "random_pairs_mean": statistics.fmean(pairs),
    }


def _parse_vector(literal: str) -> np.ndarray:
    import numpy as np

    return np.array([float(x) for x in literal.strip("[]").split(",")], dtype=np.float32)


def passages(
    bank: SentenceBank, count: int, seen: set[str], rng: random.Random
) -> Iterator[tuple[int, list[Sentence]]]:
    """`count` new passages (source index, sentences), none with a text already in `seen`.

    A passage is one run of consecutive sentences of one document, or (half the time, when it
    holds two or more sentences) two runs of the same document: a few thousand sentences then
    make millions of distinct passages that still read like one document's text.
    """
    weights = [len(s) for s in bank.by_source]
    produced = misses = 0
    while produced < count:
        source = rng.choices(range(len(bank.by_source)), weights)[0]
        sentences = bank.by_source[source]
        length = min(rng.choice(bank.run_lengths), len(sentences))
        first = rng.randint(1, length) if length > 1 and rng.random() < 0.5 else length
        run = _run(sentences, first, rng) + _run(sentences, length - first, rng)
        digest = hashlib.sha1("\n".join(s.text for s in run).encode()).hexdigest()
        if digest in seen:
            misses += 1
            if misses > 50 * count + 1000:
                raise RuntimeError(f"only {produced} distinct passages found out of {count} asked")
            continue
        seen.add(digest)
        produced += 1
        yield source, run


def _run(sentences: list[Sentence], length: int, rng: random.Random) -> list[Sentence]:
    if length <= 0:
        return []
    start = rng.randrange(len(sentences) - length + 1)
    return sentences[start : start + length]


def add_passages(folder: Folder, bank: SentenceBank, count: int, seen: set[str], rng: random.Random) -> int:
    """Insert `count` distinct passages as documents of PASSAGES_PER_DOCUMENT chunks each."""
    generated = list(passages(bank, count, seen, rng))
    inserted = 0
    raw = connection.connection
    assert raw is not None
    for first in range(0, len(generated), PASSAGES_PER_DOCUMENT):
        group = generated[first : first + PASSAGES_PER_DOCUMENT]
        document = _document(folder, bank.titles[group[0][0]], len(group), len(seen) + first)
        with (
            raw.cursor() as cursor,
            cursor.copy(f"COPY documents_chunk ({', '.join(CHUNK_COLUMNS)}) FROM STDIN") as copy,
        ):
            for ordinal, (_, run) in enumerate(group):
                copy.write_row(_chunk_row(document.pk, ordinal, run, bank))
                inserted += 1
        with transaction.atomic():
            lexical_index_replace(document.pk, blocks=False)  # packed postings: after the load
    return inserted


def _chunk_row(document_id: int, ordinal: int, run: list[Sentence], bank: SentenceBank) -> tuple[Any, ...]:
    content = " ".join(s.text for s in run)
    first = run[0].chunk  # (ordinal, section, content, context, char_start, char_end, page_start, page_end, …)
    vector = vector_literal(mean_vector(bank, [s.row for s in run]))
    pages = sorted(p for s in run for p in (s.chunk[6], s.chunk[7]))
    row = (document_id, ordinal, first[1], content, first[3], 0, len(content), pages[0], pages[-1])
    return (*row, len(content) // 4, vector, 0, "")


def _document(folder: Folder, title: str, chunk_count: int, serial: int) -> Document:
    return Document.objects.create(
        folder=folder,
        title=f"{title} · synthetic {serial}",
        file=f"bench/synthetic-{serial}.txt",
        original_name=f"synthetic-{serial}.txt",
        content_type="text/plain",
        size=0,
        sha256=hashlib.sha256(f"synthetic-{serial}".encode()).hexdigest(),
        status=DocumentStatus.INDEXED,
        indexed_at=timezone.now(),  # readers' filters, facets and browse list indexed documents only
        embedding_model=embedding_stamp(),
        embedding_dims=settings.EMBEDDING_DIMS,
        chunk_count=chunk_count,
        page_starts=[0],
    )
