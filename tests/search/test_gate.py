"""The gate's unknown-names check: which words count as names, the SQL check, permissions, API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from search.services.gate import named_terms, unknown_names, unknown_names_message
from search.services.retrieval import retrieve, search_chunks
from tests.conftest import bearer, ingest_file_inline
from tests.factories import FolderFactory, StaffFactory, UserFactory

ZORBLAX_TEXT = (
    "The Zorblax ring places every key on a consistent hashing ring. Each key is hashed with MD5 "
    "and stored on the next three nodes clockwise, so adding a node moves only its neighbours' keys."
)
PUBLIC_TEXT = "Consistent hashing places each key on a ring of nodes; a key is stored on the next nodes clockwise."


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
    assert "mentions 'Kafka', so" in unknown_names_message(["Kafka"])
    assert "mentions 'Kafka', 'Grafana' or 'Loki'" in unknown_names_message(["Kafka", "Grafana", "Loki"])


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
        assert result.hits == []
        assert result.unknown_names == ["Zorblax"]
    ungated = retrieve(query=query, folder_ids=[public.pk], apply_gate=False)
    assert ungated.refused
    assert ungated.hits


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


@pytest.mark.django_db
def test_stop_words_and_unreadable_folders_need_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert unknown_names("how does it work", [1]) == []
        assert unknown_names("How does Zorblax work", []) == []


@pytest.mark.django_db
def test_api_search_and_answer_say_which_names_are_missing(zorblax_folders: tuple[Any, Any]) -> None:
    client = Client()
    question = "How does Zorblax place keys on the consistent hashing ring?"
    search = client.get("/api/search", {"q": question}).json()
    assert search["refused"] is True
    assert search["results"] == []
    assert search["unknown_names"] == ["Zorblax"]
    assert "mentions 'Zorblax'" in search["message"]
    headers = bearer(UserFactory())  # a reader of the public folder only
    answer = client.post("/api/answer", {"question": question}, content_type="application/json", **headers).json()
    assert answer["refused"] is True
    assert answer["citations"] == []
    assert answer["unknown_names"] == ["Zorblax"]
    assert answer["answer"].startswith("No answer: No document you may read mentions 'Zorblax'")
    page = client.get("/", {"q": question}).content.decode()
    assert 'id="unknown-names"' in page
    assert "<strong>Zorblax</strong>" in page
