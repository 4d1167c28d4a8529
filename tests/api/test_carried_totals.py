"""Plain states that carry totals no match can have: before the first deal nothing has been scored, so a state
of the first deal whose totals (and the ``before`` record of them) differ from the starting ones is refused
with ``invalid_state`` by /move, /legal-moves and /view, in all twelve games. The forgeries keep every other
check happy (the total and its record change alike, and a moved score keeps the sum), so only the rule
"nothing carried into the first deal" refuses them."""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import engine
from service.app import create_app
from service.config import Config

CLIENT = create_app(Config()).test_client()
GAMES = sorted(engine.all_games())
Path = tuple[Any, ...]


def post(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    resp = CLIENT.post(path, json=body)
    return resp.status_code, resp.get_json()


@cache
def fresh(game: str, players: int) -> dict[str, Any]:
    """A state straight from /new, and a move the seat to act may make in it."""
    status, env = post(f"/v1/games/{game}/new", {"players": players, "seed": "c0ffee"})
    assert status == 201 and env["state"]["before"]["dealings"] == 0, env
    return {"state": env["state"], "move": engine.legal_moves(env["state"])[0]}


def int_leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    """The path of every whole number in a JSON value (true and false are not numbers)."""
    if type(value) is int:
        yield path
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from int_leaves(item, (*path, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from int_leaves(item, (*path, key))


def totals(game: str, state: dict[str, Any]) -> list[Path]:
    """Every whole number the state carries between deals (the dealer's seat is no total)."""
    return [p for key in engine.get_game(game).carried if key != "dealer" for p in int_leaves(state[key], (key,))]


def add(state: dict[str, Any], path: Path, amount: int) -> None:
    """Change the number at ``path`` by ``amount`` in the state and, alike, in its record of the carried values."""
    for holder in (state, state["before"]):
        *inner, last = path
        for step in inner:
            holder = holder[step]
        holder[last] += amount


def assert_refused(game: str, state: dict[str, Any], move: dict[str, Any], because: str | None = None) -> None:
    """Each endpoint refuses ``state`` with ``invalid_state`` (and a detail saying ``because``, when given)."""
    for path, body in (("move", {"state": state, "move": move}), ("legal-moves", {"state": state}),
                       ("view", {"state": state, "seat": None})):
        status, answer = post(f"/v1/games/{game}/{path}", body)
        assert status == 422 and answer["code"] == "invalid_state", (path, answer)
        assert because is None or because in answer["detail"], answer


def test_jewel_scores_moved_before_the_first_deal_are_refused() -> None:
    start = fresh("jewel", 4)
    state = engine.clone(start["state"])
    state["scores"] = [1, 0, 0, -1]
    state["before"]["scores"] = [1, 0, 0, -1]
    assert_refused("jewel", state, start["move"], "before the first deal")


def test_a_klaberjass_held_pool_before_the_first_deal_is_refused() -> None:
    start = fresh("klaberjass", 2)
    assert start["state"]["before"]["dealings"] == 0
    state = engine.clone(start["state"])
    add(state, ("held",), 1)
    assert_refused("klaberjass", state, start["move"], "before the first deal")


def test_the_untouched_states_are_answered() -> None:
    """The counterpart: the same requests on the states as /new gave them succeed, so the refusals above come
    from the changed totals."""
    for game in GAMES:
        start = fresh(game, engine.get_game(game).min_players)
        for path, body in (("move", {"state": start["state"], "move": start["move"]}),
                           ("legal-moves", {"state": start["state"]}), ("view", {"state": start["state"]})):
            status, answer = post(f"/v1/games/{game}/{path}", body)
            assert status == 200, (game, path, answer)


@pytest.mark.parametrize("game", GAMES)
def test_every_total_raised_before_the_first_deal_is_refused(game: str) -> None:
    start = fresh(game, engine.get_game(game).min_players)
    paths = totals(game, start["state"])
    assert paths, f"{game} carries no total"
    for path in paths:
        state = engine.clone(start["state"])
        add(state, path, 1)
        assert_refused(game, state, start["move"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_total_changed_before_the_first_deal_is_refused(data: st.DataObject) -> None:
    """A state of some game's first deal, from /new with any table size, with a total raised by some amount,
    or moved from one entry of a list to another (a sum kept, as in a zero-sum score)."""
    game = data.draw(st.sampled_from(GAMES))
    spec = engine.get_game(game)
    start = fresh(game, data.draw(st.integers(spec.min_players, spec.max_players)))
    state = engine.clone(start["state"])
    path = data.draw(st.sampled_from(totals(game, state)))
    amount = data.draw(st.integers(1, 1000))
    add(state, path, amount)
    siblings = [p for p in totals(game, state) if len(p) > 1 and p[:-1] == path[:-1] and p != path]
    if siblings and data.draw(st.booleans()):
        add(state, data.draw(st.sampled_from(siblings)), -amount)
    assert_refused(game, state, start["move"])
