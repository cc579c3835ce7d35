"""Viewer pages, rendered PDF pages, original files: escaping, exact text, highlight, access."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.test import Client

from citations.rendering import passage_boxes, render_page
from tests.conftest import ingest_file_inline

pytestmark = pytest.mark.django_db

PAGE_ONE = [
    "Storage Engines",
    "",
    "The storage engine keeps every record in an append-only log file.",
    "Compaction merges old segments in the background so that reads stay",
    "fast. The quartermaster protocol elects one coordinator per shard and",
    "renews its lease every three seconds while the shard is healthy.",
]
PAGE_TWO = ["Recovery", "", "After a crash the engine replays the log from the last checkpoint onwards."]
HOSTILE = "Notes\n\nA note with <script>alert('xss')</script> & <b>bold</b> markup in it.\n"


def build_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for lines in (PAGE_ONE, PAGE_TWO):
        page = doc.new_page(width=612, height=792)
        y = 90.0
        for line in lines:
            if line:
                page.insert_text((72, y), line, fontsize=11, fontname="helv")
            y += 15
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def library(tmp_path: Path, folder_factory: Any, user_factory: Any) -> dict[str, Any]:
    reader = user_factory(username="viewer-reader")
    folder = folder_factory(name="Viewer folder", readers=[reader])
    pdf = ingest_file_inline(build_pdf(tmp_path / "engine.pdf"), folder, title="Engine <b>manual</b>")
    note_path = tmp_path / "note.txt"
    note_path.write_text(HOSTILE)
    note = ingest_file_inline(note_path, folder, title="Hostile note")
    assert pdf.status == "indexed", pdf.failure_reason
    assert note.status == "indexed", note.failure_reason
    return {"reader": reader, "pdf": pdf, "note": note, "outsider": user_factory(username="viewer-outsider")}


def client_for(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def viewer_text(content: str) -> str:
    match = re.search(r'<div id="doc-text"[^>]*>(.*?)</div>', content, re.S)
    assert match, "the viewer renders the text in #doc-text"
    return html.unescape(match.group(1))


def test_viewer_renders_the_canonical_text_exactly_and_escaped(library: dict[str, Any]) -> None:
    note = library["note"]
    response = client_for(library["reader"]).get(f"/documents/{note.pk}/view")
    assert response.status_code == 200
    content = response.content.decode()
    assert "<script>alert" not in content
    assert "&lt;script&gt;alert(&#x27;xss&#x27;)&lt;/script&gt;" in content
    assert "<b>bold</b>" not in content
    # One text node holding the canonical text, offset for offset.
    assert viewer_text(content) == note.canonical_text
    assert 'src="/static/js/viewer.js"' in content


def test_viewer_escapes_the_title(library: dict[str, Any]) -> None:
    content = client_for(library["reader"]).get(f"/documents/{library['pdf'].pk}/view").content.decode()
    assert "Engine &lt;b&gt;manual&lt;/b&gt;" in content
    assert "<b>manual</b>" not in content


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_every_document_url_is_404_without_access(library: dict[str, Any], who: str) -> None:
    client = client_for(library["outsider"] if who == "outsider" else None)
    pdf = library["pdf"]
    for url in (
        f"/documents/{pdf.pk}/view",
        f"/documents/{pdf.pk}/pages/1",
        f"/documents/{pdf.pk}/pages/1.png",
        f"/documents/{pdf.pk}/pages/1.png?char=0,40",
        f"/documents/{pdf.pk}/file",
        f"/documents/{library['note'].pk}/file",
        "/documents/999999/view",
    ):
        assert client.get(url).status_code == 404, url


def test_original_file_is_served_inline_with_its_type(library: dict[str, Any]) -> None:
    client = client_for(library["reader"])
    response = client.get(f"/documents/{library['pdf'].pk}/file")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content).startswith(b"%PDF")
    text = client.get(f"/documents/{library['note'].pk}/file")
    assert text["Content-Type"] == "text/plain; charset=utf-8"
    assert text["Content-Security-Policy"] == "sandbox"


def test_pages_exist_only_for_pdfs_within_range(library: dict[str, Any]) -> None:
    client = client_for(library["reader"])
    assert client.get(f"/documents/{library['note'].pk}/pages/1").status_code == 404
    assert client.get(f"/documents/{library['pdf'].pk}/pages/3").status_code == 404
    assert client.get(f"/documents/{library['pdf'].pk}/pages/0.png").status_code == 404
    assert client.get(f"/documents/{library['pdf'].pk}/pages/2").status_code == 200


def passage_range(document: Any, needle: str) -> tuple[int, int]:
    start = document.canonical_text.index(needle)
    return start, start + len(needle)


def test_passage_boxes_cover_the_passage_lines(library: dict[str, Any]) -> None:
    pdf = library["pdf"]
    start, _end = passage_range(pdf, "quartermaster protocol")
    # The passage as the canonical text has it, across a line break; page 1 starts the text.
    end = pdf.canonical_text.index("three seconds") + len("three seconds")
    with pymupdf.open(pdf.file.path) as doc:
        page = doc[0]
        boxes = passage_boxes(page, pdf.canonical_text[: pdf.page_starts[1]], (start, end))
        first = page.search_for("The quartermaster protocol")[0]
        second = page.search_for("three seconds")[0]
        unrelated = page.search_for("append-only")[0]
    assert len(boxes) == 2  # one per line
    assert any(b[1] <= first.y0 + 1 and b[3] >= first.y1 - 1 and b[2] >= first.x1 - 1 for b in boxes)
    assert any(b[1] <= second.y0 + 1 and b[3] >= second.y1 - 1 for b in boxes)
    assert not any(b[1] <= unrelated.y0 + 1 and b[3] >= unrelated.y1 - 1 for b in boxes)


def yellow_pixels(png: bytes) -> int:
    pix = pymupdf.Pixmap(png)
    samples, n = pix.samples, pix.n
    return sum(
        1 for i in range(0, len(samples), n * 7) if samples[i] > 200 and samples[i + 1] > 170 and samples[i + 2] < 140
    )


def test_page_image_highlights_the_passage_and_is_cached(library: dict[str, Any]) -> None:
    pdf = library["pdf"]
    client = client_for(library["reader"])
    start, end = passage_range(pdf, "The quartermaster protocol elects one coordinator")
    plain = client.get(f"/documents/{pdf.pk}/pages/1.png")
    marked = client.get(f"/documents/{pdf.pk}/pages/1.png?char={start},{end}")
    assert marked.status_code == 200
    assert marked["Content-Type"] == "image/png"
    plain_png, marked_png = b"".join(plain.streaming_content), b"".join(marked.streaming_content)
    assert marked_png.startswith(b"\x89PNG")
    assert yellow_pixels(plain_png) == 0
    assert yellow_pixels(marked_png) > 50
    rendered = render_page(pdf, 1, (start, end))
    assert rendered.png.exists()
    assert rendered.png.read_bytes() == marked_png  # served from the disk cache
    assert len(rendered.boxes) == 1


def test_page_view_links_text_view_file_and_image(library: dict[str, Any]) -> None:
    pdf = library["pdf"]
    start, end = passage_range(pdf, "The quartermaster protocol elects one coordinator")
    content = client_for(library["reader"]).get(f"/documents/{pdf.pk}/pages/1?char={start},{end}").content.decode()
    assert f'src="/documents/{pdf.pk}/pages/1.png?char={start},{end}"' in content
    assert f'href="/documents/{pdf.pk}/view#char={start},{end}"' in content
    assert f'href="/documents/{pdf.pk}/file#page=1"' in content
    assert "with the cited passage highlighted" in content
    assert 'id="passage" class="page-anchor"' in content
    assert "could not be located" not in content


def test_page_view_clips_a_range_to_its_page(library: dict[str, Any]) -> None:
    pdf = library["pdf"]
    start, _ = passage_range(pdf, "The quartermaster")
    _, end = passage_range(pdf, "replays the log")
    content = client_for(library["reader"]).get(f"/documents/{pdf.pk}/pages/2?char={start},{end}").content.decode()
    page_two_start = pdf.page_starts[1]
    assert f"/documents/{pdf.pk}/pages/2.png?char={page_two_start},{end}" in content
