"""In Chromium: a Word file and a web page, indexed, open in the viewer at `#char=a,b` with
exactly a chunk's text highlighted."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from documents.models import Chunk
from tests.citations.test_browser import browser, login  # noqa: F401  (the fixture is used by name)
from tests.conftest import ingest_file_inline
from tests.documents import docx_html_builders as build
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_viewer_highlights_a_chunk_of_a_word_file_and_of_a_web_page(
    live_server: Any, browser: Any, tmp_path: Path
) -> None:
    reader = UserFactory(username="formats-reader")
    folder = FolderFactory(name="Formats shelf", readers=[reader])
    files = {"manual.docx": build.manual_docx(), "manual.html": build.manual_html().encode()}
    page = login(browser.new_context(), live_server.url, "/login/?next=/", "formats-reader")
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        document = ingest_file_inline(path, folder)
        assert document.status == "indexed", document.failure_reason
        chunk = Chunk.objects.get(document=document, content__contains=build.CALIBRATION_SENTENCE)

        page.goto(f"{live_server.url}/documents/{document.pk}/view#char={chunk.char_start},{chunk.char_end}")
        page.wait_for_selector("mark#highlight")

        assert page.evaluate("() => document.getElementById('highlight').textContent") == chunk.content, name
        assert page.locator("mark").count() == 1
