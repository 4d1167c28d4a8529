"""/metrics and the request log of a real deployment: one gunicorn instance with two worker processes
(deploy/gunicorn.conf.py, PROMETHEUS_MULTIPROC_DIR) on a private redis-server.

A small, exactly counted run (sessions created, moves accepted, illegal moves of three reasons, a request
while Redis is down) must show up in /metrics with exactly those numbers, summed over both workers, whichever
worker answers the scrape; and in the JSON request log, one line per request with the X-Request-ID that the
response echoed, and no token, seed or card anywhere.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.api.wsgi.observability import FLUSH
from tests.engine.playout import cards_in
from tests.deploy.cluster import Client, Instance
from tests.redis_server import RedisServer

MOVES = "/v1/sessions/<sid>/moves"
SESSION = "/v1/sessions/<sid>"
CREATE = "/v1/sessions"
STATELESS_MOVE = "/v1/games/<game>/move"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with RedisServer(appendonly=True) as server:
        yield server


@pytest.fixture(scope="module")
def instance(redis: RedisServer) -> Iterator[Instance]:
    with Instance(redis.url, {"KEY_PREFIX": "metrics:"}, name="metrics", workers=2, threads=4) as inst:
        yield inst


def samples(text: str) -> list[Any]:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def value(found: list[Any], name: str, **labels: str) -> float:
    """Sum of the samples of ``name`` whose labels include ``labels``."""
    return sum(s.value for s in found if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def fresh(port: int) -> Client:
    """A client for one connection; a new connection per request lets the kernel spread them over both workers."""
    return Client(port, timeout=10)


def call(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    client = fresh(port)
    try:
        return client.call(method, path, body, headers, deadline=0)  # no retry: every request is counted
    finally:
        client.close()


def counting_workers(instance: Instance) -> set[str]:
    """The workers (pids) that have counted a request: each writes its own counter file."""
    return {p.name.split("_")[-1] for p in instance.metrics_dir.glob("counter_*.db")}


def serve_on_both_workers(port: int, instance: Instance) -> set[str]:
    """Make sure both workers have served something before the scrapes. One connection at a time, one worker
    can accept every one of them (docs/performance.md, "One worker takes every connection"), so send bursts of
    concurrent /healthz requests, which no assertion counts, until both have."""
    for _ in range(20):
        workers = counting_workers(instance)
        if len(workers) >= 2:
            return workers
        with ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(lambda _: call(port, "GET", "/healthz").status, range(64)))
        assert statuses == [200] * 64
    return counting_workers(instance)


def test_metrics_count_exactly_what_a_run_did(instance: Instance, redis: RedisServer) -> None:
    port = instance.port
    tokens: list[str] = []
    seeds: list[str] = []

    # Two Femkort sessions: one played to the end, one a few moves in.
    sids = []
    for _ in range(2):
        created = call(port, "POST", CREATE, {"game": "femkort", "players": 3})
        assert created.status == 201, created
        sids.append(created.body["id"])
        tokens += [s["token"] for s in created.body["seats"]]
    accepted = 0
    full, partial = sids
    seat_tokens = {sid: {} for sid in sids}
    for i, t in enumerate(tokens):
        seat_tokens[sids[i // 3]][i % 3] = t

    def play(sid: str, limit: int) -> None:
        nonlocal accepted
        for _ in range(limit):
            spectator = call(port, "GET", f"/v1/sessions/{sid}")
            if spectator.body["finished"]:
                return
            seat = spectator.body["to_act"][0]
            auth = {"Authorization": f"Bearer {seat_tokens[sid][seat]}"}
            move = call(port, "GET", f"/v1/sessions/{sid}", headers=auth).body["legal_moves"][0]
            sent = call(port, "POST", f"/v1/sessions/{sid}/moves", {"move": move}, auth)
            assert sent.status == 200, sent
            accepted += 1

    play(full, 100)
    play(partial, 3)
    log = call(port, "GET", f"/v1/sessions/{full}/log")
    assert log.body["finished"]
    seeds.append(log.body["seed"])

    # Illegal moves on purpose: not_your_turn and card_not_in_hand in a session, must_follow_suit stateless.
    now = call(port, "GET", f"/v1/sessions/{partial}").body
    waiting = next(s for s in range(3) if s not in now["to_act"])
    refused = call(port, "POST", f"/v1/sessions/{partial}/moves",
                   {"move": {"seat": waiting, "action": "play", "card": "2C"}},
                   {"Authorization": f"Bearer {seat_tokens[partial][waiting]}"})
    assert refused.status == 422 and refused.body["reason"] == "not_your_turn", refused
    actor = now["to_act"][0]
    auth = {"Authorization": f"Bearer {seat_tokens[partial][actor]}"}
    hand = set(call(port, "GET", f"/v1/sessions/{partial}", headers=auth).body["view"]["hands"][actor])
    absent = next(c for c in (r + s for s in "CDHS" for r in "23456789TJQKA") if c not in hand)
    refused = call(port, "POST", f"/v1/sessions/{partial}/moves",
                   {"move": {"seat": actor, "action": "play", "card": absent}}, auth)
    assert refused.status == 422 and refused.body["reason"] == "card_not_in_hand", refused
    deal = call(port, "POST", "/v1/games/femkort/new", {"players": 3, "seed": "c0ffee"}).body
    after = call(port, "POST", "/v1/games/femkort/move", {"state": deal["state"],
                                                "move": {"seat": 1, "action": "play", "card": "TH"}}).body
    refused = call(port, "POST", "/v1/games/femkort/move", {"state": after["state"],
                                                  "move": {"seat": 2, "action": "play", "card": "5S"}})
    assert refused.status == 422 and refused.body["reason"] == "must_follow_suit", refused

    # Redis down: the session endpoints answer 503 and the failed operation is counted; then it comes back.
    redis.kill()
    try:
        down = call(port, "GET", f"/v1/sessions/{partial}")
        assert down.status == 503 and down.body["code"] == "store_unavailable", down
        assert down.headers.get("retry-after") == "1"
    finally:
        redis.start()
    deadline = time.monotonic() + 10
    while call(port, "GET", "/readyz").body["sessions"] != "ok":
        assert time.monotonic() < deadline, "the service did not reconnect to the restarted Redis"
        time.sleep(0.1)
    assert call(port, "GET", f"/v1/sessions/{partial}").status == 200

    # X-Request-ID: a sane one is kept, a bad one replaced; either way echoed.
    client = fresh(port)
    status, headers, _ = client.once("GET", "/v1/games", None, {"X-Request-ID": "metrics-test.kept_1"})
    assert status == 200 and headers["x-request-id"] == "metrics-test.kept_1"
    client.close()
    status, headers, _ = client.once("GET", "/v1/games", None, {"X-Request-ID": "not a sane id!"})
    made = headers["x-request-id"]
    assert status == 200 and re.fullmatch(r"[0-9a-f]{32}", made)
    client.close()

    # /metrics, scraped several times: whichever worker answers, the numbers are the sums over both.
    workers = serve_on_both_workers(port, instance)
    assert len(workers) == 2, f"one worker served everything ({workers}): the sum over workers is untested"
    # each worker adds its counts to the shared files every FLUSH seconds (service/api/wsgi/observability.py, Tally)
    time.sleep(2 * FLUSH)
    scrapes = [samples(call(port, "GET", "/metrics").body) for _ in range(6)]
    for found in scrapes:
        assert value(found, "referee_requests_total", endpoint=MOVES, game="femkort", status="200") == accepted
        assert value(found, "referee_requests_total", endpoint=MOVES, game="femkort", status="422") == 2
        assert value(found, "referee_requests_total", endpoint=STATELESS_MOVE, game="femkort", status="422") == 1
        assert value(found, "referee_requests_total", endpoint=SESSION, status="503") == 1  # game unknown: "-"
        assert value(found, "referee_requests_total", endpoint=CREATE, game="femkort", status="201") == 2
        assert value(found, "referee_requests_total", endpoint="/v1/games", game="-", status="200") == 2
        # Latency histogram per endpoint and game: cumulative buckets ending in +Inf = _count = requests.
        buckets = sorted(((float(s.labels["le"]), s.value) for s in found
                          if s.name == "referee_request_seconds_bucket" and s.labels["endpoint"] == MOVES
                          and s.labels["game"] == "femkort"))
        assert len(buckets) == 16 and buckets[-1] == (float("inf"), accepted + 2)
        assert [v for _, v in buckets] == sorted(v for _, v in buckets) and buckets[0][1] < buckets[-1][1]
        assert value(found, "referee_request_seconds_count", endpoint=MOVES, game="femkort") == accepted + 2
        assert value(found, "referee_request_seconds_sum", endpoint=MOVES, game="femkort") > 0
        # Illegal moves by game and reason.
        assert value(found, "referee_illegal_moves_total", game="femkort", reason="not_your_turn") == 1
        assert value(found, "referee_illegal_moves_total", game="femkort", reason="card_not_in_hand") == 1
        assert value(found, "referee_illegal_moves_total", game="femkort", reason="must_follow_suit") == 1
        # Sessions created, Redis latency by operation, Redis errors.
        assert value(found, "referee_sessions_created_total", game="femkort") == 2
        assert value(found, "referee_redis_seconds_count", op="create") == 2
        assert value(found, "referee_redis_seconds_count", op="save") == accepted
        assert value(found, "referee_redis_seconds_bucket", op="load", le="+Inf") > accepted
        assert value(found, "referee_redis_seconds_sum", op="save") > 0
        assert value(found, "referee_redis_errors_total", op="load") >= 1
        assert value(found, "referee_redis_errors_total", op="save") == 0

    # The request log: one JSON line per request (not /metrics, /healthz, /readyz), with the echoed ids;
    # never a token, a seed or a card.
    records = instance.json_records()
    requests = [r for r in records if r.get("logger") == "service.access"]
    ids = {r["request_id"] for r in requests}
    assert {"metrics-test.kept_1", made} <= ids
    assert sum(1 for r in requests if r["route"] == MOVES and r["status"] == 200) == accepted
    assert any(r["route"] == MOVES and r.get("reason") == "not_your_turn" and r["status"] == 422 for r in requests)
    assert any(r["route"] == SESSION and r["status"] == 503 for r in requests)
    assert not any(r["route"] in ("/metrics", "/healthz", "/readyz") for r in requests)
    for line in instance.log_lines():
        assert not any(t in line for t in tokens + seeds), f"a secret in a log line: {line[:200]}"
    for rec in records:
        assert not list(cards_in(rec)), f"a card in a log line: {rec}"
