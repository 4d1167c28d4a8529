"""Which seats of a session are connected: a seat holding an event stream or a long-poll is present, since
the earliest of its connections still held. Kept in the store (every instance sees every connection), read
from it at most every PRESENCE_FRESH seconds per session and process."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..storage import Session, SessionStore
from .times import iso_ms, now_ms

PRESENCE_FRESH = 1.0        # seconds a process answers with the presence it last read of a session
PRESENCE_KEPT = 10_000      # sessions whose presence a process keeps


class Presence:
    """The presence of one store's sessions, as this process last read it."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._kept: dict[str, tuple[float, list[tuple[int, int]]]] = {}  # sid -> (fresh until, holders)

    def of(self, session: Session) -> list[dict[str, Any]]:
        """Each seat: whether it is connected, and since when. A connection made or ended in this process is
        seen at once."""
        now = time.monotonic()
        kept = self._kept.get(session.id)
        if kept is None or kept[0] <= now:
            if len(self._kept) >= PRESENCE_KEPT:
                self._kept.clear()  # a bound, not an LRU: refilling costs one read per session
            holders = self.store.heard_holders(session.id, PRESENCE_FRESH)  # a woken waiter's: told with the move
            if holders is None:
                holders = self.store.holders(session.id, now_ms())
            kept = self._kept[session.id] = (now + PRESENCE_FRESH, holders)
        since: dict[int, int] = {}
        for seat, start in kept[1]:
            since[seat] = min(since.get(seat, start), start)
        return [{"seat": s, "connected": s in since, "since": iso_ms(since[s]) if s in since else None}
                for s in range(session.meta["players"])]

    @contextmanager
    def present(self, session: Session, seat: int | None, lease: float) -> Iterator[Callable[[float], None]]:
        """Mark ``seat`` connected for the ``with`` block (a spectator is not recorded): for ``lease`` seconds,
        extended by calling what this yields with new seconds. A holder that dies without leaving is dropped
        when its lease runs out."""
        if seat is None:
            yield lambda seconds: None
            return
        now = now_ms()
        member = self.store.enter(session.id, seat, now, now + int(lease * 1000))
        self._kept.pop(session.id, None)
        try:
            yield lambda seconds: self.store.stay(session.id, member, now_ms() + int(seconds * 1000))
        finally:
            self._kept.pop(session.id, None)
            self.store.leave(session.id, member)
