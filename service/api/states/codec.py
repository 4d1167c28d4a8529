"""States crossing the API boundary: validated on the way in, optionally sealed on the way out.

Without a sealing key, a state is plain JSON. Every state the service returns comes with a ``state_tag``:
an HMAC-SHA256, under the service's state-tag key, of the game id and the state's JSON bytes exactly as
sent. A client that sends the state back unchanged with its tag is trusted without the full check: the
service itself produced that state, by dealing or by a legal move. A state without a tag, or whose tag does
not match (changed, re-encoded, or tagged by a service with another key), is checked in full by the engine,
as before; a tag never makes the service refuse a state.

With a sealing key (SEALING_KEY), states leave sealed and come back authenticated instead: SealedCodec in
service/api/states/sealing.py, which gives no tag. ``codec_for`` picks one from the configuration.
"""
from __future__ import annotations

import binascii
import hashlib
import hmac
from typing import Any, Protocol

import orjson

from ... import engine
from ...engine import State, StateTampered
from .replays import ReplayCache
from .sealing import SealedCodec, is_sealed

TAG_PREFIX = "t1."
TAG_DOMAIN = b"card-referee state tag t1\x00"
# hashlib lets go of the GIL for any single update of 2 KiB or more (and hmac.digest always does). Under
# gunicorn's threads every such release costs a hand-over to another thread and back, tens of microseconds,
# far more than the hashing: the state is fed in slices below that size so the tag never waits for the GIL.
_SLICE = 2047
_URLSAFE = bytes.maketrans(b"+/", b"-_")


class StateCodec(Protocol):
    def load(self, game_id: str, raw: Any, tag: Any = None) -> State:
        """The state to adjudicate: the one sent when the codec can trust it, else the one its check gives."""
        ...

    def dump(self, state: State) -> tuple[Any, str | None]:
        """The state as it goes out in a response, and its tag (None when the codec gives none)."""
        ...


class StateTagger:
    """Tags plain states with an HMAC so that the service can recognise the states it produced.

    HMAC-SHA256 is computed from two SHA-256 contexts keyed once (inner and outer pad, RFC 2104), and the
    inner one is also fed the domain and the game id once per game: a tag then costs two context copies and
    the hashing of the state, all under the GIL (see ``_SLICE``). ``hmac``'s own objects, keyed and copied the
    same way (``hmac.new(...).copy()``), give the same tags for 1.1 us more a tag and 11 us (4 %) more a tagged
    ``/move`` (``python -m bench.speedups tag``, CPU time); tests/api/test_state_tags.py checks every tag
    against ``hmac.digest``."""

    def __init__(self, key: bytes) -> None:
        block = (hashlib.sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\x00")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block) + TAG_DOMAIN)
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))
        self._per_game = {game_id: self._keyed_for(game_id) for game_id in engine.all_games()}

    def _keyed_for(self, game_id: str) -> Any:
        inner = self._inner.copy()
        inner.update(game_id.encode() + b"\x00")
        return inner

    def tag(self, game_id: str, state_json: bytes) -> str:
        keyed = self._per_game.get(game_id)
        inner = keyed.copy() if keyed is not None else self._keyed_for(game_id)
        if len(state_json) < _SLICE:
            inner.update(state_json)
        else:
            data = memoryview(state_json)
            for start in range(0, len(data), _SLICE):
                inner.update(data[start:start + _SLICE])
        outer = self._outer.copy()
        outer.update(inner.digest())
        return TAG_PREFIX + binascii.b2a_base64(outer.digest(), newline=False)[:43].translate(_URLSAFE).decode()

    def verify(self, game_id: str, raw: Any, tag: Any) -> bool:
        if not isinstance(tag, str) or not tag.startswith(TAG_PREFIX) or not isinstance(raw, dict):
            return False
        try:
            state_json = orjson.dumps(raw)
        except TypeError:
            return False
        return hmac.compare_digest(self.tag(game_id, state_json), tag)


class PlainCodec:
    """States travel in the clear; an untagged or wrongly tagged one is checked (the check goes on from the
    states this process kept: ReplayCache), or, when tags are required (REQUIRE_STATE_TAG, docs/integrity.md),
    refused."""

    def __init__(self, tagger: StateTagger, require_tag: bool = False, replays: ReplayCache | None = None) -> None:
        self._tagger = tagger
        self._require_tag = require_tag
        self._replays = ReplayCache() if replays is None else replays

    def load(self, game_id: str, raw: Any, tag: Any = None) -> State:
        if tag is not None and self._tagger.verify(game_id, raw, tag):
            trusted: State = raw
            return trusted
        if is_sealed(raw):
            raise engine.InvalidState("This state is sealed, but this service has no sealing key to open it.")
        if self._require_tag:
            raise StateTampered("This service takes only the states it produced: send the state back unchanged, "
                                "with the state_tag that came with it.")
        return self._replays.check(game_id, raw)

    def dump(self, state: State) -> tuple[orjson.Fragment, str]:
        """The state's JSON, made once: the tag is over these bytes and the response embeds them as they are.
        The replay cache keeps it too: sent back without its tag, its check finds it."""
        self._replays.answered(state)
        state_json = orjson.dumps(state)
        return orjson.Fragment(state_json), self._tagger.tag(state["game"], state_json)


def codec_for(sealing_key: bytes | None, state_tag_key: bytes, require_tag: bool = False) -> StateCodec:
    """Sealed states with a sealing key (they authenticate themselves); else plain ones with tags, which
    ``require_tag`` makes the only way in."""
    return PlainCodec(StateTagger(state_tag_key), require_tag) if sealing_key is None else SealedCodec(sealing_key)
