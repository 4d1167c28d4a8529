"""The core end-of-deal step: every game ends a match through it, and it keeps the order games relied on."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from service.engine.base import OVER
from service.engine.end_of_deal import close_match, dealer_in_turn, end_deal

GAMES = Path(__file__).resolve().parents[2] / "service" / "engine" / "games"
State = dict[str, Any]


class Recorder:
    """A game that records what the step asked of it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def new_deal(self, state: State, events: list[dict[str, Any]]) -> None:
        self.calls.append(f"new_deal after dealer {state['dealer']}")
        events.append({"type": "deal_started"})


def test_a_match_over_runs_the_final_settlement_before_its_event() -> None:
    game, state, events = Recorder(), {"phase": "play", "pot": 5, "dealer": 0}, [{"type": "deal_settled"}]

    def final(s: State) -> dict[str, Any]:
        assert s["phase"] == "play", "the final settlement still sees the deal's phase"
        s["pot"] = 0
        return {"reason": "deals", "pot_shared": [5]}
    end_deal(game, state, events, True, final=final, between=lambda s: game.calls.append("between"))
    assert state == {"phase": OVER, "pot": 0, "dealer": 0}
    assert events == [{"type": "deal_settled"}, {"type": "match_over", "reason": "deals", "pot_shared": [5]}]
    assert list(events[-1]) == ["type", "reason", "pot_shared"]  # the event's keys in the game's order
    assert game.calls == []


def test_a_match_that_goes_on_changes_what_changes_between_deals_then_deals() -> None:
    game, state = Recorder(), {"phase": "play", "dealer": 0}
    events: list[dict[str, Any]] = []
    end_deal(game, state, events, False, final=lambda s: pytest.fail("no final settlement"),
             between=lambda s: s.update(dealer=2))
    assert game.calls == ["new_deal after dealer 2"]
    assert events == [{"type": "deal_started"}] and state["phase"] == "play"


def test_a_match_closed_outside_a_settlement() -> None:
    state: State = {"phase": "between_deals"}
    events: list[dict[str, Any]] = []
    close_match(state, events, {"winner": 1})
    assert state["phase"] == OVER and events == [{"type": "match_over", "winner": 1}]


@pytest.mark.parametrize(("step", "dealers"), [(1, [2, 3, 0, 1, 2]), (-1, [2, 1, 0, 3, 2])])
def test_the_deal_passes_in_turn_from_the_first_dealer(step: int, dealers: list[int]) -> None:
    assert [dealer_in_turn({"options": {"first_dealer": 2}, "deal_no": k}, 4, step) for k in range(1, 6)] == dealers


def ends_a_match_itself(tree: ast.AST) -> list[int]:
    """The lines of a module that set the phase to OVER or name the ``match_over`` event."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "match_over":
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == "OVER":
            lines.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == "phase" and isinstance(node.value, ast.Name) \
                and node.value.id == "OVER":
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("module", sorted(p.name for p in GAMES.glob("*.py")))
def test_no_game_ends_a_match_but_through_the_core_step(module: str) -> None:
    """The tail (phase over, ``match_over``, the next deal) is written once, in service/engine/end_of_deal.py."""
    found = ends_a_match_itself(ast.parse((GAMES / module).read_text()))
    assert not found, f"{module} ends a match itself at lines {found}: use end_of_deal.end_deal or close_match"
