"""The words European and Brazilian Portuguese use for one thing are data with their source named:
search/spelling/vocabulary_variants_pt.tsv, derived by search/spelling/build_vocabulary_variants_pt.py
from the message catalogues Debian ships in both variants. The keyword query and the word checks read
them through `spelling_variants`, so a Brazilian reader's words find a European text and back."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from wordfreq import zipf_frequency

from search.services.retrieval import retrieve
from search.services.terms import PORTUGUESE_VOCABULARY, lexical_query, spelling_variants
from search.spelling.build_vocabulary_variants_pt import (
    MAX_ENGLISH_ZIPF,
    MIN_ZIPF,
    Catalogue,
    derive_pairs,
    read_catalogue,
    substitution,
)
from tests.search.libraries import MODEL_TEXT, PASSWORD_TEXT, library_in_languages


def _pairs() -> list[tuple[str, str]]:
    lines = PORTUGUESE_VOCABULARY.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if not line.startswith("#")]  # type: ignore[misc]


def test_one_substituted_word_is_a_pair_and_anything_else_is_not() -> None:
    assert substitution("Não foi possível abrir o ficheiro %s", "Não foi possível abrir o arquivo %s") == (
        "ficheiro",
        "arquivo",
    )
    assert substitution("Introduza a palavra-passe:", "Digite a senha:") is None  # two words differ
    assert substitution("Falha ao ler", "Falha ao ler") is None
    assert substitution("Palavra-passe errada", "Senha errada") == ("palavra-passe", "senha")


def _catalogue(name: str, messages: list[tuple[str, str]]) -> Catalogue:
    european = {f"{name} {i}": pt for i, (pt, _) in enumerate(messages)}
    brazilian = {f"{name} {i}": br for i, (_, br) in enumerate(messages)}
    return Catalogue(name, european, brazilian)


def test_the_derivation_keeps_pairs_seen_often_that_mark_their_variety() -> None:
    files = [
        ("Não foi possível abrir o ficheiro", "Não foi possível abrir o arquivo"),
        ("O ficheiro já existe", "O arquivo já existe"),
    ]
    shown = [("Mostrar a lista", "Exibir a lista"), ("Mostrar tudo", "Exibir tudo")]
    both_say_both = [("Mostrar ajuda", "Mostrar ajuda"), ("Exibir versão", "Exibir versão")] * 3
    catalogues = [
        _catalogue("coreutils", [*files, ("Limpar ecrã", "Limpar tela"), ("Estado: %s", "Status: %s"), *shown]),
        _catalogue(
            "dpkg",
            [
                ("Ficheiro em falta", "Arquivo em falta"),
                ("Ecrã cheio", "Tela cheia"),  # two words differ: not counted
                ("Ecrã inicial", "Tela inicial"),
                ("Rodar ecrã", "Rodar tela"),
                ("Estado do pacote", "Status do pacote"),
                ("Estado da rede", "Status da rede"),
                ("Mostrar pacotes", "Exibir pacotes"),
                *both_say_both,
                ("Selecção vazia", "Seleção vazia"),
                ("A selecção mudou", "A seleção mudou"),
                ("Sem selecção", "Sem seleção"),
            ],
        ),
        _catalogue("tar", [("Um só catálogo diz contentor", "Um só catálogo diz contêiner")]),
    ]
    pairs = derive_pairs(catalogues, spellings={frozenset({"selecção", "seleção"})})
    # "ficheiro" and "ecrã" are in 3 messages of 2 catalogues each. "estado" / "status": "status" is
    # English; "contentor" is seen once; "mostrar" / "exibir", in 3 messages of 2 catalogues, both
    # varieties use; "selecção" / "seleção" is a spelling the spelling file pairs.
    assert pairs == [("ecrã", "tela"), ("ficheiro", "arquivo")]


def test_a_compiled_catalogue_is_read_message_by_message(tmp_path: Path) -> None:
    po = tmp_path / "pt.po"
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\nPlural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "File"\nmsgstr "Ficheiro"\n\n'
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] "%d ficheiro"\nmsgstr[1] "%d ficheiros"\n',
        encoding="utf-8",
    )
    mo = tmp_path / "pt.mo"
    subprocess.run(["msgfmt", "-o", str(mo), str(po)], check=True)
    catalogue = read_catalogue(mo)
    assert catalogue["File"] == "Ficheiro"
    assert catalogue["%d file"] == "%d ficheiro"


def test_the_vocabulary_file_names_its_source_and_holds_portuguese_words_only() -> None:
    text = PORTUGUESE_VOCABULARY.read_text(encoding="utf-8")
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert any("search/spelling/build_vocabulary_variants_pt.py" in line for line in header)
    assert any(line.startswith("#   apt ") for line in header)  # a Debian package and its version
    pairs = _pairs()
    assert {("ficheiro", "arquivo"), ("ecrã", "tela"), ("utilizador", "usuário"), ("palavra-passe", "senha")} <= set(
        pairs
    )
    assert len(set(pairs)) == len(pairs) > 30
    for pair in pairs:
        for word in pair:
            assert zipf_frequency(word, "pt") >= MIN_ZIPF, word
            assert zipf_frequency(word, "en") < MAX_ENGLISH_ZIPF, word


def test_a_word_reads_the_other_varietys_word_and_english_is_unchanged() -> None:
    assert "arquivo" in spelling_variants("ficheiro")
    assert "ecrã" in spelling_variants("tela")
    assert "predefinição" in spelling_variants("padrão")
    assert lexical_query("Como mudar a senha?") == "Como mudar a senha? palavra-passe"
    assert lexical_query("Onde guardo a palavra-passe?") == "Onde guardo a palavra-passe? senha"
    english = "How do I change the default password of a user on the screen?"
    assert lexical_query(english) == english


SCREEN_TEXT = (
    "Para limpar a tela do terminal, use o comando clear ou pressione as teclas Ctrl e L ao mesmo tempo. "
    "O comando apaga todo o texto que está à vista e coloca o cursor no canto superior esquerdo da tela, "
    "sem alterar o histórico dos comandos que já foram executados nesta sessão."
)


@pytest.mark.django_db
def test_a_brazilian_question_finds_the_european_passage_and_back(tmp_path: Path, memoised_pipeline: Any) -> None:
    folder = library_in_languages(
        tmp_path,
        "Manual",
        [("contas", PASSWORD_TEXT, "pt"), ("modelo", MODEL_TEXT, "pt"), ("terminal", SCREEN_TEXT, "pt")],
    )
    # Neither "senha" nor "usuário" is in the text or its title: it says "palavra-passe" and "utilizador".
    result = retrieve(query="senha do usuário", folder_ids=[folder.pk], mode="bm25")
    assert result.hits
    assert "palavra-passe" in result.hits[0].content
    # "ecrã" is a rare word the word checks look for; the library holds it as "tela".
    result = retrieve(query="Como limpar o ecrã?", folder_ids=[folder.pk])
    covered = {c.term.text: c.in_library for c in result.coverage}
    assert covered["ecrã"] is True
    assert "ecrã" not in result.missing_terms
