"""Costly requests answered by helper processes (service/api/wsgi/offload.py, issue 32's p99 bound).

With helpers, a replay and the creation of a session fixing explicit deals are worked out in a helper process:
the serving process applies no move and checks no deal, and answers the same bytes (status, headers, body)
as a twin app without helpers, refusals included, with the same labels for its metrics and request log. A
session without explicit deals, and any session on an in-process store, is made in place. Helpers run under
SCHED_IDLE; one that dies costs its request a 500 and is replaced.

The work is counted (moves applied, deals checked, matches started in this process), not timed.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from bench.hostile import random_moves
from service import engine
from service.api.wsgi import limits, observability, offload
from service.app import create_app
from service.config import Config
from service.engine.base import Game
from tests.redis_server import RedisServer

KEY = b"offload test key, thirty-two b.."
SEED = "c0ffee"


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The work done in this process: moves applied, explicit deals checked, matches started."""
    counts = {"moves": 0, "deals": 0, "matches": 0}
    apply, check_deal, new_match = engine.apply, Game.check_deal, engine.new_match

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return fn(*args, **kwargs)
        return call
    monkeypatch.setattr(engine, "apply", counted("moves", apply))
    monkeypatch.setattr(Game, "check_deal", counted("deals", check_deal))
    monkeypatch.setattr(engine, "new_match", counted("matches", new_match))
    return counts


@pytest.fixture(scope="module")
def apps(redis_server: RedisServer) -> Iterator[tuple[Flask, Flask]]:
    """An app with one helper and its twin without, on the same Redis and tag key (for the whole module: a
    helper takes a second or more to start)."""
    helped, plain = (create_app(Config(redis_url=redis_server.url, key_prefix=f"offload{n}:", state_tag_key=KEY,
                                       testing=True, session_quota=None, log_level="WARNING")) for n in (1, 2))
    assert offload.start(helped, 1) is not None
    try:
        yield helped, plain
    finally:
        offload.stop(helped)
        for app in (helped, plain):
            app.extensions["timeout_applier"].stop()


def played(game: str, players: int, moves: int) -> list[dict[str, Any]]:
    return random_moves(game, players, None, moves, SEED)


@pytest.fixture(autouse=True)
def labels(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The labels each request left in its WSGI environ for its metrics and log line, as the middleware saw them."""
    seen: list[dict[str, Any]] = []
    observe = observability.observe

    def observed(environ: dict[str, Any], *args: Any) -> None:
        seen.append({k: environ.get(k) for k in offload.MARKERS})
        observe(environ, *args)
    monkeypatch.setattr(observability, "observe", observed)
    return seen


def answer(client: FlaskClient, path: str, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """What the client got, its request id aside."""
    resp = client.post(path, data=body, content_type="application/json")
    return resp.status_code, [(k, v) for k, v in resp.headers.items() if k != "X-Request-ID"], resp.get_data()


REPLAYS = {
    "a whole match": {"players": 4, "seed": SEED, "moves": played("styrivolt", 4, 400)},
    "an illegal move": {"players": 4, "seed": SEED, "moves": played("styrivolt", 4, 30)[:29] + [
        {"seat": 0, "action": "pass"}]},
    "an abort too late": {"players": 3, "seed": SEED, "moves": played("femkort", 3, 12),
                          "end": {"by": "abort", "seat": 0}},
    "too many moves": {"players": 3, "seed": SEED, "moves": [{}] * 10_001},
    "a schema error": {"players": 3, "seed": SEED, "moves": "all of them"},
}


@pytest.mark.parametrize("case", list(REPLAYS))
def test_a_replay_is_answered_by_the_helper_with_the_bytes_answered_in_place(apps: tuple[Flask, Flask],
                                                                             work: dict[str, int],
                                                                             labels: list[dict[str, Any]],
                                                                             case: str) -> None:
    helped, plain = apps
    game = "femkort" if REPLAYS[case]["players"] == 3 else "styrivolt"
    path, body = f"/v1/games/{game}/replay", orjson.dumps(REPLAYS[case])
    got = answer(helped.test_client(), path, body)
    assert work == {"moves": 0, "deals": 0, "matches": 0}  # all of it in the helper
    assert got == answer(plain.test_client(), path, body)
    assert got[0] in (200, 400, 422) and labels[0] == labels[1]


def test_a_body_that_is_no_json_and_an_unknown_game_are_answered_alike(apps: tuple[Flask, Flask]) -> None:
    helped, plain = apps
    for path, body in [("/v1/games/femkort/replay", b"{not json"), ("/v1/games/femkort/replay", b""),
                       ("/v1/games/nogame/replay", b"{}")]:
        got = answer(helped.test_client(), path, body)
        assert got == answer(plain.test_client(), path, body)
        assert got[0] in (400, 404)


def first_jewel_deal() -> dict[str, Any]:
    game = engine.get_game("jewel")
    first = engine.new_match("jewel", 4, {"rounds": 5}, SEED)
    return dict(game.distribute(list(game.pack(4, first["options"])), first))


JEWEL_DEAL = first_jewel_deal()


def jewel_session(deals: int) -> dict[str, Any]:
    return {"game": "jewel", "players": 4, "options": {"rounds": 5}, "seed": "5eed" * 8, "deals": [JEWEL_DEAL] * deals}


def test_a_session_fixing_many_deals_is_made_by_the_helper_in_the_shared_store(apps: tuple[Flask, Flask],
                                                                               work: dict[str, int],
                                                                               labels: list[dict[str, Any]]) -> None:
    client = apps[0].test_client()
    body = orjson.dumps(jewel_session(6))
    assert len(body) > limits.FEW_DEALS_BYTES
    status, headers, answered = answer(client, "/v1/sessions", body)
    assert status == 201 and work == {"moves": 0, "deals": 0, "matches": 0}
    assert labels[-1][observability.GAME] == "jewel"  # the helper's label, for the worker's metrics and log
    created = orjson.loads(answered)
    assert ("Location", f"/v1/sessions/{created['id']}") in headers and created["explicit_deals"] == 6
    shown = client.get(f"/v1/sessions/{created['id']}")  # this process reads what the helper stored
    assert shown.status_code == 200 and shown.get_json()["version"] == 0
    refused = orjson.dumps({**jewel_session(6), "players": 5})
    got = answer(client, "/v1/sessions", refused)
    assert got[0] == 422 and work == {"moves": 0, "deals": 0, "matches": 0}
    assert got == answer(apps[1].test_client(), "/v1/sessions", refused)


@pytest.mark.parametrize("spec", [{"game": "femkort", "players": 3}, jewel_session(4)])
def test_a_session_fixing_few_deals_or_none_is_made_in_place(apps: tuple[Flask, Flask], work: dict[str, int],
                                                              spec: dict[str, Any]) -> None:
    resp = apps[0].test_client().post("/v1/sessions", json=spec)
    assert resp.status_code == 201 and work["matches"] == 1 and work["deals"] == len(spec.get("deals", []))


def test_on_an_in_process_store_sessions_are_made_in_place_and_replays_still_in_a_helper(
        work: dict[str, int]) -> None:
    app = create_app(Config(testing=True, session_quota=None, state_tag_key=KEY, log_level="WARNING"))
    offload.start(app, 1)
    try:
        client = app.test_client()
        assert client.post("/v1/sessions", json=jewel_session(2)).status_code == 201
        assert work["deals"] == 2
        replay = client.post("/v1/games/femkort/replay", json=REPLAYS["an abort too late"])
        assert replay.status_code == 422 and work["moves"] == 0
    finally:
        offload.stop(app)


def test_helpers_run_under_the_idle_policy(apps: tuple[Flask, Flask]) -> None:
    helped = apps[0]
    assert answer(helped.test_client(), "/v1/games/femkort/replay", b"{}")[0] == 400  # the helper is up
    pid, = helped.extensions[offload.EXTENSION].pids()
    assert os.sched_getscheduler(pid) == os.SCHED_IDLE


def test_a_helper_that_dies_costs_its_request_a_500_and_is_replaced(apps: tuple[Flask, Flask]) -> None:
    helped = apps[0]
    helpers = helped.extensions[offload.EXTENSION]
    body = orjson.dumps(REPLAYS["an abort too late"])
    assert answer(helped.test_client(), "/v1/games/femkort/replay", body)[0] == 422
    dead, = helpers.pids()
    os.kill(dead, signal.SIGKILL)
    status, _, problem = answer(helped.test_client(), "/v1/games/femkort/replay", body)
    assert status == 500 and orjson.loads(problem)["code"] == "internal_error"
    assert helpers.pids() != [dead]
    assert answer(helped.test_client(), "/v1/games/femkort/replay", body)[0] == 422


def test_without_an_instance_tag_key_there_are_no_helpers(make_app: Callable[..., Flask]) -> None:
    app = make_app()  # each process would draw its own key: a helper's tags would not be the worker's
    assert offload.start(app, 1) is None and offload.EXTENSION not in app.extensions
    assert offload.start(make_app(state_tag_key=KEY), 0) is None
