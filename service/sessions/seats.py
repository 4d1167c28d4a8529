"""A session's seats and their bearer tokens: one token per seat, made at creation and shown once; the
session keeps only their SHA-256, and a token holds the seat whose hash it matches."""
from __future__ import annotations

import hashlib
import hmac
import secrets

from ..storage import Session


def new_tokens(players: int) -> list[str]:
    return [secrets.token_urlsafe(32) for _ in range(players)]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_holding(session: Session, token: str) -> int | None:
    """The seat whose token ``token`` is, or None. Every seat's hash is compared, in constant time each."""
    digest = token_hash(token)
    seat = None
    for s, stored in enumerate(session.meta["tokens"]):
        if hmac.compare_digest(stored, digest):
            seat = s
    return seat
