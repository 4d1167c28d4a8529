"""The session service: the one owner of a session's life between HTTP and the store.

It alone creates sessions (tokens and the commitments to the deal), says which seat a token belongs to,
takes a move from request to stored answer (authentication, the Idempotency-Key, judging, the compare-and-set
and its retries) and writes the public log with the moves' hidden parameters left out. The blueprint in
service/api/sessions.py only reads HTTP into these calls and writes their results back; the store
(service.storage) only stores, and keeps its own copies of recent sessions (see ``SessionStore.current``).
"""
from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from .. import engine
from ..config import Config
from ..storage import Session, SessionStore, Write
from . import schemas
from .errors import ApiError
from .games import guarded, new_seed, start_match
from .json import parse
from .reveal import apply_and_redact

SID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
MAX_MOVE_BYTES = 4096      # a move request's body (a session's log keeps every move: MAX_MOVES of them)
SAVE_ATTEMPTS = 16          # reloads after losing a compare-and-set race, before answering 409
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

    def ttl_for(self, finished: bool) -> int:
        return self.config.finished_ttl if finished else self.config.session_ttl

    # ----- creating ---------------------------------------------------------------
    def create(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A new session from a checked creation request (``game`` known): the 201 body, with the seats' tokens."""
        game = spec.pop("game")
        spec["seed"] = spec.get("seed") or new_seed()
        state = start_match(game, spec, self.config.max_deals)
        deals = engine.deals_from(spec.get("deal"), spec.get("deals"))
        tokens = [secrets.token_urlsafe(32) for _ in range(state["players"])]
        sid = secrets.token_urlsafe(16)
        meta = {"game": game, "players": state["players"], "options": state["options"],
                "tokens": [token_hash(t) for t in tokens], "commitment": commitment(state["seed"]),
                "deals": deals, "deals_commitment": deals_commitment(deals), "created": now_iso()}
        self._fits(len(orjson.dumps(state)) + len(orjson.dumps(meta)), "Its state and its explicit deals")
        finished = engine.is_finished(state)
        self.store.create(Session(sid, 0, state, meta, finished), self.ttl_for(finished))
        return {"id": sid, "version": 0, "game": game, "players": state["players"], "options": state["options"],
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
        return seat_answer(session.id, session.state, session.version, seat)

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
        state, hidden = apply_and_redact(session.state, req.move)
        self._fits(len(orjson.dumps(state)), "The state after this move")
        version = session.version + 1
        entry = {"version": version, "time": now_iso(), "move": req.move, "hidden": hidden}
        answer = seat_answer(session.id, state, version, req.seat)
        record = None if req.answer_key is None else {"fp": req.fingerprint, "body": answer}
        finished = engine.is_finished(state)
        return answer, Write(state, finished, entry, req.answer_key, record, self.config.session_ttl)

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
        out_entries = []
        for e in entries:
            hidden = [] if done else e["hidden"]
            move = {k: v for k, v in e["move"].items() if k not in hidden}
            out_entries.append({"version": e["version"], "time": e["time"], "seat": e["move"]["seat"],
                                "action": e["move"]["action"], "move": move, "hidden": hidden})
        out: dict[str, Any] = {
            "id": sid, "game": meta["game"], "players": meta["players"], "options": meta["options"],
            "version": session.version, "finished": done, "commitment": meta["commitment"],
            "deals_commitment": meta["deals_commitment"], "created": meta["created"], "entries": out_entries,
            "seed": None, "deals": None, "replay": None, "result": guarded(engine.result, session.state)}
        if done:
            seed = session.state["seed"]
            out.update(seed=seed, deals=meta["deals"],
                       replay={"players": meta["players"], "options": meta["options"], "seed": seed,
                               "deals": meta["deals"], "moves": [e["move"] for e in entries]})
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


def seat_answer(sid: str, state: engine.State, version: int, seat: int | None) -> dict[str, Any]:
    """What GET answers: that seat's view, its legal moves (none for a spectator) and the public facts."""
    legal = guarded(engine.legal_moves, state)
    return {"id": sid, "game": state["game"], "version": version, "seat": seat,
            "view": guarded(engine.view, state, seat),
            "legal_moves": [] if seat is None else [m for m in legal if m["seat"] == seat],
            "to_act": engine.seats_to_act(legal), "finished": engine.is_finished(state),
            "result": guarded(engine.result, state)}
