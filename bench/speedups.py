"""What each of the service's own ways around a library's public API saves: the way the service does it against
the public API it stands for, both in one process, CPU time.

    python -m bench.speedups [--quick] [NAME ...]     NAME: tally, matcher, tag, request-id (all by default)

tally: a request's metrics observation, counted by the tally and written once per flush through the histogram's
private values (service/speedups/prometheus_client.py), against the same observation replayed with
``Histogram.observe`` at the flush; in the multiprocess mode gunicorn's workers run in. matcher: kept matches
(service/speedups/werkzeug.py) against Werkzeug's own ``Map``, and the objects each match leaves to the
collector. tag: the state tag from two SHA-256 contexts (service/api/states/codec.py) against ``hmac``'s own
objects, ``hmac.new(...).copy()``. request-id: the version-4 UUID from the random module's bits against
``uuid.uuid4()`` and ``uuid.UUID(int=..., version=4)``.

Each is timed twice. A call alone: the best and the median of 9 interleaved runs. A request: ``POST
/v1/games/femkort/move`` with a tagged mid-match state, the app's WSGI callable called directly, the ways
interleaved request by request (a call alone runs with warm caches and reads low inside a request); the mean
thread CPU per request, metrics flushes included.
"""
from __future__ import annotations

import binascii
import gc
import hmac
import io
import logging
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from bisect import bisect_left
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="metrics-"))  # as under gunicorn

import orjson  # noqa: E402
from flask import Flask  # noqa: E402
from werkzeug.routing import Map  # noqa: E402

from service.api.states import codec  # noqa: E402
from service.api.wsgi import observability  # noqa: E402
from service.app import create_app  # noqa: E402
from service.config import Config  # noqa: E402
from service.speedups.werkzeug import KeptMatchMap  # noqa: E402

from .http_bench import mid_match  # noqa: E402

RUNS = 9
KEY = os.urandom(32)
GAME = "femkort"
Way = Callable[[], None]


# ----- the public API each way stands for -------------------------------------------------------------------------
class ReplayedTally(observability.Tally):
    """The metrics tally with each observation kept and replayed through ``Histogram.observe`` at the flush."""

    def observe(self, metric: Any, labels: tuple[str, ...], seconds: float) -> None:
        with self.lock:
            self.observed.setdefault((metric, labels), []).append(seconds)  # type: ignore[arg-type]

    def flush(self) -> None:
        with self.lock:
            counts, self.counts = self.counts, {}
            observed, self.observed = self.observed, {}
        for key, n in counts.items():
            self._child(key).inc(n)
        for key, values in observed.items():
            child = self._child(key)
            for v in values:
                child.observe(v)


class HmacTagger(codec.StateTagger):
    """The state tag from ``hmac``'s own objects: keyed and fed the domain and each game's id once, copied per tag."""

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, codec.TAG_DOMAIN, "sha256")
        self._per_game = {game: self._keyed_for(game) for game in codec.engine.all_games()}

    def _keyed_for(self, game_id: str) -> Any:
        mac = self._keyed.copy()
        mac.update(game_id.encode() + b"\x00")
        return mac

    def tag(self, game_id: str, state_json: bytes) -> str:
        keyed = self._per_game.get(game_id)
        mac = keyed.copy() if keyed is not None else self._keyed_for(game_id)
        data = memoryview(state_json)
        for start in range(0, len(data), codec._SLICE):
            mac.update(data[start:start + codec._SLICE])
        return codec.TAG_PREFIX + binascii.b2a_base64(mac.digest(), newline=False)[:43].translate(
            codec._URLSAFE).decode()


# ----- timing ----------------------------------------------------------------------------------------------------
def alone(ways: dict[str, Callable[[], Any]], n: int) -> None:
    """Each way called ``n`` times a run, the runs interleaved; CPU us per call."""
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(RUNS):
        for name, way in ways.items():
            started = time.process_time()
            for _ in range(n):
                way()
            times[name].append((time.process_time() - started) / n * 1e6)
    print("  a call alone (CPU us, best / median):")
    for name, ts in times.items():
        print(f"    {name:<56} {min(ts):8.3f} / {statistics.median(ts):8.3f}")


class Move:
    """The tagged ``/move`` of a mid-match state, called straight through an app's WSGI callable."""

    def __init__(self) -> None:
        state, move = mid_match(GAME, 4, {}, 9)
        tag = codec.StateTagger(KEY).tag(GAME, orjson.dumps(state))
        self.body = orjson.dumps({"state": state, "state_tag": tag, "move": move})

    def __call__(self, app: Flask) -> None:
        status: list[str] = []
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": f"/v1/games/{GAME}/move", "SCRIPT_NAME": "",
                   "SERVER_NAME": "localhost", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
                   "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(self.body)),
                   "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "localhost:8000", "wsgi.url_scheme": "http",
                   "wsgi.input": io.BytesIO(self.body), "wsgi.errors": io.StringIO(), "wsgi.multithread": True,
                   "wsgi.multiprocess": True, "wsgi.run_once": False}

        def start_response(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status.append(line)

        out = app(environ, start_response)
        b"".join(out)
        if hasattr(out, "close"):
            out.close()
        assert status[0].startswith("200"), status


def app_made(**patches: Any) -> Flask:
    """The service's app, made with some attributes replaced meanwhile (``patched``)."""
    with patched(**patches):
        app = create_app(Config(log_level="INFO", state_tag_key=KEY))
    app.extensions["timeout_applier"].stop()  # polls Redis-less stores: not on the measured path
    access_log = logging.getLogger().handlers[0]
    if isinstance(access_log, logging.StreamHandler):
        access_log.setStream(open(os.devnull, "w"))  # noqa: SIM115 - kept open for the run
    return app


TARGETS: dict[str, Any] = {"observability": observability, "codec": codec, "ObservedFlask": observability.ObservedFlask}


@contextmanager
def patched(**patches: Any) -> Iterator[None]:
    """Attributes of ``TARGETS`` replaced while the block runs, each named ``<target>__<attribute>``."""
    saved = []
    for dotted, value in patches.items():
        name, _, attr = dotted.partition("__")
        target = TARGETS[name]
        saved.append((target, attr, getattr(target, attr)))
        setattr(target, attr, value)
    try:
        yield
    finally:
        for target, attr, value in reversed(saved):
            setattr(target, attr, value)


def per_request(ways: dict[str, tuple[Flask, dict[str, Any]]], n: int, flush_every: int = 100) -> None:
    """Each way's ``/move`` (an app, and module attributes in force while it runs), interleaved request by
    request, ``n`` each, the first way twice (the difference between its two is the measurement's noise); every
    ``flush_every`` requests the tally in force is flushed within the timing."""
    move = Move()
    first = next(iter(ways))
    ways = {first: ways[first], f"{first}, again (the noise)": ways[first], **ways}
    spent = dict.fromkeys(ways, 0.0)
    names = list(ways)
    for app, patches in ways.values():
        with patched(**patches):
            move(app)  # warm: the first request of an app compiles its routes
    for k in range(n):
        for name in names[k % len(names):] + names[:k % len(names)]:
            app, patches = ways[name]
            with patched(**patches):
                started = time.thread_time()
                move(app)
                if (k + 1) % flush_every == 0:
                    observability.TALLY.flush()
                spent[name] += time.thread_time() - started
    print(f"  a request, POST /v1/games/{GAME}/move (thread CPU us, mean of {n}; over the first):")
    for name in names:
        us, base = spent[name] / n * 1e6, spent[first] / n * 1e6
        print(f"    {name:<56} {us:8.1f}   {us - base:+6.1f} us  {(us / base - 1) * 100:+5.1f} %")


# ----- the four ways ---------------------------------------------------------------------------------------------
def tally(n: int) -> None:
    print("tally: a metrics observation (prometheus-client, multiprocess mode)")
    from prometheus_client import CollectorRegistry, Histogram

    from service.speedups.prometheus_client import add_observations
    buckets = observability.BUCKETS
    child = Histogram("bench_seconds", "b", ["a"], buckets=buckets, registry=CollectorRegistry()).labels("x")
    values = [random.Random(1).expovariate(300) for _ in range(2000)]

    def tallied() -> None:
        total, per_bucket = 0.0, [0] * (len(buckets) + 1)
        for v in values:
            total += v
            per_bucket[bisect_left(buckets, v)] += 1
        add_observations(child, total, per_bucket)

    def replayed() -> None:
        kept = list(values)
        for v in kept:
            child.observe(v)
    alone({"tally (2,000 observations a call)": tallied, "Histogram.observe at the flush (2,000)": replayed},
          max(1, n // 2000))
    replaying = ReplayedTally(3600)
    observability.TALLY.interval = 3600  # every flush in the measured thread
    app = app_made()
    per_request({"tally": (app, {}), "Histogram.observe at the flush": (app, {"observability__TALLY": replaying})},
                n)


def matcher(n: int) -> None:
    print("matcher: URL matching (werkzeug)")
    rules = list(create_app(Config(log_level="WARNING")).url_map.iter_rules())
    maps = {"kept matches": KeptMatchMap([r.empty() for r in rules]), "Werkzeug's Map": Map([r.empty() for r in rules])}
    path = f"/v1/games/{GAME}/move"
    alone({name: partial(_match, m, path) for name, m in maps.items()}, n)
    for name, m in maps.items():
        print(f"    {name:<56} {_garbage(m, path):.1f} objects for the collector a match")
    per_request({"kept matches": (app_made(), {}), "Werkzeug's Map": (app_made(ObservedFlask__url_map_class=Map), {})},
                n)


def _match(m: Map, path: str) -> Any:
    return m.bind("localhost").match(path, "POST", return_rule=True)


def _garbage(m: Map, path: str, n: int = 1000) -> float:
    gc.collect()
    gc.disable()
    try:
        for _ in range(n):
            _match(m, path)
        return gc.collect() / n
    finally:
        gc.enable()


def tag(n: int) -> None:
    print("tag: the state tag (hashlib, hmac)")
    state_json = orjson.dumps(mid_match(GAME, 4, {}, 9)[0])
    taggers = {"two SHA-256 contexts": codec.StateTagger(KEY), "hmac.new(...).copy()": HmacTagger(KEY)}
    assert len({t.tag(GAME, state_json) for t in taggers.values()}) == 1
    alone({name: partial(t.tag, GAME, state_json) for name, t in taggers.items()}, n)
    per_request({"two SHA-256 contexts": (app_made(), {}),
                 "hmac.new(...).copy()": (app_made(codec__StateTagger=HmacTagger), {})}, n)


def request_id(n: int) -> None:
    print("request-id: a request id (random, uuid)")
    ways: dict[str, Callable[[], str]] = {
        "random bits, version and variant set": observability.new_request_id,
        "uuid.uuid4().hex": lambda: uuid.uuid4().hex,
        "uuid.UUID(int=getrandbits(128), version=4).hex": lambda: uuid.UUID(int=random.getrandbits(128),
                                                                             version=4).hex}
    alone(ways, n)
    app = app_made()
    per_request({name: (app, {"observability__new_request_id": way}) for name, way in ways.items()}, n)


WAYS = {"tally": tally, "matcher": matcher, "tag": tag, "request-id": request_id}


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    names = [a for a in argv if a != "--quick"] or list(WAYS)
    for name in names:
        WAYS[name](200 if quick else 10_000)


if __name__ == "__main__":
    main(sys.argv[1:])
