"""Seats are integers 0..n-1 in clockwise order; "left" is the next seat clockwise."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Seat = int


def left(seat: Seat, n: int) -> Seat:
    return (seat + 1) % n


def right(seat: Seat, n: int) -> Seat:
    return (seat - 1) % n


def order_from(start: Seat, n: int, step: int = 1) -> list[Seat]:
    """All n seats starting at ``start``, clockwise (``step=1``) or anticlockwise (``step=-1``).

    >>> order_from(2, 4)
    [2, 3, 0, 1]
    """
    return [(start + step * i) % n for i in range(n)]


def next_matching(start: Seat, n: int, keep: Callable[[Seat], bool], step: int = 1) -> Seat | None:
    """The first seat after ``start`` (not ``start`` itself unless it is the only one) that ``keep`` accepts."""
    for i in range(1, n + 1):
        s = (start + step * i) % n
        if keep(s):
            return s
    return None


def rank_seats(n: int, key: Callable[[Seat], Any]) -> list[Seat]:
    """Seats sorted by ``key`` (smallest first); ties keep seat order, so the lower seat comes first."""
    return sorted(range(n), key=key)


def seats_of(values: Iterable[Any], wanted: Any) -> list[Seat]:
    return [s for s, v in enumerate(values) if v == wanted]
