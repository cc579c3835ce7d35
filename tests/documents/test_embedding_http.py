"""EMBEDDER=http against a real local embedding server (tests/embedding_server.py, the installed
MiniLM behind /v1/embeddings): the vectors, batching, timeouts, retries, a wrong size, queries,
prefixes and the stamp. Nothing of the client is mocked; the server misbehaves on purpose."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from documents import embedding
from documents.chunking import embedded_text
from documents.embedding import embed_queries, embed_texts, embedding_stamp
from documents.embedding_http import EmbeddingUnavailable, embeddings_url
from documents.models import Chunk, Document, DocumentStatus
from documents.selectors import is_stale, stale_documents
from documents.services import ingest
from search.services import query_embedding
from tests.conftest import ingest_text
from tests.embedding_server import EmbeddingServer, encode
from tests.factories import FolderFactory

TEXTS = [
    "The harbour master records every arriving vessel in the blue ledger.",
    "Pilots board large ships at the outer buoy.",
    "Departing vessels are cleared by customs.",
    "Raft elects a leader with randomised timeouts.",
    "A consistent hash ring places keys on virtual nodes.",
    "Bloom filters answer set membership with false positives only.",
    "Write-ahead logging makes recovery possible after a crash.",
]

# Sections long enough for several chunks, so a document takes several requests.
LEDGER = "\n\n".join(
    f"## Day {day}\n\n"
    + " ".join(
        f"On day {day} the vessel number {n} arrived with {n * 3} crates of tea and left at dawn." for n in range(12)
    )
    for day in range(1, 6)
)


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddingServer]:
    encode(["warm up"])  # the server's model loads before any request is timed
    with EmbeddingServer() as running:
        yield running


@pytest.fixture
def http(settings: Any, server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch) -> EmbeddingServer:
    """EMBEDDER=http on the test server, which starts each test well-behaved and with no history."""
    settings.EMBEDDER = "http"
    settings.EMBEDDING_URL = server.url
    settings.EMBEDDING_TIMEOUT_SECONDS = 10.0
    settings.EMBEDDING_RETRIES = 2
    settings.EMBEDDING_BACKOFF_SECONDS = 0.05
    server.behaviour.delay_seconds, server.behaviour.fail_next, server.behaviour.dims = 0.0, 0, None
    server.forget()
    # The pipeline's real embedder, even when the session memoises vectors (tests/conftest.py).
    monkeypatch.setattr(ingest, "embed_texts", embedding.embed_texts)
    query_embedding.clear_query_cache()
    return server


def local_vectors(settings: Any, texts: list[str], embed: Any = embed_texts) -> np.ndarray:
    embedder = settings.EMBEDDER
    settings.EMBEDDER = "local"
    try:
        return np.asarray(embed(texts))
    finally:
        settings.EMBEDDER = embedder


def same_vectors(a: Any, b: Any) -> bool:
    """The same vectors as the local model's, up to the local encoder's bfloat16 products
    (documents.embedding.encoder_precision): every row within a cosine of 1e-4, in order."""
    a, b = np.atleast_2d(np.asarray(a)), np.atleast_2d(np.asarray(b))
    return a.shape == b.shape and bool(((a * b).sum(axis=1) > 1 - 1e-4).all())


def test_vectors_equal_the_local_model(http: EmbeddingServer, settings: Any) -> None:
    vectors = embed_texts(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert same_vectors(vectors, local_vectors(settings, TEXTS))
    assert [s.model for s in http.seen] == ["all-MiniLM-L6-v2"]


def test_tei_native_route(http: EmbeddingServer, settings: Any) -> None:
    settings.EMBEDDING_URL = http.base + "/embed"
    assert same_vectors(embed_texts(TEXTS), local_vectors(settings, TEXTS))
    assert [s.path for s in http.seen] == ["/embed"]


def test_texts_go_in_batches_of_the_configured_size(http: EmbeddingServer, settings: Any) -> None:
    settings.EMBEDDING_BATCH_SIZE = 3
    settings.EMBEDDING_CONCURRENCY = 2
    vectors = embed_texts(TEXTS)
    assert sorted(len(s.inputs) for s in http.seen) == [1, 3, 3]
    assert sorted(t for s in http.seen for t in s.inputs) == sorted(TEXTS)
    assert same_vectors(vectors, local_vectors(settings, TEXTS))  # in the texts' order


def test_api_key_is_sent(http: EmbeddingServer, settings: Any) -> None:
    settings.EMBEDDING_API_KEY = "s3cret"
    embed_texts(TEXTS[:1])
    assert http.seen[0].authorization == "Bearer s3cret"


@pytest.mark.django_db
def test_a_document_is_embedded_by_the_server(http: EmbeddingServer, settings: Any, tmp_path: Path) -> None:
    settings.EMBEDDING_BATCH_SIZE = 4
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    assert document.embedding_model == "http:all-MiniLM-L6-v2" == embedding_stamp()
    chunks = list(Chunk.objects.filter(document=document).order_by("ordinal"))
    assert len(chunks) > 4
    assert max(len(s.inputs) for s in http.seen) == 4
    assert sum(len(s.inputs) for s in http.seen) == len(chunks)
    texts = [embedded_text(c.context, c.content) for c in chunks]
    stored = np.stack([np.asarray(c.embedding) for c in chunks])
    assert same_vectors(stored, local_vectors(settings, texts))


@pytest.mark.django_db
def test_a_server_past_the_timeout_fails_the_document_and_a_retry_succeeds(
    http: EmbeddingServer, settings: Any, tmp_path: Path
) -> None:
    settings.EMBEDDING_TIMEOUT_SECONDS = 0.5
    settings.EMBEDDING_RETRIES = 1
    http.behaviour.delay_seconds = 1.5
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.FAILED
    assert "did not answer within 0.5 s (2 attempts)" in document.failure_reason
    assert document.failure_reason.startswith("Embedding failed: the embedding server at http://127.0.0.1:")
    assert "Retry the document" in document.failure_reason
    assert not Chunk.objects.filter(document=document).exists()  # nothing half-embedded

    http.behaviour.delay_seconds = 0.0  # the server is back, and has the time it needs
    settings.EMBEDDING_TIMEOUT_SECONDS = 10.0
    retried = ingest.document_ingest(document.pk)
    assert retried is not None
    assert retried.status == DocumentStatus.INDEXED, retried.failure_reason
    assert retried.failure_reason == ""
    assert Chunk.objects.filter(document=document).count() == retried.chunk_count > 0


@pytest.mark.django_db
def test_a_server_answering_500_then_recovering_is_retried_with_backoff(
    http: EmbeddingServer, settings: Any, tmp_path: Path
) -> None:
    settings.EMBEDDING_CONCURRENCY = 1
    settings.EMBEDDING_RETRIES = 3
    settings.EMBEDDING_BACKOFF_SECONDS = 0.2
    http.behaviour.fail_next = 2
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    first, second, third = http.seen[:3]
    assert [first.status, second.status, third.status] == [500, 500, 200]
    assert first.inputs == second.inputs == third.inputs  # the same batch, tried again
    assert second.at - first.at >= 0.2  # waits 0.2 s, then 0.4 s
    assert third.at - second.at >= 0.4


@pytest.mark.django_db
def test_retries_run_out_with_a_reason(http: EmbeddingServer, settings: Any, tmp_path: Path) -> None:
    settings.EMBEDDING_RETRIES = 1
    http.behaviour.fail_next = 10
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.FAILED
    assert 'answered HTTP 500: {"error": "the model server is restarting"} (2 attempts)' in document.failure_reason
    assert not Chunk.objects.filter(document=document).exists()


@pytest.mark.django_db
def test_vectors_of_another_size_are_refused_and_nothing_is_stored(
    http: EmbeddingServer, settings: Any, tmp_path: Path
) -> None:
    http.behaviour.dims = 8
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.FAILED
    assert "sent 8-dimensional vectors but EMBEDDING_DIMS is 384" in document.failure_reason
    assert "set EMBEDDING_DIMS=8 and run `manage.py embedding_switch`" in document.failure_reason
    assert not Chunk.objects.filter(document=document).exists()
    assert len(http.seen) == 1  # refused at the first answer, not retried
    with pytest.raises(EmbeddingUnavailable, match="8-dimensional"):
        query_embedding.embed_query("which vessels arrived?")


@pytest.mark.django_db
def test_a_failed_reindex_keeps_the_indexed_chunks(http: EmbeddingServer, settings: Any, tmp_path: Path) -> None:
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    before = sorted(Chunk.objects.filter(document=document).values_list("pk", flat=True))
    settings.EMBEDDING_REUSE = False
    settings.EMBEDDING_RETRIES = 0
    http.behaviour.fail_next = 1
    failed = ingest.document_ingest(document.pk)
    assert failed is not None
    assert failed.status == DocumentStatus.FAILED
    assert sorted(Chunk.objects.filter(document=document).values_list("pk", flat=True)) == before


@pytest.mark.django_db
def test_query_vectors_come_from_the_server_and_are_cached(http: EmbeddingServer, settings: Any) -> None:
    question = "Which vessels arrived on the first day?"
    vector, cached = query_embedding.embed_query(question)
    assert not cached
    assert [s.inputs for s in http.seen] == [[question]]
    again, cached = query_embedding.embed_query(question)
    assert cached
    assert len(http.seen) == 1
    assert np.array_equal(vector, again)
    assert same_vectors(vector, local_vectors(settings, [question])[0])


@pytest.mark.django_db
def test_prefixes_are_sent_and_counted_in_the_window(http: EmbeddingServer, settings: Any, tmp_path: Path) -> None:
    settings.EMBEDDING_TOKENIZER = str(embedding.model_path("all-MiniLM-L6-v2") / "tokenizer.json")
    window = embedding.window_tokens()
    settings.EMBEDDING_QUERY_PREFIX = "query: "
    settings.EMBEDDING_DOCUMENT_PREFIX = "passage: "
    assert embedding.window_tokens() == window - 2  # "passage" and ":"
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    inputs = [t for s in http.seen for t in s.inputs]
    assert inputs
    assert all(t.startswith("passage: ") for t in inputs)
    assert all(embedding.count_tokens(t) <= settings.EMBEDDING_MAX_TOKENS for t in inputs)
    assert document.embedding_model == "http:all-MiniLM-L6-v2 q='query: ' d='passage: '"
    http.forget()
    query_embedding.embed_query("Which vessels arrived?")
    assert [s.inputs for s in http.seen] == [["query: Which vessels arrived?"]]
    assert same_vectors(embed_queries(["x"]), local_vectors(settings, ["x"], embed_queries))


def test_without_a_tokenizer_the_budget_is_counted_in_characters(http: EmbeddingServer, settings: Any) -> None:
    text = "Pilots board large ships at the outer buoy."
    assert embedding.count_tokens(text) == 2 + (len(text) + 1) // 2
    assert embedding.count_tokens(text) >= local_count(settings, text)  # conservative on prose
    settings.EMBEDDING_TOKENIZER = str(embedding.model_path("all-MiniLM-L6-v2") / "tokenizer.json")
    assert embedding.count_tokens(text) == local_count(settings, text)


def local_count(settings: Any, text: str) -> int:
    embedder = settings.EMBEDDER
    settings.EMBEDDER = "local"
    try:
        return embedding.count_tokens(text)
    finally:
        settings.EMBEDDER = embedder


@pytest.mark.django_db
def test_switching_embedder_model_or_prefix_marks_documents_stale(
    http: EmbeddingServer, settings: Any, tmp_path: Path
) -> None:
    settings.EMBEDDER = "local"
    document = ingest_text(tmp_path, FolderFactory(name="Harbour"), "Ledger", LEDGER)
    assert document.embedding_model == "all-MiniLM-L6-v2"
    assert not is_stale(document)
    settings.EMBEDDER = "http"
    assert is_stale(document)
    assert stale_documents().filter(pk=document.pk).exists()
    reindexed = ingest.document_ingest(document.pk)
    assert reindexed is not None
    assert not is_stale(reindexed)
    settings.EMBEDDING_DOCUMENT_PREFIX = "passage: "
    assert is_stale(reindexed)
    settings.EMBEDDING_DOCUMENT_PREFIX = ""
    settings.EMBEDDING_MODEL = "another-model"
    assert is_stale(Document.objects.get(pk=document.pk))


def test_a_server_that_cannot_be_reached_is_named(http: EmbeddingServer, settings: Any) -> None:
    settings.EMBEDDING_URL = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    settings.EMBEDDING_RETRIES = 1
    started = time.monotonic()
    with pytest.raises(EmbeddingUnavailable, match=r"at http://127.0.0.1:9/v1/embeddings could not be reached"):
        embed_texts(TEXTS[:1])
    assert time.monotonic() - started >= 0.05  # one backoff


@pytest.mark.parametrize(
    ("setting", "posted_to"),
    [
        ("http://tei:8080", ("http://tei:8080/v1/embeddings", "openai")),
        ("http://tei:8080/v1/", ("http://tei:8080/v1/embeddings", "openai")),
        ("https://api.example.org/v1/embeddings", ("https://api.example.org/v1/embeddings", "openai")),
        ("http://tei:8080/embed", ("http://tei:8080/embed", "tei")),
    ],
)
def test_the_url_names_the_protocol(setting: str, posted_to: tuple[str, str]) -> None:
    assert embeddings_url(setting) == posted_to
