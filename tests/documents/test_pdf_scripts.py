"""A PDF's scripts are found wherever a viewer runs them from; harmless PDFs are left alone."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from documents.pdf_scripts import CACHE_VERSION, pdf_carries_scripts, pdf_file_carries_scripts
from tests.documents import pdf_script_builders as build

WITH_SCRIPTS: list[Callable[[], bytes]] = [
    build.open_action_js,
    build.open_action_js_in_object_stream,
    build.name_tree_js,
    build.page_open_js,
    build.next_chain_js,
    build.link_js,
    build.form_field_js,
    build.escaped_name_js,
]


def write(tmp_path: Path, data: bytes, name: str = "file.pdf") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("builder", WITH_SCRIPTS, ids=lambda b: b.__name__)
def test_javascript_is_found_wherever_it_hangs(tmp_path: Path, builder: Callable[[], bytes]) -> None:
    assert pdf_file_carries_scripts(write(tmp_path, builder())) is True


def test_the_object_stream_case_hides_the_names_from_a_byte_search() -> None:
    # What makes the case worth having: only a PDF parser sees the action.
    data = build.open_action_js_in_object_stream()
    assert b"/JS" not in data
    assert b"JavaScript" not in data


@pytest.mark.parametrize("builder", [build.plain_pdf, build.json_named_key_pdf], ids=lambda b: b.__name__)
def test_a_pdf_without_scripts_is_harmless(tmp_path: Path, builder: Callable[[], bytes]) -> None:
    assert pdf_file_carries_scripts(write(tmp_path, builder())) is False


def test_a_pdf_that_cannot_be_inspected_counts_as_carrying_scripts(tmp_path: Path) -> None:
    assert pdf_file_carries_scripts(write(tmp_path, build.encrypted_pdf())) is True  # needs a password
    assert pdf_file_carries_scripts(write(tmp_path, b"%PDF-1.7\n% nothing else", "cut.pdf")) is True
    assert pdf_file_carries_scripts(write(tmp_path, b"<html><body>not a pdf</body></html>", "page.pdf")) is True


@pytest.mark.django_db
def test_the_verdict_is_cached_by_the_files_sha256(tmp_path: Path, folder_factory: Any) -> None:
    from documents.services.upload import IncomingFile, document_upload

    data = build.open_action_js()
    path = Path(write(tmp_path, data))
    with path.open("rb") as stream:
        incoming = IncomingFile(name="alerts.pdf", size=len(data), stream=stream)
        document = document_upload(
            folder=folder_factory(), incoming=incoming, uploaded_by=None, title="Alerts", enqueue=False
        )
    key = f"pdf-scripts:{CACHE_VERSION}:{hashlib.sha256(data).hexdigest()}"
    assert document.sha256 == hashlib.sha256(data).hexdigest()
    assert cache.get(key) is None
    assert pdf_carries_scripts(document) is True
    assert cache.get(key) is True
    # The stored file is not read again while the verdict is cached.
    Path(document.file.path).write_bytes(build.plain_pdf())
    assert pdf_carries_scripts(document) is True
