"""Domain errors: what the library refuses, in words a person can act on, and nothing of HTTP.

Services and access checks raise these; the JSON API maps each kind to its status once
(`ragsite.api`), and pages turn `NotFoundOrForbidden` into their 404. An error may carry extra
facts for the caller (`details`), e.g. which document already holds an uploaded file.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A request the library will not carry out; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def details(self) -> dict[str, Any]:
        """Facts beyond the message that a caller may act on (none by default)."""
        return {}


class NotFoundOrForbidden(DomainError):
    """The thing does not exist, or the caller may not read it: the two are never told apart."""


class Forbidden(DomainError):
    """The caller may see the thing but not do this to it."""


class InvalidInput(DomainError):
    """The request names something impossible (a blank name, an unknown group, an empty file)."""


class TooLarge(InvalidInput):
    """The input is larger than the configured limit."""


class UnsupportedType(InvalidInput):
    """The input is of a kind the library cannot read."""


class Conflict(DomainError):
    """The request clashes with the library's current state (a duplicate, a document being processed)."""


class ServiceUnavailable(DomainError):
    """A service the request needs is down or misconfigured (the embedding server, the vector column)."""
