"""A question is read in the language it reads as, told among the languages the product reads
(search/services/query_help.py `question_language`): its word checks use that language's word list,
a common word of any language the library holds is never an unknown name, its answer-type rules are
that language's; and a question in a language the library holds no document in is told, in one
sentence, which it holds, while a short or mixed question plausibly in a held language is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from search.services import query_help
from search.services.query_help import foreign_language, language_sentence, question_language
from search.services.retrieval import retrieve
from search.services.terms import (
    Term,
    base_forms,
    dictionary_form,
    names_something,
    question_terms,
    word_list_languages,
    word_zipf,
)
from tests.conftest import bearer
from tests.factories import UserFactory
from tests.search.libraries import MODEL_TEXT, PASSWORD_TEXT, RAFT_TEXT, library_in_languages


@pytest.fixture
def portuguese_library(tmp_path: Path, memoised_pipeline: None) -> Any:
    return library_in_languages(tmp_path, "Manual", [("senhas", PASSWORD_TEXT, "pt"), ("modelo", MODEL_TEXT, "pt")])


@pytest.fixture
def english_and_portuguese(tmp_path: Path, memoised_pipeline: None) -> Any:
    return library_in_languages(tmp_path, "Both", [("raft", RAFT_TEXT, "en"), ("modelo", MODEL_TEXT, "pt")])


@pytest.fixture
def english_library(tmp_path: Path, memoised_pipeline: None) -> Any:
    return library_in_languages(tmp_path, "Consensus", [("raft", RAFT_TEXT, "en")])


def test_a_question_is_read_in_the_held_language_it_reads_as() -> None:
    assert question_language("Como posso mudar a senha do utilizador?", ["en", "pt"]) == "pt"
    assert question_language("How does Raft elect a leader?", ["pt", "en"]) == "en"
    assert question_language("hinted handoff", ["pt", "en"]) == "pt"  # too short to tell: the main one
    assert question_language("hinted handoff", ["pt"]) == "pt"


class _CountedIdentifier:
    """The real detector, recording each text it ranks."""

    def __init__(self, identifier: Any) -> None:
        self.identifier, self.ranked = identifier, list[str]()

    def rank(self, text: str) -> Any:
        self.ranked.append(text)
        return self.identifier.rank(text)


def test_the_detector_ranks_a_question_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counted = _CountedIdentifier(query_help._identifier())
    monkeypatch.setattr(query_help, "_identifier", lambda: counted)
    assert question_language("Como posso mudar a senha do utilizador?", ["en", "pt"]) == "pt"
    assert question_language("Wie funktioniert Bigtable?", ["en", "pt"]) == "de"
    assert question_language("hinted handoff", ["pt", "en"]) == "pt"  # too few words: not ranked
    assert counted.ranked == ["Como posso mudar a senha do utilizador?", "Wie funktioniert Bigtable?"]


def test_a_question_surely_in_a_language_the_library_does_not_hold_reads_as_that_language() -> None:
    assert question_language("Como posso mudar a senha?", ["en"]) == "pt"
    assert question_language("How do I change a user's password?", ["pt"]) == "en"
    assert question_language("Wie funktioniert Bigtable?", ["en", "pt"]) == "de"
    # Names and commands only, or a Portuguese question with English terms: plausibly the held one.
    assert question_language("sudo systemctl restart networking", ["pt"]) == "pt"
    assert question_language("apt-get install --no-install-recommends", ["pt"]) == "pt"
    assert question_language("Como uso o apt-get autoclean com o cron?", ["pt"]) == "pt"


REPO = Path(__file__).resolve().parents[2]
# The dev and consumed evaluation sets of each library language (docs/EVALUATION.md).
TUNING_SETS = {
    "pt": ["eval/debref-pt-dev-*.jsonl", "eval/debref-pt-questions.jsonl", "eval/debref-pt-nearmiss.jsonl",
           "eval/debref-pt-ood.jsonl", "eval/debref-pt-2-*.jsonl", "eval/debref-pt-3-*.jsonl"],
    "en": ["eval/pgmanual-dev-*.jsonl", "eval/pgmanual-2-*.jsonl", "eval/dev-*.jsonl",
           "../shared/corpus/dev-questions.jsonl"],
}  # fmt: skip


def _questions(held: str) -> list[str]:
    paths = sorted({path for pattern in TUNING_SETS[held] for path in REPO.glob(pattern)})
    rows = [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]
    return [q for row in rows for q in (row.get("queries") or [row["query"]])]


@pytest.mark.parametrize("held", sorted(TUNING_SETS))
def test_no_question_of_the_tuning_sets_reads_as_a_language_its_library_does_not_hold(held: str) -> None:
    questions = _questions(held)
    assert len(questions) >= 300  # the sets are there (the home one beside the repository)
    assert [q for q in questions if question_language(q, [held]) != held] == []


def test_a_question_is_foreign_only_when_surely_none_of_the_library_languages() -> None:
    assert foreign_language("¿Cómo elige Raft a un líder?", ["en", "pt"]) == "es"
    assert foreign_language("Como posso mudar a senha?", ["en", "pt"]) is None
    assert foreign_language("Como posso mudar a senha?", ["en"]) == "pt"


def test_the_sentence_names_the_languages_held_in_english() -> None:
    assert (
        language_sentence("es", ["en", "pt"])
        == "This library holds documents in English and Portuguese; the question reads as Spanish."
    )
    assert (
        language_sentence("de", ["pt"]) == "This library holds documents in Portuguese; the question reads as German."
    )


def test_languages_without_a_word_list_are_read_as_english_when_none_has_one() -> None:
    assert word_list_languages(["pt", "xx", "pt", "en"]) == ("pt", "en")
    assert word_list_languages([]) == ("en",)


def test_a_common_word_of_any_held_language_names_nothing() -> None:
    for word in ("senha", "posso", "conexão", "prefixo"):
        assert names_something(Term(word, "word", languages=("en",)))  # read as English only: a name
        assert not names_something(Term(word, "word", languages=("pt",)))
        assert not names_something(Term(word, "word", languages=("en", "pt")))  # an English question too
    assert names_something(Term("dynamodb", "word", languages=("pt", "en")))  # in no vocabulary


def test_the_rare_word_check_uses_the_question_language() -> None:
    terms = {t.text: t for t in question_terms("Como posso mudar a senha?", ("pt", "en"))}
    assert terms["senha"].zipf == pytest.approx(4.34, abs=0.05)
    assert not terms["senha"].is_jargon(4.0)
    english = {t.text: t for t in question_terms("Como posso mudar a senha?")}
    assert english["senha"].is_jargon(4.0)


def test_an_inflected_portuguese_word_is_as_common_as_its_base_form() -> None:
    # wordfreq counts each form apart: a verb's first person or participle is rare, its infinitive not.
    assert "impedir" in base_forms("impeço", "pt")
    assert "guardar" in base_forms("guardados", "pt")
    assert "bola" in base_forms("bolinha", "pt")
    assert "conexão" in base_forms("conexões", "pt")
    assert {"mexer", "email", "incluir", "proteger"} <= {
        *base_forms("mexeu", "pt"),
        *base_forms("emails", "pt"),
        *base_forms("incluída", "pt"),
        *base_forms("protejo", "pt"),
    }
    assert base_forms("pão", "pt") == ()  # too short to be an inflection of anything
    # A dictionary form from the lemmatizer's dictionaries, in any language it has one of: the stem of a
    # verb that changes it ("confiro" → "conferir"), an English inflection ("stored" → "store").
    assert "conferir" in base_forms("confiro", "pt")
    assert base_forms("stored", "en") == ("store",)
    assert base_forms("aws", "en") == ()  # too short: an abbreviation as often as a word ("aw")
    assert dictionary_form("kubernetes", "en") is None  # a name its dictionary does not know
    assert dictionary_form("houses", "xx") is None  # a language it has no dictionary of
    assert word_zipf("impeço", "pt") == pytest.approx(word_zipf("impedir", "pt"))
    terms = {t.text: t for t in question_terms("como impeço um controlador de arrancar sozinho", ("pt",))}
    assert not names_something(terms["impeço"])  # an everyday verb, however rare this form
    caveat = {t.text: t for t in question_terms("Em que ficheiro fica guardado o nome da máquina?", ("pt",))}
    assert not caveat["guardado"].is_jargon(4.0)
    assert names_something(Term("dynamodb", "word", languages=("pt",)))  # no base form makes a name common


@pytest.mark.django_db
def test_a_portuguese_library_does_not_refuse_a_word_it_does_not_use(portuguese_library: Any) -> None:
    result = retrieve(query="Como posso mudar a senha de um utilizador?", folder_ids=[portuguese_library.pk])
    assert (result.question_language, result.languages_held) == ("pt", ["pt"])
    assert result.unknown_names == []
    assert "senha" not in result.missing_terms  # an everyday Portuguese word says nothing of coverage
    assert result.state in {"answered", "caveat"}
    assert result.language is None


@pytest.mark.django_db
def test_a_portuguese_question_gets_the_portuguese_kind_of_fact(portuguese_library: Any) -> None:
    result = retrieve(query="Quantos parâmetros tem o modelo de linguagem?", folder_ids=[portuguese_library.pk])
    assert result.question_language == "pt"
    assert result.answer_type == "count"
    assert result.state != "refused"


@pytest.mark.django_db
def test_a_spanish_question_is_told_the_languages_held_on_the_api_and_the_page(english_and_portuguese: Any) -> None:
    question = "¿Cómo elige Raft a un líder?"
    sentence = "This library holds documents in English and Portuguese; the question reads as Spanish."
    result = retrieve(query=question, folder_ids=[english_and_portuguese.pk])
    assert (result.language, result.reasons[0]) == ("es", "other_language")
    assert result.message.startswith(sentence)
    assert "Check the spelling" not in result.message
    client = Client()
    search = client.get("/api/search", {"q": question}).json()
    assert search["language"] == "es"
    assert search["message"].startswith(sentence)
    headers = bearer(UserFactory())
    answer = client.post("/api/answer", {"question": question}, content_type="application/json", **headers).json()
    assert answer["reasons"][0] == "other_language"
    assert sentence in answer["answer"] or sentence in answer["message"]
    page = client.get("/", {"q": question}).content.decode()
    assert sentence in page
    assert "Check the spelling" not in page


@pytest.mark.django_db
def test_an_english_question_in_a_portuguese_library_is_told_the_language_held(portuguese_library: Any) -> None:
    question = "How do I change the password of a user?"
    result = retrieve(query=question, folder_ids=[portuguese_library.pk])
    assert (result.question_language, result.languages_held, result.language) == ("en", ["pt"], "en")
    assert result.reasons[0] == "other_language"
    assert result.message.startswith("This library holds documents in Portuguese; the question reads as English.")
    assert "Check the spelling" not in result.message
    assert result.suggestion is None
    page = Client().get("/", {"q": question}).content.decode()
    assert "This library holds documents in Portuguese; the question reads as English." in page


@pytest.mark.django_db
def test_a_portuguese_question_in_an_english_library_is_told_the_language_held(english_library: Any) -> None:
    result = retrieve(query="Como é que o Raft escolhe um líder?", folder_ids=[english_library.pk])
    assert (result.question_language, result.language) == ("pt", "pt")
    assert result.reasons[0] == "other_language"
    assert result.message.startswith("This library holds documents in English; the question reads as Portuguese.")


@pytest.mark.django_db
def test_a_library_of_both_languages_reads_each_question_in_its_own(english_and_portuguese: Any) -> None:
    english = retrieve(query="How does Raft elect a leader?", folder_ids=[english_and_portuguese.pk])
    portuguese = retrieve(query="Quantos parâmetros tem o modelo de linguagem?", folder_ids=[english_and_portuguese.pk])
    assert (english.question_language, english.language) == ("en", None)
    assert (portuguese.question_language, portuguese.language) == ("pt", None)
    assert "other_language" not in english.reasons + portuguese.reasons
    assert english.state != "refused"
    assert portuguese.state != "refused"


@pytest.mark.django_db
def test_an_english_misspelling_still_gets_did_you_mean(english_library: Any) -> None:
    result = retrieve(query="How does Raft elect a leeder?", folder_ids=[english_library.pk])
    assert (result.question_language, result.languages_held) == ("en", ["en"])
    assert result.suggestion == "How does Raft elect a leader?"
    assert result.language is None
    assert "Check the spelling" in result.message
