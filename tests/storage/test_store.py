"""The SessionStore protocol, against a real redis-server (and the in-process fallback where it applies).

Redis-only: the key layout and TTLs, a dead or frozen Redis giving StoreUnavailable within a bounded time,
and recovery by itself after a restart (stale pooled connections, the empty script cache).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service.storage import MemoryStore, RedisStore, Session, SessionStore, StoreUnavailable, Write
from tests.redis_server import RedisServer

TIMEOUT = 0.3


@pytest.fixture(params=["redis", "memory"])
def store(request: pytest.FixtureRequest, redis_server: RedisServer, prefix: str) -> Iterator[SessionStore]:
    if request.param == "redis":
        yield RedisStore(redis_server.url, prefix, TIMEOUT)
    else:
        yield MemoryStore()


def session(sid: str = "s" * 22, version: int = 0) -> Session:
    return Session(sid, version, {"game": "x", "n": 0}, {"game": "x", "tokens": ["h0", "h1"]}, False)


def write(n: int, key: str, finished: bool = False) -> Write:
    return Write({"game": "x", "n": n}, finished, {"version": n, "move": {"seat": 0, "action": "a"}}, key,
                 {"fp": key, "body": {"version": n}}, 60)


def test_create_then_load_round_trips_json(store: SessionStore) -> None:
    store.create(session(), 60)
    got = store.load("s" * 22)
    assert got == session()
    assert store.load("nothing-here-at-all") is None


def test_save_is_a_compare_and_set(store: SessionStore) -> None:
    store.create(session(), 60)
    assert store.save("s" * 22, 0, write(1, "a"), 60).kind == "saved"
    stale = store.save("s" * 22, 0, write(1, "b"), 60)
    assert (stale.kind, stale.version) == ("conflict", 1)
    assert store.save("s" * 22, 1, write(2, "c"), 60).version == 2
    loaded = store.load("s" * 22)
    assert loaded is not None and loaded.version == 2 and loaded.state["n"] == 2
    found = store.log("s" * 22)
    assert found is not None and [e["version"] for e in found[1]] == [1, 2]


def test_the_same_answer_key_never_applies_twice(store: SessionStore) -> None:
    store.create(session(), 60)
    assert store.save("s" * 22, 0, write(1, "same"), 60).kind == "saved"
    again = store.save("s" * 22, 1, write(2, "same"), 60)
    assert again.kind == "replayed" and again.answer == {"fp": "same", "body": {"version": 1}}
    loaded = store.load("s" * 22)
    assert loaded is not None and loaded.version == 1
    assert store.answer("s" * 22, "same") == {"fp": "same", "body": {"version": 1}}
    assert store.answer("s" * 22, "other") is None


def test_save_to_a_missing_session_is_gone(store: SessionStore) -> None:
    assert store.save("missing-session-id", 0, write(1, "k"), 60).kind == "gone"


def test_concurrent_writers_each_version_won_once(store: SessionStore) -> None:
    """16 threads race to write versions 1..40; every version is won by exactly one writer."""
    store.create(session(), 60)
    wins: list[int] = []
    lock = threading.Lock()

    def writer(w: int) -> None:
        for _ in range(200):
            current = store.load("s" * 22)
            assert current is not None
            if current.version >= 40:
                return
            saved = store.save("s" * 22, current.version, write(current.version + 1, f"{w}-{current.version}"), 60)
            if saved.kind == "saved":
                with lock:
                    wins.append(saved.version)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == list(range(1, 41))
    found = store.log("s" * 22)
    assert found is not None and [e["version"] for e in found[1]] == list(range(1, 41))


def test_wait_returns_on_a_move_and_times_out_otherwise(store: SessionStore) -> None:
    store.create(session(), 60)
    started = time.monotonic()
    store.wait("s" * 22, 0, 0.3)
    assert 0.25 <= time.monotonic() - started < 1.5
    timer = threading.Timer(0.2, lambda: store.save("s" * 22, 0, write(1, "k"), 60))
    timer.start()
    started = time.monotonic()
    store.wait("s" * 22, 0, 10)
    assert time.monotonic() - started < 2
    timer.join()
    started = time.monotonic()
    store.wait("s" * 22, 0, 10)  # already past: at once
    assert time.monotonic() - started < 0.5


def test_expiry_and_touch(store: SessionStore) -> None:
    store.create(session(), 1)
    time.sleep(0.6)
    assert store.load("s" * 22, touch_ttl=2) is not None  # refreshed: lives 2 s from now
    time.sleep(0.8)
    assert store.load("s" * 22) is not None
    time.sleep(1.5)
    assert store.load("s" * 22) is None


# ----- Redis only ---------------------------------------------------------------------
def test_keys_share_one_prefix_and_hash_tag(redis_server: RedisServer, prefix: str) -> None:
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    s.create(session(), 60)
    s.save("s" * 22, 0, write(1, "k", finished=True), 600)
    raw = redis.Redis.from_url(redis_server.url, decode_responses=True)
    keys = sorted(raw.scan_iter(f"{prefix}*"))
    assert keys == [f"{prefix}answer:{{{'s' * 22}}}:k", f"{prefix}log:{{{'s' * 22}}}",
                    f"{prefix}session:{{{'s' * 22}}}"]
    assert all(0 < raw.ttl(k) <= 600 for k in keys)
    assert raw.hget(keys[2], "done") == "1"
    assert raw.hget(keys[2], "state").startswith("{")  # JSON, never pickle


def test_a_dead_redis_is_unavailable_fast_and_recovers(prefix: str) -> None:
    with RedisServer(appendonly=True) as server:
        s = RedisStore(server.url, prefix, TIMEOUT)
        s.create(session(), 60)
        s.save("s" * 22, 0, write(1, "k1"), 60)
        server.kill()
        for op in (lambda: s.load("s" * 22), lambda: s.save("s" * 22, 1, write(2, "k2"), 60), s.ping,
                   lambda: s.wait("s" * 22, 1, 5)):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                op()
            assert time.monotonic() - started < 2 * TIMEOUT + 0.5
        server.start()  # same port and directory: the append-only file brings the data back
        loaded = s.load("s" * 22)  # stale pooled connections are replaced without an error
        assert loaded is not None and loaded.version == 1
        assert s.save("s" * 22, 1, write(2, "k2"), 60).kind == "saved"  # the script cache was empty: reloaded


def test_a_frozen_redis_times_out_within_the_bound(prefix: str) -> None:
    with RedisServer() as server:
        s = RedisStore(server.url, prefix, TIMEOUT)
        s.create(session(), 60)
        server.pause()
        try:
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                s.load("s" * 22)
            # one attempt plus one retry, each bounded by the socket timeout
            assert time.monotonic() - started < 2 * TIMEOUT + 0.5
        finally:
            server.resume()
        loaded = s.load("s" * 22)
        assert loaded is not None
