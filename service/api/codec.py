"""States crossing the API boundary: validated on the way in, optionally sealed on the way out.

Without a sealing key, a state is plain JSON and every incoming state is checked in full by the
engine. With a key (SEALING_KEY), see service/api/sealing.py.
"""
from __future__ import annotations

from typing import Any, Protocol

from .. import engine
from ..engine import State


class StateCodec(Protocol):
    def load(self, game_id: str, raw: Any) -> State: ...

    def dump(self, state: State) -> Any: ...


class PlainCodec:
    """States travel in the clear and are validated in full on every request."""

    def load(self, game_id: str, raw: Any) -> State:
        engine.check_state(game_id, raw)
        state: State = raw
        return state

    def dump(self, state: State) -> Any:
        return state
