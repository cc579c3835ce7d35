"""The steps of `manage.py check_llm`: the product's language-model paths against a real server.

Each step is a function `step(run: CheckRun) -> list[str]`: it drives one path (the raw
protocol, the answer writer, its refusal and timeout, the context writer, `evaluate
--write-contexts`) and returns what it saw, shortened, for docs/LLM-CHECK.md; it raises
`CheckFailed` when the path does not behave as the product needs. `STEPS` lists them in order;
a new path is one more function in that tuple.

The model is a base model: its answers and contexts are noise. What is checked is the protocol
and the product's handling of it, never the quality of what the model wrote.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.test import override_settings

SHOWN_CHARS = 160  # how much of a model's reply the record shows


class CheckFailed(Exception):
    """The path misbehaved: wrong protocol, the product's parsing failed, a hang instead of a timeout."""


@dataclass
class CheckRun:
    """What every step gets: the server, the documents and questions, and a place for files."""

    base_url: str  # the OpenAI-compatible root, ".../v1"
    model_path: Path  # the GGUF, for a step that needs a server of its own
    model: str  # the name sent as "model" (llama.cpp's server serves whatever it loaded)
    slot_context: int  # tokens per server slot, from /props
    documents: list[Path]
    questions: list[dict[str, Any]]  # dev-questions.jsonl rows about `documents`
    work_dir: Path
    facts: dict[str, Any] = field(default_factory=dict)  # figures the record shows beside the steps

    def text_of(self, path: Path) -> str:
        from documents.extraction.dispatch import extract_document
        from documents.services.upload import content_type_for

        return extract_document(path, content_type_for(path.name)).text


@dataclass(frozen=True)
class StepResult:
    name: str
    ok: bool
    seconds: float
    lines: list[str]


Step = Callable[[CheckRun], list[str]]


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def said(text: str, limit: int = SHOWN_CHARS) -> str:
    """A model's words as the record shows them: shortened, and with dots and slashes inside words
    and backticks drawn as look-alikes, so the docs check (tests/test_named_references.py) does not
    take the model's noise (file names, paths) for references to this repository."""
    shown = re.sub(r"(?<=\w)\.(?=\w)", "\u2024", shorten(text, limit))
    return re.sub(r"(?<=\w)/(?=\w)", "\u2215", shown).replace("`", "\u02cb")


def paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the blank-line-separated paragraphs of `text` with some words in them."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.|\n(?!\s*\n))*", text)]
    return [(a, b) for a, b in spans if len(text[a:b].split()) >= 12]


def nearest_paragraphs(text: str, question: str, count: int) -> list[str]:
    """The paragraphs sharing the most words with `question`: sources a retriever could have found."""
    words = set(re.findall(r"[a-z0-9]{3,}", question.lower()))
    spans = paragraphs(text)
    ranked = sorted(spans, key=lambda s: -len(words & set(re.findall(r"[a-z0-9]{3,}", text[s[0] : s[1]].lower()))))
    return [text[a:b] for a, b in ranked[:count]]


def chat_body(messages: list[dict[str, str]], **options: Any) -> dict[str, Any]:
    return {"model": "", "messages": messages, "temperature": 0, **options}


def post(run: CheckRun, body: dict[str, Any], *, stream: bool = False, timeout: float = 120.0) -> Any:
    import requests

    body = {**body, "model": run.model}
    response = requests.post(f"{run.base_url}/chat/completions", json=body, stream=stream, timeout=timeout)
    if response.status_code != 200:
        raise CheckFailed(f"HTTP {response.status_code}: {shorten(response.text)}")
    return response


def sse_events(response: Any) -> Iterator[str]:
    """The `data:` payloads of a server-sent event stream, as they arrive."""
    for raw in response.iter_lines(decode_unicode=True):
        if raw and raw.startswith("data:"):
            yield raw[len("data:") :].strip()


def sample_messages(run: CheckRun, ask: str = "Summarise the text above in one sentence.") -> list[dict[str, str]]:
    text = run.text_of(run.documents[0])
    return [{"role": "user", "content": f"{ask}\n\n{text[:3000]}\n\n{ask}"}]


# --- The raw protocol the product relies on ------------------------------------------------------------


def step_stream_protocol(run: CheckRun) -> list[str]:
    """`stream: true` sends `chat.completion.chunk` events with `delta.content`, a usage block, `[DONE]`."""
    body = chat_body(sample_messages(run), max_tokens=64, stream=True, stream_options={"include_usage": True})
    started = time.monotonic()
    response = post(run, body, stream=True)
    kind = response.headers.get("Content-Type", "")
    first_token: float | None = None
    pieces: list[str] = []
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] = {}
    done = False
    objects: set[str] = set()
    for data in sse_events(response):
        if data == "[DONE]":
            done = True
            break
        chunk = json.loads(data)
        objects.add(chunk.get("object", ""))
        for choice in chunk.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                first_token = first_token if first_token is not None else time.monotonic() - started
                pieces.append(piece)
        usage = chunk.get("usage") or usage
        timings = chunk.get("timings") or timings
    if not kind.startswith("text/event-stream"):
        raise CheckFailed(f"Content-Type {kind!r}, not text/event-stream")
    if objects != {"chat.completion.chunk"} or len(pieces) < 2 or not done:
        raise CheckFailed(
            f"objects {sorted(objects)}, {len(pieces)} content chunks, [DONE] {'seen' if done else 'missing'}"
        )
    if not usage or not usage.get("completion_tokens"):
        raise CheckFailed("no usage block with completion_tokens in the stream (stream_options.include_usage)")
    run.facts["tokens_per_second"] = round(float(timings.get("predicted_per_second", 0.0)), 1)
    run.facts["prompt_tokens_per_second"] = round(float(timings.get("prompt_per_second", 0.0)), 1)
    return [
        f"Content-Type `{kind}`; {len(pieces)} `chat.completion.chunk` events with `delta.content`, then `[DONE]`",
        f"first content after {first_token or 0:.2f} s; usage in the stream: `{json.dumps(usage)}`",
        f"llama.cpp timings: {run.facts['prompt_tokens_per_second']} prompt tokens/s, "
        f"{run.facts['tokens_per_second']} generated tokens/s",
        f"text: “{said(''.join(pieces))}”",
    ]


def step_usage_and_cache(run: CheckRun) -> list[str]:
    """The same prompt twice through the product's client: the second reports cached prompt tokens."""
    from ragsite.llm import ChatEndpoint

    endpoint = ChatEndpoint(run.base_url, run.model, timeout=120.0)
    messages = sample_messages(run, "In one sentence, what is the text above about?")  # not yet cached
    first = endpoint.complete(messages, max_tokens=8).usage
    if first.prompt_tokens < 200:  # the prompt holds 3,000 characters of the document
        raise CheckFailed(f"{first.prompt_tokens} prompt tokens: the server did not template the messages")
    second = endpoint.complete(messages, max_tokens=8).usage
    raw = post(run, chat_body(messages, max_tokens=8)).json()
    details = (raw.get("usage") or {}).get("prompt_tokens_details")
    if not isinstance(details, dict) or "cached_tokens" not in details:
        raise CheckFailed(f"no usage.prompt_tokens_details.cached_tokens in {json.dumps(raw.get('usage'))}")
    run.facts["cached_tokens"] = f"{second.cached_prompt_tokens} of {second.prompt_tokens}"
    if second.prompt_tokens <= 0 or second.cached_prompt_tokens < second.prompt_tokens // 2:
        raise CheckFailed(f"the repeated prompt reports {second.cached_prompt_tokens} of {second.prompt_tokens} cached")
    return [
        f"ragsite.llm.ChatEndpoint reads: prompt {first.prompt_tokens} tokens, cached {first.cached_prompt_tokens}; "
        f"the same again: prompt {second.prompt_tokens}, cached {second.cached_prompt_tokens}",
        f"a third time, the raw usage block: `{json.dumps(raw['usage'])}`",
    ]


# --- The answer writer --------------------------------------------------------------------------------


def answer_settings(run: CheckRun, timeout: float = 120.0) -> AbstractContextManager[Any]:
    return override_settings(ANSWER_WRITER="openai", LLM_BASE_URL=run.base_url, LLM_MODEL=run.model,
                             LLM_API_KEY="", LLM_TIMEOUT_SECONDS=timeout)  # fmt: skip


def question_sources(run: CheckRun, row: dict[str, Any]) -> tuple[str, list[Any]]:
    from citations.writers import Source

    path = next(p for p in run.documents if p.name == row["doc"])
    question = str(row["queries"][0])
    texts = nearest_paragraphs(run.text_of(path), question, 3)
    return question, [Source(n, text) for n, text in enumerate(texts, 1)]


ANSWER_SECONDS = 300.0  # a base model writes its max_tokens (1024) every time: ~80 s at 13 tokens/s


def step_answer_writer(run: CheckRun) -> list[str]:
    """ANSWER_WRITER=openai through get_writer(): parts with validated markers, or a refusal."""
    from citations.markers import validate
    from citations.writers import WriterDeclined, WriterError, get_writer

    lines: list[str] = []
    with answer_settings(run, timeout=ANSWER_SECONDS):
        for row in run.questions[:1]:
            question, sources = question_sources(run, row)
            started = time.monotonic()
            try:
                parts = get_writer().write(question, sources)
            except WriterDeclined as exc:
                lines.append(f"{row['id']} “{shorten(question, 80)}”: declined “{said(str(exc))}”")
                continue
            except WriterError as exc:
                raise CheckFailed(f"{row['id']}: WriterError {exc}") from exc
            checked = validate(parts, {s.n for s in sources})
            lines.append(
                f"{row['id']} “{shorten(question, 80)}” ({time.monotonic() - started:.1f} s): "
                f"cited {sorted(checked.cited) or 'nothing'}, removed markers {checked.removed or 'none'}; "
                f"“{said(checked.text)}”"
            )
    return lines


DISCONNECT_AFTER_TOKENS = 5  # the streamed step's reader leaves after this many tokens
DISCONNECT_IDLE_SECONDS = 15.0  # by then the server must have stopped generating for it


def step_streamed_answer(run: CheckRun) -> list[str]:
    """The streamed answer's path (citations/services/answer_stream.py): the writer's token stream
    through the same MarkerStream, validated parts as they settle, the whole reply's parts at the
    end; then a reader that leaves early, whose closed stream must stop the server's generation."""
    from citations.marker_stream import MarkerStream
    from citations.writers import WriterDeclined, WriterError, get_writer
    from citations.writers.openai_compat import MAX_REPLY_CHARS, OpenAICompatibleWriter, may_decline, quoted_markers

    question, sources = question_sources(run, run.questions[0])
    with answer_settings(run, timeout=ANSWER_SECONDS):
        writer = get_writer()
        if not isinstance(writer, OpenAICompatibleWriter):
            raise CheckFailed(f"ANSWER_WRITER=openai gave {type(writer).__name__}")
        markers = MarkerStream({s.n for s in sources}, quoted_markers(sources), limit=MAX_REPLY_CHARS, hold=may_decline)
        started, first, tokens, pieces = time.monotonic(), None, 0, 0
        try:
            for token in writer.stream(question, sources):
                tokens += 1
                for _part in markers.feed(token):
                    first = first if first is not None else time.monotonic() - started
                    pieces += 1
                if markers.full:
                    break
            whole = f"{len(writer.reply_parts(markers.text, sources))} parts"
        except WriterDeclined as exc:
            whole = f"declined “{said(str(exc))}”"
        except WriterError as exc:
            raise CheckFailed(f"WriterError {exc}") from exc
        elapsed = time.monotonic() - started
        if tokens < 2:
            raise CheckFailed(f"{tokens} token(s) streamed")
        stream = writer.stream(question, sources)
        for _count, _token in zip(range(DISCONNECT_AFTER_TOKENS), stream, strict=False):
            pass
        stream.close()  # what the answer stream does when its reader goes away
        idle = slots_idle_after(run, DISCONNECT_IDLE_SECONDS)
        if idle is None:
            raise CheckFailed(f"the server still generates {DISCONNECT_IDLE_SECONDS:g} s after the reader closed")
    run.facts["stream_stop_seconds"] = round(idle, 1)
    return [
        f"{tokens} tokens in {elapsed:.1f} s; {pieces} validated parts sent as they settled, the first after "
        f"{first if first is not None else elapsed:.2f} s; the whole reply: {whole}",
        f"a reader leaving after {DISCONNECT_AFTER_TOKENS} tokens: the server's slot is idle {idle:.1f} s later",
    ]


# llama.cpp's grammar syntax (GBNF): the only reply the sampler may produce.
DECLINE_GRAMMAR = 'root ::= "The sources do not contain the answer."'


def step_writer_declined(run: CheckRun) -> list[str]:
    """A model replying that the sources do not hold the answer gives WriterDeclined, not an answer.

    A base model never says so by itself (it echoes the prompt), so this step starts a second server
    whose default grammar lets the model write only the instructed sentence. The model, server,
    protocol, prompt and the product's parsing are all real; only the sampler is constrained."""
    from bench.llm_server import LlamaServer
    from citations.writers import WriterDeclined, WriterError, get_writer
    from search.services.gate import writer_declined_message

    row = run.questions[0]
    question, sources = question_sources(run, row)
    args = ("--no-jinja", "--chat-template", "gemma", "--ctx-size", "4096", "--parallel", "1", "--threads", "1",
            "--grammar", DECLINE_GRAMMAR)  # fmt: skip
    with LlamaServer(run.model_path, run.work_dir / "server-declining.log", args=args) as server:
        declining = CheckRun(**{**run.__dict__, "base_url": f"{server.url}/v1"})
        with answer_settings(declining):
            try:
                parts = get_writer().write(question, sources)
            except WriterDeclined as exc:
                message = writer_declined_message(str(exc))
                return [f"`--grammar '{DECLINE_GRAMMAR}'`; {row['id']}: WriterDeclined “{said(str(exc))}”",
                        f"the answer is refused with: “{said(message)}”"]  # fmt: skip
            except WriterError as exc:
                raise CheckFailed(f"WriterError {exc}") from exc
    raise CheckFailed(f"the reply was kept as an answer: “{said(''.join(p.text for p in parts))}”")


SLOT_FREED_SECONDS = 120.0


def step_answer_timeout(run: CheckRun) -> list[str]:
    """A tiny LLM_TIMEOUT_SECONDS gives the product's timeout error at once, and the server serves on."""
    from citations.writers import WriterError, get_writer

    row = run.questions[0]
    question, sources = question_sources(run, row)
    started = time.monotonic()
    with answer_settings(run, timeout=0.05):
        try:
            get_writer().write(question, sources)
        except WriterError as exc:
            elapsed = time.monotonic() - started
            if "did not answer within" not in str(exc) or elapsed > 5:
                raise CheckFailed(f"after {elapsed:.2f} s: {exc}") from exc
            freed = slots_idle_after(run, SLOT_FREED_SECONDS)
            if freed is None:
                raise CheckFailed(
                    f"the server still works on the abandoned request {SLOT_FREED_SECONDS:g} s later"
                ) from exc
            run.facts["slot_freed_seconds"] = round(freed, 1)
            idle = f"the server works on the abandoned request another {freed:.1f} s, then its slot is idle (/slots)"
            return [f"LLM_TIMEOUT_SECONDS=0.05: WriterError “{exc}” after {elapsed:.2f} s", idle]
    raise CheckFailed("the writer answered within 0.05 s; the timeout path was not taken")


def slots_idle_after(run: CheckRun, limit: float) -> float | None:
    """Seconds until no slot of the server is processing (llama.cpp's /slots), None past `limit`."""
    import requests

    started = time.monotonic()
    root = run.base_url.removesuffix("/v1")
    while time.monotonic() - started < limit:
        time.sleep(0.2)
        slots = requests.get(f"{root}/slots", timeout=5).json()
        if not any(slot.get("is_processing") for slot in slots):
            return time.monotonic() - started
    return None


# --- The context writer -------------------------------------------------------------------------------


def context_settings(run: CheckRun, **overrides: Any) -> AbstractContextManager[Any]:
    values: dict[str, Any] = {
        "CONTEXT_WRITER": "openai", "CONTEXT_LLM_BASE_URL": run.base_url, "CONTEXT_LLM_MODEL": run.model,
        "CONTEXT_LLM_API_KEY": "", "CONTEXT_LLM_MAX_INPUT_TOKENS": run.slot_context,
        "CONTEXT_LLM_MAX_OUTPUT_TOKENS": 64, "CONTEXT_LLM_CONCURRENCY": 1, "CONTEXT_LLM_RETRIES": 1,
        "CONTEXT_LLM_BACKOFF_SECONDS": 0.2, "CONTEXT_LLM_TIMEOUT_SECONDS": 120.0,
    }  # fmt: skip
    return override_settings(**{**values, **overrides})


def chunk_requests(text: str, count: int) -> list[Any]:
    from documents.context_writer import ChunkRequest

    return [ChunkRequest(text[a:b], a, b) for a, b in paragraphs(text)[:count]]


def step_context_writer(run: CheckRun) -> list[str]:
    """writer_from_settings() writes a context per chunk; chunks after the first reuse the cached document."""
    from documents.services.contexts import writer_from_settings

    path = run.documents[0]
    text = run.text_of(path)
    chunks = chunk_requests(text, 3)
    with context_settings(run):
        started = time.monotonic()
        results = writer_from_settings().write_all(text, chunks)
    failed = [r.error for r in results if r.context is None]
    if failed:
        raise CheckFailed(f"{len(failed)} of {len(results)} contexts failed: {failed[0]}")
    later_cached = [r.usage.cached_prompt_tokens for r in results[1:]]
    run.facts["context_cached_tokens"] = ", ".join(
        f"{r.usage.cached_prompt_tokens}/{r.usage.prompt_tokens}" for r in results
    )
    if not all(later_cached):
        raise CheckFailed(f"chunks after the first report cached prompt tokens {later_cached}: no prefix reuse")
    lines = [f"{path.name}, {len(chunks)} chunks in {time.monotonic() - started:.1f} s; "
             f"cached/prompt tokens per chunk: {run.facts['context_cached_tokens']}"]  # fmt: skip
    lines += [f"chunk {i}: “{said(r.context or '')}”" for i, r in enumerate(results, 1)]
    return lines


def step_context_timeout(run: CheckRun) -> list[str]:
    """A tiny CONTEXT_LLM_TIMEOUT_SECONDS: the chunk keeps no context, with the timeout as its error."""
    from documents.services.contexts import writer_from_settings

    text = run.text_of(run.documents[0])
    started = time.monotonic()
    with context_settings(run, CONTEXT_LLM_TIMEOUT_SECONDS=0.05):
        results = writer_from_settings().write_all(text, chunk_requests(text, 1))
    elapsed = time.monotonic() - started
    result = results[0]
    if result.context is not None or "did not answer within" not in result.error or elapsed > 10:
        raise CheckFailed(f"after {elapsed:.2f} s: context {result.context!r}, error {result.error!r}")
    return [f"CONTEXT_LLM_TIMEOUT_SECONDS=0.05, 1 retry: no context, error “{result.error}” after {elapsed:.2f} s"]


# --- evaluate --write-contexts ------------------------------------------------------------------------

EVALUATE_SECONDS = 1200


def evaluate_command(run: CheckRun) -> tuple[list[str], dict[str, str], Path]:
    questions = run.work_dir / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in run.questions), encoding="utf-8")
    out = run.work_dir / "evaluate"
    command = [
        "manage.py", "evaluate", "--corpus", *map(str, run.documents), "--questions", str(questions),
        "--strategies", "A", "--write-contexts", str(out / "contexts.jsonl"), "--json", str(out / "evaluate.json"),
        "--no-progress",
    ]  # fmt: skip
    env = {
        "CONTEXT_WRITER": "openai", "CONTEXT_LLM_BASE_URL": run.base_url, "CONTEXT_LLM_MODEL": run.model,
        "CONTEXT_LLM_MAX_INPUT_TOKENS": str(run.slot_context), "CONTEXT_LLM_MAX_OUTPUT_TOKENS": "64",
        "CONTEXT_LLM_CONCURRENCY": "2",
    }  # fmt: skip
    return command, env, out


def run_to_end(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Exit code and standard error of `command`; on a timeout or Ctrl-C it gets SIGTERM first,
    which evaluate turns into removing its eval folders, and SIGKILL only if that takes a minute."""
    with subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as process:  # fmt: skip
        try:
            _, stderr = process.communicate(timeout=timeout)
        except BaseException:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return process.returncode, stderr


def step_evaluate_write_contexts(run: CheckRun) -> list[str]:
    """`manage.py evaluate --write-contexts` end to end: A and A+ctx indexed, contexts saved."""
    command, env, out = evaluate_command(run)
    shown_env = " ".join(f"{k}={v}" for k, v in env.items())
    run.facts["evaluate_command"] = f"{shown_env} python {' '.join(command)}"
    started = time.monotonic()
    try:
        returncode, stderr = run_to_end([sys.executable, *command], {**os.environ, **env}, EVALUATE_SECONDS)
    except subprocess.TimeoutExpired as exc:
        raise CheckFailed(f"evaluate ran over {EVALUATE_SECONDS} s") from exc
    if returncode != 0:
        raise CheckFailed(f"evaluate exited {returncode}: {shorten(stderr[-600:], 600)}")
    payload = json.loads((out / "evaluate.json").read_text(encoding="utf-8"))
    counts = payload["contexts"]["per_strategy"].get("A+ctx", {})
    saved = [json.loads(line) for line in (out / "contexts.jsonl").read_text(encoding="utf-8").splitlines()]
    if not counts.get("written") or counts.get("missing") or len(saved) < counts["written"]:
        raise CheckFailed(f"A+ctx counts {counts}, {len(saved)} contexts saved")
    hybrid = {s: payload["strategies"][s]["legs"]["hybrid"] for s in ("A", "A+ctx")}
    return [
        f"{time.monotonic() - started:.0f} s; A+ctx: {counts['written']} contexts written, {counts.get('missing', 0)} "
        f"missing; prompt tokens {counts.get('prompt_tokens', 0)}, of them cached "
        f"{counts.get('cached_prompt_tokens', 0)}; completion tokens {counts.get('completion_tokens', 0)}",
        f"{len(saved)} contexts saved to var/llm/evaluate/contexts.jsonl; e.g. “{said(saved[0]['context'])}”",
        f"hybrid R@4 over {len(run.questions)} questions (says nothing about contexts at this size and model): "
        + ", ".join(f"{s} {h['R@4']:.2f}" for s, h in hybrid.items()),
    ]


STEPS: tuple[Step, ...] = (
    step_stream_protocol,
    step_usage_and_cache,
    step_answer_writer,
    step_streamed_answer,
    step_writer_declined,
    step_answer_timeout,
    step_context_writer,
    step_context_timeout,
    step_evaluate_write_contexts,
)


def run_steps(run: CheckRun, steps: tuple[Step, ...] = STEPS, echo: Callable[[str], None] = print) -> list[StepResult]:
    """Every step, in order, each timed; a failing step is recorded and the next one still runs."""
    results: list[StepResult] = []
    for step in steps:
        name = step.__name__.removeprefix("step_")
        started = time.monotonic()
        try:
            lines, ok = step(run), True
        except CheckFailed as exc:
            lines, ok = [f"FAILED: {exc}"], False
        results.append(StepResult(name, ok, round(time.monotonic() - started, 1), lines))
        echo(f"{'ok  ' if ok else 'FAIL'} {name} ({results[-1].seconds} s)")
        for line in lines:
            echo(f"     {line}")
    return results
