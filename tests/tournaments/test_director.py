"""The director's guarantees, on a private redis-server: a claimed tick is leased; a tick killed halfway loses
nothing and the next one (on another instance) finishes its work; two instances ticking the same tournament
at once, and a Redis restart (append-only file), still give every match exactly one session and one record."""
from __future__ import annotations

import threading
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from service.app import create_app
from service.config import Config
from service.tournaments.director import LEASE_MS, Tick
from service.tournaments.store import TournamentStore
from tests.redis_server import RedisServer
from tests.tournaments.hosting import Bot

SWISS = {"name": "director", "format": "swiss", "rounds": 2, "seed": "d1ec",
         "games": [{"game": "femkort", "players": 2, "boards": 1, "clock": {"move_ms": 60_000, "policy": "forfeit"}}],
         "absent": {"grace_s": 600, "then": "forfeit"}}


class Killed(Exception):
    """Stands for the instance dying in the middle of a tick."""


@pytest.fixture(scope="module")
def durable() -> Iterator[RedisServer]:
    """A redis-server whose append-only file is written before each write is acknowledged, so that a kill -9
    loses nothing acknowledged."""
    with RedisServer(appendonly=True, extra=["--appendfsync", "always"]) as server:
        yield server


def instance(server: RedisServer, prefix: str) -> Flask:
    """One service instance; its own director stays stopped: the test runs the ticks."""
    app = create_app(Config(redis_url=server.url, key_prefix=prefix, redis_timeout=2.0, events_max=0.1,
                            bot_heartbeat=2.0, testing=True, log_level="WARNING", session_quota=None))
    app.extensions["tournament_director"].stop()
    return app


def tick(app: Flask, tid: str) -> bool:
    return Tick(app.extensions["tournament_store"], app.extensions["tournament_director"].service, tid).run()


def test_a_claimed_tick_is_leased_until_its_lease_runs_out(durable: RedisServer) -> None:
    store: TournamentStore = instance(durable, f"l{uuid.uuid4().hex[:8]}:").extensions["tournament_store"]
    store.schedule("t1", 1_000)
    assert store.claim_due(1_000, LEASE_MS, 16) == ["t1"]
    assert store.claim_due(1_000 + LEASE_MS - 1, LEASE_MS, 16) == []  # another instance: still leased
    assert store.claim_due(1_000 + LEASE_MS, LEASE_MS, 16) == ["t1"]  # the claimer died: handed out again
    store.unschedule("t1")
    assert store.claim_due(10**13, LEASE_MS, 16) == []


def test_killed_ticks_concurrent_instances_and_a_redis_restart_lose_and_double_nothing(
        durable: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"k{uuid.uuid4().hex[:8]}:"
    one, two = instance(durable, prefix), instance(durable, prefix)
    client = one.test_client()
    bots = [Bot(client, name, seed) for seed, name in enumerate(["ada", "bea", "cid", "dot"])]
    made = client.post("/v1/tournaments", json={"description": SWISS, "entries": [b.id for b in bots]}).json
    tid = made["id"]
    one.extensions["tournament_director"].stop()  # the POST started it (a test app's director starts then)
    for bot in bots:
        bot.listen()
    client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {made['organiser_token']}"})

    # instance one dies after announcing the first seat of round 1: sessions bound, nothing else done
    store_one: TournamentStore = one.extensions["tournament_store"]
    real_tell = TournamentStore.tell_bot
    calls = [0]

    def dying(self: TournamentStore, bid: str, event: str, data: Any) -> str:
        calls[0] += 1
        if calls[0] > 1:
            raise Killed()
        return real_tell(self, bid, event, data)
    monkeypatch.setattr(store_one, "tell_bot", dying.__get__(store_one))
    with pytest.raises(Killed):
        while True:
            tick(one, tid)
    monkeypatch.undo()

    # both instances now tick at once, all the time, while the bots play; Redis restarts after round 1
    stop = threading.Event()
    failures: list[BaseException] = []

    def ticking(app: Flask) -> None:
        while not stop.is_set():
            try:
                tick(app, tid)
            except Exception as exc:  # noqa: BLE001 - a Redis restart fails ticks for a moment; others are kept
                if type(exc).__name__ != "StoreUnavailable":
                    failures.append(exc)
    threads = [threading.Thread(target=ticking, args=(app,), daemon=True) for app in (one, two)]
    for thread in threads:
        thread.start()
    restarted = False
    try:
        for _ in range(2000):
            view = client.get(f"/v1/tournaments/{tid}")
            if view.status_code != 200:
                continue  # Redis restarting
            status = view.json
            if status["status"] == "finished":
                break
            if not restarted and status["progress"]["done"] >= 4:
                durable.kill()
                durable.start()
                restarted = True
            for bot in bots:
                try:
                    bot.listen()
                    bot.play()
                except (AssertionError, TypeError, KeyError):
                    pass  # an answer during the restart (503): the bot tries again
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert not failures, failures
    assert restarted and status["status"] == "finished", status

    archive = client.get(f"/v1/tournaments/{tid}/records").json
    scheduled = [m for r in archive["rounds"] for m in r["matches"]]
    assert sorted(r["match"] for r in archive["matches"]) == sorted(scheduled) and len(scheduled) == 8
    # each match was announced with one session only, the one its record holds
    announced: dict[str, set[str]] = defaultdict(set)
    for bot in bots:
        for event, data in bot.events:
            if event == "match_started":
                announced[data["match"]].add(data["session"])
    recorded = {r["match"]: r["session"] for r in archive["matches"]}
    assert {m: {s} for m, s in recorded.items()} == dict(announced)
    # one standings publication per round, one finish (the ratings' fold holds the tournament once)
    store_two: TournamentStore = two.extensions["tournament_store"]
    assert store_two.finished().count(tid) == 1
    t = store_two.load(tid)
    assert t is not None and sorted(t.standings) == [1, 2]
    sessions_bound = [b["session"] for b in t.sessions.values()]
    assert len(set(sessions_bound)) == len(sessions_bound) == 8


def test_an_end_not_told_by_a_killed_tick_is_told_by_the_next(durable: RedisServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    app = instance(durable, f"e{uuid.uuid4().hex[:8]}:")
    client = app.test_client()
    bots = [Bot(client, name, seed) for seed, name in enumerate(["eli", "fay"])]
    made = client.post("/v1/tournaments", json={"description": {**SWISS, "rounds": 1},
                                                "entries": [b.id for b in bots]}).json
    app.extensions["tournament_director"].stop()
    tid = made["id"]
    for bot in bots:
        bot.listen()
    client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {made['organiser_token']}"})
    store: TournamentStore = app.extensions["tournament_store"]
    real_tell = TournamentStore.tell
    died: set[str] = set()

    def dying(self: TournamentStore, tid_: str, event: str, data: Any) -> str:
        if event in ("match_ended", "tournament_finished") and event not in died:
            died.add(event)
            raise Killed()  # the record (or the finish) is written; the instance dies before it tells
        return real_tell(self, tid_, event, data)
    monkeypatch.setattr(store, "tell", dying.__get__(store))
    killed = 0
    for _ in range(500):
        if client.get(f"/v1/tournaments/{tid}").json["status"] == "finished":
            break
        try:
            tick(app, tid)
        except Killed:
            killed += 1
        for bot in bots:
            bot.listen()
            bot.play()
    assert died == {"match_ended", "tournament_finished"} and killed == 2
    assert client.get(f"/v1/tournaments/{tid}").json["status"] == "finished"
    assert tick(app, tid) is False  # finished: no more ticks, but first the end it had not told
    told = sse_names(client.get(f"/v1/tournaments/{tid}/events").data)
    assert told.count("match_ended") == 2 and told.count("tournament_finished") == 1
    for bot in bots:
        bot.listen()
    assert all(sum(e == "tournament_finished" for e, _ in bot.events) == 1 for bot in bots)


def sse_names(raw: bytes) -> list[str]:
    return [line.split(": ", 1)[1] for line in raw.decode().splitlines() if line.startswith("event: ")]
