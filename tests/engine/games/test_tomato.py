"""Tomato: every scenario of the spec behind docs/games/tomato.md, section 9, plus options, deals, views and forged states.

Defaults unless stated: 4 players, dealer 0; to the right the playing order is 3, 2, 1, 0.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from service import engine
from service.engine import InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import SPANISH_PACK
from service.engine.games.tomato import IN_DEAL, SAFE, rightwards
from service.engine.rng import shuffled

from ..playout import (
    concrete,
    expect_illegal,
    later_deal,
    leaks,
    outside_code_then_not_held,
)

GAME = "tomato"
TOMATO = engine.get_game(GAME)


def deal(hands: dict[int, list[str]] | None = None, trump: str = "5D", stock: tuple[str, ...] = (),
         n: int = 4) -> dict[str, Any]:
    """An explicit deal: given hands (dealt order), the trump card, then the stock top; the rest filled in."""
    hands = hands or {}
    used = {c for h in hands.values() for c in h} | {trump, *stock}
    spare = [c for c in SPANISH_PACK if c not in used]
    full = []
    for s in range(n):
        if s in hands:
            full.append(list(hands[s]))
        else:
            full.append(spare[:3])
            spare = spare[3:]
    return {"hands": full, "rest": [trump, *stock, *spare]}


def start(*deals: dict[str, Any], n: int = 4, **options: Any) -> dict[str, Any]:
    return engine.new_match(GAME, n, options, "5eed", deals=list(deals or [deal(n=n)]))


def act(state: dict[str, Any], *moves: tuple) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Apply moves given as (seat, action) or (seat, action, card-or-discard_index)."""
    events: list[dict[str, Any]] = []
    for m in moves:
        move: dict[str, Any] = {"seat": m[0], "action": m[1]}
        if len(m) == 3:
            move["card" if m[1] == "play" else "discard_index"] = m[2]
        state, ev = engine.apply(state, move)
        events += ev
        engine.check_state(GAME, state)
    return state, events


def plays(*pairs: tuple[int, str]) -> list[tuple]:
    return [(s, "play", c) for s, c in pairs]


def legal_cards(state: dict[str, Any], seat: int) -> list[str]:
    return [m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"]


def settlement(events: list[dict[str, Any]]) -> dict[str, Any]:
    found = [e for e in events if e["type"] == "deal_settled"]
    assert len(found) == 1
    return found[0]


def with_pot(state: dict[str, Any], extra: int, payer: int = 1, side_pots: tuple[int, ...] = ()) -> dict[str, Any]:
    """The deal of a new match ``state``, dealt by the same seat as the match's second deal, the first having
    left ``extra`` chips in the pot and ``side_pots`` waiting, all taken from ``payer``'s balance (conserved)."""
    n, opts = state["players"], state["options"]
    carried = {k: v for k, v in state["before"].items() if k != "dealings"}
    carried["chips"][payer] -= extra + sum(side_pots)
    carried.update(deal_no=1, pot=carried["pot"] + extra, side_pots=list(side_pots))
    options = {**opts, "first_dealer": (opts["first_dealer"] + 1) % n}  # the deal passes right: same dealer
    return later_deal(GAME, n, options, state["deals"], carried, seed=state["seed"])


def total_chips(state: dict[str, Any]) -> int:
    return sum(state["chips"]) + state["pot"] + sum(state["side_pots"])


# ----- S1 ranking: A 3 K Q J 7 6 5 4 2 -----------------------------------------------------------
@pytest.mark.parametrize(("seat1", "legal", "refused"), [
    (["KC", "AC", "2D"], ["AC"], {"KC": "must_head_trick", "2D": "must_follow_suit"}),
    (["KC", "JC", "2D"], ["KC", "JC"], {"2D": "must_follow_suit"}),
])
def test_S1_ranking_three_above_king(seat1: list[str], legal: list[str], refused: dict[str, str]) -> None:
    state = start(deal({0: ["4S", "2S", "6S"], 3: ["7C", "4H", "6H"], 2: ["3C", "2H", "7H"], 1: seat1}))
    state, _ = act(state, (0, "take", 1), (3, "stand"), (2, "stand"), (1, "stand"))
    assert engine.to_act(state) == [3]
    state, _ = act(state, *plays((3, "7C"), (2, "3C")))
    assert legal_cards(state, 1) == legal
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 1, "action": "play", "card": card}, reason)


# ----- S2 orders ---------------------------------------------------------------------------------
def test_S2_deal_take_and_dealer_orders() -> None:
    cards = list(SPANISH_PACK)
    dealt = TOMATO.distribute(cards, {"players": 4, "dealer": 0})
    assert dealt["hands"][3] == [cards[0], cards[4], cards[8]]
    assert dealt["hands"][2] == [cards[1], cards[5], cards[9]]
    assert dealt["hands"][1] == [cards[2], cards[6], cards[10]]
    assert dealt["hands"][0] == [cards[3], cards[7], cards[11]]
    assert dealt["rest"] == cards[12:]  # the trump card first, then the stock from the top
    state = start()
    order = []
    for _ in range(4):
        order += engine.to_act(state)
        state, _ = act(state, (engine.to_act(state)[0], "pass"))
    assert order == [0, 3, 2, 1]
    assert state["dealer"] == 3 and state["deal_no"] == 2


# ----- S3 blind take -----------------------------------------------------------------------------
def test_S3_blind_take_discards_by_position() -> None:
    state = start(deal({3: ["4C", "QS", "AH"]}, trump="5D"))
    assert engine.legal_moves(state) == [{"seat": 0, "action": "take", "discard_index": i} for i in range(3)] + [
        {"seat": 0, "action": "pass"}]
    state, events = act(state, (0, "pass"), (3, "take", 1))
    assert state["hands"][3] == ["4C", "AH", "5D"]
    assert state["discards"] == ["QS"] and state["turn_up"] == "5D"
    assert {"type": "take", "seat": 3, "discard_index": 1, "trump": "D",
            "turn_up": {"rank": "5", "suit": "D"}} in events
    assert state["phase"] == "declare" and engine.to_act(state) == [2]
    for action in ("stand", "pass"):
        expect_illegal(state, {"seat": 0, "action": action}, "not_your_turn")
    expect_illegal(state, {"seat": 0, "action": "take", "discard_index": 0}, "wrong_phase")
    expect_illegal(state, {"seat": 0, "action": "play", "card": state["hands"][0][0]}, "wrong_phase")
    state, _ = act(state, (2, "stand"))
    assert engine.legal_moves(state) == [{"seat": 1, "action": "stand"}, {"seat": 1, "action": "pass"}]
    state, _ = act(state, (1, "stand"))
    assert state["phase"] == "play"
    expect_illegal(state, {"seat": 0, "action": "play", "card": state["hands"][0][0]}, "not_your_turn")


# ----- S4 seed pay-off: the bidder makes one trick -----------------------------------------------
def test_S4_bidder_makes_one_trick() -> None:
    # first_dealer 2: two scrapped deals (dealers 2 and 1) carry 6 chips to dealer 0's deal.
    board = deal({0: ["7S", "6S", "4S"], 3: ["4C", "2S", "4H"], 2: ["AC", "2H", "7D"], 1: ["QS", "KS", "JS"]})
    state = start(deal(), deal(), board, first_dealer=2)
    state, _ = act(state, *[(s, "pass") for s in (2, 1, 0, 3)], *[(s, "pass") for s in (1, 0, 3, 2)])
    assert state["dealer"] == 0 and state["pot"] == 9
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "pass"))
    before = list(state["chips"])
    state, events = act(state, *plays((3, "4C"), (2, "AC"), (2, "2H"), (3, "4H"), (3, "5D"), (2, "7D")))
    assert [e["winner"] for e in events if e["type"] == "trick_won"] == [2, 3, 2]
    paid = settlement(events)
    assert paid["received"] == [0, 0, 6, 3] and paid["tomatoes"] == [{"seat": 3, "amount": 6}] and paid["pot"] == 6
    assert paid["changes"] == [-3, 0, 6, -3] and paid["outcome"] == "played"  # the dealer's ante is this deal's
    ante = [0, 0, 0, 3]  # seat 3 deals next
    assert [state["chips"][s] - before[s] + ante[s] for s in range(4)] == [0, 0, 6, -3]
    assert state["pot"] == 6 + 3


# ----- S5 odd chips and a tomato -----------------------------------------------------------------
def test_S5_odd_chips_to_first_trick_and_tomato() -> None:
    board = deal({0: ["QS", "KS", "JS"], 3: ["4C", "2S", "AH"], 2: ["5C", "6S", "7S"], 1: ["AC", "2H", "4D"]})
    state = with_pot(start(board), 7)
    assert state["pot"] == 10
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "stand"))
    before = list(state["chips"])
    state, events = act(state, *plays((3, "4C"), (2, "5C"), (1, "AC"), (1, "2H"), (3, "AH"), (2, "6S"),
                                      (3, "5D"), (2, "7S"), (1, "4D")))
    assert [e["winner"] for e in events if e["type"] == "trick_won"] == [1, 3, 3]
    paid = settlement(events)
    assert paid["received"] == [0, 4, 0, 6] and paid["tomatoes"] == [{"seat": 2, "amount": 10}]
    assert paid["pot"] == 10
    assert [state["chips"][s] - before[s] for s in range(4)] == [0, 4, -10, 6 - 3]  # seat 3 antes next


# ----- S6 lone bidder, defence offers ------------------------------------------------------------
def test_S6_lone_bidder_undefended_wins_pot() -> None:
    state = start()
    state, _ = act(state, (0, "take", 0), (3, "pass"), (2, "pass"), (1, "pass"))
    assert state["phase"] == "defend"
    before = list(state["chips"])
    for seat in (3, 2, 1):
        assert engine.legal_moves(state) == [{"seat": seat, "action": "defend"}, {"seat": seat, "action": "decline"}]
        for other in {0, 1, 2, 3} - {seat}:
            expect_illegal(state, {"seat": other, "action": "defend"}, "not_your_turn")
        state, events = act(state, (seat, "decline"))
    paid = settlement(events)
    assert paid["received"] == [3, 0, 0, 0] and paid["pot"] == 0
    assert paid["changes"] == [0, 0, 0, 0] and paid["outcome"] == "undefended"  # his own ante came back
    assert state["chips"][0] - before[0] == 3 and state["dealer"] == 3 and state["pot"] == 3


# ----- S7 defended pack ----------------------------------------------------------------------------
BIDDER = ["AC", "2S", "AH"]  # seat 3 discards 2S and takes 5D: AC AH 5D


@pytest.mark.parametrize(("case", "mode", "stock", "tricks", "received", "tomato", "pot"), [
    ("a", "literal", ("2C", "6D", "4S"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "6D"), (1, "4S"), (3, "5D")],
     0, 0, 9),
    ("a", "shares", ("2C", "6D", "4S"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "6D"), (1, "4S"), (3, "5D")],
     6, 0, 3),
    ("b", "literal", ("2C", "6D", "7D"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "6D"), (1, "7D"), (3, "5D")],
     0, 6, 15),
    ("b", "shares", ("2C", "6D", "7D"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "6D"), (1, "7D"), (3, "5D")],
     3, 6, 12),
    ("c", "literal", ("2C", "2H", "4D"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "2H"), (3, "5D"), (1, "4D")],
     9, 0, 0),
    ("c", "shares", ("2C", "2H", "4D"), [(1, "2C"), (3, "AC"), (3, "AH"), (1, "2H"), (3, "5D"), (1, "4D")],
     9, 0, 0),
])
def test_S7_defended_pack(case: str, mode: str, stock: tuple[str, ...], tricks: list[tuple[int, str]],
                          received: int, tomato: int, pot: int) -> None:
    state = with_pot(start(deal({3: BIDDER, 1: ["QS", "KS", "JS"]}, stock=stock), defended_pot=mode), 6, payer=2)
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "pass"), (1, "pass"))
    assert engine.legal_moves(state) == [{"seat": 2, "action": "defend"}, {"seat": 2, "action": "decline"}]
    state, _ = act(state, (2, "decline"), (1, "defend"))
    assert state["hands"][1] == list(stock) and state["defender"] == 1
    assert sorted(state["discards"]) == sorted(["2S", "QS", "KS", "JS"])
    assert engine.to_act(state) == [1]
    before = list(state["chips"])
    state, events = act(state, *plays(*tricks))
    paid = settlement(events)
    assert paid["received"] == [0, 0, 0, received]
    assert paid["tomatoes"] == ([{"seat": 3, "amount": tomato}] if tomato else [])
    assert paid["pot"] == pot
    assert state["chips"][1] == before[1]  # the defender neither pays nor is paid
    assert state["chips"][3] - before[3] == received - tomato - 3  # seat 3 deals next


# ----- S8 all pass blind ---------------------------------------------------------------------------
def test_S8_all_pass_scraps_the_deal() -> None:
    state = start()
    state, events = act(state, (0, "pass"), (3, "pass"), (2, "pass"))
    assert engine.legal_moves(state) == [{"seat": 1, "action": "take", "discard_index": i} for i in range(3)] + [
        {"seat": 1, "action": "pass"}]
    state, more = act(state, (1, "pass"))
    events += more
    assert not any("turn_up" in e or "trump" in e for e in events)
    assert events[-2] == {"type": "deal_settled", "deal": 1, "dealer": 0, "changes": [-3, 0, 0, 0], "unit": "chips",
                          "outcome": "scrapped", "received": [0, 0, 0, 0], "tomatoes": [], "pot": 3,
                          "side_pots": []}
    assert events[-1] == {"type": "deal_started", "deal": 2, "dealer": 3, "ante": 3, "side_pot_merged": 0, "pot": 6}
    assert state["dealer"] == 3 and state["pot"] == 6 and state["chips"] == [97, 100, 100, 97]
    assert state["phase"] == "take" and engine.to_act(state) == [3]


# ----- S9 first leader -----------------------------------------------------------------------------
def test_S9_first_leader_is_first_active_to_dealers_right() -> None:
    state = start()
    state, _ = act(state, (0, "take", 2), (3, "pass"), (2, "stand"), (1, "pass"))
    assert state["phase"] == "play" and engine.to_act(state) == [2]
    assert IN_DEAL.size(state) == 2 and [IN_DEAL.next_seat(state, s) for s in (2, 0)] == [0, 2]


# ----- S10 side-pots -------------------------------------------------------------------------------
def test_S10_side_pot_merges_when_main_pot_emptied() -> None:
    board = deal({0: ["QS", "KS", "JS"], 3: ["AC", "2S", "AH"], 2: ["2C", "2H", "4S"]})
    state = with_pot(start(board, side_pots=True), 6)
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "pass"))
    state, events = act(state, *plays((3, "AC"), (2, "2C"), (3, "AH"), (2, "2H"), (3, "5D"), (2, "4S")))
    paid = settlement(events)
    assert paid["received"] == [0, 0, 0, 9] and paid["pot"] == 0 and paid["side_pots"] == [9]
    deal_event = [e for e in events if e["type"] == "deal_started"][0]
    assert deal_event["side_pot_merged"] == 9 and state["pot"] == 12 and state["side_pots"] == []


def test_S10_side_pot_waits_while_main_pot_not_empty() -> None:
    # A side-pot of 9 is waiting; P = 9; a defended deal (shares) leaves 3 in the main pot.
    state = start(deal({3: BIDDER, 1: ["QS", "KS", "JS"]}, stock=("2C", "6D", "4S")), side_pots=True,
                  defended_pot="shares")
    state = with_pot(state, 6, payer=2, side_pots=(9,))  # as if an earlier deal had left a side-pot of 9
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "pass"), (1, "pass"), (2, "decline"), (1, "defend"))
    state, events = act(state, *plays((1, "2C"), (3, "AC"), (3, "AH"), (1, "6D"), (1, "4S"), (3, "5D")))
    assert settlement(events)["pot"] == 3
    assert state["pot"] == 6 and state["side_pots"] == [9]


def test_side_pots_queue_in_playing_order() -> None:
    # Dealer 0 takes and makes one trick, seat 3 stands and makes none: seat 3 pays first (first player).
    board = deal({0: ["4C", "QS", "5C"], 3: ["2C", "4S", "6S"], 2: ["AC", "AH", "KC"]})
    state = start(board, side_pots=True)
    state, _ = act(state, (0, "take", 1), (3, "stand"), (2, "stand"), (1, "pass"))
    assert engine.to_act(state) == [3]
    state, events = act(state, *plays((3, "2C"), (2, "AC"), (0, "4C"), (2, "AH"), (0, "5D"), (3, "4S"),
                                      (0, "5C"), (3, "6S"), (2, "KC")))
    paid = settlement(events)
    assert paid["received"] == [1, 0, 2, 0]
    assert paid["tomatoes"] == [{"seat": 3, "amount": 3}, {"seat": 0, "amount": 2}]
    assert paid["side_pots"] == [3, 2] and paid["pot"] == 0
    assert state["pot"] == 6 and state["side_pots"] == [2]


# ----- S11 undertrump --------------------------------------------------------------------------------
@pytest.mark.parametrize(("undertrump", "seat1", "legal", "refused"), [
    (True, ["4C", "2D", "QS"], ["4C"], {"2D": "must_trump", "QS": "must_trump"}),
    (False, ["4C", "2D", "QS"], ["4C", "2D", "QS"], {}),
    (True, ["3C", "4C", "2D"], ["3C"], {"4C": "must_overtrump", "2D": "must_trump"}),
    (False, ["3C", "4C", "2D"], ["3C"], {"4C": "must_overtrump", "2D": "must_trump"}),
])
def test_S11_undertrump(undertrump: bool, seat1: list[str], legal: list[str], refused: dict[str, str]) -> None:
    board = deal({3: ["5H", "2S", "7H"], 2: ["KC", "4S", "6S"], 1: seat1}, trump="6C")
    state = start(board, must_undertrump=undertrump)
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "stand"))
    state, _ = act(state, *plays((3, "5H")))
    assert legal_cards(state, 2) == ["KC"]
    state, _ = act(state, *plays((2, "KC")))
    assert legal_cards(state, 1) == legal
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 1, "action": "play", "card": card}, reason)


# ----- more play rules and turn order --------------------------------------------------------------------
def test_bidder_right_of_dealer_goes_straight_to_defence() -> None:
    state = start()
    state, _ = act(state, (0, "pass"), (3, "pass"), (2, "pass"), (1, "take", 0))
    assert state["phase"] == "defend" and engine.to_act(state) == [0]  # offers 0, 3, 2: blind passers may defend
    state, _ = act(state, (0, "decline"), (3, "defend"))
    assert state["phase"] == "play" and engine.to_act(state) == [3] and IN_DEAL.size(state) == 2
    assert [IN_DEAL.next_seat(state, s) for s in (3, 1)] == [1, 3]


def test_trick_goes_right_skipping_inactive_seats_and_winner_leads() -> None:
    board = deal({0: ["QS", "KS", "JS"], 3: ["4C", "2S", "AH"], 2: ["5C", "6S", "7S"], 1: ["AC", "2H", "4D"]})
    state = start(board)
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "stand"), *plays((3, "4C"), (2, "5C")))
    assert engine.to_act(state) == [1]
    state, _ = act(state, *plays((1, "AC")))
    assert engine.to_act(state) == [1] and state["tricks"][0]["winner"] == 1
    state, _ = act(state, *plays((1, "2H")))
    assert engine.to_act(state) == [3]  # seat 0 passed blind and is skipped


def test_reason_code_order_for_take() -> None:
    state = start()
    expect_illegal(state, {"seat": 3, "action": "take", "discard_index": 7}, "not_your_turn")
    for bad in (3, -1, 7):
        expect_illegal(state, {"seat": 0, "action": "take", "discard_index": bad}, "invalid_parameters")
    expect_illegal(state, {"seat": 0, "action": "take", "discard_index": "1"}, "invalid_parameters")
    expect_illegal(state, {"seat": 0, "action": "take"}, "invalid_parameters")
    expect_illegal(state, {"seat": 0, "action": "stand"}, "wrong_phase")
    expect_illegal(state, {"seat": 0, "action": "bid"}, "unknown_action")
    expect_illegal(state, {"seat": 3, "action": "pass"}, "not_your_turn")


def test_refusals_follow_the_contract_order() -> None:
    state = start()
    expect_illegal(state, {"seat": 1, "action": "take"}, "not_your_turn")  # turn before parameters
    expect_illegal(state, {"seat": 9, "action": "fly"}, "unknown_action")
    expect_illegal(state, {"seat": 9, "action": "pass"}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "play", "card": "ZZ"}, "wrong_phase")


def test_safe_integers_end_the_match_before_a_count_can_pass_2_53() -> None:
    """Our ruling (the spec is silent): a tomato pays the whole pot, so pots can multiply; the match ends after
    a deal that leaves a pot, side-pot or balance beyond 2^47, and no count ever passes 2^53 - 1."""
    board = deal({0: ["QS", "KS", "JS"], 3: ["4C", "2S", "AH"], 2: ["5C", "6S", "7S"], 1: ["AC", "2H", "4D"]})
    state = start(deal(), board, first_dealer=1)
    state, _ = act(state, *[(s, "pass") for s in (1, 0, 3, 2)])   # deal 1 scrapped; deal 2 is S5's, dealer 0
    pot = SAFE - 1                                                 # as if long play had grown the pot this far
    rest = 400 - pot
    state["before"] = {"dealings": 1, "deal_no": 1, "chips": [rest // 4] * 3 + [rest - 3 * (rest // 4)],
                       "pot": pot, "side_pots": []}
    state = engine.rebuild(state)
    engine.check_state(GAME, state)
    assert state["pot"] == SAFE + 2
    state, events = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "stand"),
                        *plays((3, "4C"), (2, "5C"), (1, "AC"), (1, "2H"), (3, "AH"), (2, "6S"),
                               (3, "5D"), (2, "7S"), (1, "4D")))
    assert settlement(events)["tomatoes"] == [{"seat": 2, "amount": SAFE + 2}]
    assert settlement(events)["pot"] == SAFE + 2 and events[-1]["reason"] == "safe_integers"
    assert engine.is_finished(state) and state["pot"] == 0
    assert all(abs(c) <= 2**53 - 1 for c in state["chips"]) and sum(engine.result(state)["payoffs"]) == 0


def test_card_not_in_hand() -> None:
    state = start()
    state, _ = act(state, (0, "take", 0), (3, "stand"), (2, "pass"), (1, "pass"))
    missing = next(c for c in SPANISH_PACK if c not in state["hands"][3])
    expect_illegal(state, {"seat": 3, "action": "play", "card": missing}, "card_not_in_hand")
    expect_illegal(state, {"seat": 3, "action": "play", "card": "8C"}, "invalid_parameters")  # no card of the pack


# ----- match end --------------------------------------------------------------------------------------
def test_match_ends_after_rounds_times_n_deals_and_shares_the_pot() -> None:
    state = start(n=4, rounds=1)
    for _ in range(3):
        state, _ = act(state, *[(s, "pass") for s in rightwards(state["dealer"], 4)])
    assert state["deal_no"] == 4 and state["dealer"] == 1 and state["pot"] == 12
    state = engine.clone(state)
    for totals in (state, state["before"]):  # as if the earlier deals had left 2 more chips in the pot
        totals["pot"] += 2
        totals["chips"][2] -= 2
    state = engine.check_state(GAME, state)
    state, events = act(state, *[(s, "pass") for s in rightwards(state["dealer"], 4)])
    assert state["phase"] == "over" and engine.legal_moves(state) == [] and engine.to_act(state) == []
    assert state["shared"] == [4, 3, 3, 4]  # odd chips to seats 0 then 3 (first player of the last deal on)
    res = engine.result(state)
    assert res is not None
    assert res["scores"] == [101, 100, 98, 101] and res["payoffs"] == [1, 0, -2, 1]
    assert res["ranking"] == [0, 3, 1, 2] and sum(res["payoffs"]) == 0
    assert events[-1] == {"type": "match_over", "reason": "deals", "pot_shared": [4, 3, 3, 4]}
    expect_illegal(state, {"seat": 0, "action": "pass"}, "match_over")


def test_bust_mode_ends_when_a_balance_reaches_zero() -> None:
    state = start(starting_chips=3, end_mode="bust")
    state, _ = act(state, *[(s, "pass") for s in (0, 3, 2, 1)])
    assert state["phase"] == "over" and state["deal_no"] == 1
    res = engine.result(state)
    assert res is not None and res["scores"] == [0, 4, 4, 4] and res["payoffs"] == [-3, 1, 1, 1]


# ----- options -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {"starting_chips": -1}, {"starting_chips": "100"}, {"starting_chips": 1.5}, {"ante": 0}, {"ante": True},
    {"must_undertrump": "yes"}, {"must_undertrump": 1}, {"defended_pot": "half"}, {"side_pots": None},
    {"end_mode": "first_to"}, {"rounds": 0}, {"rounds": 1001}, {"first_dealer": 4}, {"first_dealer": -1},
    {"colour": "red"}, ["ante"],
])
def test_bad_options_are_refused(options: Any) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 4, options, "5eed")


def test_options_defaults() -> None:
    state = start()
    assert state["options"] == {"starting_chips": 100, "ante": 3, "must_undertrump": True,
                                "defended_pot": "literal", "side_pots": False, "end_mode": "deals", "rounds": 2,
                                "first_dealer": 0}


@pytest.mark.parametrize("players", [2, 11])
def test_player_count(players: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(GAME, players, {}, "5eed")


# ----- explicit deals ------------------------------------------------------------------------------------
def _bad_deals() -> list[Any]:
    good = deal()
    short = engine.clone(good)
    short["rest"].append(short["hands"][0].pop())
    eight = engine.clone(good)
    eight["hands"][0][0] = "8C"
    dup = engine.clone(good)
    dup["rest"][-1] = dup["rest"][0]
    missing = engine.clone(good)
    missing["rest"].pop()
    three = engine.clone(good)
    three["hands"].pop()
    extra = dict(good, stock=[])
    return [short, eight, dup, missing, three, extra, {"hands": good["hands"]}, "deal"]


@pytest.mark.parametrize("bad", _bad_deals())
def test_bad_explicit_deals_are_refused(bad: Any) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 4, {}, "5eed", deals=[bad])


def test_explicit_deal_for_ten_players() -> None:
    state = start(deal(n=10), n=10)
    assert state["rest"] == deal(n=10)["rest"][:4] and all(len(h) == 3 for h in state["hands"])


# ----- seeded deals --------------------------------------------------------------------------------------
def test_seeded_deals_are_reproducible_and_follow_the_deal_order() -> None:
    a = engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffee")
    b = engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffee")
    assert a == b
    cards = shuffled(SPANISH_PACK, "c0ffee", "tomato/0")
    for k in range(15):
        assert a["hands"][(2 - 1 - k % 5) % 5][k // 5] == cards[k]
    assert a["rest"] == cards[15:19]  # the trump card and the three a defender would draw; no more is used
    assert engine.new_match(GAME, 5, {"first_dealer": 2}, "c0ffef")["hands"] != a["hands"]


# ----- views ---------------------------------------------------------------------------------------------
def test_views_hide_every_hand_during_the_blind_take() -> None:
    state = start(deal({3: ["4C", "QS", "AH"]}, trump="5D"))
    for seat in [None, 0, 1, 2, 3]:
        view = engine.view(state, seat)
        assert view["hands"] == [None] * 4 and view["hand_sizes"] == [3] * 4
        assert "rest" not in view and "discards" not in view and "seed" not in view and "deals" not in view
        assert not leaks(view, set(SPANISH_PACK))
    state, events = act(state, (0, "pass"), (3, "take", 1))
    assert not leaks(events, {"QS", "5D"})  # the discard is unseen; the trump card shows as rank and suit
    for seat in [None, 0, 1, 2, 3]:
        view = engine.view(state, seat)
        own = set(state["hands"][seat]) if seat is not None else set()
        assert not leaks(view, set(SPANISH_PACK) - own)
        assert view["turn_up"] == {"rank": "5", "suit": "D"} and view["trump"] == "D" and view["turn"] == 2
    assert engine.view(state, 3)["hands"][3] == ["4C", "AH", "5D"]
    assert engine.view(state, 2)["hands"][2] == state["hands"][2]


def test_views_hide_defender_draw_and_discards() -> None:
    state = start(deal({3: BIDDER}, stock=("2C", "6D", "4S")))
    state, events = act(state, (0, "pass"), (3, "take", 1), (2, "pass"), (1, "pass"), (2, "decline"),
                        (1, "defend"))
    assert not leaks(events, set(SPANISH_PACK))
    for seat in (None, 0, 2, 3):
        assert not leaks(engine.view(state, seat), {"2C", "6D", "4S", *state["discards"]})
    assert engine.view(state, 1)["hands"][1] == ["2C", "6D", "4S"]


# ----- forged states -------------------------------------------------------------------------------------
def _midplay() -> dict[str, Any]:
    board = deal({0: ["QS", "KS", "JS"], 3: ["4C", "2S", "AH"], 2: ["5C", "6S", "7S"], 1: ["AC", "2H", "4D"]})
    state = start(board)
    state, _ = act(state, (0, "pass"), (3, "take", 1), (2, "stand"), (1, "stand"),
                   *plays((3, "4C"), (2, "5C"), (1, "AC"), (1, "2H")))
    return state


def _forge(change: str) -> dict[str, Any]:
    s = _midplay()
    if change == "chips_not_conserved":
        s["chips"][0] += 1
    elif change == "pot_below_ante":
        s["pot"] = 2
        s["chips"][0] += 1
    elif change == "duplicate_card":
        s["hands"][0][0] = s["hands"][1][0]
    elif change == "wrong_winner":  # the trick in progress taken back, so only the winner is wrong
        s["hands"][1].append(s["trick"]["plays"].pop()[1])
        s["tricks"][0]["winner"] = 3
    elif change == "log_card_changed":
        s["log"][-1] = "4D"
    elif change == "log_move_illegal":  # seat 2 held 5C but is logged as renouncing with 6S
        s["log"][5] = "6S"
    elif change == "log_cut_short":
        s["log"].pop()
    elif change == "log_entry_malformed":
        s["log"][1] = [3, "take"]
    elif change == "before_missing":
        del s["before"]
    elif change == "before_chips_not_conserved":
        s["before"]["chips"][0] += 1
    elif change == "before_side_pot_option_off":
        s["before"]["side_pots"] = [3]
        s["before"]["chips"][0] -= 3
    elif change == "before_beyond_the_bound":
        s["before"]["chips"][0] += 2**50
        s["before"]["chips"][1] -= 2**50
    elif change == "illegal_card_in_trick":  # seat 2 held 5C but renounced with 6S
        s["tricks"][0]["plays"][1][1] = "6S"
        s["hands"][2] = ["5C", "7S"]
    elif change == "out_of_turn_trick":
        s["tricks"][0]["plays"] = [s["tricks"][0]["plays"][i] for i in (1, 0, 2)]
    elif change == "passer_in_trick":
        s["trick"]["plays"].append([0, s["hands"][0].pop(0)])
    elif change == "turn_up_not_with_bidder":
        s["turn_up"] = s["hands"][0][0]
    elif change == "two_bidders":
        s["calls"][2] = "take"
    elif change == "calls_out_of_order":
        s["calls"][0] = None
    elif change == "wrong_dealer":
        s["dealer"] = 1
    elif change == "wrong_phase":
        s["phase"] = "declare"
    elif change == "over_without_share":
        s["phase"] = "over"
    elif change == "shared_before_over":
        s["shared"] = [0, 0, 0, 0]
    elif change == "side_pot_option_off":
        s["side_pots"] = [3]
        s["pot"] -= 3
    elif change == "defender_in_contested_deal":
        s["defender"] = 0
    elif change == "hand_too_big":
        s["hands"][0].append(s["rest"].pop())
    elif change == "stock_to_discards":
        s["discards"].append(s["rest"].pop())
    elif change == "unknown_key":
        s["history"] = []
    elif change == "declines_in_contested_deal":
        s["declines"] = 1
    elif change == "deal_no_beyond_match":
        s["deal_no"] = 9
    elif change == "bad_call":
        s["calls"][1] = "double"
    return s


FORGERIES = ["chips_not_conserved", "pot_below_ante", "duplicate_card", "wrong_winner", "log_card_changed",
             "log_move_illegal", "log_cut_short", "log_entry_malformed", "before_missing",
             "before_chips_not_conserved", "before_side_pot_option_off", "before_beyond_the_bound",
             "illegal_card_in_trick", "out_of_turn_trick", "passer_in_trick", "turn_up_not_with_bidder",
             "two_bidders", "calls_out_of_order", "wrong_dealer", "wrong_phase", "over_without_share",
             "shared_before_over", "side_pot_option_off", "defender_in_contested_deal", "hand_too_big",
             "stock_to_discards", "unknown_key", "declines_in_contested_deal", "deal_no_beyond_match", "bad_call"]


def test_unforged_state_is_valid() -> None:
    engine.check_state(GAME, _midplay())


@pytest.mark.parametrize("change", FORGERIES)
def test_forged_states_are_refused(change: str) -> None:
    with pytest.raises(InvalidState):
        engine.check_state(GAME, _forge(change))


def test_a_bust_match_cannot_go_on() -> None:
    """Totals before a deal that should have ended the match (bust mode, a balance at 0) are refused."""
    state = start(deal(), deal(), starting_chips=4, end_mode="bust")
    state, _ = act(state, *[(s, "pass") for s in (0, 3, 2, 1)])
    assert state["deal_no"] == 2 and state["before"]["chips"] == [1, 4, 4, 4]
    state["before"]["chips"] = [0, 4, 4, 5]
    state["chips"] = [0, 4, 4, 2]
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_a_bool_for_a_seat_is_never_adjudicated() -> None:
    """True equals 1 in Python, so a state with a bool for a trick winner may pass the comparison with its
    rebuilt self; the state adjudicated is then the rebuilt one, with the seat number."""
    forged = _midplay()
    forged["tricks"][0]["winner"] = True
    assert type(engine.check_state(GAME, forged)["tricks"][0]["winner"]) is int


def test_forged_take_phase_states_are_refused() -> None:
    state = start()
    peeked = engine.clone(state)
    peeked["turn_up"] = peeked["rest"][0]
    skipped = engine.clone(state)
    skipped["calls"][3] = "pass"  # seat 3 passed before the dealer spoke
    scrapped = engine.clone(state)
    scrapped["calls"] = ["pass"] * 4  # everyone passed but the deal was not scrapped
    for forged in (peeked, skipped, scrapped):
        with pytest.raises(InvalidState):
            engine.check_state(GAME, forged)


# ----- chips conserved in random play --------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, *[dict(o) for o in TOMATO.sample_options]])
@pytest.mark.parametrize("players", [3, 4, 7, 10])
def test_chips_conserved_in_random_play(options: dict[str, Any], players: int) -> None:
    rng = random.Random(players)
    options = dict(options)
    if "first_dealer" in options:
        options["first_dealer"] %= players
    for seed in ("1", "2a", "3b"):
        state = engine.new_match(GAME, players, options, seed)
        total = players * state["options"]["starting_chips"]
        while not engine.is_finished(state):
            assert total_chips(state) == total
            state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        res = engine.result(state)
        assert res is not None and sum(res["scores"]) == total and sum(res["payoffs"]) == 0
        assert state["pot"] == 0 and state["side_pots"] == []


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("tomato", 4, "play", "card", "9S")
