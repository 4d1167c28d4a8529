"""Serving models side by side: gunicorn's gthread worker (the thread pool shipped before) and the gevent worker
(shipped now), both with deploy/gunicorn.conf.py and 2 workers, on the same Redis.

    python -m bench.models [--rounds 3] [--seconds 3] [--out bench/results]

For each concurrency, each round runs the in-app echo, the stateless /move (femkort, tagged) and a session move
on one model and then on the other, in alternating order; reported are the medians of req/s, p99 and the
workers' CPU time per request. What waiting clients do to each model is bench/waiting.py's part
(``--worker gthread`` runs it on the thread pool).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import http_bench  # noqa: E402

MODELS = ("gthread", "gevent")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--levels", default="8,64")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    from tests.redis_server import RedisServer
    wd = http_bench.workdir()
    runs: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    try:
        with RedisServer(appendonly=True) as redis:
            services = {}
            for model in MODELS:
                os.environ["GUNICORN_WORKER"] = model
                services[model] = http_bench.Service(2, redis.url, wd).__enter__()
            os.environ.pop("GUNICORN_WORKER")
            try:
                scen = {m: {s["name"]: s for s in http_bench.stateless_scenarios(svc)} for m, svc in services.items()}
                for r in range(args.rounds):
                    for c in (int(x) for x in args.levels.split(",")):
                        order = MODELS if r % 2 == 0 else MODELS[::-1]
                        for model in order:
                            svc = services[model]
                            for name in ("echo:femkort", "move:femkort", "session_move"):
                                # a session move can be made once: a repeated run (balanced_run) gets fresh ones
                                reqs = ((lambda svc=svc, c=c: http_bench.session_requests(svc, max(256, 16 * c), 60)[0])
                                        if name == "session_move" else scen[model][name]["requests"])
                                res = http_bench.balanced_run(svc, reqs, c, args.seconds, "wrk", wd)
                                runs.setdefault((model, name, c), []).append(res)
                                print(f"round {r + 1} c={c} {model:<8} {name:<14} {res['rps']:>7.0f} req/s  "
                                      f"p99 {res['p99_ms']:.1f} ms  cpu {res['cpu_us_per_request']:.0f} us/req", flush=True)
            finally:
                for svc in services.values():
                    svc.__exit__()
    finally:
        http_bench.cleanup(wd)
    rows = [{"model": m, "endpoint": n, "connections": c, "rps": statistics.median(x["rps"] for x in rs),
             "p99_ms": statistics.median(x["p99_ms"] for x in rs),
             "cpu_us_per_request": statistics.median(x["cpu_us_per_request"] for x in rs),
             "errors": sum(x["errors"] for x in rs)} for (m, n, c), rs in sorted(runs.items())]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "models.json").write_text(json.dumps({"rounds": args.rounds, "seconds": args.seconds, "rows": rows,
                                                 "loadavg": list(os.getloadavg())}, indent=1) + "\n")
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
