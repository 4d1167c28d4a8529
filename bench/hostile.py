"""Hostile bodies against the shipped settings (issue 32): the p99 of ``/healthz`` and of a tagged ``/move``,
first alone, then while two clients loop the largest bodies the service accepts, a ``/replay`` of MAX_MOVES
moves and a ``POST /v1/sessions`` fixing MAX_DEALS deals. Not a timed test: a measurement for
docs/performance.md ("Hostile bodies").

    .venv/bin/python -m bench.hostile [--seconds 20] [--out bench/results/hostile.json]

gunicorn runs with deploy/gunicorn.conf.py (gevent, WEB_CONCURRENCY workers, default 2) on a private
redis-server; SESSION_QUOTA is off so that every creation is really made (with the quota on, most would be
refused at once and cost nothing). Every client is a process of its own, so the clients do not share a GIL.
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from service import engine
from service.config import Config
from service.engine.rng import shuffled

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def longest_replay(moves: int) -> bytes:
    """A Stýrivolt match of 400 deals played at random for ``moves`` moves: the largest replay accepted."""
    rng = random.Random(7)
    options = {"match_end": "deals", "deals": 400}
    state = engine.new_match("styrivolt", 4, options, "c0ffee")
    played: list[dict[str, Any]] = []
    while len(played) < moves and not engine.is_finished(state):
        move = dict(rng.choice(engine.legal_moves(state)))
        for key, span in move.pop("ranges", {}).items():
            move[key] = rng.sample(span["from"], span["choose"]) if "choose" in span else span["min"]
        state, _ = engine.apply(state, move)
        played.append(move)
    return orjson.dumps({"players": 4, "options": options, "seed": "c0ffee", "moves": played})


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


def phase(port: int, seconds: float, move: bytes, bodies: list[tuple[str, bytes]], attackers: int) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    until = time.monotonic() + seconds
    procs = [ctx.Process(target=probe, args=(port, "GET", "/healthz", None, until, out)),
             ctx.Process(target=probe, args=(port, "POST", "/v1/games/femkort/move", move, until, out))]
    procs += [ctx.Process(target=attack, args=(port, bodies, until, out)) for _ in range(attackers)]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    report: dict[str, Any] = {}
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
    for path, _ in bodies:
        if path in report:
            ms = report[path].pop("ms")
            report[path].update(requests=len(ms), p50_ms=pct(ms, 0.5), max_ms=round(max(ms), 1))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--only", choices=("replay", "session"), default=None,
                        help="loop only one of the two bodies (to tell their effects apart)")
    parser.add_argument("--blocking-report", type=Path, default=None,
                        help="run gevent's monitor thread and write to this file every stretch in which a worker "
                             "served nothing for more than --blocking-ms (with the stack that held it)")
    parser.add_argument("--blocking-ms", type=float, default=50)
    parser.add_argument("--access-log", type=Path, default=None,
                        help="write the service's request log (one JSON line a request, with its duration inside "
                             "the app) to this file, to tell time spent in the app from time spent waiting for it")
    args = parser.parse_args()
    config = Config()
    replay, session = longest_replay(config.max_moves), largest_session(config.max_deals)
    bodies = [("/v1/games/styrivolt/replay", replay), ("/v1/sessions", session)]
    if args.only is not None:
        bodies = [bodies[0] if args.only == "replay" else bodies[1]]
    redis_port, port = free_port(), free_port()
    data = tempfile.mkdtemp(prefix="hostile-redis-")
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", data], stdout=subprocess.DEVNULL)
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "SESSION_QUOTA": "off", "LOG_LEVEL": "WARNING",
           "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="hostile-metrics-")}
    errors: Any = subprocess.DEVNULL
    if args.blocking_report is not None:
        env.update(GEVENT_MONITOR_THREAD_ENABLE="true", GEVENT_MAX_BLOCKING_TIME=str(args.blocking_ms / 1000))
        errors = args.blocking_report.open("w")
    log: Any = subprocess.DEVNULL
    if args.access_log is not None:
        env["LOG_LEVEL"] = "INFO"
        log = args.access_log.open("w")
    server = subprocess.Popen([str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
                               "service.app:create_app()"], cwd=ROOT, env=env, stdout=log,
                              stderr=errors, start_new_session=True)
    try:
        for _ in range(600):
            try:
                move = move_body(port)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("the service did not start")
        quiet = phase(port, args.seconds, move, bodies, 0)
        loaded = phase(port, args.seconds, move, bodies, 2)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        redis.terminate()
        redis.wait(timeout=30)
    ratios = {path: round(loaded[path]["p99_ms"] / quiet[path]["p99_ms"], 2)
              for path in ("/healthz", "/v1/games/femkort/move")}
    report = {"seconds": args.seconds, "workers": int(os.environ.get("WEB_CONCURRENCY", "2")),
              "bodies": {path: len(body) for path, body in bodies}, "quiet": quiet, "two_hostile_clients": loaded,
              "p99_ratio": ratios, "within_2x": all(r <= 2 for r in ratios.values())}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
