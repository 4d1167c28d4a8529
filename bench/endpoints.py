"""Benchmark-only endpoints: the in-app floors that bench/ measures the real endpoints against.

Registered by bench/app.py on top of the service's own app, never in a deployment, and not part of
openapi.yaml. They run inside the same app as the real endpoints, so they pay the same Flask, gunicorn,
request-id, metrics and access-log costs, and nothing else (bench/bare_echo.py is the floor without them):

    POST /bench/echo         parse the JSON body with orjson (service.api.http.json.body) and send it back (reply)
    POST /bench/echo-redis   the same, plus one Redis GET and one SET of the body (two round trips) through
                             the session store's redis-py client: the floor for a session move
    POST /bench/echo-redis-lane   the same GET and SET sent the way the store sends a move's commands (over
                             the thread's own connection, service/storage/redis_store.py ``_Lane``): not a
                             floor for any target, it shows what that way of sending is worth on its own

docs/performance.md explains how they are used.
"""
from __future__ import annotations

import os
from typing import Any

import orjson
from flask import Blueprint, Response, current_app

from service.api.http.errors import ApiError
from service.api.http.json import body, reply

bp = Blueprint("bench_echo", __name__)


@bp.post("/bench/echo")
def echo() -> Response:
    return reply(body())


@bp.post("/bench/echo-redis")
def echo_redis() -> Response:
    payload = body()
    key = _key()
    client, _ = _route(key, "/bench/echo-redis")
    client.get(key)
    client.set(key, orjson.dumps(payload), ex=300)
    return reply(payload)


@bp.post("/bench/echo-redis-lane")
def echo_redis_lane() -> Response:
    payload = body()
    key = _key()
    _, lane = _route(key, "/bench/echo-redis-lane")
    lane("GET", key)
    lane("SET", key, orjson.dumps(payload), "EX", 300)
    return reply(payload)


def _key() -> str:
    return f"{current_app.extensions['card_referee_config'].key_prefix}bench:echo:{os.getpid()}"


def _route(key: str, path: str) -> Any:
    """The store's redis-py client and lane for ``key`` (its topology's); 404 with the in-process store."""
    topology = getattr(current_app.extensions["session_store"], "topology", None)
    if topology is None:
        raise ApiError(404, "not_found", f"{path} needs REDIS_URL (the in-process store has no Redis).")
    return topology.for_key(key)
