"""Bodies that cost seconds (issue 32): every limit is checked before the work it limits, so a refused body
costs no per-entry validation and no move.

The work a request does is counted (deals checked, moves applied), not timed: a loaded machine cannot make
these tests pass or fail."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from service import engine
from service.api.wsgi import limits
from service.app import create_app
from service.config import Config
from service.engine.base import Game

PROBLEM = "application/problem+json"


@pytest.fixture
def client() -> FlaskClient:
    return create_app(Config(testing=True, session_quota=None)).test_client()


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts of the work the engine is asked to do: explicit deals checked and moves judged (each move, one
    at a time or one of many, is routed to its step or refused there first)."""
    counts = {"deals": 0, "moves": 0}
    check_deal, route = Game.check_deal, engine.route

    def counted_deal(self: Game, *args: Any, **kwargs: Any) -> None:
        counts["deals"] += 1
        check_deal(self, *args, **kwargs)

    def counted_route(*args: Any, **kwargs: Any) -> Any:
        counts["moves"] += 1
        return route(*args, **kwargs)
    monkeypatch.setattr(Game, "check_deal", counted_deal)
    monkeypatch.setattr(engine, "route", counted_route)
    yield counts


def post(client: FlaskClient, path: str, payload: Any) -> Any:
    return client.post(path, data=orjson.dumps(payload), content_type="application/json")


def problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    assert resp.mimetype == PROBLEM
    body: dict[str, Any] = resp.get_json()
    assert body["code"] == code
    return body


def test_the_issues_bodies_are_refused_by_size_before_any_work(client: FlaskClient, work: dict[str, int]) -> None:
    """The measured cases: each is far over its endpoint's body limit, so it is not even parsed."""
    cases = [("/v1/games/femkort/replay", {"players": 3, "seed": "c0ffee", "moves": [{}] * 950_000}),
             ("/v1/sessions", {"game": "femkort", "players": 3, "deals": [{}] * 950_000}),
             ("/v1/games/femkort/new", {"players": 3, "deals": [{}] * 300_000})]
    for path, payload in cases:
        assert len(orjson.dumps(payload)) < 4 * 1024 * 1024  # all were within the old, single limit
        problem(post(client, path, payload), 413, "payload_too_large")
    assert work == {"deals": 0, "moves": 0}


@pytest.mark.parametrize("path, extra", [("/v1/games/femkort/new", {}), ("/v1/games/femkort/replay", {"moves": []}),
                                         ("/v1/sessions", {"game": "femkort"})])
def test_too_many_deals_are_counted_before_one_is_validated(client: FlaskClient, work: dict[str, int], path: str,
                                                            extra: dict[str, Any]) -> None:
    body = problem(post(client, path, {"players": 3, "deals": [{}] * 101, **extra}), 422, "limit_exceeded")
    assert body["limit"] == "deals"
    body = problem(post(client, path, {"players": 3, "deal": {}, "deals": [{}] * 100, **extra}), 422,
                   "limit_exceeded")
    assert work == {"deals": 0, "moves": 0}
    assert post(client, path, {"players": 3, "deals": [{}], **extra}).status_code == 422  # the deal itself is bad
    assert work["deals"] == 1


def test_a_replay_longer_than_max_moves_is_refused_before_its_first_move(client: FlaskClient,
                                                                          work: dict[str, int]) -> None:
    moves = [{"seat": 1, "action": "play", "card": "TH"}] * 10_001
    body = problem(post(client, "/v1/games/femkort/replay", {"players": 3, "seed": "c0ffee", "moves": moves}),
                   422, "limit_exceeded")
    assert body["limit"] == "moves" and work["moves"] == 0
    problem(post(client, "/v1/games/femkort/replay", {"players": 3, "seed": "c0ffee", "moves": moves[:10_000]}),
            422, "illegal_move")  # the longest replay taken: its moves are judged (the second is not legal)
    assert work["moves"] == 2


def test_each_endpoint_reads_at_most_its_own_body_limit(client: FlaskClient) -> None:
    for path, endpoint in [("/v1/games/femkort/move", "games.move"), ("/v1/games/femkort/new", "games.new"),
                           ("/v1/sessions", "sessions.create"), ("/v1/games/femkort/replay", "games.replay")]:
        limit = limits.body_limit(endpoint)
        over = b'{"pad": "' + b"x" * limit + b'"}'
        problem(client.post(path, data=over, content_type="application/json"), 413, "payload_too_large")
        under = b'{"pad": "' + b"x" * (limit - 20) + b'"}'
        assert client.post(path, data=under, content_type="application/json").status_code in (400, 422)
    assert limits.body_limit("sessions.submit") == limits.DEFAULT_BODY_LIMIT


def test_the_largest_valid_bodies_fit_their_limits() -> None:
    """A Jewel match fixing MAX_DEALS deals (the largest cards per deal), its state, and a replay of MAX_MOVES
    moves of the longest encoding a move has."""
    game = engine.get_game("jewel")
    first = engine.new_match("jewel", 9, None, "c0ffee")
    deals = [game.distribute(list(game.pack(9, first["options"])), first)]
    state = engine.new_match("jewel", 9, None, "c0ffee", deals * Config().max_deals)
    spec = {"game": "jewel", "players": 9, "seed": "c0ffee" * 5 + "00", "deals": deals * Config().max_deals}
    assert len(orjson.dumps(spec)) < limits.body_limit("sessions.create")
    assert len(orjson.dumps({"state": state, "move": {}})) < limits.body_limit("games.move")
    move = {"seat": 0, "action": "declare", "sequences": [["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H"]]}
    replay = {"players": 4, "seed": "c0ffee", "deals": deals * 100, "moves": [move] * Config().max_moves}
    assert len(orjson.dumps(replay)) < limits.body_limit("games.replay")
