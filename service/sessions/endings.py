"""A match ended by a seat rather than by play: a concession (by the session's policy: the match ends with
the seat last, or under the auto policy the service plays for it from then on), an abort (nobody wins;
allowed until a trick is completed or a deal settled), and the referee's concession for a seat (a hosted
tournament's absent bot)."""
from __future__ import annotations

import random
import time
from typing import Any

from .. import engine
from ..storage import Session, Write
from . import referee
from .clocks import Clocks
from .errors import AbortTooLate, MatchOver, SessionNotFound, VersionConflict
from .matches import guarded
from .presence import Presence
from .referee import REF
from .stored import SAVE_ATTEMPTS, StoredSessions
from .times import now_iso, now_ms
from .views import seat_answer


class Endings:
    """Concessions and aborts on one store's sessions."""

    def __init__(self, stored: StoredSessions, clocks: Clocks, presence: Presence) -> None:
        self.stored = stored
        self.store = stored.store
        self.clocks = clocks
        self.presence = presence

    def concede(self, session: Session, seat: int, reason: str | None) -> dict[str, Any]:
        """``seat`` gives up, by the session's policy: the match ends now with the seat last (forfeit, penalty,
        or no time control), or the service plays for it from now on (auto). The seat's answer."""
        return self._end(session, seat, "concession", reason)

    def abort(self, session: Session, seat: int, reason: str | None) -> dict[str, Any]:
        """``seat`` calls the match off: allowed until a trick is completed (or, in a game without tricks, a
        deal settled); nobody wins. The seat's answer."""
        return self._end(session, seat, "abort", reason)

    def concede_for(self, sid: str, seat: int, reason: str) -> int | None:
        """The referee concedes for ``seat`` (a hosted tournament's absent bot), by the session's policy: the
        version it made, or None when the match is over already (or the seat had conceded)."""
        for _ in range(SAVE_ATTEMPTS):
            session = self.stored.load(sid)
            if session is None or session.finished:
                return None
            write = self._end_write(session, seat, "concession", reason)
            if write is None:
                return None
            saved = self.store.save(sid, session.version, write, self.stored.ttl_for(write.finished))
            if saved.kind == "saved":
                self.clocks.saved(sid, session.version, write.state)
                return session.version + 1
        return None

    def _end(self, session: Session, seat: int, by: str, reason: str | None) -> dict[str, Any]:
        sid = session.id
        for attempt in range(SAVE_ATTEMPTS):
            if referee.due(referee.record_of(session.state), now_ms()) is not None:
                self.clocks.settle(sid)  # a clock ran out before this came: the timeout is applied first
                session = self.stored.find(sid)
                continue
            write = self._end_write(session, seat, by, reason)
            if write is None:  # conceded to the service already: nothing changes
                return seat_answer(sid, session.state, session.version, seat, self.presence.of(session))
            saved = self.store.save(sid, session.version, write, self.stored.ttl_for(write.finished))
            if saved.kind == "saved":
                self.clocks.saved(sid, session.version, write.state)
                return seat_answer(sid, write.state, session.version + 1, seat, self.presence.of(session))
            if saved.kind == "gone":
                raise SessionNotFound()
            time.sleep(random.uniform(0, 0.002 * attempt))
            session = saved.current or self.stored.find(sid)
        raise VersionConflict("The session is changing too fast; send it again.", version=session.version)

    def _end_write(self, session: Session, seat: int, by: str, reason: str | None) -> Write | None:
        if session.finished:
            raise MatchOver("The match is over already.")
        ref = referee.record_of(session.state)
        if by == "abort" and not ref["open"]:
            raise AbortTooLate("The match can no longer be aborted: a trick has been completed (or a deal "
                               "settled).")
        policy = None if ref["clock"] is None else ref["clock"]["policy"]
        entry = {"version": session.version + 1, "time": now_iso(), "type": by, "seat": seat, "reason": reason}
        if by == "concession" and policy == "auto":
            if seat in ref["auto"]:
                return None
            ref = referee.clone_record(ref)
            ref["auto"].append(seat)
            state = {**session.state, REF: ref}
            entry.update(ends=False, ref=ref)
            return Write(state, False, entry)
        state = guarded(engine.end_match, session.state, by, seat)
        if ref["clock"] is not None:
            ref = state[REF] = referee.clone_record(ref)
            entry["elapsed_ms"] = referee.charge(ref, seat, now_ms(), in_time=False) if by != "abort" else 0
            referee.stop(ref)
            entry["ref"] = ref
        entry["ends"] = True
        return Write(state, True, entry)
