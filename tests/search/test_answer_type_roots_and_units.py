"""The answer-type check on manuals' wordings (change 69): a key word meets a sentence's word of the
same root ("evaluate", "evaluation"), "the number of X" says what a bare number further on counts, a
duration's unit may be written once apart from its figure, releases are written in the plural, and "how
long" with a length named asks for a length. The sentences are the manuals' own (Prometheus, Apache
httpd, zsh, R, ImageMagick); each rule is checked against the wording it must not let pass."""

from __future__ import annotations

import pytest

from search.services.answer_type import AnswerType, _same_root, check_answer_type, expected_type

RULE_EVALUATIONS = (
    "The number of concurrent rule evaluations can be configured with --rules.max-concurrent-evals, "
    "which is set to 4 by default."
)
SSL_SESSION_ENTRY = (
    "Description: | Number of seconds before an SSL session expires in the Session Cache\n"
    "Syntax: | SSLSessionCacheTimeout seconds\n"
    "Default: | SSLSessionCacheTimeout 300\n"
    "Context: | server config, virtual host"
)
STATA = "Files from versions 5 up to 12 of Stata can be read and written by functions read.dta and write.dta."
EPIINFO = "EpiInfo versions 5 and 6 stored data in a self-describing fixed-width text format."


def stated(question: str, passage: str) -> str | None:
    return check_answer_type(question, [passage]).stated_by


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("evaluate", "evaluation", True),
        ("mencionou", "mencionado", True),
        ("configur", "configuration", True),
        ("interval", "interface", False),  # five letters shared
        ("compile", "complete", False),
        ("replicat", "replica", True),
        ("evaluat", "evaluator", True),
        ("evaluate", "eval", False),  # too short a root to share
    ],
)
def test_two_words_share_a_root_on_seven_letters_and_all_but_two_of_the_shorter(
    one: str, other: str, same: bool
) -> None:
    assert _same_root(one, other) is same
    assert _same_root(other, one) is same


def test_a_number_counts_what_the_number_of_before_it_names() -> None:
    question = "how many rules can prometheus evaluate at the same time by default"
    assert expected_type(question) == AnswerType.COUNT
    # "rule evaluations": the counted noun in the singular, as a modifier; "evaluate" meets "evaluations".
    assert stated(question, RULE_EVALUATIONS) == RULE_EVALUATIONS


def test_the_number_of_something_else_counts_nothing_asked() -> None:
    other = (
        "The number of concurrent query evaluations can be configured with --query.max-concurrency, "
        "which is set to 20 by default."
    )
    assert stated("how many rules can prometheus evaluate at the same time by default", other) is None


def test_a_words_root_alone_does_not_make_a_sentence_about_the_question() -> None:
    # "evaluations" shares the root of "evaluate", but the sentence names no rule and counts queries.
    sentence = "Query evaluations time out after 2 minutes by default."
    assert stated("how long can a rule evaluation take at most", sentence) is None


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        (
            "how long is a saved https session reused before the browser must do the full handshake again",
            SSL_SESSION_ENTRY,
        ),
        (
            "how long a pause in the replies does the tcp helper wait for before giving me my prompt back",
            "While data is arriving at least every $TCP_TIMEOUT (default 0.3) seconds, data is handled and "
            "printed out according to the current settings; a pause in the replies ends it.",
        ),
    ],
)
def test_a_durations_unit_written_apart_from_its_figure_states_a_duration(question: str, passage: str) -> None:
    assert expected_type(question) == AnswerType.DURATION
    assert stated(question, passage) is not None


def test_a_date_after_a_number_of_seconds_is_no_duration() -> None:
    sentence = (
        "SOURCE_DATE_EPOCH | A UNIX timestamp, defined as the number of seconds, excluding leap seconds, "
        "since 01 Jan 1970 00:00:00 UTC."
    )
    assert stated("how many seconds does the timestamp of SOURCE_DATE_EPOCH wait", sentence) is None


def test_releases_in_the_plural_answer_which_versions_of_the_name_asked() -> None:
    assert stated("Which Stata versions' .dta files can read.dta and write.dta handle?", STATA) == STATA
    assert stated("which releases of that other stats package can read.dta open and save files for", STATA) == STATA


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("Which SPSS versions' .sav files can read.spss read and write?", STATA),
        ("Which version of the SAS transport format, 5 or 8, stored data in a fixed-width text format?", EPIINFO),
    ],
)
def test_releases_of_another_name_answer_nothing(question: str, sentence: str) -> None:
    assert stated(question, sentence) is None


def test_how_long_with_a_length_named_asks_for_a_length() -> None:
    question = "how long can i make a varchar column's length limit at most"
    assert expected_type(question) == AnswerType.COUNT
    assert expected_type("how long does a standby wait before trying again") == AnswerType.DURATION
