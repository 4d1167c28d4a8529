"""The session domain on its own: sessions created, moved, conceded and read with no HTTP layer (no Flask
app, no request), on the in-process store. Its refusals are its own errors, each with the stable code the
API answers with (tests/api/test_session_problems.py checks the answers)."""
from __future__ import annotations

from typing import Any

import pytest

from service.config import Config
from service.sessions.errors import (AbortTooLate, Forbidden, IdempotencyKeyReused, MatchOver, SessionNotFound,
                                     VersionConflict)
from service.sessions.moves import move_request
from service.sessions.referee import record_of
from service.sessions.service import SessionService
from service.storage import MemoryStore

SEED = "5eed" * 8


@pytest.fixture
def sessions() -> SessionService:
    return SessionService(MemoryStore(), Config(testing=True, log_level="WARNING"))


def created(sessions: SessionService, **spec: Any) -> dict[str, Any]:
    return sessions.create({"game": "femkort", "players": 3, "options": {"deals": 1}, "seed": SEED, **spec})


def first_move(sessions: SessionService, sid: str) -> tuple[int, dict[str, Any]]:
    """The seat to act and its first legal move."""
    answer = sessions.seat_answer(sessions.find(sid), None)
    seat = answer["to_act"][0]
    return seat, sessions.seat_answer(sessions.find(sid), seat)["legal_moves"][0]


def play(sessions: SessionService, sid: str, key: str | None = None) -> dict[str, Any]:
    seat, move = first_move(sessions, sid)
    session = sessions.find(sid)
    return sessions.move(session, move_request(seat, move, session.version, key)).body


def test_a_session_is_played_conceded_and_logged_without_the_http_layer(sessions: SessionService) -> None:
    sid = created(sessions)["id"]
    first = play(sessions, sid)
    second = play(sessions, sid)
    assert (first["version"], second["version"]) == (1, 2)
    seat = second["to_act"][0]
    ended = sessions.concede(sessions.find(sid), seat, "enough")
    assert ended["finished"] and ended["version"] == 3 and ended["result"]["ended_by"] == "concession"
    log = sessions.public_log(sid)
    assert [e["type"] for e in log["entries"]] == ["move", "move", "concession"]
    assert log["entries"][-1]["reason"] == "enough" and log["replay"]["end"] == {"by": "concession", "seat": seat}


def test_a_move_on_an_old_version_is_a_conflict_that_names_the_current_one(sessions: SessionService) -> None:
    sid = created(sessions)["id"]
    play(sessions, sid)
    seat, move = first_move(sessions, sid)
    with pytest.raises(VersionConflict) as refused:
        sessions.move(sessions.find(sid), move_request(seat, move, 0, None))
    assert refused.value.code == "version_conflict" and refused.value.facts == {"version": 1}
    assert refused.value.detail == "The session is at version 1, not 0: reload it and decide again."


def test_a_seat_cannot_move_for_another() -> None:
    with pytest.raises(Forbidden, match="Your token is seat 0's: you cannot move for seat 2."):
        move_request(0, {"seat": 2, "action": "play"}, None, None)


def test_an_idempotency_key_answers_its_retry_and_refuses_another_move(sessions: SessionService) -> None:
    sid = created(sessions)["id"]
    seat, move = first_move(sessions, sid)
    session = sessions.find(sid)
    answer = sessions.move(session, move_request(seat, move, None, "k-1"))
    retried = sessions.move(sessions.find(sid), move_request(seat, move, None, "k-1"))
    assert retried.replayed and retried.body == answer.body and not answer.replayed
    with pytest.raises(IdempotencyKeyReused):
        sessions.move(sessions.find(sid), move_request(seat, move, 1, "k-1"))  # another body: another request


def test_an_ended_match_takes_no_concession_and_a_played_trick_no_abort(sessions: SessionService) -> None:
    sid = created(sessions)["id"]
    while record_of(sessions.find(sid).state)["open"]:
        play(sessions, sid)
    session = sessions.find(sid)
    with pytest.raises(AbortTooLate):
        sessions.abort(session, 0, None)
    sessions.concede(session, 0, None)
    with pytest.raises(MatchOver):
        sessions.concede(sessions.find(sid), 1, None)


def test_an_unknown_or_malformed_id_is_not_found(sessions: SessionService) -> None:
    for sid in ("A" * 22, "no"):
        with pytest.raises(SessionNotFound) as missing:
            sessions.find(sid)
        assert missing.value.code == "session_not_found"
        with pytest.raises(SessionNotFound):
            sessions.public_log(sid)


def test_a_time_control_is_kept_in_one_form_however_it_was_written(sessions: SessionService) -> None:
    """A hosted tournament's director hands over the clock its description gives (no defaults filled, keys in
    any order); the session keeps it as POST /v1/sessions would have."""
    clock = created(sessions, clock={"move_ms": 60_000})["clock"]
    assert list(clock.items()) == [("policy", "forfeit"), ("move_ms", 60_000), ("bank_ms", None),
                                   ("increment_ms", 0)]
