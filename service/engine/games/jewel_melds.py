"""Jewel's cards, combinations, hand evaluation and settlement, as pure functions (docs/games/jewel.md; spec).

The Jewel game module builds on this module; nothing here knows about states, moves or turns.

* Cards (spec 1): three 54-card packs, so every code ``2C … AS`` occurs three times and ``JK`` six times.
  ``DealRules`` holds what the open card fixes for one deal (jewels, marriage suit, super sequence) plus the
  ``all_wild_groups`` option.
* Combinations (5.1-5.4): ``triple_info`` judges three cards the literal way of 5.2; ``is_compulsory_sequence``
  and ``compulsory_sequences`` the four-card group of 5.3.
* Points and money (6.2, 6.3): ``jewel_points``, ``card_count``, the packer's jewel choices (4.3, R18) and
  ``settle`` (the pairwise chart and the nets).

The hands (5.5, 6.1) and their searches are in ``jewel_hands``; ``jewel_hands`` uses the readings of triples
and runs made here.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType

from ..cards import Card, JOKER, RANKS, STANDARD_PACK

PACKS = 3
JEWEL_PACK: tuple[Card, ...] = tuple(code for _ in range(PACKS) for code in (*STANDARD_PACK, JOKER, JOKER))
HAND_SIZE = 16
DRAWN_HAND_SIZE = 17
TRIPLES = 4                     # a complete arrangement is 4 + 3 + 3 + 3 + 3 (5.4)

SUPER_SEQUENCE_BONUS = 4
SUPER_SET_BONUS = 2
MARRIAGE_BONUS = 3
FULL_HAND_PENALTY = 12
INITIAL_PACK_PENALTY = 4
MID_PACK_PENALTY = 8
MAX_KEPT_JEWELS = 2
JEWEL_POINTS_BY_COPIES = (0, 2, 5, 10)

SPOT_RANKS = RANKS[:9]          # 2 … T
HONOUR_RANKS = RANKS[9:]        # J Q K A
_OTHER_COLOUR = MappingProxyType({"C": ("D", "H"), "S": ("D", "H"), "D": ("C", "S"), "H": ("C", "S")})
_MARRIAGE = MappingProxyType({"C": "S", "S": "C", "D": "H", "H": "D"})
# Starting rank indexes of the single-group runs (5.1): 2-3-4 … 8-9-T, J-Q-K, Q-K-A; 2-3-4-5 … 7-8-9-T, J-Q-K-A.
_RUN3_STARTS = (0, 1, 2, 3, 4, 5, 6, 9, 10)
_RUN4_STARTS = (0, 1, 2, 3, 4, 5, 9)

# Kinds of group in an arrangement.
COMPULSORY = "compulsory"
SET = "set"
SEQUENCE = "sequence"
SUPER_SET = "super_set"
SUPER_SEQUENCE = "super_sequence"
ALL_WILD = "all_wild"

_JOKER_INDEX = 52
_CARD_INDEX: Mapping[Card, int] = MappingProxyType({code: i for i, code in enumerate(STANDARD_PACK)}
                                                   | {JOKER: _JOKER_INDEX})


# --- cards -------------------------------------------------------------------------------------------------

def canonical_index(card: Card) -> int:
    """Position of a code in the canonical order of spec 1 (suit C < D < H < S, then rank 2 … A; jokers last)."""
    try:
        return _CARD_INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {card!r}") from None


def sort_canonical(cards: Iterable[Card]) -> list[Card]:
    """The cards in canonical order (spec 1): ``3C 9C 3D 9D AH 2S 3S JK``."""
    return sorted(cards, key=canonical_index)


def is_honour(card: Card) -> bool:
    """J, Q, K and A are honours (spec 1); jokers are neither honours nor spot cards."""
    return card != JOKER and card[0] in HONOUR_RANKS


def is_spot(card: Card) -> bool:
    """2 … T are spot cards (spec 1)."""
    return card != JOKER and card[0] in SPOT_RANKS


def jewels_of(open_card: Card) -> tuple[Card, Card]:
    """The two jewel codes: the open card's rank in the two suits of the other colour (spec 1)."""
    _check_open_card(open_card)
    first, second = _OTHER_COLOUR[open_card[1]]
    return open_card[0] + first, open_card[0] + second


def marriage_suit(open_card: Card) -> str:
    """The suit whose Q and K make a marriage: the other suit of the open card's colour (spec 1)."""
    _check_open_card(open_card)
    return _MARRIAGE[open_card[1]]


def super_sequence_of(open_card: Card) -> tuple[Card, Card, Card]:
    """The open card's suit at pred(O), rank(O), succ(O) in the cyclic order 2 … A 2 (spec 1, 5.2)."""
    _check_open_card(open_card)
    r, s = RANKS.index(open_card[0]), open_card[1]
    return (RANKS[(r - 1) % 13] + s, open_card, RANKS[(r + 1) % 13] + s)


def _check_open_card(open_card: Card) -> None:
    if canonical_index(open_card) == _JOKER_INDEX:
        raise ValueError("a joker is never the open card (spec 1, R29)")


@dataclass(frozen=True)
class DealRules:
    """What one deal's open card fixes (spec 1), with the ``all_wild_groups`` option (spec 7, R3)."""

    open_card: Card
    all_wild_groups: bool = True

    jewels: tuple[Card, Card] = field(init=False, compare=False, repr=False)  # asked of every card: made once

    def __post_init__(self) -> None:
        _check_open_card(self.open_card)
        object.__setattr__(self, "jewels", jewels_of(self.open_card))

    @property
    def marriage_suit(self) -> str:
        return marriage_suit(self.open_card)

    @property
    def super_sequence(self) -> tuple[Card, Card, Card]:
        return super_sequence_of(self.open_card)

    def is_jewel(self, card: Card) -> bool:
        return card in self.jewels

    def is_wild_card(self, card: Card) -> bool:
        """A joker or a jewel: a card that may act as wild, and that nobody may take from the discard pile (4.3)."""
        return card == JOKER or card in self.jewels


# --- triples and the four-card group -------------------------------------------------------------------------

@dataclass(frozen=True)
class TripleInfo:
    """The properties of a valid triple (5.2), each taken over its best wild/natural choice of jewels."""

    kind: str           # of the interpretation with the highest bonus_full: set, sequence, super_set, ...
    auxiliary: bool
    marriage: bool
    bonus_full: int     # with a compulsory sequence shown: 4 super sequence, 2 super set, 3 marriage
    bonus_bare: int     # without one (full hand): 4 super sequence, 2 super set


def triple_info(cards: Sequence[Card], rules: DealRules) -> TripleInfo | None:
    """Judge three cards as 5.2 does, trying every wild/natural choice of their jewels; None when invalid.

    Jokers are always wild (R2); a jewel is natural or wild as each choice says. Cross-group runs are valid only
    as the pure super sequence (R5), sets need naturals of pairwise different suits (R4), and an all-wild triple
    follows ``all_wild_groups`` (R3).
    """
    if len(cards) != 3:
        raise ValueError("a triple has three cards")
    for card in cards:
        canonical_index(card)
    jewel_slots = [i for i, c in enumerate(cards) if rules.is_jewel(c)]
    readings = []
    for chosen in range(1 << len(jewel_slots)):
        wild_slots = {slot for bit, slot in enumerate(jewel_slots) if chosen >> bit & 1}
        naturals = [c for i, c in enumerate(cards) if c != JOKER and i not in wild_slots]
        readings.extend(_readings(naturals, rules))
    if not readings:
        return None
    kind, _bonus = max(((k, b) for k, _aux, _m, b, _bb in readings), key=lambda kb: kb[1])
    return TripleInfo(kind=kind,
                      auxiliary=any(aux for _k, aux, _m, _b, _bb in readings),
                      marriage=any(m for _k, _aux, m, _b, _bb in readings),
                      bonus_full=max(b for *_x, b, _bb in readings),
                      bonus_bare=max(bb for *_x, bb in readings))


def _readings(naturals: list[Card], rules: DealRules) -> list[tuple[str, bool, bool, int, int]]:
    """Every valid reading (kind, auxiliary, marriage, bonus_full, bonus_bare) of one choice's natural cards."""
    out = []
    if not naturals:
        return [(ALL_WILD, False, False, 0, 0)] if rules.all_wild_groups else []
    ranks = [c[0] for c in naturals]
    suits = [c[1] for c in naturals]
    pure = len(naturals) == 3
    if len(set(ranks)) == 1 and len(set(suits)) == len(suits):
        out.append((SET, False, False, 0, 0))
    if len(set(suits)) == 1 and len(set(ranks)) == len(ranks) and _inside_one_run(ranks):
        married = {rules.marriage_suit} == set(suits) and {"Q", "K"} <= set(ranks)
        bonus = MARRIAGE_BONUS if married else 0
        if pure and sorted(naturals) == sorted(rules.super_sequence):
            out.append((SUPER_SEQUENCE, True, False, SUPER_SEQUENCE_BONUS, SUPER_SEQUENCE_BONUS))
        else:
            out.append((SEQUENCE, pure, married, bonus, 0))
    elif pure and sorted(naturals) == sorted(rules.super_sequence):
        out.append((SUPER_SEQUENCE, False, False, SUPER_SEQUENCE_BONUS, SUPER_SEQUENCE_BONUS))  # cross-group
    if pure and len(set(naturals)) == 1:
        out.append((SUPER_SET, True, False, SUPER_SET_BONUS, SUPER_SET_BONUS))
    return out


def _inside_one_run(ranks: Iterable[str]) -> bool:
    idx = [RANKS.index(r) for r in ranks]
    return any(all(start <= i <= start + 2 for i in idx) for start in _RUN3_STARTS)


def is_compulsory_sequence(cards: Sequence[Card]) -> bool:
    """Four natural cards of one suit in one four-card single-group run (5.3): no joker, no wrap, no crossing."""
    if len(cards) != 4 or JOKER in cards:
        return False
    idx = sorted(canonical_index(c) for c in cards)
    suit_of, rank_of = idx[0] // 13, idx[0] % 13
    return rank_of in _RUN4_STARTS and idx == [suit_of * 13 + rank_of + i for i in range(4)]


def compulsory_sequences(cards: Iterable[Card]) -> list[tuple[Card, Card, Card, Card]]:
    """The distinct compulsory sequences present in the cards (5.3), in canonical order of their lowest card."""
    held = Counter(canonical_index(c) for c in cards)
    return [(STANDARD_PACK[a], STANDARD_PACK[b], STANDARD_PACK[c], STANDARD_PACK[d])
            for a, b, c, d in _runs_held(held)]


def _runs_held(held: Counter[int]) -> list[tuple[int, int, int, int]]:
    """The distinct compulsory sequences among these card indexes, by suit, then by their lowest card."""
    runs = []
    for s in range(4):
        for start in _RUN4_STARTS:
            low = s * 13 + start
            run = (low, low + 1, low + 2, low + 3)
            if all(held[i] for i in run):
                runs.append(run)
    return runs


def _marriage_in(run: Sequence[int], rules: DealRules) -> bool:
    """A J-Q-K-A compulsory sequence of the marriage suit is also a marriage (5.3, R9)."""
    return STANDARD_PACK[run[0]] == "J" + rules.marriage_suit


# --- points ---------------------------------------------------------------------------------------------------

def card_count(cards: Iterable[Card], rules: DealRules) -> int:
    """The count of unarranged cards (6.1, R13): honours 1, spots ½ rounded down on the total, jokers and jewels 0."""
    honours = spots = 0
    for card in cards:
        if card == JOKER or rules.is_jewel(card):
            continue
        if is_honour(card):
            honours += 1
        else:
            spots += 1
    return honours + spots // 2


def jewel_points(cards: Iterable[Card], rules: DealRules) -> int:
    """Jewel points (6.2): per jewel code, 1 copy 2, 2 copies 5, 3 copies 10; every jewel counts however used (R28).

    For a packer, pass the kept jewels: one 2, two alike 5, two different 2 + 2 = 4.
    """
    held = Counter(c for c in cards if rules.is_jewel(c))
    return sum(JEWEL_POINTS_BY_COPIES[n] for n in held.values())


def jewel_keep_choices(hand: Iterable[Card], rules: DealRules) -> list[tuple[Card, ...]]:
    """Every distinct multiset of 0-2 held jewels a packer may keep (4.3, 4.5), by size then canonical order."""
    held = sort_canonical(c for c in hand if rules.is_jewel(c))
    choices = {tuple(pick) for n in range(MAX_KEPT_JEWELS + 1) for pick in combinations(held, n)}
    return sorted(choices, key=lambda pick: (len(pick), [canonical_index(c) for c in pick]))


def best_kept_jewels(hand: Iterable[Card], rules: DealRules) -> tuple[Card, ...]:
    """The packer's jewels when the move names none (R18): most points; ties to the first list in canonical order."""
    choices = jewel_keep_choices(hand, rules)
    best = max(jewel_points(pick, rules) for pick in choices)
    return next(pick for pick in choices if jewel_points(pick, rules) == best)


# --- settlement -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatResult:
    """One seat's numbers at the end of a deal (6.1, 6.2): ``s`` for a playing hand, ``q`` for a packer."""

    j: int
    s: int | None = None
    q: int | None = None

    def __post_init__(self) -> None:
        if (self.s is None) == (self.q is None):
            raise ValueError("a seat is either a playing hand (s) or a packer (q)")

    @property
    def playing(self) -> bool:
        return self.s is not None


@dataclass(frozen=True)
class Settlement:
    """The pairwise chart ``matrix[i][k]`` = what seat k pays seat i (0 on the diagonal) and each seat's net (6.3)."""

    matrix: tuple[tuple[int, ...], ...]
    nets: tuple[int, ...]


def settle(seats: Sequence[SeatResult], declarer: int | None) -> Settlement:
    """The difference-based settlement of 6.3.

    Jewels are paid between all seats; bonuses minus penalties only between playing hands; a packer pays his pack
    penalty to the declarer alone, and to nobody when the deal ends without declaration (R23).
    """
    if declarer is not None and not (0 <= declarer < len(seats) and seats[declarer].playing):
        raise ValueError("the declarer must be a playing hand")
    matrix = tuple(tuple(_payment(seats, declarer, i, k) if i != k else 0 for k in range(len(seats)))
                   for i in range(len(seats)))
    return Settlement(matrix=matrix, nets=tuple(sum(row) for row in matrix))


def _payment(seats: Sequence[SeatResult], declarer: int | None, i: int, k: int) -> int:
    """M[i][k] of 6.3: what seat k pays seat i."""
    a, b = seats[i], seats[k]
    amount = a.j - b.j
    if a.s is not None and b.s is not None:
        amount += a.s - b.s
    if i == declarer and b.q is not None:
        amount += b.q
    if k == declarer and a.q is not None:
        amount -= a.q
    return amount
