"""A tournament interrupted by SIGINT in round 2 and resumed ends with the same records and standings as the same
tournament played without a stop; a directory that holds another tournament is not overwritten.

Nothing here depends on the machine's speed: the bots are deterministic functions of what they are shown (so a
match plays the same moves whenever it is played), the games have no clock and the bots' answer time is far
above anything a loaded machine needs, and the interruption happens at a fixed point. Once the second match of
round 2 is recorded, every bot holds its next answer until the test has sent SIGINT and the runner has said it
is stopping; so the stop always falls in round 2, with matches in flight that the runner must finish.
"""
from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from card_referee_client import BotServer, Client, greedy_bot
from card_referee_client.bots import Choose, concrete
from card_referee_client.cli import main
from card_referee_client.tournament.runner import Interrupted, Runner, Stop
from card_referee_client.tournament.spec import load
from card_referee_client.tournament.verify import verify

STOP_AFTER = 2  # round 2's records written before the stop
WALL_CLOCK = {"session", "seconds", "time", "at", "elapsed_ms", "ref"}  # what differs between two plays


def first_bot() -> Choose:
    return lambda view, legal_moves: concrete(legal_moves[0])


def hashed_bot() -> Choose:
    """A 'random' bot whose choice depends only on what it is shown: the same position, the same move."""
    def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
        digest = hashlib.sha256(json.dumps([view, legal_moves], sort_keys=True).encode()).digest()
        return concrete(random.Random(digest).choice(legal_moves))
    return choose


STRATEGIES: dict[str, Callable[[], Choose]] = {"greedy": greedy_bot, "first": first_bot, "hashed": hashed_bot,
                                               "greedy2": greedy_bot}


def held_at(choose: Choose, records: Path, release: threading.Event) -> Choose:
    """``choose``, holding its answer once STOP_AFTER records of round 2 exist, until ``release`` is set."""
    def held(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
        if len(list(records.glob("r02-*.json"))) >= STOP_AFTER:
            release.wait()
        return choose(view, legal_moves)
    return held


@contextmanager
def field(wrap: Callable[[Choose], Choose] = lambda c: c) -> Iterator[dict[str, str]]:
    with ExitStack() as stack:
        yield {name: stack.enter_context(BotServer(wrap(make()))).url for name, make in STRATEGIES.items()}


def description(urls: dict[str, str]) -> dict[str, Any]:
    return {"name": "interrupted", "seed": "c1a551c0" * 4, "parallel": 2, "answer_ms": 600_000,
            "bots": [{"name": name, "url": url} for name, url in urls.items()],
            "games": [{"game": "femkort", "players": 2, "options": {"deals": 2}, "boards": 2}]}


def comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def outputs(out: Path) -> dict[str, Any]:
    found: dict[str, Any] = {p.name: comparable(json.loads(p.read_text())) for p in (out / "matches").glob("*.json")}
    found["rounds"] = json.loads((out / "tournament.json").read_text())["rounds"]  # its spec holds the bots' URLs
    found["standings.json"] = json.loads((out / "standings.json").read_text())
    for name in ("results.csv", "results.md"):
        found[name] = (out / name).read_text()
    return found


def wait_for(condition: Callable[[], bool], what: str, proc: subprocess.Popen[str]) -> None:
    while not condition():
        assert proc.poll() is None, f"the runner exited (code {proc.returncode}) before {what}"
        time.sleep(0.02)


def test_a_run_interrupted_in_round_2_resumes_to_the_records_and_standings_of_an_uninterrupted_run(
        service_url: str, tmp_path: Path) -> None:
    with field() as urls:  # the reference: the same tournament, played without a stop
        Runner(load(description(urls)), Client(service_url), tmp_path / "whole", progress=None).run()
    out, release = tmp_path / "out", threading.Event()
    with field(lambda c: held_at(c, out / "matches", release)) as urls:
        (tmp_path / "spec.json").write_text(json.dumps(description(urls)))
        command = [sys.executable, "-m", "card_referee_client", "tournament", "run", str(tmp_path / "spec.json"),
                   "--url", service_url, "--out", str(out)]
        with open(tmp_path / "stderr", "w+") as err:
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, text=True)
            try:
                wait_for(lambda: len(list((out / "matches").glob("r02-*.json"))) >= STOP_AFTER, "round 2", proc)
                proc.send_signal(signal.SIGINT)
                wait_for(lambda: "SIGINT: stopping" in (tmp_path / "stderr").read_text(), "the stop", proc)
                release.set()  # the matches in flight go on, and must be finished and recorded
                assert proc.wait(timeout=600) == 128 + signal.SIGINT
            finally:
                release.set()
                if proc.poll() is None:
                    proc.kill()
        said = (tmp_path / "stderr").read_text()
        assert "Traceback" not in said and "Resume with the same command" in said, said
        stopped = sorted(p.name for p in (out / "matches").glob("*.json"))
        assert all(json.loads((out / "matches" / name).read_text())["result"] for name in stopped)
        round2 = [n for n in stopped if n.startswith("r02-")]
        assert STOP_AFTER <= len(round2) < 8 and not [n for n in stopped if n.startswith("r03-")], stopped
        assert not (out / "standings.json").exists()

        resumed = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        assert resumed.returncode == 0, resumed.stderr
        assert f"resuming: {len(stopped)} match records found" in resumed.stderr
    assert outputs(out) == outputs(tmp_path / "whole")
    assert verify(out, Client(service_url)) == (24, None)


def test_an_out_directory_of_another_tournament_is_refused_unless_restarted(service_url: str, tmp_path: Path) -> None:
    with field() as urls:
        raw = {**description(urls), "games": [{"game": "femkort", "players": 2}]}
        (tmp_path / "a.json").write_text(json.dumps(raw))
        (tmp_path / "b.json").write_text(json.dumps({**raw, "seed": "b" * 32}))
        out = str(tmp_path / "out")
        assert main(["tournament", "run", str(tmp_path / "a.json"), "--url", service_url, "--out", out, "--quiet"]) == 0
        before = (tmp_path / "out" / "tournament.json").read_text()
        assert main(["tournament", "run", str(tmp_path / "b.json"), "--url", service_url, "--out", out,
                     "--quiet"]) == 2
        assert (tmp_path / "out" / "tournament.json").read_text() == before
        assert main(["tournament", "run", str(tmp_path / "b.json"), "--url", service_url, "--out", out, "--quiet",
                     "--restart"]) == 0
    assert json.loads((tmp_path / "out" / "tournament.json").read_text())["spec"]["seed"] == "b" * 32
    assert verify(tmp_path / "out", Client(service_url)) == (12, None)


def test_a_second_stop_abandons_the_matches_in_flight_and_a_resumed_run_plays_them_again(
        service_url: str, tmp_path: Path) -> None:
    asked, release = threading.Event(), threading.Event()

    def held(choose: Choose) -> Choose:
        def answer(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
            asked.set()
            release.wait()
            return choose(view, legal_moves)
        return answer

    stop, failed = Stop(), []
    with field(held) as urls:
        spec = load({**description(urls), "games": [{"game": "femkort", "players": 2}]})
        runner = Runner(spec, Client(service_url), tmp_path, progress=None, stop=stop)

        def play() -> None:
            try:
                runner.run()
            except Interrupted as exc:
                failed.append(exc)
        thread = threading.Thread(target=play)
        thread.start()
        asked.wait()  # two matches in flight, their bots holding an answer
        stop.request()
        stop.request()
        release.set()
        thread.join()
        assert len(failed) == 1 and failed[0].recorded == 0
        assert not list((tmp_path / "matches").glob("*.json"))
        Runner(spec, Client(service_url), tmp_path, progress=None).run()
    assert verify(tmp_path, Client(service_url)) == (12, None)
