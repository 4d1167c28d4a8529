"""Card codes outside a game's pack, and parameters an action does not take, posted in every card-taking action
of all twelve games: each is ``invalid_parameters`` (the contract's "other parameters"), never ``invalid_state``
or a card the seat lacks, and never a 5xx. The states are reached by random legal play; hypothesis picks the
bad code, where it goes in a list, and the stray parameter."""
from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.app import create_app
from service.config import Config
from service.engine.cards import ALL_CODES
from service.engine.moves import CARD_KINDS
from tests.engine.games import test_alkort as alkort
from tests.engine.games import test_davoserjazz as davoserjazz
from tests.engine.playout import concrete

CLIENT = create_app(Config()).test_client()
MALFORMED = ("ZZ", "ah", "", "10H", "AS ", "jk", "1C")


def card_actions() -> list[tuple[str, str]]:
    """Every (game, action) whose parameters name cards."""
    return [(g, a) for g in sorted(engine.all_games()) for a, spec in engine.get_game(g).actions.items()
            if any(p.kind in CARD_KINDS for p in spec.params.values())]


def alkort_stock() -> dict[str, Any]:
    return alkort.start(alkort.exchange_deal({3: alkort.S8_HAND}), stock_exchange=True)


RARE = {("alkort", "take_stock"): alkort_stock, ("davoserjazz", "bring_in"): lambda: davoserjazz.s8_state(1)}


@cache
def reach(game_id: str, action: str, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A state in which a listed move is ``action`` (under the default options or a game's sample options),
    and that move, found by random legal play."""
    game = engine.get_game(game_id)
    rng = random.Random(seed)
    if (game_id, action) in RARE:  # an action random play seldom reaches: the game's own scenario state
        state = RARE[game_id, action]()
        return state, concrete(rng.choice([m for m in engine.legal_moves(state) if m["action"] == action]), rng)
    for options in ({}, *game.sample_options):
        state = engine.new_match(game_id, game.default_players, dict(options), f"{seed + 1:02x}c0de")
        for _ in range(3000):
            legal = engine.legal_moves(state)
            if not legal:
                break
            found = [m for m in legal if m["action"] == action]
            if found:
                return state, concrete(rng.choice(found), rng)
            state, _ = engine.apply(state, concrete(rng.choice(legal), rng))
    raise AssertionError(f"{game_id}: no state with a legal '{action}'")


def outside_codes(game_id: str, state: dict[str, Any]) -> list[str]:
    """Strings that are no card of this match's pack: other packs' codes first, then malformed ones."""
    codes = engine.get_game(game_id).card_codes(state["players"], state["options"])
    return [*sorted(ALL_CODES - codes), *MALFORMED]


def with_bad_card(move: dict[str, Any], key: str, kind: str, bad: str, where: int) -> dict[str, Any]:
    """``move`` with one card of parameter ``key`` replaced by ``bad`` (or added, for an empty list)."""
    if kind == "card":
        return dict(move, **{key: bad})
    if kind == "cards":
        return dict(move, **{key: replaced(list(move[key]), bad, where)})
    runs = [list(run) for run in move[key]] or [[]]
    at = where % len(runs)
    runs[at] = replaced(runs[at], bad, where)
    return dict(move, **{key: runs})


def replaced(cards: list[str], bad: str, where: int) -> list[str]:
    if not cards:
        return [bad]
    cards[where % len(cards)] = bad
    return cards


def post_move(game_id: str, state: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    resp = CLIENT.post(f"/v1/games/{game_id}/move", json={"state": state, "move": move})
    assert resp.status_code == 422, (move, resp.status_code, resp.get_data(as_text=True)[:300])
    body: dict[str, Any] = resp.get_json()
    return body


@pytest.mark.parametrize(("game_id", "action"), card_actions())
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2), pick=st.integers(0, 10**6), where=st.integers(0, 60),
       stray=st.sampled_from(["colour", "cards_", "Card", "seat_", "ranges2"]))
def test_codes_outside_the_pack_and_stray_parameters_are_invalid_parameters(
        game_id: str, action: str, seed: int, pick: int, where: int, stray: str) -> None:
    state, move = reach(game_id, action, seed)
    assert CLIENT.post(f"/v1/games/{game_id}/legal-moves", json={"state": state}).status_code == 200
    bad_codes = outside_codes(game_id, state)
    bad = bad_codes[pick % len(bad_codes)]
    for key, param in engine.get_game(game_id).actions[action].params.items():
        if param.kind not in CARD_KINDS or key not in move:
            continue
        body = post_move(game_id, state, with_bad_card(move, key, param.kind, bad, where))
        assert (body["code"], body.get("reason")) == ("illegal_move", "invalid_parameters"), (key, bad, body)
    body = post_move(game_id, state, dict(move, **{stray: move.get("card", "AS")}))
    assert (body["code"], body.get("reason")) == ("illegal_move", "invalid_parameters"), (stray, body)


def test_every_game_has_a_card_taking_action() -> None:
    assert {g for g, _ in card_actions()} == set(engine.all_games())
