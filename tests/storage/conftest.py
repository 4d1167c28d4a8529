from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer(appendonly=True) as server:
        yield server


@pytest.fixture
def prefix() -> str:
    """A key prefix of its own for each test, so tests sharing a server never see each other's keys."""
    return f"t{uuid.uuid4().hex[:10]}:"
