"""The shapes of the service's answers, as TypedDicts (docs: openapi.yaml and docs/sessions.md).

Only the fields a client relies on are listed; the service may add more. A move is a plain JSON object
(``{"seat": 1, "action": "play", "card": "QS"}``) whose other keys depend on the game.
"""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Move = dict[str, Any]
Policy = Literal["forfeit", "auto", "penalty"]


class Clock(TypedDict, total=False):
    """A session's time control, as sent to ``POST /v1/sessions``."""
    move_ms: int | None
    bank_ms: int | None
    increment_ms: int
    policy: Policy


class SeatClock(TypedDict):
    seat: int
    remaining_ms: int | None
    deadline_ms: int | None
    running: bool


class ClockState(TypedDict):
    """A session's clock in an answer: the limits and each seat's time, with the server's time to compare."""
    policy: Policy
    move_ms: int | None
    bank_ms: int | None
    increment_ms: int
    server_time_ms: int
    seats: list[SeatClock]


class Presence(TypedDict):
    seat: int
    connected: bool
    since: str | None


class Result(TypedDict):
    scores: list[Any]
    payoffs: list[int]
    ranking: list[int]
    ended_by: NotRequired[str]
    forfeited: NotRequired[int | None]


class SeatAnswer(TypedDict):
    """``GET /v1/sessions/{id}`` (and a move's answer) for one seat, or a spectator (``seat`` None)."""
    id: str
    game: str
    version: int
    seat: int | None
    view: dict[str, Any]
    legal_moves: list[Move]
    to_act: list[int]
    finished: bool
    result: Result | None
    clock: NotRequired[ClockState | None]
    presence: NotRequired[list[Presence]]


class SeatToken(TypedDict):
    seat: int
    token: str


class Created(TypedDict):
    """``POST /v1/sessions``'s 201 answer: the tokens are answered only here."""
    id: str
    version: int
    seats: list[SeatToken]
    commitment: str
    deals_commitment: str | None
    game: str
    players: int
    options: dict[str, Any]
    clock: NotRequired[Clock | None]


class Envelope(TypedDict):
    state: dict[str, Any]
    to_act: list[int]
    legal_moves: list[Move]
    events: list[Any]
    finished: bool
    result: Result | None


class PublicLog(TypedDict):
    """``GET /v1/sessions/{id}/log``: ``seed``, ``deals`` and ``replay`` are filled once the match is finished."""
    id: str
    game: str
    players: int
    options: dict[str, Any]
    version: int
    finished: bool
    commitment: str
    deals_commitment: str | None
    entries: list[dict[str, Any]]
    seed: str | None
    deals: list[dict[str, Any]] | None
    replay: dict[str, Any] | None
    result: Result | None
