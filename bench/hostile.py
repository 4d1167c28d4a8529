"""Hostile bodies against the shipped settings (issue 32): the p99 of ``/healthz`` and of a tagged ``/move``,
first alone, then while two clients loop the largest bodies the service accepts, a ``/replay`` of MAX_MOVES
moves and a ``POST /v1/sessions`` fixing MAX_DEALS deals. Not a timed test: a measurement for
docs/performance.md ("Hostile bodies").

    .venv/bin/python -m bench.hostile [--seconds 20] [--rounds 3] [--helpers 1,0] [--out bench/results/hostile.json]

Each COSTLY_HELPERS setting compared (1, as shipped: the costly requests in helper processes at the lowest
CPU priority; 0: in the serving workers, in slices) runs on a gunicorn of its own with deploy/gunicorn.conf.py
(gevent, WEB_CONCURRENCY workers, default 2) and a private redis-server; SESSION_QUOTA is off so that every
creation is really made (with the quota on, most would be refused at once and cost nothing). The rounds
alternate between the settings, so that a shared machine's load falls on both alike; each round measures the
probes alone, then with the two hostile clients, and notes the load average. The verdict (``within_2x``) is
on the p99s of every round's latencies pooled: on a shared machine many short rounds sample its bursts of
load evenly in both conditions, where the p99 of one long phase is whichever burst fell into it. Then, with nothing else
running, one client loops a typical replay (a default Stýrivolt match, 372 moves) and then the largest. Every
client is a process of its own, so the clients do not share a GIL.
"""
from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from service import engine
from service.config import Config
from service.engine.rng import shuffled

ROOT = Path(__file__).resolve().parents[1]
PROBES = ("/healthz", "/v1/games/femkort/move")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def longest_replay(moves: int) -> bytes:
    """A Stýrivolt match of 400 deals played at random for ``moves`` moves: the largest replay accepted."""
    return styrivolt_replay({"match_end": "deals", "deals": 400}, moves)


def typical_replay() -> bytes:
    """A Stýrivolt match with the default options played at random to its end (372 moves): what a client
    checking a finished session's match sends."""
    return styrivolt_replay(None, 10_000)


def styrivolt_replay(options: dict[str, Any] | None, moves: int) -> bytes:
    body: dict[str, Any] = {"players": 4, "seed": "c0ffee", "moves": random_moves("styrivolt", 4, options, moves)}
    return orjson.dumps(body if options is None else {**body, "options": options})


def random_moves(game: str, players: int, options: dict[str, Any] | None, moves: int,
                 seed: str = "c0ffee") -> list[dict[str, Any]]:
    """The first ``moves`` moves (all of them if the match ends first) of a match played at random from ``seed``."""
    rng = random.Random(7)
    state = engine.new_match(game, players, options, seed)
    played: list[dict[str, Any]] = []
    while len(played) < moves and not engine.is_finished(state):
        move = dict(rng.choice(engine.legal_moves(state)))
        for key, span in move.pop("ranges", {}).items():
            move[key] = rng.sample(span["from"], span["choose"]) if "choose" in span else span["min"]
        state, _ = engine.apply(state, move)
        played.append(move)
    return played


def largest_session(deals: int) -> bytes:
    """A Jewel session (the game with the most cards a deal) fixing ``deals`` explicit deals."""
    game = engine.get_game("jewel")
    first = engine.new_match("jewel", 4, {"rounds": 25}, "c0ffee")
    pack = list(game.pack(4, first["options"]))
    fixed = [game.distribute(shuffled(pack, "c0ffee", f"bench/{k}"), first) for k in range(deals)]
    return orjson.dumps({"game": "jewel", "players": 4, "options": {"rounds": 25}, "deals": fixed})


def move_body(port: int) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/v1/games/femkort/new", orjson.dumps({"players": 3, "seed": "c0ffee"}),
                  {"Content-Type": "application/json"})
    env = orjson.loads(conn.getresponse().read())
    return orjson.dumps({"state": env["state"], "state_tag": env["state_tag"], "move": env["legal_moves"][0]})


def probe(port: int, method: str, path: str, body: bytes | None, until: float, out: Any) -> None:
    """One client looping one request on a kept-alive connection; its latencies, in ms."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json"} if body else {}
    lat: list[float] = []
    bad = 0
    while time.monotonic() < until:
        began = time.perf_counter()
        conn.request(method, path, body, headers)
        resp = conn.getresponse()
        resp.read()
        lat.append((time.perf_counter() - began) * 1000)
        bad += resp.status >= 300
    out.put((path, lat, bad))


def attack(port: int, bodies: list[tuple[str, bytes]], until: float, out: Any) -> None:
    """One hostile client looping the largest accepted bodies, one after the other."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    statuses: dict[str, list[int]] = {}
    took: dict[str, list[float]] = {}
    while time.monotonic() < until:
        for path, body in bodies:
            began = time.perf_counter()
            conn.request("POST", path, body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            statuses.setdefault(path, []).append(resp.status)
            took.setdefault(path, []).append((time.perf_counter() - began) * 1000)
    out.put(("attack", statuses, took))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else float("nan")


def phase(port: int, seconds: float, move: bytes, bodies: list[tuple[str, bytes]], attackers: int,
          pooled: dict[str, list[float]]) -> dict[str, Any]:
    """The probes, and ``attackers`` hostile clients, for ``seconds``; each probe's latencies are also added to
    ``pooled``."""
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    until = time.monotonic() + seconds
    procs = [ctx.Process(target=probe, args=(port, "GET", "/healthz", None, until, out)),
             ctx.Process(target=probe, args=(port, "POST", "/v1/games/femkort/move", move, until, out))]
    procs += [ctx.Process(target=attack, args=(port, bodies, until, out)) for _ in range(attackers)]
    load = os.getloadavg()[0]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    report: dict[str, Any] = {"load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}
    for result in results:
        if result[0] == "attack":
            for path, codes in result[1].items():
                entry = report.setdefault(path, {"statuses": {}, "ms": []})
                for code in codes:
                    entry["statuses"][str(code)] = entry["statuses"].get(str(code), 0) + 1
                entry["ms"] += result[2][path]
        else:
            path, lat, bad = result
            report[path] = {"requests": len(lat), "not_2xx": bad, "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99)}
            pooled.setdefault(path, []).extend(lat)
    for path, _ in bodies:
        if path in report:
            ms = report[path].pop("ms")
            report[path].update(requests=len(ms), p50_ms=pct(ms, 0.5), max_ms=round(max(ms), 1))
    return report


def replays_alone(port: int, bodies: dict[str, bytes], seconds: float) -> dict[str, Any]:
    """One client looping each replay in turn, with nothing else running: what a replay costs its client."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    report: dict[str, Any] = {}
    for name, body in bodies.items():
        lat: list[float] = []
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            began = time.perf_counter()
            conn.request("POST", "/v1/games/styrivolt/replay", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200, resp.status
            lat.append((time.perf_counter() - began) * 1000)
        report[name] = {"requests": len(lat), "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99)}
    return report


def session(own: bool) -> dict[str, Any]:
    """How gunicorn is started: in a process group of its own (so that it can be stopped whole), and in this
    script's session unless ``own``. Linux schedules each session as a group (autogroups): in one session the
    clients and the service are weighed task by task, and a waking client preempts an idle-priority helper at
    once, as a client on another machine is never delayed by one; in two, a waking client competes with the
    service's whole group, which a helper keeps busy, and may wait for the end of its slice."""
    return {"start_new_session": True} if own else {"process_group": 0}


@contextlib.contextmanager
def service(helpers: int, args: argparse.Namespace) -> Iterator[int]:
    """The service as shipped with ``COSTLY_HELPERS=helpers``, on a private redis-server: its port."""
    redis_port, port = free_port(), free_port()
    data = tempfile.mkdtemp(prefix="hostile-redis-")
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", data], stdout=subprocess.DEVNULL)
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "SESSION_QUOTA": "off", "LOG_LEVEL": "WARNING", "COSTLY_HELPERS": str(helpers),
           "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="hostile-metrics-")}
    errors: Any = subprocess.DEVNULL
    if args.blocking_report is not None:
        env.update(GEVENT_MONITOR_THREAD_ENABLE="true", GEVENT_MAX_BLOCKING_TIME=str(args.blocking_ms / 1000))
        errors = open(f"{args.blocking_report}.{helpers}", "w")  # noqa: SIM115 - closed with the server
    log: Any = subprocess.DEVNULL
    if args.access_log is not None:
        env["LOG_LEVEL"] = "INFO"
        log = open(f"{args.access_log}.{helpers}", "w")  # noqa: SIM115 - closed with the server
    server = subprocess.Popen([str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
                               "service.app:create_app()"], cwd=ROOT, env=env, stdout=log,
                              stderr=errors, **session(args.own_session))
    try:
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        redis.terminate()
        redis.wait(timeout=30)
        for f in (errors, log):
            if f is not subprocess.DEVNULL:
                f.close()


def ready(port: int, bodies: list[tuple[str, bytes]]) -> bytes:
    """Once the service answers: the tagged /move body, after every costly body was answered once on each of
    a few connections (so that every worker's helpers have started and imported the service)."""
    for _ in range(600):
        try:
            move = move_body(port)
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit("the service did not start")
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=600) for _ in range(4)]
    for conn in conns:
        for path, body in bodies:
            conn.request("POST", path, body, {"Content-Type": "application/json"})
            conn.getresponse().read()
        conn.close()
    return move


def ratios(quiet: dict[str, Any], loaded: dict[str, Any]) -> dict[str, float]:
    return {path: round(loaded[path]["p99_ms"] / quiet[path]["p99_ms"], 2) for path in PROBES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20, help="each phase (alone, with hostile clients)")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of phases for each setting, alternating")
    parser.add_argument("--helpers", default="1,0",
                        help="the COSTLY_HELPERS settings compared, each on a service of its own (1: as shipped; "
                             "0: the costly work in the serving workers, in slices)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--own-session", action="store_true",
                        help="start gunicorn in a session of its own, a scheduling group apart from the clients")
    parser.add_argument("--only", choices=("replay", "session"), default=None,
                        help="loop only one of the two bodies (to tell their effects apart)")
    parser.add_argument("--blocking-report", type=Path, default=None,
                        help="run gevent's monitor thread and write to this file (.N for COSTLY_HELPERS=N) every "
                             "stretch in which a worker served nothing for more than --blocking-ms (with the stack "
                             "that held it)")
    parser.add_argument("--blocking-ms", type=float, default=50)
    parser.add_argument("--access-log", type=Path, default=None,
                        help="write the service's request log (one JSON line a request, with its duration inside "
                             "the app) to this file (.N for COSTLY_HELPERS=N), to tell time spent in the app from "
                             "time spent waiting for it")
    args = parser.parse_args()
    config = Config()
    replay, session = longest_replay(config.max_moves), largest_session(config.max_deals)
    typical = typical_replay()
    bodies = [("/v1/games/styrivolt/replay", replay), ("/v1/sessions", session)]
    if args.only is not None:
        bodies = [bodies[0] if args.only == "replay" else bodies[1]]
    settings = [int(n) for n in args.helpers.split(",")]
    runs: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        ports = {n: stack.enter_context(service(n, args)) for n in settings}
        moves = {n: ready(port, bodies) for n, port in ports.items()}
        pooled: dict[int, tuple[dict[str, list[float]], dict[str, list[float]]]] = {n: ({}, {}) for n in ports}
        for _ in range(args.rounds):
            for n, port in ports.items():
                quiet = phase(port, args.seconds, moves[n], bodies, 0, pooled[n][0])
                loaded = phase(port, args.seconds, moves[n], bodies, 2, pooled[n][1])
                run = runs.setdefault(f"helpers={n}", {"rounds": []})
                run["rounds"].append({"quiet": quiet, "two_hostile_clients": loaded, "p99_ratio": ratios(quiet, loaded)})
        for n, port in ports.items():
            run = runs[f"helpers={n}"]
            run["median_p99_ratio"] = {path: statistics.median(r["p99_ratio"][path] for r in run["rounds"])
                                       for path in PROBES}
            quiet, loaded = ({path: {"requests": len(lat), "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99)}
                              for path, lat in each.items()} for each in pooled[n])
            run["pooled"] = {"quiet": quiet, "two_hostile_clients": loaded, "p99_ratio": ratios(quiet, loaded)}
            run["within_2x"] = all(r <= 2 for r in run["pooled"]["p99_ratio"].values())
            run["replays_alone"] = replays_alone(port, {"typical": typical, "largest": replay}, args.seconds / 2)
    report = {"seconds": args.seconds, "workers": int(os.environ.get("WEB_CONCURRENCY", "2")),
              "service_session": "its own" if args.own_session else "the clients'",
              "cpus": os.cpu_count(), "bodies": {path: len(body) for path, body in bodies},
              "typical_replay": len(typical), "runs": runs}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
