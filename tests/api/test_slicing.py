"""A long request under gevent (a replay's moves, a match's explicit deals) works in slices, and between two
slices its worker polls its sockets: a request waiting on another connection is served after a slice or two,
not after the 50 slices gevent runs from its callback queue before it polls (what ``sleep(0)`` gave)."""
from __future__ import annotations

import pytest

from service.api.wsgi import limits

gevent = pytest.importorskip("gevent")


def test_a_waiting_connection_is_served_between_two_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    from gevent import socket

    monkeypatch.setattr(limits, "SLICE_SECONDS", 0.0)  # every step ends a slice: the test counts slices
    monkeypatch.setattr(limits, "under_gevent", lambda: True)
    ours, theirs = socket.socketpair()
    slices = 0
    served: list[int] = []

    def waiting_connection() -> None:
        ours.recv(1)
        served.append(slices)

    def long_request() -> None:
        nonlocal slices
        slicer = limits.Slicer()
        while not served and slices < 500:
            slicer.step()
            slices += 1

    waiter = gevent.spawn(waiting_connection)
    gevent.idle()  # the waiter is now blocked on its socket
    theirs.sendall(b"x")  # its request is in: the worker's next poll sees it
    gevent.spawn(long_request).join()
    waiter.join()
    ours.close()
    theirs.close()
    assert served and served[0] <= 2, f"the waiting connection was served after {served} slices"
