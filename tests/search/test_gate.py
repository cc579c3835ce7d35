"""The gate: which words count as names, jargon and years, the SQL coverage check, the one decision
(answered / caveat / refused), permissions, and what the API and page say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from documents.models import Chunk
from search.services.bm25_packed import bm25_packed
from search.services.gate import AnswerState, GateInputs, Reason, decide
from search.services.grouping import group_documents
from search.services.question_reading import question_reading
from search.services.retrieval import retrieve, search_chunks
from search.services.terms import lexical_query, question_terms, spelling_variants, term_coverage
from tests.conftest import bearer, ingest_file_inline
from tests.factories import FolderFactory, StaffFactory, UserFactory

ZORBLAX_TEXT = (
    "The Zorblax ring places every key on a consistent hashing ring. Each key is hashed with MD5 "
    "and stored on the next three nodes clockwise, so adding a node moves only its neighbours' keys."
)
PUBLIC_TEXT = "Consistent hashing places each key on a ring of nodes; a key is stored on the next nodes clockwise."


def named_terms(query: str) -> list[str]:
    return [t.text for t in question_terms(query) if t.kind == "name"]


def unknown_names(query: str, folder_ids: list[int]) -> list[str]:
    # Read as the search reads an English library's question (its documents are English).
    coverage = term_coverage(question_terms(query), folder_ids, [], ["english"], {})
    return [c.term.text for c in coverage if c.term.kind == "name" and not c.in_library]


def jargon(query: str, line: float) -> list[tuple[str, str]]:
    return [(t.text, t.kind) for t in question_terms(query) if t.kind == "year" or t.is_jargon(line)]


def test_capitalised_words_count_only_away_from_the_start_of_a_clause() -> None:
    assert named_terms("How does Kafka order messages?") == ["Kafka"]
    assert named_terms("Kafka orders messages. Which order does Grafana show?") == ["Grafana"]
    assert named_terms("prometheus division: How do I fill gaps") == []
    assert named_terms('He said "Sure" and left') == []


def test_mixed_case_and_letters_with_digits_are_names_anywhere() -> None:
    assert named_terms("maxUnavailable in a RollingUpdate signed with RS256") == [
        "maxUnavailable",
        "RollingUpdate",
        "RS256",
    ]
    assert named_terms("TrueTime timestamps") == ["TrueTime"]
    assert named_terms("after moving to v3 what broke") == ["v3"]


def test_plain_words_numbers_and_repeats_are_not_names() -> None:
    assert named_terms("how do i escape an emoji with backslash-u in 2018 or 99.999") == []
    assert named_terms("does Dynamo use Dynamo hashing") == ["Dynamo"]
    assert named_terms("") == []
    assert named_terms("can I split the input into M pieces") == []
    assert named_terms("a 128-bit key in 64KB blocks at the 99th percentile") == []


def test_the_message_lists_the_missing_names() -> None:
    def message(names: list[str]) -> str:
        return decide(GateInputs(0.2, 0.65, unknown_names=tuple(names))).message

    assert "mentions 'Kafka', so" in message(["Kafka"])
    assert "mentions 'Kafka', 'Grafana' or 'Loki'" in message(["Kafka", "Grafana", "Loki"])


def test_lowercase_jargon_and_years_are_terms_but_common_words_and_small_numbers_are_not() -> None:
    query = "what is the default block size in hdfs 3 since 2018 for spreadsheets"
    # "spreadsheets" (Zipf 2.86 as typed) is as common as its dictionary form "spreadsheet" (3.31).
    assert jargon(query, 3.0) == [("hdfs", "word"), ("2018", "year")]
    assert jargon(query, 3.5) == [("hdfs", "word"), ("2018", "year"), ("spreadsheets", "word")]
    assert jargon("kvm post-copy downtime", 3.0) == [("kvm", "word"), ("post-copy", "word")]  # "postcopy": 0
    assert jargon("a coordinator sends emoji", 3.0) == []
    assert jargon("tidyr or polars", 0.0) == []  # the line is a setting
    # Stop words stay here (the SQL gives them no lexeme); numbers other than years and repeats go.
    assert [t.text for t in question_terms("the 128-bit key in hdfs 3 and HDFS")] == ["the", "key", "in", "hdfs", "and"]
    assert [t.text for t in question_terms("why aren't amazon's keys there")] == ["why", "amazon's", "keys", "there"]


def test_one_decision_orders_refusals_before_caveats() -> None:
    answered = decide(GateInputs(0.3, 0.65))
    assert (answered.state, answered.reasons, answered.message) == (AnswerState.ANSWERED, [], "")
    caveat = decide(GateInputs(0.3, 0.65, missing_terms=("hdfs", "post-copy")))
    assert caveat.state == AnswerState.CAVEAT
    assert caveat.message.startswith("No document you may read mentions 'hdfs' or 'post-copy'; the passages below")
    far = decide(GateInputs(0.7, 0.65, missing_terms=("hdfs",)))
    assert (far.state, far.reasons) == (AnswerState.REFUSED, [Reason.TOO_FAR])
    assert "0.700, above the threshold 0.650" in far.message
    both = decide(GateInputs(0.7, 0.65, unknown_names=("Kafka",)))
    assert both.reasons == [Reason.UNKNOWN_NAMES, Reason.TOO_FAR]
    low = decide(GateInputs(0.3, 0.65, rerank_score=-2.0, rerank_min_score=0.0))
    assert (low.state, low.reasons) == (AnswerState.REFUSED, [Reason.RERANK_LOW])
    assert decide(GateInputs(0.3, 0.65, rerank_score=-2.0)).state == AnswerState.ANSWERED  # no minimum set
    assert decide(GateInputs(None, 0.65)).reasons == [Reason.NOTHING_TO_SEARCH]


@pytest.fixture
def zorblax_folders(tmp_path: Path, memoised_pipeline: None) -> tuple[Any, Any]:
    private = FolderFactory(name="Private ring notes")
    public = FolderFactory(name="Public ring notes", is_public=True)
    for folder, name, text in ((private, "zorblax", ZORBLAX_TEXT), (public, "rings", PUBLIC_TEXT)):
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        ingest_file_inline(path, folder, title=name)
    return private, public


@pytest.mark.django_db
def test_a_name_no_readable_document_mentions_refuses_the_search(zorblax_folders: tuple[Any, Any]) -> None:
    _private, public = zorblax_folders
    query = "How does Zorblax place keys on the consistent hashing ring?"
    assert unknown_names(query, [public.pk]) == ["Zorblax"]
    for mode in ("dense", "bm25", "hybrid"):
        result = retrieve(query=query, folder_ids=[public.pk], mode=mode)
        assert result.best_distance is not None
        assert result.best_distance <= result.threshold
        assert result.refused, mode
        assert result.hits, mode  # listed, but they do not answer: the state says so
        assert result.unknown_names == ["Zorblax"]


@pytest.mark.django_db
def test_a_name_mentioned_only_where_the_caller_cannot_read_is_unknown_to_them(
    zorblax_folders: tuple[Any, Any],
) -> None:
    query = "How does Zorblax place keys on the consistent hashing ring?"
    anonymous = search_chunks(user=AnonymousUser(), query=query)
    assert anonymous.refused
    assert anonymous.unknown_names == ["Zorblax"]
    staff = search_chunks(user=StaffFactory(), query=query)
    assert not staff.refused
    assert staff.unknown_names == []
    assert "Zorblax" in staff.hits[0].content


@pytest.mark.django_db
def test_the_check_can_be_switched_off(zorblax_folders: tuple[Any, Any], settings: Any) -> None:
    settings.ANSWER_REFUSE_UNKNOWN_NAMES = False
    result = retrieve(query="How does Zorblax place keys?", folder_ids=[zorblax_folders[1].pk])
    assert not result.refused
    assert result.unknown_names == []
    assert (result.state, result.missing_terms) == ("caveat", ["Zorblax"])  # still said, no longer refused


@pytest.mark.django_db
def test_unmentioned_jargon_gives_a_caveat_not_a_refusal(zorblax_folders: tuple[Any, Any]) -> None:
    # "emoji" and "spreadsheets" are English words (Zipf 3.2, 2.9), only not the library's.
    query = "how are emoji and spreadsheets placed on the consistent hashing ring"
    result = retrieve(query=query, folder_ids=[zorblax_folders[1].pk])
    assert result.state == "caveat"
    assert not result.refused
    assert result.missing_terms == ["emoji", "spreadsheets"]
    assert result.hits
    assert result.message.startswith("No document you may read mentions 'emoji' or 'spreadsheets'")
    plain = retrieve(query="how are keys placed on the consistent hashing ring", folder_ids=[zorblax_folders[1].pk])
    assert (plain.state, plain.missing_terms, plain.message) == ("answered", [], "")


@pytest.mark.django_db
def test_a_word_spelt_the_british_or_the_american_way_is_held_and_matched_either_way(
    tmp_path: Path, memoised_pipeline: None
) -> None:
    folder = FolderFactory(name="Catalog notes", is_public=True)
    path = tmp_path / "catalog.txt"
    path.write_text("Every flavor of record in the catalog is normalized before the catalog stores it.")
    ingest_file_inline(path, folder, title="catalog")
    assert spelling_variants("flavour", "en") == ("flavor",)
    assert spelling_variants("catalog", "en") == ("catalogue",)
    assert spelling_variants("record", "en") == ()
    british = "which flavour of record does the catalogue keep after normalisation"
    reading = question_reading(british, [folder.pk])
    configs = reading.configs
    checked = term_coverage(question_terms(british), [folder.pk], [], configs, reading.variants)
    held = {c.term.text: c.in_library for c in checked}
    assert (held["flavour"], held["catalogue"], held["normalisation"]) == (True, True, True)
    result = retrieve(query=british, folder_ids=[folder.pk])
    assert (result.state, result.missing_terms) == ("answered", [])
    # A word the library holds in neither spelling is still missing.
    # ("which colour …" would ask for a colour, a kind of fact the passage does not state.)
    unheld = retrieve(query="does the catalogue keep the colour of each record", folder_ids=[folder.pk])
    assert (unheld.state, unheld.missing_terms) == ("answered", [])  # "colour" is an everyday word: not checked
    rare = retrieve(query="which flavour of spreadsheets does the catalogue keep", folder_ids=[folder.pk])
    assert (rare.state, rare.missing_terms) == ("caveat", ["spreadsheets"])
    # The lexical leg and the result list's snippets read the query in either spelling too.
    question = "The Catalogue's flavour, the catalog"
    variants = question_reading(question, [folder.pk]).variants
    assert lexical_query(question, variants) == "The Catalogue's flavour, the catalog flavor"
    assert lexical_query("record keeping", question_reading("record keeping", [folder.pk]).variants) == "record keeping"
    (chunk,) = Chunk.objects.filter(document__folder=folder)
    keywords = lexical_query("catalogue flavour", question_reading("catalogue flavour", [folder.pk]).variants)
    assert [pk for pk, _ in bm25_packed(keywords, [folder.pk], 10, configs=configs).hits] == [chunk.pk]
    assert (
        bm25_packed(keywords, [folder.pk], 10, configs=configs).hits
        == bm25_packed("catalog flavor", [folder.pk], 10, configs=configs).hits
    )
    page = group_documents(query="catalogue flavour", folder_ids=[folder.pk], page=1, page_size=10)
    (passage,) = page.documents[0].passages
    assert {passage.snippet[a:b] for a, b in passage.highlights} == {"flavor", "catalog"}


@pytest.mark.django_db
def test_no_words_and_unreadable_folders_need_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert unknown_names("? 3 + 4 = 7 !", [1]) == []
        assert unknown_names("How does Zorblax work", []) == []


@pytest.mark.django_db
def test_api_search_and_answer_say_which_names_are_missing(zorblax_folders: tuple[Any, Any]) -> None:
    client = Client()
    question = "How does Zorblax place keys on the consistent hashing ring?"
    search = client.get("/api/search", {"q": question}).json()
    assert search["refused"] is True
    assert search["items"]  # the passages holding its other words are listed; `state` says they do not answer
    assert search["unknown_names"] == ["Zorblax"]
    assert search["state"] == "refused"
    assert "mentions 'Zorblax'" in search["message"]
    headers = bearer(UserFactory())  # a reader of the public folder only
    answer = client.post("/api/answer", {"question": question}, content_type="application/json", **headers).json()
    assert answer["refused"] is True
    assert answer["state"] == "refused"
    assert answer["reasons"] == ["unknown_names"]
    assert answer["citations"] == []
    assert answer["unknown_names"] == ["Zorblax"]
    assert answer["answer"].startswith("No answer: No document you may read mentions 'Zorblax'")
    page = client.get("/", {"q": question}).content.decode()
    # Documents match its other words: the refusal is the line above them, not a banner.
    status = page[page.index('id="search-status"') : page.index("</p>", page.index('id="search-status"'))]
    assert "No document you may read mentions &#x27;Zorblax&#x27;" in status
    assert ">No answer<" not in page


def test_no_shared_word_is_too_far_where_the_distance_is_no_evidence() -> None:
    assert decide(GateInputs(0.40, 0.65, words_shared=0)).reasons == [Reason.TOO_FAR]
    assert decide(GateInputs(0.40, 0.65, words_shared=1)).state == AnswerState.ANSWERED
    assert decide(GateInputs(0.40, 0.65)).state == AnswerState.ANSWERED  # None: the encoder reads it
