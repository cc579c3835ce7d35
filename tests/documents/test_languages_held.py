"""languages_held: the main languages of the indexed documents a reader's folders hold, most text first."""

from __future__ import annotations

import pytest
from django.utils import timezone

from documents.languages import text_search_config
from documents.models import Document, Folder
from documents.selectors import languages_held

pytestmark = pytest.mark.django_db


def _document(folder: Folder, name: str, language: str, chunks: int, *, indexed: bool = True) -> Document:
    return Document.objects.create(
        folder=folder,
        title=name,
        original_name=f"{name}.md",
        content_type="text/markdown",
        size=1,
        sha256=name.ljust(64, "0"),
        file=f"test/{name}.md",
        language=language,
        chunk_count=chunks,
        indexed_at=timezone.now() if indexed else None,
    )


def test_languages_are_listed_by_text_held_and_only_for_the_given_folders() -> None:
    home, other = Folder.objects.create(name="home"), Folder.objects.create(name="other")
    _document(home, "a", "en", 10)
    _document(home, "b", "pt", 30)
    _document(home, "c", "", 50)  # not yet detected
    _document(home, "d", "de", 90, indexed=False)  # not indexed yet
    _document(other, "e", "fr", 5)
    assert languages_held([home.pk]) == ["pt", "en"]
    assert languages_held([home.pk, other.pk]) == ["pt", "en", "fr"]
    assert languages_held([]) == []


def test_text_search_config_reads_tags_and_falls_back_to_simple() -> None:
    assert text_search_config("pt-BR") == "portuguese"
    assert text_search_config("en_GB") == "english"
    assert text_search_config("zh") == "simple"
    assert text_search_config("") == "simple"
