"""Sessions in Redis (redis-py with hiredis).

Keys (``prefix`` is KEY_PREFIX, ``{id}`` a hash tag so a session's keys share one cluster slot), all made by
``key_for``:

    <prefix>session:{<id>}          hash: v (version), state (JSON), meta (JSON), done ("0"/"1")
    <prefix>log:{<id>}              list: one JSON entry per accepted move, oldest first
    <prefix>answer:{<id>}:<hash>    string: the first answer to one move request (idempotency)
    <prefix>moved:{<id>}            pub/sub channel: the new version after each accepted move

A read is one ``HMGET`` (the meta, which never changes, is read once per session and process and kept),
or the ``LOAD`` script when it also refreshes the expiry. Every write is one round trip: ``SAVE`` (a Lua script) checks the answer record and the version, then sets
the state, appends the log entry, refreshes the expiry, stores the answer and publishes the new version.
Redis runs a script atomically, so concurrent writers from any number of processes or servers are serialised
and exactly one of them wins each version.

Failures: every operation has a socket timeout (REDIS_TIMEOUT) and one immediate retry on a fresh
connection (which also heals the pool after Redis restarts); anything still failing is StoreUnavailable.
A retried script is harmless: the answer record makes the second run return the first run's answer.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import orjson
import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from .base import Json, Saved, Session, StoreUnavailable, Write

log = logging.getLogger("service.storage")
Observer = Callable[[str, float, bool], None]  # (operation, seconds, succeeded), e.g. for metrics

# KEYS: session, log, answer.  ARGV: expected version, state, done, entry, ttl, answer, answer ttl, channel.
SAVE = """
local prior = redis.call('GET', KEYS[3])
if prior then return {2, prior} end
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {-1, ''} end
if v ~= ARGV[1] then return {0, v} end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', nv, 'state', ARGV[2], 'done', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('SET', KEYS[3], ARGV[6], 'EX', ARGV[7])
redis.call('PUBLISH', ARGV[8], nv)
return {1, tostring(nv)}
"""

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


META_CACHE = 50_000  # sessions whose meta a process remembers (a few hundred bytes each)


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
        self._save = self.r.register_script(SAVE)
        self._load = self.r.register_script(LOAD)
        # A session's meta (game, tokens' hashes, options, commitments) never changes after creation, so each
        # process keeps the parsed meta of the sessions it served; a move then reads only v, state and done.
        self._meta: dict[str, dict[str, Json]] = {}

    def key_for(self, kind: str, sid: str, extra: str = "") -> str:
        """The one place keys are made: ``<prefix><kind>:{<sid>}[:<extra>]``."""
        key = f"{self.prefix}{kind}:{{{sid}}}"
        return f"{key}:{extra}" if extra else key

    # ----- the protocol -------------------------------------------------------------
    def create(self, session: Session, ttl: int) -> None:
        key = self.key_for("session", session.id)
        with self._op("create"):
            pipe = self.r.pipeline(transaction=True)
            pipe.hset(key, mapping={"v": session.version, "state": _dumps(session.state),
                                    "meta": _dumps(session.meta), "done": "1" if session.finished else "0"})
            pipe.expire(key, ttl)
            pipe.execute()

    def load(self, sid: str, touch_ttl: int | None = None) -> Session | None:
        key = self.key_for("session", sid)
        meta = self._meta.get(sid)
        with self._op("load"):
            if touch_ttl is not None:  # refresh the expiry in the same round trip: the LOAD script
                row = self._load(keys=[key, self.key_for("log", sid)], args=[int(touch_ttl)])
            elif meta is None:
                row = self.r.hmget(key, ["v", "state", "meta", "done"])
            else:
                v, state, done = self.r.hmget(key, ["v", "state", "done"])
                row = [v, state, None, done]
        if not row or row[0] is None:
            return None
        if meta is None:
            meta = orjson.loads(row[2])
            if len(self._meta) >= META_CACHE:
                self._meta.clear()  # a bound, not an LRU: refilling costs one meta read per session
            self._meta[sid] = meta
        v, state, _, done = row
        return Session(id=sid, version=int(v), state=orjson.loads(state), meta=meta, finished=done == "1")

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        keys = [self.key_for("session", sid), self.key_for("log", sid), self.key_for("answer", sid, write.answer_key)]
        args: list[str | int] = [expected_version, _dumps(write.state), "1" if write.finished else "0", _dumps(write.entry), int(ttl),
                _dumps(write.answer), int(write.answer_ttl), self.key_for("moved", sid)]
        with self._op("save"):
            code, value = self._save(keys=keys, args=args)
        code = int(code)
        if code == 1:
            return Saved("saved", int(value))
        if code == 0:
            return Saved("conflict", int(value))
        if code == 2:
            return Saved("replayed", answer=orjson.loads(value))
        return Saved("gone")

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        with self._op("answer"):
            raw = self.r.get(self.key_for("answer", sid, answer_key))
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
            v = self.r.hget(self.key_for("session", sid), "v")
        return None if v is None else int(v)

    def wait(self, sid: str, after: int, timeout: float) -> None:
        """Subscribe to the session's channel, then check the version (so no move can slip in between),
        then wait for a message. The version is re-read every second in case a message was missed."""
        deadline = time.monotonic() + timeout
        with self._op("wait"):
            pubsub = self.r.pubsub()
            try:
                pubsub.subscribe(self.key_for("moved", sid))
                self._await_subscribed(pubsub, deadline)
                while True:
                    current = self.version(sid)
                    if current is None or current > after:
                        return
                    tick_end = min(deadline, time.monotonic() + 1.0)
                    while (left := tick_end - time.monotonic()) > 0:
                        msg = pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
                        if msg and msg.get("type") == "message" and int(msg["data"]) > after:
                            return
                    if time.monotonic() >= deadline:
                        return
            finally:
                pubsub.close()

    def _await_subscribed(self, pubsub: Any, deadline: float) -> None:
        limit = min(deadline, time.monotonic() + self.timeout)
        while (left := limit - time.monotonic()) > 0:
            msg = pubsub.get_message(timeout=left)
            if msg and msg.get("type") == "subscribe":
                return
        if time.monotonic() < deadline:
            raise RedisTimeoutError("no subscription confirmation")

    def ping(self) -> None:
        with self._op("ping"):
            self.r.ping()

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
