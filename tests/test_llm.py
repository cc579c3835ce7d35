"""The shared chat client (ragsite/llm.py): usage parsing and errors, against a local fake server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragsite.llm import ChatEndpoint, ChatError, ChatUsage, reply_usage
from tests.citations.fakes import FakeLLM, fake_openai_server


class _Reply:
    def __init__(self, body: Any) -> None:
        self.body = body

    def json(self) -> Any:
        if isinstance(self.body, Exception):
            raise self.body
        return self.body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"usage": {"prompt_tokens": 10, "completion_tokens": 3}}, ChatUsage(10, 0, 3)),
        ({"usage": {"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}}},
         ChatUsage(10, 8, 3)),
        ({"usage": {"prompt_tokens": "many", "prompt_tokens_details": None}}, ChatUsage()),
        ({"choices": []}, ChatUsage()),
        (ValueError("not json"), ChatUsage()),
    ],
)  # fmt: skip
def test_usage_is_read_when_reported_and_zero_otherwise(body: Any, expected: ChatUsage) -> None:
    assert reply_usage(_Reply(body)) == expected


def test_endpoint_sends_options_and_returns_text_and_usage() -> None:
    usage = {"prompt_tokens": 12, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 6}}
    llm = FakeLLM(respond=lambda body: (200, "  a context  ", usage))
    with fake_openai_server(llm):
        reply = ChatEndpoint(llm.base_url, "m", api_key="k").complete([{"role": "user", "content": "x"}], max_tokens=5)
    assert (reply.text, reply.usage) == ("  a context  ", ChatUsage(12, 6, 2))
    sent = llm.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == "Bearer k"
    assert (sent["body"]["model"], sent["body"]["max_tokens"], sent["body"]["temperature"]) == ("m", 5, 0)


def test_an_http_error_carries_its_status() -> None:
    llm = FakeLLM(status=429, raw_body=json.dumps({"error": "slow down"}).encode())
    with fake_openai_server(llm), pytest.raises(ChatError, match="HTTP 429") as caught:
        ChatEndpoint(llm.base_url, "m").complete([{"role": "user", "content": "x"}])
    assert caught.value.status == 429
