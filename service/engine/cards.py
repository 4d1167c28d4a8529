"""Cards and packs.

A card is its two-character code, rank then suit (``"QS"``); a joker is ``"JK"``. Codes are
plain strings because they are what clients send and read, and comparing strings is cheap.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType

Card = str

SUITS: str = "CDHS"
RANKS: str = "23456789TJQKA"
JOKER: Card = "JK"
SUIT_NAMES: Mapping[str, str] = MappingProxyType({"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"})
RANK_NAMES: Mapping[str, str] = MappingProxyType({
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
    "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
})


def make_pack(ranks: str = RANKS, suits: str = SUITS) -> tuple[Card, ...]:
    """Every rank of every suit, suit by suit.

    >>> make_pack("AK", "CD")
    ('AC', 'KC', 'AD', 'KD')
    """
    return tuple(r + s for s in suits for r in ranks)


STANDARD_PACK: tuple[Card, ...] = make_pack()
PIQUET_PACK: tuple[Card, ...] = make_pack("789TJQKA")
SPANISH_PACK: tuple[Card, ...] = make_pack("A234567JQK")
ALL_CODES: frozenset[Card] = frozenset(STANDARD_PACK) | {JOKER}


@lru_cache(maxsize=64)
def codes_of(pack: tuple[Card, ...]) -> frozenset[Card]:
    """The distinct codes of a pack (a match's pack is asked for on every move)."""
    return frozenset(pack)


def suit(card: Card) -> str:
    return card[1]


def rank(card: Card) -> str:
    return card[0]


def is_card_code(value: object) -> bool:
    return isinstance(value, str) and value in ALL_CODES


def count_codes(value: object) -> Counter[Card]:
    """How many times each card code appears anywhere in a JSON value (object values and list items)."""
    found: Counter[Card] = Counter()
    todo = [value]
    while todo:
        item = todo.pop()
        if type(item) is str:
            if item in ALL_CODES:
                found[item] += 1
        elif type(item) is list:
            todo.extend(item)
        elif type(item) is dict:
            todo.extend(item.values())
    return found


def card_name(card: Card) -> str:
    """A card as a player says it: ``card_name("QS") == "queen of spades"``."""
    if card == JOKER:
        return "the joker"
    return f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"


def suit_name(s: str) -> str:
    return SUIT_NAMES[s]


def ranking(order: str) -> dict[str, int]:
    """Strength of each rank for an order given low to high: ``ranking("23A")["A"] == 2``."""
    return {r: i for i, r in enumerate(order)}


def same_cards(a: Iterable[Card], b: Iterable[Card]) -> bool:
    """True when both hold exactly the same cards with the same multiplicities."""
    return Counter(a) == Counter(b)


def sort_hand(cards: Sequence[Card], suit_order: str = SUITS, rank_order: str = RANKS) -> list[Card]:
    s_idx = ranking(suit_order)
    r_idx = ranking(rank_order)
    return sorted(cards, key=lambda c: (s_idx.get(c[1], 9), r_idx.get(c[0], 99)))
