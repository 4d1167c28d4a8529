"""Hosted tournaments and bot accounts in Redis: the session store's Redis, under its key prefix.

Keys (``<p>`` is KEY_PREFIX; a tournament's keys share the hash tag ``{<tid>}``, so one cluster slot):

    <p>bot:{<bid>}                 hash: id, name, owner, token (SHA-256 of the bot token), created
    <p>botname:<name>              string: the bot id that holds the name (SET NX: names are unique)
    <p>bottoken:<sha256>           string: the bot id of a token
    <p>botlive:{<bid>}             string with a TTL: the bot holds its event stream now
    <p>botevents:{<bid>}           stream: the bot's events (match_started, match_ended, tournament_finished)
    <p>t:{<tid>}                   hash: doc (JSON), status, round, started_ms, finished_ms, ...
    <p>t:{<tid>}:entries           hash: bot id -> {"bot", "name", "status", "seq"}
    <p>t:{<tid>}:rounds            hash: round index -> the round as paired (first writer wins)
    <p>t:{<tid>}:sessions          hash: match id -> the session bound to it (first writer wins)
    <p>t:{<tid>}:announced         hash: match id -> when its announcement was written
    <p>t:{<tid>}:records           hash: match id -> its record (first writer wins: exactly once)
    <p>t:{<tid>}:incidents         hash: match id -> what the referee did for an absent bot
    <p>t:{<tid>}:standings         hash: round index -> the standings published after it
    <p>t:{<tid>}:told              hash: the ends told ("end:<match>", "standings:<round>", "finished")
    <p>t:{<tid>}:events            stream: the tournament's events
    <p>tdue                        sorted set: tournament id -> when its director tick is due (or its lease ends)
    <p>tfinished                   list: the finished tournaments, in the order they finished (the ratings' fold)
    <p>ratings                     string: the ratings as last folded, with the count of tournaments folded

Every step of a tournament is written first-writer-wins (HSETNX, or a Lua compare-and-set), so two
instances doing the same tick, or one redoing a killed one's, write each fact once.
"""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis
from redis.exceptions import RedisError

from ..storage import StoreUnavailable
from ..storage.redis_store import RedisStore

Json = Any
STREAM_MAX = 10_000   # events a tournament's stream keeps (approximately)
BOT_STREAM_MAX = 1_000  # events a bot's stream keeps
MAX_BLOCK_S = 5         # seconds a stream read may wait for an event (the heartbeat is usually shorter)

# KEYS: due.  ARGV: now, lease until, limit.  The same claim as the timeout appliers' (storage/redis_store.py).
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
"""

# KEYS: tournament.  ARGV: field, expected, new[, field, value ...].  Compare-and-set of one field (and more set).
CAS = """
if (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
"""

# KEYS: tournament, finished list.  ARGV: tournament id, now.  Finished once: the list gets it once.
FINISH = """
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'running' and s ~= 'paused' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_ms', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
"""

class NameTaken(Exception):
    """Another bot holds that name."""


def new_id() -> str:
    """A bot's or a tournament's id: hex, so that it never reads as a command-line option (a leading '-')."""
    return secrets.token_hex(8)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Tournament:
    """Everything stored of one tournament, read in one round trip."""

    id: str
    doc: dict[str, Json]
    status: str
    round: int
    fields: dict[str, str]
    entries: list[dict[str, Json]]
    rounds: dict[int, dict[str, Json]] = field(default_factory=dict)
    sessions: dict[str, dict[str, Json]] = field(default_factory=dict)
    announced: set[str] = field(default_factory=set)
    records: dict[str, dict[str, Json]] = field(default_factory=dict)
    recorded: set[str] = field(default_factory=set)  # the ids of the matches with a record (always read)
    told: set[str] = field(default_factory=set)  # the ends told: "end:<match>", "standings:<round>", "finished"
    incidents: dict[str, list[dict[str, Json]]] = field(default_factory=dict)
    standings: dict[int, dict[str, Json]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Every entry's bot name, in entry order."""
        return [e["name"] for e in self.entries]

    def active(self) -> list[str]:
        return [e["name"] for e in self.entries if e["status"] == "active"]


class TournamentStore:
    """Bots and tournaments on the session store's Redis (its prefix, its topology)."""

    def __init__(self, sessions: RedisStore) -> None:
        self.prefix = sessions.prefix
        self.topology = sessions.topology
        self.sessions = sessions
        # Stream reads block up to a heartbeat, longer than the store's socket timeout (REDIS_TIMEOUT): on one
        # Redis they get a pool of their own whose timeout allows it; elsewhere they block less than it.
        self.max_block_ms = int(sessions.timeout * 800)
        self.blocking: redis.Redis | None = None
        if self.topology.name == "single":
            pool = self.topology.client.connection_pool
            kwargs = {**pool.connection_kwargs, "socket_timeout": sessions.timeout + MAX_BLOCK_S}
            self.blocking = redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class,
                                                                             **kwargs))
            self.max_block_ms = MAX_BLOCK_S * 1000

    # ----- keys ----------------------------------------------------------------------
    def tkey(self, tid: str, part: str = "") -> str:
        return f"{self.prefix}t:{{{tid}}}" + (f":{part}" if part else "")

    def bkey(self, kind: str, bid: str) -> str:
        return f"{self.prefix}{kind}:{{{bid}}}"

    def gkey(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def client(self, key: str) -> redis.Redis:
        return self.topology.for_key(key)[0]

    @contextmanager
    def op(self) -> Iterator[None]:
        try:
            yield
        except RedisError as exc:
            self.topology.failed()
            raise StoreUnavailable(f"Redis failed: {type(exc).__name__}") from exc

    # ----- bots ----------------------------------------------------------------------
    def create_bot(self, name: str, owner: str, now_ms: int) -> tuple[dict[str, Json], str]:
        """A new bot and its token (shown once; only its hash is kept). NameTaken when the name is held."""
        bid, token = new_id(), secrets.token_urlsafe(32)
        with self.op():
            if not self.client(self.gkey("botname:")).set(self.gkey(f"botname:{name}"), bid, nx=True):
                raise NameTaken(name)
            bot = {"id": bid, "name": name, "owner": owner, "created": str(now_ms)}
            self.client(self.bkey("bot", bid)).hset(self.bkey("bot", bid), mapping={**bot, "token": token_hash(token)})
            self.client(self.gkey("bottoken:")).set(self.gkey(f"bottoken:{token_hash(token)}"), bid)
        return bot, token

    def bot(self, bid: str) -> dict[str, str] | None:
        with self.op():
            found: dict[str, str] = self.client(self.bkey("bot", bid)).hgetall(self.bkey("bot", bid))
        return found or None

    def bot_by_token(self, token: str) -> str | None:
        with self.op():
            bid: str | None = self.client(self.gkey("bottoken:")).get(self.gkey(f"bottoken:{token_hash(token)}"))
        return bid

    def bot_ids(self, names: list[str]) -> dict[str, str]:
        """Bot name -> id, for the names that are bots."""
        if not names:
            return {}
        with self.op():
            ids = self.client(self.gkey("botname:")).mget([self.gkey(f"botname:{n}") for n in names])
        return {n: i for n, i in zip(names, ids, strict=True) if i}

    def mark_live(self, bid: str, ttl_ms: int) -> None:
        with self.op():
            self.client(self.bkey("botlive", bid)).set(self.bkey("botlive", bid), "1", px=ttl_ms)

    def live(self, bids: list[str]) -> dict[str, bool]:
        out = {}
        with self.op():
            for bid in bids:
                out[bid] = bool(self.client(self.bkey("botlive", bid)).exists(self.bkey("botlive", bid)))
        return out

    def tell_bot(self, bid: str, event: str, data: Json) -> str:
        key = self.bkey("botevents", bid)
        with self.op():
            return str(self.client(key).xadd(key, {"event": event, "data": orjson.dumps(data)},
                                              maxlen=BOT_STREAM_MAX, approximate=True))

    def read_stream(self, key: str, after: str, block_ms: int) -> list[tuple[str, str, Json]]:
        """The stream's events after ``after`` (waiting up to ``block_ms`` for one, or as long as the socket's
        timeout allows): (id, event, data)."""
        client = self.blocking or self.client(key)
        with self.op():
            found = client.xread({key: after}, count=100, block=max(1, min(block_ms, self.max_block_ms)))
        out = []
        for _, items in found or []:
            for eid, fields in items:
                out.append((eid, fields["event"], orjson.loads(fields["data"])))
        return out

    def bot_stream(self, bid: str) -> str:
        return self.bkey("botevents", bid)

    def finished_sessions(self, sids: list[str]) -> set[str]:
        """Which of these sessions are finished: one pipelined read of their ``done`` flags (a tick asks this of
        every unrecorded match, four times a second; loading each session would parse every state)."""
        if not sids:
            return set()
        by_node: dict[int, tuple[redis.Redis, list[str]]] = {}  # a cluster's sessions sit on several nodes
        for sid in sids:
            client = self.client(self.sessions.key_for("session", sid))
            by_node.setdefault(id(client), (client, []))[1].append(sid)
        done: set[str] = set()
        with self.op():
            for client, group in by_node.values():
                pipe = client.pipeline(transaction=False)
                for sid in group:
                    pipe.hget(self.sessions.key_for("session", sid), "done")
                done.update(sid for sid, flag in zip(group, pipe.execute(), strict=True) if flag == "1")
        return done

    # ----- tournaments ----------------------------------------------------------------
    def create(self, tid: str, doc: dict[str, Json], status: str, entries: list[tuple[str, str]], now_ms: int) -> None:
        key = self.tkey(tid)
        with self.op():
            pipe = self.client(key).pipeline(transaction=True)
            pipe.hset(key, mapping={"doc": orjson.dumps(doc), "status": status, "round": "0",
                                    "created_ms": str(now_ms)})
            for seq, (bid, name) in enumerate(entries):
                pipe.hset(self.tkey(tid, "entries"), bid,
                          orjson.dumps({"bot": bid, "name": name, "status": "active", "seq": seq}))
            pipe.execute()

    def join(self, tid: str, bid: str, name: str) -> bool:
        """Enter a bot (False: it had entered already)."""
        key = self.tkey(tid, "entries")
        with self.op():
            seq = self.client(key).hlen(key)
            entry = orjson.dumps({"bot": bid, "name": name, "status": "active", "seq": seq})
            return bool(self.client(key).hsetnx(key, bid, entry))

    def set_entry(self, tid: str, entry: dict[str, Json]) -> None:
        key = self.tkey(tid, "entries")
        with self.op():
            self.client(key).hset(key, entry["bot"], orjson.dumps(entry))

    def load(self, tid: str, full: bool = True, records: bool = True) -> Tournament | None:
        """The tournament (None: no such one); ``full``: with its rounds, sessions and the rest; ``records``: with
        the records themselves (a tick reads them only when it pairs or closes a round: they are most of it)."""
        key = self.tkey(tid)
        parts = ("entries", "rounds", "sessions", "announced", "records", "incidents", "standings", "told") if full \
            else ("entries",)
        with self.op():
            pipe = self.client(key).pipeline(transaction=False)
            pipe.hgetall(key)
            for part in parts:
                if part == "told" or (part == "records" and not records):
                    pipe.hkeys(self.tkey(tid, part))
                else:
                    pipe.hgetall(self.tkey(tid, part))
            got = pipe.execute()
        head = got[0]
        if not head:
            return None
        data = dict(zip(parts, got[1:], strict=True))
        entries = sorted((orjson.loads(v) for v in data["entries"].values()), key=lambda e: (e["seq"], e["bot"]))
        t = Tournament(tid, orjson.loads(head["doc"]), head["status"], int(head.get("round", "0")), head, entries)
        if full:
            t.rounds = {int(k): orjson.loads(v) for k, v in data["rounds"].items()}
            t.sessions = {k: orjson.loads(v) for k, v in data["sessions"].items()}
            t.announced = set(data["announced"])
            if records:
                t.records = {k: orjson.loads(v) for k, v in data["records"].items()}
            t.recorded = set(data["records"])
            t.incidents = {k: orjson.loads(v) for k, v in data["incidents"].items()}
            t.standings = {int(k): orjson.loads(v) for k, v in data["standings"].items()}
            t.told = set(data["told"])
        return t

    def record(self, tid: str, mid: str) -> Json:
        key = self.tkey(tid, "records")
        with self.op():
            raw = self.client(key).hget(key, mid)
        return None if raw is None else orjson.loads(raw)

    def records(self, tid: str) -> dict[str, Json]:
        key = self.tkey(tid, "records")
        with self.op():
            return {k: orjson.loads(v) for k, v in self.client(key).hgetall(key).items()}

    def first(self, tid: str, part: str, name: str | int, value: Json) -> tuple[bool, Json]:
        """Write ``value`` under ``name`` of the tournament's ``part`` hash unless something is there: (won,
        what is stored now)."""
        key = self.tkey(tid, part)
        raw = orjson.dumps(value)
        with self.op():
            client = self.client(key)
            if client.hsetnx(key, str(name), raw):
                return True, value
            stored = client.hget(key, str(name))
        return False, orjson.loads(stored) if stored is not None else value

    def set_field(self, tid: str, name: str, value: str) -> None:
        with self.op():
            self.client(self.tkey(tid)).hset(self.tkey(tid), name, value)

    def set_field_once(self, tid: str, name: str, value: str) -> bool:
        with self.op():
            return bool(self.client(self.tkey(tid)).hsetnx(self.tkey(tid), name, value))

    def cas(self, tid: str, name: str, expected: str, new: str, **more: str) -> bool:
        """Set field ``name`` to ``new`` only if it holds ``expected`` (and the ``more`` fields with it)."""
        key = self.tkey(tid)
        args: list[str] = [name, expected, new]
        for k, v in more.items():
            args += [k, v]
        with self.op():
            return bool(self.client(key).eval(CAS, 1, key, *args))

    def finish(self, tid: str, now_ms: int) -> bool:
        key = self.tkey(tid)
        with self.op():
            return bool(self.client(key).eval(FINISH, 2, key, self.gkey("tfinished"), tid, str(now_ms)))

    def tell(self, tid: str, event: str, data: Json) -> str:
        key = self.tkey(tid, "events")
        with self.op():
            return str(self.client(key).xadd(key, {"event": event, "data": orjson.dumps(data)},
                                              maxlen=STREAM_MAX, approximate=True))

    # ----- the director's work list ---------------------------------------------------
    def schedule(self, tid: str, at_ms: int) -> None:
        with self.op():
            self.client(self.gkey("tdue")).zadd(self.gkey("tdue"), {tid: at_ms})

    def unschedule(self, tid: str) -> None:
        with self.op():
            self.client(self.gkey("tdue")).zrem(self.gkey("tdue"), tid)

    def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        key = self.gkey("tdue")
        with self.op():
            return list(self.client(key).eval(CLAIM, 1, key, now_ms, now_ms + lease_ms, limit))

    # ----- ratings ----------------------------------------------------------------------
    def finished(self) -> list[str]:
        with self.op():
            return list(self.client(self.gkey("tfinished")).lrange(self.gkey("tfinished"), 0, -1))

    def cached_ratings(self) -> Json:
        with self.op():
            raw = self.client(self.gkey("ratings")).get(self.gkey("ratings"))
        return None if raw is None else orjson.loads(raw)

    def cache_ratings(self, value: Json) -> None:
        with self.op():
            self.client(self.gkey("ratings")).set(self.gkey("ratings"), orjson.dumps(value))
