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
    """Every other move is made here, by lending, and every other one elsewhere (another worker): the state of
    each move made here is then the state given back after the last one, carried one move on."""
    rng = random.Random(5)
    g = engine.get_game(game_id)
    plain = engine.new_match(game_id, g.default_players, {}, "1e9d")
    given_back: engine.State | None = None
    lent_again = 0
    for i in range(160):
        if engine.is_finished(plain):
            break
        move = concrete(rng.choice(engine.legal_moves(plain)), rng)
        if i % 2:  # elsewhere
            plain, _ = engine.apply(plain, move)
            continue
        state = engine.check_state(game_id, sent(plain), lend=True)
        assert state == plain
        lent_again += state is given_back
        new, _ = engine.apply(state, move, in_place=True)
        plain, _ = engine.apply(plain, move)
        assert new == plain
        engine.give_back(new)
        given_back = new
    if g.flow:
        assert lent_again > 0


def test_a_state_sent_again_is_copied_and_the_replay_stays() -> None:
    """A client trying several moves on one state: after the first, each check copies the kept replay (lent, it
    would go forward with the move and leave the next try a full check)."""
    state = engine.new_match("femkort", 3, {}, "5eed")
    for _ in range(3):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    engine.check_state("femkort", sent(state))  # the full check: its replay is kept
    copies = [engine.check_state("femkort", sent(state), lend=True) for _ in range(3)]
    assert all(c == state for c in copies) and len({id(c) for c in copies}) == 3


def test_the_answer_given_back_is_lent_to_the_next_request_as_it_is() -> None:
    """A client playing on the same worker sends back exactly the state it was answered: lent again, no copy."""
    state = engine.new_match("femkort", 3, {}, "5eed")
    engine.check_state("femkort", sent(state))
    ahead, _ = engine.apply(state, engine.legal_moves(state)[0])
    lent = engine.check_state("femkort", sent(ahead), lend=True)  # one move on: lent
    for _ in range(4):
        new, _ = engine.apply(lent, engine.legal_moves(lent)[0], in_place=True)
        answer = sent(new)
        engine.give_back(new)
        lent = engine.check_state("femkort", answer, lend=True)
        assert lent is new and lent == answer
    engine.give_back(lent)


def test_a_refused_move_gives_the_replay_back_unchanged_and_a_forgery_still_meets_the_full_check() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    for _ in range(4):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    engine.check_state("femkort", sent(state))  # the full check: its replay is kept
    state, _ = engine.apply(state, engine.legal_moves(state)[0])
    lent = engine.check_state("femkort", sent(state), lend=True)  # one move on: lent
    waiting = next(s for s in range(3) if s not in engine.to_act(lent))
    with pytest.raises(IllegalMove):
        engine.apply(lent, {"seat": waiting, "action": "play", "card": "2C"}, in_place=True)
    engine.give_back(lent)
    ahead, _ = engine.apply(state, engine.legal_moves(state)[0])
    assert engine.check_state("femkort", sent(ahead), lend=True) is lent  # given back unchanged, then carried on
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
