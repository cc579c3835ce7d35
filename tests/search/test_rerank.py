"""The reader stage: a tiny cross-encoder built here (random weights, no download), a local fake
`/rerank` server in both reply shapes, the gate's minimum score, and failures that never fail a search."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from search.services.retrieval import retrieve
from tests.conftest import ingest_text
from tests.factories import FolderFactory

TEXTS = {
    "hashing": "Consistent hashing places each key on a ring of nodes; a key is stored on the next nodes clockwise.",
    "tablets": "Each tablet is assigned to one tablet server at a time, and the master tracks live tablet servers.",
    "leader": "A Raft leader sends heartbeats to its followers to keep its authority and prevent new elections.",
    "gossip": "Nodes gossip membership changes to each other; a key's replicas are found by walking the ring.",
}
QUESTION = "How are keys placed on the ring of nodes?"


@pytest.fixture
def ring_folder(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Ring notes")
    for title, text in TEXTS.items():
        ingest_text(tmp_path, folder, title, text)
    return folder


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A randomly initialised 2-layer BERT cross-encoder with MiniLM's word-piece vocabulary."""
    from transformers import BertConfig, BertForSequenceClassification

    from documents.embedding import model_path

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    source = model_path()
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (source / name).is_file():
            shutil.copy(source / name, folder / name)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64)  # fmt: skip
    config.num_labels = 1  # one relevance score per pair
    BertForSequenceClassification(config).save_pretrained(folder)
    return str(folder)


@dataclass
class FakeReranker:
    """Scores a passage by how many of the question's words it holds; answers like TEI or Cohere."""

    shape: str = "tei"
    status: int = 200
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    def reply(self, body: dict[str, Any]) -> Any:
        words = set(body["query"].lower().replace("?", "").split())
        scores = [len(words & set(t.lower().replace(";", " ").split())) / 10 for t in body["texts"]]
        ranked = sorted(enumerate(scores), key=lambda p: -p[1])
        if self.shape == "cohere":
            return {"results": [{"index": i, "relevance_score": s} for i, s in ranked]}
        return [{"index": i, "score": s} for i, s in ranked]


@contextmanager
def fake_rerank_server(fake: FakeReranker) -> Iterator[FakeReranker]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            time.sleep(fake.delay)
            payload = json.dumps(fake.reply(body) if fake.status == 200 else {"error": "down"}).encode()
            try:
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.django_db
def test_a_local_cross_encoder_reorders_the_fused_candidates(
    ring_folder: Any, tiny_cross_encoder: str, settings: Any
) -> None:
    from sentence_transformers import CrossEncoder

    fused = retrieve(query=QUESTION, folder_ids=[ring_folder.pk], k=4)
    settings.RERANKER, settings.RERANKER_MODEL = "cross-encoder", tiny_cross_encoder
    read = retrieve(query=QUESTION, folder_ids=[ring_folder.pk], k=4)
    assert (read.reranker, read.notice) == ("cross-encoder", "")
    assert {h.chunk_id for h in read.hits} == {h.chunk_id for h in fused.hits}
    expected = CrossEncoder(tiny_cross_encoder).predict([(QUESTION, f"{h.context}\n{h.content}") for h in fused.hits])
    by_chunk = {h.chunk_id: float(s) for h, s in zip(fused.hits, expected, strict=True)}
    assert [h.chunk_id for h in read.hits] == sorted(by_chunk, key=lambda c: -by_chunk[c])
    assert [h.rerank_score for h in read.hits] == pytest.approx(sorted(by_chunk.values(), reverse=True), abs=1e-5)
    assert read.rerank_score == pytest.approx(max(by_chunk.values()), abs=1e-5)
    assert "rerank" in read.timings_ms


@pytest.mark.django_db
@pytest.mark.parametrize("shape", ["tei", "cohere"])
def test_an_http_reranker_reorders_and_its_score_joins_the_gate(ring_folder: Any, settings: Any, shape: str) -> None:
    settings.RERANKER, settings.RERANK_API_KEY, settings.RERANK_CANDIDATES = "http", "secret", 3
    with fake_rerank_server(FakeReranker(shape=shape)) as fake:
        settings.RERANK_URL = fake.url
        read = retrieve(query="which tablet server is a tablet assigned to", folder_ids=[ring_folder.pk], k=4)
        settings.RERANK_MIN_SCORE = 0.9  # more than any passage can score here
        refused = retrieve(query="which tablet server is a tablet assigned to", folder_ids=[ring_folder.pk], k=4)
    request = fake.requests[0]
    assert request["path"] == "/rerank"
    assert request["headers"]["Authorization"] == "Bearer secret"
    assert len(request["body"]["texts"]) == 3  # RERANK_CANDIDATES
    assert read.hits[0].content == TEXTS["tablets"]
    assert read.hits[0].rerank_score == pytest.approx(0.6)  # tablet, server, is, a, assigned, to
    assert read.hits[3].rerank_score is None  # beyond the candidates: fused order, no score
    assert (read.state, read.reranker) == ("answered", "http")
    assert (refused.state, refused.reasons) == ("refused", ["rerank_low"])
    assert refused.hits  # search lists what it found; the refusal is what /api/answer writes
    assert "below the minimum 0.900" in refused.message


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fake", "timeout", "said"),
    [
        (FakeReranker(status=503), 2.0, "answered HTTP 503"),
        (FakeReranker(delay=1.0), 0.2, "did not answer within 0.2 s"),
        (FakeReranker(shape="garbage"), 2.0, "holds no list"),
    ],
)
def test_a_failing_reranker_never_fails_the_search(
    ring_folder: Any, settings: Any, fake: FakeReranker, timeout: float, said: str
) -> None:
    fused = retrieve(query=QUESTION, folder_ids=[ring_folder.pk], k=4)
    settings.RERANKER, settings.RERANK_TIMEOUT_SECONDS, settings.RERANK_MIN_SCORE = "http", timeout, 0.5
    if fake.shape == "garbage":
        fake.reply = lambda body: {"nothing": []}  # type: ignore[method-assign]
    with fake_rerank_server(fake) as server:
        settings.RERANK_URL = server.url
        read = retrieve(query=QUESTION, folder_ids=[ring_folder.pk], k=4)
    assert [h.chunk_id for h in read.hits] == [h.chunk_id for h in fused.hits]
    assert said in read.notice
    assert "fused order" in read.notice
    assert (read.state, read.reranker) == (fused.state, None)  # the minimum score applies only to a reader's score


@pytest.mark.django_db
def test_a_misconfigured_reranker_is_a_notice(ring_folder: Any, settings: Any, tmp_path: Path) -> None:
    settings.RERANKER, settings.RERANKER_MODEL = "cross-encoder", str(tmp_path)  # no model there
    read = retrieve(query=QUESTION, folder_ids=[ring_folder.pk], k=2)
    assert read.hits
    assert "no config.json" in read.notice


def test_an_unknown_reranker_stops_start_up_naming_the_variable() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from ragsite.env import load_env

    with pytest.raises(ImproperlyConfigured, match="RERANKER: Input should be 'none', 'cross-encoder' or 'http'"):
        load_env({"RERANKER": "cohere-please"})
    assert load_env({"RERANKER": " Cross-Encoder "}).RERANKER == "cross-encoder"


@pytest.mark.django_db
@pytest.mark.parametrize("reader_likes_the_year", [True, False])
def test_years_are_judged_on_the_passages_the_reader_puts_first(
    tmp_path: Path, memoised_pipeline: None, settings: Any, reader_likes_the_year: bool
) -> None:
    """`unseen_terms` names a year none of the passages shown first holds: after the reader reorders,
    those are the reader's first passages, not the fused ones (whichever way the two differ)."""
    folder = FolderFactory(name="Tablet history")
    texts = {
        "year": "In 2006 each tablet was assigned to one tablet server, and the master tracked them.",
        "plain": "Each tablet is assigned to one tablet server at a time; the master tracks live servers.",
    }
    for name, text in texts.items():
        ingest_text(tmp_path, folder, name, text)
    settings.ANSWER_TOP_SOURCES = 1
    settings.RERANKER, settings.RERANK_CANDIDATES = "http", 2
    fake = FakeReranker()
    fake.reply = lambda body: [  # type: ignore[method-assign]
        {"index": i, "score": float(("2006" in text) == reader_likes_the_year)} for i, text in enumerate(body["texts"])
    ]
    with fake_rerank_server(fake) as server:
        settings.RERANK_URL = server.url
        read = retrieve(query="Which tablet server held a tablet in 2006?", folder_ids=[folder.pk], k=2)
    assert read.reranker == "http"
    assert ("2006" in read.hits[0].content) is reader_likes_the_year
    assert read.unseen_terms == ([] if reader_likes_the_year else ["2006"])
    assert read.state == ("answered" if reader_likes_the_year else "caveat")
