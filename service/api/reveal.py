"""What a session move shows a spectator: which of its parameters the public log may print before the end.

That is a rule of the game's information, so the engine answers it (``engine.hidden_params``); this module
only applies the move and asks.
"""
from __future__ import annotations

from typing import Any

from .. import engine
from .games import guarded


def apply_and_redact(state: engine.State, move: dict[str, Any]
                     ) -> tuple[engine.State, list[str], list[engine.Event]]:
    """``move`` applied to ``state`` (in place), the names of its parameters the log must hide for now, and
    the move's events."""
    hidden = engine.hidden_params(state, move) if len(move) > 2 else []
    new_state, events = guarded(engine.apply, state, move, in_place=True)
    return new_state, hidden, events
