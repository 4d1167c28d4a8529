"""What the runner checks before round 1 (the pre-flight), what it records when a program bot cannot start, and
what ``verify`` checks of the published tables."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from card_referee_client import BotServer, Client, greedy_bot, random_bot
from card_referee_client.cli import main
from card_referee_client.tournament import preflight, report
from card_referee_client.tournament.runner import Runner
from card_referee_client.tournament.spec import SpecError, load
from card_referee_client.tournament.standings import Row
from card_referee_client.tournament.verify import verify


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/"  # nothing listens there once the socket is closed


def run(tmp_path: Path, service_url: str, raw: dict[str, Any], *extra: str) -> int:
    (tmp_path / "spec.json").write_text(json.dumps(raw))
    return main(["tournament", "run", str(tmp_path / "spec.json"), "--url", service_url,
                 "--out", str(tmp_path / "out"), "--quiet", *extra])


@pytest.fixture
def no_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a session was created before the pre-flight passed")
    monkeypatch.setattr(Client, "create_session", refuse)


def test_a_bad_option_is_refused_before_any_session_is_created(
        service_url: str, tmp_path: Path, no_sessions: None, capsys: pytest.CaptureFixture[str]) -> None:
    with BotServer(random_bot(1)) as a, BotServer(random_bot(2)) as b:
        raw = {"seed": "ab" * 16, "bots": [{"name": "a", "url": a.url}, {"name": "b", "url": b.url}],
               "games": [{"game": "femkort", "players": 2, "options": {"deals": 0}},
                         {"game": "no_such_game", "players": 2}]}
        assert run(tmp_path, service_url, raw) == 2
    said = capsys.readouterr().err
    assert "games[0] (femkort/2): the service refuses it" in said and "deals" in said, said
    assert "games[1] (no_such_game/2)" in said, said
    assert not (tmp_path / "out" / "matches").exists()


def test_an_unreachable_bot_and_a_missing_executable_are_reported_in_the_preflight(
        service_url: str, tmp_path: Path, no_sessions: None, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight, "REACH_SECONDS", 0.5)  # how long a refused bot is tried again: nothing listens
    with BotServer(greedy_bot()) as good:
        raw = {"seed": "ab" * 16, "games": [{"game": "femkort", "players": 2, "clock": {"move_ms": 5000}}],
               "bots": [{"name": "good", "url": good.url}, {"name": "gone", "url": closed_port_url()},
                        {"name": "ghost", "command": ["card-referee-no-such-program", "--token={token}"]}]}
        assert run(tmp_path, service_url, raw) == 2
    said = capsys.readouterr().err
    assert "2 problem(s); nothing was played" in said, said
    assert "bot 'gone' cannot be reached" in said and "ConnectionRefusedError" in said, said
    assert "bot 'ghost': the program 'card-referee-no-such-program' is not found" in said, said
    assert "'good'" not in said


@pytest.mark.parametrize(("clock", "message"), [
    ({"move_ms": 50}, "'move_ms' must be a whole number"),
    ({"policy": "auto"}, "give 'move_ms', 'bank_ms' or both"),
    ({"move_ms": 1000, "policy": "sudden_death"}, "'policy' must be one of"),
    ({"move_ms": 1000, "per_move": 5}, "unknown key 'per_move'"),
])
def test_a_bad_clock_is_refused_when_the_description_is_read(clock: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        load({"bots": [{"name": "a", "url": "http://127.0.0.1:1/"}, {"name": "b", "url": "http://127.0.0.1:2/"}],
              "games": [{"game": "femkort", "players": 2, "clock": clock}]})


def test_the_documented_seed_placeholder_and_unknown_command_words_are_refused_with_their_reason() -> None:
    bots = [{"name": "a", "url": "http://127.0.0.1:1/"}, {"name": "b", "url": "http://127.0.0.1:2/"}]
    with pytest.raises(SpecError, match="seed must be hex digits"):
        load({"seed": "9f1c...", "bots": bots, "games": [{"game": "femkort", "players": 2}]})
    with pytest.raises(SpecError, match="unknown placeholder"):
        load({"bots": [bots[0], {"name": "p", "command": ["{interpreter}", "bot.py"]}],
              "games": [{"game": "femkort", "players": 2}]})


def test_a_program_bot_that_cannot_start_is_recorded_as_crashed_and_loses_by_the_policy(
        service_url: str, tmp_path: Path) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")  # no execute permission: found by the path, but it cannot be started
    with BotServer(greedy_bot()) as good:
        raw = {"seed": "cd" * 16, "bots": [{"name": "good", "url": good.url},
                                           {"name": "broken", "command": [str(script)]}],
               "games": [{"game": "femkort", "players": 2, "clock": {"move_ms": 60000, "policy": "forfeit"}}]}
        Runner(load(raw), Client(service_url), tmp_path / "out", progress=None).run()  # no pre-flight here
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "out" / "matches").glob("*.json"))]
    assert len(records) == 2
    for rec in records:
        seat = rec["bots"].index("broken")
        kinds = [(i["bot"], i["kind"]) for i in rec["incidents"]]
        assert kinds == [("broken", "crashed"), ("broken", "forfeit")], rec["incidents"]
        assert "could not be started: PermissionError" in rec["incidents"][0]["detail"]
        assert rec["result"]["forfeited"] == seat and rec["result"]["ended_by"] == "concession"
    table = (tmp_path / "out" / "results.md").read_text()
    assert "| crashed 2, forfeit 2 |" in table, table


def test_verify_fails_on_an_edited_results_csv_or_results_md(service_url: str, tmp_path: Path) -> None:
    with BotServer(random_bot(3)) as a, BotServer(greedy_bot()) as b:
        raw = {"name": "edited", "seed": "ef" * 16, "bots": [{"name": "a", "url": a.url}, {"name": "b", "url": b.url}],
               "games": [{"game": "femkort", "players": 2}]}
        assert run(tmp_path, service_url, raw) == 0
    out = tmp_path / "out"
    assert verify(out, Client(service_url)) == (2, None)
    for name in ("results.csv", "results.md"):
        text = (out / name).read_text()
        lines = text.splitlines()
        lines[-1] = lines[-1].replace("2", "1", 1)  # the second bot's rank, made first
        (out / name).write_text("\n".join(lines) + "\n")
        checked, problem = verify(out, Client(service_url))
        assert checked == 2 and problem is not None and problem.where == name, problem
        assert f"line {len(lines)} is" in problem.what, problem
        assert main(["tournament", "verify", str(out), "--url", service_url]) == 1
        (out / name).write_text(text)
    assert verify(out, Client(service_url)) == (2, None)


def test_the_plots_legend_follows_the_standings_and_a_missing_matplotlib_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt
    rounds = [[Row("zed", points=1.0), Row("amy", points=0.0)], [Row("zed", points=2.0), Row("amy", points=0.0)]]
    seen: list[list[str]] = []
    monkeypatch.setattr(plt.Axes, "legend", lambda ax, *a, **k: seen.append(ax.get_legend_handles_labels()[1]))
    assert report.plot(rounds, ["R1", "R2"], tmp_path / "p.png", "t")
    assert seen == [["1. zed", "2. amy"]]
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # as if the extra were not installed
    assert not report.plot(rounds, ["R1", "R2"], tmp_path / "q.png", "t")
    assert "pip install 'card-referee-client[plot]'" in report.MISSING
