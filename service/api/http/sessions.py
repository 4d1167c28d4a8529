"""Sessions: the referee holds the true state in the store and shows each seat only its own view.

    POST /v1/sessions                 create; one bearer token per seat (only their SHA-256 is stored)
    GET  /v1/sessions/{id}            that seat's view (spectator without a token); ?after=&wait= long-polls
    POST /v1/sessions/{id}/moves      a move by the token's seat; optimistic concurrency on ``version``
    POST /v1/sessions/{id}/concede    the token's seat gives up (by the session's policy)
    POST /v1/sessions/{id}/abort      the token's seat calls the match off, before the first trick
    GET  /v1/sessions/{id}/log        the public move log; the seed and every move once finished

This blueprint reads HTTP (the token, the body, the headers; checked here, before the session domain is
called) into calls of the session service (service/sessions/) and writes their answers back. docs/sessions.md
explains the design; docs/fair-dealing.md the commitment and how to check a finished match with ``replay``.
"""
from __future__ import annotations

import math
import re
from contextlib import ExitStack

from flask import Blueprint, Response, current_app, request

from ... import engine
from ...config import Config
from ...storage import Session, SessionStore
from ...storage.notify import wait_on
from ..wsgi import limits, observability, offload, scheduling
from ..schemas import requests as schemas
from .auth import bearer_token, token_needed, token_refused
from .errors import ApiError
from .json import body, parse, reply
from ...sessions.errors import SessionError, SessionNotFound
from ...sessions.moves import MoveRequest, move_request
from ...sessions.seats import seat_holding
from ...sessions.service import SessionService
from ...sessions.stored import SID
from ..openapi import sessions as contract
from ..openapi.operations import Body, documented
from ..openapi.shapes import location, ok, problem_response, ref, too_many, with_headers
from ..openapi.stateless import too_large

bp = Blueprint("sessions", __name__)

DECIMAL = re.compile(r"^[0-9]{1,15}$")
SECONDS = re.compile(r"^-?[0-9]{1,9}(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?$")  # a JSON number (range checked apart)
WAIT_MAX = 999_999_999.0  # the largest `wait` openapi.yaml allows (the service waits LONG_POLL_MAX at most)
NO_STORE = {"Cache-Control": "no-store"}
PRESENCE_GRACE = 5.0  # seconds a waiter's presence outlasts its wait, should its process die meanwhile
MAX_MOVE_BYTES = 4096  # a move request's body (a session's log keeps every move: MAX_MOVES of them)
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


def service() -> SessionService:
    s: SessionService = current_app.extensions["session_service"]
    return s


def service_for(store: SessionStore, config: Config) -> SessionService:
    """The app's session service (made once in create_app)."""
    return SessionService(store, config, observability.label_game)


def store() -> SessionStore:
    s: SessionStore = current_app.extensions["session_store"]
    return s


def config() -> Config:
    c: Config = current_app.extensions["card_referee_config"]
    return c


def query_int(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    if not DECIMAL.match(raw):
        raise ApiError(400, "invalid_request", f"'{name}' must be a whole number (a session version).")
    return int(raw)


def query_seconds(name: str) -> float:
    raw = request.args.get(name)
    if raw is None:
        return 0.0
    seconds = float(raw) if SECONDS.match(raw) else math.nan
    if not 0 <= seconds <= WAIT_MAX:
        raise ApiError(400, "invalid_request", f"'{name}' must be a number of seconds, from 0 to {WAIT_MAX:.0f}.")
    return seconds


def seat_of(session: Session, authorization: str | None, required: bool) -> int | None:
    """The seat whose token the Authorization header carries; None for a spectator (when not ``required``)."""
    if authorization is None:
        if required:
            raise token_needed("your seat's token")
        return None
    token = bearer_token(authorization)
    seat = None if token is None else seat_holding(session, token)
    if seat is None:
        raise token_refused("The token is not valid for this session.")
    return seat


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


def read_move(session: Session, raw: bytes) -> MoveRequest:
    """The move request read: 401, 413, 400 or 403 when the token, the body or the key do not fit."""
    seat = seat_of(session, request.headers.get("Authorization"), required=True)
    assert seat is not None
    if len(raw) > MAX_MOVE_BYTES:
        raise ApiError(413, "payload_too_large", f"A move request is {MAX_MOVE_BYTES} bytes at most.")
    move = schemas.load(schemas.SESSION_MOVE, parse(raw))
    key = idempotency_key(request.headers.get("Idempotency-Key"))
    return move_request(seat, move["move"], move.get("version"), key)


def read_reason(raw: bytes) -> str | None:
    """A concession's or an abort's body: nothing, or ``{"reason": <at most 200 characters>}``."""
    if not raw.strip():
        return None
    reason: str | None = schemas.load(schemas.SESSION_END, parse(raw)).get("reason")
    return reason


# ----- endpoints ------------------------------------------------------------------------
@bp.post("/v1/sessions")
@documented("createSession", "Start a session: the referee keeps the state.",
            body=Body("SessionCreate", {"game": "femkort", "players": 4}),
            responses={"201": location(ok(ref("SessionCreated"), "The session, with one token per seat."),
                                       links=contract.LINKS),
                       "400": contract.BAD, "413": too_large("sessions.create"),
                       "422": problem_response("Unknown game, invalid options, deal or player count; limit_exceeded: "
                                               "more explicit deals than MAX_DEALS or than the match can ever deal, "
                                               "or a session larger than MAX_SESSION_BYTES."),
                       "503": contract.UNAVAILABLE, "429": too_many(creating_a_session=True)})
def create() -> Response:
    limits.take_session(store(), config())
    return created()


@offload.costly(uses_store=True, when=limits.may_fix_many_deals)
def created() -> Response:
    """A session (its quota taken); one fixing many explicit deals in a helper process (wsgi/offload.py)."""
    payload = body()
    limits.check_counts(payload, config().max_deals)
    spec = schemas.load(schemas.SESSION_CREATE, payload)
    game = spec["game"]
    try:
        engine.get_game(game)
    except engine.UnknownGame as exc:
        raise ApiError(422, "unknown_game", exc.message) from None
    observability.label_game(game)
    out = service().create(spec, pace=limits.Slicer().step)
    observability.session_created(game)
    return reply(out, 201, {"Location": f"/v1/sessions/{out['id']}", **NO_STORE})


@bp.get("/v1/sessions/<sid>")
@documented("getSession", "A seat's view (spectator without a token); long-polls with after and wait.",
            description="The long-poll: with `after` and `wait`, the answer comes once the version is above "
                        "`after`, or after `wait` seconds as it is then." + contract.OPTIONAL_TOKEN,
            parameters=[contract.AFTER, contract.WAIT],
            responses={"200": ok(ref("SessionView")), "400": contract.BAD, "401": contract.UNAUTHORIZED,
                       "404": contract.NOT_FOUND, "503": contract.UNAVAILABLE})
def show(sid: str) -> Response:
    after, wait = query_int("after"), query_seconds("wait")
    if after is not None and wait > 0:
        return long_poll(sid, after, min(wait, config().long_poll_max))
    sessions = service()
    session = sessions.find(sid, touch="Authorization" in request.headers)
    seat = seat_of(session, request.headers.get("Authorization"), required=False)
    return reply(sessions.seat_answer(session, seat), headers=NO_STORE)


def long_poll(sid: str, after: int, waited: float) -> Response:
    """The seat's view once the session is past ``after`` (at once if it is), or as it is after ``waited``
    seconds. The watch is registered before the session is read, so that a move made while this request
    reads the session and records the seat's presence wakes it at once, not only after both (each a round
    trip to the store that a busy worker makes late: docs/performance.md, "The collector, the router and the
    listener's lock")."""
    sessions, st = service(), store()
    authorization = request.headers.get("Authorization")
    if not SID.match(sid):
        raise SessionNotFound()
    present = ExitStack()  # the seat stays present until its answer is sent: a woken long-poll answers first
    try:
        with st.watching(sid) as watch:
            session = sessions.find(sid, touch=authorization is not None)
            seat = seat_of(session, authorization, required=False)
            if session.version <= after:
                present.enter_context(sessions.present(session, seat, waited + PRESENCE_GRACE))
                scheduling.about_to_wait()
                wait_on(watch, st, sid, after, waited, session.version)
                session = sessions.find(sid, recent=True)  # the move's notification usually left its state here
                if session.version <= after:
                    session = sessions.find(sid)
        answer = reply(sessions.seat_answer(session, seat), headers=NO_STORE)
    except BaseException:
        present.close()
        raise
    scheduling.after_response(answer, present.close)  # a client polls again at once
    return answer


@bp.post("/v1/sessions/<sid>/moves")
@documented("submitMove", "Make a move with your seat's token.", bearer=True, parameters=[contract.IDEMPOTENCY_KEY],
            body=Body("SessionMove", {"move": {"seat": 1, "action": "play", "card": "QS"}}),
            responses={"200": with_headers(ok(ref("SessionView"), "The move was accepted; this seat's view after it."),
                                           contract.REPLAYED),
                       "400": contract.BAD, "401": contract.UNAUTHORIZED,
                       "403": problem_response("forbidden: the move's seat is not your token's seat."),
                       "404": contract.NOT_FOUND,
                       "409": problem_response("version_conflict: the session is no longer at that version (the "
                                               "body's version says where it is)."),
                       "413": problem_response("The body is too large (4096 bytes at most)."),
                       "422": problem_response("illegal_move (with a reason), idempotency_key_reused, or "
                                               "limit_exceeded: the session holds MAX_MOVES moves, or its state "
                                               "would outgrow MAX_SESSION_BYTES."),
                       "503": contract.UNAVAILABLE})
def submit(sid: str) -> Response:
    raw = request.get_data(cache=False)
    sessions = service()
    session = sessions.find(sid, recent=True)  # this process's copy will do: nothing is refused on it alone
    try:
        req = read_move(session, raw)
    except (ApiError, SessionError):
        sessions.current(session)  # a session gone meanwhile is 404, whatever else is wrong with the request
        raise
    answer = sessions.move(session, req)
    headers = {"Idempotent-Replayed": "true", **NO_STORE} if answer.replayed else NO_STORE
    return reply(answer.body, headers=headers)


@bp.post("/v1/sessions/<sid>/concede")
@contract.ending("concedeSession", "Give up: by the session's policy the match ends now with your seat last "
                                   "(forfeit, penalty, no time control), or the service plays for you (auto).",
                 "match_over: the match is over already.")
def concede(sid: str) -> Response:
    sessions, session, seat, reason = ending(sid)
    return reply(sessions.concede(session, seat, reason), headers=NO_STORE)


@bp.post("/v1/sessions/<sid>/abort")
@contract.ending("abortSession", "Call the match off before its first trick is completed: finished, nobody wins "
                                 "(result ended_by abort, payoffs all 0).",
                 "abort_too_late: a trick has been completed (or a deal settled); match_over: the match is over "
                 "already.")
def abort(sid: str) -> Response:
    sessions, session, seat, reason = ending(sid)
    return reply(sessions.abort(session, seat, reason), headers=NO_STORE)


def ending(sid: str) -> tuple[SessionService, Session, int, str | None]:
    """A concession's or an abort's request read: the session, the token's seat and the reason given."""
    raw = request.get_data(cache=False)
    sessions = service()
    session = sessions.find(sid)
    seat = seat_of(session, request.headers.get("Authorization"), required=True)
    assert seat is not None
    return sessions, session, seat, read_reason(raw)


@bp.get("/v1/sessions/<sid>/log")
@documented("getSessionLog", "The public move log; the seed and every move once finished.",
            responses={"200": ok(ref("SessionLog")), "404": contract.NOT_FOUND, "503": contract.UNAVAILABLE})
def move_log(sid: str) -> Response:
    return reply(service().public_log(sid), headers=NO_STORE)
