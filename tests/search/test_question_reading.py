"""How a search reads its question (search/services/question_reading.py): a question whose language
is told among several the library holds is parsed with that language's configuration alone, so its
function words ("que", "de", no English stop words) do not match English text; a short one, or a
library of one language, is parsed with every configuration the library holds."""

from __future__ import annotations

import pytest
from django.conf import settings

from documents.lexical.index import lexical_index_replace
from documents.models import Chunk, Document
from search.services.bm25_packed import bm25_packed
from search.services.question_reading import question_reading
from tests.factories import DocumentFactory, FolderFactory

pytestmark = pytest.mark.django_db

ENGLISH = "Tickets in the que de list are printed in the order they arrive, oldest first."
PORTUGUESE = (
    "Uma conexão que fica parada mais tempo do que o limite é fechada pelo servidor e aberta de novo "
    "no pedido seguinte, sem que o cliente perca dados."
)
QUESTION = "O que acontece a uma conexão parada?"


def _document(folder: object, title: str, text: str, language: str) -> Document:
    document: Document = DocumentFactory(folder=folder, title=title, text=text, indexed=True, chunk_count=1)
    Chunk.objects.create(
        document=document,
        ordinal=0,
        content=text,
        char_start=0,
        char_end=len(text),
        language=language,
        embedding=[0.01] * settings.EMBEDDING_DIMS,
        embedding_key=title,
    )
    Document.objects.filter(pk=document.pk).update(language=language)
    lexical_index_replace(document.pk)
    return document


def test_a_question_told_among_the_library_languages_is_parsed_in_its_language_alone() -> None:
    folder = FolderFactory(name="Mixed")
    english = _document(folder, "tickets", ENGLISH, "en")
    portuguese = _document(folder, "conexões", PORTUGUESE, "pt")
    reading = question_reading(QUESTION, [folder.pk])
    assert (reading.language, reading.configs) == ("pt", ["portuguese"])

    chunk_of = dict(Chunk.objects.values_list("pk", "document_id"))
    parsed_in_both = {
        chunk_of[pk] for pk, _ in bm25_packed(QUESTION, [folder.pk], 10, configs=["english", "portuguese"]).hits
    }
    assert english.pk in parsed_in_both  # "que" and "de" are lexemes of the english configuration
    parsed_as_read = [chunk_of[pk] for pk, _ in bm25_packed(QUESTION, [folder.pk], 10, configs=reading.configs).hits]
    assert parsed_as_read == [portuguese.pk]


def test_a_short_question_or_a_one_language_library_is_parsed_in_every_language_held() -> None:
    mixed, english_only = FolderFactory(name="Mixed"), FolderFactory(name="English")
    _document(mixed, "tickets", ENGLISH, "en")
    _document(mixed, "conexões", PORTUGUESE, "pt")
    _document(english_only, "tickets copy", ENGLISH, "en")
    assert question_reading("conexão parada", [mixed.pk]).configs == ["english", "portuguese"]
    english = question_reading("How are idle connections closed?", [english_only.pk])
    assert (english.language, english.languages_held, english.configs) == ("en", ["en"], ["english"])
