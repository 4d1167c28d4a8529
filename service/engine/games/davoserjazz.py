"""Davoserjazz: a Norwegian-taught compendium of seven hands. Rules: docs/games/davoserjazz.md.

3 to 8 players, each for themselves, a 52-card pack. When n does not divide 52, the first 52 mod n
cards of 2D, 2H, 3D, 3H (or the ``left_out`` option's list) are set aside face up before every hand.
A round is seven hands, always in this order, each a fresh deal of all the cards in use, one at a
time clockwise from the dealer's left; the deal passes left every hand:

    1 few, 2 many, 3 clubs, 4 queens, 5 first_last, 6 king_of_spades, 7 qabbalah

Hands 1-6 are trick hands without trumps (the shared ``TrickPlay``): follow suit if you can, highest card
of the suit led wins, the winner leads. Aces are low in odd hands and high in even ones. Points are
penalties: Few 10 a trick above the fewest, Many 10 a trick short of the most, Clubs 10 a club (one seat
taking them all scores 0 and the others 100 each), Queens 25 a queen, First/last 50 each for the first
and last trick, King of spades 100. With ``stop_when_decided`` Clubs, Queens and King of spades end right
after the trick with their last scoring card.

Hand 7, qabbalah, is a sevens layout (aces low), a phase of its own: a 7 starts a suit's row, rows grow
one rank at a time at either end. The seat on turn may first bring left-out cards in from the pool
(``bring_in``), then plays a card or, when no card in hand could be reached, passes for 10 points.
Once all but one seat are out the hand ends. The round's points form a pot shared out by the order of
going out (``pot_split``); a seat's payoff for the round is its share minus its points.

Each hand is a deal. Carried from hand to hand: deal_no (the hand's number in the match), points (the
current round's table: one row per finished hand), scores and payoffs (running totals of the settled
rounds). Each hand has: round and hand (1-7 within the round, both from deal_no), dealer, hands; a trick
hand tricks, trick and counts (tricks, clubs and queens won per seat); qabbalah layout, pool, passes,
order (going out) and turn. A hand's outcome is its ``deal_settled`` event, a round's its
``round_settled`` event: nothing of an earlier round stays in the state.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, STANDARD_PACK, SUITS, card_name
from ..checks import is_int, need, need_list
from ..end_of_deal import News, dealer_in_turn, end_deal
from ..errors import InvalidDeal, InvalidOptions
from ..flow import Choices, Phase, Refusal, Step, each, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import SAFE_MAX, share_by_weights
from ..seats import left, next_matching, rank_seats
from ..tricks import TrickPlay, TrickRules, TrickTable

HANDS = ("few", "many", "clubs", "queens", "first_last", "king_of_spades", "qabbalah")
REMOVAL = ("2D", "2H", "3D", "3H")
LOW = "A23456789TJQK"  # aces low; in qabbalah rank r (A=1 ... K=13) is LOW[r - 1]
ACES_LOW = TrickTable(TrickRules(order=LOW))
ACES_HIGH = TrickTable(TrickRules())
QUEENS = frozenset({"QC", "QD", "QH", "QS"})
TRICK_KEYS = ("tricks", "trick", "counts")
LAYOUT_KEYS = ("layout", "pool", "passes", "order", "turn")
COUNTS = ("tricks", "clubs", "queens")


# ----- options -------------------------------------------------------------------------------
def parse_pot_split(raw: Any, n: int) -> Any:
    if isinstance(raw, str) and raw in ("auto", "halving"):
        return raw
    if raw == "thirds":
        if n != 3:
            raise InvalidOptions("Option 'pot_split' \"thirds\" is only for 3 players.", option="pot_split")
        return raw
    if isinstance(raw, list) and len(raw) == n and all(is_int(w, 0) for w in raw) and sum(raw) > 0:
        return list(raw)
    raise InvalidOptions(f"Option 'pot_split' must be \"auto\", \"halving\", \"thirds\" (3 players) or a list of {n} "
                         "whole numbers of at least 0 with a positive sum.", option="pot_split")


def parse_left_out(raw: Any, n: int) -> list[Card] | None:
    if raw is None:
        return None
    k = 52 % n
    if not (isinstance(raw, list) and len(raw) == k and all(isinstance(c, str) and c in STANDARD_PACK for c in raw)
            and len(set(raw)) == k):
        raise InvalidOptions(f"Option 'left_out' must be null or a list of {k} different cards for {n} players.",
                             option="left_out")
    if any(c[0] == "Q" or c == "KS" for c in raw):
        raise InvalidOptions("Option 'left_out' may not hold a queen or the king of spades.", option="left_out")
    return list(raw)


def left_out(n: int, options: Options) -> list[Card]:
    chosen = options["left_out"]
    return list(chosen) if chosen is not None else list(REMOVAL[:52 % n])


CODES: frozenset[Card] = frozenset(STANDARD_PACK)


@cache
def in_use(out: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(c for c in STANDARD_PACK if c not in out)


def weights(n: int, pot_split: Any) -> list[int]:
    """Place weights, first out first (section 6.3)."""
    if isinstance(pot_split, list):
        return list(pot_split)
    if pot_split == "thirds" or (pot_split == "auto" and n == 3):
        return [3, 2, 1]
    return [2 * (n - 2), n - 2] + [1] * (n - 2)


def shares_by_seat(pot: int, order: Sequence[int], place_weights: Sequence[int]) -> list[int]:
    """The pot shared by going-out order: share[k] goes to order[k], each share rounded up in turn."""
    shares = [0] * len(order)
    for seat, share in zip(order, share_by_weights(pot, place_weights)):
        shares[seat] = share
    return shares


# ----- cards -----------------------------------------------------------------------------------
def rank_of(card: Card) -> int:
    return LOW.index(card[0]) + 1


def code(rank: int, suit: str) -> Card:
    return LOW[rank - 1] + suit


def row_cards(layout: dict[str, Any]) -> list[Card]:
    return [code(r, s) for s in SUITS if layout[s] is not None for r in range(layout[s][0], layout[s][1] + 1)]


def playable(layout: dict[str, Any], card: Card) -> bool:
    row, r = layout[card[1]], rank_of(card)
    return r == 7 if row is None else r in (row[0] - 1, row[1] + 1)


def reachable(layout: dict[str, Any], pool: Sequence[Card], card: Card) -> bool:
    """Playable now, or once the pool cards between it and its row (or its 7) are brought in (R9)."""
    s, r = card[1], rank_of(card)
    row = layout[s]
    if row is None:
        between = range(7, r) if r > 7 else range(r + 1, 8)
    elif r > row[1]:
        between = range(row[1] + 1, r)
    elif r < row[0]:
        between = range(r + 1, row[0])
    else:
        return False
    return all(code(k, s) in pool for k in between)


def place(layout: dict[str, Any], card: Card) -> None:
    s, r = card[1], rank_of(card)
    row = layout[s]
    layout[s] = [r, r] if row is None else [min(row[0], r), max(row[1], r)]


# ----- per-hand scoring --------------------------------------------------------------------------
def clubs_in_play(n: int, options: Options) -> int:
    return 13 - sum(1 for c in left_out(n, options) if c[1] == "C")


def trick_points(kind: str, counts: dict[str, list[int]], tricks: Sequence[dict[str, Any]], total_clubs: int,
                 n: int) -> list[int]:
    won = counts["tricks"]
    if kind == "few":
        return [10 * (t - min(won)) for t in won]
    if kind == "many":
        return [10 * (max(won) - t) for t in won]
    if kind == "clubs":
        clubs = counts["clubs"]
        if total_clubs in clubs:
            return [0 if c == total_clubs else 100 for c in clubs]
        return [10 * c for c in clubs]
    if kind == "queens":
        return [25 * q for q in counts["queens"]]
    points = [0] * n
    if kind == "first_last":
        points[tricks[0]["winner"]] += 50
        points[tricks[-1]["winner"]] += 50
    else:
        points[next(t["winner"] for t in tricks if any(p[1] == "KS" for p in t["plays"]))] = 100
    return points


def decided(kind: str, counts: dict[str, list[int]], tricks: Sequence[dict[str, Any]], total_clubs: int) -> bool:
    """Has the last scoring card of Clubs / Queens / King of spades fallen?"""
    if kind == "clubs":
        return sum(counts["clubs"]) == total_clubs
    if kind == "queens":
        return sum(counts["queens"]) == 4
    return kind == "king_of_spades" and any(p[1] == "KS" for t in tricks for p in t["plays"])


# ----- qabbalah: one function per rule, for both the legal moves and the refusals -------------------
def play_refusal(state: State, move: Move) -> Refusal | None:
    """Why the seat may not play the card onto the layout now (None: it may)."""
    card = move["card"]
    if card not in state["hands"][move["seat"]]:
        return Refusal("card_not_in_hand", f"You do not hold the {card_name(card)}.", {"card": card})
    if not playable(state["layout"], card):
        return Refusal("not_playable", f"The {card_name(card)} does not fit the layout: a row starts with its 7 "
                       "and grows one card at a time at either end.", {"card": card})
    return None


def bring_in_refusal(state: State, move: Move) -> Refusal | None:
    """Why the card may not be brought in from the pool now (None: it may)."""
    card = move["card"]
    if card not in state["pool"]:
        return Refusal("not_in_pool", f"The {card_name(card)} is not in the pool of left-out cards.", {"card": card})
    if not playable(state["layout"], card):
        return Refusal("not_playable_yet", f"The {card_name(card)} does not fit the layout yet.", {"card": card})
    return None


MUST_PLAY = Refusal("must_play", "You cannot pass: you can play a card (bringing pool cards in first where needed).")


def pass_refusal(state: State, move: Move) -> Refusal | None:
    """A seat may pass only when no card in its hand can be reached, through the pool if need be (R9)."""
    if any(reachable(state["layout"], state["pool"], c) for c in state["hands"][move["seat"]]):
        return MUST_PLAY
    return None


def on_turn(state: State) -> int:
    return int(state["turn"])


class Davoserjazz(Game):
    id = "davoserjazz"
    name = "Davoserjazz"
    summary = ("Seven hands a round (Few, Many, Clubs, Queens, First and last, King of spades, a sevens layout); "
               "penalty points fill a pot shared by the order of going out in the last hand.")
    min_players = 3
    max_players = 8
    default_players = 4
    options = (
        Option("rounds", "integer", 1, "Number of seven-hand rounds; each round's pot is settled on its own.", 1, 100),
        Option("pot_split", "custom", "auto", "How the pot is shared by the order of going out: \"auto\" (thirds "
               "for 3 players, else halving), \"halving\", \"thirds\" (3 players), or a list of n place weights.",
               parse=parse_pot_split, schema={"anyOf": [
                   {"type": "string", "enum": ["auto", "halving", "thirds"]},
                   {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 3, "maxItems": 8}],
                   "default": "auto"}),
        Option("stop_when_decided", "boolean", True, "End Clubs, Queens and King of spades right after the trick "
               "with their last scoring card."),
        Option("left_out", "custom", None, "Cards set aside before every hand (52 mod n of them, no queen, not "
               "KS); null: the first 52 mod n of 2D, 2H, 3D, 3H.", parse=parse_left_out,
               schema={"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 4, "items": {
                   "type": "string", "pattern": "^[2-9TJQKA][CDHS]$"}}], "default": None}),
    )
    actions = {
        "play": Action("Play a card: to the trick in hands 1-6, onto the layout in qabbalah.",
                       {"card": Param("card", "a card you hold")}, {"seat": 2, "action": "play", "card": "QS"}),
        "bring_in": Action("Qabbalah: before your play or pass, move a left-out card from the pool onto the layout.",
                           {"card": Param("card", "a card in the pool")},
                           {"seat": 1, "action": "bring_in", "card": "2D"}),
        "pass": Action("Qabbalah: pass (10 points) when no card in your hand can be reached.",
                       example={"seat": 1, "action": "pass"}),
    }
    # Valid for every player count (the property test skips a whole case on an invalid set); the
    # count-specific options (``left_out``, a custom ``pot_split``) are played out in the game's own tests.
    sample_options = (
        {"rounds": 2, "first_dealer": 1},
        {"stop_when_decided": False, "pot_split": "halving"},
        {"first_dealer": 2, "left_out": None, "pot_split": "auto"},
    )
    carried = ("deal_no", "points", "scores", "payoffs")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=self.table, first_leader=lambda state: left(state["dealer"], state["players"]),
                                deal_over=self.trick_hand_over, end_deal=self.score_trick_hand,
                                after_trick=self.count_trick)
        seat = one_seat(on_turn)
        layout_steps = {  # plays in hand order, then bring-ins in pool order, then a pass
            "play": Step(seat, Choices(each("play", "card", lambda state, s: state["hands"][s]), play_refusal),
                         self.play_to_layout),
            "bring_in": Step(seat, Choices(each("bring_in", "card", lambda state, s: state["pool"]), bring_in_refusal),
                             self.bring_in, "bring in"),
            "pass": Step(seat, Choices(verbs("pass"), pass_refusal), self.pass_turn, "pass")}
        return {"trick": Phase("trick", {"play": self.tricks.step()}, self.tricks.on_turn),
                "qabbalah": Phase("qabbalah", layout_steps, on_turn)}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        """The cards in use: the full pack less the left-out cards."""
        return in_use(tuple(left_out(n, options)))

    def card_codes(self, n: int, options: Options) -> frozenset[Card]:
        """Every card of the 52: the left-out ones are in play too (a Qabbalah pool, the layout)."""
        return CODES

    def max_dealings(self, n: int, options: Options) -> int | None:
        return int(options["rounds"]) * 7  # seven hands a round, each dealt once

    # ----- the deal ---------------------------------------------------------------------------
    def initial(self, state: State) -> None:
        n = state["players"]
        state.update(deal_no=0, points=[], scores=[0] * n, payoffs=[0] * n)

    def deal(self, state: State, events: list[Event]) -> None:
        """The next hand: its place in the round, the next dealer, a fresh deal, its phase."""
        n, opts = state["players"], state["options"]
        state["deal_no"] += 1
        rnd, hand = divmod(state["deal_no"] - 1, 7)
        state.update(round=rnd + 1, hand=hand + 1, dealer=dealer_in_turn(state, n))
        state["hands"] = self.next_deal(state)["hands"]
        for key in (*TRICK_KEYS, *LAYOUT_KEYS):
            state.pop(key, None)
        if state["hand"] < 7:
            state.update(phase="trick", tricks=[], trick={"plays": []}, counts={k: [0] * n for k in COUNTS})
        else:
            state.update(phase="qabbalah", layout={s: None for s in SUITS}, pool=left_out(n, opts), passes=[0] * n,
                         order=[], turn=left(state["dealer"], n))
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": state["dealer"],
                       "round": state["round"], "hand": state["hand"], "name": self.kind(state),
                       "left_out": left_out(n, opts)})

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """One card at a time clockwise from the dealer's left (R13)."""
        n = state["players"]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k, card in enumerate(cards):
            hands[(state["dealer"] + 1 + k) % n].append(card)
        return {"hands": hands, "rest": left_out(n, state["options"])}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, 52 // n)
        out = left_out(n, options)
        if deal["rest"] != out:
            raise InvalidDeal(f"'rest' must be exactly the left-out cards, in order: {out}.")
        need_pack_deal(deal, STANDARD_PACK)

    def kind(self, state: State) -> str:
        return HANDS[state["hand"] - 1]

    def to_act(self, state: State) -> list[int]:
        return [self.phases[state["phase"]].turn(state)]

    # ----- trick hands --------------------------------------------------------------------------
    def table(self, state: State) -> TrickTable:
        return ACES_LOW if state["hand"] % 2 else ACES_HIGH

    def count_trick(self, state: State, trick: dict[str, Any], events: list[Event]) -> None:
        counts, winner = state["counts"], trick["winner"]
        counts["tricks"][winner] += 1
        counts["clubs"][winner] += sum(1 for p in trick["plays"] if p[1][1] == "C")
        counts["queens"][winner] += sum(1 for p in trick["plays"] if p[1] in QUEENS)

    def last_trick(self, state: State) -> bool:
        return bool(len(state["tricks"]) == 52 // state["players"])

    def trick_hand_over(self, state: State) -> bool:
        """After the last trick, or (``stop_when_decided``) once the hand's last scoring card has fallen."""
        return self.last_trick(state) or (state["options"]["stop_when_decided"] and decided(
            self.kind(state), state["counts"], state["tricks"], clubs_in_play(state["players"], state["options"])))

    def score_trick_hand(self, state: State, events: list[Event]) -> None:
        n = state["players"]
        points = trick_points(self.kind(state), state["counts"], state["tricks"],
                              clubs_in_play(n, state["options"]), n)
        self.finish_hand(state, points, events, early=not self.last_trick(state))

    # ----- qabbalah -----------------------------------------------------------------------------
    def bring_in(self, state: State, move: Move, events: list[Event]) -> None:
        card = move["card"]
        place(state["layout"], card)
        state["pool"].remove(card)
        events.append({"type": "bring_in", "seat": move["seat"], "card": card})

    def play_to_layout(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        place(state["layout"], card)
        hand = state["hands"][seat]
        hand.remove(card)
        events.append({"type": "play", "seat": seat, "card": card})
        if not hand:
            state["order"].append(seat)
            events.append({"type": "went_out", "seat": seat, "place": len(state["order"])})
            holders = [s for s, h in enumerate(state["hands"]) if h]
            if len(holders) == 1:
                state["order"].append(holders[0])
                self.finish_hand(state, [10 * p for p in state["passes"]], events, early=False)
                return
        self.next_turn(state, seat)

    def pass_turn(self, state: State, move: Move, events: list[Event]) -> None:
        seat = move["seat"]
        state["passes"][seat] += 1
        events.append({"type": "pass", "seat": seat})
        self.next_turn(state, seat)

    def next_turn(self, state: State, seat: int) -> None:
        state["turn"] = next_matching(seat, state["players"], lambda s: bool(state["hands"][s]))

    # ----- ends of hands, rounds and the match ---------------------------------------------------
    def finish_hand(self, state: State, points: list[int], events: list[Event], early: bool) -> None:
        """A hand's points join the round's table; after the seventh the round is settled (section 6.3)."""
        state["points"].append(points)
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": list(points), "unit": "points", "round": state["round"], "hand": state["hand"],
                       "name": self.kind(state), "stopped_early": early})
        if state["hand"] < 7:
            end_deal(self, state, events, False)
            return
        self.settle(state, events)
        over = state["round"] >= state["options"]["rounds"]
        end_deal(self, state, events, over, final=self.no_turn, between=self.new_round)

    def no_turn(self, state: State) -> News:
        """The match over after the last round's qabbalah: nobody is on turn."""
        state["turn"] = None
        return {}

    def new_round(self, state: State) -> None:
        """The next round's table of points starts empty."""
        state["points"] = []

    def round_record(self, state: State) -> dict[str, Any]:
        """The current round's record once its seven hands are scored: the points table, the totals, the pot
        and its sharing by the going-out order."""
        n, points, order = state["players"], state["points"], state["order"]
        totals = [sum(p[s] for p in points) for s in range(n)]
        pot = sum(totals)
        shares = shares_by_seat(pot, order, weights(n, state["options"]["pot_split"]))
        return {"round": state["round"], "hands": {HANDS[k]: list(p) for k, p in enumerate(points)},
                "totals": totals, "pot": pot, "order": list(order), "shares": shares,
                "payoffs": [shares[s] - totals[s] for s in range(n)]}

    def settle(self, state: State, events: list[Event]) -> None:
        """Share the round's pot and add the round into the running totals; the event's ``changes`` are the
        round's payoffs (share less points)."""
        record = self.round_record(state)
        for s in range(state["players"]):
            state["scores"][s] += record["totals"][s]
            state["payoffs"][s] += record["payoffs"][s]
        changes = record.pop("payoffs")
        events.append({"type": "round_settled", "round": record.pop("round"), "changes": changes, "unit": "points",
                       **record})

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        n = state["players"]
        scores, payoffs, last_order = list(state["scores"]), list(state["payoffs"]), state["order"]
        ranking = rank_seats(n, lambda s: (-payoffs[s], scores[s], last_order.index(s)))
        return {"scores": scores, "payoffs": payoffs, "ranking": ranking, "last_round": self.round_record(state)}

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        out["left_out"] = left_out(state["players"], state["options"])
        out["hand_name"] = self.kind(state)
        return out

    # ----- cards and the totals carried between hands -----------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        if state["phase"] == "trick":
            played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
            return [*state["hands"], played]
        out = set(left_out(state["players"], state["options"]))
        return [*state["hands"], [c for c in row_cards(state["layout"]) if c not in out]]

    def check_carried(self, state: State) -> None:
        """Before a hand: one dealing per hand, one row of points per finished hand of the round, and running
        totals that every settled pot was shared out in full (payoffs add up to 0, no share below 0)."""
        n, opts = state["players"], state["options"]
        dealt = state["deal_no"]
        need(is_int(dealt, 0, 7 * opts["rounds"] - 1), "'deal_no' is out of range.")
        need(state["dealings"] == dealt, "'dealings' must count the hands dealt so far.")
        points = need_list(state["points"], "points", dealt % 7)
        need(all(isinstance(p, list) and len(p) == n and all(is_int(x, 0, SAFE_MAX) for x in p) for p in points),
             "'points' must hold one row of whole numbers of at least 0 per seat for each finished hand.")
        scores, payoffs = need_list(state["scores"], "scores", n), need_list(state["payoffs"], "payoffs", n)
        need(all(is_int(x, 0, SAFE_MAX) for x in scores), "'scores' must be whole numbers of at least 0.")
        need(all(is_int(x, -SAFE_MAX, SAFE_MAX) for x in payoffs), "'payoffs' must be whole numbers.")
        need(sum(payoffs) == 0, "'payoffs' must add up to 0: every pot is shared out in full.")
        need(all(payoffs[s] + scores[s] >= 0 for s in range(n)), "'payoffs' lose more than the points paid in.")
        if dealt < 7:
            need(not any(scores) and not any(payoffs), "No round is settled yet: 'scores' and 'payoffs' must be 0.")


GAME = Davoserjazz()
