"""The client package's tests run against the real service, in this process, on a free loopback port.

The service is the repository's (``service.app.create_app``) with its in-process store; the client only speaks
HTTP to it, exactly as it would to a deployed service.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from card_referee_client import Client


@pytest.fixture(scope="session")
def service_url() -> Iterator[str]:
    from service.app import create_app
    from service.config import Config

    app = create_app(Config(testing=True, log_level="WARNING", session_quota=None, long_poll_max=5.0,
                            events_heartbeat=1.0))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="service", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        app.extensions["timeout_applier"].stop()


@pytest.fixture
def client(service_url: str) -> Iterator[Client]:
    c = Client(service_url)
    yield c
    c.close()
