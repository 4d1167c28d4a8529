"""Helper processes for costly requests under gunicorn (deploy/gunicorn.conf.py, service/api/wsgi/offload.py):
each worker starts COSTLY_HELPERS of them under SCHED_IDLE, a replay is answered through them with the bytes
the app answers in place, and they end with gunicorn.

Real processes on free ports; deadlines only keep a broken run from hanging."""
from __future__ import annotations

import base64
import http.client
import os
import signal
import subprocess
from pathlib import Path

import orjson

from service.app import create_app
from service.config import Config
from tests.deploy.test_serving import ROOT, alive, answers, descendants, wait_until
from tests.redis_server import free_port

KEY = b"helpers under gunicorn, 32 bytes"
REPLAY = {"players": 3, "seed": "c0ffee", "moves": [{"seat": 1, "action": "play", "card": "TH"}]}


def helper_pids(master: int) -> list[int]:
    return [pid for pid in descendants(master) if b"service.api.wsgi.helper" in _cmdline(pid)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_each_worker_has_its_idle_helpers_which_answer_as_the_app_and_end_with_gunicorn(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PORT=str(port), HOST="127.0.0.1", WEB_CONCURRENCY="2", COSTLY_HELPERS="2", LOG_LEVEL="WARNING",
               STATE_TAG_KEY=base64.urlsafe_b64encode(KEY).decode(), PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
                             "service.app:create_app()"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(lambda: answers(port), 120, "gunicorn answering /healthz")
        wait_until(lambda: len(helper_pids(proc.pid)) == 4, 60, "two helpers for each of the two workers")
        helpers = helper_pids(proc.pid)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        conn.request("POST", "/v1/games/femkort/replay", orjson.dumps(REPLAY), {"Content-Type": "application/json"})
        served = conn.getresponse()
        body = served.read()
        conn.close()
        in_place = create_app(Config(state_tag_key=KEY, testing=True, log_level="WARNING")).test_client().post(
            "/v1/games/femkort/replay", json=REPLAY)
        assert (served.status, served.getheader("Content-Type"), body) == (
            in_place.status_code, in_place.content_type, in_place.get_data())
        assert all(os.sched_getscheduler(pid) == os.SCHED_IDLE for pid in helpers)
        proc.terminate()  # the master alone: its workers stop their helpers
        proc.wait(timeout=60)
        wait_until(lambda: not any(alive(pid) for pid in helpers), 60, "every helper ending")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
