"""A file path's words are held where the path is (the keyword index reads "/proc/kcore" as one
lexeme), and a Portuguese verb is as common however it is written: with its pronoun hyphenated
after it, in the first person of the past, in the subjunctive, after a repeating prefix
(search/services/terms.py `_in_file_paths`, `_held_in_its_path`, `_portuguese_stems`,
`_PORTUGUESE_BASE_ENDINGS`). The texts are the Portuguese Debian Reference's own wording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from search.services.retrieval import retrieve
from search.services.terms import Term, base_forms, names_something, question_terms, word_zipf
from tests.search.libraries import library_in_languages

JARGON_LINE = 4.0  # ANSWER_JARGON_MAX_ZIPF

KCORE_TEXT = (
    "O ficheiro /proc/kcore representa a memória física do sistema e parece enorme, mas não ocupa espaço "
    "no disco. O diretório /tmp tem o sticky bit ligado: qualquer utilizador escreve lá, mas só o dono de "
    "um ficheiro o pode apagar. Um utilizador normal chama o comando /sbin/ifconfig pelo caminho completo."
)
KCORE_TEXT_EN = (
    "The file /proc/kcore stands for the physical memory of the system and looks huge, but it takes no "
    "space on the disk. Its size is that of the memory the kernel can address."
)


def _folder(tmp_path: Path, name: str, text: str, language: str) -> Any:
    return library_in_languages(tmp_path, name, [(name, text, language)])


def test_the_words_of_a_file_path_are_marked_with_it() -> None:
    terms = {t.text: t for t in question_terms("O que contém /proc/kcore, ~/.bashrc e /etc/apt/sources.list?", ("pt",))}
    assert (terms["proc"].path, terms["kcore"].path) == ("/proc/kcore", "/proc/kcore")
    assert terms["bashrc"].path == "/.bashrc"  # as the index reads it: from its first "/"
    assert terms["sources.list"].path == "/etc/apt/sources.list"  # the full stop ends the sentence
    # Words joined by a slash after a letter are no path.
    pairs = {t.text: t for t in question_terms("read/write and/or TCP/IP over /tmp/", ("en",))}
    assert (pairs["read"].path, pairs["TCP/IP"].path, pairs["tmp"].path) == ("", "", "/tmp")


@pytest.mark.django_db
def test_a_path_the_library_holds_is_neither_unknown_nor_jargon(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = _folder(tmp_path, "ficheiros", KCORE_TEXT, "pt")
    kcore = retrieve(query="O que contém o ficheiro /proc/kcore e porque é tão grande?", folder_ids=[folder.pk])
    assert (kcore.state, kcore.unknown_names, kcore.missing_terms) == ("answered", [], [])
    tmp = retrieve(query="Que efeito tem o sticky bit num diretório como o /tmp?", folder_ids=[folder.pk])
    assert (tmp.state, tmp.missing_terms) == ("answered", [])
    sbin = retrieve(query="Porque chama um utilizador o ifconfig como /sbin/ifconfig?", folder_ids=[folder.pk])
    assert (sbin.state, sbin.unknown_names) == ("answered", [])
    # A path the library does not hold is judged by its words, as before.
    unheld = retrieve(query="O que contém o ficheiro /proc/kallsyms?", folder_ids=[folder.pk])
    assert (unheld.state, unheld.unknown_names) == ("refused", ["kallsyms"])


LIST_TEXT = (
    "Para pedir ajuda, escreva para a lista info-lilypond@gnu.org; os erros vão para bug-lilypond@gnu.org, "
    "com um exemplo mínimo de poucas linhas."
)


def test_the_words_of_an_email_address_are_marked_with_it() -> None:
    terms = {t.text: t for t in question_terms("Posso escrever para Info-LilyPond@gnu.org ou ler gnu.org?", ("pt",))}
    assert (terms["Info-LilyPond"].path, terms["gnu.org"].path) == ("info-lilypond@gnu.org",) * 2
    # An "@" without a host ("@user") or a name without a dot after it is no address.
    plain = {t.text: t for t in question_terms("What does @user or a@b mean?", ("en",))}
    assert all(t.path == "" for t in plain.values())


@pytest.mark.django_db
def test_an_email_address_the_library_holds_names_nothing_unknown(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = _folder(tmp_path, "contato", LIST_TEXT, "pt")
    held = retrieve(query="Para que serve a lista info-lilypond@gnu.org?", folder_ids=[folder.pk])
    assert (held.state, held.unknown_names, held.missing_terms) == ("answered", [], [])
    # An address the library does not hold is judged by its words, as before.
    unheld = retrieve(query="Para que serve a lista lilypond-devel@gnu.org?", folder_ids=[folder.pk])
    assert (unheld.state, unheld.unknown_names) == ("refused", ["lilypond-devel", "gnu.org"])


@pytest.mark.django_db
def test_a_path_is_held_in_an_english_library_too(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = _folder(tmp_path, "files", KCORE_TEXT_EN, "en")
    result = retrieve(query="Why is /proc/kcore so large?", folder_ids=[folder.pk])
    assert (result.state, result.unknown_names) == ("answered", [])


@pytest.mark.parametrize(
    ("written", "base"),
    [
        ("bloqueá-lo", "bloquear"),  # the pronoun after the verb, its "r" dropped
        ("configurá-lo", "configurar"),
        ("chama-se", "chamar"),
        ("instalei", "instalar"),  # first person of the past
        ("apaguem", "apagar"),  # subjunctive
        ("regravar", "gravar"),  # a repeating prefix
    ],
)
def test_a_portuguese_verb_is_as_common_however_it_is_written(written: str, base: str) -> None:
    assert base in base_forms(written, "pt")
    assert word_zipf(written, "pt") >= word_zipf(base, "pt")


def test_a_verb_with_its_pronoun_is_one_everyday_word_not_a_name() -> None:
    terms = {t.text: t for t in question_terms("há algum ficheiro a bloqueá-lo ou a configurá-lo", ("pt",))}
    for written in ("bloqueá-lo", "configurá-lo"):
        assert not names_something(terms[written])
    assert not terms["bloqueá-lo"].is_jargon(JARGON_LINE)
    # "rede" is no "re" + "de"; English words are read as before.
    assert "de" not in base_forms("rede", "pt")
    assert base_forms("instalei", "en") == base_forms("bloqueá-lo", "en") == ()
    assert names_something(Term("grafana-agent", "word", languages=("en",)))
