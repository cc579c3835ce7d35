"""A reader's everyday word the library lacks is no jargon where the encoder reads the question's
language: "shrink" is English's own word (search/services/terms.py `own_language_word`), "regex" a
term the world shares. Where the encoder does not read the language, the question's words are all
the evidence there is, and the caveat stays. The text is the PostgreSQL 15 manual's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from search.services.retrieval import retrieve
from search.services.terms import Term, own_language_word
from tests.conftest import ingest_text
from tests.factories import FolderFactory

VACUUM_TEXT = (
    "VACUUM FULL rewrites the entire contents of the table into a new disk file with no extra space, "
    "allowing unused space to be returned to the operating system. This form is much slower and requires "
    "an ACCESS EXCLUSIVE lock on each table while it is being processed."
)


@pytest.mark.parametrize(
    ("word", "language", "own"),
    [
        ("shrink", "en", True),
        ("squiggle", "en", True),
        ("scrambled", "en", True),
        ("textão", "pt", True),
        # Terms and names many languages use about as often.
        ("regex", "en", False),
        ("docker", "en", False),
        ("timeout", "en", False),
        ("kafka", "en", False),
        ("cassandra's", "en", False),
        # A language without a large reference list is not judged.
        ("shrink", "sv", False),
    ],
)
def test_an_everyday_word_is_far_commoner_in_its_own_language(word: str, language: str, own: bool) -> None:
    assert own_language_word(Term(word, "word", languages=(language,))) is own


def test_only_words_are_judged() -> None:
    assert own_language_word(Term("Shrink", "name")) is False


@pytest.fixture
def manual(tmp_path: Path, memoised_pipeline: None) -> int:
    folder = FolderFactory(name="postgresql manual", is_public=True)
    ingest_text(tmp_path, folder, "vacuum", VACUUM_TEXT)
    return int(folder.pk)


@pytest.mark.django_db
def test_a_paraphrase_in_a_language_the_encoder_reads_gets_no_caveat(manual: int) -> None:
    result = retrieve(query="how do I shrink a table file on disk?", folder_ids=[manual])
    assert "shrink" not in result.missing_terms
    # A term of art the library lacks still does.
    jargon = retrieve(query="does vacuum full have a timeout for the lock?", folder_ids=[manual])
    assert "timeout" in jargon.missing_terms


@pytest.mark.django_db
def test_where_the_encoder_does_not_read_the_language_the_word_is_evidence(manual: int, settings: Any) -> None:
    settings.EMBEDDING_LANGUAGES = ["pt"]
    result = retrieve(query="how do I shrink a table file on disk?", folder_ids=[manual])
    assert "shrink" in result.missing_terms
