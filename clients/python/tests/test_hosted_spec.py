"""The shared library's hosted parts: a hosted description's checks (load_hosted) and the one pairing function
(next_round) with a field that leaves a withdrawn bot out."""
from __future__ import annotations

from typing import Any

import pytest

from card_referee_client.tournament.schedule import Round, matches_of, next_round, round_from_json, round_json
from card_referee_client.tournament.spec import DEFAULT_ABSENT, SpecError, load_hosted

NAMES = ["a", "b", "c", "d", "e", "f"]


def hosted(**extra: Any) -> dict[str, Any]:
    return {"name": "h", "format": "swiss", "rounds": 2, "seed": "ab" * 16,
            "games": [{"game": "femkort", "players": 2}], **extra}


def test_a_hosted_description_takes_its_entries_as_bots_and_the_absent_policy() -> None:
    spec = load_hosted({**hosted(), "bots": [{"name": "ignored", "url": "http://x/"}]}, NAMES)
    assert [b.name for b in spec.bots] == NAMES and all(b.url is None and b.command is None for b in spec.bots)
    assert spec.absent == DEFAULT_ABSENT and spec.start is None
    assert spec.to_json()["absent"] == DEFAULT_ABSENT  # kept with the description
    timed = load_hosted(hosted(absent={"grace_s": 0, "then": "withdraw"}, start="2026-12-01T19:00:00+01:00"), NAMES)
    assert timed.absent == {"grace_s": 0, "then": "withdraw"} and timed.start == "2026-12-01T19:00:00+01:00"


def test_registration_open_checks_the_field_only_once_it_is_known() -> None:
    open_spec = load_hosted(hosted(games=[{"game": "femkort", "players": 4}]), None)
    assert open_spec.bots == ()
    with pytest.raises(SpecError, match="number of bots \\(3\\)"):
        load_hosted(hosted(games=[{"game": "femkort", "players": 4}]), ["a", "b", "c"])


@pytest.mark.parametrize(("extra", "said"), [
    ({"absent": {"grace_s": -1}}, "grace_s"), ({"absent": {"then": "bye"}}, "'then'"),
    ({"absent": {"grace_s": 3, "later": 1}}, "'absent'"), ({"start": "tomorrow"}, "RFC 3339"),
    ({"start": "2026-12-01T19:00:00"}, "offset"), ({"format": "knockout"}, "format"),
    ({"rounds": 0}, "Swiss"), ({"seed": "xyz"}, "hex")])
def test_a_bad_hosted_description_is_named(extra: dict[str, Any], said: str) -> None:
    with pytest.raises(SpecError, match=said):
        load_hosted(hosted(**extra), NAMES)


def test_an_entry_enters_once() -> None:
    with pytest.raises(SpecError, match="only once"):
        load_hosted(hosted(), ["a", "a"])


def test_a_swiss_round_pairs_only_its_field() -> None:
    spec = load_hosted(hosted(), NAMES)
    first = next_round(spec, [], [])
    assert first is not None and first.index == 1 and {b for t in first.tables for b in t} == set(NAMES)
    records = [{"round": 1, "game": "femkort", "players": 2, "board": m.board, "duplicate": True,
                "bots": list(m.seats), "result": {"payoffs": [1, -1], "forfeited": None}, "incidents": []}
               for m in matches_of(spec, first)]
    field = [n for n in NAMES if n != "b"]  # b withdrawn before round 2
    second = next_round(spec, [first], records, field)
    assert second is not None and second.index == 2
    assert "b" not in {x for t in second.tables for x in t} and len(second.byes) == 1  # five left: one sits out
    assert next_round(spec, [first, second], records, field) is None  # two Swiss rounds, then no more
    assert round_json(spec, second, field)["field"] == field
    assert round_from_json(spec, round_json(spec, second, field)) == second


def test_a_round_robin_table_with_a_bot_outside_the_field_is_not_played() -> None:
    spec = load_hosted({**hosted(format="round_robin"), "rounds": 0}, ["a", "b", "c", "d"])
    full = next_round(spec, [], [])
    assert full is not None and len(full.tables) == 2
    without_d = next_round(spec, [], [], ["a", "b", "c"])
    assert without_d is not None and all("d" not in t for t in without_d.tables) and len(without_d.tables) == 1
    assert isinstance(without_d, Round) and without_d.byes == ()
