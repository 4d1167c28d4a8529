"""What every game is: a ``Game`` subclass that reads like its rule book.

A game built on the core's flow (``carried`` declared) implements:

    carried                      the game's keys that carry from one deal to the next (chips, scores, dealer...)
    initial(state)               their values when the match starts
    deal(state, events)          begin a deal: antes, the cards (``next_deal``), the first phase; only reads
                                 the core keys and the carried ones
    build_phases()               {name: flow.Phase}; each action a flow.Step (who may, what it does)
    check_carried(state)         ranges and sums of the carried values between deals (InvalidState)
    result(state), card_groups(state), validate_deal(deal, n, opts)

and the core keeps, beside the game's keys, ``log`` (this deal's moves, compact) and ``before`` (the carried
values as they were before this deal began). A client's state is checked by rebuilding it: the carried values
before the deal, the deal dealt again from the seed (or the explicit deals), and the logged moves applied
through the game's own handlers must give exactly the state sent. No rule is written twice.

The older interface, kept while games move over, is:

A state is the plain JSON object of the whole match. The core owns a few keys every game has:

    game, v, players, options, seed, deals (explicit deals still to use), dealings (how many
    dealings so far), phase ("over" once the match has ended)

A game adds its own keys, and implements:

    start(state)                 deal the first deal into a fresh state
    phases                       {phase: {action: handler}}; a handler checks the move, raises
                                 IllegalMove, and only then changes the state
    to_act(state), legal_moves(state), result(state)
    validate(state)              every invariant of a client-supplied state (InvalidState)
    card_groups(state)           every place a card can be, for the conservation check
    validate_deal(deal, n, opts) an explicit deal's shape for this game (InvalidDeal)

and may override ``view`` when more than the hands and ``secret_keys`` are hidden.
"""
from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from .cards import Card
from .checks import need, need_cards, need_dict, need_exact_keys, need_int, need_list, need_pack
from .errors import IllegalMove, InvalidDeal, InvalidOptions, InvalidState, RulesError
from .flow import Phase, Step
from .moves import Action, Move, check_params, read_action
from .options import FIRST_DEALER, Option, Options, OptionsKey, from_key, options_key, read_options
from .rng import seed_bytes, shuffled

State = dict[str, Any]
Event = dict[str, Any]
Handler = Callable[[State, Move, list[Event]], None]
Deal = dict[str, Any]

CORE_KEYS = ("game", "v", "players", "options", "seed", "deals", "dealings", "phase")
ORIGIN_KEYS = ("game", "v", "players", "options", "seed", "deals")  # with ``before``: where a deal's replay starts
RECORD_KEYS = ("log", "before")  # games on the core's flow: this deal's moves; the carried values before it
STATE_VERSION = 1
FLOW_STATE_VERSION = 2  # states that carry their deal's moves (games on the core's flow)
OVER = "over"
MAX_LOG = 5000  # moves in one deal: far above any game's longest deal
MAX_DEALINGS = 10**6  # no match deals more often than this; a larger count is a forged state


def clone(value: Any) -> Any:
    """A deep copy of a JSON value: through ``marshal``, which copies exactly these types (true stays true, not
    1) in C, several times faster than ``copy.deepcopy`` or a recursive copy in Python."""
    return marshal.loads(marshal.dumps(value))


@dataclass(frozen=True, slots=True)
class _Replay:
    """A deal this process has replayed: where it started (the core values, and ``before`` in its strict
    form), the typed key of its options, and the state its moves gave, log included (a private copy)."""

    origin: list[Any]
    options: OptionsKey | None
    state: State
    answered: bool = False  # the state after a /move, given back (``give_back``): a client's next state


def strict_form(value: Any) -> bytes:
    """Bytes that only an identical JSON value gives: same values of the same types (``true`` is not ``1``,
    ``1.0`` is not ``1``). marshal also marks objects referred to more than once: the top level is copied so
    that how the caller holds it does not show; below it, a value parsed from JSON shares nothing, and where
    two equal values still give different bytes a check only goes the long way round."""
    top = value[:] if type(value) is list else dict(value) if type(value) is dict else value
    return marshal.dumps(top)


def _deal_key(game_id: str, state: State) -> tuple[Any, ...]:
    """Which deal of which match a state is in (its moves aside), for finding the last replay of it."""
    return game_id, state["seed"], state["players"], repr(state["before"].get("dealings"))


INTERNAL_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError)  # what malformed input raises
_REPLAYS: dict[tuple[Any, ...], _Replay] = {}  # the latest replay of each deal (game, seed, players, dealing)
REPLAYS_KEPT = 1024  # each about 2-6 KB (origin, log and state): a few MB per process at most


# Kept replays lent out by ``check_state(..., lend=True)``, by the id of their state: the caller applies a move
# to it in place and gives it back (``give_back``) once it is done with it, and the state after the move is
# then the kept replay of the deal. A move the client sends next is the one state a replay then need not
# catch up with, and the state is never copied.
_LENT: dict[int, tuple[_Replay, tuple[Any, ...]]] = {}
LENT_KEPT = 256  # a lent replay never given back (the request failed) is dropped after this many more


def _lend(key: tuple[Any, ...], replay: _Replay) -> None:
    _LENT[id(replay.state)] = replay, key
    while len(_LENT) > LENT_KEPT:
        try:
            del _LENT[next(iter(_LENT))]
        except (KeyError, RuntimeError, StopIteration):
            break


def give_back(game_id: str, state: State) -> None:
    """A lent state (see ``Game.check_state``), after a move applied to it in place or none, given back by a
    caller that is done with it: kept as the latest replay of its deal, unless the move ended the deal (the
    next one starts from a full check). Any other state is ignored."""
    lent = _LENT.pop(id(state), None)
    if lent is None or lent[0].state is not state:
        return
    replay, key = lent
    if _deal_key(game_id, state) == key:
        _remember(key, _Replay(replay.origin, replay.options, state, answered=True))


def _remember(key: tuple[Any, ...], replay: _Replay) -> None:
    _REPLAYS.pop(key, None)  # re-inserted last: the dict's order is the order of use
    _REPLAYS[key] = replay
    while len(_REPLAYS) > REPLAYS_KEPT:
        try:
            del _REPLAYS[next(iter(_REPLAYS))]
        except (KeyError, RuntimeError, StopIteration):  # another thread trimmed it first
            break


def seats_to_act(moves: list[Move]) -> list[int]:
    """The seats that have a legal move among ``moves``: ``to_act`` from the legal moves already computed.
    Every game keeps ``to_act(state) == seats_to_act(legal_moves(state))`` (checked after every playout move)."""
    return sorted({m["seat"] for m in moves})


class Game:
    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int] = 4
    options: ClassVar[tuple[Option, ...]] = ()
    actions: ClassVar[Mapping[str, Action]] = {}
    # keys of the state no seat ever sees (the hands are handled separately)
    secret_keys: ClassVar[frozenset[str]] = frozenset({"seed", "deals", "rest"})
    # option sets the property tests play, besides the defaults
    sample_options: ClassVar[tuple[Mapping[str, Any], ...]] = ()

    # games on the core's flow: the keys carried from deal to deal (see the module docstring)
    carried: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.phases: dict[str, Any] = self.build_phases()
        self.flow = bool(self.carried)
        self.state_version = FLOW_STATE_VERSION if self.flow else STATE_VERSION
        self.kept = ("dealings", *self.carried)
        play = self.actions.get("play")
        # a play is logged as its card alone when the card is its only required parameter (see ``encode``)
        self.compact_play = play is not None and [k for k, p in play.params.items() if not p.optional] == ["card"]
        self.hidden_keys = self.secret_keys | set(RECORD_KEYS) if self.flow else self.secret_keys

    # ----- to implement ---------------------------------------------------------------
    def build_phases(self) -> dict[str, Any]:
        raise NotImplementedError

    def initial(self, state: State) -> None:
        """The carried values when the match starts (games on the core's flow)."""
        raise NotImplementedError

    def deal(self, state: State, events: list[Event]) -> None:
        """Begin a deal (games on the core's flow): reads only the core keys and the carried ones."""
        raise NotImplementedError

    def check_carried(self, state: State) -> None:
        """The carried values between deals: types, ranges and sums (games on the core's flow)."""
        raise NotImplementedError

    def pack(self, n: int, options: Options) -> Sequence[Card]:
        raise NotImplementedError

    def max_dealings(self, n: int, options: Options) -> int | None:
        """The most times this match can deal cards (redeals included), when its format bounds it; None when
        it does not (play to a target score, redeals that can repeat). Explicit deals beyond it could never be
        used, so a request that fixes more is refused."""
        return None

    def start(self, state: State) -> None:
        raise NotImplementedError

    def to_act(self, state: State) -> list[int]:
        """The seats with a legal move now; a game overrides it only where it knows them more cheaply."""
        return seats_to_act(self.legal_moves(state))

    def legal_moves(self, state: State) -> list[Move]:
        phase: Phase = self.phases[state["phase"]]
        return phase.legal(state)

    def result(self, state: State) -> dict[str, Any] | None:
        raise NotImplementedError

    def envelope_extras(self, state: State) -> dict[str, Any]:
        """Keys a game's spec adds to the answer of a move beside the legal moves (Jewel's
        ``valid_declarations``); only what the seat to act could work out from its own hand."""
        return {}

    def validate(self, state: State) -> None:
        raise NotImplementedError

    def card_groups(self, state: State) -> list[Sequence[Card]]:
        raise NotImplementedError

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Turn a shuffled pack into ``{"hands": [...], "rest": [...]}`` for the current dealer."""
        raise NotImplementedError

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        """Default: hands plus rest are exactly the pack. Games add hand sizes and rest shape."""
        need_pack_deal(deal, self.pack(n, options))

    def validate_deal_at(self, deal: Deal, n: int, options: Options, index: int) -> None:
        """The ``index``-th explicit deal of the match (0: the first); for games whose deal's shape depends on
        who deals it. Default: ``validate_deal``."""
        self.validate_deal(deal, n, options)

    def exposed_cards(self, state: State) -> set[Card]:
        """Cards in a hand that the whole table has seen (a turn-up taken into a hand, sequences shown): a view
        may name them although they are in another seat's hand. Default: none."""
        return set()

    def seen_cards(self, state: State, seat: int | None) -> set[Card]:
        """Cards in another seat's hand that ``seat`` (None: a spectator) may see: the exposed cards, and any
        a game shows to some seats only (a partner's shown card). Default: the exposed cards."""
        return self.exposed_cards(state)

    def check_options(self, options: Options, n: int) -> None:
        """Cross-option checks; raise InvalidOptions."""

    def standing(self, state: State) -> list[Any]:
        """Each seat's score as the match stands, for the result of a match cut short: ``scores`` where the game
        keeps points, else ``chips``, else zeros."""
        for key in ("scores", "chips"):
            values = state.get(key)
            if isinstance(values, list) and len(values) == state["players"]:
                return list(values)
        return [0] * state["players"]

    def partnerships(self, state: State) -> list[list[int]] | None:
        """The sides of a game played in fixed partnerships (None: every seat plays for itself)."""
        return None

    def forfeit_stake(self, state: State) -> int:
        """What each seat of a partnership that forfeits pays (a won match's smallest payoff, by default 1)."""
        return 1

    def forfeit_result(self, state: State, seat: int) -> dict[str, Any]:
        """The result of a match that ``seat`` forfeited (a timeout or a concession: engine/endings.py). The
        core's: ``seat`` ranked last and paying one unit to every other seat (a zero sum), the others ranked
        in seat order with equal payoffs. In partnerships the seat's whole side loses, each of its seats paying
        ``forfeit_stake`` to one of the other side, the seat ranked below its partner. A game whose page says
        otherwise overrides it."""
        n = state["players"]
        sides = self.partnerships(state)
        if sides is None:
            others = [s for s in range(n) if s != seat]
            return {"scores": self.standing(state), "payoffs": [-(n - 1) if s == seat else 1 for s in range(n)],
                    "ranking": [*others, seat]}
        losers = next(side for side in sides if seat in side)
        stake = self.forfeit_stake(state)
        return {"scores": self.standing(state), "payoffs": [-stake if s in losers else stake for s in range(n)],
                "ranking": [*(s for s in range(n) if s not in losers), *(s for s in losers if s != seat), seat]}

    def zero_sum(self, options: Options) -> bool:
        """Do the result's payoffs always sum to 0 under these options? (A few specs make a loser pay for
        something outside the table, e.g. Toepen's round of drinks; the property tests honour this.)"""
        return True

    # ----- shared machinery ------------------------------------------------------------
    def all_options(self) -> tuple[Option, ...]:
        return (*self.options, FIRST_DEALER) if all(o.name != "first_dealer" for o in self.options) else self.options

    def read_options(self, raw: Any, n: int) -> Options:
        opts = read_options(self.all_options(), raw, n)
        self.check_options(opts, n)
        return opts

    def new_state(self, players: int, options: Options, seed: str, deals: list[Deal]) -> State:
        state: State = {
            "game": self.id, "v": self.state_version, "players": players, "options": options,
            "seed": seed, "deals": deals, "dealings": 0, "phase": "",
        }
        if self.flow:
            state.update(log=[], before={})
            self.initial(state)
            self.new_deal(state, [])
        else:
            self.start(state)
        return state

    def new_deal(self, state: State, events: list[Event]) -> None:
        """Begin a deal through the game's ``deal``, remembering what it needs to be checked by replay: the
        carried values as they were before it (``before``) and an empty log. A deal that ends at once and
        begins the next leaves the record of the last one."""
        snapshot = {k: clone(state[k]) for k in self.kept}
        log: list[Any] = []
        state["log"] = log
        self.deal(state, events)
        if state["log"] is log:
            state["before"] = snapshot

    def next_deal(self, state: State) -> Deal:
        """The next dealing of cards: the next explicit deal if any is left, else the seeded shuffle."""
        index = state["dealings"]
        state["dealings"] = index + 1
        if self.flow:
            if index < len(state["deals"]):
                fixed: Deal = state["deals"][index]
                return {"hands": [list(h) for h in fixed["hands"]], "rest": list(fixed["rest"])}
        elif state["deals"]:
            deal: Deal = state["deals"].pop(0)
            return {"hands": [list(h) for h in deal["hands"]], "rest": list(deal["rest"])}
        cards = shuffled(self.pack(state["players"], state["options"]), state["seed"], f"{self.id}/{index}")
        return self.distribute(cards, state)

    # ----- a move, on the core's flow ----------------------------------------------------
    def route(self, state: State, raw: Any) -> Step:
        """The step that takes ``raw``, or the refusal in the contract's order: unknown action, bad seat, the
        phase's refusals (``flow.Phase.route``: the game's guard, wrong phase, not your turn, the step's early
        refusals), bad parameters; then the step's rule refuses or lets the move through (``flow.Step.do``)."""
        seat, action = read_action(raw, self.actions, state["players"])
        phase: Phase = self.phases[state["phase"]]
        step = phase.route(state, seat, action)
        check_params(raw, self.actions[action], action, self.card_codes(state["players"], state["options"]))
        return step

    def card_codes(self, n: int, options: Options) -> frozenset[Card]:
        """The codes of the cards in this match's pack: a move naming any other code has a bad parameter."""
        return _codes_of(tuple(self.pack(n, options)))

    def play_move(self, state: State, raw: Any, events: list[Event], step: Step | None = None) -> None:
        """Apply a move to ``state`` in place and log it with its deal (refusals leave the state unchanged).
        ``step`` is the move's route when the caller has already found it."""
        step = step or self.route(state, raw)
        log = state["log"]
        entry = self.encode(state, raw)
        step.do(state, raw, events)
        if state["log"] is log:  # no new deal began: the move belongs to this deal's record
            log.append(entry)

    def encode(self, state: State, move: Move) -> Any:
        """A move as its log entry, made before the move: a card played by the seat whose turn it is, with no
        optional parameter, as the card alone (most of a deal's moves, so the log stays small); any other move
        as ``[seat, action, *parameters in the action's declared order]`` (null for an optional one left out)."""
        if (move["action"] == "play" and self.compact_play and len(move) - ("ranges" in move) == 3
                and move["seat"] == self.phases[state["phase"]].turn(state)):
            return move["card"]
        return [move["seat"], move["action"], *(move.get(k) for k in self.actions[move["action"]].params)]

    def decode(self, state: State, entry: Any) -> Move:
        """A log entry back to the move (the move itself is checked when it is replayed)."""
        if isinstance(entry, str) and self.compact_play:
            return {"seat": self.phases[state["phase"]].turn(state), "action": "play", "card": entry}
        need(isinstance(entry, list) and len(entry) >= 2 and isinstance(entry[1], str)
             and entry[1] in self.actions, "A logged move is malformed.")
        params = self.actions[entry[1]].params
        need(len(entry) == 2 + len(params), "A logged move has the wrong parameters.")
        return {"seat": entry[0], "action": entry[1],
                **{k: v for (k, p), v in zip(params.items(), entry[2:]) if v is not None or not p.optional}}

    def rebuild(self, state: State) -> State:
        """The state the client's ``state`` must be: its carried values before this deal, the deal dealt
        again, and the logged moves replayed through the game's handlers (InvalidState when any step fails)."""
        log, before = self.record(state)
        start = self.deal_again(state, before)
        self.replay(start, log, 0)
        return start

    def record(self, state: State) -> tuple[list[Any], dict[str, Any]]:
        """The state's record of its deal: the moves so far and the carried values before it."""
        log = need_list(state.get("log"), "log")
        need(len(log) <= MAX_LOG, "The log of this deal is too long.")
        before = need_dict(state.get("before"), "before")
        need(set(before) == set(self.kept), "'before' must hold every value carried between deals.")
        return log, before

    def check_by_replay(self, state: State) -> State:
        """``rebuild`` and the comparison; a state that passes is kept as this process's latest replay of its
        deal (``replayed`` goes on from it). Returns the rebuilt state, so no value of the client's making is
        adjudicated (a ``true`` that compares equal to ``1`` included)."""
        rebuilt = self.rebuild(state)
        if rebuilt != state:
            differs = sorted(k for k in set(rebuilt) | set(state) if rebuilt.get(k, ...) != state.get(k, ...))
            raise InvalidState(f"'{differs[0]}' does not follow from the deal and its moves.", key=differs[0])
        origin = [*(state[k] for k in ORIGIN_KEYS), strict_form(state["before"])]
        _remember(_deal_key(self.id, state), _Replay(clone(origin), options_key(state["options"]), clone(rebuilt)))
        return rebuilt

    def replayed(self, state: State, lend: bool = False) -> State | None:
        """The check of ``state`` by going on from this process's last replay of the same deal, when that
        one's moves are the start of this one's: a match's requests send the same deal again and again, each
        time with a move or two more, and the same moves from the same dealing give the same state. None when
        there is no such replay or anything at all differs: the full check (``validate_core``, ``rebuild``)
        then decides, with its own messages.

        What is compared with the kept replay was checked when it was kept: the core values by value, except
        the few where a value of another type could compare equal (``v``, ``players``: exactly integers; the
        options by their typed key; ``before`` by ``strict_form``). The moves already replayed are compared by
        value: a ``true`` sent for seat 1 stands for it, since the state returned is a copy of the replay, not
        the client's (the full check would refuse that ``true``)."""
        log, before, seed, players = state.get("log"), state.get("before"), state.get("seed"), state.get("players")
        if type(log) is not list or type(before) is not dict or type(seed) is not str or type(players) is not int:
            return None
        key = _deal_key(self.id, state)
        known = _REPLAYS.pop(key, None)  # this request's alone while it replays (another thread starts afresh)
        if known is None:
            return None
        done = len(known.state["log"])
        if not (state.get("game") == self.id and type(state.get("v")) is int and len(log) <= MAX_LOG
                and known.origin == [*(state.get(k) for k in ORIGIN_KEYS), strict_form(before)]
                and known.options == options_key(state.get("options")) and log[:done] == known.state["log"]):
            _remember(key, known)  # untouched: another deal's request may still go on from it
            return None
        try:
            self.replay(known.state, log, done)
        except (RulesError, *INTERNAL_ERRORS):
            return None  # the full check refuses it, in its own words
        if known.state != state:
            return None
        if lend and (done < len(log) or known.answered):  # the replay itself, lent until ``give_back``: no copy
            _lend(key, known)
            return known.state
        # a state that a check kept sent again (a client trying several moves on one state) is copied, and the
        # replay stays: a replay only goes forward, and lent it would leave the next copy without one
        _remember(key, known)
        copy: State = clone(known.state)
        return copy

    def deal_again(self, state: State, before: dict[str, Any]) -> State:
        """The state at the start of the client's deal: its carried values checked, the deal dealt again."""
        # the core values are read, never changed, by a deal and its moves (explicit deals are copied when
        # dealt): only the carried values the replay will change need copies. The keys go in a new match's
        # order (log and before after the core keys), so that the rebuilt state serialises alike.
        start: State = {k: state[k] for k in CORE_KEYS}
        start.update(log=[], before={})
        start.update({k: clone(before[k]) for k in self.kept})
        need_int(start["dealings"], "dealings", 0, MAX_DEALINGS)
        self.check_carried(start)
        if start["dealings"] == 0:
            self.check_initial(start)
        start["phase"] = ""
        try:
            self.new_deal(start, [])
        except InvalidDeal as exc:  # an explicit deal that the forged carried values do not fit
            raise InvalidState(f"The deal does not fit the values carried into it: {exc.message}") from None
        return start

    def check_initial(self, start: State) -> None:
        """Before the first dealing nothing has been played, so every carried value must be the one the match
        starts with (``initial``): a score, a chip or a pool won before any deal is a forged state."""
        fresh: State = {k: start[k] for k in CORE_KEYS}
        self.initial(fresh)
        for key in self.carried:
            if not same_json(start[key], fresh[key]):
                raise InvalidState(f"'{key}' must be its starting value before the first deal.", key=key)

    def replay(self, start: State, log: list[Any], done: int) -> None:
        """Replay ``log`` from entry ``done`` on ``start`` (which already holds the entries before it)."""
        events: list[Event] = []  # not kept: the replay needs the moves' effects, not their news
        for i in range(done, len(log)):
            entry = log[i]
            need(start["phase"] != OVER, "The log goes on after the match ended.")
            move = self.decode(start, entry)
            # a card alone is already the canonical entry; any other entry is logged as the move encodes
            canonical = entry if isinstance(entry, str) else self.encode(start, move)
            current = start["log"]
            try:
                self.route(start, move).do(start, move, events)
            except IllegalMove as exc:
                raise InvalidState(f"Move {i + 1} of this deal is illegal: {exc.message}", move=i) from None
            need(start["log"] is current, "The log goes on past the end of its deal.")
            current.append(canonical)
            events.clear()

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator): no other hand, nothing secret. On the core's flow
        it also says whose turn it is in the phase's order of play (``turn``), even while a poll is pending."""
        out = {k: v for k, v in state.items() if k not in self.hidden_keys}
        hands = state.get("hands")
        if isinstance(hands, list):
            out["hands"] = [list(h) if s == seat else None for s, h in enumerate(hands)]
            out["hand_sizes"] = [len(h) for h in hands]
        out["seat"] = seat
        if self.flow:
            out["turn"] = None if state["phase"] == OVER else self.phases[state["phase"]].turn(state)
        return out

    def validate_core(self, state: State) -> None:
        need(state.get("game") == self.id, f"This state is not a {self.name} state.")
        need(type(state.get("v")) is int and state["v"] == self.state_version,
             f"Unsupported state version (expected {self.state_version}).")
        n = need_int(state.get("players"), "players", self.min_players, self.max_players)
        options = state.get("options")
        key = options_key(options)
        if key is None:
            self.check_normal_options(options, n)
        else:
            _normal_options(self, n, key)  # the same check, remembered for options already found valid
        seed = state.get("seed")
        need(isinstance(seed, str) and is_hex_seed(seed), "'seed' must be a string of hex digits.")
        normal: Options = state["options"]
        for i, deal in enumerate(need_list(state.get("deals"), "deals")):
            try:
                self.check_deal(deal, n, normal, i)
            except InvalidDeal as exc:
                raise InvalidState(f"A pending deal is invalid: {exc.message}") from exc
        need_int(state.get("dealings"), "dealings", 0, MAX_DEALINGS)
        need(isinstance(state.get("phase"), str) and (state["phase"] in self.phases or state["phase"] == OVER),
             "'phase' is not a phase of this game.")

    def check_normal_options(self, options: Any, n: int) -> None:
        """A state's options must be valid and in normal form (every option present, as stored at ``new``)."""
        try:
            normal = self.read_options(options, n)
        except InvalidOptions as exc:
            raise InvalidState(f"The state's options are invalid: {exc.message}") from exc
        need(normal == options, "The state's options are incomplete or not in normal form.")

    def check_deal(self, deal: Any, n: int, options: Options, index: int = 0) -> None:
        """An explicit deal: ``{"hands": [<n lists of cards>], "rest": [cards]}``, valid for this game."""
        if not isinstance(deal, dict) or set(deal) != {"hands", "rest"}:
            raise InvalidDeal("A deal must be an object with exactly 'hands' and 'rest'.")
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != n:
            raise InvalidDeal(f"A deal needs one hand per player ({n}).")
        try:
            for s, h in enumerate(hands):
                need_cards(h, f"hands[{s}]")
            need_cards(deal["rest"], "rest")
        except InvalidState as exc:
            raise InvalidDeal(exc.message) from exc
        self.validate_deal_at(deal, n, options, index)

    def check_state(self, state: State, lend: bool = False) -> State:
        """Full validation of a client-supplied state; returns the state to adjudicate (on the core's flow,
        the one rebuilt from its record, so no value of the client's own making is used). With ``lend`` the
        state returned may be this process's kept replay itself (see ``give_back``)."""
        need(isinstance(state, dict), "A state must be a JSON object.")
        if self.flow:
            replayed = self.replayed(state, lend)
            if replayed is not None:
                return replayed
        self.validate_core(state)
        if not self.flow:
            self.validate(state)
            need_pack(self.card_groups(state), self.pack(state["players"], state["options"]))
            return state
        return self.check_by_replay(state)

    def known_keys(self, state: State, game_keys: Sequence[str]) -> None:
        need_exact_keys(state, "state", (*CORE_KEYS, *game_keys))


@lru_cache(maxsize=64)
def _codes_of(pack: tuple[Card, ...]) -> frozenset[Card]:
    return frozenset(pack)


@lru_cache(maxsize=1024)
def _normal_options(game: Game, n: int, key: OptionsKey) -> bool:
    """``check_normal_options`` on the options ``key`` stands for (see ``options_key``), memoised: every
    request of a match sends the same options. Only a pass is remembered; a refusal raises (exceptions are
    not cached) and is checked again next time, with the same message."""
    game.check_normal_options(from_key(key), n)
    return True


def same_json(a: Any, b: Any) -> bool:
    """Equal JSON values of the same types throughout (``true`` is not ``1``, ``1.0`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return bool(a == b)


def is_hex_seed(seed: str) -> bool:
    if not 1 <= len(seed) <= 128:
        return False
    try:
        seed_bytes(seed)
    except ValueError:
        return False
    return True


def need_pack_deal(deal: Deal, pack: Sequence[Card]) -> None:
    try:
        need_pack([*deal["hands"], deal["rest"]], pack)
    except InvalidState as exc:
        raise InvalidDeal("The deal is not exactly the game's pack: " + exc.message) from exc


def need_hand_sizes(deal: Deal, size: int) -> None:
    for s, hand in enumerate(deal["hands"]):
        if len(hand) != size:
            raise InvalidDeal(f"Seat {s} must be dealt {size} cards, not {len(hand)}.")


def play_moves(seat: int, cards: Sequence[Card]) -> list[Move]:
    return [{"seat": seat, "action": "play", "card": c} for c in cards]


def not_your_turn(seat: int, on_turn: int | None) -> IllegalMove:
    who = f"seat {on_turn}" if on_turn is not None else "someone else"
    return IllegalMove("not_your_turn", f"It is not your turn: {who} is to play.", seat=seat)


def require_turn(move: Move, on_turn: int) -> None:
    if move["seat"] != on_turn:
        raise not_your_turn(move["seat"], on_turn)


def require_in_hand(hand: Sequence[Card], card: Card) -> None:
    if card not in hand:
        from .cards import card_name
        raise IllegalMove("card_not_in_hand", f"You do not hold the {card_name(card)}.", card=card)
