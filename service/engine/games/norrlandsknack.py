"""Norrlandsknack (Norseman's Knock): a Swedish Rams-family game. Rules: docs/games/norrlandsknack.md.

3 to 5 players, each for himself, 52 cards ranking A K Q J T 9 ... 2. Each seat's score counts
down from ``start_score`` towards 0; every seat stakes ``stake`` chips into a pot at the start, and
the first seat(s) to reach 0 share the pot.

A deal: five cards each, singly from forehand; the next card is turned for trumps and the dealer
takes it (he holds six). The rest is the talon (hidden). Then:

* declare, from forehand. First deal: ``knock`` (promise a trick; everybody then plays, the others
  as lurkers) or ``lurk``; if all lurk the same dealer deals again (R8). Later deals: ``knock`` or
  ``pass`` until someone knocks, then ``join`` or ``pass``; nobody knocks: a void deal; a lone
  knocker is credited ``lone_knocker`` (five tricks or nothing) without play.
* buy, active seats from forehand, dealer last: discard 0-5 cards face down and draw as many from
  the talon; the dealer discards 1-6 and draws one fewer (R6).
* play five tricks among the active seats, forehand's first active seat leading; ``trick_rule``
  "strict" (follow and head, else trump and overtrump, R7) or "follow_only".
* score: -1 per trick (not below 0); a loafed seat (a knocker below ``knocker_min`` tricks, a
  joiner without a trick in a later deal) goes to max(score + 5, 10) and pays a chip to the pot.
  A score of 0 ends the match; so does the ``max_deals`` cap (lowest scores win).

A seat that passes throws its hand in face down (into its ``discards``).

Carried from deal to deal: deal_no (a first-deal redeal keeps it), scores, chips, pot, loaves (per seat, how
many times it has been loafed: the loaf chips it paid into the pot). Each deal has: dealer (from deal_no),
trump, hands, rest (the talon, top first), discards (face down per seat), declarations ([seat, action] in
order), buys (how many active seats have bought), tricks, trick. A finished deal's record (dealer, knocker,
active seats, tricks won, loaves) is its ``deal_settled`` event, so the state does not grow with the match.
"""
from __future__ import annotations

from itertools import combinations
from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, STANDARD_PACK, card_name
from ..checks import is_int, need, need_list
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..flow import Choices, Judged, Phase, Refusal, Step, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import InDeal, TrickPlay, TrickRules, TrickTable

HAND = 5
TRICKS = 5
TABLES = MappingProxyType({
    "strict": TrickTable(TrickRules(head=True, must_trump=True, overtrump=True, undertrump="allowed")),
    "follow_only": TrickTable(TrickRules()),
})
PLAYING = ("knock", "join", "lurk")
DECLARATIONS = ("knock", "lurk", "join", "pass")  # two of them are open in a round (``declare_verbs``)
MAX_INT = 2**53 - 1


def loafed_seats(first: bool, knocker: int | None, active: list[int], won: list[int], knocker_min: int) -> list[int]:
    """Who is loafed (section 6): nobody without play; else a short knocker, and a trickless joiner."""
    if len(active) < 2:
        return []
    return [s for s in active
            if (won[s] < knocker_min if s == knocker else not first and won[s] == 0)]


def score_entry(scores: list[int], entry: dict[str, Any]) -> None:
    """Apply one finished deal to the scores: tricks first (not below 0), then the loaves."""
    for s in entry["active"]:
        scores[s] = max(0, scores[s] - entry["tricks"][s])
    for s in entry["loafed"]:
        scores[s] = max(scores[s] + 5, 10)


class Norrlandsknack(Game):
    id = "norrlandsknack"
    name = "Norrlandsknack"
    summary = ("Swedish knock-and-buy trick game: knock to promise a trick, buy from the talon, count down "
               "to zero to take the pot; fail and you are loafed.")
    min_players = 3
    max_players = 5
    default_players = 4
    options = (
        Option("start_score", "integer", 10, "Score every seat starts from (counts down to 0).", 1),
        Option("stake", "integer", 5, "Chips each seat puts into the pot when the match starts.", 0),
        Option("starting_chips", "integer", 100, "Initial chip balance of every seat (may go negative)."),
        Option("knocker_min", "integer", 1, "Tricks a knocker must win to avoid a loaf.", 1, 5),
        Option("lone_knocker", "choice", "all_tricks", "What an unopposed knocker is credited with: "
               "five tricks or nothing.", choices=("all_tricks", "nothing")),
        Option("trick_rule", "choice", "strict", "\"strict\": follow and head the trick, else trump and "
               "overtrump; \"follow_only\": just follow suit.", choices=("strict", "follow_only")),
        Option("max_deals", "integer", 200, "Safety cap: after this many deals the lowest scores share the pot.", 1),
    )
    actions = {
        "knock": Action("Knock: play this deal and undertake to win a trick.", example={"seat": 1, "action": "knock"}),
        "lurk": Action("First deal only: play this deal without any obligation.",
                       example={"seat": 1, "action": "lurk"}),
        "join": Action("Later deals, after a knock: play this deal (you must win a trick).",
                       example={"seat": 3, "action": "join"}),
        "pass": Action("Later deals: drop out of this deal.", example={"seat": 1, "action": "pass"}),
        "buy": Action("Discard these cards face down and draw replacements from the talon (the dealer draws "
                      "one fewer).", {"cards": Param("cards", "distinct cards you hold")},
                      {"seat": 2, "action": "buy", "cards": ["4D", "9C"]}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 1, "action": "play", "card": "QS"}),
    }
    sample_options = (
        {"trick_rule": "follow_only", "start_score": 5, "stake": 0},
        {"knocker_min": 2, "lone_knocker": "nothing", "first_dealer": 1, "starting_chips": 0},
        {"max_deals": 3, "start_score": 20, "stake": 2, "first_dealer": 2},
        {"knocker_min": 5, "max_deals": 1, "starting_chips": -10, "lone_knocker": "nothing"},
    )
    carried = ("deal_no", "scores", "chips", "pot", "loaves")

    def build_phases(self) -> dict[str, Any]:
        in_deal = InDeal(lambda state, seat: seat in self.active(state))  # seats that passed sit the deal out
        self.tricks = TrickPlay(table=self.table, trump=lambda state: str(state["trump"]),
                                first_leader=lambda state: self.active(state)[0], next_seat=in_deal.next_seat,
                                size=in_deal.size,
                                deal_over=lambda state: len(state["tricks"]) == TRICKS, end_deal=self.end_deal)
        declare = Step(one_seat(self.declarer), Choices(verbs(*DECLARATIONS)), self.declare, "declare")
        buy = Step(one_seat(self.buyer), Judged(self.holding, self.buy_choices, self.buy_refusal), self.buy, "buy")
        return {"declare": Phase("declare", {v: declare for v in DECLARATIONS}, self.declarer, self.declare_guard),
                "buy": Phase("buy", {"buy": buy}, self.buyer),
                "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn)}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    # ----- the match and the deal ------------------------------------------------------
    def initial(self, state: State) -> None:
        n, opts = state["players"], state["options"]
        state.update(deal_no=1, scores=[opts["start_score"]] * n, chips=[opts["starting_chips"] - opts["stake"]] * n,
                     pot=n * opts["stake"], loaves=[0] * n)

    def deal(self, state: State, events: list[Event]) -> None:
        """Deal ``deal_no`` (again, after an all-lurk throw-in): the dealer takes the turn-up; declarations open."""
        n = state["players"]
        dealer = dealer_in_turn(state, n)
        state["dealer"] = dealer
        dealt = self.next_deal(state)
        hands, rest = dealt["hands"], dealt["rest"]
        hands[dealer].append(rest[0])
        state.update(trump=rest[0][1], hands=hands, rest=rest[1:], discards=[[] for _ in range(n)],
                     declarations=[], buys=0, tricks=[], trick={"plays": []}, phase="declare")
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer, "trump": state["trump"]})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Singly from forehand: card k to seat dealer+1+k; then the turn-up, then the talon."""
        n, dealer = state["players"], state["dealer"]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k in range(HAND * n):
            hands[(dealer + 1 + k) % n].append(cards[k])
        return {"hands": hands, "rest": cards[HAND * n:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- who is where ----------------------------------------------------------------
    def forehand(self, state: State) -> int:
        return left(state["dealer"], state["players"])

    def knocker(self, state: State) -> int | None:
        for s, a in state["declarations"]:
            if a == "knock":
                return int(s)
        return None

    def active(self, state: State) -> list[int]:
        """The seats playing this deal, clockwise from forehand (first deal: everyone once knocked). Declarations
        are made in turn from forehand, so the seats that declared to play are in that order already."""
        if state["deal_no"] == 1:
            return order_from(self.forehand(state), state["players"]) if self.knocker(state) is not None else []
        return [s for s, a in state["declarations"] if a in PLAYING]

    def declarer(self, state: State) -> int:
        """The next seat to declare: they declare in turn from forehand, one each."""
        return (self.forehand(state) + len(state["declarations"])) % int(state["players"])

    def buyer(self, state: State) -> int:
        """The active seats buy in turn from forehand, one each."""
        return self.active(state)[state["buys"]]

    def table(self, state: State) -> TrickTable:
        return TABLES[state["options"]["trick_rule"]]

    # ----- declarations ------------------------------------------------------------------
    def declare_verbs(self, state: State) -> tuple[str, str]:
        if state["deal_no"] == 1:
            return ("knock", "lurk")
        return ("knock", "pass") if self.knocker(state) is None else ("join", "pass")

    def declare_guard(self, state: State, seat: int, action: str) -> Refusal | None:
        """A declaration this round does not have now is wrong_phase, before the turn (4.5)."""
        if action in self.declare_verbs(state):
            return None
        if action == "lurk":
            return Refusal("wrong_phase", "You may lurk only in the first deal: now knock, join or pass.")
        if state["deal_no"] == 1:
            return Refusal("wrong_phase", "In the first deal you knock or lurk.")
        return Refusal("wrong_phase", "Nobody has knocked yet: you may knock or pass." if action == "join"
                       else "Someone has already knocked: you may join or pass.")

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, action = move["seat"], move["action"]
        state["declarations"].append([seat, action])
        events.append({"type": action, "seat": seat})
        if action == "pass":  # the hand is thrown in face down
            state["discards"][seat], state["hands"][seat] = state["hands"][seat], []
        decided = len(state["declarations"])
        if state["deal_no"] == 1:
            if action == "knock":
                self.begin_buy(state, events)
            elif decided == state["players"]:  # all lurked: the same dealer deals again (R8)
                events.append({"type": "redealt", "deal": 1, "dealer": state["dealer"], "reason": "all_lurked"})
                self.new_deal(state, events)
            return
        if decided < state["players"]:
            return
        if len(self.active(state)) < 2:  # void deal, or a lone knocker: no play
            self.end_deal(state, events)
        else:
            self.begin_buy(state, events)

    def begin_buy(self, state: State, events: list[Event]) -> None:
        state["phase"] = "buy"
        events.append({"type": "buying", "active": sorted(self.active(state)), "knocker": self.knocker(state)})

    # ----- buying ------------------------------------------------------------------------
    def holding(self, state: State, seat: int) -> frozenset[Card]:
        return frozenset(state["hands"][seat])

    def buy_choices(self, state: State, seat: int, held: frozenset[Card]) -> list[Move]:
        """Every set of cards of the hand, fewest first."""
        hand = state["hands"][seat]
        return [{"seat": seat, "action": "buy", "cards": list(c)}
                for k in range(len(hand) + 1) for c in combinations(hand, k)]

    def buy_refusal(self, state: State, move: Move, held: frozenset[Card]) -> Refusal | None:
        """Distinct cards of the hand (``held``): at least one for the dealer (six cards), at most five for the
        others."""
        seat, cards = move["seat"], move["cards"]
        if not held.issuperset(cards):
            missing = next(c for c in cards if c not in held)
            return Refusal("card_not_in_hand", f"You do not hold the {card_name(missing)}.", {"card": missing})
        if len(set(cards)) < len(cards):
            twice = next(c for c in cards if cards.count(c) > 1)
            return Refusal("card_not_in_hand", f"You listed the {card_name(twice)} twice; you hold it once.",
                           {"card": twice})
        dealer = seat == state["dealer"]
        if dealer and not cards:
            return Refusal("bad_buy_count", "As dealer you hold six cards: discard at least one.")
        if not dealer and len(cards) > HAND:
            return Refusal("bad_buy_count", f"You may discard at most {HAND} cards.")
        return None

    def buy(self, state: State, move: Move, events: list[Event]) -> None:
        seat, cards = move["seat"], move["cards"]
        hand = state["hands"][seat]
        dealer = seat == state["dealer"]
        drawn = len(cards) - (1 if dealer else 0)
        state["hands"][seat] = [c for c in hand if c not in cards] + state["rest"][:drawn]
        state["rest"] = state["rest"][drawn:]
        state["discards"][seat] = list(cards)
        state["buys"] += 1
        events.append({"type": "buy", "seat": seat, "discarded": len(cards), "drawn": drawn})
        if state["buys"] == len(self.active(state)):
            state["phase"] = "play"

    # ----- scoring -----------------------------------------------------------------------
    def outcome(self, state: State) -> dict[str, Any]:
        """The record of the deal on the table (after play, a lone knock or a void deal)."""
        n, opts = state["players"], state["options"]
        knocker, active = self.knocker(state), sorted(self.active(state))
        won = [0] * n
        for t in state["tricks"]:
            won[t["winner"]] += 1
        if len(active) == 1 and opts["lone_knocker"] == "all_tricks":
            won[active[0]] = TRICKS
        loafed = loafed_seats(state["deal_no"] == 1, knocker, active, won, opts["knocker_min"])
        return {"deal": state["deal_no"], "dealer": state["dealer"], "knocker": knocker, "active": active,
                "tricks": won, "loafed": loafed}

    def end_deal(self, state: State, events: list[Event]) -> None:
        """Score the deal (``changes`` in points; ``chips``: the loaf chips each seat paid into the pot), then
        share the pot if someone reached 0 (or at the cap), else deal the next deal."""
        entry = self.outcome(state)
        n, before = state["players"], list(state["scores"])
        score_entry(state["scores"], entry)
        chips = [0] * n
        for s in entry["loafed"]:
            state["chips"][s] -= 1
            state["loaves"][s] += 1
            state["pot"] += 1
            chips[s] = -1
        changes = [a - b for a, b in zip(state["scores"], before)]
        events.append({"type": "deal_settled", **entry, "changes": changes, "unit": "points", "chips": chips,
                       "scores": list(state["scores"]), "pot": state["pot"]})
        over = 0 in state["scores"] or state["deal_no"] == state["options"]["max_deals"]
        end_deal(self, state, events, over, final=self.share_pot, between=self.count_deal)

    def share_pot(self, state: State) -> News:
        """The match over: the pot goes to the seats at 0 (or the lowest, at the cap)."""
        shares = self.shares(state["scores"], self.forehand(state), state["pot"])
        for s, won in shares.items():
            state["chips"][s] += won
        state["pot"] = 0
        return {"winners": list(shares), "shares": list(shares.values())}

    def count_deal(self, state: State) -> None:
        """The next deal has the next number (a deal dealt again after an all-lurk throw-in keeps its own)."""
        state["deal_no"] += 1

    @staticmethod
    def shares(scores: list[int], forehand: int, pot: int) -> dict[int, int]:
        """The pot split among the seats at 0 (or the lowest under the cap), odd chips from forehand."""
        best = min(scores)
        winners = [s for s in order_from(forehand, len(scores)) if scores[s] == best]
        return split_evenly(pot, winners)

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, opts = state["players"], state["options"]
        scores = list(state["scores"])
        payoffs = [state["chips"][s] - opts["starting_chips"] for s in range(n)]
        shares = self.shares(scores, self.forehand(state), 0)
        return {"scores": scores, "payoffs": payoffs,
                "ranking": rank_seats(n, lambda s: (scores[s], -payoffs[s], s)),
                "winners": sorted(shares), "deals_played": state["deal_no"], "last_deal": self.outcome(state)}

    # ----- views -------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the hands and the talon, face-down discards are hidden from everyone else."""
        out = super().view(state, seat)
        out["discards"] = [list(d) if s == seat else None for s, d in enumerate(state["discards"])]
        out["discard_sizes"] = [len(d) for d in state["discards"]]
        out["talon_size"] = len(state["rest"])
        return out

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], *state["discards"], state["rest"], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: at most one loaf per seat and finished deal; chips and pot hold the stakes and the loaf
        chips (nothing is shared out before the end); scores above 0 (else the match is over) and no higher than
        the loaves allow; at least one dealing per finished deal."""
        n, opts = state["players"], state["options"]
        deal_no = state["deal_no"]
        need(is_int(deal_no, 1, opts["max_deals"]), "'deal_no' is out of range.")
        need(state["dealings"] >= deal_no - 1, "'dealings' does not fit the deals played.")
        scores, chips, loaves = (need_list(state[k], k, n) for k in ("scores", "chips", "loaves"))
        need(all(is_int(x, 0, deal_no - 1) for x in loaves), "'loaves' must count at most one loaf per seat and deal.")
        top = max(opts["start_score"], 5)
        need(all(is_int(scores[s], 1, top + 5 * loaves[s]) for s in range(n)),
             "'scores' must be above 0 and within what the loaves allow.")
        need(chips == [opts["starting_chips"] - opts["stake"] - x for x in loaves],
             "'chips' must be the starting chips less the stake and the loaf chips.")
        need(state["pot"] == n * opts["stake"] + sum(loaves), "'pot' must hold the stakes and the loaf chips.")


GAME = Norrlandsknack()
