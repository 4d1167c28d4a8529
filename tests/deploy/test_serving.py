"""Serving (issue 32): deploy/serve.sh listens on 127.0.0.1 unless told otherwise and stops everything it
started on TERM; the gevent worker closes connections that stall before their headers or in their body.

Real processes on free ports. Deadlines here only keep a broken run from hanging: a loaded machine makes
them slower, never wrong; what is asserted is what happened (closed, answered 408, gone)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 300  # seconds: serve.sh may first install the runtime dependencies into the venv


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid``, with its command name, read from /proc."""
    parents: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            parents[int(entry.name)] = (int(stat[stat.rindex(")") + 2:].split()[1]), name)
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, name) in parents.items():
            if ppid == parent and child not in found:
                found[child] = name
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_until(check, deadline: float, what: str) -> None:  # noqa: ANN001 - a predicate
    end = time.monotonic() + deadline
    while not check():
        assert time.monotonic() < end, f"{what} did not happen within {deadline} s"
        time.sleep(0.2)


def answers(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=5) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def listening_addresses(port: int) -> set[str]:
    """The local IPv4 addresses a socket listens on at ``port`` (from /proc/net/tcp; state 0A is LISTEN)."""
    out = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        address, hexport = fields[1].split(":")
        if int(hexport, 16) == port and fields[3] == "0A":
            out.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return out


def test_serve_sh_listens_on_localhost_and_stops_gunicorn_and_its_redis_on_term(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HOST")}
    env.update(PORT=str(port), WEB_CONCURRENCY="1", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([str(ROOT / "deploy" / "serve.sh")], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        wait_until(lambda: answers(port), STARTUP, "serve.sh answering /healthz")
        started = descendants(proc.pid)
        assert "redis-server" in started.values() and any("gunicorn" in n for n in started.values()), started
        assert listening_addresses(port) == {"127.0.0.1"}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
        wait_until(lambda: not any(alive(pid) for pid in started), 60, "every process serve.sh started stopping")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    assert not answers(port)


@pytest.fixture(scope="module")
def gunicorn_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The service under gunicorn with the shipped settings (gevent), timeouts of 1 s for headers and body."""
    port = free_port()
    metrics = tmp_path_factory.mktemp("metrics")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PORT=str(port), HOST="127.0.0.1", WEB_CONCURRENCY="1", HEADER_TIMEOUT="1", BODY_TIMEOUT="1",
               PROMETHEUS_MULTIPROC_DIR=str(metrics))
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
                             "service.app:create_app()"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(lambda: answers(port), 120, "gunicorn answering /healthz")
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def until_closed(port: int, sent: bytes) -> tuple[float, bytes]:
    """Send ``sent``, then read until the server closes the connection: how long that took, what came."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(120)  # a server that never closes fails here instead of hanging the run
        sock.sendall(sent)
        began, received = time.monotonic(), b""
        while chunk := sock.recv(65536):
            received += chunk
        return time.monotonic() - began, received


def test_a_connection_stalled_in_its_headers_is_closed_after_the_header_timeout(gunicorn_port: int) -> None:
    took, received = until_closed(gunicorn_port, b"POST /v1/games/femkort/new HTTP/1.1\r\nHost: x\r\n")
    assert received == b"" and took >= 0.9


def test_a_connection_stalled_in_its_body_is_answered_408_and_closed(gunicorn_port: int) -> None:
    took, received = until_closed(gunicorn_port, b"POST /v1/games/femkort/new HTTP/1.1\r\nHost: x\r\n"
                                                 b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    assert received.startswith(b"HTTP/1.1 408 ") and b'"code":"request_timeout"' in received and took >= 0.9


def test_a_whole_request_is_still_served(gunicorn_port: int) -> None:
    body = b'{"players": 3, "seed": "c0ffee"}'
    _, received = until_closed(gunicorn_port, b"POST /v1/games/femkort/new HTTP/1.1\r\nHost: x\r\nConnection: close"
                                              b"\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                                              % (len(body), body))
    assert received.startswith(b"HTTP/1.1 201 ")
