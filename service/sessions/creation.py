"""Creating a session: its match dealt, its referee record, one token per seat, and the commitments to the
deal that let anyone check a finished match (docs/fair-dealing.md)."""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any

import orjson

from .. import engine
from ..storage import Session
from . import referee
from .clocks import Clocks
from .matches import new_seed, start_match
from .referee import REF
from .seats import new_tokens, token_hash
from .stored import StoredSessions
from .times import now_iso, now_ms


def commitment(seed: str) -> str:
    """SHA-256 (hex) of the seed's bytes: ``bytes.fromhex(seed)``, a leading 0 added to an odd length."""
    return hashlib.sha256(engine.seed_bytes(seed)).hexdigest()


def deals_commitment(deals: list[Any]) -> str | None:
    """SHA-256 (hex) of the explicit deals as compact JSON (docs/fair-dealing.md), or None without any."""
    if not deals:
        return None
    canonical = [{"hands": d["hands"], "rest": d["rest"], **({"chosen": d["chosen"]} if "chosen" in d else {})}
                 for d in deals]
    return hashlib.sha256(orjson.dumps(canonical)).hexdigest()


class Creation:
    """New sessions on one store."""

    def __init__(self, stored: StoredSessions, clocks: Clocks) -> None:
        self.stored = stored
        self.clocks = clocks
        self.max_deals = stored.config.max_deals

    def create(self, spec: dict[str, Any], held: bool = False, pace: Callable[[], None] | None = None
               ) -> dict[str, Any]:
        """A new session from a checked creation request (``game`` known; its entries taken out of ``spec``):
        the 201 body, with the seats' tokens. ``held``: its clock starts only with ``Clocks.release`` (a hosted
        tournament's match, once announced). ``pace``: as ``start_match`` takes it."""
        game = spec.pop("game")
        clock = referee.time_control(spec.pop("clock", None))
        spec["seed"] = spec.get("seed") or new_seed()
        state = start_match(game, spec, self.max_deals, pace)
        state[REF] = referee.new_record(clock, state, now_ms(), held)
        deals = engine.deals_from(spec.get("deal"), spec.get("deals"))
        tokens = new_tokens(state["players"])
        sid = secrets.token_urlsafe(16)
        meta = {"game": game, "players": state["players"], "options": state["options"],
                "tokens": [token_hash(t) for t in tokens], "commitment": commitment(state["seed"]),
                "deals": deals, "deals_commitment": deals_commitment(deals), "created": now_iso()}
        self.stored.fits(len(orjson.dumps(state)) + len(orjson.dumps(meta)), "Its state and its explicit deals")
        finished = engine.is_finished(state)
        self.stored.store.create(Session(sid, 0, state, meta, finished), self.stored.ttl_for(finished))
        self.clocks.schedule(sid, 0, state)
        return {"id": sid, "version": 0, "game": game, "players": state["players"], "options": state["options"],
                "clock": clock,
                "seats": [{"seat": s, "token": t} for s, t in enumerate(tokens)],
                "commitment": meta["commitment"], "deals_commitment": meta["deals_commitment"],
                "explicit_deals": len(deals), "expires_in": self.stored.ttl_for(finished)}
