"""The SessionStore protocol, against a real redis-server (and the in-process fallback where it applies).

Redis-only: the key layout and TTLs, a dead or frozen Redis giving StoreUnavailable within a bounded time,
and recovery by itself after a restart (stale pooled connections, the empty script cache).
"""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service.storage import notify
from service.storage import MemoryStore, RedisStore, Session, SessionStore, StoreUnavailable, Write, redis_store
from service.storage.redis_store import NONCE_HEX, NONCES_KEPT
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


def write(n: int, key: str | None, finished: bool = False) -> Write:
    """A write of version ``n``; ``key`` as an Idempotency-Key's answer key, or None for a request without."""
    if key is None:
        return Write({"game": "x", "n": n}, finished, {"version": n, "move": {"seat": 0, "action": "a"}})
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


def test_a_conflict_brings_the_current_session(store: SessionStore) -> None:
    store.create(session(), 60)
    store.save("s" * 22, 0, write(1, None), 60)
    stale = store.save("s" * 22, 0, write(1, None), 60)
    assert stale.kind == "conflict" and stale.current is not None
    assert (stale.current.version, stale.current.state, stale.current.recent) == (1, {"game": "x", "n": 1}, False)
    assert stale.current.meta == session().meta


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


def test_without_an_idempotency_key_no_answer_is_kept(redis_server: RedisServer, prefix: str) -> None:
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    s.create(session(), 60)
    for n in range(1, 12):
        assert s.save("s" * 22, n - 1, write(n, None), 60).kind == "saved"
    raw = redis.Redis.from_url(redis_server.url, decode_responses=True)
    assert sorted(raw.scan_iter(f"{prefix}*")) == [f"{prefix}log:{{{'s' * 22}}}", f"{prefix}session:{{{'s' * 22}}}"]
    nonces = raw.hget(f"{prefix}session:{{{'s' * 22}}}", "nonces").split()
    assert len(nonces) == NONCES_KEPT and all(len(n) == NONCE_HEX for n in nonces)  # bounded, not a history


class LosesOneReply:
    """A TCP proxy in front of Redis that, once, forwards an EVALSHA but drops the connection instead of
    passing the reply back: the script ran, the client never heard, and redis-py resends the call."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = False
        self.dropped = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()

    def _pipe(self, client: socket.socket, upstream: socket.socket) -> None:
        with client, upstream:
            while data := client.recv(65536):
                upstream.sendall(data)
                reply = upstream.recv(65536)
                if self.armed and b"EVALSHA" in data.upper():
                    self.armed = False
                    self.dropped += 1
                    return  # closes both: the reply is lost
                client.sendall(reply)

    def close(self) -> None:
        self.listener.close()


def test_a_save_whose_reply_is_lost_is_resent_and_applied_once(redis_server: RedisServer, prefix: str) -> None:
    proxy = LosesOneReply(redis_server.port)
    try:
        s = RedisStore(f"redis://127.0.0.1:{proxy.port}/0", prefix, TIMEOUT)
        s.create(session(), 60)
        s.save("s" * 22, 0, write(1, None), 60)  # loads the script, so the next save is one EVALSHA
        proxy.armed = True
        saved = s.save("s" * 22, 1, write(2, None), 60)
        assert proxy.dropped == 1
        assert (saved.kind, saved.version) == ("saved", 2)  # not a conflict with itself
        found = s.log("s" * 22)
        assert found is not None and found[0].version == 2 and [e["version"] for e in found[1]] == [1, 2]
    finally:
        proxy.close()


def test_a_process_judges_on_its_own_last_copy_and_the_save_catches_a_stale_one(
        redis_server: RedisServer, prefix: str) -> None:
    reads: list[str] = []
    here = RedisStore(redis_server.url, prefix, TIMEOUT, observer=lambda op, _t, _ok: reads.append(op))
    there = RedisStore(redis_server.url, prefix, TIMEOUT)  # another worker or server
    here.create(session(), 60)
    assert here.load("s" * 22) is not None
    assert here.save("s" * 22, 0, write(1, None), 60).kind == "saved"
    reads.clear()
    kept = here.load("s" * 22, recent=True)
    assert reads == [] and kept is not None and (kept.version, kept.state["n"], kept.recent) == (1, 1, True)
    kept.state["n"] = 99  # each load parses a fresh copy: a caller cannot spoil the kept one
    assert here.load("s" * 22, recent=True).state["n"] == 1  # type: ignore[union-attr]
    assert there.save("s" * 22, 1, write(2, None), 60).kind == "saved"
    behind = here.load("s" * 22, recent=True)
    assert behind is not None and behind.version == 1  # it cannot know yet
    asked = here.current(behind)  # what a caller asks before it refuses anything on the copy's evidence
    assert asked is not None and (asked.version, asked.recent) == (2, False)
    assert here.current(asked) is asked  # read from the store just now: no second read
    outcome = here.save("s" * 22, behind.version, write(2, None), 60)
    assert outcome.kind == "conflict" and outcome.current is not None and outcome.current.version == 2
    fresh = here.load("s" * 22, recent=True)
    assert fresh is not None and fresh.version == 2  # the conflict brought the current state
    assert here.load("s" * 22).recent is False  # type: ignore[union-attr]
    assert MemoryStore().load("nothing-here-at-all", recent=True) is None


def test_the_kept_copies_are_bounded(redis_server: RedisServer, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_store, "RECENT_STATES", 3)
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    for i in range(6):
        s.create(session(f"session-number-{i:06d}"), 60)
        assert s.load(f"session-number-{i:06d}") is not None
    assert len(s._recent) == 3
    assert s.load("session-number-000005", recent=True).recent is True  # type: ignore[union-attr]
    assert s.load("session-number-000000", recent=True).recent is False  # type: ignore[union-attr]


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


def test_a_moves_commands_reuse_idle_connections_and_none_from_before_a_fork(
        redis_server: RedisServer, prefix: str) -> None:
    """Commands in flight at once take a connection each; afterwards they wait in the idle list for the next
    command, so a process holds as many as it ever needed at once (not one per thread or greenlet). A
    connection made before a fork is never used in the child."""
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    s.create(session(), 60)
    for _ in range(3):
        assert s.load("s" * 22) is not None
    assert len(s.topology.lane.idle) == 1  # one after another: one connection
    # three commands surely in flight at once: each blocks until the list gets an item, pushed only once Redis
    # counts three blocked clients (a loaded machine may start the threads far apart)
    threads = [threading.Thread(target=lambda: s.topology.lane("BLPOP", prefix + "queue", 30)) for _ in range(3)]
    for t in threads:
        t.start()
    client = redis.Redis.from_url(redis_server.url)
    deadline = time.monotonic() + 30
    while client.info("clients")["blocked_clients"] < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    client.rpush(prefix + "queue", 1, 2, 3)
    for t in threads:
        t.join()
    assert len({id(c) for c in s.topology.lane.idle}) == 3
    before = list(s.topology.lane.idle)
    s.topology.lane.pid = -1  # as a forked child sees its parent's connections
    assert s.load("s" * 22) is not None
    assert not any(c in before for c in s.topology.lane.idle) and s.save("s" * 22, 0, write(1, None), 60).kind == "saved"


def test_a_process_hears_only_the_sessions_it_waits_on_and_drops_them_later(
        redis_server: RedisServer, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The move listener subscribes a session's channel while someone waits on it (not a pattern over every
    session), wakes exactly that session's watches, and drops the channel once nobody has waited for a while."""
    from service.storage import notify
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    s.create(session("a" * 22), 60)
    s.create(session("b" * 22), 60)
    client = redis.Redis.from_url(redis_server.url)
    channel = s.key_for("moved", "a" * 22)
    with s.watching("a" * 22) as watch:
        assert client.pubsub_channels(channel) == [channel.encode()]
        assert client.pubsub_channels(s.key_for("moved", "b" * 22)) == []
        assert s.save("b" * 22, 0, write(1, None), 60).kind == "saved"
        assert not watch.wait(0.3)  # another session's move wakes no one here
        assert s.save("a" * 22, 0, write(1, None), 60).kind == "saved"
        assert watch.wait(2) and watch.latest is not None and watch.latest[0] == 1
    monkeypatch.setattr(notify, "UNSUBSCRIBE_AFTER", 0.0)
    monkeypatch.setattr(notify, "PING_SECONDS", 0.2)
    monkeypatch.setattr(notify, "POLL_SECONDS", 0.1)
    with s.watching("b" * 22):
        deadline = time.monotonic() + 5
        while client.pubsub_channels(channel) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.pubsub_channels(channel) == []  # a's channel dropped while b's is waited on



def test_a_move_tells_the_waiters_who_is_connected(redis_server: RedisServer, prefix: str) -> None:
    """The notification of a move carries the session's connections then, so that a woken waiter answers
    with the presence without reading it; a connection this process makes or ends afterwards drops what was
    heard (it is read again)."""
    s = RedisStore(redis_server.url, prefix, TIMEOUT)
    sid = "h" * 22
    s.create(session(sid), 60)
    now = int(time.time() * 1000)
    holder = s.enter(sid, 2, now, now + 60_000)
    s.enter(sid, 0, now - 10, now + 60_000)
    with s.watching(sid) as watch:
        assert s.heard_holders(sid, 10.0) is None
        assert s.save(sid, 0, write(1, None), 60).kind == "saved"
        assert watch.wait(2) and watch.latest is not None
        assert sorted(watch.latest.holders or []) == [(0, now - 10), (2, now)]
        assert sorted(s.heard_holders(sid, 10.0) or []) == [(0, now - 10), (2, now)]
        assert s.heard_holders(sid, 0.0) is None  # too old for the freshness asked
        s.leave(sid, holder)
        assert s.heard_holders(sid, 10.0) is None
        assert s.save(sid, 1, write(2, None), 60).kind == "saved"
        assert watch.wait(2) and watch.latest is not None and watch.latest.version == 2
        assert watch.latest.holders == [(0, now - 10)]


@pytest.mark.parametrize("data, expected", [
    ('4 0 - {"a":1}', notify.Moved(4, False, '{"a":1}', [])),
    ('5 1 0/17/ab12,3/19/cd34 {"a": "b c"}', notify.Moved(5, True, '{"a": "b c"}', [(0, 17), (3, 19)])),
    ('6 0 {"a":1}', notify.Moved(6, False, '{"a":1}', None)),  # an older instance's: no holders
    ("7", None),
])
def test_move_notifications_are_read_in_both_forms(data: str, expected: notify.Moved | None) -> None:
    assert notify.moved_from(data) == expected

# ----- deadlines and presence (docs/sessions.md, "Time controls") -------------------------------
def test_deadlines_are_claimed_once_each_and_handed_out_again_after_the_lease(store: SessionStore) -> None:
    store.schedule("a" * 22, 3, 1_000)
    store.schedule("b" * 22, 1, 2_000)
    store.schedule("a" * 22, 4, 1_500, previous=3)  # the next version's deadline replaces the last one's
    assert store.claim_due(999, 100, 10) == []
    assert store.claim_due(2_000, 100, 1) == [("a" * 22, 4)]  # the earliest first, at most ``limit``
    assert store.claim_due(2_000, 100, 10) == [("b" * 22, 1)]  # a claimed one is not handed out again...
    assert store.claim_due(2_050, 100, 10) == []
    assert sorted(store.claim_due(2_100, 100, 10)) == [("a" * 22, 4), ("b" * 22, 1)]  # ...until its lease ends
    store.unschedule("a" * 22, 4)
    store.schedule("b" * 22, 1, None)  # no deadline at this version any more
    assert store.claim_due(10**13, 100, 10) == []


def test_claims_racing_from_many_threads_hand_each_deadline_to_one(store: SessionStore) -> None:
    for i in range(40):
        store.schedule(f"s{i:021d}", 0, 1_000 + i)
    got: list[tuple[str, int]] = []
    lock = threading.Lock()

    def claim() -> None:
        for _ in range(10):
            mine = store.claim_due(5_000, 60_000, 3)
            with lock:
                got.extend(mine)
    threads = [threading.Thread(target=claim) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [(f"s{i:021d}", 0) for i in range(40)]


def test_presence_holders_come_and_go_and_lapse(store: SessionStore) -> None:
    now = int(time.time() * 1000)
    sid = "p" * 22
    first = store.enter(sid, 1, now, now + 60_000)
    second = store.enter(sid, 1, now + 5, now + 60_000)
    store.enter(sid, 2, now, now + 50)  # a holder that died without leaving
    assert sorted(store.holders(sid, now)) == [(1, now), (1, now + 5), (2, now)]
    assert sorted(store.holders(sid, now + 100)) == [(1, now), (1, now + 5)]  # its lease ran out
    store.stay(sid, first, now + 120_000)
    assert sorted(store.holders(sid, now + 90_000)) == [(1, now)]
    store.leave(sid, first)
    store.leave(sid, second)
    assert store.holders(sid, now) == [(2, now)] and store.holders(sid, now + 100) == []
