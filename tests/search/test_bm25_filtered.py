"""The BM25 leg under a document filter: both of its paths against each other and the oracle.

A filter allowing few chunks masks the scoring totals to them; one allowing a large share of the
library scores every readable chunk and walks the score order, checking candidates against the
filter in SQL (search/services/bm25_packed.py, `walk_allowed`), and masks after all if the walk
grows too long. Each path is forced here in turn (the cost constants are patched) and must give
the same ids and the same scores as the others — exactly, ties ordered by chunk id — and the
oracle's ranking (tests/search/bm25_oracle.py) of the allowed chunks: for a filter of one
document, about half the documents, all but one, and documents that hold none of the query's
words, with `limit` below and above the number of allowed chunks. The rule that picks the path
is checked with a library's proportions (`walk_round`).
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from documents.lexical.index import lexical_index_replace
from documents.lexical.models import FolderLength
from documents.models import Chunk, Document
from search.services import bm25_packed as leg
from tests.factories import DocumentFactory, FolderFactory
from tests.search.bm25_cases import assert_same_top
from tests.search.bm25_oracle import bm25_oracle, oracle_configs

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

Path = Literal["mask", "walk", "walk, then mask"]

QUERIES = [
    "How does Dynamo use vector clocks to reconcile divergent versions?",
    "leader election randomized timeouts",
    "JSON number grammar",
    "gossip membership ring",  # eight identical chunks in the tie folder: one score, eight ids
    "bloom filter runs handoff",
]

TIE_TEXTS = [
    "Gossip spreads membership changes around the ring.",  # the same in every tie document
    "Gossip and hinted handoff keep writes while a ring node is down.",
    "Bloom filters skip sorted runs that cannot hold the key.",
]


@pytest.fixture
def tie_folder() -> Any:
    """Eight documents of the same three chunks, so equal scores straddle every filter."""
    folder = FolderFactory(name="Ties")
    for n in range(8):
        # Files differ (a folder holds one copy of a file); their chunks do not.
        document = DocumentFactory(folder=folder, title=f"Tie {n}", text=f"{n}: {TIE_TEXTS}", chunk_count=3)
        for ordinal, text in enumerate(TIE_TEXTS):
            Chunk.objects.create(document=document, ordinal=ordinal, content=text, char_start=0, char_end=len(text))
        lexical_index_replace(document.pk)
    return folder


def _filtered(text: str, folders: list[int], limit: int, documents: list[int]) -> list[tuple[int, float]]:
    return leg.bm25_packed(text, folders, limit, documents, _chunks_of(documents), configs=oracle_configs(folders)).hits


def _chunks_of(documents: list[int]) -> int:
    return Chunk.objects.filter(document_id__in=documents).count()


def _forced(monkeypatch: Any, path: Path) -> None:
    """Patch the rule's costs so that `path` runs (whatever the filter's size)."""
    if path == "mask":
        monkeypatch.setattr(leg, "CHECK_COST", 10**12)
    elif path == "walk":
        monkeypatch.setattr(leg, "CHECK_COST", 0)
    else:  # one candidate first, then 4, 16, …: masks once a round would exceed the allowed chunks
        monkeypatch.setattr(leg, "CHECK_COST", 1)
        monkeypatch.setattr(leg, "WALK_MARGIN", 1e-9)


def _path_taken(sql: list[str]) -> Path:
    walked = any("c.id = ANY(" in s for s in sql)  # ALLOWED_AMONG_SQL
    listed = any("int8send(c.id)" in s for s in sql)  # ALLOWED_CHUNKS_SQL
    assert walked or listed, sql
    return "mask" if not walked else "walk, then mask" if listed else "walk"


def _run(
    monkeypatch: Any, path: Path, text: str, folders: list[int], limit: int, documents: list[int]
) -> tuple[list[tuple[int, float]], Path]:
    with monkeypatch.context() as patch:
        _forced(patch, path)
        with CaptureQueriesContext(connection) as queries:
            got = _filtered(text, folders, limit, documents)
    return got, _path_taken([q["sql"] for q in queries.captured_queries])


def _oracle(text: str, folders: list[int], limit: int, documents: list[int]) -> list[tuple[int, float]]:
    """The oracle's full ranking of the readable chunks, then only the allowed ones: its top `limit`."""
    allowed = set(Chunk.objects.filter(document_id__in=documents).values_list("pk", flat=True))
    return [row for row in bm25_oracle(text, folders, 10**6) if row[0] in allowed][:limit]


def _filters(dev_corpus: dict[str, Any], tie_folder: Any) -> dict[str, list[int]]:
    dev = next(iter(dev_corpus.values())).folder_id
    library = list(
        Document.objects.filter(folder_id__in=[dev, tie_folder.pk]).order_by("pk").values_list("pk", flat=True)
    )
    spec = next(d for name, d in dev_corpus.items() if name.startswith("ecma-404-json-spec-2013"))
    dynamo = next(d for name, d in dev_corpus.items() if name.startswith("dynamo-amazon-2007"))
    return {
        "one document": [spec.pk],
        "every second document": library[::2],
        "all but one": [pk for pk in library if pk != dynamo.pk],
        "the tie folder only": list(tie_folder.documents.values_list("pk", flat=True)),
    }


@pytest.mark.parametrize("limit", [1, 5, 20, 5000])
def test_every_path_equals_the_others_and_the_oracle(
    dev_corpus: dict[str, Any], tie_folder: Any, monkeypatch: Any, limit: int
) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id, tie_folder.pk]
    for label, documents in _filters(dev_corpus, tie_folder).items():
        for text in QUERIES:
            case = f"{label}, limit {limit}: {text}"
            masked, taken = _run(monkeypatch, "mask", text, folders, limit, documents)
            assert taken == "mask", case
            walked, taken = _run(monkeypatch, "walk", text, folders, limit, documents)
            assert taken == "walk", case
            assert walked == masked, case  # the same ids, the same floats, in the same order
            short, taken = _run(monkeypatch, "walk, then mask", text, folders, limit, documents)
            assert taken in {"walk", "walk, then mask"}, case  # which one: the next test
            assert short == masked, (case, taken)
            assert_same_top(masked, _oracle(text, folders, limit, documents), case)


def test_the_walk_stops_early_or_masks_after_all(dev_corpus: dict[str, Any], tie_folder: Any, monkeypatch: Any) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id, tie_folder.pk]
    filters = _filters(dev_corpus, tie_folder)
    # Raft's chunks lead and are allowed: five found within the first rounds.
    _, taken = _run(
        monkeypatch, "walk, then mask", "leader election randomized timeouts", folders, 5, filters["all but one"]
    )
    assert taken == "walk"
    # The JSON spec ranks far below Dynamo's chunks: the rounds outgrow its chunks first.
    _, taken = _run(monkeypatch, "walk, then mask", QUERIES[0], folders, 5, filters["one document"])
    assert taken == "walk, then mask"


def test_a_limit_above_the_allowed_chunks_returns_every_matching_allowed_chunk(
    dev_corpus: dict[str, Any], tie_folder: Any, monkeypatch: Any
) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id, tie_folder.pk]
    spec = _filters(dev_corpus, tie_folder)["one document"]
    text = "JSON number grammar"
    holding = _oracle(text, folders, 10**6, spec)
    assert 0 < len(holding) <= _chunks_of(spec) < 5000
    for path in ("mask", "walk", "walk, then mask"):
        got, _ = _run(monkeypatch, path, text, folders, 5000, spec)
        assert [pk for pk, _ in got] == [pk for pk, _ in holding], path


def test_ties_at_the_limit_go_to_the_lower_chunk_ids_of_the_allowed_documents(
    dev_corpus: dict[str, Any], tie_folder: Any, monkeypatch: Any
) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id, tie_folder.pk]
    ties = list(tie_folder.documents.order_by("pk").values_list("pk", flat=True))
    allowed = ties[1::2]  # every second tie document: the tied chunks alternate allowed, not allowed
    tied = list(Chunk.objects.filter(document_id__in=allowed, ordinal=0).order_by("pk").values_list("pk", flat=True))
    for path in ("mask", "walk", "walk, then mask"):
        got, _ = _run(monkeypatch, path, TIE_TEXTS[0], folders, 3, allowed)
        assert [pk for pk, _ in got] == tied[:3], path
        assert len({score for _, score in got}) == 1, path


def test_documents_without_the_query_words_and_an_empty_filter_find_nothing(
    dev_corpus: dict[str, Any], tie_folder: Any, monkeypatch: Any, django_assert_num_queries: Any
) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id, tie_folder.pk]
    ties = list(tie_folder.documents.values_list("pk", flat=True))
    text = "PromQL binary operators vector matching"  # words of the library, none of the tie folder's
    assert bm25_oracle(text, folders, 10) != []
    for path in ("mask", "walk", "walk, then mask"):
        got, taken = _run(monkeypatch, path, text, folders, 20, ties)
        assert got == [], path
        assert taken == path  # the walk checked every scored chunk, or gave up and masked
    configs = oracle_configs(folders)
    with django_assert_num_queries(0):
        assert leg.bm25_packed(text, folders, 20, [], 0, configs=configs).hits == []


def test_the_rule_walks_a_large_share_and_masks_a_small_one() -> None:
    """With 100,000 readable chunks and 50 candidates asked for, as the benchmark's library."""
    folder = FolderFactory(name="Proportions")
    FolderLength.objects.create(folder_id=folder.pk, chunks=100_000, lexemes=3_000_000)
    # Half the library: ~100 candidates hold 50 allowed chunks; 150 checks (with the margin).
    assert leg.walk_round(50, 50_000, [folder.pk]) == 150
    # All but a thousandth: barely more than `limit`.
    assert leg.walk_round(50, 99_900, [folder.pk]) == 76
    # A tenth: 750 checks would cost more than listing 10,000 ids (CHECK_COST each).
    assert leg.walk_round(50, 10_000, [folder.pk]) == 0
    # Every chunk asked for (the result list's full ranking): masks.
    assert leg.walk_round(2**31 - 1, 99_900, [folder.pk]) == 0


def test_a_small_filter_masks_without_asking_for_the_readable_count(django_assert_num_queries: Any) -> None:
    # One document of a thousand (100 chunks): even `limit` checks would cost more than masking.
    with django_assert_num_queries(0):
        assert leg.walk_round(50, 100, [1]) == 0
        assert leg.walk_round(50, 0, [1]) == 0  # unknown size: masks
