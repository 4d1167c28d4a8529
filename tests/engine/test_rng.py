"""The seeded shuffle is fixed forever: golden outputs and an independent re-implementation."""
from __future__ import annotations

import hashlib

import pytest

from service.engine.cards import STANDARD_PACK
from service.engine.rng import shuffled


def reference_shuffle(items: list[str], seed: str, label: str) -> list[str]:
    """The algorithm exactly as docs/fair-dealing.md states it, written independently."""
    seed = seed if len(seed) % 2 == 0 else "0" + seed
    key = bytes.fromhex(seed) + b"|" + label.encode() + b"|"
    numbers: list[int] = []
    block = 0

    def draw() -> int:
        nonlocal block
        if not numbers:
            d = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
            numbers.extend(int.from_bytes(d[i:i + 8], "big") for i in range(0, 32, 8))
            block += 1
        return numbers.pop(0)

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        m = i + 1
        limit = 2**64 - 2**64 % m
        x = draw()
        while x >= limit:
            x = draw()
        j = x % m
        out[i], out[j] = out[j], out[i]
    return out


def test_golden_deal() -> None:
    assert shuffled(STANDARD_PACK, "00", "golden/0")[:13] == [
        "9H", "TD", "2C", "8H", "7H", "AC", "7D", "4C", "6D", "KC", "5C", "KH", "KS"]
    assert shuffled(list("abcdef"), "deadbeef", "x") == ["d", "e", "c", "a", "b", "f"]


@pytest.mark.parametrize(("seed", "label"), [("0", "a"), ("ff" * 16, "femkort/3"), ("abc", "davoserjazz/12"),
                                             ("0123456789abcdef", "")])
def test_matches_the_documented_algorithm(seed: str, label: str) -> None:
    assert shuffled(STANDARD_PACK, seed, label) == reference_shuffle(list(STANDARD_PACK), seed, label)


def test_is_a_permutation_and_depends_on_seed_and_label() -> None:
    a = shuffled(STANDARD_PACK, "01", "x/0")
    assert sorted(a) == sorted(STANDARD_PACK)
    assert a != shuffled(STANDARD_PACK, "02", "x/0")
    assert a != shuffled(STANDARD_PACK, "01", "x/1")
    assert shuffled(STANDARD_PACK, "A1", "x/0") == shuffled(STANDARD_PACK, "a1", "x/0")


def by_hand(items: list[str], stream: list[int]) -> list[str]:
    """The documented algorithm over an explicit list of drawn numbers."""
    out, draws = list(items), iter(stream)
    for i in range(len(out) - 1, 0, -1):
        m = i + 1
        x = next(draws)
        while x >= 2**64 - 2**64 % m:
            x = next(draws)
        j = x % m
        out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("stream", [
    [2**64 - 1, 7, 9, 2**64 - 1, 2**64 - 1, 4, 2, 8, 1, 3, 5, 6],  # rejected at once (m = 6), and later (m = 3)
    [7, 9, 11, 2**64 - 2, 2**64 - 1, 4, 2, 8, 1, 3, 5, 6],         # near the top only at m = 3: rejected there
    [7, 9, 2**64 - 4, 3, 2**64 - 1, 4, 2, 8, 1, 3, 5, 6],          # near the top at m = 4, which divides 2**64
])
def test_rejected_draws_take_the_next_number(monkeypatch: pytest.MonkeyPatch, stream: list[int]) -> None:
    """below(m) rejects x >= 2**64 - 2**64 % m. Real draws almost never come near that (about 2**-58 each), so
    the stream is replaced by one that does, and the shuffle must still follow the rule exactly."""
    from service.engine import rng
    monkeypatch.setattr(rng, "_blocks", lambda prefix, first, count: stream[4 * first:4 * (first + count)])
    rng._shuffled.cache_clear()  # shuffles are remembered: this one must be drawn from the stream above
    assert rng.shuffled(list("abcdef"), "00", "x") == by_hand(list("abcdef"), stream)
    rng._shuffled.cache_clear()


def test_the_fast_path_is_the_documented_algorithm() -> None:
    for k in range(300):
        assert shuffled(STANDARD_PACK, f"{k:x}", f"game/{k}") == reference_shuffle(list(STANDARD_PACK), f"{k:x}",
                                                                                    f"game/{k}")
