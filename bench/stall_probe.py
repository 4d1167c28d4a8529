"""A diagnosis aid: the benchmark app (bench/app.py) with a stall probe in every worker.

    BENCH_APP="bench.stall_probe:create_app()" STALL_DIR=/tmp/stall python -m bench.waiting --mode full

Each worker writes ``$STALL_DIR/<pid>.json``: how late a 10 ms sleep woke, every 10 ms (how long a woken
greenlet waited for its turn in that worker), and every garbage collection that took more than 1 ms of wall
time or was not of the youngest generation. docs/performance.md ("Wake-ups under saturation") reports one run.
"""
from __future__ import annotations

import atexit
import gc
import json
import os
import threading
import time
from typing import Any

from flask import Flask

from bench.app import create_app as bench_app


def count_young() -> dict[str, Any]:
    """What a collection of the middle generation is about to go through: the objects of generations 0 and
    1 by type, and the largest containers among them (a container's traversal visits all its items)."""
    young = gc.get_objects(0) + gc.get_objects(1)
    types: dict[str, int] = {}
    items = 0
    big: list[tuple[int, str]] = []
    for o in young:
        name = type(o).__name__
        types[name] = types.get(name, 0) + 1
        n = len(o) if isinstance(o, (dict, list, tuple, set)) else 0
        items += n
        if n > 200:
            big.append((n, name))
    big.sort(reverse=True)
    top = sorted(types.items(), key=lambda kv: -kv[1])[:15]
    return {"objects": len(young), "items": items, "old": len(gc.get_objects(2)), "types": top, "big": big[:10]}


def count_garbage() -> dict[str, Any]:
    """Collect everything, keep what was garbage (gc.DEBUG_SAVEALL was set a while before): the objects that
    only the collector frees, i.e. reference cycles, by type and by the code that made them."""
    gc.collect()
    found = list(gc.garbage)
    gc.set_debug(0)
    gc.garbage.clear()
    types: dict[str, int] = {}
    code: dict[str, int] = {}
    for o in found:
        name = type(o).__name__
        types[name] = types.get(name, 0) + 1
        fn = getattr(o, "__func__", o)
        where = getattr(fn, "__code__", None) or getattr(o, "gi_code", None) or getattr(o, "f_code", None)
        if where is not None:
            key = f"{name} {where.co_qualname} {where.co_filename.rsplit('/', 2)[-1]}"
            code[key] = code.get(key, 0) + 1
    return {"objects": len(found), "types": sorted(types.items(), key=lambda kv: -kv[1])[:25],
            "code": sorted(code.items(), key=lambda kv: -kv[1])[:25]}


def create_app() -> Flask:
    app = bench_app()
    out = os.environ["STALL_DIR"]
    late: list[tuple[float, float]] = []
    pauses: list[tuple[float, int, float, float]] = []  # (when, generation, wall ms, CPU ms)
    began = [0.0, 0.0]

    census: list[dict[str, Any]] = []
    garbage: dict[str, Any] = {}
    take_census = os.environ.get("STALL_CENSUS") == "1"

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if take_census and len(census) < 40 and len(late) > 300:
                census.append({"generation": info["generation"], **count_young()})
            began[:] = time.perf_counter(), time.thread_time()
            return
        ms = (time.perf_counter() - began[0]) * 1000
        if ms > 1 or info["generation"] > 0:
            pauses.append((round(time.time(), 3), info["generation"], round(ms, 2),
                           round((time.thread_time() - began[1]) * 1000, 2)))

    def dump() -> None:
        with open(f"{out}/{os.getpid()}.json", "w") as f:
            json.dump({"late_ms": late, "gc": pauses, "census": census, "garbage": garbage}, f)

    def probe() -> None:
        while True:
            t = time.monotonic()
            time.sleep(0.01)
            late.append((round(time.time(), 3), round((time.monotonic() - t - 0.01) * 1000, 2)))
            if take_census and len(late) == 1500:
                gc.set_debug(gc.DEBUG_SAVEALL)
            if take_census and len(late) == 1800:
                garbage.update(count_garbage())
            if len(late) % 500 == 0:
                dump()

    started = [False]

    @app.before_request
    def start_probe() -> None:  # in the worker, once gevent has patched it (not in gunicorn's master)
        if not started[0]:
            started[0] = True
            gc.callbacks.append(on_gc)
            threading.Thread(target=probe, daemon=True).start()

    atexit.register(dump)
    return app
