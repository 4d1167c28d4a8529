"""What the session domain refuses: each refusal has a stable ``code`` (the problem code clients see) and a
message for people, and may carry facts for the answer (the version a session is at, the limit reached).

The engine's RulesError tree is the rules' refusals; these are the sessions' own. The HTTP status of each is
the API's business (service/api/http/errors.py maps the codes), not this layer's.
"""
from __future__ import annotations

from typing import Any


class SessionError(Exception):
    """A request the session domain refuses."""

    code = "session_error"

    def __init__(self, detail: str, **facts: Any) -> None:
        super().__init__(detail)
        self.detail, self.facts = detail, facts


class SessionNotFound(SessionError):
    code = "session_not_found"

    def __init__(self) -> None:
        super().__init__("There is no such session: the id is wrong, or it has expired.")


class VersionConflict(SessionError):
    """The session is not at the version the request was decided on, or changes too fast to save it."""

    code = "version_conflict"

    def __init__(self, detail: str, version: int) -> None:
        super().__init__(detail, version=version)


class Forbidden(SessionError):
    """A seat's token used for another seat."""

    code = "forbidden"


class LimitExceeded(SessionError):
    """More than a session (or a match) may hold: ``limit`` names which limit."""

    code = "limit_exceeded"

    def __init__(self, detail: str, limit: str) -> None:
        super().__init__(detail, limit=limit)


class IdempotencyKeyReused(SessionError):
    code = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__("This Idempotency-Key was already used for a different request.")


class MatchOver(SessionError):
    code = "match_over"


class AbortTooLate(SessionError):
    code = "abort_too_late"
