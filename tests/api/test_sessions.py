"""Sessions end to end, on a private redis-server (tests/redis_server.py).

What each test proves is in its docstring. The slowest parts (gunicorn with 200+ racing submissions, a
killed and restarted Redis, expiry) are bounded to a few seconds each.
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import engine
from service.app import create_app
from service.config import Config
from tests.api.session_clients import play_seat
from tests.engine.playout import cards_in, concrete, first_state_with, hidden_after
from tests.redis_server import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"
SEED = "5eed" * 8  # a creator's seed must have 128 bits at least


class Table:
    """Token-holding clients of one session, through the Flask test client."""

    def __init__(self, client: FlaskClient, game: str = "femkort", **spec: Any) -> None:
        self.client = client
        resp = client.post("/v1/sessions", json={"game": game, **spec})
        assert resp.status_code == 201, resp.get_json()
        self.created = resp.get_json()
        self.id = self.created["id"]
        self.tokens = [s["token"] for s in self.created["seats"]]

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def get(self, seat: int | None = None, query: str = "") -> Any:
        resp = self.client.get(f"/v1/sessions/{self.id}{query}", headers={} if seat is None else self.auth(seat))
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    def post(self, seat: int, body: Any, **headers: str) -> Any:
        return self.client.post(f"/v1/sessions/{self.id}/moves", json=body, headers={**self.auth(seat), **headers})

    def log(self) -> Any:
        resp = self.client.get(f"/v1/sessions/{self.id}/log")
        assert resp.status_code == 200
        return resp.get_json()

    def next_move(self, rng: random.Random) -> dict[str, Any]:
        seat = self.get()["to_act"][0]
        return concrete(rng.choice(self.get(seat)["legal_moves"]), rng)


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    return make_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def is_problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True))
    assert resp.mimetype == PROBLEM
    body: dict[str, Any] = resp.get_json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    assert "Traceback" not in resp.get_data(as_text=True)
    return body


def card_set(value: Any) -> set[str]:
    return set(cards_in(value))


def true_state(app: Flask, sid: str) -> dict[str, Any]:
    found = app.extensions["session_store"].load(sid)
    assert found is not None
    return found.state


def assert_views_leak_nothing(app: Flask, table: Table) -> None:
    """Each seat sees only what a spectator sees plus its own hand; a spectator sees no hand at all."""
    state = true_state(app, table.id)
    spectator = table.get()
    public = card_set(spectator["view"])
    assert all(h is None for h in spectator["view"].get("hands", [])) and spectator["legal_moves"] == []
    assert state["seed"] not in orjson.dumps(spectator).decode()
    for seat in range(len(table.tokens)):
        answer = table.get(seat)
        own = set(state["hands"][seat]) if "hands" in state else set()
        assert card_set(answer) <= public | own, f"seat {seat} sees {card_set(answer) - public - own}"
        assert state["seed"] not in orjson.dumps(answer).decode()


# ----- creation, views, tokens -----------------------------------------------------------
def test_create_gives_one_token_per_seat_and_the_seed_commitment(app: Flask, client: FlaskClient,
                                                                   redis_server: RedisServer) -> None:
    """201 with a Location, distinct unguessable tokens, commitment = SHA-256 of the seed's bytes; Redis
    holds only the tokens' hashes."""
    table = Table(client, "femkort", players=4, seed="0abc" * 8)
    c = table.created
    assert c["version"] == 0 and [s["seat"] for s in c["seats"]] == [0, 1, 2, 3]
    assert len(set(table.tokens)) == 4 and all(len(t) >= 40 for t in table.tokens)
    assert c["commitment"] == hashlib.sha256(bytes.fromhex("0abc" * 8)).hexdigest()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,64}", c["id"])
    raw = redis.Redis.from_url(redis_server.url)
    stored = b"".join(v for k in raw.scan_iter(f"*{table.id}*") for v in raw.hgetall(k).values())
    assert all(t.encode() not in stored for t in table.tokens)
    assert hashlib.sha256(table.tokens[0].encode()).hexdigest().encode() in stored


def test_views_show_a_seat_only_its_own_cards(app: Flask, client: FlaskClient) -> None:
    table = Table(client, "femkort", players=4, options={"better_cards": True})
    rng = random.Random(2)
    for _ in range(12):
        assert_views_leak_nothing(app, table)
        move = table.next_move(rng)
        assert table.post(move["seat"], {"move": move}).status_code == 200
    mine = table.get(1)
    assert all(m["seat"] == 1 for m in mine["legal_moves"])


def test_bad_tokens_and_other_seats_are_refused_with_clear_problems(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3, seed="1" * 32)
    other = Table(client, "femkort", players=3, seed="2" * 32)
    seat = table.get()["to_act"][0]
    move = table.get(seat)["legal_moves"][0]
    url = f"/v1/sessions/{table.id}/moves"
    body = is_problem(client.post(url, json={"move": move}), 401, "unauthorized")
    assert "Bearer" in body["detail"]
    resp = client.post(url, json={"move": move})
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    for header in ("Bearer nope", "Basic abc", "Bearer", "", f"Bearer {other.tokens[seat]}",
                   f"Bearer {table.tokens[seat]}x", "Bearer " + "A" * 300):
        is_problem(client.post(url, json={"move": move}, headers={"Authorization": header}), 401, "unauthorized")
        is_problem(client.get(f"/v1/sessions/{table.id}", headers={"Authorization": header}), 401, "unauthorized")
    wrong = (seat + 1) % 3
    body = is_problem(table.post(wrong, {"move": move}), 403, "forbidden")
    assert str(wrong) in body["detail"]
    assert table.get()["version"] == 0
    assert table.post(seat, {"move": move}).status_code == 200


def test_garbage_ids_bodies_and_headers_are_4xx_problems(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3)
    seat = table.get()["to_act"][0]
    for sid in ("x", "a" * 200, "%00", "{abc}", "ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ", "A" * 22, "'; DROP"):
        is_problem(client.get(f"/v1/sessions/{sid}"), 404, "session_not_found")
        is_problem(client.get(f"/v1/sessions/{sid}/log"), 404, "session_not_found")
        is_problem(client.post(f"/v1/sessions/{sid}/moves", json={"move": {}}, headers=table.auth(0)), 404,
                   "session_not_found")
    is_problem(client.get("/v1/sessions/..%2F..%2Fetc"), 404, "not_found")  # not even a session path
    url = f"/v1/sessions/{table.id}/moves"
    for raw in (b"", b"nope", b"[]", b'{"move": 3}', b'{"move": {}, "version": -1}', b'{"move": {}, "version": "1"}',
                b'{"move": {}, "extra": 1}', b'{"version": 0}'):
        is_problem(client.post(url, data=raw, headers={**table.auth(seat), "Content-Type": "application/json"}),
                   400, "invalid_request")
    for bad in ("", " ", "x" * 256, "é", "a b"):
        is_problem(table.post(seat, {"move": {"seat": seat, "action": "play", "card": "AS"}},
                              **{"Idempotency-Key": bad}), 400, "invalid_request")
    for query in ("?after=-1&wait=1", "?after=x", "?after=1&wait=-2", "?after=1&wait=nan", "?after=1e3"):
        is_problem(client.get(f"/v1/sessions/{table.id}{query}"), 400, "invalid_request")
    body = is_problem(table.post(seat, {"move": {"seat": seat, "action": "dance"}}), 422, "illegal_move")
    assert body["reason"] == "unknown_action"
    body = is_problem(table.post(seat, {"move": {"action": "play", "card": "AS"}}), 422, "illegal_move")
    assert body["reason"] == "invalid_parameters"
    is_problem(client.post("/v1/sessions", json={"game": "chess"}), 422, "unknown_game")
    is_problem(client.post("/v1/sessions", json={"players": 3}), 400, "invalid_request")
    is_problem(client.post("/v1/sessions", json={"game": "femkort", "players": 99}), 422, "invalid_request")
    is_problem(client.post("/v1/sessions", json={"game": "femkort", "options": {"ante": -1}}), 422,
               "invalid_options")
    assert table.get()["version"] == 0


def test_stale_version_is_409_and_illegal_moves_are_422(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3, seed="77" * 16)
    rng = random.Random(3)
    first = table.next_move(rng)
    assert table.post(first["seat"], {"move": first, "version": 0}).get_json()["version"] == 1
    move = table.next_move(rng)
    body = is_problem(table.post(move["seat"], {"move": move, "version": 0}), 409, "version_conflict")
    assert body["version"] == 1
    assert table.post(move["seat"], {"move": move, "version": 1}).status_code == 200
    seat = table.get()["to_act"][0]
    body = is_problem(table.post((seat + 1) % 3, {"move": {"seat": (seat + 1) % 3, "action": "play",
                                                           "card": "2C"}}), 422, "illegal_move")
    assert body["reason"] in ("not_your_turn", "card_not_in_hand")
    assert table.log()["version"] == 2


def test_a_worker_whose_copy_is_behind_judges_again_on_the_stored_state(make_app: Callable[..., Flask]) -> None:
    """Two workers (two apps on one Redis and key prefix) share a session. Each judges a move on the last state
    it read or wrote itself, which is behind whenever the other worker moved meanwhile: every move legal on
    the stored state is accepted, every refusal is the stored state's, and no move is applied twice."""
    prefix = f"t{uuid.uuid4().hex[:10]}:"
    a, b, truth = (make_app(key_prefix=prefix) for _ in range(3))
    table = Table(a.test_client(), "femkort", players=3, seed="77" * 16)  # a keeps version 0
    state = engine.new_match("femkort", 3, {}, "77" * 16)
    rng = random.Random(8)

    def post(app: Flask, move: dict[str, Any], **extra: Any) -> Any:
        return app.test_client().post(f"/v1/sessions/{table.id}/moves", json={"move": move, **extra},
                                      headers=table.auth(move["seat"]))

    def next_move() -> dict[str, Any]:
        nonlocal state
        move = concrete(rng.choice(engine.legal_moves(state)), rng)
        state, _ = engine.apply(state, move)
        return move

    assert post(b, next_move()).get_json()["version"] == 1   # b had no copy: it read version 0
    assert post(a, next_move()).get_json()["version"] == 2   # a's copy was version 0
    assert post(b, next_move(), version=2).get_json()["version"] == 3  # b's copy (1) is not the client's 2
    move = next_move()
    body = is_problem(post(a, move, version=2), 409, "version_conflict")  # a's copy says 2; the store says 3
    assert body["version"] == 3
    assert post(a, move).get_json()["version"] == 4
    again = is_problem(post(b, move), 422, "illegal_move")  # legal on b's copy (3), not on the stored state
    assert again["reason"] in ("not_your_turn", "card_not_in_hand")
    assert truth.extensions["session_store"].load(table.id).version == 4  # type: ignore[union-attr]
    played = 4
    while not engine.is_finished(state):
        assert post(rng.choice((a, b)), next_move()).status_code == 200
        played += 1
    log = table.log()
    assert log["version"] == played and log["finished"]
    replayed = engine.new_match("femkort", 3, {}, "77" * 16)
    for m in log["replay"]["moves"]:
        replayed, _ = engine.apply(replayed, m)
    assert replayed == state


# ----- idempotency ----------------------------------------------------------------------
def test_a_retried_post_gets_the_first_answer_and_applies_once(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=4, seed="5" * 32)
    move = table.next_move(random.Random(1))
    first = table.post(move["seat"], {"move": move}, **{"Idempotency-Key": "retry-1"})
    again = table.post(move["seat"], {"move": move}, **{"Idempotency-Key": "retry-1"})
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json() and again.headers["Idempotent-Replayed"] == "true"
    assert table.log()["version"] == 1
    is_problem(table.post(move["seat"], {"move": move, "version": 0}, **{"Idempotency-Key": "retry-1"}), 422,
               "idempotency_key_reused")
    other = table.next_move(random.Random(2))
    quoted = table.post(other["seat"], {"move": other}, **{"Idempotency-Key": '"quoted-key"'})
    assert quoted.status_code == 200


def test_concurrent_retries_with_one_key_apply_once(client: FlaskClient) -> None:
    """12 threads send the same request with the same Idempotency-Key at once: one move, one answer."""
    table = Table(client, "femkort", players=4, seed="6" * 32)
    move = table.next_move(random.Random(1))
    answers: list[Any] = []
    barrier = threading.Barrier(12)

    def send() -> None:
        barrier.wait()
        resp = table.post(move["seat"], {"move": move}, **{"Idempotency-Key": "burst"})
        answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=send) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a[0] for a in answers} == {200}
    assert all(a[1] == answers[0][1] for a in answers)
    assert table.log()["version"] == 1


@pytest.mark.parametrize("with_version", [False, True])
def test_a_retry_racing_its_original_on_another_worker_gets_the_first_answer(
        make_app: Callable[..., Flask], with_version: bool) -> None:
    """The original request is applied on worker x while its retry (same Idempotency-Key) is in flight on
    worker y, between y's look-up of the stored answer and y's judging. Y's own copy of the session is behind,
    and on the stored state the move is no longer legal (it is done) nor is the client's version current: y
    must answer with the first answer, not 422 not_your_turn or 409 version_conflict."""
    prefix = f"t{uuid.uuid4().hex[:10]}:"
    x, y = make_app(key_prefix=prefix), make_app(key_prefix=prefix)
    table = Table(x.test_client(), "femkort", players=3, seed=SEED)
    y.test_client().get(f"/v1/sessions/{table.id}", headers=table.auth(0))  # y keeps version 0
    rng = random.Random(3)
    first = table.next_move(rng)
    assert table.post(first["seat"], {"move": first}).status_code == 200  # on x: version 1
    move = table.next_move(rng)
    body = {"move": move, **({"version": 1} if with_version else {})}
    key = {"Idempotency-Key": f"race-{with_version}"}
    originals: list[Any] = []
    y_store = y.extensions["session_store"]
    look_up = y_store.answer

    def answer_then_original_lands(sid: str, answer_key: str) -> Any:
        found = look_up(sid, answer_key)
        if not originals:
            originals.append(table.post(move["seat"], body, **key))  # the original, on x, lands now
        return found

    y_store.answer = answer_then_original_lands
    retry = y.test_client().post(f"/v1/sessions/{table.id}/moves", json=body,
                                 headers={**table.auth(move["seat"]), **key})
    assert originals[0].status_code == 200
    assert retry.status_code == 200, retry.get_json()
    assert retry.get_json() == originals[0].get_json() and retry.headers["Idempotent-Replayed"] == "true"
    assert table.log()["version"] == 2


# ----- long-poll ------------------------------------------------------------------------
def test_long_poll_returns_when_the_version_passes_and_is_bounded(make_app: Callable[..., Flask]) -> None:
    app = make_app(long_poll_max=1.0)
    client = app.test_client()
    table = Table(client, "femkort", players=3, seed="9" * 32)
    move = table.next_move(random.Random(1))
    threading.Timer(0.3, lambda: table.post(move["seat"], {"move": move})).start()
    started = time.monotonic()
    woke = table.get(0, "?after=0&wait=30")
    assert woke["version"] == 1 and 0.2 < time.monotonic() - started < 0.9
    started = time.monotonic()
    assert table.get(0, "?after=1&wait=0.4")["version"] == 1
    assert 0.35 < time.monotonic() - started < 0.9
    started = time.monotonic()
    table.get(None, "?after=1&wait=100")  # capped by LONG_POLL_MAX (1 s here)
    assert 0.9 < time.monotonic() - started < 1.6
    started = time.monotonic()
    assert table.get(None, "?after=0&wait=100")["version"] == 1  # already past: at once
    assert time.monotonic() - started < 0.3


def test_a_move_made_while_a_long_poll_reads_the_session_wakes_it_at_once(make_app: Callable[..., Flask],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The long-poll watches the session before it reads it: a move saved between that read and the wait is
    heard (by the notification), with no further read of the version."""
    app = make_app()
    table = Table(app.test_client(), "femkort", players=3, seed="8" * 32)
    move = table.next_move(random.Random(2))
    sessions = app.extensions["session_service"]
    st = app.extensions["session_store"]
    find, reads = sessions.find, []

    def find_then_a_move_lands(sid: str, touch: bool = False, recent: bool = False) -> Any:
        found = find(sid, touch=touch, recent=recent)
        reads.append(found.version)
        if len(reads) == 1:  # the long-poll's read; the move's own reads come through here too
            assert table.post(move["seat"], {"move": move}).status_code == 200  # version 1, after the read of 0
        return found

    monkeypatch.setattr(sessions, "find", find_then_a_move_lands)  # undone after the test: no cycle outlives it
    monkeypatch.setattr(st, "version", lambda sid: pytest.fail("the version is not read again: the watch was told"))
    started = time.monotonic()
    woke = table.get(0, "?after=0&wait=30")
    assert woke["version"] == 1 and time.monotonic() - started < 5 and reads[0] == 0
    bad = app.test_client().get("/v1/sessions/not%20an%20id?after=0&wait=30")
    assert bad.status_code == 404 and bad.get_json()["code"] == "session_not_found"


# ----- expiry ---------------------------------------------------------------------------
def test_sessions_expire_unless_played_and_finished_ones_are_kept(make_app: Callable[..., Flask],
                                                                 redis_server: RedisServer) -> None:
    app = make_app(session_ttl=1, finished_ttl=300)
    client = app.test_client()
    idle = Table(client, "femkort", players=2, seed="1" * 32)
    busy = Table(client, "femkort", players=2, seed="2" * 32)
    rng = random.Random(4)
    for _ in range(3):
        time.sleep(0.45)
        move = busy.next_move(rng)
        assert busy.post(move["seat"], {"move": move}).status_code == 200
    is_problem(client.get(f"/v1/sessions/{idle.id}"), 404, "session_not_found")
    body = is_problem(idle.post(0, {"move": {"seat": 0, "action": "play", "card": "AS"}}), 404, "session_not_found")
    assert "expired" in body["detail"]
    # this process created it and kept a copy, but nothing is refused on a copy: gone is gone, whatever else
    is_problem(client.post(f"/v1/sessions/{idle.id}/moves", data=b"{not json", headers=idle.auth(0)), 404,
               "session_not_found")
    is_problem(client.post(f"/v1/sessions/{idle.id}/moves", json={"move": {"seat": 0, "action": "play"}},
                           headers={"Authorization": "Bearer " + "x" * 43}), 404, "session_not_found")
    while not busy.get()["finished"]:
        move = busy.next_move(rng)
        assert busy.post(move["seat"], {"move": move}).status_code == 200
    raw = redis.Redis.from_url(redis_server.url)
    prefix = app.extensions["card_referee_config"].key_prefix
    assert 250 < raw.ttl(f"{prefix}session:{{{busy.id}}}") <= 300
    assert 250 < raw.ttl(f"{prefix}log:{{{busy.id}}}") <= 300
    time.sleep(1.1)
    assert busy.get()["finished"]


# ----- the log and fair dealing -----------------------------------------------------------
def test_the_engine_says_which_parameters_the_table_does_not_see() -> None:
    """A card played is seen at once; cards laid face down (Norrlandsknack's discards when buying) are not."""
    state, buy = first_state_with("norrlandsknack", 3, "buy", seed="5eed")
    hand = state["hands"][buy["seat"]]
    assert hidden_after(state, dict(buy, cards=hand[:2])) == ["cards"]
    assert hidden_after(state, dict(buy, cards=[])) == ["cards"]
    state, play = first_state_with("norrlandsknack", 3, "play", seed="5eed")
    assert hidden_after(state, play) == []


@pytest.mark.parametrize("game,players,spec", [
    ("femkort", 4, {"options": {"deals": 3, "better_cards": True}, "seed": "f00d" * 8}),
    ("davoserjazz", 4, {}),
])
def test_a_whole_match_through_sessions_replays_to_the_same_result(app: Flask, client: FlaskClient, game: str,
                                                                    players: int, spec: dict[str, Any]) -> None:
    """Four token-holding clients play a whole match; no view, log entry or error body shows a hidden
    card on the way; the revealed log replays to the same result and the commitment matches the seed."""
    table = Table(client, game, players=players, **spec)
    rng = random.Random(game)
    public_after: dict[int, set[str]] = {}
    steps, current = 0, table.get()
    while not current["finished"]:
        if steps % 40 == 0:
            assert_views_leak_nothing(app, table)
            assert_log_shows_only_public_cards(table, public_after)
        seat = current["to_act"][0]
        view = table.get(seat)
        if steps % 10 == 0:
            spectator = table.get()
            hidden = card_set(true_state(app, table.id)) - card_set(spectator["view"]) - card_set(view["view"])
            for bad in illegal_tries(view, game):
                body = table.post(seat, {"move": bad}).get_json()
                assert body["code"] == "illegal_move" and not card_set(body) & hidden, body
        move = concrete(rng.choice(view["legal_moves"]), rng)
        shown = cards_shown_by(app, table.id, move)
        resp = table.post(seat, {"move": move, "version": view["version"]})
        assert resp.status_code == 200, resp.get_json()
        current = resp.get_json()
        public_after[current["version"]] = public_cards(app, table.id) | shown
        steps += 1
    log = table.log()
    assert log["finished"] and len(log["entries"]) == steps == log["version"]
    assert all(e["hidden"] == [] for e in log["entries"])
    assert log["commitment"] == table.created["commitment"]
    assert hashlib.sha256(bytes.fromhex(log["seed"].zfill(len(log["seed"]) + len(log["seed"]) % 2))).hexdigest() \
        == log["commitment"]
    replayed = client.post(f"/v1/games/{game}/replay", json=log["replay"])
    assert replayed.status_code == 200, replayed.get_json()
    assert replayed.get_json()["result"] == current["result"] == log["result"]
    assert replayed.get_json()["finished"]


def public_cards(app: Flask, sid: str) -> set[str]:
    """The cards a spectator sees now (the engine's spectator view of the true state)."""
    return card_set(engine.view(true_state(app, sid), None))


def cards_shown_by(app: Flask, sid: str, move: dict[str, Any]) -> set[str]:
    """The cards a move shows the whole table as it is made: those its events name (a trick's cards are in
    ``trick_won`` even when the deal ends with it and the next deal clears the table at once)."""
    before = true_state(app, sid)
    _, events = engine.apply(before, move)
    shown = card_set(events)
    if any(e["type"] in ("trick", "trick_won") for e in events) and isinstance(before.get("trick"), dict):
        shown |= card_set(before["trick"]) | {move.get("card")}  # the cards of the trick this move completed
    return shown


def illegal_tries(view: dict[str, Any], game: str) -> list[dict[str, Any]]:
    """Moves of this seat that are not legal now: its own cards that may not be played, a bogus action."""
    seat = view["seat"]
    legal = {orjson.dumps(m) for m in view["legal_moves"]}
    hand = view["view"]["hands"][seat] or []
    tries = [m for m in ({"seat": seat, "action": "play", "card": c} for c in hand)
             if orjson.dumps(m) not in legal][:2]
    return [*tries, {"seat": seat, "action": "pass" if game == "femkort" else "dance"}]


def assert_log_shows_only_public_cards(table: Table, public_after: dict[int, set[str]]) -> None:
    log = table.log()
    assert log["seed"] is None and log["replay"] is None and log["deals"] is None
    for entry in log["entries"]:
        shown = card_set(entry["move"])
        assert shown <= public_after[entry["version"]], entry
        assert not set(entry["hidden"]) & set(entry["move"])


@pytest.mark.parametrize("game", sorted(engine.all_games()))
def test_no_log_entry_shows_a_card_that_went_face_down(app: Flask, client: FlaskClient, game: str) -> None:
    """For every registered game: 60 random moves, then every pre-end log entry shows only cards a
    spectator could see right after that move (discards and exchanges stay hidden)."""
    table = Table(client, game, seed="c0ffee" * 6)
    rng = random.Random(game)
    public_after: dict[int, set[str]] = {}
    for _ in range(60):
        spectator = table.get()
        if spectator["finished"]:
            break
        move = table.next_move(rng)
        shown = cards_shown_by(app, table.id, move)
        answer = table.post(move["seat"], {"move": move})
        assert answer.status_code == 200, answer.get_json()
        public_after[answer.get_json()["version"]] = public_cards(app, table.id) | shown
    if not table.get()["finished"]:
        assert_log_shows_only_public_cards(table, public_after)


def test_klaberjass_declarations_stay_hidden_in_views_log_and_errors(app: Flask, client: FlaskClient) -> None:
    """Klaberjass's sequences are declared in hidden moves: until the comparison shows the winner's, no other
    seat, spectator, log entry or error body names a declared card; a losing declaration stays hidden until
    the match is over, when the log shows every move whole."""
    n9 = ["JH", "KH", "QH", "AS", "KS", "QS", "TC", "9C", "7D"]
    d9 = ["9H", "TH", "7H", "AD", "KD", "QD", "JD", "AC", "8S"]
    spare = [c for c in engine.get_game("klaberjass").pack(2, {}) if c not in {*n9, *d9, "8H"}]
    deal = {"hands": [d9[:6], n9[:6]], "rest": ["8H", *n9[6:], *d9[6:], *spare]}
    table = Table(client, "klaberjass", players=2, seed=SEED, deal=deal)
    for seat, move in [(1, {"action": "take"}), (1, {"action": "pass_dix"}), (0, {"action": "pass_dix"}),
                       (1, {"action": "play", "card": "AS"})]:
        assert table.post(seat, {"move": {"seat": seat, **move}}).status_code == 200
    losing = [["AS", "KS", "QS"], ["KH", "QH", "JH"]]
    secret = {"KS", "QS", "KH", "QH", "JH"}
    assert table.post(1, {"move": {"seat": 1, "action": "declare", "sequences": losing}}).status_code == 200
    bad = table.post(0, {"move": {"seat": 0, "action": "declare", "sequences": [["KD", "QD", "JD"]]}}).get_json()
    assert bad["code"] == "illegal_move" and not card_set(bad) & ({"AD", "KD", "QD", "JD"} | secret), bad
    for answer in (table.get(), table.get(0)):
        assert not card_set(answer) & secret, answer
    assert table.post(0, {"move": {"seat": 0, "action": "declare", "sequences": [["AD", "KD", "QD", "JD"]]}}
                      ).status_code == 200
    assert {"AD", "KD", "QD", "JD"} <= card_set(table.get()["view"]["sequences"])  # the winner's run is shown
    for answer in (table.get(), table.get(0), table.log()):
        assert not card_set(answer) & secret, answer
    entries = table.log()["entries"]
    # the log's rule (docs/sessions.md): the losing runs stay hidden; the winning run, shown to the table by
    # the declaration itself, is named
    assert [e["hidden"] for e in entries[-2:]] == [["sequences"], []]
    rng = random.Random(5)
    while not (current := table.get())["finished"]:
        seat = current["view"]["turn"]
        moves = [m for m in table.get(seat)["legal_moves"] if m["action"] != "claim"]
        assert table.post(seat, {"move": concrete(rng.choice(moves), rng)}).status_code == 200
    revealed = table.log()["entries"]
    assert revealed[4]["move"]["sequences"] == losing and revealed[4]["hidden"] == []


# ----- Redis failures ---------------------------------------------------------------------
def test_redis_killed_mid_match_then_restarted(make_app: Callable[..., Flask]) -> None:
    """Kill -9 Redis mid-match: session endpoints answer 503 + Retry-After within a bounded time (a
    waiting long-poll too), stateless endpoints keep working; restart it on its append-only file: the
    same session continues with every accepted move, and the match finishes and replays."""
    with RedisServer(appendonly=True) as server:
        app = make_app(server)
        client = app.test_client()
        table = Table(client, "femkort", players=4, options={"deals": 2}, seed="beef" * 8)
        rng = random.Random(7)
        accepted = []
        for _ in range(11):
            move = table.next_move(rng)
            resp = table.post(move["seat"], {"move": move})
            assert resp.status_code == 200
            accepted.append(move)
        waiting: list[Any] = []
        waiter = threading.Thread(target=lambda: waiting.append(
            (client.get(f"/v1/sessions/{table.id}?after=11&wait=4"), time.monotonic())))
        waiter.start()
        time.sleep(0.2)
        seat = table.get()["to_act"][0]
        move = table.get(seat)["legal_moves"][0]
        killed_at = time.monotonic()
        server.kill()
        for call in (lambda: table.post(seat, {"move": move}, **{"Idempotency-Key": "k"}),
                     lambda: client.get(f"/v1/sessions/{table.id}", headers=table.auth(seat)),
                     lambda: client.get(f"/v1/sessions/{table.id}/log"),
                     lambda: client.post("/v1/sessions", json={"game": "femkort"})):
            started = time.monotonic()
            resp = call()
            # bounded by the store's timeouts (0.3 s: one attempt and one retry), not by a hang; the margin is
            # wide so that a loaded machine does not break it
            assert time.monotonic() - started < 5.0
            body = is_problem(resp, 503, "store_unavailable")
            assert resp.headers["Retry-After"] == "1" and "Redis" not in body["detail"]
        waiter.join(5)
        assert waiting and waiting[0][0].status_code == 503 and waiting[0][1] - killed_at < 4
        assert client.post("/v1/games/femkort/new", json={"players": 4}).status_code == 201
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").get_json()["sessions"] == "unavailable"
        server.start()
        assert client.get("/readyz").get_json()["sessions"] == "ok"
        log = table.log()
        assert [e["move"]["seat"] for e in log["entries"]] == [m["seat"] for m in accepted]
        assert log["version"] == 11
        resp = table.post(seat, {"move": move}, **{"Idempotency-Key": "k"})
        assert resp.status_code == 200 and resp.get_json()["version"] == 12
        while not table.get()["finished"]:
            move = table.next_move(rng)
            assert table.post(move["seat"], {"move": move}).status_code == 200
        log = table.log()
        assert client.post("/v1/games/femkort/replay", json=log["replay"]).get_json()["result"] == log["result"]


def test_a_frozen_redis_gives_503_within_the_timeout_and_recovers(make_app: Callable[..., Flask]) -> None:
    with RedisServer() as server:
        app = make_app(server, redis_timeout=0.25)
        client = app.test_client()
        table = Table(client, "femkort", players=3, seed="a" * 32)
        server.pause()
        try:
            started = time.monotonic()
            is_problem(client.get(f"/v1/sessions/{table.id}"), 503, "store_unavailable")
            assert time.monotonic() - started < 2 * 0.25 + 0.4
        finally:
            server.resume()
        assert table.get()["version"] == 0


# ----- many processes, one session -----------------------------------------------------
@pytest.fixture
def gunicorn(redis_server: RedisServer) -> Iterator[int]:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_server.url, "KEY_PREFIX": f"g{uuid.uuid4().hex[:8]}:",
           "LOG_LEVEL": "WARNING", "LONG_POLL_MAX": "5", "SESSION_QUOTA": "off"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "3", "-k", "gthread", "--threads", "6",
                             "-b", f"127.0.0.1:{port}", "--log-level", "warning", "service.app:create_app()"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((proc.stderr.read() if proc.stderr else b"").decode()[-2000:]) from None
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_200_racing_submissions_from_many_processes_make_one_legal_history(gunicorn: int) -> None:
    """Eight client processes (two per seat) race through gunicorn's three workers on one Femkort session
    of 10 deals (200 moves). Every accepted move has its own version, the log is exactly the accepted
    moves in version order, nothing was applied twice, and the log replays legally to the same result."""
    port = gunicorn
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/sessions", method="POST",
                                 data=orjson.dumps({"game": "femkort", "players": 4, "options": {"deals": 10}}),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        created = orjson.loads(r.read())
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(8) as pool:
        runs = pool.starmap(play_seat, [(port, sid, tokens[i % 4], i) for i in range(8)], chunksize=1)
    submissions = [s for run in runs for s in run]
    assert len(submissions) >= 200
    assert Counter(s["status"] for s in submissions).keys() <= {200, 409, 422}
    assert all(s["answer"]["code"] in ("illegal_move", "version_conflict") for s in submissions
               if s["status"] != 200)
    for s in submissions:
        if s.get("replay_of") == 200:
            assert s["status"] == 200 and s["replayed"] == "true" and s["same"]
    # A resend whose first try failed is judged afresh and may succeed; keyed answers are unique per key.
    accepted = {s["key"]: s for s in submissions if s["status"] == 200}
    late = [(s["replay_of"], s["answer"]["version"]) for s in submissions if s.get("replay_of", 200) != 200
            and s["status"] == 200]
    print(f"{len(submissions)} submissions: {dict(Counter(s['status'] for s in submissions))}; "
          f"resends that succeeded after a refusal: {late}")
    versions = sorted(s["answer"]["version"] for s in accepted.values())
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/sessions/{sid}/log", timeout=10) as r:
        log = orjson.loads(r.read())
    assert log["finished"] and versions == list(range(1, 201)) == [e["version"] for e in log["entries"]]
    by_version = {s["answer"]["version"]: s["move"] for s in accepted.values()}
    assert [e["move"] for e in log["entries"]] == [by_version[v] for v in range(1, 201)]
    state = engine.new_match("femkort", 4, log["options"], log["seed"])
    for move in log["replay"]["moves"]:
        state, _ = engine.apply(state, move)
    assert engine.match_result(state) == log["result"]
    assert hashlib.sha256(bytes.fromhex(log["seed"])).hexdigest() == created["commitment"]


# ----- the embedded default ---------------------------------------------------------------
def test_without_redis_url_sessions_use_the_in_process_store() -> None:
    app = create_app(Config(testing=True, log_level="WARNING"))
    client = app.test_client()
    assert client.get("/readyz").get_json() == {"status": "ready", "store": "memory", "sessions": "ok"}
    table = Table(client, "femkort", players=2, seed="12" * 16)
    rng = random.Random(1)
    while not table.get()["finished"]:
        move = table.next_move(rng)
        assert table.post(move["seat"], {"move": move}).status_code == 200
    log = table.log()
    assert client.post("/v1/games/femkort/replay", json=log["replay"]).get_json()["result"] == log["result"]


def test_the_deals_commitment_covers_styrivolts_preset_chosen_suits() -> None:
    """docs/fair-dealing.md: a deal's ``chosen`` is committed after its ``rest``; deals without it hash as before."""
    from service.sessions.creation import deals_commitment
    plain = {"hands": [["2C"]], "rest": ["3C"]}
    preset = {**plain, "chosen": ["H", "D"]}
    assert deals_commitment([plain]) == hashlib.sha256(b'[{"hands":[["2C"]],"rest":["3C"]}]').hexdigest()
    assert deals_commitment([preset]) == hashlib.sha256(
        b'[{"hands":[["2C"]],"rest":["3C"],"chosen":["H","D"]}]').hexdigest()
