"""One command for every benchmark: ``python -m bench.run --mode short|full [--out bench/results]``.

Writes ``<out>/bench-<mode>.json`` (every number, the machine, the targets met or missed) and
``<out>/bench-<mode>.png`` (matplotlib; skipped with a note when matplotlib is missing). ``./bench/run.sh``
bootstraps the venv with the ``bench`` extra and wrk first. docs/performance.md explains each part.

    engine   us per move (legal moves + apply) for every game beside the pure-Python floor; validation, view
    growth   per-move/validation time, state and response size at the start, middle and end of long matches
    http     req/s and p50/p99 of /move, /legal-moves, /view and a session move against echo floors
    scale    throughput against the gunicorn worker count (1, 2, 4) and each worker's memory

The short mode (CI, about a minute) measures the same things briefly; its ratios are reported, not enforced.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import engine_bench, http_bench, loadgen  # noqa: E402

TARGETS = {"move_rps_ratio_min": 0.8, "move_p99_ratio_max": 1.5, "session_rps_ratio_min": 0.8,
           "engine_ratio_max": 15.0, "growth_end_over_start_max": 1.5,
           "echo_over_bare_rps_min": 0.9, "move_over_bare_rps_min": 0.8, "move_over_bare_p99_max": 1.5}


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": sys.version.split()[0],
            "python_build": platform.python_build()[0], "implementation": platform.python_implementation(),
            "executable": _within_checkout(sys.executable), "platform": platform.platform(), "loadavg_start": list(os.getloadavg()),
            "wrk": _version(["wrk", "-v"]), "redis_server": _version(["redis-server", "--version"])}


def _within_checkout(path: str) -> str:
    """A path as the checkout names it (``.venv/bin/python``): a results file names nothing outside it."""
    return os.path.relpath(path, ROOT) if Path(path).is_relative_to(ROOT) else Path(path).name


def _version(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except OSError:
        return None
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else None


def verdicts(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target: the measured value, the bound, met or missed."""
    out: list[dict[str, Any]] = []

    def add(name: str, value: float | None, bound: float, higher_is_better: bool) -> None:
        if value is None:
            return
        ok = value >= bound if higher_is_better else value <= bound
        out.append({"target": name, "value": round(value, 3), "bound": bound, "met": ok})
    for g in res["engine"]["games"]:
        add(f"engine {g['game']}: us/move over floor", g["ratio_to_floor"], TARGETS["engine_ratio_max"], False)
    for g in res["growth"]:
        for k in ("move_us", "validate_us", "state_bytes", "response_bytes"):
            add(f"growth {g['game']} {g['options']}: {k} end/start", g["end_over_start"][k],
                TARGETS["growth_end_over_start_max"], False)
    if res.get("http"):
        for r in res["http"]["results"]:
            if r["endpoint"].startswith("move:"):
                add(f"http {r['endpoint']} c={r['connections']}: req/s over echo", r["rps_ratio"],
                    TARGETS["move_rps_ratio_min"], True)
                add(f"http {r['endpoint']} c={r['connections']}: p99 over echo p99", r["p99_ratio"],
                    TARGETS["move_p99_ratio_max"], False)
            if r["endpoint"].startswith("echo:") and r.get("rps_ratio_bare") is not None:
                add(f"http {r['endpoint']} c={r['connections']}: req/s over the bare echo", r["rps_ratio_bare"],
                    TARGETS["echo_over_bare_rps_min"], True)
            if r["endpoint"].startswith("move:") and r.get("rps_ratio_bare") is not None:
                add(f"http {r['endpoint']} c={r['connections']}: req/s over the bare echo", r["rps_ratio_bare"],
                    TARGETS["move_over_bare_rps_min"], True)
                add(f"http {r['endpoint']} c={r['connections']}: p99 over the bare echo's", r["p99_ratio_bare"],
                    TARGETS["move_over_bare_p99_max"], False)
            if r["endpoint"] == "session_move":
                add(f"http session_move c={r['connections']}: req/s over echo+Redis GET/SET", r["rps_ratio"],
                    TARGETS["session_rps_ratio_min"], True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("short", "full"), default="short")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--skip-http", action="store_true", help="engine parts only")
    ap.add_argument("--no-install", action="store_true", help="never apt-get wrk; use the Python load generator")
    ap.add_argument("--tool", choices=("auto", "wrk", "python"), default="auto", help="load generator")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - t0:6.1f}s] {msg}", flush=True)

    res: dict[str, Any] = {"mode": args.mode, "started": datetime.now(UTC).isoformat(timespec="seconds"),
                           "machine": machine(), "targets": TARGETS, "notes": []}
    log(f"machine: {res['machine']['nproc']} cores, {res['machine']['cpu']}, Python {res['machine']['python']}, "
        f"load {res['machine']['loadavg_start']}")
    log("engine: us per move, validation and view, beside the floor")
    res["engine"] = engine_bench.costs(args.mode, lambda m: log(m))
    log(f"engine: floor {res['engine']['floor']['us_per_move']} us/move; " + ", ".join(
        f"{g['game']} {g['move_us']} ({g['ratio_to_floor']}x)" for g in res["engine"]["games"]))
    log("growth: start, middle and end of the longest matches")
    res["growth"] = engine_bench.growth(args.mode)
    for g in res["growth"]:
        log(f"  {g['game']} {g['options']} ({g['moves_per_match']} moves): end/start {g['end_over_start']}")
    res["http"] = res["scale"] = None
    if not args.skip_http:
        tool = args.tool
        if tool == "auto":
            tool = "wrk" if (loadgen.have_wrk() or (not args.no_install and loadgen.ensure_wrk(log))) else "python"
        if tool == "python":
            note = "wrk not available: the HTTP numbers come from the Python load generator (bench/loadgen.py)"
            res["notes"].append(note)
            log(note)
        res["load_generator"] = tool
        from tests.redis_server import RedisServer
        wd = http_bench.workdir()
        try:
            with RedisServer(appendonly=True) as redis:
                log(f"http: gunicorn (deploy/gunicorn.conf.py) + redis-server on 127.0.0.1, load generator {tool}")
                res["http"] = http_bench.measure(args.mode, tool, wd, redis.url, lambda m: log(m))
                log("scale: worker count 1, 2, 4")
                res["scale"] = http_bench.scale(args.mode, tool, wd, redis.url, lambda m: log(m))
        finally:
            http_bench.cleanup(wd)
    res["machine"]["loadavg_end"] = list(os.getloadavg())
    res["seconds"] = round(time.monotonic() - t0, 1)
    res["verdicts"] = verdicts(res)
    missed = [v for v in res["verdicts"] if not v["met"]]
    res["summary"] = {"targets": len(res["verdicts"]), "met": len(res["verdicts"]) - len(missed),
                      "missed": [v["target"] for v in missed]}
    path = out / f"bench-{args.mode}.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    log(f"wrote {path}")
    try:
        from bench.plot import plot
        png = plot(res, out / f"bench-{args.mode}.png")
        log(f"wrote {png}")
    except ImportError as exc:
        note = f"no plot: {exc} (install the bench extra: pip install -e '.[bench]')"
        res["notes"].append(note)
        path.write_text(json.dumps(res, indent=1) + "\n")
        log(note)
    log(f"targets met {res['summary']['met']} of {res['summary']['targets']}; missed: "
        + ("; ".join(res["summary"]["missed"]) or "none"))
    _table(res, log)
    return 0


def _table(res: dict[str, Any], log: Any) -> None:
    if res.get("http"):
        for r in res["http"]["results"]:
            log(f"  c={r['connections']:<3} {r['endpoint']:<22} {r['rps']:>8.0f} req/s  x{r['rps_ratio']:.2f} of "
                f"{r['floor']:<13} x{r.get('rps_ratio_bare')} of bare  p50 {r['p50_ms']:.2f} ms  "
                f"p99 {r['p99_ms']:.2f} ms (x{r['p99_ratio']}, x{r.get('p99_ratio_bare')} of bare)  "
                f"by CPU x{r.get('cpu_ratio')}  retried {r.get('unbalanced_retries')}")
    if res.get("scale"):
        rps = [s["move_rps"] for s in res["scale"]]
        log(f"  scale /move req/s by workers 1/2/4: {rps}; median worker RSS "
            f"{statistics.median(s['memory']['worker_rss_mib_max'] for s in res['scale'])} MiB")


if __name__ == "__main__":
    sys.exit(main())
