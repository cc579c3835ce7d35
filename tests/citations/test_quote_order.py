"""Issue 27, item 2, over the real corpora: the extractive writer never quotes a source's sentences
out of the source's order, on any dev or holdout question (quoted stretches' offsets increase
within each source)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citations.markers import Part
from citations.services.answer import Answer, Citation, answer_question
from citations.writers.extractive import quoted_pieces
from tests.citations.fakes import hit
from tests.conftest import dev_reader, embed_memoised
from tests.corpus import dev_questions
from tests.factories import GroupFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

# Every holdout question set in eval/ (holdout-questions*.jsonl): each was written apart.
HOLDOUT_QUESTION_SETS = sorted((Path(__file__).resolve().parents[2] / "eval").glob("holdout-questions*.jsonl"))


def _flat(text: str) -> str:
    return " ".join(text.split())


def out_of_order(answer: Answer) -> list[str]:
    """The quoted stretches that do not come after the previous one of the same source."""
    quotes = {c.n: _flat(c.hit.content) for c in answer.citations}
    reached: dict[int, int] = {}
    wrong = []
    for piece, n in quoted_pieces(answer.parts):
        found = quotes[n].find(_flat(piece), reached.get(n, 0))
        if found < 0:
            wrong.append(f"[{n}] {piece[:80]}")
        else:
            reached[n] = found + len(_flat(piece))
    return wrong


def phrasings(questions: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f"{q['id']}#{i}", text) for q in questions for i, text in enumerate(q["queries"])]


@pytest.fixture
def sentences_embedded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's sentence vectors from the real encoder, each sentence embedded once (`embed_memoised`).

    The phrasings of one question find mostly the same sources, so the writer embeds the same
    sentences for each; as with `memoised_pipeline`'s chunk vectors, a sentence already embedded
    takes the vector the model gave it (in another batch: equal within float rounding)."""
    from documents import embedding

    real = embedding.embed_texts

    def embed_texts(texts: list[str], batch_size: int | None = None) -> Any:
        return embed_memoised(real, texts, batch_size)

    monkeypatch.setattr(embedding, "embed_texts", embed_texts)


def test_extractive_quotes_keep_their_source_order_on_every_dev_and_holdout_question(
    dev_corpus: dict[str, Any], holdout_corpus: dict[str, Any], sentences_embedded_once: None
) -> None:
    holdout_reader = UserFactory(username="holdout-reader")
    holdout_reader.groups.add(GroupFactory(name="holdout-readers"))
    assert len(HOLDOUT_QUESTION_SETS) >= 3
    holdout = [
        json.loads(line) for path in HOLDOUT_QUESTION_SETS for line in path.read_text().splitlines() if line.strip()
    ]
    runs = [(dev_reader(), phrasings(dev_questions())), (holdout_reader, phrasings(holdout))]
    written = 0
    problems: list[str] = []
    for reader, questions in runs:
        for label, text in questions:
            answer = answer_question(user=reader, question=text)
            if answer.refused:
                continue
            assert answer.writer == "extractive"
            written += 1
            problems += [f"{label}: {wrong}" for wrong in out_of_order(answer)]
    assert written >= 300, written  # the gate shows most phrasings of dev and every holdout question set
    assert problems == []


def test_out_of_order_catches_a_reversed_quote() -> None:
    # The check itself: two sentences of one source quoted backwards are reported.
    quote = "First sentence here. Second sentence here."
    citation = Citation(1, hit(1, quote))
    reversed_parts = [Part("Second sentence here."), Part(" … "), Part("First sentence here."), Part(" "),
                      Part.marker(1)]  # fmt: skip
    answer = Answer(question="q", threshold=0.65, best_distance=0.3, parts=reversed_parts, citations=[citation])
    assert out_of_order(answer) == ["[1] First sentence here."]
