"""Stýrivolt's card classes, who wins a trick, and the chalk-board (docs/games/styrivolt.md; spec 1.1, 5.2, 6).

The trick rule is the shared core's :class:`TrickTable` configured for one deal's chosen suits: its
``winning_index`` applies the five rules of 5.2 (a led lamb, stickers, a plain lead against the beaters within
reach, a beater lead, a leader lead) instead of the suit-and-trump ranking, and the follow duty (option
``follow_suit``) is the core's ladder over printed suits. The chalk-board is a small state machine over
``{"bars": [a, b], "crosses": {"side", "singles", "doubles"}}``, the seed's strokes, crosses and monk's crosses.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from types import MappingProxyType
from typing import Any

from ..cards import Card, make_pack
from ..tricks import TrickRules, TrickTable

PACK: tuple[Card, ...] = make_pack("23456789JQKA")  # the 52 without the Tens
PERMANENT = ("2H", "4C", "8S", "9H", "9D")  # the permanent stickers, highest first
PARTNER_SUIT = MappingProxyType({"H": "D", "D": "H", "C": "S", "S": "C"})  # same colour
SIDES = ("A", "B")  # side A = seats 0 and 2, side B = seats 1 and 3

STICKER, BEATER, LAMB, LEADER, PLAIN = "sticker", "beater", "lamb", "leader", "plain"
CHOSEN_STICKER_POWER = MappingProxyType({"A": 2, "J": 1})  # below every permanent sticker
BEATER_POWER = MappingProxyType({"6": 4, "2": 3, "3": 2, "4": 1})
LEADER_POWER = MappingProxyType({"K": 5, "Q": 4, "9": 3, "8": 2, "5": 1})
PLAIN_ORDER = "23456789JQKA"
# graded reach (R3): the highest plain rank each beater beats
REACH = MappingProxyType({"6": PLAIN_ORDER.index("K"), "2": PLAIN_ORDER.index("Q"), "3": PLAIN_ORDER.index("J"),
                          "4": PLAIN_ORDER.index("9")})


def side_of(seat: int) -> int:
    return seat % 2


def card_class(card: Card, chosen: Sequence[str]) -> str:
    """The card's class this deal (1.1): a permanent sticker stays one whatever the chosen suits."""
    if card in PERMANENT:
        return STICKER
    if card[1] not in chosen:
        return PLAIN
    r = card[0]
    if r in CHOSEN_STICKER_POWER:
        return STICKER
    if r in BEATER_POWER:
        return BEATER
    return LAMB if r == "7" else LEADER


def is_bare(hand: Sequence[Card], chosen: Sequence[str]) -> bool:
    """No sticker, no beater and no lamb: the hand may take the stock (R8)."""
    return all(card_class(c, chosen) in (LEADER, PLAIN) for c in hand)


def power(card: Card, cls: str) -> int:
    """Strength within the card's class (equal for the two chosen Aces, the two chosen Jacks, and beaters of
    one rank)."""
    if cls == STICKER:
        return 10 - PERMANENT.index(card) if card in PERMANENT else CHOSEN_STICKER_POWER[card[0]]
    if cls == BEATER:
        return BEATER_POWER[card[0]]
    if cls == LEADER:
        return LEADER_POWER[card[0]]
    return PLAIN_ORDER.index(card[0]) if cls == PLAIN else 0


class StyrivoltTable(TrickTable):
    """The trick rules of one deal: its chosen suits (the first one primary) and the trick options."""

    __slots__ = ("chosen", "primary_wins_ties", "full_reach", "kind")

    def __init__(self, chosen: tuple[str, str], primary_wins_ties: bool, full_reach: bool, follow: bool) -> None:
        super().__init__(TrickRules(order=PLAIN_ORDER, follow=follow))
        self.chosen = chosen
        self.primary_wins_ties = primary_wins_ties
        self.full_reach = full_reach
        self.kind = {c: (card_class(c, chosen), power(c, card_class(c, chosen))) for c in PACK}

    def ladder(self, hand: Sequence[Card], plays: Sequence[Any], trump: str | None) -> list[tuple[list[Card], str]]:
        """Free play (R5) narrows nothing; ``follow_suit`` is the core's duty over printed suits."""
        return super().ladder(hand, plays, trump) if self.rules.follow else []

    def winning_index(self, cards: Sequence[Card], trump: str | None) -> int:
        """5.2: the first rule that fits the led card and the cards played."""
        kind = self.kind
        led_class = kind[cards[0]][0]
        if led_class == LAMB:
            return 0
        stickers = [i for i, c in enumerate(cards) if kind[c][0] == STICKER]
        if stickers:
            return self.best(cards, stickers)
        beaters = [i for i, c in enumerate(cards) if kind[c][0] == BEATER]
        if led_class == PLAIN:
            return self.plain_lead(cards, beaters)
        if beaters:  # a beater led, or a leader led and beaten
            return self.best(cards, beaters)
        led = cards[0][1]
        same = [i for i, c in enumerate(cards) if c[1] == led and kind[c][0] == LEADER]
        return self.best(cards, same)

    def plain_lead(self, cards: Sequence[Card], beaters: list[int]) -> int:
        """W, the best card of the led plain suit in the whole trick, unless a beater within reach of W was
        played (the highest such beater then wins)."""
        led = cards[0][1]
        w = max((i for i, c in enumerate(cards) if c[1] == led and self.kind[c][0] == PLAIN),
                key=lambda i: self.kind[cards[i]][1])
        top = self.kind[cards[w]][1]
        effective = [i for i in beaters if self.full_reach or REACH[cards[i][0]] >= top]
        return self.best(cards, effective) if effective else w

    def best(self, cards: Sequence[Card], indices: list[int]) -> int:
        """The strongest of ``indices``; of equal ones the earliest, or (option) the primary suit's (R2)."""
        win = indices[0]
        for i in indices[1:]:
            here, there = self.kind[cards[i]][1], self.kind[cards[win]][1]
            if here > there or (here == there and self.primary_wins_ties and cards[i][1] == self.chosen[0]):
                win = i
        return win


@cache
def trick_table(chosen: tuple[str, str], primary_wins_ties: bool, full_reach: bool, follow: bool) -> StyrivoltTable:
    return StyrivoltTable(chosen, primary_wins_ties, full_reach, follow)


# ----- the chalk-board (6.2) ----------------------------------------------------------------------------
Board = dict[str, Any]


def fresh_board() -> Board:
    return {"bars": [0, 0], "crosses": {"side": None, "singles": 0, "doubles": 0}}


def board_value(board: Board) -> int:
    """V: singles + 2 x doubles of the side holding crosses."""
    crosses = board["crosses"]
    return int(crosses["singles"]) + 2 * int(crosses["doubles"])


def net_value(board: Board, side: int) -> int:
    """The side's net crosses: V if it holds them, -V if the opponents do."""
    holder = board["crosses"]["side"]
    if holder is None:
        return 0
    return board_value(board) if holder == SIDES[side] else -board_value(board)


def award_strokes(board: Board, side: int, count: int) -> None:
    """Erase ``count`` bars for ``side``; a completed chalk-up gives a cross (a monk's cross when the
    opponents have erased none, R15) and is wiped, the remaining strokes going onto the new one."""
    bars = board["bars"]
    for _ in range(count):
        bars[side] += 1
        if bars[side] == 3:
            award_cross(board, side, "double" if bars[1 - side] == 0 else "single")
            bars[0] = bars[1] = 0


def award_cross(board: Board, side: int, kind: str) -> None:
    """Draw the cross for ``side``, or erase from the opponents' crosses when only they have any (a single
    erases a single before it gelds a monk; a double erases a double, else two singles, else the lone single
    and draws one single for ``side``, R13)."""
    crosses = board["crosses"]
    mine = SIDES[side]
    if crosses["side"] in (None, mine):
        crosses["side"] = mine
        crosses["singles" if kind == "single" else "doubles"] += 1
        return
    if kind == "single":
        if crosses["singles"]:
            crosses["singles"] -= 1
        else:
            crosses["doubles"] -= 1  # gelding the monk
            crosses["singles"] += 1
    elif crosses["doubles"]:
        crosses["doubles"] -= 1
    elif crosses["singles"] >= 2:
        crosses["singles"] -= 2
    else:
        crosses["singles"] = 0
        crosses.update(side=mine, singles=1)
        return
    if crosses["singles"] == crosses["doubles"] == 0:
        crosses["side"] = None


def apply_award(board: Board, side: int, award: dict[str, Any]) -> None:
    """One deal's award (``{"kind": "strokes" | "single" | "double", "count": n}``) onto the board."""
    if award["kind"] == "strokes":
        award_strokes(board, side, award["count"])
    else:
        for _ in range(award["count"]):
            award_cross(board, side, award["kind"])
