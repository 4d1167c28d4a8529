"""Sessions on Redis beyond one machine, with every move acknowledged only once a replica holds it
(REDIS_WAIT_REPLICAS=1): a Redis Cluster (REDIS_MODE=cluster: three masters and three replicas on 127.0.0.1)
and a master with a replica behind Sentinel (REDIS_MODE=sentinel). Two service instances (gunicorn) play
sessions (spread over every master of the cluster), and one master is SIGKILLed mid-run, then restarted.

Proves: while the store heals the service answers 503 store_unavailable (never a 500): first while the dead
master's replica is promoted, then while the new master has no replica to acknowledge a write; then it
carries on. Every move that was acknowledged (200) is in the session's log afterwards, at the version it
was given, so none was lost with the dead master. And the store's own operations (create, load, save,
answer, log, count, long-poll, deadlines, presence) work on a cluster at all, and a session's timeout fires
within a second with nobody calling, applied once by one of two instances, on a cluster and behind Sentinel.
"""
from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from service.config import Config
from service.storage import RedisStore, Session, Write, topology
from tests.deploy.cluster import Instance
from tests.redis_server import LocalCluster, LocalSentinel, RedisServer

SESSIONS = 9
SEED = "c1a5" * 8


@pytest.fixture(scope="module")
def cluster() -> Any:
    with LocalCluster() as c:
        yield c


def call(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
         ) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={**(headers or {}),
                                                       **({"Content-Type": "application/json"} if data else {})})
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None
    finally:
        conn.close()


def test_the_store_works_on_a_cluster(cluster: LocalCluster) -> None:
    config = Config(redis_url=cluster.url, redis_mode="cluster", redis_wait_replicas=1, key_prefix="unit:")
    store = RedisStore(None, "unit:", 0.5, topology=topology(config), wait_replicas=1)
    sids = [f"cluster-session-{i:06d}" for i in range(12)]  # their hash tags spread over the three masters
    assert len({cluster.master_of(store.key_for("session", s)).port for s in sids}) == 3
    for sid in sids:
        store.create(Session(sid, 0, {"n": 0}, {"game": "x"}, False), 60)
        loaded = store.load(sid, touch_ttl=60)
        assert loaded is not None and loaded.state == {"n": 0}
        saved = store.save(sid, 0, Write({"n": 1}, False, {"version": 1}, "k", {"fp": "f", "body": {}}, 60), 60)
        assert saved.kind == "saved"
        assert store.save(sid, 0, Write({"n": 1}, False, {"version": 1}), 60).kind == "conflict"
        assert store.answer(sid, "k") == {"fp": "f", "body": {}}
        found = store.log(sid)
        assert found is not None and found[0].version == 1 and found[1] == [{"version": 1}]
        assert store.count(f"q:{sid}", 60) == 1 and store.count(f"q:{sid}", 60) == 2
    store.ping()
    woke: list[float] = []
    waiter = threading.Thread(target=lambda: (store.wait(sids[0], 1, 5), woke.append(time.monotonic())))
    waiter.start()
    time.sleep(0.3)
    moved_at = time.monotonic()
    assert store.save(sids[0], 1, Write({"n": 2}, False, {"version": 2}), 60).kind == "saved"
    waiter.join(6)
    assert woke and woke[0] - moved_at < 2, "the long-poll did not wake on the move's message"
    for i, sid in enumerate(sids):  # the timeouts' deadlines (one key, on one master) and presence
        store.schedule(sid, 1, 1_000 + i, previous=0)
        holder = store.enter(sid, 0, 10, 10**13)
        assert store.holders(sid, 20) == [(0, 10)]
        store.leave(sid, holder)
    assert sorted(store.claim_due(5_000, 1_000, 100)) == sorted((sid, 1) for sid in sids)
    assert store.claim_due(5_000, 1_000, 100) == []
    for sid in sids:
        store.unschedule(sid, 1)


class Player:
    """Plays sessions through two instances in turn, one move at a time, each with an Idempotency-Key;
    a move answered 503 is sent again with the same key until it is answered."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.rng = random.Random(15)
        self.statuses: list[int] = []
        self.acked: dict[str, dict[int, dict[str, Any]]] = {}  # session -> version -> the move acknowledged
        self.sessions: list[tuple[str, list[str]]] = []
        self.pending: dict[str, tuple[dict[str, Any], str]] = {}  # a move not answered yet, and its key

    def port(self) -> int:
        return self.rng.choice(self.ports)

    def create(self, count: int) -> None:
        while len(self.sessions) < count:
            status, body = call(self.port(), "POST", "/v1/sessions", {"game": "femkort", "players": 3, "seed": SEED,
                                                                      "options": {"deals": 50}})
            self.statuses.append(status)
            if status == 201:
                self.sessions.append((body["id"], [s["token"] for s in body["seats"]]))
                self.acked[body["id"]] = {}

    def step(self, sid: str, tokens: list[str]) -> None:
        if sid in self.pending:
            move, key = self.pending[sid]
        else:
            status, public = call(self.port(), "GET", f"/v1/sessions/{sid}")
            self.statuses.append(status)
            if status != 200 or public["finished"]:
                return
            seat = public["to_act"][0]
            status, view = call(self.port(), "GET", f"/v1/sessions/{sid}", headers={"Authorization":
                                                                                   f"Bearer {tokens[seat]}"})
            self.statuses.append(status)
            if status != 200:
                return
            move, key = self.rng.choice(view["legal_moves"]), uuid.uuid4().hex
        status, answer = call(self.port(), "POST", f"/v1/sessions/{sid}/moves", {"move": move},
                              {"Authorization": f"Bearer {tokens[move['seat']]}", "Idempotency-Key": key})
        self.statuses.append(status)
        if status == 200:
            self.pending.pop(sid, None)
            self.acked[sid][answer["version"]] = move
        else:
            assert status == 503, (status, answer)
            self.pending[sid] = (move, key)

    def play(self, rounds: int) -> None:
        for _ in range(rounds):
            for sid, tokens in self.sessions:
                self.step(sid, tokens)


def play_through_a_failover(redis_url: str, env: dict[str, str], victim: Callable[[Player], RedisServer]) -> None:
    """Two instances play sessions; ``victim`` (the master to kill) dies mid-run and comes back later."""
    env = {**env, "REDIS_WAIT_REPLICAS": "1", "REDIS_TIMEOUT": "0.5", "REDIS_WAIT_TIMEOUT": "0.3",
           "SESSION_QUOTA": "off", "LOG_LEVEL": "WARNING", "KEY_PREFIX": "play:"}
    with Instance(redis_url, env, name="referee-a") as a, Instance(redis_url, env, name="referee-b") as b:
        try:
            player = Player([a.port, b.port])
            player.create(SESSIONS)
            player.play(3)
            assert sum(len(v) for v in player.acked.values()) >= SESSIONS * 2
            dead = victim(player)
            dead.kill()
            killed_at, before = time.monotonic(), len(player.statuses)
            while time.monotonic() - killed_at < 4:  # its replica takes over, but has no replica of its own now
                player.play(1)
            assert 503 in player.statuses[before:], "no 503 while the dead master's writes could not be acknowledged"
            dead.start()  # back, as the replica of its former replica: whole again
            deadline = time.monotonic() + 60
            while player.pending and time.monotonic() < deadline:
                player.play(1)
                time.sleep(0.05)
            assert not player.pending, f"the service did not recover within 60 s: {player.statuses[-20:]}"
            player.play(3)  # and keeps going
            assert 500 not in player.statuses and set(player.statuses) <= {200, 201, 503}
            for sid, _ in player.sessions:
                status, log = call(a.port, "GET", f"/v1/sessions/{sid}/log")
                assert status == 200
                logged = {e["version"]: e for e in log["entries"]}
                assert log["version"] == max(player.acked[sid]) and sorted(logged) == list(range(1, log["version"] + 1))
                for version, move in player.acked[sid].items():
                    entry = logged[version]
                    shown = {k: v for k, v in move.items() if k not in entry["hidden"]}  # the public log's redaction
                    assert entry["move"] == shown and set(entry["hidden"]) <= set(move), (sid, version)

        except AssertionError as exc:  # show the servers' own account of any 500
            lines = a.log_lines() + b.log_lines()
            starts = [n for n, line in enumerate(lines) if "Traceback" in line]
            raise AssertionError(f"{exc}\n" + "\n".join(lines[starts[0]:starts[0] + 40] if starts else [])) from None

def test_every_acknowledged_move_survives_a_cluster_master_failover(cluster: LocalCluster) -> None:
    def busiest_master(player: Player) -> RedisServer:
        masters = [cluster.master_of(f"play:session:{{{sid}}}") for sid, _ in player.sessions]
        return max(set(masters), key=masters.count)

    play_through_a_failover(cluster.url, {"REDIS_MODE": "cluster"}, busiest_master)


def test_every_acknowledged_move_survives_a_sentinel_failover() -> None:
    with LocalSentinel() as watched:
        env = {"REDIS_MODE": "sentinel", "REDIS_SENTINEL_MASTER": watched.NAME,
               "REDIS_SENTINELS": ",".join(f"{h}:{p}" for h, p in watched.sentinels)}
        play_through_a_failover("redis://sentinel-names-the-host/0", env, lambda _: watched.master())


def timeouts_fire_unasked(config: Config) -> None:
    """Two app instances on the store: a clocked session's timeout is applied by one of them within a second,
    with nobody calling, and a long-poll shows its seat as connected meanwhile."""
    from service.app import create_app
    apps = [create_app(config), create_app(config)]
    for a in apps:
        a.extensions["timeout_applier"].start()
    try:
        client = apps[0].test_client()
        created = client.post("/v1/sessions", json={"game": "femkort", "players": 3, "seed": SEED,
                                                    "clock": {"move_ms": 500, "policy": "forfeit"}}).get_json()
        sid, token = created["id"], created["seats"][2]["token"]
        first = client.get(f"/v1/sessions/{sid}").get_json()
        deadline = max(s["deadline_ms"] or 0 for s in first["clock"]["seats"])
        answers: list[Any] = []
        poll = threading.Thread(target=lambda: answers.append(apps[1].test_client().get(
            f"/v1/sessions/{sid}?after=0&wait=5", headers={"Authorization": f"Bearer {token}"}).get_json()))
        poll.start()
        store = apps[0].extensions["session_store"]
        seen = []
        while poll.is_alive() and not seen:
            seen = store.holders(sid, int(time.time() * 1000))  # the other instance's long-poll, seen here
        assert [seat for seat, _ in seen] == [2]
        poll.join(6)
        assert answers and answers[0]["finished"] and answers[0]["result"]["ended_by"] == "timeout"
        (entry,) = client.get(f"/v1/sessions/{sid}/log").get_json()["entries"]
        applied = datetime.fromisoformat(entry["time"].replace("Z", "+00:00")).timestamp() * 1000
        assert 0 <= applied - deadline < 1_000  # when the service applied it
        until = time.monotonic() + 1
        while sum(a.extensions["timeout_applier"].applied for a in apps) == 0 and time.monotonic() < until:
            time.sleep(0.01)
        assert sum(a.extensions["timeout_applier"].applied for a in apps) == 1
    finally:
        for a in apps:
            a.extensions["timeout_applier"].stop()


def test_timeouts_fire_unasked_on_a_cluster(cluster: LocalCluster) -> None:
    timeouts_fire_unasked(Config(redis_url=cluster.url, redis_mode="cluster", key_prefix=f"c{uuid.uuid4().hex[:6]}:",
                                 testing=True, log_level="WARNING", session_quota=None))


def test_timeouts_fire_unasked_behind_sentinel() -> None:
    with LocalSentinel() as watched:
        timeouts_fire_unasked(Config(redis_mode="sentinel", redis_sentinels=tuple(watched.sentinels),
                                     redis_sentinel_master=watched.NAME, key_prefix="s:", testing=True,
                                     log_level="WARNING", session_quota=None))
