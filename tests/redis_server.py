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
from typing import Self

BINARY = shutil.which("redis-server") or "/usr/bin/redis-server"
CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
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
    def __init__(self, appendonly: bool = False, extra: list[str] | None = None) -> None:
        if not Path(BINARY).exists():
            raise RuntimeError("redis-server is not installed (tests/run.sh installs it with apt-get)")
        self.appendonly = appendonly
        self.extra = extra or []  # more redis-server arguments (a cluster node's)
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
                    "--daemonize", "no", "--logfile", str(self.dir / "redis.log"), "--protected-mode", "yes",
                    *self.extra]
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


class _Servers:
    """Several servers started together: stopped all at once, also when starting them fails halfway."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LocalCluster(_Servers):
    """A Redis Cluster on 127.0.0.1: ``masters`` masters, each with one replica, on free ports (the cluster bus
    on free ports too), a short node timeout so that a dead master's replica takes over within seconds.

        with LocalCluster() as cluster:
            url = cluster.url                   # any node: clients discover the rest
            cluster.master_of(key).kill()       # the master serving a key's slot
    """

    def __init__(self, masters: int = 3, node_timeout_ms: int = 1000) -> None:
        self.nodes: list[RedisServer] = []
        for _ in range(2 * masters):
            self.nodes.append(RedisServer(appendonly=True, extra=[
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms), "--cluster-port", str(free_port()),
                "--cluster-replica-validity-factor", "0"]))

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self) -> LocalCluster:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
        made = subprocess.run([CLI, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
                              capture_output=True, text=True, timeout=60, check=False)
        if made.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {made.stdout[-1000:]} {made.stderr[-1000:]}")
        self.wait_healthy(30)
        return self

    def call(self, node: RedisServer, *args: str) -> str:
        return subprocess.run([CLI, "-p", str(node.port), *args], capture_output=True, text=True, timeout=10,
                              check=False).stdout

    def wait_healthy(self, seconds: float) -> None:
        """Until every live node says the cluster is ok and every live replica is in sync with its master."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            live = [n for n in self.nodes if n.proc is not None]
            if all("cluster_state:ok" in self.call(n, "CLUSTER", "INFO") for n in live) and all(
                    "master_link_status:up" in info for n in live
                    if "role:slave" in (info := self.call(n, "INFO", "replication"))):
                return
            time.sleep(0.1)
        raise RuntimeError("the cluster did not become healthy")

    def master_of(self, key: str) -> RedisServer:
        slot = int(self.call(self.nodes[0], "CLUSTER", "KEYSLOT", key).strip())
        for line in self.call(self.nodes[0], "CLUSTER", "NODES").splitlines():
            fields = line.split()
            if "master" in fields[2] and "fail" not in fields[2]:
                for span in fields[8:]:
                    low, _, high = span.partition("-")
                    if low.isdigit() and int(low) <= slot <= int(high or low):
                        port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
                        return next(n for n in self.nodes if n.port == port)
        raise RuntimeError(f"no master serves slot {slot}")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()



class LocalSentinel(_Servers):
    """A master, one replica and one sentinel (quorum 1) on 127.0.0.1, with a short down-after time so that a
    dead master is replaced within seconds. ``master()`` is whichever server is the master now.

        with LocalSentinel() as s:
            s.sentinels            # [("127.0.0.1", port)]
            s.master().kill()
    """

    NAME = "referee"

    def __init__(self) -> None:
        self.servers = [RedisServer(appendonly=True)]
        self.dir = Path(tempfile.mkdtemp(prefix="cr-sentinel-"))
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def sentinels(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", self.port)]

    def start(self) -> LocalSentinel:
        first = self.servers[0].start()
        self.servers.append(RedisServer(appendonly=True, extra=["--replicaof", "127.0.0.1", str(first.port)]).start())
        self.port = free_port()
        conf = self.dir / "sentinel.conf"
        conf.write_text(f"port {self.port}\nbind 127.0.0.1\ndir {self.dir}\n"
                        f"sentinel monitor {self.NAME} 127.0.0.1 {first.port} 1\n"
                        f"sentinel down-after-milliseconds {self.NAME} 1000\n"
                        f"sentinel failover-timeout {self.NAME} 5000\n")
        self.proc = subprocess.Popen([BINARY, str(conf), "--sentinel", "--logfile", str(self.dir / "sentinel.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            replicas = self.call("SENTINEL", "REPLICAS", self.NAME)
            if str(self.servers[1].port) in replicas and "master_link_status:up" in subprocess.run(
                    [CLI, "-p", str(self.servers[1].port), "INFO", "replication"], capture_output=True, text=True,
                    timeout=10, check=False).stdout:
                return self
            time.sleep(0.1)
        raise RuntimeError(f"the sentinel did not see the replica; see {self.dir}")

    def call(self, *args: str) -> str:
        return subprocess.run([CLI, "-p", str(self.port), *args], capture_output=True, text=True, timeout=10,
                              check=False).stdout

    def master(self) -> RedisServer:
        port = int(self.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.NAME).split()[1])
        return next(s for s in self.servers if s.port == port)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)



@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop()
