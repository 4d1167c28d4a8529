"""Moving: a seat's move taken from its request to its stored answer: judged, saved with a compare-and-set
(and its retries), its clocks charged, and, with an Idempotency-Key, its answer kept for the request's retries.

A move is judged first on the session as this process last saw it (usually current, so that no read is
needed). Nothing is refused on the evidence of that copy alone: a refusal it leads to is checked again on the
session as stored. With an Idempotency-Key, a refusal (422, or 409 for the client's version) is given only
when no earlier request with the key has been answered: its retry, racing it from another worker, may judge
on the state the original made.
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from typing import Any

import orjson

from .. import engine
from ..storage import Session, Write
from . import referee
from .clocks import Clocks
from .errors import (Forbidden, IdempotencyKeyReused, LimitExceeded, SessionError, SessionNotFound,
                     VersionConflict)
from .history import move_entry
from .matches import guarded
from .presence import Presence
from .referee import REF, game_state
from .reveal import apply_and_redact
from .stored import SAVE_ATTEMPTS, StoredSessions
from .times import now_ms
from .views import seat_answer


@dataclass(frozen=True)
class MoveRequest:
    """A move request read and authenticated: the token's seat, the move, the version it was decided on (if
    given), and with an Idempotency-Key where its answer is kept and what it answers."""

    seat: int
    move: dict[str, Any]
    expected: int | None
    answer_key: str | None = None     # where the answer is kept: the seat and the key, hashed
    fingerprint: str | None = None    # what the answer was an answer to: the request, hashed


@dataclass(frozen=True)
class MoveAnswer:
    """What a move request gets: the seat's answer, and whether it is the stored answer of an earlier request
    with the same Idempotency-Key."""

    body: dict[str, Any]
    replayed: bool = False


class Overdue(Exception):
    """A clock ran out before the move being judged: the timeout comes first."""


def move_request(seat: int, move: dict[str, Any], expected: int | None, idempotency_key: str | None
                 ) -> MoveRequest:
    """The request of the token's ``seat`` (Forbidden when the move names another seat)."""
    mover = move.get("seat")
    if isinstance(mover, int) and not isinstance(mover, bool) and mover != seat:
        raise Forbidden(f"Your token is seat {seat}'s: you cannot move for seat {mover}.")
    if idempotency_key is None:
        return MoveRequest(seat, move, expected)
    body = {"move": move, "version": expected}
    fingerprint = hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()
    answer_key = hashlib.sha256(f"{seat}\x00{idempotency_key}".encode()).hexdigest()
    return MoveRequest(seat, move, expected, answer_key, fingerprint)


def conflict(current: int, expected: int) -> VersionConflict:
    return VersionConflict(f"The session is at version {current}, not {expected}: reload it and decide again.",
                           version=current)


class Moves:
    """The moves of one store's sessions."""

    def __init__(self, stored: StoredSessions, clocks: Clocks, presence: Presence) -> None:
        self.stored = stored
        self.store = stored.store
        self.clocks = clocks
        self.presence = presence
        self.config = stored.config

    def move(self, session: Session, req: MoveRequest) -> MoveAnswer:
        """``req`` judged on ``session`` (maybe this process's copy) and saved: the seat's answer."""
        sid = session.id
        prior = self._stored_answer(sid, req)
        if prior is not None:
            return _replayed(prior, req)
        for attempt in range(SAVE_ATTEMPTS):
            try:
                answer, write = self._judge(session, req)
            except Overdue:
                self.clocks.settle(sid)  # a clock ran out before this move came: the timeout is applied first
                session = self.stored.find(sid)
                continue
            except (SessionError, engine.RulesError):
                fresh = self.stored.current(session)
                if fresh is not session:
                    session = fresh  # the copy was behind: judge again on the stored session
                    continue
                prior = self._stored_answer(sid, req)
                if prior is not None:  # the same request, sent earlier, got in first: that is the answer
                    return _replayed(prior, req)
                raise
            saved = self.store.save(sid, session.version, write, self.stored.ttl_for(write.finished))
            if saved.kind == "saved":
                self.clocks.saved(sid, session.version, write.state)
                return MoveAnswer(answer)
            if saved.kind == "replayed":
                return _replayed(saved.answer or {}, req)
            if saved.kind == "gone":
                raise SessionNotFound()
            if req.expected is not None:
                raise conflict(saved.version, req.expected)
            time.sleep(random.uniform(0, 0.002 * attempt))  # a real race with another writer: back off a little
            session = saved.current or self.stored.find(sid)
        raise VersionConflict("The session is changing too fast; send the move again.", version=session.version)

    def _judge(self, session: Session, req: MoveRequest) -> tuple[dict[str, Any], Write]:
        """The move applied to ``session``: the seat's answer, and what to store."""
        if req.expected is not None and req.expected != session.version:
            raise conflict(session.version, req.expected)
        if session.version >= self.config.max_moves and not session.finished:
            raise LimitExceeded(f"This session holds {self.config.max_moves} moves, as many as one session may "
                                "(MAX_MOVES): it takes no more.", limit="moves")
        now = now_ms()
        ref = referee.record_of(session.state)
        if referee.due(ref, now) is not None:
            raise Overdue()
        if ref.get("held") and session.recent:
            raise Overdue()  # a kept copy from before the clock was released: judge on the session as stored
        state, hidden, events = apply_and_redact(session.state, req.move)
        self.stored.fits(len(orjson.dumps(state)), "The state after this move")
        version = session.version + 1
        legal = guarded(engine.legal_moves, game_state(state))
        ref, elapsed = referee.after_move(ref, req.seat, now, events, legal, in_time=True)
        state[REF] = ref
        entry = move_entry(version, req.move, hidden, elapsed, ref)
        answer = seat_answer(session.id, state, version, req.seat, self.presence.of(session), legal)
        record = None if req.answer_key is None else {"fp": req.fingerprint, "body": answer}
        finished = engine.is_finished(state)
        return answer, Write(state, finished, entry, req.answer_key, record, self.config.session_ttl)

    def _stored_answer(self, sid: str, req: MoveRequest) -> dict[str, Any] | None:
        return None if req.answer_key is None else self.store.answer(sid, req.answer_key)


def _replayed(prior: dict[str, Any], req: MoveRequest) -> MoveAnswer:
    if prior.get("fp") != req.fingerprint:
        raise IdempotencyKeyReused()
    return MoveAnswer(prior["body"], replayed=True)
