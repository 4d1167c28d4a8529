"""The engine's one error tree. Each error carries a stable code and a sentence for people.

Only the API layer turns these into HTTP answers (service/api/http/errors.py).
"""
from __future__ import annotations

from typing import Any


class RulesError(Exception):
    """Base class: ``code`` is stable and machine-readable, ``message`` is for a player."""

    code = "rules_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class IllegalMove(RulesError):
    """The move breaks a rule. ``reason`` says which (``must_follow_suit``, ``not_your_turn``...)."""

    code = "illegal_move"

    def __init__(self, reason: str, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.reason = reason


class InvalidState(RulesError):
    """A client-supplied state is malformed or inconsistent."""

    code = "invalid_state"


class InvalidOptions(RulesError):
    code = "invalid_options"


class InvalidDeal(RulesError):
    code = "invalid_deal"


class InvalidRequest(RulesError):
    """Arguments outside the game's range (player count, seat) that no schema can express."""

    code = "invalid_request"


class UnknownGame(RulesError):
    code = "unknown_game"


class StateTampered(RulesError):
    """A sealed state failed authentication."""

    code = "state_tampered"
