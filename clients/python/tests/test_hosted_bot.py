"""The hosted bot's side (hosted.py) against a scripted bot stream in front of the real service.

Two fronts stand for two instances of one service: each serves ``GET /v1/bots/me/events`` from one shared
script of events and passes every other request on to the service (conftest's). Front A drops the stream after
two events, then dies after two more; run_bot must resume with ``Last-Event-ID``, go over to front B, play
every announced seat of real sessions to their end exactly once (a repeated announcement included), and stop
at the tournament's end.
"""
from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from card_referee_client import Client, Unauthorized, random_bot
from card_referee_client.hosted import Organiser, play_announced, run_bot, split_tournament_url
from card_referee_client.models import Move
from card_referee_client.tournament.play import all_incidents
from card_referee_client.tournament.schedule import Match
from card_referee_client.tournament.spec import GameSpec

TOKEN = "bot-token"
FORWARDED = ("Authorization", "Content-Type", "Idempotency-Key", "Accept")


class Front:
    """A stand-in instance: the bot stream from ``script``, everything else passed on to the service."""

    def __init__(self, service: str, script: list[tuple[str, str, dict[str, Any]]],
                 plan: list[tuple[int, str]]) -> None:
        """``plan``: per stream opened, how many events it sends, then ``drop`` (the connection), ``error`` (an
        error event, then the drop) or ``die`` (the instance); or ``(0, "503")``: a 503 problem instead of a
        stream. A stream beyond the plan sends everything and is held open."""
        self.service = urllib.parse.urlsplit(service)
        self.script, self.plan = script, plan
        self.seen_last_ids: list[str | None] = []  # Last-Event-ID of each stream opened here
        self.dead = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def kill_later(self) -> None:
        """Die from a request's own thread (shutdown waits for serve_forever, which must not be this thread)."""
        self.dead.set()
        threading.Thread(target=self.kill, daemon=True).start()

    def kill(self) -> None:
        """Stop listening and answer nothing more on the connections already open."""
        self.dead.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                if front.dead.is_set():
                    self.close_connection = True
                elif self.path == "/v1/bots/me/events":
                    self._events()
                else:
                    self._forward(None)

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if front.dead.is_set():
                    self.close_connection = True
                else:
                    self._forward(body)

            def _events(self) -> None:
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self._problem(401, "unauthorized")
                last = self.headers.get("Last-Event-ID")
                front.seen_last_ids.append(last)
                limit, then = front.plan.pop(0) if front.plan else (None, "hold")
                if then == "503":  # the instance's store is not answering
                    return self._problem(503, "store_unavailable")
                after = int(last.split("-")[0]) if last else 0
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.close_connection = True
                sent = 0
                for n, (kind, data) in enumerate(((k, d) for _, k, d in front.script), start=1):
                    if n <= after:
                        continue
                    if sent == limit:
                        break
                    self.wfile.write(f"event: {kind}\nid: {n}-0\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                    sent += 1
                if then == "error":  # the store failed while the stream was open
                    self.wfile.write(b'event: error\ndata: {"code": "store_unavailable"}\n\n')
                if then == "die":
                    front.kill_later()
                if then != "hold":
                    return
                while not front.dead.wait(0.2):  # held open, with heartbeats, until the bot goes
                    try:
                        self.wfile.write(b": hb\n\n")
                        self.wfile.flush()
                    except OSError:
                        return

            def _problem(self, status: int, code: str) -> None:
                raw = json.dumps({"code": code, "status": status, "detail": code}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/problem+json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _forward(self, body: bytes | None) -> None:
                conn = http.client.HTTPConnection(front.service.hostname or "", front.service.port, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body,
                                 headers={k: v for k in FORWARDED if (v := self.headers.get(k)) is not None})
                    resp = conn.getresponse()
                    raw = resp.read()
                finally:
                    conn.close()
                self.send_response(resp.status)
                for key in ("Content-Type", "Retry-After"):
                    if resp.getheader(key):
                        self.send_header(key, resp.getheader(key) or "")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                pass
        return Handler


def announce(created: dict[str, Any], seat: int, tournament: str = "t1") -> dict[str, Any]:
    return {"tournament": tournament, "match": f"{created['id']}-s{seat}", "round": 1, "game": created["game"],
            "session": created["id"], "seat": seat, "token": created["seats"][seat]["token"], "clock": None,
            "url": f"/v1/sessions/{created['id']}"}


@pytest.fixture
def two_sessions(client: Client) -> Iterator[list[dict[str, Any]]]:
    yield [dict(client.create_session("femkort", 2, {"deals": 1})) for _ in range(2)]


def test_run_bot_resumes_fails_over_and_plays_each_announced_seat_once(
        service_url: str, client: Client, two_sessions: list[dict[str, Any]]) -> None:
    s1, s2 = two_sessions
    script = [("x", "match_started", announce(s1, 0)), ("x", "match_started", announce(s1, 1)),
              ("x", "match_started", announce(s2, 0)), ("x", "match_started", announce(s1, 0)),  # again: ignored
              ("x", "match_started", announce(s2, 1)),
              ("x", "match_ended", {"tournament": "t1", "match": "whatever", "session": s1["id"], "result": None}),
              ("x", "tournament_finished", {"tournament": "other"}),  # another tournament's end: goes on
              ("x", "tournament_finished", {"tournament": "t1"})]
    a = Front(service_url, script, [(2, "drop"), (2, "die")])  # drops the stream after 2 events, dies after 2 more
    b = Front(service_url, script, [])
    try:
        played = run_bot([a.url, b.url], TOKEN, random_bot(7), parallel=4, until="t1", log=None)
    finally:
        b.kill()
        a.kill()
    assert sorted(played) == sorted(f"{s['id']}-s{seat}" for s in (s1, s2) for seat in (0, 1))
    assert a.seen_last_ids == [None, "2-0"]   # resumed after the drop where it stood
    assert b.seen_last_ids[0] == "4-0"         # and went on at the other instance from there
    for s in (s1, s2):
        log = client.session_log(s["id"])
        assert log["finished"] and (log["result"] or {}).get("ended_by") == "play"


def test_a_store_failure_is_retried_where_the_stream_stood(service_url: str, client: Client,
                                                          two_sessions: list[dict[str, Any]]) -> None:
    s1, _ = two_sessions
    script = [("x", "match_started", announce(s1, 0)), ("x", "match_started", announce(s1, 1)),
              ("x", "tournament_finished", {"tournament": "t1"})]
    front = Front(service_url, script, [(0, "503"), (1, "error"), (0, "503")])
    try:
        played = run_bot(front.url, TOKEN, random_bot(3), until="t1", log=None)
    finally:
        front.kill()
    assert sorted(played) == [f"{s1['id']}-s0", f"{s1['id']}-s1"]
    assert front.seen_last_ids == [None, None, "1-0", "1-0"]  # the event after the error is not lost
    assert client.session_log(s1["id"])["finished"]


def test_run_bot_refuses_a_bad_token(service_url: str) -> None:
    front = Front(service_url, [], [])
    try:
        with pytest.raises(Unauthorized):
            run_bot(front.url, "not-the-token", random_bot(), log=None)
    finally:
        front.kill()


def test_stop_ends_run_bot_while_the_stream_is_idle(service_url: str) -> None:
    front = Front(service_url, [], [])
    stop = threading.Event()
    result: list[list[str]] = []
    thread = threading.Thread(target=lambda: result.append(run_bot(front.url, TOKEN, random_bot(), stop=stop,
                                                                   log=None)))
    try:
        thread.start()
        while not front.seen_last_ids:  # connected
            front.dead.wait(0.05)
        stop.set()
        thread.join()
    finally:
        front.kill()
    assert result == [[]]


def _card_not_held(view: dict[str, Any], legal_moves: list[Move]) -> Move:
    seat = legal_moves[0]["seat"]
    held = set(view["hands"][seat])  # a seat's view shows its own hand only
    card = next(r + s for s in "CDHS" for r in "23456789TJQKA" if r + s not in held)
    return {"seat": seat, "action": "play", "card": card}


def _broken(view: dict[str, Any], legal_moves: list[Move]) -> Move:
    raise RuntimeError("the bot's own bug")


@pytest.mark.parametrize(("choose", "said"), [(_card_not_held, "illegal: card_not_in_hand"),
                                              (_broken, "crashed: RuntimeError: the bot's own bug")])
def test_a_refused_move_or_a_broken_choose_concedes_the_match(client: Client, choose: Any, said: str) -> None:
    created = dict(client.create_session("femkort", 2, {"deals": 1}))
    leader = client.seat(created["id"], None).get()["to_act"][0]
    play_announced(client, announce(created, leader), choose)
    log = client.session_log(created["id"])
    assert log["finished"] and log["result"] is not None
    assert log["result"]["forfeited"] == leader and log["result"]["ended_by"] == "concession"
    assert any(said in str(e.get("reason", "")) for e in log["entries"]), log["entries"]
    # the record's incidents say why (results.md's incidents column), besides the forfeit
    match = Match("m", 1, GameSpec("femkort", 2), 1, 1, 0, ("lead", "other") if leader == 0 else ("other", "lead"),
                  None)
    kinds = [(i["bot"], i["kind"]) for i in all_incidents(match, dict(log), [])]
    assert kinds == [("lead", said.split(":")[0]), ("lead", "forfeit")]


def test_a_tournament_is_named_by_its_url_or_its_id() -> None:
    assert split_tournament_url("http://h:8000/v1/tournaments/abc") == ("http://h:8000", "abc")
    assert split_tournament_url("https://h/cr/v1/tournaments/abc/") == ("https://h/cr", "abc")
    assert split_tournament_url("http://h:8000/tournaments/abc") == ("http://h:8000", "abc")  # the page
    with pytest.raises(ValueError):
        split_tournament_url("http://h:8000/v1/sessions/abc")
    organiser = Organiser.at("http://h:8000/v1/tournaments/abc", token="t")
    assert (organiser.client.base_url, organiser.path, organiser.token) == ("http://h:8000", "/v1/tournaments/abc",
                                                                             "t")
    with pytest.raises(ValueError):
        Organiser("http://h:8000").start()  # no tournament yet
