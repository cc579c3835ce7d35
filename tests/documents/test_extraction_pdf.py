"""PDF extraction on small built PDFs whose exact text is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from documents.extraction import versions
from documents.extraction.dispatch import extract_document
from documents.extraction.pdf import EXTRACTOR
from documents.extraction.types import ExtractedText, Section
from tests.documents import pdf_builders as build


def extract(tmp_path: Path, data: bytes) -> ExtractedText:
    path = tmp_path / "doc.pdf"
    path.write_bytes(data)
    return extract_document(path, "application/pdf")


def page_text(result: ExtractedText, number: int) -> str:
    """Text of 1-based page `number`, without the separator before the next page."""
    end = result.page_starts[number] if number < len(result.page_starts) else len(result.text)
    return result.text[result.page_starts[number - 1] : end].removesuffix("\n\n")


def test_two_column_paper_reads_title_abstract_then_left_then_right_column(tmp_path):
    result = extract(tmp_path, build.two_column_paper())

    assert result.text == (
        "A Study of Column Layouts\n\n"
        "This abstract spans the full width of the page, above both columns of the body text, "
        "and a reader finishes it before starting on the left column of the paper below it.\n\n"
        "Left column, first paragraph: it talks about the implementation of a layout engine that "
        "reads the left column first.\n\n"
        "Left column, second paragraph has a 128-bit key and a Key-Value store in it.\n\n"
        "Right column, first paragraph: it is printed at the same heights as the left column, "
        "so a naive reader would interleave the two columns line by line.\n\n"
        "Right column, second paragraph ends the page."
    )
    assert result.page_starts == [0]
    assert result.page_count == 1
    assert result.sections == [Section(start=0, level=1, title="A Study of Column Layouts")]
    assert result.extractor == EXTRACTOR
    assert result.extractor.startswith(f"pymupdf-{pymupdf.VersionBind}+")


def test_two_column_paper_never_interleaves_columns(tmp_path):
    text = extract(tmp_path, build.two_column_paper()).text

    last_left = text.index("Value store in it.")
    first_right = text.index("Right column, first paragraph")
    assert last_left < first_right
    assert text.count("Left column") == 2
    assert text.count("Right column") == 2


@pytest.mark.parametrize("rotated", [False, True], ids=["landscape", "rotate-90"])
def test_two_up_handout_reads_left_page_then_right_page(tmp_path, rotated):
    result = extract(tmp_path, build.two_up_handout(rotated=rotated))

    assert result.text == " ".join(build.LEFT_HALF) + "\n\n" + " ".join(build.RIGHT_HALF)


def test_running_headers_footers_and_page_numbers_are_removed(tmp_path):
    result = extract(tmp_path, build.running_headers_doc(pages=4))

    pages = [
        f"Body text of page {n} opens the page and is long enough to span most of the text width, "
        f"so that page {n} reads as a normal single-column page; the word at the end of this line "
        "is hyphenated across two lines."
        for n in range(1, 5)
    ]
    assert result.text == "\n\n".join(pages)
    assert result.page_count == 4
    assert [page_text(result, n) for n in range(1, 5)] == pages
    assert result.page_starts == [0, len(pages[0]) + 2, 2 * (len(pages[0]) + 2), 3 * (len(pages[0]) + 2)]
    assert build.HEADER not in result.text
    assert "Smith and Jones" not in result.text
    assert "Page 1 of 4" not in result.text


def test_headers_are_kept_when_too_few_pages_repeat_them(tmp_path):
    # Two pages are not enough evidence that a line is a running header.
    result = extract(tmp_path, build.running_headers_doc(pages=2))

    assert result.text.startswith(build.HEADER)


def test_page_starts_locate_every_page(tmp_path):
    result = extract(tmp_path, build.outline_doc())

    assert result.page_starts[0] == 0
    for number, (heading, _body) in enumerate(build.OUTLINE_PAGES, start=1):
        assert page_text(result, number).startswith(heading + "\n\n")


def test_outline_gives_sections_at_their_headings(tmp_path):
    result = extract(tmp_path, build.outline_doc())

    assert result.text == (
        "1 Introduction\n\n"
        "The introduction explains why outlines matter for navigation. It has a second sentence on its own line.\n\n"
        "2 Background\n\n"
        "Background material is summarised on the second page. It has a second sentence on its own line.\n\n"
        "2.1 Prior Work\n\n"
        "Prior work is discussed briefly here.\n\n"
        "3 Results\n\n"
        "The results come last and close the document. It has a second sentence on its own line."
    )
    text = result.text
    # Outline titles without the numbering are found; the section starts at the heading
    # paragraph (numbering included). The junk "OLE_LINK1" bookmark is skipped.
    assert result.sections == [
        Section(start=text.index("1 Introduction"), level=1, title="Introduction"),
        Section(start=text.index("2 Background"), level=1, title="Background"),
        Section(start=text.index("2.1 Prior Work"), level=2, title="Prior Work"),
        Section(start=text.index("3 Results"), level=1, title="Results"),
    ]


def test_font_sizes_give_sections_without_an_outline(tmp_path):
    result = extract(tmp_path, build.outline_doc(with_toc=False))
    text = result.text

    # 14pt headings rank above the 12pt one; every heading is its own paragraph.
    assert result.sections == [
        Section(start=text.index("1 Introduction"), level=1, title="1 Introduction"),
        Section(start=text.index("2 Background"), level=1, title="2 Background"),
        Section(start=text.index("2.1 Prior Work"), level=3, title="2.1 Prior Work"),
        Section(start=text.index("3 Results"), level=1, title="3 Results"),
    ]
    for section in result.sections:
        assert text[section.start - 2 : section.start] in ("", "\n\n")
        assert text[section.start + len(section.title) :].startswith("\n\n")


def test_bold_numbered_body_size_line_is_a_heading_but_bold_sentence_is_not(tmp_path):
    result = extract(tmp_path, build.bold_heading_doc())

    assert result.text == (
        "4 Evaluation\n\n"
        "We evaluate the extractor on built documents. Nothing else is on this page.\n\n"
        "This bold sentence is just emphasis."
    )
    assert result.sections == [Section(start=0, level=1, title="4 Evaluation")]


def test_ligatures_become_letters_and_other_characters_are_kept(tmp_path):
    result = extract(tmp_path, build.ligature_doc())

    assert result.text == "The first flow of text, café and naïve."


def test_text_never_contains_nul(tmp_path):
    # Droid Sans Fallback has no glyph for "ﬀ"; MuPDF reports such characters as NUL or U+FFFD.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font(ordering=0).buffer)
    page.insert_text((72, 100), "An e\ufb00ect with a\x00nul", fontname="F0")
    result = extract(tmp_path, build.to_bytes(doc))

    assert "\x00" not in result.text
    assert result.text.startswith("An e")


def test_repairable_broken_xref_still_extracts(tmp_path):
    result = extract(tmp_path, build.broken_xref_doc())

    assert result.page_count == 3
    assert page_text(result, 2).startswith("Body text of page 2 opens the page")


def test_long_document_keeps_one_page_start_per_page(tmp_path):
    # Exercises the page streaming (and MuPDF store flushing every 25 pages).
    source = pymupdf.open(stream=build.running_headers_doc(pages=2))
    doc = pymupdf.open()
    for _ in range(30):
        doc.insert_pdf(source)
    result = extract(tmp_path, build.to_bytes(doc))

    assert result.page_count == 60
    assert len(result.page_starts) == 60
    assert build.HEADER not in result.text
    for number in range(1, 61):
        assert page_text(result, number).startswith(f"Body text of page {2 - number % 2} opens")


def test_text_running_over_a_page_break_is_rejoined(tmp_path):
    result = extract(tmp_path, build.page_break_doc())

    assert result.text == (
        "A sentence that starts on the first page and runs over the page break into the second one, "
        "where it ends. The key is implementation defined, says the third page. It ends properly.\n\n"
        "New paragraph on the fourth page, after a full stop."
    )
    # Each page still starts where its own text begins, even inside a rejoined word.
    starts = [result.text.index(s) for s in ("A sentence", "page break", "mentation", "New paragraph")]
    assert result.page_starts == starts
    assert result.extractor.endswith("+" + versions.PDF_LAYOUT)
