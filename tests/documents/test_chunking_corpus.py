"""Chunking the real dev corpus: invariants for every strategy, and no needle destroyed by E."""

from __future__ import annotations

from pathlib import Path

import pytest

from documents.chunking import ChunkSpan, embedded_text
from documents.embedding import ENCODER_WINDOW_TOKENS, count_tokens_batch
from documents.extraction.dispatch import extract_document
from documents.extraction.types import ExtractedText
from evaluation.chunkers import STRATEGIES, chunk_document
from tests.corpus import DEV_DIR, dev_questions, normalise, require_corpus

pytestmark = pytest.mark.corpus

CONTENT_TYPES = {".pdf": "application/pdf", ".md": "text/markdown"}


@pytest.fixture(scope="module")
def extracted() -> dict[str, ExtractedText]:
    """Every dev file extracted once for the whole module (extraction dominates the run time)."""
    require_corpus()
    files = sorted(p for p in DEV_DIR.iterdir() if p.suffix in CONTENT_TYPES)
    assert files, f"no dev files in {DEV_DIR}"
    return {p.name: extract_document(p, CONTENT_TYPES[p.suffix]) for p in files}


def chunk(name: str, doc: ExtractedText, strategy: str) -> list[ChunkSpan]:
    return chunk_document(
        doc.text, title=Path(name).stem, sections=doc.sections, page_starts=doc.page_starts, strategy=strategy
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_chunk_is_a_canonical_slice_within_the_window(extracted: dict[str, ExtractedText], strategy: str) -> None:
    for name, doc in extracted.items():
        chunks = chunk(name, doc, strategy)
        assert chunks, name
        pages = max(1, len(doc.page_starts))
        for c in chunks:
            assert c.content == doc.text[c.char_start : c.char_end], (name, c.char_start)
            assert c.content
            assert c.content == c.content.strip(), (name, c.char_start)
            assert 1 <= c.page_start <= c.page_end <= pages, (name, c.char_start)
        recounted = count_tokens_batch([embedded_text(c.context, c.content) for c in chunks])
        assert recounted == [c.token_count for c in chunks], name
        assert max(recounted) <= ENCODER_WINDOW_TOKENS, name


def test_strategy_e_keeps_every_needle_whole(extracted: dict[str, ExtractedText]) -> None:
    contents: dict[str, list[str]] = {
        name: [normalise(c.content) for c in chunk(name, doc, "E")] for name, doc in extracted.items()
    }
    destroyed = []
    for question in dev_questions():
        needle = normalise(question["needle"])
        assert question["doc"] in contents, f"{question['id']}: {question['doc']} is not in the dev corpus"
        if not any(needle in content for content in contents[question["doc"]]):
            destroyed.append(f"{question['id']} ({question['doc']}): {question['needle']!r}")
    assert not destroyed, "needles cut apart by strategy E:\n" + "\n".join(destroyed)
