"""The client: the catalogue and stateless calls (:class:`Client`), sessions and their seats (:class:`SeatClient`).

    client = Client("http://127.0.0.1:8000")
    created = client.create_session("femkort", players=3, clock={"move_ms": 5000, "policy": "forfeit"})
    seat = client.seat(created["id"], created["seats"][1]["token"])
    answer = seat.get()                              # the seat's view, legal moves, clock, presence
    answer = seat.move(answer["legal_moves"][0], version=answer["version"])

Every move is sent with an ``Idempotency-Key`` (made here unless given), so a move whose answer was lost is
retried safely: the service answers the first answer again instead of applying it twice.
"""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from .errors import ProblemError, TransportError, VersionConflict
from .models import Clock, Created, Envelope, Move, PublicLog, SeatAnswer
from .transport import StreamOver, Transport


class Client:
    """One service. Thread-safe: each thread keeps its own keep-alive connection."""

    def __init__(self, base_url: str, timeout: float = 30.0, retries: int = 3) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = Transport(self.base_url, timeout=timeout, retries=retries)

    def close(self) -> None:
        self.http.close()

    # ----- catalogue and stateless adjudication ---------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], self.http.request("GET", "/v1/games").body["games"])

    def game(self, game: str) -> dict[str, Any]:
        return cast(dict[str, Any], self.http.request("GET", f"/v1/games/{game}").body)

    def new(self, game: str, players: int | None = None, options: dict[str, Any] | None = None,
            seed: str | None = None, deals: list[dict[str, Any]] | None = None) -> Envelope:
        body = _without_none(players=players, options=options, seed=seed, deals=deals)
        return cast(Envelope, self.http.request("POST", f"/v1/games/{game}/new", body, retry_post=True).body)

    def move(self, game: str, state: dict[str, Any], move: Move, state_tag: str | None = None) -> Envelope:
        body = _without_none(state=state, move=move, state_tag=state_tag)
        return cast(Envelope, self.http.request("POST", f"/v1/games/{game}/move", body, retry_post=True).body)

    def legal_moves(self, game: str, state: dict[str, Any], seat: int | None = None) -> list[Move]:
        body = _without_none(state=state, seat=seat)
        reply = self.http.request("POST", f"/v1/games/{game}/legal-moves", body, retry_post=True)
        return cast(list[Move], reply.body["legal_moves"])

    def view(self, game: str, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        reply = self.http.request("POST", f"/v1/games/{game}/view", {"state": state, "seat": seat}, retry_post=True)
        return cast(dict[str, Any], reply.body["view"])

    def replay(self, game: str, replay: dict[str, Any]) -> Envelope:
        """``POST /v1/games/{game}/replay``: raises IllegalMove (its body's ``index`` names the move) when refused."""
        return cast(Envelope, self.http.request("POST", f"/v1/games/{game}/replay", replay, retry_post=True).body)

    # ----- sessions -----------------------------------------------------------------------------
    def create_session(self, game: str, players: int | None = None, options: dict[str, Any] | None = None,
                       seed: str | None = None, deals: list[dict[str, Any]] | None = None,
                       clock: Clock | None = None) -> Created:
        """``POST /v1/sessions``. Not retried after a lost answer (that could leave a second session behind)."""
        body = _without_none(game=game, players=players, options=options, seed=seed, deals=deals, clock=clock)
        return cast(Created, self.http.request("POST", "/v1/sessions", body).body)

    def seat(self, session_id: str, token: str | None) -> SeatClient:
        """A seat of a session (``token`` None: a spectator)."""
        return SeatClient(self, session_id, token)

    def session_log(self, session_id: str) -> PublicLog:
        return cast(PublicLog, self.http.request("GET", f"/v1/sessions/{session_id}/log").body)


@dataclass
class Event:
    """One event of the stream: ``event`` (``view``, ``gap``, ``end``, ``error``), ``id`` and its JSON ``data``."""
    event: str
    id: str | None
    data: Any


class SeatClient:
    """A seat's (or, without a token, a spectator's) calls on one session."""

    def __init__(self, client: Client, session_id: str, token: str | None) -> None:
        self.client, self.session_id, self.token = client, session_id, token
        self.path = f"/v1/sessions/{session_id}"
        self.auth = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self) -> SeatAnswer:
        return cast(SeatAnswer, self.client.http.request("GET", self.path, headers=self.auth).body)

    def wait(self, after: int, wait: float = 20.0) -> SeatAnswer:
        """Long-poll: the answer once the version is past ``after``, or after ``wait`` seconds as it is."""
        reply = self.client.http.request("GET", f"{self.path}?after={after}&wait={wait:g}", headers=self.auth,
                                         timeout=wait + self.client.http.timeout)
        return cast(SeatAnswer, reply.body)

    def move(self, move: Move, version: int | None = None, key: str | None = None) -> SeatAnswer:
        """Submit a move (with ``version``: only if the session is still at it, else VersionConflict)."""
        body: dict[str, Any] = {"move": move} if version is None else {"move": move, "version": version}
        headers = {**self.auth, "Idempotency-Key": key or uuid.uuid4().hex}
        return cast(SeatAnswer, self.client.http.request("POST", f"{self.path}/moves", body, headers).body)

    def move_when_current(self, move: Move, version: int) -> SeatAnswer | None:
        """Submit a move judged at ``version``; None when the session moved on first (re-read and choose again)."""
        try:
            return self.move(move, version=version)
        except VersionConflict:
            return None

    def concede(self, reason: str | None = None) -> SeatAnswer:
        body = {} if reason is None else {"reason": reason[:200]}
        return cast(SeatAnswer, self.client.http.request("POST", f"{self.path}/concede", body, self.auth,
                                                         retry_post=True).body)

    def abort(self, reason: str | None = None) -> SeatAnswer:
        body = {} if reason is None else {"reason": reason[:200]}
        return cast(SeatAnswer, self.client.http.request("POST", f"{self.path}/abort", body, self.auth,
                                                         retry_post=True).body)

    def log(self) -> PublicLog:
        return self.client.session_log(self.session_id)

    def events(self, last_event_id: int | None = None, reconnects: int = 5, timeout: float = 60.0
               ) -> Iterator[Event]:
        """The event stream, resumed with ``Last-Event-ID`` when the connection drops; ends after ``end``."""
        last = last_event_id
        failures = 0
        while True:
            headers = dict(self.auth)
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            try:
                for event in parse_events(self.client.http.stream(f"{self.path}/events", headers, timeout)):
                    failures = 0
                    if event.event == "view" and event.id is not None and event.id.isdigit():
                        last = int(event.id)
                    yield event
                    if event.event == "end":
                        return
            except StreamOver:
                return
            except TransportError:
                failures += 1
                if failures > reconnects:
                    raise
                time.sleep(min(0.1 * 2 ** failures, 2.0))


def parse_events(lines: Iterator[bytes]) -> Iterator[Event]:
    """Server-Sent Events from raw lines: ``event:``, ``id:`` and ``data:`` fields, a blank line ends an event."""
    kind, eid = "message", None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                text = "\n".join(data)
                try:
                    parsed: Any = json.loads(text)
                except ValueError:
                    parsed = text
                yield Event(kind, eid, parsed)
            kind, eid, data = "message", None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            kind = value
        elif field == "id":
            eid = value
        elif field == "data":
            data.append(value)


def _without_none(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


__all__ = ["Client", "Event", "ProblemError", "SeatClient", "parse_events"]
