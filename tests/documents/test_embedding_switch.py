"""Changing EMBEDDING_DIMS: refused with a message naming `manage.py embedding_switch` until it
has run; the command rebuilds the vector column and its HNSW index for the new size and queues
every document, which is then embedded at that size (here by an 8-dimensional test server)."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.test import Client

from documents import embedding
from documents.models import Chunk, DocumentStatus
from documents.services import ingest
from documents.vector_column import INDEX, VectorColumnMismatch, vector_column_dims
from search.services import query_embedding
from search.services.retrieval import retrieve
from tests.conftest import bearer, ingest_text
from tests.embedding_server import EmbeddingServer, encode
from tests.factories import FolderFactory, UserFactory

LEDGER = "\n\n".join(
    f"## Day {day}\n\nOn day {day} the schooner Albatross arrived with {day * 40} crates of tea and left at dawn."
    for day in range(1, 4)
)
QUESTION = "When did the schooner Albatross arrive with crates of tea?"


@pytest.fixture(scope="module")
def small_server() -> Iterator[EmbeddingServer]:
    """MiniLM's vectors cut to 8 numbers: another model, as far as the library can tell."""
    encode(["warm up"])
    with EmbeddingServer() as running:
        running.behaviour.dims = 8
        yield running


@pytest.fixture
def restored_column(settings: Any) -> Iterator[None]:
    """Whatever the test did, the column is 384-dimensional again afterwards."""
    yield
    settings.EMBEDDING_DIMS = 384
    call_command("embedding_switch", "--no-queue", stdout=StringIO())
    assert vector_column_dims() == 384


def hnsw_definition() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [INDEX])
        return str(cursor.fetchone()[0])


def test_switching_the_vector_size(
    transactional_db: None,
    restored_column: None,
    settings: Any,
    small_server: EmbeddingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    client: Client,
) -> None:
    monkeypatch.setattr(ingest, "embed_texts", embedding.embed_texts)  # not the session's memo
    folder = FolderFactory(name="Harbour")
    document = ingest_text(tmp_path, folder, "Ledger", LEDGER)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    index_before = hnsw_definition()

    settings.EMBEDDER = "http"
    settings.EMBEDDING_URL = small_server.url
    settings.EMBEDDING_DIMS = 8
    query_embedding.clear_query_cache()
    named = r"holds 384-dimensional vectors but EMBEDDING_DIMS is 8\. Run `manage\.py embedding_switch`"
    with pytest.raises(VectorColumnMismatch, match=named):  # no search against the wrong column
        retrieve(query=QUESTION, folder_ids=[folder.pk])
    staff = UserFactory(is_staff=True)
    response = client.get("/api/search", {"q": QUESTION}, **bearer(staff))
    assert response.status_code == 503
    assert "Run `manage.py embedding_switch`" in response.json()["detail"]
    client.force_login(staff)
    page = client.get("/", {"q": QUESTION})
    assert "Run `manage.py embedding_switch`" in page.content.decode()  # said on the search page
    with pytest.raises(SystemCheckError, match=named):
        call_command("check", databases=["default"])
    with pytest.raises(SystemCheckError, match=named):  # as `manage.py migrate` runs it
        call_command("migrate", interactive=False, verbosity=0, skip_checks=False)
    failed = ingest.document_ingest(document.pk)
    assert failed is not None
    assert failed.status == DocumentStatus.FAILED
    assert "Run `manage.py embedding_switch`" in failed.failure_reason
    assert small_server.seen == []  # refused before anything was embedded

    out = StringIO()
    call_command("embedding_switch", stdout=out)
    assert "vector column rebuilt: 384 -> 8 dimensions" in out.getvalue()
    assert "queued 1 document(s) for re-embedding" in out.getvalue()
    assert vector_column_dims() == 8
    assert hnsw_definition() == index_before.replace("384", "8")  # same index, same parameters
    document.refresh_from_db()
    assert document.status == DocumentStatus.QUEUED
    assert not Chunk.objects.filter(document=document, embedding__isnull=False).exists()  # old space dropped

    reindexed = ingest.document_ingest(document.pk)
    assert reindexed is not None
    assert reindexed.status == DocumentStatus.INDEXED, reindexed.failure_reason
    assert reindexed.embedding_dims == 8
    assert reindexed.embedding_model == "http:all-MiniLM-L6-v2"
    vectors = [np.asarray(c.embedding) for c in Chunk.objects.filter(document=document)]
    assert vectors
    assert {v.shape for v in vectors} == {(8,)}

    result = retrieve(query=QUESTION, folder_ids=[folder.pk])
    chunk_ids = set(Chunk.objects.filter(document=document).values_list("pk", flat=True))
    assert {hit.chunk_id for hit in result.hits} <= chunk_ids
    assert result.hits
    assert all(hit.distance is not None for hit in result.hits)

    again = StringIO()
    call_command("embedding_switch", stdout=again)
    assert "already holds 8-dimensional vectors" in again.getvalue()


def test_a_size_the_index_cannot_take_is_refused(db: None, settings: Any) -> None:
    settings.EMBEDDING_DIMS = 3072
    with pytest.raises(Exception, match="1 to 2000 dimensions"):
        call_command("embedding_switch", stdout=StringIO())
    assert vector_column_dims() == 384
