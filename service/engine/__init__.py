"""The rules engine: pure functions. A state goes in, a new state comes out; what goes in is never changed.

No Flask, Redis, clock or I/O here, and no state kept between calls (tests/engine/test_purity.py enforces
both). The surface:

    new_match(game_id, players, options, seed, deals) -> state
    check_state(game_id, state) -> state                  the state rebuilt from its record, or InvalidState
    resume(kept, state) -> state | None                   the same check, carried on from a state checked before
    apply(state, move) -> (state, events)                 or IllegalMove
    apply_all(state, moves, pace) -> (state, [events])    many moves, one copy
    legal_moves(state, seat=None), to_act(state), view(state, seat), result(state)

A game is a module of ``service.engine.games`` (the contract: engine/base.py). Callers outside the engine use
this module only.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import record, views
from .base import INTERNAL_ERRORS, OVER, Deal, Event, Game, State, clone, seats_to_act
from .cards import count_codes
from .catalogue import describe
from .endings import ENDINGS, FORFEITS, auto_move, closes_abort_window, end_match, ended_result, match_result
from .errors import (IllegalMove, InvalidDeal, InvalidOptions, InvalidRequest, InvalidState, RulesError,
                     StateTampered, UnknownGame)
from .moves import CARD_PATTERN, Move
from .record import deal_of
from .registry import all_games, get_game
from .rng import seed_bytes
from .routing import route

__all__ = [
    "IllegalMove", "InvalidDeal", "InvalidOptions", "InvalidRequest", "InvalidState", "RulesError",
    "StateTampered", "UnknownGame", "Game", "State", "Move", "Event", "all_games", "get_game",
    "new_match", "check_state", "resume", "deal_of", "rebuild", "apply", "apply_all", "legal_moves", "to_act",
    "seats_to_act", "view", "result", "is_finished", "clone", "deals_from", "max_dealings", "hidden_params",
    "in_public_view", "envelope_extras", "describe", "seed_bytes", "CARD_PATTERN",
    "ENDINGS", "FORFEITS", "auto_move", "closes_abort_window", "end_match", "match_result",
]


def deals_from(deal: Any = None, deals: Any = None) -> list[Any]:
    """The explicit deals a request names: ``deal`` (the first) and/or ``deals`` (in order)."""
    out: list[Any] = []
    if deal is not None:
        out.append(deal)
    if deals is not None:
        if not isinstance(deals, list):
            raise InvalidDeal("'deals' must be a list of deals.")
        out.extend(deals)
    return out


def new_match(game_id: str, players: int | None, options: Any, seed: str, deals: Sequence[Any] = (),
              pace: Callable[[], None] | None = None) -> State:
    """A new match, its first deal dealt. ``seed`` is hex; ``deals`` fixes the first deals. ``pace``, when
    given, is called after each explicit deal is checked (a caller that shares its thread with others lets
    them run)."""
    game = get_game(game_id)
    n = game.default_players if players is None else players
    if not isinstance(n, int) or isinstance(n, bool) or not game.min_players <= n <= game.max_players:
        raise InvalidRequest(f"{game.name} is for {game.min_players} to {game.max_players} players.",
                             players=n if isinstance(n, int) else None)
    opts = game.read_options(options, n)
    if not isinstance(seed, str) or not record.is_hex_seed(seed):
        raise InvalidRequest("'seed' must be 1 to 128 hex digits.")
    for i, deal in enumerate(deals):
        try:
            game.check_deal(deal, n, opts, i)
        except InvalidDeal as exc:
            raise InvalidDeal(f"Deal {i + 1}: {exc.message}", index=i) from exc
        if pace is not None:
            pace()
    return record.start_match(game, n, opts, seed.lower(), [clone(d) for d in deals])


def check_state(game_id: str, state: Any) -> State:
    """Validate a client-supplied state for ``game_id``; any inconsistency is InvalidState. Returns the state
    to adjudicate: the one rebuilt from the state's record (equal to it, and of the engine's own making)."""
    game = get_game(game_id)
    try:
        return record.check(game, state)
    except RulesError:
        raise
    except INTERNAL_ERRORS as exc:
        raise InvalidState(f"The state is malformed ({type(exc).__name__}).") from exc


def resume(kept: State, state: Any) -> State | None:
    """``check_state`` of ``state`` carried on from ``kept``: a state that ``check_state`` returned, or that
    the engine made, in the same deal (``deal_of`` says which) with a log that starts ``state``'s. Returns the
    state to adjudicate (``kept`` itself when ``state`` is the same state), or None when anything differs:
    ``check_state`` then decides, with its own messages. Neither argument is changed."""
    return record.resume(get_game(kept["game"]), kept, state)


def rebuild(state: State) -> State:
    """The state that ``state``'s record gives (its carried values before the deal, the deal dealt again, its
    moves replayed), without comparing the two: InvalidState when a step of it fails."""
    return record.rebuild(get_game(state["game"]), state)


def apply(state: State, move: Any) -> tuple[State, list[Event]]:
    """The state after ``move`` and what happened; ``state`` (valid: see check_state) is not changed."""
    game = get_game(state["game"])
    if state["phase"] == OVER:
        raise _match_over()
    step = route(game, state, move)  # refusals before the copy: a refused move costs no copy of the state
    new: State = clone(state)
    events: list[Event] = []
    record.play_logged(game, new, move, events, step)
    return new, events


def apply_all(state: State, moves: Iterable[Any], pace: Callable[[], None] | None = None
              ) -> tuple[State, list[list[Event]]]:
    """The state after ``moves`` in order, and each move's events; ``state`` is not changed, and copied once
    for all the moves. ``pace``, when given, is called before each move (see ``new_match``). The first
    refused move raises its IllegalMove with ``details["index"]``, its place among ``moves``."""
    game = get_game(state["game"])
    new: State = clone(state)
    news: list[list[Event]] = []
    for i, move in enumerate(moves):
        if pace is not None:
            pace()
        events: list[Event] = []
        try:
            if new["phase"] == OVER:
                raise _match_over()
            record.play_logged(game, new, move, events, route(game, new, move))
        except IllegalMove as exc:
            raise IllegalMove(exc.reason, exc.message, **{**exc.details, "index": i}) from None
        news.append(events)
    return new, news


def _match_over() -> IllegalMove:
    return IllegalMove("match_over", "The match is over: no more moves can be made.")


def legal_moves(state: State, seat: int | None = None) -> list[Move]:
    if state["phase"] == OVER:
        return []
    moves = get_game(state["game"]).legal_moves(state)
    return moves if seat is None else [m for m in moves if m["seat"] == seat]


def to_act(state: State) -> list[int]:
    return [] if state["phase"] == OVER else get_game(state["game"]).to_act(state)


def is_finished(state: State) -> bool:
    return bool(state["phase"] == OVER)


def view(state: State, seat: int | None) -> dict[str, Any]:
    return get_game(state["game"]).view(state, seat)


def result(state: State) -> dict[str, Any] | None:
    """The game's result once the match is over; for a match cut short (``end_match``) the forfeit's or the
    abort's, which also say how it ended (``match_result`` says so for every match)."""
    if state["phase"] != OVER:
        return None
    game = get_game(state["game"])
    return ended_result(game, state) if "ended" in state else game.result(state)


def envelope_extras(state: State) -> dict[str, Any]:
    """The game's own keys of a move's answer (docs/events.md), e.g. Jewel's ``valid_declarations``."""
    return {} if state["phase"] == OVER else get_game(state["game"]).envelope_extras(state)


def max_dealings(game_id: str, players: int | None, options: Any) -> int | None:
    """The most times a match with these settings can deal (None: no bound); InvalidOptions/InvalidRequest
    as ``new_match`` gives them for bad settings."""
    game = get_game(game_id)
    n = game.default_players if players is None else players
    if not isinstance(n, int) or isinstance(n, bool) or not game.min_players <= n <= game.max_players:
        return None  # new_match refuses the player count, with its own message
    return game.max_dealings(n, game.read_options(options, n))


def in_public_view(state: State) -> Counter[str]:
    """The copies of each card the table sees (the spectator's view), for ``hidden_params``."""
    return count_codes(view(state, None))


def hidden_params(move: Move, seen_before: Counter[str], after: State) -> list[str]:
    """The parameters of ``move``, made in a state whose public view showed ``seen_before``
    (``in_public_view``) and giving ``after``, that a public record must leave out until the match is over
    (engine/views.py)."""
    spec = get_game(after["game"]).actions[move["action"]]
    return views.hidden_params(move, spec, seen_before, lambda: in_public_view(after))
