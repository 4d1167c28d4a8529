"""The session store: where the referee keeps the true state of each session.

The API reaches storage only through ``SessionStore``. Two implementations:

* ``RedisStore`` (service/storage/redis_store.py): the production store, shared by every worker and server;
* ``MemoryStore`` (service/storage/memory_store.py): in-process, for ``flask run`` and tests without Redis.
  It is correct only while one process serves every request (see docs/sessions.md).

A record is plain JSON (never pickle). Versions start at 0 and grow by one with every accepted move;
``save`` is a compare-and-set on the version, so two writers can never both win.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .errors import StoreUnavailable

if TYPE_CHECKING:
    from .notify import Watch

__all__ = ["Json", "StoreUnavailable", "Session", "Write", "Saved", "SessionStore"]
Json = Any


@dataclass(frozen=True)
class Session:
    """A stored session. ``meta`` never changes after creation; ``state`` is the engine's whole match.

    ``recent`` is the store's own mark of a copy it kept from this process's last read or write of the
    session instead of reading the store (``load(..., recent=True)``): it may be behind. A save from it is
    still safe (the compare-and-set refuses a stale version), but nothing may be refused on its evidence
    alone: callers ask ``SessionStore.current`` before they refuse, and never read this mark themselves.
    """

    id: str
    version: int
    state: dict[str, Json]
    meta: dict[str, Json]
    finished: bool
    recent: bool = False


@dataclass(frozen=True)
class Write:
    """One accepted move, ready to be stored.

    ``entry`` is appended to the log. With an ``answer_key`` (a request with an Idempotency-Key), ``answer``
    is kept under that key for ``answer_ttl`` seconds, so that the same request sent again gets it back
    instead of applying the move twice. Without one no answer is kept: the store itself makes sure that its
    own retry of a save whose reply was lost does not apply the move twice.
    """

    state: dict[str, Json]
    finished: bool
    entry: dict[str, Json]
    answer_key: str | None = None
    answer: dict[str, Json] | None = None
    answer_ttl: int = 0


@dataclass(frozen=True)
class Saved:
    """The outcome of ``save``. kind: ``saved``, ``conflict`` (someone else moved first: ``version`` is
    the current one and ``current`` the session as stored now), ``replayed`` (``answer`` is the first answer
    to this answer_key) or ``gone``."""

    kind: str
    version: int = -1
    answer: dict[str, Json] | None = None
    current: Session | None = None


class SessionStore(Protocol):
    name: str

    def create(self, session: Session, ttl: int) -> None:
        """Store a new session (version 0) that expires after ``ttl`` seconds without activity."""

    def load(self, sid: str, touch_ttl: int | None = None, recent: bool = False) -> Session | None:
        """The session, or None when it does not exist (or expired). ``touch_ttl`` refreshes the expiry of
        an unfinished session in the same round trip. ``recent``: a copy this process kept (``Session.recent``)
        may do instead of a read, when the store keeps such copies."""

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        """Compare-and-set: store ``write`` as version ``expected_version + 1`` only if the stored version is
        still ``expected_version``; ``ttl`` is the session's new expiry. A conflict brings the current
        session with it, so the caller can judge the move again without another read."""

    def current(self, session: Session) -> Session | None:
        """``session`` as stored now (None when it is gone): ``session`` itself when it was read from the
        store, a fresh read when it is a copy the store kept (which may be behind)."""

    def replace_state(self, sid: str, version: int, state: dict[str, Json]) -> bool:
        """Replace the state of the session at ``version`` without a new version and without a log entry (a
        held clock released: docs/tournaments.md); False when the session is gone or at another version."""

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        """The stored answer for ``answer_key``, if any."""

    def log(self, sid: str) -> tuple[Session, list[dict[str, Json]]] | None:
        """The session and its move log (oldest first), read together."""

    def version(self, sid: str) -> int | None:
        """The session's version, or None when it does not exist."""

    def entries(self, sid: str, first: int, last: int) -> list[dict[str, Json]]:
        """The log entries of versions ``first`` to ``last`` (both included), oldest first."""

    def watching(self, sid: str) -> AbstractContextManager[Watch]:
        """Register a watch on the session's moves (storage/notify.py) for the ``with`` block. Read the
        session only after it is registered, and again after each ``watch.wait``: no move is then missed."""

    def wait(self, sid: str, after: int, timeout: float) -> None:
        """Return once the session's version is above ``after``, or after ``timeout`` seconds."""

    def schedule(self, sid: str, version: int, deadline_ms: int | None, previous: int | None = None) -> None:
        """Note that the session at ``version`` times out at ``deadline_ms`` (epoch ms; None: it does not, and
        any deadline noted for it is forgotten), and forget the deadline noted for its version ``previous``. Deadlines are shared by every instance
        (docs/sessions.md, "Time controls")."""

    def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        """The (session, version) pairs whose deadline is ``now_ms`` or earlier, at most ``limit``, claimed
        atomically: no other caller gets them for ``lease_ms`` (after which an unfinished claim is handed out
        again, so a crashed instance's timeouts are still applied)."""

    def unschedule(self, sid: str, version: int) -> None:
        """Forget the deadline noted for the session's ``version`` (applied, or no longer current)."""

    def enter(self, sid: str, seat: int, since_ms: int, until_ms: int) -> str:
        """Record that ``seat`` holds a connection to the session (an event stream, a long-poll) from
        ``since_ms`` until ``until_ms`` at the latest; returns the holder's handle for ``stay`` and ``leave``."""

    def stay(self, sid: str, holder: str, until_ms: int) -> None:
        """The holder is still connected: its record lasts until ``until_ms``."""

    def leave(self, sid: str, holder: str) -> None:
        """The holder disconnected."""

    def holders(self, sid: str, now_ms: int) -> list[tuple[int, int]]:
        """(seat, since) of every connection held now."""

    def heard_holders(self, sid: str, fresh: float) -> list[tuple[int, int]] | None:
        """``holders`` as the session's last move told this process, if it did within ``fresh`` seconds and no
        connection of this process came or went since; else None (read ``holders``)."""

    def count(self, name: str, ttl: int) -> int:
        """Add one to the counter ``name`` and return its value; a new counter expires ``ttl`` seconds after
        its first count (the quotas' fixed windows: service/api/wsgi/limits.py)."""

    def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
