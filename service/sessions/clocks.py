"""A session's clocks kept running: each version's next deadline noted in the store (the timeout applier,
service/sessions/timeouts.py, claims the deadlines that pass), the timeouts applied when they fall due
(``settle``), and a held clock released when its match is announced.

A timeout is applied by the session's policy (docs/sessions.md, "Time controls"): the match forfeited for the
seat, or a move the service makes for it (``engine.auto_move``, with a penalty under the penalty policy). The
seats that conceded to the service under the auto policy are due at once, and get the same moves.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import engine
from ..storage import Session, Write
from . import referee
from .history import move_entry
from .matches import guarded
from .referee import REF, game_state
from .reveal import apply_and_redact
from .stored import SAVE_ATTEMPTS, StoredSessions
from .times import now_iso, now_ms

SETTLE_STEPS = 64           # timeouts and moves for conceded seats applied in one go, at most


@dataclass(frozen=True)
class Settled:
    """What ``settle`` did: how many timeouts (and moves for conceded seats) it applied, and the version whose
    deadline it noted last (None: the session is over or gone, or it stopped after SETTLE_STEPS)."""

    applied: int
    scheduled: int | None


class Clocks:
    """The clocks of one store's sessions."""

    def __init__(self, stored: StoredSessions) -> None:
        self.stored = stored
        self.store = stored.store
        self.max_moves = stored.config.max_moves
        self.on_clock: Callable[[], None] | None = None  # told when a clocked session is scheduled (the applier)

    def schedule(self, sid: str, version: int, state: engine.State, previous: int | None = None) -> None:
        """Note the session's next deadline (clocked sessions only), in place of the previous version's."""
        ref = referee.record_of(state)
        if ref["clock"] is None:
            return
        if self.on_clock is not None:
            self.on_clock()
        due = None if engine.is_finished(state) else referee.next_deadline(ref)
        self.store.schedule(sid, version, due, previous)

    def saved(self, sid: str, version: int, state: engine.State) -> None:
        """After a write stored as ``version + 1``: the new deadline, and at once the moves that are due
        already (the seats the service plays for)."""
        ref = referee.record_of(state)
        if ref["clock"] is None:
            return
        self.schedule(sid, version + 1, state, version)
        if not engine.is_finished(state) and referee.due(ref, now_ms()) is not None:
            self.settle(sid)

    def settle(self, sid: str) -> Settled:
        """Apply what is due on the session now, one version each: timeouts by its policy, and the moves of
        the seats the service plays for. Safe to call from any instance at any time: each step is a
        compare-and-set on the version it was judged on. Afterwards the session's deadline is noted afresh."""
        applied = 0
        for _ in range(SETTLE_STEPS):
            session = self.stored.load(sid)
            if session is None:
                return Settled(applied, None)
            ref = referee.record_of(session.state)
            now = now_ms()
            seat = None if session.finished else referee.due(ref, now)
            if seat is None:
                self.schedule(sid, session.version, session.state)
                return Settled(applied, None if session.finished else session.version)
            write = self.timeout(session, ref, seat, now)
            saved = self.store.save(sid, session.version, write, self.stored.ttl_for(write.finished))
            if saved.kind == "saved":
                applied += 1
                self.schedule(sid, session.version + 1, write.state, session.version)
        return Settled(applied, None)

    def release(self, sid: str) -> None:
        """Start the held clocks of a session (its match was just announced to its bots). Nothing changes when
        they run already; the version stays (no move was made), so a seat's move sent on version 0 is judged."""
        for _ in range(SAVE_ATTEMPTS):
            session = self.stored.load(sid)
            if session is None or session.finished or not referee.record_of(session.state).get("held"):
                return
            ref = referee.clone_record(referee.record_of(session.state))
            referee.release(ref, session.state, now_ms())
            state = {**session.state, REF: ref}
            if self.store.replace_state(sid, session.version, state):
                self.schedule(sid, session.version, state)
                return

    def timeout(self, session: Session, ref: referee.Record, seat: int, now: int) -> Write:
        """What the service does for ``seat`` whose time is up (or who conceded to it): the policy's
        forfeit, or a move of its own (``engine.auto_move``)."""
        version = session.version + 1
        policy = ref["clock"]["policy"]
        timed_out = referee.timed_out(ref, seat)
        full = session.version >= self.max_moves  # the session takes no more moves: it can only end
        if (timed_out and policy == "forfeit") or full:
            by = "timeout" if timed_out else "concession"
            state = guarded(engine.end_match, session.state, by, seat)
            ref = state[REF] = referee.clone_record(ref)
            elapsed = referee.charge(ref, seat, now, in_time=False)
            referee.stop(ref)
            reason = f"Seat {seat} ran out of time." if timed_out else f"Seat {seat} conceded."
            if full:
                reason += f" The session holds {self.max_moves} moves (MAX_MOVES): the match ends."
            entry = {"version": version, "time": now_iso(), "type": by, "seat": seat, "ends": True,
                     "elapsed_ms": elapsed, "reason": reason, "ref": ref}
            return Write(state, True, entry)
        move = guarded(engine.auto_move, game_state(session.state), seat)
        state, hidden, events = apply_and_redact(session.state, move)
        legal = guarded(engine.legal_moves, game_state(state))
        ref, elapsed = referee.after_move(ref, seat, now, events, legal, in_time=False)
        state[REF] = ref
        flags = {"auto": True, "timeout": True} if timed_out else {"auto": True}
        entry = move_entry(version, move, hidden, elapsed, ref, **flags)
        if timed_out and policy == "penalty":
            ref["penalties"][seat] += 1
            entry["penalty"] = True
        return Write(state, engine.is_finished(state), entry)
