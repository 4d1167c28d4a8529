"""Forged and broken states never crash the engine and are never adjudicated as if sound.

For every game, hypothesis takes real states from random play, corrupts one value somewhere (a
card, a number, a list, a key), and checks that the engine either refuses the state with
InvalidState, or accepts it and then answers every question about it without an internal error.
"""
from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.engine import InvalidState, RulesError

GAMES = sorted(engine.all_games())
REPLACEMENTS: list[Any] = [None, True, -1, 0, 1, 7, 10**9, "", "AS", "2C", "JK", "zz", [], {}, ["AS"], [0, "AS"],
                           {"plays": []}, 1.5]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*prefix, i))
    return out


def mutate(state: dict[str, Any], path: tuple, how: int, rng: random.Random) -> dict[str, Any]:
    s = engine.clone(state)
    parent = s
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if how == 0 and isinstance(parent, dict):
        del parent[last]
    elif how == 1 and isinstance(parent, list):
        parent.append(parent[last])
    elif how == 2 and isinstance(parent, list):
        parent.pop(last)
    else:
        parent[last] = rng.choice(REPLACEMENTS)
    return s


def sample_states(game_id: str, seed: int) -> list[dict[str, Any]]:
    game = engine.get_game(game_id)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    sets = [{}, *[dict(o) for o in game.sample_options]]
    options = dict(rng.choice(sets))
    if "first_dealer" in options:
        options["first_dealer"] %= players
    try:
        state = engine.new_match(game_id, players, options, f"{seed:x}")
    except engine.InvalidOptions:
        state = engine.new_match(game_id, players, {}, f"{seed:x}")
    states = [state]
    for _ in range(rng.randint(0, 60)):
        if engine.is_finished(state):
            break
        from .playout import concrete
        state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        states.append(state)
    return states


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=int(os.environ.get("FORGERIES", "150")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**20), pick=st.integers(0, 10**6), how=st.integers(0, 3))
def test_forged_state_is_refused_or_handled(game_id: str, seed: int, pick: int, how: int) -> None:
    states = sample_states(game_id, seed)
    state = states[pick % len(states)]
    candidates = paths(state)
    path = candidates[pick % len(candidates)]
    forged = mutate(state, path, how, random.Random(pick))
    try:
        forged = engine.check_state(game_id, forged)
    except InvalidState:
        return
    # Accepted: the state to adjudicate (the rebuilt one, equal to the forgery: a forged true that equals 1 is
    # replaced by the 1) must be one the engine can fully work with.
    moves = engine.legal_moves(forged)
    engine.to_act(forged)
    engine.result(forged)
    for seat in [None, *range(forged["players"])]:
        engine.view(forged, seat)
    for m in moves[:20]:
        from .playout import concrete
        try:
            after, _ = engine.apply(forged, concrete(m, random.Random(0)))
        except RulesError as exc:
            raise AssertionError(f"listed move {m} refused on an accepted state: {exc}") from exc
        engine.check_state(game_id, after)
