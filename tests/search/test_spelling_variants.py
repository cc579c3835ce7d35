"""Spelling variants are data with their source named: en-GB/en-US from the breame package, pt-PT/pt-BR
from search/spelling/spelling_variants_pt.tsv (built by search/spelling/build_spelling_variants_pt.py from
wordfreq's Portuguese list); the keyword query and the word checks read those of the question's language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wordfreq import zipf_frequency

from search.services.retrieval import retrieve
from search.services.terms import PORTUGUESE_VARIANTS, lexical_query, question_variants, spelling_variants
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory


def _pairs() -> list[tuple[str, str]]:
    lines = PORTUGUESE_VARIANTS.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if not line.startswith("#")]  # type: ignore[misc]


def test_the_portuguese_file_names_its_source_and_holds_pairs_of_real_words() -> None:
    text = PORTUGUESE_VARIANTS.read_text(encoding="utf-8")
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert any("wordfreq" in line for line in header)
    assert any("search/spelling/build_spelling_variants_pt.py" in line for line in header)
    pairs = _pairs()
    assert len(pairs) > 100
    assert len(set(pairs)) == len(pairs)
    for first, second in pairs:
        assert first != second
        assert [first, second] == [first.strip().casefold(), second.strip().casefold()]
        # Both spellings are Portuguese words of some currency, not typos or another language's.
        assert zipf_frequency(first, "pt") >= 2.5, first
        assert zipf_frequency(second, "pt") >= 2.5, second


def test_portuguese_variants_cover_the_agreement_and_the_two_norms_but_not_other_words() -> None:
    assert spelling_variants("acção", "pt") == ("ação", "acções")  # and its other number (below)
    assert spelling_variants("ótimo", "pt") == ("óptimo",)
    assert spelling_variants("contacto", "pt") == ("contato",)
    assert spelling_variants("registo", "pt") == ("registro",)
    assert spelling_variants("económico", "pt") == ("econômico",)
    assert set(spelling_variants("eletrônica", "pt")) == {"electrónica", "eletrónica"}  # linked through the middle one
    # The consonant is pronounced, or the shorter word is another one: no variants.
    assert spelling_variants("facto", "pt") == ()
    assert spelling_variants("pacto", "pt") == ()
    assert spelling_variants("contém", "pt") == ()  # "contêm" is the plural of the verb, not a spelling
    assert spelling_variants("flavour", "en") == ("flavor",)  # English from breame


def test_a_portuguese_word_in_ao_reads_its_other_number_too() -> None:
    # PostgreSQL's Portuguese stemmer: "conexão" → conexã, "conexões" → conexõ (other plurals stem alike).
    assert spelling_variants("conexões", "pt") == ("conexão",)
    assert spelling_variants("configuração", "pt") == ("configurações",)
    assert spelling_variants("não", "pt") == ()
    assert spelling_variants("pães", "pt") == ()
    question = "Como fechar conexões?"
    assert lexical_query(question, {"conexões": spelling_variants("conexões", "pt")}) == f"{question} conexão"


def test_the_keyword_query_reads_both_spellings() -> None:
    variants = {"contacto": spelling_variants("contacto", "pt"), "colour": spelling_variants("colour", "en")}
    assert lexical_query("Como alterar o contacto?", variants) == "Como alterar o contacto? contato"
    assert lexical_query("which colour", variants) == "which colour color"


def test_spellings_follow_the_questions_language() -> None:
    # The English pairs are for English questions: a Portuguese "saber" (to know) is no sword.
    assert spelling_variants("saber", "en") == ("sabre",)
    assert spelling_variants("saber", "pt") == ()
    assert spelling_variants("saber", "pt-BR") == ()
    # The Portuguese pairs and numbers are for Portuguese questions.
    assert spelling_variants("contacto", "en") == ()
    assert spelling_variants("conexões", "en") == ()
    assert spelling_variants("colour", "de") == ()
    assert question_variants("Como saber o contacto?", "pt", [], ["portuguese"]) == {"contacto": ("contato",)}
    assert question_variants("Which colour is the sabre?", "en", [], ["english"]) == {
        "colour": ("color",),
        "sabre": ("saber",),
    }


def _library(tmp_path: Path, name: str, text: str) -> Any:
    """A public folder holding one text document, ingested inline."""
    folder = FolderFactory(name=name, is_public=True)
    path = tmp_path / f"{name.lower()}.txt"
    path.write_text(text)
    ingest_file_inline(path, folder, title=name.lower())
    return folder


@pytest.mark.django_db
def test_a_word_spelt_the_other_norm_way_is_held(tmp_path: Path, memoised_pipeline: Any) -> None:
    folder = _library(
        tmp_path,
        "Suporte",
        "Para pedir ajuda, envie um email para o contato da equipe de suporte técnico. A equipe responde em "
        "dois dias úteis e regista cada pedido.",
    )
    result = retrieve(query="Qual é o contacto de suporte?", folder_ids=[folder.pk])
    covered = {c.term.text: c.in_library for c in result.coverage}
    assert covered["contacto"] is True  # the library says "contato"
    assert "contacto" not in result.missing_terms


@pytest.mark.django_db
def test_a_question_in_the_plural_finds_the_passage_in_the_singular(tmp_path: Path, memoised_pipeline: Any) -> None:
    folder = _library(
        tmp_path,
        "Rede",
        "Quando uma conexão fica parada durante muito tempo, o servidor fecha-a ao fim de cinco minutos. "
        "Pode alterar este tempo no ficheiro de configuração do servidor, na secção da rede.",
    )
    result = retrieve(query="Quando fecha o servidor as conexões paradas?", folder_ids=[folder.pk], mode="bm25")
    covered = {c.term.text: c.in_library for c in result.coverage}
    assert covered["conexões"] is True  # the library says "conexão"
    assert result.hits
    assert "conexão" in result.hits[0].content
