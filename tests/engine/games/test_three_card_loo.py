"""Three-card Loo: the spec's scenarios S1-S14, options, deals, forged states and views."""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import STANDARD_PACK
from service.engine.rng import shuffled
from tests.engine.playout import concrete, leaks, play_to_the_limit

GAME = "three_card_loo"
SEED = "5eed"


# ----- helpers ---------------------------------------------------------------------------
def make_deal(n: int, hands: dict[int, str], turn_up: str, miss: str = "") -> dict[str, Any]:
    """An explicit deal: the given hands (space-separated codes), the rest filled from the pack in order."""
    given = {s: h.split() for s, h in hands.items()}
    miss_cards = miss.split()
    used = {c for h in given.values() for c in h} | set(miss_cards) | {turn_up}
    spare = [c for c in STANDARD_PACK if c not in used]
    full = []
    for s in range(n):
        if s in given:
            full.append(given[s])
        else:
            full.append(spare[:3])
            spare = spare[3:]
    if not miss_cards:
        miss_cards, spare = spare[:3], spare[3:]
    return {"hands": full, "rest": miss_cards + [turn_up] + spare}


def new(hands: dict[int, str], turn_up: str, miss: str = "", n: int = 4, dealer: int = 3,
        **options: Any) -> dict[str, Any]:
    deal = make_deal(n, hands, turn_up, miss)
    state = engine.new_match(GAME, n, {"first_dealer": dealer, **options}, SEED, [deal])
    engine.check_state(GAME, state)
    return state


def act(state: dict[str, Any], *moves: tuple[Any, ...]) -> dict[str, Any]:
    """Apply moves given as (seat, action) or (seat, "play", card); the state is validated after each."""
    for m in moves:
        move: dict[str, Any] = {"seat": m[0], "action": m[1]}
        if len(m) > 2:
            move["card"] = m[2]
        state, _ = engine.apply(state, move)
        engine.check_state(GAME, state)
    return state


def plays(seat_cards: str) -> list[tuple[Any, ...]]:
    """'0:AS 1:4C' -> play moves."""
    return [(int(x.split(":")[0]), "play", x.split(":")[1]) for x in seat_cards.split()]


def legal(state: dict[str, Any]) -> list[Any]:
    return [m.get("card", m["action"]) for m in engine.legal_moves(state)]


def refused(state: dict[str, Any], move: dict[str, Any]) -> str:
    with pytest.raises(IllegalMove) as exc:
        engine.apply(state, move)
    assert exc.value.message
    return exc.value.reason


def play(seat: int, card: str) -> dict[str, Any]:
    return {"seat": seat, "action": "play", "card": card}


def at_later_deal(deals: list[dict[str, Any]], n: int, first_dealer: int, pool_before_ante: int,
                  **options: Any) -> dict[str, Any]:
    """Play the first deals (everybody but the dealer passes), then set the pot carried into the last one.

    The chips for the pot are taken from the seats in turn, both in the totals carried into the deal
    (``before``) and in the deal itself, so the state stays conserved; it is then validated like any
    client-supplied state.
    """
    state = engine.new_match(GAME, n, {"first_dealer": first_dealer, **options}, SEED, deals)
    for _ in range(len(deals) - 1):
        dealer = state["dealer"]
        state = act(state, *[(s, "pass") for s in [(dealer + i) % n for i in range(1, n)]])
    extra = pool_before_ante + options.get("ante", 3) - state["pot"]
    for totals in (state, state["before"]):
        totals["pot"] += extra
        for i in range(extra):
            totals["chips"][i % n] -= 1
    engine.check_state(GAME, state)
    return state


def balances(state: dict[str, Any]) -> list[int]:
    return list(state["chips"])


# ----- S1, S2: stakes ----------------------------------------------------------------------
S1_HANDS = {0: "AS 2H 3H", 1: "KH QH 4C", 2: "5C 6C 7C"}
S1_PLAY = "0:AS 1:4C 2:5C 0:2H 1:KH 2:6C 1:QH 2:7C 0:3H"


@pytest.mark.parametrize(("loo_amount", "loss", "pool", "next_stake"), [(3, 3, 3, 6), (6, 6, 6, 9)])
def test_S1_S2_stakes_arithmetic(loo_amount: int, loss: int, pool: int, next_stake: int) -> None:
    state = new(S1_HANDS, "2D", loo_amount=loo_amount)
    assert state["pot"] == 3  # a single
    state = act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"))
    state, events = engine.apply(state, play(0, "AS"))
    for move in plays(S1_PLAY)[1:-1]:
        state = act(state, move)
    state, events = engine.apply(state, play(0, "3H"))
    settlement = next(e for e in events if e["type"] == "deal_settled")
    assert settlement["changes"] == [1, 2, -loss, -3] and settlement["unit"] == "chips"  # the dealer's ante
    assert settlement["looed"] == [2] and settlement["pot"] == pool
    # the next deal: seat 0 deals and antes into the double
    assert state["deal_no"] == 2 and state["dealer"] == 0 and state["pot"] == next_stake
    assert balances(state) == [100 + 1 - 3, 102, 100 - loss, 97]
    assert next_stake // 3 == (2 if loo_amount == 3 else 3)


def test_S1_tricks_won_in_order() -> None:
    state = new(S1_HANDS, "2D")
    state = act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"), *plays(S1_PLAY)[:3])
    assert state["tricks"][0]["winner"] == 0
    state = act(state, *plays(S1_PLAY)[3:6])
    assert state["tricks"][1]["winner"] == 1


# ----- S3-S5: the first lead ---------------------------------------------------------------
def first_lead(hand0: str, turn_up: str, declarations: list[str], **options: Any) -> dict[str, Any]:
    state = new({0: hand0}, turn_up, **options)
    return act(state, *[(s, d) for s, d in enumerate(declarations)])


def test_S3_must_lead_trump_ace() -> None:
    state = first_lead("AH 2H KS", "7H", ["stand", "stand", "stand", "pass"])
    assert engine.legal_moves(state) == [{"seat": 0, "action": "play", "card": "AH"}]
    assert refused(state, play(0, "2H")) == "must_lead_trump_ace"
    assert refused(state, play(0, "KS")) == "must_lead_trump_ace"


@pytest.mark.parametrize(("hand", "expected", "bad", "reason"), [
    ("KS 4D 9C", ["KS"], "4D", "must_lead_trump_king"),
    ("QS 4D 9C", ["QS", "4D", "9C"], None, None),
])
def test_S4_ace_turned_up(hand: str, expected: list[str], bad: str | None, reason: str | None) -> None:
    state = first_lead(hand, "AS", ["stand", "stand", "stand", "pass"])
    assert legal(state) == expected
    if bad:
        assert refused(state, play(0, bad)) == reason


@pytest.mark.parametrize(("case", "declarations", "options", "expected", "refusals"), [
    ("a", ["stand", "stand", "stand", "pass"], {}, ["QD", "8D"], {"AC": "must_lead_trump"}),
    ("b", ["stand", "pass", "pass", "stand"], {}, ["QD"],
     {"AC": "must_lead_trump", "8D": "must_lead_highest_trump"}),
    ("c", ["stand", "stand", "stand", "pass"], {"lead_highest_trump": "always"}, ["QD"],
     {"AC": "must_lead_trump", "8D": "must_lead_highest_trump"}),
])
def test_S5_two_trumps(case: str, declarations: list[str], options: dict[str, Any], expected: list[str],
                       refusals: dict[str, str]) -> None:
    state = first_lead("QD 8D AC", "5D", declarations, **options)
    assert engine.legal_moves(state) == [play(0, c) for c in expected]
    for card, reason in refusals.items():
        assert refused(state, play(0, card)) == reason


# ----- S6, S7: following -------------------------------------------------------------------
def third_hand(seat1: str, seat2: str, second_card: str, **options: Any) -> dict[str, Any]:
    state = new({0: "9H 2D 3D", 1: seat1, 2: seat2}, "6C", **options)
    return act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"), (0, "play", "9H"),
               (1, "play", second_card))


def test_S6_follow_and_head() -> None:
    state = third_hand("KH 4D 5D", "4H AH 3C", "KH")
    assert engine.legal_moves(state) == [play(2, "AH")]
    assert refused(state, play(2, "4H")) == "must_head_trick"
    assert refused(state, play(2, "3C")) == "must_follow_suit"


def test_S6_trumped_trick_follow_without_heading() -> None:
    state = third_hand("5C 4D 5D", "4H JH AC", "5C")
    assert legal(state) == ["4H", "JH"]
    assert refused(state, play(2, "AC")) == "must_follow_suit"


@pytest.mark.parametrize(("case", "seat2", "options", "expected", "refusals"), [
    ("a", "3C 8C KD", {}, ["8C"], {"3C": "must_overtrump", "KD": "must_trump"}),
    ("b", "3C 2C KD", {}, ["3C", "2C"], {"KD": "must_trump"}),
    ("b_no_undertrump_duty", "3C 2C KD", {"must_undertrump": False}, ["3C", "2C", "KD"], {}),
    ("a_no_undertrump_duty", "3C 8C KD", {"must_undertrump": False}, ["8C"],
     {"3C": "must_overtrump", "KD": "must_trump"}),
])
def test_S7_void_trump_and_overtrump(case: str, seat2: str, options: dict[str, Any], expected: list[str],
                                     refusals: dict[str, str]) -> None:
    state = third_hand("5C 4D 5D", seat2, "5C", **options)
    assert legal(state) == expected
    for card, reason in refusals.items():
        assert refused(state, play(2, card)) == reason


def test_S7c_must_trump_a_later_trick() -> None:
    state = new({0: "JS 2D 3D", 1: "KS 9H 4H", 2: "3C KD QS"}, "6C")
    state = act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"),
                *plays("0:JS 1:KS 2:QS"))
    assert state["tricks"][0]["winner"] == 1
    assert legal(state) == ["9H", "4H"]  # seat 1 holds no trump: any lead
    state = act(state, (1, "play", "9H"))
    assert engine.legal_moves(state) == [play(2, "3C")]
    assert refused(state, play(2, "KD")) == "must_trump"


# ----- S8: later leads ---------------------------------------------------------------------
@pytest.mark.parametrize(("hand1", "options", "expected", "refusals"), [
    ("AD 7C KH", {}, ["7C"], {"KH": "must_lead_trump"}),
    ("AD 7C 8C", {}, ["7C", "8C"], {}),
    ("AD 7C 8C", {"lead_highest_trump": "always"}, ["8C"], {"7C": "must_lead_highest_trump"}),
    ("AD KH 2S", {}, ["KH", "2S"], {}),
])
def test_S8_later_leads(hand1: str, options: dict[str, Any], expected: list[str], refusals: dict[str, str]) -> None:
    state = new({0: "4D 2H 3H", 1: hand1, 2: "5S 6S 7S"}, "6C", **options)
    state = act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"), *plays("0:4D 1:AD 2:5S"))
    assert state["tricks"][0]["winner"] == 1
    assert engine.legal_moves(state) == [play(1, c) for c in expected]
    for card, reason in refusals.items():
        assert refused(state, play(1, card)) == reason


# ----- S9: the dealer against a single player ----------------------------------------------
def test_S9_dealer_facing_single_stander() -> None:
    state = act(new({}, "2D"), (0, "stand"), (1, "pass"), (2, "pass"))
    assert engine.legal_moves(state) == [{"seat": 3, "action": a} for a in ("stand", "take_miss", "defend")]
    assert refused(state, {"seat": 3, "action": "pass"}) == "pass_not_allowed"


def test_S9_lone_miss_taker_wins_the_pool() -> None:
    state = act(new({}, "2D"), (0, "take_miss"), (1, "pass"), (2, "pass"))
    assert engine.legal_moves(state) == [{"seat": 3, "action": a} for a in ("stand", "pass")]
    assert refused(state, {"seat": 3, "action": "defend"}) == "defend_not_allowed"  # spec 4.3
    assert refused(state, {"seat": 3, "action": "take_miss"}) == "miss_not_available"
    state, events = engine.apply(state, {"seat": 3, "action": "pass"})
    settlement = next(e for e in events if e["type"] == "deal_settled")
    assert settlement["changes"] == [3, 0, 0, -3] and settlement["pot"] == 0
    assert state["deal_no"] == 2 and state["pot"] == 3  # the next deal is a single again
    assert balances(state) == [100, 100, 100, 97]  # seat 0 won 3, then anted 3 as the new dealer


def test_S9_all_pass_dealer_wins_without_acting() -> None:
    state = act(new({}, "2D"), (0, "pass"), (1, "pass"))
    state, events = engine.apply(state, {"seat": 2, "action": "pass"})
    assert [e["type"] for e in events][:3] == ["pass", "deal_settled", "deal_started"]
    assert events[0] == {"type": "pass", "seat": 2}
    assert events[1]["changes"] == [0, 0, 0, 0]  # the dealer won back the 3 he anted
    assert balances(state) == [97, 100, 100, 100] and state["pot"] == 3


# ----- S10: settlement ---------------------------------------------------------------------
S10_HANDS = {0: "AS AH 5C", 1: "3S 3H 3C", 2: "4S 4H KC", 4: "5S 5H 2C"}
S10_PLAY = "0:AS 1:3S 2:4S 4:5S 0:AH 1:3H 2:4H 4:5H 0:5C 1:3C 2:KC 4:2C"


@pytest.mark.parametrize(("unlimited", "loss", "pool", "next_stake"), [(False, 3, 6, 9), (True, 9, 18, 21)])
def test_S10_settlement_limited_and_unlimited(unlimited: bool, loss: int, pool: int, next_stake: int) -> None:
    # deal 1 (dealer 3): seat 4 stands alone, the dealer defends and Miss wins every trick: pool 6
    first = make_deal(5, {4: "2S 3S 4S"}, "2H", miss="AH KH QH")
    second = make_deal(5, S10_HANDS, "2D")
    state = engine.new_match(GAME, 5, {"first_dealer": 3, "unlimited": unlimited}, SEED, [first, second])
    state = act(state, (4, "stand"), (0, "pass"), (1, "pass"), (2, "pass"), (3, "defend"),
                *plays("4:2S 3:AH 3:KH 4:3S 3:QH 4:4S"))
    assert state["deal_no"] == 2 and state["dealer"] == 4 and state["pot"] == 6 + 3
    before = balances(state)
    state = act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"), (4, "stand"))
    state, events = engine.apply(state, play(0, "AS"))
    for move in plays(S10_PLAY)[1:-1]:
        state = act(state, move)
    state, events = engine.apply(state, play(4, "2C"))
    settlement = next(e for e in events if e["type"] == "deal_settled")
    assert settlement["changes"] == [6, -loss, 3, 0, -loss - 3] and settlement["pot"] == pool  # 4 dealt
    assert state["dealer"] == 0 and state["pot"] == next_stake
    after = balances(state)
    assert [a - b for a, b in zip(after, before)] == [6 - 3, -loss, 3, 0, -loss]


# ----- S11: a defended Miss and odd chips --------------------------------------------------
@pytest.mark.parametrize(("case", "seat0", "miss", "moves", "gain", "pool"), [
    ("a", "AS 3D 4D", "2S AH KH", "0:AS 3:2S 0:3D 3:AH 3:KH 0:4D", 3, 4),
    ("b", "AS KD 3C", "AH KH 2S", "0:3C 3:AH 3:KH 0:KD 3:2S 0:AS", 2, 5),
    ("c", "2S 3D 4C", "AH KH QH", "0:2S 3:AH 3:KH 0:3D 3:QH 0:4C", -3, 10),
])
def test_S11_defended_miss_and_odd_chips(case: str, seat0: str, miss: str, moves: str, gain: int,
                                         pool: int) -> None:
    other = make_deal(4, {}, "2C")
    deal = make_deal(4, {0: seat0}, "2H", miss=miss)
    state = at_later_deal([other, deal], 4, 2, 4)
    assert state["dealer"] == 3 and state["pot"] == 7
    state = act(state, (0, "stand"), (1, "pass"), (2, "pass"), (3, "defend"))
    assert state["hands"][3] == miss.split() and state["thrown"][3] and state["miss"] == []
    before = balances(state)
    state, events = engine.apply(state, play(*plays(moves)[0][::2]))
    for move in plays(moves)[1:-1]:
        state = act(state, move)
    state, events = engine.apply(state, play(*plays(moves)[-1][::2]))
    settlement = next(e for e in events if e["type"] == "deal_settled")
    assert settlement["changes"] == [gain, 0, 0, -3] and settlement["pot"] == pool
    assert settlement["looed"] == ([0] if gain < 0 else [])
    assert state["pot"] == pool + 3  # seat 0 deals next
    assert balances(state)[3] == before[3]  # the defending dealer neither wins nor pays


# ----- S12: no pass on a single ------------------------------------------------------------
def test_S12_no_pass_on_single() -> None:
    state = new({}, "2D", no_pass_on_single=True)
    assert engine.legal_moves(state) == [{"seat": 0, "action": "stand"}, {"seat": 0, "action": "take_miss"}]
    assert refused(state, {"seat": 0, "action": "pass"}) == "pass_not_allowed"
    state = act(state, (0, "take_miss"))
    assert engine.legal_moves(state) == [{"seat": 1, "action": "stand"}]
    assert refused(state, {"seat": 1, "action": "take_miss"}) == "miss_not_available"
    assert refused(state, {"seat": 1, "action": "pass"}) == "pass_not_allowed"


def test_S12_passing_allowed_on_a_double() -> None:
    other = make_deal(4, {}, "2D")
    state = at_later_deal([other, make_deal(4, {}, "2D")], 4, 2, 3)
    state["options"]["no_pass_on_single"] = True  # deal 1 was played without it: on a single nobody passes
    engine.check_state(GAME, state)
    assert state["pot"] == 6
    assert legal(state) == ["stand", "take_miss", "pass"]


# ----- S13: the closing deal ---------------------------------------------------------------
def test_S13_closing_deal() -> None:
    closing = make_deal(3, {0: "2S 3S AC", 1: "KS AH 5C", 2: "4S 4H 4C"}, "2D")
    deals = [make_deal(3, {}, "2D"), make_deal(3, {}, "2D"), closing]
    state = at_later_deal(deals, 3, 0, 6, rounds=1)
    assert state["deal_no"] == 3 and state["dealer"] == 2 and state["pot"] == 9
    assert state["phase"] == "play" and state["declared"] == ["stand"] * 3 and len(state["miss"]) == 3
    assert engine.legal_moves(state) == [play(0, c) for c in ("2S", "3S", "AC")]
    assert refused(state, {"seat": 0, "action": "take_miss"}) == "wrong_phase"
    before = balances(state)
    state = act(state, *plays("0:2S 1:KS 2:4S 1:AH 2:4H 0:3S 1:5C 2:4C"))
    state, events = engine.apply(state, play(0, "AC"))
    engine.check_state(GAME, state)
    settlement = next(e for e in events if e["type"] == "deal_settled")
    assert settlement["changes"] == [3, 6, -3] and settlement["looed"] == [] and settlement["pot"] == 0
    assert engine.is_finished(state) and state["pot"] == 0
    res = engine.result(state)
    assert res is not None
    assert res["scores"] == [before[0] + 3, before[1] + 6, before[2]]
    assert res["payoffs"] == [c - 100 for c in res["scores"]] and sum(res["payoffs"]) == 0
    assert res["pool_shared"] == [0, 0, 0]


# ----- S14: the leftover pool --------------------------------------------------------------
def test_S14_leftover_pool_split() -> None:
    opts = {"end_mode": "until_no_loo", "rounds": 1, "max_extra_deals": 0, "ante": 4, "first_dealer": 2}
    last = make_deal(4, {2: "2S 3S 4S"}, "2H", miss="AH KH QH")
    state = engine.new_match(GAME, 4, opts, SEED, [make_deal(4, {}, "2D")] * 3 + [last])
    for dealer in (2, 3, 0):
        state = act(state, *[((dealer + i) % 4, "pass") for i in (1, 2, 3)])
    assert state["deal_no"] == 4 and state["dealer"] == 1 and state["pot"] == 4
    state = act(state, (2, "stand"), (3, "pass"), (0, "pass"), (1, "defend"),
                *plays("2:2S 1:AH 1:KH 2:3S"))
    state, events = engine.apply(state, {"seat": 1, "action": "play", "card": "QH"})
    assert not engine.is_finished(state)
    state, events = engine.apply(state, play(2, "4S"))
    engine.check_state(GAME, state)
    assert events[-2]["pot"] == 7 and events[-1] == {"type": "match_over", "pot_shared": [2, 1, 2, 2]}
    assert engine.is_finished(state) and state["pot"] == 0
    res = engine.result(state)
    assert res is not None and res["pool_shared"] == [2, 1, 2, 2]
    assert res["scores"] == [102, 96 + 1, 97 + 2, 102] and sum(res["payoffs"]) == 0
    assert res["ranking"] == [0, 3, 2, 1]


# ----- match endings -----------------------------------------------------------------------
def passes(state: dict[str, Any]) -> dict[str, Any]:
    n, dealer = state["players"], state["dealer"]
    return act(state, *[((dealer + i) % n, "pass") for i in range(1, n)])


def test_closing_deal_match_has_rounds_times_n_deals() -> None:
    state = engine.new_match(GAME, 3, {"rounds": 2}, SEED)
    for number in range(1, 6):
        assert state["deal_no"] == number and state["phase"] == "declare"
        state = passes(state)
    assert state["deal_no"] == 6 and state["phase"] == "play" and state["declared"] == ["stand"] * 3


def test_until_no_loo_plays_on_after_a_loo_then_stops() -> None:
    opts = {"end_mode": "until_no_loo", "rounds": 1, "first_dealer": 0}
    looing = make_deal(3, {0: "2S 3S 4S"}, "2H", miss="AH KH QH")  # deal 3: dealer 2, eldest 0
    state = engine.new_match(GAME, 3, opts, SEED, [make_deal(3, {}, "2D")] * 2 + [looing])
    state = passes(passes(state))
    state = act(state, (0, "stand"), (1, "pass"), (2, "defend"), *plays("0:2S 2:AH 2:KH 0:3S 2:QH 0:4S"))
    assert not engine.is_finished(state) and state["deal_no"] == 4  # seat 0 was looed in deal D
    state = passes(state)  # a deal won without play counts as a deal without a loo
    assert engine.is_finished(state) and sum(engine.result(state)["payoffs"]) == 0


def test_until_no_loo_cap() -> None:
    opts = {"end_mode": "until_no_loo", "rounds": 1, "max_extra_deals": 1, "first_dealer": 0}
    deals = [make_deal(3, {}, "2D")] * 2 + [make_deal(3, {0: "2S 3S 4S"}, "2H", miss="AH KH QH")] + \
        [make_deal(3, {1: "2S 3S 4S"}, "2H", miss="AH KH QH")]
    state = engine.new_match(GAME, 3, opts, SEED, deals)
    state = passes(passes(state))
    state = act(state, (0, "stand"), (1, "pass"), (2, "defend"), *plays("0:2S 2:AH 2:KH 0:3S 2:QH 0:4S"))
    assert state["deal_no"] == 4 and state["dealer"] == 0
    state = act(state, (1, "stand"), (2, "pass"), (0, "defend"), *plays("1:2S 0:AH 0:KH 1:3S 0:QH 1:4S"))
    assert engine.is_finished(state)  # looed again, but the cap of one extra deal is reached
    res = engine.result(state)
    assert res["pool_shared"] == [4, 4, 4] and sum(res["payoffs"]) == 0  # 3 + 3 (loo), then 6 + 3 + 3


def test_bust_ends_when_a_balance_reaches_zero() -> None:
    opts = {"end_mode": "bust", "starting_chips": 3, "first_dealer": 0}
    state = engine.new_match(GAME, 3, opts, SEED, [make_deal(3, {1: "2S 3S 4S"}, "2H", miss="AH KH QH")])
    state = act(state, (1, "stand"), (2, "pass"), (0, "defend"), *plays("1:2S 0:AH 0:KH 1:3S 0:QH 1:4S"))
    assert engine.is_finished(state)  # dealer 0 anted his 3 chips; seat 1 paid 3 for the loo
    res = engine.result(state)
    assert res["pool_shared"] == [2, 2, 2] and res["scores"] == [2, 2, 5]
    assert res["payoffs"] == [-1, -1, 2] and res["ranking"] == [2, 0, 1]


def test_bust_ends_after_scheduled_deals() -> None:
    state = engine.new_match(GAME, 3, {"end_mode": "bust", "rounds": 1}, SEED)
    state = passes(passes(passes(state)))
    assert engine.is_finished(state) and engine.result(state)["payoffs"] == [0, 0, 0]


# ----- club law and declaration reasons ------------------------------------------------------
def test_club_law_clubs_trumps_is_compulsory() -> None:
    state = new({0: "AS KS QS"}, "2C", club_law=True)
    assert state["phase"] == "play" and state["declared"] == ["stand"] * 4 and len(state["miss"]) == 3
    assert refused(state, {"seat": 0, "action": "pass"}) == "wrong_phase"
    assert refused(state, {"seat": 0, "action": "take_miss"}) == "wrong_phase"
    plain = new({}, "2D", club_law=True)
    assert plain["phase"] == "declare"


def test_declaration_reason_order() -> None:
    state = new({}, "2D")
    assert refused(state, {"seat": 1, "action": "stand"}) == "not_your_turn"
    assert refused(state, {"seat": 3, "action": "defend"}) == "not_your_turn"
    assert refused(state, play(0, state["hands"][0][0])) == "wrong_phase"
    assert refused(state, {"seat": 0, "action": "defend"}) == "defend_not_allowed"
    assert refused(state, {"seat": 0, "action": "bid"}) == "unknown_action"
    state = act(state, (0, "take_miss"))
    assert refused(state, {"seat": 1, "action": "defend"}) == "defend_not_allowed"  # spec 4.3, not miss_not_...
    state = act(state, (1, "stand"), (2, "stand"))
    assert refused(state, {"seat": 3, "action": "defend"}) == "defend_not_allowed"
    state = act(state, (3, "stand"))
    assert state["phase"] == "play"
    assert refused(state, {"seat": 1, "action": "stand"}) == "wrong_phase"


def test_dealer_cannot_defend_against_two_players() -> None:
    state = act(new({}, "2D"), (0, "stand"), (1, "stand"), (2, "pass"))
    assert legal(state) == ["stand", "take_miss", "pass"]
    assert refused(state, {"seat": 3, "action": "defend"}) == "defend_not_allowed"


def test_take_miss_swaps_hands_and_is_seen_only_by_its_holder() -> None:
    state = new({0: "AS KS QS"}, "2D", miss="2H 3H 4H")
    state = act(state, (0, "take_miss"))
    assert state["hands"][0] == ["2H", "3H", "4H"] and state["thrown"][0] == ["AS", "KS", "QS"]
    for seat in (None, 1, 2, 3):
        view = engine.view(state, seat)
        assert not leaks(view, {"2H", "3H", "4H", "AS", "KS", "QS"})
    own = engine.view(state, 0)
    assert own["hands"][0] == ["2H", "3H", "4H"] and own["thrown"][0] == ["AS", "KS", "QS"]
    assert own["declared"][0] == "take_miss"


def test_play_reasons_not_your_turn_and_card_not_in_hand() -> None:
    state = first_lead("QD 8D AC", "5D", ["stand", "stand", "stand", "pass"])
    assert refused(state, play(1, state["hands"][1][0])) == "not_your_turn"
    assert refused(state, play(0, "2S")) == "card_not_in_hand"
    assert refused(state, {"seat": 0, "action": "play"}) == "invalid_parameters"


def test_passed_seat_is_skipped_in_play() -> None:
    state = new({0: "2S 3S 4S", 2: "5S 6S 7S", 3: "8S 9S TS"}, "2H")
    state = act(state, (0, "stand"), (1, "pass"), (2, "stand"), (3, "stand"), (0, "play", "2S"))
    assert engine.to_act(state) == [2]


def test_first_leader_is_first_active_from_eldest() -> None:
    state = act(new({}, "2D"), (0, "pass"), (1, "stand"), (2, "stand"), (3, "pass"))
    assert engine.to_act(state) == [1]


# ----- options -----------------------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {"starting_chips": -1}, {"starting_chips": "100"}, {"ante": 0}, {"ante": 2.5}, {"loo_amount": -1},
    {"unlimited": 1}, {"no_pass_on_single": "yes"}, {"club_law": None}, {"lead_highest_trump": "never"},
    {"must_undertrump": "true"}, {"end_mode": "forever"}, {"rounds": 0}, {"rounds": True},
    {"max_extra_deals": -1}, {"first_dealer": 4}, {"first_dealer": -1}, {"trumps": "C"}, [],
])
def test_bad_options(options: Any) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 4, options, SEED)


def test_option_defaults() -> None:
    state = engine.new_match(GAME, 5, {}, SEED)
    assert state["options"] == {
        "starting_chips": 100, "ante": 3, "loo_amount": 3, "unlimited": False, "no_pass_on_single": False,
        "club_law": False, "lead_highest_trump": "parlett", "must_undertrump": True, "end_mode": "closing_deal",
        "rounds": 2, "max_extra_deals": 10, "first_dealer": 0}


@pytest.mark.parametrize("players", [2, 11])
def test_player_count(players: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(GAME, players, {}, SEED)


# ----- deals -------------------------------------------------------------------------------
def test_seeded_deal_follows_the_spec_order() -> None:
    n, dealer = 5, 2
    state = engine.new_match(GAME, n, {"first_dealer": dealer}, "abc123")
    cards = shuffled(STANDARD_PACK, "abc123", "three_card_loo/0")
    for r in range(3):
        for i in range(n):
            assert state["hands"][(dealer + 1 + i) % n][r] == cards[(n + 1) * r + i]
        assert state["miss"][r] == cards[(n + 1) * r + n]
    assert state["turn_up"] == cards[3 * (n + 1)]
    assert "rest" not in state  # the undealt cards play no part in Three-card Loo and are not kept


def test_seeded_deals_are_reproducible() -> None:
    a = engine.new_match(GAME, 6, {}, "c0ffee")
    b = engine.new_match(GAME, 6, {}, "c0ffee")
    c = engine.new_match(GAME, 6, {}, "c0ffef")
    assert a == b and a["hands"] != c["hands"]
    a2, b2 = passes(a), passes(b)
    assert a2["hands"] == b2["hands"] and a2["hands"] != a["hands"]


def test_explicit_deal_is_used() -> None:
    deal = make_deal(4, {0: "AS KS QS"}, "7H", miss="2H 3H 4H")
    state = engine.new_match(GAME, 4, {}, SEED, [deal])
    assert state["hands"] == deal["hands"] and state["miss"] == ["2H", "3H", "4H"] and state["turn_up"] == "7H"


def _bad_deals() -> list[Any]:
    good = make_deal(4, {}, "7H")
    short = {"hands": [good["hands"][0][:2], *good["hands"][1:]], "rest": good["rest"] + [good["hands"][0][2]]}
    dup = {"hands": [[good["hands"][1][0], *good["hands"][0][1:]], *good["hands"][1:]], "rest": good["rest"]}
    missing = {"hands": good["hands"], "rest": good["rest"][:-1]}
    joker = {"hands": good["hands"], "rest": good["rest"] + ["JK"]}
    return [short, dup, missing, joker, {"hands": good["hands"][:3], "rest": good["rest"]},
            {"hands": good["hands"]}, {"hands": good["hands"], "rest": good["rest"], "x": 1}, "deal",
            {"hands": good["hands"], "rest": ["ZZ"]}]


@pytest.mark.parametrize("deal", _bad_deals())
def test_invalid_deals(deal: Any) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(GAME, 4, {}, SEED, [deal])


# ----- forged states -----------------------------------------------------------------------
def mid_play() -> dict[str, Any]:
    state = new(S1_HANDS, "2D")
    return act(state, (0, "stand"), (1, "stand"), (2, "stand"), (3, "pass"), *plays("0:AS 1:4C 2:5C 0:2H"))


def mid_declare() -> dict[str, Any]:
    return act(new({0: "AS KS QS"}, "2D", miss="2H 3H 4H"), (0, "take_miss"))


def after_s6_trick() -> dict[str, Any]:
    return act(third_hand("KH 4D 5D", "4H AH 3C", "KH"), (2, "play", "AH"))


def _underplayed(s: dict[str, Any]) -> None:
    """Seat 2 'played' 4H under the KH while holding the AH: it had to head the trick (state and log agree)."""
    s["tricks"][0]["plays"][2][1] = "4H"
    s["hands"][2][s["hands"][2].index("4H")] = "AH"
    s["tricks"][0]["winner"] = 1
    s["log"][s["log"].index("AH")] = "4H"


def _before(**changes: Any) -> Callable[[dict[str, Any]], None]:
    """Forge the totals carried into the deal, and the deal's own, alike (so only the check of the carried
    values can refuse it)."""
    def forge(s: dict[str, Any]) -> None:
        for key, value in changes.items():
            for totals in (s, s["before"]):
                totals[key] = value(totals[key]) if callable(value) else value
    return forge


FORGERIES = {
    "chips_not_conserved": (mid_play, lambda s: s["chips"].__setitem__(0, s["chips"][0] + 1)),
    "chips_moved_in_first_deal": (mid_play, lambda s: (s["chips"].__setitem__(0, 99),
                                                       s["chips"].__setitem__(1, 101))),
    "pot_changed": (mid_play, lambda s: s.update(pot=4)),
    "duplicate_card": (mid_play, lambda s: s["hands"][0].__setitem__(0, s["hands"][1][0])),
    "hand_too_big": (mid_play, lambda s: s["hands"][0].append("9S")),
    "illegal_card_in_trick": (after_s6_trick, _underplayed),
    "logged_card_not_held": (mid_play, lambda s: s["log"].__setitem__(-1, "AC")),
    "logged_move_malformed": (mid_play, lambda s: s["log"].__setitem__(0, [0, "stand", "x"])),
    "log_cut_short": (mid_play, lambda s: s["log"].pop()),
    "wrong_winner": (mid_play, lambda s: s["tricks"][0].update(winner=1)),
    "trick_out_of_turn": (mid_play, lambda s: (s["trick"].update(plays=[[1, "KH"]]),
                                               s["hands"].__setitem__(0, ["2H", "3H"]),
                                               s["hands"].__setitem__(1, ["QH"]))),
    "passed_seat_in_play": (mid_play, lambda s: s["declared"].__setitem__(3, "stand")),
    "phase_declare_in_play": (mid_play, lambda s: s.update(phase="declare")),
    "phase_over_early": (mid_play, lambda s: s.update(phase="over")),
    "unknown_phase": (mid_play, lambda s: s.update(phase="bidding")),
    "dealer_mismatch": (mid_play, lambda s: s.update(dealer=0)),
    "dealer_bool": (mid_declare, lambda s: (s["options"].update(first_dealer=1), s.update(dealer=True))),
    "dealings_mismatch": (mid_play, lambda s: s.update(dealings=2)),
    "extra_key": (mid_play, lambda s: s.update(extra=1)),
    "missing_key": (mid_play, lambda s: s.pop("thrown")),
    "before_missing_key": (mid_play, lambda s: s["before"].pop("pot")),
    "turn_up_not_card": (mid_play, lambda s: s.update(turn_up="XX")),
    "turn_up_list": (mid_play, lambda s: s.update(turn_up=["2D"])),
    "chips_bool": (mid_play, lambda s: s["chips"].__setitem__(0, True)),
    "declared_unknown": (mid_play, lambda s: s["declared"].__setitem__(0, "bid")),
    "miss_shown_untaken": (mid_declare, lambda s: (s["declared"].__setitem__(0, None),)),
    "declared_out_of_turn": (mid_declare, lambda s: s["declared"].__setitem__(2, "stand")),
    "second_miss_taker": (mid_declare, lambda s: (s["declared"].__setitem__(1, "take_miss"),
                                                  s["thrown"].__setitem__(1, s["hands"][1]),
                                                  s["hands"].__setitem__(1, []))),
    "thrown_hand_visible_count": (mid_declare, lambda s: s["thrown"][0].pop()),
    "options_bad": (mid_play, lambda s: s["options"].update(ante=0)),
    "deal_past_the_end": (mid_play, lambda s: s.update(deal_no=101, dealings=101)),
    # the totals carried into the deal: each counter range-checked, chips conserved, no count past 2^53 - 1
    "before_deal_past_the_end": (mid_play, _before(deal_no=lambda k: k + 8, dealings=lambda k: k + 8)),
    "before_first_deal_chips_moved": (mid_play, _before(chips=lambda c: [c[0] + 1, c[1] - 1, *c[2:]])),
    "before_pot_not_conserved": (mid_play, _before(pot=lambda p: p + 1)),
    "before_pot_negative": (mid_play, _before(pot=lambda p: p - 10, chips=lambda c: [c[0] + 10, *c[1:]])),
    "before_chips_past_the_bound": (mid_play, _before(chips=lambda c: [c[0] + 2**60, c[1] - 2**60, *c[2:]])),
    "before_chips_not_whole": (mid_play, _before(chips=lambda c: [c[0] + 0.5, c[1] - 0.5, *c[2:]])),
    "before_dealings_huge": (mid_play, _before(dealings=2**62)),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_states_are_invalid(name: str) -> None:
    build, corrupt = FORGERIES[name]
    state = build()
    engine.check_state(GAME, state)
    corrupt(state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_dealer_pass_against_single_stander_is_a_forgery() -> None:
    state = act(new({}, "2D"), (0, "stand"), (1, "pass"), (2, "pass"), (3, "stand"))
    state["declared"][3] = "pass"
    state["thrown"][3] = state["hands"][3]
    state["hands"][3] = []
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_forged_bust_match_that_should_have_ended() -> None:
    state = passes(engine.new_match(GAME, 3, {"end_mode": "bust", "rounds": 3}, SEED))
    engine.check_state(GAME, state)
    for totals in (state, state["before"]):  # seat 0 bust after deal 1, in the deal and in what it carried
        totals["chips"][2] += totals["chips"][0]
        totals["chips"][0] = 0
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_random_corruptions_never_crash() -> None:
    """Any JSON damage is either still a valid state or an InvalidState, never another error."""
    rng = random.Random(11)
    junk = [None, True, -1, 0, 7, 10**9, "x", "AS", [], [0], ["AS"], {}, {"plays": []}, [[0, "AS"]]]
    base = mid_play()
    for _ in range(1500):
        state = engine.clone(base)
        node: Any = state
        path = []
        while isinstance(node, (dict, list)) and node and rng.random() < 0.7:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append(key)
            if not isinstance(node[key], (dict, list)):
                break
            node = node[key]
        if not path:
            continue
        parent = state
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(junk)
        try:
            engine.check_state(GAME, state)
        except InvalidState:
            continue
        engine.legal_moves(state)


# ----- views and chips over whole matches ----------------------------------------------------
def test_views_hide_miss_thrown_hands_and_stock() -> None:
    state = new({0: "AS KS QS", 1: "2D 3D 4D"}, "7H", miss="2H 3H 4H")
    state = act(state, (0, "stand"), (1, "pass"))
    for seat in (None, 0, 2, 3):
        view = engine.view(state, seat)
        assert "miss" not in view and view["miss_size"] == 3
        undealt = set(STANDARD_PACK) - {c for h in state["hands"] for c in h} - {"2H", "3H", "4H", "2D", "3D", "4D"}
        assert not leaks(view, {"2H", "3H", "4H", "2D", "3D", "4D", *(undealt - {"7H"})})
        assert view["turn_up"] == "7H" and view["declared"][:2] == ["stand", "pass"]
    assert engine.view(state, 1)["thrown"][1] == ["2D", "3D", "4D"]


@pytest.mark.parametrize("options", [{}, {"unlimited": True, "end_mode": "until_no_loo"},
                                     {"end_mode": "bust", "starting_chips": 5, "loo_amount": 4},
                                     {"club_law": True, "no_pass_on_single": True, "must_undertrump": False}])
@pytest.mark.parametrize("players", [3, 5, 10])
def test_chips_conserved_in_random_matches(options: dict[str, Any], players: int) -> None:
    rng = random.Random(players)
    ante = engine.new_match(GAME, players, options, "01")["options"]["ante"]
    for k in range(3 if players < 10 else 1):
        state = engine.new_match(GAME, players, options, f"{k + 1:02x}")
        total = players * state["options"]["starting_chips"]
        pot_before = 0  # the pot carried into the deal on the table, before its ante
        while not engine.is_finished(state):
            assert sum(state["chips"]) + state["pot"] == total
            assert state["pot"] >= 0
            for seat in (None, rng.randrange(players)):
                hidden = {c for s, h in enumerate(state["hands"]) if s != seat for c in h}
                hidden |= set(state["miss"])
                hidden |= {c for s, h in enumerate(state["thrown"]) if s != seat for c in h}
                assert not leaks(engine.view(state, seat), hidden)
            state, events = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
            for e in events:
                if e["type"] == "deal_settled":  # what the deal did to the seats, plus what the pot gained: 0
                    assert sum(e["changes"]) + e["pot"] - pot_before == 0
                elif e["type"] == "deal_started":
                    pot_before = e["pot"] - ante
        res = engine.result(state)
        assert res is not None and sum(res["payoffs"]) == 0 and state["pot"] == 0
        assert sum(state["chips"]) == total


# ----- the contract's order of refusals ------------------------------------------------------
def test_refusals_follow_the_contracts_precedence() -> None:
    """Turn and phase come before the move's parameters (API.md): an out-of-turn play with a card that is
    not a card is ``not_your_turn``, a play in the declarations with one is ``wrong_phase``."""
    state = new({}, "2D")
    assert refused(state, {"seat": 0, "action": "play", "card": "XX"}) == "wrong_phase"
    assert refused(state, {"seat": 9, "action": "bid"}) == "unknown_action"
    assert refused(state, {"seat": 9, "action": "stand"}) == "invalid_parameters"
    assert refused(state, {"seat": 1, "action": "stand", "extra": 1}) == "not_your_turn"
    state = first_lead("QD 8D AC", "5D", ["stand", "stand", "stand", "pass"])
    assert refused(state, {"seat": 1, "action": "play", "card": "XX"}) == "not_your_turn"
    assert refused(state, {"seat": 3, "action": "play"}) == "not_your_turn"  # seat 3 passed: never on turn
    assert refused(state, {"seat": 0, "action": "play", "card": "XX"}) == "invalid_parameters"
    assert refused(state, {"seat": 0, "action": "stand"}) == "wrong_phase"


# ----- counts stay within 2^53 - 1 (the safe-integer ruling of §6) ----------------------------
def _looing_deals(n: int, count: int) -> list[dict[str, Any]]:
    """Deals in which eldest holds the three top trumps and nobody else a trump: if all stand he wins
    every trick and everyone else is looed."""
    deals = []
    for k in range(count):
        eldest = (k + 1) % n
        deals.append(make_deal(n, {eldest: "AH KH QH", **{s: f"{r}S {r}D {r}C" for s, r in zip(
            [s for s in range(n) if s != eldest], "23456789")}}, "2H", miss="TS TD TC"))
    return deals


def standing(state: dict[str, Any]) -> dict[str, Any]:
    """Everybody stands; cards in the order of the legal moves."""
    return next(m for m in engine.legal_moves(state) if m["action"] in ("stand", "play"))


@pytest.mark.parametrize("end_mode", ["closing_deal", "until_no_loo"])
def test_unlimited_loo_past_the_safe_bound_ends_the_match_in_range(end_mode: str) -> None:
    """Unlimited Loo's pot doubles with each loo; a match long enough would pass 2^53 - 1. The deal whose
    settlement would leave no room is settled as a closing deal (nobody pays a loo), the match ends, every
    state and event on the way stays within the bound, and every state is accepted."""
    n, opts = 3, {"unlimited": True, "rounds": 40, "end_mode": end_mode, "first_dealer": 0}
    state = engine.new_match(GAME, n, opts, SEED, _looing_deals(n, 70))
    state, moves = play_to_the_limit(GAME, state, standing, 40 * n)
    replayed = engine.new_match(GAME, n, opts, SEED, _looing_deals(n, 70))
    for move in moves:
        replayed, _ = engine.apply(replayed, move)
    assert replayed == state
