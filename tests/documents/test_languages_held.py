"""document_languages: the main languages of the indexed documents a reader's folders hold, most text
first ("" for one not yet detected); the configurations a query is read with follow from them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from documents.languages import query_configs, text_search_config
from documents.models import Document, Folder
from documents.selectors import document_languages

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
    assert document_languages([home.pk]) == ["", "pt", "en"]
    assert document_languages([home.pk, other.pk]) == ["", "pt", "en", "fr"]
    assert document_languages([other.pk]) == ["fr"]
    assert document_languages([]) == []


def test_query_configs_read_an_undetected_language_as_english_and_each_config_once() -> None:
    assert query_configs(["", "pt", "en"]) == ["english", "portuguese"]
    assert query_configs(["pt", "pt-BR", "zh"]) == ["portuguese", "simple"]
    assert query_configs([]) == ["english"]


def test_text_search_config_reads_tags_and_falls_back_to_simple() -> None:
    assert text_search_config("pt-BR") == "portuguese"
    assert text_search_config("en_GB") == "english"
    assert text_search_config("zh") == "simple"
    assert text_search_config("") == "simple"
