"""Costly requests answered by helper processes that run only on CPU time no serving process wants.

A replay of ``MAX_MOVES`` moves costs a quarter of a second of CPU or more, a session fixing ``MAX_DEALS``
deals tens of milliseconds. Done in a serving worker, even in 5 ms slices (``limits.Slicer``), every request
that arrives meanwhile waits for the slice running, on its worker or for its core: two clients looping the
largest bodies took the ``/healthz`` p99 from 1.4 ms to 30 ms (docs/performance.md, "Hostile bodies").

So each serving worker starts ``COSTLY_HELPERS`` helper processes (``start``, from deploy/gunicorn.conf.py),
fresh interpreters running ``serve`` under the SCHED_IDLE policy (nice 19 where that is refused): the kernel
gives them a core only when no serving process wants it, and takes it back the moment one does. A handler
marked ``costly`` runs there: the worker reads the body (it has it in memory already), hands the request (its
WSGI variables, body and arguments) to an idle helper of its own and waits for it without holding a turn
(turns.py); the helper runs the same handler, with the same error handlers, in a request context of its own
and sends back the response, which the worker writes out as it came. Cheap requests never wait behind
costly ones; costly ones wait for the worker's helpers, one request per helper at a time.

Without helpers (tests, scripts, ``COSTLY_HELPERS=0``) a costly handler runs in place, as any other.
"""
from __future__ import annotations

import io
import logging
import os
import pickle
import queue
import socket
import struct
import subprocess
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, Response, current_app, request

from ...config import Config
from . import observability, scheduling

log = logging.getLogger("service.api")
EXTENSION = "costly_helpers"
# What a handler run by a helper tells the worker's middleware through the WSGI environ
MARKERS = (observability.GAME, observability.ILLEGAL_REASON)
_FRAME = struct.Struct("!Q")  # every message: its length, then a pickle (between processes of this service only)
_HANDLERS: dict[str, Callable[..., Any]] = {}  # a costly handler's name -> the handler itself
HELPER = "service.api.wsgi.helper"  # the module a helper process runs
Handler = TypeVar("Handler", bound=Callable[..., Any])


class HelperLost(RuntimeError):
    """A helper process ended (or its socket broke) before it answered: the request is answered 500."""


def costly(uses_store: bool = False, when: Callable[[bytes], bool] | None = None) -> Callable[[Handler], Handler]:
    """Mark a request handler whose work may be costly: with helpers it runs in one of them. ``uses_store``:
    it writes to the session store, so it runs in place when the store is this process's own memory.
    ``when``: given the body, whether this request's work is costly (else it runs in place)."""

    def mark(handler: Handler) -> Handler:
        name = f"{handler.__module__}.{handler.__qualname__}"
        _HANDLERS[name] = handler

        @wraps(handler)
        def answered(*args: Any, **kwargs: Any) -> Any:
            helpers: Helpers | None = current_app.extensions.get(EXTENSION)
            if helpers is None or (uses_store and not helpers.shared_store):
                return handler(*args, **kwargs)
            raw = request.get_data()  # cached: the handler reads it again if it runs here
            if when is not None and not when(raw):
                return handler(*args, **kwargs)
            return helpers.answer(name, args, kwargs, raw)

        return cast(Handler, answered)

    return mark


class Helper:
    """One helper process and this worker's end of the socket to it."""

    def __init__(self, config: Config) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen([sys.executable, "-m", HELPER, str(theirs.fileno())],
                                        pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=_helper_env())
        theirs.close()
        self.socket = ours
        send(ours, pickle.dumps(config, protocol=pickle.HIGHEST_PROTOCOL))

    def ask(self, job: bytes) -> bytes:
        send(self.socket, job)
        answer = receive(self.socket)
        if answer is None:
            raise HelperLost(f"helper process {self.process.pid} ended before it answered")
        return answer

    def stop(self) -> None:
        self.socket.close()  # a helper that is waiting reads the end and exits
        if self.process.poll() is None:
            self.process.terminate()  # one that is working stops now
            self.process.wait()


def _helper_env() -> dict[str, str]:
    """The worker's environment, with the directory this package is in first on the helper's import path
    (gunicorn may have found it through its configuration file rather than an installation)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else f"{root}{os.pathsep}{path}"}


class Helpers:
    """This worker's helper processes, each lent to one costly request at a time."""

    def __init__(self, config: Config, count: int, shared_store: bool) -> None:
        self.config = config
        self.shared_store = shared_store
        self._idle: queue.Queue[Helper] = queue.Queue()
        self._all = [Helper(config) for _ in range(count)]
        for helper in self._all:
            self._idle.put(helper)

    def answer(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], raw: bytes) -> Response:
        """The response of the costly handler ``name`` to the current request (body ``raw``), made by a helper."""
        job = pickle.dumps((name, args, kwargs, wsgi_variables(request.environ, len(raw)), raw),
                           protocol=pickle.HIGHEST_PROTOCOL)
        scheduling.about_to_wait()  # waiting, not working: the worker's other requests go first
        helper = self._idle.get()
        try:
            status, headers, body, markers = pickle.loads(helper.ask(job))
        except BaseException:
            # the helper died, or this request was interrupted halfway through a message: either way its
            # socket can no longer be trusted, so the next request gets a new helper
            helper = self._replace(helper)
            raise
        finally:
            self._idle.put(helper)
        request.environ.update(markers)
        return Response(body, status, headers)

    def _replace(self, helper: Helper) -> Helper:
        helper.stop()
        new = Helper(self.config)
        self._all = [new if h is helper else h for h in self._all]
        return new

    def pids(self) -> list[int]:
        return [helper.process.pid for helper in self._all]

    def stop(self) -> None:
        """Stop every helper, also one still working (at the worker's exit)."""
        for helper in self._all:
            helper.stop()


def start(app: Flask, count: int) -> Helpers | None:
    """Give ``app``'s costly handlers ``count`` helper processes (none when ``count`` is 0). A helper must tag
    states with the instance's key: without STATE_TAG_KEY (deploy/gunicorn.conf.py sets one) and without a
    sealing key, each process draws its own, and the costly handlers run in place."""
    config: Config | None = getattr(app, "extensions", {}).get("card_referee_config")
    if count < 1 or config is None:  # none wanted, or an app other than this service's (a benchmark's echo)
        return None
    if config.state_tag_key is None and config.sealing_key is None:
        log.warning("costly requests are served in the workers: helpers need STATE_TAG_KEY")
        return None
    helpers = app.extensions[EXTENSION] = Helpers(config, count,
                                                  app.extensions["session_store"].name != "memory")
    return helpers


def stop(app: Flask) -> None:
    helpers: Helpers | None = getattr(app, "extensions", {}).pop(EXTENSION, None)
    if helpers is not None:
        helpers.stop()


def wsgi_variables(environ: dict[str, Any], length: int) -> dict[str, str]:
    """The request's CGI and HTTP variables (the strings of its WSGI environ), for a body of ``length`` bytes
    read whole."""
    kept = {k: v for k, v in environ.items() if type(v) is str and k != "HTTP_TRANSFER_ENCODING"}
    kept["CONTENT_LENGTH"] = str(length)
    return kept


def send(sock: socket.socket, message: bytes) -> None:
    sock.sendall(_FRAME.pack(len(message)))
    sock.sendall(message)


def receive(sock: socket.socket) -> bytes | None:
    """The next message, or None when the other end has closed the socket between two messages."""
    head = _read(sock, _FRAME.size)
    if head is None:
        return None
    message = _read(sock, _FRAME.unpack(head)[0])
    if message is None:
        raise HelperLost("the socket closed in the middle of a message")
    return message


def _read(sock: socket.socket, size: int) -> bytes | None:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(buffer)


# ----- the helper process (started as ``python -m service.api.wsgi.helper``) ----------------------
def run(app: Flask, job: bytes) -> bytes:
    """A job's answer: the status, headers and body of the handler's response, and the markers it left."""
    name, args, kwargs, variables, raw = pickle.loads(job)
    environ: dict[str, Any] = {**variables, "wsgi.input": io.BytesIO(raw), "wsgi.errors": sys.stderr,
                               "wsgi.version": (1, 0), "wsgi.multithread": False, "wsgi.multiprocess": True,
                               "wsgi.run_once": False}
    with app.request_context(environ):
        try:
            response = app.make_response(_HANDLERS[name](*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the app's own error handlers answer it, as in the worker
            response = app.make_response(app.handle_user_exception(exc))
        markers = {k: environ[k] for k in MARKERS if k in environ}
        return pickle.dumps((response.status_code, list(response.headers.items()), response.get_data(), markers),
                            protocol=pickle.HIGHEST_PROTOCOL)


def serve(fd: int, make_app: Callable[[Config], Flask]) -> None:
    """A helper's life: its configuration (``make_app`` builds the app from it: service.app.helper_app), then
    one job after the other until the worker closes the socket."""
    sock = socket.socket(fileno=fd)
    sock.setblocking(True)  # gevent made both ends of the pair non-blocking
    first = receive(sock)
    if first is None:
        return
    app = make_app(pickle.loads(first))
    while (job := receive(sock)) is not None:
        send(sock, run(app, job))
