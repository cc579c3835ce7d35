"""The default BM25 path (packed postings summed by a compiled loop) against the reference full scan.

Same ids, same scores within 1e-6, on the dev questions and on random queries, for several
folder mixes (among them a reader of one small folder of the library). And the packed rows
themselves: after ingest, re-index, document and folder deletion, and two ingests racing for
one block, they hold exactly the postings of the stored chunks — checked against
search_chunklexeme, which a different statement writes.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, connections, transaction
from django.db.models import Max

from documents.lexical_blocks import BLOCK_BITS, COMPACT_RECORD, postings_decode
from documents.lexical_index import impact_basis_refresh, lexical_index_replace
from documents.models import Chunk, Document
from documents.selectors import readable_folder_ids
from documents.services.ingest import document_ingest
from documents.services.library import document_delete, folder_delete
from search.services.bm25 import bm25_candidates, bm25_reference
from search.services.bm25_packed import PACKED_SQL, READ_IN_INDEX_ORDER, bm25_packed
from tests.factories import DocumentFactory, FolderFactory
from tests.search.bm25_cases import assert_same_top, folder_mixes, phrasings, random_queries

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]


def test_packed_equals_full_scan_on_dev_questions_for_every_folder_mix(
    dev_corpus: dict[str, Any], small_folder: Any
) -> None:
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in phrasings():
            for limit in (50, 10, 1):
                assert_same_top(
                    bm25_packed(text, folders, limit), bm25_reference(text, folders, limit), f"{mix} {text}"
                )


def test_packed_equals_full_scan_on_random_queries(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    queries = random_queries(80, seed=23)
    for mix, folders in folder_mixes(dev_corpus, small_folder).items():
        for text in queries:
            assert_same_top(bm25_packed(text, folders, 50), bm25_reference(text, folders, 50), f"{mix} {text}")


def test_search_uses_the_packed_path_by_default_and_it_handles_odd_input(
    dev_corpus: dict[str, Any], small_folder: Any
) -> None:
    folders = readable_folder_ids(AnonymousUser())
    assert folders == [small_folder.pk]
    for text in ["Dynamo MD5 ring key", "replicas quorum vector clocks", "bloom filter runs", "consistency"]:
        want = bm25_reference(text, folders, 20)
        assert want, text
        assert_same_top(bm25_candidates(text, folders, 20), want, text)
    for text in ["", "the of and", "'; DROP TABLE x; --", "a & b | !c", "\\x00 zyxwvut"]:
        assert bm25_packed(text, folders, 20) == bm25_reference(text, folders, 20) == [], text
    assert bm25_packed("dynamo", [], 20) == []


def postings_in_blocks(folder_ids: list[int]) -> set[tuple[int, int, str, int, int]]:
    """(folder, chunk, lexeme, tf, dl) of every packed posting of these folders, decoded."""
    found = set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT folder_id, block, lexeme, chunk_count, postings FROM search_lexemeblock WHERE folder_id = ANY(%s)",
            [folder_ids],
        )
        for folder_id, block, lexeme, count, postings in cursor.fetchall():
            data = bytes(postings)
            offsets, tfs, lengths = postings_decode(data, np.array([count]), np.array([len(data)]))
            assert len(offsets) == count
            assert list(offsets) == sorted(offsets)
            for offset, tf, dl in zip(offsets.tolist(), tfs.tolist(), lengths.tolist(), strict=True):
                found.add((folder_id, (block << BLOCK_BITS) + offset, lexeme, tf, dl))
    return found


def postings_stored(folder_ids: list[int]) -> set[tuple[int, int, str, int, int]]:
    """The same postings as search_chunklexeme holds them (written by another statement)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT d.folder_id, p.chunk_id, p.lexeme, p.tf, p.dl FROM search_chunklexeme AS p
                 JOIN documents_document AS d ON d.id = p.document_id WHERE d.folder_id = ANY(%s)""",
            [folder_ids],
        )
        return set(cursor.fetchall())


def test_packed_postings_follow_reindex_and_deletes(dev_corpus: dict[str, Any], small_folder: Any) -> None:
    dev = next(iter(dev_corpus.values())).folder_id
    folders = [dev, small_folder.pk]
    assert postings_in_blocks(folders) == postings_stored(folders) != set()
    ring = Document.objects.get(folder=small_folder, title="Ring notes")
    old_chunks = set(Chunk.objects.filter(document=ring).values_list("pk", flat=True))
    document_ingest(ring.pk)  # re-index: new chunk ids, the old ones deleted (trigger) and the new packed
    assert old_chunks.isdisjoint(Chunk.objects.filter(document=ring).values_list("pk", flat=True))
    assert postings_in_blocks(folders) == postings_stored(folders)
    text = "Dynamo MD5 ring quorum replicas bloom"
    assert_same_top(bm25_packed(text, folders, 50), bm25_reference(text, folders, 50), text)
    document_delete(document=ring)
    assert postings_in_blocks(folders) == postings_stored(folders)
    assert not {p for p in postings_in_blocks(folders) if p[1] in old_chunks}
    assert_same_top(bm25_packed(text, folders, 50), bm25_reference(text, folders, 50), text)
    folder_delete(folder=small_folder)
    assert postings_in_blocks([small_folder.pk]) == set()
    assert postings_in_blocks([dev]) == postings_stored([dev])
    assert_same_top(bm25_packed(text, [dev], 50), bm25_reference(text, [dev], 50), text)


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
    impact_basis_refresh()  # so that neither writer waits on creating the impact basis instead
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
    assert {p[1] for p in postings_in_blocks([folder.pk]) if p[2] == "gossip"} == set(chunk_ids)
    assert postings_in_blocks([folder.pk]) == postings_stored([folder.pk])
    assert [pk for pk, _ in bm25_packed("gossip", [folder.pk], 5)] == [
        pk for pk, _ in bm25_reference("gossip", [folder.pk], 5)
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
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT block, octet_length(postings) / chunk_count FROM search_lexemeblock WHERE folder_id = %s",
            [folder.pk],
        )
        widths = set(cursor.fetchall())
    assert widths == {(block, 10), (block + 1, COMPACT_RECORD.itemsize)}
    assert postings_in_blocks([folder.pk]) == postings_stored([folder.pk])
    assert max(p[3] for p in postings_stored([folder.pk])) == 255
    for text in ["gossip ring", "ring node handoff", "term17 gossip", "membership"]:
        assert_same_top(bm25_packed(text, [folder.pk], 10), bm25_reference(text, [folder.pk], 10), text)


def test_packed_rows_up_to_a_page_stay_inline() -> None:
    # Rows of 2-8 KB (most of what a question reads at a million chunks) skip TOAST (search 0007).
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'search_lexemeblock'")
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
        cursor.execute("EXPLAIN " + PACKED_SQL, {"query": "Dynamo ring replicas quorum", "folders": folders})
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan using lexeme_block_unique on search_lexemeblock" in plan, plan
    assert "Sort" not in plan, plan  # the aggregates' order is the index's order
    assert "search_folderlength" in plan, plan
    assert "documents_document" not in plan, plan  # N and avgdl from the per-folder rows
