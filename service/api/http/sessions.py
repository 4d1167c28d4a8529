"""Sessions: the referee holds the true state in the store and shows each seat only its own view.

    POST /v1/sessions                 create; one bearer token per seat (only their SHA-256 is stored)
    GET  /v1/sessions/{id}            that seat's view (spectator without a token); ?after=&wait= long-polls
    POST /v1/sessions/{id}/moves      a move by the token's seat; optimistic concurrency on ``version``
    POST /v1/sessions/{id}/concede    the token's seat gives up (by the session's policy)
    POST /v1/sessions/{id}/abort      the token's seat calls the match off, before the first trick
    GET  /v1/sessions/{id}/log        the public move log; the seed and every move once finished

This blueprint only reads HTTP into calls of the session service (service/sessions/service.py, the one
owner of a move) and writes their answers back. docs/sessions.md explains the design; docs/fair-dealing.md
the commitment and how to check a finished match with ``replay``.
"""
from __future__ import annotations

import math
import re
from contextlib import ExitStack

from flask import Blueprint, Response, current_app, request

from ... import engine
from ...config import Config
from ...storage import SessionStore
from ...storage.notify import wait_on
from ..wsgi import limits, observability
from ..schemas import requests as schemas
from .errors import ApiError
from .json import body, reply
from ...sessions.service import SID, SessionService, not_found
from ..wsgi.turns import off_the_connection
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
    payload = body()
    limits.check_counts(payload, config().max_deals)
    spec = schemas.load(schemas.SESSION_CREATE, payload)
    game = spec["game"]
    try:
        engine.get_game(game)
    except engine.UnknownGame as exc:
        raise ApiError(422, "unknown_game", exc.message) from None
    observability.label_game(game)
    out = service().create(spec)
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
    seat = sessions.seat_of(session, request.headers.get("Authorization"), required=False)
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
        raise not_found()
    present = ExitStack()  # the seat stays present until its answer is sent: a woken long-poll answers first
    try:
        with st.watching(sid) as watch:
            session = sessions.find(sid, touch=authorization is not None)
            seat = sessions.seat_of(session, authorization, required=False)
            if session.version <= after:
                present.enter_context(sessions.present(session, seat, waited + PRESENCE_GRACE))
                observability.wait_without_turn()
                wait_on(watch, st, sid, after, waited, session.version)
                session = sessions.find(sid, recent=True)  # the move's notification usually left its state here
                if session.version <= after:
                    session = sessions.find(sid)
        answer = reply(sessions.seat_answer(session, seat), headers=NO_STORE)
    except BaseException:
        present.close()
        raise
    answer.call_on_close(lambda: off_the_connection(present.close))  # a client polls again at once
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
    answer = service().move(sid, request.headers.get("Authorization"), request.get_data(cache=False),
                            request.headers.get("Idempotency-Key"))
    headers = {"Idempotent-Replayed": "true", **NO_STORE} if answer.replayed else NO_STORE
    return reply(answer.body, headers=headers)


@bp.post("/v1/sessions/<sid>/concede")
@contract.ending("concedeSession", "Give up: by the session's policy the match ends now with your seat last "
                                   "(forfeit, penalty, no time control), or the service plays for you (auto).",
                 "match_over: the match is over already.")
def concede(sid: str) -> Response:
    answer = service().concede(sid, request.headers.get("Authorization"), request.get_data(cache=False))
    return reply(answer, headers=NO_STORE)


@bp.post("/v1/sessions/<sid>/abort")
@contract.ending("abortSession", "Call the match off before its first trick is completed: finished, nobody wins "
                                 "(result ended_by abort, payoffs all 0).",
                 "abort_too_late: a trick has been completed (or a deal settled); match_over: the match is over "
                 "already.")
def abort(sid: str) -> Response:
    answer = service().abort(sid, request.headers.get("Authorization"), request.get_data(cache=False))
    return reply(answer, headers=NO_STORE)


@bp.get("/v1/sessions/<sid>/log")
@documented("getSessionLog", "The public move log; the seed and every move once finished.",
            responses={"200": ok(ref("SessionLog")), "404": contract.NOT_FOUND, "503": contract.UNAVAILABLE})
def move_log(sid: str) -> Response:
    return reply(service().public_log(sid), headers=NO_STORE)
