"""The session store: where the referee keeps the true state of each session.

The API reaches storage only through ``SessionStore``. Two implementations:

* ``RedisStore`` (service/storage/redis_store.py): the production store, shared by every worker and server;
* ``MemoryStore`` (service/storage/memory_store.py): in-process, for ``flask run`` and tests without Redis.
  It is correct only while one process serves every request (see docs/sessions.md).

A record is plain JSON (never pickle). Versions start at 0 and grow by one with every accepted move;
``save`` is a compare-and-set on the version, so two writers can never both win.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

Json = Any


class StoreUnavailable(Exception):
    """The store did not answer in time (down, restarting, overloaded). Callers answer 503."""


@dataclass(frozen=True)
class Session:
    """A stored session. ``meta`` never changes after creation; ``state`` is the engine's whole match."""

    id: str
    version: int
    state: dict[str, Json]
    meta: dict[str, Json]
    finished: bool


@dataclass(frozen=True)
class Write:
    """One accepted move, ready to be stored.

    ``entry`` is appended to the log; ``answer`` is what the request answers, kept under ``answer_key`` so
    that the same request sent again (an Idempotency-Key, or a retry after a lost reply) gets it back
    instead of applying the move twice.
    """

    state: dict[str, Json]
    finished: bool
    entry: dict[str, Json]
    answer_key: str
    answer: dict[str, Json]
    answer_ttl: int


@dataclass(frozen=True)
class Saved:
    """The outcome of ``save``. kind: ``saved``, ``conflict`` (someone else moved first: ``version`` is
    the current one), ``replayed`` (``answer`` is the first answer to this answer_key) or ``gone``."""

    kind: str
    version: int = -1
    answer: dict[str, Json] | None = None


class SessionStore(Protocol):
    name: str

    def create(self, session: Session, ttl: int) -> None:
        """Store a new session (version 0) that expires after ``ttl`` seconds without activity."""

    def load(self, sid: str, touch_ttl: int | None = None) -> Session | None:
        """The session, or None when it does not exist (or expired). ``touch_ttl`` refreshes the expiry of
        an unfinished session in the same round trip."""

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        """Compare-and-set: store ``write`` as version ``expected_version + 1`` only if the stored version is
        still ``expected_version``; ``ttl`` is the session's new expiry."""

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        """The stored answer for ``answer_key``, if any."""

    def log(self, sid: str) -> tuple[Session, list[dict[str, Json]]] | None:
        """The session and its move log (oldest first), read together."""

    def wait(self, sid: str, after: int, timeout: float) -> None:
        """Return once the session's version is above ``after``, or after ``timeout`` seconds."""

    def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
