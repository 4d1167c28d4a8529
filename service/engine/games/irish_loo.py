"""Irish Loo: Three-card Loo with a draw, Club Law and a dealer who defends the pool.
Spec: shared/rules/irish_loo.md (seed: Parlett, *The Penguin Book of Card Games*).

3 to 10 players, each for himself, 52 cards ranked A K ... 2, three cards each. The card after the
deal is turned up for trumps (it stays on the table); the rest is a face-down stock. There is no Miss
and no Pam (R1). The dealer antes into a pool carried from deal to deal.

A deal: ``declare`` (eldest to dealer: ``stand`` or ``pass``; if all pass the dealer takes the pool;
against a single stander the dealer must ``defend`` the pool with his own hand, R3), then
``exchange`` (each active hand once, eldest first, dealer last: discard 0-3 cards face down and draw
as many from the stock; when the stock runs short, the thrown-in hands are shuffled under it, R4),
then ``play`` (three tricks with Loo's strict lead, follow, head, trump and overtrump duties).
Club Law: when the turn-up is a club nobody may drop, so there is no ``declare`` phase (R5).

Each trick pays a third of the pool (odd chips to the first trick's winner); a player for himself
who wins no trick is looed and pays into the pool. Tricks won by a defending dealer pay nobody.
The match ends by ``end_mode``: a closing deal (default), play until a deal without a loo, or bust.

State keys besides the core: dealer, deal_no, chips, pool, last (settlement of the latest deal),
share_out (leftover pool shared at the end), hands, turnup, rest (the stock, top first), thrown
(hands thrown in by passers, until they refill the stock), refilled, discards, declared, drawn,
tricks (completed tricks of this deal), trick (the trick in progress).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, play_moves,
                    require_in_hand, require_turn)
from ..cards import RANKS, STANDARD_PACK, Card, card_name, suit_name
from ..checks import is_int, need, need_bool, need_dict, need_exact_keys, need_int, need_list, need_plays, need_seat
from ..errors import IllegalMove, InvalidState
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import split_evenly
from ..rng import shuffled
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 3
TRICKS = 3
STRICT = TrickTable(TrickRules(head=True, must_trump=True, overtrump=True, undertrump="required"))
LOOSE = TrickTable(TrickRules(head=True, must_trump=True, overtrump=True, undertrump="allowed"))
KEYS = ("dealer", "deal_no", "chips", "pool", "last", "share_out", "hands", "turnup", "rest", "thrown",
        "refilled", "discards", "declared", "drawn", "tricks", "trick")
RECORD_KEYS = ("deal", "dealer", "pool", "tricks", "gains", "loos", "looed")
DECLARATIONS = ("stand", "pass", "defend")
PLAYING = ("stand", "defend")  # the declarations of the hands that play the deal
LEAD_REASONS = ("must_lead_trump_ace", "must_lead_trump_king", "must_lead_trump", "must_lead_highest_trump")
BIG = 10**9
PACK = frozenset(STANDARD_PACK)


def is_cards(value: Any) -> bool:
    """A list of codes of this pack (no joker)."""
    try:
        return isinstance(value, list) and PACK.issuperset(value)
    except TypeError:  # an unhashable entry
        return False


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

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"declare": {"stand": self.declare, "pass": self.declare, "defend": self.declare},
                "exchange": {"exchange": self.exchange},
                "play": {"play": self.play_card}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return STANDARD_PACK

    # ----- facts about the deal ---------------------------------------------------------
    @staticmethod
    def scheduled(state: State) -> int:
        return int(state["options"]["rounds"] * state["players"])

    def is_closing(self, state: State) -> bool:
        return bool(state["options"]["end_mode"] == "closing_deal" and state["deal_no"] == self.scheduled(state))

    @staticmethod
    def trump(state: State) -> str:
        return str(state["turnup"][1])

    @staticmethod
    def stake(state: State) -> int:
        """P, the pool after the ante: what this deal is played for."""
        return int(state["last"]["pool"] if state["phase"] == OVER else state["pool"])

    def is_single(self, state: State) -> bool:
        return bool(self.stake(state) == state["options"]["ante"])

    @staticmethod
    def seat_order(state: State) -> list[int]:
        """Eldest first, dealer last: the order of declaring, exchanging and first play."""
        return order_from(left(state["dealer"], state["players"]), state["players"])

    def active(self, state: State) -> list[int]:
        """The hands that play the deal, eldest first."""
        declared = state["declared"]
        return [s for s in self.seat_order(state) if declared[s] in PLAYING]

    def count_active(self, state: State) -> int:
        """How many hands play the deal."""
        declared = state["declared"]
        return declared.count("stand") + declared.count("defend")

    def next_active(self, state: State, seat: int) -> int:
        """The first hand after ``seat``, clockwise, that plays the deal (``seat`` itself only when no other
        does). The play's turns step along this way; it is cheaper than building the whole of ``active``."""
        n, declared = state["players"], state["declared"]
        for i in range(1, n + 1):
            s = (seat + i) % n
            if declared[s] in PLAYING:
                return s
        raise AssertionError("nobody plays this deal")

    @staticmethod
    def defender(state: State) -> int | None:
        return state["dealer"] if state["declared"][state["dealer"]] == "defend" else None

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        n, opts = state["players"], state["options"]
        state.update(dealer=opts["first_dealer"], deal_no=0, chips=[opts["starting_chips"]] * n, pool=0,
                     last=None, share_out=None)
        self.new_deal(state, [])

    def new_deal(self, state: State, events: list[Event]) -> None:
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        state["dealer"] = (opts["first_dealer"] + state["deal_no"] - 1) % n
        state["chips"][state["dealer"]] -= opts["ante"]
        state["pool"] += opts["ante"]
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], turnup=deal["rest"][0], rest=deal["rest"][1:], thrown=[[] for _ in range(n)],
                     refilled=False, discards=[[] for _ in range(n)], declared=[None] * n, drawn=[None] * n,
                     tricks=[], trick={"plays": []})
        everyone = self.is_closing(state) or self.trump(state) == "C"
        if everyone:  # Club Law (R5) or the closing deal: nobody may drop, no declarations
            state["declared"] = ["stand"] * n
        state["phase"] = "exchange" if everyone else "declare"
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": state["dealer"], "pool": state["pool"],
                       "turnup": state["turnup"], "club_law": self.trump(state) == "C",
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

    # ----- whose turn -------------------------------------------------------------------
    def declarations(self, state: State, declared: list[Any], seat: int) -> list[str]:
        """What ``seat`` may declare, given the declarations before it (§4.1)."""
        may_pass = not (state["options"]["no_pass_on_single"] and self.is_single(state))
        if seat == state["dealer"]:
            stood = sum(1 for s, d in enumerate(declared) if s != seat and d == "stand")
            if stood == 1:  # the dealer must defend the pool against a single player (R3)
                return ["defend"] if state["options"]["dealer_vs_single"] == "defend_only" else ["stand", "defend"]
        return ["stand", "pass"] if may_pass else ["stand"]

    def next_declarer(self, state: State) -> int:
        """In turn from eldest (``seat_order``): counting the declarations made finds who is next."""
        n = state["players"]
        return (left(state["dealer"], n) + n - state["declared"].count(None)) % n

    def next_exchanger(self, state: State, active: list[int] | None = None) -> int:
        """``active``: the hands that play, when the caller has already worked them out."""
        drawn = state["drawn"]
        return next(s for s in (self.active(state) if active is None else active) if drawn[s] is None)

    def obtainable(self, state: State) -> int:
        return len(state["rest"]) + sum(len(t) for t in state["thrown"])

    def leader(self, state: State) -> int:
        """The winner of the last trick; the first trick is led by the first active hand from eldest."""
        return state["tricks"][-1]["winner"] if state["tricks"] else self.next_active(state, state["dealer"])

    def on_turn(self, state: State) -> int:
        plays = state["trick"]["plays"]
        return self.next_active(state, plays[-1][0]) if plays else self.leader(state)

    def legal_moves(self, state: State) -> list[Move]:
        phase = state["phase"]
        if phase == "declare":
            seat = self.next_declarer(state)
            return [{"seat": seat, "action": a} for a in self.declarations(state, state["declared"], seat)]
        if phase == "exchange":
            seat = self.next_exchanger(state)
            hand = state["hands"][seat]
            most = min(HAND, self.obtainable(state))
            return [{"seat": seat, "action": "exchange", "cards": list(c)}
                    for k in range(most + 1) for c in combinations(hand, k)]
        if phase == "play":
            seat = self.on_turn(state)
            return play_moves(seat, self.playable(state, state["hands"][seat], state["trick"]["plays"],
                                                  len(state["tricks"])))
        return []

    # ----- trick duties (§5) ---------------------------------------------------------------
    def lead_steps(self, state: State, hand: list[Card], first: bool) -> list[tuple[list[Card], str]]:
        """The lead duties, narrowing in the spec's order, each with the reason for the cards it excludes."""
        t = self.trump(state)
        trumps = [c for c in hand if c[1] == t]
        always = state["options"]["lead_highest_trump"] == "always"
        highest = [max(trumps, key=lambda c: RANKS.index(c[0]))] if trumps else []
        if first:
            if "A" + t in hand:
                return [(["A" + t], "must_lead_trump_ace")]
            if state["turnup"] == "A" + t and "K" + t in hand:
                return [(["K" + t], "must_lead_trump_king")]
            if len(trumps) < 2:
                return []
            steps = [(trumps, "must_lead_trump")]
            if always or self.count_active(state) == 2:
                steps.append((highest, "must_lead_highest_trump"))
            return steps
        if not trumps:
            return []
        steps = [(trumps, "must_lead_trump")]
        if always and len(trumps) >= 2:
            steps.append((highest, "must_lead_highest_trump"))
        return steps

    def table(self, state: State) -> TrickTable:
        return STRICT if state["options"]["must_undertrump"] else LOOSE

    def steps(self, state: State, hand: list[Card], plays: list[Any], k: int) -> list[tuple[list[Card], str]]:
        if not plays:
            return self.lead_steps(state, hand, k == 0)
        return self.table(state).ladder(hand, plays, self.trump(state))

    def playable(self, state: State, hand: list[Card], plays: list[Any], k: int) -> list[Card]:
        steps = self.steps(state, hand, plays, k)
        return list(steps[-1][0]) if steps else list(hand)

    def check_card(self, state: State, hand: list[Card], plays: list[Any], k: int, card: Card) -> None:
        if plays:
            self.table(state).check(hand, plays, card, self.trump(state))
            return
        for allowed, reason in self.lead_steps(state, hand, k == 0):
            if card not in allowed:
                raise IllegalMove(reason, self.lead_message(state, reason, allowed, k == 0), card=card)

    def lead_message(self, state: State, reason: str, allowed: list[Card], first: bool) -> str:
        trumps = suit_name(self.trump(state))
        if reason == "must_lead_trump_ace":
            return f"You hold the ace of trumps ({trumps}): you must lead it."
        if reason == "must_lead_trump_king":
            return f"The ace of trumps is turned up and you hold the king of {trumps}: you must lead it."
        if reason == "must_lead_trump":
            why = "you hold two or more trumps" if first else "you won the last trick and hold a trump"
            return f"You must lead a trump ({trumps}): {why}."
        return f"You must lead your highest trump, the {card_name(allowed[0])}."

    # ----- moves ------------------------------------------------------------------------
    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, action = move["seat"], move["action"]
        require_turn(move, self.next_declarer(state))
        allowed = self.declarations(state, state["declared"], seat)
        if action not in allowed:
            raise self.refusal(state, seat, action)
        state["declared"][seat] = action
        events.append({"type": "declare", "seat": seat, "action": action})
        if action == "pass":
            state["thrown"][seat] = state["hands"][seat]
            state["hands"][seat] = []
        dealer = state["dealer"]
        if seat == dealer:
            state["phase"] = "exchange"
        elif left(seat, state["players"]) == dealer and all(
                state["declared"][s] == "pass" for s in range(state["players"]) if s != dealer):
            self.win_without_play(state, events)

    def refusal(self, state: State, seat: int, action: str) -> IllegalMove:
        dealer = seat == state["dealer"]
        if action == "pass":
            if dealer and "defend" in self.declarations(state, state["declared"], seat):
                return IllegalMove("pass_not_allowed", "You may not pass: as dealer you must defend the pool "
                                   "against a single player.")
            return IllegalMove("pass_not_allowed", "Nobody may pass: the pool is a single.")
        if action == "defend":
            why = "Only the dealer can defend the pool." if not dealer else (
                "The dealer defends the pool only when exactly one player stands.")
            return IllegalMove("defend_not_allowed", why)
        return IllegalMove("stand_not_allowed", "Against a single player the dealer may not play for himself: "
                           "you must defend the pool.")

    def exchange(self, state: State, move: Move, events: list[Event]) -> None:
        seat, cards = move["seat"], move["cards"]
        active = self.active(state)
        require_turn(move, self.next_exchanger(state, active))
        hand = state["hands"][seat]
        for i, card in enumerate(cards):
            require_in_hand(hand, card)
            if card in cards[:i]:
                raise IllegalMove("card_not_in_hand", f"You listed the {card_name(card)} twice.", card=card)
        most = self.obtainable(state)
        if len(cards) > most:
            raise IllegalMove("not_enough_cards", f"Only {most} card{'s' if most != 1 else ''} can be drawn now; "
                              f"you asked for {len(cards)}.", available=most)
        if len(cards) > len(state["rest"]):
            self.refill(state, events)
        for card in cards:
            hand.remove(card)
        state["discards"][seat] = list(cards)
        hand.extend(state["rest"][:len(cards)])
        del state["rest"][:len(cards)]
        state["drawn"][seat] = len(cards)
        events.append({"type": "exchange", "seat": seat, "count": len(cards)})
        if all(state["drawn"][s] is not None for s in active):
            state["phase"] = "play"

    def refill(self, state: State, events: list[Event]) -> None:
        """The stock runs short: the thrown-in hands, shuffled once, go under it (R4)."""
        thrown = [c for s in self.seat_order(state) for c in state["thrown"][s]]
        state["rest"].extend(shuffled(thrown, state["seed"], f"{self.id}/refill/{state['deal_no']}"))
        state["thrown"] = [[] for _ in range(state["players"])]
        state["refilled"] = True
        events.append({"type": "stock_refilled", "count": len(thrown)})

    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, self.on_turn(state))
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        self.check_card(state, hand, plays, len(state["tricks"]), card)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) < self.count_active(state):
            return
        winner = self.table(state).winner(plays, self.trump(state))
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == TRICKS:
            self.finish_deal(state, self.settlement(state), events)

    # ----- settlement (§6) ----------------------------------------------------------------
    def loo_payment(self, state: State, deal_no: int, pool: int) -> int:
        opts = state["options"]
        if opts["end_mode"] == "closing_deal" and deal_no == self.scheduled(state):
            return 0
        return pool if opts["unlimited"] else int(opts["loo_amount"])

    def settlement(self, state: State) -> dict[str, Any]:
        """The record of a contested deal: who won tricks, who was paid, who was looed."""
        n, pool = state["players"], self.stake(state)
        value, odd = divmod(pool, 3)
        defender = self.defender(state)
        won, gains = [0] * n, [0] * n
        for t in state["tricks"]:
            won[t["winner"]] += 1
            if t["winner"] != defender:
                gains[t["winner"]] += value
        first = state["tricks"][0]["winner"]
        if first != defender:
            gains[first] += odd
        looed = [s for s in self.active(state) if s != defender and won[s] == 0]
        loo = self.loo_payment(state, state["deal_no"], pool)
        return self.record(state, won, gains, [loo if s in looed else 0 for s in range(n)], looed)

    def record(self, state: State, won: list[int], gains: list[int], loos: list[int],
               looed: list[int]) -> dict[str, Any]:
        return {"deal": state["deal_no"], "dealer": state["dealer"], "pool": self.stake(state), "tricks": won,
                "gains": gains, "loos": loos, "looed": looed}

    def win_without_play(self, state: State, events: list[Event]) -> None:
        n, dealer = state["players"], state["dealer"]
        gains = [state["pool"] if s == dealer else 0 for s in range(n)]
        self.finish_deal(state, self.record(state, [0] * n, gains, [0] * n, []), events)

    def finish_deal(self, state: State, record: dict[str, Any], events: list[Event]) -> None:
        chips = state["chips"]
        for s in range(state["players"]):
            chips[s] += record["gains"][s] - record["loos"][s]
        state["pool"] += sum(record["loos"]) - sum(record["gains"])
        state["last"] = record
        events.append({"type": "deal_settled", **{k: record[k] for k in ("deal", "gains", "loos", "looed")},
                       "pool": state["pool"]})
        if not self.match_ends(state, record):
            self.new_deal(state, events)
            return
        share = split_evenly(state["pool"], self.seat_order(state))
        state["share_out"] = [share[s] for s in range(state["players"])]
        for s in range(state["players"]):
            chips[s] += share[s]
        state["pool"] = 0
        state["phase"] = OVER
        events.append({"type": "match_over", "share_out": state["share_out"]})

    def match_ends(self, state: State, record: dict[str, Any]) -> bool:
        opts, k, last_scheduled = state["options"], record["deal"], self.scheduled(state)
        if opts["end_mode"] == "closing_deal":
            return bool(k == last_scheduled)
        if opts["end_mode"] == "until_no_loo":
            return k >= last_scheduled and (not record["looed"] or k == last_scheduled + opts["max_extra_deals"])
        return k == last_scheduled or any(c <= 0 for c in state["chips"])

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n, chips, start = state["players"], state["chips"], state["options"]["starting_chips"]
        return {"scores": list(chips), "payoffs": [c - start for c in chips],
                "ranking": rank_seats(n, lambda s: (-chips[s], s)),
                "deals_played": state["deal_no"], "share_out": list(state["share_out"])}

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

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        """Hands, turn-up, stock, thrown-in hands, discards, tricks (as one list: one count is faster)."""
        cards = [state["turnup"], *state["rest"]]
        for key in ("hands", "thrown", "discards"):
            for group in state[key]:
                cards.extend(group)
        cards.extend(p[1] for t in [*state["tricks"], state["trick"]] for p in t["plays"])
        return [cards]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        for key in KEYS:
            need(key in state, f"The state lacks '{key}'.")
        n, opts = state["players"], state["options"]
        deal_no = need_int(state["deal_no"], "deal_no", 1)
        need(state["dealings"] == deal_no, "'dealings' must equal the number of deals dealt.")
        need(need_seat(state["dealer"], n, "dealer") == (opts["first_dealer"] + deal_no - 1) % n,
             "'dealer' does not match the deal number.")
        self.validate_chips(state, n, deal_no)
        self.validate_cards(state, n)
        self.validate_declarations(state, n)
        self.validate_exchanges(state, n)
        self.validate_tricks(state, n)
        if state["phase"] == OVER:
            expected = (self.settlement(state) if len(state["tricks"]) == TRICKS else
                        self.record(state, [0] * n, [self.stake(state) if s == state["dealer"] else 0
                                                     for s in range(n)], [0] * n, []))
            need(state["last"] == expected, "The last deal's settlement does not match its play.")

    def validate_chips(self, state: State, n: int, deal_no: int) -> None:
        opts, over = state["options"], state["phase"] == OVER
        chips = need_list(state["chips"], "chips", n)
        need(all(is_int(c) for c in chips), "'chips' must be whole numbers.")
        pool = need_int(state["pool"], "pool", 0)
        need(sum(chips) + pool == n * opts["starting_chips"], "Chips are not conserved (stacks plus pool).")
        last, ante, sched = state["last"], opts["ante"], self.scheduled(state)
        cap = sched + (opts["max_extra_deals"] if opts["end_mode"] == "until_no_loo" else 0)
        need(deal_no <= cap, "More deals than the match can have.")
        if last is None:
            need(not over and deal_no == 1 and pool == ante, "Only the first deal has no previous settlement.")
            need(state["share_out"] is None, "'share_out' is set before the end.")
            return
        record = self.validate_record(state, last, n)
        need(record["deal"] == deal_no - (0 if over else 1), "'last' is not the latest deal's settlement.")
        carried = record["pool"] - sum(record["gains"]) + sum(record["loos"])
        if not over:
            need(state["share_out"] is None, "'share_out' is set before the end.")
            need(pool == carried + ante, "'pool' is not the carried pool plus the ante.")
            need(not self.match_ends({**state, "chips": [c + (ante if s == state["dealer"] else 0)
                                                         for s, c in enumerate(chips)]}, record),
                 "The match should have ended after the last deal.")
            return
        share = need_list(state["share_out"], "share_out", n)
        expected = split_evenly(carried, order_from(left(state["dealer"], n), n))
        need(pool == 0 and all(is_int(v) for v in share) and share == [expected[s] for s in range(n)],
             "The leftover pool was not shared out.")
        need(self.match_ends({**state, "chips": [c - share[s] for s, c in enumerate(chips)]}, record),
             "The match has not reached its end.")

    def validate_record(self, state: State, last: Any, n: int) -> dict[str, Any]:
        record = need_dict(last, "last", RECORD_KEYS)
        need_exact_keys(record, "last", RECORD_KEYS)
        deal = need_int(record["deal"], "last.deal", 1)
        need(is_int(record["dealer"]) and record["dealer"] == (state["options"]["first_dealer"] + deal - 1) % n,
             "'last.dealer' is wrong.")
        pool = need_int(record["pool"], "last.pool", state["options"]["ante"])
        for key in ("tricks", "gains", "loos"):
            values = need_list(record[key], f"last.{key}", n)
            need(all(is_int(v, 0) for v in values), f"'last.{key}' must be whole numbers of at least 0.")
        need(sum(record["tricks"]) in (0, TRICKS) and sum(record["gains"]) <= pool, "'last' is inconsistent.")
        looed = need_list(record["looed"], "last.looed")
        need(all(is_int(s, 0, n - 1) for s in looed) and looed == sorted(set(looed), key=looed.index),
             "'last.looed' must list distinct seats.")
        loo = self.loo_payment(state, deal, pool)
        need(record["loos"] == [loo if s in looed else 0 for s in range(n)], "'last.loos' do not match the loos.")
        return record

    def validate_cards(self, state: State, n: int) -> None:
        need(is_cards([state["turnup"]]), "'turnup' must be a card.")
        for key in ("hands", "thrown", "discards"):
            for s, cards in enumerate(need_list(state[key], key, n)):
                need(is_cards(cards), f"'{key}[{s}]' must be a list of cards.")
        need(is_cards(state["rest"]), "'rest' must be a list of cards.")
        need_bool(state["refilled"], "refilled")
        trick = need_dict(state["trick"], "trick", ("plays",))
        need_exact_keys(trick, "trick", ("plays",))
        for t in need_list(state["tricks"], "tricks"):
            need_exact_keys(need_dict(t, "trick", ("plays", "winner")), "trick", ("plays", "winner"))

    def validate_declarations(self, state: State, n: int) -> None:
        declared, dealer, phase = need_list(state["declared"], "declared", n), state["dealer"], state["phase"]
        need(all(d is None or d in DECLARATIONS for d in declared), "'declared' holds an unknown declaration.")
        if self.is_closing(state) or self.trump(state) == "C":
            need(declared == ["stand"] * n and phase != "declare", "In this deal everybody stands.")
            return
        order = self.seat_order(state)
        done = [s for s in order if declared[s] is not None]
        need(done == order[:len(done)], "Declarations were not made in turn from eldest.")
        so_far: list[Any] = [None] * n
        for s in done:
            need(declared[s] in self.declarations(state, so_far, s), f"Seat {s}'s declaration was not allowed.")
            so_far[s] = declared[s]
        all_passed = all(declared[s] == "pass" for s in order[:-1])
        if phase == "declare":
            need(len(done) < n and not (len(done) == n - 1 and all_passed), "The declarations are finished.")
        elif all_passed:
            need(phase == OVER and declared[dealer] is None, "Everybody passed: the deal should have ended.")
        else:
            need(len(done) == n, "The declarations are not finished.")

    def validate_exchanges(self, state: State, n: int) -> None:
        drawn, phase, refilled = need_list(state["drawn"], "drawn", n), state["phase"], state["refilled"]
        active = self.active(state) if phase != "declare" else []
        passers = {s for s in range(n) if state["declared"][s] == "pass"}
        for s in range(n):
            if not (drawn[s] is None or (is_int(drawn[s], 0, HAND) and s in active)):
                raise InvalidState("'drawn' is malformed.")
            if len(state["discards"][s]) != (drawn[s] or 0):
                raise InvalidState(f"Seat {s}'s discards do not match 'drawn'.")
            if len(state["thrown"][s]) != (HAND if s in passers and not refilled else 0):
                raise InvalidState(f"Seat {s}'s thrown hand is wrong.")
        done = [s for s in active if drawn[s] is not None]
        need(done == active[:len(done)], "Exchanges were not made in turn.")
        if phase == "exchange":
            need(len(done) < len(active), "Every exchange is made: play should have begun.")
        elif phase == "play" or (phase == OVER and state["tricks"]):
            need(len(done) == len(active), "Not every active hand has exchanged.")
        total, spare = sum(d or 0 for d in drawn), HAND * len(passers)
        need(refilled == (total > stock_size(n)) and total <= stock_size(n) + spare,
             "The exchanges do not match the stock.")
        need(len(state["rest"]) == stock_size(n) + (spare if refilled else 0) - total,
             "The stock holds the wrong number of cards.")

    def validate_tricks(self, state: State, n: int) -> None:
        """Replay the deal's tricks: leaders, clockwise order among active hands, legality, winners."""
        tricks, phase = state["tricks"], state["phase"]
        current = need_plays(state["trick"]["plays"], n, "trick")
        done = [need_plays(t["plays"], n, "tricks") for t in tricks]
        active = self.active(state) if phase != "declare" else []
        in_play = phase == "play" or (phase == OVER and bool(tricks))
        need(in_play or (not tricks and not current), "Tricks are played outside the play phase.")
        if phase == OVER:
            need(not current and len(tricks) in (0, TRICKS), "The last deal was not finished.")
        else:
            need(len(tricks) < TRICKS and len(current) < max(len(active), 1), "Too many tricks or plays.")
        need(all(len(plays) == len(active) for plays in done), "A completed trick needs one card per active hand.")
        holding = [list(h) for h in state["hands"]]
        for plays in [*done, current]:
            for seat, card in plays:
                holding[seat].append(card)
        for s in range(n):
            if len(holding[s]) != (0 if state["declared"][s] == "pass" else HAND):
                raise InvalidState(f"Seat {s} holds the wrong number of cards.")
        trump, table = self.trump(state), self.table(state)
        leader = active[0] if active else -1
        for k, plays in enumerate([*done, current]):
            if plays and plays[0][0] != leader:
                raise InvalidState(f"Trick {k + 1} was not led by its leader.")
            first = active.index(leader) if plays else 0
            for i, (seat, card) in enumerate(plays):
                if seat != active[(first + i) % len(active)]:
                    raise InvalidState(f"Trick {k + 1} is out of turn.")
                hand = holding[seat]
                steps = table.ladder(hand, plays[:i], trump) if i else self.lead_steps(state, hand, k == 0)
                if steps and card not in steps[-1][0]:
                    raise InvalidState(f"Trick {k + 1}: the {card_name(card)} was not a legal card.")
                hand.remove(card)
            if k < len(tricks):
                leader = table.winner(plays, trump)
                need(is_int(tricks[k]["winner"]) and tricks[k]["winner"] == leader,
                     f"Trick {k + 1} has the wrong winner.")


GAME = IrishLoo()
