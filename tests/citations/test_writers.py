"""Answer writers: the extractive one quotes verbatim; the OpenAI-compatible one is prompted,
parsed and validated, and its failures fall back to the extractive writer."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from citations.markers import Part, validate
from citations.services import answer as answer_service
from citations.writers import Source, WriterError, get_writer
from citations.writers.extractive import ELLIPSIS, ExtractiveWriter, quoted_pieces, sentences
from citations.writers.openai_compat import (
    MAX_REPLY_CHARS,
    MAX_REPLY_TOKENS,
    NO_ANSWER,
    OpenAICompatibleWriter,
    build_messages,
)
from tests.citations.fakes import (
    FakeLLM,
    StreamingLLM,
    bag_of_words_embed,
    fake_openai_server,
    fake_streaming_server,
    hit,
    result,
)

SOURCES = [
    Source(1, "Dynamo is a key-value store. It applies a MD5 hash on the key to generate a 128-bit identifier, "
              "which is used to determine the storage nodes that are responsible for serving the key [10]."),
    Source(2, "Bigtable is a distributed storage system. Each tablet is assigned to one tablet server at a time."),
    Source(3, "Raft decomposes consensus into leader election, log replication and safety.\n\n"
              "A leader sends heartbeats to maintain its authority."),
]  # fmt: skip


def written_sentences(parts: list[Part]) -> list[tuple[str, int]]:
    """(quoted stretch, cited source) pairs: every text part must be followed by its marker; a
    stretch ends at an ellipsis (sentences of one source that are not adjacent)."""
    last_marker = max((i for i, p in enumerate(parts) if p.n), default=-1)
    trailing = "".join(p.text for p in parts[last_marker + 1 :])
    assert not trailing.strip(), f"text without a marker: {trailing!r}"
    return quoted_pieces(parts)


def test_sentences_are_verbatim_spans() -> None:
    text = SOURCES[2].text
    found = sentences(text)
    assert found == [
        "Raft decomposes consensus into leader election, log replication and safety.",
        "A leader sends heartbeats to maintain its authority.",
    ]
    assert all(s in text for s in found)


@pytest.mark.parametrize(
    ("question", "expected_source"),
    [
        ("Which hash function does Dynamo apply to the key?", 1),
        ("How many tablet servers is a tablet assigned to?", 2),
        ("What does a Raft leader send to keep its authority?", 3),
    ],
)
def test_extractive_writer_quotes_the_best_sentence_verbatim(question: str, expected_source: int) -> None:
    parts = ExtractiveWriter(embed=bag_of_words_embed).write(question, SOURCES)
    pairs = written_sentences(parts)
    assert pairs, parts
    assert pairs[0][1] == expected_source
    for sentence, n in pairs:
        assert sentence in SOURCES[n - 1].text, (sentence, n)
    checked = validate(parts, {1, 2, 3})
    assert checked.removed == []
    assert not checked.uncited


def test_extractive_writer_keeps_in_sentence_references_as_text() -> None:
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("MD5 hash 128-bit identifier storage nodes", SOURCES)
    sentence, n = written_sentences(parts)[0]
    assert "[10]" in sentence
    assert n == 1
    assert validate(parts, {1, 2, 3}).cited[0] == 1


def test_the_extractive_writer_embeds_each_sentence_once_and_not_the_question(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sentence two sources share is embedded once; the question's vector is the one the search
    made (search.services.query_embedding), unless questions and chunks get different prefixes."""
    from documents import embedding
    from search.services import query_embedding

    batches: list[list[str]] = []
    real = embedding.embed_texts

    def counting(texts: list[str], batch_size: int | None = None) -> Any:
        batches.append(list(texts))
        return real(texts, batch_size)

    monkeypatch.setattr(embedding, "embed_texts", counting)
    question = "Which hash function does Dynamo apply to the key?"
    query_embedding.query_vector(question)  # as the search has just made it
    twice = [SOURCES[0], Source(2, SOURCES[0].text)]
    parts = ExtractiveWriter().write(question, twice)
    assert "It applies a MD5 hash on the key" in written_sentences(parts)[0][0]
    assert batches == [sentences(SOURCES[0].text)]  # both usable sentences, once each; no question
    settings.EMBEDDING_QUERY_PREFIX = "query: "
    batches.clear()
    assert ExtractiveWriter().write(question, twice) == parts
    assert batches == [sentences(SOURCES[0].text), [question]]  # embedded as the sentences are


def test_extractive_writer_with_the_real_encoder() -> None:
    question = "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?"
    parts = ExtractiveWriter().write(question, SOURCES)
    pairs = written_sentences(parts)
    assert pairs[0] == (
        "It applies a MD5 hash on the key to generate a 128-bit identifier, which is used to determine the "
        "storage nodes that are responsible for serving the key [10].",
        1,
    )
    assert all(s in SOURCES[n - 1].text for s, n in pairs)


# Four sentences of one passage; the question's rare words sit in the fourth and the second.
ORDERED = Source(
    1,
    "A trusted central mint checks every transaction for double spending. "
    "Timestamp servers hash each block of items and publish the hash widely. "
    "The mint must be trusted by everyone. "
    "Proof-of-work chains the timestamp hashes so that history cannot be changed.",
)


def test_extractive_writer_keeps_the_source_order_and_marks_gaps() -> None:
    question = "How does the proof-of-work timestamp chain stop double spending?"
    parts = ExtractiveWriter(embed=bag_of_words_embed).write(question, [ORDERED])
    pieces = written_sentences(parts)
    assert {n for _, n in pieces} == {1}
    offsets = [ORDERED.text.index(piece) for piece, _ in pieces]
    assert offsets == sorted(offsets), pieces  # read in the passage's order, whatever they scored
    text = "".join(p.text for p in parts if p.n is None)
    if len(pieces) > 1:
        assert ELLIPSIS in text  # the sentences quoted are not all next to each other


def test_extractive_writer_joins_adjacent_sentences_without_an_ellipsis() -> None:
    source = Source(1, "Raft elects a leader with randomized election timeouts. The election timeout is drawn "
                       "from a fixed interval of 150-300 milliseconds.")  # fmt: skip
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("What interval is the Raft election timeout drawn from?",
                                                             [source])  # fmt: skip
    text = "".join(p.text for p in parts if p.n is None)
    assert ELLIPSIS not in text
    assert [p.n for p in parts if p.n] == [1]


def test_extractive_writer_takes_the_next_source_over_a_third_sentence_of_the_first() -> None:
    first = Source(1, "Dynamo replicates each key at N hosts. Dynamo uses vector clocks for versions. "
                      "Dynamo hands conflicting versions to the client.")  # fmt: skip
    second = Source(2, "Dynamo resolves version conflicts in the client during reads.")
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("How does Dynamo resolve version conflicts?",
                                                             [first, second])  # fmt: skip
    pieces = written_sentences(parts)
    cited = [n for _, n in pieces]
    assert cited.count(1) <= 2
    assert 2 in cited
    for piece, n in pieces:
        assert piece in (first, second)[n - 1].text


def test_extractive_writer_quotes_the_nearest_opening_when_no_sentence_shares_a_word() -> None:
    far = Source(1, "Tablets are split when they grow too large. Each tablet has one server.", distance=0.41)
    near = Source(2, "Leases bound the time a master may act alone. Clocks must be roughly in sync.", distance=0.33)
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("Why does my sourdough collapse overnight?", [far, near])
    assert parts == [Part(near.text), Part(" "), Part.marker(2)]  # both sentences: the opening, in one piece


def test_extractive_writer_prefers_the_sentence_stating_the_kind_of_fact_asked() -> None:
    source = Source(1, "Bigtable stores data in SSTables made of blocks. "
                       "Compression is applied per block and is configurable. "
                       "Typically each block is 64KB in size.")  # fmt: skip
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("What is the default block size in an SSTable?", [source])
    assert "64KB" in "".join(p.text for p in parts)


def test_extractive_writer_skips_empty_sources() -> None:
    parts = ExtractiveWriter(embed=bag_of_words_embed).write("Which hash does Dynamo apply?",
                                                             [Source(1, "  "), SOURCES[0]])  # fmt: skip
    assert {p.n for p in parts if p.n} == {1}
    assert ExtractiveWriter(embed=bag_of_words_embed).write("anything", [Source(1, " ")]) == []


def test_prompt_holds_numbered_source_texts_only() -> None:
    messages = build_messages("Which hash?", SOURCES)
    system, user = messages[0]["content"], messages[1]["content"]
    assert "cite every sentence" in system.lower()
    assert "[1]" in system
    assert NO_ANSWER in system
    assert user.startswith("Sources:\n\n[1] Dynamo is a key-value store.")
    assert "[2] Bigtable" in user
    assert "[3] Raft" in user
    assert user.endswith("Question: Which hash?")
    # The paper's own reference "[10]" cannot be mistaken for a source number.
    assert "[10]" not in user
    assert "(ref. 10)" in user


def test_openai_writer_against_a_local_endpoint(settings: Any) -> None:
    with fake_openai_server(FakeLLM(reply="Dynamo applies MD5 [1], see [1](https://x.example).")) as llm:
        writer = OpenAICompatibleWriter(base_url=llm.base_url, model="tiny", api_key="k-123", timeout=5)
        parts = writer.write("Which hash?", SOURCES)
    checked = validate(parts, {1, 2, 3})
    assert checked.text == "Dynamo applies MD5 [1], see [1]."
    request = llm.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer k-123"
    assert request["body"]["model"] == "tiny"
    assert request["body"]["temperature"] == 0
    assert [m["role"] for m in request["body"]["messages"]] == ["system", "user"]


def test_openai_writer_bounds_the_reply_so_a_model_that_never_stops_still_answers() -> None:
    # Seen on llama.cpp's server with a base model (docs/LLM-CHECK.md): without max_tokens it wrote
    # until its context was full, for minutes, and every answer timed out. This fake writes on (past
    # the writer's timeout) unless max_tokens bounds it.
    def generate(body: dict[str, Any]) -> tuple[int, str, dict[str, Any] | None]:
        limit = body.get("max_tokens")
        if limit is None:
            time.sleep(2.0)
        return 200, "Noise " * min(int(limit or 5000), 200) + "[1].", None

    with fake_openai_server(FakeLLM(respond=generate)) as llm:
        parts = OpenAICompatibleWriter(base_url=llm.base_url, model="tiny", timeout=1.0).write("Which hash?", SOURCES)
    assert llm.requests[0]["body"]["max_tokens"] == MAX_REPLY_TOKENS
    assert validate(parts, {1, 2, 3}).cited == [1]
    assert MAX_REPLY_TOKENS >= MAX_REPLY_CHARS // 4  # room for the longest reply the writer keeps


def test_openai_writer_bounds_a_streamed_reply_as_a_whole_one() -> None:
    # The streamed request is the same request with stream: true, so it carries the same bound.
    with fake_streaming_server(StreamingLLM(["Noise ", "[1]."])) as llm:
        tokens = list(OpenAICompatibleWriter(base_url=llm.base_url, model="tiny").stream("Which hash?", SOURCES))
    assert "".join(tokens) == "Noise [1]."
    assert llm.requests[0]["stream"] is True
    assert llm.requests[0]["max_tokens"] == MAX_REPLY_TOKENS


def test_openai_writer_keeps_a_quoted_source_reference_as_text() -> None:
    # Source 1 ends "... serving the key [10]."; the model copies "[10]", which is no source number.
    with fake_openai_server(FakeLLM(reply="The key's MD5 picks the nodes [10] [1]. See also [3][12].")) as llm:
        parts = OpenAICompatibleWriter(base_url=llm.base_url, model="tiny").write("Which hash?", SOURCES)
    checked = validate(parts, {1, 2, 3})
    assert checked.parts[:2] == [Part("The key's MD5 picks the nodes [10] "), Part.marker(1)]
    assert checked.text == "The key's MD5 picks the nodes ⟦10⟧ [1]. See also [3]."
    assert (checked.cited, checked.removed) == ([1, 3], [12])


@pytest.mark.parametrize(
    ("llm", "message"),
    [
        (FakeLLM(delay=2.0), "did not answer within 0.5 s"),
        (FakeLLM(status=500), "answered HTTP 500"),
        (FakeLLM(raw_body=b"<html>not json</html>"), r"without choices\[0\]\.message\.content"),
        (FakeLLM(reply="   "), "empty answer"),
    ],
)
def test_openai_writer_failures_raise_a_clear_error(llm: FakeLLM, message: str) -> None:
    with fake_openai_server(llm) as running:
        writer = OpenAICompatibleWriter(base_url=running.base_url, model="tiny", timeout=0.5)
        with pytest.raises(WriterError, match=message):
            writer.write("Which hash?", SOURCES)


def test_unreachable_endpoint_raises_writer_error() -> None:
    writer = OpenAICompatibleWriter(base_url="http://127.0.0.1:9/v1", model="tiny", timeout=1)
    with pytest.raises(WriterError, match="could not be reached"):
        writer.write("q", SOURCES)


def test_get_writer_by_settings(settings: Any) -> None:
    settings.ANSWER_WRITER = "extractive"
    assert get_writer().name == "extractive"
    settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", "http://127.0.0.1:1/v1", "m"
    assert get_writer().name == "openai"
    settings.LLM_BASE_URL = ""
    with pytest.raises(WriterError, match="LLM_BASE_URL"):
        get_writer()
    with pytest.raises(ValueError, match="ANSWER_WRITER"):
        get_writer("poet")


def _fake_search(monkeypatch: pytest.MonkeyPatch, hits: list[Any]) -> None:
    # The answer service's own seam: the name it calls (search.api keeps the real one).
    monkeypatch.setattr(answer_service, "search_chunks", lambda **kw: result(kw["query"], hits))


HITS = [hit(i + 1, s.text, title=f"Secret title {i + 1}") for i, s in enumerate(SOURCES)]


@pytest.mark.django_db
def test_answer_service_with_openai_removes_unknown_markers(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_search(monkeypatch, HITS)
    with fake_openai_server(FakeLLM(reply="MD5 [1]. Tablets have one server [2][9].")) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        answer = answer_service.answer_question(user=None, question="Which hash?")
    assert answer.writer == "openai"
    assert answer.text == "MD5 [1]. Tablets have one server [2]."
    assert answer.removed_markers == [9]
    assert not answer.uncited
    assert [c.cited for c in answer.citations] == [True, True, False]
    # The model saw numbered texts only: no titles, ids, folders or links.
    sent = json.dumps(llm.requests[0]["body"])
    assert "Secret title" not in sent
    assert "/documents/" not in sent
    assert "Folder" not in sent


@pytest.mark.django_db
def test_answer_service_flags_an_uncited_model_answer(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_search(monkeypatch, HITS)
    with fake_openai_server(FakeLLM(reply="Dynamo hashes keys with MD5.")) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        answer = answer_service.answer_question(user=None, question="Which hash does Dynamo use?")
    assert answer.text == "Dynamo hashes keys with MD5."
    assert answer.uncited
    assert (answer.state, answer.refused) == ("answered", False)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "reply",
    [NO_ANSWER, "The sources don’t contain information about the 1954 World Cup.", "None of the sources says who won."],
)
def test_a_model_that_finds_no_answer_in_the_sources_refuses(
    reply: str, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_search(monkeypatch, HITS)
    with fake_openai_server(FakeLLM(reply=reply)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        answer = answer_service.answer_question(user=None, question="Who won the 1954 World Cup?")
    assert (answer.state, answer.refused, answer.reasons) == ("refused", True, ["writer_declined"])
    assert answer.text == f"No answer: {answer.message}"
    assert answer.message.endswith(reply)
    assert (answer.citations, answer.passages, answer.writer) == ([], [], None)


@pytest.mark.django_db
def test_a_model_that_answers_in_part_is_not_a_refusal(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_search(monkeypatch, HITS)
    reply = "The sources do not contain the year, but Dynamo hashes keys with MD5 [1]."
    with fake_openai_server(FakeLLM(reply=reply)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        answer = answer_service.answer_question(user=None, question="When did Dynamo adopt MD5?")
    assert answer.state == "answered"
    assert answer.citations[0].cited


@pytest.mark.django_db
def test_answer_service_falls_back_to_extractive_when_the_endpoint_times_out(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_search(monkeypatch, HITS)
    monkeypatch.setattr("citations.writers.extractive.ExtractiveWriter.embed", lambda self, t: bag_of_words_embed(t))
    monkeypatch.setattr(
        "citations.writers.extractive.ExtractiveWriter.embed_question", lambda self, q: bag_of_words_embed([q])[0]
    )
    with fake_openai_server(FakeLLM(delay=2.0)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        settings.LLM_TIMEOUT_SECONDS = 0.3
        answer = answer_service.answer_question(user=None, question="Which hash function does Dynamo apply?")
    assert answer.writer == "extractive"
    assert "did not answer within 0.3 s" in answer.notice
    assert answer.citations[0].cited
    assert not answer.uncited
    assert "MD5" in answer.text
