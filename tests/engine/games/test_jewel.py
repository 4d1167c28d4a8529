"""Jewel as a game (docs/games/jewel.md; spec): the deal, turns, packing, declarations, the re-made stock, settlement.

The hand searches themselves are tested in test_jewel_melds.py; here every scenario of the spec is played move by
move through the engine (and the seed's nine-player example through the HTTP API).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from service import engine
from service.app import create_app
from service.config import Config
from service.engine import IllegalMove, InvalidDeal, InvalidOptions, InvalidState
from service.engine.games.jewel_melds import JEWEL_PACK, sort_canonical
from service.engine.rng import shuffled

from ..playout import expect_illegal, hidden_after
from .test_jewel_melds import SEED_CHART, SEED_HANDS, SEED_NETS

State = dict[str, Any]


def cards(text: str) -> list[str]:
    return text.split()


def build_deal(n: int, open_card: str, hands: dict[int, list[str]], stock_top: list[str] = ()) -> dict[str, Any]:
    """An explicit deal: the given (partial) hands filled up from the unused cards in canonical order, then the
    stock: ``stock_top`` first, the other unused cards after it."""
    left = Counter(JEWEL_PACK)
    left.subtract([open_card, *stock_top, *(c for h in hands.values() for c in h)])
    assert not -left, f"more copies than the pack holds: {sorted((-left).elements())}"
    spare = sort_canonical(left.elements())
    full = []
    for seat in range(n):
        hand = list(hands.get(seat, []))
        while len(hand) < 16:
            hand.append(spare.pop(0))
        full.append(hand)
    return {"hands": full, "rest": [open_card, *stock_top, *spare]}


def start(n: int, open_card: str, hands: dict[int, list[str]], stock_top: list[str] = (), **options: Any) -> State:
    return engine.new_match("jewel", n, options, "5eed", [build_deal(n, open_card, hands, stock_top)])


def do(state: State, seat: int, action: str, **params: Any) -> tuple[State, list[dict[str, Any]]]:
    return engine.apply(state, {"seat": seat, "action": action, **params})


def draw_and_discard(state: State, seat: int) -> State:
    """The seat draws the stock's top card and discards it again: his hand stays as dealt."""
    state, _ = do(state, seat, "draw", source="stock")
    state, _ = do(state, seat, "discard", card=state["hands"][seat][-1])
    return state


def moves_of(state: State, action: str) -> list[dict[str, Any]]:
    return [m for m in engine.legal_moves(state) if m["action"] == action]


def settled(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "deal_settled")


# --- the deal (spec 3) -------------------------------------------------------------------------------------------

def test_seeded_deal_takes_the_open_card_from_index_81_and_deals_from_the_dealers_left() -> None:
    state = engine.new_match("jewel", 3, {"first_dealer": 1}, "abc")
    pack = shuffled(JEWEL_PACK, "abc", "jewel/0")
    at = next(i % 162 for i in range(81, 81 + 162) if pack[i % 162] != "JK")
    assert state["open_card"] == pack[at]
    rest = pack[:at] + pack[at + 1:]
    assert state["hands"][2][:2] == [rest[0], rest[3]] and state["hands"][0][0] == rest[1]
    assert state["stock"] == rest[48:] and len(state["stock"]) == 162 - 1 - 48
    assert state["discard"] == [] and state["turn"] == 2 and state["phase"] == "draw"


def test_explicit_deal_shape_is_checked() -> None:
    deal = build_deal(2, "7D", {})
    rest = deal["rest"]
    joker = rest.index("JK")
    rest[0], rest[joker] = rest[joker], rest[0]
    with pytest.raises(InvalidDeal):
        engine.new_match("jewel", 2, {}, "1", [deal])
    deal = build_deal(2, "7D", {})
    with pytest.raises(InvalidDeal):
        engine.new_match("jewel", 2, {}, "1", [{"hands": [deal["hands"][0][:15], deal["hands"][1]],
                                                 "rest": [*deal["rest"], deal["hands"][0][15]]}])
    with pytest.raises(InvalidOptions):
        engine.new_match("jewel", 9, {"rounds": 2}, "1")


# --- S3: the first turn ------------------------------------------------------------------------------------------

S3_HAND = cards("5H 5H 5D 2C 3C 4C 6C 7C 8C 9C TC JC QC KC AC 2D")


def test_S3_first_turn_pack_choices_and_no_declaration() -> None:
    state = start(4, "5S", {0: S3_HAND}, first_dealer=3)
    assert engine.legal_moves(state) == [
        {"seat": 0, "action": "draw", "source": "stock"},
        *({"seat": 0, "action": "pack", "jewels": j} for j in ([], ["5D"], ["5H"], ["5D", "5H"], ["5H", "5H"]))]
    packed, events = do(state, 0, "pack")
    assert packed["kept"][0] == ["5H", "5H"] and events[0] == {"type": "pack", "seat": 0, "jewels": ["5H", "5H"]}
    assert packed["stock"][-14:] == sort_canonical(c for c in S3_HAND if c not in ("5H",))
    drawn, _ = do(state, 0, "draw", source="stock")
    assert moves_of(drawn, "declare") == [] and len(moves_of(drawn, "discard")) == len(set(drawn["hands"][0]))
    expect_illegal(drawn, {"seat": 0, "action": "declare", "card": "5H"}, "declare_first_round")


def test_S3_the_dealer_may_declare_on_his_first_turn() -> None:
    state = start(4, "5S", {}, first_dealer=3)
    for seat in (0, 1, 2):
        state = draw_and_discard(state, seat)
    state, _ = do(state, 3, "draw", source="stock")
    assert {m["card"] for m in moves_of(state, "declare")} == set(state["hands"][3])


# --- S4: jokers and jewels on the pile, mid-pack timing ---------------------------------------------------------

def test_S4_wild_cards_on_the_pile_and_mid_pack_timing() -> None:
    state = start(3, "9H", {0: ["9S", "JK"], 1: ["4D"]})
    state = draw_and_discard(state, 1)
    state = draw_and_discard(state, 2)
    state, _ = do(state, 0, "draw", source="stock")
    state, _ = do(state, 0, "discard", card="9S")
    assert engine.legal_moves(state) == [{"seat": 1, "action": "draw", "source": "stock"}]
    expect_illegal(state, {"seat": 1, "action": "draw", "source": "discard"}, "wild_card_not_takeable")
    expect_illegal(state, {"seat": 1, "action": "pack"}, "pack_only_first_turn")
    expect_illegal(state, {"seat": 1, "action": "mid_pack", "jewels": []}, "mid_pack_too_early")
    state, _ = do(state, 1, "draw", source="stock")
    state, _ = do(state, 1, "discard", card="4D")
    assert [m["source"] for m in moves_of(state, "draw")] == ["stock", "discard"] and not moves_of(state, "pack")
    state = draw_and_discard(state, 2)
    state, _ = do(state, 0, "draw", source="stock")
    state, _ = do(state, 0, "discard", card="JK")
    assert moves_of(state, "mid_pack")                        # seat 1's third turn
    expect_illegal(state, {"seat": 1, "action": "draw", "source": "discard"}, "wild_card_not_takeable")


# --- refusals, in the spec's order (4.5) ---------------------------------------------------------------------------

def test_refusal_reasons_in_order() -> None:
    state = start(3, "9H", {1: ["9C", "9C", "9S", "KD"]})
    expect_illegal(state, {"seat": 1, "action": "shuffle"}, "unknown_action")
    expect_illegal(state, {"seat": 7, "action": "draw", "source": "stock"}, "invalid_parameters")
    expect_illegal(state, {"seat": 2, "action": "draw", "source": "nowhere"}, "not_your_turn")
    for bad in ({"source": "nowhere"}, {}, {"source": 1}):
        expect_illegal(state, {"seat": 1, "action": "draw", **bad}, "invalid_parameters")
    for bad in (None, "9C", [1]):
        expect_illegal(state, {"seat": 1, "action": "pack", "jewels": bad}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "discard", "card": "KD"}, "must_draw_first")
    expect_illegal(state, {"seat": 1, "action": "declare", "card": "KD"}, "must_draw_first")
    expect_illegal(state, {"seat": 1, "action": "draw", "source": "discard"}, "discard_pile_empty")
    expect_illegal(state, {"seat": 1, "action": "mid_pack", "jewels": []}, "mid_pack_too_early")
    # R-J1: a string that is no card code of the packs is a bad parameter, before the jewels' own reasons
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["XX", "9C", "9C"]}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["XX"]}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["ZZ"]}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["ah"]}, "invalid_parameters")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["KD", "9C", "9C"]}, "too_many_jewels")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["KD"]}, "not_a_jewel")
    expect_illegal(state, {"seat": 1, "action": "pack", "jewels": ["9S", "9S"]}, "card_not_in_hand")
    drawn, _ = do(state, 1, "draw", source="stock")
    expect_illegal(drawn, {"seat": 1, "action": "draw", "source": "stock"}, "already_drawn")
    expect_illegal(drawn, {"seat": 1, "action": "pack"}, "already_drawn")
    expect_illegal(drawn, {"seat": 1, "action": "discard", "card": "AS"}, "card_not_in_hand")
    expect_illegal(drawn, {"seat": 1, "action": "declare", "card": "AS"}, "card_not_in_hand")
    expect_illegal(drawn, {"seat": 1, "action": "declare", "card": "KD"}, "declare_first_round")


def test_invalid_declaration_is_refused_under_reject() -> None:
    state = start(2, "AS", {0: SEED_HANDS["B"]}, ["2C", "2D"], wrong_declaration="reject")
    state = draw_and_discard(state, 1)
    state, _ = do(state, 0, "draw", source="stock")                    # the dealer, on his first turn
    assert moves_of(state, "declare") == []
    expect_illegal(state, {"seat": 0, "action": "declare", "card": "2D"}, "invalid_declaration")


# --- S2: which discards declare --------------------------------------------------------------------------------

S2_HAND = cards("5H 6H 7H 8H KS AS 2S QC KC AH 3C 3D 3S 9C 9D JK")
S2_VALID = ["3C", "9C", "3D", "9D", "AH", "2S", "3S", "JK"]


@pytest.mark.parametrize("rule", ["penalize", "reject"])
def test_S2_valid_declarations_in_the_view_and_the_moves(rule: str) -> None:
    state = start(2, "AS", {1: S2_HAND}, ["2C", "2D", "JC"], wrong_declaration=rule)
    assert engine.view(state, 1)["valid_declarations"] == []
    state, _ = do(state, 1, "draw", source="stock")
    assert engine.view(state, 1)["valid_declarations"] == []           # his first turn: he may not declare
    state, _ = do(state, 1, "discard", card="2C")
    state = draw_and_discard(state, 0)
    state, _ = do(state, 1, "draw", source="stock")
    assert state["hands"][1][-1] == "JC"
    assert engine.view(state, 1)["valid_declarations"] == S2_VALID == engine.envelope_extras(state)["valid_declarations"]
    assert engine.view(state, 0)["valid_declarations"] == engine.view(state, None)["valid_declarations"] == []
    declares = [m["card"] for m in moves_of(state, "declare")]
    assert declares == (S2_VALID if rule == "reject" else sort_canonical(set(state["hands"][1])))


# --- S5, S6: a non-declarer's best arrangement, scored at the end of a deal ------------------------------------

@pytest.mark.parametrize(("open_card", "declarer", "other", "scored"), [
    ("AS", "5H 6H 7H 8H KS AS 2S QC KC JK 3C 4C 5C 9D 9S 9C",       # S5: the full hand beats the compulsory run
     "JS QS KS AS 2S JH JH KH KH JD JD KD QC QC 5C 9H", (4, 12, -8, True)),
    ("4C", "JC QC KC AC 5H 6H 7H 9S 9D 9H JK JK JK TS TD TH",       # S6: the count is rounded down on the total
     "2S 3S 4S 5S 6H 7H 8H KD KH KC AS 2D 9C 7S 3H TD", (0, 3, -3, False)),
])
def test_S5_S6_non_declarer_is_scored_at_his_best(open_card: str, declarer: str, other: str,
                                                  scored: tuple[int, int, int, bool]) -> None:
    state = start(2, open_card, {0: cards(declarer), 1: cards(other)})
    state = draw_and_discard(state, 1)
    state, _ = do(state, 0, "draw", source="stock")                    # the dealer may declare on his first turn
    state, events = do(state, 0, "declare", card=state["hands"][0][-1])
    seat = settled(events)["seats"][1]
    assert (seat["bonus"], seat["penalty"], seat["s"], seat["arrangement"]["full_hand"]) == scored


# --- S7: four players, a packer, a valid declaration ------------------------------------------------------------

S7_HANDS = {
    0: cards("7H 8H 9H TH 4S 4S 4S 5D 5H 7C AS KD 2H 3D 9D JC"),
    1: cards("7S"),
    2: cards("2C 3C 4C 5C 6D 7D 8D QH KH JK 9S 9H 9C JS QS KS"),
    3: cards("7S 7S 7C 7C QC QC QC 2D 4D 6H 8S TC JD AH 3S 9C"),
}


def test_S7_four_player_settlement_with_a_packer() -> None:
    state = start(4, "7D", S7_HANDS, ["2S"], first_dealer=2)
    state = draw_and_discard(state, 3)
    state = draw_and_discard(state, 0)
    state, _ = do(state, 1, "pack", jewels=["7S"])
    state, _ = do(state, 2, "draw", source="stock")
    drawn = state["hands"][2][-1]
    state, events = do(state, 2, "declare", card=drawn)
    assert events[0] == {"type": "declare", "seat": 2, "valid": True}
    record = settled(events)
    assert record["end"] == "declaration" and record["declarer"] == 2 and record["unit"] == "points"
    assert record["matrix"] == [[0, 0, -7, 0], [0, 0, -2, -8], [7, 2, 0, 7], [0, 8, -7, 0]]
    assert record["changes"] == [-7, -10, 16, 1]
    assert [(s.get("j"), s.get("s"), s.get("q")) for s in record["seats"]] == [(2, -2, None), (2, None, 4),
                                                                                (0, 7, None), (10, -10, None)]
    assert state["scores"] == [-7, -10, 16, 1] and state["deal_no"] == 2


# --- S8: a wrong declaration, then a valid one -----------------------------------------------------------------

S8_WRONG = cards("2D 3D 4D JK QD KD AD 7C 7C 7C 5S 5H 5C JS JH 9C")
S8_HANDS = {0: cards("JC QC KC AC QD KD JK 5D 6D 7D 2H 3S 4C 6C 8C TS"),
            1: cards("6S 7S 8S 8H 9H TH KS KH KC 3H 4H JK 2C 2S 9C 9S"), 2: S8_WRONG}


def test_S8_wrong_declaration_then_a_valid_one() -> None:
    stock = cards("2C 3C 4C 5C 6C 8C 8C") + ["9S"] + ["TC", "JD"]
    state = start(3, "9H", S8_HANDS, stock)
    for seat in (1, 2, 0, 1, 2, 0, 1):
        state = draw_and_discard(state, seat)
    state, _ = do(state, 2, "draw", source="stock")
    state, events = do(state, 2, "declare", card="9S")
    assert events == [{"type": "declare", "seat": 2, "valid": False, "card": "9S", "hand": S8_WRONG}]
    assert state["status"][2] == "wrong" and state["exposed"][2] == S8_WRONG and state["hands"][2] == []
    assert state["discard"][-1] == "9S" and state["turns_completed"][2] == 2
    assert engine.view(state, 0)["exposed"][2] == S8_WRONG
    assert engine.legal_moves(state) == [{"seat": 0, "action": "draw", "source": "stock"},
                                         *({"seat": 0, "action": "mid_pack", "jewels": j} for j in ([],))]
    state = draw_and_discard(state, 0)
    state, _ = do(state, 1, "draw", source="stock")
    state, events = do(state, 1, "declare", card="JD")
    record = settled(events)
    assert record["matrix"] == [[0, -8, 8], [8, 0, 16], [-8, -16, 0]] and record["changes"] == [0, 24, -24]
    assert [(s["j"], s["bonus"], s["s"]) for s in record["seats"]] == [(0, 3, 0), (4, 4, 4), (2, 2, -10)]


# --- S9: the re-made stock and a deal without declaration ------------------------------------------------------

S9_HANDS = {0: cards("4H"), 1: cards("2S 3S 4S 5S 6H 7H 8H KD KH KC AS 2D 9C 7S 3H TD"),
            2: cards("4D 4D 2C 5C 8C JC 3D 6D 9D QD 2H 5H 9H QH 6S 9S")}


def test_S9_stock_remade_then_exhausted_without_declaration() -> None:
    state = start(3, "4C", S9_HANDS, first_dealer=1)
    state = draw_and_discard(state, 2)
    state, _ = do(state, 0, "pack", jewels=["4H"])
    seat = 1
    while len(state["stock"]) > 1:
        state = draw_and_discard(state, seat)
        seat = 3 - seat
    assert seat == 1
    pile = list(state["discard"])
    state, _ = do(state, 1, "draw", source="stock")
    last = state["hands"][1][-1]
    state, events = do(state, 1, "discard", card=last)
    assert state["stock_no"] == 2 and state["discard"] == [last]
    assert state["stock"] == shuffled(pile, "5eed", "jewel/0/remake")
    assert events[-1] == {"type": "stock_remade", "stock_size": len(pile), "discard": last}
    seat = 2
    while True:
        state, events = do(state, seat, "draw", source="stock")
        state, events = do(state, seat, "discard", card=state["hands"][seat][-1])
        if state["deal_no"] == 2:
            break
        seat = 3 - seat
    assert seat == 2
    record = settled(events)
    assert record["end"] == "stock_exhausted" and record["declarer"] is None
    assert record["changes"] == [-1, 2, -1] and record["matrix"] == [[0, 2, -3], [-2, 0, 4], [3, -4, 0]]


def test_duplicate_tables_remake_the_same_stock() -> None:
    """The same deal and seed re-make the same second stock; another seed another one."""
    def remade(seed: str) -> list[str]:
        state = engine.new_match("jewel", 2, {}, seed, [build_deal(2, "4C", {})])
        seat = 1
        while state["stock_no"] == 1:
            state = draw_and_discard(state, seat)
            seat = 1 - seat
        return list(state["stock"])
    assert remade("aa") == remade("aa") != remade("bb")


# --- the other ways a deal ends ---------------------------------------------------------------------------------

def test_no_active_player_ends_the_deal_without_declaration() -> None:
    state = start(2, "4C", {0: cards("4D"), 1: cards("4H 4H")})
    state, _ = do(state, 1, "pack", jewels=["4H", "4H"])
    state, events = do(state, 0, "pack")
    record = settled(events)
    assert record["end"] == "no_active_player" and record["changes"] == [-3, 3]   # jewels only: 2 against 5


def test_a_lone_player_plays_on_until_the_stock_runs_out() -> None:
    state = start(3, "4C", {}, first_dealer=2)
    state, _ = do(state, 0, "pack")
    state, _ = do(state, 1, "pack")
    assert state["turn"] == 2 and state["phase"] == "draw"
    state = draw_and_discard(state, 2)
    assert state["turn"] == 2


# --- the match, the view, the state check ------------------------------------------------------------------------

def test_match_of_rounds_times_players_deals_and_its_result() -> None:
    state = engine.new_match("jewel", 2, {"rounds": 2}, "77")
    dealers = []
    while not engine.is_finished(state):
        if state["deal_no"] > len(dealers):
            dealers.append(state["dealer"])
        state, _ = do(state, state["turn"], "pack", jewels=[])
    assert dealers == [0, 1, 0, 1]
    result = engine.result(state)
    assert result is not None and result["payoffs"] == result["scores"] and sum(result["scores"]) == 0
    assert result["places"] == [1 + sum(o > s for o in result["scores"]) for s in result["scores"]]


def test_views_hide_the_stock_and_other_hands() -> None:
    state = start(3, "9H", {})
    view = engine.view(state, 0)
    assert "stock" not in view and view["stock_size"] == len(state["stock"])
    assert view["hands"][1] is None and view["hands"][0] == state["hands"][0]
    assert hidden_after(state, {"seat": 1, "action": "pack", "jewels": []}) == ["jewels"]  # an empty list
    for keep in [m for m in engine.legal_moves(state) if m["action"] == "pack" and m.get("jewels")]:
        assert hidden_after(state, keep) == []  # jewels kept face up


@pytest.mark.parametrize(("key", "forge"), [
    ("scores", lambda s: s["before"]["scores"].__setitem__(0, 5)),
    ("stock", lambda s: s["stock"].reverse()),
    ("kept", lambda s: s["kept"][0].append("9C")),
    ("log", lambda s: s["log"].append([2, "draw", "discard"])),
    ("dealings", lambda s: s["before"].__setitem__("dealings", 3)),
])
def test_forged_states_are_refused(key: str, forge: Any) -> None:
    state = start(3, "9H", {})
    state = draw_and_discard(state, 1)
    forged = engine.clone(state)
    forge(forged)
    with pytest.raises(InvalidState):
        engine.check_state("jewel", forged)
    assert engine.check_state("jewel", engine.clone(state)) == state


# --- S0: the seed's nine-player example, through the API -------------------------------------------------------

def test_S0_seed_example_through_the_api() -> None:
    """A (dealer, seat 0) declares on his fourth turn; E and F pack at once, G mid packs on his third turn and H on
    his fourth; everyone else draws from the stock and discards what he drew, so the hands stay as dealt."""
    hands = {0: SEED_HANDS["A"], 1: SEED_HANDS["B"], 2: SEED_HANDS["C"], 3: SEED_HANDS["D"], 5: ["AH"], 7: ["AD"],
             8: SEED_HANDS["I"]}
    client = create_app(Config()).test_client()
    env = client.post("/v1/games/jewel/new", json={"players": 9, "seed": "5eed",
                                                   "deal": build_deal(9, "AS", hands)}).get_json()
    script = {(4, 0): ("pack", []), (5, 0): ("pack", ["AH"]), (6, 2): ("mid_pack", []), (7, 3): ("mid_pack", ["AD"])}
    turns = Counter[int]()
    while True:
        seat = env["to_act"][0]
        planned = script.get((seat, turns[seat]))
        if planned:
            moves = [{"seat": seat, "action": planned[0], "jewels": planned[1]}]
        elif seat == 0 and turns[0] == 3:
            moves = [{"seat": 0, "action": "draw", "source": "stock"}, "declare"]
        else:
            moves = [{"seat": seat, "action": "draw", "source": "stock"}, "discard"]
        for move in moves:
            if isinstance(move, str):
                drawn = env["state"]["hands"][seat][-1]
                assert drawn in env["valid_declarations"] or move == "discard"
                move = {"seat": seat, "action": move, "card": drawn}
            assert move in env["legal_moves"]
            resp = client.post("/v1/games/jewel/move", json={"state": env["state"], "move": move})
            assert resp.status_code == 200, resp.get_json()
            env = resp.get_json()
        turns[seat] += 1
        if any(e["type"] == "deal_settled" for e in env["events"]):
            break
    record = settled(env["events"])
    assert record["declarer"] == 0 and record["end"] == "declaration"
    assert record["matrix"] == SEED_CHART and tuple(record["changes"]) == SEED_NETS
    assert [s["status"] for s in record["seats"]] == ["declarer", "active", "active", "active", "packed", "packed",
                                                      "mid_packed", "mid_packed", "active"]
    assert env["state"]["scores"] == list(SEED_NETS) and env["state"]["deal_no"] == 2   # the next deal is dealt


# --- random matches (hypothesis) ---------------------------------------------------------------------------------

READY = cards("5H 6H 7H 8H KS AS 2S QC KC JK 3C 4C 5C 9D 9S 9C")   # a valid declaration with O = AS


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), seed=st.binary(min_size=1, max_size=8), style=st.sampled_from(["random", "stay", "ready"]),
       pick=st.randoms(use_true_random=False))
def test_random_matches_conserve_cards_and_settle_to_zero(n: int, seed: bytes, style: str, pick: Any) -> None:
    """Random legal play: ``random`` picks any listed move; ``stay`` never packs and declares only validly, so the
    stock runs out; ``ready`` deals the dealer a hand that declares, and declares when it can."""
    options = {"wrong_declaration": "reject"} if style != "random" else {}
    deals = [build_deal(n, "AS", {0: READY})] if style == "ready" else []
    state = engine.new_match("jewel", n, options, seed.hex(), deals)
    ends = []
    while not engine.is_finished(state):
        legal = engine.legal_moves(state)
        assert engine.to_act(state) == [legal[0]["seat"]]
        if style == "random":
            move = pick.choice(legal)
        else:
            declares = [m for m in legal if m["action"] == "declare"]
            calm = [m for m in legal if m["action"] in ("draw", "discard")]
            move = declares[0] if declares else pick.choice(calm)
        state, events = engine.apply(state, move)
        assert Counter(c for g in engine.get_game("jewel").card_groups(state) for c in g) == Counter(JEWEL_PACK)
        for event in events:
            if event["type"] == "deal_settled":
                assert sum(event["changes"]) == 0
                ends.append(event["end"])
                hypothesis_event(f"deal ended: {event['end']}")
    assert engine.check_state("jewel", engine.clone(state)) == state
    assert sum(engine.result(state)["scores"]) == 0
    if style == "stay":
        assert set(ends) <= {"stock_exhausted", "declaration"}
    if style == "ready":
        assert ends[0] == "declaration"
