"""Davoserjazz: a Norwegian-taught compendium of seven hands. Spec: shared/rules/davoserjazz.md.

3 to 8 players, each for themselves, a 52-card pack. When n does not divide 52, the first 52 mod n
cards of 2D, 2H, 3D, 3H (or the ``left_out`` option's list) are set aside face up before every hand.
A round is seven hands, always in this order, each a fresh deal of all the cards in use, one at a
time clockwise from the dealer's left; the deal passes left every hand:

    1 few, 2 many, 3 clubs, 4 queens, 5 first_last, 6 king_of_spades, 7 qabbalah

Hands 1-6 are trick hands without trumps: follow suit if you can, highest card of the suit led wins,
the winner leads. Aces are low in odd hands and high in even ones. Points are penalties:
Few 10 a trick above the fewest, Many 10 a trick short of the most, Clubs 10 a club (one seat taking
them all scores 0 and the others 100 each), Queens 25 a queen, First/last 50 each for the first and
last trick, King of spades 100. With ``stop_when_decided`` Clubs, Queens and King of spades end right
after the trick with their last scoring card.

Hand 7, qabbalah, is a sevens layout (aces low): a 7 starts a suit's row, rows grow one rank at a
time at either end. The seat on turn may first bring left-out cards in from the pool (``bring_in``),
then plays a card or, when no card in hand could be reached, passes for 10 points. Going out early is
the aim: once all but one seat are out the hand ends. The round's points form a pot that is shared out
by the order of going out (``pot_split``); payoff = share - points.

State keys besides the core: round, hand (1-7 within the round), dealer, hands, points (the points of
every finished hand of the current round: at most seven rows), scores and payoffs (per seat, the running
totals of the rounds settled so far); in trick hands tricks, trick and counts (tricks, clubs and queens
won per seat); in qabbalah (and once over) layout, pool, passes, order (going out) and turn. Nothing of
an earlier round stays in the state: its record is the ``round_settled`` event (hands table, totals,
pot, order, shares, payoffs), so the state's size does not grow with the match.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..base import (OVER, Deal, Event, Game, Handler, State, need_hand_sizes, need_pack_deal, play_moves,
                    require_in_hand, require_turn)
from ..cards import STANDARD_PACK, SUITS, Card, card_name, suit_name
from ..checks import is_int, need, need_cards, need_dict, need_int, need_list, need_plays
from ..errors import IllegalMove, InvalidDeal, InvalidOptions
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..pots import share_by_weights
from ..seats import left, next_matching, rank_seats
from ..tricks import TrickRules, TrickTable

HANDS = ("few", "many", "clubs", "queens", "first_last", "king_of_spades", "qabbalah")
HAND_NAMES = {"few": "Few", "many": "Many", "clubs": "Clubs", "queens": "Queens", "first_last": "First and last",
              "king_of_spades": "King of spades", "qabbalah": "Qabbalah"}
REMOVAL = ("2D", "2H", "3D", "3H")
LOW = "A23456789TJQK"  # aces low; in qabbalah rank r (A=1 ... K=13) is LOW[r - 1]
ACES_LOW = TrickTable(TrickRules(order=LOW))
ACES_HIGH = TrickTable(TrickRules())
QUEENS = frozenset({"QC", "QD", "QH", "QS"})
PACK = frozenset(STANDARD_PACK)
EARLY_STOP = ("clubs", "queens", "king_of_spades")
COMMON = ("round", "hand", "dealer", "hands", "points", "scores", "payoffs")
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


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values (``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


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


def points_possible(kind: str, points: Any, n: int, options: Options) -> bool:
    """Could a hand of this kind have scored these points? (validation of forged states)"""
    if not (isinstance(points, list) and len(points) == n and all(is_int(p, 0) for p in points)):
        return False
    total, tricks = sum(points), 52 // n
    if kind in ("few", "many"):
        if any(p % 10 for p in points) or min(points) != 0:
            return False
        units = total // 10
        spread = tricks - units if kind == "few" else tricks + units  # n*min, or n*max
        return spread >= 0 and spread % n == 0 and (kind == "few" or max(points) // 10 <= spread // n)
    if kind == "clubs":
        sole = sorted(points) == [0] + [100] * (n - 1)
        return sole or (all(p % 10 == 0 for p in points) and total == 10 * clubs_in_play(n, options)
                        and max(points) < total)
    if kind == "queens":
        return all(p % 25 == 0 for p in points) and total == 100
    if kind == "first_last":
        return all(p % 50 == 0 for p in points) and total == 100
    if kind == "king_of_spades":
        return sorted(points) == [0] * (n - 1) + [100]
    return all(p % 10 == 0 for p in points)


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

    def build_phases(self) -> dict[str, dict[str, Handler]]:
        return {"trick": {"play": self.play_to_trick},
                "qabbalah": {"play": self.play_to_layout, "bring_in": self.bring_in, "pass": self.pass_turn}}

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        """The cards in use: the full pack less the left-out cards."""
        return in_use(tuple(left_out(n, options)))

    # ----- the deal ---------------------------------------------------------------------------
    def start(self, state: State) -> None:
        n = state["players"]
        state.update(round=1, hand=0, dealer=state["options"]["first_dealer"], points=[], scores=[0] * n,
                     payoffs=[0] * n)
        self.begin_hand(state, [])

    def match_hand(self, state: State) -> int:
        return 7 * (state["round"] - 1) + state["hand"]

    def begin_hand(self, state: State, events: list[Event]) -> None:
        n = state["players"]
        state["hand"] += 1
        state["dealer"] = (state["options"]["first_dealer"] + self.match_hand(state) - 1) % n
        state["hands"] = self.next_deal(state)["hands"]
        for key in (*TRICK_KEYS, *LAYOUT_KEYS):
            state.pop(key, None)
        if state["hand"] < 7:
            state.update(phase="trick", tricks=[], trick={"plays": []}, counts={k: [0] * n for k in COUNTS})
        else:
            state.update(phase="qabbalah", layout={s: None for s in SUITS},
                         pool=left_out(n, state["options"]), passes=[0] * n, order=[], turn=left(state["dealer"], n))
        events.append({"type": "deal", "round": state["round"], "hand": state["hand"], "name": self.kind(state),
                       "dealer": state["dealer"], "left_out": left_out(n, state["options"])})

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

    # ----- whose turn ---------------------------------------------------------------------------
    def kind(self, state: State) -> str:
        return HANDS[state["hand"] - 1]

    def table(self, state: State) -> TrickTable:
        return ACES_LOW if state["hand"] % 2 else ACES_HIGH

    def leader(self, state: State) -> int:
        tricks = state["tricks"]
        return tricks[-1]["winner"] if tricks else left(state["dealer"], state["players"])

    def on_turn(self, state: State) -> int:
        if state["phase"] == "qabbalah":
            return int(state["turn"])
        plays = state["trick"]["plays"]
        return left(plays[-1][0], state["players"]) if plays else self.leader(state)

    def to_act(self, state: State) -> list[int]:
        return [] if state["phase"] == OVER else [self.on_turn(state)]

    def legal_moves(self, state: State) -> list[Move]:
        if state["phase"] == OVER:
            return []
        seat = self.on_turn(state)
        hand = state["hands"][seat]
        if state["phase"] == "trick":
            return play_moves(seat, self.table(state).legal_cards(hand, state["trick"]["plays"]))
        layout, pool = state["layout"], state["pool"]
        moves = play_moves(seat, [c for c in hand if playable(layout, c)])
        moves += [{"seat": seat, "action": "bring_in", "card": c} for c in pool if playable(layout, c)]
        if not any(reachable(layout, pool, c) for c in hand):
            moves.append({"seat": seat, "action": "pass"})
        return moves

    # ----- trick hands --------------------------------------------------------------------------
    def play_to_trick(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, self.on_turn(state))
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        plays = state["trick"]["plays"]
        self.table(state).check(hand, plays, card)
        hand.remove(card)
        plays.append([seat, card])
        if len(plays) == state["players"]:
            self.finish_trick(state, events)

    def finish_trick(self, state: State, events: list[Event]) -> None:
        n, kind = state["players"], self.kind(state)
        plays = state["trick"]["plays"]
        winner = self.table(state).winner(plays)
        counts = state["counts"]
        counts["tricks"][winner] += 1
        counts["clubs"][winner] += sum(1 for p in plays if p[1][1] == "C")
        counts["queens"][winner] += sum(1 for p in plays if p[1] in QUEENS)
        state["tricks"].append({"plays": plays, "winner": winner})
        state["trick"] = {"plays": []}
        events.append({"type": "trick", "number": len(state["tricks"]), "winner": winner})
        total_clubs = clubs_in_play(n, state["options"])
        last = len(state["tricks"]) == 52 // n
        early = not last and state["options"]["stop_when_decided"] and decided(kind, counts, state["tricks"],
                                                                                total_clubs)
        if last or early:
            points = trick_points(kind, counts, state["tricks"], total_clubs, n)
            self.finish_hand(state, points, events, early=early)

    # ----- qabbalah -----------------------------------------------------------------------------
    def bring_in(self, state: State, move: Move, events: list[Event]) -> None:
        card = move["card"]
        require_turn(move, state["turn"])
        if card not in state["pool"]:
            raise IllegalMove("not_in_pool", f"The {card_name(card)} is not in the pool of left-out cards.", card=card)
        if not playable(state["layout"], card):
            raise IllegalMove("not_playable_yet", f"The {card_name(card)} does not fit the layout yet.", card=card)
        place(state["layout"], card)
        state["pool"].remove(card)
        events.append({"type": "brought_in", "seat": move["seat"], "card": card})

    def play_to_layout(self, state: State, move: Move, events: list[Event]) -> None:
        seat, card = move["seat"], move["card"]
        require_turn(move, state["turn"])
        hand = state["hands"][seat]
        require_in_hand(hand, card)
        if not playable(state["layout"], card):
            raise IllegalMove("not_playable", f"The {card_name(card)} does not fit the layout: a row starts with "
                              "its 7 and grows one card at a time at either end.", card=card)
        place(state["layout"], card)
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
        require_turn(move, state["turn"])
        if any(reachable(state["layout"], state["pool"], c) for c in state["hands"][seat]):
            raise IllegalMove("must_play", "You cannot pass: you can play a card (bringing pool cards in first "
                              "where needed).")
        state["passes"][seat] += 1
        events.append({"type": "pass", "seat": seat})
        self.next_turn(state, seat)

    def next_turn(self, state: State, seat: int) -> None:
        state["turn"] = next_matching(seat, state["players"], lambda s: bool(state["hands"][s]))

    # ----- ends of hands, rounds and the match ---------------------------------------------------
    def finish_hand(self, state: State, points: list[int], events: list[Event], early: bool) -> None:
        state["points"].append(points)
        events.append({"type": "hand_scored", "round": state["round"], "hand": state["hand"],
                       "name": self.kind(state), "points": list(points), "stopped_early": early})
        if state["hand"] < 7:
            self.begin_hand(state, events)
            return
        self.settle(state, events)
        if state["round"] < state["options"]["rounds"]:
            state["round"] += 1
            state["hand"] = 0
            state["points"] = []
            self.begin_hand(state, events)
        else:
            state["phase"] = OVER
            state["turn"] = None
            events.append({"type": "match_over"})

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
        """Share the round's pot and add the round into the running totals (section 6.3)."""
        record = self.round_record(state)
        for s in range(state["players"]):
            state["scores"][s] += record["totals"][s]
            state["payoffs"][s] += record["payoffs"][s]
        events.append({"type": "round_settled", **record})

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

    # ----- validation -----------------------------------------------------------------------------
    def card_groups(self, state: State) -> list[Any]:
        if state["phase"] == "trick":
            played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
            return [*state["hands"], played]
        out = set(left_out(state["players"], state["options"]))
        return [*state["hands"], [c for c in row_cards(state["layout"]) if c not in out]]

    def validate(self, state: State) -> None:
        n, opts, phase = state["players"], state["options"], state["phase"]
        need(phase in ("trick", "qabbalah", OVER), "Davoserjazz's phases are 'trick', 'qabbalah' and 'over'.")
        extra = TRICK_KEYS if phase == "trick" else LAYOUT_KEYS
        self.known_keys(state, (*COMMON, *extra))
        for key in extra:
            need(key in state, f"The state lacks '{key}'.")
        rnd = need_int(state["round"], "round", 1, opts["rounds"])
        hand = need_int(state["hand"], "hand", 1, 7)
        need((hand < 7) == (phase == "trick"), "Hands 1-6 are trick hands and hand 7 is qabbalah.")
        need(phase != OVER or rnd == opts["rounds"], "The match ended before its last round.")
        h = self.match_hand(state)
        need(same(state["dealer"], (opts["first_dealer"] + h - 1) % n), "'dealer' does not match the hand number.")
        need(state["dealings"] == h, "'dealings' must count the hands dealt so far.")
        hands = need_list(state["hands"], "hands", n)
        for s, cards in enumerate(hands):
            need(isinstance(cards, list) and all(c in PACK for c in cards), f"'hands[{s}]' must be a list of cards.")
        self.validate_points(state, n, opts, hand)
        if phase == "trick":
            self.validate_trick_hand(state, n, opts)
        else:
            self.validate_layout(state, n, opts)
        self.validate_totals(state, n, rnd)

    def validate_points(self, state: State, n: int, opts: Options, hand: int) -> None:
        """The current round's table: one row per finished hand, each a score that hand could give."""
        points = need_list(state["points"], "points", 7 if state["phase"] == OVER else hand - 1)
        for k, p in enumerate(points):
            need(points_possible(HANDS[k], p, n, opts), f"'points[{k}]' cannot be the points of "
                 f"{HAND_NAMES[HANDS[k]]}.")

    def validate_totals(self, state: State, n: int, rnd: int) -> None:
        """The running totals: what the settled rounds can have left (pots conserved, shares never negative).

        Once the match is over they include the last round, whose settlement is recomputed from the points
        and the going-out order; before that they hold the rounds before the current one."""
        scores = need_list(state["scores"], "scores", n)
        payoffs = need_list(state["payoffs"], "payoffs", n)
        need(all(is_int(x, 0) for x in scores), "'scores' must be whole numbers of at least 0.")
        need(all(is_int(x) for x in payoffs), "'payoffs' must be whole numbers.")
        settled = rnd - 1
        if state["phase"] == OVER:
            record = self.round_record(state)
            scores = [scores[s] - record["totals"][s] for s in range(n)]
            payoffs = [payoffs[s] - record["payoffs"][s] for s in range(n)]
        need(sum(payoffs) == 0, "'payoffs' must add up to 0: every pot is shared out in full.")
        need(all(x >= 0 for x in scores), "'scores' are lower than the points of the last round.")
        # every round's share is at least 0 and its pot a multiple of 10 of at least 300 (Queens, First and
        # last and King of spades always give 100 each)
        need(all(payoffs[s] + scores[s] >= 0 for s in range(n)), "'payoffs' lose more than the points paid in.")
        if settled == 0:
            need(not any(scores) and not any(payoffs), "No round is settled yet: 'scores' and 'payoffs' must be 0.")
        else:
            need(sum(scores) % 10 == 0 and sum(scores) >= 300 * settled,
                 "'scores' cannot be the points of the rounds settled so far.")

    def validate_trick_hand(self, state: State, n: int, opts: Options) -> None:
        """Replay the hand's tricks: who led, that every card was legal then, who won, the counts."""
        kind, table, size = self.kind(state), self.table(state), 52 // n
        tricks = need_list(state["tricks"], "tricks")
        trick = need_dict(state["trick"], "trick")
        need(set(trick) == {"plays"}, "'trick' must hold exactly 'plays'.")
        need(len(tricks) < size, "Too many completed tricks: the hand should have ended.")
        for t in tricks:
            t = need_dict(t, "trick")
            need(set(t) == {"plays", "winner"}, "A completed trick must hold exactly 'plays' and 'winner'.")
            need(len(need_plays(t["plays"], n, "tricks")) == n, "A completed trick must hold one card per player.")
            need(is_int(t["winner"], 0, n - 1), "A trick's winner must be a seat.")
        current = need_plays(trick["plays"], n, "trick")
        need(len(current) < n, "The trick in progress is too long.")
        all_tricks = [t["plays"] for t in tricks] + [current]
        need(all(p[1] in PACK for plays in all_tricks for p in plays), "A trick holds a card not in the pack.")
        for s, h in enumerate(state["hands"]):
            if len(h) != size - len(tricks) - sum(1 for p in current if p[0] == s):
                need(False, f"Seat {s} holds the wrong number of cards.")
        # Backwards from now: a seat's holding before trick k is its hand plus what it played from trick k on.
        # Only following suit is a duty, so a card is legal when it follows or its player held no card led.
        held = [{x: 0 for x in SUITS} for _ in range(n)]
        for s, h in enumerate(state["hands"]):
            for card in h:
                held[s][card[1]] += 1
        for k in range(len(all_tricks) - 1, -1, -1):
            plays = all_tricks[k]
            for seat, card in plays:
                held[seat][card[1]] += 1
            leader = tricks[k - 1]["winner"] if k else left(state["dealer"], n)
            if plays and plays[0][0] != leader:
                need(False, f"Trick {k + 1} was not led by its leader.")
            for i, (seat, card) in enumerate(plays):
                led = plays[0][1][1]
                if seat != (leader + i) % n or (card[1] != led and held[seat][led]):
                    need(False, f"Trick {k + 1} was not played clockwise, following suit.")
            if k < len(tricks) and tricks[k]["winner"] != table.winner(plays):
                need(False, f"Trick {k + 1} has the wrong winner.")
        counts = need_dict(state["counts"], "counts")
        expected = {key: [0] * n for key in COUNTS}
        for t in tricks:
            w = t["winner"]
            expected["tricks"][w] += 1
            expected["clubs"][w] += sum(1 for p in t["plays"] if p[1][1] == "C")
            expected["queens"][w] += sum(1 for p in t["plays"] if p[1] in QUEENS)
        need(same(counts, expected), "'counts' does not match the tricks won.")
        need(not (opts["stop_when_decided"] and decided(kind, expected, tricks, clubs_in_play(n, opts))),
             "The hand's last scoring card has fallen: the hand should have ended.")

    def validate_layout(self, state: State, n: int, opts: Options) -> None:
        over = state["phase"] == OVER
        layout = need_dict(state["layout"], "layout")
        need(set(layout) == set(SUITS), "'layout' must have one row per suit.")
        for s, row in layout.items():
            need(row is None or (isinstance(row, list) and len(row) == 2 and is_int(row[0], 1, 7)
                                 and is_int(row[1], 7, 13)), f"The {suit_name(s)} row must be null or [low, high] "
                 "around the 7.")
        out = left_out(n, opts)
        pool = need_cards(state["pool"], "pool")
        on_layout = set(row_cards(layout))
        need(pool == [c for c in out if c not in on_layout], "'pool' must hold the left-out cards not yet brought in.")
        passes = need_list(state["passes"], "passes", n)
        need(all(is_int(p, 0) for p in passes), "'passes' must be whole numbers of at least 0.")
        hands = state["hands"]
        need(all(len(h) <= 52 // n for h in hands), "A hand holds more cards than were dealt.")
        order = need_list(state["order"], "order", n if over else None)
        need(all(is_int(s, 0, n - 1) for s in order) and len(set(order)) == len(order),
             "'order' must list distinct seats.")
        gone = order[:-1] if over else order
        need(all((not hands[s]) == (s in gone) for s in range(n)), "Exactly the seats that went out hold no cards.")
        if over:
            need(state["turn"] is None, "Nobody is on turn once the match is over.")
            need(same(state["points"][6], [10 * p for p in passes]), "Qabbalah's points must be 10 per pass.")
        else:
            need(len(order) < n - 1, "Qabbalah should have ended: only one player holds cards.")
            turn = state["turn"]
            need(is_int(turn, 0, n - 1) and bool(hands[turn]), "'turn' must be a seat that still holds cards.")


GAME = Davoserjazz()
