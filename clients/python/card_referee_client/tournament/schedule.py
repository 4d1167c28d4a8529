"""Who plays whom: round robin and Swiss tables, and the matches a table plays (boards x seat rotations).

A *table* is a tuple of bot names, one per seat. In a round every table plays the round's boards; with
duplicate dealing each board once per rotation of its seats, so every bot of the table holds every seat's
cards of that board once, and every table of the round plays the same boards: scores compare like for like.
"""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .spec import GameSpec, TournamentSpec
from .standings import standings

Table = tuple[str, ...]


@dataclass(frozen=True)
class Round:
    index: int                 # 1, 2, ... across the whole tournament
    game: GameSpec
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()  # Swiss: bots that sat out and score a bye

    @property
    def label(self) -> str:
        return f"R{self.index} {self.game.label}"


@dataclass(frozen=True)
class Match:
    id: str
    round: int
    game: GameSpec
    table: int
    board: int
    rotation: int
    seats: tuple[str, ...]     # bot name per seat
    seed: str | None           # None: the service draws the seed


def round_robin(bots: Sequence[str], players: int) -> list[tuple[Table, ...]]:
    """Every set of ``players`` bots meets once, grouped into rounds in which nobody plays twice."""
    if players == 2:
        return circle(bots)
    pending = list(itertools.combinations(bots, players))
    rounds: list[tuple[Table, ...]] = []
    while pending:
        busy: set[str] = set()
        this: list[Table] = []
        for table in list(pending):
            if busy.isdisjoint(table):
                this.append(table)
                busy.update(table)
                pending.remove(table)
        rounds.append(tuple(this))
    return rounds


def circle(bots: Sequence[str]) -> list[tuple[Table, ...]]:
    """The circle method: n-1 rounds (n rounds with a sitter-out when n is odd) in which every pair meets once."""
    field: list[str | None] = list(bots) + ([None] if len(bots) % 2 else [])
    n = len(field)
    rounds: list[tuple[Table, ...]] = []
    for _ in range(n - 1):
        pairs = [(field[i], field[n - 1 - i]) for i in range(n // 2)]
        rounds.append(tuple((a, b) for a, b in pairs if a is not None and b is not None))
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def swiss(ranked: Sequence[str], players: int, met: set[frozenset[str]], byes: dict[str, int]
          ) -> tuple[tuple[Table, ...], tuple[str, ...]]:
    """The next Swiss round's tables from the standings (best first): the extra bots (the field size modulo
    ``players``) sit out, the lowest ranked of those with the fewest byes; then, from the top, each table is
    the best unseated bot and the next best who met nobody at the table yet (the next best of all when every
    one has)."""
    extra = len(ranked) % players
    order = sorted(range(len(ranked)), key=lambda i: (byes.get(ranked[i], 0), -i))
    out = tuple(ranked[i] for i in order[:extra])
    left = [b for b in ranked if b not in out]
    tables: list[Table] = []
    while left:
        table = [left.pop(0)]
        while len(table) < players:
            fresh = [b for b in left if all(frozenset((b, t)) not in met for t in table)]
            pick = fresh[0] if fresh else left[0]
            left.remove(pick)
            table.append(pick)
        tables.append(tuple(table))
    return tuple(tables), out


def next_round(spec: TournamentSpec, rounds: Sequence[Round], records: Sequence[dict[str, Any]],
               field: Sequence[str] | None = None) -> Round | None:
    """The round after ``rounds`` (None: the tournament has no more), a function of the spec (its seed, bots and
    games), the rounds so far and ``records``, the records of their matches. Each game in turn gets its rounds:
    a round robin's fixed schedule (of every bot of the spec), or ``spec.rounds`` Swiss rounds paired on the
    standings so far. ``field``: the bots that may play this round (default all; a hosted tournament leaves out
    the withdrawn): a round-robin table with a bot outside it is not played, a Swiss round pairs only the field.
    The local runner and the hosted director pair with this, and verify recomputes every round with it."""
    names = [b.name for b in spec.bots]
    playing = list(names if field is None else field)
    index = len(rounds) + 1
    first = 1
    for game in spec.games:
        if spec.format == "round_robin":
            schedule = round_robin(names, game.players)
            if index < first + len(schedule):
                tables = tuple(t for t in schedule[index - first] if set(t) <= set(playing))
                return Round(index, game, tables)
            first += len(schedule)
            continue
        if index < first + spec.rounds:
            byes = [(b, r.game.players) for r in rounds for b in r.byes]
            ranked = [r.bot for r in standings(names, records, byes) if r.bot in playing]
            met = {pair for r in rounds for t in r.tables for pair in pairs_of(t)}
            tables, out = swiss(ranked, game.players, met, Counter(b for b, _ in byes))
            return Round(index, game, tables, out)
        first += spec.rounds
    return None


def round_json(spec: TournamentSpec, rnd: Round, field: Sequence[str] | None = None) -> dict[str, Any]:
    """A round as the records list it (a hosted tournament's also name its ``field``)."""
    doc: dict[str, Any] = {"index": rnd.index, "game": rnd.game.label, "tables": [list(t) for t in rnd.tables],
                           "byes": list(rnd.byes), "matches": [m.id for m in matches_of(spec, rnd)]}
    if field is not None:
        doc["field"] = list(field)
    return doc


def round_from_json(spec: TournamentSpec, doc: dict[str, Any]) -> Round:
    """A round read back from :func:`round_json`; KeyError or StopIteration when it names no game of the spec."""
    game = next(g for g in spec.games if g.label == doc["game"])
    return Round(doc["index"], game, tuple(tuple(t) for t in doc["tables"]), tuple(doc["byes"]))


def matches_of(spec: TournamentSpec, rnd: Round) -> list[Match]:
    """The matches of a round: per table, per board, per rotation (one rotation without duplicate dealing)."""
    game = rnd.game
    out = []
    for t, table in enumerate(rnd.tables, start=1):
        rotations = len(table) if game.duplicate else 1
        for board in range(1, game.boards + 1):
            seed = spec.board_seed(rnd.index, board) if game.duplicate else None
            for r in range(rotations):
                seats = tuple(table[(s - r) % len(table)] for s in range(len(table)))
                mid = f"r{rnd.index:02d}-{game.game}-{game.players}p-t{t:02d}-b{board}-rot{r}"
                out.append(Match(mid, rnd.index, game, t, board, r, seats, seed))
    return out


def pairs_of(table: Sequence[str]) -> list[frozenset[str]]:
    return [frozenset(p) for p in itertools.combinations(table, 2)]
