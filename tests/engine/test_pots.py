from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine.pots import share_by_weights, split_evenly


@pytest.mark.parametrize(("total", "weights", "shares"), [
    (700, [4, 2, 1, 1], [350, 175, 88, 87]),
    (700, [3, 2, 1], [350, 234, 116]),
    (930, [6, 3, 1, 1, 1], [465, 233, 78, 77, 77]),
    (10, [0, 0, 1], [0, 0, 10]),
    (0, [1, 1], [0, 0]),
])
def test_share_by_weights(total: int, weights: list[int], shares: list[int]) -> None:
    assert share_by_weights(total, weights) == shares


@given(st.integers(0, 10**6), st.lists(st.integers(0, 20), min_size=1, max_size=10).filter(lambda w: sum(w) > 0))
def test_shares_always_add_up(total: int, weights: list[int]) -> None:
    shares = share_by_weights(total, weights)
    assert sum(shares) == total and all(s >= 0 for s in shares)


def test_split_evenly_gives_odd_chips_first() -> None:
    assert split_evenly(7, [2, 0, 1]) == {2: 3, 0: 2, 1: 2}
