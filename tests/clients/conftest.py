"""Clients in other languages against the real service: a served instance on a free loopback port, and the
TypeScript package (clients/typescript) with its pinned dependencies installed (``npm ci``) once."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    from service.app import create_app
    from service.config import Config

    # A short EVENTS_MAX: the TypeScript event iterator's reconnection with Last-Event-ID is met in its tests.
    app = create_app(Config(testing=True, log_level="WARNING", session_quota=None, long_poll_max=5.0,
                            events_heartbeat=1.0, events_max=3.0))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="service", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        app.extensions["timeout_applier"].stop()


def installed() -> bool:
    """Whether node_modules holds what package-lock.json pins (npm writes its own copy of the lock there)."""
    lock, copy = TS / "package-lock.json", TS / "node_modules" / ".package-lock.json"
    return copy.exists() and copy.stat().st_mtime >= lock.stat().st_mtime


@pytest.fixture(scope="session")
def typescript() -> Path:
    """clients/typescript with node_modules as package-lock.json pins it (``npm ci``; node_modules is ignored
    by git). A lock file keeps two test workers from installing at once."""
    if shutil.which("npm") is None:
        pytest.fail("npm is needed for the TypeScript client's tests (Node.js 20 or later)")
    with open(Path(tempfile.gettempdir()) / "card-referee-npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=TS, check=True,
                           env={**os.environ, "npm_config_update_notifier": "false"})
    return TS


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=300)
