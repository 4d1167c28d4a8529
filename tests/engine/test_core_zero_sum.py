"""Game.zero_sum: payoffs balance unless a game's spec says otherwise for the options in force."""
from __future__ import annotations

from service import engine


def test_zero_sum_defaults_to_true() -> None:
    game = engine.get_game("femkort")
    assert game.zero_sum(game.read_options({}, 4)) is True


def test_every_game_answers_zero_sum_for_its_option_sets() -> None:
    for game in engine.all_games().values():
        for raw in [{}, *game.sample_options]:
            try:
                opts = game.read_options(dict(raw), game.max_players)
            except engine.InvalidOptions:
                continue
            assert isinstance(game.zero_sum(opts), bool)
