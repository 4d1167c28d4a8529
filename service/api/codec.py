"""States crossing the API boundary: validated on the way in, optionally sealed on the way out.

Without a sealing key, a state is plain JSON. Every state the service returns comes with a ``state_tag``:
an HMAC-SHA256, under the service's state-tag key, of the game id and the state's JSON bytes exactly as
sent. A client that sends the state back unchanged with its tag is trusted without the full check: the
service itself produced that state, by dealing or by a legal move. A state without a tag, or whose tag does
not match (changed, re-encoded, or tagged by a service with another key), is checked in full by the engine,
as before; a tag never makes the service refuse a state.

With a sealing key (SEALING_KEY), states leave sealed and come back authenticated instead: SealedCodec in
service/api/sealing.py, which gives no tag. ``codec_for`` picks one from the configuration.
"""
from __future__ import annotations

import base64
import hmac
from typing import Any, Protocol

import orjson

from .. import engine
from ..engine import State
from .sealing import SealedCodec, is_sealed

TAG_PREFIX = "t1."
TAG_DOMAIN = b"card-referee state tag t1\x00"


class StateCodec(Protocol):
    def load(self, game_id: str, raw: Any, tag: Any = None) -> State: ...

    def dump(self, state: State) -> Any: ...

    def tag(self, state: State) -> str | None: ...


class StateTagger:
    """Tags plain states with an HMAC so that the service can recognise the states it produced."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def tag(self, game_id: str, state_json: bytes) -> str:
        mac = hmac.digest(self._key, TAG_DOMAIN + game_id.encode() + b"\x00" + state_json, "sha256")
        return TAG_PREFIX + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()

    def verify(self, game_id: str, raw: Any, tag: Any) -> bool:
        if not isinstance(tag, str) or not tag.startswith(TAG_PREFIX) or not isinstance(raw, dict):
            return False
        try:
            state_json = orjson.dumps(raw)
        except TypeError:
            return False
        return hmac.compare_digest(self.tag(game_id, state_json), tag)


class PlainCodec:
    """States travel in the clear; an untagged or wrongly tagged one is validated in full."""

    def __init__(self, tagger: StateTagger) -> None:
        self._tagger = tagger

    def load(self, game_id: str, raw: Any, tag: Any = None) -> State:
        if tag is not None and self._tagger.verify(game_id, raw, tag):
            trusted: State = raw
            return trusted
        if is_sealed(raw):
            raise engine.InvalidState("This state is sealed, but this service has no sealing key to open it.")
        engine.check_state(game_id, raw)
        state: State = raw
        return state

    def dump(self, state: State) -> Any:
        return state

    def tag(self, state: State) -> str:
        return self._tagger.tag(state["game"], orjson.dumps(state))


def codec_for(sealing_key: bytes | None, state_tag_key: bytes) -> StateCodec:
    return PlainCodec(StateTagger(state_tag_key)) if sealing_key is None else SealedCodec(sealing_key)
