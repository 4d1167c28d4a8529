"""The waiting clients of bench/waiting.py, in a process of their own (asyncio, one coroutine a connection).

    python -m bench.waiting_clients PLAN.json RESULTS.json

PLAN holds the port, the sessions to wait on (id, the seats' tokens, the version reached, the moves still
to make), how many streams and long-polls each session gets, how many stalled half-requests to hold, and
the mover's pace. The process opens every waiting connection and the stalled ones, prints ``ready`` once
every stream has its first event, then makes moves on the waited sessions at the given pace (each the next
legal move, sent with its seat's token) until a line ``stop`` arrives on stdin. It then writes RESULTS:
every move (session, version, when sent, when answered) and every wake-up a waiter saw (session, version,
when received, stream or long-poll), all on the same monotonic clock as the caller's, and prints ``done``.
"""
from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from typing import Any

EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")
VERSION = re.compile(rb'"version":(\d+)')
STALLED_HEAD = b"POST /v1/games/femkort/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty"
STALLED_BODY = (b"POST /v1/games/femkort/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 900\r\n\r\n{\"state\": {\"game\": \"femkort\"")


class Waiters:
    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.port = plan["port"]
        self.wakes: list[tuple[str, int, float, str]] = []
        self.moves: list[tuple[str, int, float, float, int]] = []
        self.streams_ready = 0
        self.errors: dict[str, int] = {}
        self.stopping = asyncio.Event()
        self.mover_stop = asyncio.Event()
        self.writers: list[asyncio.StreamWriter] = []
        self.late: list[tuple[float, float]] = []

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        for attempt in range(20):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
                self.writers.append(writer)
                return reader, writer
            except OSError:
                self.error("connect_retry")
                await asyncio.sleep(0.05 * (attempt + 1))
        raise RuntimeError("could not connect")

    async def stream(self, sid: str, token: str | None) -> None:
        reader, writer = await self.connect()
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write(f"GET /v1/sessions/{sid}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode())
        first = True
        buf = b""
        while not self.stopping.is_set():
            data = await reader.read(65536)
            now = time.monotonic()
            if not data:
                if not self.stopping.is_set():
                    self.error("stream_closed" + ("_before_first_event" if first else ""))
                    if first:
                        print(buf[:300], file=sys.stderr)
                return
            buf += data
            cut = buf.rfind(b"\n\n")
            if cut < 0:
                continue
            for m in EVENT_ID.finditer(buf, 0, cut + 1):
                if first:
                    first = False
                    self.streams_ready += 1
                else:
                    self.wakes.append((sid, int(m.group(1)), now, "stream"))
            buf = buf[cut + 2:]

    async def long_poll(self, sid: str, token: str | None, after: int) -> None:
        reader, writer = await self.connect()
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        while not self.stopping.is_set():
            polled = time.monotonic()
            writer.write(f"GET /v1/sessions/{sid}?after={after}&wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n"
                         .encode())
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                if not self.stopping.is_set():
                    self.error("long_poll_closed")
                return
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            body = await reader.readexactly(length)
            now = time.monotonic()
            if not head.startswith(b"HTTP/1.1 200"):
                self.error("long_poll_status_" + head[9:12].decode())
                await asyncio.sleep(0.5)
                continue
            version = int(VERSION.search(body).group(1))  # type: ignore[union-attr]
            if version > after:
                self.wakes.append((sid, version, now, "long_poll", polled))
                after = version

    async def stalled(self, i: int) -> None:
        """Half a request, then nothing: half the headers, or the headers and part of the body."""
        _, writer = await self.connect()
        writer.write(STALLED_HEAD if i % 2 else STALLED_BODY)
        await writer.drain()
        await self.stopping.wait()

    async def mover(self, sessions: list[dict[str, Any]]) -> None:
        """The next legal move of one waited session after another, at the plan's pace, one at a time."""
        reader, writer = await self.connect()
        gap = 1.0 / self.plan["moves_per_second"]
        turn = 0
        nxt = time.monotonic()
        while not self.mover_stop.is_set():
            s = sessions[turn % len(sessions)]
            turn += 1
            if not s["moves"]:
                continue
            seat, body = s["moves"].pop(0)
            req = (f"POST /v1/sessions/{s['id']}/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   f"Authorization: Bearer {s['tokens'][seat]}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            nxt = max(nxt + gap, time.monotonic())
            sent = time.monotonic()
            writer.write(req + body.encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            answer = await reader.readexactly(length)
            answered = time.monotonic()
            status = int(head.split(b" ", 2)[1])
            version = int(VERSION.search(answer).group(1)) if status == 200 else -1  # type: ignore[union-attr]
            self.moves.append((s["id"], version, sent, answered, status))
            if status == 200:
                s["version"] = version
            try:
                await asyncio.wait_for(self.mover_stop.wait(), max(0.0, nxt - time.monotonic()))
            except asyncio.TimeoutError:
                pass

    async def jitter(self) -> None:
        """The host's noise floor as this process sees it: how late a 10 ms sleep wakes, every 10 ms. A waiter
        cannot be told of a move sooner than its own process gets the CPU back."""
        while not self.stopping.is_set():
            t = time.monotonic()
            await asyncio.sleep(0.01)
            self.late.append((t, (time.monotonic() - t - 0.01) * 1000))

    async def run(self) -> dict[str, Any]:
        plan = self.plan
        tasks = []
        streams = 0
        for s in plan["sessions"]:
            seats = list(range(len(s["tokens"])))
            for k in range(plan["streams_per_session"]):
                tasks.append(asyncio.create_task(self.stream(s["id"], s["tokens"][seats[k % len(seats)]])))
                streams += 1
            for k in range(plan["long_polls_per_session"]):
                seat = seats[(plan["streams_per_session"] + k) % len(seats)]
                tasks.append(asyncio.create_task(self.long_poll(s["id"], s["tokens"][seat], s["version"])))
            if len(tasks) % 200 == 0:
                await asyncio.sleep(0.05)  # open in waves, as a field of bots would come in
        tasks += [asyncio.create_task(self.stalled(i)) for i in range(plan["stalled"])]
        deadline = time.monotonic() + 60
        while self.streams_ready < streams and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        print(f"ready {self.streams_ready} of {streams} streams", flush=True)
        mover = asyncio.create_task(self.mover(plan["sessions"]))
        tasks.append(asyncio.create_task(self.jitter()))
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        self.mover_stop.set()
        await asyncio.wait([mover], timeout=5)
        await asyncio.sleep(1.0)  # the last moves' wake-ups are still on their way
        self.stopping.set()
        for w in self.writers:
            w.close()
        await asyncio.wait(tasks, timeout=5)
        return {"wakes": self.wakes, "moves": self.moves, "errors": self.errors, "late": self.late,
                "streams_ready": self.streams_ready, "streams": streams,
                "versions": {s["id"]: s["version"] for s in plan["sessions"]},
                "moves_left": {s["id"]: s["moves"] for s in plan["sessions"]}}


def main() -> None:
    plan = json.loads(open(sys.argv[1]).read())
    out = asyncio.run(Waiters(plan).run())
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)
    print("done", flush=True)


if __name__ == "__main__":
    main()
