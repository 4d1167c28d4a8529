"""Problems the service answers (``application/problem+json``) as typed exceptions.

Every problem carries the service's stable ``code``; an illegal move also its ``reason`` (``must_follow_suit``...).
A code without a class of its own raises :class:`ProblemError` itself, so a new code on the server never breaks a
client that catches ``ProblemError``.
"""
from __future__ import annotations

from typing import Any


class CardRefereeError(Exception):
    """Anything this package raises."""


class TransportError(CardRefereeError):
    """The service could not be reached, or its answer was not HTTP/JSON (after the retries)."""


class ProblemError(CardRefereeError):
    """A 4xx/5xx problem answer: ``status``, ``code``, ``reason`` (illegal moves), ``detail`` and the whole ``body``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body
        self.code: str = str(body.get("code", "unknown"))
        self.reason: str | None = body.get("reason")
        self.detail: str = str(body.get("detail", ""))
        super().__init__(f"{status} {self.code}{f' ({self.reason})' if self.reason else ''}: {self.detail}")


class IllegalMove(ProblemError):
    """422 ``illegal_move``: the rules refuse the move; ``reason`` says which rule."""


class VersionConflict(ProblemError):
    """409 ``version_conflict``: the session moved on; ``version`` is its current version (when the service says)."""

    @property
    def version(self) -> int | None:
        value = self.body.get("version")
        return value if isinstance(value, int) else None


class InvalidRequest(ProblemError):
    """400 ``invalid_request``, or another refusal of the request's shape."""


class Unauthorized(ProblemError):
    """401: no token, or not one of this session's."""


class Forbidden(ProblemError):
    """403: the move's seat is not the token's seat."""


class NotFound(ProblemError):
    """404: ``session_not_found``, ``unknown_game`` or an unknown path."""


class AbortTooLate(ProblemError):
    """409 ``abort_too_late``: a trick has been completed, the match can no longer be aborted."""


class TooManyRequests(ProblemError):
    """429: a quota is spent; ``retry_after`` seconds (when the service says)."""

    retry_after: float | None = None


class StoreUnavailable(ProblemError):
    """503 ``store_unavailable``: the service's Redis is not answering; try again shortly."""


BY_CODE: dict[str, type[ProblemError]] = {
    "illegal_move": IllegalMove, "version_conflict": VersionConflict, "invalid_request": InvalidRequest,
    "invalid_options": InvalidRequest, "invalid_deal": InvalidRequest, "invalid_state": InvalidRequest,
    "unauthorized": Unauthorized, "forbidden": Forbidden, "session_not_found": NotFound,
    "unknown_game": NotFound, "not_found": NotFound, "abort_too_late": AbortTooLate,
    "too_many_requests": TooManyRequests, "store_unavailable": StoreUnavailable,
}


def problem_from(status: int, body: Any, retry_after: str | None = None) -> ProblemError:
    """The exception for an error answer (a body that is not a problem object still gives a ProblemError)."""
    if not isinstance(body, dict):
        body = {"code": "unknown", "detail": str(body)[:300], "status": status}
    exc = BY_CODE.get(str(body.get("code")), ProblemError)(status, body)
    if isinstance(exc, TooManyRequests) and retry_after:
        try:
            exc.retry_after = float(retry_after)
        except ValueError:
            pass
    return exc
