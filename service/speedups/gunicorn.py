"""gunicorn: the gevent worker reading each request's body within a time limit.

Not a speed-up, but a reach into gunicorn's internals all the same: gunicorn has a timeout for a request's
headers (``keepalive`` under the gevent worker) and none for its body, so a client that sends half a body and
stalls would hold its connection, and its greenlet, for as long as it likes (docs/deployment.md, "Limits and
timeouts"). The public API has no hook between the parsed head and the application, so the worker's
``handle_request`` is overridden: it reads the body into memory within the time limit, or answers 408 and
closes the connection. deploy/gunicorn.conf.py makes the worker class.

Relies on: ``gunicorn.workers.ggevent.GeventWorker.handle_request(listener_name, req, sock, addr)``, called
once a request's head is parsed and before the application runs; the request's body as ``req.body``, a reader
with ``read(size)`` that gunicorn's WSGI environ takes as ``wsgi.input``; and the worker closing the
connection, without an error, when ``handle_request`` raises ``StopIteration``. tests/speedups/test_gunicorn.py
checks each.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any


def timed_gevent_worker(body_timeout: float, max_body: Callable[[], int], timed_out: bytes) -> type:
    """gunicorn's gevent worker, reading each request's body within ``body_timeout`` seconds before the
    application sees it (the application then reads it from memory): a body that stalls gets ``timed_out``
    (a whole HTTP response) and its connection is closed. It reads at most ``max_body()`` bytes and one more
    (the application answers 413 past them); ``max_body`` is asked in the worker, once gevent has patched it."""
    import gevent
    from gunicorn.workers.ggevent import GeventWorker

    class TimedGeventWorker(GeventWorker):  # type: ignore[misc]
        def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
            timer = gevent.Timeout(body_timeout)
            timer.start()
            try:
                req.body = io.BytesIO(req.body.read(max_body() + 1))
            except gevent.Timeout as fired:
                if fired is not timer:
                    raise
                self.log.info("closed a connection whose body stalled (%s)", addr)
                sock.sendall(timed_out)
                raise StopIteration("request body timed out") from None
            finally:
                timer.close()
            return super().handle_request(listener_name, req, sock, addr)

    return TimedGeventWorker
