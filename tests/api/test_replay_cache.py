"""The replay cache (service/api/states/replays.py): the check of a bare state goes on from the states this
process checked or answered, and gives what the full check gives, refusals and their words included."""
from __future__ import annotations

import json
from typing import Any

import pytest

from service import engine
from service.api.states.replays import ReplayCache


def sent(state: engine.State) -> Any:
    """The state as a client sends it back: a fresh copy through JSON."""
    return json.loads(json.dumps(state))


def played(state: engine.State, moves: int) -> engine.State:
    for _ in range(moves):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    return state


def test_the_state_answered_is_found_as_it_is() -> None:
    """A client playing along sends back the state it was answered: nothing replayed, nothing copied."""
    cache = ReplayCache()
    state = cache.check("femkort", sent(played(engine.new_match("femkort", 3, {}, "5eed"), 2)))
    for _ in range(4):
        answer, _ = engine.apply(state, engine.legal_moves(state)[0])
        cache.answered(answer)
        state = cache.check("femkort", sent(answer))
        assert state is answer


def test_a_state_sent_again_is_found_as_checked() -> None:
    """A client trying several moves on one state: each try after the first finds the state checked."""
    cache = ReplayCache()
    state = played(engine.new_match("femkort", 3, {}, "5eed"), 3)
    first = cache.check("femkort", sent(state))
    for move in engine.legal_moves(first)[:3]:
        cache.answered(engine.apply(first, move)[0])
        assert cache.check("femkort", sent(state)) is first


def test_moves_made_elsewhere_are_replayed_and_forgeries_meet_the_full_check() -> None:
    cache = ReplayCache()
    state = played(engine.new_match("femkort", 3, {}, "5eed"), 2)
    kept = cache.check("femkort", sent(state))
    ahead = played(state, 3)
    resumed = cache.check("femkort", sent(ahead))
    assert resumed == ahead and resumed is not kept
    forged = sent(played(ahead, 1))
    forged["hands"][0], forged["hands"][1] = forged["hands"][1], forged["hands"][0]
    with pytest.raises(engine.InvalidState) as by_cache:
        cache.check("femkort", forged)
    with pytest.raises(engine.InvalidState) as by_engine:
        engine.check_state("femkort", forged)
    assert by_cache.value.message == by_engine.value.message


def test_a_state_sent_to_another_games_path_is_refused_as_the_full_check_refuses_it() -> None:
    cache = ReplayCache()
    state = cache.check("femkort", sent(engine.new_match("femkort", 3, {}, "5eed")))
    cache.answered(state)
    with pytest.raises(engine.InvalidState, match="not a Tomato state"):
        cache.check("tomato", sent(state))


def test_the_least_recently_used_deal_is_dropped_first() -> None:
    cache = ReplayCache(deals=2)
    matches = [played(engine.new_match("femkort", 3, {}, seed), 2) for seed in ("a1", "b2", "c3")]
    kept = [cache.check("femkort", sent(m)) for m in matches[:2]]
    assert cache.check("femkort", sent(matches[0])) is kept[0]  # used again: the second is now the oldest
    cache.check("femkort", sent(matches[2]))
    assert cache.check("femkort", sent(matches[0])) is kept[0]
    assert cache.check("femkort", sent(matches[1])) is not kept[1]  # dropped: checked in full again
