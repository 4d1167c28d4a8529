"""State tags: a plain state the service produced, sent back unchanged with its tag, skips the full check.

Proves: every envelope with a plain state carries a tag over exactly the state's bytes; with the tag the
answer is the same as without it, and the full check is not run; any change to the state, a tag for
another game's path, another key's tag or a garbled tag falls back to the full check (so a forged state
is still refused); instances sharing STATE_TAG_KEY trust each other's tags; sealed states carry no tag;
a bad STATE_TAG_KEY stops the service at start.
"""
from __future__ import annotations

import base64
import copy
import hmac
import os
import random
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import engine
from service.api.states import codec
from service.app import create_app
from service.config import Config, ConfigError
from tests.engine.playout import concrete

KEY = os.urandom(32)
GAMES = sorted(engine.all_games())


def app_with(key: bytes | None = KEY, **more: Any) -> Flask:
    return create_app(Config(state_tag_key=key, testing=True, log_level="WARNING", **more))


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return app_with().test_client()


@pytest.fixture
def no_full_check(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the full check fail loudly, recording every call, and never carry a check on from a state the
    process kept: a request that needs its state checked answers 422."""
    calls: list[str] = []

    def refuse(game_id: str, raw: Any, **_: Any) -> None:
        calls.append(game_id)
        raise engine.InvalidState("full check called")
    monkeypatch.setattr(codec.engine, "check_state", refuse)
    monkeypatch.setattr(codec.engine, "resume", lambda kept, state: None)
    return calls


def post(client: FlaskClient, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    resp = client.post(path, data=orjson.dumps(body), content_type="application/json")
    return resp.status_code, resp.get_json()


def new(client: FlaskClient, game: str, seed: str = "7a6") -> dict[str, Any]:
    status, env = post(client, f"/v1/games/{game}/new", {"seed": seed})
    assert status == 201, env
    return env


@pytest.mark.parametrize("size", [0, 1, 2046, 2047, 2048, 4094, 4095, 10_000])
def test_a_tag_is_the_hmac_sha256_of_the_game_and_the_state_bytes(size: int) -> None:
    """The tag is fed to the MAC in slices (so hashing never lets go of the GIL); whatever the length, it is
    still HMAC-SHA256(key, domain + game + NUL + state bytes), as docs/architecture.md says."""
    state_json = bytes(random.Random(size).randrange(256) for _ in range(size))
    tagger = codec.StateTagger(KEY)
    for game in ("femkort", "no-such-game"):  # a catalogue game's keyed context is kept; any other is made
        expected = hmac.digest(KEY, codec.TAG_DOMAIN + game.encode() + b"\x00" + state_json, "sha256")
        for _ in range(2):  # the keyed MAC is copied, never used up
            tag = tagger.tag(game, state_json)
            assert tag.startswith(codec.TAG_PREFIX)
            assert base64.urlsafe_b64decode(tag[len(codec.TAG_PREFIX):] + "=") == expected


@pytest.mark.parametrize("key", [b"k", bytes(range(32)), bytes(range(64)), bytes(range(65)), bytes(range(100))], ids=len)
def test_the_tags_of_real_states_are_hmac_sha256_under_keys_of_every_length(key: bytes) -> None:
    """Keys shorter than SHA-256's 64-byte block are padded, as long ones used as they are, longer ones hashed
    first (RFC 2104): tagged states of every game, some past the 2 KiB slices, under each."""
    tagger = codec.StateTagger(key)
    rng = random.Random(len(key))
    for game in GAMES:
        state = engine.new_match(game, engine.get_game(game).default_players, {}, "5eed")
        for _ in range(rng.randrange(1, 40)):
            if engine.is_finished(state):
                break
            state, _ = engine.apply(state, concrete(rng.choice(engine.legal_moves(state)), rng))
        state_json = orjson.dumps(state)
        expected = hmac.digest(key, codec.TAG_DOMAIN + game.encode() + b"\x00" + state_json, "sha256")
        assert tagger.tag(game, state_json) == codec.TAG_PREFIX + base64.urlsafe_b64encode(expected).decode()[:43]


@pytest.mark.parametrize("game", GAMES)
def test_a_match_played_with_tags_never_needs_the_full_check(client: FlaskClient, no_full_check: list[str],
                                                             game: str) -> None:
    rng = random.Random(game)
    env = new(client, game)
    for _ in range(60):
        if env["finished"]:
            break
        state_json = orjson.dumps(env["state"])
        assert env["state_tag"] == codec.StateTagger(KEY).tag(game, state_json)
        for path, extra in (("legal-moves", {}), ("view", {"seat": 0})):
            status, body = post(client, f"/v1/games/{game}/{path}",
                                {"state": env["state"], "state_tag": env["state_tag"], **extra})
            assert status == 200, body
        move = concrete(rng.choice(env["legal_moves"]), rng)
        status, env = post(client, f"/v1/games/{game}/move",
                           {"state": env["state"], "state_tag": env["state_tag"], "move": move})
        assert status == 200, env
    assert no_full_check == []


def test_the_answer_is_the_same_with_and_without_the_tag(client: FlaskClient) -> None:
    env = new(client, "tomato")
    move = env["legal_moves"][0]
    _, tagged = post(client, "/v1/games/tomato/move", {"state": env["state"], "state_tag": env["state_tag"],
                                                       "move": move})
    _, plain = post(client, "/v1/games/tomato/move", {"state": env["state"], "move": move})
    assert tagged == plain


def forgeries(state: dict[str, Any]) -> list[dict[str, Any]]:
    """A state changed in ways the full check refuses: a duplicated card, a seat count, a reordering."""
    dup = copy.deepcopy(state)
    dup["hands"][0][0] = dup["hands"][1][0]
    players = copy.deepcopy(state)
    players["players"] += 1
    return [dup, players]


def test_a_changed_state_with_the_old_tag_is_checked_in_full(client: FlaskClient) -> None:
    env = new(client, "femkort")
    move = env["legal_moves"][0]
    for forged in forgeries(env["state"]):
        status, body = post(client, "/v1/games/femkort/move", {"state": forged, "state_tag": env["state_tag"],
                                                               "move": move})
        assert (status, body["code"]) == (422, "invalid_state"), body


def test_a_reordered_state_is_still_accepted_after_the_full_check(client: FlaskClient, no_full_check: list[str]
                                                                   ) -> None:
    env = new(client, "femkort")
    reordered = dict(reversed(list(env["state"].items())))
    status, body = post(client, "/v1/games/femkort/legal-moves", {"state": reordered, "state_tag": env["state_tag"]})
    assert status == 422 and no_full_check == ["femkort"], body  # the tag did not match: the full check ran


@pytest.mark.parametrize("tag", ["", "t1.", "t1.AAAA", "x" * 300, "t2." + "A" * 43])
def test_garbled_tags_fall_back_to_the_full_check(client: FlaskClient, no_full_check: list[str], tag: str) -> None:
    env = new(client, "zwikken")
    status, body = post(client, "/v1/games/zwikken/view", {"state": env["state"], "state_tag": tag, "seat": 0})
    assert (status, body["code"]) == (422, "invalid_state") and no_full_check == ["zwikken"]


def test_a_tag_is_bound_to_the_game_of_the_path(client: FlaskClient, no_full_check: list[str]) -> None:
    env = new(client, "irish_loo")
    status, _ = post(client, "/v1/games/three_card_loo/legal-moves",
                     {"state": env["state"], "state_tag": env["state_tag"]})
    assert status == 422 and no_full_check == ["three_card_loo"]


def test_a_tag_that_is_not_a_string_is_a_bad_request(client: FlaskClient) -> None:
    env = new(client, "toepen")
    status, body = post(client, "/v1/games/toepen/legal-moves", {"state": env["state"], "state_tag": 7})
    assert (status, body["code"]) == (400, "invalid_request")


def test_instances_sharing_the_key_trust_each_other(no_full_check: list[str]) -> None:
    first, second, other = app_with().test_client(), app_with().test_client(), app_with(os.urandom(32)).test_client()
    env = new(first, "norrlandsknack")
    body = {"state": env["state"], "state_tag": env["state_tag"]}
    assert post(second, "/v1/games/norrlandsknack/legal-moves", body)[0] == 200
    assert post(other, "/v1/games/norrlandsknack/legal-moves", body)[0] == 422
    assert no_full_check == ["norrlandsknack"]


def test_without_a_configured_key_each_app_draws_its_own() -> None:
    one, two = app_with(None).test_client(), app_with(None).test_client()
    env = new(one, "femkort")
    assert env["state_tag"] != new(two, "femkort")["state_tag"]


def test_sealed_states_carry_no_tag() -> None:
    sealed = app_with(sealing_key=os.urandom(32)).test_client()
    env = new(sealed, "davoserjazz")
    assert "state_tag" not in env and env["state"]["sealed"] == "cr1"


@pytest.mark.parametrize("raw", ["short", "!!!!", "QUJD"])
def test_a_bad_state_tag_key_stops_the_service(raw: str) -> None:
    with pytest.raises(ConfigError, match="STATE_TAG_KEY"):
        Config.from_env({"STATE_TAG_KEY": raw})
