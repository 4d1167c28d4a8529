"""The client against the real service: stateless calls, sessions, typed problems, idempotent retries, the
event stream and the long-poll."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from card_referee_client import (Client, Forbidden, IllegalMove, InvalidRequest, NotFound, StoreUnavailable,
                                 TooManyRequests, TransportError, Unauthorized, VersionConflict)
from card_referee_client.client import parse_events

PACKAGE = Path(__file__).resolve().parents[1]
SEED = "c0ffee" * 6


def test_the_catalogue_lists_the_games(client: Client) -> None:
    ids = {g["id"] for g in client.games()}
    assert {"femkort", "davoserjazz"} <= ids
    assert client.game("femkort")["id"] == "femkort"


def test_stateless_calls_deal_move_and_replay(client: Client) -> None:
    env = client.new("femkort", players=3, seed=SEED)
    seat = env["to_act"][0]
    assert client.legal_moves("femkort", env["state"], seat) == [m for m in env["legal_moves"] if m["seat"] == seat]
    assert client.view("femkort", env["state"], None)["hands"] == [None, None, None]
    move = env["legal_moves"][0]
    after = client.move("femkort", env["state"], move)
    replayed = client.replay("femkort", {"players": 3, "seed": SEED, "moves": [move]})
    assert replayed["to_act"] == after["to_act"] and replayed["legal_moves"] == after["legal_moves"]


def test_an_illegal_move_is_a_typed_problem_with_code_and_reason(client: Client) -> None:
    env = client.new("femkort", players=3, seed=SEED)
    seat = env["to_act"][0]
    with pytest.raises(IllegalMove) as caught:
        client.move("femkort", env["state"], {"seat": (seat + 1) % 3, "action": "play", "card": "2C"})
    assert caught.value.status == 422 and caught.value.code == "illegal_move"
    assert caught.value.reason == "not_your_turn" and caught.value.detail
    with pytest.raises(NotFound) as unknown:
        client.new("no_such_game")
    assert unknown.value.code in ("unknown_game", "not_found")
    with pytest.raises(InvalidRequest):
        client.new("femkort", players=99)


def test_a_session_seat_moves_with_its_version_and_conflicts_are_typed(client: Client) -> None:
    created = client.create_session("femkort", players=2, seed=SEED)
    assert len(created["commitment"]) == 64
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    spectator = client.seat(created["id"], None).get()
    mover = spectator["to_act"][0]
    seat = client.seat(created["id"], tokens[mover])
    answer = seat.get()
    assert answer["seat"] == mover and answer["legal_moves"] and answer["version"] == 0
    other = client.seat(created["id"], tokens[1 - mover])
    with pytest.raises(Forbidden):
        other.move(answer["legal_moves"][0])
    after = seat.move(answer["legal_moves"][0], version=0)
    assert after["version"] == 1
    with pytest.raises(VersionConflict) as conflict:
        other.move(other.get()["legal_moves"][0], version=0)
    assert conflict.value.version == 1
    assert other.move_when_current(other.get()["legal_moves"][0], version=0) is None
    with pytest.raises(Unauthorized):
        client.seat(created["id"], "not-a-token").get()
    with pytest.raises(NotFound):
        client.seat("0" * 32, None).get()


def test_a_move_sent_again_with_its_key_is_answered_once(client: Client) -> None:
    created = client.create_session("femkort", players=2, seed=SEED)
    sid = created["id"]
    mover = client.seat(sid, None).get()["to_act"][0]
    seat = client.seat(sid, created["seats"][mover]["token"])
    move = seat.get()["legal_moves"][0]
    first = seat.move(move, key="same-key")
    again = seat.move(move, key="same-key")
    assert first == again and again["version"] == 1
    assert len(seat.log()["entries"]) == 1


def test_the_event_stream_and_the_long_poll_follow_a_whole_match(client: Client) -> None:
    created = client.create_session("femkort", players=2, seed=SEED)
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    seen: list[int] = []
    kinds: list[str] = []

    def listen() -> None:
        for event in client.seat(sid, tokens[0]).events():
            kinds.append(event.event)
            if event.event == "view":
                seen.append(event.data["version"])
    listener = threading.Thread(target=listen)
    listener.start()
    spectator = client.seat(sid, None)
    answer = spectator.get()
    while not answer["finished"]:
        seat = client.seat(sid, tokens[answer["to_act"][0]])
        mine = seat.get()
        seat.move(mine["legal_moves"][0], version=mine["version"])
        answer = spectator.wait(answer["version"], 2.0)  # the long-poll returns once the move is in
        assert answer["version"] == mine["version"] + 1
    listener.join(timeout=10)
    assert not listener.is_alive()
    assert seen == list(range(seen[0], answer["version"] + 1)) and kinds[-1] == "end"
    log = client.session_log(sid)
    assert log["finished"] and log["seed"] and log["replay"]
    assert list(client.seat(sid, tokens[1]).events(last_event_id=answer["version"])) == []  # 204: nothing more


def test_events_are_parsed_field_by_field() -> None:
    lines = [b"retry: 2000\n", b"\n", b"id: 3\n", b"event: view\n", b'data: {"version": 3}\n', b"\n",
             b": keep-alive\n", b"\n", b"event: end\n", b"data: {}\n", b"\n"]
    events = list(parse_events(iter(lines)))
    assert [(e.event, e.id, e.data) for e in events] == [("view", "3", {"version": 3}), ("end", None, {})]


class Flaky(BaseHTTPRequestHandler):
    """Answers 503 (store_unavailable) to the first ``fail`` requests of a path, then 200 with what it saw."""
    protocol_version = "HTTP/1.1"
    fail: dict[str, int] = {}
    status = 503
    seen: list[dict[str, Any]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        Flaky.seen.append({"path": self.path, "key": self.headers.get("Idempotency-Key")})
        left = Flaky.fail.get(self.path, 0)
        if left:
            Flaky.fail[self.path] = left - 1
            status = Flaky.status
            body = {"code": {503: "store_unavailable", 429: "too_many_requests"}[status], "status": status}
        else:
            status, body = 200, {"ok": True}
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Retry-After", "0")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def flaky() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Flaky.fail, Flaky.seen, Flaky.status = {}, [], 503
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_move_is_retried_with_the_same_idempotency_key_after_a_503(flaky: str) -> None:
    Flaky.fail = {"/v1/sessions/s/moves": 2}
    answer = Client(flaky).seat("s", "t").move({"seat": 0, "action": "play", "card": "2C"})
    assert answer == {"ok": True}  # type: ignore[comparison-overlap]
    keys = [s["key"] for s in Flaky.seen]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1


def test_a_session_is_not_created_twice_and_retries_are_bounded(flaky: str) -> None:
    Flaky.fail = {"/v1/sessions": 1, "/v1/games": 9}
    with pytest.raises(StoreUnavailable):
        Client(flaky).create_session("femkort")
    assert len(Flaky.seen) == 1  # a creation without a key is not sent twice
    with pytest.raises(StoreUnavailable):
        Client(flaky, retries=2).games()
    assert len(Flaky.seen) == 1 + 3


def test_a_creation_refused_by_a_quota_is_sent_again_after_retry_after(flaky: str) -> None:
    Flaky.fail, Flaky.status = {"/v1/sessions": 2}, 429
    assert Client(flaky).create_session("femkort") == {"ok": True}  # type: ignore[comparison-overlap]
    assert len(Flaky.seen) == 3
    Flaky.fail = {"/v1/sessions": 9}
    with pytest.raises(TooManyRequests) as caught:
        Client(flaky, retries=1).create_session("femkort")
    assert caught.value.retry_after == 0


def test_an_unreachable_service_is_a_transport_error() -> None:
    with pytest.raises(TransportError):
        Client("http://127.0.0.1:9", retries=1).games()


def test_the_package_is_typed_strictly() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "card_referee_client"], cwd=PACKAGE,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
