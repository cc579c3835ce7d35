"""A reader who types a file's name finds the passage that writes its full path.

PostgreSQL's parser reads "/etc/apt/sources.list" as one lexeme; the keyword index adds the
path's last component, read with the chunk's own configuration (documents_chunk_vector,
documents/migrations/0018_chunk_vector_path_names.py), so "sources.list", "fstab" and "dpkg.log"
meet the passages that write them inside a path, in English and Portuguese questions alike, and
BM25 stays equal to the oracle (tests/search/bm25_oracle.py). The migration gives the chunks
indexed before their names without re-embedding them.
"""

from __future__ import annotations

from importlib import import_module

import pytest
from django.db import connection

from documents.languages import FALLBACK_CONFIG, TEXT_SEARCH_CONFIGS
from documents.lexical.blocks import lexeme_blocks_rebuild_for_documents
from documents.lexical.index import lexical_index_replace
from documents.models import Chunk, Document
from search.services.bm25_packed import bm25_packed
from search.services.question_reading import question_reading
from tests.factories import FolderFactory
from tests.search.bm25_cases import assert_same_top
from tests.search.bm25_oracle import bm25_oracle, oracle_configs, packed_postings, vector_postings
from tests.search.libraries import document_of_passages

pytestmark = pytest.mark.django_db

ENGLISH = [
    "To add a mirror, edit /etc/apt/sources.list and run the update command; every installation "
    "the package manager makes is written to /var/log/dpkg.log.",
    "The file systems mounted at boot are listed in /etc/fstab, one per line, with their options.",
    "A mirror serves the package lists and the packages; pick one close to you for faster updates.",
]
PORTUGUESE = [
    "Para acrescentar um espelho, edite /etc/apt/sources.list e execute a atualização; cada instalação "
    "feita pelo gestor de pacotes fica escrita em /var/log/dpkg.log.",
    "Os sistemas de ficheiros montados no arranque estão listados em /etc/fstab, um por linha.",
    "Um espelho serve as listas de pacotes e os pacotes; escolha um perto de si para atualizar depressa.",
]
MIGRATION = import_module("documents.migrations.0018_chunk_vector_path_names")


def _chunk_writing(document: Document, path: str) -> int:
    return Chunk.objects.get(document=document, content__contains=path).pk


def _top(question: str, folders: list[int]) -> int:
    found = bm25_packed(question, folders, 10, configs=question_reading(question, folders).configs).hits
    assert found, question
    return found[0][0]


def test_a_question_naming_a_file_finds_the_passage_writing_its_path_in_english_and_portuguese() -> None:
    folder = FolderFactory(name="Package notes")
    english = document_of_passages(folder, "apt notes", ENGLISH, "en")
    portuguese = document_of_passages(folder, "notas do apt", PORTUGUESE, "pt")
    folders = [folder.pk]
    sources = {_chunk_writing(english, "sources.list"), _chunk_writing(portuguese, "sources.list")}
    fstab = {_chunk_writing(english, "/etc/fstab"), _chunk_writing(portuguese, "/etc/fstab")}
    cases = {
        "Where do I add a mirror in sources.list?": sources,
        "Onde acrescento um espelho no sources.list?": sources,
        "Which file systems does fstab list?": fstab,
        "Que sistemas de ficheiros lista o fstab?": fstab,
        "What does dpkg.log record?": sources,
        "O que fica escrito no dpkg.log?": sources,
        "/etc/apt/sources.list": sources,  # the whole path is still one lexeme of the passage
    }
    for question, passages in cases.items():
        assert _top(question, folders) in passages, question
        packed = bm25_packed(question, folders, 10, configs=oracle_configs(folders)).hits
        assert_same_top(packed, bm25_oracle(question, folders, 10), question)
    assert packed_postings(folders) == vector_postings(folders)


def test_the_names_are_the_lexemes_every_configuration_makes_of_them_and_only_the_last_component() -> None:
    text = "Edit /etc/apt/sources.list, then /etc/fstab; see /var/log/dpkg.log and the CD/DVD-R notes."
    with connection.cursor() as cursor:
        for config in sorted({*TEXT_SEARCH_CONFIGS.values(), FALLBACK_CONFIG}):
            cursor.execute(
                "SELECT documents_path_names(%(c)s::regconfig, %(t)s),"
                " tsvector_to_array(documents_chunk_vector(%(c)s::regconfig, %(t)s)),"
                " tsvector_to_array(to_tsvector(%(c)s::regconfig, 'sources.list fstab dpkg.log DVD-R')),"
                " tsvector_to_array(to_tsvector(%(c)s::regconfig, 'etc apt var log'))",
                {"c": config, "t": text},
            )
            names, lexemes, asked, components = cursor.fetchone()
            assert names == "sources.list fstab dpkg.log DVD-R", config
            assert set(asked) <= set(lexemes), config
            assert not set(components) & set(lexemes), config
            cursor.execute(
                "SELECT documents_path_names(%s::regconfig, 'and/or e.g. http://example.org/a/b.html no path')",
                [config],
            )
            assert cursor.fetchone() == ("or",), config  # a URL is not a file token; "e.g." has no slash


def test_the_migration_gives_chunks_indexed_before_their_names_without_re_embedding() -> None:
    folder = FolderFactory(name="Indexed before")
    english = document_of_passages(folder, "apt notes", ENGLISH, "en")
    portuguese = document_of_passages(folder, "notas do apt", PORTUGUESE, "pt")
    folders = [folder.pk]
    with connection.cursor() as cursor:  # the vectors as the index wrote them before the names
        cursor.execute(
            """UPDATE documents_chunk AS c
                  SET search_vector = to_tsvector(documents_text_search_config(c.language),
                                                  coalesce(c.context, '') || E'\\n' || c.content)
                WHERE c.document_id = ANY(%(docs)s);
               UPDATE documents_chunk AS c
                  SET lexeme_count = (SELECT sum(coalesce(array_length(u.positions, 1), 1))
                                        FROM unnest(c.search_vector) AS u)
                WHERE c.document_id = ANY(%(docs)s);
               UPDATE documents_document AS d
                  SET lexeme_total = (SELECT sum(lexeme_count) FROM documents_chunk WHERE document_id = d.id)
                WHERE d.id = ANY(%(docs)s)""",
            {"docs": [english.pk, portuguese.pk]},
        )
    lexeme_blocks_rebuild_for_documents([english.pk, portuguese.pk])
    question = "sources.list?"
    sources = {_chunk_writing(english, "sources.list"), _chunk_writing(portuguese, "sources.list")}
    assert bm25_packed(question, folders, 10, configs=question_reading(question, folders).configs).hits == []
    chunks = Chunk.objects.filter(document__folder=folder).order_by("pk")
    embeddings = [(c.pk, c.embedding_key, [float(x) for x in c.embedding]) for c in chunks]
    untouched = {c.pk: c.search_vector for c in chunks if "/" not in c.content}

    with connection.cursor() as cursor:
        for statement in MIGRATION.REINDEX_PATH_CHUNKS:
            cursor.execute(statement)

    chunks = Chunk.objects.filter(document__folder=folder).order_by("pk")
    assert [(c.pk, c.embedding_key, [float(x) for x in c.embedding]) for c in chunks] == embeddings
    assert {c.pk: c.search_vector for c in chunks if c.pk in untouched} == untouched
    assert _top(question, folders) in sources
    assert packed_postings(folders) == vector_postings(folders)
    for document in (english, portuguese):
        stored = Document.objects.get(pk=document.pk)
        lexeme_counts = list(Chunk.objects.filter(document=document).values_list("lexeme_count", flat=True))
        assert stored.lexeme_total == sum(lexeme_counts)
    # What the migration wrote is what ingestion writes.
    rewritten = {c.pk: (c.search_vector, c.lexeme_count) for c in chunks}
    for document in (english, portuguese):
        lexical_index_replace(document.pk)
    assert {c.pk: (c.search_vector, c.lexeme_count) for c in Chunk.objects.filter(document__folder=folder)} == (
        rewritten
    )
    for text in [question, "fstab", "dpkg.log mirror", "espelho pacotes"]:
        assert_same_top(
            bm25_packed(text, folders, 10, configs=oracle_configs(folders)).hits, bm25_oracle(text, folders, 10), text
        )
