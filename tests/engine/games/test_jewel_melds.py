"""Jewel's declaration check, arrangements, bonuses and settlement (docs/games/jewel.md; spec 5, 6, 9).

Scenario tests are named by the spec's scenario ids (S0-S9; "E55" is the example of 5.5). The property tests compare
the fast cluster searches of service/engine/games/jewel_hands.py with a literal transcription of the spec's own search
(5.5, 6.1) that tries every partition into triples through ``triple_info``.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.cards import JOKER, RANKS, SUITS
from service.engine.games.jewel_hands import (Arrangement, best_arrangement, declarer_arrangement, full_hand_arrangement,
                                        is_valid_declaration)
from service.engine.games.jewel_melds import (ALL_WILD, COMPULSORY, FULL_HAND_PENALTY, INITIAL_PACK_PENALTY, JEWEL_PACK,
                                        MARRIAGE_BONUS, MID_PACK_PENALTY, SEQUENCE, SET, SUPER_SEQUENCE, SUPER_SET,
                                        DealRules, SeatResult, best_kept_jewels, canonical_index, card_count,
                                        compulsory_sequences, is_compulsory_sequence, jewel_keep_choices,
                                        jewel_points, jewels_of, marriage_suit, settle, sort_canonical,
                                        super_sequence_of, triple_info)


def cards(text: str) -> list[str]:
    return text.split()


def without(hand: list[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


# --- spec 1: the pack and the open card ------------------------------------------------------------------------------

def test_pack_has_three_standard_packs_with_jokers() -> None:
    counts = Counter(JEWEL_PACK)
    assert len(JEWEL_PACK) == 162
    assert counts[JOKER] == 6
    assert all(counts[r + s] == 3 for r in RANKS for s in SUITS)


@pytest.mark.parametrize("open_card, jewels, marriage, superseq", [
    ("7D", ("7C", "7S"), "H", ("6D", "7D", "8D")),
    ("TD", ("TC", "TS"), "H", ("9D", "TD", "JD")),
    ("2S", ("2D", "2H"), "C", ("AS", "2S", "3S")),
    ("AS", ("AD", "AH"), "C", ("KS", "AS", "2S")),
    ("QH", ("QC", "QS"), "D", ("JH", "QH", "KH")),
])
def test_open_card_fixes_jewels_marriage_and_super_sequence(open_card: str, jewels: tuple[str, str], marriage: str,
                                                            superseq: tuple[str, str, str]) -> None:
    assert jewels_of(open_card) == jewels
    assert marriage_suit(open_card) == marriage
    assert super_sequence_of(open_card) == superseq


def test_joker_is_never_the_open_card() -> None:
    with pytest.raises(ValueError):
        DealRules("JK")


def test_canonical_order() -> None:
    assert sort_canonical(cards("JK 3S 2S AH 9D 3D 9C 3C")) == cards("3C 9C 3D 9D AH 2S 3S JK")


# --- S1: triples --------------------------------------------------------------------------------------------------------

S1 = [  # triple, valid, auxiliary, bonus_full, bonus_bare, marriage
    ("9D TD JD", True, False, 4, 4, False),    # cross-group super sequence
    ("9D JK JD", False, None, None, None, None),  # cross-group with a wild
    ("8D 9D TD", True, True, 0, 0, False),     # ordinary pure run; middle is not O
    ("TD JD QD", False, None, None, None, None),  # cross-group, not the super sequence
    ("QH KH TS", True, False, 3, 0, True),     # marriage, jewel as wild
    ("QH KH AH", True, True, 3, 0, True),      # pure marriage run
    ("JK QH KH", True, False, 3, 0, True),     # marriage with joker
    ("QH JK AH", True, False, 0, 0, False),    # K is wild: no marriage
    ("TS TS TS", True, True, 2, 2, False),     # super set of jewels
    ("5H 5H 5H", True, True, 2, 2, False),     # super set
    ("5C 5C 5H", False, None, None, None, None),  # same-suit naturals
    ("5H 5H JK", False, None, None, None, None),  # neither a set nor a run
    ("5C 5H TC", True, False, 0, 0, False),    # set, jewel as wild
    ("TS TC TH", True, False, 0, 0, False),    # set of naturals (two jewels as themselves)
    ("9S TS JS", False, None, None, None, None),  # cross-group, not O's suit
    ("AS 2S 3S", False, None, None, None, None),  # the ace is not low
    ("JK JK JK", True, False, 0, 0, False),    # all wild (default option)
]


@pytest.mark.parametrize("triple, valid, aux, full, bare, married", S1)
def test_S1_triples(triple: str, valid: bool, aux: bool | None, full: int | None, bare: int | None,
                    married: bool | None) -> None:
    info = triple_info(cards(triple), DealRules("TD"))
    assert (info is not None) == valid
    if info is not None:
        assert (info.auxiliary, info.bonus_full, info.bonus_bare, info.marriage) == (aux, full, bare, married)


def test_S1_all_wild_triple_follows_the_option() -> None:
    assert triple_info(cards("JK JK JK"), DealRules("TD", all_wild_groups=False)) is None
    assert triple_info(cards("JK TS TC"), DealRules("TD", all_wild_groups=False)) is not None   # TS, TC natural


@pytest.mark.parametrize("four, valid", [
    ("4S 5S 6S 7S", True),        # O = 7D: 7S is a jewel used as itself (spec 1, R2)
    ("6D 7D 8D 9D", True),        # holds O's code: valid, but no super-sequence bonus (5.3)
    ("JH QH KH AH", True),
    ("TH JH QH KH", False),       # crosses the groups
    ("KS AS 2S 3S", False),       # wraps
    ("4S 5S JK 7S", False),       # a joker is never in a compulsory sequence
    ("7C 7D 7H 7S", False),       # no four-card set
])
def test_compulsory_sequences(four: str, valid: bool) -> None:
    assert is_compulsory_sequence(cards(four)) == valid


def test_compulsory_sequences_lists_each_distinct_run_once() -> None:
    hand = cards("2C 3C 4C 5C 6C 2C 3C 4C 5C JH QH KH AH AH")
    assert compulsory_sequences(hand) == [tuple(cards("2C 3C 4C 5C")), tuple(cards("3C 4C 5C 6C")),
                                          tuple(cards("JH QH KH AH"))]


# --- S2: which declarations are valid -----------------------------------------------------------------------------------

S2_RULES = DealRules("AS")
S2_HAND = cards("5H 6H 7H 8H KS AS 2S QC KC AH 3C 3D 3S 9C 9D JK JC")


@pytest.mark.parametrize("discard, bonus, j", [
    ("9D", 7, 2), ("9C", 7, 2), ("3C", 7, 2), ("3D", 7, 2), ("3S", 7, 2), ("JK", 7, 2),
    ("AH", 7, 0),
    ("2S", 3, 2),      # KS AS + a wild card is Q-K-A: no super sequence
])
def test_S2_valid_declarations_and_declarer_bonus(discard: str, bonus: int, j: int) -> None:
    hand = without(S2_HAND, discard)
    arrangement = declarer_arrangement(hand, S2_RULES)
    assert arrangement is not None and is_valid_declaration(hand, S2_RULES)
    assert (arrangement.bonus, arrangement.penalty, jewel_points(hand, S2_RULES)) == (bonus, 0, j)
    assert_consistent(arrangement, hand, S2_RULES, complete=True)


@pytest.mark.parametrize("discard", cards("5H 6H 7H 8H KS AS QC KC JC"))
def test_S2_wrong_declarations(discard: str) -> None:
    hand = without(S2_HAND, discard)
    assert not is_valid_declaration(hand, S2_RULES)
    assert declarer_arrangement(hand, S2_RULES) is None


def test_S2_pre_draw_hand_is_complete_without_auxiliary() -> None:
    hand = without(S2_HAND, "JC")
    arrangement = best_arrangement(hand, S2_RULES)
    assert (arrangement.s, arrangement.penalty, jewel_points(hand, S2_RULES)) == (7, 0, 2)
    assert not arrangement.unarranged and len(arrangement.triples) == 4
    assert not any(t.auxiliary for t in arrangement.triples)


def test_S2_valid_declarations_list() -> None:
    from service.engine.games.jewel_hands import valid_declarations
    assert valid_declarations(S2_HAND, S2_RULES) == cards("3C 9C 3D 9D AH 2S 3S JK")


# --- E55: the declarer's bonus needs an auxiliary triple (5.5) --------------------------------------------------------

def test_E55_declarer_bonus_only_over_arrangements_with_an_auxiliary() -> None:
    rules = DealRules("TD")
    hand = cards("2C 3C 4C 5C 8D 9D TD JD JS JH JK JK 8C 5S 5H 5C")
    declared = declarer_arrangement(hand, rules)
    assert declared is not None and declared.bonus == 0          # 8D 9D TD is the auxiliary; JD goes to the J set
    assert best_arrangement(hand, rules).s == 4                  # as a non-declarer 9D TD JD earns 4


# --- S3: the packer's jewels ---------------------------------------------------------------------------------------------

def test_S3_jewel_choices_and_default_keep() -> None:
    rules = DealRules("5S")
    hand = cards("5H 5H 5D 2C 3C 4C 6C 7C 8C 9C 2D 3D 4D 6D 7D 8D")
    assert jewel_keep_choices(hand, rules) == [(), ("5D",), ("5H",), ("5D", "5H"), ("5H", "5H")]
    assert best_kept_jewels(hand, rules) == ("5H", "5H")
    assert jewel_points(("5H", "5H"), rules) == 5


def test_R18_ties_go_to_the_first_list_in_canonical_order() -> None:
    rules = DealRules("5S")
    assert best_kept_jewels(cards("5H 5H 5D 5D 2C"), rules) == ("5D", "5D")
    assert best_kept_jewels(cards("5H 5D 2C"), rules) == ("5D", "5H")
    assert best_kept_jewels(cards("2C 3C"), rules) == ()


@pytest.mark.parametrize("held, points", [("AH AH AD", 7), ("AH", 2), ("AH AH", 5), ("AH AD", 4),
                                          ("AH AH AH AD AD AD", 20), ("AS AC KH", 0)])
def test_jewel_points(held: str, points: int) -> None:
    assert jewel_points(cards(held), DealRules("AS")) == points


# --- S4: wild cards may not be taken from the discard pile ----------------------------------------------------------

def test_S4_jokers_and_jewels_are_wild_cards() -> None:
    rules = DealRules("9H")
    assert [c for c in cards("9S 9C 9D 9H JK 4D") if rules.is_wild_card(c)] == cards("9S 9C JK")


# --- S5, S6: a non-declarer's best arrangement, the count ----------------------------------------------------------

def test_S5_best_arrangement_is_the_full_hand() -> None:
    rules = DealRules("AS")
    hand = cards("JS QS KS AS 2S JH JH KH KH JD JD KD QC QC 5C 9H")
    arrangement = best_arrangement(hand, rules)
    assert (arrangement.s, arrangement.bonus, arrangement.penalty, arrangement.full_hand) == (-8, 4, 12, True)
    assert jewel_points(hand, rules) == 0


def test_S6_count_is_rounded_down_on_the_total() -> None:
    rules = DealRules("4C")
    hand = cards("2S 3S 4S 5S 6H 7H 8H KD KH KC AS 2D 9C 7S 3H TD")
    arrangement = best_arrangement(hand, rules)
    assert (arrangement.s, arrangement.bonus, arrangement.penalty) == (-3, 0, 3)
    assert sort_canonical(arrangement.unarranged) == sort_canonical(cards("AS 2D 9C 7S 3H TD"))
    assert card_count(cards("AS 2D 9C 7S 3H TD"), rules) == 3


def test_R13_jokers_and_jewels_count_nothing() -> None:
    assert card_count(cards("JK AH AD KS 2C 3C 4C"), DealRules("AS")) == 2


# --- S7, S8, S9: settlement scenarios -----------------------------------------------------------------------------------

def test_S7_four_players_with_a_packer() -> None:
    rules = DealRules("7D")
    declarer = cards("2C 3C 4C 5C 6D 7D 8D QH KH JK 9S 9H 9C JS QS KS")
    seat0 = cards("7H 8H 9H TH 4S 4S 4S 5D 5H 7C AS KD 2H 3D 9D JC")
    seat3 = cards("7S 7S 7C 7C QC QC QC 2D 4D 6H 8S TC JD AH 3S 9C")
    declared = declarer_arrangement(declarer, rules)
    assert declared is not None and declared.bonus == 7
    a0, a3 = best_arrangement(seat0, rules), best_arrangement(seat3, rules)
    assert (a0.bonus, a0.penalty, a0.s, jewel_points(seat0, rules)) == (2, 4, -2, 2)
    assert (a3.bonus, a3.penalty, a3.s, jewel_points(seat3, rules)) == (2, 12, -10, 10)
    seats = [SeatResult(j=2, s=a0.s), SeatResult(j=jewel_points(["7S"], rules), q=INITIAL_PACK_PENALTY),
             SeatResult(j=jewel_points(declarer, rules), s=declared.bonus), SeatResult(j=10, s=a3.s)]
    result = settle(seats, declarer=2)
    assert result.matrix == ((0, 0, -7, 0), (0, 0, -2, -8), (7, 2, 0, 7), (0, 8, -7, 0))
    assert result.nets == (-7, -10, 16, 1)


def test_S8_wrong_declaration_then_a_valid_one() -> None:
    rules = DealRules("9H")
    wrong = cards("2D 3D 4D JK QD KD AD 7C 7C 7C 5S 5H 5C JS JH 9C")
    declarer = cards("6S 7S 8S 9S 8H 9H TH KS KH KC 3H 4H JK 2C 2S 9C")
    seat0 = cards("JC QC KC AC QD KD JK 5D 6D 7D 2H 3S 4C 6C 8C TS")
    assert not is_valid_declaration(wrong, rules)
    declared = declarer_arrangement(declarer, rules)
    assert declared is not None and declared.bonus == 4 and jewel_points(declarer, rules) == 4
    a0 = best_arrangement(seat0, rules)
    assert (a0.bonus, a0.penalty, a0.s, jewel_points(seat0, rules)) == (3, 3, 0, 0)
    aw = full_hand_arrangement(wrong, rules)
    assert (aw.bonus, aw.penalty, aw.s, jewel_points(wrong, rules)) == (2, 12, -10, 2)
    assert not any(g.marriage for g in aw.groups)
    seats = [SeatResult(j=0, s=a0.s), SeatResult(j=4, s=declared.bonus), SeatResult(j=2, s=aw.s)]
    result = settle(seats, declarer=1)
    assert result.matrix == ((0, -8, 8), (8, 0, 16), (-8, -16, 0))
    assert result.nets == (0, 24, -24)


def test_S9_deal_without_declaration() -> None:
    seats = [SeatResult(j=2, q=INITIAL_PACK_PENALTY), SeatResult(j=0, s=-3), SeatResult(j=5, s=-12)]
    result = settle(seats, declarer=None)
    assert result.matrix == ((0, 2, -3), (-2, 0, 4), (3, -4, 0))
    assert result.nets == (-1, 2, -1)
    with_declarer = settle(seats, declarer=2)
    assert with_declarer.matrix[2][0] == 3 + 4           # had seat 2 declared, the packer would pay him 4 too


def test_settle_refuses_a_packer_as_declarer() -> None:
    with pytest.raises(ValueError):
        settle([SeatResult(j=0, q=4), SeatResult(j=0, s=0)], declarer=0)
    with pytest.raises(ValueError):
        SeatResult(j=0)


# --- S0: the seed's nine-player example (6.5) ---------------------------------------------------------------------------

SEED_RULES = DealRules("AS")
SEED_HANDS = {   # the five playing hands, each built to evaluate to the seed's own numbers
    "A": cards("2C 3C 4C 5C KS AS 2S QC KC JK 4H 5H 6H 8D 8H 8S"),
    "B": cards("2H 3H 4H 5H 3C 3D 3S 6C 6D 6S 9C 9D JK QC KC AD"),
    "C": cards("QC KC AC AH AH AD 8C 9C 4D 5D 7D TH JH 3S 6S 9S"),
    "D": cards("JS QS KS AS 2D 2D 2D 2S 4C 8C 3D 9D 5H 7H 4S 9S"),
    "I": cards("5S 5S 5S 7C 7C 7C 2C 6C TC 3D 6D JD 2H 8H QH 3S"),
}
SEED_KEPT = {"E": [], "F": ["AH"], "G": [], "H": ["AD"]}
SEED_PACKS = {"E": INITIAL_PACK_PENALTY, "F": INITIAL_PACK_PENALTY, "G": MID_PACK_PENALTY, "H": MID_PACK_PENALTY}
SEED_TABLE = {   # seat: j, bonus, penalty (6.5)
    "A": (0, 7, 0), "B": (2, 3, 0), "C": (7, 0, 12), "D": (0, 2, 4), "I": (0, 4, 12),
}
SEED_CHART = [
    [0, 2, 12, 9, 4, 2, 8, 6, 15],
    [-2, 0, 10, 7, 2, 0, 2, 0, 13],
    [-12, -10, 0, -3, 7, 5, 7, 5, 3],
    [-9, -7, 3, 0, 0, -2, 0, -2, 6],
    [-4, -2, -7, 0, 0, -2, 0, -2, 0],
    [-2, 0, -5, 2, 2, 0, 2, 0, 2],
    [-8, -2, -7, 0, 0, -2, 0, -2, 0],
    [-6, 0, -5, 2, 2, 0, 2, 0, 2],
    [-15, -13, -3, -6, 0, -2, 0, -2, 0],
]
SEED_NETS = (58, 32, 2, -11, -17, 1, -21, -3, -41)


def seed_seats() -> list[SeatResult]:
    seats = []
    for name in "ABCDEFGHI":
        if name in SEED_KEPT:
            seats.append(SeatResult(j=jewel_points(SEED_KEPT[name], SEED_RULES), q=SEED_PACKS[name]))
            continue
        hand = SEED_HANDS[name]
        arrangement = declarer_arrangement(hand, SEED_RULES) if name == "A" else best_arrangement(hand, SEED_RULES)
        assert arrangement is not None
        seats.append(SeatResult(j=jewel_points(hand, SEED_RULES), s=arrangement.s))
    return seats


def test_S0_hands_fit_in_the_pack() -> None:
    used = Counter(c for hand in SEED_HANDS.values() for c in hand)
    used.update(c for kept in SEED_KEPT.values() for c in kept)
    used["AS"] += 1                                             # the open card
    available = Counter(JEWEL_PACK)
    assert all(n <= available[c] for c, n in used.items()), used - available
    assert used["AH"] == used["AD"] == 3                        # all six jewels are dealt (6.5)


@pytest.mark.parametrize("name", sorted(SEED_TABLE))
def test_S0_each_playing_hand_evaluates_to_the_seed(name: str) -> None:
    hand = SEED_HANDS[name]
    j, bonus, penalty = SEED_TABLE[name]
    if name == "A":
        arrangement = declarer_arrangement(hand, SEED_RULES)
        assert arrangement is not None
        assert {g.kind for g in arrangement.triples if g.bonus} == {SUPER_SEQUENCE, SEQUENCE}
    else:
        assert not is_valid_declaration(hand, SEED_RULES)
        arrangement = best_arrangement(hand, SEED_RULES)
    assert (jewel_points(hand, SEED_RULES), arrangement.bonus, arrangement.penalty) == (j, bonus, penalty)
    assert_consistent(arrangement, hand, SEED_RULES, complete=name in "AB")


def test_S0_B_is_complete_but_has_no_auxiliary() -> None:
    arrangement = best_arrangement(SEED_HANDS["B"], SEED_RULES)
    assert not arrangement.full_hand and not arrangement.unarranged
    assert not any(g.auxiliary for g in arrangement.triples)
    married = [g for g in arrangement.triples if g.marriage]
    assert [g.cards for g in married] == [("QC", "KC", "AD")] and married[0].wild == ("AD",)


@pytest.mark.parametrize("drawn, declares", [("JC", True), ("AC", True), ("KH", False), ("4H", False)])
def test_S0_B_could_declare_only_by_drawing_the_club_jack_or_ace(drawn: str, declares: bool) -> None:
    from service.engine.games.jewel_hands import valid_declarations
    valid = valid_declarations(SEED_HANDS["B"] + [drawn], SEED_RULES)
    assert bool(valid) == declares
    if declares:
        assert "AD" in valid          # the jewel no longer needed beside QC KC


def test_S0_D_shows_his_compulsory_sequence() -> None:
    arrangement = best_arrangement(SEED_HANDS["D"], SEED_RULES)
    assert arrangement.compulsory is not None and arrangement.compulsory.cards == tuple(cards("JS QS KS AS"))
    assert len(arrangement.unarranged) == 9
    assert full_hand_arrangement(SEED_HANDS["D"], SEED_RULES).s == -6


def test_S0_settlement_reproduces_every_cell_and_net() -> None:
    result = settle(seed_seats(), declarer=0)
    for row, expected in zip(result.matrix, SEED_CHART):
        assert list(row) == expected
    assert result.nets == SEED_NETS


# --- consistency of a reported arrangement --------------------------------------------------------------------------

def assert_consistent(arrangement: Arrangement, hand: list[str], rules: DealRules, complete: bool) -> None:
    """The arrangement uses exactly the hand, every group is what it says, and the totals add up."""
    shown = [c for g in arrangement.groups for c in g.cards] + list(arrangement.unarranged)
    assert Counter(shown) == Counter(hand)
    if arrangement.full_hand:
        assert arrangement.compulsory is None and arrangement.penalty == FULL_HAND_PENALTY
        infos = [triple_info(g.cards, rules) for g in arrangement.triples]
        assert all(g.kind in (SUPER_SET, SUPER_SEQUENCE) for g in arrangement.triples)
        assert arrangement.bonus == sum(info.bonus_bare for info in infos if info is not None)
        assert None not in infos
        return
    assert arrangement.compulsory is not None and arrangement.compulsory.kind == COMPULSORY
    assert is_compulsory_sequence(arrangement.compulsory.cards)
    assert len(arrangement.triples) <= 4
    for group in arrangement.triples:
        info = triple_info(group.cards, rules)
        assert info is not None and group.kind in (SET, SEQUENCE, SUPER_SET, SUPER_SEQUENCE, ALL_WILD)
        assert group.bonus <= info.bonus_full and (not group.auxiliary or info.auxiliary)
        assert all(rules.is_wild_card(c) for c in group.wild)
    assert arrangement.bonus == sum(g.bonus for g in arrangement.groups)
    assert arrangement.penalty == card_count(arrangement.unarranged, rules)
    if complete:
        assert not arrangement.unarranged and len(arrangement.triples) == 4
        assert any(g.auxiliary for g in arrangement.triples) or not is_valid_declaration(hand, rules)


# --- the reference: the spec's literal searches (5.5, 6.1) ----------------------------------------------------------

@lru_cache(maxsize=None)
def ref_triple(triple: tuple[str, str, str], rules: DealRules) -> tuple[bool, bool, int]:
    info = triple_info(triple, rules)
    return (False, False, 0) if info is None else (True, info.auxiliary, info.bonus_full)


def ref_runs(hand: list[str]) -> set[tuple[str, ...]]:
    from itertools import combinations
    return {four for four in {tuple(sort_canonical(f)) for f in combinations(hand, 4)} if is_compulsory_sequence(four)}


def ref_remove(rest: tuple[str, ...], *taken: str) -> tuple[str, ...]:
    out = list(rest)
    for c in taken:
        out.remove(c)
    return tuple(out)


def ref_declare_bonus(hand: list[str], rules: DealRules) -> int | None:
    """5.5 literally: for each compulsory run, every partition of the rest into triples; the best bonus with aux."""
    @lru_cache(maxsize=None)
    def part(rest: tuple[str, ...], need_aux: bool) -> int | None:
        if not rest:
            return None if need_aux else 0
        x, others = rest[0], rest[1:]
        best = None
        for i in range(len(others)):
            for k in range(i + 1, len(others)):
                valid, aux, bonus = ref_triple(tuple(sorted((x, others[i], others[k]))), rules)
                if valid:
                    sub = part(ref_remove(others, others[i], others[k]), need_aux and not aux)
                    if sub is not None and (best is None or sub + bonus > best):
                        best = sub + bonus
        return best

    best = None
    for run in ref_runs(hand):
        found = part(tuple(sort_canonical(ref_remove(tuple(hand), *run))), True)
        if found is not None:
            total = found + (MARRIAGE_BONUS if run[0] == "J" + rules.marriage_suit else 0)
            best = total if best is None else max(best, total)
    return best


def ref_best_s(hand: list[str], rules: DealRules) -> int:
    """6.1 literally: option A over every selection of disjoint valid triples, against option B."""
    def value(card: str) -> tuple[int, int]:          # honours, spots of one unarranged card
        if card == JOKER or rules.is_jewel(card):
            return 0, 0
        return (1, 0) if card[0] in "JQKA" else (0, 1)

    @lru_cache(maxsize=None)
    def select(rest: tuple[str, ...], room: int) -> dict[int, int]:   # spot parity -> best 2 bonus - 2 honours - spots
        if not rest:
            return {0: 0}
        x, others = rest[0], rest[1:]
        honours, spots = value(x)
        out = {p ^ spots: v - 2 * honours - spots for p, v in select(others, room).items()}
        if room:
            for i in range(len(others)):
                for k in range(i + 1, len(others)):
                    valid, _aux, bonus = ref_triple(tuple(sorted((x, others[i], others[k]))), rules)
                    if valid:
                        for p, v in select(ref_remove(others, others[i], others[k]), room - 1).items():
                            out[p] = max(out.get(p, v + 2 * bonus), v + 2 * bonus)
        return out

    best = full_hand_arrangement(hand, rules).s
    for run in ref_runs(hand):
        married = MARRIAGE_BONUS if run[0] == "J" + rules.marriage_suit else 0
        for parity, v in select(tuple(sort_canonical(ref_remove(tuple(hand), *run))), 4).items():
            best = max(best, (v + parity) // 2 + married)
    return best


# --- property tests -----------------------------------------------------------------------------------------------------

OPEN_CARDS = cards("AS 2S TD 7D JH 5C KC 9H")


@st.composite
def dense_hands(draw: st.DrawFn, size: int) -> tuple[list[str], DealRules]:
    """Hands crowded with runs, sets, jokers and jewels: two suits, a window of ranks, the wild cards."""
    open_card = draw(st.sampled_from(OPEN_CARDS))
    rules = DealRules(open_card, all_wild_groups=draw(st.booleans()))
    suit_pair = draw(st.sampled_from([open_card[1] + s for s in SUITS if s != open_card[1]] + ["CD", "HS"]))
    low = draw(st.integers(0, 7))
    window = RANKS[low:low + 6]
    pack = list(JEWEL_PACK)
    pack.remove(open_card)
    pool = [c for c in pack if c == JOKER or rules.is_jewel(c) or c in rules.super_sequence
            or (c[1] in suit_pair and c[0] in window)]
    chosen = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True))
    return [pool[i] for i in chosen], rules


@settings(max_examples=150)
@given(dense_hands(17))
def test_valid_declarations_agrees_with_the_check_for_every_discard(case: tuple[list[str], DealRules]) -> None:
    from service.engine.games.jewel_hands import valid_declarations
    hand, rules = case
    expected = [d for d in sort_canonical(set(hand)) if is_valid_declaration(without(hand, d), rules)]
    assert valid_declarations(hand, rules) == expected


@settings(max_examples=60)
@given(dense_hands(16))
def test_declaration_matches_the_literal_search(case: tuple[list[str], DealRules]) -> None:
    hand, rules = case
    expected = ref_declare_bonus(hand, rules)
    arrangement = declarer_arrangement(hand, rules)
    assert is_valid_declaration(hand, rules) == (expected is not None)
    assert (arrangement.bonus if arrangement else None) == expected
    if arrangement is not None:
        assert_consistent(arrangement, hand, rules, complete=True)
        assert any(g.auxiliary for g in arrangement.triples)


@settings(max_examples=60)
@given(dense_hands(16))
def test_best_arrangement_matches_the_literal_search(case: tuple[list[str], DealRules]) -> None:
    hand, rules = case
    arrangement = best_arrangement(hand, rules)
    assert arrangement.s == ref_best_s(hand, rules)
    assert arrangement.s >= full_hand_arrangement(hand, rules).s
    assert_consistent(arrangement, hand, rules, complete=False)


@st.composite
def deal_results(draw: st.DrawFn) -> tuple[list[SeatResult], int | None]:
    n = draw(st.integers(2, 9))
    seats = []
    for _ in range(n):
        j = draw(st.sampled_from([0, 2, 4, 5, 7, 10, 12, 20]))
        if draw(st.booleans()):
            seats.append(SeatResult(j=j, s=draw(st.integers(-12, 19))))
        else:
            seats.append(SeatResult(j=min(j, 5), q=draw(st.sampled_from([INITIAL_PACK_PENALTY, MID_PACK_PENALTY]))))
    playing = [i for i, s in enumerate(seats) if s.playing]
    declarer = draw(st.sampled_from(playing)) if playing and draw(st.booleans()) else None
    return seats, declarer


@given(deal_results())
def test_settlement_is_zero_sum_antisymmetric_and_matches_the_closed_form(case: tuple[list[SeatResult], int | None]) -> None:
    seats, declarer = case
    result = settle(seats, declarer)
    n = len(seats)
    assert sum(result.nets) == 0
    assert all(result.matrix[i][k] == -result.matrix[k][i] for i in range(n) for k in range(n))
    total_j = sum(s.j for s in seats)
    total_s = sum(s.s for s in seats if s.s is not None)
    p = sum(1 for s in seats if s.playing)
    total_q = sum(s.q for s in seats if s.q is not None)
    for i, seat in enumerate(seats):
        closed = n * seat.j - total_j
        if seat.s is not None:
            closed += p * seat.s - total_s
        if i == declarer:
            closed += total_q
        if seat.q is not None and declarer is not None:
            closed -= seat.q
        assert result.nets[i] == closed


def test_hand_sizes_are_checked() -> None:
    from service.engine.games.jewel_hands import valid_declarations
    with pytest.raises(ValueError):
        is_valid_declaration(S2_HAND, S2_RULES)
    with pytest.raises(ValueError):
        valid_declarations(S2_HAND[:16], S2_RULES)
    with pytest.raises(ValueError):
        best_arrangement(cards("ZZ") + S2_HAND[:15], S2_RULES)


def test_canonical_index_rejects_non_cards() -> None:
    with pytest.raises(ValueError):
        canonical_index("1X")


# --- the benchmark's adversarial hands (bench/jewel_bench.py) -------------------------------------------------------

def built_cases() -> list[tuple[str, DealRules, tuple[str, ...]]]:
    from bench.jewel_bench import built_cases as cases
    return cases()


@pytest.mark.parametrize("name, rules, hand", built_cases(), ids=[c[0] for c in built_cases()])
def test_adversarial_hands_match_the_literal_search(name: str, rules: DealRules, hand: tuple[str, ...]) -> None:
    sixteen = list(hand[:16])
    declared = declarer_arrangement(sixteen, rules)
    assert (declared.bonus if declared else None) == ref_declare_bonus(sixteen, rules)
    assert best_arrangement(sixteen, rules).s == ref_best_s(sixteen, rules)
    from service.engine.games.jewel_hands import valid_declarations
    assert valid_declarations(list(hand), rules) == [
        d for d in sort_canonical(set(hand)) if is_valid_declaration(without(list(hand), d), rules)]


# --- rules the property tests reach only by chance -------------------------------------------------------------------

def test_R9_jack_to_ace_of_the_marriage_suit_is_a_marriage() -> None:
    rules = DealRules("AS", all_wild_groups=False)                 # marriage suit: clubs
    hand = cards("9C TC JC QC KC AC AD AH 2S 9S TS JS QS KS JK JK")
    declared = declarer_arrangement(hand, rules)
    assert declared is not None and declared.bonus == MARRIAGE_BONUS
    assert declared.compulsory is not None and declared.compulsory.marriage


def test_R10_R12_full_hand_counts_both_super_sequences() -> None:
    rules = DealRules("7D")
    hand = cards("6D 6D 6D 7D 7D 8D 8D 8D 2C 4C 6C 8C TC QH 3S 5S")
    bare = full_hand_arrangement(hand, rules)
    assert (bare.bonus, bare.s) == (8, -4)                        # not the two super sets 6D, 8D (4)
    assert [g.kind for g in bare.triples] == [SUPER_SEQUENCE, SUPER_SEQUENCE]
    assert best_arrangement(hand, rules).s == -4


def test_R5_a_wild_card_never_makes_a_super_sequence() -> None:
    info = triple_info(cards("6D JK 8D"), DealRules("7D"))
    assert info is not None and (info.kind, info.bonus_full, info.auxiliary) == (SEQUENCE, 0, False)
