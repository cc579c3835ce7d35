"""The BM25 leg (packed postings summed by a compiled loop) against the oracle (tests/search/bm25_oracle.py).

Same ids, same scores within 1e-6, on the dev questions and on random queries, for several
folder mixes (among them a reader of one small folder of the library), after a re-index and
after deletes. And the packed rows themselves: after ingest, re-index, document and folder
deletion, and two ingests racing for one block, they hold exactly the postings of the stored
chunks — checked against the chunks' own search_vector.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, connections, transaction
from django.db.models import Max

from documents.lexical.blocks import BLOCK_BITS, COMPACT_RECORD
from documents.lexical.index import lexical_index_replace
from documents.lexical.models import FolderLength, LexemeBlock
from documents.lexical.reads import PACKED_SQL
from documents.models import Chunk, Document
from documents.selectors import readable_folder_ids
from documents.services.ingest import document_ingest
from documents.services.library import document_delete, folder_delete
from search.services.bm25_packed import READ_IN_INDEX_ORDER, bm25_packed
from search.services.retrieval import retrieve
from tests.factories import DocumentFactory, FolderFactory
from tests.search.bm25_cases import FILE_NAME_QUESTIONS, assert_same_top, folder_mixes, phrasings, random_queries
from tests.search.bm25_oracle import bm25_oracle, ceiling_oracle, oracle_configs, packed_postings, vector_postings

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]


def test_packed_equals_the_oracle_on_dev_questions_for_every_folder_mix(
    dev_corpus: dict[str, Any], small_folder: Any
) -> None:
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in phrasings():
            for limit in (50, 10, 1):
                assert_same_top(
                    bm25_packed(text, folders, limit, configs=oracle_configs(folders)).hits,
                    bm25_oracle(text, folders, limit),
                    f"{mix} {text}",
                )


def test_the_ceiling_equals_the_oracle_and_no_chunk_reaches_it(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    queries = [*phrasings(), *random_queries(40, seed=29), "the and of", "zzzqx"]
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in queries:
            leg = bm25_packed(text, folders, 5, configs=oracle_configs(folders))
            assert leg.ceiling == pytest.approx(ceiling_oracle(text, folders), rel=1e-9, abs=1e-12), f"{mix} {text}"
            assert all(0 < score < leg.ceiling for _, score in leg.hits), f"{mix} {text}"
            assert (leg.ceiling == 0) == (not leg.hits), f"{mix} {text}"


def test_packed_equals_the_oracle_on_random_queries(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    queries = random_queries(80, seed=23)
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in queries:
            assert_same_top(
                bm25_packed(text, folders, 50, configs=oracle_configs(folders)).hits,
                bm25_oracle(text, folders, 50),
                f"{mix} {text}",
            )


def test_packed_equals_the_oracle_on_file_names_written_inside_paths(
    dev_corpus: dict[str, Any], small_folder: Any
) -> None:
    apt_notes = set(Chunk.objects.filter(document__title="Apt notes").values_list("pk", flat=True))
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in FILE_NAME_QUESTIONS:
            packed = bm25_packed(text, folders, 20, configs=oracle_configs(folders)).hits
            assert_same_top(packed, bm25_oracle(text, folders, 20), f"{mix} {text}")
            if small_folder.pk in folders:
                assert packed[0][0] in apt_notes, f"{mix} {text}"


def test_search_uses_the_packed_leg_and_it_handles_odd_input(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    def retrieved_bm25(text: str, folders: list[int]) -> list[tuple[int, float]]:
        hits = retrieve(query=text, folder_ids=folders, k=20, mode="bm25").hits
        return [(hit.chunk_id, hit.bm25_score or 0.0) for hit in hits]

    folders = readable_folder_ids(AnonymousUser())
    assert folders == [small_folder.pk]
    for text in ["Dynamo MD5 ring key", "replicas quorum vector clocks", "bloom filter runs", "consistency"]:
        want = bm25_oracle(text, folders, 20)
        assert want, text
        assert_same_top(retrieved_bm25(text, folders), want, text)
    for text in ["", "the of and", "'; DROP TABLE x; --", "a & b | !c", "\\x00 zyxwvut"]:
        assert (
            bm25_packed(text, folders, 20, configs=oracle_configs(folders)).hits == bm25_oracle(text, folders, 20) == []
        ), text
    assert bm25_packed("dynamo", [], 20, configs=oracle_configs([])).hits == []


def test_packed_postings_follow_reindex_and_deletes(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    dev = next(iter(dev_corpus.values())).folder_id
    folders = [dev, small_folder.pk]
    assert packed_postings(folders) == vector_postings(folders) != set()
    ring = Document.objects.get(folder=small_folder, title="Ring notes")
    old_chunks = set(Chunk.objects.filter(document=ring).values_list("pk", flat=True))
    document_ingest(ring.pk)  # re-index: new chunk ids, the old ones deleted (trigger) and the new packed
    assert old_chunks.isdisjoint(Chunk.objects.filter(document=ring).values_list("pk", flat=True))
    assert packed_postings(folders) == vector_postings(folders)
    text = "Dynamo MD5 ring quorum replicas bloom"
    assert_same_top(
        bm25_packed(text, folders, 50, configs=oracle_configs(folders)).hits, bm25_oracle(text, folders, 50), text
    )
    document_delete(document=ring)
    assert packed_postings(folders) == vector_postings(folders)
    assert not {p for p in packed_postings(folders) if p[1] in old_chunks}
    assert_same_top(
        bm25_packed(text, folders, 50, configs=oracle_configs(folders)).hits, bm25_oracle(text, folders, 50), text
    )
    folder_delete(folder=small_folder)
    assert packed_postings([small_folder.pk]) == set()
    assert packed_postings([dev]) == vector_postings([dev])
    assert_same_top(
        bm25_packed(text, [dev], 50, configs=oracle_configs([dev])).hits, bm25_oracle(text, [dev], 50), text
    )


TEXTS = {"first": "Gossip spreads membership changes between the ring's nodes.", "second": "Gossip and hinted handoff."}


def _ingest_and_wait(
    title: str, chunk_id: int, folder_id: int, stored: threading.Event, release: threading.Event | None
) -> None:
    """Store one document's chunk and its lexical index; hold the transaction open until released."""
    try:
        with transaction.atomic():
            document = DocumentFactory(folder_id=folder_id, title=title, text=TEXTS[title], chunk_count=1)
            text = TEXTS[title]
            Chunk.objects.create(
                pk=chunk_id, document=document, ordinal=0, content=text, char_start=0, char_end=len(text)
            )
            lexical_index_replace(document.pk)  # waits here while the other writer holds the block
            stored.set()
            if release is not None:
                assert release.wait(30)
    finally:
        connections.close_all()


def waits_for_a_block_lock() -> bool:
    for _ in range(100):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 1100 AND NOT granted"
            )
            row = cursor.fetchone()
        if row and row[0]:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.django_db(transaction=True)
def test_two_ingests_racing_for_one_block_both_end_up_packed(transactional_db: None) -> None:
    folder = FolderFactory(name="Race")
    block = ((Chunk.objects.aggregate(top=Max("pk"))["top"] or 0) >> BLOCK_BITS) + 1
    first_stored, second_stored, release = threading.Event(), threading.Event(), threading.Event()
    args = ("first", (block << BLOCK_BITS) + 7, folder.pk, first_stored, release)
    first = threading.Thread(target=_ingest_and_wait, args=args)
    first.start()
    assert first_stored.wait(30)  # the first holds its block, uncommitted
    args = ("second", (block << BLOCK_BITS) + 8, folder.pk, second_stored, None)
    second = threading.Thread(target=_ingest_and_wait, args=args)
    second.start()
    # The second waits for the block's lock instead of packing the block without the first's chunk.
    assert waits_for_a_block_lock(), "the second writer did not wait for the block"
    assert not second_stored.is_set()
    release.set()
    first.join(30)
    second.join(30)
    assert second_stored.is_set()
    chunk_ids = list(Chunk.objects.filter(document__folder=folder).values_list("pk", flat=True))
    assert {pk >> BLOCK_BITS for pk in chunk_ids} == {block}
    assert {p[1] for p in packed_postings([folder.pk]) if p[2] == "gossip"} == set(chunk_ids)
    assert packed_postings([folder.pk]) == vector_postings([folder.pk])
    assert [pk for pk, _ in bm25_packed("gossip", [folder.pk], 5, configs=oracle_configs([folder.pk])).hits] == [
        pk for pk, _ in bm25_oracle("gossip", [folder.pk], 5)
    ]


def _chunk_in_block(document: Any, chunk_id: int, text: str) -> None:
    Chunk.objects.create(
        pk=chunk_id, document=document, ordinal=chunk_id, content=text, char_start=0, char_end=len(text)
    )


def test_a_block_with_a_very_long_chunk_keeps_wide_records_and_scores_the_same() -> None:
    folder = FolderFactory(name="Long chunks")
    block = ((Chunk.objects.aggregate(top=Max("pk"))["top"] or 0) >> BLOCK_BITS) + 1
    long_text = " ".join(f"term{i}" for i in range(4500)) + " gossip ring"  # 4,502 lexemes: dl needs > 12 bits
    texts = {
        (block << BLOCK_BITS) + 5: long_text,
        (block << BLOCK_BITS) + 6: "Gossip spreads membership changes around the ring.",
        ((block + 1) << BLOCK_BITS) + 1: "gossip " * 1000 + "ring",  # tf capped by tsvector at 255
        ((block + 1) << BLOCK_BITS) + 2: "Hinted handoff keeps writes when a ring node is down.",
    }
    document = DocumentFactory(folder=folder, title="Long", text=long_text, chunk_count=len(texts))
    for chunk_id, text in texts.items():
        _chunk_in_block(document, chunk_id, text)
    lexical_index_replace(document.pk)
    widths = {(row.block, len(row.postings) // row.chunk_count) for row in LexemeBlock.objects.filter(folder=folder)}
    assert widths == {(block, 10), (block + 1, COMPACT_RECORD.itemsize)}
    assert packed_postings([folder.pk]) == vector_postings([folder.pk])
    assert max(p[3] for p in vector_postings([folder.pk])) == 255
    for text in ["gossip ring", "ring node handoff", "term17 gossip", "membership"]:
        assert_same_top(
            bm25_packed(text, [folder.pk], 10, configs=oracle_configs([folder.pk])).hits,
            bm25_oracle(text, [folder.pk], 10),
            text,
        )


def test_packed_rows_up_to_a_page_stay_inline() -> None:
    # Rows of 2-8 KB (most of what a question reads at a million chunks) skip TOAST (search 0007).
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [LexemeBlock._meta.db_table])
        row = cursor.fetchone()
    assert row is not None
    assert "toast_tuple_target=8160" in (row[0] or [])


def test_the_packed_statement_reads_rows_in_index_order_and_no_document(dev_corpus: dict[str, Any]) -> None:
    folders = [next(iter(dev_corpus.values())).folder_id]
    with connection.cursor() as cursor:
        cursor.execute(READ_IN_INDEX_ORDER)  # as bm25_packed does
        # Small table: forbid the full scan to see the plan the index gives (at scale the planner
        # picks the index once bitmap scans are off; BENCHMARKS.md, issue 11, seventh round).
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            "EXPLAIN " + PACKED_SQL,
            {"query": "Dynamo ring replicas quorum", "folders": folders, "configs": oracle_configs(folders)},
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert f"Index Scan using lexeme_block_unique on {LexemeBlock._meta.db_table}" in plan, plan
    assert "Sort" not in plan, plan  # the aggregates' order is the index's order
    assert FolderLength._meta.db_table in plan, plan
    assert "documents_document" not in plan, plan  # N and avgdl from the per-folder rows
