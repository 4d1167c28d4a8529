"""The flow of a deal, owned by the core: phases as values, each owning its actions, legal moves and turn.

A game declares its phases as :class:`Phase` values. Each action of a phase is a :class:`Step`: the seats that
may take it now (anyone else is told ``not_your_turn``) and the handler that checks the game's own rules for it
and then changes the state. The core routes a move through them in the contract's order of refusals
(``base.Game.route``), so no game writes ``if phase == ...`` or re-checks whose turn it is.

A handler raises :class:`IllegalMove` before it changes anything; the legal-move list of a phase and the
refusals of its handlers are built from the same rule functions (``refusal``-style helpers, trick ladders), so
the list and the refusal cannot drift apart. Polls answered in turn (a call for better cards, a knock) are the
shared :class:`Poll`.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalMove
from .moves import Move
from .seats import order_from

State = dict[str, Any]
Event = dict[str, Any]
Handler = Callable[[State, Move, list[Event]], None]
Seats = Callable[[State], Collection[int]]


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a phase: who may take it now, and what it does.

    ``closed`` is for a phase with stages (bidding, then the dealer's choice): it says why the action is not
    possible at this point of the phase (refused as ``wrong_phase``), or None while it is.

    ``early`` (optional) raises the game's refusals that its contract puts after the turn but before the
    parameters are checked: an action this table never allows, or one that is not open in the current step.
    """

    seats: Seats
    do: Handler
    verb: str = "play"  # for the refusal's sentence: "seat 2 is to <verb>"
    closed: Callable[[State], str | None] | None = None
    early: Callable[[State, Move], None] | None = None


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of a deal: its actions, its legal moves, and whose turn it is in its order of play.

    ``turn`` answers even while a side action (a call, a poll) is pending, so a view always says whose turn
    it is to play; None where the phase has no single seat on turn (simultaneous choices).
    """

    name: str
    steps: Mapping[str, Step]
    legal: Callable[[State], list[Move]]
    turn: Callable[[State], int | None] = field(default=lambda state: None)
    # the game's own refusals of a seat that its spec orders before the shared ones (a folded player, a move
    # other than the due answer while a poll is pending): ``guard(state, seat, action)`` raises or returns
    guard: Callable[[State, int, str], None] | None = None


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
