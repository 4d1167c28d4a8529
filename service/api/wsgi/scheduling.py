"""What a handler tells the serving layer about its request, without knowing how the worker schedules requests
(greenlets and request turns under gunicorn's gevent worker, threads otherwise). Two calls:

- ``about_to_wait()``: the request is about to wait for another request's work (a long-poll for a move). It
  gives back its turn (turns.py), so the requests parked behind it go on while it waits.
- ``after_response(response, work)``: ``work`` (bookkeeping once the answer is out) runs after the response
  is sent, without the connection waiting for it: under gevent in a greenlet of its own, so a client's next
  request, already sent, is read at once; with threads in place (the next request waits for a thread either
  way).
"""
from __future__ import annotations

from collections.abc import Callable

from flask import Response, current_app, request

from ...greenlets import under_gevent


def about_to_wait() -> None:
    turns = getattr(current_app, "turns", None)
    if turns is not None:
        turns.give_back(request.environ)


def after_response(response: Response, work: Callable[[], None]) -> None:
    response.call_on_close(lambda: off_the_connection(work))


def off_the_connection(work: Callable[[], None]) -> None:
    if under_gevent():
        from gevent import spawn
        spawn(work)
    else:
        work()
