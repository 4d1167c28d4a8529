"""The waiting-clients load test: do waiting and stalled clients cost the others anything?

    python -m bench.waiting --mode short|full [--out bench/results] [--worker gevent|gthread]

The service runs as shipped (deploy/gunicorn.conf.py, 2 workers, bench/app.py for the floors) with a private
redis-server. Each round measures, with wrk, the stateless ``/move`` (femkort, tagged state) and a session
move (a new legal move of one of many sessions each request, as in bench/http_bench.py) twice: once with no
one waiting, and once while bench/waiting_clients.py holds 2,000 waiting clients (event streams and
long-polls on 500 sessions: two streams and two long-polls each) and 64 stalled half-requests, and moves on
those sessions at a steady pace. The two halves of a round run back to back, in alternating order.

Reported: throughput and p99 of both endpoints with the waiters against without (targets >= 0.8x and <= 2x),
how long after each of those moves every waiting client of its session heard of it (target p99 <= 50 ms,
counted from the moment the mover had its answer), whether any waiter missed one, each worker's memory with
and without the waiters, and /healthz answered while the stalled clients hold their sockets.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import http_bench  # noqa: E402

TARGETS = {"rps_ratio_min": 0.8, "p99_ratio_max": 2.0, "wake_p99_ms_max": 50.0}
WAIT_SESSIONS = 500          # x (2 streams + 2 long-polls) = 2,000 waiting clients
STALLED = 64
GAME = ("femkort", 4, {"deals": 1000})


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 16384 if hard == resource.RLIM_INFINITY else min(hard, 16384)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def waited_sessions(svc: http_bench.Service, count: int, moves_each: int) -> list[dict[str, Any]]:
    """``count`` sessions, their tokens and their next ``moves_each`` legal moves (from the engine, same seed)."""
    def make(i: int) -> dict[str, Any]:
        created, planned = http_bench.new_session(svc, GAME, f"{random.getrandbits(128):032x}", moves_each)
        moves = [(move["seat"], orjson.dumps({"move": move}).decode()) for move in planned]
        return {"id": created["id"], "tokens": [s["token"] for s in created["seats"]], "version": 0, "moves": moves}

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(make, range(count)))


class WaitingClients:
    """bench/waiting_clients.py in its own process, holding every waiting and stalled connection."""

    def __init__(self, port: int, sessions: list[dict[str, Any]], workdir: Path, moves_per_second: float) -> None:
        self.plan_path = workdir / "waiting-plan.json"
        self.out_path = workdir / "waiting-out.json"
        self.plan_path.write_text(json.dumps({"port": port, "sessions": sessions, "streams_per_session": 2,
                                              "long_polls_per_session": 2, "stalled": STALLED,
                                              "moves_per_second": moves_per_second}))
        self.proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> WaitingClients:
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.waiting_clients", str(self.plan_path),
                                      str(self.out_path)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()  # "ready <n> of <m> streams"
        if not line.startswith("ready"):
            raise RuntimeError(f"waiting clients did not start: {line!r}")
        self.ready = line
        return self

    def stop(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("stop\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()
        self.proc.wait(timeout=30)
        out: dict[str, Any] = json.loads(self.out_path.read_text())
        return out

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def probe_healthz(svc: http_bench.Service, times: int = 20) -> dict[str, float]:
    """Sequential GET /healthz on fresh connections: what a health check sees (10 s at most each)."""
    took, failed = [], 0
    for _ in range(times):
        t0 = time.monotonic()
        try:
            status, _ = svc.get("/healthz")
        except OSError:
            status = 0
        took.append((time.monotonic() - t0) * 1000)
        failed += status != 200
    return {"max_ms": round(max(took), 2), "median_ms": round(statistics.median(took), 2), "failed": failed}


def wake_latencies(result: dict[str, Any], per_session: int, quiet_until: float) -> dict[str, Any]:
    """For every accepted move of the mover: when each waiter of its session heard of it, after the answer; for
    all moves, and apart for those made before ``quiet_until`` (the waiters and the mover alone, no wrk)."""
    late = result.get("late", [])
    return {**_wakes(result, per_session, lambda sent: True),
            "quiet": {**_wakes(result, per_session, lambda sent: sent < quiet_until),
                      **_percentiles("sleep_late_ms", [x for t, x in late if t < quiet_until])},
            "loaded": {**_wakes(result, per_session, lambda sent: sent >= quiet_until),
                       **_percentiles("sleep_late_ms", [x for t, x in late if t >= quiet_until])},
            **_percentiles("sleep_late_ms", [x for _, x in late])}


def _wakes(result: dict[str, Any], per_session: int, chosen: Any) -> dict[str, Any]:
    """The wake-ups of the chosen moves. A long-poll whose poll was sent only after the move's answer was
    between two polls when the move came (no request of it was open to wake): its wake-ups are counted in
    every figure and also apart (``between_polls``); ``waiting`` counts only the waiters that had a request
    open (every stream, the long-polls sent before the answer)."""
    heard: dict[tuple[str, int], list[tuple[float, str, float | None]]] = {}
    for sid, version, at, kind, *polled in result["wakes"]:
        heard.setdefault((sid, version), []).append((at, kind, polled[0] if polled else None))
    after_answer: list[float] = []
    after_send: list[float] = []
    by_kind: dict[str, list[float]] = {}
    missed = 0
    moves = [m for m in result["moves"] if m[4] == 200 and chosen(m[2])]
    for sid, version, sent, answered, _ in moves:
        times = heard.get((sid, version), [])
        missed += max(0, per_session - len(times))
        for at, kind, polled in times[:per_session]:
            after_answer.append(max(0.0, at - answered) * 1000)
            after_send.append((at - sent) * 1000)
            by_kind.setdefault(kind, []).append(after_answer[-1])
            between = polled is not None and polled > answered
            by_kind.setdefault("between_polls" if between else "waiting", []).append(after_answer[-1])
            if polled is not None and not between:
                fresh = answered - polled < 0.25  # polled again just before the move: still setting up?
                by_kind.setdefault("fresh_poll" if fresh else "settled_poll", []).append(after_answer[-1])
    return {"moves": len(moves), "moves_refused": sum(1 for m in result["moves"] if m[4] != 200),
            "wakes_expected": len(moves) * per_session, "wakes_seen": len(after_answer), "missed": missed,
            "between_polls": len(by_kind.get("between_polls", [])),
            **_percentiles("after_answer_ms", after_answer), **_percentiles("after_send_ms", after_send),
            **{k: v for kind, xs in sorted(by_kind.items()) for k, v in _percentiles(f"{kind}_ms", xs).items()}}


def _percentiles(name: str, xs: list[float]) -> dict[str, float | None]:
    if not xs:
        return {f"{name}_p50": None, f"{name}_p99": None, f"{name}_max": None}
    xs = sorted(xs)
    return {f"{name}_p50": round(xs[len(xs) // 2], 2), f"{name}_p99": round(xs[min(len(xs) - 1, int(len(xs) * 0.99))], 2),
            f"{name}_max": round(xs[-1], 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("short", "full"), default="short")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--worker", choices=("gevent", "gthread"), default=None,
                    help="override GUNICORN_WORKER (default: what deploy/gunicorn.conf.py ships)")
    args = ap.parse_args(argv)
    raise_open_files()
    if args.worker:
        os.environ["GUNICORN_WORKER"] = args.worker
    short = args.mode == "short"
    rounds, seconds, connections = (1, 2.0, 16) if short else (5, 5.0, 32)
    moves_per_second = 20.0 if short else 40.0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - t0:6.1f}s] {msg}", flush=True)

    from tests.redis_server import RedisServer
    wd = http_bench.workdir()
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    wakes: list[dict[str, Any]] = []
    memory: dict[str, Any] = {}
    health: list[dict[str, float]] = []
    ready: list[str] = []
    errors: dict[str, int] = {}
    try:
        with RedisServer(appendonly=True) as redis, http_bench.Service(2, redis.url, wd) as svc:
            log(f"service up ({os.environ.get('GUNICORN_WORKER', 'as shipped')}); making {WAIT_SESSIONS} sessions")
            stateless = next(s for s in http_bench.stateless_scenarios(svc) if s["name"] == "move:femkort")
            waited = waited_sessions(svc, WAIT_SESSIONS, 60)
            memory["idle"] = svc.memory()

            def session_moves() -> list[bytes]:
                """Fresh session moves for one run, made before any waiter connects (with a thread pool the
                waiters may hold every thread, and the sessions could not be made then)."""
                return http_bench.session_requests(svc, max(256, 16 * connections), 40 if short else 80)[0]

            def measure(phase: str, r: int, moves: list[bytes]) -> None:
                # a run is repeated when one worker took (nearly) every connection (balanced_run), and a
                # session move can be made only once: a repeat gets fresh moves, the first the ones made before
                # the waiters connected
                unused = [moves]

                def session_batch() -> list[bytes]:
                    return unused.pop() if unused else session_moves()

                for name, requests in (("move", stateless["requests"]), ("session_move", session_batch)):
                    res = http_bench.balanced_run(svc, requests, connections, seconds, "wrk", wd)
                    runs.setdefault((name, phase), []).append(res)
                    log(f"  round {r + 1}/{rounds} {phase:<8} {name:<13} {res['rps']:>8.0f} req/s  "
                        f"p50 {res['p50_ms']:.2f} ms  p99 {res['p99_ms']:.2f} ms  errors {res['errors']}")

            for r in range(rounds):
                order = ("without", "with") if r % 2 == 0 else ("with", "without")
                for phase in order:
                    moves = session_moves()
                    if phase == "without":
                        measure(phase, r, moves)
                        continue
                    with WaitingClients(svc.port, waited, wd, moves_per_second) as clients:
                        ready.append(clients.ready)
                        memory.setdefault("with_waiters", svc.memory())
                        health.append(probe_healthz(svc))
                        time.sleep(seconds)  # the waiters and the mover alone first: wake-ups without wrk's load
                        quiet_until = time.monotonic()
                        measure(phase, r, moves)
                        result = clients.stop()
                    for s in waited:
                        s["version"] = result["versions"][s["id"]]
                        s["moves"] = result["moves_left"][s["id"]]
                    for k, v in result["errors"].items():
                        errors[k] = errors.get(k, 0) + v
                    wakes.append(wake_latencies(result, 4, quiet_until))
                    w = wakes[-1]
                    log(f"  round {r + 1}/{rounds} waiters: {clients.ready}; {w['moves']} moves, {w['wakes_seen']} of "
                        f"{w['wakes_expected']} wake-ups seen; after the answer p50/p99/max {w['after_answer_ms_p50']}"
                        f"/{w['after_answer_ms_p99']}/{w['after_answer_ms_max']} ms (quiet: p99 "
                        f"{w['quiet']['after_answer_ms_p99']}, under load: p99 {w['loaded']['after_answer_ms_p99']}; "
                        f"streams p99 {w.get('stream_ms_p99')}, long-polls p99 {w.get('long_poll_ms_p99')}; with a request "
                        f"open p99 {w.get('waiting_ms_p99')}, {w['between_polls']} between two polls p99 "
                        f"{w.get('between_polls_ms_p99')}); "
                        f"a 10 ms sleep in the clients' process woke late by p99 {w['sleep_late_ms_p99']} ms; "
                        f"/healthz {health[-1]}; client errors {result['errors']}")
            memory["after"] = svc.memory()
    finally:
        http_bench.cleanup(wd)
    res = summarise(runs, wakes, args.mode, memory, health, ready, errors)
    path = out / f"waiting-{args.mode}.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    log(f"wrote {path}")
    for v in res["verdicts"]:
        log(f"  {'met   ' if v['met'] else 'MISSED'} {v['target']}: {v['value']} (bound {v['bound']})")
    return 0


def summarise(runs: dict[tuple[str, str], list[dict[str, Any]]], wakes: list[dict[str, Any]], mode: str,
              memory: dict[str, Any], health: list[dict[str, float]], ready: list[str],
              errors: dict[str, int]) -> dict[str, Any]:
    endpoints = []
    verdicts = []
    for name in ("move", "session_move"):
        with_, without = runs[(name, "with")], runs[(name, "without")]
        rps = [a["rps"] / b["rps"] for a, b in zip(with_, without)]
        p99 = [a["p99_ms"] / b["p99_ms"] for a, b in zip(with_, without) if b["p99_ms"] > 0]
        row = {"endpoint": name,
               "rps_without": round(statistics.median(r["rps"] for r in without), 1),
               "rps_with": round(statistics.median(r["rps"] for r in with_), 1),
               "p99_ms_without": round(statistics.median(r["p99_ms"] for r in without), 3),
               "p99_ms_with": round(statistics.median(r["p99_ms"] for r in with_), 3),
               "rps_ratio": round(statistics.median(rps), 3), "p99_ratio": round(statistics.median(p99), 3),
               "rps_ratio_runs": [round(x, 3) for x in rps], "p99_ratio_runs": [round(x, 3) for x in p99],
               "errors_with": sum(r["errors"] for r in with_), "errors_without": sum(r["errors"] for r in without),
               "requests_with": sum(r["requests"] for r in with_),
               "requests_without": sum(r["requests"] for r in without)}
        endpoints.append(row)
        verdicts.append(_verdict(f"{name}: req/s with waiters over without", row["rps_ratio"],
                                 TARGETS["rps_ratio_min"], True))
        verdicts.append(_verdict(f"{name}: p99 with waiters over without", row["p99_ratio"],
                                 TARGETS["p99_ratio_max"], False))
    all_after = [w["after_answer_ms_p99"] for w in wakes if w["after_answer_ms_p99"] is not None]
    waiting = [w["waiting_ms_p99"] for w in wakes if w.get("waiting_ms_p99") is not None]
    wake = {"rounds": wakes, "p99_ms_worst_round": max(all_after) if all_after else None,
            "waiting_p99_ms_worst_round": max(waiting) if waiting else None,
            "missed": sum(w["missed"] for w in wakes), "moves": sum(w["moves"] for w in wakes)}
    if all_after:
        verdicts.append(_verdict("wake-up after the move's answer: p99 ms (worst round)", max(all_after),
                                 TARGETS["wake_p99_ms_max"], False))
    return {"mode": mode, "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "worker_class": os.environ.get("GUNICORN_WORKER", "gevent"), "waiting_clients": WAIT_SESSIONS * 4,
            "stalled": STALLED, "sessions_waited": WAIT_SESSIONS, "targets": TARGETS, "endpoints": endpoints,
            "wake": wake, "memory": memory, "healthz_with_waiters": health, "waiters_ready": ready,
            "client_errors": errors, "loadavg": list(os.getloadavg()), "verdicts": verdicts}


def _verdict(name: str, value: float, bound: float, higher_is_better: bool) -> dict[str, Any]:
    return {"target": name, "value": round(value, 3), "bound": bound,
            "met": value >= bound if higher_is_better else value <= bound}


if __name__ == "__main__":
    sys.exit(main())
