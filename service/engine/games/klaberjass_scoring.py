"""Klaberjass scoring, as pure functions of cards and totals (docs/games/klaberjass.md; the spec's section 6).

Sides are numbered as the game numbers them: a seat in the two- and three-hand games, a team (seat % 2) in
the partnership game. Nothing here reads a state.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ..cards import SUITS, Card

NATURAL = "789TJQKA"  # the order of sequences, low to high (trumps included)
TRUMP_POINTS = MappingProxyType({"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0})
PLAIN_POINTS = MappingProxyType({"J": 2, "9": 0, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0})
LAST_TRICK = 10
BELLA = 20
_STRENGTH = MappingProxyType({r: i for i, r in enumerate(NATURAL)})

Run = list[Card]
RunKey = tuple[int, int, bool]  # value, top card in natural order, in trumps


def card_points(card: Card, trump: str) -> int:
    return (TRUMP_POINTS if card[1] == trump else PLAIN_POINTS)[card[0]]


# every card's points under each trump suit, for counting a deal's tricks without a call per card
POINTS_UNDER: Mapping[str, Mapping[Card, int]] = MappingProxyType({
    trump: MappingProxyType({rank + suit: card_points(rank + suit, trump) for rank in NATURAL for suit in SUITS})
    for trump in SUITS})


def run_value(run: Sequence[Card]) -> int:
    """A run of exactly three is worth 20, a longer one 50."""
    return 20 if len(run) == 3 else 50


def _runs_of(bits: int) -> tuple[tuple[int, int], ...]:
    """The maximal runs of three or more in an 8-bit rank mask (bit i: rank NATURAL[i]), as (top, length)."""
    found: list[tuple[int, int]] = []
    length = 0
    for r in range(9):  # one past the ace, to close a run that reaches it
        if bits >> r & 1:
            length += 1
        elif length:
            if length >= 3:
                found.append((r - 1, length))
            length = 0
    return tuple(found)


_RUNS_OF_MASK = tuple(_runs_of(bits) for bits in range(256))  # every suit's holding, worked out once


def maximal_runs(hand: Sequence[Card]) -> list[Run]:
    """Every run of three or more cards of one suit, consecutive in natural order and not extendable by a
    card of ``hand``; each listed high to low, the runs ordered by their top card (highest first), equal tops
    in suit order C D H S (ruling R29)."""
    held = dict.fromkeys(SUITS, 0)
    for c in hand:
        held[c[1]] |= 1 << _STRENGTH[c[0]]
    runs = [[NATURAL[x] + suit for x in range(top, top - length, -1)]
            for suit, bits in held.items() for top, length in _RUNS_OF_MASK[bits]]
    if len(runs) > 1:
        runs.sort(key=lambda run: (-_STRENGTH[run[0][0]], SUITS.index(run[0][1])))
    return runs


def run_key(run: Sequence[Card], trump: str) -> RunKey:
    return run_value(run), NATURAL.index(run[0][0]), run[0][1] == trump


def normal_run(cards: Sequence[Card]) -> Run:
    """A run's cards high to low in natural order (the order ``maximal_runs`` lists them in)."""
    return sorted(cards, key=lambda c: -NATURAL.index(c[0]))


def compare(declared: Sequence[tuple[int, int, Run]], trump: str) -> dict[str, object]:
    """The sequence comparison (6.2) of the declared runs, given as ``(side, seat, run)``: each side's best
    run by value, then top card, then trumps. Returns ``{"winner": side, "points", "shown": [[seat, run]...]}``
    for a winning side (every run it declared scores and is shown), ``{"winner": None, "tie": {"value",
    "top"}}`` for an exact tie of the best runs of different sides, ``{"winner": None}`` if nobody declared."""
    best: dict[int, RunKey] = {}
    for side, _seat, run in declared:
        key = run_key(run, trump)
        if side not in best or key > best[side]:
            best[side] = key
    if not best:
        return {"winner": None}
    top = max(best.values())
    holders = [side for side, key in best.items() if key == top]
    if len(holders) > 1:
        return {"winner": None, "tie": {"value": top[0], "top": NATURAL[top[1]]}}
    winner = holders[0]
    mine = [(seat, run) for side, seat, run in declared if side == winner]
    return {"winner": winner, "points": sum(run_value(run) for _seat, run in mine),
            "shown": [[seat, list(run)] for seat, run in mine]}


def split(amount: int, first: int, second: int, score: list[int]) -> None:
    """Share ``amount`` equally between two sides, the odd point to ``first``."""
    score[first] += amount - amount // 2
    score[second] += amount // 2


def strict_top(score: Sequence[int], among: Sequence[int]) -> int | None:
    """The side among ``among`` with the strictly highest score, or None."""
    best = max(score[s] for s in among)
    tops = [s for s in among if score[s] == best]
    return tops[0] if len(tops) == 1 else None


def settle(raw: Sequence[int], maker: int, false_claims: Sequence[int], held: int) -> tuple[list[int], int | None, int]:
    """A finished deal's scores per side (6.6): ``(scores, deal winner or None, held pool after)``.

    Case B (a false claim this deal): each false claimant's raw total goes to its opponent(s), three-hand
    shared with the odd point to the claimant's left; other sides keep their own. Case A: the maker must
    outscore every opponent; a tie with the best opponent sends the maker's raw total to the held pool.
    The held pool goes to the deal's winner, if there is one.
    """
    k = len(raw)
    score = [0] * k
    winner: int | None
    if false_claims:
        for side in range(k):
            if side not in false_claims:
                score[side] += raw[side]
            elif k == 2:
                score[1 - side] += raw[side]
            else:
                split(raw[side], (side + 1) % k, (side + 2) % k, score)
        winner = strict_top(score, range(k))
    else:
        opponents = [(maker + i) % k for i in range(1, k)]
        high = max(raw[o] for o in opponents)
        score = list(raw)
        score[maker] = 0
        if raw[maker] > high:
            score[maker], winner = raw[maker], maker
        elif raw[maker] == high:
            held, winner = held + raw[maker], None
        elif k == 2:
            score[opponents[0]] += raw[maker]
            winner = opponents[0]
        else:
            a, b = opponents  # a sits on the maker's left
            split(raw[maker], b if raw[b] > raw[a] else a, a if raw[b] > raw[a] else b, score)
            winner = strict_top(score, opponents)
    if winner is not None:
        score[winner] += held
        held = 0
    return score, winner, held


def tally_order(maker: int, sides: int) -> list[int]:
    """The order deal scores are added in (6.7): the non-makers clockwise from the maker's left, the maker last."""
    return [(maker + i) % sides for i in range(1, sides)] + [maker]
