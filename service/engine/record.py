"""The deal's record: how the engine starts a match, logs its moves, and checks a state a client sends.

Beside the game's keys every state carries the record of its deal: ``log``, this deal's moves so far (compact,
see ``encode``), and ``before``, the carried values as they were when the deal began. A client's state is
checked by rebuilding it from that record (``check``): the carried values before the deal, the deal dealt again
from the seed (or the explicit deals), and the logged moves replayed through the game's own handlers must give
exactly the state sent. No rule is written twice: the check is the play.

``resume`` is the same check carried on from a state the caller checked or the engine made earlier in the
same deal: a match's requests send one deal again and again, each time a move or two longer, and the same moves
from the same state give the same state. The engine keeps none of them: whoever calls keeps what it wants to
resume from (the API's replay cache, docs/architecture.md).
"""
from __future__ import annotations

import marshal
from functools import lru_cache
from typing import Any

from .base import CORE_KEYS, INTERNAL_ERRORS, OVER, Deal, Event, Game, State, clone
from .checks import need, need_dict, need_int, need_list
from .errors import IllegalMove, InvalidDeal, InvalidOptions, InvalidState, RulesError
from .flow import Step
from .moves import Move
from .options import Options, OptionsKey, from_key, options_key
from .rng import seed_bytes
from .routing import route

STATE_VERSION = 2  # every state's ``v``: a state that carries its deal's record
ORIGIN_KEYS = ("game", "v", "players", "options", "seed", "deals")  # with ``before``: where a deal's replay starts
MAX_LOG = 5000  # moves in one deal: far above any game's longest deal
MAX_DEALINGS = 10**6  # no match deals more often than this; a larger count is a forged state


# ----- making states ---------------------------------------------------------------------------------------
def start_match(game: Game, players: int, options: Options, seed: str, deals: list[Deal]) -> State:
    """A new match, its first deal dealt; the arguments already checked (``engine.new_match``)."""
    state: State = {"game": game.id, "v": STATE_VERSION, "players": players, "options": options, "seed": seed,
                    "deals": deals, "dealings": 0, "phase": "", "log": [], "before": {}}
    game.initial(state)
    game.new_deal(state, [])
    return state


def play_logged(game: Game, state: State, move: Move, events: list[Event], step: Step) -> None:
    """``move``, already routed to ``step``, applied to ``state`` (the caller's own copy: it is changed) and
    logged with its deal; a move that begins a new deal leaves the new deal's fresh record."""
    log = state["log"]
    entry = encode(game, state, move)
    step.do(state, move, events)
    if state["log"] is log:
        log.append(entry)


def encode(game: Game, state: State, move: Move) -> Any:
    """A move as its log entry, made before the move: a card played by the seat whose turn it is, with no
    optional parameter, as the card alone (most of a deal's moves, so the log stays small); any other move
    as ``[seat, action, *parameters in the action's declared order]`` (null for an optional one left out)."""
    if (move["action"] == "play" and game.compact_play and len(move) - ("ranges" in move) == 3
            and move["seat"] == game.phases[state["phase"]].turn(state)):
        return move["card"]
    return [move["seat"], move["action"], *(move.get(k) for k in game.actions[move["action"]].params)]


def decode(game: Game, state: State, entry: Any) -> Move:
    """A log entry back to the move (the move itself is checked when it is replayed)."""
    if isinstance(entry, str) and game.compact_play:
        return {"seat": game.phases[state["phase"]].turn(state), "action": "play", "card": entry}
    need(isinstance(entry, list) and len(entry) >= 2 and isinstance(entry[1], str)
         and entry[1] in game.actions, "A logged move is malformed.")
    params = game.actions[entry[1]].params
    need(len(entry) == 2 + len(params), "A logged move has the wrong parameters.")
    return {"seat": entry[0], "action": entry[1],
            **{k: v for (k, p), v in zip(params.items(), entry[2:]) if v is not None or not p.optional}}


# ----- checking states -------------------------------------------------------------------------------------
def check(game: Game, state: Any) -> State:
    """The full check of a client's state (InvalidState): its core values, then its record rebuilt must give
    exactly the state. Returns the rebuilt state, so no value of the client's making is adjudicated (a
    ``true`` that compares equal to ``1`` included)."""
    need(isinstance(state, dict), "A state must be a JSON object.")
    check_core(game, state)
    rebuilt = rebuild(game, state)
    if rebuilt != state:
        differs = sorted(k for k in set(rebuilt) | set(state) if rebuilt.get(k, ...) != state.get(k, ...))
        raise InvalidState(f"'{differs[0]}' does not follow from the deal and its moves.", key=differs[0])
    return rebuilt


def resume(game: Game, kept: State, state: Any) -> State | None:
    """The check of ``state`` carried on from ``kept``, a state of the same deal that passed the check or that
    the engine made, when ``kept``'s moves are the start of ``state``'s: the moves after them replayed on a copy
    of ``kept``. ``kept`` itself when nothing is left to replay; None when anything at all differs, and the
    full check (``check``) then decides, with its own messages.

    What ``kept`` already proved is compared, not checked again: the core values by value, except where a value
    of another type could compare equal (``v``: exactly an integer; the options by their typed key;
    ``before`` exactly, types included). The moves are compared by value: a ``true`` sent for seat 1 stands
    for it, since the state returned is the replay, not the client's (the full check would refuse that
    ``true``)."""
    if type(state) is not dict:
        return None
    log, before = state.get("log"), state.get("before")
    kept_log = kept["log"]
    done = len(kept_log)
    if not (type(log) is list and done <= len(log) <= MAX_LOG and type(before) is dict
            and type(state.get("v")) is int and type(state.get("players")) is int
            and [state.get(k) for k in ORIGIN_KEYS] == [kept[k] for k in ORIGIN_KEYS]
            and options_key(state["options"]) == options_key(kept["options"])
            and _same_before(before, kept["before"]) and log[:done] == kept_log):
        return None
    if done == len(log):
        return kept if kept == state else None
    resumed: State = clone(kept)
    try:
        replay(game, resumed, log, done)
    except (RulesError, *INTERNAL_ERRORS):
        return None  # the full check refuses it, in its own words
    return resumed if resumed == state else None


def deal_of(state: Any) -> tuple[Any, ...] | None:
    """Which deal of which match ``state`` is in, its moves aside (game, seed, players, dealings before it):
    what a caller keeps states to resume from by. None for a value without that shape."""
    if type(state) is not dict:
        return None
    before, seed, players = state.get("before"), state.get("seed"), state.get("players")
    if type(before) is not dict or type(seed) is not str or type(players) is not int:
        return None
    return state.get("game"), seed, players, repr(before.get("dealings"))


def rebuild(game: Game, state: State) -> State:
    """The state the client's ``state`` must be: its carried values before this deal, the deal dealt again,
    and the logged moves replayed through the game's handlers (InvalidState when any step fails)."""
    log, before = _record(game, state)
    start = _deal_again(game, state, before)
    replay(game, start, log, 0)
    return start


def replay(game: Game, start: State, log: list[Any], done: int) -> None:
    """Replay ``log`` from entry ``done`` on ``start`` (the caller's own state, which already holds the entries
    before it, and is changed)."""
    events: list[Event] = []  # not kept: the replay needs the moves' effects, not their news
    for i in range(done, len(log)):
        entry = log[i]
        need(start["phase"] != OVER, "The log goes on after the match ended.")
        move = decode(game, start, entry)
        # a card alone is already the canonical entry; any other entry is logged as the move encodes
        canonical = entry if isinstance(entry, str) else encode(game, start, move)
        current = start["log"]
        try:
            route(game, start, move).do(start, move, events)
        except IllegalMove as exc:
            raise InvalidState(f"Move {i + 1} of this deal is illegal: {exc.message}", move=i) from None
        need(start["log"] is current, "The log goes on past the end of its deal.")
        current.append(canonical)
        events.clear()


def check_core(game: Game, state: State) -> None:
    """The core's values of a client's state: the game, version, players, options, seed, pending deals,
    dealings and phase."""
    need(state.get("game") == game.id, f"This state is not a {game.name} state.")
    need(type(state.get("v")) is int and state["v"] == STATE_VERSION,
         f"Unsupported state version (expected {STATE_VERSION}).")
    n = need_int(state.get("players"), "players", game.min_players, game.max_players)
    options = state.get("options")
    key = options_key(options)
    if key is None:
        check_normal_options(game, options, n)
    else:
        _normal_options(game, n, key)  # the same check, remembered for options already found valid
    seed = state.get("seed")
    need(isinstance(seed, str) and is_hex_seed(seed), "'seed' must be a string of hex digits.")
    normal: Options = state["options"]
    for i, deal in enumerate(need_list(state.get("deals"), "deals")):
        try:
            game.check_deal(deal, n, normal, i)
        except InvalidDeal as exc:
            raise InvalidState(f"A pending deal is invalid: {exc.message}") from exc
    need_int(state.get("dealings"), "dealings", 0, MAX_DEALINGS)
    need(isinstance(state.get("phase"), str) and (state["phase"] in game.phases or state["phase"] == OVER),
         "'phase' is not a phase of this game.")


def check_normal_options(game: Game, options: Any, n: int) -> None:
    """A state's options must be valid and in normal form (every option present, as stored at ``new``)."""
    try:
        normal = game.read_options(options, n)
    except InvalidOptions as exc:
        raise InvalidState(f"The state's options are invalid: {exc.message}") from exc
    need(normal == options, "The state's options are incomplete or not in normal form.")


@lru_cache(maxsize=1024)
def _normal_options(game: Game, n: int, key: OptionsKey) -> bool:
    """``check_normal_options`` on the options ``key`` stands for (see ``options_key``), memoised: every
    request of a match sends the same options. Only a pass is remembered; a refusal raises (exceptions are
    not cached) and is checked again next time, with the same message."""
    check_normal_options(game, from_key(key), n)
    return True


def is_hex_seed(seed: str) -> bool:
    if not 1 <= len(seed) <= 128:
        return False
    try:
        seed_bytes(seed)
    except ValueError:
        return False
    return True


def _record(game: Game, state: State) -> tuple[list[Any], dict[str, Any]]:
    """The state's record of its deal: the moves so far and the carried values before it."""
    log = need_list(state.get("log"), "log")
    need(len(log) <= MAX_LOG, "The log of this deal is too long.")
    before = need_dict(state.get("before"), "before")
    need(set(before) == set(game.kept), "'before' must hold every value carried between deals.")
    return log, before


def _deal_again(game: Game, state: State, before: dict[str, Any]) -> State:
    """The state at the start of the client's deal: its carried values checked, the deal dealt again."""
    # the core values are read, never changed, by a deal and its moves (explicit deals are copied when
    # dealt): only the carried values the replay will change need copies. The keys go in a new match's
    # order (log and before after the core keys), so that the rebuilt state serialises alike.
    start: State = {k: state[k] for k in CORE_KEYS}
    start.update(log=[], before={})
    start.update({k: clone(before[k]) for k in game.kept})
    need_int(start["dealings"], "dealings", 0, MAX_DEALINGS)
    game.check_carried(start)
    if start["dealings"] == 0:
        _check_initial(game, start)
    start["phase"] = ""
    try:
        game.new_deal(start, [])
    except InvalidDeal as exc:  # an explicit deal that the forged carried values do not fit
        raise InvalidState(f"The deal does not fit the values carried into it: {exc.message}") from None
    return start


def _check_initial(game: Game, start: State) -> None:
    """Before the first dealing nothing has been played, so every carried value must be the one the match
    starts with (``initial``): a score, a chip or a pool won before any deal is a forged state."""
    fresh: State = {k: start[k] for k in CORE_KEYS}
    game.initial(fresh)
    for key in game.carried:
        if not same_json(start[key], fresh[key]):
            raise InvalidState(f"'{key}' must be its starting value before the first deal.", key=key)


def _same_before(sent: dict[str, Any], kept: dict[str, Any]) -> bool:
    """The carried values of two states exactly alike, types included: their bytes first (fast, in C), and
    where those differ for equal values (marshal marks objects that are referred to elsewhere), value by value."""
    return _strict_form(sent) == _strict_form(kept) or same_json(sent, kept)


def _strict_form(value: dict[str, Any]) -> bytes:
    """Bytes that only an identical JSON object gives (``true`` is not ``1``, ``1.0`` is not ``1``); the top
    level is copied so that how the caller holds it does not show."""
    return marshal.dumps(dict(value))


def same_json(a: Any, b: Any) -> bool:
    """Equal JSON values of the same types throughout (``true`` is not ``1``, ``1.0`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return bool(a == b)
