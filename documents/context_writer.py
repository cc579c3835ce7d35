"""A model writes a short context for each chunk of a document (Anthropic's contextual retrieval).

For every chunk the prompt holds the document first and the chunk after it, and the document
part is byte-identical for all chunks of one document, so servers with prefix caching (vLLM,
llama.cpp's server) read the document once. A document longer than the model's input budget is
cut into fixed, half-overlapping windows and each chunk is sent with the window that centres it
best: chunks of one window still share their prefix.

Requests run on a bounded thread pool with retries and exponential backoff. Nothing here touches
the database: callers (documents/services/contexts.py, the evaluation) own caching and storage.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ragsite.llm import ChatEndpoint, ChatError, ChatUsage

logger = logging.getLogger(__name__)

PROMPT_VERSION = 1  # bump when the prompt changes: cached contexts of another version are not reused
# The model's tokenizer is unknown here; 3 characters per token over-counts English text, so a
# document cut by this estimate fits the model's context rather than overflowing it.
CHARS_PER_TOKEN = 3
PROMPT_OVERHEAD_TOKENS = 150  # the instructions and chat template around the document and chunk
MAX_CONTEXT_CHARS = 1000  # a reply longer than this is cut (the encoder window cuts it further)
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

SYSTEM_PROMPT = "You situate a chunk of a document within the whole document, to improve search retrieval of the chunk."
CHUNK_INSTRUCTIONS = (
    "Here is the chunk we want to situate within the whole document\n<chunk>\n{chunk}\n</chunk>\n"
    "Please give a short succinct context (one or two sentences) to situate this chunk within the overall "
    "document for the purposes of improving search retrieval of the chunk. "
    "Answer only with the succinct context and nothing else."
)


@dataclass(frozen=True)
class ChunkRequest:
    content: str
    char_start: int  # offsets into the document text, to choose the window of a long document
    char_end: int


@dataclass(frozen=True)
class ContextResult:
    context: str | None  # None: every attempt failed
    usage: ChatUsage = field(default_factory=ChatUsage)
    error: str = ""


def document_part(document: str) -> str:
    return f"<document>\n{document}\n</document>\n"


def build_messages(document: str, chunk: str) -> list[dict[str, str]]:
    """Document first, chunk after: the shared prefix a caching server reuses across chunks."""
    user = document_part(document) + CHUNK_INSTRUCTIONS.format(chunk=chunk)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def window_chars(max_input_tokens: int, max_output_tokens: int, longest_chunk: int) -> int:
    """How many characters of the document fit beside the instructions, the chunk and the reply."""
    tokens = max_input_tokens - max_output_tokens - PROMPT_OVERHEAD_TOKENS
    return max(1, tokens * CHARS_PER_TOKEN - longest_chunk)


def document_window(text: str, start: int, end: int, size: int) -> str:
    """The whole text if it fits in `size` characters, else the aligned window holding [start, end).

    Windows begin at multiples of size/2, so neighbouring chunks usually get the very same window;
    a chunk longer than half a window gets a window centred on itself.
    """
    if len(text) <= size:
        return text
    stride = max(1, size // 2)
    last = math.ceil((len(text) - size) / stride)
    k = min(last, max(0, round(((start + end) / 2 - size / 2) / stride)))
    begin = min(k * stride, len(text) - size)
    if not (begin <= start and end <= begin + size):
        begin = min(max(0, (start + end) // 2 - size // 2), len(text) - size)
    return text[begin : begin + size]


def clean_context(reply: str) -> str:
    text = " ".join(reply.split()).strip("\"'“”")
    return text if len(text) <= MAX_CONTEXT_CHARS else text[:MAX_CONTEXT_CHARS].rsplit(" ", 1)[0] + "…"


@dataclass(frozen=True)
class ContextWriter:
    endpoint: ChatEndpoint
    max_input_tokens: int = 8192
    max_output_tokens: int = 120
    concurrency: int = 4
    retries: int = 2
    backoff_seconds: float = 1.0

    @property
    def model(self) -> str:
        return self.endpoint.model

    def write_all(
        self, text: str, chunks: Sequence[ChunkRequest], written: Callable[[int], None] | None = None
    ) -> list[ContextResult]:
        """One result per chunk, in order; a chunk whose every attempt failed has context None.

        `written` hears how many results are in, in this (the caller's) thread, never the pool's:
        it may write to the database on the caller's connection."""
        if not chunks:
            return []
        size = window_chars(self.max_input_tokens, self.max_output_tokens, max(len(c.content) for c in chunks))
        prompts = [build_messages(document_window(text, c.char_start, c.char_end, size), c.content) for c in chunks]
        results: list[ContextResult] = []
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency), thread_name_prefix="context") as pool:
            for result in pool.map(self.write_one, prompts):
                results.append(result)
                if written is not None:
                    written(len(results))
        return results

    def write_one(self, messages: list[dict[str, str]]) -> ContextResult:
        error = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_seconds * 2 ** (attempt - 1))
            try:
                reply = self.endpoint.complete(messages, max_tokens=self.max_output_tokens)
            except ChatError as exc:
                error = str(exc)
                if exc.status is not None and exc.status not in RETRY_STATUSES:
                    break  # a request the server rejects (400, 401, 404) fails the same way again
                continue
            context = clean_context(reply.text)
            if context:
                return ContextResult(context, reply.usage)
            error = "the language model endpoint sent an empty context"
        logger.warning("chunk context failed after %d attempt(s): %s", attempt + 1, error)
        return ContextResult(None, error=error)
