"""Load generators, each in its own process: wrk (preferred) or a small Python one (fallback).

Both replay a list of prepared raw HTTP/1.1 requests over ``connections`` keep-alive connections for
``seconds``, in order and cycling, and report requests/s and latency percentiles (microseconds):

- wrk (https://github.com/wg/wrk, ``apt-get install wrk``): one wrk thread; bench/replay.lua reads the
  requests from a file and hands them out in order, whichever connection asks next. wrk is a closed loop
  (each connection sends its next request when the previous answer is in), like the Python one.
- Python fallback (``python -m bench.loadgen``): ``processes`` processes with threads, one blocking
  keep-alive socket per connection; connection j sends requests j, j+c, j+2c, ... It is much slower
  than wrk and takes more CPU from the server on the same machine, so its ratios are less faithful.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

LUA = Path(__file__).resolve().parent / "replay.lua"


def raw_request(method: str, path: str, body: bytes, headers: dict[str, str] | None = None) -> bytes:
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
            f"Content-Length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def write_requests(requests: list[bytes], path: Path) -> None:
    with open(path, "wb") as f:
        for r in requests:
            f.write(b"%d\n" % len(r))
            f.write(r)


def have_wrk() -> bool:
    return shutil.which("wrk") is not None


def ensure_wrk(log: Any = print) -> bool:
    """wrk on PATH; installs it with apt-get when missing and we are root. False when it cannot be had."""
    if have_wrk():
        return True
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return False
    log("wrk not found: installing it with apt-get")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "install", "-y", "-qq", "wrk"], ["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "wrk"]):
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False)
        if have_wrk():
            return True
    return False


def run(port: int, requests: list[bytes], connections: int, seconds: float, tool: str,
        workdir: Path) -> dict[str, Any]:
    """One load run; returns {"rps", "p50_ms", "p90_ms", "p99_ms", "requests", "errors", ...}."""
    fd, name = tempfile.mkstemp(suffix=".req", dir=workdir)
    os.close(fd)
    path = Path(name)
    write_requests(requests, path)
    try:
        if tool == "wrk":
            return _wrk(port, path, connections, seconds)
        return _python(port, path, connections, seconds)
    finally:
        path.unlink(missing_ok=True)


def _wrk(port: int, path: Path, connections: int, seconds: float) -> dict[str, Any]:
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s", "-s", str(LUA),
           f"http://127.0.0.1:{port}/", "--", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60, check=False)
    line = [x for x in out.stdout.splitlines() if x.startswith("{\"bench\"")]
    if not line:
        raise RuntimeError(f"wrk failed: {out.stdout[-500:]} {out.stderr[-500:]}")
    r = json.loads(line[-1])
    return _summary(r["requests"], r["duration_us"] / 1e6, r["p50_us"], r["p90_us"], r["p99_us"], r["mean_us"],
                    r["errors_status"] + r["errors_connect"] + r["errors_read"] + r["errors_write"]
                    + r["errors_timeout"], "wrk")


def _summary(n: int, secs: float, p50: float, p90: float, p99: float, mean: float, errors: int,
             tool: str) -> dict[str, Any]:
    return {"rps": round(n / secs, 1), "p50_ms": round(p50 / 1000, 3), "p90_ms": round(p90 / 1000, 3),
            "p99_ms": round(p99 / 1000, 3), "mean_ms": round(mean / 1000, 3), "requests": n,
            "seconds": round(secs, 2), "errors": errors, "tool": tool}


# ----- the Python fallback -------------------------------------------------------------------------------
def _python(port: int, path: Path, connections: int, seconds: float) -> dict[str, Any]:
    processes = max(1, min(2, connections))
    per = [list(range(j, connections, processes)) for j in range(processes)]
    procs = [subprocess.Popen([sys.executable, "-m", "bench.loadgen", str(port), str(path), str(connections),
                               ",".join(map(str, conns)), str(seconds)],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])
             for conns in per]
    lat: list[int] = []
    n = errors = 0
    secs = seconds
    for p in procs:
        out, _ = p.communicate(timeout=seconds + 60)
        r = json.loads(out.strip().splitlines()[-1])
        lat.extend(r["lat_us"])
        n += r["n"]
        errors += r["errors"]
        secs = max(secs, r["seconds"])
    lat.sort()

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(len(lat) * p / 100))] if lat else 0.0
    return _summary(n, secs, pct(50), pct(90), pct(99), sum(lat) / len(lat) if lat else 0.0, errors, "python")


def _read_requests(path: str) -> list[bytes]:
    data = Path(path).read_bytes()
    out, i = [], 0
    while i < len(data):
        j = data.index(b"\n", i)
        size = int(data[i:j])
        out.append(data[j + 1:j + 1 + size])
        i = j + 1 + size
    return out


def _worker(port: int, path: str, total_conns: int, conns: list[int], seconds: float) -> None:
    requests = _read_requests(path)
    lat: list[int] = []
    counts = {"n": 0, "errors": 0}
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def loop(j: int) -> None:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        f = sock.makefile("rb")
        mine: list[int] = []
        n = errors = 0
        i = j
        while time.perf_counter() < deadline:
            req = requests[i % len(requests)]
            i += total_conns
            t0 = time.perf_counter()
            sock.sendall(req)
            status = int(f.readline().split()[1])
            length = 0
            while True:
                line = f.readline()
                if line in (b"\r\n", b""):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            f.read(length)
            mine.append(int((time.perf_counter() - t0) * 1e6))
            n += 1
            errors += status >= 400
        sock.close()
        with lock:
            lat.extend(mine)
            counts["n"] += n
            counts["errors"] += errors

    start = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(j,)) for j in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"n": counts["n"], "errors": counts["errors"], "seconds": time.perf_counter() - start,
                      "lat_us": lat}))


if __name__ == "__main__":
    _worker(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4].split(",")],
            float(sys.argv[5]))
