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


def create_app() -> Flask:
    app = bench_app()
    out = os.environ["STALL_DIR"]
    late: list[tuple[float, float]] = []
    pauses: list[tuple[float, int, float, float]] = []  # (when, generation, wall ms, CPU ms)
    began = [0.0, 0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[:] = time.perf_counter(), time.thread_time()
            return
        ms = (time.perf_counter() - began[0]) * 1000
        if ms > 1 or info["generation"] > 0:
            pauses.append((round(time.time(), 3), info["generation"], round(ms, 2),
                           round((time.thread_time() - began[1]) * 1000, 2)))

    def dump() -> None:
        with open(f"{out}/{os.getpid()}.json", "w") as f:
            json.dump({"late_ms": late, "gc": pauses}, f)

    def probe() -> None:
        while True:
            t = time.monotonic()
            time.sleep(0.01)
            late.append((round(time.time(), 3), round((time.monotonic() - t - 0.01) * 1000, 2)))
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
