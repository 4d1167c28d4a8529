"""Norrlandsknack: every scenario of the spec behind docs/games/norrlandsknack.md, section 9, plus options, deals and forged states."""
from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import STANDARD_PACK
from service.engine.games.norrlandsknack import score_entry

from ..playout import expect_illegal, leaks

GAME = "norrlandsknack"

# A first deal for 4 players, dealer 0, trumps spades (the turn-up 2S goes to the dealer, who buys it away).
# Seat 1 takes the three heart tricks, seat 0 the two club tricks; seats 2 and 3 hold only diamonds.
ROLES = {"hearts": ["AH", "KH", "QH", "3C", "4C"], "clubs": ["AC", "KC", "QC", "JC", "TC"],
         "low": ["2D", "3D", "4D", "5D", "6D"], "high": ["7D", "8D", "9D", "TD", "JD"]}


def deal(hands: dict[int, list[str]], n: int = 4, turnup: str = "2S", talon: tuple[str, ...] = ()) -> dict[str, Any]:
    """An explicit deal: the given hands, other seats from unused cards in pack order; rest = turn-up, talon."""
    used = {c for h in hands.values() for c in h} | {turnup, *talon}
    spare = [c for c in STANDARD_PACK if c not in used]
    full = []
    for s in range(n):
        if s in hands:
            full.append(list(hands[s]))
        else:
            full.append(spare[:5])
            spare = spare[5:]
    return {"hands": full, "rest": [turnup, *talon, *spare]}


def standard(dealer: int = 0) -> dict[str, Any]:
    """ROLES seated from the dealer: dealer clubs, forehand hearts, then low and high diamonds."""
    return deal({dealer: ROLES["clubs"], (dealer + 1) % 4: ROLES["hearts"], (dealer + 2) % 4: ROLES["low"],
                 (dealer + 3) % 4: ROLES["high"]})


def start(*deals: dict[str, Any], n: int = 4, seed: str = "5eed", **options: Any) -> dict[str, Any]:
    return engine.new_match(GAME, n, options, seed, deals=list(deals))


def act(state: dict[str, Any], *moves: tuple[int, str]) -> dict[str, Any]:
    for seat, action in moves:
        state, _ = engine.apply(state, {"seat": seat, "action": action})
    return state


def buy(state: dict[str, Any], seat: int, cards: list[str]) -> dict[str, Any]:
    return engine.apply(state, {"seat": seat, "action": "buy", "cards": cards})[0]


def play(state: dict[str, Any], *moves: tuple[int, str]) -> dict[str, Any]:
    for seat, card in moves:
        state, _ = engine.apply(state, {"seat": seat, "action": "play", "card": card})
    return state


def buy_nothing(state: dict[str, Any]) -> dict[str, Any]:
    """Every active seat keeps its hand; the dealer discards the turn-up (the last card of his hand)."""
    while state["phase"] == "buy":
        seat = engine.to_act(state)[0]
        state = buy(state, seat, [state["hands"][seat][-1]] if seat == state["dealer"] else [])
    return state


def play_out(state: dict[str, Any]) -> dict[str, Any]:
    """Finish the deal on the table, each seat playing its first legal card."""
    return finish_deal(state)[0]


RECORD = ("deal", "dealer", "knocker", "active", "tricks", "loafed")


def deal_record(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The finished deal's record, from the ``deal_settled`` event of the move that ended it."""
    scored = [e for e in events if e["type"] == "deal_settled"]
    assert len(scored) == 1, events
    return {k: scored[0][k] for k in RECORD}


def finish_deal(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``play_out``, and the record of the deal from the events of its last move."""
    deal_no = state["deal_no"]
    events: list[dict[str, Any]] = []
    while not engine.is_finished(state) and state["deal_no"] == deal_no:
        state, events = engine.apply(state, engine.legal_moves(state)[0])
    return state, deal_record(events)


def legal_cards(state: dict[str, Any], seat: int) -> set[str]:
    return {m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"}


# ----- S1: loaf arithmetic --------------------------------------------------------------------
@pytest.mark.parametrize(("before", "after"), [(7, 12), (3, 10), (10, 15), (0, 10)])
def test_S1_loaf_arithmetic(before: int, after: int) -> None:
    scores = [before, 9]
    score_entry(scores, {"active": [0, 1], "tricks": [0, 5], "loafed": [0]})
    assert scores == [after, 4]


@pytest.mark.parametrize(("options", "knocker", "score"), [
    ({"knocker_min": 4}, 1, 12),    # 10 - 3 tricks = 7, loafed -> 12
    ({"start_score": 3}, 2, 10),    # 3, no trick, loafed -> 10
    ({}, 2, 15),                    # 10, no trick, loafed -> 15
])
def test_S1_loaf_in_play_adds_a_chip_to_the_pot(options: dict[str, Any], knocker: int, score: int) -> None:
    state = start(standard(), **options)
    state = act(state, *[(s, "lurk") for s in range(1, knocker)], (knocker, "knock"))
    state, entry = finish_deal(buy_nothing(state))
    assert entry["knocker"] == knocker and entry["loafed"] == [knocker]
    assert state["loaves"] == [1 if s == knocker else 0 for s in range(4)]
    assert state["scores"][knocker] == score
    stake = options.get("stake", 5)
    pot = 4 * stake + 1
    if engine.is_finished(state):  # start_score 3: seat 1 reaches 0 and takes the pot
        assert state["pot"] == 0 and engine.result(state)["payoffs"][1] == pot - stake
    else:
        assert state["pot"] == pot
    assert state["chips"][knocker] == 100 - stake - 1
    assert sum(state["chips"]) + state["pot"] == 400


# ----- S2: the first deal ------------------------------------------------------------------------
def test_S2_first_deal_knock_ends_the_declarations() -> None:
    state = start(standard())
    assert engine.legal_moves(state) == [{"seat": 1, "action": "knock"}, {"seat": 1, "action": "lurk"}]
    state = act(state, (1, "lurk"))
    assert engine.legal_moves(state) == [{"seat": 2, "action": "knock"}, {"seat": 2, "action": "lurk"}]
    state, events = engine.apply(state, {"seat": 2, "action": "knock"})
    assert state["phase"] == "buy" and engine.to_act(state) == [1]
    assert {"type": "buying", "active": [0, 1, 2, 3], "knocker": 2} in events
    state = buy_nothing(state)
    assert state["phase"] == "play" and engine.to_act(state) == [1]
    state, entry = finish_deal(state)
    assert entry == {"deal": 1, "dealer": 0, "knocker": 2, "active": [0, 1, 2, 3], "tricks": [2, 3, 0, 0],
                     "loafed": [2]}
    assert state["scores"] == [8, 7, 15, 10]
    assert state["chips"] == [95, 95, 94, 95] and state["pot"] == 21
    assert (state["deal_no"], state["dealer"], state["phase"]) == (2, 1, "declare")
    assert engine.legal_moves(state) == [{"seat": 2, "action": "knock"}, {"seat": 2, "action": "pass"}]


# ----- S3: everyone lurks ------------------------------------------------------------------------
def test_S3_all_lurk_same_dealer_redeals() -> None:
    second = deal({1: ["AS", "KS", "QS", "JS", "TS"]}, turnup="9S")
    state = start(standard(), second)
    state, events = engine.apply(state, {"seat": 1, "action": "lurk"})
    state = act(state, (2, "lurk"), (3, "lurk"))
    state, events = engine.apply(state, {"seat": 0, "action": "lurk"})
    assert {"type": "redealt", "deal": 1, "dealer": 0, "reason": "all_lurked"} in events
    assert (state["deal_no"], state["dealer"], state["dealings"], state["phase"]) == (1, 0, 2, "declare")
    assert state["declarations"] == [] and state["loaves"] == [0] * 4
    assert state["hands"][1] == ["AS", "KS", "QS", "JS", "TS"] and state["hands"][0][-1] == "9S"
    assert state["scores"] == [10] * 4 and state["pot"] == 20
    assert engine.legal_moves(state) == [{"seat": 1, "action": "knock"}, {"seat": 1, "action": "lurk"}]


# ----- S4: a later deal --------------------------------------------------------------------------
def _deal_two(*later: dict[str, Any], **options: Any) -> dict[str, Any]:
    """First dealer 3: seat 0 knocks and wins 3 tricks, seat 3 wins 2; deal 2 is dealt by seat 0."""
    state = start(standard(3), *later, first_dealer=3, **options)
    state = play_out(buy_nothing(act(state, (0, "knock"))))
    assert state["scores"] == [7, 10, 10, 8] and (state["deal_no"], state["dealer"]) == (2, 0)
    return state


@pytest.mark.parametrize(("lone", "score"), [("all_tricks", 5), ("nothing", 10)])
def test_S4_later_deal_pass_knock_join(lone: str, score: int) -> None:
    state = _deal_two(lone_knocker=lone)
    assert engine.legal_moves(state) == [{"seat": 1, "action": "knock"}, {"seat": 1, "action": "pass"}]
    expect_illegal(state, {"seat": 1, "action": "lurk"}, "wrong_phase")
    expect_illegal(state, {"seat": 1, "action": "join"}, "wrong_phase")
    state = act(state, (1, "pass"), (2, "knock"))
    assert state["hands"][1] == [] and len(state["discards"][1]) == 5
    assert engine.legal_moves(state) == [{"seat": 3, "action": "join"}, {"seat": 3, "action": "pass"}]
    expect_illegal(state, {"seat": 1, "action": "pass"}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "join"}, "not_your_turn")
    expect_illegal(state, {"seat": 0, "action": "knock"}, "wrong_phase")
    state = act(state, (3, "pass"))
    assert engine.legal_moves(state) == [{"seat": 0, "action": "join"}, {"seat": 0, "action": "pass"}]
    state, events = engine.apply(state, {"seat": 0, "action": "pass"})
    entry = deal_record(events)
    assert entry == {"deal": 2, "dealer": 0, "knocker": 2, "active": [2], "loafed": [],
                     "tricks": [0, 0, 5 if lone == "all_tricks" else 0, 0]}
    assert state["scores"] == [7, 10, score, 8] and state["pot"] == 20
    assert not any(e["type"] == "trick_won" for e in events)
    assert (state["deal_no"], state["dealer"], state["phase"]) == (3, 1, "declare")


def test_S4_joiner_without_a_trick_is_loafed() -> None:
    state = _deal_two(standard(0))
    state = act(state, (1, "knock"), (2, "join"), (3, "pass"), (0, "join"))
    assert state["phase"] == "buy" and engine.to_act(state) == [1]
    state, entry = finish_deal(buy_nothing(state))
    assert entry["active"] == [0, 1, 2] and entry["tricks"] == [2, 3, 0, 0] and entry["loafed"] == [2]
    assert state["scores"] == [5, 7, 15, 8] and state["chips"][2] == 94 and state["pot"] == 21


def test_void_deal_passes_the_deal_on() -> None:
    state = _deal_two()
    before = {k: engine.clone(state[k]) for k in ("scores", "chips", "pot")}
    state = act(state, (1, "pass"), (2, "pass"), (3, "pass"))
    state, events = engine.apply(state, {"seat": 0, "action": "pass"})
    assert deal_record(events) == {"deal": 2, "dealer": 0, "knocker": None, "active": [], "tricks": [0] * 4,
                                   "loafed": []}
    assert {k: state[k] for k in before} == before
    assert (state["deal_no"], state["dealer"]) == (3, 1)


# ----- S5: the dealer's buy ----------------------------------------------------------------------
def test_S5_dealer_buy() -> None:
    state = start(deal({0: ["2C", "3D", "AH", "KH", "QH"]}, turnup="7S", talon=("JS", "TS")))
    state = act(state, (1, "knock"))
    moves = engine.legal_moves(state)
    assert len(moves) == 32 and {"seat": 1, "action": "buy", "cards": []} in moves
    state = buy(state, 1, [])
    state = buy(state, 2, [])
    state = buy(state, 3, [])
    hand = state["hands"][0]
    assert len(hand) == 6 and hand[-1] == "7S"
    moves = engine.legal_moves(state)
    assert all(m["seat"] == 0 and m["action"] == "buy" for m in moves) and len(moves) == 63
    assert {frozenset(m["cards"]) for m in moves} == {frozenset(c) for k in range(1, 7)
                                                      for c in combinations(hand, k)}
    expect_illegal(state, {"seat": 0, "action": "buy", "cards": []}, "bad_buy_count")
    expect_illegal(state, {"seat": 0, "action": "buy", "cards": ["2C", "2C"]}, "card_not_in_hand")
    expect_illegal(state, {"seat": 0, "action": "buy", "cards": ["2C", "AS"]}, "card_not_in_hand")
    state, events = engine.apply(state, {"seat": 0, "action": "buy", "cards": ["2C", "3D"]})
    assert state["hands"][0] == ["AH", "KH", "QH", "7S", "JS"] and state["discards"][0] == ["2C", "3D"]
    assert state["rest"][0] == "TS" and len(state["rest"]) == 52 - 20 - 1 - 1
    assert {"type": "buy", "seat": 0, "discarded": 2, "drawn": 1} in events
    assert state["phase"] == "play" and engine.to_act(state) == [1]


def test_non_dealer_buy_draws_from_the_top() -> None:
    state = act(start(deal({1: ["2C", "3D", "AH", "KH", "QH"]}, talon=("JS", "TS", "9S"))), (1, "knock"))
    expect_illegal(state, {"seat": 2, "action": "buy", "cards": []}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "play", "card": "AH"}, "wrong_phase")
    state = buy(state, 1, ["3D", "2C"])
    assert state["hands"][1] == ["AH", "KH", "QH", "JS", "TS"] and state["rest"][0] == "9S"
    assert engine.to_act(state) == [2]


# ----- S6: strict following ----------------------------------------------------------------------
def _s6(second: str, seat3: list[str], rule: str) -> dict[str, Any]:
    seat2 = [second, "6D", "7D", "8D", "9D"]
    state = start(deal({1: ["9H", "6C", "7C", "8C", "9C"], 2: seat2, 3: seat3}, turnup="AS"), trick_rule=rule)
    state = buy_nothing(act(state, (1, "knock")))
    assert state["trump"] == "S"
    return play(state, (1, "9H"), (2, second))


@pytest.mark.parametrize(("rule", "second", "seat3", "legal", "refused"), [
    ("strict", "QH", ["KH", "2H", "5S", "AD", "QC"], {"KH"},
     {"2H": "must_head_trick", "5S": "must_follow_suit", "AD": "must_follow_suit"}),
    ("strict", "4S", ["KH", "2H", "5S", "AD", "QC"], {"KH", "2H"}, {"5S": "must_follow_suit"}),
    ("strict", "4S", ["5S", "3S", "AD", "QC", "2C"], {"5S"}, {"3S": "must_overtrump", "AD": "must_trump"}),
    ("strict", "QH", ["5S", "3S", "AD", "QC", "2C"], {"5S", "3S"}, {"AD": "must_trump"}),
    ("strict", "4S", ["3S", "2S", "AD", "QC", "2C"], {"3S", "2S", "AD", "QC", "2C"}, {}),
    ("follow_only", "QH", ["KH", "2H", "5S", "AD", "QC"], {"KH", "2H"}, {"5S": "must_follow_suit"}),
    ("follow_only", "4S", ["5S", "3S", "AD", "QC", "2C"], {"5S", "3S", "AD", "QC", "2C"}, {}),
])
def test_S6_strict_following(rule: str, second: str, seat3: list[str], legal: set[str],
                             refused: dict[str, str]) -> None:
    state = _s6(second, seat3, rule)
    assert engine.to_act(state) == [3]
    assert legal_cards(state, 3) == legal
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 3, "action": "play", "card": card}, reason)
    expect_illegal(state, {"seat": 3, "action": "play", "card": "AH"}, "card_not_in_hand")


# ----- S7: the end and the split -----------------------------------------------------------------
# Four earlier deals (dealers 0 to 3) left scores [15, 2, 17, 1]: seat 2 was loafed in deals 1 and 2 and
# seat 0 in deal 2, so the loaves are [1, 0, 2, 0] and the pot holds 4 x 5 stakes + 3 loaf chips.
def _s7_position() -> dict[str, Any]:
    """Deal 5, dealer 0: scores [15, 2, 17, 1], pot 23, after four deals."""
    hands = {1: ["AH", "KH", "QH", "2C", "3C"], 3: ["2D", "3D", "4D", "5D", "AC"], 0: ["6D", "7D", "8D", "9D", "TD"]}
    state = start(deal(hands))
    state["before"].update(deal_no=5, dealings=4, loaves=[1, 0, 2, 0], scores=[15, 2, 17, 1], chips=[94, 95, 93, 95],
                           pot=23)
    state["deals"] = [deal({}), deal({}), deal({}), deal({}), state["deals"][0]]  # deals 1-4 were these
    return engine.check_state(GAME, engine.rebuild(state))


def test_S7_end_and_split() -> None:
    state = act(_s7_position(), (1, "knock"), (2, "pass"), (3, "join"), (0, "join"))
    state, entry = finish_deal(buy_nothing(state))
    assert engine.is_finished(state)
    assert entry == {"deal": 5, "dealer": 0, "knocker": 1, "active": [0, 1, 3], "tricks": [1, 3, 0, 1], "loafed": []}
    res = engine.result(state)
    assert res["last_deal"] == entry
    assert res["scores"] == [14, 0, 17, 0]
    assert state["chips"] == [94, 95 + 12, 93, 95 + 11] and state["pot"] == 0
    assert res["payoffs"] == [-6, 7, -7, 6] and sum(res["payoffs"]) == 0
    assert res["ranking"] == [1, 3, 0, 2] and res["winners"] == [1, 3]
    assert res["deals_played"] == 5
    assert set(res) == {"scores", "payoffs", "ranking", "winners", "deals_played", "last_deal"}
    engine.check_state(GAME, state)
    assert engine.legal_moves(state) == [] and engine.to_act(state) == []
    expect_illegal(state, {"seat": 0, "action": "knock"}, "match_over")


def test_max_deals_cap_lowest_scores_share() -> None:
    state = start(standard(), max_deals=1, stake=3)
    state = play_out(buy_nothing(act(state, (1, "knock"))))
    assert engine.is_finished(state)
    res = engine.result(state)
    assert res["scores"] == [8, 7, 10, 10] and res["winners"] == [1]
    assert res["payoffs"] == [-3, 9, -3, -3]
    assert res["ranking"] == [1, 0, 2, 3]
    engine.check_state(GAME, state)


# ----- rules of order ----------------------------------------------------------------------------
def test_wrong_phase_before_not_your_turn() -> None:
    state = start(standard())
    expect_illegal(state, {"seat": 3, "action": "pass"}, "wrong_phase")
    expect_illegal(state, {"seat": 3, "action": "join"}, "wrong_phase")
    expect_illegal(state, {"seat": 3, "action": "buy", "cards": []}, "wrong_phase")
    expect_illegal(state, {"seat": 3, "action": "knock"}, "not_your_turn")
    expect_illegal(state, {"seat": 3, "action": "ring"}, "unknown_action")
    expect_illegal(state, {"seat": 1, "action": "buy"}, "wrong_phase")  # the phase before the parameters
    expect_illegal(state, {"seat": 9, "action": "buy"}, "invalid_parameters")  # not a seat of the table


def test_parameters_are_checked_after_the_turn() -> None:
    state = act(start(standard()), (1, "knock"))
    expect_illegal(state, {"seat": 2, "action": "buy", "cards": "AS"}, "not_your_turn")
    expect_illegal(state, {"seat": 1, "action": "buy", "cards": "AS"}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "buy"}, "invalid_parameters")


def test_passed_seat_does_not_play() -> None:
    state = _deal_two(standard(0))
    state = buy_nothing(act(state, (1, "knock"), (2, "pass"), (3, "join"), (0, "pass")))
    assert engine.to_act(state) == [1]
    state = play(state, (1, "AH"))
    assert engine.to_act(state) == [3]
    expect_illegal(state, {"seat": 2, "action": "play", "card": state["discards"][2][0]}, "not_your_turn")
    state, entry = finish_deal(state)
    assert entry["active"] == [1, 3]


# ----- options, deals, states, views -------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {"start_score": 0}, {"start_score": "10"}, {"stake": -1}, {"stake": 1.5}, {"starting_chips": "100"},
    {"starting_chips": True}, {"knocker_min": 0}, {"knocker_min": 6}, {"lone_knocker": "some"},
    {"trick_rule": "loose"}, {"max_deals": 0}, {"first_dealer": 4}, {"first_dealer": -1}, {"loaf": 5},
])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 4, options, "aa")


@pytest.mark.parametrize("players", [2, 6])
def test_player_count(players: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(GAME, players, {}, "aa")


def test_explicit_deals_are_checked() -> None:
    good = standard()
    engine.new_match(GAME, 4, {}, "aa", deals=[good])
    six = {"hands": [good["hands"][0] + [good["rest"][0]], *good["hands"][1:]], "rest": good["rest"][1:]}
    twice = {"hands": good["hands"], "rest": good["rest"][:-1] + [good["hands"][0][0]]}
    for bad in (six, twice, {"hands": good["hands"][:3], "rest": good["rest"]}, {"hands": good["hands"]},
                {"hands": good["hands"], "rest": good["rest"] + ["JK"]}):
        with pytest.raises(InvalidDeal):
            engine.new_match(GAME, 4, {}, "aa", deals=[bad])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_seeded_deal_singly_from_forehand(n: int) -> None:
    from service.engine.rng import shuffled
    state = engine.new_match(GAME, n, {"first_dealer": 1}, "beef")
    cards = shuffled(STANDARD_PACK, "beef", f"{GAME}/0")
    for k in range(5 * n):
        assert state["hands"][(2 + k) % n][k // n] == cards[k]
    assert state["hands"][1][-1] == cards[5 * n] and state["trump"] == cards[5 * n][1]
    assert state["rest"] == cards[5 * n + 1:] and len(state["rest"]) == 51 - 5 * n
    assert engine.new_match(GAME, n, {"first_dealer": 1}, "BEEF") == state
    assert engine.new_match(GAME, n, {"first_dealer": 1}, "beef0") != state


def test_void_and_redeal_use_the_next_explicit_deal() -> None:
    third = deal({1: ["AS", "KS", "QS", "JS", "TS"]}, turnup="9S")
    state = _deal_two(standard(0), third)
    assert state["hands"][1] == ROLES["hearts"]
    state = act(state, (1, "pass"), (2, "pass"), (3, "pass"), (0, "pass"))
    assert state["hands"][1] == ["AS", "KS", "QS", "JS", "TS", "9S"] and state["dealings"] == 3
    state = act(state, (2, "pass"), (3, "pass"), (0, "pass"), (1, "pass"))
    assert state["deal_no"] == 4 and state["dealings"] == 4  # from the seed now


def _mid_play() -> dict[str, Any]:
    state = _deal_two(standard(0))
    state = buy_nothing(act(state, (1, "knock"), (2, "pass"), (3, "join"), (0, "join")))
    return play(state, (1, "AH"), (3, "7D"), (0, "TC"), (1, "KH"))


def _corrupt(state: dict[str, Any], how: str) -> dict[str, Any]:
    s = engine.clone(state)
    if how == "duplicate_card":
        s["hands"][0][0] = s["hands"][1][0]
    elif how == "missing_talon_card":
        s["rest"].pop()
    elif how == "talon_to_hand":
        s["hands"][3].append(s["rest"].pop())
    elif how == "wrong_dealer":
        s["dealer"] = 2
    elif how == "pot":
        s["pot"] += 1
    elif how == "chips_moved":
        s["chips"][0] += 1
        s["chips"][1] -= 1
    elif how == "score":  # a seat at 0: the match would be over
        s["scores"][3] = 0
    elif how == "score_beyond_loaves":
        s["scores"][1] = 11
    elif how == "loaf_without_chip":
        s["loaves"][2] = 1
    elif how == "loaves_too_many":
        s["loaves"][2] = 2
        s["chips"][2] -= 2
        s["pot"] += 2
    elif how == "loaves_negative":
        s["loaves"][2] = -1
        s["chips"][2] += 1
        s["pot"] -= 1
    elif how == "loaves_missing":
        del s["loaves"]
    elif how == "old_history":
        s["history"] = []
    elif how == "passed_seat_active":
        s["declarations"][1][1] = "join"
    elif how == "lurk_later":
        s["declarations"][1][1] = "lurk"
    elif how == "two_knocks":
        s["declarations"][3][1] = "knock"
    elif how == "buys":
        s["buys"] = 1
    elif how == "trick_winner":
        s["tricks"][0]["winner"] = 3
    elif how == "out_of_turn":
        s["trick"]["plays"][0][0] = 0
    elif how == "trump":
        s["trump"] = "X"
    elif how == "phase":
        s["phase"] = "bidding"
    elif how == "phase_buy":
        s["phase"] = "buy"
    elif how == "extra_key":
        s["cheat"] = True
    elif how == "missing_key":
        del s["buys"]
    elif how == "deal_no":
        s["deal_no"] = 3
    elif how == "hand_type":
        s["hands"][0] = "AS KS"
    elif how == "options":
        s["options"]["knocker_min"] = 9
    elif how == "log_card":  # another card seat 3 held: the hands no longer follow
        s["log"][8] = "7D" if s["log"][8] != "7D" else "8D"
    elif how == "log_buy":
        s["log"][4] = [1, "buy", ["AH"]]
    elif how == "log_out_of_turn":
        s["log"][1] = [3, "pass"]
    elif how == "log_after_the_deal":
        s["log"] += ["QH", "6D", "9C", "QH"]
    elif how == "before_pot":  # conserved: the pot and the chips hold the stakes and the loaf chips
        s["before"]["pot"] += 1
        s["pot"] += 1
    elif how == "before_loaf_without_chip":
        s["before"]["loaves"][2] = 1
        s["loaves"][2] = 1
    elif how == "before_score_zero":
        s["before"]["scores"][3] = 0
    elif how == "before_deal_no":
        s["before"]["deal_no"] = 0
    elif how == "before_dealings":
        s["before"]["dealings"] = 10**9
    return s


CORRUPTIONS = ["duplicate_card", "missing_talon_card", "talon_to_hand", "wrong_dealer", "pot", "chips_moved",
               "score", "score_beyond_loaves", "loaf_without_chip", "loaves_too_many", "loaves_negative",
               "loaves_missing", "old_history", "passed_seat_active", "lurk_later",
               "two_knocks", "buys", "trick_winner", "out_of_turn", "trump", "phase",
               "phase_buy", "extra_key", "missing_key", "deal_no", "hand_type", "options", "log_card", "log_buy",
               "log_out_of_turn", "log_after_the_deal", "before_pot", "before_loaf_without_chip", "before_score_zero",
               "before_deal_no", "before_dealings"]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_forged_states_are_refused(how: str) -> None:
    state = _mid_play()
    engine.check_state(GAME, state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, _corrupt(state, how))


def test_a_lookalike_value_is_never_adjudicated() -> None:
    """JSON ``true`` equals 1 in a comparison, so a seat forged as ``true`` matches the rebuilt state; the state
    adjudicated is the rebuilt one, with the seat as a number."""
    state = _mid_play()
    forged = engine.clone(state)
    forged["declarations"][0][0] = True
    checked = engine.check_state(GAME, forged)
    assert checked == state and type(checked["declarations"][0][0]) is int


@pytest.mark.parametrize("how", ["dealer_discards_none", "match_not_over", "over_without_winner",
                                 "over_with_wrong_share", "over_extra_winner",
                                 "first_deal_score", "first_deal_loaf"])
def test_forged_buy_and_end_states_are_refused(how: str) -> None:
    if how == "dealer_discards_none":
        state = buy_nothing(act(start(standard()), (1, "knock")))
        s = engine.clone(state)
        s["hands"][0].append(s["discards"][0].pop())  # the dealer keeps six cards
    elif how.startswith("first_deal"):  # over after deal 1: the totals follow exactly from the table
        state = play_out(buy_nothing(act(start(standard(), max_deals=1, knocker_min=4), (1, "knock"))))
        assert engine.is_finished(state) and state["loaves"] == [0, 1, 0, 0]
        s = engine.clone(state)
        if how == "first_deal_score":
            s["scores"][2] = 9
        else:
            s["loaves"] = [0, 0, 1, 0]
    else:
        state = play_out(buy_nothing(act(_s7_position(), (1, "knock"), (2, "pass"), (3, "join"), (0, "join"))))
        s = engine.clone(state)
        if how == "match_not_over":
            s["phase"] = "declare"
        elif how == "over_with_wrong_share":  # the odd chip goes to seat 1, first from forehand
            s["chips"][1] -= 1
            s["chips"][3] += 1
        elif how == "over_extra_winner":
            s["scores"][2] = 0
        else:
            s["scores"] = [14, 1, 17, 0]
    engine.check_state(GAME, state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, s)


def test_a_past_trick_with_an_illegal_card_is_refused() -> None:
    state = play(_s6("QH", ["KH", "2H", "5S", "AD", "QC"], "strict"), (3, "KH"))
    state = play(state, (0, engine.legal_moves(state)[0]["card"]))
    engine.check_state(GAME, state)
    s = engine.clone(state)
    # seat 3 had to head the trick with KH; pretend it played 2H and kept KH
    s["tricks"][0]["plays"][2][1] = "2H"
    s["hands"][3][s["hands"][3].index("2H")] = "KH"
    s["tricks"][0]["winner"] = 2
    with pytest.raises(InvalidState):
        engine.check_state(GAME, s)


def test_views_hide_hands_discards_and_talon() -> None:
    state = _deal_two(standard(0))
    state = act(state, (1, "knock"), (2, "pass"), (3, "join"), (0, "join"))
    state = buy(buy(state, 1, []), 3, [])
    state = buy(state, 0, ["AC", "KC"])  # the dealer discards two and draws one
    for seat in [None, 0, 1, 2, 3]:
        view = engine.view(state, seat)
        hidden = set(state["rest"]) | {c for s in range(4) if s != seat
                                       for c in state["hands"][s] + state["discards"][s]}
        assert not leaks(view, hidden)
        assert "rest" not in view and "seed" not in view and "deals" not in view
        assert view["talon_size"] == len(state["rest"])
        assert view["discard_sizes"] == [2, 0, 5, 0]
        if seat is not None:
            assert view["hands"][seat] == state["hands"][seat] and view["discards"][seat] == state["discards"][seat]
    assert engine.view(state, 2)["discards"] == [None, None, state["discards"][2], None]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_chips_are_conserved_in_random_play(n: int) -> None:
    rng = random.Random(n)
    for seed in ("a1", "b2", "c3"):
        options = {"stake": 4, "starting_chips": 50, "knocker_min": 2}
        state = engine.new_match(GAME, n, options, seed)
        while not engine.is_finished(state):
            state, _ = engine.apply(state, rng.choice(engine.legal_moves(state)))
            assert sum(state["chips"]) + state["pot"] == n * 50
            assert all(len(h) <= 6 for h in state["hands"])
        assert state["pot"] == 0 and sum(engine.result(state)["payoffs"]) == 0


def test_illegal_moves_carry_a_sentence() -> None:
    state = _s6("QH", ["KH", "2H", "5S", "AD", "QC"], "strict")
    with pytest.raises(IllegalMove) as err:
        engine.apply(state, {"seat": 3, "action": "play", "card": "2H"})
    assert err.value.reason == "must_head_trick" and "king of hearts" in err.value.message
    with pytest.raises(IllegalMove) as err:
        engine.apply(state, {"seat": 0, "action": "play", "card": "2H"})
    assert err.value.reason == "not_your_turn" and "seat 3" in err.value.message


def test_deal_records_are_events_and_the_state_does_not_grow() -> None:
    """Each finished deal's record is its ``deal_settled`` event: replaying the records gives the running scores
    and loaves. The state keeps only the deal on the table and the totals, so its size stays flat."""
    import orjson
    options = {"start_score": 30, "knocker_min": 2}
    state = engine.new_match(GAME, 4, options, "d00d")
    rng = random.Random(7)
    scores, loaves, deals, sizes = [30] * 4, [0] * 4, 0, []
    while not engine.is_finished(state):
        state, events = engine.apply(state, rng.choice(engine.legal_moves(state)))
        for e in events:
            if e["type"] == "deal_settled":
                deals += 1
                assert e["deal"] == deals
                score_entry(scores, e)
                for s in e["loafed"]:
                    loaves[s] += 1
                assert e["scores"] == scores and state["loaves"] == loaves
                assert e["pot"] == 20 + sum(loaves)  # before a finished match shares it out
            if e["type"] == "deal_started":
                engine.check_state(GAME, state)
                sizes.append(len(orjson.dumps({k: v for k, v in state.items() if k not in ("rest", "hands")})))
    assert deals >= 20 and state["scores"] == scores
    assert max(sizes) - min(sizes) < 60  # digits of the totals and the seed's pending deals only
    res = engine.result(state)
    assert res["deals_played"] == deals and res["last_deal"]["deal"] == deals
    assert sum(res["payoffs"]) == 0
