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
    """One private redis-server per test module (append-only, so a restart keeps the data)."""
    with RedisServer(appendonly=True) as server:
        yield server


@pytest.fixture
def make_app(redis_server: RedisServer) -> Iterator[Callable[..., Flask]]:
    """An app on the module's Redis with a key prefix of its own; keyword arguments override Config. Each
    app's timeout applier is stopped after the test (its Redis may be gone by then)."""
    made: list[Flask] = []

    def make(server: RedisServer | None = None, **overrides: Any) -> Flask:
        fields: dict[str, Any] = {"redis_url": (server or redis_server).url, "redis_timeout": 0.3,
                                  "key_prefix": f"t{uuid.uuid4().hex[:10]}:", "long_poll_max": 5.0,
                                  "testing": True, "log_level": "WARNING",
                                  "session_quota": None}  # every test client is 127.0.0.1: test_limits.py tests it
        fields.update(overrides)
        made.append(create_app(Config(**fields)))
        return made[-1]
    yield make
    for app in made:
        app.extensions["timeout_applier"].stop()
