"""OCR of scanned pages: real corpus pages rendered to images, read back by Tesseract.

The scans are built by the tests (tests/documents/scan_builders.py); OCR costs seconds a page
on this machine, so each test scans as few pages as it can and the extraction is shared.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from bench.scans import ocr_word_accuracy
from documents.extraction import versions
from documents.extraction.pdf import extract_pdf
from documents.extraction.types import ExtractedText, ExtractionError
from tests.corpus import DEV_DIR, normalise, require_corpus
from tests.documents.scan_builders import mixed_pdf, scanned_pdf

RAFT = DEV_DIR / "raft-consensus-2014.pdf"
# Sentences of the Raft paper's second page (0-based page 1), as its text layer has them.
NEEDLE = "Keeping the replicated log consistent is the job of the consensus algorithm."
SECOND_NEEDLE = "Each server stores a log containing a series of commands, which its state machine executes in order."
TITLE = "In Search of an Understandable Consensus Algorithm"
MISSING_TESSERACT = "/nonexistent/bin/tesseract"


def tesseract_version() -> str:
    """Asked of the program itself, independently of the code under test."""
    first = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"tesseract\s+v?(\S+)", first)
    assert match, first
    return match.group(1)


@pytest.fixture(scope="module")
def raft_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_corpus()
    path = tmp_path_factory.mktemp("scans") / "raft-page-2-scan.pdf"
    path.write_bytes(scanned_pdf(RAFT, [1]))
    return path


@pytest.fixture(scope="module")
def raft_scan_extracted(raft_scan: Path) -> ExtractedText:
    return extract_pdf(raft_scan)


def test_scanned_page_is_read_by_ocr(raft_scan_extracted: ExtractedText) -> None:
    result = raft_scan_extracted

    text = normalise(result.text)
    assert normalise(NEEDLE) in text
    assert normalise(SECOND_NEEDLE) in text
    assert result.page_count == 1
    assert result.page_starts == [0]
    assert result.warnings == []


def test_ocr_gives_back_the_pages_own_text_layer_word_for_word(raft_scan_extracted: ExtractedText) -> None:
    # The scan is a 200 dpi grey rendering of the page; its text layer is the ground truth.
    with pymupdf.open(RAFT) as source:
        text_layer = source[1].get_text()

    accuracy = ocr_word_accuracy(text_layer, raft_scan_extracted.text)

    assert accuracy.truth_words > 800  # a full two-column page
    # Tesseract 5.3 (Debian 12) gave recall 0.998, precision 0.990 (823 words; the extra words
    # are a figure's labels): a drop below these bounds is a regression of the OCR path.
    assert accuracy.recall >= 0.98, accuracy
    assert accuracy.precision >= 0.97, accuracy


def test_ocr_word_accuracy_counts_words_in_order() -> None:
    ligatures = ocr_word_accuracy("The eﬀect of a ﬁle", "the effect of a file")  # NFKC, case
    assert (ligatures.truth_words, ligatures.recall, ligatures.precision) == (5, 1.0, 1.0)
    hyphenated = ocr_word_accuracy("the con-\nsensus algo\u00ad\n rithm", "the consensus algorithm")
    assert (hyphenated.truth_words, hyphenated.recall) == (3, 1.0)
    half = ocr_word_accuracy("one two three four", "one two tbree f0ur extra")
    assert (half.truth_words, half.read_words, half.recall, half.precision) == (4, 5, 0.5, 0.4)
    swapped = ocr_word_accuracy("alpha beta", "beta alpha")  # order matters: one of the two matches
    assert swapped.recall == 0.5
    assert ocr_word_accuracy("", "anything").recall == 0.0


def test_ocr_page_records_its_words_and_confidence(raft_scan_extracted: ExtractedText) -> None:
    (page,) = raft_scan_extracted.ocr_pages

    assert page.number == 1
    assert page.mean_confidence is not None
    assert 80 <= page.mean_confidence <= 100
    assert len(page.words) > 500
    letter = pymupdf.Rect(0, 0, 612, 792)
    for x0, y0, x1, y1, text, _block, _line in page.words:
        assert text.strip()
        assert x0 < x1
        assert y0 < y1
        assert letter.contains(pymupdf.Rect(x0, y0, x1, y1))
    keeping = [w for w in page.words if w[4] == "Keeping"]
    assert keeping, "the needle's first word has a box"


def test_extractor_stamp_names_the_ocr_engine_and_its_version(raft_scan_extracted: ExtractedText) -> None:
    expected = f"pymupdf-{pymupdf.VersionBind}+tesseract-{tesseract_version()}+{versions.PDF_LAYOUT}"

    assert raft_scan_extracted.extractor == expected
    assert versions.extractor_is_current(raft_scan_extracted.extractor)


def test_only_pages_without_text_are_ocrd_in_a_mixed_pdf(tmp_path: Path) -> None:
    require_corpus()
    path = tmp_path / "mixed.pdf"
    path.write_bytes(mixed_pdf(RAFT, text_pages=[0], scanned_pages=[1]))

    result = extract_pdf(path)

    assert [p.number for p in result.ocr_pages] == [2]
    first_page, second_page = result.text[: result.page_starts[1]], result.text[result.page_starts[1] :]
    assert normalise(TITLE) in normalise(first_page)
    assert normalise(NEEDLE) in normalise(second_page)
    # The text-layer page reads exactly as it does without any scan beside it.
    alone = tmp_path / "first-page.pdf"
    doc = pymupdf.open(RAFT)
    doc.select([0])
    doc.save(alone)
    doc.close()
    assert extract_pdf(alone).text.strip() in first_page


def test_scans_fail_with_how_to_install_when_tesseract_is_missing(raft_scan: Path, settings: Any) -> None:
    settings.TESSERACT_CMD = MISSING_TESSERACT

    with pytest.raises(ExtractionError) as caught:
        extract_pdf(raft_scan)

    reason = str(caught.value)
    assert reason.startswith("The PDF has no extractable text: its pages are scanned images. OCR is not available")
    assert "apt-get install tesseract-ocr tesseract-ocr-eng" in reason


def test_mixed_pdf_without_tesseract_is_indexed_with_a_warning(tmp_path: Path, settings: Any) -> None:
    require_corpus()
    settings.TESSERACT_CMD = MISSING_TESSERACT
    path = tmp_path / "mixed.pdf"
    path.write_bytes(mixed_pdf(RAFT, text_pages=[0], scanned_pages=[1, 2]))

    result = extract_pdf(path)

    assert normalise(TITLE) in normalise(result.text)
    assert result.ocr_pages == []
    (warning,) = result.warnings
    assert warning.startswith("Pages 2–3: scanned, not read. OCR is not available")
    assert "apt-get install tesseract-ocr tesseract-ocr-eng" in warning
    assert "tesseract" not in result.extractor  # nothing was OCR'd


def test_tesseract_alone_gets_the_openmp_limit(raft_scan: Path, settings: Any, tmp_path: Path) -> None:
    """Tesseract runs with OMP_THREAD_LIMIT=1; this process's environment (and so torch's OpenMP
    runtime, documents.embedding) never gets it."""
    import shutil

    seen = tmp_path / "seen.txt"
    wrapper = tmp_path / "tesseract"
    reading = f'case "$1" in --*) ;; *) echo "limit=$OMP_THREAD_LIMIT" >> {seen} ;; esac'  # not --version
    wrapper.write_text(f'#!/bin/sh\n{reading}\nexec {shutil.which("tesseract")} "$@"\n')
    wrapper.chmod(0o755)
    settings.TESSERACT_CMD = str(wrapper)

    result = extract_pdf(raft_scan)

    assert normalise(NEEDLE) in normalise(result.text)  # the real Tesseract read the page through the wrapper
    assert set(seen.read_text().split()) == {"limit=1"}
    assert "OMP_THREAD_LIMIT" not in os.environ
