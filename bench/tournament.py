"""The tournament benchmark: a Swiss of random bots through the real runner, service and Redis.

    python -m bench.tournament [--bots 32] [--rounds 5] [--players 4] [--parallel 8] [--out bench/results]

The service runs as shipped (gunicorn, deploy/gunicorn.conf.py, two workers) with a private redis-server.
The bots are the package's random bot, ``--bots`` HTTP endpoints served by one separate process (so that they
do not share the runner's interpreter); the runner is ``card_referee_client.tournament.runner.Runner`` in
this process, exactly what ``card-referee tournament run`` does, with every match under a clock
(``forfeit``, 5 s a move; ``--move-ms 0``: none) and duplicate boards.

Reported (and written to OUT/tournament-bench.json): matches and moves per second over the whole run, and
the service's CPU time per move: the user + system time of the gunicorn workers and master over the run,
divided by the moves played (every request of the run counted in it: session creation, the seats' reads, the
spectator's long-polls, the moves and the logs). Beside it, per move, the CPU of Redis, of the runner (this
process) and of the bots' process, and the machine's load average at the end. docs/performance.md,
"Tournaments", has the numbers and what they say.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.http_bench import Service, cpu_seconds  # noqa: E402
from card_referee_client import Client  # noqa: E402
from card_referee_client.tournament.runner import Runner  # noqa: E402
from card_referee_client.tournament.spec import load  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

MOVE_MS = 5000  # every match under a clock: the clock's own cost is part of what is measured
SERVE_BOTS = """
import sys, threading
from card_referee_client import BotServer, random_bot
bots = [BotServer(random_bot(i)).start() for i in range(int(sys.argv[1]))]
print(" ".join(b.url for b in bots), flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
"""


def service_cpu(svc: Service) -> float:
    assert svc.proc is not None
    return cpu_seconds(svc.proc.pid) + sum(cpu_seconds(pid) for pid in svc.worker_pids())


def count_requests(client: Client) -> list[int]:
    """Counts the requests the runner makes to the service (a one-element list, updated in place)."""
    count, send = [0], client.http.request

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return send(*args, **kwargs)
    client.http.request = counted  # type: ignore[method-assign]
    return count


def run(bots: int, rounds: int, players: int, parallel: int, out: Path, move_ms: int = MOVE_MS) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="tournament-bench-"))
    served = subprocess.Popen([sys.executable, "-c", SERVE_BOTS, str(bots)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        urls = (served.stdout.readline() if served.stdout else "").split()
        assert len(urls) == bots, "the bot process did not start its bots"
        with RedisServer(appendonly=True) as redis, Service(2, redis.url, work, app="service.app:create_app()") as svc:
            spec = load({"name": f"{bots}-bot Swiss of Femkort", "format": "swiss", "rounds": rounds,
                         "seed": "be9c" * 8, "parallel": parallel,
                         "bots": [{"name": f"random{i:02d}", "url": u} for i, u in enumerate(urls)],
                         "games": [{"game": "femkort", "players": players, "clock": {"move_ms": move_ms, "policy": "forfeit"} if move_ms else None}]})
            redis_pid = redis.proc.pid if redis.proc else 0
            cpu0, redis0, t0 = service_cpu(svc), cpu_seconds(redis_pid), time.perf_counter()
            runner0, bots0 = time.process_time(), cpu_seconds(served.pid)
            client = Client(f"http://127.0.0.1:{svc.port}")
            requests = count_requests(client)
            runner = Runner(spec, client, work / "out", progress=None)
            final = runner.run()
            seconds = time.perf_counter() - t0
            cpu, redis_cpu = service_cpu(svc) - cpu0, cpu_seconds(redis_pid) - redis0
            runner_cpu, bots_cpu = time.process_time() - runner0, cpu_seconds(served.pid) - bots0
    finally:
        if served.stdin:
            served.stdin.close()
        served.wait(timeout=10)
    matches = len(runner.records)
    moves = sum(len(r["moves"]) for r in runner.records)
    result = {"bots": bots, "move_ms": move_ms or None, "rounds": rounds, "players": players, "parallel": parallel, "matches": matches,
              "moves": moves, "seconds": round(seconds, 2),
              "matches_per_second": round(matches / seconds, 2), "moves_per_second": round(moves / seconds, 1),
              "service_cpu_seconds": round(cpu, 2), "requests_per_move": round(requests[0] / moves, 2), "service_cpu_ms_per_move": round(cpu / moves * 1000, 3),
              "redis_cpu_ms_per_move": round(redis_cpu / moves * 1000, 3),
              "runner_cpu_ms_per_move": round(runner_cpu / moves * 1000, 3),
              "bots_cpu_ms_per_move": round(bots_cpu / moves * 1000, 3),
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "incidents": sum(len(r["incidents"]) for r in runner.records),
              "ended_by": sorted({r["result"].get("ended_by", "play") for r in runner.records}),
              "winner": final[0].bot, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournament-bench.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--move-ms", type=int, default=MOVE_MS, help="the clock's time a move (0: no clock)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    result = run(args.bots, args.rounds, args.players, args.parallel, args.out, args.move_ms)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
