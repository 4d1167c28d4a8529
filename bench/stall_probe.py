"""A diagnosis aid: the benchmark app (bench/app.py) with a stall probe in every worker.

    BENCH_APP="bench.stall_probe:create_app()" STALL_DIR=/tmp/stall python -m bench.waiting --mode full

Each worker writes ``$STALL_DIR/<pid>.json``: how late a 10 ms sleep woke, every 10 ms (how long a woken
greenlet waited for its turn in that worker), and every garbage collection that took more than 1 ms of wall
time or was not of the youngest generation. docs/performance.md ("Wake-ups under saturation") reports one run.
With ``STALL_CENSUS=1`` it also counts, by type, the young objects each collection goes through, and the
cyclic garbage of a few seconds (``gc.DEBUG_SAVEALL``): that is how Werkzeug's matcher was found (service/api/
routing.py). With ``STALL_LONGPOLL=1`` it times each step of a long-poll woken by a move, and every wait over
5 ms for the move listener's locks: that is how the listener's lock was found (service/storage/notify.py).
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
    slow: list[dict[str, Any]] = []
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
            json.dump({"late_ms": late, "gc": pauses, "census": census, "garbage": garbage, "slow_long_polls": slow}, f)

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

    if os.environ.get("STALL_LONGPOLL") == "1":
        trace_long_polls(app, slow)
    atexit.register(dump)
    return app


def trace_long_polls(app: Flask, slow: list[dict[str, Any]]) -> None:
    """Time each step of a woken long-poll (service/api/http/sessions.py ``show``): from the wait's end to the
    handler's return, and the store reads on the way; the slow ones (over 20 ms) are kept."""
    from flask import request

    from service.sessions import service as session_service
    from service.api.http import sessions

    steps: dict[int, dict[str, float]] = {}

    def timed(name: str, fn: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                mine = steps.get(id(request._get_current_object())) if request else None
                if mine is not None:
                    mine[name] = mine.get(name, 0.0) + (time.perf_counter() - t) * 1000
        return run

    show = app.view_functions["sessions.show"]

    def traced_show(sid: str) -> Any:
        key = id(request._get_current_object())
        steps[key] = {}
        t0 = time.perf_counter()
        resp = None
        try:
            resp = show(sid)
            return resp
        finally:
            mine = steps.pop(key)
            woke = mine.pop("woke_at", None)
            total = (time.perf_counter() - (woke if woke is not None else t0)) * 1000
            moved = resp is not None and json.loads(resp.get_data())["version"] > int(request.args["after"])
            request.environ["probe.moved"] = moved
            if woke is not None and moved and total > 10:  # woken by a move, not by the wait's end
                slow.append({"at": round(time.time(), 3), "after_wake_ms": round(total, 2),
                             **{k: round(v, 2) for k, v in mine.items()}})

    def traced_wait(*args: Any, **kwargs: Any) -> Any:
        try:
            return wait_on(*args, **kwargs)
        finally:
            mine = steps.get(id(request._get_current_object()))
            if mine is not None:
                mine["woke_at"] = request.environ["probe.woke_at"] = time.perf_counter()

    wait_on = sessions.wait_on
    sessions.wait_on = traced_wait
    inner = app.wsgi_app

    def traced_wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        body = inner(environ, start_response)
        woke = environ.get("probe.woke_at")
        if woke is None:
            return body
        returned = time.perf_counter()

        class Closing(list):  # type: ignore[type-arg]
            def close(self) -> None:
                getattr(body, "close", lambda: None)()
                done = time.perf_counter()
                if done - woke > 0.03 and environ.get("probe.moved"):
                    slow.append({"at": round(time.time(), 3), "wsgi": True,
                                 "woke_to_return_ms": round((returned - woke) * 1000, 2),
                                 "return_to_close_ms": round((done - returned) * 1000, 2)})
        return Closing(body)

    app.wsgi_app = traced_wsgi  # type: ignore[method-assign]
    svc = session_service.SessionService
    for name in ("find", "seat_answer", "presence"):
        setattr(svc, name, timed(name, getattr(svc, name)))
    sessions.reply = timed("reply", sessions.reply)
    app.view_functions["sessions.show"] = traced_show
    trace_locks(app, slow)


def trace_locks(app: Flask, slow: list[dict[str, Any]]) -> None:
    """Time the waits for the move listener's locks (storage/notify.py): the ones over 5 ms are kept."""
    class TimedLock:
        def __init__(self, name: str, inner: Any) -> None:
            self.name, self.inner = name, inner

        def __enter__(self) -> None:
            t = time.perf_counter()
            self.inner.acquire()
            waited = (time.perf_counter() - t) * 1000
            if waited > 5:
                slow.append({"at": round(time.time(), 3), "lock": self.name, "waited_ms": round(waited, 2)})

        def __exit__(self, *exc: Any) -> None:
            self.inner.release()

    listener = app.extensions["session_store"]._listener
    listener._lock = TimedLock("listener", listener._lock)
    listener._sending = TimedLock("sending", listener._sending)
    listener.watchers._lock = TimedLock("watchers", listener.watchers._lock)
