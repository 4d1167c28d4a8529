"""Time controls, concessions, aborts and presence (docs/sessions.md, "Time controls").

The clocks are the server's: a timeout is applied by the applier of whichever instance claims it first, with
no client calling; a move that comes after its seat's deadline finds the timeout applied first. Each policy
(forfeit, auto, penalty) is played out, and a forfeited or aborted match's result is recomputed by /replay
from its log's ``replay`` (with ``end``).
"""
from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import engine
from service.sessions.referee import REF
from service.sessions.timeouts import Applier
from tests.api.test_sessions import Table, app, client, is_problem, true_state  # noqa: F401 - fixtures
from tests.engine.playout import hidden_copies_shown

SEED = "c10c" * 8


def clocked(client: FlaskClient, game: str = "femkort", players: int = 3, **clock: Any) -> Table:
    return Table(client, game, players=players, options={"deals": 1} if game == "femkort" else {}, seed=SEED,
                 clock=clock)


def wait_until(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def first_to_act(table: Table) -> int:
    """The seat on turn at version 0 (read from the rules: the service may have timed it out already)."""
    return engine.to_act(engine.new_match("femkort", 3, table.created["options"], SEED))[0]


def stop_appliers(*apps: Flask) -> None:
    for a in apps:
        a.extensions["timeout_applier"].stop()


# ----- creating -----------------------------------------------------------------------------
def test_the_clock_is_echoed_and_shown_in_every_answer(client: FlaskClient) -> None:
    table = clocked(client, move_ms=60_000, bank_ms=300_000, increment_ms=2_000, policy="auto")
    assert table.created["clock"] == {"policy": "auto", "move_ms": 60_000, "bank_ms": 300_000, "increment_ms": 2_000}
    before = int(time.time() * 1000)
    view = table.get(0)
    clock = view["clock"]
    assert clock["policy"] == "auto" and abs(clock["server_time_ms"] - before) < 5_000
    on_turn = view["to_act"]
    for seat in clock["seats"]:
        assert seat["running"] == (seat["seat"] in on_turn)
        assert seat["remaining_ms"] <= 300_000
        if seat["running"]:
            assert 0 < seat["deadline_ms"] - clock["server_time_ms"] <= 60_000
        else:
            assert seat["deadline_ms"] is None and seat["remaining_ms"] == 300_000
    assert view["presence"] == [{"seat": s, "connected": False, "since": None} for s in range(3)]
    plain = Table(client, "femkort", players=3)
    assert plain.created["clock"] is None and plain.get()["clock"] is None


@pytest.mark.parametrize("clock", [{}, {"policy": "auto"}, {"move_ms": 99}, {"bank_ms": 86_400_001},
                                   {"move_ms": 1000, "policy": "slow"}, {"move_ms": 1000, "increment_ms": -1},
                                   {"move_ms": "1000"}, {"move_ms": 1000, "extra": 1}, [1000]])
def test_a_bad_clock_is_400(client: FlaskClient, clock: Any) -> None:
    resp = client.post("/v1/sessions", json={"game": "femkort", "clock": clock})
    is_problem(resp, 400, "invalid_request")


def test_a_move_in_time_is_charged_to_the_bank_with_its_increment(client: FlaskClient) -> None:
    table = clocked(client, bank_ms=60_000, increment_ms=1_000)
    seat = table.get()["to_act"][0]
    time.sleep(0.25)
    move = table.get(seat)["legal_moves"][0]
    after = table.post(seat, {"move": move}).get_json()
    mine = after["clock"]["seats"][seat]
    assert not mine["running"] and 60_000 + 1_000 - 1_500 < mine["remaining_ms"] <= 60_000 + 1_000 - 250
    entry = table.log()["entries"][0]
    assert entry["type"] == "move" and 250 <= entry["elapsed_ms"] < 1_500 and "auto" not in entry
    assert entry["at"] == entry["time"]


# ----- timeouts: every policy -------------------------------------------------------------------
def test_a_timeout_fires_within_a_second_with_no_client_calling_on_two_instances_exactly_once(
        make_app: Callable[..., Flask]) -> None:
    """Two instances share one Redis (and key prefix); each runs its applier; nobody calls after the
    creation. The timeout is applied within 1 s of the deadline, by exactly one of them, once."""
    first = make_app()
    second = make_app(key_prefix=first.extensions["card_referee_config"].key_prefix)
    appliers: list[Applier] = [a.extensions["timeout_applier"] for a in (first, second)]
    for applier in appliers:
        applier.start()
    table = clocked(first.test_client(), move_ms=400, policy="forfeit")
    seat = first_to_act(table)
    deadline = table.get()["clock"]["seats"][seat]["deadline_ms"]
    store = second.extensions["session_store"]
    wait_until(lambda: store.load(table.id).finished, timeout=3.0)
    wait_until(lambda: sum(a.applied for a in appliers) == 1, timeout=1.0)  # counted once its claim is done
    log = second.test_client().get(f"/v1/sessions/{table.id}/log").get_json()
    (entry,) = log["entries"]
    assert 0 <= epoch_ms(entry["time"]) - deadline < 1_000  # when the service applied it
    assert entry["type"] == "timeout" and entry["seat"] == seat and entry["ends"] and entry["reason"]
    assert 400 <= entry["elapsed_ms"] < 1_400
    assert log["result"]["ended_by"] == "timeout" and log["result"]["forfeited"] == seat
    assert log["result"]["ranking"][-1] == seat and sum(log["result"]["payoffs"]) == 0
    assert log["replay"]["end"] == {"by": "timeout", "seat": seat}
    replayed = first.test_client().post("/v1/games/femkort/replay", json=log["replay"]).get_json()
    assert replayed["result"] == log["result"] and replayed["finished"]
    time.sleep(0.6)  # the appliers keep polling: nothing more happens
    assert sum(a.applied for a in appliers) == 1 and table.get()["version"] == 1
    stop_appliers(first, second)


def test_a_move_after_its_deadline_finds_the_timeout_applied_first(app: Flask, client: FlaskClient) -> None:
    stop_appliers(app)  # no applier: the late move itself applies the timeout
    table = clocked(client, move_ms=150, policy="forfeit")
    seat = table.get()["to_act"][0]
    move = table.get(seat)["legal_moves"][0]
    time.sleep(0.3)
    late = table.post(seat, {"move": move, "version": 0})
    assert is_problem(late, 409, "version_conflict")["version"] == 1
    late = table.post(seat, {"move": move})
    assert is_problem(late, 422, "illegal_move")["reason"] == "match_over"
    result = table.get()["result"]
    assert result["ended_by"] == "timeout" and result["forfeited"] == seat


def test_the_auto_policy_plays_the_first_legal_move_and_the_match_goes_on(app: Flask, client: FlaskClient) -> None:
    table = clocked(client, move_ms=100, policy="auto")
    app.extensions["timeout_applier"].start()
    wait_until(lambda: table.get()["version"] >= 4, timeout=5.0)
    entries = table.log()["entries"][:4]
    state = engine.new_match("femkort", 3, table.created["options"], SEED)
    for entry in entries:
        seat = entry["seat"]
        assert entry["type"] == "move" and entry["auto"] and entry["timeout"] and "penalty" not in entry
        assert entry["move"] == engine.auto_move(state, seat)  # deterministic: the first legal move
        state, _ = engine.apply(state, entry["move"])
    final = wait_until(lambda: table.get() if table.get()["finished"] else None, timeout=15.0)
    assert final["result"]["ended_by"] == "play" and final["result"]["forfeited"] is None
    log = table.log()
    assert "end" not in log["replay"] and all(e["auto"] for e in log["entries"])
    assert client.post("/v1/games/femkort/replay", json=log["replay"]).get_json()["result"] == log["result"]
    stop_appliers(app)


def test_the_penalty_policy_moves_for_the_seat_and_counts_it(app: Flask, client: FlaskClient) -> None:
    stop_appliers(app)
    table = clocked(client, move_ms=150, policy="penalty")
    first = table.get()["to_act"][0]
    time.sleep(0.2)
    assert app.extensions["timeout_applier"].run_once() == 1
    (entry,) = table.log()["entries"][:1]
    assert entry["seat"] == first and entry["auto"] and entry["timeout"] and entry["penalty"]
    while not table.get()["finished"]:
        seat = table.get()["to_act"][0]
        assert table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).status_code == 200
    result = table.get()["result"]
    assert result["ended_by"] == "play" and result["penalties"] == [1 if s == first else 0 for s in range(3)]


def test_a_bank_that_runs_out_times_the_seat_out(app: Flask, client: FlaskClient) -> None:
    table = clocked(client, move_ms=60_000, bank_ms=300, policy="forfeit")
    app.extensions["timeout_applier"].start()
    seat = first_to_act(table)
    final = wait_until(lambda: table.get() if table.get()["finished"] else None, timeout=3.0)
    assert final["result"]["forfeited"] == seat and final["clock"]["seats"][seat]["remaining_ms"] == 0
    assert all(not s["running"] for s in final["clock"]["seats"])
    stop_appliers(app)


def test_timeouts_on_the_in_process_store() -> None:
    from service.app import create_app
    from service.config import Config
    memory = create_app(Config(testing=True, log_level="WARNING", session_quota=None))
    table = clocked(memory.test_client(), move_ms=200, policy="forfeit")
    assert memory.extensions["session_store"].name == "memory"
    wait_until(lambda: table.get()["finished"], timeout=2.0)
    assert table.get()["result"]["ended_by"] == "timeout"
    stop_appliers(memory)


# ----- concede and abort ---------------------------------------------------------------------
def concede(table: Table, seat: int, body: Any = None, path: str = "concede") -> Any:
    return table.client.post(f"/v1/sessions/{table.id}/{path}", headers=table.auth(seat),
                             **({} if body is None else {"json": body}))


def test_a_concession_under_forfeit_ends_the_match_with_the_seat_last(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=4, seed=SEED)  # no clock: a concession forfeits
    resp = concede(table, 2, {"reason": "my bot crashed"})
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["seat"] == 2 and body["finished"] and body["version"] == 1
    assert body["result"]["ended_by"] == "concession" and body["result"]["forfeited"] == 2
    assert body["result"]["ranking"][-1] == 2 and body["result"]["payoffs"] == [1, 1, -3, 1]
    (entry,) = table.log()["entries"]
    assert entry == {**entry, "type": "concession", "seat": 2, "reason": "my bot crashed", "ends": True}
    is_problem(concede(table, 1), 409, "match_over")
    is_problem(concede(table, 1, path="abort"), 409, "match_over")
    replay = table.log()["replay"]
    assert client.post("/v1/games/femkort/replay", json=replay).get_json()["result"] == body["result"]


def test_a_concession_under_auto_lets_the_service_play_for_the_seat(app: Flask, client: FlaskClient) -> None:
    stop_appliers(app)  # the moves for a conceded seat are made at once, by the request that makes them due
    table = clocked(client, move_ms=600_000, policy="auto")
    assert concede(table, 1).status_code == 200
    assert concede(table, 1).get_json()["version"] == table.get()["version"]  # again: nothing changes
    while not table.get()["finished"]:
        seat = table.get()["to_act"][0]
        assert seat != 1
        assert table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).status_code == 200
    log = table.log()
    concession = log["entries"][0]
    assert concession["type"] == "concession" and concession["seat"] == 1 and not concession["ends"]
    by_one = [e for e in log["entries"][1:] if e["seat"] == 1]
    assert by_one and all(e["auto"] and "timeout" not in e for e in by_one)
    assert log["result"]["ended_by"] == "play" and "end" not in log["replay"]


def test_an_abort_before_the_first_trick_and_not_after(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3, seed=SEED)
    seat = table.get()["to_act"][0]
    assert table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).status_code == 200
    resp = concede(table, 0, {"reason": "wrong table"}, path="abort")
    assert resp.status_code == 200
    result = resp.get_json()["result"]
    assert result == {**result, "ended_by": "abort", "forfeited": None, "payoffs": [0, 0, 0], "ranking": []}
    assert table.log()["entries"][-1]["type"] == "abort"
    replay = table.log()["replay"]
    assert replay["end"] == {"by": "abort", "seat": 0}
    assert client.post("/v1/games/femkort/replay", json=replay).get_json()["result"] == result

    later = Table(client, "femkort", players=3, seed=SEED)
    while not any(e["type"] == "trick_won" for e in later_events(client, later)):
        seat = later.get()["to_act"][0]
        assert later.post(seat, {"move": later.get(seat)["legal_moves"][0]}).status_code == 200
    is_problem(concede(later, 1, path="abort"), 409, "abort_too_late")
    replay = {**{k: v for k, v in later.log().items() if k in ("players", "options")}, "seed": SEED,
              "moves": [e["move"] for e in later.log()["entries"]], "end": {"by": "abort", "seat": 1}}
    is_problem(client.post("/v1/games/femkort/replay", json=replay), 422, "abort_too_late")


def later_events(client: FlaskClient, table: Table) -> list[dict[str, Any]]:
    """The events of the session's moves so far, from a stateless replay of its moves."""
    moves = [e["move"] for e in table.log()["entries"]]
    if not moves:
        return []
    state = engine.new_match("femkort", 3, table.log()["options"], SEED)
    events: list[dict[str, Any]] = []
    for move in moves:
        state, happened = engine.apply(state, move)
        events += happened
    return events


def test_concede_and_abort_refuse_what_they_should(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3)
    for path in ("concede", "abort"):
        is_problem(client.post(f"/v1/sessions/{table.id}/{path}"), 401, "unauthorized")
        is_problem(client.post(f"/v1/sessions/{table.id}/{path}", headers={"Authorization": "Bearer " + "x" * 40}),
                   401, "unauthorized")
        is_problem(client.post(f"/v1/sessions/{'n' * 22}/{path}", headers=table.auth(0)), 404, "session_not_found")
        is_problem(concede(table, 0, {"reason": "x" * 201}, path), 400, "invalid_request")
        is_problem(concede(table, 0, {"why": "x"}, path), 400, "invalid_request")
        is_problem(concede(table, 0, [1], path), 400, "invalid_request")
    assert table.get()["version"] == 0


def test_replay_end_is_checked(client: FlaskClient) -> None:
    base = {"players": 3, "seed": SEED, "moves": []}
    for end, code in (({"by": "nap", "seat": 0}, "invalid_request"), ({"by": "timeout"}, "invalid_request"),
                      ({"by": "timeout", "seat": -1}, "invalid_request")):
        is_problem(client.post("/v1/games/femkort/replay", json={**base, "end": end}), 400, code)
    is_problem(client.post("/v1/games/femkort/replay", json={**base, "end": {"by": "timeout", "seat": 3}}),
               422, "invalid_request")
    out = client.post("/v1/games/femkort/replay", json={**base, "end": {"by": "concession", "seat": 1}}).get_json()
    assert out["finished"] and out["result"]["forfeited"] == 1 and out["legal_moves"] == []


# ----- presence ------------------------------------------------------------------------------
def test_presence_shows_who_holds_a_long_poll(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3)
    done = threading.Event()

    def poll() -> None:
        table.get(2, "?after=0&wait=3")
        done.set()
    threading.Thread(target=poll, daemon=True).start()
    present = wait_until(lambda: [p for p in table.get()["presence"] if p["connected"]], timeout=3.0)
    assert [p["seat"] for p in present] == [2] and present[0]["since"].endswith("Z")
    seat = table.get()["to_act"][0]
    assert table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).status_code == 200
    assert done.wait(3.0)
    wait_until(lambda: not any(p["connected"] for p in table.get()["presence"]), timeout=2.0)


def test_presence_shows_who_holds_an_event_stream(client: FlaskClient) -> None:
    table = Table(client, "femkort", players=3)
    resp = client.get(f"/v1/sessions/{table.id}/events", headers=table.auth(1), buffered=False)
    chunks = iter(resp.response)
    first = b""
    while b"event: view" not in first:
        first += next(chunks)
    present = wait_until(lambda: [p["seat"] for p in table.get()["presence"] if p["connected"]], timeout=2.0)
    assert present == [1]
    resp.close()
    wait_until(lambda: not any(p["connected"] for p in table.get()["presence"]), timeout=2.0)


# ----- hidden cards -----------------------------------------------------------------------
@pytest.mark.parametrize("game", ["norrlandsknack", "irish_loo", "jewel", "davoserjazz"])
def test_moves_the_service_makes_and_endings_leak_no_hidden_card(app: Flask, client: FlaskClient, game: str) -> None:
    """The service plays every seat (auto policy, short move limit); meanwhile, and after a concession ends
    another session, no spectator answer, event or public log entry shows a card of any hand."""
    stop_appliers(app)
    table = Table(client, game, seed=SEED, clock={"move_ms": 100, "policy": "auto"})
    hidden_by_now = 0
    for _ in range(40):
        time.sleep(0.12)
        app.extensions["timeout_applier"].run_once()
        spectator, log = table.get(), table.log()
        if spectator["finished"]:
            break
        state = {k: v for k, v in true_state(app, table.id).items() if k != REF}
        hands = Counter(c for hand in state.get("hands", []) for c in hand)
        pack = Counter(engine.get_game(game).pack(state["players"], state["options"]))
        assert not hidden_copies_shown(spectator, hands, pack), game
        _, stored = app.extensions["session_store"].log(table.id)
        for shown, true in zip(log["entries"], stored):  # the service's moves are redacted like anyone's
            withheld = [k for k in true["move"] if k in true["hidden"]]
            hidden_by_now += len(withheld)
            assert shown["hidden"] == true["hidden"] and not set(withheld) & set(shown["move"])
        assert state["seed"] not in orjson.dumps(log).decode()
    if game in ("norrlandsknack", "irish_loo"):
        assert hidden_by_now, "no move with a hidden parameter was made: the check checked nothing"
    ended = Table(client, game, seed=SEED)
    body = concede(ended, 0, {"reason": "bye"}).get_json()
    for seat in (None, 1):
        answer = ended.get(seat)
        state = true_state(app, ended.id)
        others = Counter(c for s, hand in enumerate(state.get("hands", [])) if s != seat for c in hand)
        pack = Counter(engine.get_game(game).pack(state["players"], state["options"]))
        own = Counter(state["hands"][seat]) if seat is not None else None
        assert not hidden_copies_shown(answer["view"], others, pack, own)
    assert body["result"]["ended_by"] == "concession"


def test_a_random_field_of_clocked_sessions_keeps_every_rule(app: Flask, client: FlaskClient) -> None:
    """Concessions, aborts and moves at random on sessions of every policy: every answer is a valid view,
    the log replays (with its end) to the session's result."""
    stop_appliers(app)
    rng = random.Random(16)
    for trial in range(6):
        policy = ("forfeit", "auto", "penalty")[trial % 3]
        table = clocked(client, move_ms=600_000, policy=policy)
        while not table.get()["finished"]:
            roll = rng.random()
            seat = rng.randrange(3)
            if roll < 0.04:
                resp = concede(table, seat, path="abort")
                assert resp.status_code in (200, 409)
            elif roll < 0.08:
                assert concede(table, seat).status_code in (200, 409)
            else:
                on = table.get()["to_act"][0]
                assert table.post(on, {"move": rng.choice(table.get(on)["legal_moves"])}).status_code == 200
        log = table.log()
        replayed = client.post("/v1/games/femkort/replay", json=log["replay"])
        assert replayed.status_code == 200, replayed.get_json()
        expected = {k: v for k, v in log["result"].items() if k != "penalties"}
        assert replayed.get_json()["result"] == expected


def test_a_full_session_ends_by_forfeit_whatever_the_policy(make_app: Callable[..., Flask]) -> None:
    """At MAX_MOVES the service makes no move either: a timeout under auto forfeits."""
    small = make_app(max_moves=2)
    stop_appliers(small)
    table = clocked(small.test_client(), move_ms=100, policy="auto")
    for _ in range(2):
        seat = table.get()["to_act"][0]
        assert table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).status_code == 200
    seat = table.get()["to_act"][0]
    time.sleep(0.15)
    assert small.extensions["timeout_applier"].run_once() == 1
    result = table.get()["result"]
    assert result["ended_by"] == "timeout" and result["forfeited"] == seat
    assert "MAX_MOVES" in table.log()["entries"][-1]["reason"]


def test_a_concession_after_the_deadline_finds_the_timeout_applied_first(app: Flask, client: FlaskClient) -> None:
    stop_appliers(app)
    table = clocked(client, move_ms=120, policy="forfeit")
    seat = table.get()["to_act"][0]
    time.sleep(0.2)
    is_problem(concede(table, seat, {"reason": "too late"}), 409, "match_over")
    assert table.get()["result"]["ended_by"] == "timeout"
    assert [e["type"] for e in table.log()["entries"]] == ["timeout"]


def test_a_timeout_wakes_event_streams_and_long_polls(app: Flask, client: FlaskClient) -> None:
    from tests.api.test_events import Reader
    table = clocked(client, move_ms=300, policy="auto")
    app.extensions["timeout_applier"].start()
    reader = Reader(client, table.id, table.auth(0), stop_after=3)
    started = time.monotonic()
    polled = table.get(1, "?after=0&wait=5")
    assert polled["version"] >= 1 and time.monotonic() - started < 2.0
    events = reader.finish(timeout=5.0)
    assert [e[:2] for e in events] == [("view", 0), ("view", 1), ("view", 2)]
    assert events[1][2]["clock"]["policy"] == "auto" and events[1][2]["presence"][0]["connected"]
    stop_appliers(app)


def test_a_timeout_due_while_redis_is_down_is_applied_once_it_is_back(make_app: Callable[..., Flask]) -> None:
    """The applier outlives a dead Redis (it only logs), and applies the timeout when Redis is back."""
    from tests.redis_server import RedisServer
    with RedisServer(appendonly=True) as own:
        app_ = make_app(server=own)
        applier: Applier = app_.extensions["timeout_applier"]
        applier.stop()
        table = clocked(app_.test_client(), move_ms=300, policy="forfeit")
        time.sleep(1.1)  # the append-only file holds the session (appendfsync everysec)
        own.kill()
        applier._stopped = False
        applier.ensure_running()
        time.sleep(0.8)  # the deadline is past and Redis down: the applier fails, and goes on
        assert applier._failing and applier.applied == 0
        own.start()
        wait_until(lambda: applier.applied == 1, timeout=4.0)
        assert table.get()["result"]["ended_by"] == "timeout"
        stop_appliers(app_)


def test_a_backlog_of_deadlines_is_worked_through_without_pausing(app: Flask, client: FlaskClient,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from service.sessions import timeouts
    stop_appliers(app)
    monkeypatch.setattr(timeouts, "BATCH", 2)
    tables = [clocked(client, move_ms=100, policy="forfeit") for _ in range(5)]
    time.sleep(0.15)
    applier: Applier = app.extensions["timeout_applier"]
    looks = 0
    while applier.applied < 5:
        applier.run_once()
        looks += 1
        assert applier.busy == (looks < 3)
    assert looks == 3 and all(t.get()["result"]["ended_by"] == "timeout" for t in tables)


def test_missed_versions_resent_by_a_stream_carry_their_own_clocks(app: Flask, client: FlaskClient) -> None:
    """A stream that resumes computes each missed version's view again; its clock is that version's (the
    deadlines and which clocks ran then), from the log."""
    from tests.api.test_events import Reader
    stop_appliers(app)
    table = clocked(client, move_ms=600_000, bank_ms=3_600_000, increment_ms=500)
    answers = {}
    for _ in range(4):
        seat = table.get()["to_act"][0]
        answer = table.post(seat, {"move": table.get(seat)["legal_moves"][0]}).get_json()
        answers[answer["version"]] = answer
        time.sleep(0.02)

    def timing(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(s["seat"], s["running"], s["deadline_ms"]) for s in answer["clock"]["seats"]]
    resumed = Reader(client, table.id, {**table.auth(0), "Last-Event-ID": "1"}, stop_after=3).finish()
    assert [e[1] for e in resumed] == [2, 3, 4]
    for _, version, data in resumed:
        assert timing(data) == timing(answers[version]), version
