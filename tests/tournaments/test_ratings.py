"""The ratings fold (OpenSkill Plackett-Luce): a pure function of the records in their order."""
from __future__ import annotations

from typing import Any

from service.tournaments.ratings import fold, ranks, sides


def rec(game: str, bots: list[str], payoffs: list[int], **result: Any) -> dict[str, Any]:
    return {"game": game, "bots": bots, "result": {"payoffs": payoffs, **result}}


def test_a_match_ranks_by_payoff_with_a_forfeit_last_and_ties_shared() -> None:
    assert ranks({"payoffs": [3, -1, -2]}, sides("femkort", 3)) == [1, 2, 3]
    assert ranks({"payoffs": [5, -1, -4], "forfeited": 0}, sides("femkort", 3)) == [3, 1, 2]
    assert ranks({"payoffs": [0, 0]}, sides("femkort", 2)) == [1, 1]


def test_partnership_games_rate_sides_as_teams() -> None:
    assert sides("alkort", 4) == sides("styrivolt", 4) == sides("klaberjass", 4) == [[0, 2], [1, 3]]
    assert sides("klaberjass", 2) == [[0], [1]]
    rated = fold([rec("alkort", ["a", "b", "c", "d"], [2, -2, 2, -2])])["alkort"]
    assert rated["a"] == rated["c"] and rated["b"] == rated["d"]
    assert rated["a"]["mu"] > 25 > rated["b"]["mu"]


def test_each_record_counts_once_and_the_order_is_the_given_one() -> None:
    records = [rec("femkort", ["a", "b"], [1, -1]), rec("femkort", ["b", "c"], [1, -1]),
               rec("femkort", ["c", "a"], [1, -1]), rec("femkort", ["a", "b"], [0, 0], ended_by="abort")]
    once = fold(records)["femkort"]
    assert {n: r["matches"] for n, r in once.items()} == {"a": 2, "b": 2, "c": 2}  # the abort rates nobody
    assert fold(records)["femkort"] == once and fold(list(records)) == {"femkort": once}  # a pure function
    assert fold(list(reversed(records)))["femkort"] != once  # the order is part of the definition
    for rating in once.values():
        assert abs(rating["ordinal"] - (rating["mu"] - 3 * rating["sigma"])) < 1e-3
