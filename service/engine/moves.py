"""Moves: the JSON objects clients send, ``{"seat": 1, "action": "play", "card": "QS"}``.

Each game declares its vocabulary as ``Action`` values; ``read_action`` and ``check_params`` check a move against it
before any rule is consulted, so a game's handlers only ever see well-formed moves.
"""
from __future__ import annotations

from collections.abc import Mapping, Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .cards import ALL_CODES
from .errors import IllegalMove

Move = dict[str, Any]
CARD_KINDS = frozenset({"card", "cards", "runs"})  # the kinds whose values are card codes
CARD_PATTERN = "^([2-9TJQKA][CDHS]|JK)$"


@dataclass(frozen=True)
class Param:
    """A move parameter. kind: ``card``, ``cards`` (list of codes), ``runs`` (a list of lists of card codes,
    such as declared sequences), ``integer``, ``string``, ``boolean``, ``strings`` (a list of strings the game's
    handler judges itself, where its spec gives its own reasons for bad items)."""

    kind: str
    doc: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    # May the move leave it out? (The handler then applies the spec's default.)
    optional: bool = False

    def valid(self, value: Any, codes: AbstractSet[str] = ALL_CODES) -> bool:
        """Is ``value`` of the right type and range? A card must be one of ``codes``, the cards of the game's
        pack (a well-formed code of another pack is a bad parameter too, not a card the seat lacks)."""
        if self.kind == "card":
            return type(value) is str and value in codes
        if self.kind == "cards":
            return isinstance(value, list) and all(isinstance(c, str) and c in codes for c in value)
        if self.kind == "strings":
            return isinstance(value, list) and all(isinstance(c, str) for c in value)
        if self.kind == "runs":
            return isinstance(value, list) and len(value) <= 16 and all(
                isinstance(run, list) and len(run) <= 52 and all(isinstance(c, str) and c in codes for c in run)
                for run in value)
        if self.kind == "boolean":
            return type(value) is bool
        if self.kind == "integer":
            return (isinstance(value, int) and not isinstance(value, bool)
                    and (self.minimum is None or value >= self.minimum)
                    and (self.maximum is None or value <= self.maximum))
        return isinstance(value, str) and (not self.choices or value in self.choices)

    def schema(self, refs: bool = True) -> dict[str, Any]:
        """JSON Schema of the value; ``refs`` points cards at the OpenAPI component ``Card``."""
        card: dict[str, Any] = {"$ref": "#/components/schemas/Card"} if refs else {
            "type": "string", "pattern": CARD_PATTERN}
        if self.kind == "card":
            return card
        if self.kind == "cards":
            return {"type": "array", "items": card}
        if self.kind == "strings":
            return {"type": "array", "items": {"type": "string"}}
        if self.kind == "runs":
            return {"type": "array", "maxItems": 16, "items": {"type": "array", "maxItems": 52, "items": card}}
        if self.kind == "boolean":
            return {"type": "boolean"}
        if self.kind == "integer":
            out: dict[str, Any] = {"type": "integer"}
            if self.minimum is not None:
                out["minimum"] = self.minimum
            if self.maximum is not None:
                out["maximum"] = self.maximum
            return out
        return {"type": "string", "enum": list(self.choices)} if self.choices else {"type": "string"}


@dataclass(frozen=True)
class Action:
    doc: str
    params: Mapping[str, Param] = field(default_factory=dict)
    example: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def required(self) -> tuple[str, ...]:
        """The parameters a move must have (the others may be left out)."""
        return tuple(k for k, p in self.params.items() if not p.optional)


def read_action(raw: Any, vocabulary: Mapping[str, Action], players: int) -> tuple[int, str]:
    """The seat and action of a move, refused in the contract's order: not an object or no known action
    (``unknown_action``), then a seat that is not a seat of the table (``invalid_parameters``)."""
    if type(raw) is not dict:
        raise IllegalMove("invalid_parameters", "A move must be a JSON object with 'seat' and 'action'.")
    action = raw.get("action")
    if type(action) is not str or action not in vocabulary:
        verbs = ", ".join(vocabulary)
        raise IllegalMove("unknown_action", f"This game has no action {action!r}; its actions are: {verbs}.",
                          action=action if isinstance(action, str) else None)
    seat = raw.get("seat")
    if type(seat) is not int or not 0 <= seat < players:  # type() also refuses bool, an int subclass
        raise IllegalMove("invalid_parameters", f"'seat' must be a seat number from 0 to {players - 1}.")
    return seat, action


def check_params(raw: Move, spec: Action, action: str, codes: AbstractSet[str] = ALL_CODES) -> None:
    """The move's other parameters: each known and valid for the action, none missing, every card one of
    ``codes`` (the game's pack). A ``ranges`` key (as a legal-move entry carries beside a concrete value,
    docs/events.md) is accepted and ignored."""
    params = spec.params
    unread = len(raw) - 2  # the usual move: only declared parameters, each valid, none required missing
    for key, param in params.items():
        if key in raw:
            if not param.valid(raw[key], codes):
                break
            unread -= 1
        elif not param.optional:
            break
    else:
        if unread == 0:
            return
    _find_bad_param(raw, params, spec, action, codes)


def _card_note(kind: str) -> str:
    if kind not in CARD_KINDS:
        return ""
    return " (a card code of this game's pack)" if kind == "card" else " (card codes of this game's pack)"


def _find_bad_param(raw: Move, params: Mapping[str, Param], spec: Action, action: str,
                    codes: AbstractSet[str]) -> None:
    """The refusal for the first bad parameter in the move's own order, then the first missing one."""
    for key, value in raw.items():
        if key == "seat" or key == "action" or key == "ranges":
            continue
        param = params.get(key)
        if param is None:
            raise IllegalMove("invalid_parameters", f"'{action}' takes no parameter '{key}'.")
        if not param.valid(value, codes):
            raise IllegalMove("invalid_parameters", f"'{key}' is not valid for '{action}': {param.doc or param.kind}"
                              f"{_card_note(param.kind)}.")
    if len(raw) != len(params) + 2 + ("ranges" in raw):  # every key was checked, so a shortfall is a missing one
        missing = [k for k in spec.required if k not in raw]
        if missing:
            raise IllegalMove("invalid_parameters", f"'{action}' needs '{missing[0]}'.")
