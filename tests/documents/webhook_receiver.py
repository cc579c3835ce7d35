"""A real HTTP receiver for webhook tests: `http.server` on 127.0.0.1 in a thread.

It records every request (path, headers, body) and answers each path with the codes queued for
it (then 200), as a receiver that is down for a while does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    code: int

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    base_url: str
    requests: list[Received] = field(default_factory=list)
    answers: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return self.base_url + path

    def on(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.path == path]

    def answer(self, path: str) -> int:
        with self.lock:
            queued = self.answers.get(path) or []
            return queued.pop(0) if queued else 200


@contextmanager
def receiver_running() -> Iterator[Receiver]:
    """A receiver listening until the block ends (the `receiver` fixture of tests/documents/conftest.py)."""
    box: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            target = box["receiver"]
            code = target.answer(self.path)
            with target.lock:
                target.requests.append(Received(self.path, dict(self.headers.items()), body, code))
            reply = b"ok" if code < 300 else b"receiver is down for maintenance"
            self.send_response(code)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box["receiver"] = Receiver(base_url=f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield box["receiver"]
    finally:
        server.shutdown()
        server.server_close()
