"""Requests a hostile or careless client sends: each answered with the documented 2xx or 4xx, never a 500.

Each test here failed before the fix it pins (issue 15): deeply nested move parameters (a RecursionError, or
orjson's nesting limit in the Idempotency-Key's fingerprint), whole numbers written as ``5.0``, a tiny
``wait``, player counts out of range answered two ways, short session seeds, and /readyz failing the
stateless endpoints with Redis.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.redis_server import RedisServer

SEED = "5eed" * 8
PROBLEM = "application/problem+json"


def is_problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    assert resp.mimetype == PROBLEM
    body: dict[str, Any] = resp.get_json()
    assert body["code"] == code and body["status"] == status
    return body


def nested(levels: int) -> Any:
    value: Any = "TH"
    for _ in range(levels):
        value = [value]
    return value


@pytest.fixture
def client(make_app: Callable[..., Flask]) -> FlaskClient:
    return make_app().test_client()


def session(client: FlaskClient, **spec: Any) -> tuple[str, list[str], dict[str, Any]]:
    resp = client.post("/v1/sessions", json={"game": "femkort", "players": 3, "seed": SEED, **spec})
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    sid, tokens = body["id"], [s["token"] for s in body["seats"]]
    view = client.get(f"/v1/sessions/{sid}").get_json()
    return sid, tokens, view


@pytest.mark.parametrize("levels, key", [(1000, None), (300, None), (254, "deep-1"), (20, "deep-2")])
def test_a_deeply_nested_move_parameter_is_400_not_500(client: FlaskClient, levels: int, key: str | None) -> None:
    sid, tokens, view = session(client)
    seat = view["to_act"][0]
    body = with_nested_card({"move": {"seat": seat, "action": "play", "card": "NESTED"}}, levels)
    headers = {"Authorization": f"Bearer {tokens[seat]}", "Content-Type": "application/json",
               **({"Idempotency-Key": key} if key else {})}
    found = is_problem(client.post(f"/v1/sessions/{sid}/moves", data=body, headers=headers), 400, "invalid_request")
    assert "nested" in found["detail"]
    stateless = create_app(Config(testing=True)).test_client()
    state = stateless.post("/v1/games/femkort/new", json={"players": 3, "seed": "c0ffee"}).get_json()["state"]
    resp = stateless.post(
        "/v1/games/femkort/move", data=with_nested_card({"state": state, "move": {"seat": 1, "action": "play",
                                                                                  "card": "NESTED"}}, levels),
        headers={"Content-Type": "application/json"})
    is_problem(resp, 400, "invalid_request")


def with_nested_card(body: dict[str, Any], levels: int) -> bytes:
    """``body`` as JSON with its move's card wrapped in ``levels`` lists (written as text: orjson stops at 254
    levels on the way out, and a recursive writer at Python's recursion limit)."""
    text = orjson.dumps(body).replace(b'"NESTED"', b"[" * levels + b'"TH"' + b"]" * levels)
    assert text.count(b"[") >= levels
    return text


def test_a_move_as_deep_as_real_moves_get_is_judged(client: FlaskClient) -> None:
    sid, tokens, view = session(client)
    seat = view["to_act"][0]
    resp = client.post(f"/v1/sessions/{sid}/moves", json={"move": {"seat": seat, "action": "play",
                                                                   "card": nested(7)}},
                       headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert is_problem(resp, 422, "illegal_move")["reason"] == "invalid_parameters"


def test_whole_numbers_written_with_a_point_are_whole_numbers(client: FlaskClient) -> None:
    stateless = create_app(Config(testing=True)).test_client()
    env = stateless.post("/v1/games/femkort/new", json={"players": 5.0, "seed": "c0ffee"})
    assert env.status_code == 201 and len(env.get_json()["state"]["hands"]) == 5
    state = env.get_json()["state"]
    is_problem(stateless.post("/v1/games/femkort/legal-moves", json={"state": state, "seat": 536.0}), 422,
               "invalid_request")
    legal = stateless.post("/v1/games/femkort/legal-moves", json={"state": state, "seat": 1.0})
    assert legal.status_code == 200 and legal.get_json()["legal_moves"]
    is_problem(stateless.post("/v1/games/femkort/legal-moves", json={"state": state, "seat": 1.5}), 400,
               "invalid_request")
    is_problem(stateless.post("/v1/games/femkort/legal-moves", json={"state": state, "seat": True}), 400,
               "invalid_request")
    created = client.post("/v1/sessions", json={"game": "femkort", "players": 4.0, "seed": SEED})
    assert created.status_code == 201 and created.get_json()["players"] == 4
    body = created.get_json()
    sid, tokens = body["id"], [s["token"] for s in body["seats"]]
    seat = client.get(f"/v1/sessions/{sid}").get_json()["to_act"][0]
    move = client.get(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[seat]}"}
                      ).get_json()["legal_moves"][0]
    moved = client.post(f"/v1/sessions/{sid}/moves", json={"move": move, "version": 0.0},
                        headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert moved.status_code == 200 and moved.get_json()["version"] == 1


@pytest.mark.parametrize("players", [0, 1, 11, 65, -3, 2**62])
def test_a_player_count_out_of_range_is_always_422(client: FlaskClient, players: int) -> None:
    stateless = create_app(Config(testing=True)).test_client()
    body = is_problem(stateless.post("/v1/games/femkort/new", json={"players": players}), 422, "invalid_request")
    assert "2 to 10 players" in body["detail"]
    is_problem(stateless.post("/v1/games/femkort/replay", json={"players": players, "moves": []}), 422,
               "invalid_request")
    is_problem(client.post("/v1/sessions", json={"game": "femkort", "players": players}), 422, "invalid_request")


def test_any_small_wait_is_a_number_of_seconds(client: FlaskClient) -> None:
    sid, _, _ = session(client)
    for wait in ("5e-324", "0.000001", "1E-3", "0", "-0.0", "2.5"):
        resp = client.get(f"/v1/sessions/{sid}?after=5&wait={wait}")
        assert resp.status_code == 200, (wait, resp.get_json())
    for wait in ("-1", "nan", "inf", "1e10", "0x10", ""):
        is_problem(client.get(f"/v1/sessions/{sid}?after=5&wait={wait}"), 400, "invalid_request")


def test_a_session_seed_has_128_bits_at_least(client: FlaskClient) -> None:
    for short in ("a", "c0ffee", "f" * 31):
        body = is_problem(client.post("/v1/sessions", json={"game": "femkort", "seed": short}), 400,
                          "invalid_request")
        assert "128 bits" in body["detail"]
    assert client.post("/v1/sessions", json={"game": "femkort", "seed": "F" * 32}).status_code == 201
    assert client.post("/v1/sessions", json={"game": "femkort"}).status_code == 201  # the service draws 128 bits
    stateless = create_app(Config(testing=True)).test_client()  # no commitment there: any seed will do
    assert stateless.post("/v1/games/femkort/new", json={"seed": "c0ffee"}).status_code == 201


def test_readyz_stays_ready_while_redis_is_down() -> None:
    """Kubernetes takes a pod out of its Service when /readyz fails; the stateless endpoints need no Redis,
    so a Redis outage must not do that. The body says whether sessions can be served."""
    with RedisServer() as server:
        app = create_app(Config(redis_url=server.url, redis_timeout=0.3, testing=True))
        client = app.test_client()
        assert client.get("/readyz").get_json() == {"status": "ready", "store": "redis", "sessions": "ok"}
        server.kill()
        resp = client.get("/readyz")
        assert resp.status_code == 200 and resp.get_json()["sessions"] == "unavailable"
        assert client.post("/v1/games/femkort/new", json={"seed": "c0ffee"}).status_code == 201
        is_problem(client.post("/v1/sessions", json={"game": "femkort"}), 503, "store_unavailable")
