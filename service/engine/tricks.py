"""The shared trick-taking core: who may play what to a trick, and who wins it.

A trick in a state is ``{"plays": [[seat, card], ...]}``; a completed trick also has ``"winner"``.
Games *configure* these rules with a :class:`TrickRules` value instead of writing their own.

The duty to play a card is a ladder of narrowing steps, checked in the order the rule books give:
follow suit, then head the trick; when void, trump, then overtrump (and what to do when one
cannot overtrump). Each step that narrows the choice names the reason a card outside it is illegal,
so the legal list and the refusal can never disagree.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import RANKS, Card, card_name, suit_name
from .errors import IllegalMove
from .flow import Event, Refusal, State, Step
from .moves import Move
from .seats import left

Play = Sequence[Any]  # [seat, card]
Ladder = list[tuple[list[Card], str]]  # narrowing duties, each with the reason for the cards it excludes


@dataclass(frozen=True, slots=True)
class TrickRules:
    """How cards are ranked and what a follower must play.

    order:        ranks of a plain suit, low to high.
    trump_order:  ranks of the trump suit, low to high (defaults to ``order``).
    follow:       a follower holding the suit led must play it.
    head:         a follower of the suit led must beat the best card of that suit so far if able
                  (not once the trick has been trumped, when following can no longer win it).
    head_trumps:  a follower of a trump lead must beat the best trump so far if able (plain leads need not
                  be headed unless ``head``)
    must_trump:   a follower void in the suit led must play a trump if able.
    overtrump:    a follower who must trump a trick that is already trumped must beat the best trump
                  if able; if also ``head`` and trumps were led, heading already covers it.
    undertrump:   when one must trump but cannot overtrump: ``"required"`` (any trump still),
                  ``"allowed"`` (any card), ``"forbidden"`` (a lower trump only when holding nothing else).
    """

    order: str = RANKS
    trump_order: str | None = None
    follow: bool = True
    head: bool = False
    head_trumps: bool = False
    must_trump: bool = False
    overtrump: bool = False
    undertrump: str = "required"

    def strengths(self) -> tuple[dict[str, int], dict[str, int]]:
        plain = {r: i for i, r in enumerate(self.order)}
        trumps = {r: i for i, r in enumerate(self.trump_order or self.order)}
        return plain, trumps


class TrickTable:
    """A TrickRules made fast to consult: precomputed strengths. Build one per configuration."""

    __slots__ = ("rules", "plain", "trumps")

    def __init__(self, rules: TrickRules) -> None:
        self.rules = rules
        self.plain, self.trumps = rules.strengths()

    def beats(self, card: Card, best: Card, trump: str | None) -> bool:
        """Does ``card`` beat ``best`` (the current winner of a trick)?"""
        if card[1] == best[1]:
            table = self.trumps if card[1] == trump else self.plain
            return table[card[0]] > table[best[0]]
        return card[1] == trump

    def winning_index(self, cards: Sequence[Card], trump: str | None) -> int:
        best = 0
        for i in range(1, len(cards)):
            if self.beats(cards[i], cards[best], trump):
                best = i
        return best

    def winner(self, plays: Sequence[Play], trump: str | None = None) -> int:
        """The seat that wins a complete (or partial) trick."""
        return int(plays[self.winning_index([p[1] for p in plays], trump)][0])

    def ladder(self, hand: Sequence[Card], plays: Sequence[Play], trump: str | None) -> list[tuple[list[Card], str]]:
        """The narrowing steps of the duty to play, each with the reason for cards it excludes."""
        if not plays:
            return []
        rules = self.rules
        led = plays[0][1][1]
        cards = [p[1] for p in plays]
        steps: list[tuple[list[Card], str]] = []
        following = [c for c in hand if c[1] == led]
        if following and rules.follow:
            steps.append((following, "must_follow_suit"))
            trumped = led != trump and any(c[1] == trump for c in cards)
            if (rules.head and not trumped) or (rules.head_trumps and led == trump):
                best = cards[self.winning_index(cards, trump)]
                higher = [c for c in following if self.beats(c, best, trump)]
                if higher:
                    steps.append((higher, "must_head_trick"))
            return steps
        trumps = [c for c in hand if c[1] == trump] if trump else []
        if not (rules.must_trump and trumps):
            return steps
        trumped_by = [c for c in cards if c[1] == trump]
        if not (rules.overtrump and trumped_by):
            steps.append((trumps, "must_trump"))
            return steps
        best = cards[self.winning_index(cards, trump)]
        higher = [c for c in trumps if self.beats(c, best, trump)]
        if higher:
            steps.append((trumps, "must_trump"))
            steps.append((higher, "must_overtrump"))
        elif rules.undertrump == "required":
            steps.append((trumps, "must_trump"))
        elif rules.undertrump == "forbidden":
            others = [c for c in hand if c[1] != trump]
            if others:
                steps.append((others, "undertrump_forbidden"))
        return steps

    def legal_cards(self, hand: Sequence[Card], plays: Sequence[Play], trump: str | None = None) -> list[Card]:
        steps = self.ladder(hand, plays, trump)
        return list(steps[-1][0]) if steps else list(hand)

    def check(self, hand: Sequence[Card], plays: Sequence[Play], card: Card, trump: str | None = None) -> None:
        """Raise IllegalMove with the first duty ``card`` breaks; the card must be in the hand."""
        for allowed, reason in self.ladder(hand, plays, trump):
            if card not in allowed:
                raise IllegalMove(reason, _explain(reason, plays, allowed, trump), card=card)


def _explain(reason: str, plays: Sequence[Play], allowed: Sequence[Card], trump: str | None) -> str:
    if not plays:
        return "That card may not be led now."
    led = plays[0][1][1]
    if reason == "must_follow_suit":
        return f"You must follow suit: you hold {suit_name(led)}."
    if reason == "must_head_trick":
        return f"You must beat the best {suit_name(led)[:-1]} in the trick: you can, with " + _list(allowed) + "."
    if reason == "must_trump":
        return f"You have no {suit_name(led)}, so you must play a trump ({suit_name(trump or led)})."
    if reason == "must_overtrump":
        return "You must beat the highest trump in the trick: you can, with " + _list(allowed) + "."
    if reason == "undertrump_forbidden":
        return "You may not play a lower trump while you hold a card of another suit."
    return "That card may not be played now."


def _count(k: int) -> str:
    return ("no", "one", "two", "three", "four")[k] if k < 5 else str(k)


def _list(cards: Sequence[Card]) -> str:
    names = [card_name(c) for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def legal_from(steps: Ladder, hand: Sequence[Card]) -> list[Card]:
    """The cards a duty ladder leaves: its last, narrowest step, or the whole hand when it has none."""
    return list(steps[-1][0]) if steps else list(hand)


def no_trump(state: State) -> str | None:
    return None


def never(state: State) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class InDeal:
    """Seats that passed sit the deal out: the next seat still in the deal, and how many cards make a trick.

    ``plays(state, seat)`` says whether the seat's hand plays this deal; ``step`` is the direction of play
    (1: clockwise, to the left; -1: to the right). Give ``next_seat`` and ``size`` to :class:`TrickPlay`.
    """

    plays: Callable[[State, int], bool]
    step: int = 1

    def next_seat(self, state: State, seat: int) -> int:
        """The first seat after ``seat`` in the direction of play whose hand plays (``seat`` itself if alone)."""
        n: int = state["players"]
        for i in range(1, n + 1):
            s = (seat + self.step * i) % n
            if self.plays(state, s):
                return s
        raise AssertionError("no hand plays this deal")

    def size(self, state: State) -> int:
        return sum(1 for s in range(state["players"]) if self.plays(state, s))


@dataclass(frozen=True, slots=True)
class LeadDuties:
    """The Loo family's duties of the leader, as a duty ladder with its sentences (the first rule that
    matches, then narrowing). To the deal's first trick: the trump ace when held (``trump_ace``); else the
    trump king when the ace is the turn-up (``trump_king``); else, holding ``trump_from`` or more trumps, a
    trump, and the highest of them against a single opponent (two hands in play) or whenever
    ``highest_always`` says so. To later tricks (``later_trump``): a trump when holding one, the highest of
    two or more when ``highest_always``. Give the value as TrickPlay's ``lead_duties`` and its ``explain``
    as ``explain_lead``.
    """

    turn_up: Callable[[State], Card]
    hands_in_play: Callable[[State], int]
    highest_always: Callable[[State], bool] = never
    trump_ace: bool = True
    trump_king: bool = True
    trump_from: int = 2
    later_trump: bool = True
    order: str = RANKS

    def __call__(self, state: State, hand: list[Card]) -> Ladder:
        turn_up = self.turn_up(state)
        trump = turn_up[1]
        trumps = [c for c in hand if c[1] == trump]
        if not state["tricks"]:
            if self.trump_ace and "A" + trump in hand:
                return [(["A" + trump], "must_lead_trump_ace")]
            if self.trump_king and turn_up[0] == "A" and "K" + trump in hand:
                return [(["K" + trump], "must_lead_trump_king")]
            if not self.trump_from or len(trumps) < self.trump_from:
                return []
            highest = self.highest_always(state) or self.hands_in_play(state) == 2
        else:
            if not (self.later_trump and trumps):
                return []
            highest = len(trumps) >= 2 and self.highest_always(state)
        steps: Ladder = [(trumps, "must_lead_trump")]
        if highest:
            steps.append(([max(trumps, key=lambda c: self.order.index(c[0]))], "must_lead_highest_trump"))
        return steps

    def explain(self, state: State, reason: str, allowed: list[Card]) -> str:
        trumps = suit_name(self.turn_up(state)[1])
        if reason == "must_lead_trump_ace":
            return f"You hold the ace of trumps ({trumps}): you must lead it."
        if reason == "must_lead_trump_king":
            return f"The ace of trumps is turned up and you hold the king of {trumps}: you must lead it."
        if reason == "must_lead_trump":
            why = "you hold a trump and won the last trick" if state["tricks"] else f"you hold {_count(self.trump_from)} or more trumps"
            return f"You must lead a trump ({trumps}): {why}."
        return f"You must lead your highest trump, the {card_name(allowed[0])}."


def clockwise(state: State, seat: int) -> int:
    return left(seat, state["players"])


def everyone(state: State) -> int:
    return int(state["players"])


class TrickPlay:
    """The trick flow every trick game shares, configured by the game that owns it; also the rule of its play
    step (``legal`` and ``refuses``, both from the duty ladder).

    A play is checked (the game's own checks, card in hand, lead duties, follow duties), the card goes to the
    trick in ``state["trick"]["plays"]``; when the trick is complete its winner is found, it moves to
    ``state["tricks"]`` as ``{"plays", "winner"}``, a ``trick_won`` event is emitted, the game's ``after_trick``
    hook runs, and when ``deal_over`` says so the game's ``end_deal`` takes over. The winner leads the next trick.

    Configuration (each a function of the state, so options and the deal's trump can decide):
      table:        the TrickTable (ranks and follow duties) in force
      trump:        the trump suit, or None
      first_leader: who leads the deal's first trick
      next_seat:    the next seat to play after a seat (default: the left-hand neighbour); games where some
                    seats sit out a deal skip them here
      leader:       who leads when a seat is due to lead (default: that seat); games where players drop out
                    during a deal pass the lead on from one who has
      size:         cards in a complete trick (default: one per player)
      lead_duties:  a duty ladder for the leader (default: none, any card may be led)
      explain_lead: the sentence for a lead duty's refusal
      winner:       who wins a complete trick (default: the table's ranking with the trump)
      checks:       a game's own refusal of the seat's play that comes before the card's duties (a pending call)
    """

    def __init__(self, *, table: Callable[[State], TrickTable], first_leader: Callable[[State], int],
                 deal_over: Callable[[State], bool], end_deal: Callable[[State, list[Event]], None],
                 trump: Callable[[State], str | None] = no_trump,
                 next_seat: Callable[[State, int], int] = clockwise,
                 leader: Callable[[State, int], int] | None = None,
                 size: Callable[[State], int] = everyone,
                 lead_duties: Callable[[State, list[Card]], Ladder] | None = None,
                 explain_lead: Callable[[State, str, list[Card]], str] | None = None,
                 winner: Callable[[State, Sequence[Play]], int] | None = None,
                 after_trick: Callable[[State, dict[str, Any], list[Event]], None] | None = None,
                 checks: Callable[[State, int], Refusal | None] | None = None) -> None:
        self.table, self.trump, self.first_leader = table, trump, first_leader
        self.deal_over, self.end_deal = deal_over, end_deal
        self.next_seat, self.size, self.leader = next_seat, size, leader
        self.lead_duties, self.explain_lead = lead_duties, explain_lead
        self.winner = winner or self._ranked_winner
        self.after_trick, self.checks = after_trick, checks
        self._clockwise = next_seat is clockwise  # the common case, inlined in on_turn (called on every move)

    # ----- whose turn, what may be played --------------------------------------------------
    def on_turn(self, state: State) -> int:
        plays = state["trick"]["plays"]
        if plays:
            last = plays[-1][0]
            return (last + 1) % state["players"] if self._clockwise else self.next_seat(state, last)
        tricks = state["tricks"]
        due = int(tricks[-1]["winner"]) if tricks else self.first_leader(state)
        return due if self.leader is None else self.leader(state, due)

    def seats(self, state: State) -> tuple[int]:
        return (self.on_turn(state),)

    def duties(self, state: State, hand: list[Card]) -> Ladder:
        plays = state["trick"]["plays"]
        if plays:
            return self.table(state).ladder(hand, plays, self.trump(state))
        return self.lead_duties(state, hand) if self.lead_duties else []

    def legal(self, state: State, seats: Iterable[int]) -> list[Move]:
        """The seat's legal plays (it is the one seat on turn): none while the game's checks refuse it, else the
        cards its duties leave."""
        moves: list[Move] = []
        for seat in seats:
            if self.checks is None or self.checks(state, seat) is None:
                hand = state["hands"][seat]
                cards = legal_from(self.duties(state, hand), hand)
                moves += [{"seat": seat, "action": "play", "card": c} for c in cards]
        return moves

    def refuses(self, state: State, move: Move) -> Refusal | None:
        """The first refusal of a play by the seat on turn, in order: the game's own, the card, the duties."""
        seat, card = move["seat"], move["card"]
        if self.checks is not None:
            refused = self.checks(state, seat)
            if refused is not None:
                return refused
        hand = state["hands"][seat]
        if card not in hand:
            return Refusal("card_not_in_hand", f"You do not hold the {card_name(card)}.", {"card": card})
        plays = state["trick"]["plays"]
        for allowed, reason in self.duties(state, hand):
            if card not in allowed:
                return Refusal(reason, self._explain(state, reason, plays, allowed), {"card": card})
        return None

    def step(self) -> Step:
        return Step(self.seats, self, self.play)

    # ----- the play -------------------------------------------------------------------------
    def play(self, state: State, move: Move, events: list[Event]) -> None:
        """A play the rule let through: the card to the trick, and the trick completed when it is full."""
        seat, card = move["seat"], move["card"]
        state["hands"][seat].remove(card)
        plays = state["trick"]["plays"]
        plays.append([seat, card])
        if len(plays) == self.size(state):
            self.complete(state, events)

    def complete(self, state: State, events: list[Event]) -> None:
        plays = state["trick"]["plays"]
        trick = {"plays": plays, "winner": self.winner(state, plays)}
        state["tricks"].append(trick)
        state["trick"] = {"plays": []}
        events.append({"type": "trick_won", "number": len(state["tricks"]), "winner": trick["winner"],
                       "plays": [list(p) for p in plays]})
        if self.after_trick is not None:
            self.after_trick(state, trick, events)
        if self.deal_over(state):
            self.end_deal(state, events)

    def _ranked_winner(self, state: State, plays: Sequence[Play]) -> int:
        return self.table(state).winner(plays, self.trump(state))

    def _explain(self, state: State, reason: str, plays: Sequence[Play], allowed: list[Card]) -> str:
        if not plays and self.explain_lead is not None:
            return self.explain_lead(state, reason, allowed)
        return _explain(reason, plays, allowed, self.trump(state))
