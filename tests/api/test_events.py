"""The session event stream (GET /v1/sessions/{id}/events), through the Flask test client on a private Redis.

Each reader runs in a thread of its own and reads the stream as a client would; the test's thread plays.
"""
from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import engine
from service.api.http import events
from tests.api.test_sessions import PROBLEM, Table, app, card_set, client, true_state  # noqa: F401 - fixtures
from tests.engine.playout import concrete, hidden_copies_shown


class Reader:
    """Reads one event stream in a thread: every event as (name, id, data), comments counted apart."""

    def __init__(self, client: FlaskClient, sid: str, headers: dict[str, str] | None = None,
                 stop_after: int | None = None, query: str = "") -> None:
        self.resp = client.get(f"/v1/sessions/{sid}/events{query}", headers=headers or {}, buffered=False)
        self.events: list[tuple[str, int | None, Any]] = []
        self.comments = 0
        self.ended = threading.Event()
        self.stop_after = stop_after
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buf = b""
        try:
            for chunk in self.resp.response:
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    self._block(block)
                    if self.stop_after is not None and len(self.events) >= self.stop_after:
                        return  # the client goes away: closing the response ends the server's generator
        finally:
            self.resp.close()
            self.ended.set()

    def _block(self, block: bytes) -> None:
        fields: dict[str, str] = {}
        for line in block.decode().split("\n"):
            if line.startswith(":"):
                self.comments += 1
            elif line:
                name, _, value = line.partition(": ")
                fields[name] = value
        if "event" in fields:
            self.events.append((fields["event"], int(fields["id"]) if "id" in fields else None,
                                orjson.loads(fields["data"])))

    def wait_for(self, count: int, timeout: float = 10.0) -> list[tuple[str, int | None, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.events) < count and not self.ended.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.events) >= count, self.events
        return self.events

    def finish(self, timeout: float = 10.0) -> list[tuple[str, int | None, Any]]:
        assert self.ended.wait(timeout), "the stream did not end"
        return self.events


def versioned(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what changes between versions (which seats are connected now): the rest is the
    version's."""
    return {k: v for k, v in answer.items() if k != "presence"}


def play(table: Table, rng: random.Random, moves: int, after: Callable[[int], Any] = lambda v: None) -> dict[int, Any]:
    """``moves`` random legal moves (fewer if the match ends); ``after(version)`` right after each, by version."""
    out = {}
    for _ in range(moves):
        if table.get()["finished"]:
            break
        move = table.next_move(rng)
        resp = table.post(move["seat"], {"move": move})
        assert resp.status_code == 200, resp.get_json()
        version = resp.get_json()["version"]
        out[version] = after(version)
    return out


def test_every_version_is_an_event_and_the_stream_ends_with_the_match(client: FlaskClient) -> None:
    """A seat and a spectator follow a whole match: one `view` event per version, ids 0..N in order, each
    exactly what GET answered that seat at that version, then `end`, then the stream closes. A finished
    session's stream resumed from its last id answers 204 (EventSource then stops reconnecting)."""
    table = Table(client, "femkort", players=3, options={"deals": 1}, seed="5e55" * 8)
    seat_reader, spectator_reader = Reader(client, table.id, table.auth(0)), Reader(client, table.id)
    seat_reader.wait_for(1)
    spectator_reader.wait_for(1)
    seen: dict[int, tuple[Any, Any]] = {0: (table.get(0), table.get())}
    rng = random.Random(3)
    while not table.get()["finished"]:
        seen.update(play(table, rng, 1, lambda v: (table.get(0), table.get())))
    final = max(seen)
    for reader, which in ((seat_reader, 0), (spectator_reader, 1)):
        got = reader.finish()
        views = [e for e in got if e[0] == "view"]
        assert [e[1] for e in views] == list(range(final + 1))
        assert all(versioned(data) == versioned(seen[version][which]) for _, version, data in views)
        assert got[-1][0] == "end" and got[-1][2]["version"] == final
        assert views[-1][2]["finished"] and views[-1][2]["result"] is not None
    resp = client.get(f"/v1/sessions/{table.id}/events", headers={"Last-Event-ID": str(final)})
    assert resp.status_code == 204


def test_a_reconnecting_client_gets_every_version_it_missed(client: FlaskClient) -> None:
    """A seat reads versions 0-2, disconnects, four moves happen, and it reconnects with Last-Event-ID 2: it
    gets 3, 4, 5 and 6, each the view GET gave at that version (computed again from the log). Missing
    more than RESUME_MAX versions gives a `gap` notice and the current view; so does an id from the future."""
    table = Table(client, "femkort", players=4, options={"deals": 3}, seed="d15c" * 8)
    rng = random.Random(5)
    first = Reader(client, table.id, table.auth(1), stop_after=3)
    first.wait_for(1)
    play(table, rng, 2)
    assert [e[1] for e in first.finish()] == [0, 1, 2]
    answers = play(table, rng, 4, lambda v: versioned(table.get(1)))
    again = Reader(client, table.id, {**table.auth(1), "Last-Event-ID": "2"}, stop_after=4)
    assert [(e[0], e[1], versioned(e[2])) for e in again.finish()] == [("view", v, answers[v]) for v in (3, 4, 5, 6)]

    old = events.RESUME_MAX
    events.RESUME_MAX = 3
    try:
        gap = Reader(client, table.id, {**table.auth(1), "Last-Event-ID": "1"}, stop_after=2).finish()
    finally:
        events.RESUME_MAX = old
    assert gap[0][0] == "gap" and gap[0][2]["last_event_id"] == 1 and gap[0][2]["version"] == 6
    assert "missed 5 moves" in gap[0][2]["detail"]
    assert gap[1][:2] == ("view", 6) and versioned(gap[1][2]) == answers[6]
    ahead = Reader(client, table.id, {**table.auth(1), "Last-Event-ID": "99"}, stop_after=2).finish()
    assert ahead[0][0] == "gap" and ahead[1][:2] == ("view", 6) and versioned(ahead[1][2]) == answers[6]
    by_query = Reader(client, table.id, table.auth(1), stop_after=1, query="?after=5")  # for a first connection
    assert [(e[0], e[1], versioned(e[2])) for e in by_query.finish()] == [("view", 6, answers[6])]


def test_moves_in_a_burst_are_each_sent(client: FlaskClient) -> None:
    """Moves made faster than the stream wakes are each sent, in order, from the state the stream holds and
    the logged moves: nothing is skipped, and each event is the view at its own version."""
    table = Table(client, "tomato", players=4, seed="b0b0" * 8)
    reader = Reader(client, table.id, table.auth(2))
    reader.wait_for(1)
    answers = {}
    rng = random.Random(9)
    for _ in range(12):
        move = table.next_move(rng)
        answer = table.post(move["seat"], {"move": move}).get_json()
        answers[answer["version"]] = answer  # the mover's answer is its own view; the reader's seat is 2
    reader.wait_for(13)
    views = [e for e in reader.events if e[0] == "view"]
    assert [e[1] for e in views] == list(range(13))
    assert views[-1][2] == table.get(2)


@pytest.mark.parametrize("game", sorted(engine.all_games()))
def test_a_spectator_never_sees_a_hidden_card(app: Flask, client: FlaskClient, game: str) -> None:
    """For every game, 40 random moves made in bursts (so the stream computes missed versions itself): no event
    a spectator receives shows a card of any hand, or more than the spectator view of the true state at its
    version; no event a seat receives shows a card of another seat's hand; none shows the seed."""
    table = Table(client, game, seed="c0ffee" * 8)
    spectator, seat0 = Reader(client, table.id), Reader(client, table.id, table.auth(0))
    spectator.wait_for(1)
    seat0.wait_for(1)
    truth = {0: true_state(app, table.id)}
    truth.update(play(table, random.Random(game), 40, lambda v: true_state(app, table.id)))
    last = max(truth)
    spectator.wait_for(last + 1)
    seat0.wait_for(last + 1)
    for reader, seat in ((spectator, None), (seat0, 0)):
        for name, version, data in reader.events:
            if name != "view":
                continue
            state = truth[version]
            shown = card_set(data)
            seen = engine.get_game(game).seen_cards(state, seat)  # shown to this seat: a partner's card
            others = Counter(c for s, hand in enumerate(state.get("hands", [])) if s != seat for c in hand
                             if c not in seen)
            own = Counter(state["hands"][seat]) if seat is not None and state.get("hands") else None
            pack = Counter(engine.get_game(game).pack(state["players"], state["options"]))
            leaked = hidden_copies_shown(data["view"], others, pack, own)
            leaked |= card_set(data["legal_moves"]) & set(others) - set(own or ())   # a seat's moves name its own cards
            leaked |= hidden_copies_shown({k: v for k, v in data.items() if k not in ("view", "legal_moves")},
                                          others, pack)
            assert not leaked, (game, seat, version, leaked)
            if seat is None:
                assert shown <= card_set(engine.view(state, None))
            assert state["seed"] not in orjson.dumps(data).decode()


def test_bad_requests_are_problems(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3)
    for headers, status, code in (({"Last-Event-ID": "x1"}, 400, "invalid_request"),
                                  ({"Authorization": "Bearer " + "a" * 40}, 401, "unauthorized")):
        resp = client.get(f"/v1/sessions/{table.id}/events", headers=headers)
        assert resp.status_code == status and resp.mimetype == PROBLEM and resp.get_json()["code"] == code
    resp = client.get(f"/v1/sessions/{'n' * 22}/events")
    assert resp.status_code == 404 and resp.get_json()["code"] == "session_not_found"
    # a malformed ?after= is refused even when Last-Event-ID, which takes precedence, is valid (schemathesis found it)
    resp = client.get(f"/v1/sessions/{table.id}/events?after=%C3%BB", headers={"Last-Event-ID": "1"})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_request"


def test_heartbeats_and_the_time_limit(make_app: Callable[..., Flask]) -> None:
    """An idle stream sends a comment every EVENTS_HEARTBEAT seconds and closes after EVENTS_MAX."""
    client = make_app(events_heartbeat=0.1, events_max=0.55).test_client()
    table = Table(client, "femkort", players=3)
    reader = Reader(client, table.id)
    started = time.monotonic()
    got = reader.finish(timeout=3)
    assert 0.5 < time.monotonic() - started < 2.0
    assert [e[0] for e in got] == ["view"] and reader.comments >= 5
