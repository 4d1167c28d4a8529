"""Chip arithmetic shared by the games: exact integers only, every chip accounted for."""
from __future__ import annotations

from collections.abc import Sequence


def share_by_weights(total: int, weights: Sequence[int]) -> list[int]:
    """Share ``total`` among places by weight, one place after another, each share rounded up.

    Every rounding favours the earlier place and the shares always add up to ``total``.

    >>> share_by_weights(700, [4, 2, 1, 1])
    [350, 175, 88, 87]
    """
    shares: list[int] = []
    rem = total
    for k in range(len(weights) - 1):
        w_rest = sum(weights[k:])
        share = 0 if w_rest == 0 else (rem * weights[k] + w_rest - 1) // w_rest
        shares.append(share)
        rem -= share
    shares.append(rem)
    return shares


def split_evenly(total: int, seats_in_order: Sequence[int]) -> dict[int, int]:
    """Share ``total`` equally; the odd chips go one each to the seats listed first.

    >>> split_evenly(7, [2, 0, 1])
    {2: 3, 0: 2, 1: 2}
    """
    count = len(seats_in_order)
    base, odd = divmod(total, count)
    return {s: base + (1 if i < odd else 0) for i, s in enumerate(seats_in_order)}


def payoffs_balance(payoffs: Sequence[int]) -> bool:
    return sum(payoffs) == 0
