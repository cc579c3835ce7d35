"""The BM25 leg on a second connection beside the dense leg: same results, own connection, errors kept."""

from __future__ import annotations

import threading
import time
from concurrent.futures import CancelledError, wait
from pathlib import Path
from typing import Any

import pytest
from django.db import DataError, connection, transaction
from django.test import override_settings

from search.services.retrieval import retrieve
from search.services.side_leg import close_side_connections, leg_beside
from tests.conftest import ingest_text
from tests.factories import FolderFactory

pytestmark = [pytest.mark.django_db(transaction=True)]

TEXTS = {
    "Dynamo ring": "Dynamo hashes every key with MD5 to place it on a ring of storage nodes; each key is "
    "replicated on the N successors of its coordinator, and hinted handoff covers failed nodes.",
    "Raft election": "Raft elects a leader with randomized election timeouts; a candidate wins the election "
    "when a majority of servers grant it their vote for the term.",
    "Bigtable tablets": "Bigtable splits each table into tablets of contiguous row ranges, and a master "
    "assigns tablets to tablet servers, tracked through Chubby.",
}
QUESTION = "How does Raft elect a leader with randomized election timeouts?"


@pytest.fixture
def library(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Side legs")
    for title, text in TEXTS.items():
        ingest_text(tmp_path, folder, title, text)
    return folder


def backend() -> tuple[str, int, int]:
    """(database, server process, thread) of the connection this runs on."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), pg_backend_pid()")
        name, pid = cursor.fetchone()
    return name, pid, threading.get_ident()


def failing_statement() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")


def test_hybrid_search_runs_bm25_beside_the_dense_leg_with_the_same_result(library: Any) -> None:
    assert not connection.in_atomic_block
    beside = retrieve(query=QUESTION, folder_ids=[library.pk], k=5)
    with override_settings(SEARCH_CONCURRENT_LEGS=False):
        inline = retrieve(query=QUESTION, folder_ids=[library.pk], k=5)
    assert "bm25_wait" in beside.timings_ms
    assert "bm25_wait" not in inline.timings_ms
    assert beside.timings_ms["bm25"] > 0
    assert inline.timings_ms["bm25"] > 0
    # The candidates' vector distances (to mend the dense ranking) are measured by the BM25 leg.
    assert beside.timings_ms["distances"] > 0
    assert inline.timings_ms["distances"] > 0
    assert [(h.chunk_id, h.score, h.dense_rank, h.bm25_rank) for h in beside.hits] == [
        (h.chunk_id, h.score, h.dense_rank, h.bm25_rank) for h in inline.hits
    ]
    assert beside.hits[0].document_title == "Raft election"
    assert beside.hits[0].bm25_rank == 1
    assert (beside.state, beside.best_distance) == (inline.state, inline.best_distance)
    bm25_only = retrieve(query=QUESTION, folder_ids=[library.pk], k=5, mode="bm25")
    assert "bm25_wait" in bm25_only.timings_ms
    assert bm25_only.hits[0].document_title == "Raft election"


def test_a_failed_embedding_releases_the_bm25_leg_waiting_for_the_vector(
    library: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from search.services import retrieval

    started: list[Any] = []

    def recorded(function: Any, *args: Any) -> Any:
        started.append(leg_beside(function, *args))
        return started[-1]

    def broken_model(text: str) -> Any:
        time.sleep(0.2)  # the BM25 leg is waiting for the vector by now
        raise RuntimeError("the embedding model is gone")

    monkeypatch.setattr(retrieval, "leg_beside", recorded)
    monkeypatch.setattr(retrieval, "embed_query", broken_model)
    with pytest.raises(RuntimeError, match="model is gone"):
        retrieve(query=QUESTION, folder_ids=[library.pk], k=5)
    (leg,) = started
    assert leg.beside
    done, _ = wait([leg._future], timeout=5)  # not the 120 s it would wait for a vector
    assert done
    with pytest.raises(CancelledError):
        leg.result()


def summary(result: Any) -> tuple[Any, ...]:
    hits = [(h.chunk_id, h.score, h.distance, h.bm25_rank) for h in result.hits]
    return (
        result.state,
        result.reasons,
        result.unknown_names,
        result.missing_terms,
        [c.term.text for c in result.coverage],
        hits,
    )


@pytest.mark.parametrize(
    ("question", "state"),
    [
        (QUESTION, "answered"),
        ("How does Kubernetes elect a leader when the Raft election timeout expires?", "refused"),  # unknown name
        ("How does the etcd leader election use randomized timeouts?", "refused"),  # a word in no vocabulary
        ("How does leader election use randomized timeouts in spreadsheets?", "caveat"),  # an English word
    ],
)
def test_the_coverage_check_beside_hydration_judges_as_inline(library: Any, question: str, state: str) -> None:
    beside = retrieve(query=question, folder_ids=[library.pk], k=5)
    with override_settings(SEARCH_CONCURRENT_LEGS=False):
        inline = retrieve(query=question, folder_ids=[library.pk], k=5)
    assert "terms_wait" in beside.timings_ms
    assert "terms_wait" not in inline.timings_ms
    assert summary(beside) == summary(inline)
    assert beside.state == state
    assert beside.hits  # listed in every state: the state says whether they answer


def test_the_side_leg_keeps_one_connection_to_the_same_database() -> None:
    main_name, main_pid, main_thread = backend()
    seen = set()
    for _ in range(5):
        leg = leg_beside(backend)
        (name, pid, thread), elapsed_ms = leg.result()
        assert leg.beside
        assert elapsed_ms > 0
        assert name == main_name
        assert pid != main_pid
        assert thread != main_thread
        seen.add(pid)
    assert len(seen) == 1  # searches one after another reuse the pooled connection


def test_inside_a_transaction_the_leg_runs_on_the_callers_connection() -> None:
    with transaction.atomic():
        leg = leg_beside(backend)
        assert not leg.beside
        assert leg.result()[0] == backend()  # uncommitted rows would be visible to it


def test_a_database_error_in_the_side_leg_reaches_the_caller_and_the_next_leg_works() -> None:
    first = leg_beside(backend).result()[0]
    with pytest.raises(DataError, match="division by zero"):
        leg_beside(failing_statement).result()
    assert leg_beside(backend).result()[0][1] == first[1]  # same connection, still usable


def test_closing_the_side_connections_ends_their_server_sessions() -> None:
    (_, pid, _), _ = leg_beside(backend).result()
    close_side_connections()
    for _ in range(50):
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
            if cursor.fetchone()[0] == 0:
                break
        time.sleep(0.1)
    else:
        pytest.fail(f"the side leg's session {pid} is still open")
    assert leg_beside(backend).result()[0][1] != pid  # the next leg connects again


def test_the_benchmark_times_hybrid_with_the_legs_beside_and_one_after_the_other(library: Any) -> None:
    from bench import searches

    samples = searches.time_searches([QUESTION, "tablet servers and the master"], [library.pk], rounds=1)
    assert set(samples) == set(searches.SEARCH_RUNS)
    beside, sequential = samples["hybrid"], samples["hybrid_sequential"]
    assert all(ms > 0 for ms in beside["bm25"] + sequential["bm25"] + beside["total"] + sequential["total"])
    assert sequential["bm25_wait"] == [0.0, 0.0]  # nothing ran beside
    assert sequential["terms_wait"] == [0.0, 0.0]
    assert samples["dense"]["bm25"] == [0.0, 0.0]  # dense mode runs no BM25 leg
    assert samples["dense"]["mend"] == [0.0, 0.0]  # ... so it has no candidates to mend with


def test_a_forked_child_starts_its_own_pool_on_its_own_connection() -> None:
    import os
    import signal

    (_, parent_pid, _), _ = leg_beside(backend).result()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: report the server session its side leg used, then leave at once
        signal.alarm(30)  # never left hanging, whatever lock a parent's thread held at the fork
        try:
            connection.inc_thread_sharing()  # the parent's wrapper: do not touch its socket
            connection.connection = None
            (_, pid, _), _ = leg_beside(backend).result()
            os.write(write, str(pid).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    reported = os.read(read, 64).decode()
    os.close(read)
    assert reported.isdigit()
    assert int(reported) != parent_pid
