"""The game contract: what a game module defines, in the order a newcomer reads it.

A game is a module of ``service/engine/games`` that defines ``GAME``, an instance of a ``Game`` subclass written
like the game's rule book:

1. Who it is: ``id``, ``name``, ``summary``, ``min_players``/``max_players``/``default_players``, its
   ``options`` (``options.Option``; ``first_dealer`` is added when a game does not declare it) with
   ``check_options`` for rules between options, and ``sample_options`` (settings the property tests play).
2. Its moves: ``actions``, ``{action: moves.Action}``, each move's parameters as clients send them.
3. What it keeps: a state is the plain JSON object of the whole match. The core owns ``CORE_KEYS`` and the
   deal's record (``RECORD_KEYS``: its moves and the values before it, engine/record.py); the game adds its
   own keys. ``carried`` names those that carry from one deal to the next (scores, chips, the dealer...);
   ``initial(state)`` gives their values when the match starts and ``check_carried(state)`` checks their
   types, ranges and sums between deals (InvalidState).
4. The deal: ``pack(n, options)``; ``distribute(cards, state)``, a shuffled pack into hands and rest;
   ``deal(state, events)`` begins a deal (antes, the cards from ``self.next_deal(state)``, the first phase) and
   reads only the core keys and the carried ones; ``validate_deal(deal, n, options)`` checks an explicit deal's
   shape (``validate_deal_at`` when it depends on who deals); ``max_dealings`` when the format bounds a match.
5. The play: ``build_phases()``, ``{phase: flow.Phase}``, each action a ``flow.Step`` (who may take it, what it
   does). A step that ends a deal begins the next with ``self.new_deal(state, events)``, or ends the match
   (``phase`` becomes ``OVER``). ``to_act`` only where the game knows the seats more cheaply than its list.
6. The end: ``result(state)`` (scores, payoffs, ranking) once the match is over; ``zero_sum(options)``.
7. What a seat sees: ``secret_keys``, ``view`` (a game adds to the core's view: engine/views.py), the cards it
   may see in other hands (``exposed_cards``, ``seen_cards``), ``envelope_extras`` in a move's answer.
8. A match cut short: ``standing``, ``partnerships``, ``forfeit_stake``, ``forfeit_result``
   (engine/forfeits.py has the core's ruling).
9. ``card_groups(state)``: every place a card can be (the property tests count the pack with it).

The core does the rest, and no game repeats it: routing a move through the phases in the contract's order of
refusals (engine/routing.py), the deal's record and the check of a client's state by replaying it
(engine/record.py), and the public functions (engine/__init__.py).
"""
from __future__ import annotations

import marshal
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from .cards import Card, card_name, codes_of
from .checks import need_cards, need_pack
from .errors import IllegalMove, InvalidDeal, InvalidState
from .flow import Phase
from .forfeits import core_forfeit_result, core_standing
from .moves import Action, Move
from .options import FIRST_DEALER, Option, Options, read_options
from .rng import shuffled
from .views import core_view

State = dict[str, Any]
Event = dict[str, Any]
Deal = dict[str, Any]

CORE_KEYS = ("game", "v", "players", "options", "seed", "deals", "dealings", "phase")
RECORD_KEYS = ("log", "before")  # this deal's moves; the carried values as they were before it
OVER = "over"
INTERNAL_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError)  # what malformed input raises


def clone(value: Any) -> Any:
    """A deep copy of a JSON value: through ``marshal``, which copies exactly these types (true stays true, not
    1) in C, several times faster than ``copy.deepcopy`` or a recursive copy in Python."""
    return marshal.loads(marshal.dumps(value))


def seats_to_act(moves: list[Move]) -> list[int]:
    """The seats that have a legal move among ``moves``: ``to_act`` from the legal moves already computed.
    Every game keeps ``to_act(state) == seats_to_act(legal_moves(state))`` (checked after every playout move)."""
    return sorted({m["seat"] for m in moves})


class Game:
    # ----- 1. who it is -----------------------------------------------------------------------------
    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int] = 4
    options: ClassVar[tuple[Option, ...]] = ()
    sample_options: ClassVar[tuple[Mapping[str, Any], ...]] = ()  # played by the property tests besides the defaults

    def check_options(self, options: Options, n: int) -> None:
        """Rules between options (raise InvalidOptions). Default: none."""

    # ----- 2. its moves ------------------------------------------------------------------------------
    actions: ClassVar[Mapping[str, Action]] = MappingProxyType({})

    def card_codes(self, n: int, options: Options) -> frozenset[Card]:
        """The codes of the cards in this match's pack: a move naming any other code has a bad parameter."""
        return codes_of(tuple(self.pack(n, options)))

    # ----- 3. what it keeps ---------------------------------------------------------------------------
    carried: ClassVar[tuple[str, ...]] = ()

    def initial(self, state: State) -> None:
        """The carried values when the match starts."""
        raise NotImplementedError

    def check_carried(self, state: State) -> None:
        """The carried values between deals: types, ranges and sums (InvalidState)."""
        raise NotImplementedError

    # ----- 4. the deal --------------------------------------------------------------------------------
    def pack(self, n: int, options: Options) -> Sequence[Card]:
        raise NotImplementedError

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Turn a shuffled pack into ``{"hands": [...], "rest": [...]}`` for the current dealer."""
        raise NotImplementedError

    def deal(self, state: State, events: list[Event]) -> None:
        """Begin a deal: reads only the core keys and the carried ones."""
        raise NotImplementedError

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        """An explicit deal's shape (InvalidDeal). Default: hands plus rest are exactly the pack."""
        need_pack_deal(deal, self.pack(n, options))

    def validate_deal_at(self, deal: Deal, n: int, options: Options, index: int) -> None:
        """The ``index``-th explicit deal of the match (0: the first); for games whose deal's shape depends on
        who deals it. Default: ``validate_deal``."""
        self.validate_deal(deal, n, options)

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

    def max_dealings(self, n: int, options: Options) -> int | None:
        """The most times this match can deal cards (redeals included), when its format bounds it; None when
        it does not (play to a target score, redeals that can repeat). Explicit deals beyond it could never be
        used, so a request that fixes more is refused."""
        return None

    # ----- 5. the play --------------------------------------------------------------------------------
    def build_phases(self) -> dict[str, Any]:
        raise NotImplementedError

    def legal_moves(self, state: State) -> list[Move]:
        """The phase's legal moves (the core's: a game lists them in its phases)."""
        phase: Phase = self.phases[state["phase"]]
        return phase.legal(state)

    def to_act(self, state: State) -> list[int]:
        """The seats with a legal move now; a game overrides it only where it knows them more cheaply."""
        return seats_to_act(self.legal_moves(state))

    # ----- 6. the end ---------------------------------------------------------------------------------
    def result(self, state: State) -> dict[str, Any] | None:
        raise NotImplementedError

    def zero_sum(self, options: Options) -> bool:
        """Do the result's payoffs always sum to 0 under these options? (A few specs make a loser pay for
        something outside the table, e.g. Toepen's round of drinks; the property tests honour this.)"""
        return True

    # ----- 7. what a seat sees ------------------------------------------------------------------------
    # keys of the state no seat ever sees (the hands are handled by the view, the deal's record always hidden)
    secret_keys: ClassVar[frozenset[str]] = frozenset({"seed", "deals", "rest"})

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator): the core's view (engine/views.py); a game that hides
        more, or shows what a seat may work out, adds to it."""
        turn = None if state["phase"] == OVER else self.phases[state["phase"]].turn(state)
        return core_view(state, seat, self.hidden_keys, turn)

    def exposed_cards(self, state: State) -> set[Card]:
        """Cards in a hand that the whole table has seen (a turn-up taken into a hand, sequences shown): a view
        may name them although they are in another seat's hand. Default: none."""
        return set()

    def seen_cards(self, state: State, seat: int | None) -> set[Card]:
        """Cards in another seat's hand that ``seat`` (None: a spectator) may see: the exposed cards, and any
        a game shows to some seats only (a partner's shown card). Default: the exposed cards."""
        return self.exposed_cards(state)

    def envelope_extras(self, state: State) -> dict[str, Any]:
        """Keys a game's spec adds to the answer of a move beside the legal moves (Jewel's
        ``valid_declarations``); only what the seat to act could work out from its own hand."""
        return {}

    # ----- 8. a match cut short -----------------------------------------------------------------------
    def standing(self, state: State) -> list[Any]:
        """Each seat's score as the match stands, for the result of a match cut short (engine/forfeits.py)."""
        return core_standing(state)

    def partnerships(self, state: State) -> list[list[int]] | None:
        """The sides of a game played in fixed partnerships (None: every seat plays for itself)."""
        return None

    def forfeit_stake(self, state: State) -> int:
        """What each seat of a partnership that forfeits pays (a won match's smallest payoff, by default 1)."""
        return 1

    def forfeit_result(self, state: State, seat: int) -> dict[str, Any]:
        """The result of a match that ``seat`` forfeited (a timeout or a concession): the core's ruling
        (engine/forfeits.py) unless the game's page says otherwise."""
        return core_forfeit_result(state, seat, self.standing(state), self.partnerships(state),
                                   self.forfeit_stake)

    # ----- 9. for the property tests -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Sequence[Card]]:
        raise NotImplementedError

    # ----- what the core gives a game ------------------------------------------------------------------
    def __init__(self) -> None:
        self.phases: dict[str, Any] = self.build_phases()  # {name: flow.Phase}
        self.kept = ("dealings", *self.carried)  # what ``before`` holds
        play = self.actions.get("play")
        # a play is logged as its card alone when the card is its only required parameter (engine/record.py)
        self.compact_play = play is not None and [k for k, p in play.params.items() if not p.optional] == ["card"]
        self.hidden_keys = self.secret_keys | set(RECORD_KEYS)

    def all_options(self) -> tuple[Option, ...]:
        return (*self.options, FIRST_DEALER) if all(o.name != "first_dealer" for o in self.options) else self.options

    def read_options(self, raw: Any, n: int) -> Options:
        opts = read_options(self.all_options(), raw, n)
        self.check_options(opts, n)
        return opts

    def next_deal(self, state: State) -> Deal:
        """The next dealing of cards: the next explicit deal if any is left, else the seeded shuffle."""
        index = state["dealings"]
        state["dealings"] = index + 1
        if index < len(state["deals"]):
            fixed: Deal = state["deals"][index]
            return {"hands": [list(h) for h in fixed["hands"]], "rest": list(fixed["rest"])}
        cards = shuffled(self.pack(state["players"], state["options"]), state["seed"], f"{self.id}/{index}")
        return self.distribute(cards, state)

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


def need_pack_deal(deal: Deal, pack: Sequence[Card]) -> None:
    try:
        need_pack([*deal["hands"], deal["rest"]], pack)
    except InvalidState as exc:
        raise InvalidDeal("The deal is not exactly the game's pack: " + exc.message) from exc


def need_hand_sizes(deal: Deal, size: int) -> None:
    for s, hand in enumerate(deal["hands"]):
        if len(hand) != size:
            raise InvalidDeal(f"Seat {s} must be dealt {size} cards, not {len(hand)}.")


def require_in_hand(hand: Sequence[Card], card: Card) -> None:
    if card not in hand:
        raise IllegalMove("card_not_in_hand", f"You do not hold the {card_name(card)}.", card=card)
