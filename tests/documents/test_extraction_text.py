"""Markdown, plain text and content-type dispatch."""

from __future__ import annotations

from pathlib import Path

import pytest

from documents.extraction.dispatch import extract_document
from documents.extraction.types import ExtractionError, Section


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


MARKDOWN = """\
---
title: Storage
---

# Storage

Intro paragraph.

## Local storage

```yaml
# not a heading: inside a fenced block
## nor this
```

### On-disk layout ###

#### Too deep to be a section

Some #hashtag text and a C# mention.

~~~
## still code
~~~

## Remote storage
"""


def test_markdown_headings_are_sections_outside_code_fences(tmp_path):
    result = extract_document(write(tmp_path, "doc.md", MARKDOWN), "text/markdown")

    text = result.text
    assert text == (
        "Storage\n\nIntro paragraph.\n\nLocal storage\n\n"
        "# not a heading: inside a fenced block\n## nor this\n\n"
        "On-disk layout\n\nToo deep to be a section\n\nSome #hashtag text and a C# mention.\n\n"
        "## still code\n\nRemote storage"
    )
    assert result.sections == [
        Section(start=text.index("Storage\n\nIntro"), level=1, title="Storage"),
        Section(start=text.index("Local storage"), level=2, title="Local storage"),
        Section(start=text.index("On-disk layout"), level=3, title="On-disk layout"),
        Section(start=text.index("Remote storage"), level=2, title="Remote storage"),
    ]
    for section in result.sections:
        assert text[section.start : section.start + len(section.title)] == section.title
    assert result.page_starts == []
    assert result.page_count is None


def test_markdown_newlines_are_normalised_and_nul_stripped(tmp_path):
    result = extract_document(write(tmp_path, "doc.md", b"# Title\r\n\r\nBody\x00 text\rend\r\n"), "text/markdown")

    assert result.text == "Title\n\nBody text end"  # "\r" alone is a line break, a wrap within the paragraph
    assert result.sections == [Section(start=0, level=1, title="Title")]


def test_markdown_without_headings_has_no_sections(tmp_path):
    result = extract_document(write(tmp_path, "doc.md", "Just a paragraph.\n"), "text/markdown")

    assert result.text == "Just a paragraph."
    assert result.sections == []


def test_plain_text_utf8(tmp_path):
    result = extract_document(write(tmp_path, "a.txt", "Größe: 5 µm – ok\r\n"), "text/plain; charset=utf-8")

    assert result.text == "Größe: 5 µm – ok\n"
    assert result.sections == []
    assert result.page_starts == []
    assert result.page_count is None


def test_plain_text_utf8_bom_is_dropped(tmp_path):
    result = extract_document(write(tmp_path, "a.txt", "\ufeffhello".encode()), "text/plain")

    assert result.text == "hello"


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_plain_text_in_a_legacy_encoding_is_detected(tmp_path, encoding):
    original = (
        "Le café de la gare est fermé pour l'été. Les élèves déjeunent à côté, "
        "près de la fenêtre, et réclament des crêpes à la crème.\n"
    )
    result = extract_document(write(tmp_path, "a.txt", original.encode(encoding)), "text/plain")

    assert result.text == original


def test_binary_junk_is_not_text(tmp_path):
    junk = bytes(range(256)) * 40
    with pytest.raises(ExtractionError, match="not readable text"):
        extract_document(write(tmp_path, "a.txt", junk), "text/plain")


@pytest.mark.parametrize("content_type", ["text/plain", "text/markdown"])
@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n  "])
def test_file_without_text_fails(tmp_path, content_type, content):
    with pytest.raises(ExtractionError) as caught:
        extract_document(write(tmp_path, "a.txt", content), content_type)

    assert str(caught.value) == "The file contains no extractable text."


def test_unknown_content_type_names_the_supported_ones(tmp_path):
    with pytest.raises(ExtractionError) as caught:
        extract_document(write(tmp_path, "a.docx", b"PK\x03\x04"), "application/vnd.ms-word")

    message = str(caught.value)
    assert "application/vnd.ms-word" in message
    for name in ("PDF", "Markdown", "plain text"):
        assert name in message


def test_missing_text_file(tmp_path):
    with pytest.raises(ExtractionError, match="missing"):
        extract_document(tmp_path / "nope.txt", "text/plain")
