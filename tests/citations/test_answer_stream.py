"""Streamed answers (POST /api/answer with Accept: text/event-stream) over the indexed dev corpus:
the extractive writer's parts at once, a language model's tokens as they arrive (a real local
server streaming OpenAI chunks), markers validated as they close, a model that breaks off
midway, and a reader who leaves (the model's request is closed)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.test import Client, RequestFactory

from citations import event_stream
from citations.marker_stream import MarkerStream
from citations.markers import Part, parse_markers, validate
from citations.models import QuestionLog
from citations.unavailable import READER_MESSAGE
from search.services import query_embedding
from tests.citations.fakes import FakeLLM, StreamingLLM, fake_openai_server, fake_streaming_server
from tests.conftest import dev_reader, ingest_text
from tests.corpus import dev_questions
from tests.embedding_server import EmbeddingServer

DYNAMO = next(q for q in dev_questions() if q["doc"] == "dynamo-amazon-2007.pdf")["queries"][0]
EVENTS = "text/event-stream"


def not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON: a browser's JSON.parse throws on it")


def sse(chunks: Iterable[bytes]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event name, data) of each server-sent event, as the bytes arrive, read as strictly as a
    browser reads JSON (no NaN or Infinity)."""
    pending = b""
    for data in chunks:
        pending += data
        while b"\n\n" in pending:
            block, pending = pending.split(b"\n\n", 1)
            lines = block.decode().split("\n")
            name = next(line[6:].strip() for line in lines if line.startswith("event:"))
            payload = "".join(line[5:].strip() for line in lines if line.startswith("data:"))
            yield name, json.loads(payload, parse_constant=not_json)


def merged(parts: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Part events put together as a client does: text appended to text."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if "text" in part and out and "text" in out[-1]:
            out[-1] = {"text": out[-1]["text"] + part["text"]}
        else:
            out.append(dict(part))
    return out


def token_for(user: Any) -> str:
    from documents.services.tokens import token_create

    return token_create(user=user)[1]


def ask(token: str, question: str, accept: str = EVENTS) -> Any:
    return Client().post(
        "/api/answer", {"question": question}, content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Accept": accept},
    )  # fmt: skip


def streamed(token: str, question: str) -> list[tuple[str, dict[str, Any]]]:
    response = ask(token, question)
    assert response.status_code == 200
    assert response["Content-Type"].startswith(EVENTS)
    return list(sse(response.streaming_content))


def use_model(settings: Any, base_url: str) -> None:
    settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", base_url, "tiny"


@pytest.mark.django_db
def test_extractive_answer_streams_its_parts_at_once_and_ends_as_the_json_answer(dev_corpus: dict[str, Any]) -> None:
    token = token_for(dev_reader())
    plain = ask(token, DYNAMO, accept="*/*")
    assert plain["Content-Type"] == "application/json; charset=utf-8"  # no event-stream asked: JSON as before
    body = plain.json()
    events = streamed(token, DYNAMO)
    names = [name for name, _ in events]
    assert (names[0], names[-1]) == ("sources", "done")
    assert set(names[1:-1]) == {"part"}
    done = events[-1][1]
    assert done["writer"] == "extractive"
    assert done["parts"] == body["parts"]
    assert merged(data for name, data in events if name == "part") == merged(done["parts"])
    # The sources are the JSON answer's citations, field for field (whether cited is known at the end).
    assert set(events[0][1]) == {"citations"}  # the API's events carry no HTML (the page's do)
    assert "sources_html" not in events[-1][1]
    sources = events[0][1]["citations"]
    assert [{**c, "cited": None} for c in sources] == [{**c, "cited": None} for c in body["citations"]]
    assert done["citations"] == body["citations"]
    assert QuestionLog.objects.get(pk=done["id"]).state == done["state"] == "answered"


@pytest.mark.django_db
def test_a_refused_answer_streams_no_sources_and_the_refusal(dev_corpus: dict[str, Any], user_factory: Any) -> None:
    events = streamed(token_for(user_factory(username="stream-outsider")), DYNAMO)
    assert [name for name, _ in events] == ["sources", "done"]
    assert events[0][1] == {"citations": []}
    assert (events[1][1]["state"], events[1][1]["reasons"]) == ("refused", ["nothing_to_search"])


@pytest.mark.django_db
def test_a_marker_naming_no_source_is_dropped_as_it_closes(dev_corpus: dict[str, Any], settings: Any) -> None:
    settings.ANSWER_TOP_SOURCES = 3
    reply = "Dynamo hashes each key with MD5 [1] onto a ring [9]. Nodes own ranges [2, 3]."
    tokens = [
        "Dynamo hashes",
        " each key with MD5 [",
        "1",
        "] onto a ring [",
        "9",
        "].",
        " Nodes own ranges [2",
        ", 3].",
    ]
    assert "".join(tokens) == reply
    token = token_for(dev_reader())
    with fake_streaming_server(StreamingLLM(tokens)) as llm:
        use_model(settings, llm.base_url)
        events = streamed(token, DYNAMO)
    assert llm.requests[0]["stream"] is True
    assert len(events[0][1]["citations"]) == 3
    parts = [data for name, data in events if name == "part"]
    assert {"cite": 9} not in parts
    assert [p["cite"] for p in parts if "cite" in p] == [1, 2, 3]
    done = events[-1][1]
    assert (done["writer"], done["removed_markers"]) == ("openai", [9])
    assert merged(parts) == merged(done["parts"])
    with fake_openai_server(FakeLLM(reply=reply)) as whole:  # the same reply, not streamed
        use_model(settings, whole.base_url)
        body = ask(token, DYNAMO, accept="application/json").json()
    assert done["parts"] == body["parts"]
    assert (
        done["answer"] == body["answer"] == "Dynamo hashes each key with MD5 [1] onto a ring. Nodes own ranges [2][3]."
    )


@pytest.mark.django_db
def test_a_model_that_declines_streams_nothing_and_ends_refused(dev_corpus: dict[str, Any], settings: Any) -> None:
    tokens = ["The", " sources", " do not", " contain", " the answer."]
    with fake_streaming_server(StreamingLLM(tokens)) as llm:
        use_model(settings, llm.base_url)
        events = streamed(token_for(dev_reader()), DYNAMO)
    assert [name for name, _ in events] == ["sources", "done"]
    assert events[1][1]["state"] == "refused"
    assert "writer_declined" in events[1][1]["reasons"]


@pytest.mark.django_db
def test_a_model_that_breaks_off_midway_ends_with_an_error_and_keeps_nothing(
    dev_corpus: dict[str, Any], settings: Any
) -> None:
    tokens = ["Dynamo", " hashes", " keys", " with", " MD5", " [1]", " and", " more."]
    with fake_streaming_server(StreamingLLM(tokens, drop_after=4)) as llm:
        use_model(settings, llm.base_url)
        events = streamed(token_for(dev_reader()), DYNAMO)
    names = [name for name, _ in events]
    assert (names[0], names[-1]) == ("sources", "error")
    assert "part" in names
    assert "done" not in names
    assert "stopped midway" in events[-1][1]["detail"]
    assert not QuestionLog.objects.filter(question=DYNAMO).exists()


LIGHTHOUSE = (
    "Lighthouse keeping\n\n"
    "The keeper lights the lamp at dusk every evening. The wick is trimmed at midnight so the flame "
    "burns clean until dawn. In fog the keeper sounds the horn every thirty seconds.\n"
)


@pytest.mark.django_db
def test_an_embedding_server_lost_while_the_extractive_writer_embeds_ends_with_the_unavailable_words(
    settings: Any, tmp_path: Path, folder_factory: Any, user_factory: Any
) -> None:
    """EMBEDDER=http: the question's vector came (the search ran, the sources were sent), then the
    server fails the sources' sentences: the stream ends with the 503 page's words, nothing kept."""
    reader = user_factory(username="keeper-reader")
    question = "When does the keeper light the lamp?"
    with EmbeddingServer() as server:
        settings.EMBEDDER, settings.EMBEDDING_URL, settings.EMBEDDING_RETRIES = "http", server.url, 0
        ingest_text(tmp_path, folder_factory(name="Coast", readers=[reader]), "Lighthouse keeping", LIGHTHOUSE)
        query_embedding.clear_query_cache()
        response = ask(token_for(reader), question)
        assert response.status_code == 200  # the search ran before the response began
        server.behaviour.fail_next = 1_000
        events = list(sse(response.streaming_content))
        assert server.seen[-1].status == 500  # the writer did ask, and was refused
    names = [name for name, _ in events]
    assert (names[0], names[-1]) == ("sources", "error")
    assert events[0][1]["citations"]
    assert events[-1][1]["detail"] == READER_MESSAGE  # a reader: the cause is for staff and the log
    assert not QuestionLog.objects.filter(question=question).exists()


@pytest.mark.django_db
def test_a_model_that_fails_before_writing_falls_back_to_the_extractive_writer(
    dev_corpus: dict[str, Any], settings: Any
) -> None:
    with fake_openai_server(FakeLLM(status=503)) as llm:
        use_model(settings, llm.base_url)
        events = streamed(token_for(dev_reader()), DYNAMO)
    done = events[-1][1]
    assert (events[-1][0], done["writer"]) == ("done", "extractive")
    assert "HTTP 503" in done["notice"]


def live_events(response: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    def chunks() -> Iterator[bytes]:
        while data := response.raw.read1(65536):
            yield data

    return sse(chunks())


@pytest.mark.django_db(transaction=True)
def test_tokens_reach_the_reader_while_the_model_is_still_writing(
    live_server: Any, dev_corpus: dict[str, Any], settings: Any
) -> None:
    tokens = ["Dynamo", " hashes", " keys", " with", " MD5", " [1]", " onto", " a", " ring."]
    token = token_for(dev_reader())
    with fake_streaming_server(StreamingLLM(tokens, delay=0.3)) as llm:
        use_model(settings, llm.base_url)
        response = requests.post(
            f"{live_server.url}/api/answer", json={"question": DYNAMO}, stream=True, timeout=120,
            headers={"Authorization": f"Bearer {token}", "Accept": EVENTS},
        )  # fmt: skip
        first_part = None
        events = []
        for name, data in live_events(response):
            if name == "part" and first_part is None:
                first_part = time.monotonic()
            events.append((name, data))
        response.close()
    assert first_part is not None
    assert len(llm.sent) == len(tokens)
    assert first_part < llm.sent[-1], "the first part arrived only after the model's last token"
    done = events[-1][1]
    assert done["answer"] == "Dynamo hashes keys with MD5 [1] onto a ring."
    assert merged(data for name, data in events if name == "part") == merged(done["parts"])


@pytest.mark.django_db(transaction=True)
def test_a_reader_who_leaves_closes_the_models_request(
    live_server: Any, dev_corpus: dict[str, Any], settings: Any
) -> None:
    tokens = [f" word{i}" for i in range(60)]
    token = token_for(dev_reader())
    with fake_streaming_server(StreamingLLM(["Dynamo", *tokens, " [1]."], delay=0.1)) as llm:
        use_model(settings, llm.base_url)
        response = requests.post(
            f"{live_server.url}/api/answer", json={"question": DYNAMO}, stream=True, timeout=120,
            headers={"Authorization": f"Bearer {token}", "Accept": EVENTS},
        )  # fmt: skip
        for name, _data in live_events(response):
            if name == "part":
                break
        response.close()  # the reader goes away after the first piece
        assert llm.ended.wait(30)
    assert llm.closed_early.is_set()
    assert len(llm.sent) < 30, f"the model wrote {len(llm.sent)} tokens after the reader left"
    assert not QuestionLog.objects.filter(question=DYNAMO).exists()


@pytest.mark.parametrize(
    "reply",
    [
        "Dynamo hashes keys [1] onto a ring [9]. Nodes own ranges [2, 3].",
        "See [1](http://example.com/x) and [docs](http://y) and KDB+ [22] [2][2] , done [7] .",
        "Trailing blank before a removed marker [9]",
    ],
)
def test_marker_stream_pieces_add_up_to_the_whole_replys_parts(reply: str) -> None:
    valid, quoted = {1, 2, 3}, {(22,)}
    whole = validate(parse_markers(reply, quoted), valid).parts
    for size in (1, 3, 7):
        stream = MarkerStream(valid, quoted, limit=4000)
        pieces: list[Part] = []
        for start in range(0, len(reply), size):
            pieces += stream.feed(reply[start : start + size])
        pieces += stream.finish(whole)
        assert not stream.diverged
        assert {p.n for p in pieces}.isdisjoint({7, 9})
        as_dicts = merged({"text": p.text} if p.n is None else {"cite": p.n} for p in pieces)
        assert as_dicts == merged({"text": p.text} if p.n is None else {"cite": p.n} for p in whole)


def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


@pytest.mark.parametrize("number", [float("nan"), float("inf")], ids=["nan", "infinity"])
def test_a_number_json_cannot_hold_ends_the_stream_with_the_error_event(number: float) -> None:
    from citations.services.answer import Answer
    from citations.services.answer_stream import Done, Sources

    answer = Answer(question="How does Dynamo place keys?", threshold=0.5, best_distance=number)
    response = event_stream.event_response(iter([Sources([]), Done(answer)]), RequestFactory().post("/answers/stream"))
    events = list(sse(response.streaming_content))
    assert events == [("sources", {"citations": []}), ("error", {"detail": event_stream.BROKEN})]


def test_openapi_declares_the_event_stream(client: Client) -> None:
    schema = json.loads(client.get("/api/openapi.json").content, object_pairs_hook=no_duplicates)
    operation = schema["paths"]["/api/answer"]["post"]
    content = operation["responses"]["200"]["content"]
    assert set(content) == {"application/json", EVENTS}
    assert all(f"`{name}`" in operation["description"] for name in ("sources", "part", "done", "error"))


@pytest.mark.django_db
def test_the_page_stream_takes_the_search_form_with_its_csrf_token(dev_corpus: dict[str, Any]) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(dev_reader())
    refused = client.post("/answers/stream", {"q": DYNAMO}, headers={"Accept": EVENTS})
    assert refused.status_code == 403  # no CSRF token: a cross-site form cannot ask in the reader's name
    client.get("/")  # the page sets the CSRF cookie
    csrf = client.cookies["csrftoken"].value
    empty = client.post("/answers/stream", {"q": ""}, headers={"Accept": EVENTS, "X-CSRFToken": csrf})
    assert empty.status_code == 400
    assert "required" in empty.json()["detail"]
    response = client.post("/answers/stream", {"q": DYNAMO}, headers={"Accept": EVENTS, "X-CSRFToken": csrf})
    assert response["Content-Type"].startswith(EVENTS)
    events = list(sse(response.streaming_content))
    done = events[-1][1]
    assert (events[0][0], events[-1][0], done["state"]) == ("sources", "done", "answered")
    row = QuestionLog.objects.get(pk=done["id"])
    assert (row.endpoint, row.state) == ("page", "answered")  # kept as the page's question


@pytest.mark.django_db
def test_the_page_streams_only_when_the_writer_does(dev_corpus: dict[str, Any], settings: Any) -> None:
    client = Client()
    client.force_login(dev_reader())
    page = client.get("/", {"q": DYNAMO, "stream": "1"}).content.decode()
    assert 'id="answer-text"' in page
    assert "data-stream-url" not in page  # the extractive answer is ready at once: rendered as before
    settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", "http://127.0.0.1:9/v1", "tiny"
    assert "data-stream" in client.get("/").content.decode()  # the form asks the script for stream=1
    kept = QuestionLog.objects.filter(question=DYNAMO).count()  # 1: the extractive page above
    page = client.get("/", {"q": DYNAMO, "stream": "1"}).content.decode()
    assert 'data-stream-url="/answers/stream"' in page
    assert 'id="results"' in page  # the documents are listed by the page
    assert QuestionLog.objects.filter(question=DYNAMO).count() == kept  # the answer is the script's to ask


def sources_block(page: str) -> str:
    """The page's sources block, as HTML."""
    start = page.index('<section class="card" aria-labelledby="sources-heading"')
    return page[start : page.index("</section>", start) + len("</section>")]


@pytest.mark.django_db
def test_the_page_stream_sends_the_sources_as_the_answered_page_renders_them(dev_corpus: dict[str, Any]) -> None:
    client = Client()
    client.force_login(dev_reader())
    answered = sources_block(client.get("/", {"q": DYNAMO}).content.decode())  # the extractive writer: at once
    response = client.post("/answers/stream", {"q": DYNAMO}, headers={"Accept": EVENTS})
    events = list(sse(response.streaming_content))
    (first, sources), (last, done) = events[0], events[-1]
    assert (first, last, done["state"]) == ("sources", "done", "answered")
    assert sources["citations"]  # the API's fields stay beside the HTML
    assert done["sources_html"].strip() == answered  # the finished answer's sources: the page's, byte for byte
    # While the answer is written, the same block, but whether each source is cited is not known yet.
    assert 'class="badge">not cited in the answer<' in answered
    writing = answered.replace(' not-cited"', '"').replace('<span class="badge">not cited in the answer</span>', "")
    assert sources["sources_html"].strip() == writing
    for element in ('class="open-link"', 'class="match match-', 'class="citation-authors"', 'class="citation-date"'):
        assert element in writing, element


def result_list(page: str) -> str:
    """The page's document list, as HTML ("" when the page has none)."""
    if 'class="results"' not in page:
        return ""
    start = page.index('<ol class="results"')
    return page[start : page.index("</ol>\n", start)]


def facet_counts(page: str) -> list[tuple[str, str, str]]:
    """(group, label, count) of every facet link, and the documents counted: the links' URLs
    differ only by the page's own stream=1."""
    if 'id="facets"' not in page:
        return []
    facets = page[page.index('id="facets"') : page.index("</fieldset>", page.index('id="facets"'))]
    counted = re.search(r'id="facets-count">([^<]*)<', facets)
    links = re.findall(
        r'id="facet-(\w+)"|<a href="[^"]*"[^>]*>([^<]*)</a> <span class="facet-count">(\d+)</span>', facets
    )
    rows, group = [("documents", "", counted.group(1) if counted else "")], ""
    for name, label, count in links:
        group = name or group
        if label or count:
            rows.append((group, label, count))
    return rows


@pytest.mark.django_db
@pytest.mark.parametrize("params", [{}, {"type": "pdf"}, {"from": "2100-01-01"}], ids=["all", "pdf", "no-match"])
def test_a_streamed_page_lists_the_documents_and_facets_of_the_answer_page(
    dev_corpus: dict[str, Any], settings: Any, params: dict[str, str]
) -> None:
    client = Client()
    client.force_login(dev_reader())
    answered = client.get("/", {"q": DYNAMO, **params}).content.decode()  # the extractive writer: rendered at once
    kept = QuestionLog.objects.filter(question=DYNAMO).count()
    use_model(settings, "http://127.0.0.1:9/v1")  # the page never calls the model: the script asks for the answer
    page = client.get("/", {"q": DYNAMO, "stream": "1", **params}).content.decode()
    assert 'data-stream-url="/answers/stream"' in page
    assert result_list(page) == result_list(answered)  # the same sources pointed at, the same snippets
    assert facet_counts(page) == facet_counts(answered)
    assert ('id="filter-nothing"' in page) == ('id="filter-nothing"' in answered) == ("from" in params)
    if not params:
        assert result_list(page).count('class="result"') == 10  # RESULTS_PER_PAGE
        assert 'class="snippet-link source-link" href="#cite-1"' in result_list(page)  # a source, not again
        assert len(facet_counts(page)) > 3
    assert QuestionLog.objects.filter(question=DYNAMO).count() == kept  # the page logs no streamed answer


@pytest.mark.django_db
def test_a_refused_streamed_page_lists_no_passages_as_the_answer_page(
    dev_corpus: dict[str, Any], settings: Any, user_factory: Any
) -> None:
    client = Client()
    client.force_login(user_factory(username="stream-page-outsider"))  # reads no folder: the gate refuses
    answered = client.get("/", {"q": DYNAMO}).content.decode()
    assert "No answer" in answered
    use_model(settings, "http://127.0.0.1:9/v1")
    page = client.get("/", {"q": DYNAMO, "stream": "1"}).content.decode()
    assert 'data-stream-url="/answers/stream"' in page
    assert result_list(page) == result_list(answered) == ""
    assert facet_counts(page) == facet_counts(answered)
