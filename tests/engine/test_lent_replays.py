"""The check of a bare state lends the process's replay of its deal (``check_state(..., lend=True)``) and
takes back the state after the move (``give_back``): the next state of the same match is then checked with
nothing to replay and nothing copied, and whatever goes wrong falls back to the full check."""
from __future__ import annotations

import json
import random

import pytest

from service import engine
from service.engine import IllegalMove, InvalidState

from .playout import concrete


def sent(state: engine.State) -> engine.State:
    """The state as a client sends it back: a fresh copy through JSON."""
    parsed: engine.State = json.loads(json.dumps(state))
    return parsed


@pytest.mark.parametrize("game_id", sorted(engine.all_games()))
def test_a_match_played_by_lending_is_the_match_played_plainly(game_id: str) -> None:
    rng, plain_rng = random.Random(5), random.Random(5)
    g = engine.get_game(game_id)
    plain = engine.new_match(game_id, g.default_players, {}, "1e9d")
    client = sent(plain)
    lent_back = 0
    for _ in range(120):
        if engine.is_finished(plain):
            break
        move = concrete(rng.choice(engine.legal_moves(plain)), plain_rng)
        rng.random()
        state = engine.check_state(game_id, client, lend=True)
        assert state == client
        new, _ = engine.apply(state, move, in_place=True)
        plain, _ = engine.apply(plain, move)
        assert new == plain
        client = sent(new)
        engine.give_back(new)
        again = engine.check_state(game_id, sent(client), lend=True)
        if again is new:
            lent_back += 1  # the state given back is what the next check lent (no copy, nothing replayed)
        engine.give_back(again)
    if g.flow:
        assert lent_back > 0


def test_a_refused_move_gives_the_replay_back_unchanged_and_a_forgery_still_meets_the_full_check() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    for _ in range(4):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    engine.check_state("femkort", sent(state))  # the full check: its replay is kept
    lent = engine.check_state("femkort", sent(state), lend=True)  # and now lent
    waiting = next(s for s in range(3) if s not in engine.to_act(lent))
    with pytest.raises(IllegalMove):
        engine.apply(lent, {"seat": waiting, "action": "play", "card": "2C"}, in_place=True)
    engine.give_back(lent)
    assert engine.check_state("femkort", sent(state), lend=True) is lent
    engine.give_back(lent)
    forged = sent(state)
    forged["hands"][0], forged["hands"][1] = forged["hands"][1], forged["hands"][0]
    with pytest.raises(InvalidState):
        engine.check_state("femkort", forged, lend=True)
    assert engine.check_state("femkort", sent(state)) == state  # the full check again, and right


def test_giving_back_a_state_that_was_not_lent_keeps_nothing() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    state, _ = engine.apply(state, engine.legal_moves(state)[0])
    stranger = sent(state)
    engine.give_back(stranger)
    checked = engine.check_state("femkort", sent(state), lend=True)
    assert checked is not stranger and checked == state
