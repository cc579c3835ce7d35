"""The answers a reader gets from the real corpus state the fact and quote only prose: Dynamo's hash
function is MD5, PromQL's rate() is defined by its own sentence, the Bitcoin paper's authors are
not answered from its references, MapReduce not from its acknowledgements, and Raft's leader
election without a caption spliced into a sentence."""

from __future__ import annotations

from typing import Any

import pytest

from citations.services.answer import Answer, answer_question
from citations.writers.extractive import quoted_pieces
from evaluation.answers import non_prose_kind
from tests.conftest import dev_reader, ingest_file_inline
from tests.corpus import HOLDOUT_DIR, require_corpus
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]


def non_prose(answer: Answer) -> list[str]:
    hits = {c.n: c.hit for c in answer.citations}
    return [f"{kind}: {piece}" for piece, n in quoted_pieces(answer.parts) if (kind := non_prose_kind(piece, hits[n]))]


def test_dynamo_hash_function_is_stated(dev_corpus: dict[str, Any]) -> None:
    answer = answer_question(user=dev_reader(), question="Which hash function does Dynamo use?")
    assert answer.state != "refused"
    assert "MD5" in answer.text
    assert non_prose(answer) == []


def test_who_wrote_the_bitcoin_paper_is_not_answered_from_its_references(dev_corpus: dict[str, Any]) -> None:
    answer = answer_question(user=dev_reader(), question="Who wrote the Bitcoin paper?")
    assert non_prose(answer) == []
    for entry in ("W. Dai", "References", "Stornetta"):
        assert entry not in answer.text


def test_mapreduce_is_not_answered_from_its_acknowledgements(dev_corpus: dict[str, Any]) -> None:
    answer = answer_question(user=dev_reader(), question="MapReduce")
    assert non_prose(answer) == []
    assert "thank" not in answer.text


def test_raft_leader_election_is_answered_in_prose_without_a_splice(dev_corpus: dict[str, Any]) -> None:
    # The passage of section 5.2 is not among the four the search shows for this question, so the
    # writer cannot quote it; what it quotes is prose about electing a leader, never a caption.
    answer = answer_question(user=dev_reader(), question="How does Raft elect a leader?")
    assert answer.state != "refused"
    assert "elect" in answer.text
    assert non_prose(answer) == []
    assert "fail. most" not in answer.text


def test_promql_rate_is_answered_by_its_definition(db: None, memoised_pipeline: None) -> None:
    require_corpus()
    reader = UserFactory(username="promql-reader")
    folder = FolderFactory(name="PromQL", readers=[reader])
    for name in ("promql-functions.md", "promql-querying-basics.md"):
        ingest_file_inline(HOLDOUT_DIR / name, folder)
    answer = answer_question(user=reader, question="what does the rate() function do in PromQL?")
    assert answer.state != "refused"
    assert "rate(v range-vector) calculates the per-second average rate of increase" in answer.text
    assert non_prose(answer) == []
