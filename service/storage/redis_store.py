"""Sessions in Redis (redis-py with hiredis).

Keys (``prefix`` is KEY_PREFIX, ``{id}`` a hash tag so a session's keys share one cluster slot), all made by
``key_for``:

    <prefix>session:{<id>}          hash: v (version), state (JSON), meta (JSON), done ("0"/"1"),
                                    nonces (the last saves' nonces)
    <prefix>log:{<id>}              list: one JSON entry per accepted move, oldest first
    <prefix>answer:{<id>}:<hash>    string: the first answer to a move request with an Idempotency-Key
    <prefix>deadlines:{all}         sorted set: "<id>/<version>" -> epoch ms when the session times out at that
                                    version (clocked sessions only); the timeout appliers claim from it
    <prefix>presence:{<id>}         sorted set: "<seat>/<since ms>/<random>" -> when that connection's lease ends
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
import random
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
from redis.exceptions import NoScriptError, RedisClusterException, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from redis.connection import parse_url
from redis.sentinel import Sentinel, SentinelManagedConnection

from .base import Json, Saved, Session, StoreUnavailable, Write
from .notify import Listener, Moved, Watch, wait_past

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

# KEYS: session, log, presence[, answer].  ARGV: expected version, state, done, entry, ttl, nonce, channel, now ms[,
# answer, answer ttl]. The notification carries the new version, done, the seats connected now and the state, so
# that no woken waiter has to read the session or its presence (each read is a trip through a busy worker).
# The nonce is new for each save call and the hash keeps the last few: the store resends the same call when
# a reply is lost, and the resent call must not apply the move again. The answer key is there only for a
# request with an Idempotency-Key. A save answered from before (an answer found, a nonce seen) still writes
# (an expiry), so that a WAIT sent behind it waits until the replicas hold everything up to the first save.
SAVE = """
if KEYS[4] then
  local prior = redis.call('GET', KEYS[4])
  if prior then
    redis.call('EXPIRE', KEYS[4], ARGV[10])
    return {2, prior}
  end
end
local cur = redis.call('HMGET', KEYS[1], 'v', 'nonces')
local v = cur[1]
if not v then return {-1, ''} end
local nonces = cur[2] or ''
if string.find(nonces, ARGV[6], 1, true) then
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return {3, v}
end
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
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[9], 'EX', ARGV[10]) end
local held = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[8], '+inf')
local holders = '-'
if #held > 0 then holders = table.concat(held, ',') end
redis.call('PUBLISH', ARGV[7], nv .. ' ' .. ARGV[3] .. ' ' .. holders .. ' ' .. ARGV[2])
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


# KEYS: session.  ARGV: version, state, meta, done, ttl.  A new session, with its expiry, in one step.
CREATE = """
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'state', ARGV[2], 'meta', ARGV[3], 'done', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

# KEYS: answer.  The answer stored under an Idempotency-Key, if any; one found has its expiry written again,
# so that a WAIT sent behind this script waits until the replicas hold the move it answers.
ANSWER = """
local a = redis.call('GET', KEYS[1])
if a then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
end
return a
"""

# KEYS: counter.  ARGV: ttl.  One more count; the first one starts the counter's expiry.
COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""

# KEYS: deadlines.  ARGV: now, lease until, limit.  The members due by now, each claimed for the lease: one
# caller gets each (Redis runs the script atomically); an unfinished claim is handed out again after the lease.
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
"""

# KEYS: session.  ARGV: version, state.  The state replaced at the same version (a held clock released).
REPLACE = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
return 1
"""

_SHA1 = {source: hashlib.sha1(source.encode()).hexdigest()
         for source in (SAVE, LOAD, CREATE, ANSWER, COUNT, CLAIM, REPLACE)}  # what EVALSHA names

META_CACHE = 50_000  # sessions whose meta a process remembers (a few hundred bytes each)
PRESENCE_SLACK_MS = 60_000  # a presence set outlives its last lease by this much
RECENT_STATES = 4096  # sessions whose last state a process keeps (about 1-3 KB each)


class _Lane:
    """Commands sent straight over a connection taken from a small free list of this process's own, made like
    the pool's (same address, timeouts, database, client name). A command that fails on the connection (Redis
    restarted, a lost reply, a timeout) is sent once more on a fresh connection (behind Sentinel, one that asks
    for the master again): safe for reads, and for
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
        return self.script_acked(source, keys, args, None)[0]

    def script_acked(self, source: str, keys: list[str], args: list[Any], wait: tuple[int, int] | None
                     ) -> tuple[Any, int]:
        """The script's reply and, with ``wait`` (replicas, milliseconds), how many replicas acknowledged its
        writes: ``WAIT`` is sent right behind the script on the same connection (it counts the writes of
        its own connection), in the same round trip."""
        commands: list[tuple[Any, ...]] = [("EVALSHA", _SHA1[source], len(keys), *keys, *args)]
        if wait is not None:
            commands.append(("WAIT", *wait))
        replies = self._pipelined(commands)
        if isinstance(replies[0], NoScriptError):  # Redis restarted (or never saw the script): load, then run
            self("SCRIPT", "LOAD", source)
            replies = self._pipelined(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies[0], int(replies[1]) if wait is not None else 0

    def _pipelined(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Every command's reply (an error reply as its exception), sent in one go; resent once on a fresh
        connection when the connection fails, like a single command."""
        try:
            return self._all(commands)
        except (RedisConnectionError, RedisTimeoutError):
            return self._all(commands)

    def _all(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        conn = self._connection()
        try:
            conn.send_packed_command(conn.pack_commands(commands), check_health=False)
            replies: list[Any] = []
            for _ in commands:
                try:
                    replies.append(conn.read_response())
                except ResponseError as exc:  # this reply is an error; the next ones are still to be read
                    replies.append(exc)
            return replies
        finally:
            self.idle.append(conn)  # a closed one reconnects on its next command


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
            conn = self.idle.pop()  # atomic under the GIL; no switch to another greenlet in between
        except IndexError:
            conn = self.pool.connection_class(**self.pool.connection_kwargs)
        return _connected(conn)


def _connected(conn: Any) -> Any:
    """``conn``, connected now if Sentinel manages it: such a connection asks the sentinels for the master only
    in ``connect()``, while a send on an unconnected one goes to its default address (localhost:6379), and
    after a failover to the old master again. ``connect()`` does nothing on a connected one (0.4 us)."""
    if isinstance(conn, SentinelManagedConnection):
        conn.connect()
    return conn


def _subscriber(pool: redis.ConnectionPool) -> Any:
    """A connection for the move listener: made like the pool's, but with no read timeout (it sits waiting
    for messages; notify.Listener pings it to find out that it died) and no health check of redis-py's own
    (which would read a reply from the thread that sends, while the listener reads the messages)."""
    return _connected(pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": None,
                                                "health_check_interval": 0}))


def _dumps(value: Json) -> str:
    return orjson.dumps(value).decode()


def _client_options(timeout: float) -> dict[str, Any]:
    return {"socket_timeout": timeout, "socket_connect_timeout": timeout, "decode_responses": True,
            "retry": Retry(NoBackoff(), 1, (RedisConnectionError, RedisTimeoutError)),
            "health_check_interval": 30, "client_name": "card-referee"}


class Topology:
    """Where a key lives: one Redis (or the master Sentinel names, which is the same to the store), or the
    master of the key's slot in a Redis Cluster. ``for_key`` gives the client and the lane for a key;
    ``failed`` is told when an operation failed, so that a cluster can look for its new masters."""

    name = "single"

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.lane = _Lane(client.connection_pool)

    def for_key(self, key: str) -> tuple[redis.Redis, _Lane]:
        return self.client, self.lane

    def masters(self) -> list[redis.Redis]:
        return [self.client]

    def subscription_pool(self) -> redis.ConnectionPool:
        """Where the move listener subscribes (notify.py)."""
        return self.client.connection_pool

    def failed(self) -> None:
        """Nothing to do: a new connection finds the same Redis again (or, behind Sentinel, asks the
        sentinels which server is the master now)."""


def single(url: str, timeout: float) -> Topology:
    return Topology(redis.Redis.from_url(url, **_client_options(timeout)))


def sentinel(sentinels: list[tuple[str, int]], master: str, url: str | None, timeout: float) -> Topology:
    """The master the sentinels name, found again by every new connection after a failover. ``url`` gives
    the database, user and password (its host is Sentinel's to say)."""
    extra = {k: v for k, v in parse_url(url).items() if k in ("db", "username", "password")} if url else {}
    watch = Sentinel(sentinels, socket_timeout=timeout, socket_connect_timeout=timeout)
    options = {k: v for k, v in _client_options(timeout).items() if k != "health_check_interval"}
    client: redis.Redis = watch.master_for(master, **options, **extra)
    topology = Topology(client)
    topology.name = "sentinel"
    return topology


class ClusterTopology(Topology):
    """A Redis Cluster: a session's keys share a hash tag (``{id}``) and so a slot, and every operation goes
    to that slot's master over a lane of its own. After a failure the slot map is read again (at most every
    ``REFRESH`` seconds): while the cluster elects a new master for a dead one, the operations on its slots
    fail (503); once it has, the next operation finds it."""

    name = "cluster"
    REFRESH = 0.25

    def __init__(self, url: str, timeout: float) -> None:
        options = {k: v for k, v in _client_options(timeout).items() if k != "retry"}
        self.cluster = redis.RedisCluster.from_url(url, **options)
        self.lanes: dict[str, _Lane] = {}
        self.lock = threading.Lock()
        self.next_refresh = 0.0

    def for_key(self, key: str) -> tuple[redis.Redis, _Lane]:
        node = self.cluster.get_node_from_key(key)
        client = self.cluster.get_redis_connection(node)
        lane = self.lanes.get(node.name)
        if lane is None or lane.pool is not client.connection_pool:
            with self.lock:
                lane = self.lanes[node.name] = _Lane(client.connection_pool)
        return client, lane

    def masters(self) -> list[redis.Redis]:
        return [self.cluster.get_redis_connection(n) for n in self.cluster.get_primaries()]

    def subscription_pool(self) -> redis.ConnectionPool:
        """Any master: a cluster delivers every PUBLISH to the subscribers of every node. Drawn again each
        time the listener subscribes, so that a dead master's listener moves on."""
        return random.choice(self.masters()).connection_pool

    def failed(self) -> None:
        now = time.monotonic()
        with self.lock:
            if now < self.next_refresh:
                return
            self.next_refresh = now + self.REFRESH
        try:
            self.cluster.nodes_manager.initialize()
        except (RedisError, IndexError, KeyError) as exc:  # still healing: the next failure tries again
            log.warning("redis cluster slots not refreshed: %s", type(exc).__name__)


class RedisStore:
    name = "redis"

    def __init__(self, url: str | None, prefix: str = "cr:", timeout: float = 0.5,
                 observer: Observer | None = None, topology: Topology | None = None,
                 wait_replicas: int = 0, wait_timeout: float = 0.25) -> None:
        """``topology``: where keys live (default: the one Redis at ``url``). ``wait_replicas``: a write is
        acknowledged only once that many replicas hold it (``WAIT``, at most ``wait_timeout`` seconds);
        otherwise the operation fails as the store being unavailable (503), though the master has it."""
        self.prefix = prefix
        self.timeout = timeout
        self.observer = observer
        if topology is None:
            assert url is not None, "a Redis URL or a topology"
            topology = single(url, timeout)
        self.topology = topology
        self._wait = (wait_replicas, max(1, int(wait_timeout * 1000))) if wait_replicas > 0 else None
        # A session's meta (game, tokens' hashes, options, commitments) never changes after creation, so each
        # process keeps the parsed meta of the sessions it served; a move then reads only v, state and done.
        self._meta: dict[str, dict[str, Json]] = {}
        # The last state this process read or wrote of each session it served recently, as stored: a move
        # is judged on it without reading Redis first. The compare-and-set of SAVE catches a copy that is
        # behind (another worker moved meanwhile) and returns the current state; the API judges again.
        self._recent: dict[str, tuple[int, str, bool]] = {}
        self._lock = threading.Lock()
        # A move heard by the listener updates this process's kept copy, so that a woken long-poll's read
        # (``load(..., recent=True)``) needs no round trip. It subscribes on the topology's choice of server.
        self._listener = Listener(lambda: _subscriber(topology.subscription_pool()), self.key_for("moved", "")[:-1],
                                  timeout, on_moved=self._heard)
        # The connections to each session as the last move heard told them: (when heard, (seat, since) ...)
        self._heard_holders: dict[str, tuple[float, list[tuple[int, int]]]] = {}

    def key_for(self, kind: str, sid: str, extra: str = "") -> str:
        """The one place keys are made: ``<prefix><kind>:{<sid>}[:<extra>]``."""
        key = f"{self.prefix}{kind}:{{{sid}}}"
        return f"{key}:{extra}" if extra else key

    # ----- the protocol -------------------------------------------------------------
    def create(self, session: Session, ttl: int) -> None:
        key = self.key_for("session", session.id)
        state, meta = _dumps(session.state), _dumps(session.meta)
        with self._op("create"):
            _, lane = self.topology.for_key(key)
            _, acks = lane.script_acked(CREATE, [key], [session.version, state, meta,
                                                        "1" if session.finished else "0", int(ttl)], self._wait)
            self._acknowledged(acks)
        self._meta_of(session.id, meta)
        self._keep(session.id, session.version, state, session.finished)

    def load(self, sid: str, touch_ttl: int | None = None, recent: bool = False) -> Session | None:
        meta = self._meta.get(sid)
        if recent and meta is not None and (kept := self._recent.get(sid)) is not None:
            version, state, finished = kept
            return Session(sid, version, orjson.loads(state), meta, finished, recent=True)
        key = self.key_for("session", sid)
        with self._op("load"):
            _, lane = self.topology.for_key(key)
            if touch_ttl is not None:  # refresh the expiry in the same round trip: the LOAD script
                row = lane.script(LOAD, [key, self.key_for("log", sid)], [int(touch_ttl)])
            elif meta is None:
                row = lane("HMGET", key, "v", "state", "meta", "done")
            else:
                v, state, done = lane("HMGET", key, "v", "state", "done")
                row = [v, state, None, done]
        if not row or row[0] is None:
            self._forget(sid)
            return None
        v, state, raw_meta, done = row
        return self._kept(sid, int(v), state, done == "1", meta or self._meta_of(sid, raw_meta))

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        state = _dumps(write.state)
        keys = [self.key_for("session", sid), self.key_for("log", sid), self.key_for("presence", sid)]
        args: list[str | int] = [expected_version, state, "1" if write.finished else "0", _dumps(write.entry),
                                 int(ttl), new_nonce(), self.key_for("moved", sid), int(time.time() * 1000)]
        if write.answer_key is not None:
            keys.append(self.key_for("answer", sid, write.answer_key))
            args += [_dumps(write.answer), int(write.answer_ttl)]
        with self._op("save"):
            _, lane = self.topology.for_key(keys[0])
            reply, acks = lane.script_acked(SAVE, keys, args, self._wait)
            code = int(reply[0])
            if code in (1, 3):  # 3: this very call was applied already, and its reply lost (the lane resent it)
                self._keep(sid, expected_version + 1, state, write.finished)
                self._acknowledged(acks)
                return Saved("saved", expected_version + 1)
            if code == 2:  # the WAIT behind it covered the first save too (it wrote the answer's expiry again)
                self._acknowledged(acks)
                return Saved("replayed", answer=orjson.loads(reply[1]))
        if code == 0:
            current = self._kept(sid, int(reply[1]), reply[2], reply[3] == "1", self._meta_of(sid, reply[4]))
            return Saved("conflict", int(reply[1]), current=current)
        self._forget(sid)
        return Saved("gone")

    def current(self, session: Session) -> Session | None:
        return self.load(session.id) if session.recent else session

    def replace_state(self, sid: str, version: int, state: Json) -> bool:
        raw = _dumps(state)
        key = self.key_for("session", sid)
        with self._op("replace"):
            done = bool(self.topology.for_key(key)[1].script(REPLACE, [key], [version, raw]))
        if done:
            with self._lock:
                self._recent.pop(sid, None)
            self._keep(sid, version, raw, False)
        return done

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        key = self.key_for("answer", sid, answer_key)
        with self._op("answer"):
            lane = self.topology.for_key(key)[1]
            if self._wait is None:
                raw = lane("GET", key)
            else:  # an answer handed out again is acknowledged only once the replicas hold its move too
                raw, acks = lane.script_acked(ANSWER, [key], [], self._wait)
                if raw is not None:
                    self._acknowledged(acks)
        return None if raw is None else orjson.loads(raw)

    def log(self, sid: str) -> tuple[Session, list[dict[str, Json]]] | None:
        with self._op("log"):
            pipe = self.topology.for_key(self.key_for("session", sid))[0].pipeline(transaction=True)
            pipe.hmget(self.key_for("session", sid), ["v", "state", "meta", "done"])
            pipe.lrange(self.key_for("log", sid), 0, -1)
            row, entries = pipe.execute()
        if row[0] is None:
            return None
        return _session(sid, row), [orjson.loads(e) for e in entries]

    def version(self, sid: str) -> int | None:
        key = self.key_for("session", sid)
        with self._op("version"):
            v = self.topology.for_key(key)[1]("HGET", key, "v")
        return None if v is None else int(v)

    def entries(self, sid: str, first: int, last: int) -> list[dict[str, Json]]:
        """The log entries of versions ``first`` to ``last`` (the entry of version v is the log's item v-1)."""
        if last < first:
            return []
        key = self.key_for("log", sid)
        with self._op("entries"):
            raw = self.topology.for_key(key)[1]("LRANGE", key, first - 1, last - 1)
        return [orjson.loads(e) for e in raw]

    def watching(self, sid: str) -> AbstractContextManager[Watch]:
        """A watch on the session's moves, registered with this process's one subscription (notify.py)."""
        return self._listener.watching(sid)

    def wait(self, sid: str, after: int, timeout: float) -> None:
        wait_past(self, sid, after, timeout)

    def count(self, name: str, ttl: int) -> int:
        with self._op("count"):
            key = self.key_for("quota", name)
            return int(self.topology.for_key(key)[1].script(COUNT, [key], [int(ttl)]))

    # ----- deadlines (one sorted set for every session: member "<id>/<version>", score the epoch ms) ------
    def schedule(self, sid: str, version: int, deadline_ms: int | None, previous: int | None = None) -> None:
        key = self.key_for("deadlines", "all")
        member = f"{sid}/{version}"
        commands: list[tuple[Any, ...]] = [] if previous is None else [("ZREM", key, f"{sid}/{previous}")]
        commands.append(("ZREM", key, member) if deadline_ms is None else ("ZADD", key, deadline_ms, member))
        with self._op("schedule"):
            for reply in self.topology.for_key(key)[1]._pipelined(commands):  # one round trip, on the lane
                if isinstance(reply, Exception):
                    raise reply

    def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        key = self.key_for("deadlines", "all")
        with self._op("claim"):
            members = self.topology.for_key(key)[1].script(CLAIM, [key], [now_ms, now_ms + lease_ms, limit])
        out = []
        for member in members:
            sid, _, version = member.rpartition("/")
            if sid and version.isdigit():
                out.append((sid, int(version)))
        return out

    def unschedule(self, sid: str, version: int) -> None:
        key = self.key_for("deadlines", "all")
        with self._op("unschedule"):
            self.topology.for_key(key)[1]("ZREM", key, f"{sid}/{version}")

    # ----- presence (a sorted set per session: member "<seat>/<since>/<random>", score its lease's end) -----
    def enter(self, sid: str, seat: int, since_ms: int, until_ms: int) -> str:
        key, holder = self.key_for("presence", sid), f"{seat}/{since_ms}/{secrets.token_hex(8)}"
        self._heard_holders.pop(sid, None)
        with self._op("presence"):
            pipe = self.topology.for_key(key)[0].pipeline(transaction=False)
            pipe.zremrangebyscore(key, "-inf", since_ms)  # the leases of holders that died without leaving
            pipe.zadd(key, {holder: until_ms})
            pipe.pexpire(key, max(1, until_ms - since_ms) + PRESENCE_SLACK_MS)
            pipe.execute()
        return holder

    def stay(self, sid: str, holder: str, until_ms: int) -> None:
        key = self.key_for("presence", sid)
        with self._op("presence"):
            pipe = self.topology.for_key(key)[0].pipeline(transaction=False)
            pipe.zadd(key, {holder: until_ms}, xx=True)
            pipe.pexpireat(key, until_ms + PRESENCE_SLACK_MS, gt=True)
            pipe.execute()

    def leave(self, sid: str, holder: str) -> None:
        key = self.key_for("presence", sid)
        self._heard_holders.pop(sid, None)
        with self._op("presence"):
            self.topology.for_key(key)[1]("ZREM", key, holder)

    def heard_holders(self, sid: str, fresh: float) -> list[tuple[int, int]] | None:
        heard = self._heard_holders.get(sid)
        if heard is None or time.monotonic() - heard[0] > fresh:
            return None
        return heard[1]

    def _heard(self, sid: str, moved: Moved) -> None:
        """A move the listener heard: keep its state, and the connections it told of."""
        self._keep(sid, moved.version, moved.state, moved.finished)
        if moved.holders is not None:
            if len(self._heard_holders) >= RECENT_STATES:
                self._heard_holders.clear()  # a bound, not an LRU: the next move of each tells again
            self._heard_holders[sid] = (time.monotonic(), moved.holders)

    def holders(self, sid: str, now_ms: int) -> list[tuple[int, int]]:
        key = self.key_for("presence", sid)
        with self._op("presence"):
            members = self.topology.for_key(key)[1]("ZRANGEBYSCORE", key, f"({now_ms}", "+inf")
        out = []
        for member in members:
            seat, since, _ = member.split("/", 2)
            out.append((int(seat), int(since)))
        return out

    def ping(self) -> None:
        with self._op("ping"):
            for master in self.topology.masters():
                master.ping()

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

    def _acknowledged(self, acks: int) -> None:
        """With REDIS_WAIT_REPLICAS, fewer replicas than asked hold the write: it is not acknowledged."""
        if self._wait is not None and acks < self._wait[0]:
            raise NotReplicated(f"{acks} of {self._wait[0]} replicas acknowledged the write in time")

    def _op(self, what: str) -> _Operation:
        return _Operation(what, self.observer, self.topology.failed)


class NotReplicated(RedisError):
    """A write reached the master but not as many replicas as REDIS_WAIT_REPLICAS asks, within its time."""


def _session(sid: str, row: list[Any]) -> Session:
    v, state, meta, done = row
    return Session(id=sid, version=int(v), state=orjson.loads(state), meta=orjson.loads(meta), finished=done == "1")


class _Operation:
    """Times one Redis operation for the observer, and turns any Redis failure into StoreUnavailable
    (logged by kind only: never a key's contents or a token)."""

    def __init__(self, what: str, observer: Observer | None, failed: Callable[[], None]) -> None:
        self.what, self.observer, self.failed = what, observer, failed

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        failed = isinstance(exc, (RedisError, RedisClusterException))  # the latter: a slot with no master yet
        if self.observer is not None:
            self.observer(self.what, time.perf_counter() - self.started, not failed)
        if failed:
            log.warning("redis %s failed: %s", self.what, type(exc).__name__)
            self.failed()
            raise StoreUnavailable(f"Redis {self.what} failed: {type(exc).__name__}") from exc
