"""Femkort (Five-Cards): a Swedish last-trick game. Rules: docs/games/femkort.md.

2 to 10 players, each for themselves, 5 cards each from a 52-card pack (the rest unused and
never shown). Aces high, no trumps. Followers must follow suit and, when following, beat the best
card of the suit led so far if they can. Only the fifth trick counts: its winner wins the deal.

Match: ``"deals"`` (each deal has its own pot of n antes for the last-trick winner) or
``"first_to"`` (antes pile up in one pot until someone has ``target_wins`` deal wins).
Variant ``better_cards``: anyone may ask for a redeal until the first card of trick 5; everyone
else must agree, answering in turn clockwise from the caller (rulings R6 a-e).

Carried from deal to deal: deal_no, pot, paid (antes), taken (pots won), wins. Each deal has: dealer,
hands (the other cards are not used and not kept), tricks (completed tricks of this deal), trick (in progress), called, call (a pending poll).
The state holds running totals, not a history of deals: each deal's outcome is in the events of the move
that ends it (``deal_settled``).
"""
from __future__ import annotations

from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, STANDARD_PACK
from ..checks import is_int, need, need_list
from ..end_of_deal import dealer_in_turn, end_deal
from ..flow import Choices, Phase, Poll, Refusal, Step, anyone, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import left, rank_seats
from ..tricks import TrickPlay, TrickRules, TrickTable

HAND = 5
TRICKS = TrickTable(TrickRules(head=True))
CALL = Poll("call")
# the refusals of a call for better cards (R6), and of a play while one is answered
VARIANT_NOT_ENABLED = Refusal("variant_not_enabled", "Calling for better cards is not allowed in this match.")
TOO_LATE = Refusal("too_late", "Too late: the last trick has begun.")
CALL_PENDING = Refusal("call_pending", "A call for better cards is already being answered.")
ALREADY_CALLED = Refusal("already_called", "You have already called for better cards in this deal.")
ANSWER_FIRST = Refusal("call_pending", "Wait: a call for better cards must be answered first.")


class Femkort(Game):
    id = "femkort"
    name = "Femkort"
    summary = "Swedish last-trick game: follow suit and head the trick; only the fifth trick wins the pot."
    min_players = 2
    max_players = 10
    default_players = 4
    options = (
        Option("ante", "integer", 1, "Chips each player pays into the pot before each fresh deal.", 1, 1000),
        Option("match", "choice", "deals", "Match format: a fixed number of deals, or first to a number of "
               "deal wins.", choices=("deals", "first_to")),
        Option("deals", "integer", 1, "Number of deals in the \"deals\" format.", 1, 1000),
        Option("target_wins", "integer", 3, "Deal wins needed in the \"first_to\" format.", 1, 100),
        Option("better_cards", "boolean", False, "Enable the \"call for better cards\" variant."),
    )
    actions = {
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 2, "action": "play", "card": "KH"}),
        "call_better_cards": Action("Ask for the deal to be annulled and redealt (variant).",
                                    example={"seat": 3, "action": "call_better_cards"}),
        "accept_better_cards": Action("Agree to a pending call for better cards.",
                                      example={"seat": 0, "action": "accept_better_cards"}),
        "refuse_better_cards": Action("Refuse a pending call for better cards.",
                                      example={"seat": 0, "action": "refuse_better_cards"}),
    }
    sample_options = ({"better_cards": True}, {"match": "first_to", "target_wins": 2, "ante": 2},
                      {"deals": 3, "better_cards": True, "first_dealer": 1})
    carried = ("deal_no", "pot", "paid", "taken", "wins")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=lambda state: TRICKS, first_leader=lambda state: left(state["dealer"],
                                state["players"]), deal_over=lambda state: len(state["tricks"]) == HAND,
                                end_deal=self.finish_deal, checks=self.no_call_pending)
        call = Step(anyone, Choices(verbs("call_better_cards"), seat_refusal=self.call_refusal), self.call)
        answer = Step(one_seat(CALL.due), Choices(verbs("accept_better_cards", "refuse_better_cards")), self.answer,
                      "answer the call for better cards")
        return {"play": Phase("play", {"play": self.tricks.step(), "call_better_cards": call,
                                       "accept_better_cards": answer, "refuse_better_cards": answer},
                              self.tricks.on_turn)}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        """A fixed number of deals; an accepted call for better cards deals again, any number of times."""
        return options["deals"] if options["match"] == "deals" and not options["better_cards"] else None

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        n = state["players"]
        state.update(deal_no=0, pot=0, paid=[0] * n, taken=[0] * n, wins=[0] * n)

    def deal(self, state: State, events: list[Event]) -> None:
        """A fresh deal: the next dealer, everyone's ante into the pot, five cards each."""
        n, ante = state["players"], state["options"]["ante"]
        state["deal_no"] += 1
        state["dealer"] = dealer_in_turn(state, n)
        state["paid"] = [p + ante for p in state["paid"]]
        state["pot"] += n * ante
        state["phase"] = "play"
        self.deal_cards(state)
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": state["dealer"],
                       "pot": state["pot"]})

    def deal_cards(self, state: State) -> None:
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], tricks=[], trick={"plays": []}, called=[], call=None)  # the rest is unused

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Packets of 2 then 3, clockwise from eldest (R3)."""
        n = state["players"]
        eldest = left(state["dealer"], n)
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):
            seat = (eldest + i) % n
            hands[seat] = cards[2 * i:2 * i + 2] + cards[2 * n + 3 * i:2 * n + 3 * i + 3]
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- moves ------------------------------------------------------------------------
    def no_call_pending(self, state: State, seat: int) -> Refusal | None:
        return ANSWER_FIRST if CALL.pending(state) else None

    def finish_deal(self, state: State, events: list[Event]) -> None:
        """Only the fifth trick counts: its winner wins the deal and, as the format says, the pot."""
        opts, n = state["options"], state["players"]
        winner = state["tricks"][-1]["winner"]
        state["wins"][winner] += 1
        over = (state["deal_no"] == opts["deals"] if opts["match"] == "deals"
                else state["wins"][winner] == opts["target_wins"])
        pot = state["pot"]
        changes = [-opts["ante"]] * n
        if opts["match"] == "deals" or over:
            state["taken"][winner] += pot
            state["pot"] = 0
            changes[winner] += pot
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "winner": winner, "changes": changes, "unit": "chips", "pot": state["pot"]})
        end_deal(self, state, events, over)

    def call_refusal(self, state: State, seat: int) -> Refusal | None:
        """A seat may call once a deal, with the variant on, no call pending and trick 5 not begun (R6 b)."""
        if not state["options"]["better_cards"]:
            return VARIANT_NOT_ENABLED
        if len(state["tricks"]) == HAND - 1 and state["trick"]["plays"]:
            return TOO_LATE
        if CALL.pending(state):
            return CALL_PENDING
        if seat in state["called"]:
            return ALREADY_CALLED
        return None

    def call(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["called"].append(seat)
        CALL.open(state, seat)
        events.append({"type": "better_cards_called", "seat": seat})

    def answer(self, state: State, move: Move, events: list[Event]) -> None:
        seat, accept = move["seat"], move["action"] == "accept_better_cards"
        events.append({"type": "better_cards_answer", "seat": seat, "accept": accept})
        if CALL.answer(state, seat, accept):
            self.deal_cards(state)  # same dealer, same pot, same deal number (R6 e)
            events.append({"type": "redealt", "deal": state["deal_no"], "dealer": state["dealer"],
                           "reason": "better_cards"})

    # ----- the end ----------------------------------------------------------------------
    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n = state["players"]
        payoffs = [state["taken"][s] - state["paid"][s] for s in range(n)]
        ranking = rank_seats(n, lambda s: (-payoffs[s], -state["wins"][s], s))
        return {"scores": list(state["wins"]), "payoffs": payoffs, "ranking": ranking}

    def standing(self, state: State) -> list[Any]:
        """The deals each seat has won so far (a forfeit's ``scores``, as the result's are)."""
        return list(state["wins"])

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: antes paid for every deal so far, one deal win per finished deal, the pots taken as
        the format pays them, the rest in the pot; at least one dealing per deal (accepted calls add more)."""
        n, opts = state["players"], state["options"]
        finished = state["deal_no"]
        last = opts["deals"] if opts["match"] == "deals" else 10**6
        need(is_int(finished, 0, last - 1), "'deal_no' is out of range.")
        need(finished <= state["dealings"], "'dealings' does not fit the deals played.")
        paid, taken, wins = (need_list(state[k], k, n) for k in ("paid", "taken", "wins"))
        need(all(is_int(w, 0) for w in wins) and sum(wins) == finished, "'wins' must add up to the deals finished.")
        need(paid == [finished * opts["ante"]] * n, "'paid' must be the antes of every deal so far.")
        if opts["match"] == "deals":
            need(taken == [w * n * opts["ante"] for w in wins], "'taken' does not match the pots won.")
        else:
            need(max(wins) < opts["target_wins"] and taken == [0] * n, "Someone has already won the match.")
        need(state["pot"] == sum(paid) - sum(taken), "'pot' must hold every ante not yet won.")


GAME = Femkort()
