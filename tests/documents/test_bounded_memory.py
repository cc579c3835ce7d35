"""Large inputs in bounded memory: token counting in bounded calls, and INGEST_MAX_TEXT_CHARS.

The chunker's word-piece counts are what a tokenizer call over the whole text would give (the
oracle: one unbounded call), while no call holds more than COUNT_BATCH_CHARS characters; so a
document's chunks are the same as before and a one-line text of many megabytes never meets the
tokenizer whole. Peak RSS per MB of text is measured by `manage.py bench_memory` (BENCHMARKS.md).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from documents import chunking, embedding
from documents.chunking import COUNT_BATCH_CHARS, COUNT_PIECE_CHARS, whitespace_pieces
from documents.embedding import count_tokens
from documents.extraction import plaintext
from documents.extraction.dispatch import extract_document
from documents.extraction.types import ExtractionError
from documents.models import DocumentStatus
from evaluation.chunkers import chunk_document
from tests.conftest import ingest_file_inline, ingest_text
from tests.factories import FolderFactory

WORDS = [
    "river",
    "valley",
    "station",
    "sample",
    "depth",
    "pressure",
    "north",
    "report",
    "survey",
    "e.g.",
    "café",
    "3.5",
    "naïve",
    "x-ray",
]


def generated_text(chars: int, *, one_line: bool, seed: int = 3) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + f" {size}."
        gap = " " if one_line or rng.random() < 0.7 else rng.choice(["\n", "\n\n"])
        parts.append(sentence + gap)
        size += len(sentence) + len(gap)
    return "".join(parts)


def unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle's setting: every count in one tokenizer call, however long."""
    monkeypatch.setattr(chunking, "COUNT_BATCH_CHARS", 10**12)
    monkeypatch.setattr(chunking, "COUNT_PIECE_CHARS", 10**12)


def chunk(text: str, strategy: str = "E") -> list[chunking.ChunkSpan]:
    return chunk_document(text, title="Field reports", sections=[], page_starts=[], strategy=strategy)


@pytest.mark.parametrize("one_line", [True, False], ids=["one-line", "lines"])
@pytest.mark.parametrize("strategy", ["A", "E", "F"])
def test_bounded_counting_chunks_exactly_as_one_unbounded_call(
    monkeypatch: pytest.MonkeyPatch, one_line: bool, strategy: str
) -> None:
    text = generated_text(150_000, one_line=one_line)
    bounded = chunk(text, strategy)
    unbounded(monkeypatch)
    assert chunk(text, strategy) == bounded
    assert all(s.token_count <= embedding.ENCODER_WINDOW_TOKENS for s in bounded)


def test_a_long_text_counts_as_the_tokenizer_counts_it_whole() -> None:
    counter = chunking.TokenCounts(None)
    texts = [generated_text(n, one_line=True, seed=n) for n in (10, 20_000, 70_000, 150_000)]
    texts.append("naïve\tcafé " * 9_000)  # tabs, accents, a 99,000-character text
    assert counter.batch(texts) == [count_tokens(t) for t in texts]


def test_whitespace_pieces_cover_the_text_and_cut_after_spaces() -> None:
    text = generated_text(50_000, one_line=True)
    pieces = whitespace_pieces(text, 4_000)
    assert "".join(pieces) == text
    assert all(len(p) <= 4_000 for p in pieces)
    assert all(p.endswith((" ", "\n")) for p in pieces[:-1])
    blind = whitespace_pieces("x" * 10_001, 4_000)  # no whitespace at all: cut blindly
    assert [len(p) for p in blind] == [4_000, 4_000, 2_001]


def test_no_tokenizer_call_holds_more_than_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = embedding.count_tokens_batch

    def recording(texts: list[str]) -> list[int]:
        calls.append(sum(len(t) for t in texts))
        return real(texts)

    monkeypatch.setattr(embedding, "count_tokens_batch", recording)
    text = generated_text(600_000, one_line=True)  # one paragraph of 600,000 characters
    spans = chunk(text)
    assert spans
    assert spans[-1].content == text[spans[-1].char_start : spans[-1].char_end]
    assert calls
    assert max(calls) <= max(COUNT_BATCH_CHARS, COUNT_PIECE_CHARS)


# --- INGEST_MAX_TEXT_CHARS ------------------------------------------------------------------


def test_a_text_file_over_the_limit_is_refused_with_the_limit_named(settings: Any, tmp_path: Path) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 5_000
    path = tmp_path / "long.txt"
    path.write_text("é" * 5_001)  # 10,002 bytes: the size alone does not decide, the decoded length does
    with pytest.raises(ExtractionError) as refused:
        extract_document(path, "text/plain")
    assert "more than 5,000 characters of text, the most this library indexes" in str(refused.value)
    path.write_text("é" * 5_000)
    assert len(extract_document(path, "text/plain").text) == 5_000


def test_a_file_too_large_to_fit_is_refused_unread(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 1_000
    path = tmp_path / "huge.md"
    path.write_bytes(b"# Title\n" + b"a" * 4_000)  # more than 4 bytes a character over the limit

    def must_not_read(_path: Path) -> bytes:
        raise AssertionError("the file was read")

    monkeypatch.setattr(plaintext, "read_bytes", must_not_read)
    with pytest.raises(ExtractionError, match=r"\(the file is 0\.0 MB; it was not read\).*INGEST_MAX_TEXT_CHARS"):
        extract_document(path, "text/markdown")


def test_a_pdf_over_the_limit_stops_at_the_page_that_crosses_it(settings: Any, tmp_path: Path) -> None:
    doc = pymupdf.open()
    for number in range(6):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), generated_text(1_500, one_line=False, seed=number))
    path = tmp_path / "report.pdf"
    doc.save(path)
    settings.INGEST_MAX_TEXT_CHARS = 4_000
    with pytest.raises(ExtractionError, match="INGEST_MAX_TEXT_CHARS"):
        extract_document(path, "application/pdf")
    settings.INGEST_MAX_TEXT_CHARS = 100_000
    assert extract_document(path, "application/pdf").page_count == 6


def test_html_over_the_limit_is_refused(settings: Any, tmp_path: Path) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 2_000
    path = tmp_path / "page.html"
    body = "".join(f"<p>{generated_text(300, one_line=True, seed=i)}</p>" for i in range(10))
    path.write_text(f"<html><body><main>{body}</main></body></html>")
    with pytest.raises(ExtractionError, match="INGEST_MAX_TEXT_CHARS"):
        extract_document(path, "text/html")


@pytest.mark.django_db
def test_an_upload_over_the_limit_fails_with_the_reason_and_keeps_the_original(settings: Any, tmp_path: Path) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 20_000
    folder = FolderFactory()
    failed = ingest_text(tmp_path, folder, "Too long", generated_text(30_000, one_line=True))
    assert failed.status == DocumentStatus.FAILED
    assert "INGEST_MAX_TEXT_CHARS" in failed.failure_reason
    assert "Split it into smaller files" in failed.failure_reason
    assert failed.chunk_count in (None, 0)
    assert Path(failed.file.path).exists()  # nothing is lost: raise the limit and retry
    settings.INGEST_MAX_TEXT_CHARS = 40_000
    path = tmp_path / "fits.txt"
    path.write_text(generated_text(30_000, one_line=True, seed=9))
    indexed = ingest_file_inline(path, folder, title="Fits")
    assert indexed.status == DocumentStatus.INDEXED
    assert indexed.chunk_count > 20
