"""The keyword index reads each chunk in its language, and a question in every language the
readable folders hold; BM25 stays exact (the oracle, tests/search/bm25_oracle.py), and detecting
the languages of documents indexed before re-embeds nothing (manage.py detect_languages)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.urls import reverse

from documents.filters import FilterError, Filters, parse_filters
from documents.lexical.reads import words_held
from documents.models import Chunk, Document
from evaluation.index import EmbeddingCache, create_folder, extract_corpus, populate
from search.services.bm25_packed import bm25_packed
from search.services.grouping import search_documents
from search.services.question_reading import question_reading
from search.services.terms import Term, term_coverage
from tests.factories import FolderFactory, UserFactory
from tests.search.bm25_cases import assert_same_top
from tests.search.bm25_oracle import bm25_oracle, oracle_configs, packed_postings, vector_postings
from tests.search.libraries import document_of_passages

pytestmark = pytest.mark.django_db

ENGLISH = [
    "Every client opens its connections to the server through a pool; a connection that stays idle "
    "longer than the timeout is closed by the server and opened again by the pool on the next request.",
    "The server writes each request to its log before answering, so a crash loses no request that a "
    "client saw answered; the log is replayed in order when the server starts again after the crash.",
]
PORTUGUESE = [
    "Cada cliente abre a sua conexão ao servidor através de um conjunto partilhado; uma conexão que "
    "fica parada mais tempo do que o limite é fechada pelo servidor e aberta de novo no pedido seguinte.",
    "O servidor escreve cada pedido no seu registo antes de responder, de modo que uma falha não perde "
    "nenhum pedido que o cliente viu respondido; o registo é lido de novo quando o servidor arranca.",
]


def _embeddings(folder_id: int) -> list[tuple[int, str, list[float]]]:
    chunks = Chunk.objects.filter(document__folder_id=folder_id).order_by("pk")
    return [(c.pk, c.embedding_key, [float(x) for x in c.embedding]) for c in chunks]


def test_a_portuguese_question_finds_the_portuguese_chunk_by_its_stem_once_languages_are_detected() -> None:
    # PostgreSQL's Portuguese stemmer reads "fechou" and "fechada" as 'fech'; english keeps both
    # words whole. (It keeps plurals in -ões apart from -ão: 'conexõ' and 'conexã'.)
    mixed, english_only = FolderFactory(name="Mixed"), FolderFactory(name="English only")
    document_of_passages(mixed, "pool", ENGLISH)
    portuguese = document_of_passages(mixed, "conjunto", PORTUGUESE)
    document_of_passages(english_only, "pool copy", ENGLISH)
    question = "Quando fechou?"
    # Undetected: read with english, which does not stem "fechou" to the stem of "fechada".
    configs = question_reading(question, [mixed.pk]).configs
    assert configs == ["english"]
    first_pt_chunk = Chunk.objects.get(document=portuguese, ordinal=0).pk
    assert first_pt_chunk not in [pk for pk, _ in bm25_packed(question, [mixed.pk], 10, configs=configs).hits]
    before = _embeddings(mixed.pk)

    call_command("detect_languages")

    assert _embeddings(mixed.pk) == before  # nothing re-embedded
    assert dict(Document.objects.filter(folder=mixed).values_list("title", "language")) == {
        "pool": "en",
        "conjunto": "pt",
    }
    assert set(Chunk.objects.filter(document=portuguese).values_list("language", flat=True)) == {"pt"}
    # Two words are too few to tell a language: the question is read with every one held.
    configs = question_reading(question, [mixed.pk]).configs
    assert configs == ["english", "portuguese"]
    assert question_reading(question, [english_only.pk]).configs == ["english"]
    assert question_reading(question, []).configs == ["english"]
    assert packed_postings([mixed.pk]) == vector_postings([mixed.pk])
    found = bm25_packed(question, [mixed.pk], 10, configs=configs).hits
    assert found[0][0] == first_pt_chunk
    for text in [question, "idle connections closed by the server", "servidor registo pedido", "crash log"]:
        for folders in ([mixed.pk], [english_only.pk], [mixed.pk, english_only.pk]):
            packed = bm25_packed(text, folders, 10, configs=oracle_configs(folders)).hits
            assert_same_top(packed, bm25_oracle(text, folders, 10), f"{folders} {text}")
    # An English question still finds the English chunks by their english stems.
    english = "Which idle connections are closed?"
    english_top = bm25_packed(english, [mixed.pk], 1, configs=question_reading(english, [mixed.pk]).configs).hits
    assert Chunk.objects.get(pk=english_top[0][0]).language == "en"


def test_words_are_held_and_covered_in_any_language_the_library_holds() -> None:
    folder = FolderFactory(name="Both")
    document_of_passages(folder, "pool", ENGLISH)
    document_of_passages(folder, "conjunto", PORTUGUESE)
    call_command("detect_languages", "--all")
    reading = question_reading("fechou servidor", [folder.pk])
    configs = reading.configs  # too short to tell: every one held
    assert configs == ["english", "portuguese"]
    assert words_held(["fechou", "connections", "zzyzx"], [folder.pk], configs=configs) == {
        "fechou": 1,
        "connections": 1,
    }
    coverage = term_coverage(
        [Term("fechou", "word"), Term("servidor", "word")], [folder.pk], [], configs, reading.variants
    )
    assert [(c.term.text, c.in_library) for c in coverage] == [("fechou", True), ("servidor", True)]
    english = FolderFactory(name="English")
    document_of_passages(english, "pool", ENGLISH)
    assert words_held(["fechou"], [english.pk], configs=question_reading("fechou", [english.pk]).configs) == {}


def test_language_is_a_filter_and_a_facet_of_search_and_the_document_api(client: Any) -> None:
    user = UserFactory()
    folder = FolderFactory(name="Languages", readers=[user])  # the user reads this folder only
    document_of_passages(folder, "pool", ENGLISH)
    portuguese = document_of_passages(folder, "conjunto", PORTUGUESE)
    call_command("detect_languages")
    assert parse_filters(QueryDict("language=PT-br&language=pt").getlist).languages == ("pt",)
    with pytest.raises(FilterError, match="ISO 639-1"):
        parse_filters(QueryDict("language=portuguese").getlist)
    page = search_documents(user=user, query="servidor server", facets=True)
    assert page.facets is not None
    assert [(f.value, f.label, f.count) for f in page.facets.language] == [
        ("en", "English", 1),
        ("pt", "Portuguese", 1),
    ]
    only = search_documents(user=user, query="servidor server", filters=Filters(languages=("pt",)))
    assert [d.document_id for d in only.documents] == [portuguese.pk]
    client.force_login(user)
    found = client.get("/api/search", {"q": "servidor server", "language": "pt", "group": "document"}).json()
    assert [d["document_id"] for d in found["documents"]] == [portuguese.pk]
    listed = client.get("/api/documents", {"language": "pt"}).json()
    assert [(d["id"], d["language"]) for d in listed["items"]] == [(portuguese.pk, "pt")]
    assert client.get("/api/search", {"q": "servidor", "language": "xyz"}).status_code == 400
    library_page = client.get(reverse("citations:library_document", args=[portuguese.pk])).content.decode()
    assert '<dd id="document-language">Portuguese</dd>' in library_page


def test_the_evaluation_s_own_ingestion_stores_languages(tmp_path: Path) -> None:
    (tmp_path / "replicacao.md").write_text("# Replicação\n\n" + "\n\n".join(PORTUGUESE * 3), encoding="utf-8")
    (tmp_path / "replication.md").write_text("# Replication\n\n" + "\n\n".join(ENGLISH * 3), encoding="utf-8")
    folder = create_folder("languages", "A")
    populate(folder, extract_corpus([tmp_path]), "A", EmbeddingCache())
    stored = Document.objects.filter(folder=folder)
    assert dict(stored.values_list("original_name", "language")) == {"replicacao.md": "pt", "replication.md": "en"}
    assert not Chunk.objects.filter(document__folder=folder, language="").exists()
