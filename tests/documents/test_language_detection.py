"""Languages at ingest: each chunk's and the document's (documents/extraction/language.py), on the
shared corpus and on texts that mix languages, and the SQL twin of the configuration mapping."""

from __future__ import annotations

import pytest
from django.db import connection

from documents.extraction.language import MIN_LETTERS, chunk_languages
from documents.languages import TEXT_SEARCH_CONFIGS, text_search_config
from documents.services.ingest import chunk_extracted
from evaluation.corpora import CORPORA, DEV_CORPORA
from evaluation.index import extract_corpus
from tests.corpus import require_corpus

ENGLISH = (
    "The replication protocol sends every write to a quorum of replicas before it answers the client, "
    "so a later read that also reaches a quorum sees the newest value. When a node is down, another "
    "node keeps the write as a hint and hands it back once the first one returns to the ring."
)
PORTUGUESE = (
    "O protocolo de replicação envia cada escrita a um quórum de réplicas antes de responder ao "
    "cliente, de modo que uma leitura posterior que também alcance um quórum vê o valor mais recente. "
    "Quando um nó está em baixo, outro nó guarda a escrita e devolve-a quando o primeiro regressa."
)


def test_a_document_mixing_languages_keeps_each_section_s_language() -> None:
    languages = chunk_languages([PORTUGUESE, ENGLISH, PORTUGUESE + " " + PORTUGUESE])
    assert languages.document == "pt"  # most of the letters
    assert languages.chunks == ["pt", "en", "pt"]


def test_short_or_ambiguous_chunks_take_the_document_s_language() -> None:
    code = "$ sudo systemctl restart network-manager\n$ ip -4 addr show dev eth0 | grep inet"
    table = "| 1 | 2 | 3 |\n| 4.5 | 6.7 | 8.9 |"
    assert sum(ch.isalpha() for ch in code) < MIN_LETTERS
    languages = chunk_languages([PORTUGUESE, code, "Nota", table, PORTUGUESE])
    assert languages == type(languages)("pt", ["pt"] * 5)


def test_a_document_of_short_chunks_only_is_read_as_one_text() -> None:
    sentences = [s + "." for s in PORTUGUESE.split(", ")]
    assert all(sum(ch.isalpha() for ch in s) < MIN_LETTERS for s in sentences)
    assert chunk_languages(sentences).document == "pt"


@pytest.mark.django_db
def test_the_sql_function_reads_every_language_as_the_python_mapping_does() -> None:
    codes = [*TEXT_SEARCH_CONFIGS, "pt-BR", "pt_PT", "ja", "xx"]
    with connection.cursor() as cursor:
        for code in codes:
            cursor.execute("SELECT documents_text_search_config(%s)::text", [code])
            assert cursor.fetchone()[0] == text_search_config(code), code
        cursor.execute("SELECT documents_text_search_config('')::text")
        assert cursor.fetchone()[0] == "english"  # not yet detected: read as before detection


@pytest.mark.corpus
def test_detection_names_the_language_of_the_corpus_files() -> None:
    """Every shared-corpus file is English (the built manuals, each in its own language, are
    `test_detection_names_the_language_of_every_built_manual`'s)."""
    corpus_dir = require_corpus()
    corpus = extract_corpus([corpus_dir / "dev", corpus_dir / "holdout"])
    detected = {
        item.path: chunk_languages(
            [span.content for span in chunk_extracted(item.extracted, title=item.title)]
        ).document
        for item in corpus.files
    }
    assert len(detected) >= 30
    right = sum(language == "en" for language in detected.values())
    assert right / len(detected) >= 0.95, {
        path.name: language for path, language in detected.items() if language != "en"
    }


@pytest.mark.corpus
def test_detection_names_the_language_of_every_built_manual() -> None:
    """The manuals `make eval-corpora` builds (evaluation/corpora.py), each written in one language,
    English or Portuguese, none of them tuned on: 95 % of their files or more are named right. A
    page that mixes languages counts against it (`debian-ref-pt-dev`'s chapter 8 keeps many sections
    in English; Scilab's short `part.html` explains itself in English too)."""
    built = [corpus for corpus in (*CORPORA, *DEV_CORPORA) if corpus.target.is_dir()]
    if not built:
        pytest.skip("no manual is built: run `make eval-corpora`")
    wrong: dict[str, str] = {}
    files = 0
    for corpus in built:
        for item in extract_corpus([corpus.target]).files:
            texts = [span.content for span in chunk_extracted(item.extracted, title=item.title)]
            detected = chunk_languages(texts).document
            files += 1
            if detected != corpus.language:
                wrong[f"{corpus.name}/{item.path.name}"] = detected
    assert 1 - len(wrong) / files >= 0.95, wrong
