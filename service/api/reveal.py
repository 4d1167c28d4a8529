"""What a session move shows a spectator: which of its parameters the public log may print before the end.

Kept apart from the session service so that it can move into the engine whole (it is a rule of the game's
information, not of HTTP).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from .. import engine
from ..engine.cards import is_card_code
from .games import guarded


def cards_in(value: Any) -> Iterator[str]:
    """Every card code anywhere in a JSON value (dict values and list items, recursively)."""
    if isinstance(value, str):
        if is_card_code(value):
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from cards_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)


def visible_cards(state: engine.State, cards: Iterable[str]) -> Counter[str]:
    """How many copies of each of ``cards`` a spectator can see.

    Counted in the serialised spectator view: a card code appears there only as a JSON string value
    (views never use cards as keys), so counting ``"QS"`` is exact; serialising and counting in C costs
    a fraction of walking the view in Python.
    """
    wanted = set(cards)
    if not wanted:
        return Counter()
    blob = orjson.dumps(guarded(engine.view, state, None))
    return Counter({c: blob.count(b'"' + c.encode() + b'"') for c in wanted})


def hidden_params(move: dict[str, Any], before: Counter[str], after: Counter[str]) -> list[str]:
    """The move's parameters a spectator must not read yet.

    ``before``/``after`` count the cards a spectator sees around the move (``visible_cards``). A parameter
    naming cards is public only when the move put those cards in plain view: the spectator sees that many
    more copies of each after the move than before (a card played to a trick). Cards that went face down
    (discards, an exchange, a hidden declaration) stay hidden until the match ends. An empty list is hidden
    too, so that "declared nothing" cannot be told from "declared something". Other values (bids, stakes,
    a named suit) are announced at the table and are public.
    """
    newly = after - before
    hidden = []
    for name in sorted(k for k in move if k not in ("seat", "action")):
        value = move[name]
        need = Counter(cards_in(value))
        if (isinstance(value, (list, dict)) and not value) or any(newly[c] < n for c, n in need.items()):
            hidden.append(name)
        else:
            newly -= need
    return hidden


def apply_and_redact(state: engine.State, move: dict[str, Any]) -> tuple[engine.State, list[str]]:
    """``move`` applied to ``state`` (in place), and the names of its parameters the log must hide for now."""
    params = {k: v for k, v in move.items() if k not in ("seat", "action")}
    named = list(cards_in(params))
    before = visible_cards(state, named) if params else None
    new_state, _events = guarded(engine.apply, state, move, in_place=True)
    hidden = hidden_params(move, before, visible_cards(new_state, named)) if before is not None else []
    return new_state, hidden
