"""Matches that end other than by play: a seat's forfeit (a timeout or a concession) or an abort, and the
move the service plays for a seat that cannot or will not (docs/sessions.md, "Time controls").

All pure: the session service decides *when* (its clocks), these functions say *what*. The same functions
serve ``/replay`` with an ``end``, so anyone can recompute the result of a forfeited or aborted match.

An ended state keeps every key of the match as it stood, sets ``phase`` to "over" and records
``ended = {"by", "seat", "phase"}`` (the phase it was in). ``result`` then gives the game's
``forfeit_result`` (or all-zero payoffs for an abort) instead of reading the game's own end-of-match keys,
which a match cut short never reached.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import OVER, Event, Game, State, clone
from .errors import IllegalMove, InvalidRequest
from .moves import Move
from .registry import get_game

ENDINGS = ("timeout", "concession", "abort")
FORFEITS = ("timeout", "concession")
# After one of these events a match can no longer be aborted: a trick has been completed, or a deal
# settled (in a game without tricks, the first settlement is the point of no return).
CLOSES_ABORT = frozenset({"trick_won", "deal_settled", "round_settled"})


def closes_abort_window(events: Iterable[Event]) -> bool:
    """Whether a move with these events ends the time in which the match may be aborted."""
    return any(e.get("type") in CLOSES_ABORT for e in events)


def end_match(state: State, by: str, seat: int) -> State:
    """The match ended now by ``by`` ("timeout" or "concession": ``seat`` forfeits; "abort": ``seat`` aborted
    it and nobody wins). Whether an abort is still allowed is the caller's to know (``closes_abort_window``
    over the moves so far). IllegalMove ``match_over`` when the match has already ended."""
    if by not in ENDINGS:
        raise InvalidRequest(f"'by' must be one of {', '.join(ENDINGS)}.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state["players"]:
        raise InvalidRequest(f"'seat' must be from 0 to {state['players'] - 1}.")
    if state["phase"] == OVER:
        raise IllegalMove("match_over", "The match is over: it cannot end again.")
    ended: State = clone(state)
    ended["ended"] = {"by": by, "seat": seat, "phase": state["phase"]}
    ended["phase"] = OVER
    return ended


def ended_result(game: Game, state: State) -> dict[str, Any]:
    """The result of a match that ``end_match`` ended (``state["ended"]`` is set)."""
    ended = state["ended"]
    n = state["players"]
    if ended["by"] == "abort":
        return {"scores": game.standing(state), "payoffs": [0] * n, "ranking": [], "ended_by": "abort",
                "forfeited": None}
    out = game.forfeit_result(state, ended["seat"])
    out.update(ended_by=ended["by"], forfeited=ended["seat"])
    return out


def match_result(state: State) -> dict[str, Any] | None:
    """The result with how the match ended (``ended_by``: play, timeout, concession or abort, and
    ``forfeited``: the seat that forfeited, or None); None while the match goes on."""
    if state["phase"] != OVER:
        return None
    game = get_game(state["game"])
    if "ended" in state:
        return ended_result(game, state)
    out = game.result(state)
    assert out is not None
    return {**out, "ended_by": "play", "forfeited": None}


def auto_move(state: State, seat: int) -> Move:
    """The move the service plays for ``seat``: the first of its legal moves, in the order ``legal_moves``
    lists them, with a range left at the value the entry carries (its minimum) and the ``ranges`` key dropped.
    IllegalMove ``not_your_turn`` when the seat has no legal move."""
    if state["phase"] == OVER:
        raise IllegalMove("match_over", "The match is over: no more moves can be made.")
    for move in get_game(state["game"]).legal_moves(state):
        if move["seat"] == seat:
            return {k: v for k, v in move.items() if k != "ranges"}
    raise IllegalMove("not_your_turn", f"Seat {seat} has no move to make now.", seat=seat)
