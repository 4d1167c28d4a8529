"""The tournament runner's parts: schedules, duplicate rotations, scoring, and a small run verified end to end."""
from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from card_referee_client import BotServer, Client, greedy_bot, random_bot
from card_referee_client.cli import main
from card_referee_client.tournament.runner import Runner
from card_referee_client.tournament.schedule import Round, circle, matches_of, round_robin, swiss
from card_referee_client.tournament.spec import SpecError, load
from card_referee_client.tournament.standings import match_points, standings
from card_referee_client.tournament.verify import verify

BOTS = ["a", "b", "c", "d", "e", "f"]


def spec_of(**extra: Any) -> Any:
    raw = {"name": "t", "seed": "ab" * 16, "bots": [{"name": b, "url": "http://127.0.0.1:1/"} for b in BOTS],
           "games": [{"game": "femkort", "players": 2}], **extra}
    return load(raw)


def assert_every_table_once_and_nobody_twice_a_round(rounds: list[Any], bots: list[str], size: int) -> None:
    tables = [frozenset(t) for r in rounds for t in r]
    assert Counter(tables) == Counter(frozenset(c) for c in itertools.combinations(bots, size))
    for r in rounds:
        seated = [b for t in r for b in t]
        assert len(seated) == len(set(seated))


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_the_circle_method_pairs_everyone_once_and_nobody_twice_a_round(n: int) -> None:
    bots = BOTS[:n] if n <= 6 else [*BOTS, "g"]
    assert_every_table_once_and_nobody_twice_a_round(circle(bots), bots, 2)


def test_a_round_robin_of_three_player_tables_seats_every_trio_once() -> None:
    assert_every_table_once_and_nobody_twice_a_round(round_robin(BOTS, 3), BOTS, 3)


def test_duplicate_rotations_give_every_bot_every_seat_of_the_same_board() -> None:
    spec = spec_of()
    game = spec.games[0]
    rnd = Round(1, game, (("a", "b", "c"), ("d", "e", "f")))
    matches = matches_of(spec, rnd)
    assert len(matches) == 2 * 3
    assert len({m.seed for m in matches}) == 1  # every table of the round plays the same board
    for table in rnd.tables:
        mine = [m for m in matches if set(m.seats) == set(table)]
        for seat in range(3):
            assert sorted(m.seats[seat] for m in mine) == sorted(table)
    assert len({m.seed for m in matches_of(spec, Round(2, game, rnd.tables))} | {matches[0].seed}) == 2


def test_swiss_pairs_neighbours_who_have_not_met_and_gives_the_bye_to_the_lowest() -> None:
    met = {frozenset(("a", "b"))}
    tables, byes = swiss(["a", "b", "c", "d", "e"], 2, met, {})
    assert byes == ("e",) and tables == (("a", "c"), ("b", "d"))
    tables, byes = swiss(["a", "b", "c", "d", "e"], 2, met, {"e": 1})
    assert byes == ("d",)


def test_match_points_compare_payoffs_and_put_the_forfeiter_last() -> None:
    assert match_points([3, -1, -2], None) == [2.0, 1.0, 0.0]
    assert match_points([0, 0], None) == [0.5, 0.5]
    assert match_points([5, 5, -10], 1) == [2.0, 0.0, 1.0]


def test_standings_apply_the_declared_tie_breaks() -> None:
    recs = [
        {"round": 1, "game": "femkort", "players": 2, "board": 1, "duplicate": True, "bots": ["a", "b"],
         "result": {"payoffs": [1, -1]}},
        {"round": 1, "game": "femkort", "players": 2, "board": 1, "duplicate": True, "bots": ["b", "a"],
         "result": {"payoffs": [3, -3]}},
    ]
    rows = standings(["a", "b"], recs)
    # one match each: level on points; b made +3 in seat 0 against a's +1 there, and -1 in seat 1 against a's -3
    assert [(r.bot, r.points, r.duplicate) for r in rows] == [("b", 1.0, 2.0), ("a", 1.0, 0.0)]
    assert rows[0].payoff == 2 and rows[0].rank == 1


def test_a_bad_spec_is_refused_with_its_reason() -> None:
    with pytest.raises(SpecError, match="players"):
        spec_of(games=[{"game": "femkort", "players": 9}])
    with pytest.raises(SpecError, match="rounds"):
        spec_of(format="swiss")
    with pytest.raises(SpecError, match="exactly one"):
        load({"bots": [{"name": "x"}], "games": [{"game": "femkort", "players": 2}]})


def test_a_small_round_robin_runs_verifies_and_fails_on_an_altered_move(service_url: str, tmp_path: Path) -> None:
    with BotServer(random_bot(1)) as r1, BotServer(greedy_bot()) as g, BotServer(random_bot(2)) as r2:
        raw = {"name": "small", "seed": "5eed" * 8, "parallel": 2,
               "bots": [{"name": "rand1", "url": r1.url}, {"name": "greedy", "url": g.url},
                        {"name": "rand2", "url": r2.url}],
               "games": [{"game": "femkort", "players": 2, "options": {"deals": 2}, "boards": 2}]}
        (tmp_path / "spec.json").write_text(json.dumps(raw))
        out = tmp_path / "out"
        assert main(["tournament", "run", str(tmp_path / "spec.json"), "--url", service_url, "--out", str(out),
                     "--quiet"]) == 0
    records = sorted((out / "matches").glob("*.json"))
    assert len(records) == 3 * 2 * 2  # 3 pairs, 2 boards, 2 rotations
    assert (out / "results.csv").read_text().startswith("rank,bot,points")
    assert "| rank | bot |" in (out / "results.md").read_text()
    assert (out / "standings.png").stat().st_size > 1000
    assert verify(out, Client(service_url)) == (12, None)

    rec = json.loads(records[3].read_text())
    moves = rec["moves"]
    i = next(i for i, m in enumerate(moves) if m["seat"] != moves[0]["seat"])
    moves[i]["move"]["card"] = moves[0]["move"]["card"]  # a card already played
    records[3].write_text(json.dumps(rec))
    checked, problem = verify(out, Client(service_url))
    assert checked == 3 and problem is not None
    assert problem.where == f"matches/{records[3].name}" and f"move {i}" in problem.what
    assert main(["tournament", "verify", str(out), "--url", service_url]) == 1


def test_recorded_standings_that_do_not_follow_from_the_records_fail(service_url: str, tmp_path: Path) -> None:
    with BotServer(random_bot(3)) as r1, BotServer(random_bot(4)) as r2:
        raw = {"name": "two", "seed": "beef" * 8, "format": "swiss", "rounds": 2,
               "bots": [{"name": "x", "url": r1.url}, {"name": "y", "url": r2.url}],
               "games": [{"game": "femkort", "players": 2}]}
        Runner(load(raw), Client(service_url), tmp_path, progress=None).run()
    doc = json.loads((tmp_path / "standings.json").read_text())
    doc["final"][0]["points"] += 1
    (tmp_path / "standings.json").write_text(json.dumps(doc))
    checked, problem = verify(tmp_path, Client(service_url))
    assert checked == 4 and problem is not None and problem.where == "standings.json"
