"""The tournament page (``/tournaments/{id}``) in Chromium, against a stand-in for the tournament API that
answers the documented JSON shape and event stream: the page shows the standings with ratings, the current
round's tables linking to ``/table/{session}``, the entries' presence and the progress with the time left, and
reads the tournament again after each event. tests/tournament/test_hosted_swiss.py checks the same page against
the real service during a hosted tournament.
"""
from __future__ import annotations

import copy
import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, Response, abort
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from werkzeug.serving import make_server

from service.web.tournament import bp as tournament_bp

TID = "t-fixture_1"
SESSION = "S" * 22
TOURNAMENT: dict[str, Any] = {
    "id": TID, "name": "fixture swiss", "status": "running", "description": {},
    "entries": [{"bot": "b1", "name": "alice", "status": "active", "connected": True},
                {"bot": "b2", "name": "bob", "status": "active", "connected": False},
                {"bot": "b3", "name": "<b>carol</b>", "status": "withdrawn", "connected": False}],
    "rounds": [{"index": 1, "game": "femkort/2", "byes": ["b3"],
                "tables": [{"match": "r0t0", "bots": ["b1", "b2"], "session": SESSION,
                            "table": f"/table/{SESSION}", "result": None}]}],
    "standings": [{"rank": 1, "bot": "b1", "points": 1.5, "duplicate": 2.0, "payoff": 4, "buchholz": 0.5,
                   "matches": 2, "byes": 0, "forfeits": 0, "rating": {"mu": 27.1, "sigma": 7.9, "ordinal": 3.4,
                                                                     "matches": 2}},
                  {"rank": 2, "bot": "b2", "points": 0.5, "duplicate": 0.0, "payoff": -4, "buchholz": 1.5,
                   "matches": 2, "byes": 0, "forfeits": 1, "rating": None}],
    "progress": {"done": 2, "total": 6, "eta_s": 40},
    "incidents": [{"bot": "b2", "kind": "timeout", "match": "r0t0", "detail": "out of time"}],
}


class StandIn:
    """The tournament's JSON and its event stream, changed by the test."""

    def __init__(self) -> None:
        self.tournament = copy.deepcopy(TOURNAMENT)
        self.listeners: list[queue.Queue[str]] = []
        self.lock = threading.Lock()

    def publish(self, event: str, data: dict[str, Any]) -> None:
        with self.lock:
            for q in self.listeners:
                q.put(f"event: {event}\ndata: {json.dumps(data)}\n\n")

    def app(self) -> Flask:
        app = Flask(__name__)
        app.register_blueprint(tournament_bp)

        @app.get("/v1/tournaments/<tid>")
        def get(tid: str) -> Any:
            if tid != TID:
                return Response(json.dumps({"code": "not_found", "detail": "No such tournament."}), 404,
                                mimetype="application/problem+json")
            with self.lock:
                return copy.deepcopy(self.tournament)

        @app.get("/v1/tournaments/<tid>/events")
        def events(tid: str) -> Response:
            if tid != TID:
                abort(404)
            q: queue.Queue[str] = queue.Queue()
            with self.lock:
                self.listeners.append(q)

            def stream() -> Iterator[str]:
                yield ": hello\n\n"
                while True:
                    try:
                        yield q.get(timeout=1)
                    except queue.Empty:
                        yield ": heartbeat\n\n"
            return Response(stream(), mimetype="text/event-stream")
        return app


@pytest.fixture(scope="module")
def stand_in() -> Iterator[tuple[str, StandIn]]:
    api = StandIn()
    httpd = make_server("127.0.0.1", 0, api.app(), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", api
    finally:
        httpd.shutdown()
        thread.join(5)


def text(driver: webdriver.Chrome, css: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def test_the_page_shows_the_tournament_and_follows_its_events(stand_in: tuple[str, StandIn],
                                                              browser: webdriver.Chrome) -> None:
    base, api = stand_in
    driver = browser
    driver.get(f"{base}/tournaments/{TID}")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.live") == "true")
    assert driver.find_element(By.ID, "title").text == "fixture swiss"
    assert text(driver, "#standings tbody tr td:nth-child(2)") == ["alice", "bob"]
    assert text(driver, "#standings tbody tr:first-child td")[-1] == "3.4"       # the rating's ordinal
    assert text(driver, "#standings tbody tr:first-child td")[2] == "1.5"
    link = driver.find_element(By.CSS_SELECTOR, "#tables a.table-link")
    assert link.get_attribute("href") == f"{base}/table/{SESSION}"
    assert "alice - bob" in driver.find_element(By.CSS_SELECTOR, "#tables li").text
    assert driver.find_element(By.ID, "round-title").text == "Round 1: femkort/2"
    assert "Sitting out: <b>carol</b>" in driver.find_element(By.ID, "byes").text  # text, never markup
    assert not driver.find_elements(By.CSS_SELECTOR, "#entries b")
    assert [e.get_attribute("title") for e in driver.find_elements(By.CSS_SELECTOR, "#entries li")] == \
        ["connected", "not connected", "not connected"]
    assert driver.find_element(By.ID, "progress").text == "2 of 6 matches played, about 40 s left"
    assert "bob: timeout: r0t0: out of time" in text(driver, "#incidents li")

    # A match ends: the page reads the tournament again on the event.
    before = int(driver.execute_script("return document.body.dataset.refreshes"))
    with api.lock:
        api.tournament["rounds"][0]["tables"][0]["result"] = {"payoffs": [1, -1], "ended_by": "play"}
        api.tournament["standings"].reverse()
        api.tournament["progress"] = {"done": 3, "total": 6, "eta_s": 150}
    api.publish("match_ended", {"tournament": TID, "match": "r0t0"})
    WebDriverWait(driver, 10).until(
        lambda d: int(d.execute_script("return document.body.dataset.refreshes")) > before
        and d.find_element(By.ID, "progress").text.startswith("3 of 6"))
    assert driver.find_element(By.ID, "progress").text == "3 of 6 matches played, about 3 min left"
    assert text(driver, "#standings tbody tr td:nth-child(2)") == ["bob", "alice"]
    assert driver.find_element(By.CSS_SELECTOR, "#tables .result").text == "1 : -1"

    # Finished: the page says so and lets go of the stream.
    with api.lock:
        api.tournament["status"] = "finished"
        api.tournament["progress"] = {"done": 6, "total": 6, "eta_s": 0}
    api.publish("tournament_finished", {"tournament": TID})
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.status") == "finished")
    assert driver.execute_script("return document.body.dataset.live") == "false"
    assert driver.find_element(By.ID, "progress").text == "6 of 6 matches played, finished"


def test_an_unknown_tournament_says_so(stand_in: tuple[str, StandIn], browser: webdriver.Chrome
                                       ) -> None:
    base, _ = stand_in
    browser.get(f"{base}/tournaments/nope")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "message").is_displayed())
    assert browser.find_element(By.ID, "message").text == "No such tournament."


def test_the_route_serves_the_page_with_the_table_views_headers(stand_in: tuple[str, StandIn]) -> None:
    app = stand_in[1].app().test_client()
    page = app.get(f"/tournaments/{TID}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert app.get("/tournaments/static/tournament.js").status_code == 200
    assert app.get("/tournaments/a%2Fb").status_code == 404
    assert app.get("/tournaments/" + "x" * 65).status_code == 404
