"""`evaluate --write-contexts` with a model, then `--contexts` without one: the same indexes and ranks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from documents.services.contexts import text_hash
from evaluation.contexts import ContextsFileError, load_contexts
from tests.documents.context_model import CONTEXT_WORD, ContextModel, chunk_of, context_server
from tests.evaluation.test_evaluate_command import _write_inputs


def _evaluate(corpus: Path, questions: Path, out: Path, *extra: str) -> dict[str, Any]:
    call_command(
        "evaluate", "--corpus", str(corpus), "--questions", str(questions), "--strategies", "E",
        "--json", str(out), "--no-progress", *extra,
    )  # fmt: skip
    return json.loads(out.read_text())


@pytest.mark.slow
@pytest.mark.django_db
def test_contexts_written_with_a_model_reproduce_the_run_without_one(settings: Any, tmp_path: Path) -> None:
    corpus, questions, _ = _write_inputs(tmp_path)
    saved = tmp_path / "contexts.jsonl"
    with context_server(settings, ContextModel(fail=False)) as llm:
        first = _evaluate(corpus, questions, tmp_path / "with-model.json", "--write-contexts", str(saved))
        asked = {chunk_of(r["body"]["messages"][-1]["content"]) for r in llm.requests}
        llm.requests.clear()
        settings.CONTEXT_WRITER = "none"
        second = _evaluate(corpus, questions, tmp_path / "from-file.json", "--contexts", str(saved))
        assert llm.requests == []  # the second run never asks a model

    assert set(first["strategies"]) == {"E", "E+ctx"}
    contexts = load_contexts(saved)
    assert set(contexts) == {text_hash(chunk) for chunk in asked}
    assert all(CONTEXT_WORD in c for c in contexts.values())
    counts = first["contexts"]["per_strategy"]["E+ctx"]
    assert counts["written"] == len(contexts) == first["strategies"]["E+ctx"]["chunks"]
    assert counts.get("missing", 0) == 0
    assert second["contexts"]["per_strategy"]["E+ctx"]["known"] == len(contexts)
    assert second["contexts"]["writer"] is None
    for run in (first, second):
        assert run["strategies"]["E+ctx"]["over_window"] == 0
        pairs = {(t["a"], t["b"]) for t in run["sign_tests"]}
        assert ("E+ctx/hybrid", "E/hybrid") in pairs
    for name in ("E", "E+ctx"):
        assert second["strategies"][name]["ranks"] == first["strategies"][name]["ranks"]
        assert second["strategies"][name]["chunks"] == first["strategies"][name]["chunks"]


def test_write_contexts_without_a_writer_or_file_is_refused(settings: Any, tmp_path: Path) -> None:
    settings.CONTEXT_WRITER = "none"
    corpus, questions, _ = _write_inputs(tmp_path)
    with pytest.raises(CommandError, match="CONTEXT_WRITER=openai"):
        _evaluate(corpus, questions, tmp_path / "r.json", "--write-contexts", str(tmp_path / "c.jsonl"))


def test_a_malformed_contexts_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"chunk_sha256": "ab", "context": "fine"}\n{"chunk": "cd"}\n')
    with pytest.raises(ContextsFileError, match=r"c\.jsonl:2"):
        load_contexts(path)
