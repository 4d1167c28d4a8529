"""How a move finds its step: the refusals in the contract's order, before any of the game's own.

Unknown action, bad seat, the phase's refusals (``flow.Phase.route``: the game's guard, wrong phase, not your
turn, the step's early refusals), bad parameters; then the step's rule refuses or lets the move through
(``flow.Step.do``). A game never writes ``if phase == ...`` or checks whose turn it is.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .flow import Phase, Step
from .moves import check_params, read_action

if TYPE_CHECKING:
    from .base import Game, State


def route(game: Game, state: State, raw: Any) -> Step:
    """The step that takes ``raw`` in ``state``, or the first refusal in the contract's order."""
    seat, action = read_action(raw, game.actions, state["players"])
    phase: Phase = game.phases[state["phase"]]
    step = phase.route(state, seat, action)
    check_params(raw, game.actions[action], action, game.card_codes(state["players"], state["options"]))
    return step
