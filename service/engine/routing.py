"""How a move finds its step: the refusals in the contract's order, before any of the game's own.

Unknown action, bad seat, the phase's ``guard`` (the game's own reasons its spec puts first), wrong phase, not
your turn, the step's ``early`` refusals, bad parameters; then the step's handler gives the game's own reasons
(engine/flow.py). A game never writes ``if phase == ...`` or checks whose turn it is.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import IllegalMove
from .flow import Phase, Step
from .flow import not_your_turn as turn_refusal
from .moves import check_params, read_action

if TYPE_CHECKING:
    from .base import Game, State


def route(game: Game, state: State, raw: Any) -> Step:
    """The step that takes ``raw`` in ``state``, or the first refusal in the contract's order."""
    seat, action = read_action(raw, game.actions, state["players"])
    phase: Phase = game.phases[state["phase"]]
    if phase.guard is not None:
        phase.guard(state, seat, action)
    step: Step | None = phase.steps.get(action)
    if step is None:
        raise IllegalMove("wrong_phase", f"'{action}' is not possible now ({state['phase']} phase).")
    closed = step.closed(state) if step.closed is not None else None
    if closed is not None:
        raise IllegalMove("wrong_phase", closed)
    due = step.seats(state)
    if seat not in due:
        raise turn_refusal(seat, due, step.verb)
    if step.early is not None:
        step.early(state, raw)
    check_params(raw, game.actions[action], action, game.card_codes(state["players"], state["options"]))
    return step
