"""The bots' ratings: OpenSkill's Plackett-Luce model (the ``openskill`` package), one rating per bot and game.

Why OpenSkill: it is maintained and MIT-licensed, and rates multiplayer matches and teams natively; TrueSkill's
Python package has not been maintained since 2019 and its method is patent-encumbered.

The ratings are a pure fold over the rated match records in a fixed order: the finished tournaments in the order
they finished, each one's records in match order. So every match counts exactly once by construction (a record
is written once), and any instance computing them gets the same numbers. Partnership games (Klaberjass for
four, Alkort, Stýrivolt) rate each side as a team: seats 0 and 2 against 1 and 3. A match ranks its seats (or
sides) by payoff; a seat that forfeited is last. A bot's rating shown alone is the ordinal, mu - 3 sigma.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openskill.models import PlackettLuce

from .records import records_upto, spec_of
from .store import TournamentStore

PARTNERSHIPS = {("klaberjass", 4), ("alkort", 4), ("styrivolt", 4)}


def sides(game: str, players: int) -> list[list[int]]:
    """The seats rated together: a side per partnership, else one seat each."""
    if (game, players) in PARTNERSHIPS:
        return [[0, 2], [1, 3]]
    return [[s] for s in range(players)]


def ranks(result: dict[str, Any], teams: list[list[int]]) -> list[float]:
    """Each side's rank (1 best; equal payoffs share a rank); a side with a seat that forfeited comes last."""
    payoffs, forfeited = result["payoffs"], result.get("forfeited")
    worst = min(payoffs) - 1

    def score(team: list[int]) -> float:
        return float(worst if forfeited in team else payoffs[team[0]])
    scores = [score(t) for t in teams]
    return [1.0 + sum(other > mine for other in scores) for mine in scores]


def fold(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, float | int]]]:
    """game -> bot name -> {"mu", "sigma", "ordinal", "matches"}, from the records in the order given."""
    model = PlackettLuce()
    ratings: dict[str, dict[str, Any]] = {}
    counts: dict[str, dict[str, int]] = {}
    for rec in records:
        result = rec.get("result")
        if not result or not result.get("payoffs") or result.get("ended_by") == "abort":
            continue  # an aborted match rates nobody
        game, bots = rec["game"], rec["bots"]
        table = ratings.setdefault(game, {})
        teams = sides(game, len(bots))
        rated = model.rate([[table.get(bots[s]) or model.rating(name=bots[s]) for s in team] for team in teams],
                           ranks=ranks(result, teams))
        for team, new in zip(teams, rated, strict=True):
            for seat, rating in zip(team, new, strict=True):
                table[bots[seat]] = rating
                counts.setdefault(game, {})[bots[seat]] = counts.get(game, {}).get(bots[seat], 0) + 1
    return {game: {name: {"mu": round(r.mu, 4), "sigma": round(r.sigma, 4), "ordinal": round(r.ordinal(), 4),
                          "matches": counts[game][name]}
                   for name, r in table.items()}
            for game, table in ratings.items()}


def current(store: TournamentStore) -> dict[str, dict[str, dict[str, float | int]]]:
    """The ratings of every finished tournament's matches, folded again only when another tournament finished
    since the cached fold (the cache is keyed by how many were folded)."""
    finished = store.finished()
    cached = store.cached_ratings()
    if cached is not None and cached["count"] == len(finished):
        return dict(cached["ratings"])
    rated = fold(rec for tid in finished for rec in finished_records(store, tid))
    store.cache_ratings({"count": len(finished), "ratings": rated})
    return rated


def finished_records(store: TournamentStore, tid: str) -> list[dict[str, Any]]:
    t = store.load(tid)
    if t is None:
        return []
    return records_upto(spec_of(t), t, max(t.rounds, default=0))
