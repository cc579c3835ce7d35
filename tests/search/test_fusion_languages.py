"""The dense leg's share follows what the encoder reads: a pure rule (no database), and the
languages it is given — the question's among the library's and the encoder's."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ImproperlyConfigured

from ragsite.env import load_env
from search.services.fusion import (
    KEYWORD_LEADS_SHARE,
    MATCHED_LITTLE,
    MATCHED_MUCH,
    MATCHED_SHARE,
    dense_share,
    is_one_word,
    keyword_match,
    matched_share,
    reads,
    relative_score_fusion,
)

SHARE = 0.7  # SEARCH_DENSE_SHARE's default
LOCAL = ["en"]  # the local MiniLM
MULTILINGUAL = ["en", "pt", "es"]


def share(question: str | None, library: str | None, read: list[str]) -> float:
    return dense_share(question_language=question, library_language=library, encoder_languages=read, share=SHARE)


def test_an_english_question_in_an_english_library_keeps_the_configured_share() -> None:
    assert share("en", "en", LOCAL) == SHARE


@pytest.mark.parametrize("text", ["MD5", "pg_dump", "SHA-256", "  Raft "])
def test_a_one_word_search_is_a_keyword_search(text: str) -> None:
    assert is_one_word(text)
    assert dense_share(question_language="en", library_language="en", encoder_languages=LOCAL, share=SHARE,
                       one_word=is_one_word(text)) == KEYWORD_LEADS_SHARE  # fmt: skip


@pytest.mark.parametrize("text", ["zookeeper throughput", "What is MD5?"])
def test_a_search_of_more_words_keeps_the_configured_share(text: str) -> None:
    assert not is_one_word(text)


def test_an_unknown_language_says_nothing_against_the_encoder() -> None:
    # Short questions and libraries not yet detected keep the configured share.
    assert share(None, None, LOCAL) == SHARE
    assert share(None, "en", LOCAL) == SHARE


@pytest.mark.parametrize(
    ("language", "encoder", "read"),
    [("pt-BR", MULTILINGUAL, True), ("pt_PT", ["PT"], True), ("pt", LOCAL, False), ("en-GB", LOCAL, True),
     ("", LOCAL, False), (None, MULTILINGUAL, False)],
)  # fmt: skip
def test_an_encoder_reads_the_base_languages_of_its_codes(language: str | None, encoder: list[str], read: bool) -> None:
    # The gate's own check (search/services/retrieval.py words_shared, _paraphrase) asks the same question.
    assert reads(language, encoder) is read


@pytest.mark.parametrize(("question", "library"), [("pt", "en"), ("en", "pt"), ("pt", "pt"), ("pt", None)])
def test_portuguese_with_the_local_encoder_puts_the_keyword_leg_in_the_lead(question: str, library: str | None) -> None:
    assert share(question, library, LOCAL) == KEYWORD_LEADS_SHARE < 0.5


@pytest.mark.parametrize(("question", "library"), [("pt", "pt"), ("pt-BR", "pt_PT"), ("en", "pt")])
def test_an_encoder_that_reads_portuguese_keeps_the_configured_share(question: str, library: str) -> None:
    assert share(question, library, MULTILINGUAL) == SHARE
    assert share(question, library, ["EN", "PT"]) == SHARE  # codes are read as tags, in any case


@pytest.mark.parametrize("seed", range(20))
def test_with_the_keyword_leg_leading_bm25_orders_its_candidates_and_the_dense_ones_follow(seed: int) -> None:
    rng = random.Random(seed)
    bm25 = sorted(((pk, rng.uniform(1.0, 20.0)) for pk in range(1, 51)), key=lambda x: -x[1])
    dense = [(pk, rng.uniform(0.2, 0.8)) for pk in rng.sample(range(1, 80), 50)]
    dense.sort(key=lambda x: x[1])
    order = [f.chunk_id for f in relative_score_fusion(dense, bm25, dense_share=KEYWORD_LEADS_SHARE)]
    # BM25's order, whatever the dense leg says; then the chunks only the dense leg lists, nearest first.
    assert order[:50] == [pk for pk, _ in bm25]
    bm25_ids = {pk for pk, _ in bm25}
    dense_only = [pk for pk, _ in dense if pk not in bm25_ids]
    assert [pk for pk in order if pk in dense_only] == dense_only
    assert len(order) == len(bm25_ids | {pk for pk, _ in dense})


def test_the_configured_share_lets_the_dense_leg_lead() -> None:
    bm25 = [(pk, 20.0 - pk * 0.3) for pk in range(1, 51)]
    fused = relative_score_fusion([(999, 0.2), (2, 0.25), (60, 0.7)], bm25, dense_share=SHARE)
    order = [f.chunk_id for f in fused]
    assert order[:2] == [2, 999]  # both legs near their tops, then the nearest passage
    assert order.index(999) < order.index(1)  # the nearest passage, unmatched, before BM25's first


def test_the_share_is_a_fraction_and_the_rank_fusion_settings_stop_start_up() -> None:
    assert load_env({"SEARCH_DENSE_SHARE": "0.55"}).SEARCH_DENSE_SHARE == 0.55
    with pytest.raises(ImproperlyConfigured, match="SEARCH_DENSE_SHARE"):
        load_env({"SEARCH_DENSE_SHARE": "1.5"})
    for retired in ("SEARCH_RRF_K", "SEARCH_BM25_WEIGHT"):  # set, they would silently change nothing
        with pytest.raises(ImproperlyConfigured, match=f"{retired} is no longer read.*SEARCH_DENSE_SHARE"):
            load_env({retired: "10"})


def test_the_keyword_match_is_the_best_score_over_the_ceiling() -> None:
    assert keyword_match([(7, 3.0), (9, 1.0)], 12.0) == 0.25
    assert keyword_match([], 12.0) == 0.0  # the leg found nothing
    assert keyword_match([(7, 3.0)], 0.0) == 0.0  # no lexeme of the question in scope


@pytest.mark.parametrize("match", [0.0, 0.1, MATCHED_LITTLE])
def test_a_question_the_keyword_leg_matches_little_keeps_the_configured_share(match: float) -> None:
    assert matched_share(SHARE, match) == SHARE
    assert dense_share(question_language="en", library_language="en", encoder_languages=LOCAL, share=SHARE,
                       keyword_match=match) == SHARE  # fmt: skip


@pytest.mark.parametrize("match", [MATCHED_MUCH, 0.8, 1.0])
def test_a_question_the_keyword_leg_matches_much_gives_bm25_the_lead(match: float) -> None:
    assert matched_share(SHARE, match) == MATCHED_SHARE


def test_between_the_share_falls_in_a_straight_line() -> None:
    middle = (MATCHED_LITTLE + MATCHED_MUCH) / 2
    assert matched_share(SHARE, middle) == pytest.approx((SHARE + MATCHED_SHARE) / 2)
    steps = [MATCHED_LITTLE + i * (MATCHED_MUCH - MATCHED_LITTLE) / 10 for i in range(11)]
    shares = [matched_share(SHARE, m) for m in steps]
    assert shares == sorted(shares, reverse=True)


def test_a_configured_share_below_the_least_is_kept() -> None:
    assert matched_share(0.1, 1.0) == 0.1
    assert matched_share(0.0, 0.0) == 0.0


def test_the_keyword_leg_leads_an_unread_language_whatever_the_match() -> None:
    for match in (0.0, 0.4, 1.0):
        assert dense_share(question_language="pt", library_language="pt", encoder_languages=LOCAL, share=SHARE,
                           keyword_match=match) == KEYWORD_LEADS_SHARE  # fmt: skip
