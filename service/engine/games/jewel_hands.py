"""Jewel's hands (docs/games/jewel.md; spec 5.5, 6.1): which declarations are valid and how each hand is arranged
at the end of a deal, on the cards, triples and points of ``jewel_melds``.

* ``is_valid_declaration``, ``declarer_arrangement``, ``valid_declarations`` (4.5), ``best_arrangement`` (a
  non-declarer, R11), ``full_hand_arrangement`` (option B; a wrong declarer, R20).

How the hand searches are fast (the spec's literal search, 5.5, tries every partition of 12 cards into
triples). A valid triple is a *cluster* of natural cards completed by wild cards: three naturals forming a pure
set, run, super set or super sequence; two naturals that one wild card completes (same rank and different suits,
or one suit within one single-group run); one natural with two wild cards (always a set); or, with
``all_wild_groups``, no natural at all. A wild card can stand for anything, so which wild card fills which cluster
never matters, and jewels are the only cards with a choice: each is a natural in some cluster or a wild card.
Twelve cards therefore form four valid triples exactly when their naturals (minus the jewels chosen as wild)
split into at most four clusters (exactly four without ``all_wild_groups``): the wild cards left over make up
the missing triples. The searches run over the naturals alone, as counts packed into one integer (3 bits a
code), memoised on that integer; the jewels are searched first, so that the wild cards available are known
before any other card is placed. One search serves every compulsory sequence and every discard of a hand.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from ..cards import JOKER, RANKS, STANDARD_PACK, Card
from .jewel_melds import (ALL_WILD, COMPULSORY, DRAWN_HAND_SIZE, FULL_HAND_PENALTY, HAND_SIZE, MARRIAGE_BONUS, PACKS,
                          SEQUENCE, SET, SUPER_SEQUENCE, SUPER_SEQUENCE_BONUS, SUPER_SET, SUPER_SET_BONUS, TRIPLES,
                          _JOKER_INDEX, _RUN3_STARTS, DealRules, _inside_one_run, _marriage_in, _readings,
                          _runs_held, canonical_index, card_count, sort_canonical)


# --- arrangements ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """One shown group: the compulsory sequence or a triple; ``wild`` lists its cards that act as wild cards."""

    kind: str
    cards: tuple[Card, ...]
    wild: tuple[Card, ...]
    auxiliary: bool
    marriage: bool
    bonus: int


@dataclass(frozen=True)
class Arrangement:
    """How a 16-card hand is shown and scored (5.4, 6.1): ``s = bonus - penalty``.

    ``full_hand`` is option B of 6.1 (no compulsory sequence shown, penalty 12, super sequences and super sets only).
    """

    compulsory: Group | None
    triples: tuple[Group, ...]
    unarranged: tuple[Card, ...]
    bonus: int
    penalty: int
    full_hand: bool

    @property
    def s(self) -> int:
        return self.bonus - self.penalty

    @property
    def groups(self) -> tuple[Group, ...]:
        return ((self.compulsory,) if self.compulsory else ()) + self.triples


def is_valid_declaration(hand: Sequence[Card], rules: DealRules) -> bool:
    """The declaration check of 5.5: a compulsory sequence, and four valid triples of the other 12, one auxiliary."""
    _need_size(hand, HAND_SIZE)
    search = _HandSearch(hand, rules)
    return any(search.can_declare(search.full - search.delta_of(run), search.nonjewels_without(run), TRIPLES, True)
               for run in search.runs)


def declarer_arrangement(hand: Sequence[Card], rules: DealRules) -> Arrangement | None:
    """The declarer's arrangement (5.5, R14): the valid complete arrangement with the highest bonus; None if invalid.

    The bonus is the compulsory sequence's marriage plus every triple's bonus_full; the penalty is 0.
    """
    _need_size(hand, HAND_SIZE)
    search = _HandSearch(hand, rules)
    best: tuple[int, tuple[int, int, int, int]] | None = None
    for run in search.runs:
        found = search.best_declare(search.full - search.delta_of(run), search.nonjewels_without(run), TRIPLES, True)
        if found >= 0:
            total = found + (MARRIAGE_BONUS if _marriage_in(run, rules) else 0)
            if best is None or total > best[0]:
                best = (total, run)
    if best is None:
        return None
    _total, run = best
    clusters, spare = search.trace_declare(search.full - search.delta_of(run), TRIPLES, True)
    return search.arrangement(run, clusters, spare, unarranged_naturals=[])


def valid_declarations(hand: Sequence[Card], rules: DealRules) -> list[Card]:
    """The distinct codes of a 17-card hand whose discard leaves a valid declaration, in canonical order (4.5)."""
    _need_size(hand, DRAWN_HAND_SIZE)
    search = _HandSearch(hand, rules)
    valid: set[int] = set()
    discards = sorted(set(search.indexes))
    for run in search.runs:
        after_run = search.full - search.delta_of(run)
        nonjewels = search.nonjewels_without(run)
        for d in discards:
            if d in valid:
                continue
            if d == _JOKER_INDEX:
                state, n = after_run, nonjewels
            else:
                delta = search.delta_of((d,))
                state = after_run - delta
                if state & search.guard != search.guard:
                    continue                                   # every copy of d is in the run
                n = nonjewels - (0 if search.is_jewel_index(d) else 1)
            if search.can_declare(state, n, TRIPLES, True):
                valid.add(d)
    return [STANDARD_PACK[d] if d != _JOKER_INDEX else JOKER for d in sorted(valid)]


def best_arrangement(hand: Sequence[Card], rules: DealRules) -> Arrangement:
    """A non-declarer's arrangement (6.1, R11): the one with the highest s, then the highest bonus, then option A.

    Option A shows a compulsory sequence and up to four valid triples (no auxiliary needed) and pays the count of
    the rest; option B (``full_hand_arrangement``) pays 12 and keeps only super sequences and super sets.
    """
    _need_size(hand, HAND_SIZE)
    search = _HandSearch(hand, rules)
    best: tuple[int, int, tuple[int, int, int, int], int, int] | None = None   # s, bonus, run, parity, code
    for run in search.runs:
        married = MARRIAGE_BONUS if _marriage_in(run, rules) else 0
        values = search.option_a(search.full - search.delta_of(run), TRIPLES, search.jokers)
        for parity, code in enumerate(values):
            if code <= _FEASIBLE_FLOOR:
                continue
            v, bonus = code >> 6, code & 63
            s = (v + parity) // 2 + married
            if best is None or (s, bonus + married) > best[:2]:
                best = (s, bonus + married, run, parity, code)
    bare = full_hand_arrangement(hand, rules)
    if best is None or (bare.s, bare.bonus) > best[:2]:
        return bare
    _s, _bonus, run, parity, _code = best
    clusters, spare, unarranged = search.trace_option_a(search.full - search.delta_of(run), TRIPLES, search.jokers,
                                                        parity)
    return search.arrangement(run, clusters, spare, unarranged_naturals=unarranged)


def full_hand_arrangement(hand: Sequence[Card], rules: DealRules) -> Arrangement:
    """Option B of 6.1 ("full hand"): penalty 12, the best disjoint pure super sequences and super sets (R12).

    This is how a wrong declarer is scored, whatever he holds (R20), and the fallback of every non-declarer.
    """
    _need_size(hand, HAND_SIZE)
    held = Counter(hand)
    seq = rules.super_sequence
    choices = []                 # (bonus, super sequences, super sets), most super sequences first
    for n_seq in range(min(held[c] for c in seq), -1, -1):
        left = held.copy()
        left.subtract({c: n_seq for c in seq})
        sets = [c for c in sort_canonical(left) if c != JOKER and left[c] == PACKS]
        choices.append((SUPER_SEQUENCE_BONUS * n_seq + SUPER_SET_BONUS * len(sets), n_seq, sets))
    best = max(choice[0] for choice in choices)
    bonus, n_seq, sets = next(choice for choice in choices if choice[0] == best)
    groups = [Group(SUPER_SEQUENCE, tuple(sort_canonical(seq)), (), False, False, SUPER_SEQUENCE_BONUS)] * n_seq
    groups += [Group(SUPER_SET, (c, c, c), (), True, False, SUPER_SET_BONUS) for c in sets]
    rest = held.copy()
    rest.subtract(Counter(c for g in groups for c in g.cards))
    return Arrangement(compulsory=None, triples=tuple(groups), unarranged=tuple(sort_canonical(rest.elements())),
                       bonus=bonus, penalty=FULL_HAND_PENALTY, full_hand=True)


def _need_size(hand: Sequence[Card], size: int) -> None:
    if len(hand) != size:
        raise ValueError(f"a hand of {size} cards is needed, not {len(hand)}")


# --- the search ---------------------------------------------------------------------------------------------------

_BITS = 3                     # bits per code in a packed state: a guard bit (4) over a count of 0-3
_INFEASIBLE = -(1 << 40)
_FEASIBLE_FLOOR = _INFEASIBLE // 2   # an infeasible value plus any gains of a search stays below this
_HONOUR_UNARRANGED = -2 * 64  # the option-A code: 64 * (2 bonus - 2 honours - spots) + bonus
_SPOT_UNARRANGED = -1 * 64
_BONUS_CODE = 2 * 64 + 1      # one bonus point in that code


@dataclass(frozen=True)
class _Tables:
    """The natural clusters one open card allows, by card index (see the module docstring)."""

    pairs: dict[tuple[int, int], int]                               # completable pair -> its bonus (marriage)
    triples: dict[tuple[int, int, int], tuple[str, bool, int, int]]  # pure triple -> kind, auxiliary, full, bare
    # The same, listed under their lowest card index, each list with the auxiliary triples first, for _heads:
    pairs_from: tuple[tuple[tuple[int, int], ...], ...]                        # (other card, bonus)
    triples_from: tuple[tuple[tuple[tuple[int, int, int], bool, int], ...], ...]  # (trio, auxiliary, bonus_full)


@lru_cache(maxsize=128)
def _tables(open_card: Card, all_wild_groups: bool) -> _Tables:
    rules = DealRules(open_card, all_wild_groups)
    marriage = (canonical_index("Q" + rules.marriage_suit), canonical_index("K" + rules.marriage_suit))
    pairs = {(a, b): MARRIAGE_BONUS if (a, b) == marriage else 0
             for a, b in combinations(range(52), 2) if _is_pair_cluster(a, b)}
    triples: dict[tuple[int, int, int], tuple[str, bool, int, int]] = {}
    for trio in _pure_candidates(rules):
        cards = [STANDARD_PACK[i] for i in trio]
        readings = _readings(cards, rules)
        if readings:
            kind, aux, _married, full, bare = max(readings, key=lambda r: (r[3], r[1]))
            triples[trio] = (kind, any(r[1] for r in readings), full, bare)
    pairs_from = tuple(tuple((b, bonus) for (a, b), bonus in sorted(pairs.items()) if a == low) for low in range(52))
    ordered = sorted(triples.items(), key=lambda item: (not item[1][1], item[0]))
    triples_from = tuple(tuple((trio, aux, full) for trio, (_kind, aux, full, _bare) in ordered if trio[0] == low)
                         for low in range(52))
    return _Tables(pairs=pairs, triples=triples, pairs_from=pairs_from, triples_from=triples_from)


def _is_pair_cluster(a: int, b: int) -> bool:
    """Two different naturals that one wild card completes (a set, or a run of one suit and one group)."""
    if a % 13 == b % 13:
        return a // 13 != b // 13
    return a // 13 == b // 13 and _inside_one_run((RANKS[a % 13], RANKS[b % 13]))


def _pure_candidates(rules: DealRules) -> set[tuple[int, int, int]]:
    """Every sorted index triple that could be a pure valid triple: sets, runs, super sets, the super sequence."""
    out: set[tuple[int, int, int]] = set()
    for r in range(13):
        for a, b, c in combinations(range(4), 3):
            out.add((a * 13 + r, b * 13 + r, c * 13 + r))
    for s in range(4):
        for start in _RUN3_STARTS:
            out.add((s * 13 + start, s * 13 + start + 1, s * 13 + start + 2))
    out.update((i, i, i) for i in range(52))
    low, mid, high = sorted(canonical_index(c) for c in rules.super_sequence)
    out.add((low, mid, high))
    return out


class _HandSearch:
    """The memoised cluster searches over one hand's natural cards (module docstring).

    Fields 0 and 1 of the packed state are the two jewel codes, then the hand's other natural codes in canonical
    order; each field holds 4 + the number of copies left, so a subtraction that would take a card not held clears
    that field's guard bit and nothing else.
    """

    def __init__(self, hand: Sequence[Card], rules: DealRules) -> None:
        self.rules = rules
        self.all_wild = rules.all_wild_groups
        self.indexes = [canonical_index(c) for c in hand]
        held = Counter(i for i in self.indexes if i != _JOKER_INDEX)
        self.jokers = len(self.indexes) - sum(held.values())
        jewel_idx = [canonical_index(c) for c in rules.jewels]
        self.fields = jewel_idx + sorted(i for i in held if i not in jewel_idx)
        self.field_of = {idx: k for k, idx in enumerate(self.fields)}
        self.guard = sum(4 << (_BITS * k) for k in range(len(self.fields)))
        self.full = self.guard + sum(n << (_BITS * self.field_of[i]) for i, n in held.items())
        self.nonjewels = sum(n for i, n in held.items() if i not in jewel_idx)
        self.runs = _runs_held(held)
        self.tables = _tables(rules.open_card, rules.all_wild_groups)
        self.heads = self._heads(held, self.tables)
        self._can: dict[int, bool] = {}
        self._best: dict[int, tuple[int, tuple[int, ...] | None]] = {}
        self._opt_a: dict[int, tuple[int, int, tuple[int, ...] | None, tuple[int, ...] | None]] = {}

    def is_jewel_index(self, idx: int) -> bool:
        return self.field_of.get(idx, 2) < 2

    def nonjewels_without(self, idxs: Iterable[int]) -> int:
        """The number of non-jewel naturals left once these cards are taken out."""
        return self.nonjewels - sum(1 for i in idxs if not self.is_jewel_index(i))

    def delta_of(self, idxs: Iterable[int]) -> int:
        return sum(1 << (_BITS * self.field_of[i]) for i in idxs)

    def _heads(self, held: Counter[int], tables: _Tables) -> list[list[tuple[int, int, int, int, bool, tuple[int, ...]]]]:
        """Per field, the clusters whose first card is that field: (delta, non-jewels, wilds, bonus, aux, fields).

        Pure triples come first (auxiliary ones leading), then pairs, then the card alone.
        """
        heads: list[list[tuple[int, int, int, int, bool, tuple[int, ...]]]] = [[] for _ in self.fields]

        def add(idxs: tuple[int, ...], wilds: int, bonus: int, aux: bool) -> None:
            fields = tuple(sorted(self.field_of[i] for i in idxs))
            nonjewels = sum(1 for f in fields if f >= 2)
            heads[fields[0]].append((self.delta_of(idxs), nonjewels, wilds, bonus, aux, fields))

        # A jewel needs to be a natural only in a pure triple: a jewel natural in a pair or alone makes the same
        # three cards as the jewel acting wild beside the other natural (pairs earn no bonus with a jewel, since
        # a marriage's Q and K are never jewels). Without all-wild triples, though, a jewel alone is one way to
        # give a triple of wild cards the natural it must have.
        present = sorted(held)
        jewels = set(self.fields[:2])
        for low in present:
            for trio, aux, full in tables.triples_from[low]:
                if all(held.get(i, 0) >= trio.count(i) for i in trio):
                    add(trio, 0, full, aux)
        for low in present:
            for other, bonus in tables.pairs_from[low]:
                if other in held and low not in jewels and other not in jewels:
                    add((low, other), 1, bonus, False)
        for i in present:
            if i not in jewels or not self.all_wild:
                add((i,), 2, 0, False)
        for options in heads:     # a head's pure triples first, auxiliary ones leading (they end a search soonest)
            options.sort(key=lambda option: (option[2], not option[4]))
        return heads

    def _first_field(self, counts: int) -> int:
        return ((counts & -counts).bit_length() - 1) // _BITS

    # Can the naturals in `state` form clusters filling the `c` triples left (one auxiliary if `aux`)? (5.5)
    def can_declare(self, state: int, nonjewels: int, c: int, aux: bool) -> bool:
        key = (state << 4) | (c << 1) | aux
        known = self._can.get(key)
        if known is None:
            known = self._can_declare(state, nonjewels, c, aux)
            self._can[key] = known
        return known

    def _can_declare(self, state: int, nonjewels: int, c: int, aux: bool) -> bool:
        guard = self.guard
        if state == guard:
            return not aux and (c == 0 or self.all_wild)
        if nonjewels > 3 * c:
            return False
        if not aux and nonjewels <= c and self.all_wild:
            return True         # every natural alone with two wild cards, every jewel as a wild card
        k = self._first_field(state - guard)
        if c:
            for delta, nj, _wilds, _bonus, group_aux, _fields in self.heads[k]:
                rest = state - delta
                if rest & guard == guard and self.can_declare(rest, nonjewels - nj, c - 1, aux and not group_aux):
                    return True
        return k < 2 and self.can_declare(state - (1 << (_BITS * k)), nonjewels, c, aux)

    # The highest bonus of such clusters, or -1; remembers the best cluster (None: the first jewel is wild). (5.5)
    def best_declare(self, state: int, nonjewels: int, c: int, aux: bool) -> int:
        key = (state << 4) | (c << 1) | aux
        known = self._best.get(key)
        if known is None:
            known = self._best_declare(state, nonjewels, c, aux)
            self._best[key] = known
        return known[0]

    def _best_declare(self, state: int, nonjewels: int, c: int, aux: bool) -> tuple[int, tuple[int, ...] | None]:
        guard = self.guard
        if state == guard:
            return (0 if not aux and (c == 0 or self.all_wild) else -1), None
        if nonjewels > 3 * c:
            return -1, None
        k = self._first_field(state - guard)
        best, choice = -1, None
        if c:
            for delta, nj, _wilds, bonus, group_aux, fields in self.heads[k]:
                rest = state - delta
                if rest & guard == guard:
                    found = self.best_declare(rest, nonjewels - nj, c - 1, aux and not group_aux)
                    if found >= 0 and found + bonus > best:
                        best, choice = found + bonus, fields
        if k < 2:
            found = self.best_declare(state - (1 << (_BITS * k)), nonjewels, c, aux)
            if found > best:
                best, choice = found, None
        return best, choice

    def trace_declare(self, state: int, c: int, aux: bool) -> tuple[list[tuple[int, ...]], list[int]]:
        """The clusters and wild-acting jewels (card indexes) of the best declaration found by best_declare."""
        clusters: list[tuple[int, ...]] = []
        wild_jewels: list[int] = []
        while state != self.guard:
            choice = self._best[(state << 4) | (c << 1) | aux][1]
            if choice is None:
                k = self._first_field(state - self.guard)
                wild_jewels.append(self.fields[k])
                state -= 1 << (_BITS * k)
                continue
            idxs = tuple(sorted(self.fields[f] for f in choice))
            clusters.append(idxs)
            aux = aux and not self._is_aux_cluster(idxs)
            state -= self.delta_of(idxs)
            c -= 1
        return clusters, wild_jewels

    def _is_aux_cluster(self, idxs: tuple[int, ...]) -> bool:
        if len(idxs) != 3:
            return False
        low, mid, high = idxs
        return self.tables.triples[(low, mid, high)][1]

    # Option A of 6.1 over the naturals in `state`, with `c` triples left and `w` wild cards spare (jewels ahead
    # may still add to w). Returns, per parity of the unarranged spot cards, the best code
    # 64 * (2 bonus - 2 honours - spots) + bonus, or _INFEASIBLE.
    def option_a(self, state: int, c: int, w: int) -> tuple[int, int]:
        key = (state << 9) | (c << 5) | (w + 16)
        known = self._opt_a.get(key)
        if known is None:
            known = self._option_a(state, c, w)
            self._opt_a[key] = known
        return known[0], known[1]

    def _option_a(self, state: int, c: int, w: int) -> tuple[int, int, tuple[int, ...] | None, tuple[int, ...] | None]:
        counts = state - self.guard
        if counts == 0:
            return (0 if w >= 0 else _INFEASIBLE), _INFEASIBLE, None, None
        if w + (counts & 7) + ((counts >> 3) & 7) < 0:
            return _INFEASIBLE, _INFEASIBLE, None, None
        k = self._first_field(counts)
        one = 1 << (_BITS * k)
        # Leave the first card unarranged (a jewel: spare as a wild card, counting 0).
        if k < 2:
            even, odd = self.option_a(state - one, c, w + 1)
        else:
            even, odd = self.option_a(state - one, c, w)
            if self.fields[k] % 13 >= 9:
                even, odd = even + _HONOUR_UNARRANGED, odd + _HONOUR_UNARRANGED
            else:
                even, odd = odd + _SPOT_UNARRANGED, even + _SPOT_UNARRANGED
        pick_even: tuple[int, ...] | None = None
        pick_odd: tuple[int, ...] | None = None
        if c:
            guard = self.guard
            for delta, _nj, wilds, bonus, _aux, fields in self.heads[k]:
                rest = state - delta
                if rest & guard != guard or (k >= 2 and w < wilds):
                    continue
                sub_even, sub_odd = self.option_a(rest, c - 1, w - wilds)
                gain = bonus * _BONUS_CODE
                if sub_even + gain > even:
                    even, pick_even = sub_even + gain, fields
                if sub_odd + gain > odd:
                    odd, pick_odd = sub_odd + gain, fields
        return (even if even > _FEASIBLE_FLOOR else _INFEASIBLE), (odd if odd > _FEASIBLE_FLOOR else _INFEASIBLE), \
            pick_even, pick_odd

    def trace_option_a(self, state: int, c: int, w: int,
                       parity: int) -> tuple[list[tuple[int, ...]], list[int], list[int]]:
        """Clusters, spare jewels and unarranged naturals of the option-A value chosen by parity."""
        clusters: list[tuple[int, ...]] = []
        spare_jewels: list[int] = []
        unarranged: list[int] = []
        while state != self.guard:
            entry = self._opt_a[(state << 9) | (c << 5) | (w + 16)]
            choice = entry[3] if parity else entry[2]
            k = self._first_field(state - self.guard)
            if choice is None:
                idx = self.fields[k]
                state -= 1 << (_BITS * k)
                if k < 2:
                    spare_jewels.append(idx)
                    w += 1
                else:
                    unarranged.append(idx)
                    parity ^= idx % 13 < 9
                continue
            idxs = tuple(sorted(self.fields[f] for f in choice))
            clusters.append(idxs)
            state -= self.delta_of(idxs)
            c -= 1
            w -= 3 - len(idxs)
        return clusters, spare_jewels, unarranged

    def arrangement(self, run: tuple[int, int, int, int], clusters: list[tuple[int, ...]], spare_jewels: list[int],
                    unarranged_naturals: list[int]) -> Arrangement:
        """Fill the clusters with the wild cards (jokers first), and show the rest as all-wild triples or unarranged."""
        rules = self.rules
        wilds = [JOKER] * self.jokers + [STANDARD_PACK[i] for i in spare_jewels]
        married = _marriage_in(run, rules)
        compulsory = Group(COMPULSORY, tuple(STANDARD_PACK[i] for i in run), (), False, married,
                           MARRIAGE_BONUS if married else 0)
        triples = []
        for idxs in clusters:
            naturals = tuple(STANDARD_PACK[i] for i in idxs)
            fill, wilds = tuple(wilds[:3 - len(idxs)]), wilds[3 - len(idxs):]
            triples.append(_cluster_group(idxs, naturals, fill, self.tables))
        while self.all_wild and len(wilds) >= 3 and len(triples) < TRIPLES:
            triples.append(Group(ALL_WILD, tuple(wilds[:3]), tuple(wilds[:3]), False, False, 0))
            wilds = wilds[3:]
        unarranged = tuple(sort_canonical([STANDARD_PACK[i] for i in unarranged_naturals] + wilds))
        bonus = compulsory.bonus + sum(g.bonus for g in triples)
        return Arrangement(compulsory=compulsory, triples=tuple(triples), unarranged=unarranged, bonus=bonus,
                           penalty=card_count(unarranged, rules), full_hand=False)


def _cluster_group(idxs: tuple[int, ...], naturals: tuple[Card, ...], fill: tuple[Card, ...],
                   tables: _Tables) -> Group:
    cards = tuple(sort_canonical(naturals)) + fill
    if len(idxs) == 3:
        low, mid, high = idxs
        kind, aux, full, _bare = tables.triples[(low, mid, high)]
        return Group(kind, cards, (), aux, kind == SEQUENCE and full == MARRIAGE_BONUS, full)
    if len(idxs) == 2:
        first, second = idxs
        bonus = tables.pairs[(first, second)]
        kind = SET if first % 13 == second % 13 else SEQUENCE
        return Group(kind, cards, fill, False, bonus == MARRIAGE_BONUS, bonus)
    return Group(SET, cards, fill, False, False, 0)
