"""The jargon line follows the question's language (`ANSWER_JARGON_LANGUAGE_LINES`, else
`ANSWER_JARGON_MAX_ZIPF`): an everyday Portuguese word form the library does not use ("orador"
3.5, "anotação" 3.0 on wordfreq's scale) is no jargon, while an English word as rare ("emoji"
3.2) still is (search/services/retrieval.py `unmentioned_words`, `_jargon_line`)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from ragsite.env import Env
from search.services.retrieval import unmentioned_words
from search.services.terms import Term, TermCoverage, word_zipf


def absent(word: str, language: str) -> TermCoverage:
    return TermCoverage(Term(word, "word", word_zipf(word, language), (language,)), False, False)


def test_each_language_has_its_own_line(settings: Any) -> None:
    settings.ANSWER_JARGON_MAX_ZIPF, settings.ANSWER_JARGON_LANGUAGE_LINES = 4.0, {"pt": 3.0}
    portuguese = [absent(w, "pt") for w in ("orador", "anotação", "sufixos")]
    assert [round(c.term.zipf, 1) for c in portuguese] == [3.5, 3.0, 2.6]
    assert unmentioned_words(portuguese) == ([], ["sufixos"])  # only the form rarer than 3.0
    english = [absent("emoji", "en"), absent("kvm", "en")]
    assert unmentioned_words(english) == ([], ["emoji", "kvm"])
    # One line for every language, as the evaluation's sweep asks.
    assert unmentioned_words(portuguese, jargon_line=4.0) == ([], ["orador", "anotação", "sufixos"])
    assert unmentioned_words(english, jargon_line=0.0) == ([], [])
    # A language without a line of its own takes the default one.
    settings.ANSWER_JARGON_LANGUAGE_LINES = {}
    assert unmentioned_words(portuguese) == ([], ["orador", "anotação", "sufixos"])


def test_the_lines_are_language_zipf_pairs() -> None:
    assert Env(ANSWER_JARGON_LANGUAGE_LINES="pt=3, ES=3.5").ANSWER_JARGON_LANGUAGE_LINES == {"pt": 3.0, "es": 3.5}
    assert Env(ANSWER_JARGON_LANGUAGE_LINES="").ANSWER_JARGON_LANGUAGE_LINES == {"pt": 3.0}  # unset: the default
    for bad in ("pt", "pt=three", "=3"):
        with pytest.raises(ValidationError, match="language=Zipf pairs"):
            Env(ANSWER_JARGON_LANGUAGE_LINES=bad)
