"""Sessions in Redis (redis-py with hiredis).

Keys (``prefix`` is KEY_PREFIX, ``{id}`` a hash tag so a session's keys share one cluster slot), all made by
``key_for``:

    <prefix>session:{<id>}          hash: v (version), state (JSON), meta (JSON), done ("0"/"1"),
                                    nonces (the last saves' nonces)
    <prefix>log:{<id>}              list: one JSON entry per accepted move, oldest first
    <prefix>answer:{<id>}:<hash>    string: the first answer to a move request with an Idempotency-Key
    <prefix>moved:{<id>}            pub/sub channel: "<version> <done> <state>" after each accepted move; each process
                                    with waiting clients subscribes to the channels of their sessions on
                                    one connection (storage/notify.py)

A read is one ``HMGET`` (the meta, which never changes, is read once per session and process and kept),
or the ``LOAD`` script when it also refreshes the expiry. A move may skip the read: each process keeps the
last state it read or wrote of the sessions it served (``load(..., recent=True)``), and the save's
compare-and-set tells whether that copy was still current. Every write is one round trip: ``SAVE`` (a Lua
script) checks the version, then sets the state, appends the log entry, refreshes the expiry, stores the
answer of a request with an Idempotency-Key and publishes the new version; on a version conflict it returns
the current state instead. Redis runs a script atomically, so concurrent writers from any number of
processes or servers are serialised and exactly one of them wins each version.

The commands on a move's path (the read, ``SAVE`` and the answer lookup) go over one connection per thread
(``_Lane``) instead of the client's pool: redis-py 7's per-command bookkeeping (pool accounting,
observability hooks, a poll for unread data before each command) costs about twice a round trip's own CPU
time on this kind of machine (docs/performance.md). Everything else uses the redis-py client.

Failures: every operation has a socket timeout (REDIS_TIMEOUT) and one immediate retry on a fresh
connection (which also heals the connections after Redis restarts); anything still failing is
StoreUnavailable.
A retried script is harmless: each save sends a fresh nonce, the session remembers the last few, and a
second run of the same save finds its nonce and reports it saved without applying anything.
"""
from __future__ import annotations

import hashlib
import itertools
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import orjson
import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from .base import Json, Saved, Session, StoreUnavailable, Write
from .notify import Listener, Watch, wait_past

NONCE_HEX = 16    # hex digits of a save's nonce
NONCES_KEPT = 8   # the session hash remembers this many of the last saves' nonces


class _Nonces:
    """A save's nonce, unique without a system call each time: 32 random bits drawn once per process (again
    in each forked child), then a counter. Two processes collide only if they draw the same bits."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.base = secrets.randbits(32)
        self.count = itertools.count()

    def __call__(self) -> str:
        return f"{self.base:08x}{next(self.count) & 0xFFFFFFFF:08x}"


new_nonce = _Nonces()
os.register_at_fork(after_in_child=new_nonce.reset)

log = logging.getLogger("service.storage")
Observer = Callable[[str, float, bool], None]  # (operation, seconds, succeeded), e.g. for metrics

# KEYS: session, log[, answer].  ARGV: expected version, state, done, entry, ttl, nonce, channel[, answer, answer ttl].
# The nonce is new for each save call and the hash keeps the last few: the store resends the same call when
# a reply is lost, and the resent call must not apply the move again. The answer key is there only for a
# request with an Idempotency-Key.
SAVE = """
if KEYS[3] then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {2, prior} end
end
local cur = redis.call('HMGET', KEYS[1], 'v', 'nonces')
local v = cur[1]
if not v then return {-1, ''} end
local nonces = cur[2] or ''
if string.find(nonces, ARGV[6], 1, true) then return {3, v} end
if v ~= ARGV[1] then
  local now = redis.call('HMGET', KEYS[1], 'state', 'done', 'meta')
  return {0, v, now[1], now[2], now[3]}
end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', nv, 'state', ARGV[2], 'done', ARGV[3],
           'nonces', string.sub(ARGV[6] .. ' ' .. nonces, 1, %d))
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
if KEYS[3] then redis.call('SET', KEYS[3], ARGV[8], 'EX', ARGV[9]) end
redis.call('PUBLISH', ARGV[7], nv .. ' ' .. ARGV[3] .. ' ' .. ARGV[2])
return {1, tostring(nv)}
""" % ((NONCE_HEX + 1) * NONCES_KEPT - 1)

# KEYS: session, log.  ARGV: ttl ("" = do not touch).  An unfinished session's expiry is refreshed.
LOAD = """
local r = redis.call('HMGET', KEYS[1], 'v', 'state', 'meta', 'done')
if not r[1] then return false end
if ARGV[1] ~= '' and r[4] ~= '1' then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
end
return r
"""


# KEYS: counter.  ARGV: ttl.  One more count; the first one starts the counter's expiry.
COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""

_SHA1 = {source: hashlib.sha1(source.encode()).hexdigest() for source in (SAVE, LOAD, COUNT)}  # what EVALSHA names

META_CACHE = 50_000  # sessions whose meta a process remembers (a few hundred bytes each)
RECENT_STATES = 4096  # sessions whose last state a process keeps (about 1-3 KB each)


class _Lane:
    """Commands sent straight over a connection taken from a small free list of this process's own, made like
    the pool's (same address, timeouts, database, client name). A command that fails on the connection (Redis
    restarted, a lost reply, a timeout) is sent once more on a fresh connection: safe for reads, and for
    ``SAVE`` thanks to its nonce. An error reply (``ResponseError``) is raised as is; the connection stays
    usable. The list holds as many connections as commands were ever in flight at once (gthread: at most its
    threads; gevent: the busiest moment's requests), not one per thread or greenlet that ever ran."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.pool = pool
        self.idle: list[Any] = []
        self.pid = os.getpid()

    def __call__(self, *args: Any) -> Any:
        try:
            return self._once(args)
        except (RedisConnectionError, RedisTimeoutError):
            return self._once(args)  # the failed connection was closed; this opens a new one

    def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        sha = _SHA1[source]
        try:
            return self("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:  # Redis restarted (or never saw the script): load it, then run it
            self("SCRIPT", "LOAD", source)
            return self("EVALSHA", sha, len(keys), *keys, *args)

    def _once(self, args: tuple[Any, ...]) -> Any:
        conn = self._connection()
        try:
            conn.send_packed_command(conn.pack_command(*args), check_health=False)
            return conn.read_response()  # closes the connection itself on a socket error or a timeout
        finally:
            self.idle.append(conn)  # a closed one reconnects on its next command

    def _connection(self) -> Any:
        if self.pid != os.getpid():  # connections inherited over a fork belong to the parent
            self.pid, self.idle = os.getpid(), []
        try:
            return self.idle.pop()  # atomic under the GIL; no switch to another greenlet in between
        except IndexError:
            return self.pool.connection_class(**self.pool.connection_kwargs)


def _subscriber(pool: redis.ConnectionPool) -> Any:
    """A connection for the move listener: made like the pool's, but with no read timeout (it sits waiting
    for messages; notify.Listener pings it to find out that it died) and no health check of redis-py's own
    (which would read a reply from the thread that sends, while the listener reads the messages)."""
    return pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": None, "health_check_interval": 0})


def _dumps(value: Json) -> str:
    return orjson.dumps(value).decode()


class RedisStore:
    name = "redis"

    def __init__(self, url: str, prefix: str = "cr:", timeout: float = 0.5,
                 observer: Observer | None = None) -> None:
        self.prefix = prefix
        self.timeout = timeout
        self.observer = observer
        self.r = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, decode_responses=True,
            retry=Retry(NoBackoff(), 1, (RedisConnectionError, RedisTimeoutError)),
            health_check_interval=30, client_name="card-referee")
        self._lane = _Lane(self.r.connection_pool)
        # A session's meta (game, tokens' hashes, options, commitments) never changes after creation, so each
        # process keeps the parsed meta of the sessions it served; a move then reads only v, state and done.
        self._meta: dict[str, dict[str, Json]] = {}
        # The last state this process read or wrote of each session it served recently, as stored: a move
        # is judged on it without reading Redis first. The compare-and-set of SAVE catches a copy that is
        # behind (another worker moved meanwhile) and returns the current state; the API judges again.
        self._recent: dict[str, tuple[int, str, bool]] = {}
        self._lock = threading.Lock()
        pool = self.r.connection_pool
        # A move heard by the listener updates this process's kept copy, so that a woken long-poll's read
        # (``load(..., recent=True)``) needs no round trip.
        self._listener = Listener(lambda: _subscriber(pool), self.key_for("moved", "")[:-1], timeout,
                                  on_moved=lambda sid, moved: self._keep(sid, moved[0], moved[2], moved[1]))

    def key_for(self, kind: str, sid: str, extra: str = "") -> str:
        """The one place keys are made: ``<prefix><kind>:{<sid>}[:<extra>]``."""
        key = f"{self.prefix}{kind}:{{{sid}}}"
        return f"{key}:{extra}" if extra else key

    # ----- the protocol -------------------------------------------------------------
    def create(self, session: Session, ttl: int) -> None:
        key = self.key_for("session", session.id)
        state, meta = _dumps(session.state), _dumps(session.meta)
        with self._op("create"):
            pipe = self.r.pipeline(transaction=True)
            pipe.hset(key, mapping={"v": session.version, "state": state, "meta": meta,
                                    "done": "1" if session.finished else "0"})
            pipe.expire(key, ttl)
            pipe.execute()
        self._meta_of(session.id, meta)
        self._keep(session.id, session.version, state, session.finished)

    def load(self, sid: str, touch_ttl: int | None = None, recent: bool = False) -> Session | None:
        meta = self._meta.get(sid)
        if recent and meta is not None and (kept := self._recent.get(sid)) is not None:
            version, state, finished = kept
            return Session(sid, version, orjson.loads(state), meta, finished, recent=True)
        key = self.key_for("session", sid)
        with self._op("load"):
            if touch_ttl is not None:  # refresh the expiry in the same round trip: the LOAD script
                row = self._lane.script(LOAD, [key, self.key_for("log", sid)], [int(touch_ttl)])
            elif meta is None:
                row = self._lane("HMGET", key, "v", "state", "meta", "done")
            else:
                v, state, done = self._lane("HMGET", key, "v", "state", "done")
                row = [v, state, None, done]
        if not row or row[0] is None:
            self._forget(sid)
            return None
        v, state, raw_meta, done = row
        return self._kept(sid, int(v), state, done == "1", meta or self._meta_of(sid, raw_meta))

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        state = _dumps(write.state)
        keys = [self.key_for("session", sid), self.key_for("log", sid)]
        args: list[str | int] = [expected_version, state, "1" if write.finished else "0", _dumps(write.entry),
                                 int(ttl), new_nonce(), self.key_for("moved", sid)]
        if write.answer_key is not None:
            keys.append(self.key_for("answer", sid, write.answer_key))
            args += [_dumps(write.answer), int(write.answer_ttl)]
        with self._op("save"):
            reply = self._lane.script(SAVE, keys, args)
        code = int(reply[0])
        if code in (1, 3):  # 3: this very call was applied already, and its reply lost (the lane resent it)
            self._keep(sid, expected_version + 1, state, write.finished)
            return Saved("saved", expected_version + 1)
        if code == 0:
            current = self._kept(sid, int(reply[1]), reply[2], reply[3] == "1", self._meta_of(sid, reply[4]))
            return Saved("conflict", int(reply[1]), current=current)
        if code == 2:
            return Saved("replayed", answer=orjson.loads(reply[1]))
        self._forget(sid)
        return Saved("gone")

    def current(self, session: Session) -> Session | None:
        return self.load(session.id) if session.recent else session

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        with self._op("answer"):
            raw = self._lane("GET", self.key_for("answer", sid, answer_key))
        return None if raw is None else orjson.loads(raw)

    def log(self, sid: str) -> tuple[Session, list[dict[str, Json]]] | None:
        with self._op("log"):
            pipe = self.r.pipeline(transaction=True)
            pipe.hmget(self.key_for("session", sid), ["v", "state", "meta", "done"])
            pipe.lrange(self.key_for("log", sid), 0, -1)
            row, entries = pipe.execute()
        if row[0] is None:
            return None
        return _session(sid, row), [orjson.loads(e) for e in entries]

    def version(self, sid: str) -> int | None:
        with self._op("version"):
            v = self._lane("HGET", self.key_for("session", sid), "v")
        return None if v is None else int(v)

    def entries(self, sid: str, first: int, last: int) -> list[dict[str, Json]]:
        """The log entries of versions ``first`` to ``last`` (the entry of version v is the log's item v-1)."""
        if last < first:
            return []
        with self._op("entries"):
            raw = self._lane("LRANGE", self.key_for("log", sid), first - 1, last - 1)
        return [orjson.loads(e) for e in raw]

    def watching(self, sid: str) -> AbstractContextManager[Watch]:
        """A watch on the session's moves, registered with this process's one subscription (notify.py)."""
        return self._listener.watching(sid)

    def wait(self, sid: str, after: int, timeout: float) -> None:
        wait_past(self, sid, after, timeout)

    def count(self, name: str, ttl: int) -> int:
        with self._op("count"):
            return int(self._lane.script(COUNT, [self.key_for("quota", name)], [int(ttl)]))

    def ping(self) -> None:
        with self._op("ping"):
            self.r.ping()

    # ----- the copies this process keeps --------------------------------------------
    def _kept(self, sid: str, version: int, state: str, finished: bool, meta: dict[str, Json]) -> Session:
        """Keep the state just read or written (unless a newer one is kept already); the session, parsed."""
        self._keep(sid, version, state, finished)
        return Session(sid, version, orjson.loads(state), meta, finished)

    def _keep(self, sid: str, version: int, state: str, finished: bool) -> None:
        with self._lock:
            kept = self._recent.get(sid)
            if kept is None or kept[0] <= version:
                self._recent.pop(sid, None)
                if len(self._recent) >= RECENT_STATES:
                    del self._recent[next(iter(self._recent))]  # the one written longest ago
                self._recent[sid] = (version, state, finished)

    def _meta_of(self, sid: str, raw: str) -> dict[str, Json]:
        meta = self._meta.get(sid)
        if meta is None:
            meta = orjson.loads(raw)
            if len(self._meta) >= META_CACHE:
                self._meta.clear()  # a bound, not an LRU: refilling costs one meta read per session
            self._meta[sid] = meta
        return meta

    def _forget(self, sid: str) -> None:
        with self._lock:
            self._recent.pop(sid, None)
        self._meta.pop(sid, None)

    def _op(self, what: str) -> _Operation:
        return _Operation(what, self.observer)


def _session(sid: str, row: list[Any]) -> Session:
    v, state, meta, done = row
    return Session(id=sid, version=int(v), state=orjson.loads(state), meta=orjson.loads(meta), finished=done == "1")


class _Operation:
    """Times one Redis operation for the observer, and turns any Redis failure into StoreUnavailable
    (logged by kind only: never a key's contents or a token)."""

    def __init__(self, what: str, observer: Observer | None) -> None:
        self.what, self.observer = what, observer

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        failed = isinstance(exc, RedisError)
        if self.observer is not None:
            self.observer(self.what, time.perf_counter() - self.started, not failed)
        if failed:
            log.warning("redis %s failed: %s", self.what, type(exc).__name__)
            raise StoreUnavailable(f"Redis {self.what} failed: {type(exc).__name__}") from exc
