"""HTTP throughput and latency of the real endpoints against echo floors, under the shipped gunicorn config.

The service runs as shipped (deploy/gunicorn.conf.py: gthread, WEB_CONCURRENCY workers x GUNICORN_THREADS
threads, reuse_port; JSON access log on stdout; Prometheus multiprocess metrics) as bench/app.py, which
adds the in-app echo floors (bench/endpoints.py), and a private redis-server (append-only, as
deploy/serve.sh runs it). The load generator is a separate process (bench/loadgen.py).

Rounds: every round runs each scenario once, at each concurrency, floor first; a ratio is taken within a
round (endpoint / its floor) and the report gives the median over rounds.

Balance: gunicorn's workers share one listening socket, and when wrk opens its connections in a burst one
worker can accept all of them while the other is not scheduled (2 cores: wrk and the first worker hold them),
so the run measures one worker, at about half the throughput. Each run records every worker's CPU time;
a run in which some worker did less than half its fair share of the work is run again (up to
``BALANCE_TRIES`` times in all) and the retries are counted in the results. Each run also reports the
workers' CPU time per request, which does not depend on the balance.
"""
from __future__ import annotations

import base64
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import orjson

from service import engine
from service.api.states.codec import StateTagger

from . import loadgen
from .engine_bench import concrete

ROOT = Path(__file__).resolve().parents[1]
# Stateless payloads: real mid-match states (femkort: follow suit and head the trick; tomato: trumps).
PAYLOAD_GAMES = [("femkort", 4, {}, 9), ("tomato", 4, {}, 12)]
SESSION_GAME = ("femkort", 4, {"deals": 1000})
BARE = "bench.bare_echo:create_app()"
STATE_TAG_KEY = os.urandom(32)  # the service's STATE_TAG_KEY in the benchmark, so that the bench can tag states


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ----- the service under test -----------------------------------------------------------------------------
class Service:
    """gunicorn with deploy/gunicorn.conf.py on a free port of 127.0.0.1: the service with the in-app floors
    (bench/app.py, or the app BENCH_APP names, e.g. bench/stall_probe.py), or with ``app`` the bare Flask echo
    (bench/bare_echo.py). ``root`` is the source tree it serves (its config, service and bench; another
    checkout for bench/side_by_side.py): the tree's packages come first on the workers' path."""

    def __init__(self, workers: int, redis_url: str, workdir: Path, app: str = os.environ.get("BENCH_APP", "bench.app:create_app()"),
                 root: Path = ROOT) -> None:
        self.workers, self.redis_url, self.workdir, self.app, self.root = workers, redis_url, workdir, app, root
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Service:
        self.port = free_port()
        metrics = self.workdir / f"metrics-{self.port}"
        metrics.mkdir()
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(self.port), WEB_CONCURRENCY=str(self.workers),
                   REDIS_URL=self.redis_url, PROMETHEUS_MULTIPROC_DIR=str(metrics),
                   SESSION_QUOTA="off",  # the bench creates hundreds of sessions from one address
                   STATE_TAG_KEY=base64.urlsafe_b64encode(STATE_TAG_KEY).decode(), PYTHONPATH=python_path(self.root))
        self.log = open(self.workdir / f"gunicorn-{self.port}.log", "wb")
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.proc = subprocess.Popen([str(gunicorn), "-c", "deploy/gunicorn.conf.py", self.app],
                                     cwd=self.root, env=env, stdout=self.log, stderr=self.log)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.flush()
                tail = Path(self.log.name).read_bytes()[-2000:].decode(errors="replace")
                raise RuntimeError(f"gunicorn exited:\n{tail}")
            try:
                if self.get("/healthz")[0] in (200, 404) and len(self.worker_pids()) == self.workers:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not become ready in 30 s")
        for _ in range(50):  # let every worker import and serve once
            self.get("/healthz")
        if self.app != BARE and self.get("/readyz")[0] != 200:
            raise RuntimeError("the service is not ready (Redis?)")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # quick shutdown: open streams and long-polls are not waited for
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def get(self, path: str) -> tuple[int, bytes]:
        return self.call("GET", path)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
             ) -> tuple[int, bytes]:
        data = None if body is None else orjson.dumps(body)
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def worker_pids(self) -> list[int]:
        assert self.proc is not None
        kids = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(x) for x in kids.read_text().split()]
        except OSError:
            return []

    def memory(self) -> dict[str, Any]:
        """RSS and PSS (proportional: shared pages split between the processes sharing them) in MiB."""
        out = []
        for pid in self.worker_pids():
            rss = _proc_kib(pid, "status", "VmRSS")
            pss = _proc_kib(pid, "smaps_rollup", "Pss")
            out.append({"pid": pid, "rss_mib": round(rss / 1024, 1), "pss_mib": round(pss / 1024, 1)})
        master = self.proc.pid if self.proc else 0
        return {"workers": out, "master_rss_mib": round(_proc_kib(master, "status", "VmRSS") / 1024, 1),
                "worker_rss_mib_max": max((w["rss_mib"] for w in out), default=0.0),
                "worker_pss_mib_max": max((w["pss_mib"] for w in out), default=0.0)}


def python_path(root: Path) -> str:
    """PYTHONPATH for a server of the tree at ``root``: its own packages (the service and bench/, and the client
    package the service imports) before the venv's editable installs, whichever checkout those point at."""
    inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join([str(root), str(root / "clients" / "python"), *inherited])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc/<pid>/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


BALANCE_TRIES = 4


def balanced_run(svc: Service, requests: list[bytes] | Callable[[], list[bytes]], c: int, seconds: float,
                 tool: str, workdir: Path) -> dict[str, Any]:
    """One load run, repeated while a worker did less than half its fair share of the CPU work.
    ``requests`` may be a function giving fresh requests for each attempt (session moves are used up)."""
    pids = svc.worker_pids()
    for attempt in range(BALANCE_TRIES):
        batch = requests() if callable(requests) else requests
        before = [cpu_seconds(p) for p in pids]
        res = loadgen.run(svc.port, batch, c, seconds, tool, workdir)
        res["prepared"] = len(batch)
        used = [cpu_seconds(p) - b for p, b in zip(pids, before)]
        total = sum(used)
        shares = [u / total for u in used] if total > 0 else [1 / len(pids)] * len(pids)
        res.update(worker_cpu_shares=[round(x, 3) for x in shares], retries=attempt,
                   cpu_us_per_request=round(total / max(res["requests"], 1) * 1e6, 1))
        if len(pids) < 2 or min(shares) >= 0.5 / len(pids):
            res["balanced"] = True
            return res
    res["balanced"] = False
    return res


def _proc_kib(pid: int, file: str, key: str) -> int:
    """One ``Key:  N kB`` line of /proc/<pid>/<file> (status, smaps_rollup), in KiB; 0 when unreadable."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# ----- payloads ----------------------------------------------------------------------------------------------
def mid_match(game_id: str, players: int, options: dict[str, Any], moves: int, seed: str = "5eed"
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """A real state after ``moves`` random legal moves (the first card play from then on) and a legal play."""
    rng = random.Random(seed)
    state = engine.new_match(game_id, players, options, seed)
    done = 0
    while True:
        legal = engine.legal_moves(state)
        plays = [m for m in legal if m["action"] == "play"]
        if done >= moves and plays:
            return state, plays[0]
        state, _ = engine.apply(state, concrete(rng.choice(legal), rng))
        done += 1
        if engine.is_finished(state):
            raise RuntimeError(f"{game_id} ended before move {moves}")


def stateless_scenarios(svc: Service) -> list[dict[str, Any]]:
    """For each payload game: the echo floor and /move, /legal-moves, /view as a client sends them back
    (the state with the tag the service gave it), and /move with the bare state (checked in full: a state
    from somewhere else). Each request is checked once."""
    out = []
    for game_id, players, options, moves in PAYLOAD_GAMES:
        state, move = mid_match(game_id, players, options, moves)
        tag = StateTagger(STATE_TAG_KEY).tag(game_id, orjson.dumps(state))
        move_body = orjson.dumps({"state": state, "state_tag": tag, "move": move})
        bodies = {"echo": ("/bench/echo", move_body),
                  "move": (f"/v1/games/{game_id}/move", move_body),
                  "move_untagged": (f"/v1/games/{game_id}/move", orjson.dumps({"state": state, "move": move})),
                  "legal_moves": (f"/v1/games/{game_id}/legal-moves",
                                  orjson.dumps({"state": state, "state_tag": tag})),
                  "view": (f"/v1/games/{game_id}/view", orjson.dumps({"state": state, "state_tag": tag, "seat": 0}))}
        for name, (path, body) in bodies.items():
            status, resp = svc.call("POST", path, orjson.loads(body))
            if status != 200:
                raise RuntimeError(f"{path} answered {status}: {resp[:300]!r}")
            out.append({"name": f"{name}:{game_id}", "floor": f"echo:{game_id}", "path": path,
                        "request_bytes": len(body), "response_bytes": len(resp),
                        "requests": [loadgen.raw_request("POST", path, body)]})
    return out


def bare_scenarios(bare: Service, scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bare Flask echo (bench/bare_echo.py) of each payload game's echo body: the stricter floor."""
    out = []
    for s in scenarios:
        if not s["name"].startswith("echo:"):
            continue
        body = s["requests"][0].partition(b"\r\n\r\n")[2]
        status, resp = bare.call("POST", "/bench/echo", orjson.loads(body))
        if status != 200:
            raise RuntimeError(f"the bare echo answered {status}: {resp[:300]!r}")
        out.append({"name": "bare_" + s["name"], "floor": "bare_" + s["name"], "path": "/bench/echo (bare Flask)",
                    "request_bytes": len(body), "response_bytes": len(resp), "requests": s["requests"]})
    return out


def bare_floor_of(endpoint: str) -> str:
    """The bare echo an endpoint is read against: its payload game's, femkort's for the Redis endpoints."""
    game = endpoint.split(":", 1)[1] if ":" in endpoint else "femkort"
    return f"bare_echo:{game}"


def echo_redis_scenario(svc: Service) -> dict[str, Any]:
    state, move = mid_match(*PAYLOAD_GAMES[0])
    body = orjson.dumps({"state": state, "move": move})
    status, resp = svc.call("POST", "/bench/echo-redis", orjson.loads(body))
    if status != 200:
        raise RuntimeError(f"/bench/echo-redis answered {status}: {resp[:300]!r}")
    return {"name": "echo_redis", "floor": "echo_redis", "path": "/bench/echo-redis", "request_bytes": len(body),
            "response_bytes": len(resp), "requests": [loadgen.raw_request("POST", "/bench/echo-redis", body)]}


def echo_redis_lane_scenario(svc: Service, floor: dict[str, Any]) -> dict[str, Any]:
    """The echo_redis floor with its GET and SET sent the way the session store sends a move's commands (over
    the thread's own connection, not through redis-py's client and pool): shows what that alone is worth."""
    body = floor["requests"][0].partition(b"\r\n\r\n")[2]
    status, resp = svc.call("POST", "/bench/echo-redis-lane", orjson.loads(body))
    if status != 200:
        raise RuntimeError(f"/bench/echo-redis-lane answered {status}: {resp[:300]!r}")
    return {"name": "echo_redis_lane", "floor": "echo_redis", "path": "/bench/echo-redis-lane",
            "request_bytes": len(body), "response_bytes": len(resp),
            "requests": [loadgen.raw_request("POST", "/bench/echo-redis-lane", body)]}


def new_session(svc: Service, game: tuple[str, int, dict[str, Any]], seed: str, moves_each: int
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A session created with ``seed`` (its ``POST /v1/sessions`` answer) and its next ``moves_each`` legal moves,
    computed from the same seed with the engine."""
    game_id, players, options = game
    status, resp = svc.call("POST", "/v1/sessions", {"game": game_id, "players": players, "options": options,
                                                     "seed": seed})
    if status != 201:
        raise RuntimeError(f"POST /v1/sessions answered {status}: {resp[:300]!r}")
    rng = random.Random(seed)
    state = engine.new_match(game_id, players, options, seed)
    moves = []
    for _ in range(moves_each):
        move = concrete(rng.choice(engine.legal_moves(state)), rng)
        state, _ = engine.apply(state, move)
        moves.append(move)
    return orjson.loads(resp), moves


def session_requests(svc: Service, sessions: int, moves_each: int) -> tuple[list[bytes], int]:
    """``sessions`` new sessions and, for each, its next ``moves_each`` legal moves (computed from the same
    seed with the engine), interleaved: move k of every session, then move k+1 of every session."""

    def create(i: int) -> list[bytes]:
        seed = f"{i:08x}{random.getrandbits(96):024x}"  # a session seed has 128 bits at least
        created, moves = new_session(svc, SESSION_GAME, seed, moves_each)
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        path = f"/v1/sessions/{created['id']}/moves"
        return [loadgen.raw_request("POST", path, orjson.dumps({"move": move}),
                                    {"Authorization": f"Bearer {tokens[move['seat']]}"}) for move in moves]

    with ThreadPoolExecutor(8) as pool:
        per_session = list(pool.map(create, range(sessions + 1)))
    probe = per_session.pop()[0]  # one extra session: its first move checks that the prepared moves are accepted
    head, _, payload = probe.partition(b"\r\n\r\n")
    path = head.split(b" ")[1].decode()
    auth = [x for x in head.split(b"\r\n") if x.startswith(b"Authorization")][0].split(b" ")[-1].decode()
    status, resp = svc.call("POST", path, orjson.loads(payload), {"Authorization": f"Bearer {auth}"})
    if status != 200:
        raise RuntimeError(f"session move answered {status}: {resp[:300]!r}")
    return [per_session[s][k] for k in range(moves_each) for s in range(sessions)], len(resp)


# ----- the runs ---------------------------------------------------------------------------------------------
def measure(mode: str, tool: str, workdir: Path, redis_url: str, log: Any = print) -> dict[str, Any]:
    """Stateless endpoints and the session move against their floors, at each concurrency, in rounds.

    Pairs: each endpoint run comes right after a run of its floor, and its ratio is taken against that
    floor run, so both see nearly the same foreign load; a round is one pair per endpoint and concurrency."""
    short = mode == "short"
    levels = [8] if short else [8, 32, 64]
    # Seven shorter pairs rather than five longer ones: the host's noise comes in bursts of seconds, and a
    # median of more pairs is steadier (runs G-H spread 0.65-1.0 within one level over five pairs).
    rounds = 1 if short else 7
    seconds = 1.0 if short else 3.0
    workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    floors: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def one(name: str, c: int, requests: list[bytes] | Callable[[], list[bytes]], floor_of: str | None, r: int,
            target: Service | None = None) -> dict[str, Any]:
        res = balanced_run(target or svc, requests, c, seconds, tool, workdir)
        runs.setdefault((name, c), []).append(res)
        if floor_of is not None:
            floors.setdefault((floor_of, c), []).append(res)
        extra = f" ({res['requests']} of {res['prepared']} prepared moves)" if res["prepared"] > 1 else ""
        if res["retries"]:
            extra += f" after {res['retries']} unbalanced run(s)" + ("" if res["balanced"] else ", still unbalanced")
        log(f"  round {r + 1}/{rounds} c={c:<3} {name:<22} {res['rps']:>8.0f} req/s  p50 {res['p50_ms']:.2f} ms  "
            f"p99 {res['p99_ms']:.2f} ms  cpu {res['cpu_us_per_request']:.0f} us/req  errors {res['errors']}{extra}")
        return res

    with Service(workers, redis_url, workdir) as svc, Service(workers, redis_url, workdir, BARE) as bare:
        scenarios = stateless_scenarios(svc) + [echo_redis_scenario(svc)]
        lane = echo_redis_lane_scenario(svc, scenarios[-1])
        by_name = {s["name"]: s for s in scenarios}
        info = {s["name"]: {"path": s["path"], "floor": s["floor"], "request_bytes": s["request_bytes"],
                            "response_bytes": s["response_bytes"]} for s in scenarios + [lane]}
        bare_echoes = bare_scenarios(bare, scenarios)
        info.update({s["name"]: {"path": s["path"], "floor": s["name"], "request_bytes": s["request_bytes"],
                                 "response_bytes": s["response_bytes"]} for s in bare_echoes})
        for r in range(rounds):
            for c in levels:
                for s in bare_echoes:  # the bare floors of this round, on their own gunicorn
                    one(s["name"], c, s["requests"], None, r, bare)
                for s in scenarios:
                    if s["floor"] == s["name"]:
                        continue
                    floor = by_name[s["floor"]]
                    one(floor["name"], c, floor["requests"], s["name"], r)
                    one(s["name"], c, s["requests"], None, r)
                # the session move, right after its floor echo_redis
                floor = one("echo_redis", c, by_name["echo_redis"]["requests"], "session_move", r)
                sessions = max(256, 16 * c)  # many sessions: a move is sent long after its predecessor
                per = int(floor["rps"] * seconds * 2.0 / sessions) + 4
                made: list[tuple[list[bytes], int]] = []

                def fresh(sessions: int = sessions, per: int = per) -> list[bytes]:
                    made.append(session_requests(svc, sessions, per))
                    return made[-1][0]
                one("session_move", c, fresh, None, r)
                # not a target: the same floor with the store's way of sending commands, paired with that round
                floors.setdefault(("echo_redis_lane", c), []).append(floor)
                one("echo_redis_lane", c, lane["requests"], None, r)
                reqs, resp_bytes = made[-1]
                info["session_move"] = {"path": "/v1/sessions/{id}/moves", "floor": "echo_redis",
                                        "request_bytes": len(reqs[0].partition(b"\r\n\r\n")[2]),
                                        "response_bytes": resp_bytes, "sessions": sessions,
                                        "game": SESSION_GAME[0], "options": SESSION_GAME[2]}
        memory = svc.memory()
    return {"workers": workers, "threads": int(os.environ.get("GUNICORN_THREADS", "8")),
            "worker_class": os.environ.get("GUNICORN_WORKER", "gevent"),
            "levels": levels, "rounds": rounds, "seconds": seconds, "pairing": "each endpoint run right after a run "
            "of its floor; ratio per pair, median over rounds", "endpoints": info,
            "results": summarise(runs, floors, info), "memory_after": memory}


def summarise(runs: dict[tuple[str, int], list[dict[str, Any]]],
              floors: dict[tuple[str, int], list[dict[str, Any]]], info: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for (name, c), rs in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        floor = floors.get((name, c), rs)  # a floor's own row: itself
        ratios = [a["rps"] / b["rps"] for a, b in zip(rs, floor)]
        p99 = [a["p99_ms"] / b["p99_ms"] for a, b in zip(rs, floor) if b["p99_ms"] > 0]
        p50 = [a["p50_ms"] / b["p50_ms"] for a, b in zip(rs, floor) if b["p50_ms"] > 0]
        cpu = [b["cpu_us_per_request"] / a["cpu_us_per_request"] for a, b in zip(rs, floor)
               if a.get("cpu_us_per_request")]
        out.append({"endpoint": name, "floor": info[name]["floor"], "connections": c,
                    "rps": round(statistics.median(r["rps"] for r in rs), 1),
                    "p50_ms": round(statistics.median(r["p50_ms"] for r in rs), 3),
                    "p99_ms": round(statistics.median(r["p99_ms"] for r in rs), 3),
                    "rps_ratio": round(statistics.median(ratios), 3),
                    "p50_ratio": round(statistics.median(p50), 3) if p50 else None,
                    "p99_ratio": round(statistics.median(p99), 3) if p99 else None,
                    "rps_ratio_runs": [round(x, 3) for x in ratios],
                    "cpu_us_per_request": round(statistics.median(r.get("cpu_us_per_request", 0.0) for r in rs), 1),
                    "cpu_ratio": round(statistics.median(cpu), 3) if cpu else None,
                    "unbalanced_retries": sum(r.get("retries", 0) for r in rs),
                    "unbalanced_kept": sum(1 for r in rs if r.get("balanced") is False),
                    "errors": sum(r["errors"] for r in rs), "requests": sum(r["requests"] for r in rs)})
        bare = runs.get((bare_floor_of(name), c))
        if bare is not None:
            out[-1]["rps_ratio_bare"] = round(statistics.median(a["rps"] / b["rps"] for a, b in zip(rs, bare)), 3)
            out[-1]["p99_ratio_bare"] = round(statistics.median(a["p99_ms"] / b["p99_ms"] for a, b in zip(rs, bare)
                                                                if b["p99_ms"] > 0), 3)
            out[-1]["cpu_ratio_bare"] = round(statistics.median(
                b["cpu_us_per_request"] / a["cpu_us_per_request"] for a, b in zip(rs, bare)
                if a.get("cpu_us_per_request")), 3)
        lanes = runs.get(("echo_redis_lane", c)) if name == "session_move" else None
        if lanes:
            out[-1]["rps_ratio_vs_lane"] = round(statistics.median(a["rps"] / b["rps"] for a, b in zip(rs, lanes)), 3)
    return out


def scale(mode: str, tool: str, workdir: Path, redis_url: str, log: Any = print) -> list[dict[str, Any]]:
    """Throughput of the echo and the femkort /move against the worker count, and each worker's memory."""
    short = mode == "short"
    seconds, rounds, c = (1.0, 1, 16) if short else (4.0, 3, 32)
    out = []
    for w in (1, 2, 4):
        with Service(w, redis_url, workdir) as svc:
            scen = [s for s in stateless_scenarios(svc) if s["name"] in ("echo:femkort", "move:femkort")]
            res: dict[str, list[dict[str, Any]]] = {}
            for _ in range(rounds):
                for s in scen:
                    res.setdefault(s["name"], []).append(balanced_run(svc, s["requests"], c, seconds, tool,
                                                                      workdir))
            mem = svc.memory()
        row = {"workers": w, "connections": c, "memory": mem}
        for name, rs in res.items():
            key = name.split(":")[0]
            row[f"{key}_rps"] = round(statistics.median(r["rps"] for r in rs), 1)
            row[f"{key}_p99_ms"] = round(statistics.median(r["p99_ms"] for r in rs), 3)
            row[f"{key}_errors"] = sum(r["errors"] for r in rs)
            row[f"{key}_unbalanced_retries"] = sum(r["retries"] for r in rs)
        row["move_over_echo"] = round(row["move_rps"] / row["echo_rps"], 3)
        log(f"  workers={w}: echo {row['echo_rps']:.0f} req/s, /move {row['move_rps']:.0f} req/s, "
            f"worker RSS {mem['worker_rss_mib_max']} MiB (PSS {mem['worker_pss_mib_max']} MiB)")
        out.append(row)
    return out


def workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="cr-bench-"))


def cleanup(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":  # a quick manual check: python -m bench.http_bench
    from tests.redis_server import RedisServer
    with RedisServer(appendonly=True) as redis:
        wd = workdir()
        print(json.dumps(measure("short", "wrk" if loadgen.have_wrk() else "python", wd, redis.url), indent=1))
        cleanup(wd)
