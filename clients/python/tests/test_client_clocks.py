"""The client on the sessions' time controls: the clock in every answer, concede, abort, a timeout that wakes a
long-poll, and a forfeited match recomputed by /replay with its ``end``."""
from __future__ import annotations

import time

import pytest

from card_referee_client import AbortTooLate, Client, ProblemError
from card_referee_client.tournament.play import replay_end, seconds_left

SEED = "a11ce" * 8


def seat_on_turn(client: Client, sid: str) -> int:
    return client.seat(sid, None).get()["to_act"][0]


def test_the_clock_and_presence_come_with_every_answer(client: Client) -> None:
    created = client.create_session("femkort", players=3, seed=SEED, clock={"move_ms": 4000, "policy": "auto"})
    assert created["clock"] and created["clock"]["move_ms"] == 4000
    tokens = [s["token"] for s in created["seats"]]
    mover = seat_on_turn(client, created["id"])
    answer = client.seat(created["id"], tokens[mover]).get()
    clock = answer.get("clock")
    assert clock is not None and clock["policy"] == "auto" and clock["server_time_ms"] > 0
    running = [s for s in clock["seats"] if s["running"]]
    assert [s["seat"] for s in running] == [mover] and running[0]["deadline_ms"] is not None
    assert 3.0 < seconds_left(answer, mover, 99_999) <= 4.0
    assert seconds_left(answer, (mover + 1) % 3, 1234) == 1.234  # not running: the runner's own limit
    assert [p["seat"] for p in answer.get("presence", [])] == [0, 1, 2]


def test_a_concession_under_forfeit_ends_the_match_with_that_seat_last(client: Client) -> None:
    created = client.create_session("davoserjazz", players=3, seed=SEED, clock={"move_ms": 5000, "policy": "forfeit"})
    tokens = [s["token"] for s in created["seats"]]
    answer = client.seat(created["id"], tokens[2]).concede("going home")
    result = answer["result"]
    assert answer["finished"] and result is not None
    assert result.get("ended_by") == "concession" and result.get("forfeited") == 2 and result["ranking"][-1] == 2
    log = client.session_log(created["id"])
    assert any(e.get("type") == "concession" and e.get("reason") == "going home" for e in log["entries"])
    assert replay_end(dict(log)) == {"by": "concession", "seat": 2}
    assert client.replay("davoserjazz", log["replay"] or {})["result"] == result
    with pytest.raises(ProblemError) as over:
        client.seat(created["id"], tokens[0]).concede()
    assert over.value.status == 409 and over.value.code == "match_over"


def test_abort_is_allowed_before_the_first_trick_only(client: Client) -> None:
    created = client.create_session("femkort", players=2, seed=SEED)
    tokens = [s["token"] for s in created["seats"]]
    aborted = client.seat(created["id"], tokens[0]).abort("wrong table")
    assert aborted["finished"] and aborted["result"] and aborted["result"].get("ended_by") == "abort"
    assert aborted["result"]["payoffs"] == [0, 0]

    created = client.create_session("femkort", players=2, seed=SEED)
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    for _ in range(2):  # one whole trick
        mover = seat_on_turn(client, sid)
        seat = client.seat(sid, tokens[mover])
        mine = seat.get()
        seat.move(mine["legal_moves"][0], version=mine["version"])
    with pytest.raises(AbortTooLate) as late:
        client.seat(sid, tokens[0]).abort()
    assert late.value.status == 409 and late.value.code == "abort_too_late"


def test_a_timeout_wakes_a_waiting_client_though_nobody_calls(client: Client) -> None:
    created = client.create_session("femkort", players=2, seed=SEED, clock={"move_ms": 300, "policy": "forfeit"})
    spectator = client.seat(created["id"], None)
    started = time.monotonic()
    answer = spectator.wait(0, 5.0)
    assert time.monotonic() - started < 0.3 + 1.5
    result = answer["result"]
    assert answer["finished"] and result is not None and result.get("ended_by") == "timeout"
    assert result.get("forfeited") in (0, 1)
