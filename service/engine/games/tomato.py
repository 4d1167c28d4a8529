"""Tomato (Tomate): the Spanish three-card Loo. Rules: docs/games/tomato.md.

3 to 10 players, each for himself, with the Spanish 40-card pack ranked A 3 K Q J 7 6 5 4 2 in every
suit. Everything goes to the right (seat s-1): deal, bidding, play and the passing of the deal.

Each deal the dealer antes into a pot that is carried from deal to deal. Three cards each; the next
card is the face-down trump card. Blind, the dealer and then each player in turn to the right may
*take* it ("It's mine"): he discards one of his unseen cards by position, takes the trump card (turned
face up: its suit is trumps) and must win two tricks. A blind *pass* drops a player from the deal.
If all pass the deal is scrapped. After a take, those who have not spoken look at their cards and
*stand* (must win a trick) or *pass*. A lone bidder may be challenged by one player who *defends* the
pack with a fresh hand from the stock. Three tricks: follow suit and head the trick; void, trump
and overtrump (and, by default, trump lower when unable to overtrump).

Pay-off with P the pot and v = P div 3: each trick pays v (odd chips to the first trick's winner);
a stander without a trick pays P; a bidder with one trick pays P - v, with none P. A defender
neither pays nor is paid. The match lasts ``rounds`` x n deals (or until someone is bust); what is
left in the pots is then shared equally. Safe integers (our ruling, the spec is silent): tomatoes can
multiply the pot, so the match also ends after a deal that leaves a pot, side-pot or balance beyond
+-2^47; no deal can then take a count past 2^53 - 1.

Carried from deal to deal: deal_no, chips, pot, side_pots. Each deal has: dealer, hands (in dealt order),
rest (the trump card, hidden on top until taken, and the three stock cards a defender would draw; the rest of
the stock is never used and not kept), discards (face down), calls (per seat:
null, "pass", "take", "stand", "fold"), bidder, turn_up, declines, defender, tricks, trick; and, once the
match is over, shared (the final split of the pots).
"""
from __future__ import annotations

from collections import Counter
from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, SPANISH_PACK
from ..checks import is_int, need, need_int, need_list
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..flow import Choices, Phase, Step, each, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import SAFE_MAX, pay_by_tricks, split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import InDeal, TrickPlay, TrickRules, TrickTable

HAND = 3
ORDER = "24567JQK3A"  # low to high: the Three ranks second, above the King
TRICKS = MappingProxyType({  # must_undertrump (R7)
    undertrump: TrickTable(TrickRules(order=ORDER, head=True, must_trump=True, overtrump=True,
                                      undertrump="required" if undertrump else "allowed"))
    for undertrump in (True, False)})
PLAYING = ("take", "stand")  # the calls of the hands that play the deal (besides a defender)
# The hands that play the deal, bidder, standers and defender; play goes to the right.
IN_DEAL = InDeal(lambda state, seat: state["calls"][seat] in PLAYING or seat == state["defender"], step=-1)
# Between deals no count passes this (the match ends first). One deal merges at most one side-pot into the pot
# (P <= 2 SAFE + ante) and each of at most 10 seats pays at most P, so every count stays within 2^53 - 1.
SAFE = (SAFE_MAX + 1) // 64  # 2^47

ACTIONS = MappingProxyType({
    "take": Action("Blind: discard the card at this position of your dealt hand, unseen, and take the trump "
                   "card; you must win two tricks.", {"discard_index": Param("integer", "0, 1 or 2", minimum=0,
                                                                               maximum=2)},
                   {"seat": 0, "action": "take", "discard_index": 1}),
    "pass": Action("Take phase: decline the trump card and drop out of the deal. Declare phase: throw your "
                   "hand in.", example={"seat": 0, "action": "pass"}),
    "stand": Action("Declare phase: play, undertaking to win at least one trick.",
                    example={"seat": 2, "action": "stand"}),
    "defend": Action("Defend the pack against a lone bidder with a fresh hand from the stock.",
                     example={"seat": 1, "action": "defend"}),
    "decline": Action("Do not defend the pack.", example={"seat": 1, "action": "decline"}),
    "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                   {"seat": 3, "action": "play", "card": "3C"}),
})


def rightwards(start: int, n: int) -> list[int]:
    """All seats from ``start`` on, going to the right (anticlockwise)."""
    return order_from(start, n, -1)


def to_the_right(seat: int, steps: int, n: int) -> int:
    """The seat ``steps`` places to the right of ``seat``."""
    return (seat - steps) % n


def face_up(card: Card) -> dict[str, str]:
    """The trump card as the table sees it in the bidder's hand: rank and suit, not a card code (ruling 7)."""
    return {"rank": card[0], "suit": card[1]}


def match_ends(opts: Options, n: int, deal_no: int, chips: list[int], pot: int, side_pots: list[int]) -> str | None:
    """Why the match ends after deal ``deal_no`` left these counts, or None when it goes on."""
    if max(pot, *side_pots, *(abs(c) for c in chips)) > SAFE:
        return "safe_integers"
    if deal_no == opts["rounds"] * n:
        return "deals"
    if opts["end_mode"] == "bust" and min(chips) <= 0:
        return "bust"
    return None


class Tomato(Game):
    id = "tomato"
    name = "Tomato"
    summary = "Spanish three-card Loo: blind take of the trump card, stand or pass, tomatoes double the pot."
    min_players = 3
    max_players = 10
    default_players = 4
    options = (
        Option("starting_chips", "integer", 100, "Each player's initial chip balance.", 0, 10**9),
        Option("ante", "integer", 3, "Chips the dealer pays into the pot at the start of each deal.", 1, 10**6),
        Option("must_undertrump", "boolean", True, "A player void in the suit led who cannot overtrump must "
               "still play a trump (false: any card)."),
        Option("defended_pot", "choice", "literal", "Pay-off of a defended pack: \"literal\" (the bidder takes "
               "the pot only with all three tricks) or \"shares\" (the bidder takes a third per trick).",
               choices=("literal", "shares")),
        Option("side_pots", "boolean", False, "Tomato payments form side-pots that enter the main pot one at a "
               "time, when it has been emptied."),
        Option("end_mode", "choice", "deals", "End after rounds x players deals (\"deals\"), or earlier after "
               "a deal that leaves someone at zero chips or below (\"bust\").", choices=("deals", "bust")),
        Option("rounds", "integer", 2, "Number of deals is rounds x players.", 1, 1000),
    )
    actions = ACTIONS
    secret_keys = frozenset({"seed", "deals", "rest", "discards"})
    sample_options = (
        {"must_undertrump": False, "defended_pot": "shares", "rounds": 1},
        {"side_pots": True, "end_mode": "bust", "starting_chips": 12, "ante": 2, "first_dealer": 2},
        {"side_pots": True, "defended_pot": "shares", "ante": 1, "rounds": 3, "first_dealer": 1},
        {"end_mode": "bust", "starting_chips": 0, "rounds": 1},
    )
    carried = ("deal_no", "chips", "pot", "side_pots")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=lambda state: TRICKS[state["options"]["must_undertrump"]], trump=self.trump,
                                first_leader=self.first_leader, next_seat=IN_DEAL.next_seat, size=IN_DEAL.size,
                                deal_over=lambda state: len(state["tricks"]) == HAND, end_deal=self.played_out)
        taker, declarer, offered = one_seat(self.taker), one_seat(self.declarer), one_seat(self.offered)
        blind = Choices(each("take", "discard_index", lambda state, seat: range(HAND)))  # any card, unseen
        return {
            "take": Phase("take", {"take": Step(taker, blind, self.take, "take or pass"),
                                   "pass": Step(taker, Choices(verbs("pass")), self.pass_blind, "take or pass")},
                          self.taker),
            "declare": Phase("declare", {"stand": Step(declarer, Choices(verbs("stand")), self.declare, "declare"),
                                         "pass": Step(declarer, Choices(verbs("pass")), self.declare, "declare")},
                             self.declarer),
            "defend": Phase("defend", {
                "defend": Step(offered, Choices(verbs("defend")), self.defend, "defend or decline"),
                "decline": Step(offered, Choices(verbs("decline")), self.decline, "defend or decline")}, self.offered),
            "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn),
        }

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return SPANISH_PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        return int(options["rounds"]) * n  # the bust rule can only end the match sooner

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        n, opts = state["players"], state["options"]
        state.update(deal_no=0, chips=[opts["starting_chips"]] * n, pot=0, side_pots=[])

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer (to the right) antes; an emptied pot takes the oldest side-pot; three cards each."""
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        dealer = state["dealer"] = dealer_in_turn(state, n, -1)
        emptied = state["pot"] == 0
        state["chips"][dealer] -= opts["ante"]
        state["pot"] += opts["ante"]
        merged = 0
        if opts["side_pots"] and emptied and state["side_pots"]:
            merged = state["side_pots"].pop(0)
            state["pot"] += merged
        cards = self.next_deal(state)
        state.update(hands=cards["hands"], rest=cards["rest"][:1 + HAND], discards=[], calls=[None] * n, bidder=None,
                     turn_up=None, declines=0, defender=None, tricks=[], trick={"plays": []}, phase="take")
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer, "ante": opts["ante"],
                       "side_pot_merged": merged, "pot": state["pot"]})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """One at a time, three rounds, from the dealer's right to the dealer; then the trump card."""
        n, dealer = state["players"], state["dealer"]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):  # the i-th seat to the dealer's right gets cards i, i + n and i + 2n
            hands[(dealer - 1 - i) % n] = cards[i:HAND * n:n]
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, SPANISH_PACK)

    # ----- orders and turns -------------------------------------------------------------
    # Everyone speaks in turn to the right: counting who has spoken finds who is next.
    def taker(self, state: State) -> int:
        """The take phase: the dealer first (spec 4.1)."""
        return to_the_right(state["dealer"], state["calls"].count("pass"), state["players"])

    def declarer(self, state: State) -> int:
        """The declare phase: from the bidder's right (spec 4.2)."""
        calls = state["calls"]
        return to_the_right(int(state["bidder"]), 1 + calls.count("stand") + calls.count("fold"), state["players"])

    def offered(self, state: State) -> int:
        """The defend phase: from the bidder's right, everyone else in turn (spec 4.3)."""
        return to_the_right(int(state["bidder"]), 1 + state["declines"], state["players"])

    def first_leader(self, state: State) -> int:
        """The defender, else the first active hand to the dealer's right."""
        defender = state["defender"]
        return int(defender) if defender is not None else IN_DEAL.next_seat(state, state["dealer"])

    def trump(self, state: State) -> str | None:
        return state["turn_up"][1] if state["turn_up"] else None

    # ----- take (blind) -----------------------------------------------------------------
    def take(self, state: State, move: Move, events: list[Event]) -> None:
        seat, index = move["seat"], move["discard_index"]
        hand = state["hands"][seat]
        state["discards"].append(hand.pop(index))
        turn_up = state["rest"].pop(0)
        hand.append(turn_up)
        state.update(bidder=seat, turn_up=turn_up)
        state["calls"][seat] = "take"
        events.append({"type": "take", "seat": seat, "discard_index": index, "trump": turn_up[1],
                       "turn_up": face_up(turn_up)})
        if seat == left(state["dealer"], state["players"]):  # the last of the take order: nobody left to declare
            self.after_declare(state)
        else:
            state["phase"] = "declare"

    def pass_blind(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["calls"][seat] = "pass"
        events.append({"type": "pass", "seat": seat})
        if state["calls"].count("pass") == state["players"]:
            self.end_deal(state, "scrapped", [0] * state["players"], [], events)

    # ----- declare ----------------------------------------------------------------------
    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, stand = move["seat"], move["action"] == "stand"
        state["calls"][seat] = "stand" if stand else "fold"
        events.append({"type": move["action"], "seat": seat})
        if seat == left(state["dealer"], state["players"]):  # the last of the declare order has spoken
            self.after_declare(state)

    def after_declare(self, state: State) -> None:
        state["phase"] = "play" if "stand" in state["calls"] else "defend"

    # ----- defend the pack --------------------------------------------------------------
    def defend(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["discards"].extend(state["hands"][seat])
        state["hands"][seat] = state["rest"][:HAND]
        del state["rest"][:HAND]
        state.update(defender=seat, phase="play")
        events.append({"type": "defend", "seat": seat})

    def decline(self, state: State, move: Move, events: list[Event]) -> None:
        state["declines"] += 1
        events.append({"type": "decline", "seat": move["seat"]})
        if state["declines"] == state["players"] - 1:  # the lone bidder, undefended, takes the pot (spec 6.3)
            received = [0] * state["players"]
            received[state["bidder"]] = state["pot"]
            self.end_deal(state, "undefended", received, [], events)

    # ----- pay-off ----------------------------------------------------------------------
    def played_out(self, state: State, events: list[Event]) -> None:
        """Trick shares from the pot, then tomato payments (spec 6.1, 6.2)."""
        n, opts = state["players"], state["options"]
        pot, bidder = state["pot"], state["bidder"]
        winners = [t["winner"] for t in state["tricks"]]
        won = Counter(winners)
        received = [0] * n
        owed: dict[int, int] = {}
        if state["defender"] is None:
            received = pay_by_tricks(pot, winners, n, range(n))
            owed = {s: pot for s in range(n) if state["calls"][s] == "stand" and not won[s]}
        elif won[bidder] == HAND:
            received[bidder] = pot
        elif opts["defended_pot"] == "shares":  # the defender's shares (and odd chips) stay in the pot
            received = pay_by_tricks(pot, winners, n, {bidder})
        if won[bidder] < 2:  # one trick: he pays the pot less a trick's share (R4); none: the pot
            owed[bidder] = pot - pot // HAND if won[bidder] == 1 else pot
        tomatoes = [{"seat": s, "amount": owed[s]} for s in rightwards((state["dealer"] - 1) % n, n) if s in owed]
        self.end_deal(state, "played" if state["defender"] is None else "defended", received, tomatoes, events)

    def end_deal(self, state: State, outcome: str, received: list[int], tomatoes: list[dict[str, int]],
                 events: list[Event]) -> None:
        """Pay the deal (what it took from the pot, then the tomatoes in playing order), announce what it did to
        each seat (the dealer's ante included), then deal the next one or end the match."""
        n, opts = state["players"], state["options"]
        chips = state["chips"]
        changes = [r - (opts["ante"] if s == state["dealer"] else 0) for s, r in enumerate(received)]
        for s in range(n):
            chips[s] += received[s]
        state["pot"] -= sum(received)
        for tomato in tomatoes:
            chips[tomato["seat"]] -= tomato["amount"]
            changes[tomato["seat"]] -= tomato["amount"]
            if opts["side_pots"]:
                state["side_pots"].append(tomato["amount"])
            else:
                state["pot"] += tomato["amount"]
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": changes, "unit": "chips", "outcome": outcome, "received": received,
                       "tomatoes": tomatoes, "pot": state["pot"], "side_pots": list(state["side_pots"])})
        reason = match_ends(opts, n, state["deal_no"], chips, state["pot"], state["side_pots"])
        end_deal(self, state, events, reason is not None, final=lambda s: {"reason": reason, **self.share_pots(s)})

    def share_pots(self, state: State) -> News:
        """The match over: the pot and the side-pots are shared out, the odd chips in playing order."""
        n, chips = state["players"], state["chips"]
        split = split_evenly(state["pot"] + sum(state["side_pots"]), rightwards((state["dealer"] - 1) % n, n))
        state["shared"] = [split[s] for s in range(n)]
        for s in range(n):
            chips[s] += split[s]
        state.update(pot=0, side_pots=[])
        return {"pot_shared": list(state["shared"])}

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, chips = state["players"], state["chips"]
        start = state["options"]["starting_chips"]
        return {"scores": list(chips), "payoffs": [c - start for c in chips],
                "ranking": rank_seats(n, lambda s: (-chips[s], s)),
                "deals": state["deal_no"], "shared": list(state["shared"])}

    # ----- views ------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the core hiding: no seat sees even its own cards during the blind take phase (R11);
        the face-up trump card is shown as rank and suit (everyone saw it turned; ruling 7)."""
        out = super().view(state, seat)
        if state["phase"] == "take":
            out["hands"] = [None] * state["players"]
        out["turn_up"] = face_up(state["turn_up"]) if state["turn_up"] else None
        out["trump"] = self.trump(state)
        return out

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], state["rest"], state["discards"], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: one dealing per deal so far, every chip a balance or in a pot, side-pots only with
        the option (at most one per seat and deal), and a match that had not yet ended."""
        n, opts = state["players"], state["options"]
        deal_no = need_int(state["deal_no"], "deal_no", 0, opts["rounds"] * n - 1)
        need(state["dealings"] == deal_no, "'dealings' must equal the number of deals.")
        chips = need_list(state["chips"], "chips", n)
        need(all(is_int(c, -SAFE, SAFE) for c in chips), f"'chips' must be whole numbers within +-{SAFE}.")
        pot = need_int(state["pot"], "pot", 0, SAFE)
        side = need_list(state["side_pots"], "side_pots")
        need(len(side) <= n * opts["rounds"] * n and all(is_int(p, 1, SAFE) for p in side),
             "Side-pots must hold from 1 chip each, at most one per seat and deal of the match.")
        need(opts["side_pots"] or not side, "Side-pots exist but the option is off.")
        need(sum(chips) + pot + sum(side) == n * opts["starting_chips"], "Chips are not conserved.")
        need(deal_no == 0 or match_ends(opts, n, deal_no, chips, pot, side) is None, "The match should have ended.")


GAME = Tomato()
