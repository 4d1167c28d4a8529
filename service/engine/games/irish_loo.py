"""Irish Loo: Three-card Loo with a draw, Club Law and a dealer who defends the pot.
Rules: docs/games/irish_loo.md (seed: Parlett, *The Penguin Book of Card Games*).

3 to 10 players, each for himself, 52 cards ranked A K ... 2, three cards each. The card after the
deal is turned up for trumps (it stays on the table); the rest is a face-down stock. There is no Miss
and no Pam (R1). The dealer antes into a pot carried from deal to deal.

A deal: ``declare`` (eldest to dealer: ``stand`` or ``pass``; if all pass the dealer takes the pot;
against a single stander the dealer must ``defend`` the pot with his own hand, R3), then
``exchange`` (each active hand once, eldest first, dealer last: discard 0-3 cards face down and draw
as many from the stock; when the stock runs short, the thrown-in hands are shuffled under it, R4),
then ``play`` (three tricks with Loo's strict lead, follow, head, trump and overtrump duties).
Club Law: when the turn-up is a club nobody may drop, so there is no ``declare`` phase (R5).

Each trick pays a third of the pot (odd chips to the first trick's winner); a player for himself
who wins no trick is looed and pays into the pot. Tricks won by a defending dealer pay nobody.
The match ends by ``end_mode``: a closing deal (default), play until a deal without a loo, or bust.
No count may pass 2^53 - 1 (§6): a deal whose settlement would leave no room for the next one is
settled as a closing deal and ends the match (``limit_reached``).

Carried from deal to deal: deal_no, chips (signed balances), pot. Each deal has: dealer, hands,
turn_up, rest (the stock, top first), thrown (hands thrown in by passers, until they refill the
stock), discards, declared, drawn (cards each active hand drew, once it has exchanged), tricks
(completed tricks of this deal), trick (in progress). The pot changes only when a deal is settled,
so while a deal is played it is the pot at stake (P, ante included). At the end of the match:
pot_shared (the leftover pot shared out).
"""
from __future__ import annotations

from itertools import combinations
from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, STANDARD_PACK, card_name
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..flow import Choices, Judged, Phase, Refusal, Step, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import SAFE_MAX, check_chip_totals, pay_by_tricks, split_evenly, within_limit
from ..rng import shuffled
from ..seats import left, order_from, rank_seats
from ..tricks import InDeal, LeadDuties, TrickPlay, TrickRules, TrickTable

HAND = 3
TRICKS = 3
FOLLOW = MappingProxyType({undertrump: TrickTable(TrickRules(head=True, must_trump=True, overtrump=True,
                                                             undertrump="required" if undertrump else "allowed"))
                           for undertrump in (True, False)})
DECLARATIONS = ("stand", "pass", "defend")
PLAYING = ("stand", "defend")  # the declarations of the hands that play the deal
BIG = 10**9
IN_DEAL = InDeal(lambda state, seat: state["declared"][seat] in PLAYING)
LEADS = LeadDuties(turn_up=lambda state: state["turn_up"], hands_in_play=IN_DEAL.size,
                   highest_always=lambda state: state["options"]["lead_highest_trump"] == "always")


def stock_size(n: int) -> int:
    """Cards left in the stock after the deal and the turn-up."""
    return 52 - HAND * n - 1


class IrishLoo(Game):
    id = "irish_loo"
    name = "Irish Loo"
    summary = ("Three-card Loo with a draw: stand or pass, exchange up to three cards, then three tricks "
               "under strict lead, follow and trump duties for a third of the pool each; Club Law.")
    min_players = 3
    max_players = 10
    default_players = 4
    options = (
        Option("starting_chips", "integer", 100, "Chips each seat starts with.", 0, BIG),
        Option("ante", "integer", 3, "Chips the dealer puts into the pool at the start of each deal.", 1, 10**6),
        Option("loo_amount", "integer", 3, "What a looed player pays into the pool (limited Loo).", 0, 10**6),
        Option("unlimited", "boolean", False, "Unlimited Loo: a looed player pays what the pool held after "
               "the ante."),
        Option("no_pass_on_single", "boolean", False, "Nobody may pass when the pool is a single."),
        Option("dealer_vs_single", "choice", "defend_only", "What the dealer may do against a single "
               "player: defend the pool only, or also stand for himself.",
               choices=("defend_only", "stand_or_defend")),
        Option("lead_highest_trump", "choice", "parlett", "\"parlett\": a leader with two or more trumps "
               "leads his highest only against a single opponent; \"always\": always his highest.",
               choices=("parlett", "always")),
        Option("must_undertrump", "boolean", True, "A player void in the suit led who cannot overtrump must "
               "still play a trump (false: any card)."),
        Option("end_mode", "choice", "closing_deal", "How the match ends.",
               choices=("closing_deal", "until_no_loo", "bust")),
        Option("rounds", "integer", 2, "Rounds of deals: the match schedules rounds x players deals.", 1, 100),
        Option("max_extra_deals", "integer", lambda n: 2 * n, "Cap on the extra deals of \"until_no_loo\".",
               0, 1000, default_rule="2 * players"),
    )
    actions = {
        "stand": Action("Play this deal for yourself.", example={"seat": 1, "action": "stand"}),
        "pass": Action("Throw your hand in face down and sit this deal out.", example={"seat": 1, "action": "pass"}),
        "defend": Action("Dealer only, against a single player: play your hand on behalf of the pool.",
                         example={"seat": 3, "action": "defend"}),
        "exchange": Action("Discard 0 to 3 cards face down and draw as many from the stock.",
                           {"cards": Param("cards", "a list of 0 to 3 distinct cards you hold")},
                           {"seat": 0, "action": "exchange", "cards": ["4D", "9C"]}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 2, "action": "play", "card": "QH"}),
    }
    sample_options = (
        {"dealer_vs_single": "stand_or_defend", "lead_highest_trump": "always", "must_undertrump": False,
         "rounds": 1},
        {"end_mode": "until_no_loo", "rounds": 1, "max_extra_deals": 3, "unlimited": True, "first_dealer": 2},
        {"end_mode": "bust", "starting_chips": 7, "ante": 2, "loo_amount": 5, "no_pass_on_single": True},
        {"no_pass_on_single": True, "loo_amount": 0, "ante": 1, "starting_chips": 0, "rounds": 1,
         "end_mode": "until_no_loo", "max_extra_deals": 0, "first_dealer": 1},
    )

    carried = ("deal_no", "chips", "pot")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(
            table=lambda state: FOLLOW[state["options"]["must_undertrump"]], trump=self.trump,
            first_leader=lambda state: IN_DEAL.next_seat(state, state["dealer"]),
            deal_over=lambda state: len(state["tricks"]) == TRICKS, end_deal=self.settle_play,
            next_seat=IN_DEAL.next_seat, size=IN_DEAL.size, lead_duties=LEADS, explain_lead=LEADS.explain)
        declarations = Choices(verbs("stand", "defend", "pass"), self.declare_refusal)  # listed in this order
        declare = Step(one_seat(self.next_declarer), declarations, self.declare, "declare")
        exchange = Step(one_seat(self.next_exchanger), Judged(lambda state, seat: self.obtainable(state),
                                                              self.exchange_choices, self.exchange_refusal),
                        self.exchange, "exchange")
        return {"declare": Phase("declare", {verb: declare for verb in DECLARATIONS}, self.next_declarer),
                "exchange": Phase("exchange", {"exchange": exchange}, self.next_exchanger),
                "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn)}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        """rounds x n deals, and with until_no_loo at most max_extra_deals more."""
        extra = options["max_extra_deals"] if options["end_mode"] == "until_no_loo" else 0
        return int(options["rounds"] * n + extra)

    # ----- facts about the deal ---------------------------------------------------------
    @staticmethod
    def scheduled(state: State) -> int:
        return int(state["options"]["rounds"] * state["players"])

    def is_closing(self, state: State) -> bool:
        return bool(state["options"]["end_mode"] == "closing_deal" and state["deal_no"] == self.scheduled(state))

    @staticmethod
    def trump(state: State) -> str:
        return str(state["turn_up"][1])

    @staticmethod
    def seat_order(state: State) -> list[int]:
        """Eldest first, dealer last: the order of declaring, exchanging and first play."""
        return order_from(left(state["dealer"], state["players"]), state["players"])

    def active(self, state: State) -> list[int]:
        """The hands that play the deal, eldest first."""
        declared = state["declared"]
        return [s for s in self.seat_order(state) if declared[s] in PLAYING]

    @staticmethod
    def defender(state: State) -> int | None:
        return state["dealer"] if state["declared"][state["dealer"]] == "defend" else None

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, chips=[state["options"]["starting_chips"]] * state["players"], pot=0)

    def deal(self, state: State, events: list[Event]) -> None:
        """The ante, the deal, the turn-up; under Club Law or in the closing deal nobody declares."""
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        state["dealer"] = dealer_in_turn(state, n)
        state["chips"][state["dealer"]] -= opts["ante"]
        state["pot"] += opts["ante"]
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], turn_up=deal["rest"][0], rest=deal["rest"][1:],
                     thrown=[[] for _ in range(n)], discards=[[] for _ in range(n)], declared=[None] * n,
                     drawn=[None] * n, tricks=[], trick={"plays": []})
        everyone = self.is_closing(state) or self.trump(state) == "C"
        if everyone:  # Club Law (R5) or the closing deal: nobody may drop, no declarations
            state["declared"] = ["stand"] * n
        state["phase"] = "exchange" if everyone else "declare"
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": state["dealer"],
                       "pot": state["pot"], "turn_up": state["turn_up"], "club_law": self.trump(state) == "C",
                       "closing": self.is_closing(state)})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """One card at a time from eldest, three rounds; then the turn-up, then the stock (top first)."""
        n = state["players"]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):  # the i-th seat from eldest gets cards i, i + n and i + 2n
            hands[(state["dealer"] + 1 + i) % n] = cards[i:HAND * n:n]
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- declarations (§4.1) ------------------------------------------------------------
    def declare_refusal(self, state: State, move: Move) -> Refusal | None:
        """Why the seat on turn may not make this declaration, or None. The dealer facing a single player must
        defend the pot (R3), and may also stand unless the table plays "defend_only"; nobody may pass a single pot
        with the option; only that dealer defends."""
        seat, action = move["seat"], move["action"]
        dealer = seat == state["dealer"]
        facing_one = dealer and sum(1 for s, d in enumerate(state["declared"]) if s != seat and d == "stand") == 1
        if action == "pass":
            if facing_one:
                return Refusal("pass_not_allowed", "You may not pass: as dealer you must defend the pot against a "
                               "single player.")
            if state["options"]["no_pass_on_single"] and state["pot"] == state["options"]["ante"]:
                return Refusal("pass_not_allowed", "Nobody may pass: the pot is a single.")
        elif action == "defend" and not facing_one:
            return Refusal("defend_not_allowed", "Only the dealer can defend the pot." if not dealer else
                           "The dealer defends the pot only when exactly one player stands.")
        elif action == "stand" and facing_one and state["options"]["dealer_vs_single"] == "defend_only":
            return Refusal("stand_not_allowed", "Against a single player the dealer may not play for himself: "
                           "you must defend the pot.")
        return None

    def next_declarer(self, state: State) -> int:
        """In turn from eldest (``seat_order``): counting the declarations made finds who is next."""
        n: int = state["players"]
        made: int = n - state["declared"].count(None)
        return (left(state["dealer"], n) + made) % n

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, action = move["seat"], move["action"]
        state["declared"][seat] = action
        events.append({"type": action, "seat": seat})
        if action == "pass":
            state["thrown"][seat] = state["hands"][seat]
            state["hands"][seat] = []
        n, dealer = state["players"], state["dealer"]
        if seat == dealer:
            state["phase"] = "exchange"
        elif left(seat, n) == dealer and all(state["declared"][s] == "pass" for s in range(n) if s != dealer):
            self.settle(state, [state["pot"] if s == dealer else 0 for s in range(n)], [], events)  # §6.3

    # ----- the exchange (§4.2) ------------------------------------------------------------
    def next_exchanger(self, state: State) -> int | None:
        drawn = state["drawn"]
        return next((s for s in self.active(state) if drawn[s] is None), None)

    def obtainable(self, state: State) -> int:
        """Cards that can still be drawn: the stock, and the thrown-in hands that would refill it (R4)."""
        return len(state["rest"]) + sum(len(t) for t in state["thrown"])

    def exchange_choices(self, state: State, seat: int, obtainable: int) -> list[Move]:
        """Every set of cards of the hand, fewest first."""
        hand = state["hands"][seat]
        return [{"seat": seat, "action": "exchange", "cards": list(c)}
                for k in range(len(hand) + 1) for c in combinations(hand, k)]

    def exchange_refusal(self, state: State, move: Move, most: int) -> Refusal | None:
        """Distinct cards of the hand, no more than can still be drawn (``most``: ``obtainable``)."""
        cards, hand = move["cards"], state["hands"][move["seat"]]
        for i, card in enumerate(cards):
            if card not in hand:
                return Refusal("card_not_in_hand", f"You do not hold the {card_name(card)}.", {"card": card})
            if card in cards[:i]:
                return Refusal("card_not_in_hand", f"You listed the {card_name(card)} twice.", {"card": card})
        if len(cards) > most:
            return Refusal("not_enough_cards", f"Only {most} card{'s' if most != 1 else ''} can be drawn now; "
                           f"you asked for {len(cards)}.", {"available": most})
        return None

    def exchange(self, state: State, move: Move, events: list[Event]) -> None:
        seat, cards = move["seat"], move["cards"]
        hand = state["hands"][seat]
        if len(cards) > len(state["rest"]):
            self.refill(state, events)
        for card in cards:
            hand.remove(card)
        state["discards"][seat] = list(cards)
        hand.extend(state["rest"][:len(cards)])
        del state["rest"][:len(cards)]
        state["drawn"][seat] = len(cards)
        events.append({"type": "exchange", "seat": seat, "count": len(cards)})
        if self.next_exchanger(state) is None:
            state["phase"] = "play"

    def refill(self, state: State, events: list[Event]) -> None:
        """The stock runs short: the thrown-in hands, shuffled once, go under it (R4)."""
        thrown = [c for s in self.seat_order(state) for c in state["thrown"][s]]
        state["rest"].extend(shuffled(thrown, state["seed"], f"{self.id}/refill/{state['deal_no']}"))
        state["thrown"] = [[] for _ in range(state["players"])]
        events.append({"type": "stock_refilled", "count": len(thrown)})

    # ----- settlement (§6) ----------------------------------------------------------------
    def loo_payment(self, state: State) -> int:
        return 0 if self.is_closing(state) else (state["pot"] if state["options"]["unlimited"]
                                                 else int(state["options"]["loo_amount"]))

    def settle_play(self, state: State, events: list[Event]) -> None:
        """A contested deal: shares by tricks (none for the defender), loos for hands without a trick."""
        winners = [t["winner"] for t in state["tricks"]]
        defender = self.defender(state)
        paid = [s for s in self.active(state) if s != defender]
        gains = pay_by_tricks(state["pot"], winners, state["players"], paid)
        looed = [s for s in paid if s not in winners]
        self.settle(state, gains, looed, events)

    def settle(self, state: State, gains: list[int], looed: list[int], events: list[Event]) -> None:
        """Pay the deal (§6), then the next deal or the end (§2). When the settlement would leave a count no
        room below 2^53 - 1 for the next deal, the deal is settled as a closing deal and the match ends."""
        opts, dealer = state["options"], state["dealer"]
        loo = self.loo_payment(state)
        changes = [g - (loo if s in looed else 0) for s, g in enumerate(gains)]
        chips = [c + d for c, d in zip(state["chips"], changes)]
        pot = state["pot"] - sum(changes)
        ends = self.match_ends(state, chips, looed)
        if not within_limit(chips, pot, 0 if ends else opts["ante"]):
            events.append({"type": "limit_reached", "deal": state["deal_no"], "limit": SAFE_MAX})
            changes, looed, ends = gains, [], True
            chips, pot = [c + g for c, g in zip(state["chips"], gains)], state["pot"] - sum(gains)
        state["chips"], state["pot"] = chips, pot
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": dealer,
                       "changes": [d - (opts["ante"] if s == dealer else 0) for s, d in enumerate(changes)],
                       "unit": "chips", "looed": looed, "pot": pot})
        end_deal(self, state, events, ends, final=self.share_pot)

    def share_pot(self, state: State) -> News:
        """The match over: what is left in the pot is shared out, the odd chips one each from the last deal's
        eldest."""
        share = split_evenly(state["pot"], self.seat_order(state))
        shared = [share[s] for s in range(state["players"])]
        state["chips"] = [c + v for c, v in zip(state["chips"], shared)]
        state.update(pot=0, pot_shared=shared)
        return {"pot_shared": shared}

    def match_ends(self, state: State, chips: list[int], looed: list[int]) -> bool:
        opts, k, last_scheduled = state["options"], state["deal_no"], self.scheduled(state)
        if opts["end_mode"] == "closing_deal":
            return bool(k == last_scheduled)
        if opts["end_mode"] == "until_no_loo":
            return k >= last_scheduled and (not looed or k == last_scheduled + opts["max_extra_deals"])
        return k == last_scheduled or any(c <= 0 for c in chips)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, chips, start = state["players"], state["chips"], state["options"]["starting_chips"]
        return {"scores": list(chips), "payoffs": [c - start for c in chips],
                "ranking": rank_seats(n, lambda s: (-chips[s], s)),
                "deals_played": state["deal_no"], "share_out": list(state["pot_shared"])}

    # ----- views ------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Hidden: other hands, the stock, hands thrown in and cards discarded (each seat sees its own)."""
        out = super().view(state, seat)
        out["stock_size"] = len(state.get("rest") or [])
        for key in ("thrown", "discards"):
            groups = state.get(key)
            if isinstance(groups, list):
                out[key] = [list(g) if s == seat else None for s, g in enumerate(groups)]
                out[key + "_sizes"] = [len(g) for g in groups]
        return out

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        """Hands, turn-up, stock, thrown-in hands, discards, tricks (as one list: one count is faster)."""
        cards = [state["turn_up"], *state["rest"]]
        for key in ("hands", "thrown", "discards"):
            for group in state[key]:
                cards.extend(group)
        cards.extend(p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"])
        return [cards]

    def check_carried(self, state: State) -> None:
        """Before a deal: the shared checks of a pot game's totals, up to the match's last possible deal."""
        opts = state["options"]
        extra = opts["max_extra_deals"] if opts["end_mode"] == "until_no_loo" else 0
        check_chip_totals(state, self.scheduled(state) + extra)


GAME = IrishLoo()
