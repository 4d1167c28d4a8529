"""What a handler tells the serving layer (service/api/wsgi/scheduling.py): a request about to wait gives its turn
back at once, and work after an answer runs once the answer is closed, under gevent off the connection."""
from __future__ import annotations

import gevent
import pytest
from flask import Response
from gevent.lock import Semaphore

from service.api.wsgi import scheduling
from service.api.wsgi.observability import ObservedFlask
from service.api.wsgi.turns import Turns


def app_with_one_turn() -> tuple[ObservedFlask, Semaphore]:
    app = ObservedFlask(__name__)
    app.turns = Turns(max_body=100, turns=1)
    semaphore = app.turns._semaphore = Semaphore(1)  # as under the gevent worker (the test process is not patched)
    return app, semaphore


def test_a_request_about_to_wait_gives_its_turn_back_once() -> None:
    app, semaphore = app_with_one_turn()
    seen: list[int] = []

    @app.post("/wait")
    def wait() -> str:
        seen.append(semaphore.counter)
        scheduling.about_to_wait()
        seen.append(semaphore.counter)
        scheduling.about_to_wait()
        return "ok"

    assert app.test_client().post("/wait", data=b"{}").status_code == 200
    assert seen == [0, 1] and semaphore.counter == 1  # held while working, then given back once for good


def test_work_after_an_answer_runs_once_it_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ObservedFlask(__name__)
    ran: list[str] = []

    @app.get("/answer")
    def answer() -> Response:
        response = Response("ok")
        scheduling.after_response(response, lambda: ran.append("after"))
        return response

    client = app.test_client()
    response = client.get("/answer")
    assert ran == []
    response.close()
    assert ran == ["after"]  # threads: in place, nothing to gain

    monkeypatch.setattr(scheduling, "under_gevent", lambda: True)
    client.get("/answer").close()
    assert ran == ["after"]  # under gevent the connection goes on to its next request first
    gevent.sleep(0)
    assert ran == ["after", "after"]
