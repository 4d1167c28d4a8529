"""Running a tournament: rounds one after another (a Swiss round is paired on the standings so far), the matches
of a round ``parallel`` at a time, progress on a stream, and everything written to the output directory:

    DIR/tournament.json     the spec and every round begun: its tables and byes (what verify recomputes against)
    DIR/matches/<id>.json   one record per match (play.py: commitment, seed, deals, moves with times, result)
    DIR/standings.json      the final standings and the standings after each round
    DIR/results.csv, DIR/results.md, DIR/standings.png

Every file is written whole (to a temporary name, then renamed), so an interrupted run leaves complete records.

**Resume.** A run on a directory that holds a tournament continues it: :func:`prepare` first checks that the
directory's ``tournament.json`` is the same description (everything but ``parallel``; a description without a
seed takes the seed the directory's run drew), then every match that has a record is taken from it and the
others are played. The rounds are recomputed as they were (a Swiss round from the records before it) and must
equal the ones ``tournament.json`` lists.

**Stopping.** :class:`Stop` is what the command's SIGINT/SIGTERM handler sets. The first request lets the
matches in flight finish and be recorded, and starts no other; the second abandons the matches in flight
(play.py): they get no record and a resumed run plays them again.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]  # no stubs in the package

from ..client import Client
from . import report
from .play import MatchAbandoned, MatchPlay
from .schedule import Match, Round, matches_of, next_round, round_json, round_robin
from .spec import TournamentSpec
from .standings import TIE_BREAKS, Row, by_round, published_tables, standings

OUTPUTS = ("tournament.json", "standings.json", "results.csv", "results.md", "standings.png")


class ResumeError(Exception):
    """The output directory holds something that is not this tournament's: the message says what."""


class Interrupted(Exception):
    """The run stopped on request before the end; ``recorded`` of ``total`` matches have a record."""

    def __init__(self, recorded: int, total: int) -> None:
        super().__init__(f"{recorded} of {total} matches recorded")
        self.recorded, self.total = recorded, total


class Stop:
    """A request to stop: ``finish`` (the first) starts no new match, ``halt`` (the second) abandons those in
    flight. Safe to call from a signal handler."""

    def __init__(self) -> None:
        self.finish, self.halt = threading.Event(), threading.Event()

    def request(self) -> None:
        (self.halt if self.finish.is_set() else self.finish).set()


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader (or a resumed run) never sees half of it."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def prepare(out: Path, spec: TournamentSpec, restart: bool = False) -> TournamentSpec:
    """The spec to run into ``out``: raises ResumeError when ``out`` holds another tournament (unless
    ``restart``: then nothing is read, and :func:`clear` empties it before the run)."""
    path = out / "tournament.json"
    if restart or not path.exists():
        return spec
    try:
        before = json.loads(path.read_text())["spec"]
    except (OSError, ValueError, KeyError) as exc:
        raise ResumeError(f"{path} cannot be read ({exc}): start over with --restart, or use another --out") from exc
    if spec.seed_drawn:
        spec = replace(spec, seed=before.get("seed", spec.seed), seed_drawn=False)
    now = spec.identity()
    for key in sorted(set(now) | set(before)):
        if key != "parallel" and now.get(key) != before.get(key):
            raise ResumeError(f"{out} holds another tournament (its {key!r} differs from this description's): "
                              "resume with the same description, start over with --restart, or use another --out")
    return spec


def clear(out: Path) -> None:
    """Remove what a run writes in ``out`` (and nothing else)."""
    for name in OUTPUTS:
        (out / name).unlink(missing_ok=True)
    for sub in ("matches", "logs"):
        shutil.rmtree(out / sub, ignore_errors=True)


class Progress:
    """Progress on a stream: a line per round and per match, each with done/total and the time left (estimated
    from the matches played in this run), and a tqdm bar when the stream is a terminal. tqdm.write keeps the
    lines of parallel matches whole and apart from the bar."""

    def __init__(self, stream: TextIO | None, total: int, done: int) -> None:
        self.stream, self.total, self.done, self.first = stream, total, done, done
        self.started = time.monotonic()
        self.bar = tqdm(total=total, initial=done, file=stream, unit="match", dynamic_ncols=True, leave=False,
                        disable=stream is None or not stream.isatty())
        self.lock = threading.Lock()

    def say(self, line: str) -> None:
        if self.stream is not None:
            tqdm.write(f"{time.monotonic() - self.started:7.1f}s {line}", file=self.stream)

    def match_done(self, line: str) -> None:
        with self.lock:
            self.done += 1
            self.bar.update(1)
            self.say(f"[{self.done}/{self.total}, {self.left()}] {line}")

    def left(self) -> str:
        played = self.done - self.first
        if not played:
            return "time left unknown"
        seconds = (time.monotonic() - self.started) / played * (self.total - self.done)
        return f"about {seconds / 60:.0f} min left" if seconds >= 90 else f"about {seconds:.0f} s left"

    def close(self) -> None:
        self.bar.close()


class Runner:
    def __init__(self, spec: TournamentSpec, client: Client, out: Path, progress: TextIO | None = sys.stderr,
                 stop: Stop | None = None) -> None:
        self.spec, self.client, self.out, self.stream = spec, client, out, progress
        self.stop = stop or Stop()
        self.bots = {b.name: b for b in spec.bots}
        self.names = [b.name for b in spec.bots]
        self.records: list[dict[str, Any]] = []
        self.rounds: list[Round] = []
        self.byes: list[tuple[str, int, int]] = []
        self.notes: list[str] = []  # what the organiser should know at the end (the plot not drawn)
        self.listed = self._listed_rounds()
        self.started = time.monotonic()

    def total_matches(self) -> int:
        """Every match the tournament will play (a Swiss round seats the same number of tables each time)."""
        total = 0
        for game in self.spec.games:
            per_table = game.boards * (game.players if game.duplicate else 1)
            if self.spec.format == "round_robin":
                total += sum(len(t) for t in round_robin(self.names, game.players)) * per_table
            else:
                total += self.spec.rounds * (len(self.names) // game.players) * per_table
        return total

    def run(self) -> list[Row]:
        """Play (or resume) the whole tournament; Interrupted when a stop was requested before its end."""
        (self.out / "matches").mkdir(parents=True, exist_ok=True)
        (self.out / "logs").mkdir(exist_ok=True)
        have = len(list((self.out / "matches").glob("*.json")))
        self.progress = Progress(self.stream, self.total_matches(), 0)
        if have:
            self.progress.say(f"resuming: {have} match records found in {self.out}")
        self._write_tournament()
        try:
            for rnd in self._rounds():
                if not self._play_round(rnd):
                    raise Interrupted(len(list((self.out / "matches").glob("*.json"))), self.progress.total)
        finally:
            self.progress.close()
        return self._finish()

    def _rounds(self) -> Iterator[Round]:
        while (rnd := next_round(self.spec, self.rounds, self.records)) is not None:
            yield rnd

    def _play_round(self, rnd: Round) -> bool:
        """Play the round's matches that have no record yet; False when the run stopped before its end."""
        self._begin(rnd)
        matches = matches_of(self.spec, rnd)
        found = {m.id: rec for m in matches if (rec := self._recorded(m)) is not None}
        self.progress.done += len(found)
        self.progress.first += len(found)
        self.progress.bar.update(len(found))
        todo = [m for m in matches if m.id not in found]
        if todo:
            self.progress.say(f"{rnd.label}: {len(rnd.tables)} tables, {len(matches)} matches"
                              + (f" ({len(found)} already recorded)" if found else "")
                              + (f", bye: {', '.join(rnd.byes)}" if rnd.byes else ""))
        with ThreadPoolExecutor(max_workers=self.spec.parallel) as pool:
            for match, rec in zip(todo, pool.map(self._play_match, todo), strict=True):
                if rec is not None:
                    found[match.id] = rec
        if len(found) < len(matches):
            return False
        self.records.extend(found[m.id] for m in matches)  # in the schedule's order, resumed or not
        return True

    def _begin(self, rnd: Round) -> None:
        listed = self.listed.get(rnd.index)
        mine = round_json(self.spec, rnd)
        if listed is not None and listed != mine:
            raise ResumeError(f"round {rnd.index} of {self.out / 'tournament.json'} is not the round its records "
                              "give: the directory was changed; start over with --restart")
        self.rounds.append(rnd)
        self.byes.extend((b, rnd.game.players, rnd.index) for b in rnd.byes)
        self._write_tournament()

    def _recorded(self, match: Match) -> dict[str, Any] | None:
        """The match's record from an earlier run, None when it has none (a file that cannot be read is played
        again); ResumeError when the record is another match's."""
        path = self.out / "matches" / f"{match.id}.json"
        try:
            rec = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self.progress.say(f"  {path.name} cannot be read: the match is played again")
            return None
        if (rec.get("match"), rec.get("round"), rec.get("bots")) != (match.id, match.round, list(match.seats)) \
                or (match.seed is not None and rec.get("seed") != match.seed):
            raise ResumeError(f"{path} is not the record of the match this tournament plays under that name: "
                              "start over with --restart, or use another --out")
        return dict(rec)

    def _play_match(self, match: Match) -> dict[str, Any] | None:
        if self.stop.finish.is_set():
            return None
        try:
            rec = MatchPlay(self.client, match, self.bots, self.spec.answer_ms, self.out / "logs",
                            halt=self.stop.halt).run()
        except MatchAbandoned:
            self.progress.say(f"  {match.id}: abandoned unfinished (no record; a resumed run plays it again)")
            return None
        write_whole(self.out / "matches" / f"{match.id}.json", json.dumps(rec, indent=1) + "\n")
        result = rec["result"]
        scores = ", ".join(f"{b} {p:+d}" for b, p in zip(rec["bots"], result["payoffs"], strict=True))
        noted = "; ".join(f"{i['bot']} {i['kind']}" for i in rec["incidents"])
        self.progress.match_done(f"{match.id}: {scores} ({result.get('ended_by', 'play')}, {len(rec['moves'])} "
                                 f"moves, {rec['seconds']:.1f} s){'  ' + noted if noted else ''}")
        return rec

    def _listed_rounds(self) -> dict[int, dict[str, Any]]:
        try:
            doc = json.loads((self.out / "tournament.json").read_text())
        except (OSError, ValueError):
            return {}
        return {r["index"]: r for r in doc.get("rounds", [])}

    def _write_tournament(self) -> None:
        doc = {"spec": self.spec.to_json(), "rounds": [round_json(self.spec, r) for r in self.rounds]}
        write_whole(self.out / "tournament.json", json.dumps(doc, indent=1) + "\n")

    def _finish(self) -> list[Row]:
        final, _ = write_standings(self.out, self.spec, self.names, self.records, self.rounds, self.byes, self.notes)
        self.progress.say(f"done: {len(self.records)} matches in {time.monotonic() - self.started:.1f} s; "
                          f"winner {final[0].bot} ({final[0].points:g} points)")
        return final


def write_standings(out: Path, spec: TournamentSpec, names: list[str], records: list[dict[str, Any]],
                    rounds: list[Round], byes: list[tuple[str, int, int]], notes: list[str] | None = None
                    ) -> tuple[list[Row], list[list[Row]]]:
    final = standings(names, records, [(b, p) for b, p, _ in byes])
    history = by_round(names, records, byes, len(rounds))
    doc = {"tie_breaks": list(TIE_BREAKS),
           "final": [r.to_json() for r in final],
           "by_round": [{"round": i + 1, "standings": [r.to_json() for r in rows]} for i, rows in enumerate(history)]}
    write_whole(out / "standings.json", json.dumps(doc, indent=1) + "\n")
    for name, text in published_tables(spec.name, final, records).items():
        write_whole(out / name, text)
    if not report.plot(history, [r.label for r in rounds], out / "standings.png", f"{spec.name}: points by round"):
        (out / "standings.png").unlink(missing_ok=True)  # an older run's plot would no longer match
        if notes is not None:
            notes.append(report.MISSING)
    return final, history
