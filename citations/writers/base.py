"""The answer-writer interface: question + numbered source texts in, answer parts out.

A writer sees only the question and the numbered texts of the sources. It never sees, and is
never asked for, a title, link or identifier: the server attaches those to the markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citations.markers import Part


@dataclass(frozen=True)
class Source:
    n: int  # 1-based number the writer cites as "[n]"
    text: str  # the chunk's own content (never its context prefix)
    distance: float | None = None  # cosine distance to the question, when known: the nearest is quoted first
    section: str = ""  # the passage's section path ("5 Raft > 5.2 Leader election"): its heading is evidence


class WriterError(Exception):
    """The writer could not produce an answer (endpoint down, timeout, malformed reply)."""


class WriterDeclined(Exception):
    """The writer read the sources and says they do not hold the answer (its reply is the message)."""


class AnswerWriter(Protocol):
    name: str

    def write(self, question: str, sources: list[Source]) -> list[Part]:
        """Answer parts; markers may name any number (the caller validates them)."""
        ...
