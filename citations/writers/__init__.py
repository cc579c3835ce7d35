"""Answer writers, chosen by settings.ANSWER_WRITER ("extractive" or "openai")."""

from __future__ import annotations

from django.conf import settings

from citations.writers.base import AnswerWriter, Source, WriterDeclined, WriterError

WRITERS = ("extractive", "openai")


def _configured(name: str | None) -> str:
    return (name or settings.ANSWER_WRITER or "extractive").strip().lower()


def writer_streams(name: str | None = None) -> bool:
    """Whether the writer sends its answer piece by piece (a language model's tokens); the
    extractive writer's parts are ready all at once."""
    return _configured(name) == "openai"


def get_writer(name: str | None = None) -> AnswerWriter:
    name = _configured(name)
    if name == "extractive":
        from citations.writers.extractive import ExtractiveWriter

        return ExtractiveWriter()
    if name == "openai":
        from citations.writers.openai_compat import OpenAICompatibleWriter

        return OpenAICompatibleWriter.from_settings()
    raise ValueError(f"ANSWER_WRITER must be one of {', '.join(WRITERS)}, not {name!r}")


__all__ = ["WRITERS", "AnswerWriter", "Source", "WriterDeclined", "WriterError", "get_writer", "writer_streams"]
