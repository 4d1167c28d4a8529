"""The session service: the one owner of a session's life between HTTP and the store.

It alone creates sessions (tokens and the commitments to the deal), says which seat a token belongs to,
takes a move from request to stored answer (authentication, the Idempotency-Key, judging, the compare-and-set
and its retries) and writes the public log with the moves' hidden parameters left out. The blueprint in
service/api/http/sessions.py only reads HTTP into these calls and writes their results back; the store
(service.storage) only stores, and keeps its own copies of recent sessions (see ``SessionStore.current``).
"""
from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from .. import engine
from ..config import Config
from ..storage import Session, SessionStore, Write
from . import referee
from ..api.schemas import requests as schemas
from ..api.http.errors import ApiError
from ..api.http.games import guarded, new_seed, start_match
from ..api.http.json import parse
from .referee import REF, game_state, now_ms
from .reveal import apply_and_redact

SID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
MAX_MOVE_BYTES = 4096      # a move request's body (a session's log keeps every move: MAX_MOVES of them)
SAVE_ATTEMPTS = 16          # reloads after losing a compare-and-set race, before answering 409
SETTLE_STEPS = 64           # timeouts and moves for conceded seats applied in one go, at most
PRESENCE_FRESH = 1.0        # seconds a process answers with the presence it last read of a session
PRESENCE_KEPT = 10_000      # sessions whose presence a process keeps
REALM = 'Bearer realm="card-referee"'


# ----- fair dealing ---------------------------------------------------------------------
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


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_ms(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ----- problems -------------------------------------------------------------------------
def not_found() -> ApiError:
    return ApiError(404, "session_not_found", "There is no such session: the id is wrong, or it has expired.")


def conflict(current: int, expected: int) -> ApiError:
    return ApiError(409, "version_conflict",
                    f"The session is at version {current}, not {expected}: reload it and decide again.",
                    version=current)


@dataclass(frozen=True)
class MoveAnswer:
    """What a move request gets: the seat's answer, and whether it is the stored answer of an earlier request
    with the same Idempotency-Key."""

    body: dict[str, Any]
    replayed: bool = False


@dataclass(frozen=True)
class Settled:
    """What ``settle`` did: how many timeouts (and moves for conceded seats) it applied, and the version whose
    deadline it noted last (None: the session is over or gone, or it stopped after SETTLE_STEPS)."""

    applied: int
    scheduled: int | None


@dataclass(frozen=True)
class MoveRequest:
    """A move request read and authenticated: the token's seat, the body, and its Idempotency-Key (if any)."""

    seat: int
    move: dict[str, Any]
    expected: int | None
    answer_key: str | None = None     # where the answer is kept: the seat and the key, hashed
    fingerprint: str | None = None    # what the answer was an answer to: the body, hashed


class SessionService:
    """Sessions on one store with one configuration. ``on_found(game)`` is told the game of every session
    found (the blueprint labels the request's metrics and log line with it)."""

    def __init__(self, store: SessionStore, config: Config,
                 on_found: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.on_found = on_found
        self.on_clock: Callable[[], None] | None = None  # told when a clocked session is scheduled (the applier)
        self._presence: dict[str, tuple[float, list[tuple[int, int]]]] = {}  # sid -> (fresh until, holders)

    def ttl_for(self, finished: bool) -> int:
        return self.config.finished_ttl if finished else self.config.session_ttl

    # ----- creating ---------------------------------------------------------------
    def create(self, spec: dict[str, Any], held: bool = False) -> dict[str, Any]:
        """A new session from a checked creation request (``game`` known): the 201 body, with the seats' tokens.
        ``held``: its clock starts only with ``release_clock`` (a hosted tournament's match, once announced)."""
        game = spec.pop("game")
        clock = spec.pop("clock", None)
        spec["seed"] = spec.get("seed") or new_seed()
        state = start_match(game, spec, self.config.max_deals)
        state[REF] = referee.new_record(clock, state, now_ms(), held)
        deals = engine.deals_from(spec.get("deal"), spec.get("deals"))
        tokens = [secrets.token_urlsafe(32) for _ in range(state["players"])]
        sid = secrets.token_urlsafe(16)
        meta = {"game": game, "players": state["players"], "options": state["options"],
                "tokens": [token_hash(t) for t in tokens], "commitment": commitment(state["seed"]),
                "deals": deals, "deals_commitment": deals_commitment(deals), "created": now_iso()}
        self._fits(len(orjson.dumps(state)) + len(orjson.dumps(meta)), "Its state and its explicit deals")
        finished = engine.is_finished(state)
        self.store.create(Session(sid, 0, state, meta, finished), self.ttl_for(finished))
        self._schedule(sid, 0, state)
        return {"id": sid, "version": 0, "game": game, "players": state["players"], "options": state["options"],
                "clock": clock,
                "seats": [{"seat": s, "token": t} for s, t in enumerate(tokens)],
                "commitment": meta["commitment"], "deals_commitment": meta["deals_commitment"],
                "explicit_deals": len(deals), "expires_in": self.ttl_for(finished)}

    # ----- finding and authenticating ----------------------------------------------
    def find(self, sid: str, touch: bool = False, recent: bool = False) -> Session:
        """The session (404 when there is none). ``touch`` refreshes its expiry; ``recent`` lets the store
        answer with its own last copy, which may be behind (``current`` tells)."""
        found = None
        if SID.match(sid):
            found = self.store.load(sid, self.config.session_ttl if touch else None, recent=recent)
        return self._found(found)

    def current(self, session: Session) -> Session:
        """``session`` as stored now (404 when it is gone): itself, unless the store gave a copy of its own."""
        return self._found(self.store.current(session))

    def _found(self, session: Session | None) -> Session:
        if session is None:
            raise not_found()
        if self.on_found is not None:
            self.on_found(session.meta["game"])
        return session

    def seat_of(self, session: Session, authorization: str | None, required: bool) -> int | None:
        """The seat whose token the Authorization header carries; None for a spectator (when not ``required``)."""
        if authorization is None:
            if required:
                raise ApiError(401, "unauthorized", "This needs your seat's token: 'Authorization: Bearer <token>'.",
                               headers={"WWW-Authenticate": REALM})
            return None
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and TOKEN.match(token):
            digest = token_hash(token)
            seat = None
            for s, stored in enumerate(session.meta["tokens"]):
                if hmac.compare_digest(stored, digest):
                    seat = s
            if seat is not None:
                return seat
        raise ApiError(401, "unauthorized", "The token is not valid for this session.",
                       headers={"WWW-Authenticate": REALM + ', error="invalid_token"'})

    def seat_answer(self, session: Session, seat: int | None) -> dict[str, Any]:
        """What a seat (or a spectator, None) sees: its view, its legal moves and the public facts."""
        return seat_answer(session.id, session.state, session.version, seat, self.presence(session))

    def presence(self, session: Session) -> list[dict[str, Any]]:
        """Which seats hold an event stream or a long-poll now, and since when (the earliest still held).
        Read from the store at most every PRESENCE_FRESH seconds per session and process (a connection
        made or ended in this process is seen at once)."""
        now = time.monotonic()
        kept = self._presence.get(session.id)
        if kept is None or kept[0] <= now:
            if len(self._presence) >= PRESENCE_KEPT:
                self._presence.clear()  # a bound, not an LRU: refilling costs one read per session
            holders = self.store.heard_holders(session.id, PRESENCE_FRESH)  # a woken waiter's: told with the move
            if holders is None:
                holders = self.store.holders(session.id, now_ms())
            kept = self._presence[session.id] = (now + PRESENCE_FRESH, holders)
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
        self._presence.pop(session.id, None)
        try:
            yield lambda seconds: self.store.stay(session.id, member, now_ms() + int(seconds * 1000))
        finally:
            self._presence.pop(session.id, None)
            self.store.leave(session.id, member)

    # ----- moving -----------------------------------------------------------------
    def move(self, sid: str, authorization: str | None, raw: bytes, idempotency: str | None) -> MoveAnswer:
        """A move, judged first on the session as this process last saw it (usually current, so that no read
        is needed) and saved with a compare-and-set. Nothing is refused on the evidence of that copy alone:
        a refusal it leads to is checked again on the session as stored. With an Idempotency-Key, a refusal
        (422, or 409 for the client's version) is given only when no earlier request with the key has been
        answered: its retry, racing it from another worker, may judge on the state the original made."""
        session = self.find(sid, recent=True)
        try:
            req = self._read(session, authorization, raw, idempotency)
        except ApiError:
            self.current(session)  # a session gone meanwhile is 404, whatever else is wrong with the request
            raise
        prior = self._stored_answer(sid, req)
        if prior is not None:
            return self._replayed(prior, req)
        for attempt in range(SAVE_ATTEMPTS):
            try:
                answer, write = self._judge(session, req)
            except Overdue:
                self.settle(sid)  # a clock ran out before this move came: the timeout is applied first
                session = self.find(sid)
                continue
            except (ApiError, engine.RulesError):
                fresh = self.current(session)
                if fresh is not session:
                    session = fresh  # the copy was behind: judge again on the stored session
                    continue
                prior = self._stored_answer(sid, req)
                if prior is not None:  # the same request, sent earlier, got in first: that is the answer
                    return self._replayed(prior, req)
                raise
            saved = self.store.save(sid, session.version, write, self.ttl_for(write.finished))
            if saved.kind == "saved":
                self._saved(sid, session.version, write.state)
                return MoveAnswer(answer)
            if saved.kind == "replayed":
                return self._replayed(saved.answer or {}, req)
            if saved.kind == "gone":
                raise not_found()
            if req.expected is not None:
                raise conflict(saved.version, req.expected)
            time.sleep(random.uniform(0, 0.002 * attempt))  # a real race with another writer: back off a little
            session = saved.current or self.find(sid)
        raise ApiError(409, "version_conflict", "The session is changing too fast; send the move again.",
                       version=session.version)

    def _read(self, session: Session, authorization: str | None, raw: bytes, idempotency: str | None
              ) -> MoveRequest:
        """The request read: 401, 400 or 403 when the token, the body or the key do not fit."""
        seat = self.seat_of(session, authorization, required=True)
        assert seat is not None
        if len(raw) > MAX_MOVE_BYTES:
            raise ApiError(413, "payload_too_large", f"A move request is {MAX_MOVE_BYTES} bytes at most.")
        body = schemas.load(schemas.SESSION_MOVE, parse(raw))
        key = idempotency_key(idempotency)
        mover = body["move"].get("seat")
        if isinstance(mover, int) and not isinstance(mover, bool) and mover != seat:
            raise ApiError(403, "forbidden", f"Your token is seat {seat}'s: you cannot move for seat {mover}.")
        req = MoveRequest(seat, body["move"], body.get("version"))
        if key is None:
            return req
        fingerprint = hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()
        answer_key = hashlib.sha256(f"{seat}\x00{key}".encode()).hexdigest()
        return MoveRequest(seat, req.move, req.expected, answer_key, fingerprint)

    def _judge(self, session: Session, req: MoveRequest) -> tuple[dict[str, Any], Write]:
        """The move applied to ``session``: the seat's answer, and what to store."""
        if req.expected is not None and req.expected != session.version:
            raise conflict(session.version, req.expected)
        if session.version >= self.config.max_moves and not session.finished:
            raise ApiError(422, "limit_exceeded", f"This session holds {self.config.max_moves} moves, as many as "
                                                  "one session may (MAX_MOVES): it takes no more.", limit="moves")
        now = now_ms()
        ref = referee.record_of(session.state)
        if referee.due(ref, now) is not None:
            raise Overdue()
        if ref.get("held") and session.recent:
            raise Overdue()  # a kept copy from before the clock was released: judge on the session as stored
        state, hidden, events = apply_and_redact(session.state, req.move)
        self._fits(len(orjson.dumps(state)), "The state after this move")
        version = session.version + 1
        entry = {"version": version, "time": now_iso(), "move": req.move, "hidden": hidden}
        legal = guarded(engine.legal_moves, game_state(state))
        self._clocks_after(state, ref, entry, req.seat, now, events, legal, in_time=True)
        answer = seat_answer(session.id, state, version, req.seat, self.presence(session), legal)
        record = None if req.answer_key is None else {"fp": req.fingerprint, "body": answer}
        finished = engine.is_finished(state)
        return answer, Write(state, finished, entry, req.answer_key, record, self.config.session_ttl)

    def _clocks_after(self, state: engine.State, ref: referee.Record, entry: dict[str, Any], seat: int,
                      now: int, events: list[engine.Event], legal: list[engine.Move], in_time: bool) -> None:
        """The record after ``seat``'s move (applied to ``state``, where ``legal`` are the legal moves): its
        time charged, the next turns' clocks started, the abort window closed by a trick or a settlement; the
        move's log entry says how long the seat took."""
        ref = state[REF] = referee.clone_record(ref)
        ref.pop("held", None)  # a move was made: the match was announced, the clocks run from now
        entry["elapsed_ms"] = referee.charge(ref, seat, now, in_time)
        referee.turn_begins(ref, engine.seats_to_act(legal), now, seat)
        if ref["open"] and engine.closes_abort_window(events):
            ref["open"] = False
        if ref["clock"] is not None:
            entry["ref"] = ref  # the clocks as of this version, for the event stream's missed versions

    def _schedule(self, sid: str, version: int, state: engine.State, previous: int | None = None) -> None:
        """Note the session's next deadline (clocked sessions only), in place of the previous version's."""
        ref = referee.record_of(state)
        if ref["clock"] is None:
            return
        if self.on_clock is not None:
            self.on_clock()
        due = None if engine.is_finished(state) else referee.next_deadline(ref)
        self.store.schedule(sid, version, due, previous)

    def _saved(self, sid: str, version: int, state: engine.State) -> None:
        """After a write stored as ``version + 1``: the new deadline, and at once the moves that are due
        already (the seats the service plays for)."""
        ref = referee.record_of(state)
        if ref["clock"] is None:
            return
        self._schedule(sid, version + 1, state, version)
        if not engine.is_finished(state) and referee.due(ref, now_ms()) is not None:
            self.settle(sid)

    # ----- clocks, concessions and aborts -------------------------------------------
    def settle(self, sid: str) -> Settled:
        """Apply what is due on the session now, one version each: timeouts by its policy, and the moves of
        the seats the service plays for. Safe to call from any instance at any time: each step is a
        compare-and-set on the version it was judged on. Afterwards the session's deadline is noted afresh."""
        applied = 0
        for _ in range(SETTLE_STEPS):
            session = self.store.load(sid) if SID.match(sid) else None
            if session is None:
                return Settled(applied, None)
            ref = referee.record_of(session.state)
            now = now_ms()
            seat = None if session.finished else referee.due(ref, now)
            if seat is None:
                self._schedule(sid, session.version, session.state)
                return Settled(applied, None if session.finished else session.version)
            write = self._timeout(session, ref, seat, now)
            saved = self.store.save(sid, session.version, write, self.ttl_for(write.finished))
            if saved.kind == "saved":
                applied += 1
                self._schedule(sid, session.version + 1, write.state, session.version)
        return Settled(applied, None)

    def release_clock(self, sid: str) -> None:
        """Start the held clocks of a session (its match was just announced to its bots). Nothing changes when
        they run already; the version stays (no move was made), so a seat's move sent on version 0 is judged."""
        for _ in range(SAVE_ATTEMPTS):
            session = self.store.load(sid) if SID.match(sid) else None
            if session is None or session.finished or not referee.record_of(session.state).get("held"):
                return
            ref = referee.clone_record(referee.record_of(session.state))
            referee.release(ref, session.state, now_ms())
            state = {**session.state, REF: ref}
            if self.store.replace_state(sid, session.version, state):
                self._schedule(sid, session.version, state)
                return

    def concede_for(self, sid: str, seat: int, reason: str) -> int | None:
        """The referee concedes for ``seat`` (a hosted tournament's absent bot), by the session's policy: the
        version it made, or None when the match is over already (or the seat had conceded)."""
        for _ in range(SAVE_ATTEMPTS):
            session = self.store.load(sid) if SID.match(sid) else None
            if session is None or session.finished:
                return None
            write = self._end_write(session, seat, "concession", reason)
            if write is None:
                return None
            saved = self.store.save(sid, session.version, write, self.ttl_for(write.finished))
            if saved.kind == "saved":
                self._saved(sid, session.version, write.state)
                return session.version + 1
        return None

    def _timeout(self, session: Session, ref: referee.Record, seat: int, now: int) -> Write:
        """What the service does for ``seat`` whose time is up (or who conceded to it): the policy's
        forfeit, or a move of its own (``engine.auto_move``)."""
        version = session.version + 1
        policy = ref["clock"]["policy"]
        timed_out = referee.timed_out(ref, seat)
        full = session.version >= self.config.max_moves  # the session takes no more moves: it can only end
        if (timed_out and policy == "forfeit") or full:
            by = "timeout" if timed_out else "concession"
            state = guarded(engine.end_match, session.state, by, seat)
            ref = state[REF] = referee.clone_record(ref)
            elapsed = referee.charge(ref, seat, now, in_time=False)
            referee.stop(ref)
            reason = f"Seat {seat} ran out of time." if timed_out else f"Seat {seat} conceded."
            if full:
                reason += f" The session holds {self.config.max_moves} moves (MAX_MOVES): the match ends."
            entry = {"version": version, "time": now_iso(), "type": by, "seat": seat, "ends": True,
                     "elapsed_ms": elapsed, "reason": reason, "ref": ref}
            return Write(state, True, entry)
        move = guarded(engine.auto_move, game_state(session.state), seat)
        state, hidden, events = apply_and_redact(session.state, move)
        entry = {"version": version, "time": now_iso(), "move": move, "hidden": hidden, "auto": True}
        if timed_out:
            entry["timeout"] = True
        legal = guarded(engine.legal_moves, game_state(state))
        self._clocks_after(state, ref, entry, seat, now, events, legal, in_time=False)
        if timed_out and policy == "penalty":
            state[REF]["penalties"][seat] += 1
            entry["penalty"] = True
        return Write(state, engine.is_finished(state), entry)

    def concede(self, sid: str, authorization: str | None, raw: bytes) -> dict[str, Any]:
        """The token's seat gives up, by the session's policy: the match ends now with the seat last
        (forfeit, penalty, or no time control), or the service plays for it from now on (auto)."""
        return self._end(sid, authorization, raw, "concession")

    def abort(self, sid: str, authorization: str | None, raw: bytes) -> dict[str, Any]:
        """The token's seat calls the match off: allowed until a trick is completed (or, in a game without
        tricks, a deal settled); nobody wins."""
        return self._end(sid, authorization, raw, "abort")

    def _end(self, sid: str, authorization: str | None, raw: bytes, by: str) -> dict[str, Any]:
        session = self.find(sid)
        seat = self.seat_of(session, authorization, required=True)
        assert seat is not None
        reason = read_reason(raw)
        for attempt in range(SAVE_ATTEMPTS):
            if referee.due(referee.record_of(session.state), now_ms()) is not None:
                self.settle(sid)  # a clock ran out before this came: the timeout is applied first
                session = self.find(sid)
                continue
            write = self._end_write(session, seat, by, reason)
            if write is None:  # conceded to the service already: nothing changes
                return self.seat_answer(session, seat)
            saved = self.store.save(sid, session.version, write, self.ttl_for(write.finished))
            if saved.kind == "saved":
                self._saved(sid, session.version, write.state)
                return seat_answer(sid, write.state, session.version + 1, seat, self.presence(session))
            if saved.kind == "gone":
                raise not_found()
            time.sleep(random.uniform(0, 0.002 * attempt))
            session = saved.current or self.find(sid)
        raise ApiError(409, "version_conflict", "The session is changing too fast; send it again.",
                       version=session.version)

    def _end_write(self, session: Session, seat: int, by: str, reason: str | None) -> Write | None:
        if session.finished:
            raise ApiError(409, "match_over", "The match is over already.")
        ref = referee.record_of(session.state)
        if by == "abort" and not ref["open"]:
            raise ApiError(409, "abort_too_late", "The match can no longer be aborted: a trick has been completed "
                                                  "(or a deal settled).")
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

    def _fits(self, size: int, what: str) -> None:
        if size > self.config.max_session_bytes:
            raise ApiError(422, "limit_exceeded", f"{what} would take {size} bytes; a session may hold "
                                                  f"{self.config.max_session_bytes} (MAX_SESSION_BYTES).",
                           limit="session_bytes")

    def _stored_answer(self, sid: str, req: MoveRequest) -> dict[str, Any] | None:
        return None if req.answer_key is None else self.store.answer(sid, req.answer_key)

    @staticmethod
    def _replayed(prior: dict[str, Any], req: MoveRequest) -> MoveAnswer:
        if prior.get("fp") != req.fingerprint:
            raise ApiError(422, "idempotency_key_reused",
                           "This Idempotency-Key was already used for a different request.")
        return MoveAnswer(prior["body"], replayed=True)

    # ----- the public log -----------------------------------------------------------
    def public_log(self, sid: str) -> dict[str, Any]:
        """The move log as anyone may read it: hidden parameters left out until the end, then everything
        (the seed, the explicit deals and a ready ``replay`` request)."""
        found = self.store.log(sid) if SID.match(sid) else None
        if found is None:
            raise not_found()
        session, entries = found
        self._found(session)
        meta, done = session.meta, session.finished
        out: dict[str, Any] = {
            "id": sid, "game": meta["game"], "players": meta["players"], "options": meta["options"],
            "version": session.version, "finished": done, "commitment": meta["commitment"],
            "deals_commitment": meta["deals_commitment"], "created": meta["created"],
            "clock": referee.record_of(session.state)["clock"],
            "entries": [public_entry(e, done) for e in entries],
            "seed": None, "deals": None, "replay": None, "result": session_result(session.state)}
        if done:
            seed = session.state["seed"]
            replay = {"players": meta["players"], "options": meta["options"], "seed": seed, "deals": meta["deals"],
                      "moves": [e["move"] for e in entries if "move" in e]}
            ending = [e for e in entries if e.get("ends")]
            if ending:
                replay["end"] = {"by": ending[-1]["type"], "seat": ending[-1]["seat"]}
            out.update(seed=seed, deals=meta["deals"], replay=replay)
        return out


def public_entry(e: dict[str, Any], done: bool) -> dict[str, Any]:
    """A log entry as anyone may read it: a move with its hidden parameters left out until the end (``at``
    its time, ``elapsed_ms`` how long its seat took, ``auto`` when the service made it), or a timeout, a
    concession or an abort with its seat and reason."""
    if "move" not in e:
        return {"version": e["version"], "time": e["time"], "at": e["time"], "type": e["type"], "seat": e["seat"],
                "reason": e.get("reason"), "ends": e.get("ends", True), "elapsed_ms": e.get("elapsed_ms", 0)}
    hidden = [] if done else e["hidden"]
    move = {k: v for k, v in e["move"].items() if k not in hidden}
    out = {"version": e["version"], "time": e["time"], "at": e["time"], "type": "move", "seat": e["move"]["seat"],
           "action": e["move"]["action"], "move": move, "hidden": hidden, "elapsed_ms": e.get("elapsed_ms", 0)}
    for flag in ("auto", "timeout", "penalty"):
        if e.get(flag):
            out[flag] = True
    return out


def idempotency_key(raw: str | None) -> str | None:
    """The Idempotency-Key header's value (surrounding quotes dropped), or None; 400 when malformed."""
    if raw is None:
        return None
    key = raw.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not IDEMPOTENCY_KEY.match(key):
        raise ApiError(400, "invalid_request", "'Idempotency-Key' must be 1 to 255 visible ASCII characters.")
    return key


def replay_entry(state: engine.State, entry: dict[str, Any]) -> engine.State:
    """The stored state after a log entry, from the state before it (not changed): its move applied, or the
    match ended, and the referee record as it was after it."""
    return replay_entries(state, [entry])


def replay_entries(state: engine.State, entries: list[dict[str, Any]]) -> engine.State:
    """The stored state after log entries, from the state before them (not changed): their moves applied (a
    run of moves with one copy of the state), a match ended where one ends it, and the referee record as it
    was after the last that has one."""
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if "move" in entry:
            moves.append(entry["move"])
        elif entry.get("ends"):
            state = guarded(engine.end_match, _played(state, moves), entry["type"], entry["seat"])
            moves = []
    state = _played(state, moves)
    refs = [entry["ref"] for entry in entries if "ref" in entry]
    return {**state, REF: refs[-1]} if refs else state


def _played(state: engine.State, moves: list[dict[str, Any]]) -> engine.State:
    if not moves:
        return state
    played: engine.State = guarded(engine.apply_all, state, moves)[0]
    return played


def read_reason(raw: bytes) -> str | None:
    """A concession's or an abort's body: nothing, or ``{"reason": <at most 200 characters>}``."""
    if not raw.strip():
        return None
    body = schemas.load(schemas.SESSION_END, parse(raw))
    reason: str | None = body.get("reason")
    return reason


def session_result(state: engine.State) -> dict[str, Any] | None:
    """The result as a session shows it: how the match ended, and under the penalty policy each seat's
    penalties (timeouts the service answered with a move)."""
    result = guarded(engine.match_result, game_state(state))
    ref = referee.record_of(state)
    if result is not None and ref["clock"] is not None and ref["clock"]["policy"] == "penalty":
        result["penalties"] = list(ref["penalties"])
    return result


def seat_answer(sid: str, state: engine.State, version: int, seat: int | None,
                presence: list[dict[str, Any]] | None = None, legal: list[engine.Move] | None = None
                ) -> dict[str, Any]:
    """What GET answers: that seat's view, its legal moves (none for a spectator; ``legal``: every seat's, when
    known already) and the public facts: the clock (null without a time control) and which seats are
    connected."""
    plain = game_state(state)
    if legal is None:
        legal = guarded(engine.legal_moves, plain)
    return {"id": sid, "game": state["game"], "version": version, "seat": seat,
            "view": guarded(engine.view, plain, seat),
            "legal_moves": [] if seat is None else [m for m in legal if m["seat"] == seat],
            "to_act": engine.seats_to_act(legal), "finished": engine.is_finished(state),
            "result": session_result(state),
            "clock": referee.public(referee.record_of(state), now_ms()),
            "presence": presence if presence is not None else absent(state["players"])}


def absent(players: int) -> list[dict[str, Any]]:
    return [{"seat": s, "connected": False, "since": None} for s in range(players)]


class Overdue(Exception):
    """A clock ran out before the move being judged: the timeout comes first."""
