"""A private redis-server for tests: on a free port of 127.0.0.1, in its own temporary directory.

Never the machine's default instance. Tests may kill it (SIGKILL), freeze it (SIGSTOP) and start it again
on the same port and directory, with append-only persistence when they need the data to survive.

    with RedisServer(appendonly=True) as server:
        url = server.url
        server.kill(); server.start()
"""
from __future__ import annotations

import atexit
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

BINARY = shutil.which("redis-server") or "/usr/bin/redis-server"
_LIVE: set[RedisServer] = set()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    def __init__(self, appendonly: bool = False) -> None:
        if not Path(BINARY).exists():
            raise RuntimeError("redis-server is not installed (tests/run.sh installs it with apt-get)")
        self.appendonly = appendonly
        self.dir = Path(tempfile.mkdtemp(prefix="cr-redis-"))
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start (or restart on the same port and directory); returns once it answers PING."""
        restart = self.port != 0
        for _ in range(5):
            if not restart:
                self.port = free_port()
            args = [BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                    "--save", "", "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "everysec",
                    "--daemonize", "no", "--logfile", str(self.dir / "redis.log"), "--protected-mode", "yes"]
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _LIVE.add(self)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _ping(self.port):
                    return self
                time.sleep(0.02)
            self._reap()  # the port was taken meanwhile: try another (a restart retries the same one)
        raise RuntimeError(f"redis-server did not start; see {self.dir / 'redis.log'}")

    def kill(self) -> None:
        """SIGKILL: no shutdown save; only what the append-only file already holds survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self._reap()

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
        self._reap()
        _LIVE.discard(self)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _reap(self) -> None:
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop()
