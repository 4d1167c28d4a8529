"""Turns: under gunicorn's gevent worker, at most ``REQUEST_TURNS`` requests of a process (4 unless set; ``off``:
no limit) do their work at once.

A greenlet is never preempted. A saturated worker with a ready request on each of its busy connections runs
every one of them to its end before it looks at anything else, so a client waiting on a session (an event
stream, a long-poll) that a move wakes waits behind all of them, and twice: once for the listener that
hears the move, once for its own greenlet (docs/performance.md, "Wake-ups under saturation"). With turns, a
request past the first ``REQUEST_TURNS`` parks on a semaphore right after gunicorn has read it, and a woken waiter,
which does not take a turn, runs before all the parked ones: it waits behind at most that many requests.

A request waiting for a move gives its turn back before it waits (``give_back``) and does not take one
again: what it does once woken is small (the seat's view of a state it was handed). A read of a session (a
``GET`` under ``/v1/sessions/``: a view, a long-poll, an event stream, a log) takes no turn at all: it is
what a waiting client sends (a Redis read and a seat's view), and behind the parked requests a poll that
answers at once would be as late as a loaded request (docs/performance.md, "The collector, the router and
the listener's lock"). Under the gthread
worker (or no gunicorn at all) there are no turns: the operating system schedules the threads.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from ...greenlets import under_gevent

_HELD = "referee.turn"  # set in the WSGI environ while the request holds a turn
SESSIONS = "/v1/sessions/"


class Turns:
    def __init__(self, max_body: int, turns: int) -> None:
        self.max_body = max_body
        self._semaphore: Any = None
        if under_gevent():  # the gevent worker patched this process
            from gevent.lock import Semaphore
            self._semaphore = Semaphore(turns)

    def take(self, environ: dict[str, Any]) -> None:
        """Wait for a turn, after the request's body has come: a client that stalls halfway through its body
        must not hold a turn (the service then reads the body from memory)."""
        if self._semaphore is None or is_session_read(environ):
            return
        _read_body(environ, self.max_body)
        self._semaphore.acquire()
        environ[_HELD] = True

    def give_back(self, environ: dict[str, Any]) -> None:
        if environ.pop(_HELD, False):
            self._semaphore.release()


def off_the_connection(fn: Callable[[], None]) -> None:
    """Run ``fn`` (bookkeeping once an answer is sent) so that the connection does not wait for it: under
    gevent in a greenlet of its own, so that a client's next request, already sent, is read at once; else
    (threads: the next request waits either way for a thread) in place."""
    if under_gevent():
        from gevent import spawn
        spawn(fn)
    else:
        fn()


def is_session_read(environ: dict[str, Any]) -> bool:
    return environ.get("REQUEST_METHOD") == "GET" and environ.get("PATH_INFO", "").startswith(SESSIONS)


def _read_body(environ: dict[str, Any], max_body: int) -> None:
    """Read the body into memory (at most ``max_body`` and one byte more: Flask answers 413 past it)."""
    raw = environ.get("CONTENT_LENGTH") or ""
    if raw.isdigit():
        size = int(raw)
        if size == 0 or size > max_body:
            return
    elif environ.get("wsgi.input_terminated"):  # chunked: the server ends the stream
        size = max_body + 1
    else:
        return
    environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(size))
