"""PDFs that can't be turned into text fail with a reason staff can act on."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from documents.extraction.dispatch import extract_document
from documents.extraction.types import ExtractionError
from tests.documents import pdf_builders as build


def extract_bytes(tmp_path: Path, data: bytes):
    path = tmp_path / "upload.pdf"
    path.write_bytes(data)
    return extract_document(path, "application/pdf")


def test_password_protected_pdf(tmp_path):
    with pytest.raises(ExtractionError) as caught:
        extract_bytes(tmp_path, build.encrypted_doc())

    assert str(caught.value) == "The PDF is password-protected; upload an unencrypted copy."


def test_bytes_that_are_not_a_pdf(tmp_path):
    with pytest.raises(ExtractionError) as caught:
        extract_bytes(tmp_path, b"<html><body>Not a PDF at all</body></html>\n" * 20)

    assert str(caught.value).startswith("The file is not a readable PDF (")


def test_png_labelled_as_pdf_is_not_opened_as_an_image(tmp_path):
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    with pytest.raises(ExtractionError, match="not a readable PDF"):
        extract_bytes(tmp_path, pixmap.tobytes("png"))


def test_empty_file(tmp_path):
    with pytest.raises(ExtractionError, match="The file is empty"):
        extract_bytes(tmp_path, b"")


def test_missing_file(tmp_path):
    with pytest.raises(ExtractionError, match="missing"):
        extract_document(tmp_path / "gone.pdf", "application/pdf")


def test_truncated_pdf_with_classic_xref_is_repaired_up_to_the_cut(tmp_path):
    # Uncompressed objects in file order: MuPDF rebuilds the xref from what is left, so the
    # pages before the cut still extract (later pages come out empty).
    data = build.running_headers_doc(pages=6)
    result = extract_bytes(tmp_path, data[: len(data) // 2])

    assert result.page_count == 6
    assert result.text.startswith("Body text of page 1 opens the page")
    assert len(result.page_starts) == 6


@pytest.mark.parametrize("fraction", [0.5, 0.9])
def test_truncated_pdf_with_object_streams_fails_clearly(tmp_path, fraction):
    # With compressed object streams the page tree lives in the damaged part: nothing to read.
    data = pymupdf.open(stream=build.running_headers_doc(pages=6)).tobytes(garbage=3, deflate=True, use_objstms=1)
    with pytest.raises(ExtractionError) as caught:
        extract_bytes(tmp_path, data[: int(len(data) * fraction)])

    assert str(caught.value).startswith("The file is not a readable PDF (")
    assert "Traceback" not in str(caught.value)


def test_image_only_pdf_has_no_extractable_text(tmp_path):
    with pytest.raises(ExtractionError) as caught:
        extract_bytes(tmp_path, build.image_only_doc())

    # A flat grey square: OCR runs and finds no words, and a blank scan has nothing to index.
    assert str(caught.value) == (
        "The PDF has no extractable text: OCR found no words on its scanned pages (a blank or illegible scan)."
    )


def test_blank_pdf_has_no_extractable_text(tmp_path):
    doc = pymupdf.open()
    doc.new_page()
    with pytest.raises(ExtractionError, match="no extractable text"):
        extract_bytes(tmp_path, build.to_bytes(doc))
