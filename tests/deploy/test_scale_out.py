"""Scale-out on one machine: three service instances behind nginx, sharing one Redis (docs/scale-out.md).

Three gunicorn processes (deploy/gunicorn.conf.py, configured by environment variables only, the same
SEALING_KEY) on their own ports, one private redis-server, and an nginx with a generated configuration
balancing over them. Client threads play many sessions of several games to the end through nginx, each
seat with its own token; in the middle of the run one instance is killed with SIGKILL (master and workers).
Clients send every move with an Idempotency-Key and send it again, unchanged, after a 502/503/504 or a
broken connection. Afterwards every match is finished, every accepted move is in its session's log exactly
once and in version order, every accepted request is in an instance's JSON request log, every match replays
to the same result, and no log line holds a token, the sealing key, a seed or a card.
"""
from __future__ import annotations

import base64
import hashlib
import os
import random
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.api.wsgi.observability import FLUSH
from tests.engine.playout import cards_in
from tests.deploy.cluster import Client, Instance, Nginx, ensure_nginx, group_alive
from tests.redis_server import RedisServer

# (game, players) for each session: Femkort is short; Three-card Loo and Norrlandsknack are trick games
# with a bidding/decision phase and several deals. About 650 moves in all, with default options.
TABLES = [("femkort", 4)] * 6 + [("three_card_loo", 3)] * 5 + [("norrlandsknack", 3)] * 5
KILL_AFTER = 200          # accepted moves (over all sessions) before one instance is killed
RUN_DEADLINE = 240        # seconds for the whole run: a stuck client fails the test instead of hanging it
MOVES = "/v1/sessions/<sid>/moves"


class Cluster:
    def __init__(self, redis: RedisServer, instances: list[Instance], nginx: Nginx, sealing_key: str) -> None:
        self.redis, self.instances, self.nginx, self.sealing_key = redis, instances, nginx, sealing_key


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    binary = ensure_nginx()
    sealing_key = base64.urlsafe_b64encode(os.urandom(32)).decode()
    redis = RedisServer(appendonly=True)
    instances: list[Instance] = []
    nginx: Nginx | None = None
    try:
        redis.start()
        env = {"SEALING_KEY": sealing_key, "KEY_PREFIX": f"so{uuid.uuid4().hex[:8]}:", "LONG_POLL_MAX": "5"}
        instances = [Instance(redis.url, env, name=f"referee{i}", workers=1, threads=4) for i in range(3)]
        for inst in instances:
            inst.spawn()
        for inst in instances:
            inst.ready()
        nginx = Nginx(binary, [inst.port for inst in instances])
        nginx.start()
        yield Cluster(redis, instances, nginx, sealing_key)
    finally:
        if nginx is not None:
            nginx.stop()
            nginx.cleanup()
        for inst in instances:
            inst.stop()
        redis.stop()
        leftovers = [inst.name for inst in instances if inst.proc is not None and group_alive(inst.proc.pid)]
        for inst in instances:
            inst.cleanup()
        assert not leftovers, f"processes left behind by {leftovers}"


class Match:
    """One session played to the end by one thread, each seat with its own token."""

    def __init__(self, port: int, game: str, players: int, rng: random.Random) -> None:
        self.client = Client(port)
        self.game, self.players, self.rng = game, players, rng
        created = self.client.call("POST", "/v1/sessions", {"game": game, "players": players})
        assert created.status == 201, created
        self.created = created.body
        self.sid = created.body["id"]
        self.tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
        self.accepted: list[dict[str, Any]] = []   # one entry per move the service accepted (2xx)
        self.final: dict[str, Any] | None = None
        self.seed = ""                             # revealed by the log once finished
        self.error: BaseException | None = None

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def play(self, counter: Counter[str], lock: threading.Lock, stop_at: float) -> None:
        try:
            view = self.client.call("GET", f"/v1/sessions/{self.sid}", deadline=30)
            assert view.status == 200, view
            answer = view.body
            while not answer["finished"]:
                assert time.monotonic() < stop_at, f"{self.sid}: run deadline passed at version {answer['version']}"
                seat = self.rng.choice(answer["to_act"])
                mine = self.client.call("GET", f"/v1/sessions/{self.sid}", headers=self.auth(seat), deadline=30)
                assert mine.status == 200, mine
                move = self.rng.choice(mine.body["legal_moves"])
                key = uuid.uuid4().hex
                sent = self.client.call("POST", f"/v1/sessions/{self.sid}/moves", {"move": move},
                                        {**self.auth(seat), "Idempotency-Key": key}, request_id=key, deadline=60)
                assert sent.status == 200, (move, sent)
                answer = sent.body
                self.accepted.append({"key": key, "seat": seat, "move": move, "version": answer["version"],
                                      "request_id": sent.headers.get("x-request-id"), "sent_id": sent.request_id,
                                      "attempts": sent.attempts, "replayed": sent.headers.get("idempotent-replayed"),
                                      "at": time.monotonic()})
                with lock:
                    counter["accepted"] += 1
                    counter["retried_moves"] += sent.attempts > 1
                    counter["replayed"] += sent.headers.get("idempotent-replayed") == "true"
            self.final = answer
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
        finally:
            self.client.close()


def test_three_instances_behind_nginx_survive_a_killed_instance(cluster: Cluster) -> None:
    started = time.monotonic()
    port = cluster.nginx.port
    rng = random.Random(20240611)
    matches = [Match(port, game, players, random.Random(rng.random())) for game, players in TABLES]
    counter: Counter[str] = Counter()
    lock = threading.Lock()
    stop_at = time.monotonic() + RUN_DEADLINE
    threads = [threading.Thread(target=m.play, args=(counter, lock, stop_at), daemon=True) for m in matches]
    for t in threads:
        t.start()

    # Kill one instance, master and workers, once the run is well under way.
    victim = cluster.instances[1]
    while counter["accepted"] < KILL_AFTER and any(t.is_alive() for t in threads) and time.monotonic() < stop_at:
        time.sleep(0.01)
    accepted_at_kill = counter["accepted"]
    victim.kill()
    killed_at = time.monotonic()
    assert victim.proc is not None and not group_alive(victim.proc.pid), "the killed instance left processes"

    for t in threads:
        t.join(max(1.0, stop_at - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "a client is stuck"
    errors = [(m.sid, m.error) for m in matches if m.error is not None]
    assert not errors, errors
    played = time.monotonic() - started
    print(f"\n{len(matches)} sessions, {counter['accepted']} moves in {played:.1f}s; instance killed after "
          f"{accepted_at_kill}; moves sent more than once: {counter['retried_moves']}, answered from the "
          f"idempotency record: {counter['replayed']}")
    assert accepted_at_kill >= KILL_AFTER, "the run ended before the kill: it proves nothing"
    assert any(a["at"] > killed_at for m in matches for a in m.accepted), "no move was accepted after the kill"

    # Every match finished; its log holds exactly the accepted moves, in version order; it replays to the
    # announced result, and the revealed seed is the one committed to at creation.
    client = Client(port)
    for m in matches:
        assert m.final is not None and m.final["finished"], m.sid
        log = client.call("GET", f"/v1/sessions/{m.sid}/log")
        assert log.status == 200, log
        entries = log.body["entries"]
        assert log.body["finished"] and log.body["version"] == len(entries) == m.final["version"]
        assert len({a["key"] for a in m.accepted}) == len(m.accepted)
        versions = [a["version"] for a in m.accepted]
        assert versions == list(range(1, len(entries) + 1)), f"{m.sid}: accepted versions {versions}"
        assert [e["version"] for e in entries] == versions
        assert [e["move"] for e in entries] == [a["move"] for a in m.accepted], f"{m.sid}: log differs"
        assert hashlib.sha256(bytes.fromhex(log.body["seed"])).hexdigest() == m.created["commitment"]
        replay = client.call("POST", f"/v1/games/{m.game}/replay", log.body["replay"])
        assert replay.status == 200, replay
        assert replay.body["finished"]
        assert replay.body["result"] == log.body["result"] == m.final["result"], m.sid
        m.seed = log.body["seed"]
        # The idempotency record is shared by all instances: the first move sent again, with its key, to
        # whichever instance nginx picks now, gets the first answer back and changes nothing.
        first = m.accepted[0]
        again = client.call("POST", f"/v1/sessions/{m.sid}/moves", {"move": first["move"]},
                            {**m.auth(first["seat"]), "Idempotency-Key": first["key"]})
        assert again.status == 200 and again.headers.get("idempotent-replayed") == "true", again
        assert again.body["version"] == 1

    # Every accepted move's request is in an instance's JSON request log, answered 200 on the moves route.
    records: dict[str, tuple[str, dict[str, Any]]] = {}
    for inst in cluster.instances:
        for rec in inst.json_records():
            if "request_id" in rec:
                records[rec["request_id"]] = (inst.name, rec)
    served_by: Counter[str] = Counter()
    for m in matches:
        for a in m.accepted:
            assert a["request_id"] == a["sent_id"], "the X-Request-ID was not echoed"
            found = records.get(a["request_id"])
            assert found is not None, f"accepted move {a} of {m.sid} is in no instance's log"
            name, rec = found
            assert rec["route"] == MOVES and rec["status"] == 200 and rec["method"] == "POST"
            assert rec["game"] == m.game
            served_by[name] += 1
    assert served_by[victim.name] > 0, "the killed instance had accepted no move before it died"
    assert all(served_by[i.name] > 0 for i in cluster.instances), served_by
    # nginx's access log names the same requests (it forwards the client's X-Request-ID).
    logged = {mm.group(1) for line in cluster.nginx.access_lines() if (mm := re.search(r" 200 rid=(\S+)", line))}
    assert all(a["request_id"] in logged for m in matches for a in m.accepted)

    # No log line, of any instance or of nginx, holds a token, the sealing key, a seed or a card.
    secrets = [t for m in matches for t in m.tokens.values()] + [cluster.sealing_key]
    secrets += [m.seed for m in matches]
    lines = [line for inst in cluster.instances for line in inst.log_lines()] + cluster.nginx.log_lines()
    assert len(lines) > 1000
    for line in lines:
        assert not any(s in line for s in secrets), f"a secret in a log line: {line[:200]}"
    for inst in cluster.instances:
        for rec in inst.json_records():
            assert not list(cards_in(rec)), f"a card in a log line: {rec}"
            assert set(rec) <= {"ts", "level", "logger", "msg", "method", "route", "status", "ms", "request_id",
                                "game", "reason", "exc"}, rec

    # The survivors' /metrics count what they did (each instance has its own multiprocess directory, where
    # each worker adds its counts every FLUSH seconds).
    time.sleep(2 * FLUSH)
    for inst in cluster.instances:
        if inst.killed:
            continue
        text = Client(inst.port).call("GET", "/metrics").body
        moves = sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
                    if s.name == "referee_requests_total" and s.labels["endpoint"] == MOVES
                    and s.labels["status"] == "200")
        logged_moves = sum(1 for r in inst.json_records() if r.get("route") == MOVES and r.get("status") == 200)
        assert moves == logged_moves > 0, (inst.name, moves, logged_moves)
    print(f"accepted moves by instance: {dict(served_by)}; whole test {time.monotonic() - started:.1f}s")
