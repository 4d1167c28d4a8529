"""Issue 26's done-when: a Swiss of 12 bots hosted by the service itself, over two service instances sharing one
Redis, one instance killed in the middle of round 2.

Two gunicorn instances (deploy/gunicorn.conf.py, configured by environment variables only, as in production)
share one private redis-server with AOF. Every bot is a separate process that uses only the client package
(``card_referee_client.hosted.run_bot``) and its own bot token, and is given both instances' addresses (half of
them the killed instance's first). The field:

- 8 good bots, the package's random and greedy bots;
- ``slow``: never answers a decision (it holds every one until the test ends), so each of its matches ends by
  its clock (``forfeit``) whatever the machine's load;
- ``illegal``: answers a card that is not among its legal moves at every decision;
- ``crasher``: plays like the random bot until it is asked to decide in a match of round 2 (it reads the
  tournament's public JSON, from the service, to know which round has begun), then exits: its stream is gone,
  so from round 3 on it is absent and handled by the declared policy;
- ``absent``: a process holding its token that never connects.

The clocks give 10 s a move: far more than any good bot needs on a loaded machine, so only the slow bot's
timeouts and the failing bots' matches depend on the policy, and nothing on the machine's speed. The absent
policy waits ``GRACE_S`` for a bot that is not connected, then concedes its matches of the round for it.

Once round 2 has both a finished and an unfinished table, instance 1 is killed (master and workers, SIGKILL);
once round 3 has, Redis is killed (SIGKILL) and started again on its append-only file.
Afterwards: the tournament finishes; every match the rounds call for has exactly one record, with its own
session; the standings equal a recomputation from the records with the shared library, byte for byte in CSV;
every bot's rating counts each of its rated matches once and the ladder lists them; ``card-referee tournament
verify`` passes on the downloaded archive and fails, naming the CSV, on an archive with one altered standings
row. The tournament page is checked in Chromium on the surviving instance during the run.
"""
from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

from card_referee_client.tournament.standings import Row, standings, to_csv
from tests.deploy.cluster import Client, Instance, group_alive
from tests.redis_server import RedisServer
from tests.web.conftest import browser  # noqa: F401  (Chromium, as the table view's tests drive it)

CLI = str(Path(sys.executable).with_name("card-referee"))
GAME = "femkort"
ROUNDS = 3
GRACE_S = 20          # how long the director waits for an entry that is not connected before conceding for it
CLOCK = {"move_ms": 10000, "policy": "forfeit"}
RUN_DEADLINE = 600    # seconds: a stuck tournament fails the test instead of hanging it
GOOD = [f"good{i}" for i in range(8)]
BAD = ["slow", "illegal", "crasher", "absent"]
DESCRIPTION = {"name": "hosted swiss", "format": "swiss", "rounds": ROUNDS, "seed": "5e1f" * 8,
               "games": [{"game": GAME, "players": 2, "options": {"deals": 1}, "boards": 1, "duplicate": True,
                          "clock": CLOCK}],
               "absent": {"grace_s": GRACE_S, "then": "forfeit"}, "start": None}

# One program for every kind of bot: ``python -c BOT KIND TOURNAMENT URL,URL`` with the token in BOT_TOKEN.
BOT = """
import json, os, sys, threading, urllib.request
from card_referee_client.bots import greedy_bot, random_bot
from card_referee_client.hosted import run_bot

kind, tournament, urls = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
token = os.environ.pop("BOT_TOKEN")
if kind == "absent":          # holds its token, never connects
    sys.stdin.read()
    sys.exit(0)
inner = greedy_bot() if kind.startswith("good") and int(kind[4:]) % 2 else random_bot(sum(map(ord, kind)))
never = threading.Event()


def round_begun() -> int:
    for url in urls:
        try:
            with urllib.request.urlopen(f"{url}/v1/tournaments/{tournament}", timeout=5) as answer:
                return len(json.load(answer)["rounds"])
        except OSError:
            continue
    return 0


def choose(view, legal_moves):
    if kind == "slow":
        never.wait()          # until the test ends: out of time at its first decision of every match
    if kind == "illegal":
        legal = {m.get("card") for m in legal_moves}
        return {"action": "play", "card": next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C") if c not in legal)}
    if kind == "crasher" and round_begun() >= 2:
        print("crashing in round 2", flush=True)
        os._exit(3)
    return inner(view, legal_moves)


run_bot(urls, token, choose, parallel=8)
"""


class Field:
    """The tournament's world: Redis, two instances, the registered bots and their processes."""

    def __init__(self, redis: RedisServer, instances: list[Instance]) -> None:
        self.redis, self.instances = redis, instances
        self.bots: dict[str, dict[str, Any]] = {}           # name -> {"id", "token"}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs = Path(tempfile.mkdtemp(prefix="cr-hosted-bots-"))

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.instances[i].port}"

    def start_bot(self, name: str, tournament: str, order: list[int]) -> None:
        urls = ",".join(self.url(i) for i in order)
        with open(self.logs / f"{name}.log", "ab") as log:
            self.procs[name] = subprocess.Popen(
                [sys.executable, "-c", BOT, name, tournament, urls],
                env={**os.environ, "BOT_TOKEN": self.bots[name]["token"], "PYTHONUNBUFFERED": "1"},
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop_bots(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture(scope="module")
def field() -> Iterator[Field]:
    env = {"KEY_PREFIX": f"hs{uuid.uuid4().hex[:6]}:", "SESSION_QUOTA": "off", "EVENTS_HEARTBEAT": "2",
           "STATE_TAG_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode()}
    with RedisServer(appendonly=True) as redis, ExitStack() as stack:
        instances = [stack.enter_context(Instance(redis.url, env, name=f"host{i}", workers=1)) for i in range(2)]
        made = Field(redis, instances)
        stack.callback(shutil.rmtree, made.logs, True)
        stack.callback(made.stop_bots)
        yield made
    leftovers = [inst.name for inst in instances if inst.proc is not None and group_alive(inst.proc.pid)]
    assert not leftovers, f"processes left behind by {leftovers}"


def call(client: Client, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    answer = client.call(method, path, body, {"Authorization": f"Bearer {token}"} if token else None)
    assert answer.status < 300, (method, path, answer)
    return answer.body


def wait_for(what: str, check: Any, seconds: float, every: float = 0.2) -> Any:
    stop = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < stop, f"timed out waiting for {what}"
        time.sleep(every)


def unfinished_and_finished(t: dict[str, Any], index: int) -> bool:
    rounds = [r for r in t["rounds"] if r["index"] == index]
    if not rounds:
        return False
    results = [table["result"] for table in rounds[0]["tables"]]
    return any(r is None for r in results) and any(r is not None for r in results)


def recomputed(archive: dict[str, Any]) -> list[dict[str, Any]]:
    """The standings from the archive's records and byes, with the shared library."""
    records = archive["matches"]
    in_records = {b for rec in records for b in rec["bots"]}
    entries = archive["tournament"]["entries"]
    key = "bot" if in_records <= {e["bot"] for e in entries} else "name"
    byes = [(b, int(r["game"].rsplit("/", 1)[1])) for r in archive["rounds"] for b in r.get("byes", [])]
    return [row.to_json() for row in standings([e[key] for e in entries], records, byes)]


PAGE_STATE = """
const cells = (css) => [...document.querySelectorAll(css)].map((e) => e.textContent);
return {live: document.body.dataset.live, status: document.body.dataset.status,
        bots: cells("#standings tbody tr td:nth-child(2)"), progress: document.getElementById("progress").textContent,
        links: [...document.querySelectorAll("#tables a.table-link")].map((a) => a.href)};
"""


def page_state(driver: webdriver.Chrome) -> dict[str, Any]:
    """What the page shows, read in one script (the page re-renders on every event)."""
    state: dict[str, Any] = driver.execute_script(PAGE_STATE)
    return state


def check_page(driver: webdriver.Chrome, base: str, tid: str, names: set[str]) -> None:
    """The page on the surviving instance: live, every entry in the standings, the round's tables linked."""
    driver.get(f"{base}/tournaments/{tid}")
    state = WebDriverWait(driver, 30).until(
        lambda d: (s := page_state(d))["live"] == "true" and len(s["bots"]) == len(names) and s["links"] and s)
    assert set(state["bots"]) == names
    assert all(link.startswith(f"{base}/table/") for link in state["links"]), state["links"]
    assert "matches played" in state["progress"]


def test_a_hosted_swiss_survives_a_killed_instance(field: Field, browser: webdriver.Chrome,  # noqa: F811
                                                   tmp_path: Path) -> None:
    started = time.monotonic()
    survivor, victim = field.instances[0], field.instances[1]
    api = Client(survivor.port)
    names = GOOD + BAD
    for name in names:
        field.bots[name] = call(api, "POST", "/v1/bots", {"name": name, "owner": f"{name}@example.org"})
    created = call(api, "POST", "/v1/tournaments",
                   {"description": DESCRIPTION, "entries": [field.bots[n]["id"] for n in names]})
    tid, organiser = created["id"], created["organiser_token"]
    assert created["page"] == f"/tournaments/{tid}"
    for i, name in enumerate(names):
        field.start_bot(name, tid, [1, 0] if i % 2 else [0, 1])
    playing = [n for n in names if n != "absent"]
    wait_for("every bot but the absent one to connect",
             lambda: all(call(api, "GET", f"/v1/bots/{field.bots[n]['id']}")["connected"] for n in playing), 60)
    call(api, "POST", f"/v1/tournaments/{tid}/start", {}, organiser)

    # Round 1 under way: the page follows it on the surviving instance.
    wait_for("round 1", lambda: call(api, "GET", f"/v1/tournaments/{tid}")["rounds"], 60)
    check_page(browser, field.url(0), tid, set(names))

    # Kill instance 1 once round 2 has a finished and an unfinished table.
    seen = wait_for("the middle of round 2",
                    lambda: (t := call(api, "GET", f"/v1/tournaments/{tid}")) and unfinished_and_finished(t, 2) and t,
                    RUN_DEADLINE, every=0.05)
    victim.kill()
    assert victim.proc is not None and not group_alive(victim.proc.pid)
    done_at_kill = seen["progress"]["done"]
    # The page, on the surviving instance, goes on following the tournament.
    WebDriverWait(browser, 60).until(lambda d: int(d.execute_script("return document.body.dataset.done")) > done_at_kill)

    # Redis is killed and started again on its append-only file once round 3 is under way.
    wait_for("the middle of round 3",
             lambda: unfinished_and_finished(call(api, "GET", f"/v1/tournaments/{tid}"), 3), RUN_DEADLINE, every=0.05)
    restart_redis(field.redis)

    final = wait_for("the tournament to finish",
                     lambda: (t := call(api, "GET", f"/v1/tournaments/{tid}"))["status"] == "finished" and t,
                     RUN_DEADLINE - (time.monotonic() - started), every=0.5)
    shown = WebDriverWait(browser, 20).until(lambda d: (s := page_state(d))["status"] == "finished" and s)
    assert shown["progress"].startswith(f"{final['progress']['total']} of "), shown
    assert final["progress"]["done"] == final["progress"]["total"] > done_at_kill

    # The bots did what they were written to do.
    assert field.procs["crasher"].poll() == 3 and "crashing in round 2" in field.log("crasher")
    assert all(field.procs[n].poll() is None for n in playing if n != "crasher"), \
        {n: field.log(n)[-2000:] for n in playing if field.procs[n].poll() is not None}

    # Every match the rounds call for has exactly one record, with its own session.
    archive = call(api, "GET", f"/v1/tournaments/{tid}/records")
    assert archive["format"] == "card-referee-tournament-archive/1"
    assert len(archive["rounds"]) == len(final["rounds"]) == ROUNDS
    called_for = [table["match"] for r in final["rounds"] for table in r["tables"]]
    recorded = [rec["match"] for rec in archive["matches"]]
    assert len(called_for) == len(set(called_for))
    assert sorted(recorded) == sorted(called_for), Counter(recorded) - Counter(called_for)
    sessions = [rec["session"] for rec in archive["matches"]]
    assert len(set(sessions)) == len(sessions)
    assert {table["session"] for r in final["rounds"] for table in r["tables"]} == set(sessions)

    # The failing bots' matches ended by the declared policies; the good bots met no incident.
    ids = {field.bots[n]["id"]: n for n in names}
    incidents = Counter((ids.get(i["bot"], i["bot"]), i["kind"], rec["round"])
                        for rec in archive["matches"] for i in rec["incidents"])
    kinds = {bad: {kind for (bot, kind, _) in incidents if bot == bad} for bad in BAD}
    assert "timeout" in kinds["slow"] and {"illegal", "forfeit"} <= kinds["illegal"], kinds
    # run_bot gives a match up once a move is refused: the concession, with its reason, is among the ends of
    # the record of every match the illegal bot forfeited.
    lost = [rec for rec in archive["matches"] if (f := rec["result"].get("forfeited")) is not None
            and rec["bots"][f] == "illegal"]
    assert lost and all("illegal" in json.dumps(rec["ends"]) for rec in lost), [rec["ends"] for rec in lost]
    assert kinds["absent"] & {"timeout", "absent"}, kinds
    assert {r for (bot, _, r) in incidents if bot == "crasher"} == {2, 3}, incidents
    assert not [k for k in incidents if k[0] in GOOD], incidents

    # The tournament's event stream, read from its start (its events are told at least once: a tick killed
    # between a write and its telling is told again by the next): every round begun, every match's end told,
    # the never-connected bot named absent at every round's pre-flight.
    events = tournament_events(survivor.port, tid)
    begun = [data["round"] for name, data in events if name == "round_started"]
    assert sorted(set(begun)) == list(range(1, ROUNDS + 1)), begun
    ended = [data["match"] for name, data in events if name == "match_ended"]
    assert set(ended) == set(recorded), set(recorded) ^ set(ended)
    for index in range(1, ROUNDS + 1):
        absent = [data["absent"] for name, data in events if name == "preflight" and data["round"] == index]
        assert absent and all("absent" in a for a in absent), (index, absent)

    # The standings are a recomputation from the records, and the CSV table is the shared library's.
    rows = recomputed(archive)
    published = archive["standings"]["json"]
    assert [{k: v for k, v in row.items() if k != "rating"} for row in published] == rows
    assert archive["standings"]["csv"] == to_csv(standings_rows(rows))
    assert [{k: v for k, v in row.items() if k != "rating"} for row in final["standings"]] == rows
    csv = survivor_text(survivor.port, f"/v1/tournaments/{tid}/standings?format=csv")
    assert csv == archive["standings"]["csv"]

    # Ratings: each bot's rated matches counted once, on the bot and on the ladder.
    played = Counter(b for rec in archive["matches"] for b in rec["bots"])
    ladder = call(api, "GET", f"/v1/games/{GAME}/ladder")["ladder"]
    assert [r["ordinal"] for r in ladder] == sorted((r["ordinal"] for r in ladder), reverse=True)
    by_bot = {r["bot"]: r for r in ladder}
    for name in names:
        bot_id = field.bots[name]["id"]
        rating = call(api, "GET", f"/v1/bots/{bot_id}")["ratings"][GAME]
        assert rating["matches"] == played[bot_id] or rating["matches"] == played[name], (name, rating)
        assert by_bot[bot_id]["matches"] == rating["matches"] and by_bot[bot_id]["ordinal"] == rating["ordinal"]
    best, worst = by_bot[field.bots[ranked_first(published, ids)]["id"]], by_bot[field.bots["slow"]["id"]]
    assert best["ordinal"] > worst["ordinal"]

    # verify passes on the downloaded archive, and fails on one altered standings CSV row.
    path = tmp_path / "archive.json"
    downloaded = run_cli(["tournament", "records", tid, "--url", field.url(0), "--out", str(path)])
    assert downloaded.returncode == 0, downloaded.stdout + downloaded.stderr
    assert json.loads(path.read_text()) == archive
    ok = run_cli(["tournament", "verify", str(path), "--url", field.url(0)])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lines = archive["standings"]["csv"].splitlines(keepends=True)
    cells = lines[2].split(",")
    cells[2] = str(float(cells[2]) + 1).removesuffix(".0")       # the second bot's points
    lines[2] = ",".join(cells)
    altered = {**archive, "standings": {**archive["standings"], "csv": "".join(lines)}}
    bad_path = tmp_path / "altered.json"
    bad_path.write_text(json.dumps(altered))
    refused = run_cli(["tournament", "verify", str(bad_path), "--url", field.url(0)])
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "csv" in (refused.stdout + refused.stderr).lower()
    print(f"\nhosted Swiss: {len(recorded)} matches, instance killed after {done_at_kill}, Redis restarted in round 3; "
          f"{time.monotonic() - started:.0f} s")


def standings_rows(rows: list[dict[str, Any]]) -> list[Row]:
    return [Row(**row) for row in rows]


def ranked_first(published: list[dict[str, Any]], ids: dict[str, str]) -> str:
    top = str(published[0]["bot"])
    return ids.get(top, top)


def survivor_text(port: int, path: str) -> str:
    answer = Client(port).call("GET", path)
    assert answer.status == 200, answer
    return str(answer.body)


def tournament_events(port: int, tid: str) -> list[tuple[str, dict[str, Any]]]:
    """Every event of the tournament's stream from its start, up to tournament_finished."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/v1/tournaments/{tid}/events", headers={"Accept": "text/event-stream"})
    answer = conn.getresponse()
    assert answer.status == 200, answer.status
    events: list[tuple[str, dict[str, Any]]] = []
    name, data = "", []
    try:
        while not events or events[-1][0] != "tournament_finished":
            line = answer.readline().decode().rstrip("\r\n")
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif not line and data:
                events.append((name, json.loads("\n".join(data))))
                name, data = "", []
    finally:
        conn.close()
    return events


def restart_redis(redis: RedisServer) -> None:
    """SIGKILL, then the same port and directory: only what the append-only file holds comes back."""
    redis.kill()
    redis.start()


def run_cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300, check=False)
