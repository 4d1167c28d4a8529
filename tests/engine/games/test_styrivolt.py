"""Stýrivolt: every scenario of the spec behind docs/games/styrivolt.md, section 9 (E1-E3 from the seed, S1-S19), the rulings
the referee relies on, and the chalk-board equal to a replay of the deals' awards in random matches."""
from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.engine import InvalidDeal, InvalidState
from service.engine.games.styrivolt import GAME as STYRIVOLT
from service.engine.games.styrivolt_rules import (BEATER, LAMB, LEADER, PACK, PLAIN, STICKER, apply_award,
                                                  award_cross, award_strokes, card_class, fresh_board)

from ..playout import concrete, expect_illegal, hidden_after, outside_code_then_not_held

GAME = "styrivolt"
Board = dict[str, Any]
STICKERS_HD = ["2H", "4C", "8S", "9H", "9D", "AH", "AD", "JH", "JD"]  # every sticker with hearts and diamonds chosen


def deal(hands: dict[int, list[str]], chosen: tuple[str, str] | None = ("H", "D")) -> dict[str, Any]:
    """An explicit deal: the given hands, the other seats and then the stock filled in pack order."""
    used = {c for h in hands.values() for c in h}
    spare = [c for c in PACK if c not in used]
    full = []
    for s in range(4):
        given_cards = list(hands.get(s, []))
        fill = 9 - len(given_cards)
        full.append(given_cards + spare[:fill])
        spare = spare[fill:]
    out: dict[str, Any] = {"hands": full, "rest": spare}
    if chosen is not None:
        out["chosen"] = list(chosen)
    return out


def start(*deals: dict[str, Any], dealer: int = 0, **options: Any) -> dict[str, Any]:
    opts = {"chosen_suits_method": "preset", "stock_exchange": False, "first_dealer": dealer, **options}
    return engine.new_match(GAME, 4, opts, "5eed", deals=list(deals))


def move(state: dict[str, Any], seat: int, action: str, **params: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return engine.apply(state, {"seat": seat, "action": action, **params})


def play(state: dict[str, Any], *cards: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Each card played by the seat on turn; the events of all the plays."""
    events: list[dict[str, Any]] = []
    for card in cards:
        seat = engine.to_act(state)[0]
        state, news = move(state, seat, "play", card=card)
        events += news
    return state, events


def winners(events: list[dict[str, Any]]) -> list[int]:
    return [e["winner"] for e in events if e["type"] == "trick_won"]


def settled(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "deal_settled")


def trick_winner(leader: int, cards: list[str], chosen: tuple[str, str] = ("H", "D"), **options: Any) -> int:
    """The seat that wins a first trick of ``cards`` led by ``leader`` (the others follow clockwise)."""
    hands = {(leader + i) % 4: [c] for i, c in enumerate(cards)}
    state = start(deal(hands, chosen), dealer=(leader - 1) % 4, **options)
    _, events = play(state, *cards)
    return winners(events)[0]


# ----- the seed's examples ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("outcome", "award"), [
    ("game", {"kind": "strokes", "count": 1}), ("vol", {"kind": "strokes", "count": 2}),
    ("all_nine", {"kind": "strokes", "count": 3}), ("vol_alone", {"kind": "single", "count": 1}),
    ("all_nine_alone", {"kind": "double", "count": 1}), ("illegal_stock_take", {"kind": "single", "count": 1}),
])
def test_E1_deal_scores(outcome: str, award: dict[str, Any]) -> None:
    state = start(deal({}))
    assert STYRIVOLT.award(state, outcome) == award


def test_E1_value_scale_a_cross_is_three_strokes_and_a_double_two_crosses() -> None:
    board = fresh_board()
    award_strokes(board, 0, 1)
    award_strokes(board, 1, 1)
    award_strokes(board, 0, 2)  # three strokes (the opponents made one): a single cross
    assert board["crosses"] == {"side": "A", "singles": 1, "doubles": 0}
    award_cross(board, 1, "double")  # a double erases the lone single and draws one single (R13): worth 2
    assert board["crosses"] == {"side": "B", "singles": 1, "doubles": 0}


def test_E2_a_first_chalk_up() -> None:
    board = fresh_board()
    apply_award(board, 0, {"kind": "strokes", "count": 1})
    assert board == {"bars": [1, 0], "crosses": {"side": None, "singles": 0, "doubles": 0}}


def test_E3_cross_erases_cross() -> None:
    board = {"bars": [2, 1], "crosses": {"side": "B", "singles": 1, "doubles": 0}}
    award_strokes(board, 0, 1)
    assert board == fresh_board()


# ----- S1: the classes -----------------------------------------------------------------------------------------
def test_S1_classes_for_chosen_clubs_and_spades() -> None:
    classes: dict[str, list[str]] = {}
    for card in PACK:
        classes.setdefault(card_class(card, ("C", "S")), []).append(card)
    assert sorted(classes[STICKER]) == sorted(["2H", "4C", "8S", "9H", "9D", "AC", "AS", "JC", "JS"])
    assert sorted(classes[BEATER]) == sorted(["6C", "6S", "2C", "2S", "3C", "3S", "4S"])
    assert sorted(classes[LAMB]) == ["7C", "7S"]
    assert sorted(classes[LEADER]) == sorted(["KC", "QC", "9C", "8C", "5C", "KS", "QS", "9S", "5S"])
    assert [len(classes[k]) for k in (STICKER, BEATER, LAMB, LEADER, PLAIN)] == [9, 7, 2, 9, 21]
    assert {c for c in classes[PLAIN]} == ({c for c in PACK if c[1] in "HD"} - {"2H", "9H", "9D"})


def test_S1_class_counts_for_hearts_and_diamonds() -> None:
    counts = {k: sum(card_class(c, ("H", "D")) == k for c in PACK) for k in (STICKER, BEATER, LAMB, LEADER, PLAIN)}
    assert counts == {STICKER: 9, BEATER: 7, LAMB: 2, LEADER: 8, PLAIN: 22}


# ----- S2-S9: who wins a trick ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("scenario", "leader", "cards", "chosen", "options", "winner"), [
    ("S2_high_enough_beater", 1, ["9C", "4H", "8C", "5S"], "HD", {}, 2),
    ("S3_beater_not_high_enough", 1, ["9C", "4H", "KC", "3D"], "HD", {}, 3),
    ("S3_order_does_not_matter", 1, ["9C", "KC", "4H", "3D"], "HD", {}, 2),
    ("S4_six_does_not_beat_plain_ace", 0, ["5C", "7H", "6D", "AC"], "HD", {}, 3),
    ("S4_six_beats_plain_king", 0, ["5C", "7H", "6D", "KC"], "HD", {}, 2),
    ("S5_led_leader_same_suit_leader_wins", 2, ["QH", "KH", "5C", "KD"], "HD", {}, 3),
    ("S6_led_leader_falls_to_any_beater", 2, ["KD", "5S", "4D", "QD"], "HD", {}, 0),
    ("S7_led_lamb", 3, ["7D", "2H", "AH", "6D"], "HD", {}, 3),
    ("S8_equal_stickers_first_played", 0, ["5S", "AD", "AH", "KS"], "HD", {}, 1),
    ("S8_equal_stickers_primary_suit", 0, ["5S", "AD", "AH", "KS"], "HD", {"equal_rank_tiebreak": "primary_suit"}, 2),
    ("S9_sticker_order", 1, ["2C", "4S", "9H", "KC"], "CS", {}, 3),
    ("S9_highest_beater_six", 1, ["2C", "4S", "6S", "KC"], "CS", {}, 3),
    ("S9_led_beater_beats_lower", 1, ["2C", "4S", "3C", "KC"], "CS", {}, 1),
    ("S9_permanent_four_of_clubs", 1, ["4C", "4S", "3C", "KC"], "CS", {}, 1),
    ("S9_four_of_clubs_above_nine_of_hearts", 1, ["4C", "4S", "9H", "KC"], "CS", {}, 1),
    ("S9_two_of_hearts_beats_four_of_clubs", 1, ["4C", "4S", "2H", "KC"], "CS", {}, 3),
    ("R3_full_reach_six_beats_plain_ace", 0, ["5C", "7H", "6D", "AC"], "HD", {"beater_reach": "full"}, 2),
    ("R2_equal_beaters_led_one_wins", 0, ["6H", "6D", "5C", "KS"], "HD", {}, 0),
    ("R2_equal_beaters_primary_suit", 0, ["6D", "6H", "5C", "KS"], "HD", {"equal_rank_tiebreak": "primary_suit"}, 1),
    ("R7_other_chosen_suit_leader_cannot_win", 2, ["5H", "KD", "AC", "QS"], "HD", {}, 2),
    ("R4_unled_lamb_is_worthless", 0, ["2C", "7H", "7D", "3C"], "HD", {}, 3),
])
def test_S2_to_S9_trick_winners(scenario: str, leader: int, cards: list[str], chosen: str, options: dict[str, Any],
                                winner: int) -> None:
    assert trick_winner(leader, cards, (chosen[0], chosen[1]), **options) == winner


# ----- S10: legal moves ----------------------------------------------------------------------------------------
S10_HANDS = {0: ["6C", "4S", "QD", "JC", "9S", "5H", "2H", "4C", "8S"],
             1: ["AC", "2S", "KD", "7C", "5S", "KH", "KS", "9H", "9D"],
             2: ["3C", "QS", "5D", "8C", "6S", "8H", "AS", "7H", "2C"],
             3: ["5C", "3S", "8D", "9C", "7S", "QH", "JS", "QC", "KC"]}
S10_TRICKS = [["AC", "3C", "5C", "6C"], ["2S", "QS", "3S", "4S"], ["5D", "8D", "QD", "KD"],
              ["7C", "8C", "9C", "JC"], ["9S", "5S", "6S", "7S"], ["5H", "KH", "8H", "QH"]]


@pytest.mark.parametrize(("follow", "legal", "refused"), [
    (False, {"AS", "7H", "2C"}, {}),
    (True, {"AS"}, {"2C": "must_follow_suit", "7H": "must_follow_suit"}),
])
def test_S10_legal_moves(follow: bool, legal: set[str], refused: dict[str, str]) -> None:
    state = start(deal(S10_HANDS), dealer=0, follow_suit=follow)
    events: list[dict[str, Any]] = []
    for cards in S10_TRICKS:
        state, news = play(state, *cards)
        events += news
    assert winners(events) == [1, 2, 1, 0, 0, 1]
    state, _ = play(state, "KS")
    assert state["hands"][2] == ["AS", "7H", "2C"] and engine.to_act(state) == [2]
    assert {m["card"] for m in engine.legal_moves(state)} == legal
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 2, "action": "play", "card": card}, reason)


# ----- S11: the stock ------------------------------------------------------------------------------------------
BARE = ["KC", "QC", "9S", "5S", "3S", "KH", "8D", "5H", "2C"]


def test_S11_only_bare_hands_are_asked_and_the_taker_discards_twelve() -> None:
    state = start(deal({1: BARE, 2: ["7H"], 3: ["2H"], 0: ["4C"]}), dealer=0, stock_exchange=True)
    assert state["phase"] == "stock"
    assert engine.legal_moves(state) == [{"seat": 1, "action": "take_stock"}, {"seat": 1, "action": "pass_stock"}]
    expect_illegal(state, {"seat": 3, "action": "take_stock"}, "not_your_turn")
    stock = list(state["rest"])
    state, events = move(state, 1, "take_stock")
    assert len(state["hands"][1]) == 21 and state["phase"] == "stock_discard"
    assert events == [{"type": "take_stock", "seat": 1, "legal": True}]
    [entry] = engine.legal_moves(state)
    assert entry["cards"] == state["turned"] + stock
    assert entry["ranges"] == {"cards": {"choose": 12, "from": state["hands"][1]}}
    expect_illegal(state, {"seat": 3, "action": "take_stock"}, "wrong_phase")
    assert hidden_after(state, entry) == ["cards"]  # left out of the public log until the match is over
    state, events = engine.apply(state, entry)
    assert events == [{"type": "discard", "seat": 1}]
    assert state["hands"][1] == BARE and state["phase"] == "play" and engine.to_act(state) == [1]


def test_S11_a_discard_keeping_stock_cards() -> None:
    state = start(deal({1: BARE, 2: ["7H"], 3: ["2H"], 0: ["4C"]}), dealer=0, stock_exchange=True)
    state, _ = move(state, 1, "take_stock")
    hand = state["hands"][1]
    throw = hand[:12]
    state, _ = move(state, 1, "discard", cards=throw)
    assert sorted(state["hands"][1]) == sorted(hand[12:]) and state["discards"] == throw
    assert engine.view(state, 1)["discards"] == throw
    assert all(engine.view(state, s)["discards"] is None for s in (None, 0, 2, 3))


@pytest.mark.parametrize(("cards", "reason"), [  # JH and QH came from the stock
    (BARE + ["JH", "QH"], "wrong_discard_count"),
    (BARE + ["JH", "QH", "JH"], "wrong_discard_count"),  # a repeat is a wrong count (R18)
    (BARE + ["JH", "QH", "2H"], "card_not_in_hand"),  # seat 3's card
    (BARE + ["JH", "QH", "TH"], "invalid_parameters"),  # a card of no Stýrivolt pack (the contract's precedence)
    (BARE + ["JH", "QH", "2H", "3H"], "wrong_discard_count"),  # the count comes first
])
def test_R18_discard_refusals(cards: list[str], reason: str) -> None:
    state = start(deal({1: BARE, 2: ["7H"], 3: ["2H"], 0: ["4C"]}), dealer=0, stock_exchange=True)
    state, _ = move(state, 1, "take_stock")
    expect_illegal(state, {"seat": 1, "action": "discard", "cards": cards}, reason)
    expect_illegal(state, {"seat": 1, "action": "discard", "cards": "KC"}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "discard"}, "invalid_parameters")


def test_R8_pass_moves_on_and_no_bare_hand_skips_the_stock() -> None:
    both = deal({1: BARE, 3: ["KS", "QS", "9C", "5C", "3C", "KD", "8H", "5D", "2S"], 2: ["7H"], 0: ["4C"]})
    state = start(both, dealer=0, stock_exchange=True)
    state, _ = move(state, 1, "pass_stock")
    assert engine.legal_moves(state) == [{"seat": 3, "action": "take_stock"}, {"seat": 3, "action": "pass_stock"}]
    state, _ = move(state, 3, "pass_stock")
    assert state["phase"] == "play" and engine.to_act(state) == [1]
    strong = start(deal({s: [STICKERS_HD[s]] for s in range(4)}), stock_exchange=True)
    assert strong["phase"] == "play"


def test_R25_forehand_may_declare_suits_that_leave_his_hand_bare_and_take_the_stock() -> None:
    hand = ["KC", "QC", "8C", "5C", "3S", "QS", "KS", "9S", "5S"]
    fixed = {k: v for k, v in deal({1: hand, 0: ["2H"], 2: ["4C"], 3: ["8S"]}).items() if k != "chosen"}
    state = engine.new_match(GAME, 4, {"chosen_suits_method": "forehand_declares"}, "5eed", deals=[fixed])
    assert state["phase"] == "choose_suits" and state["turned"] == [] and state["chosen"] is None
    assert len(engine.legal_moves(state)) == 12
    state, events = move(state, 1, "choose_suits", suits=["H", "D"])
    assert events == [{"type": "choose_suits", "seat": 1, "suits": ["H", "D"]}]
    assert state["phase"] == "stock" and engine.to_act(state) == [1]
    state, _ = move(state, 1, "take_stock")
    assert state["phase"] == "stock_discard"


@pytest.mark.parametrize("suits", [["H"], ["H", "H"], ["H", "X"], ["H", "D", "C"], "HD", ["CD", "H"], ["", "H"]])
def test_choose_suits_needs_two_different_suits(suits: Any) -> None:
    state = engine.new_match(GAME, 4, {"chosen_suits_method": "forehand_declares"}, "5eed")
    expect_illegal(state, {"seat": 1, "action": "choose_suits", "suits": suits}, "invalid_parameters")
    expect_illegal(state, {"seat": 2, "action": "choose_suits", "suits": suits}, "not_your_turn")


# ----- S12, S13: the end of a deal -----------------------------------------------------------------------------
S12_HANDS = {0: ["2C", "3C", "5C", "6C", "7C", "8C", "9C", "JC", "QC"],
             1: ["2H", "3S", "4S", "5S", "6S", "7S", "9S", "JS", "QS"],
             2: ["4C", "8S", "9H", "9D", "AH", "2S", "KS", "AS", "KC"],
             3: ["AC", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "QD"]}
S12_TRICKS = [["2C", "2H", "2S", "AC"], ["3S", "4C", "2D", "3C"], ["8S", "3D", "5C", "4S"],
              ["9H", "4D", "6C", "5S"], ["9D", "5D", "7C", "6S"], ["AH", "6D", "8C", "7S"]]


def test_S12_the_game_ends_the_deal_early() -> None:
    state = start(deal(S12_HANDS), dealer=3)
    events: list[dict[str, Any]] = []
    for cards in S12_TRICKS:
        assert state["deal_no"] == 1
        state, news = play(state, *cards)
        events += news
    assert winners(events) == [1, 2, 2, 2, 2, 2]
    result = settled(events)
    assert (result["outcome"], result["side"], result["award"]) == ("game", "A", {"kind": "strokes", "count": 1})
    assert result["tricks"] == [5, 1] and result["board"]["bars"] == [1, 0]
    assert state["dealer"] == 0 and state["deal_no"] == 2 and state["tricks"] == []  # the next deal: no trick 7
    assert events[-1]["type"] == "deal_started" and state["history"][0]["tricks"] == [5, 1]


# Side A's vol: seat 0 takes tricks 1-2 with 2H and 4C, seat 2 tricks 3-5 with 9H, 9D, AH (leading from trick 4).
VOL_HANDS = {0: ["2H", "4C", "2C", "3C", "5C", "6C", "7C", "8C", "9C"],
             1: ["2S", "3S", "4S", "5S", "6S", "7S", "9S", "JS", "QS"],
             2: ["8S", "9H", "9D", "AH", "AD", "JH", "JD", "7H", "JC"],
             3: ["KS", "AS", "QC", "KC", "2D", "3D", "4D", "AC", "5D"]}


def vol_for_a(split: bool, second: str = "JC") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Side A makes the vol: seat 0 wins tricks 1-2 and seat 2 tricks 3-5 (``split``; seat 2 plays ``second``
    to trick 2), or seat 0 all five."""
    if not split:
        state = start(deal({0: STICKERS_HD, 2: ["7H", "7D"]}), dealer=3)
        events: list[dict[str, Any]] = []
        for lead in STICKERS_HD[:5]:
            state, news = play(state, lead, *[state["hands"][k][0] for k in (1, 2, 3)])
            events += news
        return state, events
    state = start(deal(VOL_HANDS), dealer=3)
    return play(state, "2H", "2S", "8S", "KS", "4C", "3S", second, "AS", "2C", "4S", "9H", "QC",
                "9D", "KC", "3C", "5S", "AH", "2D", "5C", "6S")


def continue_a(second: str, *cards: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    state, _ = vol_for_a(True, second)
    state, events = move(state, 2, "continue")
    assert events == [{"type": "continue", "seat": 2}] and engine.to_act(state) == [2]
    state, news = play(state, *cards)
    return state, events + news


def test_S13a_vol_stop_by_both_partners_scores_two_strokes() -> None:
    state, events = vol_for_a(True)
    assert winners(events) == [0, 0, 2, 2, 2] and state["phase"] == "vol_decision"
    assert events[-1] == {"type": "vol_made", "side": "A", "seat": 2}
    assert engine.legal_moves(state) == [{"seat": 2, "action": "stop"}, {"seat": 2, "action": "continue"}]
    expect_illegal(state, {"seat": 0, "action": "stop"}, "not_your_turn")
    expect_illegal(state, {"seat": 2, "action": "play", "card": "JD"}, "wrong_phase")
    state, events = move(state, 2, "stop")
    assert settled(events)["award"] == {"kind": "strokes", "count": 2} and settled(events)["outcome"] == "vol"
    assert state["board"]["bars"] == [2, 0] and state["history"][0]["tricks"] == [5, 0]


def test_S13b_vol_by_one_partner_scores_a_single_cross() -> None:
    state, events = vol_for_a(False)
    assert winners(events) == [0] * 5
    state, events = move(state, 0, "stop")
    assert settled(events)["outcome"] == "vol_alone" and settled(events)["changes"] == [1, -1, 1, -1]
    assert state["board"] == {"bars": [0, 0], "crosses": {"side": "A", "singles": 1, "doubles": 0}}


def test_S13c_all_nine_after_continue() -> None:
    state, events = continue_a("JC", "AD", "3D", "6C", "7S", "JH", "4D", "7C", "9S",
                               "JD", "AC", "8C", "JS", "7H", "5D", "9C", "QS")
    assert winners(events) == [2, 2, 2, 2]
    assert settled(events)["outcome"] == "all_nine" and settled(events)["award"] == {"kind": "strokes", "count": 3}
    assert state["board"] == {"bars": [0, 0], "crosses": {"side": "A", "singles": 0, "doubles": 1}}  # monk's cross


def test_S13c_all_nine_by_one_player_is_a_double() -> None:
    state, _ = vol_for_a(False)
    state, events = move(state, 0, "continue")
    for lead in STICKERS_HD[5:]:
        state, news = play(state, lead, *[state["hands"][k][-1] for k in (1, 2, 3)])
        events += news
    assert settled(events)["outcome"] == "all_nine_alone"
    assert state["board"]["crosses"] == {"side": "A", "singles": 0, "doubles": 1} and state["board"]["bars"] == [0, 0]


def test_R26_three_strokes_against_one_are_a_single_cross() -> None:
    board = {"bars": [0, 1], "crosses": {"side": None, "singles": 0, "doubles": 0}}
    apply_award(board, 0, {"kind": "strokes", "count": 3})
    assert board == {"bars": [0, 0], "crosses": {"side": "A", "singles": 1, "doubles": 0}}


def test_S13d_failure_after_continue() -> None:
    state, events = continue_a("JD", "AD", "3D", "6C", "7S", "JH", "4D", "7C", "9S", "JC", "AC", "8C", "JS")
    assert winners(events) == [2, 2, 3]
    result = settled(events)
    assert (result["outcome"], result["side"]) == ("failed_all_nine", "B")
    assert result["award"] == {"kind": "strokes", "count": 2}
    assert result["changes"] == [0, 0, 0, 0] and result["tricks"] == [7, 1]
    assert state["board"]["bars"] == [0, 2] and state["deal_no"] == 2


@pytest.mark.parametrize(("penalty", "award"), [("1_stroke", ("strokes", 1)), ("3_strokes", ("strokes", 3)),
                                                ("1_cross", ("single", 1))])
def test_R10_failure_penalty_option(penalty: str, award: tuple[str, int]) -> None:
    state = start(deal({}), failed_all_nine_penalty=penalty)
    assert STYRIVOLT.award(state, "failed_all_nine") == {"kind": award[0], "count": award[1]}


# ----- S14-S18: the chalk-board --------------------------------------------------------------------------------
S14 = [  # deal, side, award, bars after, crosses after
    (0, ("strokes", 1), [1, 0], (None, 0, 0)),
    (1, ("strokes", 2), [1, 2], (None, 0, 0)),
    (1, ("strokes", 1), [0, 0], ("B", 1, 0)),
    (0, ("strokes", 3), [0, 0], ("A", 1, 0)),
    (1, ("single", 1), [0, 0], (None, 0, 0)),
    (1, ("strokes", 1), [0, 1], (None, 0, 0)),
    (0, ("single", 1), [0, 1], ("A", 1, 0)),
    (1, ("double", 1), [0, 1], ("B", 1, 0)),
]


def test_S14_eight_deal_chalk_board_history() -> None:
    board = fresh_board()
    for i, (side, (kind, count), bars, (holder, singles, doubles)) in enumerate(S14):
        apply_award(board, side, {"kind": kind, "count": count})
        assert board == {"bars": bars, "crosses": {"side": holder, "singles": singles, "doubles": doubles}}, i + 1
    final = {"phase": "over", "board": board, "history": [], "options": {"stake_per_cross": 1}}
    result = STYRIVOLT.result(final)
    assert result is not None
    assert (result["scores"], result["payoffs"], result["ranking"]) == ([0, 1, 0, 1], [-1, 1, -1, 1], [1, 3, 0, 2])


# S14 played through the referee: eight scripted deals, dealers 0, 1, 2, 3, 0, 1, 2, 3.
S14_DEALS = [("A", "game"), ("B", "vol"), ("B", "game"), ("A", "all_nine"), ("B", "vol_alone"), ("B", "game"),
             ("A", "vol_alone"), ("B", "all_nine_alone")]
POWER = {STICKER, LAMB, BEATER}


def scripted_deal(side: str, outcome: str) -> dict[str, Any]:
    """The strong side (the scorer, or for a failure the side that plays on) holds every sticker and lamb: its
    first seat all the stickers when it plays alone, else the five permanent ones and its partner the rest."""
    first = "AB".index(side) if outcome != "failed_all_nine" else 1 - "AB".index(side)
    if outcome.endswith("_alone"):
        return deal({first: STICKERS_HD, first + 2: ["7H", "7D"]})
    if outcome == "failed_all_nine":  # strong enough for six tricks, not for the seventh
        return deal({first: STICKERS_HD[:3], first + 2: STICKERS_HD[5:8]})
    return deal({first: STICKERS_HD[:5], first + 2: STICKERS_HD[5:] + ["7H", "7D"]})


def win_trick(state: dict[str, Any], targets: set[int]) -> dict[str, Any]:
    """A trick won by one of ``targets``, spending as few strong cards (stickers, beaters, lambs) as possible."""
    table = STYRIVOLT.table(state)
    leader = engine.to_act(state)[0]
    seats = [(leader + i) % 4 for i in range(4)]
    tricks = [cards for cards in itertools.product(*[state["hands"][s] for s in seats])
              if seats[table.winning_index(cards, None)] in targets]
    assert tricks, "no such trick"
    best = min(tricks, key=lambda cards: sum(table.kind[c][0] in POWER for c in cards))
    return play(state, *best)[0]


def play_scripted(state: dict[str, Any], side: str, outcome: str) -> dict[str, Any]:
    """Play one scripted deal (``scripted_deal``) to its outcome, scored by ``side`` (checked in its record)."""
    strong = "AB".index(side) if outcome != "failed_all_nine" else 1 - "AB".index(side)
    both, others = {strong, strong + 2}, {1 - strong, 3 - strong}
    split = [{strong}, {strong}, {strong + 2}, {strong + 2}, {strong + 2}]
    plan = {"game": [others] + [both] * 5, "vol": split, "all_nine": split + [both] * 4,
            "failed_all_nine": split + [both, others], "vol_alone": [{strong}] * 5, "all_nine_alone": [{strong}] * 9}
    number = state["deal_no"]
    for i, targets in enumerate(plan[outcome]):
        state = win_trick(state, targets)
        if i == 4 and state["phase"] == "vol_decision":
            state, _ = move(state, engine.to_act(state)[0], "stop" if outcome in ("vol", "vol_alone") else "continue")
    assert state["deal_no"] == number + 1 or engine.is_finished(state)
    record = state["history"][number - 1]
    assert (record["side"], record["outcome"]) == (side, outcome)
    return state


def play_deals(script: list[tuple[str, str]], **options: Any) -> dict[str, Any]:
    state = start(*[scripted_deal(side, outcome) for side, outcome in script], dealer=0, **options)
    for side, outcome in script:
        state = play_scripted(state, side, outcome)
    return state


def test_S14_the_eight_deals_played_through() -> None:
    state = start(*[scripted_deal(side, outcome) for side, outcome in S14_DEALS], dealer=0, deals=8)
    for i, ((side, outcome), (_, _, bars, (holder, singles, doubles))) in enumerate(zip(S14_DEALS, S14)):
        assert state["dealer"] == i % 4
        state = play_scripted(state, side, outcome)
        assert state["board"] == {"bars": bars, "crosses": {"side": holder, "singles": singles, "doubles": doubles}}
    assert engine.is_finished(state)
    result = engine.result(state)
    assert result is not None
    assert (result["scores"], result["payoffs"], result["ranking"]) == ([0, 1, 0, 1], [-1, 1, -1, 1], [1, 3, 0, 2])
    assert [(d["side"], d["outcome"]) for d in result["deals"]] == S14_DEALS


@pytest.mark.parametrize(("scenario", "deals", "bars", "crosses"), [
    ("S15_overflow_and_the_monks_cross", [("A", "vol"), ("A", "vol")], [1, 0], ("A", 0, 1)),
    ("S16_gelding_the_monk", [("B", "all_nine"), ("A", "vol"), ("B", "game"), ("A", "game")], [0, 0], ("B", 1, 0)),
    ("S16_a_single_before_gelding", [("B", "all_nine"), ("A", "vol"), ("B", "game"), ("A", "game"),
                                     ("B", "all_nine"), ("A", "vol_alone")], [0, 0], ("B", 0, 1)),
    ("S17_failure_penalty_wins_a_monks_cross", [("B", "vol"), ("B", "failed_all_nine")], [0, 1], ("B", 0, 1)),
    ("E3_cross_erases_cross", [("B", "vol_alone"), ("B", "game"), ("A", "vol"), ("A", "game")], [0, 0], (None, 0, 0)),
    ("S13c_R26_all_nine_against_a_stroke", [("B", "game"), ("A", "all_nine")], [0, 0], ("A", 1, 0)),
    ("S13c_all_nine_from_a_fresh_board", [("A", "all_nine")], [0, 0], ("A", 0, 1)),
])
def test_boards_played_through(scenario: str, deals: list[tuple[str, str]], bars: list[int],
                                   crosses: tuple[str, int, int]) -> None:
    """The deals before each scenario's last one set up its starting board (S15: bars [2, 0]; S16: B's monk's
    cross and bars [2, 1]; S17: bars [0, 2]; E3: B's single and bars [2, 1]; R26: bars [0, 1]); the last deal is
    the scenario."""
    state = play_deals(deals, deals=len(deals) + 1)
    assert state["board"] == {"bars": bars, "crosses": dict(zip(("side", "singles", "doubles"), crosses))}


def test_S15_overflow_and_the_monks_cross() -> None:
    board = {"bars": [2, 0], "crosses": {"side": None, "singles": 0, "doubles": 0}}
    apply_award(board, 0, {"kind": "strokes", "count": 2})
    assert board == {"bars": [1, 0], "crosses": {"side": "A", "singles": 0, "doubles": 1}}


def test_S16_gelding_the_monk() -> None:
    board: Board = {"bars": [2, 1], "crosses": {"side": "B", "singles": 0, "doubles": 1}}
    apply_award(board, 0, {"kind": "strokes", "count": 1})
    assert board == {"bars": [0, 0], "crosses": {"side": "B", "singles": 1, "doubles": 0}}
    board["crosses"]["doubles"] = 1
    award_cross(board, 0, "single")
    assert board["crosses"] == {"side": "B", "singles": 0, "doubles": 1}  # a single first, never gelding


@pytest.mark.parametrize(("crosses", "kind", "after"), [
    (("B", 0, 2), "double", ("B", 0, 1)),
    (("B", 3, 0), "double", ("B", 1, 0)),
    (("B", 2, 0), "double", (None, 0, 0)),
    (("B", 1, 1), "double", ("B", 1, 0)),
    (("A", 1, 1), "double", ("A", 1, 2)),
    ((None, 0, 0), "single", ("A", 1, 0)),
])
def test_award_cross_cases(crosses: tuple[Any, int, int], kind: str, after: tuple[Any, int, int]) -> None:
    board = {"bars": [0, 0], "crosses": dict(zip(("side", "singles", "doubles"), crosses))}
    award_cross(board, 0, kind)
    assert board["crosses"] == dict(zip(("side", "singles", "doubles"), after))


def test_S17_failure_penalty_wins_a_monks_cross_for_the_opponents() -> None:
    board = {"bars": [0, 2], "crosses": {"side": None, "singles": 0, "doubles": 0}}
    apply_award(board, 1, {"kind": "strokes", "count": 2})
    assert board == {"bars": [0, 1], "crosses": {"side": "B", "singles": 0, "doubles": 1}}


def all_nine_alone(dealer: int) -> dict[str, Any]:
    return deal({(dealer + 2) % 4 if dealer % 2 == 1 else 0: STICKERS_HD, 2: ["7H", "7D"]})


def sweep(state: dict[str, Any], stop_after_vol: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Seat 0 holds every sticker and wins every trick (the others play their first card)."""
    events: list[dict[str, Any]] = []
    number = state["deal_no"]
    while state["phase"] == "play" and state["deal_no"] == number:
        seat = engine.to_act(state)[0]
        card = state["hands"][seat][0]
        state, news = move(state, seat, "play", card=card)
        events += news
        if state["phase"] == "vol_decision":
            state, news = move(state, 0, "stop" if stop_after_vol else "continue")
            events += news
    return state, events


def test_S18_match_end_by_crosses() -> None:
    boards = [deal({0: STICKERS_HD, 2: ["7H", "7D"]}), deal({0: STICKERS_HD, 2: ["7H", "7D"]})]
    state = start(*boards, dealer=3, match_end="crosses", target_crosses=3)
    state, events = sweep(state, stop_after_vol=True)
    assert state["board"]["crosses"] == {"side": "A", "singles": 1, "doubles": 0} and not engine.is_finished(state)
    assert engine.to_act(state) == [1]  # dealer 0: forehand leads
    state, events = sweep(state, stop_after_vol=False)
    assert settled(events)["outcome"] == "all_nine_alone"
    assert engine.is_finished(state) and events[-1]["type"] == "match_over"
    result = engine.result(state)
    assert result is not None and result["payoffs"] == [3, -3, 3, -3] and result["scores"] == [3, 0, 3, 0]
    assert [d["outcome"] for d in result["deals"]] == ["vol_alone", "all_nine_alone"]
    assert result["deals"][1] == {"deal": 2, "dealer": 0, "chosen": ["H", "D"], "tricks": [9, 0],
                                  "outcome": "all_nine_alone", "side": "A", "award": {"kind": "double", "count": 1}}
    expect_illegal(state, {"seat": 0, "action": "play", "card": "2H"}, "match_over")


def test_match_end_after_the_deals_and_stake() -> None:
    boards = [deal({0: STICKERS_HD, 2: ["7H", "7D"]})] * 2
    state = start(*boards, dealer=3, deals=2, stake_per_cross=5)
    state, _ = sweep(state, stop_after_vol=True)
    state, events = sweep(state, stop_after_vol=True)
    assert engine.is_finished(state)
    result = engine.result(state)
    assert result is not None and result["payoffs"] == [10, -10, 10, -10] and result["ranking"] == [0, 2, 1, 3]
    assert result["board"]["crosses"] == {"side": "A", "singles": 2, "doubles": 0}


# ----- S19: a penalized illegal take ---------------------------------------------------------------------------
def test_S19_penalized_illegal_stock_take() -> None:
    state = start(deal({1: ["JH"]}), dealer=3, stock_exchange=True, illegal_stock_take="penalize")
    assert engine.legal_moves(state) == [{"seat": 0, "action": "take_stock"}, {"seat": 0, "action": "pass_stock"}]
    state, _ = move(state, 0, "pass_stock")
    state, events = move(state, 1, "take_stock")
    assert events[0] == {"type": "take_stock", "seat": 1, "legal": False}
    result = settled(events)
    assert (result["outcome"], result["side"]) == ("illegal_stock_take", "A")
    assert result["award"] == {"kind": "single", "count": 1}
    assert state["board"] == {"bars": [0, 0], "crosses": {"side": "A", "singles": 1, "doubles": 0}}
    assert state["dealer"] == 0 and state["deal_no"] == 2


def test_R20_illegal_take_ends_a_settled_deal_in_every_respect() -> None:
    state = start(deal({1: ["JH"]}), dealer=0, stock_exchange=True, illegal_stock_take="penalize", match_end="open")
    state, _ = move(state, 1, "take_stock")
    assert state["phase"] == "between_deals"
    last = start(deal({1: ["JH"]}), dealer=0, stock_exchange=True, illegal_stock_take="penalize", deals=1)
    last, _ = move(last, 1, "take_stock")
    assert engine.is_finished(last) and engine.result(last)["payoffs"] == [1, -1, 1, -1]  # type: ignore[index]


# ----- the open match --------------------------------------------------------------------------------------------
def test_open_match_pauses_between_deals() -> None:
    state = start(deal({0: STICKERS_HD, 2: ["7H", "7D"]}), dealer=3, match_end="open")
    state, _ = sweep(state, stop_after_vol=True)
    assert state["phase"] == "between_deals" and engine.to_act(state) == [0, 1, 2, 3]
    assert len(engine.legal_moves(state)) == 8 and engine.view(state, None)["turn"] is None
    expect_illegal(state, {"seat": 0, "action": "play", "card": "2H"}, "wrong_phase")
    nxt, events = move(state, 3, "next_deal")
    assert events[0] == {"type": "next_deal", "seat": 3} and events[1]["type"] == "deal_started"
    assert nxt["deal_no"] == 2 and nxt["dealer"] == 0
    over, events = move(state, 2, "end_session")
    assert engine.is_finished(over) and engine.result(over)["payoffs"] == [1, -1, 1, -1]  # type: ignore[index]
    empty = start(deal({}), match_end="open")
    expect_illegal(empty, {"seat": 0, "action": "end_session"}, "wrong_phase")


def test_R17_verbs_switched_off_are_wrong_phase() -> None:
    state = start(deal({}))
    for action in ("choose_suits", "take_stock", "pass_stock", "discard", "stop", "continue", "end_session"):
        expect_illegal(state, {"seat": 1, "action": action}, "wrong_phase")
    expect_illegal(state, {"seat": 1, "action": "claim"}, "unknown_action")
    expect_illegal(state, {"seat": 4, "action": "play", "card": "2H"}, "invalid_parameters")
    expect_illegal(state, {"seat": 2, "action": "play", "card": "2H"}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "play", "card": 7}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "play", "card": "TH"}, "invalid_parameters")  # no Tens in the pack


# ----- the deal: chosen suits, explicit deals, seeded order ---------------------------------------------------------
def test_turn_up_colour_and_turn_two() -> None:
    top = ["5S", "6S", "2D"]
    others = [c for c in PACK if c not in top]
    fixed = {"hands": [others[9 * s:9 * s + 9] for s in range(4)], "rest": top + others[36:]}
    colour = engine.new_match(GAME, 4, {}, "5eed", deals=[fixed])
    assert colour["turned"] == ["5S"] and colour["chosen"] == ["S", "C"]
    two = engine.new_match(GAME, 4, {"chosen_suits_method": "turn_two"}, "5eed", deals=[fixed])
    assert two["turned"] == ["5S", "6S", "2D"] and two["chosen"] == ["S", "D"]
    assert engine.view(two, None)["turned"] == ["5S", "6S", "2D"] and "rest" not in engine.view(two, 0)


def test_turn_two_with_a_stock_of_one_suit() -> None:
    spades = [c for c in PACK if c[1] == "S"]
    others = [c for c in PACK if c[1] != "S"]
    fixed = {"hands": [others[9 * s:9 * s + 9] for s in range(4)], "rest": spades}
    state = engine.new_match(GAME, 4, {"chosen_suits_method": "turn_two"}, "5eed", deals=[fixed])
    assert state["chosen"] == ["S", "C"] and state["turned"] == spades and state["rest"] == []


def test_R23_seeded_deal_order() -> None:
    state = engine.new_match(GAME, 4, {"first_dealer": 2}, "abc")
    from service.engine.rng import shuffled
    cards = shuffled(PACK, "abc", "styrivolt/0")
    for k in range(36):
        assert cards[k] in state["hands"][(2 + 1 + k // 3) % 4]
    assert state["turned"] == [cards[36]] and state["rest"] == cards[37:]


@pytest.mark.parametrize(("options", "fixed", "message"), [
    ({"chosen_suits_method": "preset"}, {"chosen": None}, "two different suit letters"),
    ({"chosen_suits_method": "preset"}, {"chosen": ["H", "H"]}, "two different suit letters"),
    ({"chosen_suits_method": "preset"}, {"chosen": ["H", 1]}, "two different suit letters"),
    ({"chosen_suits_method": "preset"}, {"chosen": ["H", "D", "C"]}, "two different suit letters"),
    ({"chosen_suits_method": "preset"}, {"chosen": ["HD", "C"]}, "two different suit letters"),
    ({"chosen_suits_method": "preset"}, {}, "needs 'chosen'"),
    ({}, {"chosen": ["H", "D"]}, "only with"),
    ({"chosen_suits_method": "turn_two"}, {"chosen": ["H", "D"]}, "only with"),
    ({"chosen_suits_method": "preset"}, {"chosen": ["H", "D"], "rest": ["2C"]}, "pack"),
])
def test_explicit_deal_refusals(options: dict[str, Any], fixed: dict[str, Any], message: str) -> None:
    bad = {k: v for k, v in deal({}).items() if k != "chosen"}
    bad.update(fixed)
    with pytest.raises(InvalidDeal) as err:
        engine.new_match(GAME, 4, options, "5eed", deals=[bad])
    assert message in err.value.message


def test_preset_with_a_seed_turns_up_for_later_deals() -> None:
    state = start(deal({0: STICKERS_HD, 2: ["7H", "7D"]}, ("C", "S")), dealer=3)
    assert state["chosen"] == ["C", "S"] and state["turned"] == []
    state, _ = sweep(state, stop_after_vol=True)
    assert state["deal_no"] == 2 and len(state["turned"]) == 1 and state["chosen"][0] == state["turned"][0][1]


# ----- states and views ------------------------------------------------------------------------------------------
def test_forged_board_or_history_is_invalid_state() -> None:
    state = start(deal({0: STICKERS_HD, 2: ["7H", "7D"]}), dealer=3)
    state, _ = sweep(state, stop_after_vol=True)
    assert engine.check_state(GAME, engine.clone(state)) == state
    for forge in (lambda s: s["board"]["crosses"].update(singles=2), lambda s: s["board"].update(bars=[1, 0]),
                  lambda s: s["before"]["board"]["crosses"].update(side="B"),
                  lambda s: s["before"]["history"][0].update(outcome="game"),
                  lambda s: s["before"]["history"][0]["tricks"].__setitem__(1, 3),
                  lambda s: s["before"].update(deal_no=5)):
        forged = engine.clone(state)
        forge(forged)
        with pytest.raises(InvalidState):
            engine.check_state(GAME, forged)


def test_views_hide_the_stock_and_show_the_turned_card() -> None:
    state = engine.new_match(GAME, 4, {}, "77")
    for seat in (None, 0, 1, 2, 3):
        view = engine.view(state, seat)
        assert "rest" not in view and view["turned"] == state["turned"] and view["chosen"] == state["chosen"]
        assert [h is not None for h in view["hands"]] == [s == seat for s in range(4)]


# ----- property: the chalk-board is the replay of the deals' awards ---------------------------------------------------
@settings(max_examples=int(__import__("os").environ.get("PLAYOUTS", "100")) // 2, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=8), pick=st.integers(0, 2**32 - 1), which=st.integers(0, 99))
def test_board_equals_the_replay_of_the_awards(seed: bytes, pick: int, which: int) -> None:
    sets = [{}, *STYRIVOLT.sample_options]
    options = dict(sets[which % len(sets)])
    rng = random.Random(pick)
    state = engine.new_match(GAME, 4, options, seed.hex())
    board: Board = fresh_board()
    awards = 0
    while not engine.is_finished(state):
        state, events = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        for e in events:
            if e["type"] == "deal_settled":
                apply_award(board, "AB".index(e["side"]), e["award"])
                awards += 1
                assert e["board"] == board
                assert sum(e["changes"]) == 0
    assert state["board"] == board and len(state["history"]) == awards == state["deal_no"] - (
        0 if state["phase"] == "over" else 1)
    result = engine.result(state)
    assert result is not None and result["board"] == board
    replayed = fresh_board()
    for record in result["deals"]:
        apply_award(replayed, "AB".index(record["side"]), record["award"])
    assert replayed == board


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("styrivolt", 4, "play", "card", "TC")


def test_the_public_log_names_a_card_played_only_when_the_spectators_view_shows_it() -> None:
    """The log's rule (docs/sessions.md): a card is named only if the spectator's view after the move shows one
    more copy of it, up to and including the move that settles deal 1 (it used to be named by a fixed flag
    whatever the view showed)."""
    rng = random.Random(3)
    state = engine.new_match("styrivolt", 4, None, "c0ffee")
    last = None
    for _ in range(500):
        move = concrete(rng.choice(engine.legal_moves(state)), rng)
        seen = engine.in_public_view(state)
        after, _ = engine.apply(state, move)
        hidden = engine.hidden_params(move, seen, after)
        if move["action"] == "play":
            shown = engine.in_public_view(after)[move["card"]] > seen[move["card"]]
            assert hidden == ([] if shown else ["card"]), move
            last = hidden
        if after["history"] != state["history"]:  # deal 1 settled: its last card was judged by the same rule
            assert last is not None
            return
        state = after
    raise AssertionError("deal 1 never ended")
