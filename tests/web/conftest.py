"""Fixtures of the browser tests: one served app with a private Redis and one browser per test module."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from selenium import webdriver
from werkzeug.serving import make_server

from tests.web.browsing import CHROMEDRIVER, CHROMIUM, Shots, Tap, start_browser


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Flask, Tap]]:
    from service.app import create_app
    from service.config import Config
    from tests.redis_server import RedisServer

    with RedisServer() as redis:
        app = create_app(Config(redis_url=redis.url, key_prefix="table:", session_quota=None, log_level="WARNING",
                                events_heartbeat=2.0))
        tap = Tap(app)
        httpd = make_server("127.0.0.1", 0, tap, threaded=True)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{httpd.server_port}", app, tap
        finally:
            httpd.shutdown()
            thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("chromium and chromium-driver are not installed: tests/run.sh installs them with apt-get")
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Shots:
    return Shots(tmp_path_factory.mktemp("screenshots"))
