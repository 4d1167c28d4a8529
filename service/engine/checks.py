"""Small helpers for validating client-supplied states. Each raises InvalidState with a clear message."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import ALL_CODES, Card, codes_of
from .errors import InvalidState


def need(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidState(message)


def is_int(value: Any, lo: int | None = None, hi: int | None = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and (lo is None or value >= lo) and (hi is None or value <= hi))


def need_int(value: Any, label: str, lo: int | None = None, hi: int | None = None) -> int:
    need(is_int(value, lo, hi), f"'{label}' must be a whole number" + _span(lo, hi) + ".")
    return int(value)


def need_bool(value: Any, label: str) -> bool:
    need(isinstance(value, bool), f"'{label}' must be true or false.")
    return bool(value)


def need_seat(value: Any, n: int, label: str) -> int:
    return need_int(value, label, 0, n - 1)


def need_cards(value: Any, label: str) -> list[Card]:
    need(isinstance(value, list) and all(isinstance(c, str) and c in ALL_CODES for c in value),
         f"'{label}' must be a list of card codes.")
    return list(value)


def need_list(value: Any, label: str, length: int | None = None) -> list[Any]:
    need(isinstance(value, list), f"'{label}' must be a list.")
    if length is not None:
        need(len(value) == length, f"'{label}' must have {length} entries.")
    return list(value)


def need_dict(value: Any, label: str, keys: Iterable[str] = ()) -> dict[str, Any]:
    need(isinstance(value, dict), f"'{label}' must be an object.")
    for key in keys:
        need(key in value, f"'{label}' lacks '{key}'.")
    return dict(value)


def need_exact_keys(value: dict[str, Any], label: str, keys: Iterable[str]) -> None:
    extra = sorted(set(value) - set(keys))
    need(not extra, f"'{label}' has an unknown field '{extra[0]}'." if extra else "")


def need_pack(groups: Sequence[Sequence[Card]], pack: Sequence[Card]) -> None:
    """Every card of the pack exactly once across all groups (hands, tricks, stock, discards...)."""
    cards = [c for g in groups for c in g]
    codes = codes_of(tuple(pack))
    if len(cards) == len(pack) and codes == set(cards):
        if len(codes) == len(pack):
            return  # a pack without repeats: same size and same set means each card exactly once
    found = Counter(cards)
    if found == Counter(pack):
        return
    expected = Counter(pack)
    extra = sorted((found - expected).elements())
    missing = sorted((expected - found).elements())
    if extra:
        raise InvalidState(f"The card {extra[0]} appears more often than the pack holds it.", card=extra[0])
    raise InvalidState(f"The card {missing[0]} is missing from the state.", card=missing[0])


def need_plays(value: Any, n: int, label: str) -> list[list[Any]]:
    """A trick's plays: a list of ``[seat, card]`` pairs, no seat twice."""
    plays = need_list(value, label)
    for p in plays:
        need(isinstance(p, list) and len(p) == 2 and is_int(p[0], 0, n - 1)
             and isinstance(p[1], str) and p[1] in ALL_CODES, f"'{label}' entries must be [seat, card].")
    need(len({p[0] for p in plays}) == len(plays), f"A seat plays twice in '{label}'.")
    return plays


def _span(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f" from {lo} to {hi}"
    if lo is not None:
        return f" of at least {lo}"
    if hi is not None:
        return f" of at most {hi}"
    return ""
