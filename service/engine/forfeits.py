"""The core's ruling on a match cut short by a seat's forfeit (a timeout or a concession: engine/endings.py).

The forfeiting seat ranks last and pays one unit to every other seat (a zero sum); the others rank in seat order
with equal payoffs. In partnerships the seat's whole side loses, each of its seats paying the game's stake to one
of the other side, the seat ranked below its partner. A game whose page says otherwise overrides
``Game.forfeit_result``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

State = dict[str, Any]


def core_standing(state: State) -> list[Any]:
    """Each seat's score as the match stands: ``scores`` where the game keeps points, else ``chips``, else
    zeros."""
    for key in ("scores", "chips"):
        values = state.get(key)
        if isinstance(values, list) and len(values) == state["players"]:
            return list(values)
    return [0] * state["players"]


def core_forfeit_result(state: State, seat: int, standing: list[Any], sides: list[list[int]] | None,
                        stake: Callable[[State], int]) -> dict[str, Any]:
    """The result when ``seat`` forfeits: ``standing`` the scores as the match stands, ``sides`` the fixed
    partnerships (None: none), ``stake`` what each losing partner pays."""
    n = state["players"]
    if sides is None:
        others = [s for s in range(n) if s != seat]
        return {"scores": standing, "payoffs": [-(n - 1) if s == seat else 1 for s in range(n)],
                "ranking": [*others, seat]}
    losers = next(side for side in sides if seat in side)
    paid = stake(state)
    return {"scores": standing, "payoffs": [-paid if s in losers else paid for s in range(n)],
            "ranking": [*(s for s in range(n) if s not in losers), *(s for s in losers if s != seat), seat]}
