"""The rules engine: pure functions from a state and a move to a new state.

No Flask, Redis, clock or I/O here (tests/engine/test_purity.py enforces it). The surface:

    new_match(game_id, players, options, seed, deals) -> state
    check_state(game_id, state)                       -> raises InvalidState
    apply(state, move) -> (state, events)             -> raises IllegalMove
    legal_moves(state, seat=None), to_act(state), view(state, seat), result(state)
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .base import INTERNAL_ERRORS, OVER, Deal, Event, Game, State, clone, seats_to_act
from .base import give_back as _give_back
from .errors import (IllegalMove, InvalidDeal, InvalidOptions, InvalidRequest, InvalidState, RulesError,
                     StateTampered, UnknownGame)
from .catalogue import describe
from .endings import ENDINGS, FORFEITS, auto_move, closes_abort_window, end_match, ended_result, match_result
from .moves import CARD_KINDS, CARD_PATTERN, Move
from .cards import count_codes
from .registry import all_games, get_game
from .rng import seed_bytes

__all__ = [
    "IllegalMove", "InvalidDeal", "InvalidOptions", "InvalidRequest", "InvalidState", "RulesError",
    "StateTampered", "UnknownGame", "Game", "State", "Move", "Event", "all_games", "get_game", "new_match",
    "check_state", "give_back", "apply", "legal_moves", "to_act", "seats_to_act", "view", "result", "is_finished", "clone",
    "deals_from", "max_dealings", "hidden_params", "in_public_view", "envelope_extras", "describe", "seed_bytes", "CARD_PATTERN",
    "ENDINGS", "FORFEITS", "auto_move", "closes_abort_window", "end_match", "match_result",
]

_INTERNAL_ERRORS = INTERNAL_ERRORS


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
    from .base import is_hex_seed
    if not isinstance(seed, str) or not is_hex_seed(seed):
        raise InvalidRequest("'seed' must be 1 to 128 hex digits.")
    for i, deal in enumerate(deals):
        try:
            game.check_deal(deal, n, opts, i)
        except InvalidDeal as exc:
            raise InvalidDeal(f"Deal {i + 1}: {exc.message}", index=i) from exc
        if pace is not None:
            pace()
    return game.new_state(n, opts, seed.lower(), [clone(d) for d in deals])


def check_state(game_id: str, state: Any, *, lend: bool = False) -> State:
    """Validate a client-supplied state for ``game_id``; any inconsistency is InvalidState. Returns the state
    to adjudicate: for games on the core's flow the one rebuilt from the state's record (equal to it). With
    ``lend``, it may be the process's own replay of the deal, lent: the caller applies a move to it in place
    (or none) and hands it to ``give_back`` once done with it (its answer written), and must not touch it
    after that."""
    game = get_game(game_id)
    try:
        return game.check_state(state, lend)
    except RulesError:
        raise
    except _INTERNAL_ERRORS as exc:
        raise InvalidState(f"The state is malformed ({type(exc).__name__}).") from exc


def give_back(state: State) -> None:
    """Return a state lent by ``check_state(..., lend=True)`` (after a move applied in place, or none): the
    check of the client's next state then goes on from it. A state that was not lent is ignored."""
    _give_back(state["game"], state)


def apply(state: State, move: Any, *, in_place: bool = False) -> tuple[State, list[Event]]:
    """The state after ``move`` and what happened. ``state`` must be valid (see check_state).

    With ``in_place`` the given state is changed (callers that own a fresh copy save one copy).
    """
    game = get_game(state["game"])
    if state["phase"] == OVER:
        raise IllegalMove("match_over", "The match is over: no more moves can be made.")
    events: list[Event] = []
    step = game.route(state, move)  # refusals before the copy: a refused move costs no copy of the state
    new = state if in_place else clone(state)
    game.play_move(new, move, events, step)
    return new, events


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
    (``in_public_view``) and giving ``after``, that a public record must leave out until the match is over:
    a parameter naming cards is shown only when the public view after the move shows that many more copies
    of each card it names (cards played face up); an empty list of cards, cards laid face down, and a deal's
    last card when the move also clears the table are withheld. Other parameters (a bid, a suit named) are
    announced at a real table and shown."""
    spec = get_game(after["game"]).actions[move["action"]]
    named = {name: count_codes(move[name]) for name, param in spec.params.items()
             if name in move and param.kind in CARD_KINDS}
    if not named:
        return []
    seen_after = in_public_view(after)
    return sorted(name for name, cards in named.items()
                  if not cards or any(seen_after[c] - seen_before[c] < k for c, k in cards.items()))
