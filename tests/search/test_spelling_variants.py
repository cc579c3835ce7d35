"""Spelling variants are data with their source named: en-GB/en-US from the breame package, pt-PT/pt-BR
from search/spelling/spelling_variants_pt.tsv (built by search/spelling/build_spelling_variants_pt.py from
wordfreq's Portuguese list); the keyword query and the word checks read both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wordfreq import zipf_frequency

from search.services.retrieval import retrieve
from search.services.terms import PORTUGUESE_VARIANTS, lexical_query, spelling_variants
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
    assert spelling_variants("acção") == ("ação", "acções")  # and its other number (below)
    assert spelling_variants("ótimo") == ("óptimo",)
    assert spelling_variants("contacto") == ("contato",)
    assert spelling_variants("registo") == ("registro",)
    assert spelling_variants("económico") == ("econômico",)
    assert set(spelling_variants("eletrônica")) == {"electrónica", "eletrónica"}  # linked through the middle one
    # The consonant is pronounced, or the shorter word is another one: no variants.
    assert spelling_variants("facto") == ()
    assert spelling_variants("pacto") == ()
    assert spelling_variants("contém") == ()  # "contêm" is the plural of the verb, not a spelling
    assert spelling_variants("flavour") == ("flavor",)  # English from breame, as before


def test_a_portuguese_word_in_ao_reads_its_other_number_too() -> None:
    # PostgreSQL's Portuguese stemmer: "conexão" → conexã, "conexões" → conexõ (other plurals stem alike).
    assert spelling_variants("conexões") == ("conexão",)
    assert spelling_variants("configuração") == ("configurações",)
    assert spelling_variants("não") == ()
    assert spelling_variants("pães") == ()
    assert lexical_query("Como fechar conexões?") == "Como fechar conexões? conexão"


def test_the_keyword_query_reads_both_spellings() -> None:
    assert lexical_query("Como alterar o contacto?") == "Como alterar o contacto? contato"
    assert lexical_query("which colour") == "which colour color"


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
