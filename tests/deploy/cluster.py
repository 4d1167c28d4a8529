"""Real processes for the deployment tests: gunicorn instances of the service and an nginx in front of them.

Everything runs on 127.0.0.1, on free ports, in temporary directories, as the current user, in the
foreground (never a daemon): the machine's own nginx, if any, is never touched. Each process is started in
a session of its own, so ``kill()`` can SIGKILL a whole gunicorn (master and workers) at once, and
``stop()`` always leaves nothing behind.

    nginx = ensure_nginx()                      # installs Debian's nginx with apt-get when missing
    with Instance(redis_url, env={...}) as a, Nginx(nginx, [a.port, ...]) as proxy:
        ... http://127.0.0.1:{proxy.port} ...
"""
from __future__ import annotations

import fcntl
import http.client
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import atexit
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
APP = "service.app:create_app()"
_LIVE: set[subprocess.Popen[bytes]] = set()   # stopped at exit too, should a fixture's teardown not run


# ----- nginx, installed when missing ----------------------------------------------------
def find_nginx() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                          if os.access(p, os.X_OK)), None)


def ensure_nginx() -> str:
    """The nginx binary; installs Debian's ``nginx`` package with apt-get (as root) when there is none.

    Like tests/run.sh does for redis-server, so that a fresh CI machine needs nothing by hand. A lock file
    keeps two pytest workers from running apt-get at once. The package's own service is not started
    (a temporary policy-rc.d says no, if the machine has none), so port 80 stays untouched.
    """
    found = find_nginx()
    if found:
        return found
    if os.geteuid() != 0:
        raise RuntimeError("nginx is not installed and this is not root: run 'sudo apt-get install -y nginx' "
                           "(the scale-out test starts its own nginx on a free port)")
    with open(os.path.join(tempfile.gettempdir(), "card-referee-nginx-install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = find_nginx()
        if found:
            return found
        policy = Path("/usr/sbin/policy-rc.d")
        made_policy = not policy.exists()
        if made_policy:
            policy.write_text("#!/bin/sh\nexit 101\n")
            policy.chmod(0o755)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        try:
            for cmd in (["apt-get", "update", "-qq"],
                        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nginx"]):
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
                if done.returncode != 0:
                    raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
        finally:
            if made_policy:
                policy.unlink(missing_ok=True)
    found = find_nginx()
    if not found:
        raise RuntimeError("apt-get installed nginx but no nginx binary was found")
    return found


# ----- processes ------------------------------------------------------------------------
def _wait_http(url: str, proc: subprocess.Popen[bytes], seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"{what} did not come up (exit {proc.poll()}):\n{tail}")
        time.sleep(0.1)


def _end(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, grace: float = 15) -> None:
    """Signal the process's whole group (it leads a session of its own) and reap it; SIGKILL if slow."""
    if proc is None:
        return
    _LIVE.discard(proc)
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)
    # Workers are reaped by their master; after a SIGKILL of the master they are orphans: kill the group
    # again so none survives it.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def group_alive(pgid: int, settle: float = 5) -> bool:
    """Whether any live process of the group is still there after up to ``settle`` seconds."""
    deadline = time.monotonic() + settle
    while group_members(pgid):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)
    return False


class Instance:
    """One service instance: ``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'`` on a free
    port, configured only by environment variables (as in production), stdout (the JSON request log) and
    stderr (gunicorn's own log) written to files, and a PROMETHEUS_MULTIPROC_DIR of its own."""

    def __init__(self, redis_url: str, env: Mapping[str, str] | None = None, name: str = "referee",
                 workers: int = 1, threads: int = 4) -> None:
        self.name = name
        self.dir = Path(tempfile.mkdtemp(prefix=f"cr-{name}-"))
        self.metrics_dir = self.dir / "metrics"
        self.stdout_path, self.stderr_path = self.dir / "stdout.log", self.dir / "stderr.log"
        self.port = 0
        self.env = {**{k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"},
                    "REDIS_URL": redis_url, "HOST": "127.0.0.1", "WEB_CONCURRENCY": str(workers),
                    "GUNICORN_THREADS": str(threads), "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir),
                    "LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1", **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.killed = False

    def spawn(self) -> Instance:
        """Start gunicorn (returns at once; ``ready()`` waits for it)."""
        self.port = free_port()
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), APP],
                cwd=ROOT, env={**self.env, "PORT": str(self.port)}, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, start_new_session=True)
        _LIVE.add(self.proc)
        return self

    def ready(self, seconds: float = 40) -> Instance:
        """Wait until /healthz answers; once more on another port if the free port was taken meanwhile."""
        for attempt in range(3):
            assert self.proc is not None
            try:
                _wait_http(f"http://127.0.0.1:{self.port}/healthz", self.proc, seconds, f"gunicorn {self.name}",
                           self.stderr_path)
                return self
            except RuntimeError:
                self.stop()
                if attempt == 2 or "Address already in use" not in self.stderr_path.read_text(errors="replace"):
                    raise
                self.spawn()
        raise AssertionError("unreachable")

    def kill(self) -> None:
        """SIGKILL the master and its workers at once, as a crash or an OOM kill would."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        _LIVE.discard(self.proc)
        self.killed = True

    def stop(self) -> None:
        _end(self.proc)

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_lines(self) -> list[str]:
        return [line for p in (self.stdout_path, self.stderr_path) if p.exists()
                for line in p.read_text(errors="replace").splitlines()]

    def json_records(self) -> list[dict[str, Any]]:
        """The structured lines of stdout (the request log)."""
        out = []
        if self.stdout_path.exists():
            for line in self.stdout_path.read_text(errors="replace").splitlines():
                if line.startswith("{"):
                    out.append(json.loads(line))
        return out

    def __enter__(self) -> Instance:
        return self.spawn().ready()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.cleanup()


NGINX_CONF = """\
# Generated by tests/deploy/cluster.py: a private nginx in front of the referee instances.
{user}worker_processes 1;
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;

events {{
    worker_connections 512;
}}

http {{
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    # Keep the client's X-Request-ID (the service echoes and logs it); make one when there is none.
    map $http_x_request_id $rid {{
        default $http_x_request_id;
        ""      $request_id;
    }}
    # No header values (no Authorization), no bodies: the request line, who answered and the request id.
    log_format referee '$remote_addr [$time_iso8601] "$request" $status rid=$rid '
                       'upstream=$upstream_addr upstream_status=$upstream_status rt=$request_time';
    access_log {dir}/access.log referee;

    upstream referee {{
{servers}
    }}

    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 4m;

        location / {{
            proxy_pass http://referee;
            proxy_set_header Host $host;
            proxy_set_header X-Request-ID $rid;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # A connection refused or a connect/read timeout moves the request to the next instance.
            # nginx does this for a POST only while nothing of it has reached an instance (no
            # non_idempotent here): a POST cut off mid-way by a dying instance is answered 502 and the
            # client sends it again with the same Idempotency-Key (docs/scale-out.md).
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
            proxy_next_upstream_timeout 10s;
            proxy_connect_timeout 2s;
            proxy_send_timeout 10s;
            proxy_read_timeout 40s;     # longer than LONG_POLL_MAX: a long-poll is not a timeout
        }}
    }}
}}
"""


class Nginx:
    """nginx in the foreground with a generated configuration, its own prefix, pid file and logs."""

    def __init__(self, binary: str, upstream_ports: list[int]) -> None:
        self.binary = binary
        self.upstream_ports = upstream_ports
        self.dir = Path(tempfile.mkdtemp(prefix="cr-nginx-"))
        self.dir.chmod(0o755)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def conf_path(self) -> Path:
        return self.dir / "nginx.conf"

    def config(self) -> str:
        # The user directive counts only when the master runs as root: then the worker stays this user too.
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;"
                            for p in self.upstream_ports)
        return NGINX_CONF.format(user=user, dir=self.dir, port=self.port, servers=servers)

    def start(self) -> Nginx:
        for _ in range(5):
            self.port = free_port()
            self.conf_path.write_text(self.config())
            check = subprocess.run([self.binary, "-t", "-p", str(self.dir), "-c", str(self.conf_path),
                                    "-e", str(self.dir / "error.log")], capture_output=True, text=True,
                                   timeout=30, check=False)
            if check.returncode != 0:
                raise RuntimeError(f"nginx -t refused the generated configuration:\n{check.stderr}")
            with open(self.dir / "stderr.log", "ab") as err:
                self.proc = subprocess.Popen(
                    [self.binary, "-p", str(self.dir), "-c", str(self.conf_path), "-e", str(self.dir / "error.log")],
                    stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
                _LIVE.add(self.proc)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        return self
                except OSError:
                    time.sleep(0.05)
            _end(self.proc, grace=5)  # the port was taken meanwhile: try another
        raise RuntimeError(f"nginx did not start: {(self.dir / 'error.log').read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        _end(self.proc, signal.SIGQUIT, grace=10)  # SIGQUIT: graceful shutdown

    def access_lines(self) -> list[str]:
        path = self.dir / "access.log"
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def log_lines(self) -> list[str]:
        return [line for name in ("access.log", "error.log", "stderr.log") if (self.dir / name).exists()
                for line in (self.dir / name).read_text(errors="replace").splitlines()]

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Nginx:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.cleanup()


@atexit.register
def _stop_all() -> None:
    for proc in list(_LIVE):
        _end(proc, signal.SIGKILL, grace=5)


# ----- a small HTTP client that retries what is safe to retry -------------------------------
RETRY_STATUS = (502, 503, 504)


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: Any, request_id: str, attempts: int) -> None:
        self.status, self.headers, self.body = status, headers, body
        self.request_id, self.attempts = request_id, attempts

    def __repr__(self) -> str:
        return f"Answer({self.status}, {self.body!r:.300})"


class Client:
    """HTTP/1.1 keep-alive to one address. ``call`` sends a request with its own X-Request-ID per attempt
    and sends it again (same body, same headers, so the same Idempotency-Key) after a connection error,
    a timeout or a 502/503/504, for at most ``deadline`` seconds."""

    def __init__(self, port: int, timeout: float = 20) -> None:
        self.port, self.timeout = port, timeout
        self.conn: http.client.HTTPConnection | None = None
        self.retries = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def once(self, method: str, path: str, data: bytes | None, headers: dict[str, str]
             ) -> tuple[int, dict[str, str], Any]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        if resp.getheader("Connection", "").lower() == "close":
            self.close()
        ctype = resp.getheader("Content-Type", "")
        body = json.loads(raw) if raw and "json" in ctype else raw.decode(errors="replace")
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             request_id: str = "", deadline: float = 60) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        base = {**(headers or {}), **({"Content-Type": "application/json"} if data is not None else {})}
        stop = time.monotonic() + deadline
        attempt = 0
        while True:
            attempt += 1
            rid = f"{request_id or os.urandom(8).hex()}.{attempt}"
            try:
                status, hdrs, answer = self.once(method, path, data, {**base, "X-Request-ID": rid})
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if time.monotonic() > stop:
                    raise RuntimeError(f"{method} {path}: no answer after {attempt} attempts: {exc!r}") from exc
            else:
                if status not in RETRY_STATUS or time.monotonic() > stop:
                    return Answer(status, hdrs, answer, rid, attempt)
            self.retries += 1
            time.sleep(min(0.05 * attempt, 0.5))
