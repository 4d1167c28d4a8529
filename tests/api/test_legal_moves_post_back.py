"""Every entry of ``legal_moves`` can be posted back exactly as it is, and is legal (docs/events.md).

A bot that posts entries unchanged plays every registered game to the end through the stateless API: each
state as the service returned it with its tag, each move an entry of the envelope's list picked at random.
Entries that carry ``ranges`` are also posted with another value of the range.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.app import create_app
from service.config import Config

from ..engine.playout import value_in

C = create_app(Config()).test_client()
GAMES = sorted(engine.all_games())


def other_value(entry: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The entry with each ranged parameter set to a random value of its range (``ranges`` kept)."""
    out = dict(entry)
    for name, span in entry.get("ranges", {}).items():
        out[name] = value_in(span, rng)
    return out


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=4, max_size=8), pick=st.integers(0, 2**32 - 1))
def test_a_bot_posting_listed_entries_unchanged_plays_to_the_end(game: str, seed: bytes, pick: int) -> None:
    rng = random.Random(pick)
    g = engine.get_game(game)
    players = rng.randint(g.min_players, g.max_players)
    env = C.post(f"/v1/games/{game}/new", json={"players": players, "seed": seed.hex()}).get_json()
    moves = 0
    while not env["finished"]:
        assert env["legal_moves"], "no legal move before the end"
        entry = rng.choice(env["legal_moves"])
        if "ranges" in entry and rng.random() < 0.5:
            entry = other_value(entry, rng)
        resp = C.post(f"/v1/games/{game}/move", json={"state": env["state"], "state_tag": env["state_tag"],
                                                       "move": entry})
        assert resp.status_code == 200, (entry, resp.get_json())
        env = resp.get_json()
        moves += 1
        assert moves < 5000
    assert env["result"] is not None and env["legal_moves"] == []
