"""The event stream of a session: ``GET /v1/sessions/{id}/events`` (Server-Sent Events).

Each event is what ``GET /v1/sessions/{id}`` answers that seat (or a spectator, without a token) after a
move, with the session's version as its event id. A client that reconnects with ``Last-Event-ID`` (browsers'
EventSource does it by itself) gets every version it missed, or, when it missed more than ``RESUME_MAX``,
a ``gap`` event saying so and the current view. The stream sends a comment every ``EVENTS_HEARTBEAT``
seconds so that proxies keep it open, ends with an ``end`` event after the move that finishes the match,
and closes after ``EVENTS_MAX`` seconds (the client resumes with ``Last-Event-ID``). docs/sessions.md has
the whole protocol.

It waits through the same machinery as the long-poll: a watch on the session (service/storage/notify.py),
woken by the move's publish. Only views are ever sent: a missed version's view is computed from the state
the stream holds and the public log's moves, never from anything a client sent.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import orjson
from flask import Blueprint, Response, request

from ... import engine
from ...config import Config
from ...storage import Session, SessionStore, StoreUnavailable
from ...storage.notify import Watch
from ..wsgi import limits
from .errors import ApiError
from ..openapi import sessions as contract
from ..openapi.operations import documented
from ..openapi.shapes import event_stream, ref
from ...sessions.history import replay_entry, replayed
from ...sessions.service import SessionService
from ...sessions.views import seat_answer
from .sessions import DECIMAL, config, query_int, seat_of, service, store

bp = Blueprint("events", __name__)
log = logging.getLogger("service.api.http.events")

RESUME_MAX = 100     # a client that missed more versions than this gets a gap notice and the current view
RETRY_MS = 2000      # how long EventSource waits before it reconnects
HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}  # the latter: nginx must not buffer it


@bp.get("/v1/sessions/<sid>/events")
@documented("sessionEvents", "Server-Sent Events: this seat's view (a spectator's without a token) after every move.",
            description=contract.EVENTS_DESCRIPTION + contract.OPTIONAL_TOKEN,
            parameters=[contract.LAST_EVENT_ID, contract.EVENTS_AFTER],
            responses={"200": event_stream("The event stream (see the description for its events).",
                                           ref("SessionEventStream")),
                       "204": {"description": "The match is over and the client has its last event: nothing will "
                                              "follow (EventSource stops reconnecting)."},
                       "400": contract.BAD, "401": contract.UNAUTHORIZED, "404": contract.NOT_FOUND,
                       "503": contract.UNAVAILABLE})
def events(sid: str) -> Response:
    last = last_event_id()
    sessions = service()
    session = sessions.find(sid, touch="Authorization" in request.headers)
    seat = seat_of(session, request.headers.get("Authorization"), required=False)
    if session.finished and last is not None and last >= session.version:
        return Response(status=204, headers=HEADERS)  # nothing more will come: EventSource stops reconnecting
    stream = Stream(store(), config(), session, seat, last, sessions)
    return Response(stream.run(), mimetype="text/event-stream", headers=HEADERS)


def last_event_id() -> int | None:
    """Where the client stands: ``Last-Event-ID`` (sent by EventSource when it reconnects), else ``?after=``."""
    after = query_int("after")  # checked even when the header wins: a malformed request is refused either way
    raw = request.headers.get("Last-Event-ID", "")
    if raw == "":
        return after
    if not DECIMAL.match(raw):
        raise ApiError(400, "invalid_request", "'Last-Event-ID' must be a session version (a whole number).")
    return int(raw)


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One event in the text/event-stream format (the JSON has no line breaks)."""
    head = b"" if event_id is None else b"id: %d\n" % event_id
    return head + b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


class Stream:
    """One client's stream: the state of the last version it was sent, and the watch that wakes it."""

    def __init__(self, st: SessionStore, cfg: Config, session: Session, seat: int | None, last: int | None,
                 sessions: SessionService) -> None:
        self.store, self.cfg, self.seat, self.sessions = st, cfg, seat, sessions
        self.stay: Callable[[float], None] = lambda seconds: None  # renews this stream's presence
        self.sid, self.meta, self.seed = session.id, session.meta, session.state["seed"]
        self.first: Session | None = session  # let go of once sent: a stream keeps one state, not two
        self.last = last
        self.state: engine.State | None = None  # the state at version self.last, once known

    def run(self) -> Iterator[bytes]:
        deadline = time.monotonic() + self.cfg.events_max
        yield b"retry: %d\n\n" % RETRY_MS
        try:
            first, self.first = self.first, None
            assert first is not None
            with self.store.watching(self.sid) as watch, \
                    self.sessions.present(first, self.seat, self.lease()) as self.stay:
                session: Session | None = first
                del first
                while session is not None:
                    yield from self.catch_up(session)
                    if session.finished:
                        yield sse("end", {"version": session.version, "detail": "The match is over."})
                        return
                    session = yield from self.sleep(watch, deadline, session.version)
                    if session is TIME_UP:
                        yield b": time limit reached; reconnect with Last-Event-ID\n\n"
                        return
                yield sse("gone", {"code": "session_not_found", "detail": "The session has expired."})
        except StoreUnavailable:
            yield sse("error", {"code": "store_unavailable",
                                "detail": "The session store is unavailable; reconnect with Last-Event-ID."})

    def sleep(self, watch: Watch, deadline: float, version: int) -> Generator[bytes, None, Session | None]:
        """Heartbeats until the session moves past ``version`` (then it is returned as stored now), is gone
        (None), or the stream's time is up (TIME_UP)."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return TIME_UP
            if not watch.wait(min(self.cfg.events_heartbeat, left)):
                yield b": keep-alive\n\n"
                self.stay(self.lease())
                if self.store.version(self.sid) == version:  # a check beside the notifications, now and then
                    continue
            moved = watch.latest
            if moved is not None and moved.version == version + 1:  # the next version, told with its state
                return Session(self.sid, moved.version, orjson.loads(moved.state), self.meta, moved.finished)
            found = self.store.load(self.sid)
            if found is None or found.version != version:
                return found

    def lease(self) -> float:
        """Seconds this stream's presence lasts unless renewed: two heartbeats and a margin."""
        return 2 * self.cfg.events_heartbeat + 5.0

    def answer(self, state: engine.State, version: int) -> dict[str, Any]:
        return seat_answer(self.sid, state, version, self.seat, self.presence())

    def presence(self) -> list[dict[str, Any]]:
        return self.sessions.presence(Session(self.sid, 0, {}, self.meta, False))

    def catch_up(self, session: Session) -> Iterator[bytes]:
        """The events from the client's last version to ``session``'s: each missed version's view, or a gap
        notice and the current view."""
        current = session.version
        if self.last == current:
            self.state = session.state
            return
        missed: list[tuple[int, engine.State]] | None = []
        if self.last is not None:
            missed = None if self.last > current else self.missed_states(self.last, current)
            if missed is None:
                yield sse("gap", {"code": "gap", "last_event_id": self.last, "version": current,
                                  "detail": gap_detail(self.last, current)})
        for version, state in missed or []:
            yield sse("view", self.answer(state, version), version)
        yield sse("view", self.answer(session.state, current), current)
        self.last, self.state = current, session.state

    def missed_states(self, last: int, current: int) -> list[tuple[int, engine.State]] | None:
        """The states of versions last+1 .. current-1, from the state at ``last`` and the logged moves; None
        when there are too many, or the log cannot give them."""
        if current - last > RESUME_MAX:
            return None
        try:
            state = self.state if self.state is not None else self.replayed_to(last)
            entries = self.store.entries(self.sid, last + 1, current - 1)
            if len(entries) != current - 1 - last:
                return None
            out = []
            for entry in entries:
                state = replay_entry(state, entry)
                out.append((entry["version"], state))
            return out
        except engine.RulesError:
            log.warning("a logged move did not replay on a session's state")
            return None

    def replayed_to(self, version: int) -> engine.State:
        """The state at ``version``, replayed from the match's start (seed and explicit deals) and its log."""
        return replayed(self.meta, self.seed, self.store.entries(self.sid, 1, version), limits.Slicer().step)


TIME_UP = Session("", -1, {}, {}, False)  # what ``Stream.sleep`` returns when the stream's time is up


def gap_detail(last: int, current: int) -> str:
    if last > current:
        return (f"Your last event ({last}) is ahead of the session (version {current}); "
                "here is the current view.")
    return (f"You missed {current - last} moves (versions {last + 1} to {current}), more than the "
            f"{RESUME_MAX} the stream resends; here is the current view. The public log has every move.")
