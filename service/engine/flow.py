"""The flow of a deal, owned by the core: phases as values, each owning its actions, legal moves and turn.

A game declares its phases as :class:`Phase` values. Each action of a phase is a :class:`Step`: the seats that
may take it now (anyone else is told ``not_your_turn``), its rule, and the handler that changes the state. The
core routes a move through them in the contract's order of refusals (``Phase.route``, then the parameters, then
the step's rule in ``Step.do``), so no game writes ``if phase == ...`` or re-checks whose turn it is.

Each step's legality is written once, in its rule: the one place that decides which of its moves are legal. A
rule lists a seat's legal moves and gives the :class:`Refusal` of any other move, both from the same code, so the
legal-move list and the refusal cannot drift apart. A game writes :class:`Choices` (the moves a seat might make,
and the function that refuses a move or lets it through: the list is the moves it lets through), :class:`Judged`
(the same, with facts about the seat worked out once for all its moves), :class:`Flagged` (a rule's moves that
may also carry a declaration), or configures the trick ladder (``tricks.TrickPlay``); a step that only refuses
is made by :func:`refusing`. The refusals before the parameters are read (``Phase.guard``, ``Step.closed``,
``Step.early``) filter the list as they refuse a move. A handler only changes the state: it is reached once every
refusal has let the move through, and a game module never raises ``IllegalMove`` (tests/engine/test_one_truth.py
keeps it so). Polls answered in turn (a call for better cards, a knock) are the shared :class:`Poll`.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from .errors import IllegalMove
from .moves import Move
from .seats import order_from

State = dict[str, Any]
Event = dict[str, Any]
Handler = Callable[[State, Move, list[Event]], None]
Seats = Callable[[State], Collection[int]]


class Refusal(NamedTuple):
    """Why a rule refuses a move: the ``IllegalMove`` the core raises when the move is posted. A plain value, cheap
    to make, so that the legal-move list can ask a rule about every move it might list; a sentence that costs to
    write may be given as a function, called only when the refusal is given."""

    reason: str
    message: str | Callable[[], str]
    details: Mapping[str, Any] | None = None

    def error(self) -> IllegalMove:
        message = self.message if isinstance(self.message, str) else self.message()
        return IllegalMove(self.reason, message, **(self.details or {}))


RefusalOf = Callable[[State, Move], Refusal | None]  # a rule's refusal of a whole move, parameters read
SeatRefusal = Callable[[State, int, str], Refusal | None]  # a refusal of a seat's action, before its parameters
SeatOnly = Callable[[State, int], Refusal | None]  # a rule's refusal of a seat, whatever the move's parameters
MovesOf = Callable[[State, int], Sequence[Move]]  # the moves a seat might make, in the order they are listed
Facts = TypeVar("Facts")


def refuse(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise refusal.error()


class Rule(Protocol):
    """A step's rule: the one place that decides which of its moves are legal."""

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        """The moves of ``seats`` that the rule lets through, seat by seat, in the order they are listed."""

    def refuses(self, state: State, move: Move) -> Refusal | None:
        """Why the rule refuses ``move`` (its parameters already of the right types), or None."""


def never_refused(state: State, move: Move) -> None:
    return None


def seat_first(seat_refusal: SeatOnly | None, state: State, move: Move) -> Refusal | None:
    """A rule's refusal of the move's seat (a rule's ``seat_refusal``), asked before the rest of the rule."""
    return None if seat_refusal is None else seat_refusal(state, move["seat"])


@dataclass(frozen=True, slots=True)
class Choices:
    """A rule as the moves a seat might make (``moves``) and the function that refuses a move or lets it through
    (``refusal``, in the rule book's order): the legal moves are the ones it lets through. ``moves`` may offer
    more than is legal (every card of a hand, every suit); only the refusals decide.

    ``seat_refusal`` (optional) holds the rule's first refusals, those that do not look at the move's parameters
    (may this seat make this move now at all?): it refuses before ``refusal``, and the legal-move list asks it
    once per seat, before offering the seat's moves."""

    moves: MovesOf
    refusal: RefusalOf = never_refused
    seat_refusal: SeatOnly | None = None

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        moves, refusal, seat_refusal = self.moves, self.refusal, self.seat_refusal
        if type(moves) is Verbs and len(moves) == 1 and refusal is never_refused:  # the commonest step of all
            action = moves[0]
            if seat_refusal is None:
                return [{"seat": seat, "action": action} for seat in seats]
            return [{"seat": seat, "action": action} for seat in seats if seat_refusal(state, seat) is None]
        listed: list[Move] = []
        for seat in seats:
            if seat_refusal is not None and seat_refusal(state, seat) is not None:
                continue
            if refusal is not never_refused:
                listed += [move for move in moves(state, seat) if refusal(state, move) is None]
            else:
                listed += moves(state, seat)
        return listed

    def refuses(self, state: State, move: Move) -> Refusal | None:
        return seat_first(self.seat_refusal, state, move) or self.refusal(state, move)


@dataclass(frozen=True, slots=True)
class Judged(Generic[Facts]):
    """A rule like :class:`Choices` whose refusal needs facts about the seat that are costly to work out (a search
    of the hand, its runs): ``facts(state, seat)`` works them out once for all of a seat's moves,
    ``moves(state, seat, facts)`` offers the moves and ``refusal(state, move, facts)`` refuses a move or lets it
    through; ``seat_refusal`` is as in :class:`Choices` (asked first, and before the facts are worked out)."""

    facts: Callable[[State, int], Facts]
    moves: Callable[[State, int, Facts], Sequence[Move]]
    refusal: Callable[[State, Move, Facts], Refusal | None]
    seat_refusal: SeatOnly | None = None

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        listed: list[Move] = []
        for seat in seats:
            if self.seat_refusal is not None and self.seat_refusal(state, seat) is not None:
                continue
            known = self.facts(state, seat)
            listed += [move for move in self.moves(state, seat, known) if self.refusal(state, move, known) is None]
        return listed

    def refuses(self, state: State, move: Move) -> Refusal | None:
        return seat_first(self.seat_refusal, state, move) or self.refusal(state, move, self.facts(state, move["seat"]))


@dataclass(frozen=True, slots=True)
class Flagged:
    """A rule's moves, each offered a second time with ``flag`` set (a declaration made with the move, such as
    Klaberjass's Bella) when ``flag_refusal`` lets the flag through. A flagged move is refused by the rule
    first, then by ``flag_refusal``."""

    rule: Rule
    flag: str
    flag_refusal: RefusalOf

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        listed = []
        for move in self.rule.legal(state, seats):
            listed.append(move)
            if self.flag_refusal(state, move) is None:
                listed.append({**move, self.flag: True})
        return listed

    def refuses(self, state: State, move: Move) -> Refusal | None:
        refused = self.rule.refuses(state, move)
        if refused is None and move.get(self.flag):
            return self.flag_refusal(state, move)
        return refused


class Verbs(tuple[str, ...]):
    """The moves of actions without parameters, in this order (the moves of a :class:`Choices`)."""

    def __call__(self, state: State, seat: int) -> list[Move]:
        return [{"seat": seat, "action": action} for action in self]


def verbs(*actions: str) -> Verbs:
    return Verbs(actions)


def each(action: str, key: str, values: Callable[[State, int], Iterable[Any]]) -> MovesOf:
    """The moves of ``action`` with its parameter ``key`` set to each of ``values``, in their order."""
    def moves(state: State, seat: int) -> list[Move]:
        return [{"seat": seat, "action": action, key: value} for value in values(state, seat)]
    return moves


@dataclass(frozen=True, slots=True)
class Refuses:
    """The rule of a step that takes no move (see :func:`refusing`): it lists nothing, and ``refusal`` refuses
    whatever the step's refusals before the parameters let through."""

    refusal: RefusalOf | None = None

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        return []

    def refuses(self, state: State, move: Move) -> Refusal | None:
        return None if self.refusal is None else self.refusal(state, move)


def _takes_nothing(state: State, move: Move, events: list[Event]) -> None:
    raise AssertionError(f"the step of '{move['action']}' only refuses, yet it let a move through")


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a phase (or several that share their seats and rule): who may take it now, its rule, and
    the handler that applies a move the rule lets through.

    ``closed`` is for a phase with stages (bidding, then the dealer's choice): it says why the action is not
    possible at this point of the phase (refused as ``wrong_phase``), or None while it is.

    ``early`` (optional) gives the game's refusals that its contract puts after the turn but before the
    parameters are checked: an action this table never allows, or one that is not open in the current step.
    """

    seats: Seats
    rule: Rule
    apply: Handler
    verb: str = "play"  # for the refusal's sentence: "seat 2 is to <verb>"
    closed: Callable[[State], str | None] | None = None
    early: SeatRefusal | None = None

    def do(self, state: State, move: Move, events: list[Event]) -> None:
        """Take a routed move whose parameters are checked: the rule refuses it, or the handler applies it."""
        refused = self.rule.refuses(state, move)
        if refused is not None:
            raise refused.error()
        self.apply(state, move, events)


def refusing(seats: Seats, verb: str = "play", *, early: SeatRefusal | None = None,
             refusal: RefusalOf | None = None) -> Step:
    """A step that takes no move: an action the phase knows only to refuse, after the turn. ``early`` refuses it
    before its parameters are read, ``refusal`` after them; the step lists nothing."""
    return Step(seats, Refuses(refusal), _takes_nothing, verb, early=early)


def _listed(steps: Mapping[str, Step]) -> list[tuple[Step, tuple[str, ...]]]:
    """Each step that may list moves, once (a step may take several actions), with its actions, in the order of
    its first action: the order in which a phase lists its moves."""
    actions: dict[int, list[str]] = {}
    for action, step in steps.items():
        actions.setdefault(id(step), []).append(action)
    return [(steps[names[0]], tuple(names)) for names in actions.values()
            if not isinstance(steps[names[0]].rule, Refuses)]


Lister = Callable[[State], list[Move]]


def _lister(step: Step, actions: tuple[str, ...], guard: SeatRefusal | None) -> Lister:
    """The moves of ``step`` that ``Phase.route`` and the step's rule let through: a function made for the refusals
    the step has before its parameters (the list is asked for on every answer, so each step's is made once)."""
    seats, legal, early, closed = step.seats, step.rule.legal, step.early, step.closed

    def admits(state: State, seat: int, action: str) -> bool:
        return ((guard is None or guard(state, seat, action) is None)
                and (early is None or early(state, seat, action) is None))

    def plain(state: State) -> list[Move]:
        return legal(state, seats(state))

    def one_action(state: State) -> list[Move]:
        action = actions[0]
        return legal(state, [seat for seat in seats(state) if (guard is None or guard(state, seat, action) is None)
                             and (early is None or early(state, seat, action) is None)])

    def several_actions(state: State) -> list[Move]:
        moves: list[Move] = []
        for seat in seats(state):
            admitted = [action for action in actions if admits(state, seat, action)]
            if admitted:
                moves += [move for move in legal(state, (seat,)) if move["action"] in admitted]
        return moves

    listed = plain if guard is None and early is None else one_action if len(actions) == 1 else several_actions
    if closed is None:
        return listed

    def unless_closed(state: State) -> list[Move]:
        return [] if closed(state) is not None else listed(state)
    return unless_closed


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of a deal: its actions, its legal moves, and whose turn it is in its order of play.

    The legal moves are listed step by step (in the order of each step's first action), seat by seat of the step,
    each as its rule lists them; ``by_seat`` lists every move of a seat before the next seat's instead.

    ``turn`` answers even while a side action (a call, a poll) is pending, so a view always says whose turn
    it is to play; None where the phase has no single seat on turn (simultaneous choices).
    """

    name: str
    steps: Mapping[str, Step]
    turn: Callable[[State], int | None] = field(default=lambda state: None)
    # the game's own refusals of a seat's action that its spec orders before the shared ones (a folded player, a
    # move other than the due answer while a poll is pending)
    guard: SeatRefusal | None = None
    by_seat: bool = False
    listers: tuple[Lister, ...] = field(init=False)  # each listing step's moves (``_lister``), in listing order

    def __post_init__(self) -> None:
        object.__setattr__(self, "listers", tuple(_lister(step, actions, self.guard)
                                                  for step, actions in _listed(self.steps)))

    def route(self, state: State, seat: int, action: str) -> Step:
        """The step that takes ``action`` by ``seat`` now, or the refusal in the contract's order: the phase's
        guard, an action the phase does not take now (wrong phase), a seat the step does not let act now (not
        your turn), the step's early refusals. (The parameters, then the step's rule, come after.)"""
        if self.guard is not None:
            refuse(self.guard(state, seat, action))
        step = self.steps.get(action)
        if step is None:
            raise IllegalMove("wrong_phase", f"'{action}' is not possible now ({state['phase']} phase).")
        closed = step.closed(state) if step.closed is not None else None
        if closed is not None:
            raise IllegalMove("wrong_phase", closed)
        due = step.seats(state)
        if seat not in due:
            raise not_your_turn(seat, due, step.verb)
        if step.early is not None:
            refuse(step.early(state, seat, action))
        return step

    def legal(self, state: State) -> list[Move]:
        """Every move that ``route``, the parameters and the step's rule let through, in listing order."""
        listers = self.listers
        if len(listers) == 1:  # a trick's play, most of all
            return listers[0](state)
        moves: list[Move] = []
        for lister in listers:
            moves += lister(state)
        if self.by_seat:
            moves.sort(key=lambda move: move["seat"])  # stable: each seat's moves stay in step order
        return moves


def anyone(state: State) -> range:
    """Every seat may take the action (the handler decides whether it may now)."""
    return range(state["players"])


def one_seat(seat_of: Callable[[State], int | None]) -> Seats:
    """The seats function of an action only one seat may take: ``seat_of`` names it (None: nobody)."""
    def seats(state: State) -> tuple[int, ...]:
        seat = seat_of(state)
        return () if seat is None else (seat,)
    return seats


def not_your_turn(seat: int, due: Collection[int], verb: str = "play") -> IllegalMove:
    if len(due) == 1:
        who = f"seat {next(iter(due))} is"
    elif due:
        who = "seats " + ", ".join(str(s) for s in sorted(due)) + " are"
    else:
        who = "no one is"
    return IllegalMove("not_your_turn", f"It is not your turn: {who} to {verb}.", seat=seat)


@dataclass(frozen=True, slots=True)
class Poll:
    """A question answered in turn, clockwise from the asker, stored under ``key`` as
    ``{"caller": seat, "answers": [seats that have answered]}``.

    ``answerers(state, caller)`` lists who must answer, in order (default: everyone else, clockwise); it must
    give the same list for as long as the poll is pending. With ``refusal_ends`` (a call for better cards
    that needs everyone's consent, a challenge that stops the asking) the first refusal closes the poll;
    without it everyone answers (stay or fold after a knock), and the game records what each answer did.
    """

    key: str
    answerers: Callable[[State, int], Sequence[int]] = field(
        default=lambda state, caller: order_from(caller, state["players"])[1:])
    refusal_ends: bool = True

    def pending(self, state: State) -> bool:
        return state[self.key] is not None

    def due(self, state: State) -> int | None:
        """The seat that answers next (None: no poll pending)."""
        poll = state[self.key]
        if poll is None:
            return None
        return self.answerers(state, poll["caller"])[len(poll["answers"])]

    def open(self, state: State, caller: int) -> None:
        state[self.key] = {"caller": caller, "answers": []}

    def answer(self, state: State, seat: int, agree: bool) -> bool:
        """Record an answer; True when everyone has answered (with ``refusal_ends``: everyone agreed). The
        poll is closed then, or at once by a refusal that ends it."""
        poll = state[self.key]
        if not agree and self.refusal_ends:
            state[self.key] = None
            return False
        poll["answers"].append(seat)
        if len(poll["answers"]) == len(self.answerers(state, poll["caller"])):
            state[self.key] = None
            return True
        return False
