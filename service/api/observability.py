"""Metrics, structured logs and request ids.

- ``/metrics`` in Prometheus text format. Under gunicorn with several workers, set
  PROMETHEUS_MULTIPROC_DIR (deploy/serve.sh and the Dockerfile do) so every worker's numbers are summed.
- One JSON log line per request on stdout: method, route template, status, duration, request id, game
  and, for an illegal move, the reason. Never a body, a header value, a token or a card.
- ``X-Request-ID``: taken from the request when it is a sane id, else made; echoed in the response.
"""
from __future__ import annotations

import json
import logging
import os
import random
import re
import sys
import time
import uuid
from typing import Any

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
        out.update({k: v for k, v in record.__dict__.items() if k not in self.RESERVED and not k.startswith("_")})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure_logging(level: str) -> None:
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    root.handlers[:] = [handler]
    root.setLevel(level)


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


def _game_label() -> str:
    game = (request.view_args or {}).get("game") or getattr(g, "game", None)
    return game if isinstance(game, str) and game in engine.all_games() else "-"


def new_request_id() -> str:
    """A random version-4 UUID in hex. Not uuid.uuid4(): that reads os.urandom, a system call during which the
    thread lets go of the GIL, and under gunicorn's threads getting it back costs more than the rest of the id.
    An id must be unique, not secret; the random module reseeds itself in every forked worker."""
    return uuid.UUID(int=random.getrandbits(128), version=4).hex


def install(app: Flask) -> None:
    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()
        rid = request.headers.get("X-Request-ID", "")
        g.request_id = rid if REQUEST_ID.match(rid) else new_request_id()

    @app.after_request
    def _finish(resp: Response) -> Response:
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        endpoint = request.url_rule.rule if request.url_rule is not None else "unmatched"
        game = _game_label()
        REQUESTS.labels(endpoint, game, str(resp.status_code)).inc()
        LATENCY.labels(endpoint, game).observe(elapsed)
        reason = g.get("illegal_reason")
        if reason:
            ILLEGAL.labels(game, reason).inc()
        resp.headers["X-Request-ID"] = g.get("request_id", "")
        if endpoint not in ("/metrics", "/healthz", "/readyz"):
            access.info("request", extra={"method": request.method, "route": endpoint, "status": resp.status_code,
                                          "ms": round(elapsed * 1000, 2), "request_id": g.get("request_id"),
                                          "game": game, **({"reason": reason} if reason else {})})
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
