"""Three-card Loo: a Victorian round game for a carried pot. Rules: docs/games/three_card_loo.md.

3 to 10 players, each for himself, 52 cards ranking A high. The dealer antes into the pot, then
deals three cards to everyone and to an extra hand, Miss, and turns the next card for trumps.
In turn from eldest each player stands, takes Miss in exchange for his hand (the first to ask),
or passes. A dealer facing a single stander may not pass: he stands, takes Miss, or "defends"
Miss, playing it for the pot. If all others pass the dealer wins the pot; a lone Miss-taker
wins it too. Otherwise three tricks are played under strict duties: the first leader must lead
the trump ace (or the king when the ace is turned up), or a trump from two or more; later
leaders must lead a trump; followers must follow and head the trick, or trump and overtrump.
Each trick is worth a third of the pot (odd chips to the first trick); a player who took no
trick is looed and pays into the pot, which is carried to the next deal.

Match: ``rounds`` × n deals ending with a closing deal (everyone stands, no Miss, no loos), or
play on until a deal without a loo, or until somebody is bust. Leftover pot chips are shared.
No count may pass 2^53 - 1 (§6): a deal whose settlement would leave no room for the next one is
settled as a closing deal and ends the match (``limit_reached``).

Carried from deal to deal: deal_no, chips (signed balances), pot. Each deal has: dealer, hands, miss
(Miss while untaken; hidden), turn_up, thrown (hands thrown in, each seen only by its thrower),
declared (each seat's declaration, or null), tricks (this deal's), trick (in progress). The pot
changes only when a deal is settled, so while a deal is played it is the pot at stake (P, ante
included). At the end of the match: pot_shared (the leftover pot shared out). The cards not dealt
play no part and are not kept.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, STANDARD_PACK
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..flow import Choices, Phase, Refusal, Step, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import SAFE_MAX, check_chip_totals, pay_by_tricks, split_evenly, within_limit
from ..seats import left, order_from, rank_seats
from ..tricks import InDeal, LeadDuties, TrickPlay, TrickRules, TrickTable

HAND = 3
TRICKS = 3
DECLARATIONS = ("stand", "take_miss", "pass", "defend")
ACTIVE = ("stand", "take_miss", "defend")   # hands that play
FOR_SELF = ("stand", "take_miss")           # hands that win and pay for themselves
FOLLOW = MappingProxyType({undertrump: TrickTable(TrickRules(head=True, must_trump=True, overtrump=True,
                                                             undertrump="required" if undertrump else "allowed"))
                           for undertrump in (True, False)})
IN_DEAL = InDeal(lambda state, seat: state["declared"][seat] in ACTIVE)
LEADS = LeadDuties(turn_up=lambda state: state["turn_up"], hands_in_play=IN_DEAL.size,
                   highest_always=lambda state: state["options"]["lead_highest_trump"] == "always")


def _declare_action(verb: str, doc: str) -> Action:
    return Action(doc, example={"seat": 2, "action": verb})


class ThreeCardLoo(Game):
    id = "three_card_loo"
    name = "Three-card Loo"
    summary = "Victorian pool game: stand, take Miss or pass; win a trick or be looed and feed the pool."
    min_players = 3
    max_players = 10
    default_players = 4
    options = (
        Option("starting_chips", "integer", 100, "Chips each seat starts with.", 0, 10**9),
        Option("ante", "integer", 3, "The dealer's stake into the pool each deal.", 1, 10**6),
        Option("loo_amount", "integer", 3, "What a looed player pays into the pool (limited Loo).", 0, 10**6),
        Option("unlimited", "boolean", False, "Unlimited Loo: a looed player pays the pool at stake."),
        Option("no_pass_on_single", "boolean", False, "Nobody may pass when the pool is a single."),
        Option("club_law", "boolean", False, "When clubs are trumps everybody plays his own hand; no Miss."),
        Option("lead_highest_trump", "choice", "parlett", "\"parlett\": highest trump led only against a single "
               "opponent; \"always\": whenever two or more trumps are held.", choices=("parlett", "always")),
        Option("must_undertrump", "boolean", True, "A void player who cannot overtrump must still trump."),
        Option("end_mode", "choice", "closing_deal", "How the match ends.",
               choices=("closing_deal", "until_no_loo", "bust")),
        Option("rounds", "integer", 2, "Scheduled deals are rounds × players.", 1, 100),
        Option("max_extra_deals", "integer", lambda n: 2 * n, "Cap on extra deals in \"until_no_loo\".", 0, 1000,
               default_rule="2 * players"),
    )
    actions = {
        "stand": _declare_action("stand", "Keep your hand and play."),
        "take_miss": _declare_action("take_miss", "Throw in your hand and play Miss instead, sight unseen."),
        "pass": _declare_action("pass", "Throw in your hand; you neither win nor pay this deal."),
        "defend": Action("Dealer against a single stander: play Miss on behalf of the pool.",
                         example={"seat": 3, "action": "defend"}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 0, "action": "play", "card": "AH"}),
    }
    sample_options = (
        {"unlimited": True, "end_mode": "until_no_loo", "rounds": 1, "first_dealer": 1},
        {"no_pass_on_single": True, "club_law": True, "lead_highest_trump": "always", "must_undertrump": False,
         "rounds": 1},
        {"end_mode": "bust", "starting_chips": 8, "ante": 2, "loo_amount": 6, "first_dealer": 2},
        {"end_mode": "until_no_loo", "rounds": 1, "max_extra_deals": 0, "loo_amount": 0, "ante": 4},
    )

    carried = ("deal_no", "chips", "pot")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(
            table=lambda state: FOLLOW[state["options"]["must_undertrump"]], trump=lambda state: state["turn_up"][1],
            first_leader=lambda state: IN_DEAL.next_seat(state, state["dealer"]),
            deal_over=lambda state: len(state["tricks"]) == TRICKS, end_deal=self.finish_deal,
            next_seat=IN_DEAL.next_seat, size=IN_DEAL.size, lead_duties=LEADS, explain_lead=LEADS.explain)
        declare = Step(one_seat(declarer), Choices(verbs(*DECLARATIONS), self.declare_refusal), self.declare,
                       "declare")
        return {"declare": Phase("declare", {verb: declare for verb in DECLARATIONS}, declarer),
                "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn)}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    def max_dealings(self, n: int, options: Options) -> int | None:
        """rounds x n deals, and with until_no_loo at most max_extra_deals more."""
        extra = options["max_extra_deals"] if options["end_mode"] == "until_no_loo" else 0
        return int(options["rounds"] * n + extra)

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, chips=[state["options"]["starting_chips"]] * state["players"], pot=0)

    def deal(self, state: State, events: list[Event]) -> None:
        """The ante, the deal, the turn-up; compulsory deals go straight to the play."""
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        dealer = state["dealer"] = dealer_in_turn(state, n)
        state["chips"][dealer] -= opts["ante"]
        state["pot"] += opts["ante"]
        deal = self.next_deal(state)
        rest = deal["rest"]
        state.update(hands=deal["hands"], miss=rest[:HAND], turn_up=rest[HAND], thrown=[[] for _ in range(n)],
                     declared=[None] * n, tricks=[], trick={"plays": []}, phase="declare")
        closing = is_closing(opts, n, state["deal_no"])
        forced = compulsory(opts, closing, state["turn_up"][1])
        if forced:
            state["declared"] = ["stand"] * n
            state["phase"] = "play"
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer, "pot": state["pot"],
                       "turn_up": state["turn_up"], "closing": closing, "compulsory": forced})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """One at a time, three rounds, eldest first, Miss right after the dealer (R11); then the turn-up."""
        n = state["players"]
        eldest = left(state["dealer"], n)
        step = n + 1  # a round: one card to each hand, eldest first, then one to Miss
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(n):
            hands[(eldest + i) % n] = cards[i:HAND * step:step]
        miss = cards[n:HAND * step:step]
        return {"hands": hands, "rest": miss + cards[HAND * step:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, STANDARD_PACK)

    # ----- declarations -------------------------------------------------------------------
    def declare_refusal(self, state: State, move: Move) -> Refusal | None:
        """Why ``move``'s declaration is refused (``declaration_refusal`` on the facts of the deal), or None."""
        opts = state["options"]
        miss_taken, facing_one = situation(state["players"], state["dealer"], state["declared"], move["seat"])
        return declaration_refusal(opts, state["pot"] == opts["ante"], miss_taken, facing_one, move["action"])

    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, verb = move["seat"], move["action"]
        n, dealer, declared = state["players"], state["dealer"], state["declared"]
        declared[seat] = verb
        if verb != "stand":
            state["thrown"][seat] = state["hands"][seat]
            state["hands"][seat] = []
        if verb in ("take_miss", "defend"):
            state["hands"][seat], state["miss"] = state["miss"], []
        events.append({"type": verb, "seat": seat})
        if lone_winner(n, dealer, declared) is not None:
            self.finish_deal(state, events)
        elif None not in declared:
            state["phase"] = "play"
            events.append({"type": "play_begins", "leader": self.tricks.on_turn(state)})

    # ----- settlement -------------------------------------------------------------------
    def finish_deal(self, state: State, events: list[Event]) -> None:
        """Settle the deal (§6); the match goes on with the next deal or ends (§2), or, when the settlement
        would leave a count no room below 2^53 - 1 for the next deal, the deal is settled as a closing deal
        and the match ends (§6's safe-integer ruling)."""
        n, opts, dealer, number = state["players"], state["options"], state["dealer"], state["deal_no"]
        delta, pot, looed = self.settlement(state, is_closing(opts, n, number))
        chips = [c + d for c, d in zip(state["chips"], delta)]
        ends = match_ends(opts, n, number, chips, looed)
        if not within_limit(chips, pot, 0 if ends else opts["ante"]):
            events.append({"type": "limit_reached", "deal": number, "limit": SAFE_MAX})
            delta, pot, looed = self.settlement(state, True)
            chips, ends = [c + d for c, d in zip(state["chips"], delta)], True
        state["chips"], state["pot"] = chips, pot
        changes = [d - (opts["ante"] if s == dealer else 0) for s, d in enumerate(delta)]
        events.append({"type": "deal_settled", "deal": number, "dealer": dealer, "changes": changes,
                       "unit": "chips", "looed": looed, "pot": pot})
        end_deal(self, state, events, ends, final=self.share_pot)

    def share_pot(self, state: State) -> News:
        """The match over: what is left in the pot is shared out (§2)."""
        share = final_share(state["players"], state["dealer"], state["pot"])
        state["chips"] = [c + s for c, s in zip(state["chips"], share)]
        state.update(pot=0, pot_shared=share)
        return {"pot_shared": share}

    def settlement(self, state: State, closing: bool) -> tuple[list[int], int, list[int]]:
        """The accounts of the (finished) deal on the table: each seat's chips won or paid, the pot carried
        on, the looed seats. ``closing``: settled as a closing deal (no loo payments)."""
        n, opts, pot, roles = state["players"], state["options"], state["pot"], state["declared"]
        delta = [0] * n
        winner = lone_winner(n, state["dealer"], roles)
        if winner is not None:  # won without play (§6.3)
            delta[winner] = pot
            return delta, 0, []
        winners = [t["winner"] for t in state["tricks"]]
        delta = pay_by_tricks(pot, winners, n, {s for s in range(n) if roles[s] in FOR_SELF})
        looed = [] if closing else [s for s in range(n) if roles[s] in FOR_SELF and s not in winners]
        loo = pot if opts["unlimited"] else opts["loo_amount"]
        for s in looed:
            delta[s] = -loo
        return delta, pot - sum(delta), looed

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, start = state["players"], state["options"]["starting_chips"]
        scores = list(state["chips"])
        return {"scores": scores, "payoffs": [c - start for c in scores],
                "ranking": rank_seats(n, lambda s: (-scores[s], s)), "deals": state["deal_no"],
                "pool_shared": list(state["pot_shared"])}

    # ----- the totals carried between deals -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], *state["thrown"], state["miss"], [state["turn_up"]], played]

    def check_carried(self, state: State) -> None:
        """Before a deal: the shared checks of a pot game's totals, up to the match's last possible deal."""
        n, opts = state["players"], state["options"]
        extra = opts["max_extra_deals"] if opts["end_mode"] == "until_no_loo" else 0
        check_chip_totals(state, opts["rounds"] * n + extra)

    # ----- views ------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Besides the other hands: Miss while untaken, and every thrown-in hand but one's own."""
        out = super().view(state, seat)
        miss = out.pop("miss", None)
        out["miss_size"] = len(miss) if isinstance(miss, list) else 0
        thrown = state.get("thrown")
        if isinstance(thrown, list):
            out["thrown"] = [list(h) if s == seat else None for s, h in enumerate(thrown)]
        return out


# ----- the rules as functions of plain values --------------------------------------------
def is_closing(opts: Options, n: int, number: int) -> bool:
    return bool(opts["end_mode"] == "closing_deal" and number == opts["rounds"] * n)


def compulsory(opts: Options, closing: bool, trump: str) -> bool:
    """Everybody stands on his own hand and Miss is withdrawn: the closing deal, or Club Law with clubs."""
    return closing or (opts["club_law"] and trump == "C")


def declarer(state: State) -> int | None:
    """The next seat to declare, eldest first; None when all have, or all but the dealer passed."""
    n, dealer, declared = state["players"], state["dealer"], state["declared"]
    if lone_winner(n, dealer, declared) is not None:
        return None
    made = n - declared.count(None)  # declarations are made in turn: counting them finds who is next
    return (left(dealer, n) + made) % n if made < n else None


def lone_winner(n: int, dealer: int, declared: list[Any]) -> int | None:
    """The seat that wins the pot without play: the dealer when all others passed, or a lone Miss-taker."""
    if declared.count("pass") - (declared[dealer] == "pass") == n - 1:
        return dealer
    if declared[dealer] is None:
        return None
    active = [s for s in range(n) if declared[s] in ACTIVE]
    return active[0] if len(active) == 1 else None


def situation(n: int, dealer: int, declared: list[Any], seat: int) -> tuple[bool, bool]:
    """Has Miss been taken? Is ``seat`` the dealer facing a single player who stood without Miss?"""
    miss_taken = "take_miss" in declared or "defend" in declared
    if seat != dealer:
        return miss_taken, False
    players = [s for s in range(n) if s != dealer and declared[s] in ACTIVE]
    return miss_taken, len(players) == 1 and declared[players[0]] == "stand"


def declaration_refusal(opts: Options, single: bool, miss_taken: bool, facing_one: bool,
                        verb: str) -> Refusal | None:
    """Why a declaration is refused, checked in the spec's order (§4.3); None if it is allowed. (Compulsory
    deals have no declarations: they begin in the play.)

    single: the pot held nothing before the ante; facing_one: the declarer is the dealer and a single
    player stood without taking Miss (so Miss is still there).
    """
    if verb == "take_miss" and miss_taken:
        return Refusal("miss_not_available", "Miss has already been taken.")
    if verb == "pass":
        if opts["no_pass_on_single"] and single:
            return Refusal("pass_not_allowed", "Nobody may pass in this deal: the pot is a single.")
        if facing_one:
            return Refusal("pass_not_allowed",
                           "You may not pass against a single player: stand, take Miss or defend Miss.")
    if verb == "defend" and not facing_one:
        return Refusal("defend_not_allowed",
                       "Only the dealer, when a single player stands without Miss, may defend Miss.")
    return None


def match_ends(opts: Options, n: int, number: int, chips: list[int], looed: list[int]) -> bool:
    scheduled: int = opts["rounds"] * n
    if opts["end_mode"] == "closing_deal":
        return number == scheduled
    if opts["end_mode"] == "until_no_loo":
        return number >= scheduled and (not looed or number - scheduled >= opts["max_extra_deals"])
    return number >= scheduled or min(chips) <= 0


def final_share(n: int, dealer: int, pot: int) -> list[int]:
    """The pot left at the end, shared equally; odd chips one each from the last deal's eldest on."""
    shares = split_evenly(pot, order_from(left(dealer, n), n))
    return [shares[s] for s in range(n)]


GAME = ThreeCardLoo()
