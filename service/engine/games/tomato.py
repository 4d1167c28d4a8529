"""Tomato (Tomate): the Spanish three-card Loo. Spec: shared/rules/tomato.md.

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
neither pays nor is paid. The match lasts ``rounds`` x n deals (or until someone is bust);
what is left in the pots is then shared equally.

State keys besides the core: dealer, deal_no, chips, pot, side_pots, hands (in dealt order),
rest (stock, the hidden trump card on top during the take phase), discards (face down), calls
(per seat: null, "pass", "take", "stand", "fold"), bidder, turn_up, declines, defender, tricks,
trick, shared (the final split of the pots, once the match is over).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, play_moves, \
    require_in_hand
from ..cards import SPANISH_PACK, Card
from ..checks import is_int, need, need_cards, need_dict, need_int, need_list, need_plays
from ..errors import IllegalMove
from ..moves import Action, Move, Param
from ..moves import parse_move as parse_vocabulary
from ..options import Option, Options
from ..pots import split_evenly
from ..seats import left, order_from, rank_seats
from ..tricks import TrickRules, TrickTable

HAND = 3
ORDER = "24567JQK3A"  # low to high: the Three ranks second, above the King
_RULES = {"order": ORDER, "head": True, "must_trump": True, "overtrump": True}
TRICKS = {True: TrickTable(TrickRules(**_RULES, undertrump="required")),   # must_undertrump (R7)
          False: TrickTable(TrickRules(**_RULES, undertrump="allowed"))}
SPANISH = frozenset(SPANISH_PACK)
CALLS = (None, "pass", "take", "stand", "fold")
PLAYING = ("take", "stand")  # the calls of the hands that play the deal (besides a defender)
KEYS = ("dealer", "deal_no", "chips", "pot", "side_pots", "hands", "rest", "discards", "calls", "bidder",
        "turn_up", "declines", "defender", "tricks", "trick", "shared")

ACTIONS = {
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
}
# The range of discard_index is checked by the rules after the turn (spec 4.5), not by the parser.
PARSE_ACTIONS = {**ACTIONS, "take": Action(ACTIONS["take"].doc, {"discard_index": Param("integer", "0, 1 or 2")})}


def rightwards(start: int, n: int) -> list[int]:
    """All seats from ``start`` on, going to the right (anticlockwise)."""
    return order_from(start, n, -1)


def to_the_right(seat: int, steps: int, n: int) -> int:
    """The seat ``steps`` places to the right of ``seat``."""
    return (seat - steps) % n


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

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"take": {"take": self.take, "pass": self.pass_blind},
                "declare": {"stand": self.declare, "pass": self.declare},
                "defend": {"defend": self.defend, "decline": self.decline},
                "play": {"play": self.play_card}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return SPANISH_PACK

    def parse_move(self, raw: Any, state: State) -> Move:
        return parse_vocabulary(raw, PARSE_ACTIONS, state["players"])

    # ----- the deal ---------------------------------------------------------------------
    def start(self, state: State) -> None:
        n, opts = state["players"], state["options"]
        state.update(deal_no=0, chips=[opts["starting_chips"]] * n, pot=0, side_pots=[], shared=None)
        self.fresh_deal(state, [])

    def fresh_deal(self, state: State, events: list[Event]) -> None:
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        dealer = state["dealer"] = (opts["first_dealer"] - state["deal_no"] + 1) % n
        emptied = state["pot"] == 0
        state["chips"][dealer] -= opts["ante"]
        state["pot"] += opts["ante"]
        merged = 0
        if opts["side_pots"] and emptied and state["side_pots"]:
            merged = state["side_pots"].pop(0)
            state["pot"] += merged
        deal = self.next_deal(state)
        state.update(hands=deal["hands"], rest=deal["rest"], discards=[], calls=[None] * n, bidder=None,
                     turn_up=None, declines=0, defender=None, tricks=[], trick={"plays": []}, phase="take")
        events.append({"type": "deal", "deal": state["deal_no"], "dealer": dealer, "ante": opts["ante"],
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
    def take_order(self, state: State) -> list[int]:
        return rightwards(state["dealer"], state["players"])

    def declare_order(self, state: State) -> list[int]:
        order = self.take_order(state)
        return order[order.index(state["bidder"]) + 1:]

    def defend_order(self, state: State) -> list[int]:
        return rightwards(state["bidder"], state["players"])[1:]

    def active(self, state: State) -> list[int]:
        """Seats playing the deal, bidder, standers and defender, in order from the dealer's right."""
        n, calls, defender = state["players"], state["calls"], state["defender"]
        return [s for s in rightwards((state["dealer"] - 1) % n, n) if calls[s] in PLAYING or s == defender]

    def count_active(self, state: State) -> int:
        """How many hands play the deal (a defender never took or stood: he is counted apart)."""
        calls = state["calls"]
        return calls.count("take") + calls.count("stand") + (state["defender"] is not None)

    def next_active(self, state: State, seat: int) -> int:
        """The first active hand to the right of ``seat`` (``seat`` itself only when no other plays).
        The play's turns step along this way; it is cheaper than building the whole of ``active``."""
        n, calls, defender = state["players"], state["calls"], state["defender"]
        for i in range(1, n + 1):
            s = (seat - i) % n
            if calls[s] in PLAYING or s == defender:
                return s
        raise AssertionError("nobody plays this deal")

    def first_leader(self, state: State) -> int:
        """The defender, else the first active hand to the dealer's right."""
        defender = state["defender"]
        return defender if defender is not None else self.next_active(state, state["dealer"])

    def trick_order(self, state: State, leader: int, active: list[int] | None = None) -> list[int]:
        playing = set(self.active(state) if active is None else active)
        return [s for s in rightwards(leader, state["players"]) if s in playing]

    def leader(self, state: State) -> int:
        tricks = state["tricks"]
        return int(tricks[-1]["winner"]) if tricks else self.first_leader(state)

    def on_turn(self, state: State) -> int:
        # Everyone speaks in turn to the right: counting who has spoken finds who is next.
        phase, calls, n = state["phase"], state["calls"], state["players"]
        if phase == "take":  # the dealer first (take_order)
            return to_the_right(state["dealer"], calls.count("pass"), n)
        if phase == "declare":  # from the bidder's right (declare_order)
            return to_the_right(state["bidder"], 1 + calls.count("stand") + calls.count("fold"), n)
        if phase == "defend":  # from the bidder's right (defend_order)
            return to_the_right(state["bidder"], 1 + state["declines"], n)
        plays = state["trick"]["plays"]
        return self.next_active(state, plays[-1][0]) if plays else self.leader(state)

    def require_turn(self, state: State, seat: int) -> None:
        due = self.on_turn(state)
        if seat == due:
            return
        if state["phase"] != "defend" and state["calls"][seat] in ("pass", "fold") and seat != state["defender"]:
            message = f"You are out of this deal: you passed. Seat {due} is to act."
        else:
            message = f"It is not your turn: seat {due} is to act."
        raise IllegalMove("not_your_turn", message, seat=seat)

    def legal_moves(self, state: State) -> list[Move]:
        phase = state["phase"]
        if phase == OVER:
            return []
        seat = self.on_turn(state)
        if phase == "take":
            return [*({"seat": seat, "action": "take", "discard_index": i} for i in range(HAND)),
                    {"seat": seat, "action": "pass"}]
        if phase == "declare":
            return [{"seat": seat, "action": "stand"}, {"seat": seat, "action": "pass"}]
        if phase == "defend":
            return [{"seat": seat, "action": "defend"}, {"seat": seat, "action": "decline"}]
        table = TRICKS[state["options"]["must_undertrump"]]
        return play_moves(seat, table.legal_cards(state["hands"][seat], state["trick"]["plays"], self.trump(state)))

    def trump(self, state: State) -> str | None:
        return state["turn_up"][1] if state["turn_up"] else None

    # ----- take (blind) -----------------------------------------------------------------
    def take(self, state: State, move: Move, events: list[Event]) -> None:
        seat, index = move["seat"], move["discard_index"]
        self.require_turn(state, seat)
        if not 0 <= index < HAND:
            raise IllegalMove("invalid_parameters", "'discard_index' must be 0, 1 or 2: the position of the card "
                              "you discard in your dealt hand.")
        hand = state["hands"][seat]
        state["discards"].append(hand.pop(index))
        turn_up = state["rest"].pop(0)
        hand.append(turn_up)
        state.update(bidder=seat, turn_up=turn_up)
        state["calls"][seat] = "take"
        events.append({"type": "take", "seat": seat, "discard_index": index, "trump": turn_up[1],
                       "turn_up": {"rank": turn_up[0], "suit": turn_up[1]}})
        if self.declare_order(state):
            state["phase"] = "declare"
        else:
            self.after_declare(state)

    def pass_blind(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        self.require_turn(state, seat)
        state["calls"][seat] = "pass"
        events.append({"type": "pass", "seat": seat})
        if state["calls"].count("pass") == state["players"]:
            events.append({"type": "scrapped", "deal": state["deal_no"], "pot": state["pot"]})
            self.end_deal(state, events)

    # ----- declare ----------------------------------------------------------------------
    def declare(self, state: State, move: Move, events: list[Event]) -> None:
        seat, stand = move["seat"], move["action"] == "stand"
        self.require_turn(state, seat)
        state["calls"][seat] = "stand" if stand else "fold"
        events.append({"type": "stand" if stand else "fold", "seat": seat})
        if seat == left(state["dealer"], state["players"]):  # the last of the declare order has spoken
            self.after_declare(state)

    def after_declare(self, state: State) -> None:
        state["phase"] = "play" if "stand" in state["calls"] else "defend"

    # ----- defend the pack --------------------------------------------------------------
    def defend(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        self.require_turn(state, seat)
        state["discards"].extend(state["hands"][seat])
        state["hands"][seat] = state["rest"][:HAND]
        del state["rest"][:HAND]
        state.update(defender=seat, phase="play")
        events.append({"type": "defend", "seat": seat})

    def decline(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        self.require_turn(state, seat)
        state["declines"] += 1
        events.append({"type": "decline", "seat": seat})
        if state["declines"] == state["players"] - 1:
            self.settle(state, events)  # the lone bidder, undefended, takes the pot (spec 6.3)
            self.end_deal(state, events)

    # ----- play -------------------------------------------------------------------------
    def play_card(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        self.require_turn(state, seat)
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        table, trump = TRICKS[state["options"]["must_undertrump"]], self.trump(state)
        table.check(hand, plays, card, trump)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) < self.count_active(state):
            return
        winner = table.winner(plays, trump)
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        if len(state["tricks"]) == HAND:
            self.settle(state, events)
            self.end_deal(state, events)

    # ----- pay-off ----------------------------------------------------------------------
    def settle(self, state: State, events: list[Event]) -> None:
        """Trick shares from the pot, then tomato payments (spec 6.1-6.3; no tricks: an undefended lone bidder)."""
        n, opts = state["players"], state["options"]
        pot, bidder = state["pot"], state["bidder"]
        share, odd = divmod(pot, 3)
        winners = [t["winner"] for t in state["tricks"]]
        won = Counter(winners)
        received = [0] * n
        owed: dict[int, int] = {}
        if not winners:
            received[bidder] = pot
        elif state["defender"] is None:
            for k, w in enumerate(winners):
                received[w] += share + (odd if k == 0 else 0)
            owed = {s: pot for s in range(n) if state["calls"][s] == "stand" and not won[s]}
        elif won[bidder] == HAND:
            received[bidder] = pot
        elif opts["defended_pot"] == "shares":
            received[bidder] = share * won[bidder] + (odd if winners[0] == bidder else 0)
        if winners and won[bidder] < 2:
            owed[bidder] = pot - share if won[bidder] == 1 else pot
        for s in range(n):
            state["chips"][s] += received[s]
        state["pot"] -= sum(received)
        tomatoes = []
        for s in rightwards((state["dealer"] - 1) % n, n):
            if s in owed:
                state["chips"][s] -= owed[s]
                tomatoes.append({"seat": s, "amount": owed[s]})
                if opts["side_pots"]:
                    state["side_pots"].append(owed[s])
                else:
                    state["pot"] += owed[s]
        events.append({"type": "settlement", "deal": state["deal_no"], "received": received, "tomatoes": tomatoes,
                       "pot": state["pot"], "side_pots": list(state["side_pots"])})

    def end_deal(self, state: State, events: list[Event]) -> None:
        n, opts = state["players"], state["options"]
        last = state["deal_no"] == opts["rounds"] * n
        bust = opts["end_mode"] == "bust" and any(c <= 0 for c in state["chips"])
        if not (last or bust):
            self.fresh_deal(state, events)
            return
        pool = state["pot"] + sum(state["side_pots"])
        split = split_evenly(pool, rightwards((state["dealer"] - 1) % n, n))
        state["shared"] = [split[s] for s in range(n)]
        for s in range(n):
            state["chips"][s] += split[s]
        state.update(pot=0, side_pots=[], phase=OVER)
        events.append({"type": "match_over", "shared": list(state["shared"])})

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
        the face-up trump card is shown as rank and suit (everyone saw it turned)."""
        out = super().view(state, seat)
        if state.get("phase") == "take" and isinstance(out.get("hands"), list):
            out["hands"] = [None] * len(out["hands"])
        turn_up = state.get("turn_up")
        out["turn_up"] = {"rank": turn_up[0], "suit": turn_up[1]} if isinstance(turn_up, str) else None
        out["trump"] = turn_up[1] if isinstance(turn_up, str) else None
        return out

    # ----- validation -------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        return [*state["hands"], state["rest"], state["discards"], played]

    def validate(self, state: State) -> None:
        self.known_keys(state, KEYS)
        n, opts = state["players"], state["options"]
        over = state["phase"] == OVER
        deal_no = need_int(state["deal_no"], "deal_no", 1, opts["rounds"] * n)
        need(state["dealings"] == deal_no, "'dealings' must equal the number of deals.")
        need(state["dealer"] == (opts["first_dealer"] - deal_no + 1) % n, "'dealer' does not match the deal number.")
        hands = need_list(state["hands"], "hands", n)
        for s, h in enumerate(hands):
            need_cards(h, f"hands[{s}]")
        need_cards(state["rest"], "rest")
        need_cards(state["discards"], "discards")
        tricks = need_list(state["tricks"], "tricks")
        for t in tricks:
            need(isinstance(t, dict) and set(t) == {"plays", "winner"}, "A completed trick has plays and winner.")
            need_plays(t["plays"], n, "tricks")
        trick = need_dict(state["trick"], "trick", ("plays",))
        need(set(trick) == {"plays"}, "'trick' has unknown fields.")
        need_plays(trick["plays"], n, "trick")
        need(set().union(*self.card_groups(state)) <= SPANISH, "A card is not of the Spanish 40-card pack.")
        calls = need_list(state["calls"], "calls", n)
        need(all(c in CALLS for c in calls), "'calls' entries must be null, pass, take, stand or fold.")
        need(is_int(state["declines"], 0, n - 1), "'declines' must be a whole number from 0 to n-1.")
        for key in ("bidder", "defender"):
            need(state[key] is None or is_int(state[key], 0, n - 1), f"'{key}' must be null or a seat.")
        turn_up = state["turn_up"]
        need(turn_up is None or (isinstance(turn_up, str) and turn_up in SPANISH_PACK), "'turn_up' must be a card.")
        self.validate_chips(state, n, opts, deal_no, over)
        need(self.validate_calls(state, n, calls) == over, "The phase does not match how far the deal has gone.")
        self.validate_tricks(state, n, over)

    def validate_chips(self, state: State, n: int, opts: Options, deal_no: int, over: bool) -> None:
        chips = need_list(state["chips"], "chips", n)
        need(all(is_int(c) for c in chips), "'chips' must be whole numbers.")
        pot = need_int(state["pot"], "pot", 0)
        side = need_list(state["side_pots"], "side_pots")
        need(all(is_int(p, 1) for p in side), "Side-pots must hold at least one chip each.")
        need(opts["side_pots"] or not side, "Side-pots exist but the option is off.")
        need(sum(chips) + pot + sum(side) == n * opts["starting_chips"], "Chips are not conserved.")
        shared = state["shared"]
        bust = opts["end_mode"] == "bust"
        if not over:
            need(shared is None, "'shared' is set before the match is over.")
            need(pot >= opts["ante"], "The pot lacks this deal's ante.")
            if bust and deal_no > 1:
                need(all(c > 0 for s, c in enumerate(chips) if s != state["dealer"])
                     and chips[state["dealer"]] + opts["ante"] > 0, "The match should have ended: someone is bust.")
            return
        need(pot == 0 and not side, "The pots must be shared out when the match is over.")
        shared = need_list(shared, "shared", n)
        need(all(is_int(x, 0) for x in shared), "'shared' must be chip counts.")
        base = min(shared)
        order = rightwards((state["dealer"] - 1) % n, n)
        odd = sum(x - base for x in shared)
        need([shared[s] for s in order] == [base + (1 if i < odd else 0) for i in range(n)],
             "'shared' is not an equal split of the pots.")
        need(deal_no == opts["rounds"] * n or (bust and any(c - x <= 0 for c, x in zip(chips, shared))),
             "The match ended too early.")

    def validate_calls(self, state: State, n: int, calls: list[Any]) -> bool:
        """Who said what, in order; returns whether the deal is finished (the phase is then 'over')."""
        phase, bidder, defender = state["phase"], state["bidder"], state["defender"]
        order = self.take_order(state)
        hands, rest = state["hands"], state["rest"]
        sizes_ok = all(len(h) == HAND for h in hands)
        if "take" not in calls:
            passes = calls.count("pass")
            need([calls[s] for s in order] == ["pass"] * passes + [None] * (n - passes),
                 "Blind passes must come in turn from the dealer.")
            need(bidder is None and state["turn_up"] is None and defender is None and state["declines"] == 0,
                 "Nobody has taken the trump card yet.")
            need(not state["discards"] and len(rest) == 40 - HAND * n and sizes_ok,
                 "Before a take every seat holds its three dealt cards.")
            self.no_tricks(state, sizes_ok)
            need(phase in ("take", OVER), "Nobody has taken the trump card: this is the take phase.")
            return passes == n
        need(calls.count("take") == 1 and bidder is not None and calls[bidder] == "take", "'bidder' must be the "
             "one seat that took.")
        before = order[:order.index(bidder)]
        need(all(calls[s] == "pass" for s in before), "Seats before the bidder must have passed blind.")
        answers = [calls[s] for s in self.declare_order(state)]
        said = len([a for a in answers if a is not None])
        need(all(a in ("stand", "fold") for a in answers[:said]) and all(a is None for a in answers[said:]),
             "Declarations must come in turn after the bidder.")
        played = [c for t in [*state["tricks"], state["trick"]] for s, c in t["plays"] if s == bidder]
        need(state["turn_up"] in hands[bidder] + played, "The bidder must hold (or have played) the trump card.")
        need(len(state["discards"]) == 1 + (HAND if defender is not None else 0), "Wrong number of discards.")
        need(len(rest) == 40 - HAND * n - 1 - (HAND if defender is not None else 0), "Wrong stock size.")
        if said < len(answers):
            need(phase == "declare" and defender is None and state["declines"] == 0, "The declare phase is on.")
            self.no_tricks(state, sizes_ok)
            return False
        if "stand" in answers:
            need(defender is None and state["declines"] == 0, "Nobody defends a contested deal.")
            need(phase in ("play", OVER), "After a stand the deal is played.")
            return phase == OVER
        if defender is None:
            self.no_tricks(state, sizes_ok)
            if state["declines"] == n - 1:
                need(phase == OVER, "Everyone declined to defend: the bidder has won the pot.")
                return True
            need(phase == "defend", "A lone bidder: the defend phase is on.")
            return False
        need(defender == self.defend_order(state)[state["declines"]], "The defender is not the seat offered.")
        need(phase in ("play", OVER), "A defended deal is played.")
        return phase == OVER

    def no_tricks(self, state: State, sizes_ok: bool) -> None:
        need(not state["tricks"] and not state["trick"]["plays"] and sizes_ok,
             "No trick is played before the play phase.")

    def validate_tricks(self, state: State, n: int, over: bool) -> None:
        """Replay who led, that each card was legal then, and who won; and the hand sizes."""
        tricks, current = state["tricks"], state["trick"]["plays"]
        if state["phase"] not in ("play", OVER) or not ("stand" in state["calls"] or state["defender"] is not None):
            return  # not a played deal: validate_calls has checked there are no tricks
        active = self.active(state)
        need(len(active) >= 2, "A played deal needs at least two active hands.")
        need(len(tricks) == HAND if over else len(tricks) < HAND, "Wrong number of completed tricks.")
        need(len(current) < len(active) and not (over and current), "The trick in progress is too long.")
        trump, table = self.trump(state), TRICKS[state["options"]["must_undertrump"]]
        all_tricks = [t["plays"] for t in tricks] + [current]
        holding = [list(h) for h in state["hands"]]
        for k in range(len(all_tricks) - 1, -1, -1):
            for seat, card in all_tricks[k]:
                holding[seat].append(card)
            hands = [list(h) for h in holding]
            leader = tricks[k - 1]["winner"] if k else self.first_leader(state)
            need(is_int(leader, 0, n - 1) and leader in active, f"Trick {k + 1} has no valid leader.")
            seats = self.trick_order(state, leader, active)
            need([p[0] for p in all_tricks[k]] == seats[:len(all_tricks[k])],
                 f"Trick {k + 1} was not played in turn to the right.")
            for i, (seat, card) in enumerate(all_tricks[k]):
                need(card in table.legal_cards(hands[seat], all_tricks[k][:i], trump),
                     f"Trick {k + 1} holds an illegal card {card}.")
                hands[seat].remove(card)
            if k < len(tricks):
                need(len(all_tricks[k]) == len(active), f"Trick {k + 1} must hold one card per active hand.")
                need(is_int(tricks[k]["winner"]) and tricks[k]["winner"] == table.winner(all_tricks[k], trump),
                     f"Trick {k + 1} has the wrong winner.")
        for s, h in enumerate(state["hands"]):
            played = (len(tricks) + sum(1 for p in current if p[0] == s)) if s in active else 0
            need(len(h) == HAND - played, f"Seat {s} holds the wrong number of cards.")


GAME = Tomato()
