"""Sessions as the store keeps them: finding one (SessionNotFound when there is none), how long it is kept,
and how large it may grow."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..config import Config
from ..storage import Session, SessionStore
from .errors import LimitExceeded, SessionNotFound

SID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
SAVE_ATTEMPTS = 16  # reloads after losing a compare-and-set race, before giving up (version_conflict)


class StoredSessions:
    """The sessions of one store. ``on_found(game)`` is told the game of every session a request finds (the
    API labels the request's metrics and log line with it)."""

    def __init__(self, store: SessionStore, config: Config, on_found: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.on_found = on_found

    def find(self, sid: str, touch: bool = False, recent: bool = False) -> Session:
        """The session. ``touch`` refreshes its expiry; ``recent`` lets the store answer with its own last copy,
        which may be behind (``current`` tells)."""
        found = None
        if SID.match(sid):
            found = self.store.load(sid, self.config.session_ttl if touch else None, recent=recent)
        return self.found(found)

    def current(self, session: Session) -> Session:
        """``session`` as stored now: itself, unless the store gave a copy of its own."""
        return self.found(self.store.current(session))

    def found(self, session: Session | None) -> Session:
        if session is None:
            raise SessionNotFound()
        if self.on_found is not None:
            self.on_found(session.meta["game"])
        return session

    def log(self, sid: str) -> tuple[Session, list[dict[str, Any]]]:
        """The session and its log entries, oldest first."""
        found = self.store.log(sid) if SID.match(sid) else None
        if found is None:
            raise SessionNotFound()
        session, entries = found
        return self.found(session), entries

    def load(self, sid: str) -> Session | None:
        """The session as stored now, or None (for the service's own work, which no client waits on)."""
        return self.store.load(sid) if SID.match(sid) else None

    def ttl_for(self, finished: bool) -> int:
        return self.config.finished_ttl if finished else self.config.session_ttl

    def fits(self, size: int, what: str) -> None:
        """LimitExceeded when ``what`` takes more than MAX_SESSION_BYTES."""
        if size > self.config.max_session_bytes:
            raise LimitExceeded(f"{what} would take {size} bytes; a session may hold "
                                f"{self.config.max_session_bytes} (MAX_SESSION_BYTES).", limit="session_bytes")
