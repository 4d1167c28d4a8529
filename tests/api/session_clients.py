"""Player processes for the concurrency test: each plays one seat over real HTTP, as fast as it can.

Run in separate processes (multiprocessing, spawn) against a gunicorn server with several workers. Two
processes share each seat, so every move is raced by its twin; a tenth of the submissions are sent twice
with the same Idempotency-Key; some carry an expected version. Returns what every submission answered.
"""
from __future__ import annotations

import http.client
import json
import random
import uuid
from typing import Any


class Http:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.auth = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
             ) -> tuple[int, dict[str, str], Any]:
        data = None if body is None else json.dumps(body).encode()
        hdrs = {**self.auth, **(headers or {}), **({"Content-Type": "application/json"} if data else {})}
        for attempt in range(3):
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                resp = self.conn.getresponse()
                raw = resp.read()
                return resp.status, dict(resp.getheaders()), json.loads(raw) if raw else None
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()  # a worker closed the keep-alive connection: reconnect once
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def play_seat(port: int, sid: str, token: str, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    client = Http(port, token)
    out: list[dict[str, Any]] = []
    version = -1
    while True:
        query = "" if version < 0 else f"?after={version}&wait=2"
        status, _, view = client.call("GET", f"/v1/sessions/{sid}{query}")
        assert status == 200, view
        if view["finished"]:
            return out
        version = view["version"]
        if not view["legal_moves"]:
            continue
        move = rng.choice(view["legal_moves"])
        body: dict[str, Any] = {"move": move}
        if rng.random() < 0.3:
            body["version"] = version
        key = uuid.uuid4().hex
        status, headers, answer = client.call("POST", f"/v1/sessions/{sid}/moves", body, {"Idempotency-Key": key})
        out.append({"status": status, "move": move, "answer": answer, "key": key})
        if rng.random() < 0.1:
            again = client.call("POST", f"/v1/sessions/{sid}/moves", body, {"Idempotency-Key": key})
            out.append({"status": again[0], "move": move, "answer": again[2], "key": key,
                        "replay_of": status, "replayed": again[1].get("Idempotent-Replayed"),
                        "same": again[2] == answer})
        if status == 200:
            version = answer["version"] - 1  # re-read at once: it may be this seat's turn again
