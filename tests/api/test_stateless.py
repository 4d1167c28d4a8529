"""The stateless endpoints through Flask's test client: shapes, errors and a whole match."""
from __future__ import annotations

import random
from typing import Any

import pytest

from service.app import create_app
from service.config import Config

APP = create_app(Config())
C = APP.test_client()


def post(path: str, body: Any) -> Any:
    return C.post(path, json=body)


def problem(resp: Any, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_json()
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["detail"]
    assert "Traceback" not in resp.get_data(as_text=True)
    return body


def test_catalogue_lists_every_game_with_options() -> None:
    games = C.get("/v1/games").get_json()["games"]
    assert "femkort" in {g["id"] for g in games}
    fem = next(g for g in games if g["id"] == "femkort")
    assert fem["players"] == {"min": 2, "max": 10, "default": 4}
    assert fem["options"]["ante"]["default"] == 1 and fem["options"]["first_dealer"]["default"] == 0
    entry = C.get("/v1/games/femkort").get_json()
    assert set(entry["moves"]) == {"play", "call_better_cards", "accept_better_cards", "refuse_better_cards"}
    problem(C.get("/v1/games/chess"), 404, "unknown_game")


def test_a_whole_match_through_the_api() -> None:
    rng = random.Random(5)
    env = post("/v1/games/femkort/new", {"players": 3, "seed": "abc123", "options": {"deals": 2}})
    assert env.status_code == 201
    env = env.get_json()
    moves = []
    while not env["finished"]:
        assert env["to_act"] and env["legal_moves"] and env["result"] is None
        move = rng.choice(env["legal_moves"])
        moves.append(move)
        resp = post("/v1/games/femkort/move", {"state": env["state"], "move": move})
        assert resp.status_code == 200
        env = resp.get_json()
    assert env["to_act"] == [] and env["legal_moves"] == []
    assert sum(env["result"]["payoffs"]) == 0
    replayed = post("/v1/games/femkort/replay", {"players": 3, "seed": "abc123", "options": {"deals": 2},
                                                 "moves": moves}).get_json()
    assert replayed["state"] == env["state"] and replayed["result"] == env["result"]


def test_illegal_move_is_a_problem_with_a_reason() -> None:
    env = post("/v1/games/femkort/new", {"players": 4, "seed": "01"}).get_json()
    seat = env["to_act"][0]
    body = problem(post("/v1/games/femkort/move", {"state": env["state"],
                                                   "move": {"seat": (seat + 1) % 4, "action": "play", "card": "2C"}}),
                   422, "illegal_move")
    assert body["reason"] == "not_your_turn"
    body = problem(post("/v1/games/femkort/move", {"state": env["state"], "move": {"seat": seat, "action": "fold"}}),
                   422, "illegal_move")
    assert body["reason"] == "unknown_action"
    body = problem(post("/v1/games/femkort/move", {"state": env["state"], "move": {"seat": seat, "action": "play"}}),
                   422, "illegal_move")
    assert body["reason"] == "invalid_parameters"


@pytest.mark.parametrize(("state", "status", "code"), [
    ({"garbage": True}, 422, "invalid_state"), ({}, 422, "invalid_state"), ([], 400, "invalid_request"),
    ("x", 400, "invalid_request"), (None, 400, "invalid_request"), (3, 400, "invalid_request")])
def test_garbage_state_is_refused(state: Any, status: int, code: str) -> None:
    resp = post("/v1/games/femkort/move", {"state": state, "move": {"seat": 0, "action": "play", "card": "2C"}})
    problem(resp, status, code)


def test_state_of_another_game_is_refused() -> None:
    env = post("/v1/games/femkort/new", {"players": 4, "seed": "01"}).get_json()
    other = next((g for g in C.get("/v1/games").get_json()["games"] if g["id"] != "femkort"), None)
    if other is None:
        pytest.skip("only one game registered")
    problem(post(f"/v1/games/{other['id']}/legal-moves", {"state": env["state"]}), 422, "invalid_state")


def test_legal_moves_and_view() -> None:
    env = post("/v1/games/femkort/new", {"players": 4, "seed": "02"}).get_json()
    seat = env["to_act"][0]
    mine = post("/v1/games/femkort/legal-moves", {"state": env["state"], "seat": seat}).get_json()
    assert mine["legal_moves"] == env["legal_moves"] and mine["to_act"] == env["to_act"]
    other = post("/v1/games/femkort/legal-moves", {"state": env["state"], "seat": (seat + 1) % 4}).get_json()
    assert other["legal_moves"] == []
    view = post("/v1/games/femkort/view", {"state": env["state"], "seat": 1}).get_json()["view"]
    assert view["hands"][1] == env["state"]["hands"][1]
    assert [h for s, h in enumerate(view["hands"]) if s != 1] == [None, None, None]
    assert "rest" not in view and "seed" not in view
    spectator = post("/v1/games/femkort/view", {"state": env["state"], "seat": None}).get_json()["view"]
    assert spectator["hands"] == [None] * 4
    problem(post("/v1/games/femkort/view", {"state": env["state"], "seat": 9}), 422, "invalid_request")


def test_new_with_bad_arguments() -> None:
    problem(post("/v1/games/femkort/new", {"players": 11}), 422, "invalid_request")
    body = problem(post("/v1/games/femkort/new", {"options": {"ante": 0}}), 422, "invalid_options")
    assert body["option"] == "ante"
    problem(post("/v1/games/femkort/new", {"deal": {"hands": [], "rest": []}}), 422, "invalid_deal")
    problem(post("/v1/games/femkort/new", {"seed": "xyz"}), 400, "invalid_request")
    problem(post("/v1/games/femkort/new", {"players": "4"}), 400, "invalid_request")
    problem(post("/v1/games/femkort/new", {"colour": "red"}), 400, "invalid_request")
    problem(post("/v1/games/femkort/new", [1, 2]), 400, "invalid_request")
    problem(C.post("/v1/games/femkort/new", data=b"{not json"), 400, "invalid_request")
    problem(C.post("/v1/games/femkort/new"), 400, "invalid_request")


def test_new_without_seed_is_random_and_with_seed_reproducible() -> None:
    a = post("/v1/games/femkort/new", {}).get_json()["state"]
    b = post("/v1/games/femkort/new", {}).get_json()["state"]
    assert a["seed"] != b["seed"]
    c = post("/v1/games/femkort/new", {"seed": "77"}).get_json()["state"]
    d = post("/v1/games/femkort/new", {"seed": "77"}).get_json()["state"]
    assert c == d


def test_replay_names_the_first_illegal_move() -> None:
    env = post("/v1/games/femkort/new", {"players": 2, "seed": "03"}).get_json()
    first = env["legal_moves"][0]
    body = problem(post("/v1/games/femkort/replay", {"players": 2, "seed": "03", "moves": [first, first]}),
                   422, "illegal_move")
    assert body["index"] == 1 and body["reason"]


def test_routing_errors_are_problems() -> None:
    problem(C.get("/v1/nowhere"), 404, "not_found")
    resp = C.get("/v1/games/femkort/move")
    problem(resp, 405, "method_not_allowed")
    assert "POST" in resp.headers["Allow"]
    problem(C.post("/v1/games/femkort/move", data=b"x" * (5 * 1024 * 1024)), 413, "payload_too_large")


def test_health() -> None:
    assert C.get("/healthz").get_json() == {"status": "ok"}


def test_unlimited_loo_past_the_safe_bound_moves_and_replays() -> None:
    """A long Unlimited Loo match once took the pot past 2^63: a legal move got 422 invalid_state and /replay a
    500. Now the match ends at the safe-integer bound: every move of it is accepted, and it replays."""
    from tests.engine.games.test_three_card_loo import _looing_deals, standing
    setup = {"players": 3, "options": {"unlimited": True, "rounds": 40}, "seed": "5eed",
             "deals": _looing_deals(3, 70)}
    env = post("/v1/games/three_card_loo/new", setup).get_json()
    moves = []
    while not env["finished"]:
        moves.append(standing(env["state"]))
        resp = post("/v1/games/three_card_loo/move", {"state": env["state"], "move": moves[-1]})
        assert resp.status_code == 200, resp.get_json()
        env = resp.get_json()
    assert "limit_reached" in [e["type"] for e in env["events"]]
    assert max(map(abs, env["result"]["scores"])) <= 2**53 - 1
    replayed = post("/v1/games/three_card_loo/replay", {**setup, "moves": moves})
    assert replayed.status_code == 200, replayed.get_json()
    assert replayed.get_json()["state"] == env["state"] and replayed.get_json()["result"] == env["result"]
