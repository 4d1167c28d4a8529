"""The shapes of the service's answers, as marshmallow schemas: openapi.yaml's response bodies are generated
from them (service/api/openapi/spec.py), and schemathesis checks every answer the service gives against that
document (tests/contract). The handlers build their answers as plain dicts on the hot path; these classes say
what those dicts hold.

``Meta.unknown = INCLUDE`` marks an answer that may carry more keys than listed (a game's own result fields);
the request schemas (service/api/schemas/requests.py) refuse unknown keys instead. ``DESCRIPTION`` is a schema's
description in openapi.yaml.
"""
from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, fields, validate

from .requests import ClockSpec, StrictInt, doc

# Every problem code and the shared illegal-move reasons (each game adds reasons of its own).
ILLEGAL_REASONS = ["not_your_turn", "card_not_in_hand", "must_follow_suit", "must_head_trick", "must_trump",
                   "must_overtrump", "wrong_phase", "unknown_action", "match_over", "invalid_parameters"]
CODES = ["illegal_move", "invalid_state", "invalid_deal", "invalid_options", "unknown_game", "invalid_request",
         "state_tampered", "version_conflict", "session_not_found", "forbidden", "unauthorized",
         "store_unavailable", "not_found", "method_not_allowed", "payload_too_large", "internal_error",
         "idempotency_key_reused", "too_many_requests", "limit_exceeded", "match_over", "abort_too_late",
         # hosted tournaments (service/api/http/bots.py, tournaments.py)
         "tournaments_need_redis", "bot_name_taken", "bot_not_found", "unknown_bot", "invalid_description",
         "tournament_not_found", "registration_closed", "too_few_entries", "already_started", "not_running",
         "not_paused", "tournament_over", "not_an_entry"]
HEX64 = validate.Regexp(r"^[0-9a-f]{64}$")


def seat(**kwargs: Any) -> fields.Field[Any]:
    return StrictInt(metadata=doc(component="Seat"), **kwargs)


def seats(**kwargs: Any) -> fields.Field[Any]:
    return fields.List(seat(), **kwargs)


def moves(description: str | None = None, **kwargs: Any) -> fields.Field[Any]:
    return fields.List(fields.Dict(metadata=doc(component="Move")), metadata=doc(description), **kwargs)


def cards(description: str | None = None, **kwargs: Any) -> fields.Field[Any]:
    return fields.List(fields.String(metadata=doc(component="Card")), metadata=doc(description), **kwargs)


class Open(Schema):
    class Meta:
        unknown = INCLUDE


class Closed(Schema):
    class Meta:
        unknown = RAISE


class Result(Open):
    scores = fields.List(fields.Float(), required=True)
    payoffs = fields.List(StrictInt(), required=True)
    ranking = fields.List(seat(), required=True)
    ended_by = fields.String(metadata=doc("How the match ended (docs/sessions.md).",
                                          enum=["play", "timeout", "concession", "abort"]))
    forfeited = StrictInt(allow_none=True, metadata=doc("The seat that forfeited (a timeout or a concession), ranked "
                                                        "last.", component="Seat"))
    penalties = fields.List(StrictInt(), metadata=doc("Sessions with the penalty policy: each seat's timeouts the "
                                                      "service answered with a move."))


class Envelope(Open):
    state = fields.Dict(required=True, metadata=doc(component="State"))
    state_tag = fields.String(metadata=doc(component="StateTag"))
    to_act = seats(required=True)
    legal_moves = moves(required=True)
    events = fields.List(fields.Dict(), required=True)
    finished = fields.Boolean(required=True)
    result = fields.Nested(Result, required=True, allow_none=True)
    valid_declarations = cards("Jewel only: the cards whose discard would leave the seat to act a valid "
                               "declaration, in canonical order (empty unless it holds 17 cards and may declare). "
                               "docs/games/jewel.md.")


class Problem(Open):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = StrictInt(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata=doc(enum=CODES))
    reason = fields.String(metadata=doc("Why a move is illegal. Shared codes: " + ", ".join(ILLEGAL_REASONS)
                                        + "; each game adds its own (see its docs)."))
    index = StrictInt(metadata=doc("replay: the first illegal move"))
    limit = fields.String(metadata=doc("limit_exceeded: which limit", enum=["deals", "session_bytes", "moves"]))
    option = fields.String()
    card = fields.String()
    errors = fields.Dict()


class Deal(Closed):
    hands = fields.List(cards(), required=True)
    rest = cards(required=True)
    chosen = fields.List(fields.String(validate=validate.OneOf("CDHS")), validate=validate.Length(2, 2), metadata=doc(
        "Stýrivolt with chosen_suits_method \"preset\" only: the deal's two chosen suits, primary first."))


class PlayerRange(Open):
    min = StrictInt(required=True)
    max = StrictInt(required=True)
    default = StrictInt()


class GameSummary(Open):
    id = fields.String(required=True)
    name = fields.String(required=True)
    summary = fields.String(required=True)
    docs = fields.String(metadata=doc("The game's rules page (HTML)."))
    players = fields.Nested(PlayerRange, required=True)
    options = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True)
    moves = fields.Dict(keys=fields.String(), values=fields.Dict())


class GameList(Open):
    games = fields.List(fields.Nested(GameSummary), required=True)


class LegalMoves(Open):
    legal_moves = moves(required=True)
    to_act = seats(required=True)


class SeatView(Open):
    view = fields.Dict(required=True)
    seat = seat(allow_none=True)


class Health(Open):
    status = fields.String(required=True, metadata=doc(enum=["ok"]))


class Readiness(Open):
    status = fields.String(required=True, metadata=doc(enum=["ready"]))
    store = fields.String(required=True, metadata=doc(enum=["redis", "memory"]))
    sessions = fields.String(required=True, metadata=doc(enum=["ok", "unavailable"]))


# ----- sessions -------------------------------------------------------------------------
class SeatToken(Open):
    seat = seat(required=True)
    token = fields.String(required=True, metadata=doc("Bearer token of this seat: give it only to that player. "
                                                      "The service keeps only its SHA-256."))


class SessionCreated(Open):
    id = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9_-]{16,64}$"))
    version = StrictInt(required=True, validate=validate.Range(0))
    game = fields.String()
    players = StrictInt()
    options = fields.Dict()
    seats = fields.List(fields.Nested(SeatToken), required=True)
    commitment = fields.String(required=True, validate=HEX64,
                               metadata=doc("SHA-256 (hex) of the seed's bytes; see docs/fair-dealing.md."))
    deals_commitment = fields.String(allow_none=True, validate=HEX64)
    explicit_deals = StrictInt(validate=validate.Range(0))
    clock = fields.Nested(ClockSpec, allow_none=True, metadata=doc("The time control, as the service reads it."))
    expires_in = StrictInt(metadata=doc("Seconds the session lives without a move."))


class ClockSeat(Open):
    seat = seat(required=True)
    remaining_ms = StrictInt(required=True, allow_none=True, metadata=doc("Bank left now (null without a bank)."))
    deadline_ms = StrictInt(required=True, allow_none=True, metadata=doc(
        "Epoch ms when this seat times out, while its clock runs."))
    running = fields.Boolean(required=True)


POLICIES = ["forfeit", "auto", "penalty"]


class ClockState(Open):
    policy = fields.String(required=True, metadata=doc(enum=POLICIES))
    move_ms = StrictInt(required=True, allow_none=True)
    bank_ms = StrictInt(required=True, allow_none=True)
    increment_ms = StrictInt(required=True)
    server_time_ms = StrictInt(required=True, metadata=doc("The service's clock (epoch ms) when it answered."))
    seats = fields.List(fields.Nested(ClockSeat), required=True)


class PresenceSeat(Open):
    seat = seat(required=True)
    connected = fields.Boolean(required=True)
    since = fields.DateTime(required=True, allow_none=True)


class SessionView(Open):
    id = fields.String(required=True)
    game = fields.String()
    version = StrictInt(required=True, validate=validate.Range(0), metadata=doc("Moves accepted so far."))
    seat = seat(allow_none=True)
    view = fields.Dict(required=True, metadata=doc("What this seat (or a spectator) may see."))
    legal_moves = moves("This seat's legal moves now (none for a spectator).", required=True)
    to_act = seats(required=True)
    finished = fields.Boolean(required=True)
    result = fields.Nested(Result, required=True, allow_none=True)
    clock = fields.Nested(ClockState, allow_none=True)
    presence = fields.List(fields.Nested(PresenceSeat), metadata=doc(
        "Which seats hold an event stream or a long-poll now, and since when."))


class SessionEvent(Open):
    DESCRIPTION = "One event of the stream (OpenAPI 3.1: the schema of each event, not of the stream)."

    event = fields.String(required=True, metadata=doc(enum=["view", "gap", "end", "gone", "error"]))
    data = fields.String(required=True, metadata=doc(
        "One line of JSON: a SessionView for `view`, else {code?, detail, ...}.",
        json_schema={"contentMediaType": "application/json"}))
    id = fields.String(validate=validate.Regexp(r"^[0-9]+$"), metadata=doc("The version (view events)."))
    retry = StrictInt(validate=validate.Range(0))


class LogEntry(Open):
    DESCRIPTION = ("A move (`type` move: action, move, hidden), or how the match ended or a seat gave up (`type` "
                   "timeout, concession or abort: reason, ends).")

    version = StrictInt(required=True, validate=validate.Range(1))
    time = fields.DateTime(required=True)
    at = fields.DateTime(metadata=doc("The same as time."))
    type = fields.String(required=True, metadata=doc(enum=["move", "timeout", "concession", "abort"]))
    seat = seat(required=True)
    action = fields.String()
    move = fields.Dict(metadata=doc("The move with its public parameters only."))
    hidden = fields.List(fields.String(), metadata=doc("Parameters withheld until the match ends (e.g. discards)."))
    elapsed_ms = StrictInt(metadata=doc("The time the seat used on this turn."))
    auto = fields.Boolean(metadata=doc("The service made this move for the seat."))
    timeout = fields.Boolean(metadata=doc("...because the seat's time was up."))
    penalty = fields.Boolean(metadata=doc("...and it counts as a penalty (penalty policy)."))
    reason = fields.String(allow_none=True)
    ends = fields.Boolean(metadata=doc("This entry ended the match (false: a concession under the auto policy; the "
                                       "service plays on)."))


class SessionLog(Open):
    id = fields.String(required=True)
    game = fields.String()
    players = StrictInt()
    options = fields.Dict()
    version = StrictInt(required=True)
    finished = fields.Boolean(required=True)
    commitment = fields.String(required=True)
    deals_commitment = fields.String(allow_none=True)
    created = fields.DateTime()
    clock = fields.Nested(ClockSpec, allow_none=True)
    entries = fields.List(fields.Nested(LogEntry), required=True)
    seed = fields.String(required=True, allow_none=True, metadata=doc("Revealed once the match is finished."))
    deals = fields.List(fields.Nested(Deal), allow_none=True)
    replay = fields.Raw(allow_none=True, metadata=doc(
        "Once finished: the body to POST to /v1/games/{game}/replay.", component="ReplayRequest"))
    result = fields.Nested(Result, allow_none=True)
