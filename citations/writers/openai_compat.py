"""A writer backed by any OpenAI-compatible chat-completions endpoint (LLM_BASE_URL).

The model is shown the question and the numbered source texts only, in the order of their
sentence that best answers the question as the extractive writer ranks them (`answer_order`),
told to answer from them alone, to cite every claim as [n], and to say so when the sources do
not hold the answer.
Bracketed numbers inside the sources (a paper's own "[10]") are shown as "(ref. 10)" so they
cannot be confused with source numbers; if the model copies a source's own "[22]" anyway, it
stays text (see `citations.markers.quoted_references`). Any transport or format problem
raises WriterError; the answer service then falls back to the extractive writer and says so.

`stream` asks for the same reply with `stream: true` and yields its text as the model writes it
(citations/services/answer_stream.py turns it into parts); `reply_parts` reads a whole reply the
same way for both paths.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass

from django.conf import settings

from citations.markers import BRACKETED_NUMBERS, Part, parse_markers, quoted_references
from citations.writers.base import Source, WriterDeclined, WriterError
from citations.writers.extractive import ExtractiveWriter
from ragsite.llm import ChatEndpoint, ChatError

NO_ANSWER = "The sources do not contain the answer."
SYSTEM_PROMPT = f"""You answer questions using only the numbered sources you are given.
Rules:
- Use only facts stated in the sources. Do not use outside knowledge.
- Cite every sentence of your answer with the number of the source it comes from, in square
  brackets, like [1] or [2][3]. Use only the numbers of the given sources.
- Never write links, URLs, document titles or identifiers; only the [n] markers.
- If the sources do not contain the answer, reply exactly: "{NO_ANSWER}"
- Be concise: at most a few sentences."""
_REFERENCE = r"(ref. \1)"
MAX_REPLY_CHARS = 4000
# Sent as max_tokens: a model that never ends its turn (a base model does not) would otherwise write
# until the server's context is full, minutes on llama.cpp's server (docs/LLM-CHECK.md), and the
# answer would time out. A token is at least ~1 character, so this never cuts a reply we would keep.
MAX_REPLY_TOKENS = 1024


def _plain(text: str) -> str:
    """Lower case letters and single spaces only: "The sources don’t contain…" → "the sources dont contain"."""
    letters = re.sub(r"[^a-z]+", " ", text.lower().replace("’", "").replace("'", ""))
    return " ".join(letters.split())


# Ways models say "not in the sources" when they do not copy the instructed sentence exactly.
_DECLINE_OPENINGS = tuple(
    _plain(opening)
    for opening in (
        "The sources do not contain",
        "The sources don't contain",
        "The provided sources do not contain",
        "The sources do not say",
        "The sources do not provide",
        "None of the sources",
    )
)


def declines(reply: str, parts: list[Part]) -> bool:
    """Whether `reply` (parsed into `parts`) says the sources do not hold the answer, and cites nothing.

    A reply that cites a source ("[2] says X; the sources do not contain Y") is a partial answer,
    not a refusal: it is kept and shown."""
    return not any(part.n for part in parts) and _plain(reply).startswith(_DECLINE_OPENINGS)


def may_decline(text: str, parts: list[Part]) -> bool:
    """Whether a reply that begins with `text` (parsed into `parts`) could still turn out to be a
    refusal: it cites nothing yet, and its words so far are, or begin, one of the openings."""
    if any(part.n for part in parts):
        return False
    plain = _plain(text)
    return any(plain.startswith(opening) or opening.startswith(plain) for opening in _DECLINE_OPENINGS)


def source_block(sources: list[Source]) -> str:
    shown = (f"[{s.n}] {BRACKETED_NUMBERS.sub(_REFERENCE, s.text.strip())}" for s in sources)
    return "\n\n".join(shown)


def quoted_markers(sources: list[Source]) -> set[tuple[int, ...]]:
    """The sources' own bracket groups a reply may copy: they stay text (citations.markers)."""
    return quoted_references((s.text for s in sources), {s.n for s in sources})


def answer_order(question: str, sources: list[Source]) -> list[Source]:
    """The sources in the order the extractive writer ranks them, by their sentence that best
    answers the question: the model reads the likeliest answer first. Their numbers stay theirs."""
    return ExtractiveWriter().passage_order(question, sources)


def build_messages(question: str, sources: list[Source]) -> list[dict[str, str]]:
    user = f"Sources:\n\n{source_block(sources)}\n\nQuestion: {question.strip()}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


@dataclass
class OpenAICompatibleWriter:
    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 30.0
    name: str = "openai"

    @classmethod
    def from_settings(cls) -> OpenAICompatibleWriter:
        if not settings.LLM_BASE_URL or not settings.LLM_MODEL:
            raise WriterError("ANSWER_WRITER=openai needs LLM_BASE_URL and LLM_MODEL to be set")
        return cls(
            base_url=settings.LLM_BASE_URL,
            model=settings.LLM_MODEL,
            api_key=settings.LLM_API_KEY,
            timeout=settings.LLM_TIMEOUT_SECONDS,
        )

    def write(self, question: str, sources: list[Source]) -> list[Part]:
        messages = build_messages(question, answer_order(question, sources))
        return self.reply_parts(self.complete(messages), sources)

    @staticmethod
    def reply_parts(reply: str, sources: list[Source]) -> list[Part]:
        """The model's whole reply as parts; WriterDeclined when it says the sources lack the answer."""
        reply = reply[:MAX_REPLY_CHARS].strip()
        parts = parse_markers(reply, quoted_markers(sources))
        if declines(reply, parts):
            raise WriterDeclined(reply)
        return parts

    def stream(self, question: str, sources: list[Source]) -> Generator[str, None, None]:
        """The reply's text as the model writes it; closing this iterator closes the request.
        Any transport or format problem, before or during the reply, raises WriterError."""
        endpoint = ChatEndpoint(self.base_url, self.model, self.api_key, self.timeout)
        try:
            messages = build_messages(question, answer_order(question, sources))
            chat = endpoint.stream(messages, max_tokens=MAX_REPLY_TOKENS)
        except ChatError as exc:
            raise WriterError(str(exc)) from exc
        try:
            yield from chat
        except ChatError as exc:
            raise WriterError(str(exc)) from exc
        finally:
            chat.close()

    def complete(self, messages: list[dict[str, str]]) -> str:
        endpoint = ChatEndpoint(self.base_url, self.model, self.api_key, self.timeout)
        try:
            return endpoint.complete(messages, max_tokens=MAX_REPLY_TOKENS).text
        except ChatError as exc:
            raise WriterError(str(exc)) from exc
