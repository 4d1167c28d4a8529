"""Zwikken: every scenario of the spec behind docs/games/zwikken.md, section 9, plus options, deals, chips and forged states."""
from __future__ import annotations

import random
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidRequest, InvalidState
from service.engine.games.zwikken import PACK, SAFE, fractions
from service.engine.rng import shuffled

from ..playout import concrete, expect_illegal, leaks, outside_code_then_not_held, play_to_end

GAME = "zwikken"


def deal(hands: dict[int, list[str]], head: list[str]) -> dict[str, Any]:
    """An explicit deal: the three hands; ``rest`` = ``head`` (turn-up, stock top...) then the unused cards."""
    used = {c for h in hands.values() for c in h} | set(head)
    return {"hands": [list(hands[s]) for s in range(3)], "rest": [*head, *(c for c in PACK if c not in used)]}


def start(hands: dict[int, list[str]], head: list[str], **options: Any) -> dict[str, Any]:
    state = engine.new_match(GAME, 3, options, "5eed", deals=[deal(hands, head)])
    engine.check_state(GAME, state)
    return state


def act(state: dict[str, Any], seat: int, action: str, seen: list[dict[str, Any]] | None = None,
        **params: Any) -> dict[str, Any]:
    """Apply a move (its events added to ``seen``) and check that the new state passes the full check."""
    state, events = engine.apply(state, {"seat": seat, "action": action, **params})
    engine.check_state(GAME, state)
    if seen is not None:
        seen += events
    return state


def act_events(state: dict[str, Any], seat: int, action: str, **params: Any) -> tuple[dict[str, Any], list]:
    state, events = engine.apply(state, {"seat": seat, "action": action, **params})
    engine.check_state(GAME, state)
    return state, events


def speak(state: dict[str, Any], *turns: int | None, seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One speech per seat in bidding order (eldest first): an amount, or None for a pass."""
    for amount in turns:
        seat = engine.legal_moves(state)[0]["seat"]
        state = act(state, seat, "pass", seen) if amount is None else act(state, seat, "bid", seen, amount=amount)
    return state


def play(state: dict[str, Any], *moves: tuple[int, str], seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    for seat, card in moves:
        state = act(state, seat, "play", seen, card=card)
    return state


def legal_cards(state: dict[str, Any], seat: int) -> set[str]:
    return {m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"}


def settled(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The deal's ``deal_settled`` event, without its type."""
    found = [e for e in events if e["type"] == "deal_settled"]
    assert len(found) == 1, events
    return {k: v for k, v in found[0].items() if k != "type"}


def conserved(state: dict[str, Any]) -> bool:
    return sum(state["chips"]) + state["pot"] == 3 * state["options"]["starting_chips"]


# Hands with no zwik and no trump Ten (trumps spades, TS in the stock): a plain bidding position.
PLAIN = {0: ["KC", "KD", "JH"], 1: ["AC", "QD", "JS"], 2: ["AD", "QC", "JC"]}


# ----- S1: stakes and bidding -------------------------------------------------------------
def test_S1_stakes_and_rising_bids() -> None:
    state = start(PLAIN, ["AS", "KS", "QS"])
    assert state["pot"] == 3 and state["chips"] == [29, 29, 29]
    assert engine.legal_moves(state) == [
        {"seat": 1, "action": "pass"},
        {"seat": 1, "action": "bid", "amount": 1, "ranges": {"amount": {"min": 1, "max": 3}}}]
    state = act(state, 1, "bid", amount=1)
    entry = {"seat": 2, "action": "bid", "amount": 2, "ranges": {"amount": {"min": 2, "max": 3}}}
    assert engine.legal_moves(state) == [{"seat": 2, "action": "pass"}, entry]
    engine.apply(state, entry)                                             # the entry posts back as it is
    engine.apply(state, dict(entry, amount=3))                             # and so does any amount in its range
    expect_illegal(state, {"seat": 2, "action": "bid", "amount": 1}, "bid_too_low")
    expect_illegal(state, {"seat": 2, "action": "bid", "amount": 4}, "bid_too_high")
    expect_illegal(state, {"seat": 0, "action": "bid", "amount": 2}, "not_your_turn")
    state = act(state, 2, "bid", amount=3)
    assert engine.legal_moves(state) == [{"seat": 0, "action": "pass"}]   # nothing above the pot remains
    state = act(state, 0, "pass")
    assert (state["shooter"], state["amount"]) == (2, 3)
    assert state["phase"] == "play" and engine.to_act(state) == [1]      # eldest leads (R7)


@pytest.mark.parametrize(("amount", "reason"), [(0, "bid_too_low"), (-2, "bid_too_low"), (4, "bid_too_high"),
                                                (10**12, "bid_too_high")])
def test_S1_bid_bounds(amount: int, reason: str) -> None:
    state = start(PLAIN, ["AS", "KS", "QS"])
    expect_illegal(state, {"seat": 1, "action": "bid", "amount": amount}, reason)


@pytest.mark.parametrize("move", [{"seat": 1, "action": "bid", "amount": "3"}, {"seat": 1, "action": "bid"},
                                  {"seat": 1, "action": "bid", "amount": 2.0}, {"seat": 3, "action": "pass"},
                                  {"seat": 1, "action": "pass", "amount": 1}])
def test_S1_malformed_bids(move: dict[str, Any]) -> None:
    expect_illegal(start(PLAIN, ["AS", "KS", "QS"]), move, "invalid_parameters")


def test_fractions_bidding() -> None:
    state = start(PLAIN, ["AS", "KS", "QS"], bid_amounts="fractions", stake=2)
    assert state["pot"] == 6 and fractions(6) == [2, 3, 6]
    assert [m.get("amount") for m in engine.legal_moves(state)] == [None, 2, 3, 6]
    expect_illegal(state, {"seat": 1, "action": "bid", "amount": 4}, "bid_not_a_fraction")
    expect_illegal(state, {"seat": 1, "action": "bid", "amount": 7}, "bid_too_high")
    state = act(state, 1, "bid", amount=3)
    assert [m.get("amount") for m in engine.legal_moves(state)] == [None, 6]
    expect_illegal(state, {"seat": 2, "action": "bid", "amount": 2}, "bid_too_low")   # low comes before fraction
    expect_illegal(state, {"seat": 2, "action": "bid", "amount": 5}, "bid_not_a_fraction")
    assert fractions(3) == [1, 3] and fractions(7) == [2, 3, 7]


# ----- S2: passed out, turning again ------------------------------------------------------
def test_S2_turn_again_then_automatic_annulment() -> None:
    state = start(PLAIN, ["AS", "KS", "QS"])
    state = speak(state, None, None, None)
    assert state["pot"] == 3 and state["phase"] == "bid"
    assert engine.legal_moves(state) == [{"seat": 0, "action": "turn_again"}, {"seat": 0, "action": "annul"}]
    expect_illegal(state, {"seat": 1, "action": "turn_again"}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "pass"}, "wrong_phase")
    expect_illegal(state, {"seat": 0, "action": "bid", "amount": 1}, "wrong_phase")
    state = act(state, 0, "turn_again")
    assert state["pot"] == 6 and state["chips"] == [28, 28, 28]
    assert state["dead"] == ["AS"] and state["turn_up"] == "KS" and state["rest"][0] == "QS"
    assert state["turns"] == 2 and state["bids"] == [] and engine.to_act(state) == [1]
    state = act(speak(state, None, None, None), 0, "turn_again")
    assert state["pot"] == 9 and state["dead"] == ["AS", "KS"] and state["turn_up"] == "QS"
    state = speak(state, None, None)
    state, events = act_events(state, 0, "pass")   # the third turn passed out: annulled, dealer not asked
    assert {"type": "passed_out", "dealer": 0} not in events
    assert settled(events) == {"deal": 1, "dealer": 0, "changes": [-3, -3, -3], "unit": "chips",
                               "outcome": "annulled", "shooter": None, "amount": None, "zwik": None, "turns": 3,
                               "at_stake": 9, "pot": 9}
    assert [e["type"] for e in events] == ["pass", "deal_settled", "deal_started"]
    assert state["deal_no"] == 2 and state["dealer"] == 1 and state["pot"] == 12 and state["chips"] == [26] * 3
    assert engine.legal_moves(state)[0] == {"seat": 2, "action": "pass"}


def test_S2_dealer_annuls() -> None:
    state = speak(start(PLAIN, ["AS", "KS", "QS"]), None, None, None)
    state, events = act_events(state, 0, "annul")
    assert events[0] == {"type": "annul", "seat": 0}
    assert settled(events)["outcome"] == "annulled" and settled(events)["turns"] == 1
    assert state["deal_no"] == 2 and state["pot"] == 6 and state["chips"] == [28, 28, 28]


def test_S2_dealer_choice_only_after_all_passed() -> None:
    state = start(PLAIN, ["AS", "KS", "QS"])
    expect_illegal(state, {"seat": 0, "action": "turn_again"}, "wrong_phase")
    expect_illegal(speak(state, None), {"seat": 0, "action": "annul"}, "wrong_phase")


def test_S2_max_turns_one_annuls_at_once() -> None:
    state = speak(start(PLAIN, ["AS", "KS", "QS"], max_turns=1), None, None)
    state, events = act_events(state, 0, "pass")
    assert state["deal_no"] == 2 and settled(events)["turns"] == 1 and state["pot"] == 6


# ----- S3: the Ten exchange ------------------------------------------------------------------
S3_HANDS = {0: ["AC", "AD", "QH"], 1: ["QC", "JD", "JS"], 2: ["TH", "KS", "KD"]}


def test_S3_ten_exchange_makes_a_zwik() -> None:
    state = speak(start(S3_HANDS, ["KH"]), 2, None, None)
    assert state["phase"] == "ten" and (state["shooter"], state["amount"]) == (1, 2)
    assert engine.legal_moves(state) == [{"seat": 2, "action": "exchange_ten"}, {"seat": 2, "action": "keep_ten"}]
    expect_illegal(state, {"seat": 0, "action": "keep_ten"}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "play", "card": "QC"}, "wrong_phase")
    state, events = act_events(state, 2, "exchange_ten")
    assert {"type": "exchange_ten", "seat": 2, "took": "KH", "turn_up": "TH"} in events
    assert {"type": "zwik", "seat": 2, "rank": "K", "cards": ["KH", "KS", "KD"]} in events
    # Seat 2's zwik takes the whole pot (3); then the shooter pays his 2 into it.
    assert settled(events) == {"deal": 1, "dealer": 0, "changes": [-1, -3, 2], "unit": "chips", "outcome": "failure",
                               "shooter": 1, "amount": 2, "zwik": {"seat": 2, "rank": "K"}, "turns": 1,
                               "at_stake": 3, "pot": 2}
    assert state["deal_no"] == 2 and state["chips"] == [28, 26, 31] and state["pot"] == 5


def test_S3_exchange_without_zwik_and_keeping() -> None:
    hands = {0: ["AC", "AD", "QH"], 1: ["QC", "JD", "JS"], 2: ["TH", "KS", "QD"]}
    state = act(speak(start(hands, ["KH"]), 2, None, None), 2, "exchange_ten")
    assert state["phase"] == "play" and state["hands"][2] == ["KH", "KS", "QD"] and state["turn_up"] == "TH"
    state = act(speak(start(hands, ["KH"]), 2, None, None), 2, "keep_ten")
    assert state["phase"] == "play" and state["hands"][2] == ["TH", "KS", "QD"] and state["turn_up"] == "KH"


@pytest.mark.parametrize(("where", "head"), [("turn_up", ["TS"]), ("stock", ["KS"]), ("dead", ["TS", "KS"])])
def test_S3_ten_phase_skipped(where: str, head: list[str]) -> None:
    state = start(PLAIN, head)
    if where == "dead":   # TS was turned, set aside, and spades turned again
        state = act(speak(state, None, None, None), 0, "turn_again")
    state = speak(state, 1, None, None)
    assert state["phase"] == "play"


# ----- S4: zwik contest --------------------------------------------------------------------
def _s4(seat2: list[str], speeches: tuple, **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Pot 9 after two re-turns (trumps end as spades, TS in the stock), then the third bidding turn: the state
    and the deal's settlement."""
    state = start({0: ["KC", "KD", "JH"], 1: ["AC", "AD", "AS"], 2: seat2}, ["KH", "KS", "JS"], **options)
    for _ in range(2):
        state = act(speak(state, None, None, None), 0, "turn_again")
    assert state["pot"] == 9 and state["turn_up"] == "JS"
    seen: list[dict[str, Any]] = []
    return speak(state, *speeches, seen=seen), settled(seen)


def test_S4_shooter_has_the_better_zwik() -> None:
    state, deal1 = _s4(["QC", "QD", "QH"], (4, None, None))
    assert deal1 == {"deal": 1, "dealer": 0, "changes": [-3, 1, -3], "unit": "chips", "outcome": "success",
                     "shooter": 1, "amount": 4, "zwik": {"seat": 1, "rank": "A"}, "turns": 3, "at_stake": 9, "pot": 5}
    assert state["chips"] == [27 - 1, 31 - 1, 27 - 1] and state["pot"] == 5 + 3


@pytest.mark.parametrize(("zwik_other", "chips", "pot"), [("pot", [27, 36, 23], 4), ("amount", [27, 31, 23], 9)])
def test_S4_another_players_zwik(zwik_other: str, chips: list[int], pot: int) -> None:
    state, h = _s4(["QC", "QD", "JC"], (None, 4, None), zwik_other=zwik_other)
    assert (h["outcome"], h["shooter"], h["zwik"], h["pot"]) == ("failure", 2, {"seat": 1, "rank": "A"}, pot)
    assert h["changes"] == [c - 30 for c in chips] and sum(h["changes"]) + (pot - 0) == 0  # the pot began empty
    assert state["chips"] == [c - 1 for c in chips] and state["pot"] == pot + 3
    assert conserved(state)


# ----- S5, S6: trick duties -----------------------------------------------------------------
def test_S5_follow_suit_without_heading() -> None:
    state = speak(start({0: ["KC", "KH", "JH"], 1: ["KS", "JC", "QC"], 2: ["AS", "TS", "QH"]}, ["AD"]), 1, None, None)
    state = play(state, (1, "KS"))
    assert legal_cards(state, 2) == {"AS", "TS"} and engine.to_act(state) == [2]
    expect_illegal(state, {"seat": 2, "action": "play", "card": "QH"}, "must_follow_suit")
    expect_illegal(state, {"seat": 2, "action": "play", "card": "KD"}, "card_not_in_hand")
    expect_illegal(state, {"seat": 0, "action": "play", "card": "KC"}, "not_your_turn")


@pytest.mark.parametrize(("seat0", "undertrump", "legal", "refused"), [
    (["JH", "TH", "AS"], "required", {"JH", "TH"}, {"AS": "must_trump"}),
    (["JH", "TH", "AS"], "allowed", {"JH", "TH", "AS"}, {}),
    (["JH", "TH", "AS"], "forbidden_unless_forced", {"AS"}, {"JH": "undertrump_forbidden", "TH": "undertrump_forbidden"}),
    (["KH", "TH", "AS"], "required", {"KH"}, {"TH": "must_overtrump", "AS": "must_trump"}),
    (["KH", "TH", "AS"], "allowed", {"KH"}, {"TH": "must_overtrump", "AS": "must_trump"}),
    (["KH", "TH", "AS"], "forbidden_unless_forced", {"KH"}, {"TH": "must_overtrump", "AS": "must_trump"}),
])
def test_S6_void_must_trump_and_overtrump(seat0: list[str], undertrump: str, legal: set[str],
                                          refused: dict[str, str]) -> None:
    hands = {0: seat0, 1: ["AC", "KC", "KD"], 2: ["QH", "QD", "JS"]}
    state = speak(start(hands, ["AH"], undertrump=undertrump), 1, None, None)
    state = act(state, 0, "keep_ten")   # seat 0 holds the trump Ten
    state = play(state, (1, "AC"))
    assert legal_cards(state, 2) == {"QH"}   # void in clubs, holding a trump: must trump
    state = play(state, (2, "QH"))
    assert legal_cards(state, 0) == legal
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 0, "action": "play", "card": card}, reason)


def test_trumps_led_any_trump_follows() -> None:
    hands = {0: ["KC", "KD", "JH"], 1: ["AS", "QC", "JC"], 2: ["QS", "KS", "AD"]}
    state = play(speak(start(hands, ["JS"]), 1, None, None), (1, "AS"))
    assert legal_cards(state, 2) == {"QS", "KS"}


# ----- S7, S8: scoring ------------------------------------------------------------------------
S7_PLAY = ((1, "JD"), (2, "TD"), (0, "TC"), (0, "KS"), (1, "QS"), (2, "AS"), (2, "TH"), (0, "JH"), (1, "JC"))
S8_PLAY = ((1, "QC"), (2, "QD"), (0, "TC"), (2, "TD"), (0, "JD"), (1, "JC"), (0, "JH"), (1, "TH"), (2, "JS"))
S8V_PLAY = ((1, "AD"), (2, "JD"), (0, "TD"), (1, "TC"), (2, "KC"), (0, "TH"), (2, "QH"), (0, "JS"), (1, "TS"))


def _played(hands: dict[int, list[str]], head: list[str], speeches: tuple, ten_seat: int,
            moves: tuple, seen: list[dict[str, Any]] | None = None, **options: Any) -> dict[str, Any]:
    state = speak(start(hands, head, **options), *speeches)
    state = act(state, ten_seat, "keep_ten")
    before = play(state, *moves[:-1])
    assert before["phase"] == "play" and len(before["tricks"]) == 2
    return play(before, moves[-1], seen=seen)


def test_S7_one_rich_trick_wins() -> None:
    seen: list[dict[str, Any]] = []
    state = _played({0: ["TC", "KS", "JH"], 1: ["JD", "QS", "JC"], 2: ["TD", "AS", "TH"]}, ["AC"],
                    (None, 2, None), 0, S7_PLAY, seen)
    assert settled(seen) == {"deal": 1, "dealer": 0, "changes": [-1, -1, 1], "unit": "chips", "outcome": "success",
                             "shooter": 2, "amount": 2, "zwik": None, "turns": 1, "at_stake": 3, "pot": 1}
    assert seen[0] == {"type": "trick_won", "number": 3, "winner": 1, "plays": [[2, "TH"], [0, "JH"], [1, "JC"]]}
    assert seen[-1] == {"type": "deal_started", "deal": 2, "dealer": 1, "pot": 4, "turn_up": seen[-1]["turn_up"]}
    assert state["chips"] == [28, 28, 30] and state["pot"] == 4 and conserved(state)


@pytest.mark.parametrize(("hands", "head", "speeches", "ten_seat", "moves", "shooter"), [
    ({0: ["TC", "JD", "JH"], 1: ["QC", "JC", "TH"], 2: ["QD", "TD", "JS"]}, ["KD"], (None, 2, None), 2, S8_PLAY, 2),
    ({0: ["TD", "TH", "JS"], 1: ["AD", "TC", "TS"], 2: ["JD", "KC", "QH"]}, ["QC"], (2, None, None), 1, S8V_PLAY, 1),
])
def test_S8_equal_or_fewer_points_fail(hands: dict[int, list[str]], head: list[str], speeches: tuple, ten_seat: int,
                                       moves: tuple, shooter: int) -> None:
    seen: list[dict[str, Any]] = []
    state = _played(hands, head, speeches, ten_seat, moves, seen)
    h = settled(seen)
    assert (h["outcome"], h["shooter"], h["amount"], h["pot"]) == ("failure", shooter, 2, 5)
    assert h["changes"][shooter] == -3 and sum(h["changes"]) == -5   # the pot gained 5: the stakes and the 2
    assert state["chips"][shooter] == 30 - 1 - 2 - 1 and state["pot"] == 8 and conserved(state)


# ----- the match ------------------------------------------------------------------------------
def test_match_end_shares_the_pot_with_odd_chips_from_eldest() -> None:
    hands = {0: ["TC", "KS", "JH"], 1: ["JD", "QS", "JC"], 2: ["TD", "AS", "TH"]}
    state = _played(hands, ["AC"], (None, 2, None), 0, S7_PLAY, deals=3, max_turns=1)
    seen: list[dict[str, Any]] = []
    state = speak(speak(state, None, None, None), None, None, None, seen=seen)   # deals 2 and 3 passed out
    assert engine.is_finished(state) and state["pot"] == 0
    # Pot 1 + 3 + 3 = 7 shared 3/2/2 from seat 0, the eldest of deal 3 (dealer 2).
    assert state["chips"] == [30, 29, 31]
    res = engine.result(state)
    assert res["scores"] == [30, 29, 31] and res["payoffs"] == [0, -1, 1] and res["ranking"] == [2, 0, 1]
    assert set(res) == {"scores", "payoffs", "ranking"}  # per-deal outcomes are the deal_settled events
    assert settled(seen) == {"deal": 3, "dealer": 2, "changes": [-1, -1, -1], "unit": "chips", "outcome": "annulled",
                             "shooter": None, "amount": None, "zwik": None, "turns": 1, "at_stake": 7, "pot": 7}
    assert seen[-1] == {"type": "match_over", "reason": "deals", "pot_shared": [3, 2, 2]}
    assert engine.legal_moves(state) == [] and engine.to_act(state) == []
    expect_illegal(state, {"seat": 0, "action": "pass"}, "match_over")


def test_bust_mode_ends_after_a_deal_with_a_balance_at_zero() -> None:
    seen: list[dict[str, Any]] = []
    state = speak(start(PLAIN, ["AS"], end_mode="bust", starting_chips=1, max_turns=1), None, None, None, seen=seen)
    assert engine.is_finished(state) and state["deal_no"] == 1 and seen[-1]["reason"] == "bust"
    assert engine.result(state)["payoffs"] == [0, 0, 0] and state["chips"] == [1, 1, 1]


def test_deals_mode_plays_on_past_zero_balances() -> None:
    state = speak(start(PLAIN, ["AS"], starting_chips=1, max_turns=1), None, None, None)
    assert not engine.is_finished(state) and state["chips"] == [-1, -1, -1]


def test_safe_integers_end_the_match_before_a_count_can_pass_2_53() -> None:
    """Our ruling (the spec is silent): a failed shooter can double the pot, so the match ends after a deal that
    leaves the pot or a balance beyond 2^51; then no count ever passes 2^53 - 1 and no legal move is refused."""
    s8 = deal({0: ["TC", "JD", "JH"], 1: ["QC", "JC", "TH"], 2: ["QD", "TD", "JS"]}, ["KD"])
    state = engine.new_match(GAME, 3, {"first_dealer": 2, "max_turns": 1}, "5eed", deals=[deal(PLAIN, ["AS"]), s8])
    state = speak(state, None, None, None)                       # deal 1 annulled; deal 2 is S8, dealer 0
    pot = SAFE - 3                                               # as if long play had grown the pot this far
    rest = 90 - pot
    state["before"] = {"dealings": 1, "deal_no": 1, "chips": [rest // 3, rest // 3, rest - 2 * (rest // 3)],
                       "pot": pot}
    state = engine.rebuild(state)
    engine.check_state(GAME, state)
    assert state["pot"] == SAFE
    seen: list[dict[str, Any]] = []
    state = speak(state, None, SAFE, None)                      # seat 2 plays for the whole pot
    state = play(act(state, 2, "keep_ten"), *S8_PLAY, seen=seen)  # and fails: he pays the pot's worth in
    assert settled(seen)["outcome"] == "failure" and settled(seen)["pot"] == 2 * SAFE
    third = 2 * SAFE // 3                                        # the odd chip goes to eldest, seat 1
    assert seen[-1] == {"type": "match_over", "reason": "safe_integers", "pot_shared": [third, third + 1, third]}
    assert engine.is_finished(state) and state["pot"] == 0
    assert all(abs(c) <= 2**53 - 1 for c in state["chips"]) and sum(engine.result(state)["payoffs"]) == 0


def test_refusals_follow_the_contract_order() -> None:
    state = start(PLAIN, ["AS", "KS", "QS"])
    expect_illegal(state, {"seat": 2, "action": "bid", "amount": "x"}, "not_your_turn")  # turn before parameters
    expect_illegal(state, {"seat": 9, "action": "fly"}, "unknown_action")
    expect_illegal(state, {"seat": 2, "action": "play", "card": "ZZ"}, "wrong_phase")
    expect_illegal(speak(state, None, None, None), {"seat": 2, "action": "pass", "amount": 1}, "wrong_phase")


@pytest.mark.parametrize("options", [{}, {"bid_amounts": "fractions", "zwik_other": "amount"},
                                     {"end_mode": "bust", "starting_chips": 3, "max_turns": 1},
                                     {"undertrump": "forbidden_unless_forced", "stake": 3, "deals": 6}])
def test_chips_are_conserved_in_random_matches(options: dict[str, Any]) -> None:
    for k in range(4):
        rng = random.Random(k)
        state = engine.new_match(GAME, 3, options, f"c0ffee{k}")
        while not engine.is_finished(state):
            assert conserved(state) and state["pot"] >= 0
            state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        assert conserved(state) and state["pot"] == 0 and sum(engine.result(state)["payoffs"]) == 0


# ----- options, deals, seeds, views ------------------------------------------------------------
@pytest.mark.parametrize(("options"), [
    {"starting_chips": -1}, {"starting_chips": "30"}, {"stake": 0}, {"stake": True}, {"max_turns": 0},
    {"max_turns": 4}, {"bid_amounts": "half"}, {"undertrump": "forbidden"}, {"undertrump": True},
    {"zwik_other": "all"}, {"end_mode": "first_to"}, {"deals": 4}, {"deals": 0}, {"deals": 1002},
    {"deals": "12"}, {"deals": True}, {"deals": 12.0}, {"first_dealer": 3}, {"first_dealer": -1}, {"colour": 1},
])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 3, options, "5eed")


def test_options_normal_form_and_player_count() -> None:
    state = engine.new_match(GAME, None, {"deals": 3}, "5eed")
    assert state["players"] == 3 and state["options"] == {
        "starting_chips": 30, "stake": 1, "max_turns": 3, "bid_amounts": "any", "undertrump": "required",
        "zwik_other": "pot", "end_mode": "deals", "deals": 3, "first_dealer": 0}
    for n in (2, 4):
        with pytest.raises(InvalidRequest):
            engine.new_match(GAME, n, {}, "5eed")


def _bad_deals() -> list[dict[str, Any]]:
    good = deal(PLAIN, ["AS"])
    short = {"hands": good["hands"], "rest": good["rest"][:-1] + []}
    four = {"hands": [[*good["hands"][0], good["rest"][-1]], *good["hands"][1:]], "rest": good["rest"][:-1]}
    dup = {"hands": good["hands"], "rest": [*good["rest"][:-1], "AS"]}
    foreign = {"hands": good["hands"], "rest": [*good["rest"][:-1], "9S"]}
    two = {"hands": good["hands"][:2], "rest": good["rest"]}
    extra = {**good, "widow": []}
    return [short, four, dup, foreign, two, extra, {"hands": good["hands"]}]


@pytest.mark.parametrize("bad", _bad_deals())
def test_bad_explicit_deals_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 3, {}, "5eed", deals=[bad])


def test_explicit_deals_are_used_in_order_annulled_ones_included() -> None:
    second = deal({0: ["AC", "AD", "QH"], 1: ["QC", "JD", "JS"], 2: ["TH", "KS", "KD"]}, ["KH"])
    state = engine.new_match(GAME, 3, {"max_turns": 1}, "5eed", deals=[deal(PLAIN, ["AS"]), second])
    state = speak(state, None, None, None)
    assert state["hands"] == second["hands"] and state["turn_up"] == "KH" and state["dealings"] == 2


def test_seeded_deal_is_reproducible_and_follows_the_layout() -> None:
    a = engine.new_match(GAME, 3, {"first_dealer": 1}, "00c0ffee")
    b = engine.new_match(GAME, 3, {"first_dealer": 1}, "00c0ffee")
    assert a == b and engine.new_match(GAME, 3, {"first_dealer": 1}, "beef") != a
    cards = shuffled(PACK, "00c0ffee", "zwikken/0")
    # Dealer 1: eldest 2, then 0, then the dealer; 1 card each, then 2 each.
    assert a["hands"][2] == [cards[0], cards[3], cards[4]]
    assert a["hands"][0] == [cards[1], cards[5], cards[6]]
    assert a["hands"][1] == [cards[2], cards[7], cards[8]]
    assert a["turn_up"] == cards[9] and a["rest"] == cards[10:]


def test_views_hide_hands_and_the_stock() -> None:
    state = act(speak(start(PLAIN, ["AS", "KS", "QS"]), None, None, None), 0, "turn_again")
    stock = set(state["rest"])
    for seat in (None, 0, 1, 2):
        view = engine.view(state, seat)
        others = {c for s, h in enumerate(state["hands"]) if s != seat for c in h}
        assert not leaks(view, others | stock)
        assert "rest" not in view and "seed" not in view and "deals" not in view
        assert view["turn_up"] == "KS" and view["dead"] == ["AS"] and view["stock_size"] == 9
        assert view["hands"] == [h if s == seat else None for s, h in enumerate(state["hands"])]


# ----- forged states ---------------------------------------------------------------------------
def _in_play() -> dict[str, Any]:
    hands = {0: ["TC", "KS", "JH"], 1: ["JD", "QS", "JC"], 2: ["TD", "AS", "TH"]}
    state = act(speak(start(hands, ["AC"]), None, 2, None), 0, "keep_ten")
    return play(state, *S7_PLAY[:4])


def _after_one() -> dict[str, Any]:
    hands = {0: ["TC", "KS", "JH"], 1: ["JD", "QS", "JC"], 2: ["TD", "AS", "TH"]}
    return _played(hands, ["AC"], (None, 2, None), 0, S7_PLAY, deals=3, max_turns=1)


def _bust_second_deal() -> dict[str, Any]:
    """Bust mode, 5 chips each: deal 1 passed out (4 each, pot 3), deal 2 dealt (3 each, pot 6)."""
    state = speak(start(PLAIN, ["AS"], end_mode="bust", starting_chips=5, max_turns=1), None, None, None)
    assert state["deal_no"] == 2 and state["chips"] == [3, 3, 3] and state["before"]["chips"] == [4, 4, 4]
    return state


def _finished() -> dict[str, Any]:
    """Two deals passed out, then S7 turned one seat anticlockwise (dealer 2, eldest 0): the match is over."""
    s7 = deal({0: ["JD", "QS", "JC"], 1: ["TD", "AS", "TH"], 2: ["TC", "KS", "JH"]}, ["AC"])
    state = engine.new_match(GAME, 3, {"deals": 3, "max_turns": 1}, "5eed",
                             deals=[deal(PLAIN, ["AS"]), deal(PLAIN, ["AS"]), s7])
    state = act(speak(speak(speak(state, None, None, None), None, None, None), None, 2, None), 2, "keep_ten")
    state = play(state, *(((seat - 1) % 3, card) for seat, card in S7_PLAY))
    assert engine.is_finished(state) and state["chips"] == [30, 31, 29]
    return state


def _set(path: tuple, value: Any) -> Any:
    def change(state: dict[str, Any]) -> None:
        target = state
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _swap_hand_and_trick(state: dict[str, Any]) -> None:
    # Seat 0 pretends it played JH to trick 1 while holding TC (it had to trump).
    state["tricks"][0]["plays"][2][1], state["hands"][0][0] = "JH", "TC"


FORGERIES = {
    "chips_off": (_in_play, lambda s: s["chips"].__setitem__(0, s["chips"][0] + 1)),
    "chips_moved": (_in_play, lambda s: (s["chips"].__setitem__(0, s["chips"][0] + 1),
                                        s["chips"].__setitem__(1, s["chips"][1] - 1))),
    "pot_off": (_in_play, _set(("pot",), 4)),
    "shooter_changed": (_in_play, _set(("shooter",), 1)),
    "amount_changed": (_in_play, _set(("amount",), 3)),
    "amount_over_pot": (_in_play, lambda s: s["bids"].__setitem__(1, 9)),
    "illegal_card_replayed": (_in_play, _swap_hand_and_trick),
    "wrong_winner": (_in_play, _set(("tricks", 0, "winner"), 2)),
    "wrong_leader": (_in_play, lambda s: s["trick"]["plays"][0].__setitem__(0, 1)),
    "duplicate_card": (_in_play, _set(("rest", 0), "AS")),
    "card_not_in_pack": (_in_play, _set(("rest", 0), "9S")),
    "extra_key": (_in_play, _set(("extra",), 1)),
    "bad_phase": (_in_play, _set(("phase",), "zwik")),
    "ten_phase_without_ten": (_in_play, _set(("phase",), "ten")),
    "bid_phase_after_bidding": (_in_play, _set(("phase",), "bid")),
    "turns_without_dead": (_in_play, _set(("turns",), 2)),
    "dealings_off": (_in_play, _set(("dealings",), 5)),
    "deal_no_off": (_in_play, _set(("deal_no",), 2)),
    "before_pot_off": (_after_one, lambda s: s["before"].__setitem__("pot", s["before"]["pot"] + 1)),
    "before_pot_negative": (_after_one, lambda s: (s["before"].__setitem__("pot", -1),
                                                  s["before"]["chips"].__setitem__(0, s["before"]["chips"][0] + 2))),
    "before_count_as_bool": (_after_one, _set(("before", "dealings"), True)),
    "before_deal_no_off": (_after_one, _set(("before", "deal_no"), 2)),
    "before_key_missing": (_after_one, lambda s: s["before"].pop("pot")),
    "before_beyond_the_bound": (_after_one, lambda s: (s["before"]["chips"].__setitem__(0, 2**60),
                                                      s["before"]["chips"].__setitem__(1, 58 - 2**60))),
    "before_bust_match_went_on": (_bust_second_deal, lambda s: (s["before"].__setitem__("chips", [0, 6, 6]),
                                                               s.__setitem__("chips", [-1, 5, 5]))),
    "log_bid_changed": (_in_play, _set(("log", 1, 2), 3)),
    "log_card_changed": (_in_play, _set(("log", 4), "QS")),
    "log_card_illegal": (_in_play, _set(("log", 5), "AS")),
    "log_goes_on": (_in_play, lambda s: s["log"].append("QS")),
    "log_entry_malformed": (_in_play, _set(("log", 0), [1, "fly"])),
    "log_missing": (_in_play, lambda s: s.pop("log")),
    "stale_last_key": (_after_one, _set(("last",), None)),
    "chips_after_one_moved": (_after_one, lambda s: (s["chips"].__setitem__(0, s["chips"][0] + 1),
                                                    s["chips"].__setitem__(1, s["chips"][1] - 1))),
    "pot_after_one_off": (_after_one, lambda s: (s.__setitem__("pot", s["pot"] + 1),
                                                s["chips"].__setitem__(0, s["chips"][0] - 1))),
    "over_too_early": (_after_one, _set(("phase",), "over")),
    "over_chips_moved": (_finished, lambda s: (s["chips"].__setitem__(0, s["chips"][0] + 1),
                                              s["chips"].__setitem__(1, s["chips"][1] - 1))),
    "over_pot_not_shared": (_finished, lambda s: (s.__setitem__("pot", 1), s["chips"].__setitem__(0, s["chips"][0] - 1))),
    "over_trick_winner": (_finished, _set(("tricks", 2, "winner"), 2)),
    "over_before_chips_moved": (_finished, lambda s: (s["before"]["chips"].__setitem__(0, s["before"]["chips"][0] + 1),
                                                     s["before"]["chips"].__setitem__(1, s["before"]["chips"][1] - 1))),
    "over_not_finished": (_finished, _set(("phase",), "play")),
    "trick_missing": (_in_play, lambda s: s["tricks"].pop()),
    "bids_fall": (lambda: speak(start(PLAIN, ["AS"]), 2), lambda s: s["bids"].append(1)),
    "passed_out_last_turn": (lambda: speak(start(PLAIN, ["AS"], max_turns=1), None, None),
                             lambda s: s["bids"].append(None)),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_states_are_refused(name: str) -> None:
    build, corrupt = FORGERIES[name]
    state = engine.clone(build())
    engine.check_state(GAME, state)
    corrupt(state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_finished_match_result() -> None:
    state = _finished()
    engine.check_state(GAME, state)
    # Deal 3 (eldest 0): pot 9 at stake, seat 1 takes 2; 7 left, shared 3/2/2 from seat 0.
    assert state["chips"] == [27 + 3, 27 + 2 + 2, 27 + 2] and engine.result(state)["payoffs"] == [0, 1, -1]


def test_forged_zwik_in_play_is_refused() -> None:
    """The play phase with a hand that held a zwik (it should have decided the deal)."""
    hands = {0: ["KC", "KD", "JH"], 1: ["AC", "QD", "JS"], 2: ["AD", "QC", "JC"]}
    state = speak(start(hands, ["AS"]), 1, None, None)
    forged = engine.clone(state)
    forged["hands"][0] = ["KC", "KD", "KH"]
    forged["rest"][forged["rest"].index("KH")] = "JH"
    with pytest.raises(InvalidState):
        engine.check_state(GAME, forged)


def test_a_card_code_outside_the_pack_is_invalid_parameters_and_a_card_not_held_stays_card_not_in_hand() -> None:
    outside_code_then_not_held("zwikken", 3, "play", "card", "2H")
