"""Sealed states (SEALING_KEY): clients hold states they can neither read nor alter.

Proves: every game's states survive sealing exactly (a sealed match plays like a plain one); a sealed state
shows nothing a spectator could not see (no hand, stock, seed or pending deal); any change to any part
is 422 state_tampered, with an error body that shows no hidden card; a state sealed under another key, or
for another game, is refused; sealed states skip the deep validation; without a key, sealed states are
refused clearly.
"""
from __future__ import annotations

import base64
import copy
import os
import random
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import engine
from service.api.states.sealing import SealedCodec
from tests.engine.playout import cards_in
from service.app import create_app
from service.config import Config
from tests.engine.playout import concrete

KEY = os.urandom(32)
GAMES = sorted(engine.all_games())


def sealed_app(key: bytes = KEY) -> Flask:
    return create_app(Config(sealing_key=key, testing=True, log_level="WARNING"))


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return sealed_app().test_client()


def cards(value: Any) -> set[str]:
    return set(cards_in(value))


# Long enough that no random base64url box could hold it by chance (a 4-digit seed once did).
SEED = "5eed" * 8


def new(client: FlaskClient, game: str, seed: str = SEED) -> dict[str, Any]:
    resp = client.post(f"/v1/games/{game}/new", json={"seed": seed})
    assert resp.status_code == 201, resp.get_json()
    env: dict[str, Any] = resp.get_json()
    return env


def problem(resp: Any, code: str, status: int = 422) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_json()
    body: dict[str, Any] = resp.get_json()
    assert body["code"] == code and resp.mimetype == "application/problem+json"
    return body


@pytest.mark.parametrize("game", GAMES)
def test_a_sealed_match_plays_exactly_like_a_plain_one(client: FlaskClient, game: str) -> None:
    """40 moves through /move with sealed states; the engine, fed the same moves in the clear, agrees at
    every step; every sealed state shows only the spectator's cards."""
    env = new(client, game)
    plain = engine.new_match(game, None, {}, SEED)
    rng = random.Random(game)
    for _ in range(40):
        sealed = env["state"]
        assert set(sealed) == {"sealed", "kid", "game", "view", "box"}
        assert sealed["view"] == orjson.loads(orjson.dumps(engine.view(plain, None)))
        assert cards(sealed) <= cards(engine.view(plain, None))
        assert plain["seed"] not in orjson.dumps(sealed).decode()
        assert env["legal_moves"] == engine.legal_moves(plain)
        if env["finished"]:
            break
        move = concrete(rng.choice(env["legal_moves"]), rng)
        resp = client.post(f"/v1/games/{game}/move", json={"state": sealed, "move": move})
        assert resp.status_code == 200, resp.get_json()
        env = resp.get_json()
        plain, _ = engine.apply(plain, move)
    view = client.post(f"/v1/games/{game}/view", json={"state": env["state"], "seat": 1}).get_json()
    assert view["view"] == orjson.loads(orjson.dumps(engine.view(plain, 1)))
    legal = client.post(f"/v1/games/{game}/legal-moves", json={"state": env["state"]}).get_json()
    assert legal["legal_moves"] == engine.legal_moves(plain)


def test_every_sealing_is_fresh_and_opens_to_the_same_state() -> None:
    codec = SealedCodec(KEY)
    state = engine.new_match("femkort", 4, {}, "abc")
    (a, tag_a), (b, tag_b) = codec.dump(state), codec.dump(state)
    assert tag_a is tag_b is None  # a sealed state needs no tag
    assert a["box"] != b["box"]  # a new nonce every time
    assert codec.load("femkort", a) == codec.load("femkort", b) == state


def tampered_variants(sealed: dict[str, Any], other: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    box = base64.urlsafe_b64decode(sealed["box"] + "=" * (-len(sealed["box"]) % 4))
    for i in (0, 5, 20, len(box) // 2, len(box) - 1):  # a flipped bit in the nonce, ciphertext and tag
        flipped = bytearray(box)
        flipped[i] ^= 1
        out.append({**sealed, "box": base64.urlsafe_b64encode(bytes(flipped)).rstrip(b"=").decode()})
    out.append({**sealed, "box": sealed["box"][:-10]})
    out.append({**sealed, "box": "***not base64***"})
    out.append({**sealed, "box": ""})
    view = copy.deepcopy(sealed["view"])
    view["pot"] = view.get("pot", 0) + 1
    out.append({**sealed, "view": view})
    view = copy.deepcopy(sealed["view"])
    view["hands"][0] = ["AS", "KS", "QS", "JS", "TS"]
    out.append({**sealed, "view": view})
    out.append({**sealed, "kid": "00000000"})
    out.append({**sealed, "sealed": "cr2"})
    out.append({**sealed, "box": other["box"]})  # another state's secrets under this state's view
    out.append({k: v for k, v in sealed.items() if k != "kid"})
    out.append({**sealed, "extra": 1})
    out.append({**sealed, "view": "nope"})
    out.append({**sealed, "box": 12})
    out.append(engine.new_match("femkort", 4, {}, "abc"))  # a plain state: refused when sealing is on
    out.append({"garbage": True})
    return out


def test_any_change_to_a_sealed_state_is_state_tampered(client: FlaskClient) -> None:
    env = new(client, "femkort", "abc")
    start = new(client, "femkort", "abd")
    other = client.post("/v1/games/femkort/move", json={"state": start["state"], "move": start["legal_moves"][0]})
    secret = cards(engine.new_match("femkort", 4, {}, "abc")) - cards(env["state"]["view"])
    move = env["legal_moves"][0]
    for bad in tampered_variants(env["state"], other.get_json()["state"]):
        for path, body in (("move", {"state": bad, "move": move}), ("view", {"state": bad, "seat": 0}),
                           ("legal-moves", {"state": bad})):
            resp = client.post(f"/v1/games/femkort/{path}", json=body)
            err = problem(resp, "state_tampered")
            assert not cards(err) & secret and "Traceback" not in resp.get_data(as_text=True)


def test_a_box_moved_under_an_identical_view_is_just_that_other_state(client: FlaskClient) -> None:
    """Two fresh deals look the same to a spectator: one's box under the other's view opens to exactly
    the other sealed state (something the client could send anyway), never to a mixture."""
    a, b = new(client, "femkort", "abc"), new(client, "femkort", "abd")
    assert a["state"]["view"] == b["state"]["view"]
    codec = client.application.extensions["state_codec"]
    assert codec.load("femkort", {**a["state"], "box": b["state"]["box"]}) == engine.new_match("femkort", None, {},
                                                                                               "abd")


def test_a_changed_game_fails_authentication_and_another_games_path_is_refused(client: FlaskClient) -> None:
    env = new(client, "femkort")
    problem(client.post("/v1/games/femkort/move", json={"state": {**env["state"], "game": "toepen"},
                                                        "move": env["legal_moves"][0]}), "state_tampered")
    body = problem(client.post("/v1/games/toepen/view", json={"state": env["state"]}), "invalid_state")
    assert "femkort" in body["detail"]


def test_a_state_sealed_under_another_key_is_refused() -> None:
    first = sealed_app(os.urandom(32)).test_client()
    second = sealed_app(os.urandom(32)).test_client()
    env = new(first, "femkort")
    body = problem(second.post("/v1/games/femkort/view", json={"state": env["state"]}), "state_tampered")
    assert "different key" in body["detail"]


def test_without_a_key_sealed_states_are_refused_and_plain_ones_work(client: FlaskClient) -> None:
    plain_client = create_app(Config(testing=True, log_level="WARNING")).test_client()
    env = new(client, "femkort")
    body = problem(plain_client.post("/v1/games/femkort/view", json={"state": env["state"]}), "invalid_state")
    assert "sealed" in body["detail"]
    plain = new(plain_client, "femkort")
    assert "hands" in plain["state"] and "seed" in plain["state"]


def test_sealed_states_skip_the_deep_validation(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    env = new(client, "femkort")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a sealed state was validated again")

    monkeypatch.setattr(engine, "check_state", refuse)
    resp = client.post("/v1/games/femkort/move", json={"state": env["state"], "move": env["legal_moves"][0]})
    assert resp.status_code == 200


def test_replay_answers_a_sealed_final_state(client: FlaskClient) -> None:
    env = new(client, "femkort", "77")
    plain = engine.new_match("femkort", None, {}, "77")
    moves = []
    rng = random.Random(1)
    while not engine.is_finished(plain):
        move = rng.choice(engine.legal_moves(plain))
        plain, _ = engine.apply(plain, move)
        moves.append(move)
    resp = client.post("/v1/games/femkort/replay", json={"seed": "77", "moves": moves})
    out = resp.get_json()
    assert resp.status_code == 200 and out["result"] == engine.match_result(plain)
    assert set(out["state"]) == {"sealed", "kid", "game", "view", "box"} and "77" != out["state"]["box"]
    assert env["state"]["kid"] == out["state"]["kid"]


def test_the_key_comes_from_the_environment() -> None:
    raw = base64.urlsafe_b64encode(KEY).decode().rstrip("=")
    app = create_app(Config.from_env({"SEALING_KEY": raw, "LOG_LEVEL": "WARNING"}))
    assert isinstance(app.extensions["state_codec"], SealedCodec)
    assert app.extensions["state_codec"].kid == SealedCodec(KEY).kid
