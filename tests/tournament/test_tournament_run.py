"""Issue 16's done-when: a 6-bot round robin of Femkort and Davoserjazz on loopback, with one bot too slow, one
that answers illegal moves and one that crashes, each handled by the declared policy; ``verify`` passes on the
records and fails on a record with one altered move.

The service runs as shipped (gunicorn with deploy/gunicorn.conf.py, two workers) on a private redis-server; the
tournament runs through the ``card-referee`` command. The field:

- ``random`` and ``greedy``: the package's example bots, as HTTP endpoints;
- ``joiner``: a random bot that is a program joining each match with its seat token;
- ``slow``: at its first decision in each match it never answers (it holds the request until the test ends);
  later decisions it answers at once. So it is out of time exactly once per match however loaded the machine
  is, and nothing else is;
- ``illegal``: answers a card it does not hold;
- ``crasher``: a bot process that dies (os._exit) at its third decision; afterwards nothing answers at its address.

The clocks give 10 s a move and no bank: far more than any bot here needs on a loaded machine (a program bot
starts a Python process per match), so only the slow bot is ever charged a timeout, and no test result depends
on the machine's speed. Femkort (two players) runs under the ``auto`` policy: the service plays the slow bot's
timed-out moves and, after a concession, every move of the illegal and the crashed bot. Davoserjazz (three
players) runs under ``forfeit``: a timeout or a concession ends the match with that seat last.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bench.http_bench import Service
from card_referee_client import BotServer, greedy_bot, random_bot
from card_referee_client.bots import Choose
from tests.redis_server import RedisServer

CLI = str(Path(sys.executable).with_name("card-referee"))
# 10 s a move, no bank: a program bot (a new Python process each match) starts well within it on a loaded machine
FEMKORT_CLOCK = {"move_ms": 10000, "policy": "auto"}
DAVOSERJAZZ_CLOCK = {"move_ms": 10000, "policy": "forfeit"}
BAD = {"slow", "illegal", "crasher"}
CRASHER = """
import os, sys
from card_referee_client import BotServer
from card_referee_client.bots import random_bot
inner, seen = random_bot(5), []
def choose(view, legal_moves):
    seen.append(1)
    if len(seen) == 3:
        os._exit(1)
    return inner(view, legal_moves)
bot = BotServer(choose).start()
print(bot.url, flush=True)
bot.thread.join()
"""


class SlowBot:
    """An HTTP bot that holds its first decision of each session until ``stop()`` and answers the others at once:
    out of time once a match, whatever the machine's speed (the runner stops waiting at the seat's deadline)."""

    def __init__(self) -> None:
        seen: set[str] = set()
        lock, self.released, inner = threading.Lock(), threading.Event(), random_bot(11)
        released = self.released

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                ask = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    first = ask["session"] not in seen
                    seen.add(ask["session"])
                if first:
                    released.wait()
                body = json.dumps({"move": inner(ask["view"], ask["legal_moves"])}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the runner stopped waiting long ago
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def illegal_bot() -> Choose:
    def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
        seat = legal_moves[0]["seat"]
        held = set(view["hands"][seat])
        card = next(r + s for s in "CDHS" for r in "23456789TJQKA" if r + s not in held)
        return {"seat": seat, "action": "play", "card": card}
    return choose


@pytest.fixture
def played(tmp_path: Path) -> Iterator[dict[str, Any]]:
    work = tmp_path
    crasher = subprocess.Popen([sys.executable, "-c", CRASHER], stdout=subprocess.PIPE, text=True)
    slow = SlowBot()
    try:
        crasher_url = (crasher.stdout.readline() if crasher.stdout else "").strip()
        with RedisServer() as redis, Service(2, redis.url, work, app="service.app:create_app()") as svc, \
                BotServer(random_bot(1)) as rnd, BotServer(greedy_bot()) as greedy, \
                BotServer(illegal_bot()) as illegal:
            url = f"http://127.0.0.1:{svc.port}"
            spec = {"name": "done-when", "format": "round_robin", "seed": "d0e5" * 8, "parallel": 8,
                    "bots": [{"name": "random", "url": rnd.url}, {"name": "greedy", "url": greedy.url},
                             {"name": "joiner", "command": [sys.executable, "-m", "card_referee_client", "bot",
                                                            "random", "--url={url}", "--session={session}",
                                                            "--token={token}"]},
                             {"name": "slow", "url": slow.url}, {"name": "illegal", "url": illegal.url},
                             {"name": "crasher", "url": crasher_url}],
                    "games": [{"game": "femkort", "players": 2, "clock": FEMKORT_CLOCK},
                              {"game": "davoserjazz", "players": 3, "clock": DAVOSERJAZZ_CLOCK}]}
            (work / "spec.json").write_text(json.dumps(spec))
            out = work / "out"
            started = time.monotonic()
            run = subprocess.run([CLI, "tournament", "run", str(work / "spec.json"), "--url", url, "--out", str(out)],
                                 capture_output=True, text=True, timeout=240, check=False)
            seconds = time.monotonic() - started
            print(run.stderr[-3000:])
            assert run.returncode == 0, run.stderr[-3000:]
            verified = subprocess.run([CLI, "tournament", "verify", str(out), "--url", url],
                                      capture_output=True, text=True, timeout=120, check=False)
            records = [json.loads(p.read_text()) for p in sorted((out / "matches").glob("*.json"))]
            yield {"out": out, "url": url, "run": run, "seconds": seconds, "verified": verified, "records": records}
    finally:
        slow.stop()
        crasher.kill()
        crasher.wait()


def incidents_of(records: list[dict[str, Any]], bot: str) -> set[str]:
    return {i["kind"] for r in records for i in r["incidents"] if i["bot"] == bot}


def check_every_match_of_the_round_robin_was_played_and_reported(played: dict[str, Any]) -> None:
    records = played["records"]
    femkort = [r for r in records if r["game"] == "femkort"]
    davoserjazz = [r for r in records if r["game"] == "davoserjazz"]
    assert len(femkort) == 15 * 2 and len(davoserjazz) == 20 * 3  # every pair / trio, every seat rotation
    assert all(r["result"] is not None for r in records)
    out = played["out"]
    assert (out / "results.csv").read_text().count("\n") == 7
    assert (out / "standings.png").stat().st_size > 1000
    assert "[90/90, " in played["run"].stderr  # progress, match by match, with the total
    print(f"tournament: {len(records)} matches in {played['seconds']:.1f} s")


def check_the_slow_bot_is_timed_out_by_the_service_clock(played: dict[str, Any]) -> None:
    records = played["records"]
    assert incidents_of(records, "slow") == {"timeout", "forfeit"}
    auto_timeouts = [m for r in records if r["game"] == "femkort" for m in r["moves"] if m.get("timeout")]
    assert auto_timeouts and all(r["bots"][m["seat"]] == "slow" for r in records for m in r["moves"]
                                 if m.get("timeout") and r["game"] == "femkort")
    forfeits = [r for r in records if r["game"] == "davoserjazz" and r["result"]["ended_by"] == "timeout"]
    assert forfeits and all(r["bots"][r["result"]["forfeited"]] == "slow" for r in forfeits)
    for r in forfeits:  # applied by the service's clock while the runner only waited, and listed as incidents
        end = next(e for e in r["ends"] if e["type"] == "timeout")
        assert end["elapsed_ms"] >= DAVOSERJAZZ_CLOCK["move_ms"], end
        assert [(i["bot"], i["kind"]) for i in r["incidents"]] == [("slow", "timeout"), ("slow", "forfeit")]
    timeouts = sum(1 for r in records for m in r["moves"] + r["ends"] if m.get("timeout") or m.get("type") == "timeout")
    assert timeouts == sum(1 for r in records for i in r["incidents"] if i["kind"] == "timeout")
    table = (played["out"] / "results.md").read_text()
    assert "timeout" in next(line for line in table.splitlines() if "| slow |" in line)


def check_illegal_and_crashed_bots_concede_by_the_policy(played: dict[str, Any]) -> None:
    records = played["records"]
    assert incidents_of(records, "illegal") == {"illegal", "forfeit"}
    assert incidents_of(records, "crasher") == {"crashed", "forfeit"}
    for bot in ("random", "greedy", "joiner"):  # with clocks this generous, never a timeout either
        assert incidents_of(records, bot) == set(), bot
    for r in records:
        conceded = [e for e in r["ends"] if e["type"] == "concession"]
        assert all(r["bots"][e["seat"]] in {"illegal", "crasher"} for e in conceded)
        if r["game"] == "femkort":  # auto: the match went on to its end, the service playing the seat
            assert r["result"]["ended_by"] == "play"
            for e in conceded:
                assert any(m.get("auto") and m["seat"] == e["seat"] for m in r["moves"] if m["version"] > e["version"]) \
                    or r["moves"][-1]["version"] < e["version"]
        elif conceded:  # forfeit: the concession ended the match with that seat last
            assert r["result"]["ended_by"] == "concession" and r["result"]["forfeited"] == conceded[0]["seat"]
            assert r["result"]["ranking"][-1] == conceded[0]["seat"]


def check_the_bad_bots_lose_their_davoserjazz_matches_and_the_good_ones_never_forfeit(played: dict[str, Any]) -> None:
    for r in played["records"]:
        forfeited = r["result"].get("forfeited")
        assert forfeited is None or r["bots"][forfeited] in BAD, r["match"]
    standings = json.loads((played["out"] / "standings.json").read_text())["final"]
    assert {row["bot"] for row in standings if row["forfeits"]} <= BAD


def check_verify_passes_on_the_records(played: dict[str, Any]) -> None:
    assert played["verified"].returncode == 0, played["verified"].stdout + played["verified"].stderr
    assert "OK: 90 match records" in played["verified"].stdout


def check_verify_fails_on_a_record_with_one_altered_move(played: dict[str, Any]) -> None:
    copy = played["out"].parent / "altered"
    subprocess.run(["cp", "-r", str(played["out"]), str(copy)], check=True)
    path = next(p for p in sorted((copy / "matches").glob("*davoserjazz*.json"))
                if len(json.loads(p.read_text())["moves"]) > 20)
    rec = json.loads(path.read_text())
    move = rec["moves"][10]["move"]
    hand = [m["move"]["card"] for m in rec["moves"][11:] if m["seat"] == move["seat"] and "card" in m["move"]]
    move["card"] = hand[-1]  # a card the seat still held, played out of its turn in the deal
    path.write_text(json.dumps(rec))
    failed = subprocess.run([CLI, "tournament", "verify", str(copy), "--url", played["url"]],
                            capture_output=True, text=True, timeout=120, check=False)
    assert failed.returncode == 1, failed.stdout
    assert f"matches/{path.name}" in failed.stdout, failed.stdout


def check_every_move_is_recorded_with_its_time(played: dict[str, Any]) -> None:
    for r in played["records"]:
        assert r["commitment"] and r["seed"] and r["bots"]
        for m in r["moves"]:
            assert isinstance(m["elapsed_ms"], int) and m["elapsed_ms"] >= 0
            datetime.fromisoformat(m["at"].replace("Z", "+00:00"))


def test_a_six_bot_round_robin_of_femkort_and_davoserjazz_with_a_slow_an_illegal_and_a_crashing_bot(
        played: dict[str, Any]) -> None:
    """One test, so that the tournament is played once even when the suite runs on several workers."""
    check_every_match_of_the_round_robin_was_played_and_reported(played)
    check_the_slow_bot_is_timed_out_by_the_service_clock(played)
    check_illegal_and_crashed_bots_concede_by_the_policy(played)
    check_the_bad_bots_lose_their_davoserjazz_matches_and_the_good_ones_never_forfeit(played)
    check_verify_passes_on_the_records(played)
    check_verify_fails_on_a_record_with_one_altered_move(played)
    check_every_move_is_recorded_with_its_time(played)
