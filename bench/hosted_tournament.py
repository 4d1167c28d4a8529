"""The hosted tournament benchmark: a Swiss of connected bots, paired, played and ranked by the service itself.

    python -m bench.hosted_tournament [--bots 200] [--rounds 2] [--players 4] [--processes 4] [--out bench/results]
                                      [--keep]

The service runs as shipped (gunicorn, deploy/gunicorn.conf.py, two workers) with a private redis-server (AOF).
``--bots`` bots are registered (``POST /v1/bots``) and each holds its own event stream: they are the package's
random bot run by ``card_referee_client.hosted.run_bot``, one thread per bot, spread over ``--processes``
separate processes (so that they share neither this process's interpreter nor one another's). Once every bot
is connected the tournament is created with all of them as entries and started; the service's director pairs
each round, creates and announces the matches, records them and publishes the standings. Every match is under
a clock (``forfeit``, 10 s a move), started when the match is announced.

Reported (and written to OUT/hosted-tournament-bench.json): matches and moves per second from the start to the
``tournament_finished`` event (followed on the tournament's event stream, not polled), and the service's CPU time
per move: the user + system time of the gunicorn master and workers over that span, divided by the moves of the
archive's records (everything the service did in it counted: the director's ticks, the announcements, the
bots' streams and heartbeats, their reads and moves, the records, standings and ratings), and the cores each worker used on average. Beside it, per move, the CPU of
Redis and of the bots' processes, and the bots' requests to the session API per move.
docs/performance.md, "Hosted tournaments", sets these beside the local runner's (``python -m bench.tournament``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.http_bench import Service, cpu_seconds  # noqa: E402
from bench.tournament import service_cpu  # noqa: E402
from card_referee_client.hosted import Organiser  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

MOVE_MS = 10000
CONNECT_SECONDS = 120     # for every bot to open its stream
FINISH_SECONDS = 1800     # for the tournament to finish
# One bots' process: reads "index token" lines on stdin, runs run_bot for each in a thread, until stdin closes.
RUN_BOTS = """
import sys, threading
from card_referee_client.bots import random_bot
from card_referee_client.hosted import run_bot
url = sys.argv[1]
for line in sys.stdin:
    if not line.strip():
        break
    index, token = line.split()
    threading.Thread(target=run_bot, args=([url], token, random_bot(int(index))), kwargs={"parallel": 4, "log": None},
                     daemon=True).start()
print("started", flush=True)
sys.stdin.read()
"""


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def wait_until(what: str, seconds: float, check: Any, every: float = 0.5) -> Any:
    stop = time.monotonic() + seconds
    while not (found := check()):
        if time.monotonic() > stop:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(every)
    return found


def wait_for_the_end(base: str, tid: str) -> str:
    """Follows the tournament's event stream, as an organiser's ``watch`` does (so that the measurement does not
    count a poll's cost), to its last event: its name."""
    organiser, stop = Organiser(base, tid), threading.Event()
    timer = threading.Timer(FINISH_SECONDS, stop.set)
    timer.start()
    try:
        return str([event.event for event in organiser.watch(stop=stop)][-1])
    finally:
        timer.cancel()
        organiser.close()


def start_bots(base: str, tokens: list[str], processes: int) -> list[subprocess.Popen[str]]:
    procs = []
    for p in range(processes):
        proc = subprocess.Popen([sys.executable, "-c", RUN_BOTS, base], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(f"{i} {t}\n" for i, t in enumerate(tokens) if i % processes == p) + "\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "started"
        procs.append(proc)
    return procs


def sessions_requests(log: Path) -> Counter[str]:
    """The bots' requests to the session API during the run, by method, route and status, from the service's JSON
    request log (the registrations, the tournament's calls and the streams are not counted)."""
    counts: Counter[str] = Counter()
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{") and '"/v1/sessions' in line:
            rec = json.loads(line)
            counts[f"{rec['method']} {rec['route']} {rec['status']}"] += 1
    return counts


def description(bots: int, rounds: int, players: int) -> dict[str, Any]:
    return {"name": f"{bots}-bot hosted Swiss of Femkort", "format": "swiss", "rounds": rounds, "seed": "be9c" * 8,
            "games": [{"game": "femkort", "players": players,
                       "clock": {"move_ms": MOVE_MS, "policy": "forfeit"}}],
            "absent": {"grace_s": 30, "then": "forfeit"}, "start": None}


def run(bots: int, rounds: int, players: int, processes: int, out: Path, keep: bool = False) -> dict[str, Any]:
    """The benchmark; with ``keep`` its work directory (the archive, the service's log) is left for a look."""
    work = Path(tempfile.mkdtemp(prefix="hosted-bench-"))
    procs: list[subprocess.Popen[str]] = []
    with RedisServer(appendonly=True) as redis, Service(2, redis.url, work, app="service.app:create_app()") as svc:
        base = f"http://127.0.0.1:{svc.port}"
        try:
            registered = [call(base, "POST", "/v1/bots", {"name": f"random{i:03d}", "owner": "bench@example.org"})
                          for i in range(bots)]
            procs = start_bots(base, [b["token"] for b in registered], processes)
            created = call(base, "POST", "/v1/tournaments", {"description": description(bots, rounds, players),
                                                             "entries": [b["id"] for b in registered]})
            tid, organiser = created["id"], created["organiser_token"]
            wait_until("every bot to connect", CONNECT_SECONDS, lambda: all(
                e["connected"] for e in call(base, "GET", f"/v1/tournaments/{tid}")["entries"]))
            redis_pid = redis.proc.pid if redis.proc else 0
            cpu0, redis0, bots0 = service_cpu(svc), cpu_seconds(redis_pid), sum(cpu_seconds(p.pid) for p in procs)
            workers0 = {pid: cpu_seconds(pid) for pid in svc.worker_pids()}
            t0 = time.perf_counter()
            call(base, "POST", f"/v1/tournaments/{tid}/start", {}, organiser)
            last = wait_for_the_end(base, tid)
            seconds = time.perf_counter() - t0
            cpu, redis_cpu = service_cpu(svc) - cpu0, cpu_seconds(redis_pid) - redis0
            bots_cpu = sum(cpu_seconds(p.pid) for p in procs) - bots0
            workers = sorted(round((cpu_seconds(pid) - c) / seconds, 2) for pid, c in workers0.items())
            archive = call(base, "GET", f"/v1/tournaments/{tid}/records")
            assert last == "tournament_finished", last
        finally:
            for proc in procs:
                if proc.stdin:
                    proc.stdin.close()
                proc.kill()
                proc.wait(timeout=10)
    requests = sessions_requests(Path(svc.log.name))
    if keep:
        (work / "archive.json").write_text(json.dumps(archive))
        print(f"the archive and the service's log: {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    records = archive["matches"]
    matches, moves = len(records), sum(len(r["moves"]) for r in records)
    result = {"bots": bots, "rounds": rounds, "players": players, "processes": processes, "move_ms": MOVE_MS,
              "matches": matches, "moves": moves, "seconds": round(seconds, 2),
              "matches_per_second": round(matches / seconds, 2), "moves_per_second": round(moves / seconds, 1),
              "service_cpu_seconds": round(cpu, 2), "requests_per_move": round(sum(requests.values()) / moves, 2),
              "requests": dict(requests), "service_cpu_ms_per_move": round(cpu / moves * 1000, 3),
              "redis_cpu_ms_per_move": round(redis_cpu / moves * 1000, 3),
              "worker_cores": workers,
              "bots_cpu_ms_per_move": round(bots_cpu / moves * 1000, 3),
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "incidents": sum(len(r["incidents"]) for r in records),
              "incident_kinds": dict(Counter(i["kind"] for r in records for i in r["incidents"])),
              "conceded_because": dict(Counter(str(e.get("reason", ""))[:40] for r in records for e in r["ends"]
                                               if e.get("type") == "concession")),
              "ended_by": sorted({r["result"].get("ended_by", "play") for r in records}),
              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    out.mkdir(parents=True, exist_ok=True)
    (out / "hosted-tournament-bench.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--processes", type=int, default=4, help="bots' processes (the bots are spread over them)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (archive, service log)")
    args = parser.parse_args()
    print(json.dumps(run(args.bots, args.rounds, args.players, args.processes, args.out, args.keep), indent=1))


if __name__ == "__main__":
    main()
