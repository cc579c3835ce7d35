"""A name the whole library writes ("LilyPond" in LilyPond's manual) says nothing about which of the
library's things a sentence is about: the Portuguese answer-type check does not demand it in the
sentence that states the fact (search/services/retrieval.py `library_wide_names`,
search/services/answer_type.py `states_fact_beside`). A name few passages hold still must be there."""

from __future__ import annotations

from typing import Any

import pytest

from search.services.answer_type import check_answer_type
from search.services.question_reading import question_reading
from search.services.retrieval import LIBRARY_WIDE_MIN_PASSAGES, library_wide_names, retrieve
from tests.factories import FolderFactory
from tests.search.libraries import document_of_passages

QUESTION = "Quantas linhas de código tem no máximo um exemplo mínimo do LilyPond?"
# The LilyPond web manual's own wording: the sentence with the figure does not repeat the name.
MINIMAL = (
    "Um exemplo mínimo é o menor trecho de código que ainda mostra o problema. "
    "Muito poucos exemplos mínimos excedem 10 linhas de código."
)
ABOUT = [
    "O LilyPond é um programa de gravação musical dedicado a produzir partituras da mais alta qualidade.",
    "O LilyPond lê um arquivo de texto e desenha a partitura com as regras da gravação tradicional.",
    "Com o LilyPond, letras de canções e acordes ficam alinhados às notas sem esforço.",
    "O LilyPond é software livre, distribuído sob a licença GNU GPL, e roda em vários sistemas.",
    "Os manuais do LilyPond explicam a notação, o uso do programa e como estender o LilyPond.",
]
OTHER = [
    "A comunidade responde a perguntas na lista de discussão e no canal de conversas.",
    "Relatórios de erros devem trazer a versão usada e o sistema operacional.",
    "O editor Frescobaldi mostra a partitura ao lado do texto enquanto se escreve.",
    "As notas holandesas usam o sufixo -is para sustenido e -es para bemol.",
    "A documentação é traduzida por voluntários para vários idiomas.",
    "Os exemplos do site mostram música de câmara, orquestra e canto.",
]


@pytest.fixture
def manual(db: Any) -> Any:
    folder = FolderFactory(name="Manual do LilyPond", is_public=True)
    document_of_passages(folder, "manual", [*ABOUT, *OTHER, MINIMAL], "pt")
    return folder


def test_a_library_wide_name_need_not_stand_in_the_sentence_a_rarer_name_must() -> None:
    everywhere = check_answer_type(QUESTION, [MINIMAL], "pt", library_wide=lambda names: frozenset(names))
    assert (everywhere.expected, everywhere.met) == ("count", True)
    nowhere = check_answer_type(QUESTION, [MINIMAL], "pt", library_wide=lambda names: frozenset())
    assert (nowhere.expected, nowhere.met) == ("count", False)
    assert not check_answer_type(QUESTION, [MINIMAL], "pt").met  # not asked: the name must be there


def test_a_sentence_saying_only_the_library_wide_name_is_not_about_the_question() -> None:
    """Any sentence of the manual may say "LilyPond": one with a figure and no other word of the
    question ("Que versão mínima do Windows é suportada pelo LilyPond?") is about something else."""
    question = "Que versão mínima do Windows é suportada pelo LilyPond?"
    other = "O ficheiro pode ser guardado em formato SQL no LilyPond versão 2.4 e posteriores."
    everywhere = check_answer_type(question, [other], "pt", library_wide=lambda names: frozenset(names))
    assert (everywhere.expected, everywhere.met) == ("version", False)
    said = "O LilyPond corre no Windows, na versão 10 ou posterior."
    assert check_answer_type(question, [said], "pt", library_wide=lambda names: frozenset(names)).met


@pytest.mark.django_db
def test_library_wide_names_are_those_in_enough_passages_and_a_fifth_of_them(manual: Any) -> None:
    configs = question_reading(QUESTION, [manual.pk]).configs
    # "lilypond" is in 5 of 12 passages: a large share, but fewer than LIBRARY_WIDE_MIN_PASSAGES.
    assert len(ABOUT) < LIBRARY_WIDE_MIN_PASSAGES
    assert library_wide_names(["lilypond", "frescobaldi"], folder_ids=[manual.pk], configs=configs) == frozenset()
    more = document_of_passages(manual, "mais", [t.replace("O LilyPond", "Hoje o LilyPond") for t in ABOUT], "pt")
    assert more.pk
    found = library_wide_names(["lilypond", "frescobaldi"], folder_ids=[manual.pk], configs=configs)
    assert found == frozenset({"lilypond"})  # 10 of 17 passages; "frescobaldi" is in one


@pytest.mark.django_db
def test_the_search_meets_the_count_in_a_sentence_under_the_library_wide_name(manual: Any, settings: Any) -> None:
    settings.ANSWER_MAX_DISTANCE = 2.0  # one fixed vector for every passage: the words decide
    small = retrieve(query=QUESTION, folder_ids=[manual.pk])
    assert (small.answer_type, small.unmet_answer_type) == ("count", "count")
    document_of_passages(manual, "mais", [t.replace("O LilyPond", "Hoje o LilyPond") for t in ABOUT], "pt")
    wide = retrieve(query=QUESTION, folder_ids=[manual.pk])
    assert (wide.answer_type, wide.unmet_answer_type) == ("count", None)
