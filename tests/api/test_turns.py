"""Turns (service/api/wsgi/turns.py): a request takes one only once its body is in, and gives it back once."""
from __future__ import annotations

import io

import gevent
import pytest
from gevent.lock import Semaphore

from service.api.wsgi import turns as turns_module
from service.api.wsgi.turns import Turns


def turns(n: int) -> Turns:
    t = Turns(max_body=10, turns=1)
    t._semaphore = Semaphore(n)  # as under the gevent worker (the test process is not patched)
    return t


def test_the_body_is_read_before_the_turn_is_taken_and_the_turn_given_back_once() -> None:
    t = turns(1)
    env = {"CONTENT_LENGTH": "5", "wsgi.input": io.BufferedReader(io.BytesIO(b"hello"))}  # type: ignore[arg-type]
    t.take(env)
    assert isinstance(env["wsgi.input"], io.BytesIO) and env["wsgi.input"].read() == b"hello"
    assert t._semaphore.locked()
    t.give_back(env)
    t.give_back(env)  # the long-poll gives it back before waiting, the middleware again at the end: once only
    assert not t._semaphore.locked() and t._semaphore.counter == 1


def test_bodies_too_large_or_absent_are_left_to_flask_and_chunked_ones_are_read_to_the_limit() -> None:
    t = turns(3)
    big = {"CONTENT_LENGTH": "11", "wsgi.input": io.BytesIO(b"x" * 11)}
    t.take(big)
    assert big["wsgi.input"].tell() == 0  # Flask answers 413 without reading it
    chunked = {"wsgi.input_terminated": True, "wsgi.input": io.BytesIO(b"y" * 20)}
    t.take(chunked)
    assert chunked["wsgi.input"].read() == b"y" * 11  # max_body and one more: enough for Flask to refuse it
    none: dict[str, object] = {"wsgi.input": io.BytesIO(b"")}
    t.take(none)
    assert t._semaphore.counter == 0
    for env in (big, chunked, none):
        t.give_back(env)
    assert t._semaphore.counter == 3


def test_without_gevent_there_are_no_turns() -> None:
    t = Turns(max_body=10, turns=1)
    env = {"CONTENT_LENGTH": "3", "wsgi.input": io.BytesIO(b"abc")}
    t.take(env)
    t.give_back(env)
    assert t._semaphore is None and env["wsgi.input"].tell() == 0  # untouched


def test_reads_of_a_session_take_no_turn_and_its_moves_do() -> None:
    t = turns(1)
    for path in ("/v1/sessions/abc", "/v1/sessions/abc/events", "/v1/sessions/abc/log"):
        env = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "after=3&wait=30"}
        t.take(env)
        assert t._semaphore.counter == 1  # a long-poll that finds its move made answers without queueing
        t.give_back(env)
    move = {"REQUEST_METHOD": "POST", "PATH_INFO": "/v1/sessions/abc/moves", "CONTENT_LENGTH": "2",
            "wsgi.input": io.BytesIO(b"{}")}
    t.take(move)
    assert t._semaphore.locked()
    t.give_back(move)
    assert t._semaphore.counter == 1


def test_bookkeeping_after_an_answer_runs_off_the_connection_under_gevent(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    turns_module.off_the_connection(lambda: ran.append("in place"))
    assert ran == ["in place"]  # threads: nothing to gain
    monkeypatch.setattr(turns_module, "under_gevent", lambda: True)
    turns_module.off_the_connection(lambda: ran.append("later"))
    assert ran == ["in place"]  # the connection goes on to its next request first
    gevent.sleep(0)
    assert ran == ["in place", "later"]
