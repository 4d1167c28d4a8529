"""Alkort: the Icelandic partnership game of five tricks out of nine. Rules: docs/games/alkort.md.

Four players, seats 0+2 (side A, 0) against 1+3 (side B, 1). 44 cards (no Tens, no Fives), nine each in
threes from forehand; the last eight are the stock, dead unless the ``stock_exchange`` option lets a hand
that cannot beat a led low Eight (not friðufær) keep one card and take the eight. Suits do not matter: no
trumps, no duty to follow. Twenty-one cards of value rank KD 2H 4C 8S 9H 9D, Aces, Jacks, Sixes, low Eights
(equal cards: the first played wins); a led Seven wins outright; otherwise rubbish wins only when led and
unbeaten, or as the first Two on a led plain King, the first Two or Three on a led Queen. Partners see
each other's highest card of value (``show_highest``; in the view, not as a move).

A deal stops once decided: a side that wins tricks 1-5 (a múkur) plays on while it keeps winning and scores
its run (5 to 9 points); otherwise the first side to five tricks scores 1. First side to ``target_points``.

Carried from deal to deal: deal_no, scores (per seat, partners equal), history (one record per finished deal:
dealer, stock taker, trick winners, outcome and points; it is ``result.deals`` and decides the next dealer).
Each deal has: dealer, hands, rest (the stock, hidden), eligible (the seats asked in the stock phase, from
forehand), asked (how many have passed), exchange (the exchanger's seat, kept card and public discards),
shown (each seat's highest card of value, or "none"; only the partner sees it), tricks, trick.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..base import Deal, Event, Game, OVER, State, need_hand_sizes, need_pack_deal
from ..cards import Card, card_name, make_pack
from ..checks import is_int, need, need_list
from ..end_of_deal import end_deal
from ..flow import Choices, Phase, Refusal, Step, each, one_seat, verbs
from ..moves import Action, Move, Param
from ..options import Option, Options
from ..seats import order_from
from ..tricks import Ladder, Play, TrickPlay, TrickRules, TrickTable

PACK = make_pack("2346789JQKA")
HAND, TRICKS, TO_WIN = 9, 9, 5
SUIT_ORDER = "CDHS"
NONE = "none"  # the shown card of a hand without a card of value

# The 21 cards of value (1.1), highest 10; rubbish and the Sevens have no power.
POWER: Mapping[Card, int] = MappingProxyType({
    "KD": 10, "2H": 9, "4C": 8, "8S": 7, "9H": 6, "9D": 5,
    **{r + s: p for r, p in (("A", 4), ("J", 3), ("6", 2)) for s in SUIT_ORDER}, **{"8" + s: 1 for s in "CDH"}})
# A led plain King falls to the first Two, a led Queen to the first Two or Three, in an all-rubbish trick (R12).
CAPTURERS = MappingProxyType({"K": "2", "Q": "23"})
LOW_EIGHT = 1
OUTCOMES = ("mukur", "strokes", "plain")
NOT_ELIGIBLE = Refusal("not_eligible", "Your hand can beat a low Eight: you may not take the stock.")


def side_of(seat: int) -> int:
    return seat % 2


def fridufaer(hand: Sequence[Card]) -> bool:
    """Can the hand beat a led low Eight (3.2)? Only a card of value above the low Eights can."""
    return any(POWER.get(c, 0) > LOW_EIGHT for c in hand)


def stock_refusal(hand: Sequence[Card]) -> Refusal | None:
    """Only a hand that is not friðufær may take the stock (R16): the stock phase asks no other."""
    return NOT_ELIGIBLE if fridufaer(hand) else None


def highest(hand: Sequence[Card]) -> Card:
    """The card a partner is shown (3.3): the most powerful card of value, the first in suit order C D H S
    among equals; "none" without a card of value (a Seven is never shown, R7)."""
    valued = [c for c in hand if c in POWER]
    if not valued:
        return NONE
    return max(valued, key=lambda c: (POWER[c], -SUIT_ORDER.index(c[1])))


class AlkortTable(TrickTable):
    """The shared trick table with Alkort's ranking (5.2). Suits never matter (no duty to follow, no trump);
    a card's power depends on whether it was led: a led Seven cannot be beaten, and a rubbish card holds a
    trick only as its lead or as the first capturer of a led King or Queen. Ties go to the first played."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(TrickRules(follow=False))

    def ladder(self, hand: Sequence[Card], plays: Sequence[Play], trump: str | None) -> Ladder:
        """No duty to follow suit or to beat the trick (R8): any card may be played."""
        return []

    def beats(self, card: Card, best: Card, trump: str | None) -> bool:
        """Does ``card`` beat ``best`` when ``best`` is not the led card (then only a higher card of value)?"""
        return POWER.get(card, 0) > POWER.get(best, 0)

    def takes_lead(self, card: Card, led: Card) -> bool:
        """Does ``card``, played to a trick whose led card still wins, take it from the led card?"""
        if led[0] == "7":
            return False
        if card in POWER:
            return POWER[card] > POWER.get(led, 0)
        return led not in POWER and card[0] in CAPTURERS.get(led[0], "")

    def winning_index(self, cards: Sequence[Card], trump: str | None) -> int:
        best = 0
        for i in range(1, len(cards)):
            if self.takes_lead(cards[i], cards[0]) if best == 0 else self.beats(cards[i], cards[best], trump):
                best = i
        return best


TABLE = AlkortTable()


def deal_outcome(winners: Sequence[int]) -> tuple[int, str, int] | None:
    """(side, outcome, points) once the trick winners so far decide the deal (section 6), else None: a run
    of five or more from trick 1 scores its length when broken or complete; otherwise the first side to five
    tricks scores one."""
    sides = [side_of(w) for w in winners]
    run = next((i for i, s in enumerate(sides) if s != sides[0]), len(sides))
    if run >= TO_WIN:
        if run < len(sides) or run == TRICKS:
            return sides[0], "mukur" if run == TO_WIN else "strokes", run
        return None
    for side in (0, 1):
        if sides.count(side) == TO_WIN:
            return side, "plain", 1
    return None


def following_dealer(dealer: int, scored: int, rule: str) -> int:
    """The next dealer (R5): the left-hand neighbour, or of dealer+1 and dealer+2 the one whose side did not
    score in the deal just ended."""
    if rule == "left":
        return (dealer + 1) % 4
    return next(s for s in ((dealer + 1) % 4, (dealer + 2) % 4) if side_of(s) != scored)


def deal_record(dealer: int, stock: int | None, winners: list[int]) -> dict[str, Any]:
    """One entry of ``history`` (and ``result.deals``) for a decided deal."""
    decided = deal_outcome(winners)
    assert decided is not None
    side, outcome, points = decided
    record: dict[str, Any] = {"dealer": dealer, "stock": stock, "winners": winners, "outcome": outcome,
                              "side": side, "points": points}
    if outcome == "strokes":
        record["count"] = points
    return record


class Alkort(Game):
    id = "alkort"
    name = "Alkort"
    summary = ("Icelandic partnership game: 44 cards ranked by card, not suit; win five of nine tricks, "
               "ideally the first five (a múkur) and more.")
    min_players = 4
    max_players = 4
    default_players = 4
    options = (
        Option("target_points", "integer", 12, "Points that win the match (checked at the end of each deal).",
               1, 500),
        Option("next_dealer", "choice", "left", "Who deals next: the left-hand neighbour, or (\"losing_side\") "
               "of the next two seats the one on the side that did not score.", choices=("left", "losing_side")),
        Option("stock_exchange", "boolean", False, "Let a hand that cannot beat a low Eight (not friðufær) "
               "show itself, keep one card and take the eight undealt cards."),
        Option("show_highest", "boolean", True, "Each seat sees its partner's highest card of value."),
        Option("settlement", "choice", "game", "Payoffs: +-1 per seat (\"game\") or +- the difference of the "
               "totals (\"difference\").", choices=("game", "difference")),
    )
    actions = {
        "take_stock": Action("Show your hand, keep one card of it and take the eight undealt cards (only a "
                             "hand that is not friðufær).",
                             {"keep": Param("card", "a card of your hand to keep")},
                             {"seat": 2, "action": "take_stock", "keep": "8C"}),
        "pass_stock": Action("Leave the stock.", example={"seat": 2, "action": "pass_stock"}),
        "play": Action("Play a card to the trick.", {"card": Param("card", "a card you hold")},
                       {"seat": 1, "action": "play", "card": "AS"}),
    }
    secret_keys = Game.secret_keys | {"shown"}
    sample_options = ({"stock_exchange": True, "target_points": 6, "first_dealer": 2},
                      {"next_dealer": "losing_side", "show_highest": False, "settlement": "difference",
                       "target_points": 20},
                      {"stock_exchange": True, "next_dealer": "losing_side", "target_points": 1})
    carried = ("deal_no", "scores", "history")

    def build_phases(self) -> dict[str, Any]:
        self.tricks = TrickPlay(table=lambda state: TABLE, first_leader=self.forehand,
                                deal_over=lambda state: deal_outcome(self.winners(state)) is not None,
                                end_deal=self.settle, lead_duties=self.seven_rule, explain_lead=self.explain_lead)
        asked = one_seat(self.stock_seat)
        keep = Choices(each("take_stock", "keep", lambda state, seat: state["hands"][seat]), self.take_refusal)
        return {
            "stock": Phase("stock", {
                "pass_stock": Step(asked, Choices(verbs("pass_stock")), self.pass_stock, "take the stock or pass"),
                "take_stock": Step(asked, keep, self.take_stock, "take the stock or pass")}, self.stock_seat),
            "play": Phase("play", {"play": self.tricks.step()}, self.tricks.on_turn),
        }

    def pack(self, n: int, options: Options) -> tuple[Card, ...]:
        return PACK

    # ----- the deal ---------------------------------------------------------------------
    def initial(self, state: State) -> None:
        state.update(deal_no=0, scores=[0] * 4, history=[])

    def deal(self, state: State, events: list[Event]) -> None:
        """The next dealer, nine cards each, then the stock phase for the hands that may take it, or play."""
        history, opts = state["history"], state["options"]
        state["deal_no"] += 1
        dealer = (following_dealer(history[-1]["dealer"], history[-1]["side"], opts["next_dealer"])
                  if history else opts["first_dealer"])
        state["dealer"] = dealer
        cards = self.next_deal(state)
        hands = cards["hands"]
        eligible = ([s for s in order_from((dealer + 1) % 4, 4) if stock_refusal(hands[s]) is None]
                    if opts["stock_exchange"] else [])
        state.update(hands=hands, rest=cards["rest"], eligible=eligible, asked=0, exchange=None,
                     shown=None, tricks=[], trick={"plays": []})
        events.append({"type": "deal_started", "deal": state["deal_no"], "dealer": dealer})
        if eligible:
            state["phase"] = "stock"
        else:
            self.begin_play(state)

    def distribute(self, cards: list[Card], state: State) -> Deal:
        """Packets of three, clockwise from forehand, three rounds (card k to forehand + k div 3); the last
        eight are the stock, the first of them on top."""
        hands: list[list[Card]] = [[] for _ in range(4)]
        forehand = self.forehand(state)
        for k in range(4 * HAND):
            hands[(forehand + k // 3) % 4].append(cards[k])
        return {"hands": hands, "rest": cards[4 * HAND:]}

    def validate_deal(self, deal: Deal, n: int, options: Options) -> None:
        need_hand_sizes(deal, HAND)
        need_pack_deal(deal, PACK)

    def begin_play(self, state: State) -> None:
        """Partners are shown each other's highest card (fixed now, after any exchange: R17); forehand leads."""
        if state["options"]["show_highest"]:
            state["shown"] = [highest(h) for h in state["hands"]]
        state["phase"] = "play"

    # ----- the stock (friðufær) -----------------------------------------------------------
    def stock_seat(self, state: State) -> int:
        return int(state["eligible"][state["asked"]])

    def take_refusal(self, state: State, move: Move) -> Refusal | None:
        keep, hand = move["keep"], state["hands"][move["seat"]]
        if keep not in hand:
            return Refusal("card_not_in_hand", f"You do not hold the {card_name(keep)}: keep a card of your hand.")
        return stock_refusal(hand)

    def take_stock(self, state: State, move: Move, events: list[Event]) -> None:
        """The whole hand is shown; the kept card and the eight stock cards are the new hand, the other eight
        are dead (4.1). One exchange per deal: play begins."""
        seat, keep = move["seat"], move["keep"]
        hand = state["hands"][seat]
        state["exchange"] = {"seat": seat, "keep": keep, "discards": [c for c in hand if c != keep]}
        state["hands"][seat] = [keep, *state["rest"]]
        state["rest"] = []
        events.append({"type": "take_stock", "seat": seat, "keep": keep, "hand": list(hand)})
        self.begin_play(state)

    def pass_stock(self, state: State, move: Move, events: list[Event]) -> None:
        events.append({"type": "pass_stock", "seat": move["seat"]})
        state["asked"] += 1
        if state["asked"] == len(state["eligible"]):
            self.begin_play(state)

    # ----- play -------------------------------------------------------------------------
    def forehand(self, state: State) -> int:
        return (int(state["dealer"]) + 1) % 4

    def winners(self, state: State) -> list[int]:
        return [t["winner"] for t in state["tricks"]]

    def seven_rule(self, state: State, hand: list[Card]) -> Ladder:
        """No Seven may be led by a seat that has not itself won a trick this deal (R9)."""
        leader = self.tricks.on_turn(state)
        if leader in self.winners(state):
            return []
        others = [c for c in hand if c[0] != "7"]
        return [(others, "seven_lead_not_allowed")] if len(others) < len(hand) else []

    def explain_lead(self, state: State, reason: str, allowed: list[Card]) -> str:
        return "You may not lead a Seven before you have won a trick yourself in this deal."

    def settle(self, state: State, events: list[Event]) -> None:
        """Section 6: one side scores its run or its plain win; the match ends at the target."""
        exchange = state["exchange"]
        record = deal_record(state["dealer"], exchange["seat"] if exchange else None, self.winners(state))
        side, points = record["side"], record["points"]
        changes = [points if side_of(s) == side else 0 for s in range(4)]
        state["scores"] = [x + c for x, c in zip(state["scores"], changes)]
        state["history"].append(record)
        events.append({"type": "deal_settled", "deal": state["deal_no"], "dealer": state["dealer"],
                       "changes": changes, "unit": "points", "side": side, "outcome": record["outcome"],
                       "points": points})
        over = state["scores"][side] >= state["options"]["target_points"]
        end_deal(self, state, events, over, final=lambda s: {"winner": side})

    # ----- views and the end ---------------------------------------------------------------
    def partner_card(self, state: State, seat: int | None) -> Card | None:
        shown = state.get("shown")
        return None if shown is None or seat is None else str(shown[(seat + 2) % 4])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """A seat also sees its partner's shown card (``partner_card``); opponents and spectators never do."""
        out = super().view(state, seat)
        out["partner_card"] = self.partner_card(state, seat)
        return out

    def exposed_cards(self, state: State) -> set[Card]:
        """The exchanger's kept card: his whole hand was shown to the table."""
        exchange = state.get("exchange")
        return {exchange["keep"]} if exchange else set()

    def seen_cards(self, state: State, seat: int | None) -> set[Card]:
        partner = self.partner_card(state, seat)
        return self.exposed_cards(state) | ({partner} if partner is not None and partner != NONE else set())

    def partnerships(self, state: State) -> list[list[int]] | None:
        """A forfeit loses for the seat's side (docs/games/alkort.md, "A forfeit")."""
        return [[0, 2], [1, 3]]

    def result(self, state: State) -> dict[str, Any] | None:
        if state["phase"] != OVER:
            return None
        scores = list(state["scores"])
        win = state["history"][-1]["side"]
        margin = 1 if state["options"]["settlement"] == "game" else scores[win] - scores[1 - win]
        return {"scores": scores, "winner": win, "payoffs": [margin if side_of(s) == win else -margin for s in range(4)],
                "ranking": [win, win + 2, 1 - win, 3 - win], "deals": [dict(r) for r in state["history"]]}

    def card_groups(self, state: State) -> list[Any]:
        played = [p[1] for t in state["tricks"] for p in t["plays"]] + [p[1] for p in state["trick"]["plays"]]
        dead = state["exchange"]["discards"] if state["exchange"] else []
        return [*state["hands"], state["rest"], dead, played]

    def check_carried(self, state: State) -> None:
        """Before a deal: one dealing per finished deal; each record of ``history`` a decided deal dealt by the
        right seat; the scores their sum, partners level, both below the target (else the match is over)."""
        opts = state["options"]
        history = need_list(state["history"], "history")
        need(is_int(state["deal_no"], 0) and state["deal_no"] == len(history) == state["dealings"],
             "'deal_no' must count the deals finished.")
        totals = [0, 0]
        dealer = opts["first_dealer"]
        for record in history:
            need(isinstance(record, dict), "A deal record must be an object.")
            winners = need_list(record.get("winners"), "winners")
            stock = record.get("stock")
            need(0 < len(winners) <= TRICKS and all(is_int(w, 0, 3) for w in winners)
                 and deal_outcome(winners[:-1]) is None and deal_outcome(winners) is not None,
                 "A deal record's trick winners must decide the deal at its last trick.")
            need(stock is None or (opts["stock_exchange"] and is_int(stock, 0, 3)), "A deal record's 'stock' is invalid.")
            expected = deal_record(dealer, stock, winners)
            need(record == expected and all(type(record[k]) is type(v) for k, v in expected.items()),
                 "A deal record does not follow from its tricks.")
            totals[record["side"]] += record["points"]
            need(max(totals) < opts["target_points"], "A deal record ends the match before the last deal.")
            dealer = following_dealer(dealer, record["side"], opts["next_dealer"])
        scores = need_list(state["scores"], "scores", 4)
        need(all(is_int(x) for x in scores) and scores == totals + totals, "'scores' must be the sum of the deals' points.")


GAME = Alkort()
