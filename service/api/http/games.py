"""Stateless adjudication: the catalogue, new, move, legal-moves, view and replay.

Each handler translates HTTP into engine calls and back; the rules live in service.engine.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app

from ... import engine
from ...engine import Event, IllegalMove, State
from ...config import Config
from ..wsgi import limits, offload
from ..schemas import requests as schemas
from ..states.codec import StateCodec
from ..openapi import stateless as contract
from ..openapi.operations import Body, documented
from ..openapi.shapes import ok, ref
from .errors import ApiError
from .json import body, reply
from ...sessions.matches import guarded, start_match

bp = Blueprint("games", __name__)


def codec() -> StateCodec:
    c: StateCodec = current_app.extensions["state_codec"]
    return c


def envelope(state: State, events: list[Event], c: StateCodec | None = None) -> dict[str, Any]:
    wire, tag = (c or codec()).dump(state)
    out: dict[str, Any] = {"state": wire}
    if tag is not None:
        out["state_tag"] = tag
    legal = engine.legal_moves(state)
    out.update(to_act=engine.seats_to_act(legal), legal_moves=legal, events=events,
               finished=engine.is_finished(state), result=engine.match_result(state))
    out.update(engine.envelope_extras(state))
    return out


def config() -> Config:
    c: Config = current_app.extensions["card_referee_config"]
    return c


@bp.get("/v1/games")
@documented("listGames", "The catalogue of games.", responses={"200": ok(ref("GameList"))})
def catalogue() -> Response:
    return reply({"games": [engine.describe(g, full=False) for g in engine.all_games().values()]})


@bp.get("/v1/games/<game>")
@documented("getGame", "One game with its move vocabulary.",
            responses={"200": ok(ref("GameSummary")), "404": contract.UNKNOWN_GAME})
def game_entry(game: str) -> Response:
    return reply(engine.describe(engine.get_game(game), full=True))


@bp.post("/v1/games/<game>/new")
@documented("newMatch", "Deal a new match (seeded or explicit deals).", per_game="new{}Match",
            body=Body("DealSpec", {"players": 4, "options": {}, "seed": "00ff"}),
            responses={"201": ok(ref("Envelope"), "The new match."), **contract.refusals("games.new")})
def new(game: str) -> Response:
    engine.get_game(game)
    payload = body()
    limits.check_counts(payload, config().max_deals)
    spec = schemas.load(schemas.NEW, payload)
    return reply(envelope(start_match(game, spec, config().max_deals, limits.Slicer().step), []), 201)


@bp.post("/v1/games/<game>/move")
@documented("applyMove", "Adjudicate a move: the next state, or why it is illegal.", per_game="apply{}Move",
            body=Body("MoveRequest", contract.exchange),
            responses={"200": ok(ref("Envelope"), "The move was legal."), **contract.refusals("games.move")})
def move(game: str) -> Response:
    engine.get_game(game)
    return reply(judge_move(game, body(), codec()))


def judge_move(game: str, payload: Any, c: StateCodec) -> dict[str, Any]:
    """The answer to a stateless move request (its parsed body) for a known game."""
    req = schemas.load(schemas.MOVE, payload)
    state = c.load(game, req["state"], req.get("state_tag"))
    new_state, events = guarded(engine.apply, state, req["move"])
    answer: dict[str, Any] = guarded(envelope, new_state, events, c)
    return answer


@bp.post("/v1/games/<game>/legal-moves")
@documented("legalMoves", "Every legal move now (optionally of one seat).",
            body=Body("LegalMovesRequest", contract.legal_moves_request),
            responses={"200": ok(ref("LegalMoves")), **contract.refusals("games.legal")})
def legal(game: str) -> Response:
    state, seat = _state_and_seat(game, schemas.LEGAL)
    legal = guarded(engine.legal_moves, state)
    return reply({"legal_moves": legal if seat is None else [m for m in legal if m["seat"] == seat],
                  "to_act": engine.seats_to_act(legal)})


@bp.post("/v1/games/<game>/view")
@documented("viewState", "What one seat (or a spectator, seat null) may see.",
            body=Body("ViewRequest", contract.view_request),
            responses={"200": ok(ref("SeatView")), **contract.refusals("games.view")})
def view(game: str) -> Response:
    state, seat = _state_and_seat(game, schemas.VIEW)
    return reply({"view": guarded(engine.view, state, seat), "seat": seat})


@bp.post("/v1/games/<game>/replay")
@documented("replayMatch", "Replay a whole match from its seed/deals and moves.", per_game="replay{}Match",
            body=Body("ReplayRequest", contract.replay_request),
            responses={"200": ok(ref("Envelope"), "The final state."), **contract.refusals("games.replay")})
def replay(game: str) -> Response:
    engine.get_game(game)
    return replayed(game)


@offload.costly()
def replayed(game: str) -> Response:
    """A known game's replay: in a helper process when the worker has them (service/api/wsgi/offload.py)."""
    payload = body()
    limits.check_counts(payload, config().max_deals, config().max_moves)
    req = schemas.load_replay(payload)
    slicer = limits.Slicer()
    state = start_match(game, req, config().max_deals, slicer.step)
    try:
        state, news = engine.apply_all(state, req["moves"], slicer.step)
    except IllegalMove as exc:
        i = exc.details["index"]
        raise ApiError(422, "illegal_move", f"Move {i} is illegal: {exc.message}", reason=exc.reason,
                       index=i) from None
    events: list[Event] = news[-1] if news else []
    end = req.get("end")
    if end is not None:
        abortable = not any(engine.closes_abort_window(e) for e in news)
        state, events = end_replayed(state, end, abortable), []
    return reply(envelope(state, events))


def end_replayed(state: State, end: dict[str, Any], abortable: bool) -> State:
    """A replayed match ended as a session's was (a timeout, a concession or an abort: docs/sessions.md)."""
    if end["seat"] >= state["players"]:
        raise ApiError(422, "invalid_request", f"'end.seat' must be from 0 to {state['players'] - 1}.")
    if end["by"] == "abort" and not abortable:
        raise ApiError(422, "abort_too_late", "The moves complete a trick (or settle a deal): a match cannot be "
                                              "aborted after that.")
    if engine.is_finished(state):
        raise ApiError(422, "match_over", "The moves finish the match: it cannot also end by "
                                          f"{end['by']}.")
    new_state: State = guarded(engine.end_match, state, end["by"], end["seat"])
    return new_state


def _state_and_seat(game: str, schema: Any) -> tuple[State, int | None]:
    """A request that names a state and, optionally, a seat in it: the state checked, the seat in range."""
    engine.get_game(game)
    req = schemas.load(schema, body())
    state = codec().load(game, req["state"], req.get("state_tag"))
    return state, _seat(state, req.get("seat"))


def _seat(state: State, seat: Any) -> int | None:
    if seat is not None and not 0 <= seat < state["players"]:
        raise ApiError(422, "invalid_request", f"'seat' must be from 0 to {state['players'] - 1}, or null.")
    return seat if seat is None else int(seat)
