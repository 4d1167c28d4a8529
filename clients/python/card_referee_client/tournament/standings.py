"""Standings from match records, with declared tie-breaks (docs/tournaments.md, "Scoring").

- **points**: in each match a bot scores 1 for every opponent it finished above on payoff and 1/2 for every
  opponent level with it (a two-player win is 1, a draw 1/2); a seat that forfeited (``result.forfeited``)
  finishes below everyone. A Swiss bye scores (players - 1) / 2, an even result.
- tie-break 1, **duplicate**: on duplicate boards, a bot's payoff on a board in a seat is compared with every
  other payoff made with the same cards (same round, board and seat, at any table and rotation): 1 per payoff
  it beat, 1/2 per payoff it equalled. This is bridge's matchpoint scoring, the like-for-like comparison.
- tie-break 2, **payoff**: the sum of its payoffs.
- tie-break 3, **buchholz**: the sum of the points of every opponent it met, once per match played together.
- last: the bot's name, so the order is total and the same on every machine.

The published tables (``results.csv``, ``results.md``) are rendered here too, from the same rows, so that the
runner that writes them and ``verify`` that recomputes them share one definition.
"""
from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

TIE_BREAKS = ("points", "duplicate", "payoff", "buchholz", "name")
COLUMNS = ("rank", "bot", "points", "duplicate", "payoff", "buchholz", "matches", "byes", "forfeits")
TABLES = ("results.csv", "results.md")


@dataclass
class Row:
    bot: str
    rank: int = 0
    points: float = 0.0
    duplicate: float = 0.0
    payoff: int = 0
    buchholz: float = 0.0
    matches: int = 0
    byes: int = 0
    forfeits: int = 0

    def key(self) -> tuple[float, float, int, float, str]:
        return (-self.points, -self.duplicate, -self.payoff, -self.buchholz, self.bot)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def match_points(payoffs: Sequence[int], forfeited: int | None) -> list[float]:
    """Each seat's points in one match: 1 per opponent below it, 1/2 per opponent level."""
    n = len(payoffs)

    def beats(a: int, b: int) -> float:
        if forfeited is not None and (a == forfeited) != (b == forfeited):
            return 1.0 if b == forfeited else 0.0
        return 1.0 if payoffs[a] > payoffs[b] else 0.5 if payoffs[a] == payoffs[b] else 0.0
    return [sum(beats(s, o) for o in range(n) if o != s) for s in range(n)]


def standings(bots: Sequence[str], records: Iterable[dict[str, Any]], byes: Iterable[tuple[str, int]] = ()
              ) -> list[Row]:
    """The table, best first. ``byes``: (bot, players of that round's game) once per bye."""
    rows = {b: Row(b) for b in bots}
    records = list(records)
    opponents: dict[str, list[str]] = defaultdict(list)
    boards: dict[tuple[Any, ...], list[tuple[str, int]]] = defaultdict(list)
    for rec in records:
        result, seats = rec["result"], rec["bots"]
        payoffs, forfeited = result["payoffs"], result.get("forfeited")
        for seat, pts in enumerate(match_points(payoffs, forfeited)):
            row = rows[seats[seat]]
            row.points += pts
            row.payoff += payoffs[seat]
            row.matches += 1
            row.forfeits += forfeited == seat
            opponents[seats[seat]].extend(b for o, b in enumerate(seats) if o != seat)
            if rec.get("duplicate"):
                boards[(rec["round"], rec["game"], rec["players"], rec["board"], seat)].append(
                    (seats[seat], payoffs[seat]))
    for bot, players in byes:
        rows[bot].points += (players - 1) / 2
        rows[bot].byes += 1
    for group in boards.values():
        for i, (bot, payoff) in enumerate(group):
            rows[bot].duplicate += sum(1.0 if payoff > p else 0.5 if payoff == p else 0.0
                                       for j, (_, p) in enumerate(group) if j != i)
    for bot, met in opponents.items():
        rows[bot].buchholz = sum(rows[o].points for o in met)
    ranked = sorted(rows.values(), key=Row.key)
    for i, row in enumerate(ranked, start=1):
        row.rank = i
    return ranked


def by_round(bots: Sequence[str], records: Sequence[dict[str, Any]], byes: Sequence[tuple[str, int, int]],
             rounds: int) -> list[list[Row]]:
    """The standings after each round 1..rounds (``byes``: (bot, players, round))."""
    out = []
    for r in range(1, rounds + 1):
        upto = [rec for rec in records if rec["round"] <= r]
        out.append(standings(bots, upto, [(b, p) for b, p, br in byes if br <= r]))
    return out


# ----- the published tables ------------------------------------------------------------------------
def _cell(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def to_csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_cell(getattr(row, c)) for c in COLUMNS])
    return out.getvalue()


def incident_counts(records: Iterable[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Per bot, how many incidents of each kind its matches' records list."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rec in records:
        for incident in rec["incidents"]:
            counts[incident["bot"]][incident["kind"]] += 1
    return counts


def to_markdown(rows: Sequence[Row], title: str, incidents: dict[str, Counter[str]]) -> str:
    lines = [f"# {title}", "", f"Ordered by {', then '.join(TIE_BREAKS)} (docs/tournaments.md, \"Scoring\").", "",
             "| " + " | ".join(COLUMNS) + " | incidents |", "|" + "---|" * (len(COLUMNS) + 1)]
    for row in rows:
        counts = incidents.get(row.bot, Counter())
        noted = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-"
        lines.append("| " + " | ".join(_cell(getattr(row, c)) for c in COLUMNS) + f" | {noted} |")
    return "\n".join(lines) + "\n"


def published_tables(title: str, final: Sequence[Row], records: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The text of each published table (``TABLES``), from the final standings and the records."""
    return {"results.csv": to_csv(final), "results.md": to_markdown(final, title, incident_counts(records))}
