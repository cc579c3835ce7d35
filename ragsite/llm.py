"""One client for any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
Ollama, a hosted API), shared by the answer writer and the chunk-context writer.

It sends one request and returns the reply text with the server's token counts, or streams the
reply (`stream: true`) as the server writes it; any transport or format problem raises
`ChatError` with a message a person can act on. Callers decide what a
failure means (the answer writer falls back, the context writer retries then keeps the header).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


class ChatError(Exception):
    """The endpoint gave no usable reply (unreachable, timeout, HTTP error, malformed body)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ChatUsage:
    """Token counts as the server reports them (0 when it reports none)."""

    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0  # usage.prompt_tokens_details.cached_tokens, when the server sends it
    completion_tokens: int = 0


@dataclass(frozen=True)
class ChatReply:
    text: str
    usage: ChatUsage = field(default_factory=ChatUsage)


def completions_url(base_url: str) -> str:
    base = base_url.strip().rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@dataclass(frozen=True)
class ChatEndpoint:
    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 30.0

    def complete(self, messages: list[dict[str, str]], **options: Any) -> ChatReply:
        """One chat completion at temperature 0; `options` go into the request body (max_tokens, …)."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0, **options}
        response = post_json(
            completions_url(self.base_url), body, api_key=self.api_key, timeout=self.timeout,
            what="the language model", error=ChatError,
        )  # fmt: skip
        return ChatReply(reply_text(response), reply_usage(response))

    def stream(self, messages: list[dict[str, str]], **options: Any) -> ChatStream:
        """The same request with `stream: true`: the reply's text as server-sent chunks arrive.
        Connection and HTTP errors raise here; a stream that breaks off raises while iterating."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0, "stream": True, **options}
        response = post_json(
            completions_url(self.base_url), body, api_key=self.api_key, timeout=self.timeout,
            what="the language model", error=ChatError, stream=True,
        )  # fmt: skip
        return ChatStream(response, self.timeout)


class ChatStream:
    """The text deltas of one streamed completion (`choices[0].delta.content`), as they arrive.

    `close()` closes the connection, so the server stops generating: the answer stream calls it
    when its own reader goes away. A stream that ends without `data: [DONE]` or a
    `finish_reason` (the server died, the connection dropped) raises `ChatError`.
    """

    def __init__(self, response: Any, timeout: float) -> None:
        self._response = response
        self._timeout = timeout
        self.finished = False

    def __iter__(self) -> Iterator[str]:
        import requests
        import urllib3

        pending = b""
        try:
            while not self.finished:
                # read1: whatever has arrived (a chunk, a line), without waiting to fill a buffer.
                data = self._response.raw.read1(65536, decode_content=True)
                if not data:
                    break
                *lines, pending = (pending + data).split(b"\n")
                for line in lines:
                    delta = self._line(line.strip())
                    if delta:
                        yield delta
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            if isinstance(exc, (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)):
                raise ChatError(f"the language model stopped sending for {self._timeout:g} s") from exc
            raise ChatError(f"the language model's stream broke off ({type(exc).__name__})") from exc
        finally:
            self.close()
        if not self.finished:
            raise ChatError("the language model's stream ended before the reply was complete")

    def _line(self, line: bytes) -> str:
        """One line of the event stream: the text it adds ("" for comments, roles, the end)."""
        if not line.startswith(b"data:"):
            return ""  # blank separators, ": keep-alive" comments, "event:" names
        payload = line[5:].strip()
        if payload == b"[DONE]":
            self.finished = True
            return ""
        try:
            chunk = json.loads(payload)
        except ValueError as exc:
            raise ChatError("the language model endpoint sent a stream chunk that is not JSON") from exc
        if not isinstance(chunk, dict):
            raise ChatError("the language model endpoint sent a stream chunk that is not an object")
        if chunk.get("error"):
            error = chunk["error"]
            detail = error.get("message", error) if isinstance(error, dict) else error
            raise ChatError(f"the language model reported an error: {detail}")
        choices = chunk.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        if choice.get("finish_reason"):
            self.finished = True  # a usage chunk and "[DONE]" may follow: they add no text
        content = (choice.get("delta") or {}).get("content")
        return content if isinstance(content, str) else ""

    def close(self) -> None:
        self._response.close()


def post_json(
    url: str, body: dict[str, Any], *, api_key: str, timeout: float, what: str, error: type[ChatError],
    stream: bool = False,
) -> Any:  # fmt: skip
    """POST `body` to a model server (chat, rerank); any failure raises `error` naming `what` and why.
    With `stream`, the body is left unread for the caller (who closes the response)."""
    import requests

    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        response = requests.post(url, json=body, headers=headers, timeout=timeout, stream=stream)
    except requests.Timeout as exc:
        raise error(f"{what} did not answer within {timeout:g} s") from exc
    except requests.RequestException as exc:
        raise error(f"{what} endpoint could not be reached ({type(exc).__name__})") from exc
    if response.status_code != 200:
        response.close()
        raise error(f"{what} endpoint answered HTTP {response.status_code}", status=response.status_code)
    return response


def reply_text(response: Any) -> str:
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ChatError("the language model endpoint sent a reply without choices[0].message.content") from exc
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise ChatError("the language model endpoint sent an empty answer")
    return content


def reply_usage(response: Any) -> ChatUsage:
    """The optional `usage` block; servers that omit it (or parts of it) count as zero."""
    try:
        usage = response.json().get("usage") or {}
    except (ValueError, AttributeError):
        return ChatUsage()
    details = usage.get("prompt_tokens_details") or {}
    return ChatUsage(
        prompt_tokens=_count(usage.get("prompt_tokens")),
        cached_prompt_tokens=_count(details.get("cached_tokens") if isinstance(details, dict) else None),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
