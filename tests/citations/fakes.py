"""Test doubles: a tiny OpenAI-compatible server on 127.0.0.1 (whole replies, or streamed ones),
a bag-of-words embedder, hits."""

from __future__ import annotations

import hashlib
import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from search.services.gate import GateInputs, decide
from search.services.retrieval import SearchHit, SearchResult


@dataclass
class FakeLLM:
    """What the fake endpoint answers, and what it was asked."""

    reply: str = "The sources say so [1]."
    status: int = 200
    delay: float = 0.0
    raw_body: bytes | None = None  # sent instead of a well-formed completion when set
    # Per request: body -> (status, reply text, usage block or None); overrides reply/status when set.
    respond: Callable[[dict[str, Any]], tuple[int, str, dict[str, Any] | None]] | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""


@contextmanager
def fake_openai_server(llm: FakeLLM) -> Iterator[FakeLLM]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            llm.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if llm.delay:
                time.sleep(llm.delay)
            status, reply, usage = llm.respond(body) if llm.respond else (llm.status, llm.reply, None)
            payload = llm.raw_body
            if payload is None:
                message = {"role": "assistant", "content": reply}
                completion: dict[str, Any] = {"id": "x", "object": "chat.completion",
                                              "choices": [{"index": 0, "message": message}]}  # fmt: skip
                if usage is not None:
                    completion["usage"] = usage
                payload = json.dumps(completion).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    llm.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield llm
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class StreamingLLM:
    """A model that streams `tokens` (OpenAI chunks, chunked transfer) with `delay` between them;
    with `drop_after`, the connection is cut after that many tokens, without an end."""

    tokens: list[str]
    delay: float = 0.0
    drop_after: int | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # time.monotonic() of each token written
    closed_early: threading.Event = field(default_factory=threading.Event)  # the client left first
    ended: threading.Event = field(default_factory=threading.Event)  # the reply is over, either way
    base_url: str = ""


@contextmanager
def fake_streaming_server(llm: StreamingLLM) -> Iterator[StreamingLLM]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # chunked transfer, as real servers stream

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            llm.requests.append(json.loads(self.rfile.read(length) or b"{}"))
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i, token in enumerate(llm.tokens):
                    if i == llm.drop_after:
                        self.connection.shutdown(socket.SHUT_RDWR)  # mid-reply, no terminating chunk
                        self.close_connection = True
                        return
                    if self._client_gone():
                        llm.closed_early.set()
                        return
                    self._event({"choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}]})
                    llm.sent.append(time.monotonic())
                    time.sleep(llm.delay)
                self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                self._chunk(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                llm.closed_early.set()
            finally:
                llm.ended.set()

        def _client_gone(self) -> bool:
            # The request was read whole: anything readable now is the client closing its end.
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""

        def _event(self, chunk: dict[str, Any]) -> None:
            self._chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    llm.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield llm
    finally:
        server.shutdown()
        server.server_close()


_WORD = re.compile(r"[a-z0-9]+")


def bag_of_words_embed(texts: list[str]) -> np.ndarray:
    """Deterministic stand-in for the encoder: hashed word counts, L2-normalised."""
    rows = np.zeros((len(texts), 256), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in _WORD.findall(text.lower()):
            rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 256] += 1.0
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


def hit(
    chunk_id: int,
    content: str,
    *,
    document_id: int = 1,
    title: str = "Doc",
    distance: float = 0.3,
    content_type: str = "text/plain",
) -> SearchHit:
    return SearchHit(
        chunk_id=chunk_id,
        document_id=document_id,
        document_title=title,
        folder_id=1,
        folder_name="Folder",
        content_type=content_type,
        section="1 Intro",
        content=content,
        char_start=10 * chunk_id,
        char_end=10 * chunk_id + len(content),
        page_start=1,
        page_end=1,
        distance=distance,
        dense_rank=chunk_id,
        bm25_rank=None,
        bm25_score=None,
        score=1.0 / chunk_id,
    )


def result(query: str, hits: list[SearchHit], *, refused: bool = False, threshold: float = 0.6) -> SearchResult:
    """A search result judged by the real gate; `refused` puts the nearest passage beyond the threshold."""
    best = min((h.distance for h in hits if h.distance is not None), default=None)
    if refused:
        best = round(threshold + 0.1, 3)
    found = SearchResult(query=query, threshold=threshold, best_distance=best, hits=hits)
    found.judge(decide(GateInputs(best, threshold)))
    return found
