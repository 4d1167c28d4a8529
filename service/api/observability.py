"""Metrics, structured logs and request ids.

- ``/metrics`` in Prometheus text format. Under gunicorn with several workers, set
  PROMETHEUS_MULTIPROC_DIR (deploy/serve.sh and the Dockerfile do) so every worker's numbers are summed.
- One JSON log line per request on stdout: method, route template, status, duration, request id, game
  and, for an illegal move, the reason. Never a body, a header value, a token or a card.
- ``X-Request-ID``: taken from the request when it is a sane id, else made; echoed in the response.
"""
from __future__ import annotations

import logging
import os
import random
import re
import sys
import time
from typing import Any

import orjson

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from .. import engine

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
    # "Optimization"): the caller's file and line (a walk up the stack), the thread's and the process's names.
    logging._srcfile = None  # type: ignore[attr-defined]
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


_redis_latency: dict[str, Any] = {}  # each operation's histogram child, looked up once (on every move's path)


def observe_redis(op: str, seconds: float, ok: bool) -> None:
    child = _redis_latency.get(op)
    if child is None:
        child = _redis_latency[op] = REDIS_LATENCY.labels(op)
    child.observe(seconds)
    if not ok:
        REDIS_ERRORS.labels(op).inc()


def session_created(game: str) -> None:
    SESSIONS.labels(game).inc()


def illegal_move(reason: str) -> None:
    """Called by the error handler; the request hook labels it with the game."""
    g.illegal_reason = reason


def _game_label(req: Any, ctx: Any) -> str:
    game = (req.view_args or {}).get("game") or getattr(ctx, "game", None)
    return game if isinstance(game, str) and game in engine.all_games() else "-"


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


class _Children:
    """A metric's child for each label combination, looked up once (``labels`` takes a lock and checks the
    labels on every call; the combinations are few: route templates, games, statuses)."""

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self.kids: dict[tuple[str, ...], Any] = {}

    def __call__(self, *labels: str) -> Any:
        kid = self.kids.get(labels)
        if kid is None:
            kid = self.kids[labels] = self.metric.labels(*labels)
        return kid


_requests, _latency, _illegal = _Children(REQUESTS), _Children(LATENCY), _Children(ILLEGAL)
QUIET = frozenset(("/metrics", "/healthz", "/readyz"))  # routes without an access log line


def install(app: Flask) -> None:
    # Each hook takes the request and g through their proxies once (every proxy access is a context lookup).
    @app.before_request
    def _start() -> None:
        ctx = g._get_current_object()
        ctx.started = time.perf_counter()
        rid = request.environ.get("HTTP_X_REQUEST_ID", "")
        ctx.request_id = rid if REQUEST_ID.match(rid) else new_request_id()

    @app.after_request
    def _finish(resp: Response) -> Response:
        ctx, req = g._get_current_object(), request._get_current_object()
        elapsed = time.perf_counter() - getattr(ctx, "started", time.perf_counter())
        rule = req.url_rule
        endpoint = rule.rule if rule is not None else "unmatched"
        game = _game_label(req, ctx)
        status = resp.status_code
        _requests(endpoint, game, str(status)).inc()
        _latency(endpoint, game).observe(elapsed)
        reason = getattr(ctx, "illegal_reason", None)
        if reason:
            _illegal(game, reason).inc()
        request_id = getattr(ctx, "request_id", "")
        resp.headers["X-Request-ID"] = request_id
        if endpoint not in QUIET and access.isEnabledFor(logging.INFO):
            fields = {"method": req.method, "route": endpoint, "status": status, "ms": round(elapsed * 1000, 2),
                      "request_id": request_id, "game": game}
            if reason:
                fields["reason"] = reason
            write_access(fields)
        return resp

    @app.get("/metrics")
    def metrics() -> Response:
        return Response(generate_latest(_registry()), mimetype=CONTENT_TYPE_LATEST)


def _registry() -> Any:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    from prometheus_client import REGISTRY
    return REGISTRY
