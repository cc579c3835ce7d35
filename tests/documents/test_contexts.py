"""Model-written chunk contexts through a local OpenAI-compatible server: prompt shape, shared
prefix, failures, window guarantee, cache reuse, staleness, cost fields, API and admin."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from documents.chunking import embedded_text
from documents.context_writer import ChunkRequest, ContextWriter, document_window
from documents.embedding import ENCODER_WINDOW_TOKENS, count_tokens
from documents.models import Document, DocumentStatus
from documents.selectors import current_pipeline_stamp, is_stale, stale_documents
from documents.services.ingest import document_ingest
from ragsite.llm import ChatEndpoint
from search.services.retrieval import retrieve
from tests.conftest import bearer, ingest_file_inline
from tests.documents.context_model import (
    CONTEXT_WORD,
    FAIL_MARK,
    FLAKY_MARK,
    MODEL,
    ContextModel,
    chunk_of,
    context_server,
    document_of,
)

TITLE = "Consensus notes"
TOPICS = [
    ("Leader election", "A server starts an election when its timeout elapses without a heartbeat from a leader."),
    ("Log replication", f"The leader appends the entry to its log and sends it to followers. {FAIL_MARK} marker."),
    ("Safety", f"A committed entry is present in the logs of all future leaders. {FLAKY_MARK} marker."),
    ("Membership changes", "Configuration changes pass through a joint consensus phase with both majorities."),
    ("Snapshots", "Each server compacts its log into a snapshot of the state machine and discards old entries."),
]


def _write_document(tmp_path: Path, sentences_per_section: int = 6) -> Path:
    parts = [f"# {TITLE}\n"]
    for heading, sentence in TOPICS:
        body = " ".join(
            f"{sentence} Detail {i} of {heading.lower()} follows here." for i in range(sentences_per_section)
        )
        parts.append(f"## {heading}\n\n{body}\n")
    path = tmp_path / "consensus.md"
    path.write_text("\n".join(parts))
    return path


def _users(llm: Any) -> list[str]:
    return [r["body"]["messages"][-1]["content"] for r in llm.requests]


@pytest.mark.slow
@pytest.mark.django_db
def test_ingest_writes_contexts_with_a_shared_document_prefix(
    settings: Any, tmp_path: Path, folder_factory: Any, staff_user: Any, client: Any, memoised_pipeline: None
) -> None:
    model = ContextModel()
    folder = folder_factory(name="Notes")
    with context_server(settings, model) as llm:
        document = ingest_file_inline(_write_document(tmp_path), folder, title=TITLE)
    assert document.status == DocumentStatus.INDEXED
    chunks = list(document.chunks.order_by("ordinal"))
    assert len(chunks) >= len(TOPICS)

    # Prompt shape: system message, then the document, then the chunk; the document part is the
    # same bytes for every chunk (what a prefix-caching server reuses).
    bodies = [r["body"] for r in llm.requests]
    assert all(b["model"] == MODEL and b["messages"][0]["role"] == "system" for b in bodies)
    assert all(b["max_tokens"] == settings.CONTEXT_LLM_MAX_OUTPUT_TOKENS for b in bodies)
    users = _users(llm)
    assert {document_of(u) for u in users} == {f"<document>\n{document.canonical_text}\n</document>\n"}
    assert all(u.index("</document>") < u.index("<chunk>") for u in users)
    assert {chunk_of(u) for u in users} == {c.content for c in chunks}

    # One chunk fails every attempt (1 + 2 retries) and keeps its header; a flaky one is retried.
    failed = [c for c in chunks if FAIL_MARK in c.content]
    flaky = next(c for c in chunks if FLAKY_MARK in c.content)
    assert model.asked[failed[0].content] == 3
    assert model.asked[flaky.content] == 2
    assert document.context_failures == len(failed) == 1
    assert "\n" not in failed[0].context
    assert failed[0].context.startswith(TITLE)
    for chunk in chunks:
        if chunk not in failed:
            header, written = chunk.context.split("\n", 1)
            assert header.startswith(TITLE)
            assert written.startswith(f"Situated {CONTEXT_WORD} context about")
        # The window guarantee holds with the written context, and the quote is the text itself.
        assert chunk.token_count == count_tokens(embedded_text(chunk.context, chunk.content)) <= ENCODER_WINDOW_TOKENS
        assert chunk.content == document.canonical_text[chunk.char_start : chunk.char_end]

    # Cost as the server reported it, summed over the successful replies.
    assert document.context_prompt_tokens == sum(u["prompt_tokens"] for u in model.usage_sent) > 0
    assert document.context_cached_prompt_tokens == sum(
        u["prompt_tokens_details"]["cached_tokens"] for u in model.usage_sent
    )
    assert document.context_completion_tokens == sum(u["completion_tokens"] for u in model.usage_sent)
    assert document.context_seconds > 0
    assert document.context_cache_hits == 0

    # BM25 indexes the written context (a word found only there), and no hit quotes it.
    hits = retrieve(query=CONTEXT_WORD, folder_ids=[folder.pk], k=10, mode="bm25").hits
    assert hits
    assert all(CONTEXT_WORD not in h.content for h in hits)

    # The API and the admin show the failures.
    response = client.get(f"/api/documents/{document.pk}", **bearer(staff_user))
    assert response.status_code == 200
    assert response.json()["context_failures"] == 1
    assert response.json()["context_prompt_tokens"] == document.context_prompt_tokens
    client.force_login(staff_user)
    page = client.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert "Context failures" in page

    # The stamp names the writer and model: switching either makes the document stale.
    assert document.pipeline == current_pipeline_stamp()
    assert MODEL in document.pipeline
    assert not is_stale(document)
    settings.CONTEXT_LLM_MODEL = "another-model"
    assert is_stale(document)
    assert stale_documents().filter(pk=document.pk).exists()
    settings.CONTEXT_WRITER = "none"
    assert is_stale(document)
    assert stale_documents().filter(pk=document.pk).exists()


@pytest.mark.slow
@pytest.mark.django_db
def test_reindex_asks_only_for_chunks_without_a_cached_context(
    settings: Any, tmp_path: Path, folder_factory: Any, memoised_pipeline: None
) -> None:
    model = ContextModel()
    with context_server(settings, model) as llm:
        document = ingest_file_inline(_write_document(tmp_path), folder_factory(), title=TITLE)
        chunk_count = document.chunk_count
        assert document.context_failures == 1
        model.fail = False
        llm.requests.clear()
        document = document_ingest(document.pk) or document
        # Only the chunk that failed before is asked again; the others come from the cache.
        assert [FAIL_MARK in chunk_of(u) for u in _users(llm)] == [True]
        assert (document.context_failures, document.context_cache_hits) == (0, chunk_count - 1)
        before = list(document.chunks.order_by("ordinal").values_list("context", "token_count"))

        llm.requests.clear()
        document = document_ingest(document.pk) or document
        assert llm.requests == []  # every chunk unchanged: the server is asked nothing
        assert (document.context_cache_hits, document.context_prompt_tokens) == (chunk_count, 0)
        assert list(document.chunks.order_by("ordinal").values_list("context", "token_count")) == before


@pytest.mark.slow
@pytest.mark.django_db
def test_long_written_contexts_are_cut_to_the_encoder_window(
    settings: Any, tmp_path: Path, folder_factory: Any, memoised_pipeline: None
) -> None:
    with context_server(settings, ContextModel(fail=False, long=True)):
        document = ingest_file_inline(_write_document(tmp_path, sentences_per_section=14), folder_factory())
    chunks = list(document.chunks.all())
    assert len(chunks) > len(TOPICS)  # sections longer than one chunk: some chunks fill their budget
    reserved_window = ENCODER_WINDOW_TOKENS - settings.CONTEXT_RESERVED_TOKENS
    for chunk in chunks:
        header, written = chunk.context.split("\n", 1)
        assert count_tokens(embedded_text(header, chunk.content)) <= reserved_window  # the chunker left room
        assert written.startswith("Situated")
        assert written.endswith("…")
        assert chunk.token_count == count_tokens(embedded_text(chunk.context, chunk.content)) <= ENCODER_WINDOW_TOKENS
        assert chunk.content == document.canonical_text[chunk.char_start : chunk.char_end]


@pytest.mark.django_db
def test_a_writer_without_an_endpoint_fails_the_document_with_a_reason(
    settings: Any, tmp_path: Path, folder_factory: Any, memoised_pipeline: None
) -> None:
    settings.CONTEXT_WRITER, settings.CONTEXT_LLM_BASE_URL, settings.CONTEXT_LLM_MODEL = "openai", "", ""
    document = ingest_file_inline(_write_document(tmp_path), folder_factory())
    assert document.status == DocumentStatus.FAILED
    assert "CONTEXT_LLM_BASE_URL" in document.failure_reason
    assert not Document.objects.get(pk=document.pk).chunks.exists()


def test_a_long_document_is_cut_to_a_window_around_each_chunk(settings: Any) -> None:
    text = " ".join(f"Sentence {i} about topic {i % 17} in a long report." for i in range(400))
    chunks = [ChunkRequest(text[s : s + 400], s, s + 400) for s in range(0, len(text) - 400, 400)]
    model = ContextModel(fail=False)
    with context_server(settings, model) as llm:
        writer = ContextWriter(ChatEndpoint(llm.base_url, MODEL), max_input_tokens=1500, concurrency=3, retries=0)
        results = writer.write_all(text, chunks)
    assert all(r.context for r in results)
    assert len(llm.requests) == len(chunks)
    windows: set[str] = set()
    for user in _users(llm):
        window = document_of(user).removeprefix("<document>\n").removesuffix("\n</document>\n")
        assert len(window) < len(text)
        assert window in text
        assert chunk_of(user) in window
        windows.add(window)
    assert len(windows) < len(chunks)  # aligned windows: neighbouring chunks share their prefix


@pytest.mark.parametrize("start", [0, 10, 990, 5000, 9600, 9990])
def test_document_window_holds_the_chunk(start: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(10_000))
    end = min(len(text), start + 300)
    window = document_window(text, start, end, 2000)
    assert len(window) == 2000
    assert text[start:end] in window
    assert document_window(text[:1500], 0, 300, 2000) == text[:1500]
    assert text[start : start + 1500] in document_window(text, start, start + 1500, 2000)  # longer than a stride


@pytest.mark.slow
@pytest.mark.django_db
def test_bench_ingest_prints_the_context_writer_totals(settings: Any, tmp_path: Path, memoised_pipeline: None) -> None:
    out = StringIO()
    model = ContextModel()
    with context_server(settings, model):
        call_command("bench_ingest", str(_write_document(tmp_path)), stdout=out)
    line = next(x for x in out.getvalue().splitlines() if x.startswith("context writer:"))
    assert f"{MODEL} at http://127.0.0.1:" in line
    assert f"prompt tokens {sum(u['prompt_tokens'] for u in model.usage_sent)} " in line
    assert "failed chunks 1," in line
    assert "reused from cache 0" in line
