"""The engine is pure: ``check_state``, ``resume``, ``apply`` and ``apply_all`` give new states and never change
the ones they are given, and ``resume`` (the check carried on from a state checked or made before) accepts
exactly what the full check accepts, and gives the same state."""
from __future__ import annotations

import json
import random

import pytest

from service import engine
from service.engine import IllegalMove, InvalidState

from .playout import concrete


def sent(state: engine.State) -> engine.State:
    """The state as a client sends it back: a fresh copy through JSON."""
    parsed: engine.State = json.loads(json.dumps(state))
    return parsed


def frozen(state: engine.State) -> bytes:
    """The state's exact bytes (types and key order included), to show it was not changed."""
    return json.dumps(state).encode()


@pytest.mark.parametrize("game_id", sorted(engine.all_games()))
def test_resuming_from_each_answer_checks_a_match_as_the_full_check_does(game_id: str) -> None:
    """Every other move is made here (its state resumed from the last state kept) and every other one elsewhere:
    each resume replays what it missed, gives the state the full check gives, and changes nothing it is given."""
    rng = random.Random(5)
    g = engine.get_game(game_id)
    plain = engine.new_match(game_id, g.default_players, {}, "1e9d")
    kept = engine.check_state(game_id, sent(plain))
    resumed_count = 0
    for i in range(160):
        if engine.is_finished(plain):
            break
        move = concrete(rng.choice(engine.legal_moves(plain)), rng)
        if i % 2:  # elsewhere
            plain, _ = engine.apply(plain, move)
            continue
        client = sent(plain)
        kept_bytes, client_bytes = frozen(kept), frozen(client)
        resumed = engine.resume(kept, client) if engine.deal_of(kept) == engine.deal_of(client) else None
        assert frozen(kept) == kept_bytes and frozen(client) == client_bytes
        resumed_count += resumed is not None
        checked = resumed if resumed is not None else engine.check_state(game_id, client)
        assert checked == engine.check_state(game_id, client) == plain
        answer, _ = engine.apply(checked, move)
        assert frozen(checked) == frozen(plain)  # apply changed nothing it was given
        plain, _ = engine.apply(plain, move)
        assert answer == plain
        kept = answer
    assert resumed_count > 0


def test_the_state_kept_is_given_back_when_nothing_is_left_to_replay() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    for _ in range(3):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    kept = engine.check_state("femkort", sent(state))
    assert engine.resume(kept, sent(state)) is kept
    ahead, _ = engine.apply(state, engine.legal_moves(state)[0])
    resumed = engine.resume(kept, sent(ahead))
    assert resumed == ahead and resumed is not kept and kept == state


def test_what_the_full_check_refuses_is_never_resumed() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    for _ in range(4):
        state, _ = engine.apply(state, engine.legal_moves(state)[0])
    kept = engine.check_state("femkort", sent(state))
    ahead, _ = engine.apply(state, engine.legal_moves(state)[0])
    swapped = sent(ahead)
    swapped["hands"][0], swapped["hands"][1] = swapped["hands"][1], swapped["hands"][0]
    typed = sent(ahead)
    typed["before"]["dealings"] = True  # equal to 1, but not an integer
    other_options = sent(ahead)
    other_options["options"]["deals"] = float(other_options["options"]["deals"])
    for forged in (swapped, typed, other_options):
        assert engine.resume(kept, forged) is None
        with pytest.raises(InvalidState):
            engine.check_state("femkort", forged)
    behind = sent(state)
    behind["log"] = behind["log"][:-1]
    assert engine.resume(kept, behind) is None  # a log that does not start with the kept one's
    assert engine.resume(kept, "not a state") is None


def test_apply_all_is_apply_after_apply_with_one_copy() -> None:
    rng = random.Random(7)
    start = engine.new_match("tomato", 4, {}, "77")
    state, moves, events = start, [], []
    for _ in range(40):
        move = concrete(rng.choice(engine.legal_moves(state)), rng)
        state, news = engine.apply(state, move)
        moves.append(move)
        events.append(news)
    start_bytes = frozen(start)
    paced: list[int] = []
    after, news = engine.apply_all(start, moves, lambda: paced.append(1))
    assert after == state and news == events and len(paced) == len(moves)
    assert frozen(start) == start_bytes
    waiting = next(s for s in range(4) if s not in engine.to_act(state))
    wrong = {"seat": waiting, "action": "play", "card": "2C"}
    with pytest.raises(IllegalMove) as alone:
        engine.apply(state, wrong)
    with pytest.raises(IllegalMove) as refused:
        engine.apply_all(start, [*moves, wrong])
    assert refused.value.details["index"] == len(moves)
    assert (refused.value.reason, refused.value.message) == (alone.value.reason, alone.value.message)
    assert frozen(start) == start_bytes


def test_a_refused_move_changes_nothing() -> None:
    state = engine.new_match("femkort", 3, {}, "5eed")
    before = frozen(state)
    waiting = next(s for s in range(3) if s not in engine.to_act(state))
    with pytest.raises(IllegalMove):
        engine.apply(state, {"seat": waiting, "action": "play", "card": "2C"})
    assert frozen(state) == before
