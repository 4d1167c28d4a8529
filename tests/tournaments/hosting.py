"""Bots for the tournament tests, in-process through a Flask test client: each reads its event stream (resuming
with Last-Event-ID) and plays the matches announced there with seeded random legal moves."""
from __future__ import annotations

import random
import time
from typing import Any

import orjson
from flask.testing import FlaskClient


def sse_events(raw: bytes) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, event, data) of every event of a text/event-stream body."""
    out = []
    for block in raw.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and not line.startswith(":"))
        if "event" in fields:
            out.append((fields.get("id", ""), fields["event"], orjson.loads(fields["data"])))
    return out


class Bot:
    def __init__(self, client: FlaskClient, name: str, seed: int = 0) -> None:
        self.client, self.name = client, name
        made = client.post("/v1/bots", json={"name": name, "owner": f"{name}@example.org"})
        assert made.status_code == 201, made.json
        self.id, self.token = made.json["id"], made.json["token"]
        self.last: str | None = None
        self.seats: dict[str, dict[str, Any]] = {}   # match id -> its announcement (deduped)
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.random = random.Random(seed)

    def listen(self) -> None:
        """Hold the stream until the service closes it (EVENTS_MAX), taking what it told."""
        headers = {"Authorization": f"Bearer {self.token}"}
        if self.last:
            headers["Last-Event-ID"] = self.last
        resp = self.client.get("/v1/bots/me/events", headers=headers)
        assert resp.status_code == 200, resp.data
        for eid, event, data in sse_events(resp.data):
            self.last = eid
            self.events.append((event, data))
            if event == "match_started":
                self.seats.setdefault(data["match"], data)

    def play(self) -> int:
        """One legal move in every announced match where this bot's seat is to act; how many it made."""
        made = 0
        for ann in self.seats.values():
            auth = {"Authorization": f"Bearer {ann['token']}"}
            seen = self.client.get(ann["url"], headers=auth).json
            if seen["finished"] or not seen["legal_moves"]:
                continue
            move = concrete(self.random.choice(seen["legal_moves"]))
            resp = self.client.post(ann["url"] + "/moves", json={"move": move}, headers=auth)
            made += resp.status_code == 200
        return made


def concrete(move: dict[str, Any]) -> dict[str, Any]:
    """A legal move with any range parameter ({min, max}) at its minimum."""
    return {k: v["min"] if isinstance(v, dict) and "min" in v else v for k, v in move.items()}


def run_until(client: FlaskClient, tid: str, bots: list[Bot], status: str = "finished", seconds: float = 120
              ) -> dict[str, Any]:
    """Let the bots listen and play until the tournament has ``status`` (its view then); no wall-clock margin
    matters here beyond a generous bound for a broken run."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = client.get(f"/v1/tournaments/{tid}").json
        if view["status"] == status:
            return dict(view)
        for bot in bots:
            bot.listen()
        while sum(bot.play() for bot in bots):
            pass  # every bot moves while any can, before they listen again
    raise AssertionError(f"the tournament did not reach {status!r}: {client.get(f'/v1/tournaments/{tid}').json}")
