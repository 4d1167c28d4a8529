"""What a session move shows a spectator: which of its parameters the public log may print before the end.

That is a rule of the game's information, so the engine answers it (``engine.hidden_params``: the cards a
parameter names are shown only when the spectator's view after the move shows that many more copies of
them; docs/sessions.md, "What the log shows before the end"); this module counts the public view before
the move, applies it and asks.
"""
from __future__ import annotations

from typing import Any

from .. import engine
from .matches import guarded


def apply_and_redact(state: engine.State, move: dict[str, Any]
                     ) -> tuple[engine.State, list[str], list[engine.Event]]:
    """The state after ``move`` (``state`` is not changed), the names of its parameters the log must hide for
    now, and the move's events."""
    seen = guarded(engine.in_public_view, state) if len(move) > 2 else None
    new_state, events = guarded(engine.apply, state, move)
    hidden = [] if seen is None else guarded(engine.hidden_params, move, seen, new_state)
    return new_state, hidden, events
