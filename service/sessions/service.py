"""The session service: the session domain's parts, wired once on one store and one configuration.

Each job has its module: ``stored`` (finding a session, its expiry and size), ``creation`` (the match dealt,
the seats' tokens, the commitments), ``moves`` (a move judged and saved, idempotency), ``clocks`` (deadlines,
timeouts, held clocks), ``endings`` (concessions and aborts), ``presence`` (who is connected), ``views`` (what
a seat sees) and ``history`` (the log). This class only hands each call to its part; the HTTP layer
(service/api/http/) reads requests into these calls, and the store (service.storage) only stores.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ..config import Config
from ..storage import Session, SessionStore
from . import history
from .clocks import Clocks, Settled
from .creation import Creation
from .endings import Endings
from .moves import MoveAnswer, MoveRequest, Moves
from .presence import Presence
from .stored import StoredSessions
from .views import seat_answer


class SessionService:
    """Sessions on one store with one configuration. ``on_found(game)`` is told the game of every session
    a request finds (the API labels the request's metrics and log line with it)."""

    def __init__(self, store: SessionStore, config: Config,
                 on_found: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.stored = StoredSessions(store, config, on_found)
        self.clocks = Clocks(self.stored)
        self.presences = Presence(store)
        self.creation = Creation(self.stored, self.clocks)
        self.moves = Moves(self.stored, self.clocks, self.presences)
        self.endings = Endings(self.stored, self.clocks, self.presences)

    @property
    def on_clock(self) -> Callable[[], None] | None:
        """Told when a clocked session is scheduled (the timeout applier starts then)."""
        return self.clocks.on_clock

    @on_clock.setter
    def on_clock(self, hook: Callable[[], None] | None) -> None:
        self.clocks.on_clock = hook

    def create(self, spec: dict[str, Any], held: bool = False, pace: Callable[[], None] | None = None
               ) -> dict[str, Any]:
        return self.creation.create(spec, held, pace)

    def find(self, sid: str, touch: bool = False, recent: bool = False) -> Session:
        return self.stored.find(sid, touch, recent)

    def current(self, session: Session) -> Session:
        return self.stored.current(session)

    def seat_answer(self, session: Session, seat: int | None) -> dict[str, Any]:
        """What a seat (or a spectator, None) sees: its view, its legal moves and the public facts."""
        return seat_answer(session.id, session.state, session.version, seat, self.presence(session))

    def presence(self, session: Session) -> list[dict[str, Any]]:
        return self.presences.of(session)

    def present(self, session: Session, seat: int | None, lease: float
                ) -> AbstractContextManager[Callable[[float], None]]:
        return self.presences.present(session, seat, lease)

    def move(self, session: Session, req: MoveRequest) -> MoveAnswer:
        return self.moves.move(session, req)

    def concede(self, session: Session, seat: int, reason: str | None) -> dict[str, Any]:
        return self.endings.concede(session, seat, reason)

    def abort(self, session: Session, seat: int, reason: str | None) -> dict[str, Any]:
        return self.endings.abort(session, seat, reason)

    def concede_for(self, sid: str, seat: int, reason: str) -> int | None:
        return self.endings.concede_for(sid, seat, reason)

    def settle(self, sid: str) -> Settled:
        return self.clocks.settle(sid)

    def release_clock(self, sid: str) -> None:
        return self.clocks.release(sid)

    def public_log(self, sid: str) -> dict[str, Any]:
        return history.public_log(self.stored, sid)
