"""States crossing the API boundary: validated on the way in, optionally sealed on the way out.

Without a sealing key, a state is plain JSON and every incoming state is checked in full by the
engine. With a key (SEALING_KEY), states leave sealed and come back authenticated: SealedCodec in
service/api/sealing.py. ``codec_for`` picks one from the configuration.
"""
from __future__ import annotations

from typing import Any, Protocol

from .. import engine
from ..engine import State
from .sealing import SealedCodec, is_sealed


class StateCodec(Protocol):
    def load(self, game_id: str, raw: Any) -> State: ...

    def dump(self, state: State) -> Any: ...


class PlainCodec:
    """States travel in the clear and are validated in full on every request."""

    def load(self, game_id: str, raw: Any) -> State:
        if is_sealed(raw):
            raise engine.InvalidState("This state is sealed, but this service has no sealing key to open it.")
        engine.check_state(game_id, raw)
        state: State = raw
        return state

    def dump(self, state: State) -> Any:
        return state


def codec_for(sealing_key: bytes | None) -> StateCodec:
    return PlainCodec() if sealing_key is None else SealedCodec(sealing_key)
