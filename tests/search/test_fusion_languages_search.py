"""A Portuguese question in a library that holds Portuguese, with the local (English) encoder: the
keyword leg leads the fusion and the passage that answers ranks first. Real PostgreSQL, the real
ingest pipeline and encoder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from documents.models import Document
from search.services.bm25_packed import bm25_packed
from search.services.fusion import KEYWORD_LEADS_SHARE, MATCHED_SHARE, keyword_match, search_dense_share
from search.services.question_reading import question_reading
from search.services.retrieval import EVERYDAY_WORD_ZIPF, SearchResult, retrieve, subject_unheld, words_shared
from search.services.terms import Term, TermCoverage, lexical_query
from tests.conftest import ingest_text

pytestmark = [pytest.mark.django_db]

QUESTION = "onde está guardado o nome do computador?"
ANSWER = "/etc/hostname"

# Passages on neighbouring subjects (written for this test, in the Debian Reference's manner): an
# encoder that reads English places them all close to the question.
PASSAGES = {
    "Nome da máquina": (
        "O kernel mantém o nome-de-máquina do sistema. A unidade systemd-hostnamed.service define o nome "
        "durante o arranque ao nome armazenado em /etc/hostname. Este ficheiro contém apenas o nome e não um "
        "nome de domínio totalmente qualificado."
    ),
    "Sistemas de ficheiros": (
        "As opções de montagem dos sistemas de ficheiros de discos normais e de rede são definidas em /etc/fstab. "
        "A configuração do sistema de ficheiros encriptado fica guardada em /etc/crypttab."
    ),
    "Interfaces de rede": (
        "As interfaces de rede são iniciadas pelo networking.service para a interface lo e pelo "
        "NetworkManager.service para as outras interfaces da máquina."
    ),
    "Mensagens do sistema": (
        "O serviço systemd-journald guarda as mensagens do kernel e do sistema num ficheiro binário em "
        "/var/log/journal, lido com o comando journalctl."
    ),
    "Módulos do kernel": (
        "Os módulos do kernel que devem ser carregados no arranque da máquina são listados no ficheiro "
        "/etc/modules; a lista negra fica em /etc/modprobe.d/blacklist."
    ),
    "Locale": (
        "O locale predefinido do sistema é guardado no ficheiro /etc/default/locale, criado pelo "
        "dpkg-reconfigure locales, e pode ser substituído pela configuração do ambiente gráfico."
    ),
}


def share_for(question: str, folder_ids: list[int]) -> float:
    """The dense leg's share in the fusion of a hybrid search of `question` in `folder_ids`."""
    reading = question_reading(question, folder_ids)
    leg = bm25_packed(lexical_query(question, reading.variants), folder_ids, 50, configs=reading.configs)
    match = keyword_match(leg.hits, leg.ceiling)
    return search_dense_share(question, reading.language, reading.languages_held, match)


@pytest.fixture
def portuguese_library(tmp_path: Path, folder_factory: Any, memoised_pipeline: None) -> Any:
    folder = folder_factory()
    for title, text in PASSAGES.items():
        ingest_text(tmp_path, folder, title, text)
    # The library's language, as detection at ingest stores it.
    Document.objects.filter(folder=folder).update(language="pt")
    return folder


def test_a_portuguese_question_is_ranked_with_the_keyword_leg_leading(portuguese_library: Any) -> None:
    folder_ids = [portuguese_library.pk]
    assert share_for(QUESTION, folder_ids) == KEYWORD_LEADS_SHARE
    first = retrieve(query=QUESTION, folder_ids=folder_ids, k=5, mode="hybrid").hits[0]
    assert ANSWER in first.content
    assert first.bm25_rank == 1
    assert first.dense_rank != 1  # the English encoder puts another passage nearest


def test_an_encoder_that_reads_portuguese_gives_the_dense_leg_its_share(portuguese_library: Any, settings: Any) -> None:
    settings.EMBEDDING_LANGUAGES = ["en", "pt"]
    folder_ids = [portuguese_library.pk]
    # The question's words are the passage's own: the keyword leg's match lowers the share to the least.
    assert share_for(QUESTION, folder_ids) == MATCHED_SHARE > KEYWORD_LEADS_SHARE
    # A reader's own words match less of any passage: the dense leg counts more.
    plain = "em que sítio fica escrito como se chama a minha máquina?"
    assert MATCHED_SHARE < share_for(plain, folder_ids) < settings.SEARCH_DENSE_SHARE


FAR_QUESTION = "Como se faz um bolo de chocolate em casa?"  # no word of the library's, no name


def test_a_question_the_encoder_cannot_read_and_no_top_passage_shares_a_word_with_is_refused(
    portuguese_library: Any, settings: Any
) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.70  # the English encoder puts this one at 0.68: let the distance pass it
    folder_ids = [portuguese_library.pk]
    far = retrieve(query=FAR_QUESTION, folder_ids=folder_ids, k=5)
    assert far.best_distance is not None
    assert far.best_distance <= far.threshold  # the distance alone lets it by
    assert words_shared(far) == 0
    assert far.state == "refused"
    assert far.reasons[0] == "too_far"
    held = retrieve(query=QUESTION, folder_ids=folder_ids, k=5)
    assert held.state != "refused"


def test_the_shared_words_stand_in_for_the_distance_only_where_the_encoder_cannot_read(
    portuguese_library: Any, settings: Any
) -> None:
    settings.EMBEDDING_LANGUAGES = ["en", "pt"]
    settings.ANSWER_MAX_DISTANCE = 0.70
    result = retrieve(query=FAR_QUESTION, folder_ids=[portuguese_library.pk], k=5)
    assert words_shared(result) is None  # the encoder reads Portuguese: its distance decides
    assert result.best_distance is not None
    assert result.best_distance <= result.threshold
    assert "too_far" not in result.reasons


# Shares with the library only everyday words ("pode", "ficar"): they are in any Portuguese text.
EVERYDAY_QUESTION = "Pode um bolo de chocolate ficar fora do frigorífico?"


def test_top_passages_sharing_only_everyday_words_with_a_question_the_encoder_cannot_read_are_too_far(
    portuguese_library: Any, settings: Any
) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.70  # let the distance pass both questions: the shared words decide
    far = too_far_beside_a_held_question(EVERYDAY_QUESTION, [portuguese_library.pk])
    shared = [c.term.text for c in far.coverage if c.in_passages and c.term.kind != "phrase"]
    assert shared  # the top passages hold some of its words ...
    assert all(c.term.zipf >= EVERYDAY_WORD_ZIPF for c in far.coverage if c.in_passages)  # ... everyday ones


def too_far_beside_a_held_question(question: str, folder_ids: list[int]) -> SearchResult:
    """`question`'s search, refused as too far with no word shared, while `QUESTION`'s is not: its
    words ("guardado"; "computador" is in no passage) are the library's subject."""
    far = retrieve(query=question, folder_ids=folder_ids, k=5)
    assert words_shared(far) == 0
    assert far.state == "refused"
    assert far.reasons[0] == "too_far"
    held = retrieve(query=QUESTION, folder_ids=folder_ids, k=5)
    assert words_shared(held)
    assert held.state != "refused"
    return far


def test_an_english_question_is_not_judged_by_shared_words(
    tmp_path: Path, folder_factory: Any, memoised_pipeline: None, settings: Any
) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.95  # the English encoder puts it at 0.93: let the distance pass it
    folder = folder_factory()
    ingest_text(
        tmp_path, folder, "Hostname", "The kernel keeps the system hostname; it can be read from /etc/hostname."
    )
    Document.objects.filter(folder=folder).update(language="en")
    # Shares only the everyday "can" with the passage: for English the encoder's distance decides.
    result = retrieve(query="How long can a chocolate cake stay out of the fridge?", folder_ids=[folder.pk], k=5)
    assert result.question_language == "en"
    assert words_shared(result) is None
    assert "too_far" not in result.reasons


# Its most specific word ("adega") is in no document of the library; it shares one other ("guarda").
UNHELD_QUESTION = "Como se guarda o vinho numa adega?"


def test_one_shared_word_beside_a_subject_the_library_never_names_is_too_far(
    portuguese_library: Any, settings: Any
) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.95  # let the distance pass both questions: the shared words decide
    far = too_far_beside_a_held_question(UNHELD_QUESTION, [portuguese_library.pk])
    subject = [c for c in far.coverage if c.term.kind != "phrase" and c.term.zipf < EVERYDAY_WORD_ZIPF]
    rarest = min(subject, key=lambda c: c.term.zipf)
    assert not rarest.in_library  # the library never names what it is about ...
    assert [c.term.text for c in subject if c.in_passages] == ["guarda"]  # ... and shares one word
    assert subject_unheld(subject)


def _coverage(text: str, zipf: float, in_library: bool, in_passages: bool) -> TermCoverage:
    return TermCoverage(Term(text, "word", zipf, ("pt",)), in_library, in_passages)


def test_a_held_word_about_as_specific_as_the_missing_one_keeps_the_question() -> None:
    """The words of three questions as the library's coverage check saw them: one common word held
    beside a missing subject does not hold the question; a word about as rare as the missing one, or
    two words the library holds, do."""
    bones = [_coverage("ossos", 4.18, False, False), _coverage("corpo", 5.4, False, False)]
    assert subject_unheld([*bones, _coverage("humano", 5.01, True, True)])
    dollar = [_coverage("dólar", 4.17, False, False), _coverage("senha", 4.34, False, False)]
    assert not subject_unheld([*dollar, _coverage("guardada", 4.41, True, True)])
    order = [_coverage("alfabética", 3.28, False, False), _coverage("língua", 5.25, False, False)]
    assert not subject_unheld([*order, _coverage("ordem", 5.21, True, False), _coverage("muda", 5.2, True, True)])
