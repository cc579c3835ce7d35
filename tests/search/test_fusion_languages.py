"""The fusion weights follow what the encoder reads: a pure rule (no database), and the languages it
is given — the question's among the library's and the encoder's."""

from __future__ import annotations

import pytest

from search.services.fusion import KEYWORD_LEADS_WEIGHTS, leg_weights, reciprocal_rank_fusion

TODAY = (1.0, 0.5)  # the production weights: dense 1.0, BM25 SEARCH_BM25_WEIGHT
LOCAL = ["en"]  # the local MiniLM
MULTILINGUAL = ["en", "pt", "es"]


def weights(question: str | None, library: str | None, read: list[str]) -> tuple[float, float]:
    return leg_weights(question_language=question, library_language=library, encoder_languages=read, bm25_weight=0.5)


def test_an_english_question_in_an_english_library_keeps_todays_weights_exactly() -> None:
    assert weights("en", "en", LOCAL) == TODAY


def test_an_unknown_language_says_nothing_against_the_encoder() -> None:
    # Short questions and libraries not yet detected keep today's weights.
    assert weights(None, None, LOCAL) == TODAY
    assert weights(None, "en", LOCAL) == TODAY


@pytest.mark.parametrize(("question", "library"), [("pt", "en"), ("en", "pt"), ("pt", "pt"), ("pt", None)])
def test_portuguese_with_the_local_encoder_puts_the_keyword_leg_in_the_lead(question: str, library: str | None) -> None:
    dense, bm25 = weights(question, library, LOCAL)
    assert (dense, bm25) == KEYWORD_LEADS_WEIGHTS
    assert bm25 > dense


@pytest.mark.parametrize(("question", "library"), [("pt", "pt"), ("pt-BR", "pt_PT"), ("en", "pt")])
def test_an_encoder_that_reads_portuguese_keeps_todays_weights(question: str, library: str) -> None:
    assert weights(question, library, MULTILINGUAL) == TODAY
    assert weights(question, library, ["EN", "PT"]) == TODAY  # codes are read as tags, in any case


def test_with_the_keyword_leg_leading_a_dense_only_hit_follows_every_bm25_hit() -> None:
    bm25 = list(range(1, 51))  # a full BM25 leg (SEARCH_CANDIDATES_PER_LEG)
    fused = reciprocal_rank_fusion([[999, 2], bm25], k=10, weights=KEYWORD_LEADS_WEIGHTS)
    order = [f.chunk_id for f in fused]
    assert order[-1] == 999
    assert order[:9] == list(range(1, 10))  # BM25's first nine keep their order, whatever the dense leg says
    for dense_first in range(2, 10):
        kept = reciprocal_rank_fusion([[dense_first], bm25], k=10, weights=KEYWORD_LEADS_WEIGHTS)
        assert [f.chunk_id for f in kept][:9] == list(range(1, 10))
    lifted = reciprocal_rank_fusion([[10], bm25], k=10, weights=KEYWORD_LEADS_WEIGHTS)
    assert [f.chunk_id for f in lifted][8:11] == [10, 9, 11]  # its tail: the tenth one place, never two


def test_todays_weights_let_the_dense_leg_lead() -> None:
    fused = reciprocal_rank_fusion([[999, 2], list(range(1, 51))], k=10, weights=TODAY)
    assert [f.chunk_id for f in fused][:2] == [2, 999]
