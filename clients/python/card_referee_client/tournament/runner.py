"""Running a tournament: rounds one after another (a Swiss round is paired on the standings so far), the matches
of a round ``parallel`` at a time, progress on a stream, and everything written to the output directory:

    DIR/tournament.json     the spec and every round's tables and byes (what verify recomputes against)
    DIR/matches/<id>.json   one record per match (play.py: commitment, seed, deals, moves with times, result)
    DIR/standings.json      the final standings and the standings after each round
    DIR/results.csv, DIR/results.md, DIR/standings.png
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

from ..client import Client
from . import report
from .play import MatchPlay
from .schedule import Match, Round, matches_of, pairs_of, round_robin, swiss
from .spec import TournamentSpec
from .standings import Row, by_round, standings


class Runner:
    def __init__(self, spec: TournamentSpec, client: Client, out: Path, progress: TextIO | None = sys.stderr) -> None:
        self.spec, self.client, self.out, self.progress = spec, client, out, progress
        self.bots = {b.name: b for b in spec.bots}
        self.names = [b.name for b in spec.bots]
        self.records: list[dict[str, Any]] = []
        self.rounds: list[Round] = []
        self.byes: list[tuple[str, int, int]] = []
        self.met: set[frozenset[str]] = set()
        self.done = 0
        self.started = time.monotonic()

    def run(self) -> list[Row]:
        (self.out / "matches").mkdir(parents=True, exist_ok=True)
        (self.out / "logs").mkdir(exist_ok=True)
        index = 0
        for game in self.spec.games:
            if self.spec.format == "round_robin":
                for tables in round_robin(self.names, game.players):
                    index += 1
                    self._play_round(Round(index, game, tables))
            else:
                for _ in range(self.spec.rounds):
                    index += 1
                    ranked = [r.bot for r in standings(self.names, self.records, [(b, p) for b, p, _ in self.byes])]
                    tables, out = swiss(ranked, game.players, self.met, Counter(b for b, _, _ in self.byes))
                    self._play_round(Round(index, game, tables, out))
        return self._finish()

    def _play_round(self, rnd: Round) -> None:
        self.rounds.append(rnd)
        self.byes.extend((b, rnd.game.players, rnd.index) for b in rnd.byes)
        for table in rnd.tables:
            self.met.update(pairs_of(table))
        matches = matches_of(self.spec, rnd)
        self._say(f"{rnd.label}: {len(rnd.tables)} tables, {len(matches)} matches"
                  + (f", bye: {', '.join(rnd.byes)}" if rnd.byes else ""))
        with ThreadPoolExecutor(max_workers=self.spec.parallel) as pool:
            for rec in pool.map(self._play_match, matches):
                self.records.append(rec)
        self._write_tournament()

    def _play_match(self, match: Match) -> dict[str, Any]:
        rec = MatchPlay(self.client, match, self.bots, self.spec.answer_ms, self.out / "logs").run()
        (self.out / "matches" / f"{match.id}.json").write_text(json.dumps(rec, indent=1) + "\n")
        self.done += 1
        result = rec["result"]
        scores = ", ".join(f"{b} {p:+d}" for b, p in zip(rec["bots"], result["payoffs"], strict=True))
        noted = "; ".join(f"{i['bot']} {i['kind']}" for i in rec["incidents"])
        self._say(f"  [{self.done}] {match.id}: {scores} ({result.get('ended_by', 'play')}, {len(rec['moves'])} "
                  f"moves, {rec['seconds']:.1f} s){'  ' + noted if noted else ''}")
        return rec

    def _say(self, line: str) -> None:
        if self.progress is not None:
            print(f"{time.monotonic() - self.started:7.1f}s {line}", file=self.progress, flush=True)

    def _write_tournament(self) -> None:
        doc = {"spec": self.spec.to_json(),
               "rounds": [{"index": r.index, "game": r.game.label, "tables": [list(t) for t in r.tables],
                           "byes": list(r.byes), "matches": [m.id for m in matches_of(self.spec, r)]}
                          for r in self.rounds]}
        (self.out / "tournament.json").write_text(json.dumps(doc, indent=1) + "\n")

    def _finish(self) -> list[Row]:
        final, rounds = write_standings(self.out, self.spec, self.names, self.records, self.rounds, self.byes)
        self._say(f"done: {len(self.records)} matches in {time.monotonic() - self.started:.1f} s; "
                  f"winner {final[0].bot} ({final[0].points:g} points)")
        return final


def write_standings(out: Path, spec: TournamentSpec, names: list[str], records: list[dict[str, Any]],
                    rounds: list[Round], byes: list[tuple[str, int, int]]) -> tuple[list[Row], list[list[Row]]]:
    final = standings(names, records, [(b, p) for b, p, _ in byes])
    history = by_round(names, records, byes, len(rounds))
    doc = {"tie_breaks": ["points", "duplicate", "payoff", "buchholz", "name"],
           "final": [r.to_json() for r in final],
           "by_round": [{"round": i + 1, "standings": [r.to_json() for r in rows]} for i, rows in enumerate(history)]}
    (out / "standings.json").write_text(json.dumps(doc, indent=1) + "\n")
    incidents: dict[str, dict[str, int]] = defaultdict(dict)
    for rec in records:
        for i in rec["incidents"]:
            incidents[i["bot"]][i["kind"]] = incidents[i["bot"]].get(i["kind"], 0) + 1
    (out / "results.csv").write_text(report.to_csv(final))
    (out / "results.md").write_text(report.to_markdown(final, spec.name, incidents))
    report.plot(history, [r.label for r in rounds], out / "standings.png", f"{spec.name}: points by round")
    return final, history
