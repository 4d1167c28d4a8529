"""Integrity mode for stateless play (REQUIRE_STATE_TAG=1, docs/integrity.md): a plain state is taken only
with the tag this service gave it, so a client carrying its own game cannot swap cards, move chips or change
options, however consistent its forgery.

Without the mode, a forged but self-consistent state (two seats' cards swapped, a different ante) passes the
full check and is adjudicated as the forger wants: the first test shows that, and that the mode refuses it.
"""
from __future__ import annotations

import os
import random
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from service import engine
from service.app import create_app
from service.config import Config, ConfigError
from tests.engine.playout import concrete

KEY = os.urandom(32)
GAMES = sorted(engine.all_games())


def client_for(**config: Any) -> FlaskClient:
    return create_app(Config(state_tag_key=KEY, testing=True, log_level="WARNING", **config)).test_client()


def post(client: FlaskClient, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    resp = client.post(path, data=orjson.dumps(body), content_type="application/json")
    return resp.status_code, resp.get_json()


def consistent_forgeries() -> list[dict[str, Any]]:
    """States the full check cannot tell from real ones, because they are real states of another match: the
    forger deals them itself, with the options it likes (a higher ante) or a seed it picked for its cards."""
    return [engine.new_match("femkort", 3, {"ante": 50}, "c0ffee"), engine.new_match("femkort", 3, {}, "beef")]


@pytest.mark.parametrize("forged", consistent_forgeries())
def test_a_consistent_forgery_passes_without_the_mode_and_is_refused_with_it(forged: dict[str, Any]) -> None:
    plain, strict = client_for(), client_for(require_state_tag=True)
    move = engine.legal_moves(forged)[0]
    for client in (plain, strict):
        status, env = post(client, "/v1/games/femkort/new", {"players": 3, "seed": "c0ffee"})
        assert status == 201 and env["state"] != forged
        status, body = post(client, "/v1/games/femkort/move", {"state": forged, "move": move})
        if client is plain:
            assert status == 200, body  # the full check cannot tell: the forger gets its way
        else:
            assert (status, body["code"]) == (422, "state_tampered"), body
        status, body = post(client, "/v1/games/femkort/move", {"state": forged, "state_tag": env["state_tag"],
                                                               "move": move})
        assert status == (200 if client is plain else 422), body


@pytest.mark.parametrize("path, extra", [("move", None), ("legal-moves", {"seat": 1}), ("view", {"seat": None})])
def test_every_endpoint_that_takes_a_state_wants_its_tag(path: str, extra: dict[str, Any] | None) -> None:
    client = client_for(require_state_tag=True)
    _, env = post(client, "/v1/games/femkort/new", {"players": 3, "seed": "c0ffee"})
    body: dict[str, Any] = dict(extra or {"move": env["legal_moves"][0]})
    status, answer = post(client, f"/v1/games/femkort/{path}", {"state": env["state"], **body})
    assert (status, answer["code"]) == (422, "state_tampered") and "state_tag" in answer["detail"]
    for tag in ("", "t1.AAAA", env["state_tag"][:-2] + "AA"):
        status, answer = post(client, f"/v1/games/femkort/{path}", {"state": env["state"], "state_tag": tag, **body})
        assert (status, answer["code"]) == (422, "state_tampered")
    status, answer = post(client, f"/v1/games/femkort/{path}", {"state": env["state"], "state_tag": env["state_tag"],
                                                                **body})
    assert status == 200, answer
    reordered = dict(reversed(list(env["state"].items())))  # the same state, other bytes: not what was tagged
    status, answer = post(client, f"/v1/games/femkort/{path}", {"state": reordered, "state_tag": env["state_tag"],
                                                                **body})
    assert (status, answer["code"]) == (422, "state_tampered")


@pytest.mark.parametrize("game", GAMES)
def test_whole_matches_play_in_integrity_mode(game: str) -> None:
    client = client_for(require_state_tag=True)
    rng = random.Random(game)
    status, env = post(client, f"/v1/games/{game}/new", {"seed": "5eed"})
    assert status == 201
    for _ in range(80):
        if env["finished"]:
            break
        move = concrete(rng.choice(env["legal_moves"]), rng)
        status, env = post(client, f"/v1/games/{game}/move", {"state": env["state"], "state_tag": env["state_tag"],
                                                              "move": move})
        assert status == 200, env


def test_replay_and_new_need_no_tag_and_instances_sharing_the_key_trust_each_other() -> None:
    one, two = client_for(require_state_tag=True), client_for(require_state_tag=True)
    status, env = post(one, "/v1/games/femkort/replay", {"players": 3, "seed": "c0ffee", "moves": []})
    assert status == 200
    status, _ = post(two, "/v1/games/femkort/move", {"state": env["state"], "state_tag": env["state_tag"],
                                                     "move": env["legal_moves"][0]})
    assert status == 200


def test_sealed_states_are_already_integrity_protected_and_the_mode_changes_nothing() -> None:
    client = client_for(require_state_tag=True, sealing_key=os.urandom(32))
    _, env = post(client, "/v1/games/femkort/new", {"players": 3, "seed": "c0ffee"})
    assert "state_tag" not in env
    status, _ = post(client, "/v1/games/femkort/move", {"state": env["state"], "move": env["legal_moves"][0]})
    assert status == 200
    plain = engine.new_match("femkort", 3, {}, "c0ffee")
    status, body = post(client, "/v1/games/femkort/move", {"state": plain, "move": env["legal_moves"][0]})
    assert (status, body["code"]) == (422, "state_tampered")


def test_the_mode_needs_a_shared_key() -> None:
    with pytest.raises(ConfigError, match="REQUIRE_STATE_TAG needs STATE_TAG_KEY"):
        Config.from_env({"REQUIRE_STATE_TAG": "1"})
    with pytest.raises(ConfigError, match="REQUIRE_STATE_TAG"):
        Config.from_env({"REQUIRE_STATE_TAG": "maybe", "STATE_TAG_KEY": "q" * 43})
    assert Config.from_env({"REQUIRE_STATE_TAG": "1", "STATE_TAG_KEY": "q" * 43}).require_state_tag
    assert Config.from_env({"REQUIRE_STATE_TAG": "true", "SEALING_KEY": "q" * 43}).require_state_tag
    assert not Config.from_env({"REQUIRE_STATE_TAG": "0"}).require_state_tag
