"""Benchmark-only endpoints: the in-app floors that bench/ measures the real endpoints against.

Registered by bench/app.py on top of the service's own app, never in a deployment, and not part of
openapi.yaml. They run inside the same app as the real endpoints, so they pay the same Flask, gunicorn,
request-id, metrics and access-log costs, and nothing else (bench/bare_echo.py is the floor without them):

    POST /bench/echo         parse the JSON body with orjson (service.api.json.body) and send it back (reply)
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

from service.api.errors import ApiError
from service.api.json import body, reply

bp = Blueprint("bench_echo", __name__)


@bp.post("/bench/echo")
def echo() -> Response:
    return reply(body())


@bp.post("/bench/echo-redis")
def echo_redis() -> Response:
    payload = body()
    client = _redis()
    key = _key()
    client.get(key)
    client.set(key, orjson.dumps(payload), ex=300)
    return reply(payload)


@bp.post("/bench/echo-redis-lane")
def echo_redis_lane() -> Response:
    payload = body()
    lane = getattr(current_app.extensions["session_store"], "_lane", None)
    if lane is None:
        raise ApiError(404, "not_found", "/bench/echo-redis-lane needs REDIS_URL (the in-process store has no Redis).")
    key = _key()
    lane("GET", key)
    lane("SET", key, orjson.dumps(payload), "EX", 300)
    return reply(payload)


def _key() -> str:
    return f"{current_app.extensions['card_referee_config'].key_prefix}bench:echo:{os.getpid()}"


def _redis() -> Any:
    client = getattr(current_app.extensions["session_store"], "r", None)
    if client is None:
        raise ApiError(404, "not_found", "/bench/echo-redis needs REDIS_URL (the in-process store has no Redis).")
    return client
