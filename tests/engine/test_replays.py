"""Golden playthroughs: whole matches pinned move by move, so a refactor that changes behaviour shows as a diff.

Each ``tests/replays/<game>/<case>.json`` holds how the match was set up (players, options, seed or deals), every
move, and after each move what a client sees: ``to_act``, ``legal_moves`` and the events; at the end the result.
The test replays the moves and compares every step. The files are written only when asked:

    ./tests/run.sh tests/engine/test_replays.py --update-goldens

which keeps each file's moves (so a vocabulary change shows as a diff of what the same play now reports) and
records a new case's moves by seeded random choice among the legal moves.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from service import engine
from service.engine.games.jewel_melds import JEWEL_PACK, sort_canonical
from service.engine.rng import shuffled

from .playout import concrete

ROOT = Path(__file__).resolve().parents[1] / "replays"

# (game, case name, players, options, seed): short matches, several player counts and option sets per game.
CASES: list[tuple[str, str, int, dict[str, Any], str]] = [
    ("femkort", "two_players", 2, {}, "c0ffee"),
    ("femkort", "five_players_better_cards", 5, {"better_cards": True, "deals": 3}, "f00d"),
    ("femkort", "first_to_two", 3, {"match": "first_to", "target_wins": 2, "ante": 2, "first_dealer": 1}, "beef"),
    ("davoserjazz", "four_players", 4, {}, "d8447c3674596367"),
    ("davoserjazz", "three_players_two_rounds", 3, {"rounds": 2}, "abcd"),
    ("three_card_loo", "four_players", 4, {"rounds": 1}, "1001"),
    ("three_card_loo", "six_unlimited_club_law", 6, {"unlimited": True, "club_law": True, "rounds": 1}, "1002"),
    ("three_card_loo", "until_no_loo", 3, {"end_mode": "until_no_loo", "rounds": 1}, "1003"),
    ("irish_loo", "four_players", 4, {"rounds": 1}, "2001"),
    ("irish_loo", "five_unlimited", 5, {"unlimited": True, "rounds": 1}, "2002"),
    ("tomato", "four_players", 4, {"rounds": 1}, "3001"),
    ("tomato", "six_side_pots", 6, {"side_pots": True, "rounds": 1}, "3002"),
    ("zwikken", "twelve_deals", 3, {}, "4001"),
    ("zwikken", "fractions_bust", 3, {"bid_amounts": "fractions", "end_mode": "bust", "deals": 6}, "4002"),
    ("norrlandsknack", "three_players", 3, {"start_score": 4}, "5001"),
    ("norrlandsknack", "five_players", 5, {"start_score": 5}, "5002"),
    ("toepen", "four_players", 4, {"target": 5}, "6001"),
    ("toepen", "six_players", 6, {"target": 6}, "6002"),
    ("femkort", "explicit_deals", 3, {"deals": 2}, "c0ffee"),
    ("toepen", "explicit_deal", 4, {"target": 4}, "77"),
    ("jewel", "three_players", 3, {}, "7001"),
    ("jewel", "two_players_reject", 2, {"wrong_declaration": "reject", "mid_pack_min_rounds": 1}, "7002"),
    ("jewel", "nine_players_stock_exhausted", 9, {}, "7004"),
    ("jewel", "explicit_deal_declared", 3, {"first_dealer": 2, "all_wild_groups": False}, "7003"),
    ("klaberjass", "two_hand", 2, {}, "7001"),
    ("klaberjass", "three_hand_strict", 3, {"head_trump_lead": True, "overtrump": True, "target": 300}, "7002"),
    ("klaberjass", "partnership", 4, {"bella_timing": "any"}, "7004"),
    ("alkort", "four_players", 4, {"target_points": 4}, "8001"),
    ("alkort", "losing_side_difference", 4, {"next_dealer": "losing_side", "settlement": "difference",
                                            "show_highest": False, "target_points": 3}, "8002"),
    ("alkort", "stock_exchange", 4, {"stock_exchange": True, "first_dealer": 1, "target_points": 2}, "8003"),
    ("styrivolt", "four_deals", 4, {"deals": 4}, "8001"),
    ("styrivolt", "turn_two_follow_to_a_cross", 4, {"chosen_suits_method": "turn_two", "follow_suit": True,
                                                     "equal_rank_tiebreak": "primary_suit", "match_end": "crosses",
                                                     "target_crosses": 1}, "8002"),
    ("styrivolt", "preset_stock_taken", 4, {"chosen_suits_method": "preset", "deals": 2}, "8003"),
]

# Cases that fix their first deals as a club or a duplicate board would (the rest come from the seed).
_FEMKORT_DEAL = {"hands": [["4C", "JC", "4H", "7H", "4D"], ["TH", "2C", "AC", "8S", "KC"], ["5S", "3H", "3D", "4S", "7C"]],
                 "rest": ["7D", "2S", "6D", "5D", "8D", "TS", "9C", "9H", "2H", "8C", "JS", "3C", "JH", "AS", "9D",
                          "KH", "TD", "6C", "7S", "AH", "3S", "QS", "QH", "2D", "AD", "5C", "TC", "JD", "KS", "6H",
                          "QD", "8H", "9S", "KD", "QC", "6S", "5H"]}
# Jewel: the dealer (seat 2) is dealt a hand that declares (O = AS) and may declare on his first turn.
_JEWEL_READY = ["5H", "6H", "7H", "8H", "KS", "AS", "2S", "QC", "KC", "JK", "3C", "4C", "5C", "9D", "9S", "9C"]


def _jewel_deal(n: int, dealer: int) -> dict[str, Any]:
    spare = Counter(JEWEL_PACK)
    spare.subtract(["AS", *_JEWEL_READY])
    cards = shuffled(sort_canonical(spare.elements()), "7003", "golden")
    hands = [cards[16 * s:16 * s + 16] if s != dealer else list(_JEWEL_READY) for s in range(n)]
    return {"hands": hands, "rest": ["AS", *cards[16 * (n - 1):]]}


DEALS: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("femkort", "explicit_deals"): [_FEMKORT_DEAL, {"hands": _FEMKORT_DEAL["hands"][::-1], "rest": _FEMKORT_DEAL["rest"]}],
    ("toepen", "explicit_deal"): [{
        "hands": [["QS", "KD", "8S", "7S"], ["AC", "7H", "8C", "QD"], ["KC", "KS", "7D", "JS"], ["8D", "TC", "KH", "QH"]],
        "rest": ["JH", "TD", "9D", "TH", "AD", "8H", "9C", "JD", "9H", "9S", "AS", "JC", "7C", "AH", "TS", "QC"]}],
    ("jewel", "explicit_deal_declared"): [_jewel_deal(3, 2)],
    # Alkort: seats 2 (forehand) and 0 cannot beat a low Eight, so both may be asked for the stock.
    ("alkort", "stock_exchange"): [{
        "hands": [["2D", "3C", "4S", "9S", "QC", "KS", "7D", "8H", "3H"], ["2H", "4C", "8S", "9H", "AC", "JC", "6D", "4D", "QH"],
                  ["2C", "3D", "4H", "9C", "QS", "KH", "7C", "8D", "3S"], ["9D", "AD", "AH", "JD", "JS", "6H", "6S", "KC", "7H"]],
        "rest": ["KD", "AS", "JH", "6C", "2S", "7S", "QD", "8C"]}],
    # Stýrivolt: hearts and diamonds chosen, and forehand (seat 1) bare, so the stock is offered to him.
    ("styrivolt", "preset_stock_taken"): [{
        "hands": [["4C", "3C", "5C", "6C", "7C", "8C", "9C", "JC", "AC"], ["KC", "QC", "9S", "5S", "3S", "KH", "8D", "5H", "2C"],
                  ["7H", "2D", "3D", "4D", "5D", "6D", "7D", "9D", "JD"], ["2H", "QD", "KD", "AD", "3H", "4H", "6H", "8H", "9H"]],
        "rest": ["JH", "QH", "AH", "2S", "4S", "6S", "7S", "8S", "JS", "QS", "KS", "AS"], "chosen": ["H", "D"]}],
}


def _path(game: str, name: str) -> Path:
    return ROOT / game / f"{name}.json"


def _play(setup: dict[str, Any], moves: list[dict[str, Any]] | None, pick: random.Random) -> dict[str, Any]:
    """Play the case (its stored moves, or fresh random legal ones) and record what each step shows."""
    state = engine.new_match(setup["game"], setup["players"], setup["options"], setup["seed"],
                             engine.deals_from(deals=setup.get("deals")))
    played: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = [{"to_act": engine.to_act(state), "legal_moves": engine.legal_moves(state)}]
    while not engine.is_finished(state):
        if moves is None:
            move = concrete(pick.choice(engine.legal_moves(state)), pick)
        elif len(played) < len(moves):
            move = moves[len(played)]
        else:
            break
        state, events = engine.apply(state, move)
        played.append(move)
        steps.append({"events": events, "to_act": engine.to_act(state), "legal_moves": engine.legal_moves(state)})
    return {**setup, "moves": played, "steps": steps, "finished": engine.is_finished(state),
            "result": engine.result(state)}


@pytest.mark.parametrize(("game", "name", "players", "options", "seed"), CASES,
                         ids=[f"{c[0]}/{c[1]}" for c in CASES])
def test_golden_playthrough(game: str, name: str, players: int, options: dict[str, Any], seed: str,
                            request: pytest.FixtureRequest) -> None:
    path = _path(game, name)
    setup = {"game": game, "players": players, "options": options, "seed": seed}
    if (game, name) in DEALS:
        setup["deals"] = DEALS[(game, name)]
    if request.config.getoption("--update-goldens"):
        stored = json.loads(path.read_text()) if path.exists() else None
        record = _play(setup, stored["moves"] if stored else None, random.Random(f"{game}/{name}"))
        assert record["finished"], "a golden playthrough must reach the end of the match"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=None, separators=(",", ":")).replace('},{"events"', '},\n{"events"')
                        + "\n")
        return
    assert path.exists(), f"{path} is missing: run with --update-goldens to record it"
    golden = json.loads(path.read_text())
    replayed = _play({k: golden[k] for k in ("game", "players", "options", "seed", "deals") if k in golden},
                     golden["moves"], random.Random())
    for i, (want, got) in enumerate(zip(golden["steps"], replayed["steps"])):
        assert got == want, f"{game}/{name}: step {i} (after move {i}: {golden['moves'][i - 1] if i else None}) differs"
    assert len(replayed["steps"]) == len(golden["steps"])
    assert replayed["result"] == golden["result"] and replayed["finished"]
