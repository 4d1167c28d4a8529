"""Alkort: every scenario of the spec behind docs/games/alkort.md, section 9 (E1-E2, S1-S12), the rulings the referee relies
on (R1-R18), refusal precedence, the partner's shown card, the stock exchange, the deal history and forged
states; and a property: random matches (stock exchanges included) whose totals and deal records equal a
replay of the per-deal awards in the events."""
from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidRequest, InvalidState
from service.engine.games import alkort as ak
from service.engine.rng import shuffled
from service.engine.seats import order_from

from ..playout import apply_checked, check_rejections, conserved_cards, expect_illegal, leaks, outside_code_then_not_held

GAME = "alkort"
G = ak.GAME
State = dict[str, Any]
Trick = list[tuple[int, str]]  # (seat, card) in play order from the leader


# ----- building deals ------------------------------------------------------------------------
def deal_of(tricks: list[Trick], fixed: dict[int, list[str]] | None = None,
            spare_first: list[str] | None = None) -> dict[str, Any]:
    """An explicit deal in which each seat holds ``fixed`` plus the cards it plays in ``tricks``, filled to nine
    from the unused cards (``spare_first`` first, then pack order); the last eight unused cards are the stock."""
    hands = {s: list((fixed or {}).get(s, [])) for s in range(4)}
    for trick in tricks:
        for seat, card in trick:
            if card not in hands[seat]:
                hands[seat].append(card)
    used = {c for h in hands.values() for c in h}
    spare = [c for c in [*(spare_first or []), *ak.PACK] if c not in used]
    spare = list(dict.fromkeys(spare))
    for s in range(4):
        need = 9 - len(hands[s])
        assert need >= 0, f"seat {s} holds more than nine cards"
        hands[s] += spare[:need]
        spare = spare[need:]
    return {"hands": [hands[s] for s in range(4)], "rest": spare}


def scripted(winners: list[int], dealer: int = 0) -> list[Trick]:
    """Tricks won by ``winners`` in turn: the winner plays a card of value of Ace rank or higher, everyone else
    a lower card (rubbish first, never a Seven as a lead)."""
    strong = ["KD", "2H", "4C", "8S", "9H", "9D", "AC", "AD", "AH"]
    weak = [c for c in ak.PACK if c not in ak.POWER and c[0] != "7"]
    weak += [c for c in ak.PACK if ak.POWER.get(c, 9) < 4] + [c for c in ak.PACK if c[0] == "7"]
    leader, tricks = (dealer + 1) % 4, []
    for w in winners:
        tricks.append([(s, strong.pop(0) if s == w else weak.pop(0)) for s in order_from(leader, 4)])
        leader = w
    return tricks


def start(deal: dict[str, Any], **options: Any) -> State:
    return engine.new_match(GAME, 4, options, "5eed", deals=[deal])


def with_history(history: list[dict[str, Any]], deal: dict[str, Any], **options: Any) -> State:
    """A match whose finished deals are ``history`` (their totals carried), now dealt ``deal``."""
    k = len(history)
    state = engine.new_match(GAME, 4, options, "5eed", deals=[deal] * (k + 1))
    totals = [0, 0]
    for r in history:
        totals[r["side"]] += r["points"]
    state["before"] = {"dealings": k, "deal_no": k, "scores": totals + totals, "history": history}
    return engine.check_state(GAME, engine.rebuild(state))


def do(state: State, *moves: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return apply_checked(state, *moves)


def card(seat: int, c: str) -> dict[str, Any]:
    return {"seat": seat, "action": "play", "card": c}


def play(state: State, tricks: list[Trick]) -> tuple[State, list[dict[str, Any]]]:
    return do(state, *(card(s, c) for trick in tricks for s, c in trick))


def won(events: list[dict[str, Any]]) -> list[int]:
    return [e["winner"] for e in events if e["type"] == "trick_won"]


def settled(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "deal_settled")


def record(dealer: int, winners: list[int], stock: int | None = None) -> dict[str, Any]:
    return ak.deal_record(dealer, stock, winners)


# ----- E1 and S1-S7: who wins a trick ---------------------------------------------------------
def test_e1_ranking_of_the_cards_of_value() -> None:
    order = ["KD", "2H", "4C", "8S", "9H", "9D", "AC", "JC", "6C", "8C"]
    for higher, lower in zip(order, order[1:]):
        assert ak.TABLE.winner([[1, lower], [2, higher]]) == 2
        assert ak.TABLE.winner([[1, higher], [2, lower]]) == 1
    assert len(ak.POWER) == 21 and sum(1 for c in ak.PACK if c not in ak.POWER and c[0] != "7") == 19
    assert len(ak.PACK) == 44 and not any(c[0] in "T5" for c in ak.PACK)
    assert ak.TABLE.winner([[1, "7C"], [2, "KD"], [3, "2H"], [0, "AS"]]) == 1  # a led Seven beats everything
    assert ak.TABLE.winner([[1, "KS"], [2, "2C"]]) == 2 and ak.TABLE.winner([[1, "QH"], [2, "3D"]]) == 2


TRICK_CASES = [
    ("S1 KD beats the rest", [(2, "AS"), (3, "AC"), (0, "KD"), (1, "7H")], 0),
    ("S1 a led Seven beats KD", [(2, "7C"), (3, "KD"), (0, "2H"), (1, "AS")], 2),
    ("S3 a Two takes a led King", [(1, "KC"), (2, "3H"), (3, "2S"), (0, "QD")], 3),
    ("S3 a Three cannot take a King", [(1, "KC"), (2, "3H"), (3, "QS"), (0, "QD")], 1),
    ("S4 the first Three or Two takes a led Queen", [(1, "QS"), (2, "3C"), (3, "2D"), (0, "9C")], 2),
    ("S4 a card of value beats the rubbish rule", [(1, "QS"), (2, "3C"), (3, "2D"), (0, "AH")], 0),
    ("S5 a low Eight is a card of value", [(1, "9S"), (2, "KS"), (3, "8C"), (0, "4D")], 3),
    ("S5 8S outranks the low Eights", [(1, "9S"), (2, "KS"), (3, "8C"), (0, "8S")], 0),
    ("S6 equal low Eights: the first played", [(1, "8D"), (2, "8H"), (3, "8C"), (0, "9C")], 1),
    ("S6 equal Jacks: the first played", [(1, "3S"), (2, "JH"), (3, "JC"), (0, "6D")], 2),
    ("S7 a rubbish lead wins an all-rubbish trick", [(1, "2C"), (2, "KS"), (3, "QH"), (0, "7D")], 1),
    ("S7 4C is a card of value, 4H is not", [(1, "4H"), (2, "4C"), (3, "9C"), (0, "3D")], 2),
    ("R11 an unled Seven never wins", [(1, "3S"), (2, "7S"), (3, "7H"), (0, "4D")], 1),
    ("R12 a King takes nothing from a led Queen", [(1, "QC"), (2, "KH"), (3, "9S"), (0, "4S")], 1),
    ("R12 the first capturer of a King, not a later one", [(1, "KH"), (2, "2C"), (3, "2S"), (0, "2D")], 2),
    ("R12 a Two does not capture a led KD", [(1, "KD"), (2, "2C"), (3, "2S"), (0, "3D")], 1),
    ("R12 2H wins as a card of value", [(1, "KS"), (2, "2S"), (3, "2H"), (0, "3D")], 3),
    ("R12 a Two after a card of value takes nothing", [(1, "KS"), (2, "6H"), (3, "2S"), (0, "3D")], 2),
    ("R10 equal Aces: the first played", [(1, "AS"), (2, "AC"), (3, "AD"), (0, "AH")], 1),
    ("no capture of a led Three or Four", [(1, "3C"), (2, "2D"), (3, "2S"), (0, "4S")], 1),
]


@pytest.mark.parametrize(("name", "plays", "winner"), TRICK_CASES, ids=[c[0] for c in TRICK_CASES])
def test_who_wins_a_trick(name: str, plays: Trick, winner: int) -> None:
    assert ak.TABLE.winner([list(p) for p in plays]) == winner


def test_s1_s3_s4_through_the_engine() -> None:
    """The table's verdicts are the engine's: S1's KD trick (as trick 3) and S3 and S4 played out."""
    lead = [[(1, "4H"), (2, "JS"), (3, "9S"), (0, "3S")], [(2, "QC"), (3, "4S"), (0, "9C"), (1, "4D")]]
    state, events = play(start(deal_of([*lead, [(2, "AS"), (3, "AC"), (0, "KD"), (1, "7H")]])),
                         [*lead, [(2, "AS"), (3, "AC"), (0, "KD"), (1, "7H")]])
    assert won(events) == [2, 2, 0]
    state, events = play(start(deal_of([[(1, "KC"), (2, "3H"), (3, "2S"), (0, "QD")],
                                        [(3, "QS"), (0, "3C"), (1, "2D"), (2, "9C")]])),
                         [[(1, "KC"), (2, "3H"), (3, "2S"), (0, "QD")], [(3, "QS"), (0, "3C"), (1, "2D"), (2, "9C")]])
    assert won(events) == [3, 0]


# ----- S2, R9: leading a Seven -----------------------------------------------------------------
S2_HAND = ["7S", "7D", "KS", "QH", "3C", "9C", "2S", "4D", "JD"]
S2_TRICKS = [[(1, "3C"), (2, "AC"), (3, "3D"), (0, "4H")], [(2, "9S"), (3, "3H"), (0, "QC"), (1, "9C")],
             [(2, "4S"), (3, "QD"), (0, "KC"), (1, "JD")]]


def test_s2_forehand_may_not_open_with_a_seven() -> None:
    state = start(deal_of(S2_TRICKS, {1: S2_HAND, 2: ["KD"]}))
    assert engine.to_act(state) == [1]
    assert [m["card"] for m in engine.legal_moves(state)] == ["KS", "QH", "3C", "9C", "2S", "4D", "JD"]
    for seven in ("7S", "7D"):
        assert expect_illegal(state, card(1, seven)) == "seven_lead_not_allowed"


def test_s2_after_winning_a_trick_himself_he_may_lead_a_seven_and_it_beats_kd() -> None:
    state, events = play(start(deal_of(S2_TRICKS, {1: S2_HAND, 2: ["KD"]})), S2_TRICKS)
    assert won(events) == [2, 2, 1] and engine.to_act(state) == [1]
    assert {"7S", "7D"} <= {m["card"] for m in engine.legal_moves(state)}
    state, events = do(state, card(1, "7S"), card(2, "KD"), *(card(s, state["hands"][s][0]) for s in (3, 0)))
    assert won(events) == [1]


def test_no_duty_to_follow_suit_or_to_beat() -> None:
    tricks = [[(1, "AS")]]
    state, _ = play(start(deal_of(tricks)), tricks)
    assert sorted(m["card"] for m in engine.legal_moves(state)) == sorted(state["hands"][2])


# ----- S8, R6, R16: the stock exchange ----------------------------------------------------------
S8_HAND = ["8C", "8D", "7S", "7H", "QS", "KC", "3D", "2S", "9C"]


def exchange_deal(weak: dict[int, list[str]]) -> dict[str, Any]:
    """Seats in ``weak`` hold those (not friðufær) hands; every other seat holds an Ace."""
    fixed = {s: weak.get(s, ["A" + "CDHS"[s]]) for s in range(4)}
    return deal_of([], fixed, spare_first=[c for c in ak.PACK if c not in ak.POWER])


def test_s8_which_hands_are_fridufaer() -> None:
    assert not ak.fridufaer(S8_HAND)
    for able in ("6S", "8S", "9D"):
        assert ak.fridufaer([*S8_HAND[:8], able])
    assert sum(1 for c in ak.PACK if ak.fridufaer([c])) == 18


def test_s8_the_one_eligible_seat_takes_the_stock() -> None:
    deal = exchange_deal({3: S8_HAND})
    state = start(deal, stock_exchange=True)
    assert state["phase"] == "stock" and state["eligible"] == [3] and engine.to_act(state) == [3]
    legal = engine.legal_moves(state)
    assert legal[0] == {"seat": 3, "action": "pass_stock"}
    assert [m["keep"] for m in legal[1:]] == S8_HAND and all(m["action"] == "take_stock" for m in legal[1:])
    state, events = do(state, {"seat": 3, "action": "take_stock", "keep": "8C"})
    assert state["hands"][3] == ["8C", *deal["rest"]] and state["rest"] == []
    assert state["exchange"] == {"seat": 3, "keep": "8C", "discards": S8_HAND[1:]}
    assert events == [{"type": "take_stock", "seat": 3, "keep": "8C", "hand": S8_HAND}]
    assert state["phase"] == "play" and engine.to_act(state) == [1]
    for seat in (None, 0, 1, 2):  # the shown hand is public; the stock cards only its taker (and his partner's
        view = engine.view(state, seat)  # shown card, seat 1) sees
        assert view["exchange"]["discards"] == S8_HAND[1:] and view["exchange"]["keep"] == "8C"
        own = set(state["hands"][seat]) if seat is not None else set()
        assert not leaks(view, set(deal["rest"]) - own - G.seen_cards(state, seat))
    assert G.seen_cards(state, 1) == {"8C", ak.highest(state["hands"][3])} and G.seen_cards(state, None) == {"8C"}
    assert set(deal["rest"]) <= set(engine.view(state, 3)["hands"][3])


def test_without_the_option_there_is_no_stock_phase_and_the_stock_stays_hidden() -> None:
    deal = exchange_deal({3: S8_HAND})
    state = start(deal)
    assert state["phase"] == "play" and state["eligible"] == []
    assert expect_illegal(state, {"seat": 3, "action": "take_stock", "keep": "8C"}) == "wrong_phase"
    for seat in (None, 0, 1, 2, 3):
        assert not leaks(engine.view(state, seat), set(deal["rest"]))


def test_r6_several_eligible_seats_are_asked_from_forehand_and_one_exchange_ends_the_phase() -> None:
    weak1 = ["8H", "7C", "7D", "QC", "QD", "QH", "KH", "KS", "3C"]
    state = start(exchange_deal({3: S8_HAND, 1: weak1}), stock_exchange=True)
    assert state["eligible"] == [1, 3] and engine.to_act(state) == [1]
    assert expect_illegal(state, {"seat": 3, "action": "take_stock", "keep": "8C"}) == "not_your_turn"
    assert expect_illegal(state, {"seat": 0, "action": "take_stock", "keep": "AC"}) == "not_your_turn"
    passed, events = do(state, {"seat": 1, "action": "pass_stock"})
    assert events == [{"type": "pass_stock", "seat": 1}] and engine.to_act(passed) == [3]
    both, _ = do(passed, {"seat": 3, "action": "pass_stock"})
    assert both["phase"] == "play" and both["exchange"] is None and len(both["rest"]) == 8
    taken, _ = do(state, {"seat": 1, "action": "take_stock", "keep": "QC"})
    assert taken["phase"] == "play" and taken["exchange"]["seat"] == 1  # seat 3 is never asked


def test_a_dealt_hand_shows_no_stock_phase_when_nobody_is_eligible() -> None:
    state = start(exchange_deal({}), stock_exchange=True)
    assert state["phase"] == "play" and state["eligible"] == []


def test_r16_not_eligible_only_for_a_seat_the_referee_is_made_to_ask() -> None:
    state = start(exchange_deal({3: S8_HAND}), stock_exchange=True)
    forged = engine.clone(state)
    forged["eligible"] = [0]
    with pytest.raises(InvalidState):
        engine.check_state(GAME, forged)
    with pytest.raises(IllegalMove) as exc:
        G.phases["stock"].steps["take_stock"].do(forged, {"seat": 0, "action": "take_stock",
                                                          "keep": forged["hands"][0][0]}, [])
    assert exc.value.reason == "not_eligible"


def test_r15_precedence_of_the_refusals() -> None:
    state = start(exchange_deal({3: S8_HAND}), stock_exchange=True)
    cases = [
        ({"seat": 3, "action": "bid"}, "unknown_action"),
        ({"seat": 4, "action": "take_stock", "keep": 3}, "invalid_parameters"),
        ({"seat": 0, "action": "play", "card": "ZZ"}, "wrong_phase"),
        ({"seat": 0, "action": "take_stock", "keep": 3}, "not_your_turn"),
        ({"seat": 3, "action": "take_stock"}, "invalid_parameters"),
        ({"seat": 3, "action": "take_stock", "keep": 8}, "invalid_parameters"),
        ({"seat": 3, "action": "take_stock", "keep": "8C", "card": "8C"}, "invalid_parameters"),
        ({"seat": 3, "action": "take_stock", "keep": "TC"}, "invalid_parameters"),  # no card of the pack (turn 3)
        ({"seat": 3, "action": "take_stock", "keep": "ZZ"}, "invalid_parameters"),
        ({"seat": 3, "action": "take_stock", "keep": "AS"}, "card_not_in_hand"),
    ]
    for move, reason in cases:
        assert expect_illegal(state, move) == reason, move
    playing, _ = do(state, {"seat": 3, "action": "pass_stock"})
    for move, reason in [({"seat": 1, "action": "pass_stock"}, "wrong_phase"),
                         ({"seat": 2, "action": "play", "card": "ZZ"}, "not_your_turn"),
                         ({"seat": 1, "action": "play", "card": "ZZ"}, "invalid_parameters"),
                         ({"seat": 1, "action": "play", "card": "TC"}, "invalid_parameters"),  # no Tens (R15)
                         ({"seat": 1, "action": "play", "card": next(c for c in ak.PACK if c not in
                                                                       playing["hands"][1])}, "card_not_in_hand")]:
        assert expect_illegal(playing, move) == reason, move


# ----- 3.3, R7, R17: the partner's shown card ----------------------------------------------------
def test_highest_card_ties_go_to_suit_order_and_sevens_are_never_shown() -> None:
    assert ak.highest(["AS", "AD", "JC", "3C"]) == "AD"
    assert ak.highest(["8H", "8C", "7S"]) == "8C"
    assert ak.highest(["7S", "7H", "QS", "3D"]) == ak.NONE
    assert ak.highest(["6C", "KD", "2H"]) == "KD"


def test_partners_see_each_others_highest_card_and_nobody_else_does() -> None:
    tricks = [[(1, "AC"), (2, "3C"), (3, "3D"), (0, "3H")]]
    deal = deal_of(tricks, {0: ["2H", "JS"], 1: ["AC", "6D"], 2: ["3C", "9D", "AH"], 3: ["3D"]},
                   spare_first=[c for c in ak.PACK if c not in ak.POWER])
    state = start(deal)
    shown = [ak.highest(h) for h in deal["hands"]]
    assert shown[:3] == ["2H", "AC", "9D"]
    for seat in range(4):
        view = engine.view(state, seat)
        assert view["partner_card"] == shown[(seat + 2) % 4] and "shown" not in view
        opponents = {shown[(seat + 1) % 4], shown[(seat + 3) % 4]} - {ak.NONE}
        assert not leaks(view, opponents)
    assert engine.view(state, None)["partner_card"] is None and not leaks(engine.view(state, None), set(shown))
    after, _ = play(state, tricks)  # R17: still shown after it is played
    assert engine.view(after, 3)["partner_card"] == "AC"
    off = start(deal, show_highest=False)
    assert all(engine.view(off, s)["partner_card"] is None for s in range(4))


def test_r17_the_card_is_fixed_after_the_exchange() -> None:
    deal = exchange_deal({1: S8_HAND})
    state, _ = do(start(deal, stock_exchange=True), {"seat": 1, "action": "take_stock", "keep": "8C"})
    assert engine.view(state, 3)["partner_card"] == ak.highest(["8C", *deal["rest"]])
    weak = start(exchange_deal({1: S8_HAND}))
    assert engine.view(weak, 3)["partner_card"] == "8C"
    no_value = exchange_deal({1: ["7S", "7H", "QS", "KC", "3D", "2S", "9C", "4D", "4H"]})
    assert engine.view(start(no_value), 3)["partner_card"] == "none"


# ----- E2, S9-S11, R1-R3: scoring a deal -------------------------------------------------------
A, B = 2, 3  # a seat of each side (seat 2 is side A, seat 3 side B)

OUTCOME_CASES = [
    ("S9 múkur broken at trick 6", [A] * 5 + [B], (0, "mukur", 5)),
    ("S10 seven-card stroke", [A] * 7 + [B], (0, "strokes", 7)),
    ("S10 all nine", [A] * 9, (0, "strokes", 9)),
    ("R2 six-card stroke broken", [A] * 6 + [B], (0, "strokes", 6)),
    ("R2 eight-card stroke broken", [B] * 8 + [A], (1, "strokes", 8)),
    ("S11 broken early: plain win after trick 6", [A, A, B, A, A, A], (0, "plain", 1)),
    ("S11 B 1-4, A 5-8, A takes trick 9", [B] * 4 + [A] * 4 + [A], (0, "plain", 1)),
    ("S11 B 1-4, A 5-8, B takes trick 9", [B] * 4 + [A] * 4 + [B], (1, "plain", 1)),
    ("partners share a side", [0, 2, 0, 2, 0, 1], (0, "mukur", 5)),
]


def test_e2_the_1892_scores() -> None:
    """Five straight = múkur, 5; six to nine with none to the opponents = 6 to 9; otherwise the first to 5: 1."""
    assert ak.deal_outcome([A] * 5 + [B]) == (0, "mukur", 5)
    for run in (6, 7, 8, 9):
        assert ak.deal_outcome([B] * run + [A] * (run < 9)) == (1, "strokes", run)
    assert ak.deal_outcome([A, B, A, B, A, B, A, B, A]) == (0, "plain", 1)


@pytest.mark.parametrize(("name", "winners", "outcome"), OUTCOME_CASES, ids=[c[0] for c in OUTCOME_CASES])
def test_deal_outcome(name: str, winners: list[int], outcome: tuple[int, str, int]) -> None:
    assert ak.deal_outcome(winners) == outcome
    assert all(ak.deal_outcome(winners[:k]) is None for k in range(len(winners)))  # it ends exactly there


@pytest.mark.parametrize(("name", "winners", "outcome"), OUTCOME_CASES[:8], ids=[c[0] for c in OUTCOME_CASES[:8]])
def test_deals_played_out_stop_when_decided_and_score(name: str, winners: list[int],
                                                      outcome: tuple[int, str, int]) -> None:
    tricks = scripted(winners)
    state, events = play(start(deal_of(tricks)), tricks)
    side, kind, points = outcome
    assert won(events) == winners
    done = settled(events)
    assert done["changes"] == [points if s % 2 == side else 0 for s in range(4)] and done["unit"] == "points"
    assert (done["side"], done["outcome"], done["points"]) == outcome
    assert state["deal_no"] == 2 and state["tricks"] == [] and state["scores"] == done["changes"]
    assert state["history"] == [record(0, winners)]
    assert events[-1] == {"type": "deal_started", "deal": 2, "dealer": 1}


def test_s9_the_cards_left_are_not_played() -> None:
    tricks = scripted([A] * 5 + [B])
    state = start(deal_of(tricks))
    before_last = tricks[-1][:-1]
    state, _ = play(state, [*tricks[:-1], before_last])
    last_seat = tricks[-1][-1][0]
    assert [len(h) for h in state["hands"]] == [4 if s == last_seat else 3 for s in range(4)]
    state, events = do(state, card(*tricks[-1][-1]))
    assert settled(events)["changes"] == [5, 0, 5, 0] and state["deal_no"] == 2  # three cards each never played
    assert sum(len(t["plays"]) for e in events if e["type"] == "trick_won" for t in [e]) == 4


def test_r1_play_goes_on_after_a_mukur_without_a_decision() -> None:
    tricks = scripted([A] * 5)
    state, events = play(start(deal_of(tricks)), tricks)
    assert not any(e["type"] == "deal_settled" for e in events) and len(state["tricks"]) == 5
    assert [m["action"] for m in engine.legal_moves(state)] == ["play"] * 4


def test_s10_all_nine_tricks() -> None:
    tricks = scripted([A] * 9)
    state, events = play(start(deal_of(tricks)), tricks)
    assert settled(events)["changes"] == [9, 0, 9, 0] and state["history"][0]["count"] == 9


# ----- S12, section 2: the match ----------------------------------------------------------------
S12_HISTORY = [record(0, [A] * 7 + [B]), record(1, [B] * 4 + [A] * 4 + [B]), record(2, [B] * 9),
               record(3, [A, B, A, A, A, A])]


def test_s12_match_end_and_payoffs() -> None:
    tricks = scripted([A] * 6 + [B])
    for settlement, payoffs in (("game", [1, -1, 1, -1]), ("difference", [4, -4, 4, -4])):
        state = with_history(S12_HISTORY, deal_of(tricks), settlement=settlement)
        assert state["scores"] == [8, 10, 8, 10] and state["dealer"] == 0
        state, events = play(state, tricks)
        assert [e["type"] for e in events[-2:]] == ["deal_settled", "match_over"]
        assert events[-1] == {"type": "match_over", "winner": 0}
        res = engine.result(state)
        assert res is not None and res["scores"] == [14, 10, 14, 10] and res["payoffs"] == payoffs
        assert res["ranking"] == [0, 2, 1, 3] and res["winner"] == 0
        assert res["deals"] == [*S12_HISTORY, record(0, [A] * 6 + [B])]
        assert res["deals"][-1] == {"dealer": 0, "stock": None, "winners": [A] * 6 + [B], "outcome": "strokes",
                                    "count": 6, "side": 0, "points": 6}
        assert expect_illegal(state, card(1, state["hands"][1][0])) == "match_over"
        assert engine.legal_moves(state) == [] and engine.to_act(state) == []


def test_the_side_b_win_ranks_its_seats_first() -> None:
    tricks = scripted([B] * 5 + [A])
    state, _ = play(with_history(S12_HISTORY, deal_of(tricks), target_points=15), tricks)
    res = engine.result(state)
    assert res is not None and res["ranking"] == [1, 3, 0, 2] and res["payoffs"] == [-1, 1, -1, 1]


def test_r5_next_dealer() -> None:
    assert [ak.following_dealer(d, 0, "left") for d in range(4)] == [1, 2, 3, 0]
    assert ak.following_dealer(0, 0, "losing_side") == 1 and ak.following_dealer(0, 1, "losing_side") == 2
    assert ak.following_dealer(3, 1, "losing_side") == 0 and ak.following_dealer(3, 0, "losing_side") == 1
    tricks = scripted([B] * 5 + [A])
    state, events = play(start(deal_of(tricks), next_dealer="losing_side", first_dealer=0), tricks)
    assert events[-1] == {"type": "deal_started", "deal": 2, "dealer": 2}  # side B scored: seat 2 of A deals


def test_the_seeded_deal_goes_in_packets_of_three_from_forehand() -> None:
    state = engine.new_match(GAME, 4, {"first_dealer": 2}, "abc123")
    cards = shuffled(ak.PACK, "abc123", "alkort/0")
    for k in range(36):
        assert cards[k] in state["hands"][(2 + 1 + k // 3) % 4]
    assert state["rest"] == cards[36:] and engine.to_act(state) == [3]


def test_options_deals_and_players() -> None:
    for bad in ({"target_points": 0}, {"target_points": 501}, {"next_dealer": "right"}, {"stock_exchange": 1},
                {"settlement": "chips"}, {"players": 4}, {"first_dealer": 4}):
        with pytest.raises(InvalidOptions):
            engine.new_match(GAME, 4, bad, "5eed")
    for n in (2, 3, 5):  # the contract's code for a player count outside the game's range (ruling in the docs)
        with pytest.raises(InvalidRequest):
            engine.new_match(GAME, n, {}, "5eed")
    good = deal_of([])
    for bad_deal in ({"hands": [h[:8] for h in good["hands"]], "rest": good["rest"] + [h[8] for h in good["hands"]]},
                     {"hands": [["TC", *good["hands"][0][1:]], *good["hands"][1:]], "rest": good["rest"]},
                     {"hands": [[good["hands"][1][0], *good["hands"][0][1:]], *good["hands"][1:]], "rest": good["rest"]}):
        with pytest.raises(InvalidDeal):
            start(bad_deal)


# ----- forged carried values ------------------------------------------------------------------
def test_forged_history_and_scores_are_refused() -> None:
    tricks = scripted([A] * 6 + [B])
    state = with_history(S12_HISTORY, deal_of(tricks))
    forgeries = [
        ("scores", [9, 10, 9, 10]),
        ("deal_no", 3),
        ("history", S12_HISTORY[:3]),
        ("history", [{**S12_HISTORY[0], "points": 8}, *S12_HISTORY[1:]]),
        ("history", [{**S12_HISTORY[0], "dealer": 1}, *S12_HISTORY[1:]]),
        ("history", [{**S12_HISTORY[0], "stock": 2}, *S12_HISTORY[1:]]),
        ("history", [{**S12_HISTORY[0], "winners": [A] * 7 + [B, B]}, *S12_HISTORY[1:]]),
        ("history", [{**S12_HISTORY[0], "side": True}, *S12_HISTORY[1:]]),
        ("history", [record(0, [A] * 9), record(1, [A] * 5 + [B]), *S12_HISTORY[2:]]),
    ]
    for key, value in forgeries:
        forged = engine.clone(state)
        forged["before"][key] = value
        with pytest.raises(InvalidState):
            engine.check_state(GAME, forged)


# ----- the property: totals and records are a replay of the awards ---------------------------------
def weak_deal(rng: random.Random) -> dict[str, Any]:
    """A random deal with one or two hands that are not friðufær (so the stock phase is played)."""
    rubbish = [c for c in ak.PACK if c not in ak.POWER or ak.POWER[c] == ak.LOW_EIGHT]
    able = [c for c in ak.PACK if c not in rubbish]
    weak_seats = rng.sample(range(4), rng.randint(1, 2))
    rng.shuffle(rubbish)
    fixed = {s: [rubbish.pop() for _ in range(9)] for s in weak_seats}
    rest = rubbish + able
    rng.shuffle(rest)
    strong = [s for s in range(4) if s not in weak_seats]
    hands = [fixed.get(s, []) for s in range(4)]
    for s in strong:
        hands[s].append(able.pop())
        rest.remove(hands[s][0])
    for s in strong:
        while len(hands[s]) < 9:
            hands[s].append(rest.pop())
    return {"hands": hands, "rest": rest}


@settings(max_examples=int(os.environ.get("PLAYOUTS", "100")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 3))
def test_totals_and_records_replay_the_awards(seed: int, which: int) -> None:
    rng = random.Random(seed)
    options = [{}, *G.sample_options][which]
    exchange = bool(options.get("stock_exchange"))
    deals = [weak_deal(rng) for _ in range(6)] if exchange else []
    state = engine.new_match(GAME, 4, dict(options), format(seed, "x"), deals=deals)
    opts = state["options"]
    totals, records, winners, dealer, taker = [0, 0, 0, 0], [], [], state["dealer"], None
    while not engine.is_finished(state):
        assert engine.check_state(GAME, engine.clone(state)) == state
        state, events = engine.apply(state, rng.choice(engine.legal_moves(state)))
        for e in events:
            if e["type"] == "take_stock":
                taker = e["seat"]
            elif e["type"] == "trick_won":
                winners.append(e["winner"])
            elif e["type"] == "deal_settled":
                side, outcome, points = ak.deal_outcome(winners) or (None, None, None)
                assert (e["side"], e["outcome"], e["points"]) == (side, outcome, points) and e["dealer"] == dealer
                totals = [t + c for t, c in zip(totals, e["changes"])]
                records.append(ak.deal_record(dealer, taker, winners))
                winners, taker = [], None
            elif e["type"] == "deal_started":
                dealer = e["dealer"]
        assert state["scores"] == totals and state["history"] == records
        assert max(totals) < opts["target_points"] or engine.is_finished(state)
    res = engine.result(state)
    assert res is not None and res["deals"] == records and res["scores"] == totals
    assert totals[1 - res["winner"]] < opts["target_points"] <= totals[res["winner"]]


def test_random_matches_with_exchanges_play_to_the_end() -> None:
    """The shared playout checks (listed moves accepted, unlisted plays refused, cards conserved, the state
    rebuilt from its record after every move) on matches whose deals force the stock phase."""
    options = {"stock_exchange": True, "target_points": 3}
    for seed in range(4):
        rng = random.Random(seed)
        state = engine.new_match(GAME, 4, options, "5eed", deals=[weak_deal(rng) for _ in range(8)])
        assert state["phase"] == "stock"
        pack = Counter(ak.PACK)
        count = conserved_cards(G, state, pack, None)
        while not engine.is_finished(state):
            legal = engine.legal_moves(state)
            assert engine.to_act(state) == sorted({m["seat"] for m in legal})
            check_rejections(state, legal, rng)
            state, _ = engine.apply(state, rng.choice(legal))
            assert engine.check_state(GAME, engine.clone(state)) == state
            conserved_cards(G, state, pack, count)
        assert engine.result(state) is not None


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("alkort", 4, "play", "card", "TD")


def test_a_keep_outside_the_pack_is_invalid_parameters() -> None:
    """R15: a ``keep`` naming a code of no card of the 44-card pack (a Ten) is a bad parameter; a card of the pack
    not in the hand stays ``card_not_in_hand``."""
    state = start(exchange_deal({3: S8_HAND}), stock_exchange=True)
    move = {"seat": 3, "action": "take_stock", "keep": S8_HAND[0]}
    expect_illegal(state, dict(move, keep="TD"), "invalid_parameters")
    expect_illegal(state, dict(move, keep="ZZ"), "invalid_parameters")
    not_held = next(c for c in ak.PACK if c not in state["hands"][3])
    expect_illegal(state, dict(move, keep=not_held), "card_not_in_hand")
