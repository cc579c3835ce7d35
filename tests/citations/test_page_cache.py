"""The page-image cache stays within PAGE_CACHE_MAX_MB: renders of deleted documents go first,
then the least recently shown (citations.page_cache)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from citations.page_cache import page_cache_prune
from citations.rendering import cache_path, is_cached, render_page
from documents.models import Document
from tests.citations.test_page_highlight import repeats_pdf
from tests.conftest import ingest_file_inline


@pytest.fixture(autouse=True)
def own_media_root(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")  # a cache of this test's renders only


def _indexed(tmp_path: Path, folder_factory: Any, name: str) -> Document:
    document = ingest_file_inline(repeats_pdf(tmp_path / f"{name}.pdf"), folder_factory(name=name))
    assert document.status == "indexed", document.failure_reason
    return document


def _age(document: Document, span: tuple[int, int] | None, seconds_ago: float) -> None:
    png = cache_path(document, 1, span)
    when = png.stat().st_mtime - seconds_ago
    os.utime(png, (when, when))


@pytest.mark.django_db
def test_least_recently_shown_renders_go_until_the_cache_fits(
    memoised_pipeline: None, folder_factory: Any, tmp_path: Path
) -> None:
    document = _indexed(tmp_path, folder_factory, "Cache")
    spans: list[tuple[int, int] | None] = [None, (0, 40), (60, 120)]
    sizes = {}
    for span in spans:
        rendered = render_page(document, 1, span)
        sizes[span] = rendered.png.stat().st_size + rendered.png.with_suffix(".json").stat().st_size
    _age(document, None, 300)
    _age(document, (0, 40), 200)
    _age(document, (60, 120), 100)
    render_page(document, 1, None)  # shown again: now the most recently used

    result = page_cache_prune(max_bytes=sizes[None] + sizes[(60, 120)])

    assert result.removed_renders == 1
    assert result.removed_bytes == sizes[(0, 40)]
    assert result.kept_bytes == sizes[None] + sizes[(60, 120)]
    assert not is_cached(document, 1, (0, 40))
    assert not cache_path(document, 1, (0, 40)).with_suffix(".json").exists()
    assert is_cached(document, 1, None)
    assert is_cached(document, 1, (60, 120))
    again = render_page(document, 1, (0, 40))  # a pruned render is simply drawn again
    assert again.boxes
    assert is_cached(document, 1, (0, 40))


@pytest.mark.django_db
def test_renders_of_deleted_documents_are_removed_whatever_the_room(
    memoised_pipeline: None, folder_factory: Any, tmp_path: Path
) -> None:
    kept = _indexed(tmp_path, folder_factory, "Kept")
    gone = _indexed(tmp_path, folder_factory, "Gone")
    render_page(kept, 1, (0, 40))
    render_page(gone, 1, (0, 40))
    gone_directory = cache_path(gone, 1, (0, 40)).parent
    gone.delete()

    result = page_cache_prune(max_bytes=10**12)

    assert result.removed_renders == 1
    assert not gone_directory.exists()
    assert is_cached(kept, 1, (0, 40))
    assert page_cache_prune(max_bytes=10**12) == type(result)(0, 0, result.kept_bytes)


@pytest.mark.django_db
def test_an_empty_cache_is_nothing_to_prune(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "no-media-yet")
    assert page_cache_prune().removed_renders == 0
