from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask

from service.app import create_app
from service.config import Config
from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """One private redis-server per test module, append-only (a restart keeps the data)."""
    with RedisServer(appendonly=True) as server:
        yield server


@pytest.fixture
def make_app(redis_server: RedisServer) -> Iterator[Callable[..., Flask]]:
    """An app on the module's Redis with a key prefix of its own (``prefix`` shares one between apps: two
    instances of one service); keyword arguments override Config. Its threads stop after the test."""
    made: list[Flask] = []
    default_prefix = f"t{uuid.uuid4().hex[:10]}:"

    def make(prefix: str | None = None, **overrides: Any) -> Flask:
        fields: dict[str, Any] = {"redis_url": redis_server.url, "redis_timeout": 1.0,
                                  "key_prefix": prefix or default_prefix, "events_max": 0.1, "testing": True,
                                  "log_level": "WARNING", "session_quota": None, "bot_heartbeat": 2.0,
                                  "tournament_tick": 0.05}
        fields.update(overrides)
        made.append(create_app(Config(**fields)))
        return made[-1]
    yield make
    for app in made:
        app.extensions["timeout_applier"].stop()
        app.extensions["tournament_director"].stop()
