"""Identifiers and capitalised names of several words are checked as phrases (issue 27, held-out
OOD): a configuration key or a name the readable library never holds as a phrase refuses the
question, one held but absent from the passages shown gives a caveat (terms.identifier_shape,
terms.name_phrases, terms.term_coverage, retrieval.unseen_terms); question words typed without
their apostrophe ("whats") are neither names nor jargon."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from search.services.question_reading import question_reading
from search.services.retrieval import retrieve, search_chunks, unmentioned_words, unseen_terms
from search.services.terms import Term, TermCoverage, name_phrases, question_terms, term_coverage
from tests.conftest import ingest_text
from tests.factories import FolderFactory, StaffFactory

QUEUE_TEXT = (
    "Each remote write queue batches samples before sending them. The max_samples_per_send setting "
    "caps how many samples one request to the remote endpoint carries."
)
SHARDS_TEXT = (
    "When the remote endpoint is slow, the write queue grows and more shards are started; each shard "
    "sends its own requests, so a slow endpoint is fed by many requests at once."
)
CLIENT_TEXT = "Bitcoin Core is the reference client of the network; its full nodes keep every block."
MINING_TEXT = (
    "Miners collect transactions into a block and search for a nonce whose block hash starts with "
    "enough zero bits; the first transaction of the block pays the miner the reward."
)
TLS_TEXT = "A scrape target read over HTTPS names its client certificate and key in tls_config."


def kinds(query: str, *wanted: str) -> list[str]:
    return [t.text for t in question_terms(query) if t.kind in wanted]


@pytest.mark.parametrize(
    ("query", "identifiers"),
    [
        ("What is the default max_samples_per_send in the queue_config?", ["max_samples_per_send", "queue_config"]),
        ("What is the default value of spark.sql.shuffle.partitions?", ["spark.sql.shuffle.partitions"]),
        ("What is the default --query.timeout of prometheus", ["query.timeout"]),
        ("which --enable-feature flags exist", ["enable-feature"]),  # a flag: typed right after "--"
        ("Q_PROPERTY with a NOTIFY signal", ["Q_PROPERTY"]),
        ("what came in prometheus 3.1, e.g. for v2.55 users", []),  # versions, an abbreviation
        ("a decimal like 4.7 in the U.S. market", []),
        ("a shopping-cart in a well-known store -- the one at the corner", []),  # no "--" right before
        ("maxUnavailable in a RollingUpdate", []),  # camelCase stays a name, checked by its lexeme
    ],
)
def test_identifiers_are_snake_case_dotted_words_and_flags(query: str, identifiers: list[str]) -> None:
    assert kinds(query, "identifier") == identifiers


@pytest.mark.parametrize(
    ("query", "phrases"),
    [
        ("What TCP port does a Bitcoin Core full node listen on?", ["Bitcoin Core"]),
        (
            "Which Bitcoin Improvement Proposal introduced Segregated Witness, and how?",
            ["Bitcoin Improvement Proposal", "Segregated Witness"],
        ),
        ("According to the 1994 Sun Microsystems Laboratories note, why?", ["Sun Microsystems Laboratories"]),
        ("What is Bitcoin Core?", ["Bitcoin Core"]),  # "What" opens the question: not part of the name
        ("Is Bitcoin a currency? Core nodes keep blocks", []),  # sentence starts capitalise by habit
        ("What is the default block size inside a Bigtable SSTable?", []),  # two names, no everyday word
        ("What Is The Default Block Size In Bigtable?", []),  # Title Case: the capitals say nothing
        ("how does Google's File System place chunks", ["File System"]),  # a possessive ends a run
        ("Bitcoin, Core and Witness", []),  # a comma between words ends a run
        ("Whats Bitcoin Core", ["Bitcoin Core"]),
    ],
)
def test_name_phrases_are_capitalised_runs_holding_an_everyday_word(query: str, phrases: list[str]) -> None:
    assert name_phrases(query) == phrases


def test_question_words_without_their_apostrophe_are_not_terms() -> None:
    assert kinds("whats the block reward after the halving", "name", "word", "identifier", "phrase") == [
        "the",
        "block",
        "reward",
        "after",
        "halving",
    ]
    assert kinds("whens the next halving, Whos in charge and hows it done", "name", "word") == [
        "the",
        "next",
        "halving",
        "in",
        "charge",
        "and",
        "it",
        "done",
    ]


def test_absent_identifiers_and_phrases_refuse_and_unseen_ones_caveat() -> None:
    def covered(text: str, kind: str, in_library: bool, in_passages: bool) -> TermCoverage:
        return TermCoverage(Term(text, kind), in_library, in_passages)

    coverage = [
        covered("tls_config", "identifier", False, False),
        covered("Bitcoin", "name", True, True),
        covered("Bitcoin Core", "phrase", False, False),
        covered("Zorblax", "name", False, False),
        covered("Zorblax Ring", "phrase", False, False),  # its word is said already: not twice
        covered("max_samples_per_send", "identifier", True, False),
        covered("Segregated Witness", "phrase", True, False),
        covered("queue_config", "identifier", True, True),
    ]
    assert unmentioned_words(coverage, refuse_names=True) == (["tls_config", "Bitcoin Core", "Zorblax"], [])
    assert unmentioned_words(coverage, refuse_names=False) == ([], ["tls_config", "Bitcoin Core", "Zorblax"])
    assert unseen_terms(coverage) == ["max_samples_per_send", "Segregated Witness"]


@pytest.fixture
def library(tmp_path: Path, memoised_pipeline: None) -> tuple[Any, Any]:
    """A public folder anyone may read, and a private one only staff may read (tls_config)."""
    public = FolderFactory(name="Public notes", is_public=True)
    private = FolderFactory(name="Private notes")
    texts = [
        (public, "queue", QUEUE_TEXT),
        (public, "shards", SHARDS_TEXT),
        (public, "client", CLIENT_TEXT),
        (public, "mining", MINING_TEXT),
        (private, "tls", TLS_TEXT),
    ]
    for folder, title, text in texts:
        ingest_text(tmp_path, folder, title, text)
    return public, private


@pytest.mark.django_db
def test_an_identifier_no_readable_document_holds_refuses(library: tuple[Any, Any]) -> None:
    public, _private = library
    # Every lexeme (max, samples, request) is in the library; the identifier is not.
    result = retrieve(query="what does max_samples_per_request cap in a remote write queue", folder_ids=[public.pk])
    assert (result.state, result.reasons, result.unknown_names) == (
        "refused",
        ["unknown_names"],
        ["max_samples_per_request"],
    )
    assert result.message.startswith("No document you may read mentions 'max_samples_per_request'")


@pytest.mark.django_db
def test_a_held_identifier_is_answered_where_the_passages_show_it(library: tuple[Any, Any], settings: Any) -> None:
    public, _private = library
    settings.ANSWER_TOP_SOURCES = 1
    result = retrieve(query="how many samples does max_samples_per_send let one request carry", folder_ids=[public.pk])
    assert "max_samples_per_send" in result.hits[0].content
    assert (result.state, result.unseen_terms, result.unknown_names, result.missing_terms) == ("answered", [], [], [])


@pytest.mark.django_db
def test_an_identifier_the_passages_shown_lack_gets_a_caveat(library: tuple[Any, Any], settings: Any) -> None:
    public, _private = library
    settings.ANSWER_TOP_SOURCES = 1  # the passage shown first is the one judged
    result = retrieve(
        query="does a slow endpoint make more shards start, whatever max_samples_per_send is",
        folder_ids=[public.pk],
    )
    assert "shards" in result.hits[0].content
    assert (result.state, result.reasons, result.unseen_terms) == (
        "caveat",
        ["unseen_terms"],
        ["max_samples_per_send"],
    )
    assert result.message == (
        "None of the closest passages mentions 'max_samples_per_send'; the passages below are the closest "
        "the library holds."
    )


@pytest.mark.django_db
def test_an_identifier_only_an_unreadable_folder_holds_is_absent(library: tuple[Any, Any]) -> None:
    query = "which client certificate and key does a scrape target name in tls_config"
    anonymous = search_chunks(user=AnonymousUser(), query=query)
    assert (anonymous.state, anonymous.unknown_names) == ("refused", ["tls_config"])
    staff = search_chunks(user=StaffFactory(), query=query)
    assert staff.unknown_names == []
    assert "tls_config" in staff.hits[0].content
    assert staff.state == "answered"


@pytest.mark.django_db
def test_a_name_phrase_is_refused_absent_said_when_elsewhere_and_answered_when_shown(
    library: tuple[Any, Any], settings: Any
) -> None:
    public, _private = library
    settings.ANSWER_TOP_SOURCES = 1
    # "Bitcoin" and "Miner" are each held; "Bitcoin Miner" as a phrase is not.
    absent = retrieve(query="how does a Bitcoin Miner search for a nonce", folder_ids=[public.pk])
    assert (absent.state, absent.unknown_names) == ("refused", ["Bitcoin Miner"])
    elsewhere = retrieve(
        query="which reward does the first transaction of a block pay the miner who found a nonce with Bitcoin Core",
        folder_ids=[public.pk],
    )
    assert "nonce" in elsewhere.hits[0].content  # the mining passage, whose document lacks the name
    assert (elsewhere.state, elsewhere.unseen_terms) == ("caveat", ["Bitcoin Core"])
    shown = retrieve(query="do the full nodes of Bitcoin Core keep every block", folder_ids=[public.pk])
    assert "Bitcoin Core" in shown.hits[0].content
    assert (shown.state, shown.unseen_terms, shown.unknown_names) == ("answered", [], [])


@pytest.mark.django_db
def test_whats_is_neither_a_name_nor_jargon(library: tuple[Any, Any]) -> None:
    public, _private = library
    result = retrieve(query="whats the reward the first transaction of a block pays", folder_ids=[public.pk])
    assert (result.state, result.unknown_names, result.missing_terms) == ("answered", [], [])


@pytest.mark.django_db
def test_identifiers_and_phrases_join_the_one_coverage_query(
    library: tuple[Any, Any], django_assert_num_queries: Any
) -> None:
    public, _private = library
    terms = question_terms("Does Bitcoin Core set max_samples_per_send or tls_config?")
    reading = question_reading("Does Bitcoin Core set max_samples_per_send or tls_config?", [public.pk])
    with django_assert_num_queries(1):
        checked = term_coverage(terms, [public.pk], [], reading.configs, reading.variants)
        coverage = {c.term.text: (c.in_library, c.in_passages) for c in checked}
    assert coverage["Bitcoin Core"] == (True, False)
    assert coverage["max_samples_per_send"] == (True, False)
    assert coverage["tls_config"] == (False, False)  # only the private folder holds it
