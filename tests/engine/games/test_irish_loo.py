"""Irish Loo: every scenario of the spec behind docs/games/irish_loo.md, section 9, plus the trick duties, settlement, match ends,
options, explicit deals, forged states and views."""
from __future__ import annotations

import random
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import STANDARD_PACK
from service.engine.rng import shuffled
from tests.engine.playout import leaks, play_to_the_limit

G = "irish_loo"


# ----- helpers ---------------------------------------------------------------------------
def make_deal(n: int, hands: dict[int, list[str]], turnup: str, stock_top: tuple[str, ...] = (),
              filler_suits: str = "HSDC") -> dict[str, Any]:
    """An explicit deal: the given hands, the others filled from the unused cards (suits in
    ``filler_suits`` order, low ranks first), then the turn-up and the stock (``stock_top`` on top)."""
    used = {c for h in hands.values() for c in h} | {turnup, *stock_top}
    spare = sorted((c for c in STANDARD_PACK if c not in used),
                   key=lambda c: (filler_suits.index(c[1]), "23456789TJQKA".index(c[0])))
    full = []
    for s in range(n):
        if s in hands:
            full.append(list(hands[s]))
        else:
            full.append(spare[:3])
            spare = spare[3:]
    return {"hands": full, "rest": [turnup, *stock_top, *spare]}


def sweep_deal(n: int, winner: int, trump: str = "C") -> dict[str, Any]:
    """``winner`` holds the three top trumps, nobody else holds a trump: he wins every trick."""
    top = ["A" + trump, "K" + trump, "Q" + trump]
    others = "".join(s for s in "HSDC" if s != trump) + trump
    return make_deal(n, {winner: top}, "2" + trump, filler_suits=others)


def new(n: int = 4, deals: list[dict[str, Any]] | None = None, seed: str = "5eed", **options: Any) -> dict[str, Any]:
    options.setdefault("first_dealer", 3 if n == 4 else n - 1)
    state = engine.new_match(G, n, options, seed, deals=deals or [])
    engine.check_state(G, state)
    return state


def mv(seat: int, action: str, **params: Any) -> dict[str, Any]:
    return {"seat": seat, "action": action, **params}


def play(state: dict[str, Any], *moves: dict[str, Any], seen: list[Any] | None = None) -> dict[str, Any]:
    """Apply the moves, checking the state after each; their events are added to ``seen``."""
    for m in moves:
        state, events = engine.apply(state, m)
        engine.check_state(G, state)
        if seen is not None:
            seen.extend(events)
    return state


def settled(seen: list[Any]) -> dict[str, Any]:
    """The last ``deal_settled`` event among ``seen``."""
    return [e for e in seen if e["type"] == "deal_settled"][-1]


def reason(state: dict[str, Any], move: dict[str, Any]) -> str:
    with pytest.raises(IllegalMove) as exc:
        engine.apply(state, move)
    assert exc.value.message
    return exc.value.reason


def cards_legal(state: dict[str, Any]) -> list[str]:
    return [m["card"] for m in engine.legal_moves(state)]


def auto_deal(state: dict[str, Any], declare: dict[int, str] | None = None,
              seen: list[Any] | None = None) -> dict[str, Any]:
    """Finish the current deal: the given declarations (else the first legal one), no exchanges,
    the first legal card; the events are added to ``seen``."""
    deal_no = state["deal_no"]
    while not engine.is_finished(state) and state["deal_no"] == deal_no:
        first = engine.legal_moves(state)[0]
        if state["phase"] == "declare" and declare and first["seat"] in declare:
            first = mv(first["seat"], declare[first["seat"]])
        state = play(state, first, seen=seen)
    return state


def exchange_none(state: dict[str, Any]) -> dict[str, Any]:
    while state["phase"] == "exchange":
        state = play(state, mv(engine.to_act(state)[0], "exchange", cards=[]))
    return state


# ----- §9 scenarios --------------------------------------------------------------------
def test_S1_club_law_no_declarations() -> None:
    state = new(deals=[make_deal(4, {}, "8C")])
    assert state["phase"] == "exchange" and state["declared"] == ["stand"] * 4
    assert engine.to_act(state) == [0]
    assert {m["action"] for m in engine.legal_moves(state)} == {"exchange"}
    for seat in (0, 3):
        for action in ("pass", "stand", "defend"):
            assert reason(state, mv(seat, action)) == "wrong_phase"
    state = exchange_none(state)
    assert state["phase"] == "play" and engine.to_act(state) == [0]
    assert reason(state, mv(1, "pass")) == "wrong_phase"


def s2_state(**options: Any) -> dict[str, Any]:
    state = new(deals=[make_deal(4, {}, "8D")], **options)
    return play(state, mv(0, "stand"), mv(1, "pass"), mv(2, "pass"))


def test_S2_dealer_must_defend_against_one() -> None:
    state = s2_state()
    assert engine.legal_moves(state) == [mv(3, "defend")]
    assert reason(state, mv(3, "pass")) == "pass_not_allowed"
    assert reason(state, mv(3, "stand")) == "stand_not_allowed"
    state = play(state, mv(3, "defend"))
    assert state["phase"] == "exchange" and engine.to_act(state) == [0]


def test_S2_stand_or_defend_option() -> None:
    state = s2_state(dealer_vs_single="stand_or_defend")
    assert engine.legal_moves(state) == [mv(3, "stand"), mv(3, "defend")]
    assert reason(state, mv(3, "pass")) == "pass_not_allowed"
    state = play(state, mv(3, "stand"))
    assert state["declared"][3] == "stand"


def test_S3_exchange_legality() -> None:
    state = new(deals=[make_deal(4, {0: ["4D", "9C", "KH"]}, "8C")])
    subsets = [[], ["4D"], ["9C"], ["KH"], ["4D", "9C"], ["4D", "KH"], ["9C", "KH"], ["4D", "9C", "KH"]]
    assert engine.legal_moves(state) == [mv(0, "exchange", cards=c) for c in subsets]
    assert reason(state, mv(0, "exchange", cards=["4D", "4D"])) == "card_not_in_hand"
    assert reason(state, mv(0, "exchange", cards=["AS"])) == "card_not_in_hand"
    assert reason(state, mv(1, "exchange", cards=["AS"])) == "not_your_turn"
    for cards in subsets:
        after = play(state, mv(0, "exchange", cards=cards))
        assert len(after["hands"][0]) == 3 and after["discards"][0] == cards and after["drawn"][0] == len(cards)
        assert after["hands"][0][3 - len(cards):] == state["rest"][:len(cards)]


def test_S4_stock_runs_out_under_club_law() -> None:
    state = new(10, deals=[make_deal(10, {}, "3C")])
    assert len(state["rest"]) == 21 and state["dealer"] == 9
    top = state["rest"][:3]
    for seat in range(7):
        state = play(state, mv(seat, "exchange", cards=list(state["hands"][seat])))
    assert state["hands"][0] == top and state["rest"] == []
    assert engine.legal_moves(state) == [mv(7, "exchange", cards=[])]
    assert reason(state, mv(7, "exchange", cards=state["hands"][7][:1])) == "not_enough_cards"
    state = play(state, mv(7, "exchange", cards=[]), mv(8, "exchange", cards=[]), mv(9, "exchange", cards=[]))
    assert state["phase"] == "play"


def s5_state(seed: str = "5eed") -> dict[str, Any]:
    state = new(10, deals=[make_deal(10, {}, "5H")], seed=seed)
    for seat in range(9):
        state = play(state, mv(seat, "pass" if seat in (3, 5) else "stand"))
    assert engine.legal_moves(state) == [mv(9, "stand"), mv(9, "pass")]
    state = play(state, mv(9, "stand"))
    for seat in (0, 1, 2, 4, 6, 7, 8):
        state = play(state, mv(seat, "exchange", cards=list(state["hands"][seat])))
    return state


def test_S5_stock_refilled_from_thrown_hands() -> None:
    state = s5_state()
    thrown = state["thrown"][3] + state["thrown"][5]
    assert state["rest"] == [] and len(thrown) == 6
    assert len(engine.legal_moves(state)) == 8 and engine.to_act(state) == [9]
    old = list(state["hands"][9])
    after, events = engine.apply(state, mv(9, "exchange", cards=old))
    engine.check_state(G, after)
    assert {"type": "stock_refilled", "count": 6} in events
    assert after["thrown"][3] == [] and after["thrown"][5] == []
    assert set(after["hands"][9]) | set(after["rest"]) == set(thrown) and len(after["rest"]) == 3
    assert after["discards"][9] == old and after["phase"] == "play"
    again, _ = engine.apply(s5_state(), mv(9, "exchange", cards=old))
    assert again == after  # the refill shuffle is seeded
    two = play(state, mv(9, "exchange", cards=old[:2]))
    assert len(two["rest"]) == 4


def test_S6_lead_after_exchange() -> None:
    deal = make_deal(4, {0: ["AH", "2C", "4C"]}, "7H", stock_top=("3S", "5D"))
    state = new(deals=[deal])
    state = play(state, mv(0, "stand"), mv(1, "stand"), mv(2, "stand"), mv(3, "stand"),
                 mv(0, "exchange", cards=["2C", "4C"]))
    assert sorted(state["hands"][0]) == sorted(["AH", "3S", "5D"])
    state = exchange_none(state)
    assert engine.legal_moves(state) == [mv(0, "play", card="AH")]
    assert reason(state, mv(0, "play", card="3S")) == "must_lead_trump_ace"
    assert reason(state, mv(0, "play", card="2C")) == "card_not_in_hand"


def s7_state(seat1: list[str], dealer: list[str] = ("KS", "5H", "4C"), **options: Any) -> dict[str, Any]:
    """Deal 1 (dealer 2, Club Law): seat 0 sweeps, 1-3 looed -> pot 9. Deal 2: dealer 3 antes, P = 12."""
    deal2 = make_deal(4, {1: seat1, 3: list(dealer)}, "8D")
    state = new(deals=[sweep_deal(4, 0), deal2], first_dealer=2, **options)
    state = auto_deal(state)
    assert state["deal_no"] == 2 and state["pot"] == 12 and state["chips"] == [103, 97, 94, 94]
    state = play(state, mv(0, "pass"), mv(1, "stand"), mv(2, "pass"), mv(3, "defend"))
    return exchange_none(state)


def test_S7_settlement_with_defender() -> None:
    state = s7_state(["2S", "AH", "3C"])
    state = play(state, mv(1, "play", card="2S"), mv(3, "play", card="KS"), mv(3, "play", card="5H"))
    assert engine.legal_moves(state) == [mv(1, "play", card="AH")]
    seen: list[Any] = []
    state = play(state, mv(1, "play", card="AH"), mv(1, "play", card="3C"), mv(3, "play", card="4C"), seen=seen)
    assert [e["winner"] for e in seen if e["type"] == "trick_won"] == [1, 3]  # after the defender's first
    assert settled(seen)["changes"] == [0, 4, 0, -3] and settled(seen)["looed"] == []  # -3: the ante of deal 2
    assert settled(seen)["unit"] == "chips" and settled(seen)["pot"] == 8
    assert state["chips"] == [103 - 3, 101, 94, 94]  # seat 0 has anted deal 3; the defender is unchanged
    assert state["deal_no"] == 3 and state["pot"] == 8 + 3


def test_S7_dealer_wins_all_tricks() -> None:
    seen: list[Any] = []
    state = auto_deal(s7_state(["2S", "3H", "3C"]), seen=seen)
    assert [e["winner"] for e in seen if e["type"] == "trick_won"] == [3, 3, 3]
    assert settled(seen)["looed"] == [1] and settled(seen)["changes"] == [0, -3, 0, -3]
    assert state["chips"] == [100, 94, 94, 94] and state["pot"] == 15 + 3


def test_S7_unlimited_loo_pays_the_pool() -> None:
    seen: list[Any] = []
    state = auto_deal(s7_state(["2S", "3H", "3C"], unlimited=True), seen=seen)
    assert settled(seen)["changes"] == [0, -12, 0, -3]
    assert state["chips"][1] == 97 - 12 and state["pot"] == 24 + 3


def test_S8_all_pass_dealer_takes_pool() -> None:
    state = new(deals=[make_deal(4, {}, "QS")])
    after, events = engine.apply(state, mv(0, "pass"))
    after = play(after, mv(1, "pass"))
    final, events = engine.apply(after, mv(2, "pass"))
    engine.check_state(G, final)
    assert [e["type"] for e in events][:3] == ["pass", "deal_settled", "deal_started"]
    assert events[1] == {"type": "deal_settled", "deal": 1, "dealer": 3, "changes": [0, 0, 0, 0], "unit": "chips",
                         "looed": [], "pot": 0}  # the dealer took back the 3 he anted
    assert final["deal_no"] == 2 and final["dealer"] == 0
    assert final["chips"] == [97, 100, 100, 100] and final["pot"] == 3  # deal 2's ante from seat 0


# ----- lead duties (§5.1, §5.2) ----------------------------------------------------------
def lead_state(hand: list[str], turnup: str, duel: bool = False, **options: Any) -> dict[str, Any]:
    state = new(deals=[make_deal(4, {0: hand}, turnup)], **options)
    declare = [mv(0, "stand"), mv(1, "pass"), mv(2, "pass"), mv(3, "defend")] if duel else \
        [mv(0, "stand"), mv(1, "stand"), mv(2, "stand"), mv(3, "pass")]
    return exchange_none(play(state, *declare))


@pytest.mark.parametrize(("hand", "turnup", "duel", "options", "legal", "refused"), [
    (["KS", "4D", "9C"], "AS", False, {}, ["KS"], {"4D": "must_lead_trump_king"}),
    (["QS", "4D", "9C"], "AS", False, {}, ["QS", "4D", "9C"], {}),
    (["QD", "8D", "AC"], "5D", False, {}, ["QD", "8D"], {"AC": "must_lead_trump"}),
    (["QD", "8D", "AC"], "5D", True, {}, ["QD"], {"8D": "must_lead_highest_trump", "AC": "must_lead_trump"}),
    (["QD", "8D", "AC"], "5D", False, {"lead_highest_trump": "always"}, ["QD"], {"8D": "must_lead_highest_trump"}),
    (["AD", "KD", "2S"], "5D", True, {}, ["AD"], {"KD": "must_lead_trump_ace"}),
    (["9D", "3S", "4H"], "5D", True, {}, ["9D", "3S", "4H"], {}),
])
def test_first_lead_duties(hand: list[str], turnup: str, duel: bool, options: dict[str, Any], legal: list[str],
                           refused: dict[str, str]) -> None:
    state = lead_state(hand, turnup, duel, **options)
    assert engine.to_act(state) == [0] and cards_legal(state) == legal
    for card, why in refused.items():
        assert reason(state, mv(0, "play", card=card)) == why


@pytest.mark.parametrize(("hand", "options", "legal"), [
    (["7C", "KH"], {}, ["7C"]),
    (["7C", "8C"], {}, ["7C", "8C"]),
    (["7C", "8C"], {"lead_highest_trump": "always"}, ["8C"]),
    (["KH", "2S"], {}, ["KH", "2S"]),
])
def test_later_lead_duties(hand: list[str], options: dict[str, Any], legal: list[str]) -> None:
    """Turn-up 6C (Club Law): seat 0 leads 2D, seat 1 (void) trumps with the ace and leads again."""
    hands = {0: ["2D", "3H", "4H"], 1: ["AC", *hand], 2: ["5D", "6H", "7H"], 3: ["8D", "9H", "TH"]}
    state = exchange_none(new(deals=[make_deal(4, hands, "6C")], **options))
    state = play(state, mv(0, "play", card="2D"), mv(1, "play", card="AC"), mv(2, "play", card="5D"),
                 mv(3, "play", card="8D"))
    assert engine.to_act(state) == [1] and cards_legal(state) == legal
    if legal == ["7C"]:
        assert reason(state, mv(1, "play", card="KH")) == "must_lead_trump"
    if legal == ["8C"]:
        assert reason(state, mv(1, "play", card="7C")) == "must_lead_highest_trump"


# ----- following (§5.3) ----------------------------------------------------------------
@pytest.mark.parametrize(("second", "seat1", "seat2", "options", "legal", "refused"), [
    ("KH", ["KH", "2D", "3D"], ["4H", "AH", "3C"], {}, ["AH"], {"4H": "must_head_trick", "3C": "must_follow_suit"}),
    ("5C", ["5C", "2D", "3D"], ["4H", "JH", "AC"], {}, ["4H", "JH"], {"AC": "must_follow_suit"}),
    ("5C", ["5C", "2D", "3D"], ["3C", "8C", "KD"], {}, ["8C"], {"3C": "must_overtrump", "KD": "must_trump"}),
    ("5C", ["5C", "2D", "3D"], ["3C", "2C", "KD"], {}, ["3C", "2C"], {"KD": "must_trump"}),
    ("5C", ["5C", "2D", "3D"], ["3C", "2C", "KD"], {"must_undertrump": False}, ["3C", "2C", "KD"], {}),
    ("2H", ["2H", "2D", "3D"], ["3C", "KD", "QS"], {}, ["3C"], {"KD": "must_trump", "QS": "must_trump"}),
])
def test_following_duties(second: str, seat1: list[str], seat2: list[str], options: dict[str, Any],
                          legal: list[str], refused: dict[str, str]) -> None:
    """Turn-up 6C (Club Law). Seat 0 leads 9H, seat 1 plays ``second``; seat 2 to play."""
    hands = {0: ["9H", "4D", "5D"], 1: seat1, 2: seat2, 3: ["6S", "7S", "8S"]}
    state = exchange_none(new(deals=[make_deal(4, hands, "6C")], **options))
    state = play(state, mv(0, "play", card="9H"), mv(1, "play", card=second))
    assert engine.to_act(state) == [2] and cards_legal(state) == legal
    for card, why in refused.items():
        assert reason(state, mv(2, "play", card=card)) == why
    assert reason(state, mv(3, "play", card="6S")) == "not_your_turn"


def test_trump_led_must_head() -> None:
    hands = {0: ["9C", "4D", "5D"], 1: ["JC", "2D", "3D"], 2: ["QC", "2C", "KD"], 3: ["6S", "7S", "8S"]}
    state = exchange_none(new(deals=[make_deal(4, hands, "6C")]))
    state = play(state, mv(0, "play", card="9C"), mv(1, "play", card="JC"))
    assert cards_legal(state) == ["QC"]
    assert reason(state, mv(2, "play", card="2C")) == "must_head_trick"


# ----- settlement (§6) -----------------------------------------------------------------
@pytest.mark.parametrize(("seat1", "dealer", "gain", "pot"), [
    (["2S", "AH", "3C"], ["KS", "5H", "4C"], 1, 3),  # defender wins trick 1: the odd chip stays
    (["AS", "2H", "3C"], ["KS", "5H", "4C"], 2, 2),  # seat 1 wins trick 1: v + r
])
def test_odd_chips_and_defender(seat1: list[str], dealer: list[str], gain: int, pot: int) -> None:
    state = new(deals=[make_deal(4, {1: seat1, 3: dealer}, "8D")], ante=4)
    state = play(state, mv(0, "pass"), mv(1, "stand"), mv(2, "pass"), mv(3, "defend"))
    assert state["pot"] == 4
    seen: list[Any] = []
    state = auto_deal(state, seen=seen)
    assert settled(seen)["changes"] == [0, gain, 0, -4]
    assert state["chips"][1] == 100 + gain and state["pot"] == pot + 4 and state["chips"][3] == 96


def test_limited_settlement_several_players() -> None:
    """Club Law: seat 2 wins all three tricks; seats 0, 1, 3 are looed, 3 chips each."""
    seen: list[Any] = []
    state = auto_deal(new(deals=[sweep_deal(4, 2)]), seen=seen)
    assert [e["winner"] for e in seen if e["type"] == "trick_won"] == [2, 2, 2]
    assert settled(seen)["changes"] == [-3, -3, 3, -6] and settled(seen)["looed"] == [0, 1, 3]  # 3 dealt
    assert state["chips"] == [97 - 3, 97, 103, 94] and state["pot"] == 9 + 3  # seat 0 antes deal 2


def test_no_pass_on_single() -> None:
    state = new(deals=[make_deal(4, {}, "8D"), make_deal(4, {}, "8D")], no_pass_on_single=True)
    assert engine.legal_moves(state) == [mv(0, "stand")]
    assert reason(state, mv(0, "pass")) == "pass_not_allowed"
    state = play(state, mv(0, "stand"), mv(1, "stand"), mv(2, "stand"))
    assert engine.legal_moves(state) == [mv(3, "stand")]


def test_no_pass_on_single_allows_pass_on_double() -> None:
    state = auto_deal(new(deals=[sweep_deal(4, 0), make_deal(4, {}, "8D")], no_pass_on_single=True))
    assert state["pot"] - 3 > 0 and engine.legal_moves(state) == [mv(1, "stand"), mv(1, "pass")]


@pytest.mark.parametrize(("action", "code"), [("defend", "defend_not_allowed"), ("play", "wrong_phase"),
                                              ("exchange", "wrong_phase"), ("shuffle", "unknown_action")])
def test_declare_phase_refusals(action: str, code: str) -> None:
    state = new(deals=[make_deal(4, {}, "8D")])
    move = mv(0, action, **({"card": state["hands"][0][0]} if action == "play" else {}),
              **({"cards": []} if action == "exchange" else {}))
    assert reason(state, move) == code
    assert reason(state, mv(2, "stand")) == "not_your_turn"
    state = play(state, mv(0, "stand"), mv(1, "stand"), mv(2, "pass"))
    assert reason(state, mv(3, "defend")) == "defend_not_allowed"


# ----- match ends (§2) -----------------------------------------------------------------
def test_closing_deal() -> None:
    deals = [make_deal(3, {}, "8D"), sweep_deal(3, 0), sweep_deal(3, 1, trump="D")]
    state = new(3, deals, rounds=1, first_dealer=0)
    state = auto_deal(state, {1: "pass", 2: "pass"})
    assert state["chips"] == [100, 97, 100] and state["pot"] == 3
    state = auto_deal(state)
    assert state["pot"] == 9 and state["chips"] == [103, 94, 94] and state["dealer"] == 2
    assert state["phase"] == "exchange" and state["declared"] == ["stand"] * 3  # closing deal: no declarations
    assert reason(state, mv(0, "pass")) == "wrong_phase"
    seen: list[Any] = []
    state = auto_deal(state, seen=seen)
    assert engine.is_finished(state) and settled(seen)["looed"] == [0, 2]
    assert settled(seen)["changes"] == [0, 9, -3]  # no loo paid in the closing deal; 2 dealt it
    res = engine.result(state)
    assert res["scores"] == [103, 103, 94] and res["payoffs"] == [3, 3, -6] and res["ranking"] == [0, 1, 2]
    assert res["share_out"] == [0, 0, 0] and res["deals_played"] == 3
    assert reason(state, mv(0, "stand")) == "match_over"


def test_until_no_loo_stops_after_a_deal_without_loo() -> None:
    deals = [sweep_deal(3, 1), sweep_deal(3, 1), sweep_deal(3, 1), make_deal(3, {}, "8D")]
    state = new(3, deals, rounds=1, first_dealer=0, end_mode="until_no_loo")
    for _ in range(3):
        state = auto_deal(state)
    assert not engine.is_finished(state) and state["deal_no"] == 4
    assert state["chips"] == [85, 118, 88] and state["pot"] == 9
    state = auto_deal(state, {1: "pass", 2: "pass"})
    assert engine.is_finished(state)
    assert engine.result(state)["scores"] == [94, 118, 88]


def test_until_no_loo_cap_and_leftover_split() -> None:
    deals = [sweep_deal(3, 1)] * 4
    state = new(3, deals, rounds=1, first_dealer=0, end_mode="until_no_loo", max_extra_deals=1, loo_amount=4)
    for _ in range(4):
        state = auto_deal(state)
    assert engine.is_finished(state) and state["deal_no"] == 4
    res = engine.result(state)
    assert res["share_out"] == [2, 3, 3]  # pot 8: 2 each, odd chips to seats 1, 2 (eldest of deal 4 first)
    assert sum(res["payoffs"]) == 0 and state["pot"] == 0 and state["pot_shared"] == [2, 3, 3]


def test_until_no_loo_ends_at_schedule_without_loo() -> None:
    deals = [make_deal(3, {}, "8D")] * 3
    state = new(3, deals, rounds=1, first_dealer=0, end_mode="until_no_loo")
    for _ in range(3):
        state = auto_deal(state, {s: "pass" for s in range(3)})
    assert engine.is_finished(state) and engine.result(state)["payoffs"] == [0, 0, 0]


def test_bust_ends_at_zero_balance() -> None:
    state = new(3, [sweep_deal(3, 1)], first_dealer=0, end_mode="bust", starting_chips=5)
    state = auto_deal(state)
    assert engine.is_finished(state) and state["deal_no"] == 1
    res = engine.result(state)
    assert res["share_out"] == [2, 2, 2] and res["scores"] == [1, 10, 4] and res["payoffs"] == [-4, 5, -1]
    assert res["ranking"] == [1, 2, 0]


def test_bust_ends_after_schedule() -> None:
    state = new(3, [make_deal(3, {}, "8D")] * 3, first_dealer=0, end_mode="bust", rounds=1)
    for _ in range(3):
        state = auto_deal(state, {s: "pass" for s in range(3)})
    assert engine.is_finished(state) and state["deal_no"] == 3


# ----- options, deals, seeds -----------------------------------------------------------
def test_option_defaults() -> None:
    state = engine.new_match(G, 5, {}, "ab")
    assert state["options"] == {
        "starting_chips": 100, "ante": 3, "loo_amount": 3, "unlimited": False, "no_pass_on_single": False,
        "dealer_vs_single": "defend_only", "lead_highest_trump": "parlett", "must_undertrump": True,
        "end_mode": "closing_deal", "rounds": 2, "max_extra_deals": 10, "first_dealer": 0}


@pytest.mark.parametrize("options", [
    {"starting_chips": -1}, {"starting_chips": "100"}, {"ante": 0}, {"ante": 2.5}, {"loo_amount": -1},
    {"unlimited": 1}, {"no_pass_on_single": "yes"}, {"dealer_vs_single": "pass"}, {"lead_highest_trump": "never"},
    {"must_undertrump": None}, {"end_mode": "forever"}, {"rounds": 0}, {"max_extra_deals": -1},
    {"first_dealer": 4}, {"first_dealer": True}, {"miss": True}, {"rounds": 101},
])
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(G, 4, options, "ab")


@pytest.mark.parametrize("n", [2, 11])
def test_player_counts(n: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(G, n, {}, "ab")


def bad_deals() -> list[dict[str, Any]]:
    good = make_deal(4, {}, "8D")
    four = {"hands": [good["hands"][0] + [good["rest"][-1]], *good["hands"][1:]], "rest": good["rest"][:-1]}
    dup = {"hands": good["hands"], "rest": good["rest"][:-1] + [good["rest"][0]]}
    short = {"hands": good["hands"], "rest": good["rest"][:-1]}
    joker = {"hands": good["hands"], "rest": good["rest"][:-1] + ["JK"]}
    return [four, dup, short, joker, {"hands": good["hands"][:3], "rest": good["rest"]},
            {"hands": good["hands"]}, {"hands": good["hands"], "rest": good["rest"], "miss": []}, "deal"]


@pytest.mark.parametrize("deal", bad_deals())
def test_invalid_deals(deal: Any) -> None:
    with pytest.raises(InvalidDeal):
        engine.new_match(G, 4, {}, "ab", deals=[deal])


def test_explicit_deal_layout() -> None:
    deal = make_deal(4, {2: ["AS", "KS", "QS"]}, "8D", stock_top=("2H", "3H"))
    state = new(deals=[deal])
    assert state["hands"] == deal["hands"] and state["turn_up"] == "8D" and state["rest"][:2] == ["2H", "3H"]
    assert len(state["rest"]) == 39


def test_seeded_deals_reproducible() -> None:
    a = engine.new_match(G, 5, {"first_dealer": 2}, "c0ffee")
    b = engine.new_match(G, 5, {"first_dealer": 2}, "c0ffee")
    c = engine.new_match(G, 5, {"first_dealer": 2}, "c0ffef")
    assert a == b and a["hands"] != c["hands"]
    cards = shuffled(STANDARD_PACK, "c0ffee", "irish_loo/0")
    for k in range(15):
        assert a["hands"][(2 + 1 + k) % 5][k // 5] == cards[k]
    assert a["turn_up"] == cards[15] and a["rest"] == cards[16:]


# ----- forged states -------------------------------------------------------------------
def forgeries() -> list[tuple[str, Any]]:
    def set_(path: list[Any], value: Any) -> Any:
        def f(s: dict[str, Any]) -> None:
            target = s
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        return f

    def swap_card(s: dict[str, Any]) -> None:
        s["hands"][0][0] = s["hands"][1][0]

    def steal_chip(s: dict[str, Any]) -> None:
        s["chips"][0] += 1

    def hide_from_stock(s: dict[str, Any]) -> None:
        s["discards"][0].append(s["rest"].pop())

    def drop_key(s: dict[str, Any]) -> None:
        del s["drawn"]

    def wrong_winner(s: dict[str, Any]) -> None:
        s["tricks"][0]["winner"] = 3 - s["tricks"][0]["winner"]

    def illegal_follow(s: dict[str, Any]) -> None:  # seat 1 could head 9H with KH but played 2H
        t = s["tricks"][0]["plays"]
        hand = s["hands"][1]
        hand[hand.index("2H")] = t[1][1]
        t[1][1] = "2H"
    def illegal_logged_follow(s: dict[str, Any]) -> None:  # the same, in the deal's record too
        illegal_follow(s)
        s["log"][s["log"].index("KH")] = "2H"

    def carried(key: str, change: Any) -> Any:
        """Forge a total carried into the deal, in ``before`` and in the deal alike."""
        def f(s: dict[str, Any]) -> None:
            for totals in (s, s["before"]):
                totals[key] = change(totals[key])
        return f

    return [
        ("duplicate card", swap_card), ("chips not conserved", steal_chip), ("stock hidden", hide_from_stock),
        ("missing key", drop_key), ("extra key", set_(["miss"], [])), ("dealer as bool", set_(["dealer"], True)),
        ("wrong dealer", set_(["dealer"], 0)), ("bad phase", set_(["phase"], "declare")),
        ("drawn count", set_(["drawn", 0], 2)),
        ("trick winner", wrong_winner), ("illegal follow", illegal_follow),
        ("illegal follow logged", illegal_logged_follow), ("log entry not a move", set_(["log", 0], [0, "stand", 1])),
        ("log entry unknown", set_(["log", 0], 7)), ("log cut short", lambda s: s["log"].pop()),
        ("joker", set_(["turn_up"], "JK")), ("pot", set_(["pot"], 4)),
        ("declared", set_(["declared", 3], "defend")), ("dealings", set_(["dealings"], 2)),
        ("pot_shared early", set_(["pot_shared"], [0, 0, 0, 0])), ("over early", set_(["phase"], "over")),
        ("before missing", set_(["before"], {})), ("before pot", carried("pot", lambda p: p + 1)),
        ("before deal_no", carried("deal_no", lambda k: k + 8)),
        ("before dealings huge", carried("dealings", lambda k: 2**62)),
        ("before chips moved", carried("chips", lambda c: [c[0] + 5, c[1] - 5, *c[2:]])),
        ("before chips past the bound", carried("chips", lambda c: [c[0] + 2**60, c[1] - 2**60, *c[2:]])),
        ("before chips not whole", carried("chips", lambda c: [c[0] + 0.5, c[1] - 0.5, *c[2:]])),
    ]


def forge_base() -> dict[str, Any]:
    """Club Law deal in play: trick 1 done (0 led 9H, 1 headed with KH, 2 and 3 followed)."""
    hands = {0: ["9H", "4D", "5D"], 1: ["KH", "2H", "3D"], 2: ["4H", "6D", "7D"], 3: ["5H", "6S", "7S"]}
    state = exchange_none(new(deals=[make_deal(4, hands, "6C")]))
    return play(state, mv(0, "play", card="9H"), mv(1, "play", card="KH"), mv(2, "play", card="4H"),
                mv(3, "play", card="5H"))


@pytest.mark.parametrize(("label", "corrupt"), forgeries(), ids=[f[0] for f in forgeries()])
def test_forged_states_rejected(label: str, corrupt: Any) -> None:
    state = forge_base()
    engine.check_state(G, state)
    forged = engine.clone(state)
    corrupt(forged)
    with pytest.raises(InvalidState):
        engine.check_state(G, forged)


def test_forged_declarations_rejected() -> None:
    state = s2_state()
    for declared in ([None, "stand", "pass", None], ["stand", "pass", "stand", None],
                     ["stand", "pass", "pass", "stand"]):
        forged = dict(engine.clone(state), declared=declared)
        with pytest.raises(InvalidState):
            engine.check_state(G, forged)
    passed = engine.clone(state)
    passed["hands"][1], passed["thrown"][1] = passed["thrown"][1], []
    with pytest.raises(InvalidState):
        engine.check_state(G, passed)


def test_forged_finished_state_rejected() -> None:
    state = auto_deal(new(3, [sweep_deal(3, 1)], first_dealer=0, end_mode="bust", starting_chips=5))
    engine.check_state(G, state)
    for key, value in (("pot_shared", [3, 2, 1]), ("chips", [2, 10, 4]), ("pot", 1),
                       ("phase", "play"), ("pot_shared", [2, True, 2])):
        with pytest.raises(InvalidState):
            engine.check_state(G, dict(engine.clone(state), **{key: value}))


# ----- views ---------------------------------------------------------------------------
def test_views_hide_stock_thrown_and_discards() -> None:
    state = s5_state()
    state = play(state, mv(9, "exchange", cards=list(state["hands"][9][:1])))
    for seat in [None, *range(10)]:
        view = engine.view(state, seat)
        assert "rest" not in view and "seed" not in view and view["stock_size"] == len(state["rest"])
        assert view["turn_up"] == "5H"
        secret = set(state["rest"])
        for s in range(10):
            if s != seat:
                secret |= set(state["hands"][s]) | set(state["thrown"][s]) | set(state["discards"][s])
        assert not leaks(view, secret)
        if seat is not None:
            assert view["hands"][seat] == state["hands"][seat] and view["discards"][seat] == state["discards"][seat]
    before = s5_state()
    assert engine.view(before, 3)["thrown"][3] == before["thrown"][3]
    assert engine.view(before, 4)["thrown"][3] is None and engine.view(before, 4)["thrown_sizes"][3] == 3


def test_events_name_no_hidden_cards() -> None:
    state = s5_state()
    _, events = engine.apply(state, mv(9, "exchange", cards=list(state["hands"][9])))
    hidden = set(state["hands"][9]) | set(state["thrown"][3]) | set(state["thrown"][5])
    assert not leaks(events, hidden)


# ----- random play: conservation and legality -------------------------------------------
@pytest.mark.parametrize(("n", "options"), [(3, {}), (5, {"unlimited": True, "end_mode": "until_no_loo"}),
                                            (7, {"end_mode": "bust", "starting_chips": 10}),
                                            (10, {"rounds": 1, "must_undertrump": False})])
def test_random_play_conserves_chips_and_legality(n: int, options: dict[str, Any]) -> None:
    rng = random.Random(n)
    for match in range(3):
        state = engine.new_match(G, n, options, f"{match + 1:x}{n:x}")
        total = n * state["options"]["starting_chips"]
        while not engine.is_finished(state):
            legal = engine.legal_moves(state)
            if state["phase"] == "play":
                seat = legal[0]["seat"]
                listed = {m["card"] for m in legal}
                for card in state["hands"][seat]:
                    if card not in listed:
                        reason(state, mv(seat, "play", card=card))
                    else:
                        engine.apply(state, mv(seat, "play", card=card))
            state, _ = engine.apply(state, rng.choice(legal))
            engine.check_state(G, state)
            assert sum(state["chips"]) + state["pot"] == total
        res = engine.result(state)
        assert sum(res["payoffs"]) == 0 and state["pot"] == 0 and sum(res["scores"]) == total


# ----- the contract's order of refusals ------------------------------------------------------
def test_refusals_follow_the_contracts_precedence() -> None:
    """Turn and phase come before the move's parameters (API.md): a move out of turn with parameters that
    are not valid is ``not_your_turn``; in the wrong phase, ``wrong_phase``."""
    state = new(deals=[make_deal(4, {}, "8D")])
    assert reason(state, mv(0, "exchange", cards=["XX"])) == "wrong_phase"
    assert reason(state, mv(9, "shuffle")) == "unknown_action"
    assert reason(state, mv(9, "stand")) == "invalid_parameters"
    assert reason(state, mv(1, "stand", extra=1)) == "not_your_turn"
    state = new(deals=[make_deal(4, {}, "8C")])  # Club Law: the exchange at once
    assert reason(state, mv(2, "exchange", cards="4D")) == "not_your_turn"
    assert reason(state, mv(2, "exchange")) == "not_your_turn"
    assert reason(state, mv(0, "exchange", cards="4D")) == "invalid_parameters"
    assert reason(state, mv(0, "exchange")) == "invalid_parameters"
    state = exchange_none(state)
    assert reason(state, mv(1, "play", card="XX")) == "not_your_turn"
    assert reason(state, mv(0, "play", card="XX")) == "invalid_parameters"


# ----- counts stay within 2^53 - 1 (the safe-integer ruling of §6) ----------------------------
@pytest.mark.parametrize("end_mode", ["closing_deal", "until_no_loo"])
def test_unlimited_loo_past_the_safe_bound_ends_the_match_in_range(end_mode: str) -> None:
    """Unlimited Loo's pot doubles with each loo; a match of sweeps (Club Law: everybody plays, one seat wins
    every trick) would pass 2^53 - 1 after some fifty deals. The deal whose settlement would leave no room is
    settled as a closing deal (nobody pays a loo), the match ends, every count on the way stays within the
    bound, every state is accepted, and replaying the moves gives the same match."""
    n, opts = 3, {"unlimited": True, "rounds": 40, "end_mode": end_mode, "first_dealer": 0}
    deals = [sweep_deal(n, (k + 1) % n) for k in range(70)]
    state = new(n, deals, **opts)
    state, moves = play_to_the_limit(G, state, lambda s: engine.legal_moves(s)[0], 40 * n)
    replayed = engine.new_match(G, n, opts, "5eed", deals)
    for move in moves:
        replayed, _ = engine.apply(replayed, move)
    assert replayed == state
