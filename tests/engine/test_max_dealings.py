"""A game's bound on how often a match deals (``Game.max_dealings``) is never passed in play: explicit deals
beyond it are refused as unusable, so a bound too low would refuse a match that needs them."""
from __future__ import annotations

import random

import pytest

from service import engine

from .playout import concrete


def bounded_settings() -> list[tuple[str, int, dict[str, object], int]]:
    """Every game's default and sample options at its smallest, usual and largest table, where they are valid
    and the format bounds the deals."""
    out = []
    for game_id, game in sorted(engine.all_games().items()):
        for options in ({}, *game.sample_options):
            for n in sorted({game.min_players, game.default_players, game.max_players}):
                try:
                    engine.new_match(game_id, n, options, "ab")
                except engine.RulesError:
                    continue
                bound = engine.max_dealings(game_id, n, options)
                if bound is not None:
                    out.append((game_id, n, dict(options), bound))
    return out


@pytest.mark.parametrize(("game_id", "players", "options", "bound"), bounded_settings())
def test_play_never_deals_more_often_than_the_bound(game_id: str, players: int, options: dict[str, object],
                                                    bound: int) -> None:
    for m in range(4):
        rng = random.Random(m)
        state = engine.new_match(game_id, players, options, f"{m:x}d")
        while not engine.is_finished(state):
            assert state["dealings"] <= bound
            state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        assert state["dealings"] <= bound


def test_formats_without_a_bound_say_so() -> None:
    assert engine.max_dealings("femkort", 4, {"match": "first_to"}) is None
    assert engine.max_dealings("femkort", 4, {"better_cards": True}) is None
    assert engine.max_dealings("klaberjass", 2, {}) is None
    assert engine.max_dealings("femkort", 4, {"deals": 7}) == 7
