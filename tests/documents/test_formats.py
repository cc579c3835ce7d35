"""Supported file types have one source (documents/extraction/formats.py): everything else follows it."""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path

import pytest

from documents.extraction import formats, sniff
from documents.extraction.dispatch import EXTRACTORS, extract_document
from documents.extraction.types import ExtractionError
from documents.forms import DocumentUploadForm
from documents.services.upload import UploadRejected, content_type_for

README = Path(__file__).resolve().parents[2] / "docs" / "staff.md"


def readme_format_suffixes() -> set[str]:
    """The extensions docs/staff.md's "Supported formats" table names (its first two columns)."""
    section = README.read_text(encoding="utf-8").split("## Supported formats", 1)[1]
    rows = [line for line in section.strip().split("\n\n", 1)[0].splitlines() if line.startswith("| ")][1:]
    return {suffix for row in rows for cell in row.split("|")[1:3] for suffix in re.findall(r"`(\.[a-z]+)`", cell)}


def test_the_readme_table_names_exactly_the_supported_extensions() -> None:
    assert readme_format_suffixes() == set(formats.CONTENT_TYPES_BY_SUFFIX)


def test_every_format_has_an_extractor_and_every_media_type_reaches_it() -> None:
    assert set(EXTRACTORS) == {f.key for f in formats.FORMATS}
    assert {sniff.PDF, sniff.DOCX, sniff.HTML} <= set(formats.FORMAT_BY_MEDIA_TYPE)


# What a file needs in its first bytes for its extension to be believed (sniff.broken_promise);
# none of these is a sign strong enough to type a file by itself.
FIRST_BYTES = {sniff.PDF: b"A cover note.\n%PDF-1.7\n", sniff.DOCX: b"PK\x03\x04 and the rest lost"}


@pytest.mark.parametrize("suffix", sorted(formats.CONTENT_TYPES_BY_SUFFIX))
def test_an_upload_is_typed_by_its_extension_from_the_list(suffix: str) -> None:
    expected = formats.CONTENT_TYPES_BY_SUFFIX[suffix]
    head = FIRST_BYTES.get(expected, b"plain words, nothing to sniff")
    assert content_type_for(f"notes{suffix}", BytesIO(head)) == expected


def test_refusals_and_the_upload_form_name_the_same_list(tmp_path: Path) -> None:
    with pytest.raises(UploadRejected) as refused:
        content_type_for("slides.pptx", BytesIO(b"PK"))
    assert formats.supported_description() in refused.value.message
    with pytest.raises(ExtractionError) as unsupported:
        extract_document(tmp_path / "slides.pptx", "application/vnd.ms-powerpoint")
    assert formats.supported_description() in str(unsupported.value)
    assert formats.supported_description() in str(DocumentUploadForm.base_fields["files"].help_text)
