"""An in-process session store: the fallback when REDIS_URL is not set.

SINGLE PROCESS ONLY. Sessions live in this process's memory: they vanish on restart, and several
processes (gunicorn workers, servers) would each see their own sessions. It is meant for ``flask run``,
quick experiments and tests. deploy/serve.sh starts a private redis-server instead, so the documented
serve command always gets the Redis store (docs/sessions.md).

Records are kept as JSON bytes, exactly as Redis would hold them, so no caller can alias stored state.
"""
from __future__ import annotations

import secrets
import threading
import time
from contextlib import AbstractContextManager

import orjson

from .base import Json, Saved, Session, Write
from .notify import Watch, Watchers, wait_past


class _Record:
    __slots__ = ("version", "state", "meta", "finished", "log", "expires")

    def __init__(self, session: Session, expires: float) -> None:
        self.version = session.version
        self.state = orjson.dumps(session.state)
        self.meta = orjson.dumps(session.meta)
        self.finished = session.finished
        self.log: list[bytes] = []
        self.expires = expires


class MemoryStore:
    name = "memory"

    def __init__(self) -> None:
        self._sessions: dict[str, _Record] = {}
        self._answers: dict[tuple[str, str], tuple[bytes, float]] = {}
        self._counters: dict[str, tuple[int, float]] = {}
        self._cond = threading.Condition()
        self._next_sweep = 0.0
        self._watchers = Watchers()
        self._deadlines: dict[tuple[str, int], int] = {}
        self._holders: dict[str, dict[str, tuple[int, int, int]]] = {}  # sid -> handle -> (seat, since, until)

    def create(self, session: Session, ttl: int) -> None:
        with self._cond:
            self._sweep()
            self._sessions[session.id] = _Record(session, time.monotonic() + ttl)

    def load(self, sid: str, touch_ttl: int | None = None, recent: bool = False) -> Session | None:
        # ``recent`` is ignored: reading this store is as cheap as a kept copy, and always current.
        with self._cond:
            rec = self._live(sid)
            if rec is None:
                return None
            if touch_ttl is not None and not rec.finished:
                rec.expires = time.monotonic() + touch_ttl
            return self._session(sid, rec)

    def save(self, sid: str, expected_version: int, write: Write, ttl: int) -> Saved:
        with self._cond:
            prior = None if write.answer_key is None else self._answer(sid, write.answer_key)
            if prior is not None:
                return Saved("replayed", answer=prior)
            rec = self._live(sid)
            if rec is None:
                return Saved("gone")
            if rec.version != expected_version:
                return Saved("conflict", rec.version, current=self._session(sid, rec))
            rec.version += 1
            rec.state = orjson.dumps(write.state)
            rec.finished = write.finished
            rec.log.append(orjson.dumps(write.entry))
            now = time.monotonic()
            rec.expires = now + ttl
            if write.answer_key is not None:
                self._answers[(sid, write.answer_key)] = (orjson.dumps(write.answer), now + write.answer_ttl)
            version = rec.version
        self._watchers.notify(sid)
        return Saved("saved", version)

    def current(self, session: Session) -> Session | None:
        return session  # this store never hands out kept copies

    def replace_state(self, sid: str, version: int, state: dict[str, Json]) -> bool:
        with self._cond:
            rec = self._live(sid)
            if rec is None or rec.version != version:
                return False
            rec.state = orjson.dumps(state)
            return True

    def answer(self, sid: str, answer_key: str) -> dict[str, Json] | None:
        with self._cond:
            return self._answer(sid, answer_key)

    def log(self, sid: str) -> tuple[Session, list[dict[str, Json]]] | None:
        with self._cond:
            rec = self._live(sid)
            if rec is None:
                return None
            return self._session(sid, rec), [orjson.loads(e) for e in rec.log]

    def version(self, sid: str) -> int | None:
        with self._cond:
            rec = self._live(sid)
            return None if rec is None else rec.version

    def entries(self, sid: str, first: int, last: int) -> list[dict[str, Json]]:
        with self._cond:
            rec = self._live(sid)
            return [] if rec is None or last < first else [orjson.loads(e) for e in rec.log[first - 1:last]]

    def watching(self, sid: str) -> AbstractContextManager[Watch]:
        return self._watchers.watching(sid)

    def wait(self, sid: str, after: int, timeout: float) -> None:
        wait_past(self, sid, after, timeout)

    def schedule(self, sid: str, version: int, deadline_ms: int | None, previous: int | None = None) -> None:
        with self._cond:
            if previous is not None:
                self._deadlines.pop((sid, previous), None)
            if deadline_ms is not None:
                self._deadlines[(sid, version)] = deadline_ms
            else:
                self._deadlines.pop((sid, version), None)

    def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        with self._cond:
            due = sorted((at, member) for member, at in self._deadlines.items() if at <= now_ms)[:limit]
            for _, member in due:
                self._deadlines[member] = now_ms + lease_ms
            return [member for _, member in due]

    def unschedule(self, sid: str, version: int) -> None:
        with self._cond:
            self._deadlines.pop((sid, version), None)

    def enter(self, sid: str, seat: int, since_ms: int, until_ms: int) -> str:
        handle = f"{seat}/{since_ms}/{secrets.token_hex(8)}"
        with self._cond:
            held = self._holders.setdefault(sid, {})
            for stale in [h for h, (_, _, until) in held.items() if until <= since_ms]:
                del held[stale]
            held[handle] = (seat, since_ms, until_ms)
        return handle

    def stay(self, sid: str, holder: str, until_ms: int) -> None:
        with self._cond:
            held = self._holders.get(sid, {})
            if holder in held:
                seat, since, _ = held[holder]
                held[holder] = (seat, since, until_ms)

    def leave(self, sid: str, holder: str) -> None:
        with self._cond:
            held = self._holders.get(sid)
            if held is not None:
                held.pop(holder, None)
                if not held:
                    del self._holders[sid]

    def heard_holders(self, sid: str, fresh: float) -> list[tuple[int, int]] | None:
        return None  # ``holders`` is a read of this process's memory

    def holders(self, sid: str, now_ms: int) -> list[tuple[int, int]]:
        with self._cond:
            return [(seat, since) for seat, since, until in self._holders.get(sid, {}).values() if until > now_ms]

    def count(self, name: str, ttl: int) -> int:
        with self._cond:
            self._sweep()
            now = time.monotonic()
            n, expires = self._counters.get(name, (0, now + ttl))
            if expires <= now:
                n, expires = 0, now + ttl
            self._counters[name] = (n + 1, expires)
            return n + 1

    def ping(self) -> None:
        return None

    # ----- helpers (called with the lock held) --------------------------------------
    def _live(self, sid: str) -> _Record | None:
        rec = self._sessions.get(sid)
        if rec is not None and rec.expires <= time.monotonic():
            del self._sessions[sid]
            return None
        return rec

    def _answer(self, sid: str, key: str) -> dict[str, Json] | None:
        hit = self._answers.get((sid, key))
        if hit is None:
            return None
        if hit[1] <= time.monotonic():
            del self._answers[(sid, key)]
            return None
        result: dict[str, Json] = orjson.loads(hit[0])
        return result

    @staticmethod
    def _session(sid: str, rec: _Record) -> Session:
        return Session(id=sid, version=rec.version, state=orjson.loads(rec.state), meta=orjson.loads(rec.meta),
                       finished=rec.finished)

    def _sweep(self) -> None:
        """Drop expired sessions and answers now and then, so memory stays bounded."""
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + 60
        for sid in [s for s, r in self._sessions.items() if r.expires <= now]:
            del self._sessions[sid]
        for key in [k for k, (_, exp) in self._answers.items() if exp <= now]:
            del self._answers[key]
        for name in [k for k, (_, exp) in self._counters.items() if exp <= now]:
            del self._counters[name]
