"""Issue 13's measure over HTTP: the untagged stateless ``/move`` as clients playing matches send it, against
the in-app echo of the same bodies, per game.

    python -m bench.untagged_http [--seconds 4] [--connections 16] [--rounds 3] [--out bench/results]

For each game, 48 seeded matches at its default table size are played out in advance; the requests are every
state of every match with the move made on it, without its tag, interleaved (the first state of each match,
then the second of each, ...) so that wrk's connections, taking the next request in turn, each play a share of
the matches forward the way a client does: each state is the one the previous answer returned, landing on
whichever worker. The echo floor sends the same bodies to ``/bench/echo``. The service runs as shipped
(deploy/gunicorn.conf.py, 2 workers). Reported: req/s of each, the ratio (target: at least 0.6), and the workers'
CPU per request (the ratio of those too, which does not depend on what else the machine ran).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import http_bench, loadgen  # noqa: E402
from bench.engine_bench import concrete  # noqa: E402
from service import engine  # noqa: E402

MATCHES = 48


def chained_requests(game_id: str, matches: int = MATCHES) -> list[bytes]:
    g = engine.get_game(game_id)
    plays: list[list[bytes]] = []
    for m in range(matches):
        rng = random.Random(m)
        state = engine.new_match(game_id, g.default_players, {}, f"{m + 1:x}0ab")
        bodies = []
        while not engine.is_finished(state):
            move = concrete(rng.choice(engine.legal_moves(state)), rng)
            bodies.append(orjson.dumps({"state": state, "move": move}))
            state, _ = engine.apply(state, move)
        plays.append(bodies)
    out = []
    for step in range(max(len(p) for p in plays)):
        out += [loadgen.raw_request("POST", f"/v1/games/{game_id}/move", p[step]) for p in plays if step < len(p)]
    return out


def as_echo(requests: list[bytes]) -> list[bytes]:
    return [loadgen.raw_request("POST", "/bench/echo", r.partition(b"\r\n\r\n")[2]) for r in requests]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", default="all")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    from tests.redis_server import RedisServer
    games = sorted(engine.all_games()) if args.games == "all" else args.games.split(",")
    wd = http_bench.workdir()
    rows: list[dict[str, Any]] = []
    try:
        with RedisServer() as redis, http_bench.Service(2, redis.url, wd) as svc:
            for game_id in games:
                moves = chained_requests(game_id)
                status, answer = svc.call("POST", f"/v1/games/{game_id}/move",
                                          orjson.loads(moves[0].partition(b"\r\n\r\n")[2]))
                assert status == 200, answer[:300]
                echo = as_echo(moves)
                runs: dict[str, list[dict[str, Any]]] = {"echo": [], "untagged": []}
                for _ in range(args.rounds):
                    for name, reqs in (("echo", echo), ("untagged", moves)):
                        runs[name].append(http_bench.balanced_run(svc, reqs, args.connections, args.seconds,
                                                                  "wrk", wd))
                med = {k: {m: statistics.median(r[m] for r in v) for m in ("rps", "cpu_us_per_request")}
                       for k, v in runs.items()}
                errors = sum(r["errors"] for v in runs.values() for r in v)
                row = {"game": game_id, "requests": len(moves), "errors": errors,
                       "echo_rps": round(med["echo"]["rps"]), "untagged_rps": round(med["untagged"]["rps"]),
                       "ratio": round(med["untagged"]["rps"] / med["echo"]["rps"], 3),
                       "ratio_by_cpu": round(med["echo"]["cpu_us_per_request"]
                                             / med["untagged"]["cpu_us_per_request"], 3),
                       "pairs": [round(u["rps"] / e["rps"], 3) for e, u in zip(runs["echo"], runs["untagged"])]}
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        http_bench.cleanup(wd)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "untagged-http.json").write_text(json.dumps({"connections": args.connections, "seconds": args.seconds,
                                                        "rounds": args.rounds, "games": rows}, indent=1) + "\n")
    return 0 if all(r["errors"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
