"""Femkort: every scenario of the spec behind docs/games/femkort.md, section 9, plus options, deals and forged states."""
from __future__ import annotations

import random
from typing import Any

import pytest

from service import engine
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.cards import STANDARD_PACK

from ..playout import expect_illegal

GAME = "femkort"


def deal(hands: dict[int, list[str]], n: int) -> dict[str, Any]:
    """An explicit deal: the given hands, other seats filled from the unused cards in pack order."""
    used = {c for h in hands.values() for c in h}
    spare = [c for c in STANDARD_PACK if c not in used]
    full = []
    for s in range(n):
        if s in hands:
            full.append(list(hands[s]))
        else:
            full.append(spare[:5])
            spare = spare[5:]
    return {"hands": full, "rest": spare}


def start(hands: dict[int, list[str]], n: int = 4, **options: Any) -> dict[str, Any]:
    return engine.new_match(GAME, n, options, "5eed", deals=[deal(hands, n)])


def play(state: dict[str, Any], *moves: tuple[int, str]) -> dict[str, Any]:
    for seat, card in moves:
        state, _ = engine.apply(state, {"seat": seat, "action": "play", "card": card})
    return state


def legal_cards(state: dict[str, Any], seat: int) -> set[str]:
    return {m["card"] for m in engine.legal_moves(state, seat) if m["action"] == "play"}


# S1-S4: seat 1 (eldest of dealer 0) leads 9H; what may seat 2 play?
@pytest.mark.parametrize(("scenario", "hand", "legal", "refused"), [
    ("S1_must_head_with_one_higher_card", ["KH", "5H", "2C", "QS", "8D"], {"KH"},
     {"5H": "must_head_trick", "2C": "must_follow_suit"}),
    ("S2_choice_of_higher_cards", ["JH", "QH", "3H", "4C", "5C"], {"JH", "QH"}, {"3H": "must_head_trick"}),
    ("S3_cannot_head", ["5H", "3H", "AS", "KS", "2D"], {"3H", "5H"}, {"AS": "must_follow_suit", "KS": "must_follow_suit"}),
    ("S4_void", ["AS", "KS", "2D", "4C", "7C"], {"AS", "KS", "2D", "4C", "7C"}, {}),
])
def test_S1_to_S4_heading_the_trick(scenario: str, hand: list[str], legal: set[str], refused: dict[str, str]) -> None:
    state = start({1: ["9H", "2S", "3S", "4S", "6S"], 2: hand})
    state = play(state, (1, "9H"))
    assert legal_cards(state, 2) == legal
    assert engine.to_act(state) == [2]
    for card, reason in refused.items():
        expect_illegal(state, {"seat": 2, "action": "play", "card": card}, reason)


def _trick_two(seat2: list[str]) -> dict[str, Any]:
    """Seat 0 wins trick 1 with AH, leads 5S to trick 2, and seat 1 plays QS."""
    state = start({0: ["AH", "5S", "2C", "3C", "4C"], 1: ["2H", "QS", "5C", "7C", "8C"],
                   2: ["3H", *seat2], 3: ["4H", "TC", "JC", "QC", "KC"]})
    state = play(state, (1, "2H"), (2, "3H"), (3, "4H"), (0, "AH"))
    assert state["tricks"][0]["winner"] == 0
    return play(state, (0, "5S"), (1, "QS"))


@pytest.mark.parametrize(("seat2", "legal"), [
    (["9S", "KS", "2D", "6C"], {"KS"}),
    (["9S", "7S", "AD", "6C"], {"7S", "9S"}),
])
def test_S5_the_bar_is_the_best_card_so_far(seat2: list[str], legal: set[str]) -> None:
    state = _trick_two(seat2)
    assert legal_cards(state, 2) == legal
    if "9S" not in legal:
        expect_illegal(state, {"seat": 2, "action": "play", "card": "9S"}, "must_head_trick")


def test_S6_off_suit_cards_do_not_raise_the_bar() -> None:
    state = start({0: ["5S", "2C", "4C", "5C", "7C"], 1: ["AH", "2H", "3H", "4H", "5H"],
                   2: ["6S", "2S", "KH", "3C", "4D"]}, first_dealer=3)
    state = play(state, (0, "5S"), (1, "AH"))
    assert legal_cards(state, 2) == {"6S"}
    expect_illegal(state, {"seat": 2, "action": "play", "card": "2S"}, "must_head_trick")


def test_S7_the_last_trick_decides_the_pot() -> None:
    hands = {0: ["2C", "3C", "4C", "5C", "9D"], 1: ["6C", "7C", "8C", "TC", "AS"], 2: ["JC", "QC", "KC", "AC", "4D"]}
    state = start(hands, n=3)
    assert state["pot"] == 3
    state = play(state, (1, "6C"), (2, "JC"), (0, "2C"), (2, "QC"), (0, "3C"), (1, "7C"),
                 (2, "KC"), (0, "4C"), (1, "8C"), (2, "AC"), (0, "5C"), (1, "TC"))
    assert [t["winner"] for t in state["tricks"]] == [2, 2, 2, 2]
    assert legal_cards(state, 0) == set() and engine.to_act(state) == [2]
    state, _ = engine.apply(state, {"seat": 2, "action": "play", "card": "4D"})
    state, _ = engine.apply(state, {"seat": 0, "action": "play", "card": "9D"})
    state, events = engine.apply(state, {"seat": 1, "action": "play", "card": "AS"})
    assert engine.is_finished(state)
    assert {"type": "deal_settled", "deal": 1, "dealer": 0, "winner": 0, "changes": [2, -1, -1], "unit": "chips",
            "pot": 0} in events
    assert events[-1] == {"type": "match_over"}
    res = engine.result(state)
    assert res["scores"] == [1, 0, 0]
    assert res["payoffs"] == [2, -1, -1]
    assert res["ranking"] == [0, 1, 2]
    assert set(res) == {"scores", "payoffs", "ranking"}  # per-deal outcomes are in the events, not the state
    assert engine.legal_moves(state) == [] and engine.to_act(state) == []
    expect_illegal(state, {"seat": 0, "action": "play", "card": "9D"}, "match_over")


def _s8_position() -> dict[str, Any]:
    """4 players, better cards on, seat 2 won trick 1 and led trick 2; seat 3 is on turn."""
    state = start({0: ["4H", "5C", "6C", "7C", "8C"], 1: ["2H", "9C", "TC", "JC", "QC"],
                   2: ["AH", "2S", "KC", "AC", "2D"], 3: ["3H", "3S", "4S", "5S", "6S"]}, better_cards=True)
    state = play(state, (1, "2H"), (2, "AH"), (3, "3H"), (0, "4H"), (2, "2S"))
    assert state["pot"] == 4 and state["tricks"][0]["winner"] == 2
    return state


def test_S8_better_cards_accepted() -> None:
    state = _s8_position()
    assert engine.to_act(state) == [0, 1, 2, 3]
    moves = engine.legal_moves(state)
    calls = sorted(m["seat"] for m in moves if m["action"] == "call_better_cards")
    assert calls == [0, 1, 2, 3]
    assert {m["card"] for m in moves if m["action"] == "play"} == {"3S", "4S", "5S", "6S"}
    assert all(m["seat"] == 3 for m in moves if m["action"] == "play")
    state, events = engine.apply(state, {"seat": 1, "action": "call_better_cards"})
    assert engine.to_act(state) == [2]
    assert engine.legal_moves(state) == [{"seat": 2, "action": "accept_better_cards"},
                                         {"seat": 2, "action": "refuse_better_cards"}]
    expect_illegal(state, {"seat": 3, "action": "play", "card": "3S"}, "call_pending")
    expect_illegal(state, {"seat": 0, "action": "accept_better_cards"}, "not_your_turn")
    old_hands = state["hands"]
    for seat in (2, 3, 0):
        state, events = engine.apply(state, {"seat": seat, "action": "accept_better_cards"})
    assert {"type": "redealt", "deal": 1, "dealer": 0, "reason": "better_cards"} in events
    assert state["pot"] == 4 and state["paid"] == [1, 1, 1, 1]
    assert state["deal_no"] == 1 and state["dealer"] == 0
    assert state["tricks"] == [] and state["trick"] == {"plays": []}
    assert state["hands"] != old_hands and all(len(h) == 5 for h in state["hands"])
    assert engine.to_act(state) == [0, 1, 2, 3]
    assert {m["seat"] for m in engine.legal_moves(state) if m["action"] == "play"} == {1}
    assert sorted(m["seat"] for m in engine.legal_moves(state) if m["action"] == "call_better_cards") == [0, 1, 2, 3]


def test_S9_better_cards_refused() -> None:
    state = _s8_position()
    hands = state["hands"]
    state, _ = engine.apply(state, {"seat": 1, "action": "call_better_cards"})
    state, _ = engine.apply(state, {"seat": 2, "action": "accept_better_cards"})
    state, _ = engine.apply(state, {"seat": 3, "action": "refuse_better_cards"})
    assert state["call"] is None and state["hands"] == hands
    assert engine.to_act(state) == [0, 2, 3]
    assert {m["seat"] for m in engine.legal_moves(state) if m["action"] == "play"} == {3}
    expect_illegal(state, {"seat": 1, "action": "call_better_cards"}, "already_called")
    for seat in (0, 2, 3):
        engine.apply(state, {"seat": seat, "action": "call_better_cards"})
    # play on to the first card of trick 5: then every call is too late
    rng = random.Random(3)
    while len(state["tricks"]) < 4 or not state["trick"]["plays"]:
        plays = [m for m in engine.legal_moves(state) if m["action"] == "play"]
        state, _ = engine.apply(state, rng.choice(plays))
    for seat in range(4):
        expect_illegal(state, {"seat": seat, "action": "call_better_cards"}, "too_late")


def test_better_cards_needs_the_variant() -> None:
    state = engine.new_match(GAME, 4, {}, "aa")
    expect_illegal(state, {"seat": 2, "action": "call_better_cards"}, "variant_not_enabled")
    assert all(m["action"] == "play" for m in engine.legal_moves(state))


def _play_deal_won_by(state: dict[str, Any], winner: int, rng: random.Random,
                      won: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Search the current deal for a line of legal play whose last trick ``winner`` takes; the deal's
    ``deal_settled`` event is appended to ``won``."""
    deal_no = state["deal_no"]

    def search(s: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any] | None:
        if engine.is_finished(s) or s["deal_no"] != deal_no:
            event = next(e for e in events if e["type"] == "deal_settled")
            if event["winner"] != winner:
                return None
            if won is not None:
                won.append(event)
            return s
        moves = [m for m in engine.legal_moves(s) if m["action"] == "play"]
        rng.shuffle(moves)
        for m in moves:
            found = search(*engine.apply(s, m))
            if found is not None:
                return found
        return None

    found = search(state, [])
    assert found is not None, f"no line of play lets seat {winner} win this deal"
    return found


def test_S10_first_to_two_with_an_ante_each_deal() -> None:
    rng = random.Random(10)
    state = engine.new_match(GAME, 3, {"match": "first_to", "target_wins": 2}, "10")
    assert (state["dealer"], state["pot"]) == (0, 3)
    won: list[dict[str, Any]] = []
    state = _play_deal_won_by(state, 2, rng, won)
    assert state["wins"] == [0, 0, 1] and (state["dealer"], state["pot"]) == (1, 6)
    assert engine.legal_moves(state)[0]["seat"] == 2  # eldest of dealer 1 leads
    state = _play_deal_won_by(state, 0, rng, won)
    assert state["wins"] == [1, 0, 1] and (state["dealer"], state["pot"]) == (2, 9)
    assert engine.legal_moves(state)[0]["seat"] == 0
    state = _play_deal_won_by(state, 2, rng, won)
    assert engine.is_finished(state)
    res = engine.result(state)
    assert res["scores"] == [1, 0, 2]
    assert res["payoffs"] == [-3, -3, 6]
    assert res["ranking"] == [2, 0, 1]
    # antes pile up in one pot: each deal costs everyone an ante, and only the champion's last deal pays out
    assert [(d["deal"], d["dealer"], d["winner"], d["changes"], d["pot"]) for d in won] == [
        (1, 0, 2, [-1, -1, -1], 3), (2, 1, 0, [-1, -1, -1], 6), (3, 2, 2, [-1, -1, 8], 0)]


def test_S11_rotation_and_redeal_by_the_same_dealer() -> None:
    rng = random.Random(11)
    state = engine.new_match(GAME, 5, {"deals": 3, "first_dealer": 4, "better_cards": True}, "11")
    dealers, eldest, won = [], [], []
    while not engine.is_finished(state):
        if not state["tricks"] and not state["trick"]["plays"] and (not dealers or dealers[-1] != state["dealer"]):
            dealers.append(state["dealer"])
            eldest.append(next(m["seat"] for m in engine.legal_moves(state) if m["action"] == "play"))
            if state["deal_no"] == 2:  # an accepted redeal in deal 2 keeps dealer 0
                state, _ = engine.apply(state, {"seat": 3, "action": "call_better_cards"})
                for seat in (4, 0, 1, 2):
                    state, _ = engine.apply(state, {"seat": seat, "action": "accept_better_cards"})
                assert (state["deal_no"], state["dealer"], state["pot"]) == (2, 0, 5)
        plays = [m for m in engine.legal_moves(state) if m["action"] == "play"]
        state, events = engine.apply(state, rng.choice(plays))
        won += [e for e in events if e["type"] == "deal_settled"]
    assert dealers == [4, 0, 1] and eldest == [0, 1, 2]
    assert [(d["deal"], d["dealer"]) for d in won] == [(1, 4), (2, 0), (3, 1)]


def test_seeded_deal_packets_of_two_then_three() -> None:
    from service.engine.rng import shuffled
    state = engine.new_match(GAME, 3, {"first_dealer": 1}, "beef")
    cards = shuffled(STANDARD_PACK, "beef", "femkort/0")
    # eldest is seat 2: it gets cards 0-1 and 6-8
    assert state["hands"][2] == cards[0:2] + cards[6:9]
    assert state["hands"][0] == cards[2:4] + cards[9:12]
    assert state["hands"][1] == cards[4:6] + cards[12:15]
    assert "rest" not in state  # the undealt cards play no part in Femkort and are not kept
    assert engine.new_match(GAME, 3, {"first_dealer": 1}, "BEEF") == state


@pytest.mark.parametrize("options", [
    {"ante": 0}, {"ante": 1001}, {"ante": "1"}, {"match": "best_of"}, {"deals": 0}, {"target_wins": 101},
    {"better_cards": "yes"}, {"first_dealer": 4}, {"first_dealer": -1}, {"colour": "red"}, {"ante": True},
])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        engine.new_match(GAME, 4, options, "aa")


@pytest.mark.parametrize("players", [1, 11, 0])
def test_player_count(players: int) -> None:
    with pytest.raises(engine.InvalidRequest):
        engine.new_match(GAME, players, {}, "aa")


def test_explicit_deals_are_checked() -> None:
    good = deal({}, 4)
    engine.new_match(GAME, 4, {}, "aa", deals=[good])
    short = {"hands": [h[:4] for h in good["hands"]], "rest": good["rest"] + [h[4] for h in good["hands"]]}
    twice = {"hands": good["hands"], "rest": good["rest"][:-1] + [good["hands"][0][0]]}
    for bad in (short, twice, {"hands": good["hands"][:3], "rest": good["rest"]}, {"hands": good["hands"]}):
        with pytest.raises(InvalidDeal):
            engine.new_match(GAME, 4, {}, "aa", deals=[bad])


def test_deals_list_covers_redeals_then_the_seed() -> None:
    first, second = deal({}, 3), deal({0: ["AS", "KS", "QS", "JS", "TS"]}, 3)
    state = engine.new_match(GAME, 3, {"better_cards": True}, "aa", deals=[first, second])
    assert state["hands"] == first["hands"]
    state, _ = engine.apply(state, {"seat": 0, "action": "call_better_cards"})
    state, _ = engine.apply(state, {"seat": 1, "action": "accept_better_cards"})
    state, _ = engine.apply(state, {"seat": 2, "action": "accept_better_cards"})
    assert state["hands"] == second["hands"] and state["dealings"] == 2


def _corrupt(state: dict[str, Any], how: str) -> dict[str, Any]:
    s = engine.clone(state)
    if how == "duplicate_card":
        s["hands"][0][0] = s["hands"][1][0]
    elif how == "wrong_dealer":
        s["dealer"] = (s["dealer"] + 1) % s["players"]
    elif how == "pot":
        s["pot"] += 1
    elif how == "wins":
        s["wins"][0] += 1
    elif how == "illegal_past_play":
        # swap a heading card of the played trick for a lower one from the same hand
        s["tricks"] = []
    elif how == "phase":
        s["phase"] = "bidding"
    elif how == "options":
        s["options"]["ante"] = -3
    elif how == "extra_key":
        s["cheat"] = True
    elif how == "call_without_variant":
        s["call"] = {"caller": 0, "answers": []}
    elif how == "seed":
        s["seed"] = "not hex"
    elif how == "hand_type":
        s["hands"][0] = "AS KS"
    return s


@pytest.mark.parametrize("how", ["duplicate_card", "wrong_dealer", "pot", "wins", "illegal_past_play",
                                 "phase", "options", "extra_key", "call_without_variant", "seed", "hand_type"])
def test_forged_states_are_refused(how: str) -> None:
    state = _trick_two(["9S", "KS", "2D", "6C"])
    engine.check_state(GAME, state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, _corrupt(state, how))


def test_a_past_trick_with_an_illegal_card_is_refused() -> None:
    state = _trick_two(["9S", "KS", "2D", "6C"])
    s = engine.clone(state)
    # seat 2 held 3H and played it; pretend it played 6C instead (a revoke) and kept 3H
    plays = s["tricks"][0]["plays"]
    plays[1][1] = "6C"
    s["hands"][2].remove("6C")
    s["hands"][2].append("3H")
    with pytest.raises(InvalidState):
        engine.check_state(GAME, s)


def test_views_show_played_cards_but_no_other_hand() -> None:
    state = _trick_two(["9S", "KS", "2D", "6C"])
    view = engine.view(state, 2)
    assert view["hands"][2] == state["hands"][2]
    assert view["hands"][0] is None and view["hand_sizes"] == [3, 3, 4, 4]
    assert "rest" not in view and "seed" not in view
    assert view["trick"]["plays"] == [[0, "5S"], [1, "QS"]]
    assert engine.view(state, None)["hands"] == [None, None, None, None]


def test_illegal_moves_carry_a_sentence() -> None:
    state = start({1: ["9H", "2S", "3S", "4S", "6S"], 2: ["KH", "5H", "2C", "QS", "8D"]})
    state = play(state, (1, "9H"))
    with pytest.raises(IllegalMove) as err:
        engine.apply(state, {"seat": 2, "action": "play", "card": "2C"})
    assert err.value.reason == "must_follow_suit"
    assert "hearts" in err.value.message
    with pytest.raises(IllegalMove) as err:
        engine.apply(state, {"seat": 2, "action": "play", "card": "AS"})
    assert err.value.reason == "card_not_in_hand"


def _finished_match(**options: Any) -> dict[str, Any]:
    rng = random.Random(4)
    state = engine.new_match(GAME, 3, options, "f1")
    while not engine.is_finished(state):
        state, _ = engine.apply(state, rng.choice(engine.legal_moves(state)))
    return state


@pytest.mark.parametrize(("options", "corrupt"), [
    ({"deals": 3}, lambda s: s["taken"].__setitem__(0, s["taken"][0] + 3)),
    ({"deals": 3}, lambda s: s["wins"].__setitem__(0, s["wins"][0] + 1)),
    ({"deals": 3}, lambda s: s["paid"].__setitem__(2, 2)),
    ({"deals": 3}, lambda s: s.__setitem__("pot", 1)),
    ({"deals": 3}, lambda s: s.__setitem__("deal_no", 2)),
    ({"match": "first_to", "target_wins": 2}, lambda s: s["tricks"][-1].__setitem__("winner", 5)),
    ({"match": "first_to", "target_wins": 2}, lambda s: s["taken"].__setitem__(s["taken"].index(0), 1)),
    ({"match": "first_to", "target_wins": 2}, lambda s: s.__setitem__("phase", "play")),
    ({"deals": 3}, lambda s: s.__setitem__("history", [])),
])
def test_forged_totals_of_a_finished_match_are_refused(options: dict[str, Any], corrupt: Any) -> None:
    state = _finished_match(**options)
    engine.check_state(GAME, state)
    assert "history" not in state and "deals" not in engine.result(state)
    corrupt(state)
    with pytest.raises(InvalidState):
        engine.check_state(GAME, state)


def test_wins_moved_off_the_champion_in_a_finished_first_to_match_are_refused() -> None:
    """The champion is the winner of the deal still on the table, with exactly the target."""
    state = _finished_match(match="first_to", target_wins=2)
    champion = state["tricks"][-1]["winner"]
    assert state["wins"][champion] == 2
    forged = engine.clone(state)
    forged["wins"][champion] -= 1
    forged["wins"][(champion + 1) % 3] += 1
    with pytest.raises(InvalidState):
        engine.check_state(GAME, forged)


@pytest.mark.parametrize("options", [
    {"ante": True}, {"ante": 1.0}, {"ante": "1"}, {"better_cards": 0}, {"colour": "red"}, None, [],
])
def test_state_options_not_in_normal_form_are_refused_every_time(options: Any) -> None:
    """The check of a state's options is memoised; odd values must still be refused, each time alike."""
    state = engine.new_match(GAME, 4, {}, "aa")
    engine.check_state(GAME, state)
    engine.check_state(GAME, engine.clone(state))  # now remembered
    forged = engine.clone(state)
    if isinstance(options, dict):
        forged["options"].update(options)
    else:
        forged["options"] = options
    messages = set()
    for _ in range(2):
        with pytest.raises(InvalidState) as err:
            engine.check_state(GAME, forged)
        messages.add(err.value.message)
    assert len(messages) == 1
