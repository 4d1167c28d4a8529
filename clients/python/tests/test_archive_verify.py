"""``verify`` of a hosted tournament's archive (the JSON of ``GET /v1/tournaments/{id}/records``).

The archive is built here from a local Swiss run: the service's director pairs with the same library
(``next_round``), writes records of the same shape (play.record) and publishes the same tables
(``published_tables``), so a local run laid out as an archive is what the service answers. Each altered
copy must fail, naming the first discrepancy.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from card_referee_client import BotServer, Client, greedy_bot, random_bot
from card_referee_client.cli import main
from card_referee_client.tournament.runner import Runner
from card_referee_client.tournament.spec import load
from card_referee_client.tournament.standings import published_tables, standings
from card_referee_client.tournament.verify import ARCHIVE_FORMAT, verify_archive

NAMES = ["ann", "bo", "cy", "di", "ed"]


@pytest.fixture(scope="module")
def archive(service_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("swiss")
    strategies = [random_bot(1), greedy_bot(), random_bot(2), greedy_bot(), random_bot(3)]
    servers = [BotServer(s).start() for s in strategies]
    try:
        raw = {"name": "archived swiss", "format": "swiss", "rounds": 3, "seed": "5eed" * 8,
               "bots": [{"name": n, "url": s.url} for n, s in zip(NAMES, servers, strict=True)],
               "games": [{"game": "femkort", "players": 2, "options": {"deals": 1}, "boards": 1}]}
        Runner(load(raw), Client(service_url), out, progress=None).run()
    finally:
        for server in servers:
            server.stop()
    return as_archive(out, raw)


def as_archive(out: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """The run's output in the archive's layout (its rounds list their field: every bot, none withdrawn)."""
    doc = json.loads((out / "tournament.json").read_text())
    description = {k: v for k, v in raw.items() if k != "bots"}
    names = [b["name"] for b in raw["bots"]]
    records = [json.loads(p.read_text()) for p in sorted((out / "matches").glob("*.json"))]
    byes = [(b, 2) for r in doc["rounds"] for b in r["byes"]]
    rows = [{**r.to_json(), "rating": 0.0} for r in standings(names, records, byes)]
    return {"format": ARCHIVE_FORMAT,
            "tournament": {"id": "t1", "name": raw["name"], "description": description,
                           "entries": [{"bot": f"id-{n}", "name": n, "status": "active"} for n in names]},
            "rounds": [{**r, "field": names} for r in doc["rounds"]],
            "matches": records,
            "standings": {"json": rows, "csv": (out / "results.csv").read_text(),
                          "md": (out / "results.md").read_text()},
            "ratings": {}}


def test_the_archive_verifies(archive: dict[str, Any], service_url: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    assert len(archive["rounds"]) == 3 and all(r["byes"] for r in archive["rounds"])  # five bots: a bye a round
    assert len(archive["matches"]) == 12  # 2 tables a round, each board played in both seatings
    assert verify_archive(archive, Client(service_url)) == (12, None)
    (tmp_path / "archive.json").write_text(json.dumps(archive))
    assert main(["tournament", "verify", str(tmp_path / "archive.json"), "--url", service_url]) == 0
    assert capsys.readouterr().out.startswith("OK: 12 match records replayed")


def test_one_altered_standings_csv_row_fails(archive: dict[str, Any], service_url: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = copy.deepcopy(archive)
    lines = bad["standings"]["csv"].splitlines(keepends=True)
    cells = lines[2].split(",")
    cells[2] = str(float(cells[2]) + 1).removesuffix(".0")  # the second bot's points, one more
    lines[2] = ",".join(cells)
    bad["standings"]["csv"] = "".join(lines)
    checked, problem = verify_archive(bad, Client(service_url))
    assert checked == 12 and problem is not None
    assert problem.where == "standings.csv" and "line 3" in problem.what
    (tmp_path / "archive.json").write_text(json.dumps(bad))
    assert main(["tournament", "verify", str(tmp_path / "archive.json"), "--url", service_url]) == 1
    assert "standings.csv" in capsys.readouterr().out


def _pairing_swapped(a: dict[str, Any]) -> None:
    """Round 3 listed with each table's seats the other way round, and its records relabelled to fit: every
    match is still recorded where the listed round puts it, but the round is not the pairing's."""
    last = a["rounds"][-1]
    last["tables"] = [[t[1], t[0]] for t in last["tables"]]
    for rec in a["matches"]:
        if rec["round"] == last["index"]:
            rec["rotation"] = 1 - rec["rotation"]
            rec["match"] = rec["match"][:-1] + str(rec["rotation"])


def _recorded_twice(a: dict[str, Any]) -> None:
    a["matches"].append(copy.deepcopy(a["matches"][0]))


def _record_missing(a: dict[str, Any]) -> None:
    del a["matches"][-1]


def _record_result_altered(a: dict[str, Any]) -> None:
    result = a["matches"][1]["result"]
    result["payoffs"] = [-p for p in result["payoffs"]]


def _published_row_altered(a: dict[str, Any]) -> None:
    a["standings"]["json"][0]["points"] += 1


def _markdown_altered(a: dict[str, Any]) -> None:
    a["standings"]["md"] = a["standings"]["md"].replace("archived swiss", "another title")


@pytest.mark.parametrize(("alter", "where"), [
    (_pairing_swapped, "rounds: round 3"), (_recorded_twice, "matches[r01-"), (_record_missing, "matches[r03-"),
    (_record_result_altered, "matches[r01-"), (_published_row_altered, "standings.json"),
    (_markdown_altered, "standings.md")], ids=lambda v: getattr(v, "__name__", v).strip("_") if callable(v) else "")
def test_each_alteration_is_named(archive: dict[str, Any], service_url: str, alter: Any, where: str) -> None:
    bad = copy.deepcopy(archive)
    alter(bad)
    checked, problem = verify_archive(bad, Client(service_url))
    assert problem is not None and problem.where.startswith(where), problem


def test_a_file_that_is_not_an_archive_is_named(service_url: str) -> None:
    checked, problem = verify_archive({"format": "something else"}, Client(service_url))
    assert (checked, str(problem)) == (0, f"archive: is not a tournament archive (its format is not "
                                          f"{ARCHIVE_FORMAT!r})")


def test_the_tables_in_the_archive_are_the_shared_library_s(archive: dict[str, Any]) -> None:
    names = [e["name"] for e in archive["tournament"]["entries"]]
    byes = [(b, 2) for r in archive["rounds"] for b in r["byes"]]
    tables = published_tables("archived swiss", standings(names, archive["matches"], byes), archive["matches"])
    assert (tables["results.csv"], tables["results.md"]) == (archive["standings"]["csv"], archive["standings"]["md"])
