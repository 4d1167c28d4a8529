"""Random legal play to the end for every registered game, player count and sample option set.

After every move: the state validates (cards conserved, phase and turn consistent), the listed legal
moves are accepted and unlisted plays refused, ``to_act`` matches the legal moves, and at the end
the payoffs balance. At random points, every listed move is accepted and unlisted moves of every action the
game has (bids, exchanges, declarations, claims...) are refused with IllegalMove, the state left as it was; the
seeded matches of ``test_unlisted_moves_of_every_kind_are_refused`` post every action of every game so.
Views never show another seat's hand.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine

from .playout import concrete, hidden_copies_shown, hidden_from, play_to_end

CASES = [(g.id, n) for g in engine.all_games().values() for n in range(g.min_players, g.max_players + 1)]
PROBE = 0.05  # the share of points of random play where unlisted moves of every kind are posted


def option_sets(game_id: str) -> list[dict]:
    game = engine.get_game(game_id)
    return [{}, *[dict(o) for o in game.sample_options]]


@pytest.mark.parametrize(("game_id", "players"), CASES)
@settings(max_examples=int(__import__("os").environ.get("PLAYOUTS", "100")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=16), pick=st.integers(0, 2**32 - 1), which=st.integers(0, 99))
def test_random_playouts(game_id: str, players: int, seed: bytes, pick: int, which: int) -> None:
    sets = option_sets(game_id)
    options = dict(sets[which % len(sets)])
    if "first_dealer" in options:
        options["first_dealer"] %= players
    try:
        play_to_end(game_id, players, options, seed.hex(), random.Random(pick), probe=PROBE)
    except engine.InvalidOptions:
        pytest.skip("option set not valid for this player count")


@pytest.mark.parametrize("game_id", sorted(engine.all_games()))
def test_unlisted_moves_of_every_kind_are_refused(game_id: str, record_property: Callable[[str, object], None]) -> None:
    """Seeded matches, one per option set, probed at a third of their points of play: every action of the game's
    vocabulary is posted as an unlisted move and refused. Reports the moves posted by action and reason."""
    game = engine.get_game(game_id)
    posted: Counter[tuple[str, str]] = Counter()
    for k, options in enumerate(option_sets(game_id)):
        play_to_end(game_id, game.default_players, options, f"c0de{k}", random.Random(k), probe=0.3, posted=posted)
    by_action = {a: {r: c for (b, r), c in sorted(posted.items()) if b == a} for a in game.actions}
    record_property("unlisted_moves_refused", by_action)
    print(f"{game_id}: unlisted moves refused, by action and reason: {by_action}")
    missing = [a for a, reasons in by_action.items() if not reasons]
    assert not missing, f"{game_id}: no unlisted {missing} was posted (posted: {by_action})"


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_views_hide_other_hands(game_id: str, players: int) -> None:
    """No view shows a card of another seat's hand or of the hidden rest. Counted copy by copy, so a game
    played with several packs (Jewel) may show its own copy of a code another seat also holds."""
    rng = random.Random(7)
    state = engine.new_match(game_id, players, {}, "5eed")
    game = engine.get_game(game_id)
    pack = Counter(game.pack(players, state["options"]))
    for _ in range(40):
        if engine.is_finished(state):
            break
        for seat in [None, *range(players)]:
            hidden, own = hidden_from(state, seat)
            view = engine.view(state, seat)
            assert "seed" not in view and "deals" not in view
            leaked = hidden_copies_shown(view, hidden, pack, own)
            assert not leaked, f"view of seat {seat} leaks hidden cards: {sorted(leaked)}"
        state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))

