"""Limits that protect the store and quotas per client (docs/configuration.md, "Limits and quotas"), on a private Redis.

Before them one client could create any number of sessions, each with any number of explicit deals (13,588
were taken for a match that uses at most 1,000: 9 MB in Redis for a day, 4 MB more in the append-only file on
every move), and grow a session's log without end.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from service.config import Quota
from tests.redis_server import RedisServer

SEED = "5eed" * 8
PACK = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def deal(rng: random.Random, players: int = 3) -> dict[str, Any]:
    """A valid explicit Femkort deal: five cards a hand, the rest of the pack below."""
    cards = PACK[:]
    rng.shuffle(cards)
    return {"hands": [cards[5 * i:5 * i + 5] for i in range(players)], "rest": cards[5 * players:]}


def is_problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    assert resp.mimetype == "application/problem+json"
    body: dict[str, Any] = resp.get_json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    return body


def test_explicit_deals_are_capped_everywhere(make_app: Callable[..., Flask]) -> None:
    rng = random.Random(1)
    client = make_app(max_deals=5).test_client()
    deals = [deal(rng) for _ in range(6)]
    options = {"deals": 6}
    for path, extra in (("/v1/sessions", {"game": "femkort"}), ("/v1/games/femkort/new", {}),
                        ("/v1/games/femkort/replay", {"moves": []})):
        body = is_problem(client.post(path, json={"players": 3, "options": options, "deals": deals, **extra}),
                          422, "limit_exceeded")
        assert body["limit"] == "deals" and "MAX_DEALS" in body["detail"]
        is_problem(client.post(path, json={"players": 3, "options": options, "deal": deals[0], "deals": deals[1:],
                                           **extra}), 422, "limit_exceeded")
        ok = client.post(path, json={"players": 3, "options": options, "deals": deals[:5], **extra})
        assert ok.status_code in (200, 201), ok.get_json()
    created = client.post("/v1/sessions", json={"game": "femkort", "players": 3, "deals": deals[:5],
                                                "options": options}).get_json()
    assert created["explicit_deals"] == 5


def test_explicit_deals_are_capped_at_what_the_match_can_deal(make_app: Callable[..., Flask]) -> None:
    """A three-deal Femkort match deals three times: a fourth explicit deal could never be used. With the
    call for better cards a deal can be dealt again any number of times, so there is no such bound."""
    rng = random.Random(3)
    client = make_app().test_client()
    deals = [deal(rng) for _ in range(4)]
    for path, extra in (("/v1/sessions", {"game": "femkort"}), ("/v1/games/femkort/new", {}),
                        ("/v1/games/femkort/replay", {"moves": []})):
        body = is_problem(client.post(path, json={"players": 3, "options": {"deals": 3}, "deals": deals, **extra}),
                          422, "limit_exceeded")
        assert body["limit"] == "deals" and "at most 3 times" in body["detail"]
        for options, count in (({"deals": 3}, 3), ({"deals": 3, "better_cards": True}, 4)):
            ok = client.post(path, json={"players": 3, "options": options, "deals": deals[:count], **extra})
            assert ok.status_code in (200, 201), ok.get_json()


def test_the_default_cap_refuses_what_was_taken_before(make_app: Callable[..., Flask]) -> None:
    """The default MAX_DEALS (100): 101 deals for a match of 1,000 deals are refused before any is checked."""
    rng = random.Random(2)
    client = make_app().test_client()
    deals = [deal(rng) for _ in range(101)]
    body = is_problem(client.post("/v1/sessions", json={"game": "femkort", "players": 3, "deals": deals,
                                                        "options": {"deals": 1000}}), 422, "limit_exceeded")
    assert body["limit"] == "deals"


def test_a_session_larger_than_its_bound_is_not_stored(make_app: Callable[..., Flask]) -> None:
    rng = random.Random(3)
    client = make_app(max_session_bytes=6000).test_client()
    assert client.post("/v1/sessions", json={"game": "femkort", "players": 3}).status_code == 201
    body = is_problem(client.post("/v1/sessions", json={"game": "femkort", "players": 3, "options": {"deals": 20},
                                                        "deals": [deal(rng) for _ in range(20)]}),
                      422, "limit_exceeded")
    assert body["limit"] == "session_bytes" and "MAX_SESSION_BYTES" in body["detail"]


def test_a_session_takes_max_moves_and_no_more(make_app: Callable[..., Flask]) -> None:
    client = make_app(max_moves=3).test_client()
    created = client.post("/v1/sessions", json={"game": "femkort", "players": 3, "seed": SEED}).get_json()
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]

    def next_move() -> tuple[int, dict[str, Any]]:
        seat = client.get(f"/v1/sessions/{sid}").get_json()["to_act"][0]
        view = client.get(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
        return seat, view["legal_moves"][0]

    for _ in range(3):
        seat, move = next_move()
        resp = client.post(f"/v1/sessions/{sid}/moves", json={"move": move},
                           headers={"Authorization": f"Bearer {tokens[seat]}"})
        assert resp.status_code == 200
    seat, move = next_move()
    body = is_problem(client.post(f"/v1/sessions/{sid}/moves", json={"move": move},
                                  headers={"Authorization": f"Bearer {tokens[seat]}"}), 422, "limit_exceeded")
    assert body["limit"] == "moves"
    assert client.get(f"/v1/sessions/{sid}/log").get_json()["version"] == 3
    big = {"move": {**move, "note": "x" * 5000}}
    is_problem(client.post(f"/v1/sessions/{sid}/moves", json=big, headers={"Authorization": f"Bearer {tokens[seat]}"}),
               413, "payload_too_large")


def test_session_creation_has_a_quota_per_client_shared_by_every_worker(make_app: Callable[..., Flask]) -> None:
    prefix = f"q{random.getrandbits(40):010x}:"
    one, two = (make_app(key_prefix=prefix, session_quota=Quota(3, 60), proxy_hops=1) for _ in range(2))
    behind_proxy = {"X-Forwarded-For": "203.0.113.7"}
    for app in (one, two, one):
        assert app.test_client().post("/v1/sessions", json={"game": "femkort"}, headers=behind_proxy
                                      ).status_code == 201
    resp = two.test_client().post("/v1/sessions", json={"game": "femkort"}, headers=behind_proxy)
    body = is_problem(resp, 429, "too_many_requests")
    assert 1 <= int(resp.headers["Retry-After"]) <= 60 and "3 every 60 seconds" in body["detail"]
    # another client (the proxy saw another address; what the client itself wrote before it does not count)
    other = {"X-Forwarded-For": "203.0.113.7, 198.51.100.2"}
    assert one.test_client().post("/v1/sessions", json={"game": "femkort"}, headers=other).status_code == 201
    assert one.test_client().get("/v1/games").status_code == 200  # other requests are not this quota's


def test_the_quota_window_ends(make_app: Callable[..., Flask]) -> None:
    client = make_app(session_quota=Quota(1, 1)).test_client()
    time.sleep(1 - time.time() % 1)  # the start of a window
    assert client.post("/v1/sessions", json={"game": "femkort"}).status_code == 201
    resp = client.post("/v1/sessions", json={"game": "femkort"})
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "1"
    time.sleep(1.05)
    assert client.post("/v1/sessions", json={"game": "femkort"}).status_code == 201


def test_requests_have_a_quota_per_client_but_probes_do_not(make_app: Callable[..., Flask]) -> None:
    client = make_app(request_quota=Quota(5, 60)).test_client()
    for _ in range(5):
        assert client.get("/v1/games").status_code == 200
    for _ in range(3):
        assert client.get("/healthz").status_code == 200 and client.get("/readyz").status_code == 200
    resp = client.post("/v1/games/femkort/new", json={})
    is_problem(resp, 429, "too_many_requests")
    assert int(resp.headers["Retry-After"]) >= 1


def test_without_the_store_requests_are_let_through(make_app: Callable[..., Flask]) -> None:
    """The request quota lives in Redis; while Redis is down the stateless endpoints keep answering."""
    with RedisServer() as server:
        client = make_app(server, request_quota=Quota(2, 60)).test_client()
        server.kill()
        for _ in range(4):
            assert client.post("/v1/games/femkort/new", json={}).status_code == 201
        is_problem(client.get("/v1/sessions/" + "a" * 22), 503, "store_unavailable")


@pytest.mark.parametrize("quota", [None, Quota(1000, 60)])
def test_quotas_can_be_switched_off_or_loosened(make_app: Callable[..., Flask], quota: Quota | None) -> None:
    client = make_app(session_quota=quota, request_quota=quota).test_client()
    for _ in range(70):
        assert client.post("/v1/sessions", json={"game": "femkort"}).status_code == 201
