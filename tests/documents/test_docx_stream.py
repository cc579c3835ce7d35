"""The streamed Word reader gives what python-docx gives (the oracle), and refuses what it must.

The oracle is the tree-based extraction the library used before the stream: python-docx's
`iter_inner_content`, `Paragraph.text`, `paragraph.style` and `table.rows[i].cells`.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_BREAK
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from documents.extraction.blocks import Block, assemble
from documents.extraction.docx import extract_docx
from documents.extraction.types import ExtractedText, ExtractionError
from tests.documents import docx_html_builders as build

_HEADING = re.compile(r"^heading ([1-9])$", re.I)


def oracle(path: Path) -> ExtractedText:
    from docx.table import Table

    document = docx.Document(str(path))
    blocks = []
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            blocks.append(Block(_oracle_table(item)))
        else:
            blocks.append(Block(item.text, heading_level=_oracle_level(item.style)))
    return assemble(blocks, extractor="oracle")


def _oracle_level(style: Any) -> int:
    for _ in range(10):
        if style is None:
            return 0
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        if match := _HEADING.match(name):
            return int(match.group(1))
        style = style.base_style
    return 0


def _oracle_table(table: Any) -> str:
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            if text := " ".join(cell.text.split()):
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def saved(document: Any, tmp_path: Path, name: str) -> Path:
    stream = io.BytesIO()
    document.save(stream)
    path = tmp_path / name
    path.write_bytes(stream.getvalue())
    return path


def hyperlink(paragraph: Any, text: str) -> None:
    link = OxmlElement("w:hyperlink")
    link.set(qn("w:anchor"), "somewhere")
    run = OxmlElement("w:r")
    piece = OxmlElement("w:t")
    piece.text = text
    run.append(piece)
    link.append(run)
    paragraph._p.append(link)


def rich_document() -> Any:
    document = docx.Document()
    document.add_paragraph("Sounding Manual", style="Title")
    document.add_heading("Before the survey", level=1)
    custom = document.styles.add_style("Chapter Heading", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = document.styles["Heading 2"]
    document.add_paragraph("Instruments", style="Chapter Heading")
    body = document.add_paragraph("Check the line")
    body.add_run("\tagainst the mark").add_break()
    body.add_run("after a line break")
    body.add_run("and a page break").add_break(WD_BREAK.PAGE)
    hyphen = body.add_run("non")
    hyphen._r.append(OxmlElement("w:noBreakHyphen"))
    body.add_run("stop. See ")
    hyperlink(body, "the appendix")
    body.add_run(" for more.")
    document.add_paragraph("")
    document.add_heading("Deep heading", level=4)

    table = document.add_table(rows=4, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = f"r{r}c{c}"
    table.cell(0, 0).merge(table.cell(0, 1))  # horizontal
    table.cell(1, 2).merge(table.cell(3, 2))  # vertical, three rows
    table.cell(2, 0).merge(table.cell(3, 1))  # a block, two by two
    table.cell(1, 0).add_paragraph("second paragraph in a cell")
    nested = table.cell(1, 1).add_table(rows=1, cols=2)
    nested.cell(0, 0).text = "nested text python-docx leaves out"
    document.add_paragraph("After the table")
    unknown = document.add_paragraph("A paragraph naming a style that does not exist")
    unknown._p.get_or_add_pPr().get_or_add_pStyle().set(qn("w:val"), "NoSuchStyle")
    return document


@pytest.mark.parametrize("make", [rich_document, lambda: docx.Document(io.BytesIO(build.manual_docx()))])
def test_the_stream_reads_what_python_docx_reads(tmp_path: Path, make: Any) -> None:
    path = saved(make(), tmp_path, "doc.docx")
    streamed, expected = extract_docx(path), oracle(path)
    assert streamed.text == expected.text
    assert streamed.sections == expected.sections
    assert streamed.extractor.startswith("lxml-")
    assert streamed.extractor.endswith("+ragsite-docx-1")


def test_the_rich_document_exercises_what_it_should(tmp_path: Path) -> None:
    text = extract_docx(saved(rich_document(), tmp_path, "doc.docx")).text
    assert "See the appendix for more." in text  # a hyperlink's text
    assert "against the mark\nafter a line break" in text  # a tab is a space, a line break a line
    assert "non-stop" in text  # a non-breaking hyphen
    assert "r0c0 r0c1 | r0c2\n" in text  # a horizontal merge written once
    assert text.count("| r1c2 r2c2 r3c2") == 3  # a vertical merge repeated in each row it spans
    assert text.count("r2c0 r2c1 r3c0 r3c1 |") == 2  # a two-by-two block once in each of its rows
    assert "nested text" not in text
    assert "A paragraph naming a style that does not exist" in text


def test_a_long_document_with_many_tables_matches_too(tmp_path: Path) -> None:
    document = docx.Document()
    for n in range(60):
        document.add_heading(f"Part {n}", level=1 + n % 3)
        document.add_paragraph(f"Paragraph {n} of the long report, with a few words to read.")
        if n % 7 == 0:
            table = document.add_table(rows=3, cols=2)
            for r, row in enumerate(table.rows):
                for c, cell in enumerate(row.cells):
                    cell.text = f"{n}-{r}-{c}"
    path = saved(document, tmp_path, "long.docx")
    assert extract_docx(path).text == oracle(path).text


def rewritten(path: Path, part: str, change: Any) -> Path:
    """A copy of the .docx with one part's bytes changed."""
    out = path.with_name("changed-" + path.name)
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, change(data) if item.filename == part else data)
    return out


def test_a_document_declaring_entities_is_refused_not_silently_cut(tmp_path: Path) -> None:
    path = saved(rich_document(), tmp_path, "doc.docx")

    def with_entity(data: bytes) -> bytes:
        head, rest = data.split(b"?>", 1)
        doctype = b'<!DOCTYPE w:document [<!ENTITY secret "XXE2START hidden">]>'
        return head + b"?>" + doctype + rest.replace(b"Check the line", b"Check &secret; the line", 1)

    with pytest.raises(ExtractionError, match=r"part /word/document.xml declares an XML document type"):
        extract_docx(rewritten(path, "word/document.xml", with_entity))


def test_an_undeclared_entity_is_a_damaged_file(tmp_path: Path) -> None:
    path = saved(rich_document(), tmp_path, "doc.docx")
    changed = rewritten(path, "word/document.xml", lambda d: d.replace(b"Check the line", b"Check &lost; line", 1))
    with pytest.raises(ExtractionError, match="is damaged"):
        extract_docx(changed)


def test_a_template_or_macro_document_is_not_read_as_a_word_document(tmp_path: Path) -> None:
    path = saved(rich_document(), tmp_path, "doc.docx")
    macro = rewritten(
        path,
        "[Content_Types].xml",
        lambda d: d.replace(
            b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
            b"application/vnd.ms-word.document.macroEnabled.main+xml",
        ),
    )
    with pytest.raises(ExtractionError, match="not a Word document"):
        extract_docx(macro)


def test_a_document_past_the_text_limit_stops_inside_one_huge_paragraph(tmp_path: Path, settings: Any) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 5_000
    document = docx.Document()
    paragraph = document.add_paragraph()
    for n in range(2_000):
        paragraph.add_run(f"word{n} ")
    with pytest.raises(ExtractionError, match="more than 5,000 characters of text"):
        extract_docx(saved(document, tmp_path, "one-paragraph.docx"))


def test_a_table_whose_span_is_not_a_number_is_damaged(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).merge(table.cell(0, 1))
    path = saved(document, tmp_path, "table.docx")
    changed = rewritten(path, "word/document.xml", lambda d: re.sub(rb'gridSpan w:val="2"', b'gridSpan w:val="x"', d))
    with pytest.raises(ExtractionError, match="is damaged"):
        extract_docx(changed)
