"""What a seat sees: the core's view of a state, and what a public record may show of a move.

A view leaves out every hand but the seat's own (their sizes stay), the keys no seat ever sees (the game's
``secret_keys``, the deal's record) and says whose turn it is in the phase's order of play. A game adds to it
(``Game.view``): what it hides besides, or what a seat may work out from its own hand.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from .cards import count_codes
from .moves import CARD_KINDS, Action, Move

State = dict[str, Any]


def core_view(state: State, seat: int | None, hidden_keys: AbstractSet[str], turn: int | None) -> dict[str, Any]:
    """``state`` as ``seat`` (``None``: a spectator) sees it, ``turn`` being whose turn it is."""
    out = {k: v for k, v in state.items() if k not in hidden_keys}
    hands = state.get("hands")
    if isinstance(hands, list):
        out["hands"] = [list(h) if s == seat else None for s, h in enumerate(hands)]
        out["hand_sizes"] = [len(h) for h in hands]
    out["seat"] = seat
    out["turn"] = turn
    return out


def hidden_params(move: Move, spec: Action, seen_before: Counter[str], seen_after: Callable[[], Counter[str]]
                  ) -> list[str]:
    """The parameters of ``move`` (of the action ``spec``), made when the table saw ``seen_before`` and leaving
    it to see ``seen_after()``, that a public record must leave out until the match is over: a parameter naming
    cards is shown only when the table sees that many more copies of each card it names after the move (cards
    played face up); an empty list of cards, cards laid face down, and a deal's last card when the move also
    clears the table are withheld. Other parameters (a bid, a suit named) are announced at a real table and
    shown."""
    named = {name: count_codes(move[name]) for name, param in spec.params.items()
             if name in move and param.kind in CARD_KINDS}
    if not named:
        return []
    after = seen_after()
    return sorted(name for name, cards in named.items()
                  if not cards or any(after[c] - seen_before[c] < k for c, k in cards.items()))
