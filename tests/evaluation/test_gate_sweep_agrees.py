"""The evaluation's gate sweep judges a question with what the live gate got: at the production
threshold and jargon line, `Evidence.inputs` are retrieval's gate inputs, the question's language
and the languages the library holds included. Real PostgreSQL, the real ingest pipeline and encoder."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.runner import _evidence
from search.services.gate import decide
from search.services.retrieval import SearchResult, retrieve
from tests.search.libraries import MODEL_TEXT, RAFT_TEXT, library_in_languages

pytestmark = [pytest.mark.django_db]


def _swept(result: SearchResult) -> tuple[str, list[str], str]:
    decision = decide(_evidence(result).inputs(settings.ANSWER_MAX_DISTANCE))
    return decision.state.value, [r.value for r in decision.reasons], decision.message


@pytest.mark.parametrize(
    ("text", "language", "question"),
    [
        # Told the languages held: the sweep must know the question's language and the library's.
        (RAFT_TEXT, "en", "Como é que o Raft escolhe um novo líder do cluster?"),
        # Asks for an amount of data no passage states: the words it had to stand beside are named.
        (MODEL_TEXT, "pt", "Quantos gigabytes de memória precisa o modelo de linguagem maior?"),
    ],
)
def test_the_sweep_and_the_live_gate_agree_on_a_portuguese_question(
    tmp_path: Path, memoised_pipeline: None, text: str, language: str, question: str
) -> None:
    folder = library_in_languages(tmp_path, "library", [("library", text, language)])
    result = retrieve(query=question, folder_ids=[folder.pk])
    assert result.question_language == "pt"
    assert result.state != "answered"  # a decision with something to say
    assert _swept(result) == (result.state, result.reasons, result.message)
