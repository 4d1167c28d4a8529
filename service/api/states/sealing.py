"""Sealed states: a client can hold a state and send it back, but can neither read its hidden cards nor
change anything in it.

With SEALING_KEY set, every state the stateless endpoints return is a *sealed state*:

    {"sealed": "cr1",                 format marker (version 1)
     "kid": "<8 hex>",                the first 8 hex digits of SHA-256(key): which key sealed it
     "game": "<game id>",
     "view": <spectator view>,        what anyone at the table may see, in the clear
     "box": "<base64url>"}            nonce (12 bytes) || AES-256-GCM ciphertext || tag (16 bytes)

The plaintext in ``box`` is the JSON ``{"keys": [<state keys in order>], "secret": {<key>: <value>}}``:
every top-level entry of the state that the spectator view does not show unchanged (the hands, the stock,
the seed, the pending deals, whatever the game hides). The associated data is
``b"card-referee sealed state cr1\\0" + JSON({"game", "kid", "view"}, keys sorted)``, so the clear part is
authenticated too: changing any byte of the view, the game, the key id or the box fails the tag check.

Loading reverses this: the state is the view's entries overlaid with ``secret``, in the order of ``keys``.
It is not validated again (we produced it and nobody could have changed it); a sealed state that does not
authenticate is 422 ``state_tampered``. docs/sessions.md ("Sealed states") has the threat model.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import os
from typing import Any

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ... import engine
from ...engine import State, StateTampered

FORMAT = "cr1"
AAD_PREFIX = b"card-referee sealed state cr1\x00"
NONCE = 12
FIELDS = {"sealed", "kid", "game", "view", "box"}


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:8]


def is_sealed(raw: Any) -> bool:
    return isinstance(raw, dict) and "sealed" in raw and "box" in raw


class SealedCodec:
    """A StateCodec (service/api/states/codec.py) that seals states on the way out and opens them on the way in."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("the sealing key must be 32 bytes")
        self._aead = AESGCM(key)
        self.kid = key_id(key)

    def dump(self, state: State) -> tuple[dict[str, Any], None]:
        """The sealed state, and no tag: a sealed state authenticates itself."""
        view = engine.view(state, None)
        secret = {k: v for k, v in state.items() if k not in view or view[k] != v}
        plain = orjson.dumps({"keys": list(state), "secret": secret})
        nonce = os.urandom(NONCE)
        box = nonce + self._aead.encrypt(nonce, plain, _aad(state["game"], self.kid, view))
        return {"sealed": FORMAT, "kid": self.kid, "game": state["game"], "view": view,
                "box": base64.urlsafe_b64encode(box).rstrip(b"=").decode()}, None

    def load(self, game_id: str, raw: Any, tag: Any = None) -> State:
        if not is_sealed(raw):
            raise StateTampered("This service seals its states: send back the sealed state it gave you.")
        if set(raw) != FIELDS or raw["sealed"] != FORMAT or not all(
                isinstance(raw[k], str) for k in ("kid", "game", "box")) or not isinstance(raw["view"], dict):
            raise StateTampered("The sealed state is not in the sealed format (cr1).")
        if raw["kid"] != self.kid:
            raise StateTampered("The state was sealed with a different key: it cannot be opened here.")
        try:
            box = base64.urlsafe_b64decode(raw["box"] + "=" * (-len(raw["box"]) % 4))
            plain = self._aead.decrypt(box[:NONCE], box[NONCE:], _aad(raw["game"], raw["kid"], raw["view"]))
            opened = orjson.loads(plain)
        except (binascii.Error, ValueError, InvalidTag, orjson.JSONDecodeError, TypeError):
            raise StateTampered("The sealed state has been altered: it does not authenticate.") from None
        if raw["game"] != game_id:
            raise engine.InvalidState(f"This is a {raw['game']} state, not a {game_id} state.")
        view, secret = raw["view"], opened["secret"]
        state: State = {k: secret[k] if k in secret else view[k] for k in opened["keys"]}
        return state


def _aad(game: str, kid: str, view: Any) -> bytes:
    try:
        clear = orjson.dumps({"game": game, "kid": kid, "view": view}, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        raise StateTampered("The sealed state has been altered: it does not authenticate.") from None
    return AAD_PREFIX + clear
