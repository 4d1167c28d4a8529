"""Matches cut short (service/engine/endings.py): a forfeit or an abort at any point of any game, and the
move the service plays for a seat.

For every game, player count and sample option set, random play stops at a random move and the match is
ended every way: the state is over, takes no move, its views still hide every other hand, and its result
ranks the forfeiting seat last with payoffs balanced as the game's are (an abort pays nobody). The service's
move is the seat's first legal move, with ranges at their minimum, and always legal.
"""
from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.engine import IllegalMove, InvalidRequest

from .playout import hidden_copies_shown, hidden_from
from .test_invariants import CASES, option_sets


MAX_MOVES = 3000  # a playout longer than this is cut here


def cut_short(game_id: str, players: int, seed: str, rng: random.Random, which: int) -> engine.State | None:
    """A match of the game played at random (every move the service's own, ``auto_move``, half of the time)
    and stopped before a move drawn at random from the whole match; None when the option set does not fit."""
    sets = option_sets(game_id)
    options = dict(sets[which % len(sets)])
    if "first_dealer" in options:
        options["first_dealer"] %= players
    try:
        state = engine.new_match(game_id, players, options, seed)
    except engine.InvalidOptions:
        return None
    played: list[engine.State] = []
    while not engine.is_finished(state) and len(played) < MAX_MOVES:
        legal = engine.legal_moves(state)
        seat = rng.choice(engine.seats_to_act(legal))
        auto = engine.auto_move(state, seat)
        first = next(m for m in legal if m["seat"] == seat)
        assert auto == {k: v for k, v in first.items() if k != "ranges"}
        played.append(state)
        state, _ = engine.apply(state, auto if rng.random() < 0.5 else rng.choice(legal))
    return rng.choice(played) if played else None


@pytest.mark.parametrize(("game_id", "players"), CASES)
@settings(max_examples=max(5, int(os.environ.get("PLAYOUTS", "100")) // 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=16), pick=st.integers(0, 2**32 - 1), which=st.integers(0, 99))
def test_a_match_ended_at_any_point_is_over_hides_the_hands_and_ranks_the_forfeit_last(
        game_id: str, players: int, seed: bytes, pick: int, which: int) -> None:
    rng = random.Random(pick)
    state = cut_short(game_id, players, seed.hex(), rng, which)
    if state is None:
        pytest.skip("option set not valid for this player count")
    game = engine.get_game(game_id)
    before = engine.clone(state)
    seat = rng.randrange(players)
    for by in engine.ENDINGS:
        ended = engine.end_match(state, by, seat)
        assert state == before, "end_match changed the state it was given"
        assert engine.is_finished(ended) and engine.legal_moves(ended) == [] and engine.to_act(ended) == []
        assert ended["ended"] == {"by": by, "seat": seat, "phase": state["phase"]}
        with pytest.raises(IllegalMove) as refused:
            engine.apply(ended, {"seat": seat, "action": next(iter(game.actions))})
        assert refused.value.reason == "match_over"
        with pytest.raises(IllegalMove):
            engine.end_match(ended, by, seat)
        result = engine.match_result(ended)
        assert result is not None and result == {**engine.result(ended), "ended_by": by}
        assert len(result["scores"]) == players and len(result["payoffs"]) == players
        if by == "abort":
            assert result["payoffs"] == [0] * players and result["ranking"] == [] and result["forfeited"] is None
        else:
            assert result["forfeited"] == seat and result["ranking"][-1] == seat
            assert sorted(result["ranking"]) == list(range(players))
            assert result["payoffs"][seat] == min(result["payoffs"]) < max(result["payoffs"])
            if game.zero_sum(state["options"]):
                assert sum(result["payoffs"]) == 0
        pack = Counter(game.pack(players, state["options"]))
        for viewer in [None, *range(players)]:
            hidden, own = hidden_from(state, viewer)
            assert not hidden_copies_shown(engine.view(ended, viewer), hidden, pack, own), (by, viewer)


def test_end_match_refuses_what_is_not_an_ending() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    for by, seat in (("resign", 0), ("timeout", 3), ("timeout", -1), ("abort", True)):
        with pytest.raises(InvalidRequest):
            engine.end_match(state, by, seat)  # type: ignore[arg-type]


def test_the_service_moves_only_for_a_seat_to_act() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    idle = next(s for s in range(3) if s not in engine.to_act(state))
    with pytest.raises(IllegalMove) as refused:
        engine.auto_move(state, idle)
    assert refused.value.reason == "not_your_turn"


def test_a_range_is_played_at_its_minimum() -> None:
    """Zwikken's bids carry ranges: the service bids the entry's own (smallest) amount, without ``ranges``."""
    for seed in range(200):
        state = engine.new_match("zwikken", None, {}, f"{seed:x}")
        for _ in range(60):
            if engine.is_finished(state):
                break
            legal = engine.legal_moves(state)
            ranged = [m for m in legal if m.get("ranges")]
            if ranged:
                seat = ranged[0]["seat"]
                first = next(m for m in legal if m["seat"] == seat)
                auto = engine.auto_move(state, seat)
                assert "ranges" not in auto and all(auto[k] == first[k] for k in auto)
                for key, span in first.get("ranges", {}).items():
                    assert auto[key] == span["min"]
                engine.apply(state, auto)
                return
            state, _ = engine.apply(state, legal[0])
    pytest.skip("no ranged move met")


def test_the_abort_window_closes_with_a_trick_or_a_settlement() -> None:
    assert not engine.closes_abort_window([{"type": "play"}, {"type": "redealt"}, {"type": "deal_started"}])
    for kind in ("trick_won", "deal_settled", "round_settled"):
        assert engine.closes_abort_window([{"type": "play"}, {"type": kind}])
