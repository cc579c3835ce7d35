"""A fake context-writing model behind the local OpenAI-compatible test server (127.0.0.1, threads).

It answers each chunk with a context naming the chunk's first words, reports token usage the
way OpenAI does (with `prompt_tokens_details.cached_tokens`), fails on purpose for chunks holding
FAIL_MARK (every attempt) and FLAKY_MARK (the first attempt only), and remembers what it was asked.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.citations.fakes import FakeLLM, fake_openai_server

FAIL_MARK = "FAILME"
FLAKY_MARK = "FLAKY"
CONTEXT_WORD = "zanzibarian"  # appears only in written contexts, never in a document
MODEL = "fake-context-1"
_CHUNK = re.compile(r"<chunk>\n(.*)\n</chunk>", re.DOTALL)


def document_of(user: str) -> str:
    """The prompt's document part (everything up to the chunk): identical for a document's chunks."""
    head, found, _ = user.partition("</document>\n")
    assert found, "the prompt has no </document> before the chunk"
    return head + found


def chunk_of(user: str) -> str:
    match = _CHUNK.search(user)
    assert match, "the prompt has no <chunk>…</chunk>"
    return match.group(1)


@dataclass
class ContextModel:
    fail: bool = True
    long: bool = False  # reply with a context far longer than the encoder window
    asked: Counter[str] = field(default_factory=Counter)  # chunk -> requests
    usage_sent: list[dict[str, Any]] = field(default_factory=list)  # of the successful replies
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> tuple[int, str, dict[str, Any] | None]:
        user = body["messages"][-1]["content"]
        chunk = chunk_of(user)
        with self.lock:
            self.asked[chunk] += 1
            attempt = self.asked[chunk]
        if (self.fail and FAIL_MARK in chunk) or (FLAKY_MARK in chunk and attempt == 1):
            return 503, "", None
        context = f"Situated {CONTEXT_WORD} context about {' '.join(chunk.split()[:6])}"
        if self.long:
            context += " " + " ".join(f"filler{i}" for i in range(400))
        usage = {
            "prompt_tokens": len(user) // 4,
            "completion_tokens": len(context.split()),
            "prompt_tokens_details": {"cached_tokens": len(document_of(user)) // 4},
        }
        with self.lock:
            self.usage_sent.append(usage)
        return 200, context, usage


@contextmanager
def context_server(settings: Any, model: ContextModel) -> Iterator[FakeLLM]:
    """Run the fake server and point CONTEXT_WRITER at it for the test's duration."""
    llm = FakeLLM(respond=model)
    with fake_openai_server(llm):
        settings.CONTEXT_WRITER = "openai"
        settings.CONTEXT_LLM_BASE_URL = llm.base_url
        settings.CONTEXT_LLM_MODEL = MODEL
        settings.CONTEXT_LLM_RETRIES = 2
        settings.CONTEXT_LLM_BACKOFF_SECONDS = 0.01
        settings.CONTEXT_LLM_CONCURRENCY = 3
        yield llm
