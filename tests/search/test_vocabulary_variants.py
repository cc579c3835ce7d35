"""The words European and Brazilian Portuguese use for one thing are data with their source named:
search/spelling/vocabulary_variants_pt.tsv, derived by search/spelling/build_vocabulary_variants_pt.py
from the message catalogues Debian ships in both variants. The keyword query and the word checks read
them through the question's reading (`question_variants`), so a Brazilian reader's words find a European
text and back, where the library lacks the reader's own word."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from wordfreq import zipf_frequency

from search.services.bm25_packed import bm25_packed
from search.services.question_reading import question_reading
from search.services.retrieval import retrieve
from search.services.terms import PORTUGUESE_VOCABULARY, lexical_query, question_variants, vocabulary_variants
from search.spelling.build_vocabulary_variants_pt import (
    MAX_ENGLISH_ZIPF,
    MIN_ZIPF,
    Catalogue,
    derive_pairs,
    read_catalogue,
    substitution,
)
from tests.search.bm25_cases import assert_same_top
from tests.search.bm25_oracle import bm25_oracle, oracle_configs
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
    assert "arquivo" in vocabulary_variants("ficheiro", "pt")
    assert "ecrã" in vocabulary_variants("tela", "pt")
    assert "predefinição" in vocabulary_variants("padrão", "pt")
    assert vocabulary_variants("activar", "pt") == ("habilitar",)  # through its other spelling, "ativar"
    assert vocabulary_variants("ficheiro", "en") == ()
    # No readable folder holds the reader's word: the other variety's word joins.
    assert lexical_query("Como mudar a senha?", question_variants("Como mudar a senha?", "pt", [], [])) == (
        "Como mudar a senha? palavra-passe"
    )
    assert question_variants("Onde guardo a palavra-passe?", "pt", [], []) == {"palavra-passe": ("senha",)}
    english = "How do I change the default password of a user on the screen?"
    assert lexical_query(english, question_variants(english, "en", [], [])) == english
    assert question_variants("senha do ficheiro", "en", [], []) == {}  # read as English: no Portuguese pair


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


# A Brazilian text: it says "senha", and "palavra" (part of "palavra-passe") on every other line.
BRAZILIAN_PASSWORD_TEXT = (
    "Para mudar a senha de um usuário, execute o comando passwd no terminal. O comando pede a senha "
    "atual e depois a nova senha duas vezes. Cada palavra da senha conta: uma senha forte tem pelo menos "
    "doze caracteres e mistura letras, algarismos e símbolos."
)
TABS_TEXT = (
    "As abas da janela de opções agrupam as configurações. Clique em uma palavra do menu para abrir a aba "
    "correspondente; a palavra escolhida fica em negrito."
)


@pytest.mark.django_db
def test_the_other_varietys_word_joins_only_where_the_library_lacks_the_readers(
    tmp_path: Path, memoised_pipeline: Any
) -> None:
    brazilian = library_in_languages(
        tmp_path, "Brasil", [("contas", BRAZILIAN_PASSWORD_TEXT, "pt"), ("abas", TABS_TEXT, "pt")]
    )
    question = "Como mudar a senha do usuário?"
    reading = question_reading(question, [brazilian.pk])
    assert reading.language == "pt"
    assert "senha" not in reading.variants  # the library holds "senha": no "palavra-passe"
    assert "palavra-passe" not in lexical_query(question, reading.variants)
    # "abas" is held as itself, not through the European "separadores".
    tabs = question_reading("Onde ficam as abas?", [brazilian.pk])
    assert "separadores" not in tabs.variants.get("abas", ())
    # A European library, which says only "palavra-passe", is found with it.
    european = library_in_languages(tmp_path, "Portugal", [("contas", PASSWORD_TEXT, "pt")])
    reading = question_reading(question, [european.pk])
    assert reading.variants["senha"] == ("palavra-passe",)
    assert "palavra-passe" in lexical_query(question, reading.variants)
    # A Portuguese "saber" is no English "sabre".
    assert "saber" not in question_reading("Como saber a senha atual?", [brazilian.pk]).variants
    # What the library holds is the reader's readable folders': the European folder is not the Brazilian's.
    assert question_reading(question, [european.pk, brazilian.pk]).variants.get("senha") is None


@pytest.mark.django_db
def test_bm25_with_the_other_varietys_word_equals_the_oracle(tmp_path: Path, memoised_pipeline: Any) -> None:
    folder = library_in_languages(tmp_path, "Manual", [("contas", PASSWORD_TEXT, "pt"), ("modelo", MODEL_TEXT, "pt")])
    for question in ("Como mudar a senha do usuário?", "Como mudar a palavra-passe?", "modelo de linguagem"):
        keywords = lexical_query(question, question_reading(question, [folder.pk]).variants)
        packed = bm25_packed(keywords, [folder.pk], 10, configs=oracle_configs([folder.pk])).hits
        assert packed
        assert_same_top(packed, bm25_oracle(keywords, [folder.pk], 10), question)
