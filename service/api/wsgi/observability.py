"""Metrics, structured logs and request ids.

- ``/metrics`` in Prometheus text format. Under gunicorn with several workers, set
  PROMETHEUS_MULTIPROC_DIR (deploy/serve.sh and the Dockerfile do) so every worker's numbers are summed.
- One JSON log line per request on stdout: method, route template, status, duration, request id, game
  and, for an illegal move, the reason. Never a body, a header value, a token or a card.
- ``X-Request-ID``: taken from the request when it is a sane id, else made; echoed in the response.
"""
from __future__ import annotations

import _thread
import atexit
import logging
import os
import random
import re
import sys
import threading
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

import orjson

from flask import Flask, Response, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from ... import engine
from .routing import KeptMatchMap
from .turns import Turns
from ..openapi.operations import documented
from ..openapi.shapes import text

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter("referee_requests_total", "HTTP requests", ["endpoint", "game", "status"])
LATENCY = Histogram("referee_request_seconds", "HTTP request latency", ["endpoint", "game"], buckets=BUCKETS)
ILLEGAL = Counter("referee_illegal_moves_total", "Moves refused as illegal", ["game", "reason"])
REDIS_ERRORS = Counter("referee_redis_errors_total", "Failed Redis operations", ["op"])
REDIS_LATENCY = Histogram("referee_redis_seconds", "Redis operation latency", ["op"], buckets=BUCKETS)
SESSIONS = Counter("referee_sessions_created_total", "Sessions created", ["game"])

access = logging.getLogger("service.access")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and any ``extra`` fields given."""

    RESERVED = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": round(record.created, 3), "level": record.levelname, "logger": record.name,
                               "msg": record.getMessage()}
        fields = getattr(record, "fields", None)  # the access log's fields, given as one dict (cheaper)
        if isinstance(fields, dict):
            out.update(fields)
        out.update({k: v for k, v in record.__dict__.items()
                    if k not in self.RESERVED and k != "fields" and not k.startswith("_")})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(level: str) -> None:
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    root.handlers[:] = [handler]
    root.setLevel(level)
    # What no line of ours shows, and every record would otherwise compute (the logging HOWTO's
    # "Optimization"): the caller's file and line (a walk up the stack). Not the process id or thread: other
    # formats in the same process use them (gunicorn's error log prints "[%(process)d]").
    logging._srcfile = None  # type: ignore[attr-defined]


def observe_redis(op: str, seconds: float, ok: bool) -> None:
    TALLY.observe(REDIS_LATENCY, (op,), seconds)
    if not ok:
        TALLY.count(REDIS_ERRORS, (op,))


def session_created(game: str) -> None:
    TALLY.count(SESSIONS, (game,))


def write_access(fields: dict[str, Any]) -> None:
    """One access line, the same JSON as ``access.info("request", extra={"fields": fields})`` would write, but
    written straight to the JSON handler when nothing else is configured for it (no filters, no other
    handlers): a LogRecord, its formatting and the logging calls around it were the most of what the access
    log cost per request (docs/performance.md). Otherwise it goes through logging."""
    handler = _plain_json_handler()
    if handler is None:
        access.info("request", extra={"fields": fields})
        return
    line = orjson.dumps({"ts": round(time.time(), 3), "level": "INFO", "logger": access.name, "msg": "request",
                         **fields}, option=orjson.OPT_APPEND_NEWLINE)
    fd = _descriptor(handler.stream)
    if fd is not None and handler.terminator == "\n":
        try:
            # one write(2) of the whole line: no text layer, no lock, no flush. The handler flushes after every
            # record it writes, so nothing of its own is waiting in front of the line, and a line this short
            # (far under PIPE_BUF) is written whole even with other processes on the same pipe
            while line:
                line = line[os.write(fd, line):]
            return
        except BlockingIOError:  # a non-blocking descriptor that is full: the stream's own way below
            pass
    handler.acquire()
    try:
        handler.stream.write(line.decode() if isinstance(line, bytes) else line)
        handler.flush()
    finally:
        handler.release()


_descriptors: dict[int, tuple[Any, int | None]] = {}  # id(stream) -> (the stream, kept alive; its descriptor)


def _descriptor(stream: Any) -> int | None:
    """The file descriptor under a text stream (stdout, a log file), or None (a stream in memory)."""
    known = _descriptors.get(id(stream))
    if known is None or known[0] is not stream:
        try:
            fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
            fd = None
        known = _descriptors[id(stream)] = (stream, fd)
    return known[1]


def _plain_json_handler() -> logging.StreamHandler[Any] | None:
    root = logging.getLogger()
    if access.handlers or access.filters or not access.propagate or root.filters or len(root.handlers) != 1:
        return None
    handler = root.handlers[0]
    if (not isinstance(handler, logging.StreamHandler) or handler.filters or handler.level > logging.INFO
            or type(handler.formatter) is not JsonFormatter):
        return None
    return handler


_V4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_V4_SET = (0x8000 << 48) | (0x4000 << 64)


def new_request_id() -> str:
    """A random version-4 UUID in hex (RFC 4122: the version and variant bits set, as uuid.UUID(version=4) does).
    Not uuid.uuid4(): that reads os.urandom, a system call during which the thread lets go of the GIL. An id must
    be unique, not secret; the random module reseeds itself in every forked worker."""
    return "%032x" % (random.getrandbits(128) & _V4_CLEAR | _V4_SET)


def _raw_lock() -> Any:
    """A plain OS lock, also under gevent's monkey-patching (whose lock is Python code that can switch
    greenlets): the tally holds it for a few dict operations and never waits on anything while holding it."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency; a plain lock is right without it
        return _thread.allocate_lock()
    return monkey.get_original("_thread", "allocate_lock")()


class Tally:
    """The metrics of this process counted in plain memory and added to the Prometheus metrics every
    ``FLUSH`` seconds by a background thread (a greenlet under gevent), before each scrape and at exit.

    Under gunicorn every worker writes its metrics to PROMETHEUS_MULTIPROC_DIR, and every ``inc`` or
    ``observe`` there is a locked write to a memory-mapped file: three per request, two more per Redis
    operation. Here a request costs one lock and a few dict operations, and each flush writes a label set's
    total once (docs/performance.md, "The middleware in one place"). A scrape sees another worker's requests at
    most ``FLUSH`` seconds after they ended."""

    def __init__(self, flush: float) -> None:
        self.interval = flush
        self.lock = _raw_lock()
        self.counts: dict[tuple[Any, tuple[str, ...]], float] = {}
        self.observed: dict[tuple[Any, tuple[str, ...]], list[Any]] = {}  # [sum, count per bucket]
        self.children: dict[tuple[Any, tuple[str, ...]], Any] = {}
        self.thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forked)
        atexit.register(self.flush)

    def count(self, metric: Any, labels: tuple[str, ...], n: float = 1) -> None:
        key = metric, labels
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n
        if self.thread is None:
            self._start()

    def observe(self, metric: Any, labels: tuple[str, ...], seconds: float) -> None:
        key = metric, labels
        bucket = bisect_left(BUCKETS, seconds)  # Prometheus counts a value in the first bucket it is <= to
        with self.lock:
            seen = self.observed.get(key)
            if seen is None:
                seen = self.observed[key] = [0.0, [0] * (len(BUCKETS) + 1)]  # the last bucket is +Inf
            seen[0] += seconds
            seen[1][bucket] += 1
        if self.thread is None:
            self._start()

    def flush(self) -> None:
        with self.lock:
            counts, self.counts = self.counts, {}
            observed, self.observed = self.observed, {}
        for key, n in counts.items():
            self._child(key).inc(n)
        for key, (total, buckets) in observed.items():
            child = self._child(key)
            # a histogram child keeps its sum and a count per bucket (not cumulative): what ``observe`` adds
            # to one at a time, added here once per label set and bucket
            child._sum.inc(total)
            for i, n in enumerate(buckets):
                if n:
                    child._buckets[i].inc(n)

    def _child(self, key: tuple[Any, tuple[str, ...]]) -> Any:
        child = self.children.get(key)
        if child is None:
            metric, labels = key
            child = self.children[key] = metric.labels(*labels)
        return child

    def _start(self) -> None:
        with self.lock:
            if self.thread is not None:
                return
            self.thread = threading.Thread(target=self._run, name="metrics-flush", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            if self.counts or self.observed:
                self.flush()

    def _forked(self) -> None:
        # the parent's counts are the parent's: a child starts from nothing, with its own thread
        self.lock = _raw_lock()
        self.counts, self.observed, self.children, self.thread = {}, {}, {}, None


FLUSH = 0.25  # seconds
TALLY = Tally(FLUSH)
QUIET = frozenset(("/metrics", "/healthz", "/readyz"))  # routes without an access log line

# What a request's handlers tell the middleware, kept in the WSGI environ (it outlives the request context)
RULE, GAME, ILLEGAL_REASON = "referee.rule", "referee.game", "referee.illegal"


class ObservedFlask(Flask):
    """Flask with the service's own middleware in its WSGI call rather than in request hooks: the request
    id, the metrics and the access line cost one function call around the request, where two hooks cost
    Flask's hook machinery on every request (docs/performance.md, "The middleware in one place").
    ``on_request`` callables run before each request (cheap checks only: the timeout applier's revival)."""

    url_map_class = KeptMatchMap
    on_request: tuple[Callable[[], None], ...] = ()
    turns: Turns | None = None  # create_app makes them, once gevent (if used) has patched the process

    def wsgi_app(self, environ: Any, start_response: Any) -> Any:
        started = time.perf_counter()
        turns = self.turns
        if turns is None:
            return self._observed(environ, start_response, started)
        turns.take(environ)
        try:
            return self._observed(environ, start_response, started)
        finally:
            turns.give_back(environ)

    def _observed(self, environ: Any, start_response: Any, started: float) -> Any:
        for hook in self.on_request:
            hook()
        rid = environ.get("HTTP_X_REQUEST_ID")
        if rid is None or not REQUEST_ID.match(rid):
            rid = new_request_id()
        status: list[str] = []

        def start(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append(("X-Request-ID", rid))
            status.append(line)
            return start_response(line, headers, exc_info)

        body = super().wsgi_app(environ, start)
        observe(environ, int(status[-1][:3]) if status else 500, time.perf_counter() - started, rid)
        return body

    def full_dispatch_request(self) -> Response:
        req = request._get_current_object()  # type: ignore[attr-defined]
        req.environ[RULE] = req.url_rule, req.view_args  # None, None when no route matched
        return super().full_dispatch_request()

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        # Flask asks inspect whether every hook and view is a coroutine function, on every request; the
        # answer never changes for a function, so it is asked once
        known = _sync.get(func)
        if known is None:
            known = _sync[func] = super().ensure_sync(func)
        return known


_sync: dict[Callable[..., Any], Callable[..., Any]] = {}


def wait_without_turn() -> None:
    """This request is about to wait for a move: it gives its turn back (service/api/wsgi/turns.py)."""
    turns = getattr(current_app._get_current_object(), "turns", None)  # type: ignore[attr-defined]
    if turns is not None:
        turns.give_back(request.environ)


def label_game(game: str) -> None:
    """Label this request's metrics and access line with a game found other than in its URL (a session's)."""
    request.environ[GAME] = game


def illegal_move(reason: str) -> None:
    """Count this request's refusal under the reason (labelled with the game when the request ends)."""
    request.environ[ILLEGAL_REASON] = reason


def observe(environ: dict[str, Any], status: int, elapsed: float, request_id: str) -> None:
    """A finished request's metrics and access line."""
    rule, args = environ.get(RULE, _NO_RULE)
    endpoint = rule.rule if rule is not None else "unmatched"
    game = (args or _NO_ARGS).get("game") or environ.get(GAME)
    if game not in _GAMES:
        game = "-"
    TALLY.count(REQUESTS, (endpoint, game, _STATUS.get(status) or str(status)))
    TALLY.observe(LATENCY, (endpoint, game), elapsed)
    reason = environ.get(ILLEGAL_REASON)
    if reason:
        TALLY.count(ILLEGAL, (game, reason))
    if endpoint not in QUIET and access.isEnabledFor(logging.INFO):
        fields = {"method": environ.get("REQUEST_METHOD"), "route": endpoint, "status": status,
                  "ms": round(elapsed * 1000, 2), "request_id": request_id, "game": game}
        if reason:
            fields["reason"] = reason
        write_access(fields)


_NO_RULE: tuple[None, None] = (None, None)
_NO_ARGS: dict[str, Any] = {}
_GAMES = frozenset(engine.all_games())
_STATUS = {code: str(code) for code in range(100, 600)}


def install(app: Flask) -> None:
    @app.get("/metrics")
    @documented("metrics", "Prometheus metrics (text format).", responses={"200": text("text/plain", "Metrics")})
    def metrics() -> Response:
        TALLY.flush()  # this worker's own numbers up to now; the others' are at most FLUSH seconds behind
        return Response(generate_latest(_registry()), mimetype=CONTENT_TYPE_LATEST)


def _registry() -> Any:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    from prometheus_client import REGISTRY
    return REGISTRY
