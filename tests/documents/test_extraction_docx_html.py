"""Word and web-page extraction: main text only, headings as sections, offsets into the text;
and how an upload's type is decided from its content as well as its name."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE

from documents.extraction.docx import extract_docx
from documents.extraction.html import extract_html
from documents.extraction.sniff import DOCX, HTML, PDF
from documents.extraction.types import ExtractedText, ExtractionError
from documents.extraction.versions import extractor_is_current
from documents.services.upload import UnsupportedFile, content_type_for
from tests.documents import bad_inputs as bad
from tests.documents import docx_html_builders as build


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def section_titles(extracted: ExtractedText) -> list[tuple[str, int]]:
    for section in extracted.sections:  # each title sits in the text at its offset
        assert extracted.text[section.start : section.start + len(section.title)] == section.title
    return [(s.title, s.level) for s in extracted.sections]


FORMATS = {
    "docx": (extract_docx, build.manual_docx, "lxml-", [1, 1, 2]),  # Title and Heading 1 are both level 1
    "html": (extract_html, lambda: build.manual_html().encode(), "lxml-", [1, 2, 3]),
}


@pytest.mark.parametrize("fmt", FORMATS.keys())
def test_body_tables_and_heading_sections_without_page_furniture(tmp_path: Path, fmt: str) -> None:
    extract, build_file, library, levels = FORMATS[fmt]
    extracted = extract(write(tmp_path, f"manual.{fmt}", build_file()))

    assert extracted.text.startswith(build.TITLE + "\n\n" + build.INTRO)
    # In HTML the sentence is broken over two source lines: that is layout, it comes out whole.
    assert build.INSTRUMENT_SENTENCE in extracted.text
    assert build.CALIBRATION_SENTENCE in extracted.text
    assert "Instrument | Interval\nTheodolite | Weekly\nRain gauge | Daily" in extracted.text
    furniture = [build.HEADER_TEXT, build.SCRIPT, "font-family", "Home", "Related reports", build.FOOTER, "Search"]
    assert [f for f in furniture if f in extracted.text] == []
    titles = [build.TITLE, build.INSTRUMENTS, build.CALIBRATION]
    assert section_titles(extracted) == list(zip(titles, levels, strict=True))
    assert extracted.page_starts == []
    assert extracted.page_count is None
    assert extracted.extractor.startswith(library)
    assert extractor_is_current(extracted.extractor)


def test_docx_custom_heading_style_based_on_a_heading_is_a_section(tmp_path: Path) -> None:
    document = docx.Document()
    style = document.styles.add_style("Chapter Title", WD_STYLE_TYPE.PARAGRAPH)
    style.base_style = document.styles["Heading 2"]
    document.add_paragraph("Chapter one", style="Chapter Title")
    document.add_paragraph("The chapter's body text.")
    stream = io.BytesIO()
    document.save(stream)

    extracted = extract_docx(write(tmp_path, "custom.docx", stream.getvalue()))

    assert section_titles(extracted) == [("Chapter one", 2)]


def test_docx_with_only_a_picture_has_no_text(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("")
    stream = io.BytesIO()
    document.save(stream)

    with pytest.raises(ExtractionError, match="contains no text"):
        extract_docx(write(tmp_path, "empty.docx", stream.getvalue()))


def test_html_without_a_main_element_drops_the_page_banner_but_keeps_an_articles_header(tmp_path: Path) -> None:
    page = (
        "<html><body><header>Site banner</header><div role='navigation'>Menu</div>"
        "<section><header><h2>Dated notes</h2></header><p>First note.<br>Second line.</p></section>"
        "<div hidden>Hidden text</div><footer>Page footer</footer></body></html>"
    )
    extracted = extract_html(write(tmp_path, "notes.html", page))

    assert extracted.text == "Dated notes\n\nFirst note.\nSecond line."
    assert section_titles(extracted) == [("Dated notes", 2)]


@pytest.mark.parametrize(
    "charset_meta",
    ['<meta charset="windows-1252">', '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">', ""],
    ids=["declared", "declared-latin1", "undeclared"],
)
def test_html_in_a_legacy_encoding_is_decoded(tmp_path: Path, charset_meta: str) -> None:
    page = build.manual_html(charset_meta=charset_meta).replace(build.INTRO, bad.CP1252_TEXT.strip())

    extracted = extract_html(write(tmp_path, "legacy.html", page.encode("cp1252")))

    assert bad.CP1252_TEXT.strip().split("\n")[0] in extracted.text
    assert "\ufffd" not in extracted.text


def test_html_declaring_an_unknown_or_wrong_encoding_is_decoded_by_detection(tmp_path: Path) -> None:
    for meta in ('<meta charset="x-klingon-42">', '<meta charset="utf-8">'):
        page = build.manual_html(charset_meta=meta).replace(build.INTRO, bad.CP1252_TEXT.strip())
        extracted = extract_html(write(tmp_path, "lying.html", page.encode("cp1252")))
        assert "Café menu for the naïve visitor" in extracted.text, meta


def test_utf16_html_with_a_byte_order_mark_is_decoded(tmp_path: Path) -> None:
    extracted = extract_html(write(tmp_path, "wide.html", build.manual_html().encode("utf-16")))

    assert build.CALIBRATION_SENTENCE in extracted.text


def test_xhtml_with_an_xml_declaration_is_read(tmp_path: Path) -> None:
    page = '<?xml version="1.0" encoding="utf-8"?>\n' + build.manual_html(charset_meta="")
    extracted = extract_html(write(tmp_path, "page.xhtml", page))

    assert build.INSTRUMENT_SENTENCE in extracted.text


# --- the upload's type: content first where it is certain, then the name --------------------


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("manual.docx", build.manual_docx(), DOCX),
        ("manual", build.manual_docx(), DOCX),  # no extension: the content decides
        ("manual.pdf", build.manual_docx(), DOCX),  # a Word archive is a Word archive whatever its name
        ("scan.docx", bad.small_pdf(), PDF),
        ("page", build.manual_html().encode(), HTML),
        ("page.htm", build.manual_html().encode(), HTML),
        ("saved.XHTML", build.manual_html().encode(), HTML),
        ("saved", b'<?xml version="1.0"?>\n<!-- saved -->\n' + build.manual_html().encode(), HTML),
        ("invoice.htm", bad.html_named_pdf(), HTML),
        ("notes.txt", build.manual_html().encode(), "text/plain"),
        ("sheet.docx", bad.spreadsheet_like_zip_named_docx(), DOCX),  # a zip: extraction tells what it holds
        ("late.pdf", b"%" + b"x" * 1017 + b"\n%PDF-1.4\n", PDF),  # a PDF header within the first kilobyte
        ("pdf-notes.md", b"# PDF notes\n\nEvery PDF starts with %PDF-1.7 and a binary comment.\n", "text/markdown"),
        ("prefixed", b"MacBinary junk\n%PDF-1.4\n", PDF),  # a late header names a type only without a name
    ],
)
def test_content_type_from_content_and_name(name: str, data: bytes, expected: str) -> None:
    assert content_type_for(name, io.BytesIO(data)) == expected


@pytest.mark.parametrize(
    ("name", "data", "refusal"),
    [
        ("invoice.pdf", bad.html_named_pdf(), "is not a PDF"),  # markup is a weak sign, but no PDF header is certain
        ("minutes.docx", bad.text_named_pdf(), "is not a Word document (.docx)"),
        ("late.pdf", b"%" + b"x" * 1020 + b"\n%PDF-1.4\n", "is not a PDF"),  # the header starts past the kilobyte
    ],
)
def test_content_that_breaks_the_names_promise_is_415(name: str, data: bytes, refusal: str) -> None:
    with pytest.raises(UnsupportedFile) as caught:
        content_type_for(name, io.BytesIO(data))
    assert caught.value.message.startswith(f"'{name}' {refusal}: ")
    assert caught.value.message.endswith(" It was not stored.")


@pytest.mark.parametrize(("name", "data"), [("notes", b"Plain words without a name."), ("tool.exe", b"MZ\x90\x00")])
def test_unrecognised_content_without_a_known_extension_is_415(name: str, data: bytes) -> None:
    with pytest.raises(UnsupportedFile) as caught:
        content_type_for(name, io.BytesIO(data))
    assert "Word (.docx)" in caught.value.message
    assert ".html" in caught.value.message
