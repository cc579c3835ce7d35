"""Help with a question the library cannot read as typed (search/services/query_help.py): a
respelling from the readable library's own words, and the language the library reads; and a
search lists what it found whatever the gate says of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from search.services.query_help import foreign_language, one_edit_away, respelt_query
from search.services.question_reading import question_reading
from search.services.retrieval import retrieve
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory

RAFT_TEXT = (
    "Raft uses a heartbeat mechanism to trigger leader election. When servers start up, they begin as "
    "followers. A follower that hears nothing from a leader for an election timeout becomes a candidate "
    "and asks the other servers to elect it as the new leader of the cluster."
)
HIDDEN_TEXT = "The lighthouse keeper wrote every passing schooner into the harbour ledger."


@pytest.fixture
def library(tmp_path: Path, memoised_pipeline: None) -> tuple[Any, Any]:
    public = FolderFactory(name="Consensus", is_public=True)
    private = FolderFactory(name="Private notes", is_public=False)
    for folder, name, text in ((public, "raft", RAFT_TEXT), (private, "ledger", HIDDEN_TEXT)):
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        ingest_file_inline(path, folder, title=name)
    return public, private


def test_one_edit_away_covers_the_four_kinds_of_slip() -> None:
    near = one_edit_away("leeder")
    assert {"leader", "leder", "leeders", "eleder"} <= near
    assert "leeder" not in near
    assert "electoin" in one_edit_away("election")  # two letters swapped


@pytest.mark.django_db
def test_a_one_letter_misspelling_gets_the_library_word(library: tuple[Any, Any]) -> None:
    public, _private = library
    result = retrieve(query="How does Raft elect a leeder?", folder_ids=[public.pk])
    assert result.suggestion == "How does Raft elect a leader?"
    assert result.language is None
    assert "Check the spelling" in result.message  # the gate still says why; the suggestion says what to try


@pytest.mark.django_db
def test_a_suggestion_comes_only_from_words_the_reader_may_read(library: tuple[Any, Any]) -> None:
    public, private = library
    # "ledger" is one edit from "ledgr", but only the private folder holds it.
    for folder, respelt in ((public, None), (private, "the harbour ledger")):
        configs = question_reading("the harbour ledgr", [folder.pk]).configs
        assert respelt_query("the harbour ledgr", ["ledgr"], [folder.pk], configs) == respelt


@pytest.mark.django_db
def test_every_word_held_asks_for_no_suggestion(library: tuple[Any, Any]) -> None:
    public, _private = library
    result = retrieve(query="How does Raft elect a leader?", folder_ids=[public.pk])
    assert (result.suggestion, result.language) == (None, None)


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("¿Cómo elige Raft a un líder?", "es"),
        ("Wie wählt Raft einen Anführer?", "de"),
        ("How does Raft elect a leeder?", None),
        ("hinted handoff", None),  # too few words to tell
        ("Bigtable tablet server", None),  # the detector is unsure: English names, not French
    ],
)
def test_the_language_of_a_question_is_told_only_when_sure(question: str, language: str | None) -> None:
    assert foreign_language(question) == language


@pytest.mark.django_db
def test_a_question_in_another_language_is_told_which_languages_the_library_holds(library: tuple[Any, Any]) -> None:
    public, _private = library
    result = retrieve(query="¿Cómo elige Raft a un líder?", folder_ids=[public.pk])
    assert result.language == "es"
    assert result.suggestion is None
    assert result.reasons[0] == "other_language"
    assert result.message == "This library holds documents in English; the question reads as Spanish."
    assert "Check the spelling" not in result.message
