"""Issue 27, item 1, over the real dev corpus: a question asking for a kind of fact that the passages
shown do not state is answered with a caveat that both APIs and the page report
(`unmet_answer_type`); one whose kind of fact is shown stays answered."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from citations.services.answer import answer_question
from tests.conftest import bearer, dev_reader

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

MONEY_QUESTION = "How much did Amazon spend to build Dynamo?"  # issue 27: Dynamo states no amount of money


def test_a_question_for_money_no_passage_states_gets_a_caveat_everywhere(dev_corpus: dict[str, Any]) -> None:
    reader = dev_reader()
    answer = answer_question(user=reader, question=MONEY_QUESTION)
    assert (answer.state, answer.answer_type, answer.unmet_answer_type) == ("caveat", "money", "money")
    assert "unmet_answer_type" in answer.reasons
    assert answer.message.startswith("The question asks for a price or an amount of money; none of the closest")
    assert answer.citations  # a caveat still shows the passages and a quoted answer

    headers = bearer(reader)
    body = Client().post("/api/answer", {"question": MONEY_QUESTION}, content_type="application/json",
                         **headers).json()  # fmt: skip
    assert (body["state"], body["answer_type"], body["unmet_answer_type"]) == ("caveat", "money", "money")
    assert "unmet_answer_type" in body["reasons"]
    search = Client().get("/api/search", {"q": MONEY_QUESTION}, **headers).json()
    assert (search["state"], search["unmet_answer_type"]) == ("caveat", "money")  # one gate, both APIs

    client = Client()
    client.force_login(reader)
    page = client.get("/", {"q": MONEY_QUESTION}).content.decode()
    assert "The question asks for a price or an amount of money" in page
    assert 'id="detail-unmet-type">a price or an amount of money (<code>money</code>)<' in page


def test_a_question_whose_kind_of_fact_is_shown_stays_answered(dev_corpus: dict[str, Any]) -> None:
    # d004: "typically each block is 64KB in size" is among the passages shown.
    answer = answer_question(user=dev_reader(), question="What is the default block size inside a Bigtable SSTable?")
    assert (answer.state, answer.answer_type, answer.unmet_answer_type) == ("answered", "count", None)
    assert "64KB" in answer.text
