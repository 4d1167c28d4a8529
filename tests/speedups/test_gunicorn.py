"""Guard of service/speedups/gunicorn.py: gunicorn's gevent worker, with its ``handle_request`` overridden to read
each body within a time limit, serves a request whose body came in time, and answers 408 and closes a connection
whose body stalled. The worker runs in this process, on gevent's own sockets, without the rest of gunicorn."""
from __future__ import annotations

import inspect
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from gevent import socket as gsocket

from service.speedups.gunicorn import timed_gevent_worker
from tests.speedups.guard import expect

TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
MAX_BODY = 64


class Log:
    """What the worker logs; the errors it would report are kept to be shown."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def exception(self, msg: str, *args: Any) -> None:
        self.errors.append(msg % args if args else msg)

    def info(self, *args: Any) -> None: ...
    def debug(self, *args: Any) -> None: ...
    def access(self, *args: Any) -> None: ...


def echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """Answers with the type of ``wsgi.input`` and what it held."""
    body = environ["wsgi.input"].read()
    start_response("200 OK", [("Content-Length", str(len(body) + 20))])
    return [type(environ["wsgi.input"]).__name__.encode().ljust(20) + body]


def worker(log: Log) -> Any:
    from gunicorn.config import Config
    cls = timed_gevent_worker(0.3, lambda: MAX_BODY, TIMED_OUT)
    w: Any = object.__new__(cls)  # gunicorn's arbiter would make it with its sockets, app and timeouts
    w.cfg, w.log, w.nr, w.max_requests, w.alive, w.wsgi = Config(), log, 0, 1000, True, echo
    w.cfg.set("keepalive", 1)
    errors = log.errors

    def handle_error(req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        errors.append(repr(exc))
    w.handle_error = handle_error
    return w


@contextmanager
def connection() -> Iterator[tuple[Any, Any, socket.socket]]:
    """A listener and its accepted connection (gevent sockets, as the worker has) and the client's plain socket."""
    listener = gsocket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname())
    served, _ = listener.accept()
    try:
        yield listener, served, client
    finally:
        client.close()
        listener.close()


def received(client: socket.socket) -> bytes:
    client.settimeout(5)
    out = b""
    while chunk := client.recv(65536):
        out += chunk
    return out


def test_the_gevent_worker_still_has_the_request_handler_the_module_overrides() -> None:
    from gunicorn.workers.ggevent import GeventWorker
    got = list(inspect.signature(GeventWorker.handle_request).parameters)
    expect(got == ["self", "listener_name", "req", "sock", "addr"], "gunicorn",
           f"`GeventWorker.handle_request` now takes {got}, not (self, listener_name, req, sock, addr)")


@pytest.mark.parametrize("body", [b"hello", b""])
def test_a_body_read_in_time_is_what_the_application_reads(body: bytes) -> None:
    log = Log()
    with connection() as (listener, served, client):
        client.sendall(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        client.shutdown(socket.SHUT_WR)  # no further request: the worker's keep-alive loop ends
        worker(log).handle(listener, served, ("127.0.0.1", 1))
        answer = received(client)
    expect(not log.errors, "gunicorn", f"the worker failed to serve a request: {log.errors}")
    expect(answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"BytesIO".ljust(20) + body), "gunicorn",
           f"the body the worker read into memory (`req.body`) is not what the application read from "
           f"`wsgi.input`: answered {answer!r}")


def test_a_stalled_body_is_answered_408_and_its_connection_closed() -> None:
    log = Log()
    with connection() as (listener, served, client):
        client.sendall(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        worker(log).handle(listener, served, ("127.0.0.1", 1))  # returns once the connection is closed
        answer = received(client)
    expect(not log.errors, "gunicorn", f"raising StopIteration from `handle_request` no longer closes the "
                                       f"connection quietly: {log.errors}")
    expect(answer == TIMED_OUT, "gunicorn", f"a stalled body was answered {answer!r}, not the 408")
