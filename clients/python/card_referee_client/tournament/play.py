"""Playing one match: a session created with the match's seed and clock, each seat played by its bot, and the
record written from the session's public log once it is finished.

How the runner handles a bot that fails (docs/tournaments.md, "When a bot fails"):

- **too slow** (an HTTP bot that has not answered when its seat's time is up): the runner stops waiting and
  posts nothing. With a clock the service applies the session's policy on its own (``forfeit``: the match ends
  with that seat last; ``auto``: the service plays for it and the bot is asked again next turn). Without a clock
  the runner concedes for the seat after ``answer_ms``.
- **illegal** (the service refuses the bot's move: 422, 403 or 400) and **crashed** (no connection, a non-200
  answer, a body without a move; a program bot that exits before the end): the runner concedes for the seat,
  with the reason, and asks that bot nothing more in this match. The session's policy decides what a
  concession does (``forfeit``: the match ends; ``auto``: the service plays the seat from then on). A program
  bot that cannot be started at all is a crash at version 0.

The record's ``incidents`` list every timeout (with a clock, each one the service's clock applied, read from
the session's log; without one, the runner's own), every illegal answer, every crash and every forfeit.

A match is *abandoned* (``halt`` set: the organiser stopped the run twice) at its next step: nothing is recorded
and its session is left to its clock or its expiry; a resumed run plays the match again from the start.
"""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client import Client, SeatClient
from ..errors import CardRefereeError, ProblemError, VersionConflict
from ..models import Move, SeatAnswer
from .schedule import Match
from .spec import BotSpec

PROTOCOL = "card-referee-bot/1"
CONCEDED_KINDS = ("illegal", "crashed")  # a concession whose reason begins "<kind>: " is that incident


class BotFailed(Exception):
    """The bot crashed: no connection, a non-200 answer, or no move in its body."""


class MatchStuck(CardRefereeError):
    """A seat's bot failed and the service refused the concession: the match cannot go on."""


class BotTimedOut(Exception):
    """The bot did not answer within its time."""


class MatchAbandoned(Exception):
    """The run is stopping and this match was given up unfinished: it has no record."""


def ask_bot(url: str, payload: dict[str, Any], seconds: float) -> Move:
    """One decision of an HTTP bot (the protocol in card_referee_client.bots)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=max(seconds, 0.001))
    try:
        conn.request("POST", parts.path or "/", body=json.dumps(payload).encode(),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        raw = resp.read()
    except TimeoutError as exc:
        raise BotTimedOut(f"no answer within {seconds * 1000:.0f} ms") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise BotFailed(f"{type(exc).__name__}: {exc}") from exc
    finally:
        conn.close()
    if resp.status != 200:
        raise BotFailed(f"answered HTTP {resp.status}: {raw[:200].decode(errors='replace')}")
    try:
        move = json.loads(raw)["move"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BotFailed(f"answered no move: {raw[:200].decode(errors='replace')}") from exc
    return move if isinstance(move, dict) else {"move": move}


def seconds_left(answer: SeatAnswer, seat: int, answer_ms: int) -> float:
    """The seat's time for this decision: until its clock's deadline (server time), else ``answer_ms``."""
    clock = answer.get("clock")
    if clock:
        for entry in clock["seats"]:
            deadline = entry.get("deadline_ms")
            if entry["seat"] == seat and deadline is not None:
                return max(0.0, (deadline - clock["server_time_ms"]) / 1000)
    return answer_ms / 1000


@dataclass
class MatchPlay:
    client: Client
    match: Match
    bots: dict[str, BotSpec]
    answer_ms: int
    logs: Path | None = None
    incidents: list[dict[str, Any]] = field(default_factory=list)
    retired: set[int] = field(default_factory=set)
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    halt: threading.Event = field(default_factory=threading.Event)

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        game = self.match.game
        created = self.client.create_session(game.game, game.players, game.options, seed=self.match.seed,
                                             clock=game.clock)  # type: ignore[arg-type]
        self.sid = created["id"]
        self.tokens = {s["seat"]: s["token"] for s in created["seats"]}
        self.seats = {s: self.client.seat(self.sid, t) for s, t in self.tokens.items()}
        self.spectator = self.client.seat(self.sid, None)
        try:
            self._start_programs()
            self._play()
        finally:
            self._stop_programs()
        log = self.client.session_log(self.sid)
        incidents = all_incidents(self.match, dict(log), self.incidents)
        return record(self.match, dict(created), dict(log), incidents, time.monotonic() - started)

    def bot_of(self, seat: int) -> BotSpec:
        return self.bots[self.match.seats[seat]]

    # ----- the loop ----------------------------------------------------------------------
    def _play(self) -> None:
        answer = self.spectator.get()
        while not answer["finished"]:
            if self.halt.is_set():
                raise MatchAbandoned(self.match.id)
            self._check_programs(answer)
            turn = [s for s in answer["to_act"] if self.bot_of(s).url and s not in self.retired]
            if not turn:
                answer = self.spectator.wait(answer["version"], 0.5 if self.procs else 5.0)
                continue
            answer = self._turn(turn[0])

    def _turn(self, seat: int) -> SeatAnswer:
        mine = self.seats[seat].get()
        if mine["finished"]:
            return mine
        if not mine["legal_moves"]:  # nothing for this seat to do at this version: wait for the next one
            return self.spectator.wait(mine["version"], 1.0)
        seconds = seconds_left(mine, seat, self.answer_ms)
        payload = {"protocol": PROTOCOL, "game": mine["game"], "session": self.sid, "seat": seat,
                   "version": mine["version"], "view": mine["view"], "legal_moves": mine["legal_moves"],
                   "clock": mine.get("clock"), "time_ms": int(seconds * 1000)}
        try:
            move = ask_bot(self.bot_of(seat).url or "", payload, seconds)
        except BotTimedOut as exc:
            return self._late(seat, mine, str(exc))
        except BotFailed as exc:
            return self._concede(seat, "crashed", str(exc), mine["version"])
        try:
            return self.seats[seat].move(move, version=mine["version"])
        except VersionConflict:
            return self.spectator.get()  # the clock (or a concession) moved the session first
        except ProblemError as exc:
            if exc.status not in (400, 403, 422):
                raise
            return self._concede(seat, "illegal", f"{json.dumps(move)[:120]}: {exc.reason or exc.code}",
                                 mine["version"])

    def _late(self, seat: int, mine: SeatAnswer, detail: str) -> SeatAnswer:
        if not mine.get("clock"):
            return self._concede(seat, "timeout", detail, mine["version"])
        # the service's clock applies the policy, and its log is where the record's timeout incidents come from
        return self.spectator.wait(mine["version"], 3.0)

    def _concede(self, seat: int, kind: str, detail: str, version: int) -> SeatAnswer:
        self.incidents.append({"seat": seat, "bot": self.match.seats[seat], "kind": kind,
                               "version": version, "detail": detail})
        self.retired.add(seat)
        try:
            return self.seats[seat].concede(f"{kind}: {detail}")
        except ProblemError as exc:
            answer = self.spectator.get()
            if not answer["finished"]:  # not merely too late: waiting on would wait for ever
                raise MatchStuck(f"{self.match.id}: could not concede for seat {seat} ({exc})") from exc
            return answer

    # ----- program bots --------------------------------------------------------------------
    def _start_programs(self) -> None:
        for seat, name in enumerate(self.match.seats):
            bot = self.bots[name]
            if not bot.command:
                continue
            words = {"url": self.client.base_url, "session": self.sid, "token": self.tokens[seat],
                     "seat": str(seat), "game": self.match.game.game, "python": sys.executable}
            argv = [w.format(**words) for w in bot.command]
            try:
                self.procs[seat] = self._spawn(argv, seat)
            except OSError as exc:  # not found, not executable: the bot failed to start, as the record says
                self._concede(seat, "crashed", f"the program could not be started: {type(exc).__name__}: {exc}", 0)

    def _spawn(self, argv: list[str], seat: int) -> subprocess.Popen[bytes]:
        # its own session: a Ctrl-C at the organiser's terminal stops the runner cleanly, not the players
        if self.logs is None:
            return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        with open(self.logs / f"{self.match.id}-seat{seat}.log", "wb") as out:  # the child keeps its own copy
            return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)

    def _check_programs(self, answer: SeatAnswer) -> None:
        for seat, proc in self.procs.items():
            code = proc.poll()
            if code is None or seat in self.retired:
                continue
            if self.spectator.get()["finished"]:  # it saw the end before this loop did
                return
            self._concede(seat, "crashed", f"the program exited with code {code} before the end", answer["version"])

    def _stop_programs(self) -> None:
        deadline = time.monotonic() + (0.0 if self.halt.is_set() else 2.0)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.terminate()
                proc.wait(timeout=5)


def record(match: Match, created: dict[str, Any], log: dict[str, Any], incidents: list[dict[str, Any]],
           seconds: float) -> dict[str, Any]:
    """The exported record of a finished match: enough to check it without the service's session."""
    moves, ends = [], []
    for e in log["entries"]:
        if "move" in e:
            moves.append({k: v for k, v in e.items() if k not in ("action", "hidden")})
        else:
            ends.append(e)
    game = match.game
    return {"record": "card-referee-match/1", "match": match.id, "round": match.round, "table": match.table,
            "board": match.board, "rotation": match.rotation, "duplicate": match.seed is not None,
            "game": game.game, "players": game.players, "options": log["options"], "clock": created.get("clock"),
            "bots": list(match.seats), "session": log["id"], "commitment": log["commitment"],
            "deals_commitment": log.get("deals_commitment"), "seed": log["seed"], "deals": log.get("deals"),
            "moves": moves, "ends": ends, "end": replay_end(log), "result": log["result"],
            "incidents": incidents, "seconds": round(seconds, 3)}


def all_incidents(match: Match, log: dict[str, Any], seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The match's incidents in the order of the log: what the runner saw (illegal answers, crashes, timeouts
    without a clock), a bot's own concession for an illegal move or a crash (a hosted bot's), every timeout
    the service's clock applied, and the seat that forfeited the match."""
    out = list(seen)
    for entry in log["entries"]:
        conceded = _conceded_as(entry, match, seen)
        if conceded is not None:
            out.append(conceded)
        if entry.get("timeout") or entry.get("type") == "timeout":
            seat = entry.get("seat", (entry.get("move") or {}).get("seat"))
            done = "the service played its move" if "move" in entry else "the policy ended the match"
            out.append({"seat": seat, "bot": match.seats[seat], "kind": "timeout", "version": entry["version"],
                        "detail": f"out of time on the service's clock; {done}"})
    result = log.get("result") or {}
    seat = result.get("forfeited")
    if isinstance(seat, int):
        out.append({"seat": seat, "bot": match.seats[seat], "kind": "forfeit",
                    "version": log["entries"][-1]["version"] if log["entries"] else 0,
                    "detail": f"lost the match by {result.get('ended_by', 'forfeit')}"})
    return sorted(out, key=lambda i: i["version"])


def _conceded_as(entry: dict[str, Any], match: Match, seen: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A concession in the log whose reason names a bot's failure (``illegal: ...``, ``crashed: ...``, as a
    hosted bot's client writes it) as an incident, unless the runner saw it itself."""
    if entry.get("type") != "concession" or not isinstance(entry.get("seat"), int):
        return None
    kind, _, detail = str(entry.get("reason") or "").partition(": ")
    seat = entry["seat"]
    if kind not in CONCEDED_KINDS or any(i["seat"] == seat and i["kind"] == kind for i in seen):
        return None
    return {"seat": seat, "bot": match.seats[seat], "kind": kind, "version": entry["version"], "detail": detail}


def replay_end(log: dict[str, Any]) -> dict[str, Any] | None:
    """The ``end`` to give ``/replay`` so it recomputes a match that did not end by play (None if it did)."""
    replay = log.get("replay") or {}
    if replay.get("end"):
        return dict(replay["end"])
    result = log.get("result") or {}
    by = result.get("ended_by", "play")
    if by == "play":
        return None
    seat = result.get("forfeited")
    if seat is None:  # an abort: the seat that asked for it
        seat = next((e.get("seat") for e in log["entries"] if e.get("type") == by), None)
    return {"by": by, "seat": seat}
