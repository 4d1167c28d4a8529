"""Wake-ups for the clients waiting on a session: long-polls and event streams.

A waiting request registers a ``Watch`` for its session and sleeps on it; the store sets it when the session
moves. Registering costs a set entry and an event, not a connection or a thread of its own, so a process can
hold thousands of waiters (with gunicorn's gevent worker each is a greenlet; docs/deployment.md).

With Redis, the ``SAVE`` script publishes each new version on ``<prefix>moved:{<id>}``, with the finished flag
and the state as stored, so that a woken event stream need not read the session again. Each process keeps
**one** connection subscribed to the pattern ``<prefix>moved:*`` (``Listener``) and hands every message to
the watches of that session in this process, instead of one subscription per waiting request (2,000 waiters
would otherwise be 2,000 Redis connections). Every process therefore hears every move of every session that
shares the Redis and the key prefix, about 1-3 KB each (parsed by hiredis; only a session someone here waits
on is looked at further).

A waiter must never sleep through a move. The order makes sure of it: register the watch (the listener is
subscribed before ``watch`` returns), *then* read the version, then sleep. If the subscription breaks
(Redis restarted or killed), every watch is woken and marked lost, so that its waiter answers 503 at once
instead of sleeping through moves it can no longer hear about; the listener subscribes again when someone
next waits.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from redis.exceptions import RedisError

from .base import StoreUnavailable

log = logging.getLogger("service.storage")

POLL_SECONDS = 1.0    # the listener checks this often whether anyone still waits
PING_SECONDS = 10.0   # an idle subscription is pinged this often; twice that in silence means it is dead
RETRY_SECONDS = 0.5   # pause before subscribing again after a failure, while someone waits
SUBSCRIBE_SECONDS = 5.0  # longest a waiter waits for the subscription to stand (a failure ends it at once)


Moved = tuple[int, bool, str]  # what a move's notification carries: the new version, finished, the state's JSON


class Watch:
    """One waiter's registration for one session. ``latest`` is the newest move it was told of with the state
    (the Redis notifications carry it), so a woken waiter can often skip reading the session."""

    __slots__ = ("sid", "_event", "lost", "latest")

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self._event = threading.Event()
        self.lost = False
        self.latest: Moved | None = None

    def notify(self, moved: Moved | None = None) -> None:
        if moved is not None and (self.latest is None or moved[0] > self.latest[0]):
            self.latest = moved
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Sleep until the session moves (True) or ``timeout`` seconds pass (False). A notification that came
        since the last wait returns at once: read the session *after* this returns, never before. Raises
        StoreUnavailable when the store can no longer tell about moves (the subscription broke)."""
        woken = self._event.wait(max(timeout, 0.0))
        self._event.clear()
        if self.lost:
            raise StoreUnavailable("the move notifications were interrupted")
        return woken


class Watchers:
    """The watches of one process, by session id. Thread-safe (and greenlet-safe)."""

    def __init__(self) -> None:
        self._by_sid: dict[str, set[Watch]] = {}
        self._lock = threading.Lock()

    def add(self, sid: str) -> Watch:
        watch = Watch(sid)
        with self._lock:
            self._by_sid.setdefault(sid, set()).add(watch)
        return watch

    def remove(self, watch: Watch) -> None:
        with self._lock:
            group = self._by_sid.get(watch.sid)
            if group is not None:
                group.discard(watch)
                if not group:
                    del self._by_sid[watch.sid]

    def notify(self, sid: str, moved: Moved | None = None) -> None:
        with self._lock:
            group = list(self._by_sid.get(sid, ()))
        for watch in group:
            watch.notify(moved)

    def __contains__(self, sid: str) -> bool:
        with self._lock:
            return sid in self._by_sid

    def notify_all(self) -> None:
        with self._lock:
            everyone = [w for group in self._by_sid.values() for w in group]
        for watch in everyone:
            watch.notify()

    def lose_all(self) -> None:
        """Wake every watch and mark it lost (its waiter answers 503)."""
        with self._lock:
            everyone = [w for group in self._by_sid.values() for w in group]
        for watch in everyone:
            watch.lost = True
            watch.notify()

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_sid)

    @contextmanager
    def watching(self, sid: str) -> Iterator[Watch]:
        watch = self.add(sid)
        try:
            yield watch
        finally:
            self.remove(watch)


class Waitable(Protocol):
    def version(self, sid: str) -> int | None: ...

    def watching(self, sid: str) -> AbstractContextManager[Watch]: ...


def wait_past(store: Waitable, sid: str, after: int, timeout: float) -> None:
    """The long-poll's wait: until the session's version is above ``after`` (or it is gone), at most
    ``timeout`` seconds. The watch is registered before the version is read, so no move slips in between."""
    deadline = time.monotonic() + timeout
    with store.watching(sid) as watch:
        while True:
            current = store.version(sid)
            left = deadline - time.monotonic()
            if current is None or current > after or left <= 0:
                return
            watch.wait(left)


def moved_from(data: str) -> Moved | None:
    """A notification's "<version> <done> <state JSON>"; None for a bare version (an older instance's)."""
    parts = data.split(" ", 2)
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    return int(parts[0]), parts[1] == "1", parts[2]


def glob_escape(text: str) -> str:
    """``text`` as a literal inside a Redis glob pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class Listener:
    """One pattern subscription per process, run in a background thread (a greenlet under gevent) while
    anyone waits. ``connect`` makes a new, unsubscribed Redis connection without a read timeout."""

    def __init__(self, connect: Callable[[], Any], channel_prefix: str, timeout: float) -> None:
        self.watchers = Watchers()
        self._connect = connect
        self._channel_prefix = channel_prefix          # "<prefix>moved:{": the session id follows, then "}"
        self._pattern = glob_escape(channel_prefix) + "*"
        self._timeout = timeout
        self._subscribed = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    @contextmanager
    def watching(self, sid: str) -> Iterator[Watch]:
        """A registered watch; the subscription is confirmed before this yields. StoreUnavailable when it
        fails (at once) or does not stand within SUBSCRIBE_SECONDS (a busy process may take a moment to run
        the listener when a thousand clients come at once)."""
        with self.watchers.watching(sid) as watch:
            self._start()
            deadline = time.monotonic() + max(SUBSCRIBE_SECONDS, self._timeout)
            while not self._subscribed.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreUnavailable("could not subscribe to move notifications")
                watch.wait(left)  # woken by the subscription, or StoreUnavailable when it failed
            yield watch

    def _start(self) -> None:
        with self._lock:
            if self._pid != os.getpid():  # a copy inherited over a fork: its thread stayed in the parent
                self._pid, self._thread = os.getpid(), None
                self._subscribed.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="move-listener", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while self._someone_waits():
            conn = None
            try:
                conn = self._connect()
                conn.send_command("PSUBSCRIBE", self._pattern)
                self._listen(conn)
            except (RedisError, OSError) as exc:
                self._subscribed.clear()
                self.watchers.lose_all()
                log.warning("move notifications interrupted: %s", type(exc).__name__)
                time.sleep(RETRY_SECONDS)
            finally:
                if conn is not None:
                    conn.disconnect()
        self._subscribed.clear()

    def _someone_waits(self) -> bool:
        with self._lock:
            if len(self.watchers) == 0:
                self._thread = None
                return False
            return True

    def _listen(self, conn: Any) -> None:
        heard = time.monotonic()
        pinged = heard
        while True:
            if conn.can_read(timeout=POLL_SECONDS):
                self._handle(conn.read_response())
                heard = time.monotonic()
                continue
            now = time.monotonic()
            if not self._someone_waits():
                return
            if now - heard > 2 * PING_SECONDS:
                raise RedisError("the subscription went silent")
            if now - pinged > PING_SECONDS:
                conn.send_command("PING")
                pinged = now

    def _handle(self, msg: Any) -> None:
        kind = msg[0]
        if kind == "pmessage":
            channel = msg[2]
            sid = channel[len(self._channel_prefix):-1]
            if channel.startswith(self._channel_prefix) and sid in self.watchers:
                self.watchers.notify(sid, moved_from(msg[3]))
        elif kind == "psubscribe":
            # Whoever registered before this reads the version after it (``watching`` waits for it), and
            # whoever waited through a broken subscription was told so: no move goes unheard.
            self._subscribed.set()
            self.watchers.notify_all()
