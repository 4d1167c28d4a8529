"""Wake-ups for the clients waiting on a session: long-polls and event streams.

A waiting request registers a ``Watch`` for its session and sleeps on it; the store sets it when the session
moves. Registering costs a set entry and an event, not a connection or a thread of its own, so a process can
hold thousands of waiters (with gunicorn's gevent worker each is a greenlet; docs/deployment.md).

With Redis, the ``SAVE`` script publishes each new version on ``<prefix>moved:{<id>}``, with the finished flag,
the seats connected then and the state as stored, so that a woken waiter need not read the session or its
presence again. Each process keeps
**one** connection (``Listener``), subscribed to the channels of the sessions someone in this process waits
on, and hands every message to the watches of that session, instead of one subscription per waiting request
(2,000 waiters would otherwise be 2,000 Redis connections). A first version listened to every session's
channel through a pattern; under a load of session moves on other sessions, each process then parsed
thousands of messages a second that concerned no one there, and the waiters' own waited behind them.

A waiter must never sleep through a move. The order makes sure of it: register the watch (its session's channel is
subscribed before ``watching`` yields), *then* read the version, then sleep. If the subscription breaks
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
from typing import Any, NamedTuple, Protocol

from redis.exceptions import RedisError

from ..greenlets import under_gevent
from .errors import StoreUnavailable

log = logging.getLogger("service.storage")

POLL_SECONDS = 1.0    # the listener checks this often whether anyone still waits
PING_SECONDS = 10.0   # an idle connection is pinged after this long; no answer this long after means it is dead
RETRY_SECONDS = 0.5   # pause before subscribing again after a failure, while someone waits
SUBSCRIBE_SECONDS = 5.0  # longest a waiter waits for the subscription to stand (a failure ends it at once)
UNSUBSCRIBE_AFTER = 30.0  # a session's channel is dropped once nobody here has waited on it this long


class Moved(NamedTuple):
    """What a move's notification carries (the ``SAVE`` script publishes it)."""

    version: int
    finished: bool
    state: str                                  # the state's JSON, as stored
    holders: list[tuple[int, int]] | None = None  # (seat, since ms) of each connection held then; None: not told


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
        if moved is not None and (self.latest is None or moved.version > self.latest.version):
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
    with store.watching(sid) as watch:
        wait_on(watch, store, sid, after, timeout, store.version(sid))


def wait_on(watch: Watch, store: Waitable, sid: str, after: int, timeout: float, current: int | None) -> None:
    """``wait_past`` with the watch registered by the caller, and ``current`` the version read after that.
    Woken by a notification of a version above ``after``, it returns without reading the version again."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if current is None or current > after or left <= 0:
            return
        watch.wait(left)
        told = watch.latest
        current = told.version if told is not None and told.version > after else store.version(sid)


def moved_from(data: str) -> Moved | None:
    """A notification's "<version> <done> <holders> <state JSON>", where holders is "-" or the presence set's
    members ("<seat>/<since>/<random>") joined by commas; an older instance's has no holders, or is a bare
    version (None)."""
    parts = data.split(" ", 2)
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    version, done, rest = parts
    if rest.startswith("{"):
        return Moved(int(version), done == "1", rest)
    told, _, state = rest.partition(" ")
    holders = []
    if told != "-":
        for member in told.split(","):
            seat, since, _ = member.split("/", 2)
            holders.append((int(seat), int(since)))
    return Moved(int(version), done == "1", state, holders)


class Listener:
    """One Redis connection per process, subscribed to the channels of the sessions someone in this process
    waits on, and read by a background thread (a greenlet under gevent) while anyone waits. ``connect`` makes
    a new Redis connection without a read timeout.

    Only the listener reads the connection; a waiter that needs a session's channel sends ``SUBSCRIBE`` on it
    itself (under ``_sending``, the one lock for sending) and waits for Redis to confirm, which the listener
    passes on. A channel nobody has waited on for ``UNSUBSCRIBE_AFTER`` seconds is dropped. So a process hears
    of the moves of the sessions it serves waiters of, not of every session sharing the Redis.

    Two locks: ``_sending`` (taken first when both are) for the connection and what is sent on it, which may
    wait for the socket, and ``_lock`` for the channels' bookkeeping, never held across a wait. Under gevent a
    waiter on a channel already subscribed takes neither, coming or going: a lock that a greenlet waits for
    is handed over only on the hub's next turn, after every other ready greenlet has run, and in a saturated
    worker the long-polls queueing for this one, coming and going, waited 240-260 ms for it
    (docs/performance.md, "The collector, the router and the listener's lock").
    """

    def __init__(self, connect: Callable[[], Any], channel_prefix: str, timeout: float,
                 on_moved: Callable[[str, Moved], None] | None = None) -> None:
        self.watchers = Watchers()
        self._connect = connect
        self._on_moved = on_moved  # told of every move heard, before the watches are woken
        self._channel_prefix = channel_prefix          # "<prefix>moved:{": the session id follows, then "}"
        self._timeout = timeout
        self._sending = threading.Lock()
        self._lock = threading.Lock()
        self._greenlets = under_gevent()
        self._conn: Any = None                          # the connection, while it stands
        self._channels: dict[str, threading.Event] = {}  # sid -> set once Redis confirmed its subscription
        self._unwatched: dict[str, float] = {}          # sid -> since when nobody here waits on it
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def channel(self, sid: str) -> str:
        return f"{self._channel_prefix}{sid}}}"

    @contextmanager
    def watching(self, sid: str) -> Iterator[Watch]:
        """A registered watch; its session's channel is subscribed before this yields. StoreUnavailable when
        the connection fails (at once) or Redis has not confirmed within SUBSCRIBE_SECONDS (a busy process may
        take a moment to run the listener when a thousand clients come at once)."""
        with self.watchers.watching(sid) as watch:
            confirmed = self._subscribe(sid)
            deadline = time.monotonic() + max(SUBSCRIBE_SECONDS, self._timeout)
            while not confirmed.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreUnavailable("could not subscribe to move notifications")
                watch.wait(left)  # woken by the confirmation, or StoreUnavailable when the connection failed
            try:
                yield watch
            finally:
                self._unwatched[sid] = time.monotonic()  # one dict write: atomic, no lock needed

    def _subscribe(self, sid: str) -> threading.Event:
        confirmed = self._channels.get(sid)
        if self._greenlets and confirmed is not None and self._pid == os.getpid() and self._listening():
            # the usual case under gevent, without the lock: no other greenlet runs until this returns, a
            # channel is dropped only when no watch of its session is registered, and the caller's is
            self._unwatched.pop(sid, None)
            return confirmed
        with self._lock:
            if self._pid != os.getpid():  # a copy inherited over a fork: its thread and connection are the parent's
                self._pid, self._thread, self._conn = os.getpid(), None, None
                self._channels.clear()
            thread = None
            if not self._listening():
                thread = self._thread = threading.Thread(target=self._run, name="move-listener", daemon=True)
            self._unwatched.pop(sid, None)
            confirmed = self._channels.get(sid)
            new = confirmed is None
            if confirmed is None:
                confirmed = self._channels[sid] = threading.Event()
        if thread is not None:
            thread.start()  # waits for the thread to begin (under gevent: a switch), so not under the lock
        if new:
            with self._sending:
                if self._conn is not None:  # else the listener subscribes it when it has connected
                    try:
                        self._conn.send_command("SUBSCRIBE", self.channel(sid), check_health=False)
                    except (RedisError, OSError):
                        pass  # the listener finds the connection broken, tells every waiter, and starts again
        return confirmed

    def _listening(self) -> bool:
        """The listener thread is running, or was made and is starting."""
        thread = self._thread
        return thread is not None and (thread.ident is None or thread.is_alive())

    def _run(self) -> None:
        while self._someone_waits():
            conn = None
            try:
                conn = self._connect()
                conn.connect()
                with self._sending:
                    with self._lock:
                        for confirmed in self._channels.values():
                            confirmed.clear()
                        sids = list(self._channels)
                    if sids:
                        conn.send_command("SUBSCRIBE", *[self.channel(sid) for sid in sids], check_health=False)
                    self._conn = conn
                self._listen(conn)
            except (RedisError, OSError) as exc:
                with self._sending:
                    self._conn = None
                with self._lock:
                    for confirmed in self._channels.values():
                        confirmed.clear()
                self.watchers.lose_all()
                log.warning("move notifications interrupted: %s", type(exc).__name__)
                time.sleep(RETRY_SECONDS)
            finally:
                if conn is not None:
                    conn.disconnect()

    def _someone_waits(self) -> bool:
        with self._lock:
            if len(self.watchers) == 0:
                self._thread = self._conn = None
                self._channels.clear()
                self._unwatched.clear()
                return False
            return True

    def _listen(self, conn: Any) -> None:
        heard = time.monotonic()
        pinged: float | None = None  # when the PING still unanswered was sent
        while True:
            if conn.can_read(timeout=POLL_SECONDS):
                self._handle(conn.read_response())
                heard, pinged = time.monotonic(), None
                continue
            now = time.monotonic()
            if not self._someone_waits():
                return
            if pinged is not None and now - pinged > PING_SECONDS:
                raise RedisError("the subscription went silent")
            if pinged is None and now - heard > PING_SECONDS:
                with self._sending:
                    conn.send_command("PING", check_health=False)
                    self._drop_unwatched(conn, now)
                pinged = now

    def _drop_unwatched(self, conn: Any, now: float) -> None:
        """Unsubscribe the channels nobody has waited on for a while (called with ``_sending`` held). Only
        long unwatched ones, so that no confirmation of theirs can still be on its way."""
        with self._lock:
            stale = [sid for sid, since in list(self._unwatched.items())  # a copy: waiters write it unlocked
                     if now - since > UNSUBSCRIBE_AFTER and sid not in self.watchers]
            for sid in stale:
                self._unwatched.pop(sid, None)
                self._channels.pop(sid, None)
        if stale:
            conn.send_command("UNSUBSCRIBE", *[self.channel(sid) for sid in stale], check_health=False)

    def _handle(self, msg: Any) -> None:
        if not isinstance(msg, list) or len(msg) < 3:
            return  # a PING's reply
        kind, channel = msg[0], msg[1]
        if not isinstance(channel, str) or not channel.startswith(self._channel_prefix):
            return
        sid = channel[len(self._channel_prefix):-1]
        if kind == "message":
            moved = moved_from(msg[2])
            if moved is not None and self._on_moved is not None:
                self._on_moved(sid, moved)
            self.watchers.notify(sid, moved)
        elif kind == "subscribe":
            with self._lock:
                confirmed = self._channels.get(sid)
            if confirmed is not None:
                # Whoever registered before this reads the version after it (``watching`` waits for it), and
                # whoever waited through a broken subscription was told so: no move goes unheard.
                confirmed.set()
                self.watchers.notify(sid)
