"""Game options: declared beside each game, with defaults, checked once at ``new``.

Options arrive as JSON. Each ``Option`` knows its type and range; a game adds cross-option checks
in ``Game.check_options``. A bad value raises ``InvalidOptions`` with a message naming the option.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidOptions

Bound = int | Callable[[int], int] | None
Options = dict[str, Any]


@dataclass(frozen=True)
class Option:
    """One option. ``default`` and the bounds may depend on the number of players ``n``.

    kind: ``"integer"``, ``"boolean"``, ``"choice"`` (one of ``choices``) or ``"custom"``
    (``parse`` turns the raw value into the stored one or raises InvalidOptions).
    """

    name: str
    kind: str
    default: Any
    doc: str
    minimum: Bound = None
    maximum: Bound = None
    choices: tuple[str, ...] = ()
    parse: Callable[[Any, int], Any] | None = None
    schema: Mapping[str, Any] = field(default_factory=dict)
    default_rule: str | None = None  # how an n-dependent default is computed, for the catalogue
    maximum_rule: str | None = None

    def default_for(self, n: int) -> Any:
        return self.default(n) if callable(self.default) else self.default

    def read(self, raw: Any, n: int) -> Any:
        if self.kind == "boolean":
            if not isinstance(raw, bool):
                raise InvalidOptions(f"Option '{self.name}' must be true or false.", option=self.name)
            return raw
        if self.kind == "integer":
            return self._read_int(raw, n)
        if self.kind == "choice":
            if raw not in self.choices:
                allowed = ", ".join(f'"{c}"' for c in self.choices)
                raise InvalidOptions(f"Option '{self.name}' must be one of {allowed}.", option=self.name)
            return raw
        assert self.parse is not None, f"custom option {self.name} needs parse"
        return self.parse(raw, n)

    def _read_int(self, raw: Any, n: int) -> int:
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise InvalidOptions(f"Option '{self.name}' must be a whole number.", option=self.name)
        lo = _bound(self.minimum, n)
        hi = _bound(self.maximum, n)
        if (lo is not None and raw < lo) or (hi is not None and raw > hi):
            span = f"from {lo} to {hi}" if lo is not None and hi is not None else (
                f"at least {lo}" if lo is not None else f"at most {hi}")
            raise InvalidOptions(f"Option '{self.name}' must be {span}; got {raw}.", option=self.name)
        return raw

    def catalogue(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": self.kind if self.kind != "choice" else "string", "description": self.doc}
        entry["default"] = None if callable(self.default) else self.default
        if self.default_rule:
            entry["default_rule"] = self.default_rule
        if isinstance(self.minimum, int):
            entry["minimum"] = self.minimum
        if isinstance(self.maximum, int):
            entry["maximum"] = self.maximum
        if self.maximum_rule:
            entry["maximum_rule"] = self.maximum_rule
        if self.choices:
            entry["enum"] = list(self.choices)
        if self.schema:
            entry.update(self.schema)
            entry["type"] = self.schema.get("type", "custom")
        return entry


def _bound(b: Bound, n: int) -> int | None:
    return b(n) if callable(b) else b


FIRST_DEALER = Option(
    "first_dealer", "integer", 0, "Seat that deals the first deal.",
    minimum=0, maximum=lambda n: n - 1, maximum_rule="players - 1",
)


def read_options(declared: tuple[Option, ...], raw: Any, n: int) -> Options:
    """Every declared option, from ``raw`` where given, else its default."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidOptions("Options must be a JSON object.")
    known = {o.name: o for o in declared}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise InvalidOptions(f"Unknown option '{unknown[0]}'. This game's options are: {', '.join(known)}.",
                             option=unknown[0])
    return {o.name: (o.read(raw[o.name], n) if o.name in raw else o.default_for(n)) for o in declared}


_PLAIN = frozenset({str, int, bool, type(None)})
_NAMES = frozenset({str})
OptionsKey = tuple[tuple[Any, ...], tuple[Any, ...], tuple[type, ...]]


def options_key(raw: Any) -> OptionsKey | None:
    """A hashable form of ``raw`` that tells apart every value ``read_options`` could, for memoising the
    check of a state's options: for a flat object of exact strings, integers, booleans and nulls, its names,
    values and value types in order (the types keep ``true`` apart from ``1``). Anything else (floats,
    nested values, subclasses, non-string names, not an object) gives None: check it uncached."""
    if type(raw) is not dict:
        return None
    names, values = tuple(raw), tuple(raw.values())
    types = tuple(map(type, values))
    if not (_PLAIN.issuperset(types) and _NAMES.issuperset(map(type, names))):
        return None
    return names, values, types


def from_key(key: OptionsKey) -> Options:
    """The options ``key`` stands for (the same names, values and order)."""
    return dict(zip(key[0], key[1]))
